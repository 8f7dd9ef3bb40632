"""`Database.write_on_loop` on a real PostgreSQL: the turn's write sent from the event loop keeps
`Database.run`'s guarantees. Given up before its COMMIT it never commits; given up while its
COMMIT's answer is awaited it is in doubt (and then stands); a failed connection is replaced, so
the pool never shrinks; a write finding every connection busy goes through a worker thread."""

from __future__ import annotations

import psycopg
import pytest
import trio

from playsite.store.database import DatabaseUnavailable
from playsite.store.loopwrites import LoopStatement
from tests.support.database import opened_database
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres

INSERT = LoopStatement.of("INSERT INTO marks (name) VALUES (%(name)s) RETURNING name")
SLOW_INSERT = LoopStatement.of(
    "INSERT INTO marks (name) SELECT %(name)s FROM pg_sleep(%(seconds)s) RETURNING name"
)


@pytest.fixture
async def database(database_url):
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE marks (name text PRIMARY KEY)")
        # A mark named 'slow commit' makes its transaction's COMMIT take 0.5 s.
        conn.execute(
            "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN PERFORM pg_sleep(0.5); RETURN NULL; END $$"
        )
        conn.execute(
            "CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON marks DEFERRABLE INITIALLY DEFERRED"
            " FOR EACH ROW WHEN (NEW.name = 'slow commit') EXECUTE FUNCTION slow_commit()"
        )
    async with opened_database(database_url, pool_size=1) as db:
        yield db


def marks(database_url) -> list[str]:
    with psycopg.connect(database_url) as conn:
        return [name for (name,) in conn.execute("SELECT name FROM marks ORDER BY name").fetchall()]


def backends_running(database_url, text: str) -> int:
    """Other sessions of this database whose current or last statement contains `text` and that
    are not idle: what is still at work."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        (count,) = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND state <> 'idle' AND query LIKE %s",
            (f"%{text}%",),
        ).fetchone()
        return count


def test_a_statement_takes_postgresql_placeholders_in_the_order_of_its_names():
    statement = LoopStatement.of("SELECT %(b)s, %(a)s::text[], %(b)s")
    assert statement.sql == b"SELECT $1, $2::text[], $1" and statement.names == ("b", "a")


async def test_a_write_commits_and_returns_its_rows(database, database_url):
    assert await database.write_on_loop(INSERT, {"name": "kept"}) == 1
    assert marks(database_url) == ["kept"]
    assert database.timings.transaction.count == 1, "timed as every database call"
    assert database.writes_by_thread == 0


async def test_a_write_given_up_before_its_commit_never_commits_and_its_place_is_refilled(database, database_url):
    doubts: list[str] = []
    with trio.move_on_after(0.1) as gave_up:
        await database.write_on_loop(
            SLOW_INSERT, {"name": "abandoned", "seconds": 0.5}, in_doubt=lambda: doubts.append("in doubt")
        )
    assert gave_up.cancelled_caught and doubts == []
    await wait_until(lambda: backends_running(database_url, "pg_sleep") == 0, "the abandoned statement to end")
    # The pool's only place: the abandoned connection was closed, a new one takes its place.
    assert await database.write_on_loop(INSERT, {"name": "next"}) == 1
    assert marks(database_url) == ["next"]


async def test_a_write_given_up_while_its_commit_is_answered_is_in_doubt_and_stands(database, database_url):
    doubts: list[str] = []
    with trio.move_on_after(0.2) as gave_up:
        await database.write_on_loop(INSERT, {"name": "slow commit"}, in_doubt=lambda: doubts.append("in doubt"))
    assert gave_up.cancelled_caught and doubts == ["in doubt"]
    # The COMMIT was on the wire: it lands.
    assert await wait_until(lambda: marks(database_url) == ["slow commit"], "the COMMIT in flight to land")


async def test_an_error_answered_is_raised_and_the_next_write_gets_a_sound_connection(database, database_url):
    await database.write_on_loop(INSERT, {"name": "twice"})
    with pytest.raises(psycopg.errors.UniqueViolation):
        await database.write_on_loop(INSERT, {"name": "twice"})
    assert await database.write_on_loop(INSERT, {"name": "after"}) == 1
    assert marks(database_url) == ["after", "twice"]


def terminate(database_url, text: str) -> int:
    """Terminate the other sessions of this database whose current or last statement contains
    `text` (a restart, as each of them sees it); how many there were."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        return len(
            conn.execute(
                "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE %s",
                (f"%{text}%",),
            ).fetchall()
        )


async def test_a_connection_lost_during_a_write_is_unavailable_and_replaced(database, database_url):
    async def terminate_the_sleeper():
        await wait_until(lambda: backends_running(database_url, "pg_sleep") == 1, "the write to be at work")
        assert terminate(database_url, "pg_sleep") == 1

    async with trio.open_nursery() as nursery:
        nursery.start_soon(terminate_the_sleeper)
        with pytest.raises(DatabaseUnavailable):
            await database.write_on_loop(SLOW_INSERT, {"name": "lost", "seconds": 3})
    assert await database.write_on_loop(INSERT, {"name": "second"}) == 1
    assert marks(database_url) == ["second"]


async def test_connections_postgresql_closed_while_idle_are_replaced_before_a_call_takes_them(database, database_url):
    """After a restart every idle connection is dead: neither a turn's write nor a call in a
    worker thread fails for it."""
    await database.write_on_loop(INSERT, {"name": "first"})
    await database.run(lambda conn: conn.execute("SELECT 1").fetchone())
    assert terminate(database_url, "") == 2  # the loop's idle connection and the pool's
    assert await database.write_on_loop(INSERT, {"name": "second"}) == 1
    assert await database.run(lambda conn: conn.execute("SELECT count(*) FROM marks").fetchone()) == (2,)
    assert marks(database_url) == ["first", "second"]


async def test_writes_finding_every_connection_of_the_loop_busy_go_through_a_worker_thread(database, database_url):
    async with trio.open_nursery() as nursery:
        for n in range(5):
            nursery.start_soon(database.write_on_loop, INSERT, {"name": f"w{n}"})
    assert marks(database_url) == [f"w{n}" for n in range(5)]
    assert 1 <= database.writes_by_thread <= 4, "the first took the loop's only connection"
