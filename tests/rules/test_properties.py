"""Property tests over random self-play: the tree equals brute force, every path replays.

Each example plays one game from the start with seeded random dice and a random legal turn
per roll, for a drawn number of turns; every position on the way is checked against the
independent brute-force enumerator (tests/rules/naive_tree.py).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playsite.rules import (
    START_DFEN,
    IllegalTurn,
    Termination,
    count_turns,
    format_dfen,
    iter_turns,
    legal_tree,
    legal_tree_counted,
    max_dice,
    movegen,
    parse_dfen,
    play_turn,
)
from playsite.rules.turn import played_out
from tests.support.turns import random_turn

from .naive_tree import board_from_dfen, naive_sequences

REPLAYED_PATHS_PER_POSITION = 300
PLAYED_OUT_PER_KIND = 150
SELF_PLAY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def self_play(seed: int, turns: int):
    """Yield (position with dice, its tree) along one random game."""
    rng = random.Random(seed)
    position = parse_dfen(START_DFEN)
    for _ in range(turns):
        position = position.with_dice([rng.randint(1, 6) for _ in range(3)])
        tree = legal_tree(position)
        yield position, tree, rng
        outcome = play_turn(position, random_turn(tree, rng))
        if outcome.end is not None:
            return
        position = outcome.after


@SELF_PLAY
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 70))
def test_self_play_tree_equals_brute_force_and_replays(seed, turns):
    for position, tree, rng in self_play(seed, turns):
        dfen = format_dfen(position)
        assert parse_dfen(dfen) == position

        sequences = naive_sequences(*board_from_dfen(dfen))
        longest = max(spent for _, spent, _ in sequences)
        assert max_dice(position) == longest
        complete = {path: (spent, king) for path, spent, king in sequences if king or (longest and spent == longest)}

        ours = set(iter_turns(tree))
        # No legal turn is missing from the tree, and the tree holds nothing else.
        assert ours == set(complete), dfen
        assert count_turns(tree) == len(ours)
        assert legal_tree_counted(position) == (tree, len(ours), longest)
        # Every complete turn spends L dice, or ends with a king capture.
        assert all(king or spent == longest for spent, king in complete.values())
        # Played out without the tree, a die-paid sequence is a turn exactly when it is complete
        # (or, with L = 0, the forced pass): every one in a small position, a sample of each
        # kind in a large one (all of them took a third of the suite's slowest test).
        turns = set(complete) if longest else {()}
        paths = [path for path, _, _ in sequences]
        if len(paths) > 2 * PLAYED_OUT_PER_KIND:
            incomplete = [path for path in paths if path not in turns]
            paths = rng.sample(sorted(turns), min(len(turns), PLAYED_OUT_PER_KIND))
            paths += rng.sample(incomplete, min(len(incomplete), PLAYED_OUT_PER_KIND))
        for path in paths:
            assert bool(played_out(position, path, longest)) == (path in turns), (dfen, path)

        sample = sorted(ours)
        if len(sample) > REPLAYED_PATHS_PER_POSITION:
            sample = rng.sample(sample, REPLAYED_PATHS_PER_POSITION)
        for path in sample:
            outcome = play_turn(position, path, longest=longest)
            assert outcome == play_turn(position, path)
            assert outcome.moves == path
            assert (outcome.end is not None and outcome.end.termination is Termination.KING_CAPTURED) == complete[path][1]
            assert outcome.after.turn != position.turn and outcome.after.dice == ()
            assert parse_dfen(format_dfen(outcome.after)) == outcome.after
        if not tree:
            assert play_turn(position, []).after.turn != position.turn


@SELF_PLAY
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 70))
def test_self_play_strict_prefixes_and_extensions_are_rejected(seed, turns):
    for position, tree, rng in self_play(seed, turns):
        if not tree:
            continue
        path = random_turn(tree, rng)
        cut = rng.randrange(len(path))
        with pytest.raises(IllegalTurn, match="turn stops after"):
            play_turn(position, path[:cut])
        with pytest.raises(IllegalTurn):
            play_turn(position, [*path, path[-1]])


RICH_POSITIONS = [
    # Kiwipete: castling both sides for both colours, promotions near, pins that do not exist.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
    # Three en-passant targets at once.
    "rnbqkbnr/1p1p1ppp/8/pPpPp3/P3P3/2N2Q1N/2P2PPP/1RB1KB1R w Kkq a6c6e6 0 1",
    # Promotions with captures and a king within reach.
    "k2n1q2/1p2Pp2/4r3/2pP4/8/8/1PK5/8 w - c6 0 1",
    "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R b KQkq - 0 1",
    # En passant only after a step (two pawn dice), and a target no pawn can reach (dropped).
    "4k3/8/8/3p4/4P3/8/8/4K3 w - d6 0 1",
    "4k3/8/8/3p4/8/1P6/P6P/4K3 w - d6 0 1",
    # Pieces in each other's way on shared lines, and pawns that promote into the other die's type.
    "3k4/1P3P2/8/2r5/R1B2Q1R/8/3N1N2/4K3 w - - 0 1",
]
ALL_ROLLS = sorted({tuple(sorted((a, b, c))) for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)})


def test_rich_positions_every_roll_equals_brute_force():
    for fen in RICH_POSITIONS:
        for roll in ALL_ROLLS:
            position = parse_dfen(fen).with_dice(roll)
            dfen = format_dfen(position)
            sequences = naive_sequences(*board_from_dfen(dfen))
            longest = max(spent for _, spent, _ in sequences)
            expected = {path for path, spent, king in sequences if king or (longest and spent == longest)}
            tree = legal_tree(position)
            assert set(iter_turns(tree)) == expected, dfen
            assert count_turns(tree) == len(expected)
            assert legal_tree_counted(position) == (tree, len(expected), longest)
            turns = expected if longest else {()}
            assert {path for path, _, _ in sequences if played_out(position, path, longest)} == turns, dfen


def test_trees_are_the_same_when_the_move_caches_are_emptied_every_few_entries(monkeypatch):
    """movegen keeps each piece's moves per (square, targets) in tables emptied at a bound;
    with a bound of 3 they are emptied all the time, and no tree changes."""
    positions = [parse_dfen(fen).with_dice(roll) for fen in RICH_POSITIONS for roll in ALL_ROLLS[::7]]
    expected = [legal_tree(position) for position in positions]
    monkeypatch.setattr(movegen, "_RUNS_MAX", 3)
    tables = ("_RUNS", "_NAMES", "_PAWN_PUSHES", "_PAWN_CAPTURES", "_PAWN_CAPTURE_NAMES")
    for table in tables:
        monkeypatch.setattr(movegen, table, {})
    assert [legal_tree(position) for position in positions] == expected
    assert max(len(getattr(movegen, table)) for table in tables) <= 3
