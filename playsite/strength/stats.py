"""The statistics of the strength report: pure functions of counts, no I/O, no clock.

Two questions, two methods (docs/bots/strength.md):

- *Is A stronger than B by a margin?* A sequential probability ratio test per matchup: the
  generalised SPRT (GSPRT) log-likelihood ratio of the observed outcome histogram under two
  Elo hypotheses, `elo0` (H0) and `elo1` (H1), each the multinomial maximum likelihood
  constrained to the expected score of that Elo (`gsprt_llr`). Wald's bounds from `alpha`
  and `beta` turn it into a verdict.
- *Where does each bot stand in the pool?* A Bradley-Terry maximum likelihood fit of every
  decided game (a draw counts half a win each way), by Newton's method, with a weak
  prior that keeps every strength finite; Elo relative to the pool's mean (0). Its spread
  comes from a bootstrap that resamples each matchup's games.

numpy carries the Bradley-Terry fit and its bootstrap (one fit is a few linear solves, a
bootstrap a few hundred fits); the SPRT is a handful of floats.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import attrs
import numpy as np

# ----- Elo and scores -----------------------------------------------------------------------------


def expected_score(elo: float) -> float:
    """The logistic Elo model: the expected score of a side `elo` points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of_score(score: float) -> float:
    """The inverse of `expected_score`, for a score strictly between 0 and 1."""
    return -400.0 * math.log10(1.0 / score - 1.0)


# ----- histograms ---------------------------------------------------------------------------------

TRINOMIAL_SCORES = (0.0, 0.5, 1.0)
"""A single game's score from the perspective's side: loss, draw, win."""
PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A mirror pair's mean score: lost both ... won both."""


@attrs.frozen
class Trinomial:
    """Single games from one side's point of view."""

    losses: int = 0
    draws: int = 0
    wins: int = 0

    @property
    def games(self) -> int:
        return self.losses + self.draws + self.wins

    @property
    def counts(self) -> tuple[int, int, int]:
        return (self.losses, self.draws, self.wins)

    def reversed(self) -> Trinomial:
        """The same games from the other side."""
        return Trinomial(losses=self.wins, draws=self.draws, wins=self.losses)


@attrs.frozen
class Pentanomial:
    """Mirror pairs (the same dice, colours swapped) by pair score: n0 lost both ... n4 won both."""

    n0: int = 0
    n1: int = 0
    n2: int = 0
    n3: int = 0
    n4: int = 0

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def counts(self) -> tuple[int, int, int, int, int]:
        return (self.n0, self.n1, self.n2, self.n3, self.n4)


# ----- the SPRT -----------------------------------------------------------------------------------

EMPTY_OUTCOME = 1e-3
"""Stands in for an outcome never observed (as fishtest regularises): the constrained maximum
likelihood then always has full support, and a run of wins still has a finite ratio."""


class SprtVerdict:
    ACCEPT_H1 = "AcceptH1"
    """The perspective is stronger (by at least `elo1`)."""
    ACCEPT_H0 = "AcceptH0"
    """The perspective is not stronger by the tested margin."""
    CONTINUE = "Continue"
    """Not enough evidence either way yet."""


@attrs.frozen
class SprtParameters:
    elo0: float = 0.0
    """H0: the perspective is at most this much stronger."""
    elo1: float = 50.0
    """H1: the perspective is at least this much stronger."""
    alpha: float = 0.05
    """The probability of accepting H1 when H0 holds."""
    beta: float = 0.05
    """The probability of accepting H0 when H1 holds."""

    def __attrs_post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"an SPRT needs elo0 < elo1, got {self.elo0} and {self.elo1}")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 0.5:
                raise ValueError(f"{name} must lie strictly between 0 and 0.5")

    @property
    def lower(self) -> float:
        """Wald's lower bound: an LLR at or below it accepts H0."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound: an LLR at or above it accepts H1."""
        return math.log((1.0 - self.beta) / self.alpha)


DEFAULT_SPRT = SprtParameters()


@attrs.frozen
class SprtResult:
    llr: float
    lower: float
    upper: float
    verdict: str
    observations: int
    """Mirror pairs plus single games."""


def _constrained_theta(frequencies: Sequence[float], scores: Sequence[float], mean: float) -> float:
    """The Lagrange multiplier θ of the distribution closest (in likelihood) to `frequencies`
    whose expected score is `mean`: p_i = f_i / (1 + θ (a_i - mean)). θ solves
    Σ f_i (a_i - mean) / (1 + θ (a_i - mean)) = 0, a decreasing function of θ on the interval
    where every denominator is positive; found by bisection to the float's resolution."""
    spread = [a - mean for a in scores]
    low, high = -1.0 / max(spread), -1.0 / min(spread)

    def slope(theta: float) -> float:
        return sum(f * d / (1.0 + theta * d) for f, d in zip(frequencies, spread))

    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if slope(middle) > 0.0:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def gsprt_llr(counts: Sequence[float], scores: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (expected score of `elo1`) against H0 (of `elo0`)
    for an outcome histogram `counts` over the outcomes' `scores` (ascending, first 0, last 1).

    Each hypothesis is the maximum likelihood multinomial whose expected score is that of its
    Elo; the ratio is N · Σ f_i log(p1_i / p0_i). No observation: 0."""
    if sum(counts) == 0:
        return 0.0
    regular = [max(float(c), EMPTY_OUTCOME) for c in counts]
    total = sum(regular)
    frequencies = [c / total for c in regular]
    s0, s1 = expected_score(elo0), expected_score(elo1)
    theta0 = _constrained_theta(frequencies, scores, s0)
    theta1 = _constrained_theta(frequencies, scores, s1)
    return total * sum(
        f * (math.log1p(theta0 * (a - s0)) - math.log1p(theta1 * (a - s1))) for f, a in zip(frequencies, scores)
    )


def sprt(pairs: Pentanomial, singles: Trinomial, parameters: SprtParameters = DEFAULT_SPRT) -> SprtResult:
    """The verdict on "the perspective is stronger" from its mirror pairs and single games:
    the two samples are independent, so their log-likelihood ratios add."""
    llr = gsprt_llr(pairs.counts, PENTANOMIAL_SCORES, parameters.elo0, parameters.elo1) + gsprt_llr(
        singles.counts, TRINOMIAL_SCORES, parameters.elo0, parameters.elo1
    )
    if llr >= parameters.upper:
        verdict = SprtVerdict.ACCEPT_H1
    elif llr <= parameters.lower:
        verdict = SprtVerdict.ACCEPT_H0
    else:
        verdict = SprtVerdict.CONTINUE
    return SprtResult(llr, parameters.lower, parameters.upper, verdict, pairs.pairs + singles.games)


# ----- Bradley-Terry ------------------------------------------------------------------------------

PRIOR_GAMES = 1.0
"""Each bot is credited with this many virtual draws against a virtual player of Elo 0: a bot
that won (or lost) every game still gets a finite strength, and bots with no games linking
them are still placed. One game's weight shrinks the estimates only a little."""
BOOTSTRAP_SAMPLES = 200
CONFIDENCE = 0.95
FIT_TOLERANCE = 1e-10
"""The fit stops when no log-strength moves by more than this in one iteration."""
NEWTON_MAX_ITERATIONS = 100


@attrs.frozen
class RankedBot:
    player: str
    elo: float
    ci_low: float
    ci_high: float
    los_vs_next: float | None
    """The likelihood of superiority over the next row; None for the last row."""


def _tables(players: Sequence[str], matchups: Mapping[tuple[str, str], Trinomial]) -> tuple[np.ndarray, ...]:
    index = {player: i for i, player in enumerate(players)}
    firsts = np.array([index[a] for a, _ in matchups], dtype=np.intp)
    seconds = np.array([index[b] for _, b in matchups], dtype=np.intp)
    outcomes = np.array([m.counts for m in matchups.values()], dtype=np.int64).reshape(-1, 3)
    return firsts, seconds, outcomes


def _log_likelihood(
    theta: np.ndarray, firsts: np.ndarray, seconds: np.ndarray, games: np.ndarray, first_score: np.ndarray, prior: float
) -> float:
    pairs = first_score * theta[firsts] + (games - first_score) * theta[seconds]
    pairs = pairs - games * np.logaddexp(theta[firsts], theta[seconds])
    anchor = 0.5 * prior * theta - prior * np.logaddexp(theta, 0.0)
    return float(pairs.sum() + anchor.sum())


def _fit(
    size: int, firsts: np.ndarray, seconds: np.ndarray, outcomes: np.ndarray, prior: float, start: np.ndarray | None
) -> np.ndarray:
    """log10-strengths (Elo / 400), mean 0, one row of `outcomes` (losses, draws, wins of
    `firsts` against `seconds`) per matchup.

    Newton's method on natural log-strengths with step halving: the log-likelihood is concave,
    its Hessian is the (weighted) graph Laplacian of the schedule plus the prior's diagonal, so
    a handful of iterations reach the float's resolution."""
    games = outcomes.sum(axis=1).astype(float)
    first_score = outcomes[:, 2] + 0.5 * outcomes[:, 1]
    scores = np.bincount(firsts, first_score, size) + np.bincount(seconds, games - first_score, size)
    theta = np.zeros(size) if start is None else start * math.log(10.0)
    current = _log_likelihood(theta, firsts, seconds, games, first_score, prior)
    for _ in range(NEWTON_MAX_ITERATIONS):
        expected = 1.0 / (1.0 + np.exp(theta[seconds] - theta[firsts]))  # firsts' expected score per game
        anchored = 1.0 / (1.0 + np.exp(-theta))
        gradient = scores + 0.5 * prior - prior * anchored
        gradient -= np.bincount(firsts, games * expected, size) + np.bincount(seconds, games * (1.0 - expected), size)
        weights = games * expected * (1.0 - expected)
        hessian = np.zeros((size, size))
        np.add.at(hessian, (firsts, seconds), weights)
        np.add.at(hessian, (seconds, firsts), weights)
        hessian[np.diag_indices(size)] = -hessian.sum(axis=1) - prior * anchored * (1.0 - anchored)
        step = np.linalg.lstsq(hessian, gradient, rcond=None)[0]
        for _ in range(60):  # halve the step until the likelihood does not fall
            candidate = theta - step
            value = _log_likelihood(candidate, firsts, seconds, games, first_score, prior)
            if value >= current - 1e-12 * abs(current):
                break
            step = step / 2.0
        theta, current = candidate, value
        if np.max(np.abs(step)) < FIT_TOLERANCE:
            break
    logs = theta / math.log(10.0)
    return logs - logs.mean()


def bradley_terry(matchups: Mapping[tuple[str, str], Trinomial], *, prior: float = PRIOR_GAMES) -> dict[str, float]:
    """Relative Elo of every player in `matchups` ((a, b) -> a's games against b), mean 0.

    With `prior=0` this is the plain maximum likelihood, which exists only when every player
    both scored and conceded points and the players are connected by games."""
    players = sorted({p for pair in matchups for p in pair})
    if not players:
        return {}
    firsts, seconds, outcomes = _tables(players, matchups)
    logs = _fit(len(players), firsts, seconds, outcomes, prior, None)
    return {player: 400.0 * float(log) for player, log in zip(players, logs)}


def rank(
    matchups: Mapping[tuple[str, str], Trinomial],
    *,
    prior: float = PRIOR_GAMES,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
) -> list[RankedBot]:
    """The pool ranking, strongest first (equal Elo: by name): the fit's relative Elo, a
    bootstrap percentile interval, and the likelihood of superiority over the next row, the
    share of bootstrap fits that put this bot above it (ties count half).

    Each bootstrap sample redraws every matchup's games from its own observed outcome
    frequencies (the schedule stays as played); the fixed `seed` makes the same games give
    the same report."""
    players = sorted({p for pair in matchups for p in pair})
    if not players:
        return []
    size = len(players)
    firsts, seconds, outcomes = _tables(players, matchups)
    logs = _fit(size, firsts, seconds, outcomes, prior, None)
    games = outcomes.sum(axis=1)
    # Redrawn from the observed frequencies with the prior's virtual draw added to each pair: a
    # pair one side won every game of would otherwise redraw the same games every time, and
    # its bots' intervals would have no width at all, claiming a precision a few games lack.
    smoothed = outcomes + np.array([0.0, prior, 0.0])
    frequencies = smoothed / smoothed.sum(axis=1)[:, None]
    generator = np.random.default_rng(seed)
    draws = np.empty((samples, size))
    for sample in range(samples):
        redrawn = generator.multinomial(games, frequencies)
        draws[sample] = _fit(size, firsts, seconds, redrawn, prior, logs)
    elo, spread = 400.0 * logs, 400.0 * draws
    tail = (1.0 - CONFIDENCE) / 2.0 * 100.0
    lows, highs = np.percentile(spread, [tail, 100.0 - tail], axis=0)
    order = sorted(range(size), key=lambda i: (-elo[i], players[i]))
    ranked = []
    for position, i in enumerate(order):
        los = None
        if position + 1 < len(order):
            following = order[position + 1]
            above = np.mean(spread[:, i] > spread[:, following]) + 0.5 * np.mean(spread[:, i] == spread[:, following])
            los = float(above)
        ranked.append(
            RankedBot(players[i], float(elo[i]), float(min(lows[i], elo[i])), float(max(highs[i], elo[i])), los)
        )
    return ranked
