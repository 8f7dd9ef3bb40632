"""Our encodings also satisfy the dicechess-play reference shapes (read in place from
../shared/reference; skipped when it is absent), so existing bots read them unchanged."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from playsite import wire
from tests.support.reference import ASYNCAPI, OPENAPI, REFERENCE, reference  # noqa: F401 (a fixture)

from . import examples
from .strategies import events, history_records, public_game_states

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is absent")


def _reference_message(event) -> str | None:
    name = type(event).__name__
    return None if name == "DrawDeclined" else name  # DrawDeclined is a playsite extension


@pytest.mark.parametrize("name", [name for name in examples.EVENTS if name != "DrawDeclined"])
def test_example_events_match_reference_messages(reference, name):
    event = examples.EVENTS[name]
    reference(ASYNCAPI, f"/components/messages/{_reference_message(event)}/payload", json.loads(wire.encode_event(event)))


@settings(max_examples=60, deadline=None)
@given(events)
def test_any_event_matches_its_reference_message(reference, event):
    message = _reference_message(event)
    if message is not None:
        reference(ASYNCAPI, f"/components/messages/{message}/payload", json.loads(wire.encode_event(event)))


@settings(max_examples=60, deadline=None)
@given(public_game_states())
def test_state_matches_reference_public_game_state(reference, state):
    obj = wire.encode_public_game_state(state)
    reference(OPENAPI, "/components/schemas/PublicGameState", obj)
    reference(ASYNCAPI, "/components/schemas/PublicGameState", obj)
    reference(OPENAPI, "/components/schemas/TimeControl", obj["timeControl"])


@settings(max_examples=60, deadline=None)
@given(history_records())
def test_history_matches_reference_game_history(reference, record):
    reference(OPENAPI, "/components/schemas/GameHistory", wire.encode_history(record))


def test_reference_move_request_is_a_submit_turn_body(reference):
    body = wire.command_to_json(examples.COMMANDS["SubmitTurn"])["SubmitTurn"]
    reference(OPENAPI, "/components/schemas/MoveRequest", body)
