"""Commands: round trips, and a specific client-presentable reason for every malformed frame."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from playsite import wire
from playsite.wire.schemas import validator

from . import examples
from .strategies import commands

KNOWN = "SubmitTurn, SubmitSeed, Resign, AnswerDraw"


def refused(text: str | bytes) -> str:
    """The reason decode_command gives for `text` (which must be refused)."""
    with pytest.raises(wire.WireError) as caught:
        wire.decode_command(text)
    return caught.value.reason


@pytest.mark.parametrize("name", list(examples.COMMANDS))
def test_command_round_trip(name):
    command = examples.COMMANDS[name]
    text = wire.encode_command(command)
    validator("command").validate(json.loads(text))
    assert wire.decode_command(text) == command
    assert wire.decode_command(text.encode("utf-8")) == command


@settings(max_examples=150, deadline=None)
@given(commands)
def test_any_command_round_trips_and_matches_schema(command):
    text = wire.encode_command(command)
    validator("command").validate(json.loads(text))
    assert wire.decode_command(text) == command


def test_command_wire_shapes():
    assert wire.encode_command(wire.SubmitTurn(["e2e4", "g1f3"])) == '{"SubmitTurn":{"moves":["e2e4","g1f3"]}}'
    assert wire.encode_command(wire.SubmitTurn(["e2e4"], offer_draw=True)) == (
        '{"SubmitTurn":{"moves":["e2e4"],"offerDraw":true}}'
    )
    assert wire.encode_command(wire.SubmitSeed("x" * 16)) == '{"SubmitSeed":{"seed":"xxxxxxxxxxxxxxxx"}}'
    assert wire.encode_command(wire.Resign()) == '{"Resign":{}}'
    assert wire.encode_command(wire.AnswerDraw(False)) == '{"AnswerDraw":{"accept":false}}'


def test_reference_bot_frames_decode():
    assert wire.decode_command('{"SubmitTurn": {"moves": ["e2e4", "d2d4"]}}') == wire.SubmitTurn(("e2e4", "d2d4"))
    assert wire.decode_command('{"SubmitSeed": {"seed": "abc"}}') == wire.SubmitSeed("abc")
    assert wire.decode_command(b'{"Resign": {}}') == wire.Resign()


def test_submit_turn_offer_draw_false_is_accepted():
    assert wire.decode_command('{"SubmitTurn":{"moves":[],"offerDraw":false}}') == wire.SubmitTurn(())


def test_seed_is_passed_through_as_given():
    # Length and content are the dice layer's business: it ignores bad seeds, never errors.
    assert wire.decode_command('{"SubmitSeed":{"seed":""}}') == wire.SubmitSeed("")
    assert wire.decode_command('{"SubmitSeed":{"seed":"  ✓\\u0000"}}') == wire.SubmitSeed("  ✓\x00")


# One named test per way a frame can be malformed.


def test_command_invalid_json():
    assert refused('{"Resign": {}') == "command is not valid JSON: Expecting ',' delimiter at line 1 column 14"
    assert refused("") == "command is not valid JSON: Expecting value at line 1 column 1"


def test_command_not_utf8():
    assert refused(b'{"SubmitSeed":{"seed":"\xff"}}') == "command is not valid UTF-8"


def test_command_not_an_object():
    assert refused('["SubmitTurn", ["e2e4"]]') == "command must be an object, got array"
    assert refused('"Resign"') == "command must be an object, got string"


def test_command_without_a_key():
    assert refused("{}") == "command must have exactly one key naming the command, got none"


def test_command_with_two_keys():
    assert refused('{"Resign":{},"SubmitSeed":{"seed":"x"}}') == (
        'command must have exactly one key naming the command, got 2 keys ("Resign", "SubmitSeed")'
    )


def test_command_with_duplicate_keys():
    assert refused('{"Resign":{},"Resign":{}}') == 'duplicate key "Resign" in a JSON object'


def test_unknown_command_lists_known_ones():
    assert refused('{"Move":{"moves":["e2e4"]}}') == f'unknown command "Move"; expected one of: {KNOWN}'


def test_command_body_not_an_object():
    assert refused('{"Resign":null}') == "Resign must be an object, got null"
    assert refused('{"SubmitTurn":["e2e4"]}') == "SubmitTurn must be an object, got array"


def test_command_missing_field():
    assert refused('{"SubmitTurn":{}}') == 'SubmitTurn is missing field "moves"'
    assert refused('{"AnswerDraw":{}}') == 'AnswerDraw is missing field "accept"'


def test_command_unknown_field():
    assert refused('{"SubmitTurn":{"moves":[],"promote":"q"}}') == 'SubmitTurn has unknown field "promote"'
    assert refused('{"Resign":{"reason":"lost"}}') == 'Resign has unknown field "reason"'


def test_moves_not_a_list():
    assert refused('{"SubmitTurn":{"moves":"e2e4"}}') == (
        "SubmitTurn.moves must be an array of move strings, got string"
    )


def test_moves_not_strings():
    assert refused('{"SubmitTurn":{"moves":["e2e4",12]}}') == (
        "SubmitTurn.moves must be an array of strings; SubmitTurn.moves[1] is integer"
    )


def test_more_than_eight_moves():
    moves = json.dumps(["a2a3"] * 9)
    assert refused(f'{{"SubmitTurn":{{"moves":{moves}}}}}') == (
        "SubmitTurn.moves has 9 items; at most 8 are allowed"
    )
    assert wire.decode_command(f'{{"SubmitTurn":{{"moves":{json.dumps(["a2a3"] * 8)}}}}}')


@pytest.mark.parametrize("move", ["e2e9", "E2E4", "e2e4 ", "e2-e4", "O-O", "e7e8k", "e2", "i2i4", "e2e4qq", "e2e4\n"])
def test_move_not_uci_shaped(move):
    reason = refused(json.dumps({"SubmitTurn": {"moves": ["d2d4", move]}}))
    assert reason == f"SubmitTurn.moves[1] {json.dumps(move)} is not a UCI move (like e2e4, or e7e8q for a promotion)"


def test_offer_draw_not_a_boolean():
    assert refused('{"SubmitTurn":{"moves":[],"offerDraw":"yes"}}') == (
        "SubmitTurn.offerDraw must be a boolean, got string"
    )


def test_seed_not_a_string():
    assert refused('{"SubmitSeed":{"seed":12345}}') == "SubmitSeed.seed must be a string, got integer"
    assert refused('{"SubmitSeed":{"seed":null}}') == "SubmitSeed.seed must be a string, got null"


def test_accept_not_a_boolean():
    assert refused('{"AnswerDraw":{"accept":1}}') == "AnswerDraw.accept must be a boolean, got integer"


def test_command_longer_than_4096_bytes():
    padding = "x" * (4096 - len('{"SubmitSeed":{"seed":""}}'))
    exact = f'{{"SubmitSeed":{{"seed":"{padding}"}}}}'
    assert len(exact.encode()) == 4096
    assert wire.decode_command(exact) == wire.SubmitSeed(padding)
    assert refused(exact.replace("xx", "xxx", 1)) == "command is 4097 bytes; at most 4096 are allowed"
    assert refused(exact.replace("xx", "xxx", 1).encode()) == "command is 4097 bytes; at most 4096 are allowed"


def test_command_size_counts_utf8_bytes_not_characters():
    seed = "é" * 2040  # 2,040 characters, 4,080 bytes
    text = json.dumps({"SubmitSeed": {"seed": seed}}, ensure_ascii=False)
    assert len(text) < 4096 < len(text.encode())
    assert refused(text) == f"command is {len(text.encode())} bytes; at most 4096 are allowed"


def test_command_nan_is_not_json():
    assert refused('{"AnswerDraw":{"accept":NaN}}') == "NaN is not a JSON number"


def test_command_deeply_nested_is_refused_not_crashing():
    assert refused("[" * 2000 + "]" * 2000) == "command is nested too deeply"


def test_reason_quoting_a_lone_surrogate_stays_encodable():
    reason = refused('{"SubmitTurn":{"moves":["\\ud800"]}}')
    assert reason == 'SubmitTurn.moves[0] "\\ud800" is not a UCI move (like e2e4, or e7e8q for a promotion)'
    wire.encode_error(reason).encode("utf-8")


def test_reason_quotes_long_values_shortened():
    reason = refused(json.dumps({"SubmitTurn": {"moves": ["z" * 500]}}))
    assert len(reason) < 120 and "…" in reason


def test_error_frame_carries_the_reason():
    reason = refused('{"Move":{}}')
    assert json.loads(wire.encode_error(reason)) == {"Error": {"reason": reason}}


def test_command_from_parsed_json_for_http_routes():
    assert wire.command_from_json({"SubmitTurn": {"moves": ["e2e4"]}}) == wire.SubmitTurn(("e2e4",))
    assert wire.command_to_json(wire.Resign()) == {"Resign": {}}
