"""Public game state: key names, nullable vs omitted keys, the sealed seed, the startup marker."""

from __future__ import annotations

import json

import attrs
import pytest
from hypothesis import given, settings

from playsite import wire
from playsite.wire.schemas import validator

from . import examples
from .strategies import public_game_states

NULLABLE_KEYS = {"clocks", "seed", "clientSeeds", "legalMoves"}


def _roundtrip(state: wire.PublicGameState) -> wire.PublicGameState:
    return wire.decode_public_game_state(json.loads(json.dumps(wire.encode_public_game_state(state))))


@settings(max_examples=100, deadline=None)
@given(public_game_states())
def test_public_game_state_round_trips_and_matches_schema(state):
    validator("public-game-state").validate(wire.encode_public_game_state(state))
    assert _roundtrip(state) == state


def test_state_keys_are_the_compat_camel_case_keys():
    obj = wire.encode_public_game_state(examples.ACTIVE_STATE)
    assert list(obj) == [
        "version", "dfen", "activeSeat", "dicePending", "status", "timeControl",
        "clocks", "commit", "seed", "clientSeeds", "legalMoves", "players",
    ]
    assert obj["status"] == {"Active": {}}
    assert obj["timeControl"] == {"Fischer": {"initialSeconds": 300, "incrementSeconds": 3}}
    assert obj["clocks"] == {"white": 300_000, "black": 299_250}
    assert obj["players"] == {
        "white": {"kind": "Bot", "name": "acme alice"},
        "black": {"kind": "Human", "name": None},
    }


def test_absent_optional_fields_are_omitted_and_nullable_ones_are_null():
    obj = wire.encode_public_game_state(attrs.evolve(examples.ENDED_STATE, rematch_startup=None))
    assert "players" not in obj and "rematchStartup" not in obj
    assert obj["clocks"] is None and obj["legalMoves"] is None
    live = wire.encode_public_game_state(attrs.evolve(examples.ACTIVE_STATE, clocks=None, legal_moves=None))
    assert {key for key, value in live.items() if value is None} == NULLABLE_KEYS


def test_ended_status_carries_over():
    obj = wire.encode_public_game_state(examples.ENDED_STATE)
    assert obj["status"] == {
        "Ended": {"over": {"result": {"Win": {"side": "Black"}}, "termination": "Timeout"}}
    }
    assert obj["seed"] == examples.SEED
    assert obj["clientSeeds"] == {"white": examples.SEEDS.white, "black": ""}


def test_seed_cannot_be_encoded_while_the_game_is_active():
    with pytest.raises(wire.WireError, match="PublicGameState.seed must be None while the game is active"):
        attrs.evolve(examples.ACTIVE_STATE, seed=examples.SEED)
    with pytest.raises(wire.WireError, match="client_seeds must be None while the game is active"):
        attrs.evolve(examples.ACTIVE_STATE, client_seeds=examples.SEEDS)


def test_decoding_refuses_a_revealed_seed_on_an_active_state():
    obj = wire.encode_public_game_state(examples.ACTIVE_STATE)
    obj["seed"] = examples.SEED
    assert not validator("public-game-state").is_valid(obj)
    with pytest.raises(wire.WireError, match="seed and clientSeeds must be null while the game is active"):
        wire.decode_public_game_state(obj)


def test_rematch_startup_marker_shapes():
    awaiting = wire.encode_public_game_state(examples.AWAITING_STATE)["rematchStartup"]
    assert awaiting == {"phase": "awaiting_joins", "joinDeadlineAt": "2025-01-31T12:00:15Z"}
    aborted = wire.encode_public_game_state(examples.ENDED_STATE)["rematchStartup"]
    assert aborted == {"phase": "aborted"}
    assert wire.encode_rematch_startup(wire.RematchStartup("active")) == {"phase": "active"}
    for state in (examples.AWAITING_STATE, examples.ENDED_STATE):
        assert _roundtrip(state) == state


def test_rematch_startup_deadline_only_while_awaiting_joins():
    with pytest.raises(wire.WireError, match="must be set for awaiting_joins and only then"):
        wire.RematchStartup("awaiting_joins")
    with pytest.raises(wire.WireError, match="must be set for awaiting_joins and only then"):
        wire.RematchStartup("active", "2025-01-31T12:00:15Z")
    with pytest.raises(wire.WireError, match='missing field "joinDeadlineAt"'):
        wire.decode_rematch_startup({"phase": "awaiting_joins"})
    with pytest.raises(wire.WireError, match="joinDeadlineAt is only allowed for awaiting_joins, not active"):
        wire.decode_rematch_startup({"phase": "active", "joinDeadlineAt": "2025-01-31T12:00:15Z"})


def test_players_null_is_refused_because_absent_players_are_omitted():
    obj = wire.encode_public_game_state(examples.ACTIVE_STATE)
    obj["players"] = None
    assert not validator("public-game-state").is_valid(obj)
    with pytest.raises(wire.WireError, match="state.players must be an object, got null"):
        wire.decode_public_game_state(obj)


def test_legal_move_tree_keys_must_be_uci():
    obj = wire.encode_public_game_state(examples.ACTIVE_STATE)
    obj["legalMoves"] = {"e2e4": {"castle": {}}}
    assert not validator("public-game-state").is_valid(obj)
    with pytest.raises(wire.WireError, match='state.legalMoves.e2e4 has key "castle", which is not a UCI move'):
        wire.decode_public_game_state(obj)


def test_move_tree_schema_accepts_trees_and_decoder_bounds_depth():
    validator("move-tree").validate(examples.TREE)
    deep: dict = {}
    for _ in range(9):
        deep = {"a1a2": deep}
    with pytest.raises(wire.WireError, match="deeper than 8 moves"):
        wire.decode_move_tree(deep)
    assert wire.decode_move_tree({"a1a2": {}}) == {"a1a2": {}}
