"""Contract v1 of rematch and continuation: the fixtures in specs/rematch-v1/ are valid against
openapi.yaml, and a running server's answers are valid against it too and carry exactly the
fields of the fixture of their phase (so a client written against the fixtures reads them)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from playsite.wire import BLACK, WHITE
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.documented import OPENAPI_PATH, Documented
from tests.support.rematch import WRITE, as_seat, finished_game, server
from tests.support.waiting import wait_until

FIXTURES = Path(__file__).resolve().parents[2] / "specs" / "rematch-v1"
SCHEMA_OF = {"participant": "RematchState", "error": "RematchError", "spectator": "Continuation"}


def fixtures() -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted(FIXTURES.glob("*.json"))}


@pytest.fixture(scope="module")
def documented() -> Documented:
    return Documented()


def shape(body):
    """The fields of a body, nested objects included, without their values."""
    if isinstance(body, dict):
        return {key: shape(value) for key, value in body.items() if key != "timeControl"}
    return type(body).__name__


def test_every_fixture_is_valid_against_its_schema(documented):
    found = fixtures()
    assert len(found) >= 12
    for name, body in found.items():
        schema = SCHEMA_OF[name.split("-")[0]]
        validator = documented.validator(f"{OPENAPI_PATH.as_uri()}#/components/schemas/{schema}")
        errors = list(validator.iter_errors(body))
        assert not errors, f"{name}: {errors[0]}"


def test_the_schemas_refuse_a_state_that_breaks_the_phase_rules(documented):
    validator = documented.validator(f"{OPENAPI_PATH.as_uri()}#/components/schemas/RematchState")
    matched = fixtures()["participant-matched"]
    assert not validator.is_valid({**matched, "phase": "offered"})  # a join outside matched
    closed = fixtures()["participant-closed"]
    assert not validator.is_valid({key: value for key, value in closed.items() if key != "closedReason"})
    assert not validator.is_valid({**closed, "allowedActions": ["propose"]})


async def test_a_running_servers_answers_have_the_fields_of_the_fixtures(migrated_url, documented):
    expected = fixtures()
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        rematch, continuation = f"/games/{game_id}/rematch", f"/games/{game_id}/continuation"
        template = "/games/{id}/rematch"

        async def read(token, fixture):
            response = await client.get(rematch, headers=as_seat(token))
            body = documented.check("get", template, response.status_code, response.content_type, await response.get_data())
            assert shape(body) == shape(expected[fixture]), fixture
            return body

        async def command(token, action, fixture, status=200):
            response = await client.post(
                rematch, json={"requestId": str(uuid.uuid4()), "action": action}, headers={**WRITE, **as_seat(token)}
            )
            assert response.status_code == status
            body = documented.check("post", template, status, response.content_type, await response.get_data())
            if fixture == "participant-matched" and body["phase"] == "starting":
                # The successor's commit took longer than the request waits for it (a loaded
                # machine): the seat reads on until matched, as a client polls.
                body = await wait_until(lambda: matched(token), "the successor hosted", timeout=20)
            assert shape(body) == shape(expected[fixture]), fixture

        async def matched(token):
            response = await client.get(rematch, headers=as_seat(token))
            body = documented.check("get", template, response.status_code, response.content_type, await response.get_data())
            return body if body["phase"] == "matched" else None

        async def spectate(fixture):
            response = await client.get(continuation)
            body = documented.check("get", "/games/{id}/continuation", 200, response.content_type, await response.get_data())
            assert shape(body) == shape(expected[fixture]), fixture

        await read(tokens[WHITE], "participant-available")
        await command(tokens[WHITE], "propose", "participant-offered-initiator")
        await read(tokens[BLACK], "participant-offered-recipient")
        await spectate("spectator-waiting")
        await command(tokens[WHITE], "accept", "error-invalid-transition", status=409)
        response = await client.get(rematch, headers=as_seat("nobody"))
        assert await response.get_json() == expected["error-not-participant"]
        await command(tokens[BLACK], "accept", "participant-matched")
        await spectate("spectator-matched")

        declined, declined_tokens, _ = await finished_game(services)
        rematch, continuation = f"/games/{declined}/rematch", f"/games/{declined}/continuation"
        await command(declined_tokens[BLACK], "propose", "participant-offered-initiator")
        await command(declined_tokens[WHITE], "decline", "participant-closed")
        await spectate("spectator-closed")
