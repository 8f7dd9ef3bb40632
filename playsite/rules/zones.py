"""The squares a part of the search depends on: the zones of pieces (their lines, or their
steps and prey), and how far the pawn dice let a pawn get towards an en-passant target."""

from __future__ import annotations

import chess

from . import movegen
from .movegen import ALL, EP, KING, PAWN, ROOK, US, State, bits
from .spending import Dice

def _lines(square: int, diagonal: bool, straight: bool) -> int:
    mask = chess.BB_SQUARES[square]
    if diagonal:
        mask |= chess.BB_DIAG_ATTACKS[square][0]
    if straight:
        mask |= chess.BB_RANK_ATTACKS[square][0] | chess.BB_FILE_ATTACKS[square][0]
    return mask


#: Piece type (not a pawn) -> square -> the squares whose occupants can change that piece's
#: moves, or the moves of a piece stepping onto or off them: its lines, or its steps.
ZONES: dict[int, list[int]] = {
    movegen.KNIGHT: [chess.BB_KNIGHT_ATTACKS[sq] | chess.BB_SQUARES[sq] for sq in chess.SQUARES],
    movegen.BISHOP: [_lines(sq, True, False) for sq in chess.SQUARES],
    ROOK: [_lines(sq, False, True) for sq in chess.SQUARES],
    movegen.QUEEN: [_lines(sq, True, True) for sq in chess.SQUARES],
    KING: [chess.BB_KING_ATTACKS[sq] | chess.BB_SQUARES[sq] for sq in chess.SQUARES],
}


def pawn_zone(own: int, white: bool) -> int:
    """The squares of pawns on `own`, and those they step to and take on."""
    if white:
        steps = own << 8 | (own & chess.BB_RANK_2) << 16
        return (own | steps | (own & ~chess.BB_FILE_A) << 7 | (own & ~chess.BB_FILE_H) << 9) & ALL
    steps = own >> 8 | (own & chess.BB_RANK_7) >> 16
    return own | steps | (own & ~chess.BB_FILE_A) >> 9 | (own & ~chess.BB_FILE_H) >> 7


def zone(state: State, rest: Dice, white: bool) -> int | None:
    """The squares a node with two dice `rest` left depends on (see
    `TurnSearch.above_nodes`), or None where it is not worth it or not that simple: the
    same slider type twice (a piece moving twice reaches squares off its lines), or
    en-passant targets. A pawn that can promote adds the lines of the other die's type from
    the squares it can promote on."""
    first, second = rest
    us = state[US]
    if first == second:
        if first == movegen.KNIGHT or first == KING:
            # Two moves of a stepper: the second may start from any square the first reaches.
            steps = ZONES[first]
            near = 0
            for square in bits(state[first] & us):
                near |= steps[square]
            squares = 0
            for square in bits(near):
                squares |= steps[square]
            return squares
        if first != PAWN or state[EP]:
            return None
        # Two pawn moves: the second pawn move may start from any square the first reaches,
        # and promoting with the first leaves no die for the new piece.
        return pawn_zone(pawn_zone(state[PAWN] & us, white), white)
    zone = 0
    for face in rest:
        own = state[face] & us
        if face == PAWN:
            if state[EP]:
                return None
            promoting = own & (chess.BB_RANK_7 if white else chess.BB_RANK_2)
            if promoting:
                # A piece promoted to the other die's type moves next: its lines too.
                lines = ZONES[second if first == PAWN else first]
                arrivals = pawn_zone(promoting, white) & (chess.BB_RANK_8 if white else chess.BB_RANK_1)
                while arrivals:
                    low = arrivals & -arrivals
                    arrivals ^= low
                    zone |= lines[low.bit_length() - 1]
            zone |= pawn_zone(own, white)
        else:
            lines = ZONES[face]
            while own:
                low = own & -own
                own ^= low
                zone |= lines[low.bit_length() - 1]
    return zone


def pawn_attackers(targets: int, white: bool) -> int:
    """The squares from which a pawn of the mover's colour attacks one of `targets`."""
    if white:
        return (targets & ~chess.BB_FILE_H) >> 7 | (targets & ~chess.BB_FILE_A) >> 9
    return ((targets & ~chess.BB_FILE_A) << 7 | (targets & ~chess.BB_FILE_H) << 9) & ALL


def en_passant_reachable(state: State, dice: Dice, white: bool) -> bool:
    """Whether a pawn of the mover could take en passant this turn, as far as the pawn dice
    let it get there (a pawn move per pawn die, the capture included): a pawn within that many
    pawn moves of a square attacking a target, whatever stands in the way."""
    pawn_dice = dice.count(PAWN)
    if not pawn_dice:
        return False
    cone = pawn_attackers(state[EP], white)
    for _ in range(pawn_dice - 1):
        # Add the squares a pawn reaches cone from in one move: a step, a double step, a capture.
        if white:
            cone |= cone >> 8 | (cone & chess.BB_RANK_4) >> 16
            cone |= (cone & ~chess.BB_FILE_H) >> 7 | (cone & ~chess.BB_FILE_A) >> 9
        else:
            cone |= (cone << 8 | (cone & chess.BB_RANK_5) << 16) & ALL
            cone |= ((cone & ~chess.BB_FILE_A) << 7 | (cone & ~chess.BB_FILE_H) << 9) & ALL
    return bool(state[PAWN] & state[US] & cone)
