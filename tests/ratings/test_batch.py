"""The rating batch against a real PostgreSQL.

The expected ratings are computed INDEPENDENTLY of batch.py: the Glicko-2 module (tested on
its own against Glickman's example) applied by hand, period by period, to the games this
test knows it inserted — every bot rated against its opponents' pre-period ratings.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter

import psycopg
import pytest
import trio

from playsite.ratings.batch import RatingBatchUnavailable, apply_pending, as_of, run_rating_batch
from playsite.ratings.glicko2 import Rating, age, rate
from playsite.store.database import Database
from tests.support.ratings import BOTS, History, period_by_hand, query, store  # noqa: F401 (store: a fixture)
from tests.support.waiting import deadline

pytestmark = pytest.mark.postgres


def count_applied(url: str) -> int:
    return query(url, "SELECT count(*) FROM game_results WHERE rating_applied_at IS NOT NULL")[0][0]


def stored_ratings(url: str) -> dict[str, tuple]:
    rows = query(url, "SELECT bot_id, rating, rd, volatility, games, wins, draws, losses FROM bot_ratings")
    return {row[0]: row[1:] for row in rows}


def tally(games: list[tuple[str, str, int]]) -> dict[str, tuple[int, int, int, int]]:
    wins, draws, losses = Counter(), Counter(), Counter()
    for white, black, result in games:
        if result == 0:
            draws[white] += 1
            draws[black] += 1
        else:
            winner, loser = (white, black) if result == 1 else (black, white)
            wins[winner] += 1
            losses[loser] += 1
    bots = set(wins) | set(draws) | set(losses)
    return {b: (wins[b] + draws[b] + losses[b], wins[b], draws[b], losses[b]) for b in bots}


def assert_matches(url: str, expected: dict[str, Rating], games: list[tuple[str, str, int]]):
    stored = stored_ratings(url)
    assert set(stored) == set(expected)
    counts = tally(games)
    for bot, rating in expected.items():
        got = stored[bot]
        assert got[:3] == pytest.approx((rating.rating, rating.rd, rating.volatility), abs=1e-9), bot
        assert got[3:] == counts[bot], bot


def add_skipped_rows(history: History) -> list[uuid.UUID]:
    """Rows the batch must never rate: each would move a registered bot's rating if it did."""
    return [
        history.add(None, None, 1, principals=("bot:red/ant", f"guest:{uuid.uuid4()}")),
        history.add(None, None, -1, principals=(f"guest:{uuid.uuid4()}", "bot:red/bee")),
        history.add(None, None, 1, principals=("bot:anon:rookie", "bot:blue/cat")),
        history.add(None, None, 1, principals=("bot:ghost/unregistered", "bot:blue/dog")),
        history.add(None, None, 1, principals=(None, "bot:green/eel")),
        history.add("red/ant", "red/ant", 1),  # self-play
        history.add("red/ant", "blue/cat", None),  # aborted: no result
        history.add("red/ant", "blue/cat", 1, rated=False),
        history.add("blue/dog", "green/fox", -1, rated=False),
    ]


async def test_synthetic_history_matches_a_computation_by_hand_period_by_period(store, database_url):
    history = History(database_url)
    period_1 = [
        ("red/ant", "red/bee", 1),
        ("red/bee", "blue/cat", 0),
        ("blue/cat", "red/ant", -1),
        ("blue/dog", "green/eel", 1),
        ("green/eel", "red/ant", 0),
        ("red/ant", "blue/dog", 1),
    ]
    for game in period_1:
        history.add(*game)
    skipped = add_skipped_rows(history)

    assert await apply_pending(store.database) == len(period_1)
    expected = period_by_hand({}, period_1)
    assert set(expected) == {"red/ant", "red/bee", "blue/cat", "blue/dog", "green/eel"}
    assert_matches(database_url, expected, period_1)

    # Period 2: pre-period ratings are period 1's results; a newcomer (green/fox) joins.
    period_2 = [
        ("red/bee", "red/ant", 1),
        ("green/fox", "red/ant", 0),
        ("blue/cat", "blue/dog", -1),
        ("red/ant", "blue/cat", 1),
        ("green/fox", "green/eel", 1),
        ("red/bee", "green/fox", 0),
        ("blue/dog", "red/bee", -1),
    ]
    for game in period_2:
        history.add(*game)
    assert await apply_pending(store.database) == len(period_2)
    expected = period_by_hand(expected, period_2)
    assert_matches(database_url, expected, period_1 + period_2)

    # Nothing pending: a further period changes nothing, the idle bots are not touched.
    before = stored_ratings(database_url)
    assert await apply_pending(store.database) == 0
    assert stored_ratings(database_url) == before

    # Skipped rows were never marked, every applied row was.
    unmarked = query(database_url, "SELECT game_id FROM game_results WHERE rating_applied_at IS NULL")
    assert {row[0] for row in unmarked} == set(skipped)
    marked = query(database_url, "SELECT count(*) FROM game_results WHERE rating_applied_at IS NOT NULL")[0][0]
    assert marked == len(period_1) + len(period_2)


async def test_pre_period_ratings_are_used_for_every_game_of_the_period(store, database_url):
    # A beats B, then B beats C in the same period: C must be rated against B's PRE-period
    # rating, not the one B would have after losing to A.
    history = History(database_url)
    games = [("red/ant", "red/bee", 1), ("red/bee", "blue/cat", 1)]
    for game in games:
        history.add(*game)
    assert await apply_pending(store.database) == 2
    sequential_cat = rate(Rating(), [(rate(Rating(), [(Rating(), 0.0)]), 0.0)])
    by_period = period_by_hand({}, games)
    assert_matches(database_url, by_period, games)
    assert stored_ratings(database_url)["blue/cat"][0] != pytest.approx(sequential_cat.rating, abs=1e-6)


async def test_skipped_rows_alone_never_create_or_change_ratings(store, database_url):
    history = History(database_url)
    skipped = add_skipped_rows(history)
    assert await apply_pending(store.database) == 0
    assert stored_ratings(database_url) == {}
    history.add("red/ant", "blue/cat", 1)
    assert await apply_pending(store.database) == 1
    assert_matches(database_url, period_by_hand({}, [("red/ant", "blue/cat", 1)]), [("red/ant", "blue/cat", 1)])
    assert len(query(database_url, "SELECT 1 FROM game_results WHERE rating_applied_at IS NULL")) == len(skipped)


async def test_inactivity_grows_the_rd_by_one_step_per_whole_idle_day(store, database_url):
    stored_ant = Rating(1720.5, 60.0, 0.058)
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO bot_ratings (bot_id, rating, rd, volatility, games, wins, draws, losses, updated_at)"
            " VALUES ('red/ant', %s, %s, %s, 40, 20, 10, 10, now() - interval '3 days 5 hours')",
            (stored_ant.rating, stored_ant.rd, stored_ant.volatility),
        )
        updated_at, now = conn.execute("SELECT updated_at, now() FROM bot_ratings").fetchone()
    assert as_of(stored_ant, updated_at, now) == age(stored_ant, 3)

    History(database_url).add("blue/cat", "red/ant", 1)
    assert await apply_pending(store.database) == 1
    before = {"red/ant": age(stored_ant, 3), "blue/cat": Rating()}
    expected = period_by_hand(before, [("blue/cat", "red/ant", 1)])
    stored = stored_ratings(database_url)
    assert stored["red/ant"][:3] == pytest.approx(
        (expected["red/ant"].rating, expected["red/ant"].rd, expected["red/ant"].volatility), abs=1e-9
    )
    assert stored["red/ant"][3:] == (41, 20, 10, 11)
    assert stored["blue/cat"][3:] == (1, 1, 0, 0)


async def test_a_batch_failing_midway_applies_nothing_and_the_rerun_applies_each_game_once(store, database_url):
    history = History(database_url)
    games = [("red/ant", "red/bee", 1), ("red/bee", "blue/cat", 0), ("blue/cat", "red/ant", -1)]
    for game in games:
        history.add(*game)
    # Fail after bot_ratings was upserted, when the results are being marked.
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            "CREATE FUNCTION fail_midway() RETURNS trigger LANGUAGE plpgsql AS $$"
            " BEGIN RAISE EXCEPTION 'crash midway'; END $$"
        )
        conn.execute(
            "CREATE TRIGGER fail_midway BEFORE UPDATE ON game_results FOR EACH ROW EXECUTE FUNCTION fail_midway()"
        )
    with pytest.raises(psycopg.Error, match="crash midway"):
        await apply_pending(store.database)
    assert stored_ratings(database_url) == {}
    assert query(database_url, "SELECT count(*) FROM game_results WHERE rating_applied_at IS NOT NULL")[0][0] == 0

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("DROP TRIGGER fail_midway ON game_results")
    assert await apply_pending(store.database) == 3
    assert await apply_pending(store.database) == 0
    assert_matches(database_url, period_by_hand({}, games), games)


async def test_concurrent_batches_on_two_pools_apply_every_game_exactly_once(store, database_url):
    history = History(database_url)
    games = []
    for i in range(120):
        white, black = BOTS[i % 6], BOTS[(i * 5 + 1 + i // 6) % 6]
        if white == black:
            black = BOTS[(i + 1) % 6]
        game = (white, black, (-1, 0, 1)[i % 3])
        games.append(game)
        history.add(*game)
    other = Database(database_url, pool_size=2, statement_timeout_ms=5000)
    await other.open()
    totals = []
    try:
        async def drain(target):
            applied = 0
            while (n := await apply_pending(target, limit=7)) > 0:
                applied += n
                await trio.sleep(0)
            totals.append(applied)

        async with trio.open_nursery() as nursery:
            for target in (store.database, other, store.database, other):
                nursery.start_soon(drain, target)
    finally:
        await other.close()
    assert sum(totals) == len(games)
    counts = tally(games)
    stored = stored_ratings(database_url)
    assert {bot: row[3:] for bot, row in stored.items()} == counts
    assert query(database_url, "SELECT count(*) FROM game_results WHERE rating_applied_at IS NULL")[0][0] == 0


async def test_the_batch_without_postgresql_is_refused_clearly():
    with pytest.raises(RatingBatchUnavailable):
        await run_rating_batch(None)


async def test_the_service_catches_up_at_start_survives_a_failing_period_and_keeps_going(store, database_url, caplog):
    caplog.set_level(logging.INFO, logger="playsite.ratings")
    history = History(database_url)
    history.add("red/ant", "red/bee", 1)

    async def wait_for(applied: int):
        with deadline(10, f"{applied} game(s) rated"):
            while count_applied(database_url) < applied:
                await trio.sleep(0.02)

    async with trio.open_nursery() as nursery:
        await nursery.start(lambda task_status: run_rating_batch(store.database, period_s=0.05, task_status=task_status))
        await wait_for(1)
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute("ALTER TABLE bot_ratings RENAME TO bot_ratings_away")
        history.add("blue/cat", "red/ant", 0)
        with deadline(10, "a failed rating period to be logged"):
            while not any("rating batch failed" in r.getMessage() for r in caplog.records):
                await trio.sleep(0.02)
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute("ALTER TABLE bot_ratings_away RENAME TO bot_ratings")
        await wait_for(2)
        nursery.cancel_scope.cancel()
    games = [("red/ant", "red/bee", 1), ("blue/cat", "red/ant", 0)]
    expected = period_by_hand(period_by_hand({}, games[:1]), games[1:])
    assert_matches(database_url, expected, games)


async def test_a_period_that_rated_games_refreshes_the_rating_book_at_once(store, database_url):
    """Play-through (session 56): the names on a rematch's board kept the old ratings while the
    panel said the new ones: the book the names are read from waited for its own 30 s refresh."""
    from playsite.ratings.book import RatingBook

    book = RatingBook(store.database)
    History(database_url).add("red/ant", "red/bee", 1)
    await book.refresh()
    before = book.rating_of_principal("bot:red/ant")
    async with trio.open_nursery() as nursery:
        await nursery.start(lambda task_status: run_rating_batch(
            store.database, period_s=3600, book=book, task_status=task_status))
        with deadline(10, "the book to hold the new rating"):
            while book.rating_of_principal("bot:red/ant") == before:
                await trio.sleep(0.02)
        nursery.cancel_scope.cancel()
    assert book.rating_of_principal("bot:red/ant").rating > 1500 > book.rating_of_principal("bot:red/bee").rating
