"""What spending a die leaves: the dice left after each face, the faces of a pool, castling."""

from __future__ import annotations

import chess

from . import movegen
from .movegen import ATTACKS, KING, PAWN, ROOK, THEM, US, Move, State, bits, moves

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


#: Per colour (False, True): the ranks a pawn promotes from with one pawn die, and with two.
_PROMOTING_RANKS = (
    (chess.BB_RANK_2, chess.BB_RANK_2 | chess.BB_RANK_3),
    (chess.BB_RANK_7, chess.BB_RANK_7 | chess.BB_RANK_6),
)


def spendable(state: State, dice: Dice, white: bool) -> Dice:
    """`dice` without those no sequence can spend: a die of a type the mover has no piece of,
    and none of its pawns can become this turn (a promotion takes a pawn die and a pawn on the
    seventh rank, or two pawn dice and one on the sixth), or a piece type none of whose pieces
    can move now, nor once another die of the roll has moved (`_stuck`). The most dice a
    sequence can spend is the same without them, and the search for it then stops at the first
    sequence spending the rest, where with them it tried every sequence in vain (10.5% of the
    instructions of the corpus's trees: 8.6% the absent types, then 2.1% the walled-in ones)."""
    us = state[US]
    pawn_dice = dice.count(PAWN)
    if pawn_dice and state[PAWN] & us & _PROMOTING_RANKS[white][min(pawn_dice, 2) - 1]:
        return dice  # a pawn may become any piece: every die may be spent
    kept = {die for die in FACES[dice] if state[die] & us and (die == PAWN or not _stuck(state, die, dice))}
    return tuple(die for die in dice if die in kept)


def _stuck(state: State, piece_type: int, dice: Dice) -> bool:
    """Whether no piece of `piece_type` (not a pawn) can move this turn: every square each one
    reaches holds a piece of the mover's (so none can move now), and none of those is of a type
    another die of the roll moves. The other side does not move within the turn, so those
    squares stay taken: the mover's pieces arrive only on empty or enemy squares. (A pawn's
    step can be opened by taking the piece in front of it: pawns are never stuck here.)"""
    us = state[US]
    occupied = us | state[THEM]
    attack = ATTACKS[piece_type]
    blockers = 0
    for square in bits(state[piece_type] & us):
        reach = attack(square, occupied)
        if reach & ~us:
            return False  # it can move now
        blockers |= reach
    return not any(state[other] & blockers for other in dice if other != piece_type)


def castling_rest(dice: Dice) -> Dice | None:
    """The dice left after castling (a king die and a rook die), or None where `dice` cannot castle."""
    if KING in dice and ROOK in dice:
        return SPEND[SPEND[dice, KING], ROOK]
    return None


def castles(state: State, white: bool) -> list[Move]:
    """The mover's castling moves (the king's two-square step)."""
    return [m for m in moves(state, KING, white, True) if m[0] in movegen.CASTLE_UCIS and abs(m[2] - m[1]) == 2]
