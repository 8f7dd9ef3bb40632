"""One named test per rule of spec/rules.md that can be broken (`pytest -k castling` etc.)."""

from __future__ import annotations

import chess
import pytest

from playsite.rules import (
    START_DFEN,
    GameEnd,
    IllegalTurn,
    NoDicePending,
    Termination,
    count_turns,
    format_dfen,
    iter_turns,
    legal_tree,
    max_dice,
    micro_moves,
    parse_dfen,
    play_turn,
)
from playsite.rules.spending import spendable
from playsite.rules.tree import state_of

from .naive_tree import naive_turns


def tree_of(dfen: str) -> dict:
    tree = legal_tree(parse_dfen(dfen))
    assert set(iter_turns(tree)) == naive_turns(dfen), "engine and brute force disagree"
    return tree


def reason_of(dfen: str, moves) -> str:
    with pytest.raises(IllegalTurn) as caught:
        play_turn(parse_dfen(dfen), moves)
    assert caught.value.dfen == dfen and caught.value.moves == tuple(moves)
    return caught.value.reason


# --- dice pay for micro-moves -------------------------------------------------------------


def test_each_die_pays_once_and_doubles_move_the_same_piece_twice():
    tree = tree_of("4k3/8/8/8/8/8/8/N3K3 w - - 0 1 NN")
    assert "c2e3" in tree["a1c2"] and "b3d4" in tree["a1b3"]  # the lone knight moves twice
    assert all(child for child in tree.values())  # no turn stops after one knight die


def test_die_type_must_match_piece():
    assert reason_of(START_DFEN + " PP", ["b1c3", "e2e4"]) == "no die left for a knight move (b1c3)"


def test_maximum_dice_rule_every_turn_spends_l_dice():
    # PNB from the start: a/c/f/h pawn moves cannot be followed by both knight and bishop.
    dfen = START_DFEN + " PNB"
    tree = tree_of(dfen)
    assert "a2a3" not in tree and "e2e3" in tree
    assert max_dice(parse_dfen(dfen)) == 3
    assert all(len(turn) == 3 for turn in iter_turns(tree))
    reason = reason_of(dfen, ["a2a3"])
    assert reason == "a2a3 cannot be part of a turn that spends 3 dice (maximum-dice rule)"


@pytest.mark.parametrize(
    ("dfen", "longest", "searched"),
    [
        # No bishop, no pawn that can become one: the bishop die is never spent.
        ("4k3/8/8/8/8/8/P7/N3K3 w - - 0 1 PNB", 2, "PN"),
        # A pawn on the seventh rank takes the pawn die to become the bishop that spends the
        # bishop die (and the knight its own).
        ("6k1/1P6/8/8/8/8/8/N3K3 w - - 0 1 PNB", 3, "PNB"),
        ("n3k3/8/8/8/8/8/1p6/6K1 b - - 0 1 pnb", 3, "PNB"),
        # On the sixth rank it takes both pawn dice to become a bishop, and then the bishop moves.
        ("6k1/8/2P5/8/8/8/8/4K3 w - - 0 1 PPB", 3, "PPB"),
        # With one pawn die the same pawn only reaches the seventh rank.
        ("6k1/8/2P5/8/8/8/8/N3K3 w - - 0 1 PNB", 2, "PN"),
        # From the start, without a pawn die the bishops stay behind their pawns...
        (START_DFEN + " NNB", 2, "NN"),
        # ...and the king behind its pieces; a rook's knight moves away, so the rook can move.
        (START_DFEN + " NRK", 2, "NR"),
        # With a pawn die a pawn may step aside for the bishop.
        (START_DFEN + " PNB", 3, "PNB"),
    ],
)
def test_maximum_dice_rule_counts_only_dice_a_piece_can_spend(dfen, longest, searched):
    # The search for L leaves out the dice of a type the mover has none of and cannot promote
    # to this turn, or whose pieces are walled in by the mover's own pieces that no other die
    # moves; L and the tree stay those of the brute force.
    position = parse_dfen(dfen)
    assert max_dice(position) == longest
    assert {len(turn) for turn in iter_turns(tree_of(dfen))} == {longest}
    kept = spendable(state_of(position), position.dice, position.turn)
    assert "".join(chess.piece_symbol(die).upper() for die in kept) == searched


def test_maximum_dice_rule_with_fewer_playable_dice():
    # Only the pawn can move: L = 1 although three dice were rolled.
    dfen = "4k3/8/8/8/8/8/P7/8 w - - 0 1 PBR"
    tree = tree_of(dfen)
    assert max_dice(parse_dfen(dfen)) == 1
    assert tree == {"a2a3": {}, "a2a4": {}}


# --- castling -----------------------------------------------------------------------------


def test_castling_costs_king_die_and_rook_die():
    dfen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1 PRK"
    tree = tree_of(dfen)
    assert tree["e1g1"] == {}  # castling spends both dice; the pawn die has no pawn
    outcome = play_turn(parse_dfen(dfen), ["e1g1"])
    assert format_dfen(outcome.after) == "4k3/8/8/8/8/8/8/5RK1 b - - 1 1"


def test_castling_needs_both_dice():
    dfen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1 KK"
    assert "e1g1" not in tree_of(dfen)
    assert reason_of(dfen, ["e1g1"]) == "castling e1g1 needs both a king die and a rook die"
    assert "e1g1" in micro_moves(parse_dfen(dfen), chess.KING)  # still a king-type candidate


def test_castling_needs_intact_right_and_empty_squares():
    assert "e1c1" not in tree_of("4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1 RK")
    assert "e1c1" not in tree_of("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 RK")
    assert "e1c1" in tree_of("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1 RK")


def test_castling_through_and_into_attacked_squares_no_check():
    # Black rooks attack e1, f1 and g1: attacked squares do not matter.
    assert "e1g1" in tree_of("4k3/8/8/8/8/8/8/r3K2R w K - 0 1 RK")  # e1 and f1 attacked
    assert "e1g1" in tree_of("4kr2/8/8/8/8/8/8/4K2R w K - 0 1 RK")  # f1 attacked
    assert "e1g1" in tree_of("4k1r1/8/8/8/8/8/8/4K2R w K - 0 1 RK")  # lands on attacked g1


def test_no_check_king_may_move_into_attack_and_stay_in_attack():
    # The white king on e1 is attacked by the rook on e8; moving other pieces is fine and
    # the king may step onto d2, attacked by the bishop.
    tree = tree_of("4r1k1/8/8/8/8/8/5b2/N3K3 w - - 0 1 NK")
    assert "e1d2" in tree and "a1b3" in tree


def test_no_check_rook_move_in_castling_turn_rights_lost_after_king_moves():
    outcome = play_turn(parse_dfen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 K"), ["e1e2"])
    assert format_dfen(outcome.after).split(" ")[2] == "kq"


# --- king capture ----------------------------------------------------------------------------


def test_king_capture_ends_turn_and_game_with_dice_left():
    dfen = "8/3k1P2/2P5/8/5K2/8/8/8 w - - 0 1 PN"
    tree = tree_of(dfen)
    assert tree["c6d7"] == {}
    outcome = play_turn(parse_dfen(dfen), ["c6d7"])
    assert outcome.end == GameEnd(termination=Termination.KING_CAPTURED, winner=chess.WHITE)
    assert reason_of(dfen, ["c6d7", "f7f8n"]) == "f7f8n comes after c6d7 captured the king and ended the game"


def test_king_capture_reachable_only_off_the_maximum():
    # PPN, L = 3 (e7e8n, a knight move, b3b4). After e7e8q no 3-dice turn remains, but
    # b3xc4 still captures the king: e7e8q stays in the tree with only that continuation.
    dfen = "8/4P3/5K2/8/2k5/1P6/8/8 w - - 0 1 PPN"
    tree = tree_of(dfen)
    assert tree["b3c4"] == {}
    assert tree["e7e8q"] == {"b3c4": {}}
    assert "b3b4" in tree["e7e8n"]["e8d6"]
    assert reason_of(dfen, ["e7e8q", "b3b4"]) == "b3b4 cannot be part of a turn that spends 3 dice (maximum-dice rule)"
    assert play_turn(parse_dfen(dfen), ["e7e8q", "b3c4"]).end.termination is Termination.KING_CAPTURED
    assert reason_of(dfen, ["e7e8q"]) == "turn stops after 1 of 3 dice; after e7e8q only a king capture can complete it"


def test_king_capture_by_pawn_on_last_rank_has_no_promotion_suffix():
    dfen = "4k3/3P4/8/2K5/8/8/8/8 w - - 0 1 P"
    tree = tree_of(dfen)
    assert "d7e8" in tree and not any(uci.startswith("d7e8") and len(uci) == 5 for uci in tree)
    outcome = play_turn(parse_dfen(dfen), ["d7e8"])
    assert outcome.end.winner == chess.WHITE
    assert format_dfen(outcome.after) == "4P3/8/8/2K5/8/8/8/8 b - - 0 1"
    assert parse_dfen(format_dfen(outcome.after)) == outcome.after
    assert reason_of(dfen, ["d7e8q"]) == "d7e8q is not a promotion; play d7e8"


# --- promotion -------------------------------------------------------------------------------


def test_promotion_is_mandatory_and_needs_a_piece():
    dfen = "5k2/3P4/2K5/8/8/8/8/8 w - - 0 1 P"
    assert set(tree_of(dfen)) == {"d7d8q", "d7d8r", "d7d8b", "d7d8n"}
    assert reason_of(dfen, ["d7d8"]) == "d7d8 must name the promotion piece: d7d8q, d7d8r, d7d8b or d7d8n"


def test_promotion_forced_by_maximum_dice_rule():
    assert set(tree_of("3k4/5P2/2P5/8/5K2/8/8/8 w - - 0 1 PN")) == {"f7f8n"}
    reason = reason_of("3k4/5P2/2P5/8/5K2/8/8/8 w - - 0 1 PN", ["f7f8q"])
    assert reason == "f7f8q cannot be part of a turn that spends 2 dice (maximum-dice rule)"


def test_promoted_piece_moves_later_with_die_of_new_type():
    dfen = "7k/1P6/8/8/8/8/8/K7 w - - 0 1 PQ"
    tree = tree_of(dfen)
    assert set(tree) == {"b7b8q"}
    assert "b8h8" in tree["b7b8q"]  # and the new queen may even take the king
    outcome = play_turn(parse_dfen(dfen), ["b7b8q", "b8b1"])
    assert outcome.after.piece_at(chess.B1) == chess.Piece(chess.QUEEN, chess.WHITE)


# --- en passant --------------------------------------------------------------------------------


def test_en_passant_multi_target_in_one_turn():
    dfen = "4k3/8/8/1PpPp3/8/8/8/4K3 w - c6e6 0 1 PP"
    tree = tree_of(dfen)
    assert "d5e6" in tree["b5c6"] and "d5c6" in tree and "b5c6" in tree["d5e6"]
    after = play_turn(parse_dfen(dfen), ["b5c6", "d5e6"]).after
    assert format_dfen(after) == "4k3/8/2P1P3/8/8/8/8/4K3 b - - 0 1"


def test_en_passant_rights_last_the_whole_next_turn():
    # The right may be used by any micro-move of the turn, here the last one.
    dfen = "4k3/8/8/3pP3/8/8/8/N3K3 w - d6 0 1 PNN"
    tree = tree_of(dfen)
    assert "e5d6" in tree["a1b3"]["b3c5"]


def test_en_passant_on_vacated_target_square():
    # Black double-stepped d7d5 and then put the queen on d6. White takes the queen with
    # the knight, moves the knight on, and the emptied d6 becomes an en-passant capture.
    dfen = "4k3/8/3q4/1N1pP3/8/8/8/4K3 w - d6 0 1 PNN"
    tree = tree_of(dfen)
    assert "e5d6" in tree["b5d6"]["d6c4"]
    after = play_turn(parse_dfen(dfen), ["b5d6", "d6c4", "e5d6"]).after
    assert after.piece_at(chess.D5) is None
    assert after.piece_at(chess.D6) == chess.Piece(chess.PAWN, chess.WHITE)


def test_en_passant_needs_the_double_stepped_pawn_still_there():
    dfen = "4k3/8/8/3pP3/1N6/8/8/4K3 w - d6 0 1 PN"
    tree = tree_of(dfen)
    assert "e5d6" in tree  # before the knight takes on d5
    assert "e5d6" not in tree["b4d5"]


def test_en_passant_own_double_step_not_usable_by_mover():
    tree = tree_of("4k3/8/8/8/8/8/PP6/4K3 w - - 0 1 PP")
    assert all(not uci.startswith("a") or uci != "a2b3" for uci in tree["b2b4"])
    assert "a2b3" not in tree["b2b4"]


def test_en_passant_rights_created_and_lapse_after_one_turn():
    after_white = play_turn(parse_dfen(START_DFEN + " PP"), ["c2c4", "e2e4"]).after
    assert format_dfen(after_white) == "rnbqkbnr/pppppppp/8/8/2P1P3/8/PP1P1PPP/RNBQKBNR b KQkq c3e3 0 1"
    after_black = play_turn(after_white.with_dice([2]), ["g8f6"]).after
    assert after_black.ep_mask == 0
    assert format_dfen(after_black) == "rnbqkb1r/pppppppp/5n2/8/2P1P3/8/PP1P1PPP/RNBQKBNR w KQkq - 1 2"


def test_en_passant_right_dropped_when_its_pawn_moves_again():
    after = play_turn(parse_dfen(START_DFEN + " PP"), ["e2e4", "e4e5"]).after
    assert after.ep_mask == 0
    after = play_turn(parse_dfen(START_DFEN + " PPP"), ["e2e4", "d2d4", "d4d5"]).after
    assert after.ep_squares == (chess.E3,)


# --- no progress -----------------------------------------------------------------------------


def test_no_progress_draw_after_100_quiet_micro_moves():
    outcome = play_turn(parse_dfen("4k3/8/8/8/8/8/8/R3K3 w - - 98 60 RR"), ["a1a2", "a2a3"])
    assert outcome.after.halfmove == 100
    assert outcome.end == GameEnd(termination=Termination.NO_PROGRESS, winner=None)


def test_no_progress_counts_micro_moves_not_turns():
    outcome = play_turn(parse_dfen("4k3/8/8/8/8/8/8/R3K3 w - - 97 60 RR"), ["a1a2", "a2a3"])
    assert outcome.after.halfmove == 99 and outcome.end is None


def test_no_progress_reached_mid_turn_draws_even_if_turn_then_captures():
    outcome = play_turn(parse_dfen("4k3/8/8/8/8/8/p7/R3K3 w - - 99 60 RK"), ["e1d1", "a1a2"])
    assert outcome.after.halfmove == 0
    assert outcome.end == GameEnd(termination=Termination.NO_PROGRESS, winner=None)


def test_no_progress_counter_resets_on_capture_and_pawn_move():
    assert play_turn(parse_dfen(START_DFEN.replace(" 0 1", " 40 1") + " PN"), ["g1f3", "e2e4"]).after.halfmove == 0
    assert play_turn(parse_dfen(START_DFEN.replace(" 0 1", " 40 1") + " PN"), ["e2e4", "g1f3"]).after.halfmove == 1


def test_king_capture_wins_over_no_progress():
    # The 100th quiet micro-move comes first, but the king capture ends the game at once.
    outcome = play_turn(parse_dfen("k7/8/8/8/8/8/8/R3K2R w - - 99 60 RR"), ["h1h2", "a1a8"])
    assert outcome.end == GameEnd(termination=Termination.KING_CAPTURED, winner=chess.WHITE)
    outcome = play_turn(parse_dfen("4k3/8/8/8/8/8/8/R3K2R w - - 99 60 RR"), ["h1h2", "h2e2"])
    assert outcome.end == GameEnd(termination=Termination.NO_PROGRESS, winner=None)


# --- forced pass -------------------------------------------------------------------------------


def test_forced_pass_when_no_die_can_be_spent():
    position = parse_dfen(START_DFEN + " BRQ")
    assert legal_tree(position) == {}
    assert count_turns({}) == 0
    outcome = play_turn(position, [])
    assert outcome.moves == () and outcome.end is None
    assert format_dfen(outcome.after) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"


def test_forced_pass_keeps_counters_and_lapses_en_passant():
    position = parse_dfen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 7 3 bbq")
    outcome = play_turn(position, [])
    assert format_dfen(outcome.after) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 7 4"


def test_forced_pass_rejects_moves_and_pass_rejected_when_moves_exist():
    assert reason_of(START_DFEN + " BRQ", ["e2e4"]).startswith("no legal move with this roll: the turn is a forced pass")
    assert reason_of(START_DFEN + " PNB", []) == "turn stops after 0 of 3 dice; 3 more must be played"


# --- turn validation messages --------------------------------------------------------------------


def test_illegal_turn_reasons():
    dfen = START_DFEN + " PPN"
    assert reason_of(dfen, ["e2e5"]) == "e2e5 is not a legal pawn move from e2"
    assert reason_of(dfen, ["e2e4"]) == "turn stops after 1 of 3 dice; 2 more must be played"
    assert reason_of(dfen, ["e2e4", "d2d4", "g1f3", "a2a3"]) == "the turn is complete after 3 micro-moves; a2a3 is one too many"
    assert reason_of(dfen, ["e2e4", "d2d4", "d4d5"]) == "no die left for a pawn move (d4d5)"
    assert reason_of(dfen, ["e3e4"]) == "e3e4: there is no piece on e3"
    assert reason_of(dfen, ["e7e5"]) == "e7e5: the piece on e7 is not white's"
    assert reason_of(dfen, ["E2E4"]) == "'E2E4' is not a UCI move such as e2e4 or e7e8q"
    assert reason_of(START_DFEN + " PPB", ["b1c3"]) == "no die left for a knight move (b1c3)"
    with pytest.raises(IllegalTurn, match="not one string"):
        play_turn(parse_dfen(dfen), "e2e4")


def test_play_turn_without_dice_and_tree_without_dice():
    with pytest.raises(NoDicePending):
        legal_tree(parse_dfen(START_DFEN))
    assert reason_of(START_DFEN, []) == "no dice pending: the turn has not been rolled"


def test_play_turn_takes_the_known_longest_and_fills_outcome():
    position = parse_dfen(START_DFEN + " PNB")
    outcome = play_turn(position, ["e2e4", "f1c4", "g1f3"], longest=3)
    assert outcome.before == position
    assert outcome.moves == ("e2e4", "f1c4", "g1f3")
    assert format_dfen(outcome.after) == "rnbqkbnr/pppppppp/8/8/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq e3 2 1"


def test_fullmove_increments_after_black_turn():
    after = play_turn(parse_dfen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1 n"), ["b8c6"]).after
    assert after.fullmove == 2 and after.turn == chess.WHITE


def test_tree_shares_transposed_subtrees():
    tree = legal_tree(parse_dfen(START_DFEN + " PPP"))
    assert tree["a2a3"]["b2b3"] is tree["b2b3"]["a2a3"]
    assert count_turns(tree) == len(set(iter_turns(tree)))
