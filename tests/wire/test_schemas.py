"""The JSON Schemas in specs/wire: well-formed, and never laxer than the decoders."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playsite import wire
from playsite.wire.schemas import load_schema, schema_dir, schema_names, validator

from . import examples
from .strategies import commands, events, history_records, public_game_states, time_controls

EXPECTED_SCHEMAS = {
    "command", "common", "error", "event", "history", "move-tree", "outcome",
    "public-game-state", "rematch-startup", "server-frame", "time-control",
}


def test_schema_dir_is_repository_specs_wire():
    assert schema_dir().parts[-2:] == ("specs", "wire")
    assert set(schema_names()) == EXPECTED_SCHEMAS


@pytest.mark.parametrize("name", sorted(EXPECTED_SCHEMAS))
def test_schema_is_valid_draft_2020_12_with_its_own_id(name):
    schema = load_schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(f"/{name}.schema.json")
    assert schema.get("description") or schema.get("title")
    validator(name)  # checks the schema and resolves its references


def test_validator_accepts_file_names_too():
    assert validator("event.schema.json").is_valid(json.loads(wire.encode_event(examples.EVENTS["DrawDeclined"])))


# Each row: schema, decoder, a value both must refuse (the decoder with a WireError).

def _state(**changes):
    obj = wire.encode_public_game_state(examples.ACTIVE_STATE)
    obj.update(changes)
    return obj


def _dice_rolled(**changes):
    obj = json.loads(wire.encode_event(examples.EVENTS["DiceRolled"]))
    obj["DiceRolled"].update(changes)
    return obj


def _turn(**changes):
    obj = json.loads(wire.encode_event(examples.EVENTS["TurnPlayed"]))
    obj["TurnPlayed"].update(changes)
    return obj


def _ended(**changes):
    obj = json.loads(wire.encode_event(examples.EVENTS["GameEnded (win)"]))
    obj["GameEnded"].update(changes)
    return obj


def _aborted():
    """A valid history record of an aborted game (examples.HISTORY ended by king capture)."""
    return {**wire.encode_history(examples.HISTORY), "termination": "aborted", "result": 0}


def _without(obj, *path):
    obj = copy.deepcopy(obj)
    target = obj
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return obj


_decode_command = lambda obj: wire.decode_command(json.dumps(obj))  # noqa: E731
_decode_event = lambda obj: wire.decode_event(json.dumps(obj))  # noqa: E731

BAD = {
    # commands
    "command array": ("command", _decode_command, ["Resign"]),
    "command two keys": ("command", _decode_command, {"Resign": {}, "AnswerDraw": {"accept": True}}),
    "command unknown": ("command", _decode_command, {"Offer": {}}),
    "command moves string": ("command", _decode_command, {"SubmitTurn": {"moves": "e2e4"}}),
    "command nine moves": ("command", _decode_command, {"SubmitTurn": {"moves": ["a2a3"] * 9}}),
    "command bad uci": ("command", _decode_command, {"SubmitTurn": {"moves": ["e2e9"]}}),
    "command offerDraw int": ("command", _decode_command, {"SubmitTurn": {"moves": [], "offerDraw": 1}}),
    "command extra field": ("command", _decode_command, {"Resign": {"now": True}}),
    "command seed int": ("command", _decode_command, {"SubmitSeed": {"seed": 7}}),
    "command accept missing": ("command", _decode_command, {"AnswerDraw": {}}),
    # time controls
    "tc unlimited extra": ("time-control", wire.decode_time_control, {"Unlimited": {"x": 1}}),
    "tc fischer bool": ("time-control", wire.decode_time_control, {"Fischer": {"initialSeconds": True, "incrementSeconds": 0}}),
    # state
    "state missing commit": ("public-game-state", wire.decode_public_game_state, _without(_state(), "commit")),
    "state missing seed key": ("public-game-state", wire.decode_public_game_state, _without(_state(), "seed")),
    "state extra key": ("public-game-state", wire.decode_public_game_state, _state(gameId="g1")),
    "state seat lower case": ("public-game-state", wire.decode_public_game_state, _state(activeSeat="white")),
    "state version negative": ("public-game-state", wire.decode_public_game_state, _state(version=-1)),
    "state version huge": ("public-game-state", wire.decode_public_game_state, _state(version=2**53)),
    "state commit upper hex": ("public-game-state", wire.decode_public_game_state, _state(commit=examples.COMMIT.upper())),
    "state status bare Ended": ("public-game-state", wire.decode_public_game_state, _state(status={"Ended": {}})),
    "state status string": ("public-game-state", wire.decode_public_game_state, _state(status="Active")),
    "state clocks missing side": ("public-game-state", wire.decode_public_game_state, _state(clocks={"white": 1})),
    "state clocks negative": ("public-game-state", wire.decode_public_game_state, _state(clocks={"white": -1, "black": 0})),
    "state face kind": ("public-game-state", wire.decode_public_game_state,
                        _state(players={"white": {"kind": "Robot", "name": None}, "black": {"kind": "Human", "name": None}})),
    "state face missing name": ("public-game-state", wire.decode_public_game_state,
                                _state(players={"white": {"kind": "Bot"}, "black": {"kind": "Human", "name": None}})),
    "state tree leaf null": ("public-game-state", wire.decode_public_game_state, _state(legalMoves={"e2e4": None})),
    "state marker unknown phase": ("public-game-state", wire.decode_public_game_state, _state(rematchStartup={"phase": "waiting"})),
    "state marker bad deadline": ("public-game-state", wire.decode_public_game_state,
                                  _state(rematchStartup={"phase": "awaiting_joins", "joinDeadlineAt": "soon"})),
    # events
    "event two keys": ("event", _decode_event, {**_turn(), "DrawDeclined": {"v": 1, "seat": "White"}}),
    "event unknown": ("event", _decode_event, {"GameStart": {"gameId": "g"}}),
    "event two dice": ("event", _decode_event, _dice_rolled(dice=[1, 2])),
    "event die seven": ("event", _decode_event, _dice_rolled(dice=[1, 2, 7])),
    "event die zero": ("event", _decode_event, _dice_rolled(dice=[0, 2, 3])),
    "event missing legalMoves": ("event", _decode_event, _without(_dice_rolled(), "DiceRolled", "legalMoves")),
    "event drawOffer null": ("event", _decode_event, _turn(drawOffer=None)),
    "event fenAfter missing": ("event", _decode_event, _without(_turn(), "TurnPlayed", "fenAfter")),
    "event v float": ("event", _decode_event, _turn(v=1.5)),
    "event seed null": ("event", _decode_event, _ended(seed=None)),
    "event clientSeeds null": ("event", _decode_event, _ended(clientSeeds=None)),
    "event draw by timeout": ("event", _decode_event, _ended(over={"result": {"Draw": {}}, "termination": "Timeout"})),
    "event win aborted": ("event", _decode_event, _ended(over={"result": {"Win": {"side": "White"}}, "termination": "Aborted"})),
    "event aborted result omitted": ("event", _decode_event, _ended(over={"termination": "Aborted"})),
    "event termination forfeit": ("event", _decode_event, _ended(over={"result": {"Win": {"side": "White"}}, "termination": "Forfeit"})),
    "event rejected no reason": ("event", _decode_event, {"Rejected": {"v": 1, "seat": "White"}}),
    "event snapshot turn extra": ("event", _decode_event, {"Snapshot": {
        "v": 0, "state": _state(), "history": [{"seat": "White", "dice": [1, 1, 1], "moves": [], "fenAfter": "x", "n": 1}]}}),
    # history
    "history result 2": ("history", wire.decode_history, {**wire.encode_history(examples.HISTORY), "result": 2}),
    "history rated string": ("history", wire.decode_history, {**wire.encode_history(examples.HISTORY), "rated": "yes"}),
    "history turn zero": ("history", wire.decode_history, {**wire.encode_history(examples.HISTORY), "turns": [
        {"turnNumber": 0, "activeColor": "White", "dice": [1, 2, 3], "moves": [], "fenAfter": "x"}]}),
    "history missing fairness": ("history", wire.decode_history, _without(wire.encode_history(examples.HISTORY), "fairness")),
    "history technical on timeout": ("history", wire.decode_history, {**wire.encode_history(examples.HISTORY), "technical": True}),
    "history disconnect on timeout": ("history", wire.decode_history, {**wire.encode_history(examples.HISTORY), "disconnect": True}),
    "history disconnect false": ("history", wire.decode_history, {**wire.encode_history(examples.HISTORY), "disconnect": False}),
    "history disconnect aborted": ("history", wire.decode_history, {
        **wire.encode_history(examples.HISTORY), "termination": "aborted", "result": 0, "disconnect": True}),
    "history abort on timeout": ("history", wire.decode_history, {
        **wire.encode_history(examples.HISTORY), "abort": {"cause": "timeout", "seat": "White"}}),
    "history abort technical": ("history", wire.decode_history, {
        **_aborted(), "technical": True, "abort": {"cause": "resign", "seat": "White"}}),
    "history abort first move no seat": ("history", wire.decode_history, {**_aborted(), "abort": {"cause": "first_move"}}),
    "history abort both away with seat": ("history", wire.decode_history, {
        **_aborted(), "abort": {"cause": "both_away", "seat": "Black"}}),
    "history abort unknown cause": ("history", wire.decode_history, {**_aborted(), "abort": {"cause": "rage_quit", "seat": "Black"}}),
    "history abort seat null": ("history", wire.decode_history, {**_aborted(), "abort": {"cause": "not_joined", "seat": None}}),
    "history abort seat lowercase": ("history", wire.decode_history, {**_aborted(), "abort": {"cause": "resign", "seat": "white"}}),
    "history abort extra field": ("history", wire.decode_history, {
        **_aborted(), "abort": {"cause": "resign", "seat": "White", "why": "x"}}),
    "history abort a string": ("history", wire.decode_history, {**_aborted(), "abort": "first_move"}),
    "history unplayed roll of two dice": ("history", wire.decode_history, {
        **wire.encode_history(examples.HISTORY), "unplayedRoll": {"activeColor": "White", "dice": [1, 2]}}),
    "history unplayed roll without a seat": ("history", wire.decode_history, {
        **wire.encode_history(examples.HISTORY), "unplayedRoll": {"dice": [1, 2, 3]}}),
    "history unplayed roll with moves": ("history", wire.decode_history, {
        **wire.encode_history(examples.HISTORY), "unplayedRoll": {"activeColor": "Black", "dice": [1, 2, 3], "moves": []}}),
}


@pytest.mark.parametrize("case", list(BAD))
def test_decoder_refuses_what_the_schema_refuses(case):
    schema, decode, obj = BAD[case]
    assert not validator(schema).is_valid(obj), "the schema accepts it"
    with pytest.raises(wire.WireError):
        decode(obj)


# Mutation property: start from a valid encoding, break one spot at random; the decoder must
# refuse whatever the schema refuses.

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2**53 + 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "White", "Black", "e2e4", "Active", "Draw", "Bot", examples.COMMIT, "2025-01-31T12:00:00Z"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["v", "x", "Win", "Draw", "e2e4"]), inner, max_size=2),
    max_leaves=5,
)


def _spots(obj, path=()):
    yield path
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _spots(value, (*path, key))
    elif isinstance(obj, list):
        for index, value in enumerate(obj):
            yield from _spots(value, (*path, index))


def _mutate(data, obj):
    obj = copy.deepcopy(obj)
    path = data.draw(st.sampled_from(list(_spots(obj))))
    if not path:
        return data.draw(json_values)
    parent = obj
    for key in path[:-1]:
        parent = parent[key]
    action = data.draw(st.sampled_from(["replace", "delete", "add"]))
    if action == "delete":
        del parent[path[-1]]
    elif action == "add" and isinstance(parent, dict):
        parent[data.draw(st.sampled_from(["extra", "v", "drawOffer", "players", "name"]))] = data.draw(json_values)
    else:
        parent[path[-1]] = data.draw(json_values)
    return obj


def _agrees(schema, decode, obj):
    """Schema refusal implies decoder refusal, and decoder acceptance implies schema acceptance.

    (The decoder may be stricter: it refuses 1.0 as an integer and a trailing newline after
    a UCI move, which JSON Schema as run by Python lets through.)"""
    try:
        decode(obj)
    except wire.WireError:
        return
    assert validator(schema).is_valid(obj), "the decoder accepted what the schema refuses"


@settings(max_examples=200, deadline=None)
@given(st.data(), events)
def test_mutated_events_decoder_never_laxer_than_schema(data, event):
    _agrees("event", _decode_event, _mutate(data, json.loads(wire.encode_event(event))))


@settings(max_examples=150, deadline=None)
@given(st.data(), commands)
def test_mutated_commands_decoder_never_laxer_than_schema(data, command):
    _agrees("command", _decode_command, _mutate(data, json.loads(wire.encode_command(command))))


@settings(max_examples=100, deadline=None)
@given(st.data(), time_controls)
def test_mutated_time_controls_decoder_never_laxer_than_schema(data, tc):
    _agrees("time-control", wire.decode_time_control, _mutate(data, wire.encode_time_control(tc)))


@settings(max_examples=100, deadline=None)
@given(st.data(), public_game_states())
def test_mutated_states_decoder_never_laxer_than_schema(data, state):
    _agrees("public-game-state", wire.decode_public_game_state, _mutate(data, wire.encode_public_game_state(state)))


@settings(max_examples=100, deadline=None)
@given(st.data(), history_records())
def test_mutated_histories_decoder_never_laxer_than_schema(data, record):
    _agrees("history", wire.decode_history, _mutate(data, wire.encode_history(record)))
