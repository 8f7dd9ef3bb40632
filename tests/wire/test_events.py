"""Events: round trips, compact single-line text, omitted optional keys, schema validity."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from playsite import wire
from playsite.wire.schemas import validator

from . import examples
from .strategies import events


def _compact(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("name", list(examples.EVENTS))
def test_event_round_trip(name):
    event = examples.EVENTS[name]
    text = wire.encode_event(event)
    assert wire.decode_event(text) == event
    assert wire.decode_event(text.encode("utf-8")) == event
    assert wire.decode_frame(text) == event


@pytest.mark.parametrize("name", list(examples.EVENTS))
def test_encoded_event_matches_event_schema(name):
    obj = json.loads(wire.encode_event(examples.EVENTS[name]))
    validator("event").validate(obj)
    validator("server-frame").validate(obj)


@settings(max_examples=150, deadline=None)
@given(events)
def test_any_event_round_trips_and_matches_schema(event):
    text = wire.encode_event(event)
    assert "\n" not in text and "\r" not in text
    assert text == _compact(json.loads(text))
    validator("event").validate(json.loads(text))
    assert wire.decode_event(text) == event


@pytest.mark.parametrize("name", list(examples.EVENTS))
def test_encode_event_is_compact_single_line(name):
    text = wire.encode_event(examples.EVENTS[name])
    assert isinstance(text, str)
    assert "\n" not in text
    assert text == _compact(json.loads(text))  # no spaces after separators


def test_non_ascii_is_sent_literally():
    text = wire.encode_event(wire.Rejected(1, wire.WHITE, "déjà joué ✓"))
    assert "déjà joué ✓" in text


def test_newline_in_a_string_stays_escaped():
    text = wire.encode_event(wire.Rejected(1, wire.WHITE, "line one\nline two"))
    assert "\n" not in text and "\\n" in text


def test_event_shapes_are_single_key_objects_named_after_the_event():
    for event in examples.EVENTS.values():
        obj = json.loads(wire.encode_event(event))
        assert list(obj) == [type(event).__name__]


def test_dice_rolled_shape():
    event = wire.DiceRolled(5, wire.WHITE, [1, 2, 3], "dfen", wire.Clocks(1000, 2000), {"e2e4": {}})
    assert json.loads(wire.encode_event(event)) == {
        "DiceRolled": {
            "v": 5,
            "seat": "White",
            "dice": [1, 2, 3],
            "dfen": "dfen",
            "clocks": {"white": 1000, "black": 2000},
            "legalMoves": {"e2e4": {}},
        }
    }
    assert event.dice == (1, 2, 3)  # lists from callers become tuples


def test_dice_rolled_nullable_keys_are_null_not_omitted():
    obj = json.loads(wire.encode_event(examples.EVENTS["DiceRolled (not inlined)"]))["DiceRolled"]
    assert obj["clocks"] is None and obj["legalMoves"] is None


def test_forced_pass_tree_is_an_empty_object():
    obj = json.loads(wire.encode_event(examples.EVENTS["DiceRolled (forced pass)"]))
    assert obj["DiceRolled"]["legalMoves"] == {}


def test_turn_played_omits_draw_offer_unless_offered():
    plain = json.loads(wire.encode_event(examples.EVENTS["TurnPlayed"]))["TurnPlayed"]
    assert "drawOffer" not in plain
    offered = json.loads(wire.encode_event(examples.EVENTS["TurnPlayed (draw offer)"]))["TurnPlayed"]
    assert offered["drawOffer"] is True


def test_turn_played_with_explicit_false_draw_offer_decodes():
    text = '{"TurnPlayed":{"v":1,"seat":"White","moves":[],"fenAfter":"x","drawOffer":false}}'
    assert wire.decode_event(text) == wire.TurnPlayed(1, wire.WHITE, (), "x")


def test_draw_declined_names_the_declining_seat():
    assert json.loads(wire.encode_event(wire.DrawDeclined(3, wire.BLACK))) == {
        "DrawDeclined": {"v": 3, "seat": "Black"}
    }


def test_game_ended_reveals_seed_and_client_seeds():
    obj = json.loads(wire.encode_event(examples.EVENTS["GameEnded (win)"]))["GameEnded"]
    assert obj == {
        "v": 11,
        "over": {"result": {"Win": {"side": "Black"}}, "termination": "Timeout"},
        "seed": examples.SEED,
        "clientSeeds": {"white": examples.SEEDS.white, "black": ""},
    }


def test_aborted_game_has_null_result():
    obj = json.loads(wire.encode_event(examples.EVENTS["GameEnded (aborted)"]))["GameEnded"]
    assert obj["over"] == {"result": None, "termination": "Aborted"}


def test_draw_result_shape():
    assert wire.encode_over(wire.Over(wire.Draw(), wire.DRAW)) == {
        "result": {"Draw": {}},
        "termination": "Draw",
    }


def test_snapshot_history_turn_shape():
    obj = json.loads(wire.encode_event(examples.EVENTS["Snapshot"]))["Snapshot"]
    assert obj["history"][1] == {"seat": "Black", "dice": [3, 4, 4], "moves": [], "fenAfter": examples.AFTER_E4}
    assert obj["v"] == 4 and obj["state"]["version"] == 4


def test_shared_subtrees_are_expanded_on_encoding():
    tree = json.loads(wire.encode_event(examples.EVENTS["DiceRolled"]))["DiceRolled"]["legalMoves"]
    assert tree == {
        "e2e4": {"g1f3": {"f1c4": {}, "f1b5": {}}},
        "g1f3": {"e2e4": {"f1c4": {}, "f1b5": {}}, "b1c3": {"f1c4": {}}},
    }
    assert wire.decode_event(wire.encode_event(examples.EVENTS["DiceRolled"])).legal_moves == examples.TREE


def test_error_frame_shape_and_round_trip():
    text = wire.encode_error('unknown command "Move"')
    assert text == '{"Error":{"reason":"unknown command \\"Move\\""}}'
    validator("error").validate(json.loads(text))
    validator("server-frame").validate(json.loads(text))
    assert wire.decode_frame(text) == wire.ErrorFrame('unknown command "Move"')


def test_error_frame_is_not_an_event():
    with pytest.raises(wire.WireError, match='unknown event "Error"'):
        wire.decode_event(wire.encode_error("nope"))


def test_decode_frame_names_unknown_frames():
    with pytest.raises(wire.WireError, match='unknown frame "Hello"; expected one of: Snapshot, .*, Error'):
        wire.decode_frame('{"Hello":{}}')


def test_encode_event_refuses_non_events():
    with pytest.raises(TypeError):
        wire.encode_event(wire.Resign())


def test_over_pairs_result_with_termination():
    with pytest.raises(wire.WireError, match="termination Timeout needs a Win result"):
        wire.Over(wire.Draw(), wire.TIMEOUT)
    with pytest.raises(wire.WireError, match="termination Aborted needs no result"):
        wire.Over(wire.Win(wire.WHITE), wire.ABORTED)
    with pytest.raises(wire.WireError, match="needs a Draw result"):
        wire.Over(None, wire.DRAW)
    with pytest.raises(wire.WireError, match="Over.termination must be one of"):
        wire.Over(None, "Forfeit")


def test_seat_is_checked_on_construction():
    with pytest.raises(wire.WireError, match="TurnPlayed.seat must be one of White, Black"):
        wire.TurnPlayed(1, "white", (), "x")


def test_clocks_clamp_negative_remaining_time_to_zero():
    assert wire.Clocks(-15, 2000) == wire.Clocks(0, 2000)
    with pytest.raises(TypeError):
        wire.Clocks(1.5, 0)


def test_events_are_hashable_without_trees():
    assert hash(examples.EVENTS["TurnPlayed"]) == hash(wire.decode_event(wire.encode_event(examples.EVENTS["TurnPlayed"])))
