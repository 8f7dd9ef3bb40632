"""GET /players/{nickname}/rating-history and GET /bots/{team}/{name}/rating-history: one point
per rating period the player played in, written by the real batch on a real PostgreSQL."""

from __future__ import annotations

import psycopg
import pytest

from playsite.config import Settings
from playsite.ratings.batch import apply_pending
from tests.support.app import booted, test_client
from tests.support.ratings import History, account, period_by_hand, store  # noqa: F401 (store: a fixture)

pytestmark = pytest.mark.postgres


async def test_each_period_adds_one_point_with_its_own_games(store, database_url):  # noqa: F811
    ann = account(database_url, "Ann")
    history = History(database_url)
    period_1 = [(ann.principal, "bot:red/ant", 1), ("bot:red/ant", ann.principal, 0), ("bot:blue/cat", "bot:red/ant", 1)]
    for white, black, result in period_1:
        history.add(None, None, result, principals=(white, black))
    assert await apply_pending(store.database) == 3
    after_1 = period_by_hand({}, period_1)
    period_2 = [("bot:red/ant", ann.principal, 1)]
    for white, black, result in period_2:
        history.add(None, None, result, principals=(white, black))
    assert await apply_pending(store.database) == 1
    after_2 = period_by_hand(after_1, period_2)

    settings = Settings(database_url=database_url, persistence_enabled=True)
    async with booted(settings) as services:
        client = test_client(services)
        answer = await client.get("/players/ann/rating-history")
        assert answer.status_code == 200
        body = await answer.get_json()
        assert body["nickname"] == "ann"
        points = body["points"]
        assert [(p["games"], p["wins"], p["draws"], p["losses"]) for p in points] == [(2, 1, 1, 0), (1, 0, 0, 1)]
        assert points[0]["rating"] == pytest.approx(after_1[ann.principal].rating, abs=1e-9)
        assert points[1]["rating"] == pytest.approx(after_2[ann.principal].rating, abs=1e-9)
        assert points[1]["rd"] == pytest.approx(after_2[ann.principal].rd, abs=1e-9)
        # three games in: still provisional, as the profile says (the play page's "?" reads it)
        assert [p["provisional"] for p in points] == [True, True]
        assert (await (await client.get("/players/ann")).get_json())["provisional"] is True
        assert points[0]["at"] < points[1]["at"]
        ant = await (await client.get("/bots/red/ant/rating-history")).get_json()
        assert [p["games"] for p in ant["points"]] == [3, 1]
        cat = await (await client.get("/bots/blue/cat/rating-history")).get_json()
        assert [(p["games"], p["wins"]) for p in cat["points"]] == [(1, 1)], "a period without its games adds nothing"
        for path, code in (("/players/nobody/rating-history", "player_not_found"), ("/players/x/rating-history", "player_not_found"),
                           ("/bots/no/such/rating-history", "bot_not_found")):
            refused = await client.get(path)
            assert refused.status_code == 404 and (await refused.get_json())["error"]["code"] == code, path


async def test_a_registered_bot_that_never_played_rated_has_an_empty_history(store, database_url):  # noqa: F811
    # the store fixture registered the bots of the batch tests
    settings = Settings(database_url=database_url, persistence_enabled=True)
    async with booted(settings) as services:
        body = await (await test_client(services).get("/bots/red/ant/rating-history")).get_json()
        assert body == {"team": "red", "name": "ant", "points": []}


async def test_ratings_stored_before_the_history_existed_become_its_first_point(database_url):
    from playsite.store.migrations import apply_pending as migrate, load_migrations

    before = [m for m in load_migrations() if m.name != "rating_history"]
    with psycopg.connect(database_url, autocommit=True) as conn:
        migrate(conn, before)
        conn.execute("INSERT INTO bots (id, team, name, token_hash) VALUES ('red/ant', 'red', 'ant', '\\x00')")
        conn.execute("INSERT INTO bot_ratings (bot_id, rating, rd, games, wins) VALUES ('red/ant', 1620, 80, 12, 7)")
        migrate(conn, load_migrations())
        rows = conn.execute("SELECT principal, rating, rd, games, wins FROM rating_history").fetchall()
    assert rows == [("bot:red/ant", 1620.0, 80.0, 12, 7)]
    settings = Settings(database_url=database_url, persistence_enabled=True)
    async with booted(settings) as services:
        body = await (await test_client(services).get("/bots/red/ant/rating-history")).get_json()
    assert [(p["rating"], p["rd"], p["provisional"]) for p in body["points"]] == [(1620.0, 80.0, False)]  # converged
