"""During a PostgreSQL outage (every PostgreSQL process stopped: a server that hangs, not one
that refuses), the bot profile and the capacity declaration answer 503 within the read
timeout, as every other route does, not after the pool's 10 s connect timeout. Real
`playsite serve`, real PostgreSQL."""

from __future__ import annotations

import time

import httpx
import pytest

from playsite.refusals import READ_TIMEOUT_S
from tests.support.frozen_postgres import frozen

pytestmark = pytest.mark.postgres


async def test_the_bot_profile_and_capacity_answer_503_within_the_read_timeout_during_an_outage(
    serve, migrated_url, pg_cluster
):
    server = serve({"DATABASE_URL": migrated_url})
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
        bot = (await http.post("/bot/register", json={"team": "outage", "name": "probe"})).json()
        assert (await http.get("/bots/outage/probe")).status_code == 200
        with frozen(pg_cluster):
            for method, path, body in (("GET", "/bots/outage/probe", None), ("POST", "/bot/capacity", {"maxConcurrentGames": 2})):
                started = time.monotonic()
                answer = await http.request(method, path, json=body, headers={"Authorization": f"Bearer {bot['token']}"})
                took = time.monotonic() - started
                assert answer.status_code == 503 and answer.json()["error"]["code"] == "temporarily_unavailable", answer.text
                assert answer.headers["Retry-After"]
                assert took < READ_TIMEOUT_S + 1.5, f"{method} {path} answered after {took:.1f} s"
        assert (await http.get("/bot/capacity", headers={"Authorization": f"Bearer {bot['token']}"})).json()[
            "maxConcurrentGames"
        ] == 1, "the declaration that was answered 503 changed nothing"
