"""DFEN: FEN plus a 7th field holding the side to move's unspent dice.

    <board> <w|b> <castling> <en-passant> <halfmove> <fullmove> [<dice>]

- en-passant: `-` or the targets the side to move may use, concatenated and sorted
  (`a6c6e6`); each needs the double-stepped enemy pawn still on the square beyond it.
- dice: piece letters sorted by value (P N B R Q K = 1..6), upper case for White, lower
  case for Black, at most three. A position with no roll pending formats as plain 6-field
  FEN; parsing accepts both 6 fields and a 7th field `-` for it.
- halfmove counts micro-moves (not turns) since the last capture or pawn move.

Parsing is strict so that every position has exactly one DFEN: what `format_dfen` would not
produce is rejected with an `InvalidDfen` saying what is wrong.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import NoReturn

import chess

from .position import DICE_PER_TURN, Position

Fail = Callable[[str], NoReturn]
"""How a parser refuses: raises InvalidDfen with its reason."""

START_DFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

DIE_LETTERS = "PNBRQK"
_PIECE_INDEX = {letter: index for index, letter in enumerate("pnbrqk")}
_CASTLING_RIGHTS = (
    ("K", chess.WHITE, chess.H1, chess.E1),
    ("Q", chess.WHITE, chess.A1, chess.E1),
    ("k", chess.BLACK, chess.H8, chess.E8),
    ("q", chess.BLACK, chess.A8, chess.E8),
)
_COUNTER = re.compile(r"0|[1-9][0-9]*")
_COLOUR_NAMES = {chess.WHITE: "white", chess.BLACK: "black"}


class InvalidDfen(ValueError):
    """A DFEN string that does not describe a position; `.reason` says why."""

    def __init__(self, reason: str, dfen: object) -> None:
        super().__init__(f"invalid DFEN {dfen!r}: {reason}")
        self.reason = reason
        self.dfen = dfen


def parse_dfen(text: str) -> Position:
    if not isinstance(text, str):
        raise InvalidDfen(f"expected a string, got {type(text).__name__}", text)

    def fail(reason: str) -> NoReturn:
        raise InvalidDfen(reason, text)

    if not text.strip():
        fail("DFEN is empty")
    fields = text.split(" ")
    if not all(fields):
        fail("fields must be separated by single spaces, without leading or trailing space")
    if len(fields) not in (6, 7):
        fail(f"expected 6 fields (FEN) or 7 (FEN and dice), got {len(fields)}")
    board_text, turn_text, castling_text, ep_text, half_text, full_text = fields[:6]
    masks = _parse_board(board_text, fail)
    pawns, knights, bishops, rooks, queens, kings, white, black = masks

    if turn_text not in ("w", "b"):
        fail(f"side to move must be 'w' or 'b', got {turn_text!r}")
    turn = turn_text == "w"
    castling = _parse_castling(castling_text, masks, fail)
    ep_mask = _parse_ep(ep_text, turn, masks, fail)
    if not _COUNTER.fullmatch(half_text):
        fail(f"halfmove counter must be a non-negative integer, got {half_text!r}")
    if not _COUNTER.fullmatch(full_text) or full_text == "0":
        fail(f"fullmove number must be a positive integer, got {full_text!r}")
    dice = _parse_dice(fields[6], turn, fail) if len(fields) == 7 else ()
    return Position(
        pawns=pawns,
        knights=knights,
        bishops=bishops,
        rooks=rooks,
        queens=queens,
        kings=kings,
        white=white,
        black=black,
        turn=turn,
        castling=castling,
        ep_mask=ep_mask,
        halfmove=int(half_text),
        fullmove=int(full_text),
        dice=dice,
    )


def _parse_board(board_text: str, fail: Fail) -> list[int]:
    ranks = board_text.split("/")
    if len(ranks) != 8:
        fail(f"board must have 8 ranks separated by '/', got {len(ranks)}")
    # pawns, knights, bishops, rooks, queens, kings, white, black
    masks = [0] * 8
    for row, rank_text in enumerate(ranks):
        rank = 7 - row
        file = 0
        previous_digit = False
        for char in rank_text:
            if char in "12345678":
                if previous_digit:
                    fail(f"rank {rank + 1} {rank_text!r} has two digits in a row")
                file += int(char)
                previous_digit = True
                continue
            previous_digit = False
            index = _PIECE_INDEX.get(char.lower())
            if index is None:
                fail(f"rank {rank + 1} {rank_text!r} has an unknown piece letter {char!r}")
            if file < 8:
                square_bb = chess.BB_SQUARES[chess.square(file, rank)]
                masks[index] |= square_bb
                masks[6 if char.isupper() else 7] |= square_bb
            file += 1
        if file != 8:
            fail(f"rank {rank + 1} {rank_text!r} describes {file} squares, expected 8")
    pawns, kings, white, black = masks[0], masks[5], masks[6], masks[7]
    for colour, own, enemy in ((chess.WHITE, white, black), (chess.BLACK, black, white)):
        name = _COLOUR_NAMES[colour]
        if chess.popcount(kings & own) > 1:
            fail(f"{name} has {chess.popcount(kings & own)} kings, at most 1 allowed")
        home_rank = chess.BB_RANK_1 if colour == chess.WHITE else chess.BB_RANK_8
        last_rank = chess.BB_RANK_8 if colour == chess.WHITE else chess.BB_RANK_1
        if pawns & own & home_rank:
            square = chess.lsb(pawns & own & home_rank)
            fail(f"{name} pawn on {chess.square_name(square)} stands on its own back rank")
        # Only a pawn that captured the king there may stand on the last rank: the game
        # is over and that is its final board.
        if pawns & own & last_rank and (kings & enemy or chess.popcount(pawns & own & last_rank) > 1):
            square = chess.lsb(pawns & own & last_rank)
            fail(
                f"{name} pawn on {chess.square_name(square)} is unpromoted on the last rank"
                " (allowed only for the one pawn that captured the king there)"
            )
    return masks


def _parse_castling(text: str, masks: list[int], fail: Fail) -> int:
    if text == "-":
        return 0
    rooks, kings, white, black = masks[3], masks[5], masks[6], masks[7]
    order = "".join(letter for letter, *_ in _CASTLING_RIGHTS)
    for char in text:
        if char not in order:
            fail(f"castling field {text!r} has an unknown letter {char!r}")
    if text != "".join(letter for letter in order if letter in text):
        fail(f"castling field {text!r} must list each of K, Q, k, q at most once, in that order")
    rights = 0
    for letter, colour, rook_square, king_square in _CASTLING_RIGHTS:
        if letter not in text:
            continue
        own = white if colour == chess.WHITE else black
        if not (kings & own & chess.BB_SQUARES[king_square] and rooks & own & chess.BB_SQUARES[rook_square]):
            fail(
                f"castling right {letter} needs the {_COLOUR_NAMES[colour]} king on "
                f"{chess.square_name(king_square)} and a rook on {chess.square_name(rook_square)}"
            )
        rights |= chess.BB_SQUARES[rook_square]
    return rights


def _parse_ep(text: str, turn: chess.Color, masks: list[int], fail: Fail) -> int:
    if text == "-":
        return 0
    if len(text) % 2:
        fail(f"en-passant field {text!r} must be '-' or squares like 'e3' concatenated")
    names = [text[i : i + 2] for i in range(0, len(text), 2)]
    target_rank = 5 if turn == chess.WHITE else 2
    enemy = masks[7] if turn == chess.WHITE else masks[6]
    enemy_name = _COLOUR_NAMES[not turn]
    ep_mask = 0
    for name in names:
        if name not in chess.SQUARE_NAMES:
            fail(f"en-passant field {text!r} has {name!r}, which is not a square")
        square = chess.parse_square(name)
        if chess.square_rank(square) != target_rank:
            fail(
                f"en-passant target {name} must be on rank {target_rank + 1} with "
                f"{_COLOUR_NAMES[turn]} to move"
            )
        pawn_square = square + (-8 if turn == chess.WHITE else 8)
        if not masks[0] & enemy & chess.BB_SQUARES[pawn_square]:
            fail(
                f"en-passant target {name} needs the {enemy_name} pawn that double-stepped "
                f"on {chess.square_name(pawn_square)}"
            )
        ep_mask |= chess.BB_SQUARES[square]
    if names != sorted(set(names)):
        fail(f"en-passant squares must be sorted and distinct: {''.join(sorted(set(names)))!r}")
    return ep_mask


def _parse_dice(text: str, turn: chess.Color, fail: Fail) -> tuple[int, ...]:
    if text == "-":
        return ()
    for char in text:
        if char.upper() not in DIE_LETTERS:
            fail(f"dice field {text!r} has {char!r}, not one of P N B R Q K")
    expected_case = str.isupper if turn == chess.WHITE else str.islower
    if not all(expected_case(char) for char in text):
        case = "upper" if turn == chess.WHITE else "lower"
        fail(f"dice field {text!r} must be {case} case: {_COLOUR_NAMES[turn]} is to move")
    if len(text) > DICE_PER_TURN:
        fail(f"dice field {text!r} holds {len(text)} dice, at most {DICE_PER_TURN}")
    dice = tuple(DIE_LETTERS.index(char.upper()) + 1 for char in text)
    if list(dice) != sorted(dice):
        fail(f"dice field {text!r} must be sorted by value (P N B R Q K): {format_dice(sorted(dice), turn)!r}")
    return dice


def format_dice(dice: Iterable[int], turn: chess.Color) -> str:
    letters = "".join(DIE_LETTERS[d - 1] for d in sorted(dice))
    return letters if turn == chess.WHITE else letters.lower()


def format_board(position: Position) -> str:
    return _board_text(
        position.pawns, position.knights, position.bishops, position.rooks, position.queens, position.kings,
        position.white,
    )


BOARD_TEXTS_KEPT = 1024
"""Boards whose text is kept: a turn formats the same board up to three times (the position
after it, then with the next roll, then in the room's snapshot), each room in turn."""
_LETTERS = (("k", "K"), ("q", "Q"), ("r", "R"), ("b", "B"), ("n", "N"), ("p", "P"))
"""By kind, kings first: where two masks claimed one square, the later (pawns) would win."""
_EMPTY_RUNS = tuple(("1" * count, str(count)) for count in range(8, 1, -1))


@functools.lru_cache(maxsize=BOARD_TEXTS_KEPT)
def _board_text(pawns: int, knights: int, bishops: int, rooks: int, queens: int, kings: int, white: int) -> str:
    # Each empty square a "1", then runs of them counted: the squares come off the masks a bit
    # at a time, and the runs go by str.replace, not a character at a time.
    squares = ["1"] * 64
    for (lower, upper), mask in zip(_LETTERS, (kings, queens, rooks, bishops, knights, pawns)):
        while mask:
            low = mask & -mask
            squares[low.bit_length() - 1] = upper if white & low else lower
            mask ^= low
    text = "/".join(["".join(squares[rank : rank + 8]) for rank in range(56, -1, -8)])
    for run, count in _EMPTY_RUNS:
        text = text.replace(run, count)
    return text


def format_dfen(position: Position) -> str:
    castling = "".join(
        letter for letter, _, rook_square, _ in _CASTLING_RIGHTS if position.castling & chess.BB_SQUARES[rook_square]
    )
    ep = "".join(chess.square_name(square) for square in sorted(position.ep_squares, key=chess.square_name))
    fields = [
        format_board(position),
        "w" if position.turn == chess.WHITE else "b",
        castling or "-",
        ep or "-",
        str(position.halfmove),
        str(position.fullmove),
    ]
    if position.dice:
        fields.append(format_dice(position.dice, position.turn))
    return " ".join(fields)
