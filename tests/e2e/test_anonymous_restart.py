"""An anonymous bot lives in memory only, so a restart forgets it and its token. Play-through
(session 62): its game was resumed all the same, nobody could play its seat, and two minutes
later it ended as a loss on time (the idle forfeit): a result the bot never played and a win
its opponent never earned. Such a game is now aborted at boot, a technical abort with no
result, while a registered bot's game resumes and goes on."""

from __future__ import annotations

import httpx
import pytest

from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres


async def a_game_against_house_random(http: httpx.AsyncClient, token: str) -> str:
    auth = {"Authorization": f"Bearer {token}"}
    created = await http.post("/bot/challenge", json={"team": "house", "name": "random"}, headers=auth)
    assert created.status_code == 201, created.text

    async def started():
        games = (await http.get("/bot/games", headers=auth)).json()["games"]
        return games[0]["gameId"] if games else None

    return await wait_until(started, "the house bot accepts: a game", timeout=20, interval=0.1)


async def test_a_restart_aborts_an_anonymous_bots_game_and_resumes_a_registered_ones(serve, migrated_url):
    env = {"DATABASE_URL": migrated_url, "DICE_SEED_WINDOW_MS": "0", "GAME_DURABILITY": "required", "PLAY_HOUSE_BOTS": "true"}
    server = serve(env)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=20) as http:
        anonymous = (await http.post("/bot/anon", params={"name": "forgotten"})).json()
        registered = (await http.post("/bot/register", json={"team": "acme", "name": "kept"})).json()
        forgotten_game = await a_game_against_house_random(http, anonymous["token"])
        kept_game = await a_game_against_house_random(http, registered["token"])
    assert server.stop() == 0

    restarted = serve(env)
    async with httpx.AsyncClient(base_url=restarted.base_url, timeout=20) as http:
        state = (await http.get(f"/games/{forgotten_game}")).json()
        assert "Ended" in state["status"], state["status"]
        record = (await http.get(f"/games/{forgotten_game}/history")).json()
        assert record["termination"] == "aborted" and record["technical"] is True, record
        assert (await http.get("/bot/account", headers={"Authorization": f"Bearer {anonymous['token']}"})).status_code == 401
        kept = (await http.get(f"/games/{kept_game}")).json()
        assert "Active" in kept["status"], kept["status"]  # a registered bot comes back to it
    assert "aborted 1 resumed game(s) of anonymous bots" in restarted.output()
    assert "Traceback" not in restarted.output()
