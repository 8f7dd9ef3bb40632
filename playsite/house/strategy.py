"""How house bots choose a turn. Pure: a position with its dice and its legal tree in, moves out.

- random: one uniformly random micro-move per level of the tree, down to a complete turn.
- greedy (one ply): every complete turn is played out and scored by material (pawn 1,
  knight 3, bishop 3, rook 5, queen 9; capturing the king wins outright); the best score
  wins, ties broken at random. A roll with more complete turns than GREEDY_MAX_TURNS is
  scored on that many random turns instead, so a move never costs more than a few ms.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import chess

from playsite.rules import MoveTree, Position, count_turns, iter_turns, max_dice, play_turn

VALUES = {"pawns": 1, "knights": 3, "bishops": 3, "rooks": 5, "queens": 9}
KING_CAPTURED = 10_000
GREEDY_MAX_TURNS = 2_000


def random_turn(tree: Mapping, rng: random.Random) -> list[str]:
    moves = []
    while tree:
        move = rng.choice(sorted(tree))
        moves.append(move)
        tree = tree[move]
    return moves


def material(position: Position, color: chess.Color) -> int:
    mine = position.white if color == chess.WHITE else position.black
    return sum(value * bin(getattr(position, kind) & mine).count("1") for kind, value in VALUES.items())


def score(position: Position, moves: tuple[str, ...], longest: int) -> int:
    """Material balance for the mover after the turn (`longest`: the roll's L); a captured
    king is decisive."""
    outcome = play_turn(position, moves, longest=longest)
    me = position.turn
    if outcome.end is not None and outcome.end.winner is not None:
        return KING_CAPTURED if outcome.end.winner == me else -KING_CAPTURED
    return material(outcome.after, me) - material(outcome.after, not me)


def greedy_turn(position: Position, tree: MoveTree, rng: random.Random) -> list[str]:
    if not tree:
        return []
    if count_turns(tree) <= GREEDY_MAX_TURNS:
        candidates = list(iter_turns(tree))
    else:
        candidates = list({tuple(random_turn(tree, rng)) for _ in range(GREEDY_MAX_TURNS)})
    longest = max_dice(position)
    scored = [(score(position, turn, longest), turn) for turn in candidates]
    best = max(value for value, _ in scored)
    return list(rng.choice(sorted(turn for value, turn in scored if value == best)))


STRATEGIES = {
    "random": lambda position, tree, rng: random_turn(tree, rng),
    "greedy": greedy_turn,
}
