"""Accounts in the bots' rating pool: rated against bots and each other in one period, never
against guests, never once deleted; the leaderboard and the player profile show them."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from playsite.accounts import queries as accounts
from playsite.config import Settings
from playsite.ratings.batch import apply_pending
from playsite.ratings.glicko2 import Rating
from tests.support.app import booted, test_client
from tests.support.ratings import History, account, period_by_hand, query, store  # noqa: F401 (store: a fixture)

pytestmark = pytest.mark.postgres


async def test_accounts_and_bots_are_one_pool_and_guests_and_deleted_accounts_stay_out(store, database_url):  # noqa: F811
    history = History(database_url)
    ann, ben, gone = account(database_url, "ann"), account(database_url, "ben"), account(database_url, "gone")
    games = [
        (ann.principal, "bot:red/ant", 1),
        (ben.principal, ann.principal, 0),
        ("bot:blue/cat", ben.principal, -1),
    ]
    for white, black, result in games:
        history.add(None, None, result, principals=(white, black))
    skipped = [
        history.add(None, None, 1, principals=(ann.principal, f"guest:{uuid.uuid4()}")),
        history.add(None, None, 1, principals=(gone.principal, "bot:red/bee")),
        history.add(None, None, 1, principals=(ann.principal, ann.principal)),
    ]
    with psycopg.connect(database_url) as conn:
        accounts.delete(conn, gone.id)
        conn.commit()
    assert await apply_pending(store.database) == 3
    expected = period_by_hand({}, games)
    people = dict(query(database_url, "SELECT 'user:' || account_id::text, rating FROM account_ratings"))
    bots = dict(query(database_url, "SELECT 'bot:' || bot_id, rating FROM bot_ratings"))
    assert set(people) == {ann.principal, ben.principal} and set(bots) == {"bot:red/ant", "bot:blue/cat"}
    for principal, rating in {**people, **bots}.items():
        assert rating == pytest.approx(expected[principal].rating, abs=1e-9), principal
    unmarked = {row[0] for row in query(database_url, "SELECT game_id FROM game_results WHERE rating_applied_at IS NULL")}
    assert unmarked == set(skipped)
    assert expected[ann.principal] != Rating()


async def test_the_leaderboard_lists_converged_players_apart_and_the_profile_shows_no_id(store, database_url):  # noqa: F811
    ann = account(database_url, "Ann")
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO account_ratings (account_id, rating, rd, games, wins, draws, losses) VALUES (%s, 1712.5, 60, 30, 20, 2, 8)",
            (ann.id,),
        )
        conn.execute("INSERT INTO bot_ratings (bot_id, rating, rd, games) VALUES ('red/ant', 1650, 70, 40)")
    History(database_url).add(None, None, 1, principals=(ann.principal, "bot:red/ant"))
    settings = Settings(database_url=database_url, persistence_enabled=True)
    async with booted(settings) as services:
        client = test_client(services)
        board = await (await client.get("/leaderboard")).get_json()
        assert [row["team"] + "/" + row["name"] for row in board["leaders"]] == ["red/ant"]
        assert board["players"] == [
            {"rank": 1, "nickname": "Ann", "rating": 1712.5, "rd": 60.0, "games": 30, "wins": 20, "draws": 2, "losses": 8}
        ]
        profile = await client.get("/players/ann")
        text = await profile.get_data(as_text=True)
        body = await profile.get_json()
        assert profile.status_code == 200 and body["nickname"] == "Ann" and body["rating"] == 1712.5
        assert not body["provisional"] and body["recent"][0]["opponent"] == {"kind": "Bot", "name": "red/ant"}
        assert str(ann.id) not in text and "user:" not in text
        bot = await (await client.get("/bots/red/ant")).get_json()
        assert bot["recent"][0]["opponent"] == {"kind": "Human", "name": "Ann"}, "a bot's profile names its account opponents"
        for missing in ("nobody", "x", "bad%20name"):
            answer = await client.get(f"/players/{missing}")
            assert answer.status_code == 404 and (await answer.get_json())["error"]["code"] == "player_not_found"


async def test_a_persons_profile_lists_each_named_opponent_apart_and_guests_together(store, database_url):  # noqa: F811
    ann, ben = account(database_url, "Ann"), account(database_url, "Ben")
    history = History(database_url)
    history.add(None, None, 1, principals=(ann.principal, ben.principal))  # Ann beat Ben
    history.add(None, None, -1, rated=False, principals=(ben.principal, ann.principal))  # and again, as Black
    history.add(None, None, 0, rated=False, principals=(ann.principal, f"guest:{uuid.uuid4()}"))
    history.add(None, None, 1, principals=(ben.principal, "bot:red/ant"))
    async with booted(Settings(database_url=database_url, persistence_enabled=True)) as services:
        client = test_client(services)
        profile = await (await client.get("/players/ann")).get_json()
        rows = [(row["opponent"], row["games"], row["wins"], row["draws"], row["losses"]) for row in profile["opponents"]]
        assert rows == [
            ({"kind": "Human", "name": "Ben"}, 2, 2, 0, 0),
            ({"kind": "Human", "name": None}, 1, 0, 1, 0),  # guests (and deleted accounts), together
        ]
        bot = await (await client.get("/bots/red/ant")).get_json()
        assert [row["opponent"] for row in bot["opponents"]] == [{"kind": "Human", "name": None}], \
            "a bot's profile keeps every person in one row"
