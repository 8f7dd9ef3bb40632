"""How long a rematch request id is remembered (service.md, Limits: "24 hours from the first
attempt, per source game and final seat; replays do not extend it"), on a real PostgreSQL,
booted in-process. Time passes in SQL: a record is aged by moving its `created_at` back, as
the hours between two attempts would have."""

from __future__ import annotations

import uuid

import pytest

from playsite.wire import BLACK, WHITE
from tests.support.database import migrated_url, sql  # noqa: F401 (fixture)
from tests.support.rematch import finished_game, post, server

pytestmark = pytest.mark.postgres


def records(url: str) -> dict[str, tuple[str, float]]:
    """Seat -> (action, seconds since its first attempt) of every kept request record."""
    rows = sql(url, "SELECT seat, action, extract(epoch FROM now() - created_at)::float FROM rematch_requests")
    return {seat: (action, age) for seat, action, age in rows}


def age(url: str, seat: str, interval: str) -> None:
    """As if `seat`'s request had first been made `interval` ago."""
    sql(url, "UPDATE rematch_requests SET created_at = now() - %s::interval WHERE seat = %s", (interval, seat))


async def test_a_request_id_is_kept_24_h_from_its_first_attempt_per_seat_and_a_replay_never_extends_it(migrated_url):
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        request_id = str(uuid.uuid4())
        status, offered, _ = await post(client, game_id, tokens[WHITE], "propose", request_id)
        assert status == 200 and offered["phase"] == "offered"

        # Just inside the 24 h: the id is still White's propose, and replaying it changes nothing.
        age(migrated_url, WHITE, "23 hours 59 minutes")
        status, body, _ = await post(client, game_id, tokens[WHITE], "cancel", request_id)
        assert status == 409 and body["error"] == {"code": "request_id_conflict"} and body["state"]["phase"] == "offered"
        status, body, _ = await post(client, game_id, tokens[WHITE], "propose", request_id)
        assert status == 200 and body["phase"] == "offered" and body["deadlineAt"] == offered["deadlineAt"]
        action, kept = records(migrated_url)[WHITE]
        assert action == "propose" and kept == pytest.approx(86_340, abs=60), "the replay did not restart the 24 h"

        # The other seat's identical id is its own: Black's cancel under it is judged as Black's
        # command (the recipient may not cancel), not as a reuse of White's id.
        status, body, _ = await post(client, game_id, tokens[BLACK], "cancel", request_id)
        assert status == 409 and body["error"] == {"code": "invalid_transition"}, body
        assert records(migrated_url)[BLACK][0] == "cancel" and records(migrated_url)[WHITE][0] == "propose"

        # 24 h after White's first attempt (the replay counted for nothing), the same id with
        # another action is a new command, and it takes effect.
        age(migrated_url, WHITE, "24 hours 1 minute")
        status, body, _ = await post(client, game_id, tokens[WHITE], "cancel", request_id)
        assert status == 200 and body["phase"] == "closed" and body["closedReason"] == "cancelled", body
        action, kept = records(migrated_url)[WHITE]
        assert action == "cancel" and kept < 60, "a new first attempt, kept 24 h from now"


async def test_an_expired_request_id_is_accepted_again_and_pruned_by_the_scan(migrated_url):
    """An id past its 24 h is dropped by the service's scan; reused after that with another
    action, it is an ordinary new command that takes effect."""
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        request_id = str(uuid.uuid4())
        status, _, _ = await post(client, game_id, tokens[BLACK], "cancel", request_id)
        assert status == 409  # nothing to cancel yet: refused, and recorded with its error
        status, offered, _ = await post(client, game_id, tokens[WHITE], "propose", request_id)
        assert status == 200 and offered["phase"] == "offered"
        age(migrated_url, BLACK, "24 hours 1 minute")
        await services.rematches.scan()
        assert set(records(migrated_url)) == {WHITE}, "Black's expired record was pruned, White's kept"
        status, body, _ = await post(client, game_id, tokens[BLACK], "accept", request_id)
        assert status == 200 and body["phase"] in ("starting", "matched") and body["myConsent"] is True
        assert records(migrated_url)[BLACK][0] == "accept"
