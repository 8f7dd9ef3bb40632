"""service.md, "Credentials never appear in public links, analytics, errors or logs", on the
showcase's side: over a whole claim (won, replayed, refused as a conflict, lost, the seat's
socket opened over playsite's own HTTP server, the game ended, the claim replayed after it),
the winner's seat token is in no log record at DEBUG, no error or spectating body, no
public status, no archive record and no analytics outbox payload. Real PostgreSQL.
"""

from __future__ import annotations

import json
import logging
import uuid

import pytest
from trio_websocket import open_websocket_url

from tests.support.app import served
from tests.support.database import migrated_url, sql  # noqa: F401 (a fixture)
from tests.support.showcase import end_game, receiver, table_at  # noqa: F401 (receiver: a fixture)
from tests.support.waiting import deadline

pytestmark = pytest.mark.postgres


async def test_the_seat_token_stays_out_of_logs_errors_and_analytics(migrated_url, receiver, caplog):
    caplog.set_level(logging.DEBUG)
    async with table_at(migrated_url, receiver) as t:
        guest, key = str(uuid.uuid4()), str(uuid.uuid4())
        status, won, _ = await t.claim(guest, key)
        assert status == 200 and won["outcome"] == "claimed"
        token = won["seatToken"]
        assert len(token) >= 16 and f"token={token}" in won["wsUrl"]  # the winner's own answer carries it
        elsewhere = []  # every other answer of the flow
        status, replayed, _ = await t.claim(guest, key)
        assert replayed == won, "the rightful retry gets the same token"
        status, conflict, _ = await t.claim(guest, key, clientEntropy="another fingerprint, same key")
        assert status == 409 and conflict["code"] == "idempotency_conflict"
        elsewhere.append(conflict)
        status, lost, _ = await t.claim(str(uuid.uuid4()))
        assert lost["outcome"] == "spectating"
        elsewhere.append(lost)
        elsewhere.append((await t.status())[1])
        async with served(t.services) as base:
            async with open_websocket_url(base + won["wsUrl"]) as socket:
                with deadline(10, "the seat's first event"):
                    assert await socket.get_message()
        await end_game(t, won["gameId"])
        status, after, _ = await t.claim(guest, key)
        assert after["outcome"] == "spectating" and after["reason"] == "game_ended"
        elsewhere.append(after)

    assert token not in json.dumps(elsewhere)
    server = [record for record in caplog.records if record.name != "trio-websocket"]  # the test's own client
    logged = [record for record in server if token in record.getMessage() or token in (record.exc_text or "")]
    assert logged == [], [record.getMessage() for record in logged]
    assert any(record.levelno == logging.DEBUG for record in server), "DEBUG records were captured"
    [(payload,)] = sql(migrated_url, "SELECT payload::text FROM analytics_outbox")
    assert won["gameId"] in payload and token not in payload
    [(record,)] = sql(migrated_url, "SELECT record::text FROM game_archive WHERE game_id = %s", (won["gameId"],))
    assert token not in record
