"""Our encodings also satisfy the dicechess-play reference shapes (read in place from
../shared/reference; skipped when it is absent), so existing bots read them unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings

from playsite import wire

from . import examples
from .strategies import events, history_records, public_game_states

REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "dicechess-play"
ASYNCAPI = "urn:reference:asyncapi"
OPENAPI = "urn:reference:openapi"

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is absent")


@pytest.fixture(scope="module")
def reference():
    """validate(document, pointer, instance) against a schema inside a reference document."""
    yaml = pytest.importorskip("yaml")
    from jsonschema import Draft202012Validator
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    registry = Registry().with_resources(
        (uri, DRAFT202012.create_resource(yaml.safe_load((REFERENCE / name).read_text(encoding="utf-8"))))
        for uri, name in ((ASYNCAPI, "asyncapi.yaml"), (OPENAPI, "openapi.yaml"))
    )
    validators = {}

    def validate(document: str, pointer: str, instance) -> None:
        key = (document, pointer)
        if key not in validators:
            validators[key] = Draft202012Validator({"$ref": f"{document}#{pointer}"}, registry=registry)
        validators[key].validate(instance)

    return validate


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
