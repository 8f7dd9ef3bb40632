"""GET /leaderboard and GET /bots/{team}/{name} against a real PostgreSQL (rows inserted by
SQL), the 404 without persistence, and the rating book the catalog and ladder state read."""

from __future__ import annotations

import contextlib
import hashlib
import uuid
from datetime import datetime, timedelta, timezone

import httpx
import psycopg
import pytest

from playsite.config import Settings
from playsite.ratings.book import DEFAULT, Rating
from playsite.store.database import Database
from playsite.store.memory import MemoryStore
from playsite.store.migrations import apply_pending, load_migrations
from playsite.store.postgres import PostgresStore
from tests.support.app import booted, test_client
from tests.support.errors import assert_error

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
HUMAN = {"kind": "Human", "name": None}
NO_PERSISTENCE = "persistence_required"
"""The 404 code without PostgreSQL: `persistence_required` once specs/openapi.yaml lists it."""


def bot_face(bot_id: str) -> dict:
    return {"kind": "Bot", "name": bot_id}


@contextlib.asynccontextmanager
async def running(store):
    async with booted(Settings(dice_seed_window_ms=0), store=store) as services:
        yield services, test_client(services)


@contextlib.asynccontextmanager
async def postgres(url: str):
    database = Database(url, pool_size=2, statement_timeout_ms=5000)
    await database.open()
    try:
        yield PostgresStore(database, save_timeout_s=5)
    finally:
        await database.close()


async def get(client, path: str) -> tuple[int, dict]:
    response = await client.get(path)
    assert response.content_type.startswith("application/json")
    return response.status_code, await response.get_json()


class Rows:
    """Inserts bots, ratings and game results by SQL."""

    def __init__(self, conn):
        self.conn = conn

    def bot(self, bot_id: str, *, on_ladder=False, open_to_humans=False, rating=None):
        team, name = bot_id.split("/")
        self.conn.execute(
            "INSERT INTO bots (id, team, name, token_hash, on_ladder, open_to_humans) VALUES (%s, %s, %s, %s, %s, %s)",
            (bot_id, team, name, hashlib.sha256(bot_id.encode()).digest(), on_ladder, open_to_humans),
        )
        if rating is not None:
            value, rd, games, wins, draws, losses = rating
            self.conn.execute(
                "INSERT INTO bot_ratings (bot_id, rating, rd, games, wins, draws, losses) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (bot_id, value, rd, games, wins, draws, losses),
            )

    def game(self, white: str | None, black: str | None, result: int | None, minute: int, *, rated=True,
             termination="king_captured", disconnect=False, abort=(None, None)) -> str:
        game_id = str(uuid.uuid4())
        self.conn.execute(
            """INSERT INTO game_results (game_id, finished_at, rated, origin, white_principal, black_principal,
                                         result, termination, time_control, disconnect, abort_cause, abort_seat)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)""",
            (game_id, T0 + timedelta(minutes=minute), rated, "ladder" if rated else "challenge", white, black,
             result, termination, '{"Fischer": {"initialSeconds": 180, "incrementSeconds": 2}}', disconnect, *abort),
        )
        return game_id


@pytest.fixture
def rows(database_url):
    with psycopg.connect(database_url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
        yield Rows(conn)


# ----- without persistence -------------------------------------------------------------------


async def test_without_persistence_both_reads_are_404():
    async with running(MemoryStore()) as (_services, client):
        assert_error(await get(client, "/leaderboard"), 404, NO_PERSISTENCE)
        assert_error(await get(client, "/bots/acme/alice"), 404, NO_PERSISTENCE)
        assert not await _services.ratings.refresh()
        assert _services.ratings.rating_of("acme/alice") == DEFAULT


# ----- the leaderboard ---------------------------------------------------------------------


@pytest.mark.postgres
async def test_leaderboard_ranks_converged_ratings_best_first(rows, database_url):
    rows.bot("acme/alice", on_ladder=True, rating=(1720.5, 60, 40, 25, 5, 10))
    rows.bot("acme/bob", rating=(1810.0, 109.9, 30, 20, 2, 8))
    rows.bot("zen/carol", on_ladder=True, rating=(1810.0, 80, 50, 30, 10, 10))  # same rating, surer
    rows.bot("zen/dave", on_ladder=True, rating=(2100.0, 110.0, 12, 12, 0, 0))  # exactly the bound
    rows.bot("zen/erin", on_ladder=True, rating=(2300.0, 110.01, 9, 9, 0, 0))  # provisional: hidden
    rows.bot("zen/fred", on_ladder=True)  # no rating row: 1500/350, hidden
    async with postgres(database_url) as store, running(store) as (_services, client):
        status, body = await get(client, "/leaderboard")
    assert status == 200
    assert body == {
        "leaders": [
            {"rank": 1, "team": "zen", "name": "dave", "rating": 2100.0, "rd": 110.0, "onLadder": True,
             "games": 12, "wins": 12, "draws": 0, "losses": 0},
            {"rank": 2, "team": "zen", "name": "carol", "rating": 1810.0, "rd": 80.0, "onLadder": True,
             "games": 50, "wins": 30, "draws": 10, "losses": 10},
            {"rank": 3, "team": "acme", "name": "bob", "rating": 1810.0, "rd": 109.9, "onLadder": False,
             "games": 30, "wins": 20, "draws": 2, "losses": 8},
            {"rank": 4, "team": "acme", "name": "alice", "rating": 1720.5, "rd": 60.0, "onLadder": True,
             "games": 40, "wins": 25, "draws": 5, "losses": 10},
        ],
        "players": [],
    }


@pytest.mark.postgres
async def test_an_empty_leaderboard_is_an_empty_list(rows, database_url):
    rows.bot("acme/alice", on_ladder=True)
    async with postgres(database_url) as store, running(store) as (_services, client):
        assert await get(client, "/leaderboard") == (200, {"leaders": [], "players": []})


# ----- profiles ------------------------------------------------------------------------------


@pytest.mark.postgres
async def test_profile_summarises_rating_opponents_and_recent_games(rows, database_url):
    rows.bot("acme/alice", on_ladder=True, rating=(1650.0, 95.0, 4, 2, 1, 1))
    rows.bot("acme/bob", rating=(1550.0, 120.0, 3, 1, 0, 2))
    rows.bot("zen/carol")
    me, bob, carol = "bot:acme/alice", "bot:acme/bob", "bot:zen/carol"
    # Against bob: alice White wins, alice Black loses, a draw, and an aborted game.
    g1 = rows.game(me, bob, 1, 1)
    g2 = rows.game(bob, me, 1, 2)
    g3 = rows.game(me, bob, 0, 3, rated=False)
    g4 = rows.game(bob, me, None, 4, termination="aborted", abort=("first_move", "Black"))
    # Against carol (casual) once: alice Black, White lost, so alice won.
    g5 = rows.game(carol, me, -1, 5, rated=False, termination="timeout")
    # Against people: two guests, one win and one loss, collapsed into one row.
    g6 = rows.game(f"guest:{uuid.uuid4()}", me, -1, 6, rated=False)
    # alice (White) left the game and forfeited.
    g7 = rows.game(me, f"guest:{uuid.uuid4()}", -1, 7, rated=False, termination="resign", disconnect=True)
    # An anonymous bot (not registered) and games alice did not play.
    g8 = rows.game(me, "bot:anon/zz-1234", 1, 8, rated=False)
    rows.game(bob, carol, 1, 9)
    async with postgres(database_url) as store, running(store) as (_services, client):
        status, profile = await get(client, "/bots/acme/alice")
    assert status == 200
    assert {k: v for k, v in profile.items() if k not in ("opponents", "recent")} == {
        "team": "acme", "name": "alice", "rating": 1650.0, "rd": 95.0, "provisional": False, "onLadder": True,
        "games": 4, "wins": 2, "draws": 1, "losses": 1,
    }
    at = lambda minute: (T0 + timedelta(minutes=minute)).isoformat(timespec="milliseconds").replace("+00:00", "Z")  # noqa: E731
    assert profile["opponents"] == [
        {"opponent": bot_face("acme/bob"), "team": "acme", "botName": "bob", "games": 3, "wins": 1, "draws": 1,
         "losses": 1, "lastPlayedAt": at(3)},
        {"opponent": HUMAN, "team": None, "botName": None, "games": 2, "wins": 1, "draws": 0, "losses": 1,
         "lastPlayedAt": at(7)},
        {"opponent": bot_face("zen/carol"), "team": "zen", "botName": "carol", "games": 1, "wins": 1, "draws": 0,
         "losses": 0, "lastPlayedAt": at(5)},
    ]
    clock = {"Fischer": {"initialSeconds": 180, "incrementSeconds": 2}}  # each game's, as the wire writes it
    assert all(game.pop("timeControl") == clock for game in profile["recent"]), profile["recent"]
    assert profile["recent"] == [
        {"gameId": g8, "seat": "White", "opponent": bot_face("anon/zz-1234"), "result": "win", "rated": False,
         "termination": "king_captured", "finishedAt": at(8)},
        {"gameId": g7, "seat": "White", "opponent": HUMAN, "result": "loss", "rated": False,
         "termination": "resign", "disconnect": True, "finishedAt": at(7)},
        {"gameId": g6, "seat": "Black", "opponent": HUMAN, "result": "win", "rated": False,
         "termination": "king_captured", "finishedAt": at(6)},
        {"gameId": g5, "seat": "Black", "opponent": bot_face("zen/carol"), "result": "win", "rated": False,
         "termination": "timeout", "finishedAt": at(5)},
        {"gameId": g4, "seat": "Black", "opponent": bot_face("acme/bob"), "result": "unknown", "rated": True,
         "termination": "aborted", "abort": {"cause": "first_move", "seat": "Black"}, "finishedAt": at(4)},
        {"gameId": g3, "seat": "White", "opponent": bot_face("acme/bob"), "result": "draw", "rated": False,
         "termination": "king_captured", "finishedAt": at(3)},
        {"gameId": g2, "seat": "Black", "opponent": bot_face("acme/bob"), "result": "loss", "rated": True,
         "termination": "king_captured", "finishedAt": at(2)},
        {"gameId": g1, "seat": "White", "opponent": bot_face("acme/bob"), "result": "win", "rated": True,
         "termination": "king_captured", "finishedAt": at(1)},
    ]


@pytest.mark.postgres
async def test_profile_defaults_caps_recent_at_twenty_and_404s_unknown_bots(rows, database_url):
    rows.bot("acme/alice")
    rows.bot("acme/bob")
    ids = [rows.game("bot:acme/alice", "bot:acme/bob", 0, minute, rated=False) for minute in range(25)]
    async with postgres(database_url) as store, running(store) as (_services, client):
        status, profile = await get(client, "/bots/acme/bob")
        assert status == 200
        assert (profile["rating"], profile["rd"], profile["provisional"], profile["onLadder"]) == (1500.0, 350.0, True, False)
        assert (profile["games"], profile["wins"], profile["draws"], profile["losses"]) == (0, 0, 0, 0)
        assert [g["gameId"] for g in profile["recent"]] == ids[::-1][:20]
        assert {g["result"] for g in profile["recent"]} == {"draw"}
        assert [(o["botName"], o["games"], o["draws"]) for o in profile["opponents"]] == [("alice", 25, 25)]
        assert_error(await get(client, "/bots/acme/ghost"), 404, "bot_not_found")
        for impossible in ("a%00/b", "Acme/alice", "acme/" + "x" * 40):
            assert_error(await get(client, f"/bots/{impossible}"), 404, "bot_not_found")
        assert_error(await get(client, "/bots/anon/zz-1234"), 404, "bot_not_found")


# ----- the rating book ------------------------------------------------------------------------


@pytest.mark.postgres
async def test_catalog_and_ladder_state_show_the_stored_ratings(rows, database_url):
    rows.bot("acme/alice", open_to_humans=True, rating=(1650.0, 95.0, 4, 2, 1, 1))
    rows.bot("acme/bob", open_to_humans=True)
    async with postgres(database_url) as store, running(store) as (services, client):
        # The boot read the book before serving; a refresh reads it again.
        assert services.ratings.rating_of("acme/alice") == Rating(1650.0, 95.0)
        assert await services.ratings.refresh()
        assert services.ratings.rating_of("acme/alice") == Rating(1650.0, 95.0)
        assert services.ratings.rating_of("acme/bob") == DEFAULT
        response = await client.get("/lobby/bots")
        cards = {card["name"]: card for card in (await response.get_json())["bots"]}
    assert (cards["alice"]["rating"], cards["alice"]["rd"], cards["alice"]["provisional"]) == (1650.0, 95.0, False)
    assert (cards["bob"]["rating"], cards["bob"]["rd"], cards["bob"]["provisional"]) == (1500.0, 350.0, True)


# ----- over a real server, once playsite/app.py mounts the blueprint -----------------------------


@pytest.mark.postgres
def test_a_served_process_answers_the_leaderboard_and_profiles(serve, rows, database_url):
    rows.bot("acme/alice", on_ladder=True, open_to_humans=True, rating=(1650.0, 95.0, 4, 2, 1, 1))
    server = serve({"DICE_SEED_WINDOW_MS": "0", "DATABASE_URL": database_url})
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        leaders = http.get("/leaderboard")
        assert leaders.status_code == 200, leaders.text
        assert [(r["rank"], r["name"]) for r in leaders.json()["leaders"]] == [(1, "alice")]
        assert http.get("/bots/acme/alice").json()["rating"] == 1650.0
        assert http.get("/bots/acme/ghost").json()["error"]["code"] == "bot_not_found"
        # The serving app refreshed the rating book at start: the catalog shows the stored rating.
        assert [(c["rating"], c["rd"]) for c in http.get("/lobby/bots").json()["bots"]] == [(1650.0, 95.0)]


def test_a_served_process_without_persistence_answers_404(serve):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        response = http.get("/leaderboard")
        assert response.status_code == 404 and response.json()["error"]["code"] == NO_PERSISTENCE
