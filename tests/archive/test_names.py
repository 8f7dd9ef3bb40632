"""Finished games name their people as they are now: the archive record (immutable, cached
forever) names none, GET /archive and GET /games/{id}/players name each account by its current
nickname, and a deleted account by nothing."""

from __future__ import annotations

import psycopg
import pytest

from playsite.accounts import queries as accounts_store
from playsite.wire import BLACK, WHITE
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.rematch import finished_game, server

pytestmark = pytest.mark.postgres

UNNAMED = {"kind": "Human", "name": None}


async def test_finished_games_name_their_people_as_they_are_now(migrated_url):
    with psycopg.connect(migrated_url) as conn:
        alice = accounts_store.sign_in(conn, "https://id.example", "alice", {"nickname": "alice"})
        bob = accounts_store.sign_in(conn, "https://id.example", "bob", {"nickname": "bob"})
        conn.commit()
    async with server(migrated_url) as (services, client):
        game_id, _, _ = await finished_game(services, {WHITE: alice.principal, BLACK: bob.principal})
        guests, _, _ = await finished_game(services)

        record = await (await client.get(f"/games/{game_id}/history")).get_json()
        assert record["players"] == {"white": UNNAMED, "black": UNNAMED}, "the immutable record names nobody"
        now = await client.get(f"/games/{game_id}/players")
        assert now.status_code == 200 and now.headers["Cache-Control"] == "no-cache"
        assert await now.get_json() == {"white": {"kind": "Human", "name": "alice"}, "black": {"kind": "Human", "name": "bob"}}
        listed = {game["gameId"]: game["players"] for game in (await (await client.get("/archive")).get_json())["games"]}
        with_people = (await (await client.get("/archive?people=1")).get_json())["games"]
        assert {game["gameId"] for game in with_people} >= {game_id, guests}, "people played both"
        for wrong in ("people=yes", "people=0", "limit=0", "before=x"):
            refused = await client.get(f"/archive?{wrong}")
            assert refused.status_code == 400 and (await refused.get_json())["error"]["code"] == "invalid_request", wrong
        assert listed[game_id] == {"white": {"kind": "Human", "name": "alice"}, "black": {"kind": "Human", "name": "bob"}}
        assert listed[guests] == {"white": UNNAMED, "black": UNNAMED}, "guests stay unnamed"

        with psycopg.connect(migrated_url) as conn:
            accounts_store.delete(conn, bob.id)
            conn.commit()
        assert await (await client.get(f"/games/{game_id}/players")).get_json() == {
            "white": {"kind": "Human", "name": "alice"}, "black": UNNAMED}, "a deleted account's name goes"
        missing = await client.get("/games/00000000-0000-4000-8000-000000000000/players")
        assert missing.status_code == 404 and (await missing.get_json())["error"]["code"] == "game_not_found"
