"""Folding rated results into matchups: who is counted, from whose side, what is excluded."""

from __future__ import annotations

from playsite.strength.report import build_report, encode_profile, fold
from playsite.strength.stats import Trinomial

NAMES = {"bot:acme/alice": "acme alice", "bot:acme/bob": "acme bob", "bot:a/x": "a x", "bot:a-b/y": "a-b y"}


def test_only_decided_games_between_two_different_registered_bots_count():
    rows = [
        ("bot:acme/alice", "bot:acme/bob", 1, 3),
        ("bot:acme/bob", "bot:acme/alice", 1, 2),  # bob as White won twice
        ("bot:acme/alice", "bot:acme/bob", 0, 1),
        ("bot:acme/alice", None, 1, 4),  # a person (collapsed to None by the reader)
        ("bot:anon/zed-1", "bot:acme/bob", -1, 1),  # an anonymous bot
        ("bot:acme/alice", "bot:acme/bob", None, 5),  # aborted
        ("bot:acme/alice", "bot:acme/alice", 1, 1),  # self-play
    ]
    folded = fold(rows, NAMES)
    assert folded.singles == {("acme alice", "acme bob"): Trinomial(losses=2, draws=1, wins=3)}
    assert folded.excluded == 4 + 1 + 5 + 1


def test_the_perspective_is_the_smaller_public_name_not_the_smaller_id():
    # ids sort "a-b/y" < "a/x"; the public names sort "a x" < "a-b y".
    folded = fold([("bot:a-b/y", "bot:a/x", 1, 1)], NAMES)
    assert folded.singles == {("a x", "a-b y"): Trinomial(losses=1)}


def test_the_report_counts_and_slices():
    rows = [("bot:acme/alice", "bot:acme/bob", 1, 6), ("bot:a/x", "bot:acme/bob", -1, 2), (None, None, 1, 7)]
    report = build_report(rows, NAMES)
    assert (report.complete_pairs, report.singles, report.excluded_rows) == (0, 8, 7)
    assert [(m.perspective, m.opponent) for m in report.pairwise] == [("a x", "acme bob"), ("acme alice", "acme bob")]
    assert [row.player for row in report.ranking] == ["acme alice", "acme bob", "a x"]  # 6-0, then 2-0
    profile = encode_profile(report, "a", "x", "a x")
    assert profile["team"] == "a" and profile["name"] == "x"
    assert [m["opponent"] for m in profile["pairwise"]] == ["acme bob"]
    assert profile["pairwise"][0]["singles"] == {"losses": 2, "draws": 0, "wins": 0}  # a x lost both as White
    assert encode_profile(report, "acme", "carol", "acme carol")["pairwise"] == []
