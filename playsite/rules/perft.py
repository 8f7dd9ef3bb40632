"""Single-die micro-move candidates and perft, for conformance with the reference suite.

perft(position, piece_type, depth) counts leaf nodes of a game where every ply is one
micro-move of `piece_type` by the side to move, the sides alternating each ply. It counts
*candidates*: castling is a king-type candidate (its rook die is a turn-level concern), so
a king perft includes castling and a rook perft does not. En-passant targets created by a
ply are usable in the next ply. A king capture does not stop the count.
"""

from __future__ import annotations

import chess

from .movegen import State, moves, play
from .position import DIE_FACES, Position
from .tree import state_of


def micro_moves(position: Position, piece_type: chess.PieceType) -> list[str]:
    """UCI micro-moves the side to move could pay with one die of `piece_type`.

    Castling counts as a king micro-move here; the maximum-dice rule and the rook die that
    castling also needs are ignored (that is `legal_tree`'s work).
    """
    if piece_type not in DIE_FACES:
        raise ValueError(f"piece type must be 1..6, got {piece_type!r}")
    return [m[0] for m in moves(state_of(position), piece_type, position.turn, True)]


def perft(position: Position, piece_type: chess.PieceType, depth: int) -> int:
    if piece_type not in DIE_FACES:
        raise ValueError(f"piece type must be 1..6, got {piece_type!r}")
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")

    def count(state: State, white: bool, depth: int) -> int:
        candidates = moves(state, piece_type, white, True)
        if depth == 1:
            return len(candidates)
        total = 0
        for _, f, t, promotion in candidates:
            child, _, created = play(state, piece_type, f, t, promotion, white)
            # The other side moves next: swap the roles, hand over the new targets.
            flipped = (child[7],) + child[1:7] + (child[0], child[8], created)
            total += count(flipped, not white, depth - 1)
        return total

    if depth == 0:
        return 1
    return count(state_of(position), position.turn, depth)
