"""What spending a die leaves: the dice left after each face, the faces of a pool, castling."""

from __future__ import annotations

from . import movegen
from .movegen import KING, ROOK, Move, State, moves

Dice = tuple[int, ...]


def _removals() -> dict[tuple[Dice, int], Dice]:
    """(remaining dice, face) → remaining dice after spending that face, for every pool."""
    table = {}
    pools: set[Dice] = {()}
    for _ in range(3):
        pools |= {tuple(sorted(p + (d,))) for p in pools for d in range(1, 7)}
    for pool in pools:
        for face in set(pool):
            rest = list(pool)
            rest.remove(face)
            table[pool, face] = tuple(rest)
    return table


SPEND = _removals()
FACES: dict[Dice, Dice] = {pool: tuple(sorted(set(pool))) for pool, _ in SPEND}
FACES[()] = ()


def castling_rest(dice: Dice) -> Dice | None:
    """The dice left after castling (a king die and a rook die), or None where `dice` cannot castle."""
    if KING in dice and ROOK in dice:
        return SPEND[SPEND[dice, KING], ROOK]
    return None


def castles(state: State, white: bool) -> list[Move]:
    """The mover's castling moves (the king's two-square step)."""
    return [m for m in moves(state, KING, white, True) if m[0] in movegen.CASTLE_UCIS and abs(m[2] - m[1]) == 2]
