"""Random legal turns through a turn tree (`{uci: subtree}`, `{}` at a complete turn)."""

from __future__ import annotations

import random


def random_turn(tree: dict, rng: random.Random) -> list[str]:
    """A random complete turn: one random micro-move per level, down to a leaf."""
    moves = []
    while tree:
        move = rng.choice(sorted(tree))
        moves.append(move)
        tree = tree[move]
    return moves


def random_turn_avoiding(tree: dict, rng: random.Random, avoid: frozenset[str] = frozenset()) -> list[str] | None:
    """A random complete turn whose micro-moves land on no square in `avoid`; None if there is none."""
    moves = sorted(tree)
    rng.shuffle(moves)
    for move in moves:
        if move[2:4] in avoid:
            continue
        rest = tree[move]
        if not rest:
            return [move]
        tail = random_turn_avoiding(rest, rng, avoid)
        if tail is not None:
            return [move, *tail]
    return None
