"""DFEN: round trips and a precise InvalidDfen reason for every malformed input."""

from __future__ import annotations

import chess
import pytest

from playsite.rules import START_DFEN, InvalidDfen, Position, format_dfen, parse_dfen

ROUND_TRIPS = [
    START_DFEN,
    START_DFEN + " PNB",
    "rnbqkbnr/1p1p1ppp/8/pPpPp3/P3P3/2N2Q1N/2P2PPP/1RB1KB1R w Kkq a6c6e6 0 1 P",
    "rnbqkbnr/pppppppp/8/8/P1P1P3/8/1P1P1PPP/RNBQKBNR b KQkq a3c3e3 0 1 ppk",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 RKK",
    "4k3/8/8/8/8/8/8/4K2R b K - 57 31",
    "3P4/8/8/8/8/8/8/4K3 b - - 0 12",  # final board: the pawn that took the king on d8
]


@pytest.mark.parametrize("dfen", ROUND_TRIPS)
def test_dfen_round_trip(dfen):
    position = parse_dfen(dfen)
    assert format_dfen(position) == dfen
    assert parse_dfen(format_dfen(position)) == position


def test_no_dice_pending_formats_as_six_fields_and_parses_from_dash():
    position = parse_dfen(START_DFEN + " -")
    assert position.dice == ()
    assert format_dfen(position) == START_DFEN
    assert position == parse_dfen(START_DFEN)


def test_position_fields():
    position = parse_dfen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1 pnk")
    assert position.turn == chess.BLACK
    assert position.dice == (1, 2, 6)
    assert position.ep_squares == (chess.E3,)
    assert position.halfmove == 0 and position.fullmove == 1
    assert position.piece_at(chess.E4) == chess.Piece(chess.PAWN, chess.WHITE)


def test_with_dice_sorts_and_without_dice_clears():
    position = parse_dfen(START_DFEN)
    rolled = position.with_dice([6, 1, 2])
    assert rolled.dice == (1, 2, 6)
    assert format_dfen(rolled).endswith(" PNK")
    assert rolled.without_dice() == position
    assert hash(rolled) == hash(parse_dfen(START_DFEN + " PNK"))
    with pytest.raises(ValueError):
        position.with_dice([7])
    with pytest.raises(ValueError):
        position.with_dice([1, 1, 1, 1])


def test_to_board_gives_python_chess_board():
    board = parse_dfen(START_DFEN + " PN").to_board()
    assert board.fen() == chess.STARTING_FEN


MALFORMED = [
    ("", "DFEN is empty"),
    ("   ", "DFEN is empty"),
    ("8/8/8/8/8/8/8/8 w - - 0", "expected 6 fields (FEN) or 7 (FEN and dice), got 5"),
    (START_DFEN + " PN x", "got 8"),
    (START_DFEN.replace(" w ", "  w "), "single spaces"),
    (START_DFEN + " ", "single spaces"),
    ("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "8 ranks"),
    ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unknown piece letter '9'"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1", "describes 9 squares"),
    ("rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 6 '7' describes 7 squares"),
    ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "two digits in a row"),
    ("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unknown piece letter 'x'"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1", "white has 2 kings"),
    ("Pnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR w Kkq - 0 1", "unpromoted on the last rank"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNp w Qkq - 0 1", "unpromoted on the last rank"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP w Qkq - 0 1", "white pawn on h1 stands on its own back rank"),
    (START_DFEN.replace(" w ", " x "), "side to move must be 'w' or 'b', got 'x'"),
    (START_DFEN.replace("KQkq", "KQkx"), "unknown letter 'x'"),
    (START_DFEN.replace("KQkq", "QKkq"), "in that order"),
    (START_DFEN.replace("KQkq", "KKkq"), "in that order"),
    ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling right K needs the white king on e1 and a rook on h1"),
    (START_DFEN.replace(" - ", " e "), "must be '-' or squares"),
    (START_DFEN.replace(" - ", " z9 "), "not a square"),
    (START_DFEN.replace(" - ", " e3 "), "en-passant target e3 must be on rank 6 with white to move"),
    (START_DFEN.replace(" - ", " e6 "), "en-passant target e6 needs the black pawn that double-stepped on e5"),
    (
        "rnbqkbnr/1p1p1ppp/8/pPpPp3/P3P3/2N2Q1N/2P2PPP/1RB1KB1R w Kkq c6a6e6 0 1",
        "must be sorted and distinct: 'a6c6e6'",
    ),
    (
        "rnbqkbnr/1p1p1ppp/8/pPpPp3/P3P3/2N2Q1N/2P2PPP/1RB1KB1R w Kkq a6a6 0 1",
        "must be sorted and distinct",
    ),
    (START_DFEN.replace(" 0 1", " -1 1"), "halfmove counter must be a non-negative integer, got '-1'"),
    (START_DFEN.replace(" 0 1", " x 1"), "halfmove counter"),
    (START_DFEN.replace(" 0 1", " 01 1"), "halfmove counter"),
    (START_DFEN.replace(" 0 1", " 0 0"), "fullmove number must be a positive integer, got '0'"),
    (START_DFEN.replace(" 0 1", " 0 +3"), "fullmove number"),
    (START_DFEN + " PXN", "dice field 'PXN' has 'X', not one of P N B R Q K"),
    (START_DFEN + " pnb", "dice field 'pnb' must be upper case: white is to move"),
    (START_DFEN + " Pnb", "must be upper case"),
    (START_DFEN.replace(" w ", " b ") + " PNB", "dice field 'PNB' must be lower case: black is to move"),
    (START_DFEN + " PPPP", "dice field 'PPPP' holds 4 dice, at most 3"),
    (START_DFEN + " NPB", "must be sorted by value (P N B R Q K): 'PNB'"),
    (START_DFEN + " 123", "has '1'"),
]


@pytest.mark.parametrize(("dfen", "reason"), MALFORMED)
def test_malformed_dfen_gives_precise_reason(dfen, reason):
    with pytest.raises(InvalidDfen) as caught:
        parse_dfen(dfen)
    assert reason in caught.value.reason
    assert caught.value.dfen == dfen
    assert isinstance(caught.value, ValueError)


def test_non_string_dfen():
    with pytest.raises(InvalidDfen, match="expected a string"):
        parse_dfen(None)


def test_position_is_a_frozen_hashable_value():
    position = parse_dfen(START_DFEN)
    with pytest.raises(AttributeError):
        position.turn = False
    assert {position, parse_dfen(START_DFEN)} == {position}
    assert isinstance(position, Position)
