"""Conformance with the reference movegen data (read in place from ../shared/reference)."""

from __future__ import annotations

import json

import pytest

from playsite.rules import START_DFEN, count_turns, legal_tree, parse_dfen, perft
from tests.support.reference import MOVEGEN


def reference_cases(name: str):
    path = MOVEGEN / name
    if not path.is_file():
        return [pytest.param(None, id="reference-absent")]
    cases = json.loads(path.read_text())
    return [pytest.param(case, id=f"{i}-{case['title']}") for i, case in enumerate(cases)]


def reference_position(dfen: str):
    # One reference case writes Black's dice in upper case ("... b kq - 0 1 BKK"). Our DFEN
    # is strict about case (lower case for Black), so normalise that field before parsing.
    fields = dfen.split(" ")
    if len(fields) == 7:
        fields[6] = fields[6].upper() if fields[1] == "w" else fields[6].lower()
    return parse_dfen(" ".join(fields))


@pytest.mark.parametrize("case", reference_cases("movegen_1_dice.json"))
def test_movegen_one_die(case, reference_dir):
    assert set(legal_tree(reference_position(case["fen"]))) == set(case["expectedMoves"])


@pytest.mark.parametrize("case", reference_cases("movegen_2_dice.json"))
def test_movegen_two_dice(case, reference_dir):
    assert set(legal_tree(reference_position(case["fen"]))) == set(case["expectedMoves"])


@pytest.mark.parametrize("case", reference_cases("movegen_3_dice.json"))
def test_movegen_three_dice(case, reference_dir):
    assert set(legal_tree(reference_position(case["fen"]))) == set(case["expectedMoves"])


@pytest.mark.parametrize("case", reference_cases("perft_suite.json"))
def test_perft_suite(case, reference_dir):
    position = reference_position(case["fen"])
    assert perft(position, case["diceRoll"], case["depth"]) == case["expectedNodes"]


def test_start_position_roll_111_has_3376_turns():
    tree = legal_tree(parse_dfen(START_DFEN).with_dice([1, 1, 1]))
    assert count_turns(tree) == 3376
