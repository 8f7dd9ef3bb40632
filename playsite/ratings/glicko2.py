"""Glicko-2, exactly as Glickman's "Example of the Glicko-2 system" defines it. Pure: no I/O.

Steps (numbered as in the paper):

1. Ratings start at r = 1500, RD = 350, σ = 0.06; τ is the system constant (`TAU`).
2. Convert to the Glicko-2 scale: μ = (r − 1500) / 173.7178, φ = RD / 173.7178.
3. v = [Σ g(φⱼ)² E(μ, μⱼ, φⱼ) (1 − E(μ, μⱼ, φⱼ))]⁻¹ with g(φ) = 1 / √(1 + 3φ²/π²),
   E(μ, μⱼ, φⱼ) = 1 / (1 + exp(−g(φⱼ)(μ − μⱼ))).
4. Δ = v Σ g(φⱼ)(sⱼ − E(μ, μⱼ, φⱼ)).
5. σ' by the Illinois algorithm on f(x), convergence tolerance ε = 1e-6 (`EPSILON`).
6. Pre-period value φ* = √(φ² + σ'²).
7. φ' = 1 / √(1/φ*² + 1/v), μ' = μ + φ'² Σ g(φⱼ)(sⱼ − E(μ, μⱼ, φⱼ)).
8. Back to the Glicko scale: r' = 173.7178 μ' + 1500, RD' = 173.7178 φ'.

A player who did not compete in a period keeps μ and σ; only φ becomes φ* = √(φ² + σ²)
(`rate` with no results; `age` for several idle periods at once).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

SCALE = 173.7178
INITIAL_RATING = 1500.0
INITIAL_RD = 350.0
INITIAL_VOLATILITY = 0.06
EPSILON = 1e-6

TAU = 0.5
"""The system constant τ: how much the volatility σ may move in one rating period.

Glickman suggests 0.3 to 1.2; smaller values keep σ from jumping on a few surprising
results. Dice chess is a high-variance game: the dice decide which pieces may move, so an
upset is an ordinary event, not evidence that a bot's strength changed. A large τ would
read those upsets as volatility and let ratings swing; the bottom of the range would make
σ almost immovable even for a bot whose author really did ship a much stronger version.
0.5 (the value of the paper's own example) sits low in the range: upsets are absorbed by
E() and the RD, while a sustained change of strength (a new bot version playing dozens of
games per period) still raises σ and lets the rating follow.
"""


@attrs.frozen
class Rating:
    """A Glicko rating on the public scale (rating, RD) with its volatility σ."""

    rating: float = INITIAL_RATING
    rd: float = INITIAL_RD
    volatility: float = INITIAL_VOLATILITY


def g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected(mu: float, mu_j: float, phi_j: float) -> float:
    """E(μ, μⱼ, φⱼ): the expected score of μ against opponent (μⱼ, φⱼ)."""
    return 1.0 / (1.0 + math.exp(-g(phi_j) * (mu - mu_j)))


def rate(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period.

    `results` holds every game of the period as (opponent's PRE-period rating, score) with
    score 1 for a win, 0.5 for a draw and 0 for a loss. No results: only the RD grows (φ*).
    """
    mu = (player.rating - INITIAL_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not results:
        return Rating(player.rating, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)

    v_inverse = 0.0
    improvement = 0.0  # Σ g(φⱼ)(sⱼ − E)
    for opponent, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score must be within [0, 1], got {score!r}")
        mu_j = (opponent.rating - INITIAL_RATING) / SCALE
        phi_j = opponent.rd / SCALE
        g_j = g(phi_j)
        e_j = expected(mu, mu_j, phi_j)
        v_inverse += g_j * g_j * e_j * (1.0 - e_j)
        improvement += g_j * (score - e_j)
    v = 1.0 / v_inverse
    delta = v * improvement

    sigma_new = _new_volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    return Rating(SCALE * mu_new + INITIAL_RATING, SCALE * phi_new, sigma_new)


def shares(player: Rating, results: Sequence[tuple[Rating, float]], after: Rating) -> list[float]:
    """Each game's share of the rating change of a period: `after` is `rate(player, results)`.

    Step 7 moves μ by φ'² Σ g(φⱼ)(sⱼ − E): a sum over the games, so game j's share is
    φ'² g(φⱼ)(sⱼ − E(μ, μⱼ, φⱼ)) on the Glicko-2 scale, SCALE times that on the public one, and
    the shares add up to `after.rating − player.rating` (up to rounding). What a player reads
    as "+12" beside one game of a period that held several.
    """
    mu = (player.rating - INITIAL_RATING) / SCALE
    phi_new = after.rd / SCALE
    changes = []
    for opponent, score in results:
        mu_j = (opponent.rating - INITIAL_RATING) / SCALE
        phi_j = opponent.rd / SCALE
        changes.append(SCALE * phi_new * phi_new * g(phi_j) * (score - expected(mu, mu_j, phi_j)))
    return changes


def age(player: Rating, periods: int, *, max_rd: float = INITIAL_RD) -> Rating:
    """`periods` rating periods without games: φ² grows by σ² each, never beyond `max_rd`.

    Exactly `periods` applications of the paper's φ* step (σ is constant while idle), capped
    so that a long-idle player is never less certain than a new one.
    """
    if periods < 0:
        raise ValueError("periods must be >= 0")
    if periods == 0 or player.rd >= max_rd:
        return player
    phi = player.rd / SCALE
    phi_aged = math.sqrt(phi * phi + periods * player.volatility * player.volatility)
    return Rating(player.rating, min(SCALE * phi_aged, max_rd), player.volatility)


def _new_volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: σ' by the Illinois algorithm (regula falsi with halving), tolerance EPSILON."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a = f(big_a)
    f_b = f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)
