"""The finished-game history record (GET /games/{id}/history)."""

from __future__ import annotations

import json

import attrs
import pytest
from hypothesis import given, settings

from playsite import wire
from playsite.wire.schemas import validator

from . import examples
from .strategies import history_records


@settings(max_examples=100, deadline=None)
@given(history_records())
def test_history_round_trips_and_matches_schema(record):
    obj = wire.encode_history(record)
    validator("history").validate(obj)
    assert wire.decode_history(json.loads(json.dumps(obj, ensure_ascii=False))) == record


def test_history_shape():
    obj = wire.encode_history(examples.HISTORY)
    assert list(obj) == [
        "gameId", "players", "rated", "timeControl", "result", "termination",
        "finishedAt", "initialDfen", "turns", "fairness",
    ]
    assert obj["turns"][0] == {
        "turnNumber": 1,
        "activeColor": "White",
        "dice": [1, 2, 6],
        "moves": ["e2e4", "g1f3"],
        "fenAfter": examples.AFTER_E4,
    }
    assert obj["turns"][1]["moves"] == []  # a forced pass
    assert obj["fairness"] == {
        "commit": examples.COMMIT,
        "seed": examples.SEED,
        "clientSeeds": {"white": examples.SEEDS.white, "black": ""},
    }
    assert obj["result"] == -1 and obj["termination"] == "timeout"


@pytest.mark.parametrize(
    ("termination", "result", "live"),
    [
        ("king_captured", 1, wire.Over(wire.Win(wire.WHITE), wire.KING_CAPTURED)),
        ("timeout", -1, wire.Over(wire.Win(wire.BLACK), wire.TIMEOUT)),
        ("resign", 1, wire.Over(wire.Win(wire.WHITE), wire.RESIGN)),
        ("draw_agreement", 0, wire.Over(wire.Draw(), wire.DRAW)),
        ("no_progress", 0, wire.Over(wire.Draw(), wire.DRAW)),
        ("aborted", 0, wire.Over(None, wire.ABORTED)),
    ],
)
def test_archive_and_live_terminations_correspond(termination, result, live):
    assert wire.live_over(result, termination) == live
    assert wire.live_termination(termination) == live.termination
    assert wire.archive_result(live) == result
    record = attrs.evolve(examples.HISTORY, termination=termination, result=result)
    assert wire.decode_history(wire.encode_history(record)) == record


def test_aborted_game_archives_result_zero():
    with pytest.raises(wire.WireError, match="HistoryRecord.result must be 0 for termination aborted, got 1"):
        attrs.evolve(examples.HISTORY, termination="aborted", result=1)


def test_decisive_termination_needs_a_winner():
    obj = wire.encode_history(examples.HISTORY)
    obj["result"] = 0
    assert not validator("history").is_valid(obj)
    with pytest.raises(wire.WireError, match="history.result must be 1 or -1 for termination timeout, got 0"):
        wire.decode_history(obj)


def test_history_termination_strings_are_snake_case():
    obj = wire.encode_history(examples.HISTORY)
    obj["termination"] = "Timeout"
    assert not validator("history").is_valid(obj)
    with pytest.raises(wire.WireError, match="history.termination must be one of king_captured, timeout"):
        wire.decode_history(obj)


def test_history_fairness_is_always_revealed():
    obj = wire.encode_history(examples.HISTORY)
    obj["fairness"]["seed"] = None
    assert not validator("history").is_valid(obj)
    with pytest.raises(wire.WireError, match="history.fairness.seed must be a string, got null"):
        wire.decode_history(obj)


def test_history_finished_at_must_be_a_timestamp():
    obj = wire.encode_history(examples.HISTORY)
    obj["finishedAt"] = "31/01/2025 12:00"
    assert not validator("history").is_valid(obj)
    with pytest.raises(wire.WireError, match='history.finishedAt "31/01/2025 12:00" is not an RFC 3339 timestamp'):
        wire.decode_history(obj)


@pytest.mark.parametrize(
    ("abort", "json_form"),
    [
        (wire.Abort("first_move", wire.WHITE), {"cause": "first_move", "seat": "White"}),
        (wire.Abort("both_away"), {"cause": "both_away"}),
        (wire.Abort("not_joined"), {"cause": "not_joined"}),
        (wire.Abort("not_joined", wire.BLACK), {"cause": "not_joined", "seat": "Black"}),
    ],
)
def test_a_players_abort_says_why_and_by_whom(abort, json_form):
    record = attrs.evolve(examples.HISTORY, termination="aborted", result=0, abort=abort)
    obj = wire.encode_history(record)
    assert obj["abort"] == json_form and list(obj)[-1] == "abort"
    validator("history").validate(obj)
    assert wire.decode_history(obj) == record


@pytest.mark.parametrize(
    "changes",
    [
        {"abort": wire.Abort("resign", wire.WHITE)},  # the example ended by king capture
        {"termination": "aborted", "result": 0, "technical": True, "abort": wire.Abort("resign", wire.WHITE)},
    ],
)
def test_an_abort_cause_only_on_a_players_abort(changes):
    with pytest.raises(wire.WireError, match="abort is only for an aborted game its players ended"):
        attrs.evolve(examples.HISTORY, **changes)


@pytest.mark.parametrize(("cause", "seat"), [("first_move", None), ("resign", None), ("both_away", wire.WHITE), ("left", wire.WHITE)])
def test_an_abort_names_the_seat_its_cause_needs(cause, seat):
    with pytest.raises(wire.WireError):
        wire.Abort(cause, seat)
