"""One behavioural suite, two stores: the memory twin and the real PostgreSQL store."""

from __future__ import annotations

import json
import threading
import uuid
from datetime import datetime, timedelta, timezone

import attrs
import psycopg
import pytest
import trio

from playsite.config import ConfigError, Settings
from playsite.store.base import GameEnding, GameWrite, ResultRow, WriteRefused
from playsite.store.database import Database
from playsite.store.memory import MemoryStore
from playsite.store.migrations import apply_pending, load_migrations
from playsite.store.lease import ServingLease
from playsite.store.postgres import PostgresStore
from tests.support.database import migrated_url, opened_database  # noqa: F401 (migrated_url: a fixture)


@pytest.fixture(params=["memory", "postgres"])
async def store(request):
    if request.param == "memory":
        yield MemoryStore()
        return
    url = request.getfixturevalue("database_url")
    with psycopg.connect(url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    database = Database(url, pool_size=4, statement_timeout_ms=5000)
    await database.open()
    try:
        yield PostgresStore(database, save_timeout_s=5)
    finally:
        await database.close()


def write(game_id: str, version: int, status: str = "active", principal: str | None = None) -> GameWrite:
    return GameWrite(
        game_id=game_id,
        version=version,
        status=status,
        origin="friend",
        durability="required",
        rated=False,
        snapshot={"version": version, "marker": f"v{version}"},
        seats={"White": (b"\x01" * 32, principal), "Black": (b"\x02" * 32, None)},
    )


def ending(game_id: str, finished_at: datetime | None = None) -> GameEnding:
    finished_at = finished_at or datetime.now(timezone.utc)
    return GameEnding(
        result=ResultRow(
            game_id=game_id,
            finished_at=finished_at,
            rated=True,
            origin="friend",
            white_principal="guest:a",
            black_principal="guest:b",
            result=1,
            termination="resign",
            time_control={"Fischer": {"initialSeconds": 300, "incrementSeconds": 3}},
        ),
        archive={"gameId": game_id, "turns": [], "termination": "resign"},
        outbox_key=f"game:{game_id}",
        outbox_payload={"source": "playsite", "gameId": game_id},
    )


async def test_save_game_is_fenced_on_the_version(store):
    game = str(uuid.uuid4())
    await store.save_game(write(game, 3))
    await store.save_game(write(game, 2))  # a late, older write
    assert [s["marker"] for s in await store.active_games()] == ["v3"]
    await store.save_game(write(game, 3, principal="guest:a"))  # same version, e.g. a seat rebind
    await store.save_game(write(game, 4))
    assert [s["marker"] for s in await store.active_games()] == ["v4"]


async def test_terminal_write_is_one_idempotent_transaction(store):
    game = str(uuid.uuid4())
    await store.save_game(write(game, 5))
    await store.finish_game(write(game, 6, "ended"), ending(game))
    await store.finish_game(write(game, 6, "ended"), ending(game))  # a retried terminal write
    assert await store.active_games() == []
    assert (await store.read_archive(game))["gameId"] == game
    due = await store.due_outbox(10)
    assert [item.key for item in due] == [f"game:{game}"]
    await store.save_game(write(game, 7))  # nothing reopens an ended game
    assert await store.active_games() == []


async def test_an_abort_keeps_why_in_its_results_row_and_the_archive_list(store):
    """The lists of games (the archive's and each player's, from the results rows) say why a
    players' game was aborted, as its record does."""
    game = str(uuid.uuid4())
    end = ending(game)
    why = {"cause": "first_move", "seat": "Black"}
    end = attrs.evolve(
        end,
        result=attrs.evolve(end.result, result=None, termination="aborted", abort_cause="first_move", abort_seat="Black"),
        archive={**end.archive, "termination": "aborted", "result": 0, "abort": why,
                 "finishedAt": end.result.finished_at.isoformat()},
    )
    await store.save_game(write(game, 1))
    await store.finish_game(write(game, 2, "ended"), end)
    row = await store.ended_result(game)
    assert (row.termination, row.result, row.abort_cause, row.abort_seat) == ("aborted", None, "first_move", "Black")
    [listed] = [g for g in await store.recent_archives(10) if g["gameId"] == game]
    assert listed["abort"] == why and listed["termination"] == "aborted"


async def test_the_finished_games_are_listed_newest_first_page_after_page(store):
    """GET /archive's pages: `before` a listed game, the ones that finished before it (the same
    finishing time is ordered by id, as the first page is)."""
    start = datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc)
    games = [str(uuid.uuid4()) for _ in range(5)]
    for minute, game in enumerate(games):  # games[4] finishes last
        end = ending(game, start + timedelta(minutes=minute))
        end = attrs.evolve(end, archive={**end.archive, "result": 1, "finishedAt": end.result.finished_at.isoformat()})
        await store.save_game(write(game, 1))
        await store.finish_game(write(game, 2, "ended"), end)
    newest = list(reversed(games))
    first = await store.recent_archives(2)
    assert [g["gameId"] for g in first] == newest[:2]
    second = await store.recent_archives(2, before=first[-1]["gameId"])
    assert [g["gameId"] for g in second] == newest[2:4]
    last = await store.recent_archives(2, before=second[-1]["gameId"])
    assert [g["gameId"] for g in last] == newest[4:]
    assert await store.recent_archives(2, before=newest[-1]) == []
    assert await store.recent_archives(2, before=str(uuid.uuid4())) == [], "an id not archived: nothing before it"

async def test_the_games_a_person_played_in_are_listed_apart_page_after_page(store):
    """GET /archive?people=1: the bots' own games (a ladder's, a house's) left out, the pages
    going on past them."""
    start = datetime(2026, 12, 2, 13, 0, tzinfo=timezone.utc)
    bot, person = {"kind": "Bot", "name": "house random"}, {"kind": "Human", "name": None}
    seats = [(bot, bot), (person, bot), (bot, bot), (bot, person), (person, person), (bot, bot)]
    games = [str(uuid.uuid4()) for _ in seats]
    for minute, (game, (white, black)) in enumerate(zip(games, seats)):
        end = ending(game, start + timedelta(minutes=minute))
        end = attrs.evolve(end, archive={**end.archive, "result": 1, "finishedAt": end.result.finished_at.isoformat(),
                                         "players": {"white": white, "black": black}})
        await store.save_game(write(game, 1))
        await store.finish_game(write(game, 2, "ended"), end)
    with_people = [games[4], games[3], games[1]]  # newest first
    first = await store.recent_archives(2, with_people=True)
    assert [g["gameId"] for g in first] == with_people[:2]
    rest = await store.recent_archives(2, before=first[-1]["gameId"], with_people=True)
    assert [g["gameId"] for g in rest] == with_people[2:]
    assert [g["gameId"] for g in await store.recent_archives(10, before=games[5])][:5] == list(reversed(games[:5]))
    assert await store.recent_archives(10, before=games[1], with_people=True) == []


async def test_unknown_archive_is_none(store):
    assert await store.read_archive(str(uuid.uuid4())) is None


async def test_outbox_delivery_and_retry_schedule(store):
    game = str(uuid.uuid4())
    await store.finish_game(write(game, 1, "ended"), ending(game))
    [item] = await store.due_outbox(10)
    await store.outbox_failed(item.id, "HTTP 503", retry_in_s=60)
    assert await store.due_outbox(10) == []
    await store.outbox_failed(item.id, "HTTP 503", retry_in_s=0)
    [again] = await store.due_outbox(10)
    assert again.attempts == 2 and again.payload == {"source": "playsite", "gameId": game}
    await store.outbox_delivered(item.id)
    assert await store.due_outbox(10) == []


async def test_retention_prunes_old_live_state_never_the_archive(store):
    old, recent = str(uuid.uuid4()), str(uuid.uuid4())
    long_ago = datetime.now(timezone.utc) - timedelta(days=40)
    await store.finish_game(write(old, 1, "ended"), ending(old, long_ago))
    await store.finish_game(write(recent, 1, "ended"), ending(recent))
    for item in await store.due_outbox(10):
        await store.outbox_delivered(item.id)
    pruned = await store.prune(datetime.now(timezone.utc) - timedelta(days=30))
    assert pruned.games == 1
    assert (await store.read_archive(old))["gameId"] == old, "archives are never pruned"
    assert (await store.read_archive(recent))["gameId"] == recent


async def test_postgres_archive_rows_are_immutable(database_url):
    with psycopg.connect(database_url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
        game = str(uuid.uuid4())
        conn.execute(
            "INSERT INTO game_archive (game_id, finished_at, record) VALUES (%s, now(), '{}')", (game,)
        )
        with pytest.raises(psycopg.errors.RaiseException, match="immutable"):
            conn.execute("UPDATE game_archive SET record = '{\"x\": 1}' WHERE game_id = %s", (game,))


async def test_postgres_concurrent_terminal_writes_leave_one_result(database_url):
    with psycopg.connect(database_url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    database = Database(database_url, pool_size=8, statement_timeout_ms=5000)
    await database.open()
    try:
        store = PostgresStore(database)
        game = str(uuid.uuid4())
        await store.save_game(write(game, 1))
        async with trio.open_nursery() as nursery:
            for _ in range(6):
                nursery.start_soon(store.finish_game, write(game, 2, "ended"), ending(game))
        counts = await database.run(
            lambda conn: conn.execute(
                "SELECT (SELECT count(*) FROM game_results WHERE game_id = %(g)s),"
                " (SELECT count(*) FROM game_archive WHERE game_id = %(g)s),"
                " (SELECT count(*) FROM analytics_outbox WHERE idempotency_key = %(k)s)",
                {"g": game, "k": f"game:{game}"},
            ).fetchone()
        )
        assert counts == (1, 1, 1)
    finally:
        await database.close()


async def test_postgres_a_terminal_write_goes_from_the_event_loop_with_or_without_a_result(database_url):
    """The write a game's last verdict waits for needs no worker thread: it commits while the
    only pooled connection is held, and an abort (no result, an empty seat) stores its rows."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    holding, release = threading.Event(), threading.Event()

    def hold(conn):
        holding.set()
        release.wait(10)

    async with opened_database(database_url, pool_size=1) as database:
        store = PostgresStore(database)
        game, aborted = str(uuid.uuid4()), str(uuid.uuid4())
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(database.run, hold)
                await trio.to_thread.run_sync(holding.wait, 5)
                with trio.fail_after(5):
                    await store.finish_game(write(game, 3, "ended"), ending(game))
                    gone = ending(aborted)
                    gone = attrs.evolve(gone, result=attrs.evolve(gone.result, result=None, black_principal=None))
                    await store.finish_game(write(aborted, 1, "ended"), gone)
                release.set()
        finally:
            release.set()
        assert database.writes_by_thread == 0
        with psycopg.connect(database_url) as conn:
            rows = conn.execute(
                "SELECT r.game_id::text, r.result, r.black_principal, g.status, g.version, a.record->>'gameId'"
                " FROM game_results r JOIN games g ON g.id = r.game_id JOIN game_archive a ON a.game_id = r.game_id"
                " WHERE r.game_id IN (%s, %s) ORDER BY g.version",
                (game, aborted),
            ).fetchall()
        assert rows == [(aborted, None, None, "ended", 1, aborted), (game, 1, "guest:b", "ended", 3, game)]
        assert {item.payload["gameId"] for item in await store.due_outbox(10)} >= {game, aborted}


async def test_a_terminal_write_the_fence_refuses_stores_nothing(store):
    game = str(uuid.uuid4())
    await store.save_game(write(game, 8))
    with pytest.raises(WriteRefused):
        await store.finish_game(write(game, 7, "ended"), ending(game))  # older than what is stored
    assert await store.read_archive(game) is None
    assert [s["marker"] for s in await store.active_games()] == ["v8"]
    assert await store.due_outbox(10) == []
    await store.finish_game(write(game, 9, "ended"), ending(game))
    with pytest.raises(WriteRefused):
        await store.finish_game(write(game, 10, "ended"), ending(game))  # another ending of an ended game
    await store.finish_game(write(game, 9, "ended"), ending(game))  # the same ending again: nothing added
    assert len(await store.due_outbox(10)) == 1


async def test_the_boot_repair_ends_games_that_are_both_active_and_archived(store):
    both, active = str(uuid.uuid4()), str(uuid.uuid4())
    await store.save_game(write(both, 4))
    await store.finish_game(write(both, 5, "ended"), ending(both))
    await store.save_game(write(active, 2))
    assert await store.end_archived_games() == []
    await force_active(store, both)  # what a late abandoned write used to leave behind
    assert sorted(s["marker"] for s in await store.active_games()) == ["v2", "v5"]
    assert await store.end_archived_games() == [both]
    assert [s["marker"] for s in await store.active_games()] == ["v2"]
    assert (await store.read_archive(both))["gameId"] == both
    assert await store.end_archived_games() == []


async def force_active(store, game_id: str) -> None:
    if isinstance(store, MemoryStore):
        snapshot = json.loads(store.ended_snapshots.pop(game_id))
        store.games[game_id] = attrs.evolve(store.games[game_id], status="active", snapshot=snapshot)
        return
    await store.database.run(lambda conn: conn.execute("UPDATE games SET status = 'active' WHERE id = %s", (game_id,)))


async def test_an_ended_games_final_snapshot_is_kept_and_an_active_one_is_not_given(store):
    game = str(uuid.uuid4())
    await store.save_game(write(game, 3))
    assert await store.ended_game(game) is None
    await store.finish_game(write(game, 4, "ended"), ending(game))
    assert (await store.ended_game(game))["marker"] == "v4"
    assert await store.ended_game(str(uuid.uuid4())) is None


async def test_the_memory_store_keeps_its_last_finished_games_and_drops_the_oldest_whole():
    store = MemoryStore(keep_outbox=False, finished_kept=2)
    games = [str(uuid.uuid4()) for _ in range(3)]
    for game in games:
        await store.save_game(write(game, 1))
        await store.finish_game(write(game, 2, "ended"), ending(game))
    oldest, *kept = games
    assert await store.read_archive(oldest) is None and await store.ended_game(oldest) is None
    assert await store.read_back(oldest) is None and await store.ended_result(oldest) is None
    for game in kept:
        assert (await store.read_archive(game))["gameId"] == game
        assert (await store.ended_game(game))["marker"] == "v2"
        assert await store.read_back(game) == ("ended", 2)


def test_the_memory_stores_bound_is_a_setting():
    assert Settings.from_environ({}).memory_finished_kept == 10_000
    assert Settings.from_environ({"PLAY_MEMORY_FINISHED_KEPT": "500"}).memory_finished_kept == 500
    with pytest.raises(ConfigError, match="PLAY_MEMORY_FINISHED_KEPT"):
        Settings.from_environ({"PLAY_MEMORY_FINISHED_KEPT": "5"})


# ----- the serving lease's epoch ------------------------------------------------------------------
# Ops review s74: a process whose lease another had taken wrote a turn after its successor had
# resumed the game. Every game write carries the writer's epoch, and one no longer current
# writes nothing and is refused.


async def test_postgres_a_write_under_a_superseded_lease_epoch_writes_nothing_and_is_refused(migrated_url):
    first = ServingLease(migrated_url)
    await first.take()
    async with opened_database(migrated_url, pool_size=2) as database:
        store = PostgresStore(database)
        database.serving_epoch = first.epoch
        game = str(uuid.uuid4())
        await store.save_game(write(game, 1))
        await first.close()
        successor = ServingLease(migrated_url)
        await successor.take()  # another process serves the database now
        try:
            assert successor.epoch == first.epoch + 1
            for attempt in (store.save_game(write(game, 2)), store.finish_game(write(game, 2, "ended"), ending(game)),
                            store.save_game(write(str(uuid.uuid4()), 1))):
                with pytest.raises(WriteRefused, match="another process serves this database now"):
                    await attempt
            stored = await database.run(lambda conn: conn.execute(
                "SELECT status, version, (SELECT count(*) FROM games), (SELECT count(*) FROM game_archive) FROM games"
                " WHERE id = %s", (game,)).fetchone())
            assert stored == ("active", 1, 1, 0), "nothing written under the old epoch"
            database.serving_epoch = successor.epoch  # the successor's writes go through
            await store.save_game(write(game, 2))
            await store.finish_game(write(game, 3, "ended"), ending(game))
        finally:
            await successor.close()


async def test_postgres_a_holder_that_lost_its_connection_while_another_held_the_lease_does_not_take_it_again(migrated_url):
    first = ServingLease(migrated_url)
    await first.take()
    first._drop()  # its lease connection is lost
    other = ServingLease(migrated_url)
    await other.take()
    await other.close()  # ... and another process held the lease, and is gone again
    assert not first._take(), "the lease is free, but the games this process holds are stale"
    assert first.superseded
    quiet = ServingLease(migrated_url)
    await quiet.take()
    quiet._drop()
    assert quiet._take() and not quiet.superseded, "nobody held it meanwhile: taken again"
    await quiet.close()
