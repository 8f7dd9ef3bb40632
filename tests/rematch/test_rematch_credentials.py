"""Seat tokens stay out of logs, error bodies and analytics (service.md, Rematch authentication
rule 8: "Credentials never appear in public links, analytics, errors or logs"), on a real
PostgreSQL, booted in-process, with the successor joined over a real socket of playsite's own
hypercorn set-up (where a token travels in the URL).

Over a whole rematch (refusals of every kind sent with tokens, propose, accept, both seats
joining the successor, its end), every log record at DEBUG and every analytics outbox payload
is free of the four tokens involved: the source's two seat tokens and the two `join` tokens.
So is every error body, with one exception that the contract itself makes: an error answered
once the rematch is `matched` carries the caller's private state, and that state's `join` is
the caller's own seat of the successor (service.md, "Rematch error body"); it never carries any
other token."""

from __future__ import annotations

import json
import logging
import uuid

import pytest
import trio_websocket

from playsite.wire import BLACK, SEATS, WHITE, Resign
from tests.support.app import served
from tests.support.database import migrated_url, sql  # noqa: F401 (fixture)
from tests.support.rematch import WRITE, accept, as_seat, finished_game, get, post, server
from tests.support.rooms import command
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres

CLIENT_LOGGERS = {"trio-websocket"}
"""The test's own socket client, which logs the URL it connects to (the server's log is what is judged)."""


async def test_no_token_reaches_a_log_record_an_error_body_or_the_analytics_outbox(migrated_url, caplog):
    caplog.set_level(logging.DEBUG)
    async with server(migrated_url) as (services, client), served(services) as base:
        game_id, tokens, principals = await finished_game(services)
        errors = []

        async def refused(status: int, answer) -> dict:
            assert answer[0] == status, answer
            errors.append(answer[1])
            return answer[1]

        await refused(403, await get(client, game_id, tokens[WHITE][::-1]))
        await refused(404, await get(client, str(uuid.uuid4()), tokens[WHITE]))
        await refused(403, await post(client, game_id, tokens[WHITE], "propose", Origin="https://evil.example"))
        await refused(409, await post(client, game_id, tokens[BLACK], "cancel"))
        response = await client.post(f"/games/{game_id}/rematch", headers={**WRITE, **as_seat(tokens[WHITE])},
                                     json={"requestId": str(uuid.uuid4()), "action": "propose", "token": tokens[BLACK]})
        await refused(400, (response.status_code, await response.get_json()))
        request_id = str(uuid.uuid4())
        assert (await post(client, game_id, tokens[WHITE], "propose", request_id))[0] == 200
        await refused(409, await post(client, game_id, tokens[WHITE], "cancel", request_id))
        await refused(409, await post(client, game_id, tokens[WHITE], "decline"))

        black_view = await accept(client, game_id, tokens[BLACK])
        _, white_view, _ = await get(client, game_id, tokens[WHITE])
        joins = {WHITE: white_view["join"], BLACK: black_view["join"]}
        successor = services.registry.get(black_view["nextGameId"])
        urls = [f"{base}/games/{successor.game_id}/ws?token={joins[seat]['token']}&guest={principals[seat].split(':')[1]}"
                for seat in SEATS]
        async with trio_websocket.open_websocket_url(urls[0]), trio_websocket.open_websocket_url(urls[1]):
            await wait_until(lambda: json.loads(successor.state_text())["rematchStartup"] == {"phase": "active"},
                             "the successor to begin")
            await command(successor, joins[WHITE]["seat"], Resign())
            await wait_until(lambda: successor.completed, "the successor's end committed")

        # Refused once matched: the caller's state, with its own join only.
        for seat in SEATS:
            body = await refused(409, await post(client, game_id, tokens[seat], "cancel"))
            assert body["state"]["join"] == joins[seat]

    secrets = {"White's source token": tokens[WHITE], "Black's source token": tokens[BLACK],
               "White's join token": joins[WHITE]["token"], "Black's join token": joins[BLACK]["token"]}
    assert len(set(secrets.values())) == 4
    server_records = [record for record in caplog.records if record.name not in CLIENT_LOGGERS]
    for record in server_records:
        text = record.getMessage() + (logging.Formatter().formatException(record.exc_info) if record.exc_info else "")
        assert not [name for name, token in secrets.items() if token in text], f"{record.name}: {text}"
    assert {"playsite.rematch", "hypercorn.error"} <= {record.name for record in server_records}, "the log was captured"
    own = {joins[WHITE]["token"], joins[BLACK]["token"]}
    for body in errors:
        text = json.dumps(body)
        mine = {body["state"]["join"]["token"]} if "join" in body.get("state", {}) else set()
        assert mine <= own and not [name for name, token in secrets.items() if token in text and token not in mine], body
    payloads = sql(migrated_url, "SELECT payload::text FROM analytics_outbox")
    assert len(payloads) == 2, "the source's and the successor's"
    for (payload,) in payloads:
        assert not [name for name, token in secrets.items() if token in payload], payload
