"""The strength report as a value: rated results folded into matchups, then the SPRT of every
matchup and the pool ranking (`playsite.strength.stats`). Pure: the rows come in, the
JSON-ready report comes out; `service.py` reads the rows and keeps the report.

A row is `(white principal, black principal, White's result or None, games)`: the store's
rated results counted by who played and how it ended. A row counts only when both sides are
registered bots, two different ones, and the game was decided; every other rated row is
counted in `excludedRows` (a person or an anonymous bot on a side, an aborted game, self-play).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

import attrs

from playsite.strength.stats import (
    DEFAULT_SPRT,
    Pentanomial,
    RankedBot,
    SprtParameters,
    SprtResult,
    Trinomial,
    rank,
    sprt,
)

ResultRow = tuple[str | None, str | None, int | None, int]
"""(white principal, black principal, White's result 1/0/-1 or None, number of games)."""


@attrs.frozen
class Matchup:
    """One unordered pair of bots, from the side of `perspective` (the smaller public name)."""

    perspective: str
    opponent: str
    pairs: Pentanomial
    singles: Trinomial
    result: SprtResult

    def involves(self, player: str) -> bool:
        return player in (self.perspective, self.opponent)


@attrs.frozen
class StrengthReport:
    pairwise: tuple[Matchup, ...]
    ranking: tuple[RankedBot, ...]
    complete_pairs: int
    singles: int
    excluded_rows: int

    def involving(self, player: str) -> list[Matchup]:
        return [matchup for matchup in self.pairwise if matchup.involves(player)]


@attrs.frozen
class Folded:
    singles: dict[tuple[str, str], Trinomial]
    """(perspective, opponent) -> the perspective's single games against the opponent."""
    excluded: int


def fold(rows: Iterable[ResultRow], names: Mapping[str, str]) -> Folded:
    """Group rated results by matchup; `names` maps each registered bot's principal to its
    public, team-qualified name."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    excluded = 0
    for white, black, result, games in rows:
        if (
            white is None or black is None or result is None
            or white not in names or black not in names or white == black
        ):
            excluded += games
            continue
        white_name, black_name = names[white], names[black]
        if white_name <= black_name:
            key, score = (white_name, black_name), result
        else:
            key, score = (black_name, white_name), -result
        counts[key][score + 1] += games  # losses, draws, wins from the perspective's side
    singles = {key: Trinomial(*counted) for key, counted in sorted(counts.items())}
    return Folded(singles, excluded)


def build_report(
    rows: Iterable[ResultRow], names: Mapping[str, str], parameters: SprtParameters = DEFAULT_SPRT
) -> StrengthReport:
    """The whole report. playsite schedules no mirror pairs (games on the same dice with the
    colours swapped), so every game is a single and the pair histograms stay empty."""
    folded = fold(rows, names)
    pairwise = tuple(
        Matchup(perspective, opponent, Pentanomial(), games, sprt(Pentanomial(), games, parameters))
        for (perspective, opponent), games in folded.singles.items()
    )
    return StrengthReport(
        pairwise=pairwise,
        ranking=tuple(rank(folded.singles)),
        complete_pairs=0,
        singles=sum(games.games for games in folded.singles.values()),
        excluded_rows=folded.excluded,
    )


# ----- JSON ---------------------------------------------------------------------------------------


def encode_matchup(matchup: Matchup) -> dict:
    pairs, singles, result = matchup.pairs, matchup.singles, matchup.result
    return {
        "perspective": matchup.perspective,
        "opponent": matchup.opponent,
        "pairs": {"n0": pairs.n0, "n1": pairs.n1, "n2": pairs.n2, "n3": pairs.n3, "n4": pairs.n4},
        "singles": {"losses": singles.losses, "draws": singles.draws, "wins": singles.wins},
        "result": {
            "llr": result.llr,
            "lower": result.lower,
            "upper": result.upper,
            "verdict": result.verdict,
            "observations": result.observations,
        },
    }


def encode_ranked(row: RankedBot) -> dict:
    return {"player": row.player, "elo": row.elo, "ciLow": row.ci_low, "ciHigh": row.ci_high, "losVsNext": row.los_vs_next}


def encode_report(report: StrengthReport) -> dict:
    """The `GET /strength` body."""
    return {
        "pairwise": [encode_matchup(m) for m in report.pairwise],
        "ranking": [encode_ranked(row) for row in report.ranking],
        "completePairs": report.complete_pairs,
        "singles": report.singles,
        "excludedRows": report.excluded_rows,
    }


def encode_profile(report: StrengthReport, team: str, name: str, player: str) -> dict:
    """The `GET /bots/{team}/{name}/strength` body: the matchups `player` is in."""
    return {"team": team, "name": name, "pairwise": [encode_matchup(m) for m in report.involving(player)]}
