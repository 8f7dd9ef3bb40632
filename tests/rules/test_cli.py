"""`playsite rules tree|play` through playsite.cli.main."""

from __future__ import annotations

import json

import pytest

from playsite.cli import main
from playsite.rules import START_DFEN


def run(argv, capsys):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capsys.readouterr()
    return exited.value.code, out, err


def test_cli_tree_prints_json(capsys):
    code, out, err = run(["rules", "tree", START_DFEN + " PN"], capsys)
    assert code == 0 and err == ""
    tree = json.loads(out)
    assert set(tree) >= {"e2e4", "g1f3"} and tree["e2e4"]["g1f3"] == {}


def test_cli_tree_count(capsys):
    code, out, _ = run(["rules", "tree", "--count", START_DFEN + " PPP"], capsys)
    assert (code, out) == (0, "3376\n")


def test_cli_tree_forced_pass_is_empty_object(capsys):
    code, out, _ = run(["rules", "tree", START_DFEN + " BRQ"], capsys)
    assert (code, out) == (0, "{}\n")


@pytest.mark.parametrize(
    ("dfen", "message"),
    [
        ("not a dfen", "playsite rules: invalid DFEN: expected 6 fields (FEN) or 7 (FEN and dice), got 3\n"),
        (START_DFEN + " pn", "playsite rules: invalid DFEN: dice field 'pn' must be upper case: white is to move\n"),
        (START_DFEN, "playsite rules: no dice pending: add the roll as a 7th DFEN field, e.g. 'PNB'\n"),
    ],
)
@pytest.mark.parametrize("action", [["tree"], ["play"]])
def test_cli_bad_input_exits_2_with_one_line(action, dfen, message, capsys):
    code, out, err = run(["rules", *action, dfen], capsys)
    assert (code, out, err) == (2, "", message)


def test_cli_play_prints_dfen_after(capsys):
    code, out, err = run(["rules", "play", START_DFEN + " PN", "e2e4", "g1f3"], capsys)
    assert code == 0 and err == ""
    assert out == "rnbqkbnr/pppppppp/8/8/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq e3 1 1\n"


def test_cli_play_forced_pass(capsys):
    code, out, _ = run(["rules", "play", START_DFEN + " BRQ"], capsys)
    assert (code, out) == (0, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1\n")


def test_cli_play_reports_game_end(capsys):
    code, out, _ = run(["rules", "play", "8/3k1P2/2P5/8/5K2/8/8/8 w - - 0 1 PN", "c6d7"], capsys)
    assert code == 0
    assert out == "8/3P1P2/8/8/5K2/8/8/8 b - - 0 1\ngame over: king_captured, white wins\n"


def test_cli_play_illegal_turn_exits_1(capsys):
    code, out, err = run(["rules", "play", START_DFEN + " PPN", "e2e5"], capsys)
    assert (code, out) == (1, "")
    assert err == "playsite rules: illegal turn: e2e5 is not a legal pawn move from e2\n"
