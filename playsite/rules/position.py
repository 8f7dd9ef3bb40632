"""The position value type: a board between two turns, plus the mover's unspent dice.

A `Position` always stands at a turn boundary: `dice` is the roll the side to move has
not spent yet (empty while no roll is pending), and `ep_mask` holds the en-passant targets
created by the *opponent's* last turn, which the side to move may use during this turn.

The board is stored as python-chess style bitboards (one mask per piece type, shared by
both colours, plus one occupancy mask per colour), so positions are small, hashable values.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs
import chess

#: Face value of a die → python-chess piece type (equal by construction: 1 pawn ... 6 king).
DIE_FACES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)
#: Dice rolled at the start of every turn; also the most a DFEN dice field may hold.
DICE_PER_TURN = 3
#: Consecutive micro-moves without capture or pawn move that draw the game.
NO_PROGRESS_LIMIT = 100



def _dice_tuple(dice: Iterable[int]) -> tuple[int, ...]:
    values = tuple(sorted(int(d) for d in dice))
    if any(d not in DIE_FACES for d in values):
        raise ValueError(f"dice must be faces 1..6, got {list(dice)!r}")
    if len(values) > DICE_PER_TURN:
        raise ValueError(f"at most {DICE_PER_TURN} dice, got {len(values)}")
    return values


def _checked_dice(instance: object, attribute: attrs.Attribute[tuple[int, ...]], value: tuple[int, ...]) -> None:
    if value != _dice_tuple(value):
        raise ValueError(f"dice must be a sorted tuple of faces 1..6, got {value!r}")


@attrs.frozen
class Position:
    """A dice-chess position at a turn boundary (hashable, immutable).

    Build one with `parse_dfen` or from `START_DFEN`; the bitboard fields follow
    python-chess conventions (bit i = square i, a1 = 0, h8 = 63).
    """

    pawns: int
    knights: int
    bishops: int
    rooks: int
    queens: int
    kings: int
    white: int
    """Occupancy of White's pieces."""
    black: int
    """Occupancy of Black's pieces."""
    turn: chess.Color
    """Side to move: chess.WHITE (True) or chess.BLACK (False)."""
    castling: int
    """Castling rights as a mask of the rook squares a1/h1/a8/h8 whose right is intact."""
    ep_mask: int
    """En-passant targets the side to move may capture on during this turn."""
    halfmove: int
    """Consecutive micro-moves (not turns) without a capture or a pawn move."""
    fullmove: int
    """Turn number, starting at 1 and incremented after each Black turn (as in FEN)."""
    dice: tuple[int, ...] = attrs.field(default=(), validator=_checked_dice)
    """The side to move's unspent dice, sorted ascending; () while no roll is pending."""

    def with_dice(self, dice: Iterable[int]) -> Position:
        """This position with `dice` (any order) pending for the side to move."""
        return attrs.evolve(self, dice=_dice_tuple(dice))

    def without_dice(self) -> Position:
        return attrs.evolve(self, dice=())

    @property
    def occupied(self) -> int:
        return self.white | self.black

    @property
    def ep_squares(self) -> tuple[chess.Square, ...]:
        return tuple(chess.scan_forward(self.ep_mask))

    def piece_type_at(self, square: chess.Square) -> chess.PieceType | None:
        mask = chess.BB_SQUARES[square]
        for piece_type, bb in zip(DIE_FACES, self._piece_masks()):
            if bb & mask:
                return piece_type
        return None

    def piece_at(self, square: chess.Square) -> chess.Piece | None:
        piece_type = self.piece_type_at(square)
        if piece_type is None:
            return None
        return chess.Piece(piece_type, bool(self.white & chess.BB_SQUARES[square]))

    def to_board(self) -> chess.Board:
        """A python-chess board with the same pieces, side to move and castling rights.

        For display and analysis only: chess.Board knows one en-passant square at most and
        nothing of dice, so this board carries no en-passant square.
        """
        board = chess.Board(None)
        for square in chess.scan_forward(self.occupied):
            board.set_piece_at(square, self.piece_at(square))
        board.turn = self.turn
        board.castling_rights = self.castling
        board.halfmove_clock = self.halfmove
        board.fullmove_number = self.fullmove
        return board

    def _piece_masks(self) -> tuple[int, int, int, int, int, int]:
        return (self.pawns, self.knights, self.bishops, self.rooks, self.queens, self.kings)
