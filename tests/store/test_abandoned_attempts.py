"""`Database.run` on a real PostgreSQL: an attempt its caller gave up on never commits,
whether it was still waiting for a pooled connection or already running its statements."""

from __future__ import annotations

import threading

import psycopg
import pytest
import trio

from playsite.store.database import Attempt
from tests.support.database import opened_database

pytestmark = pytest.mark.postgres


@pytest.fixture
async def database(database_url):
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE marks (name text PRIMARY KEY)")
    async with opened_database(database_url, pool_size=1) as db:
        yield db


def marks(database_url) -> list[str]:
    with psycopg.connect(database_url) as conn:
        return [name for (name,) in conn.execute("SELECT name FROM marks ORDER BY name").fetchall()]


async def test_an_attempt_abandoned_while_its_statements_run_is_rolled_back(database, database_url):
    finished = threading.Event()

    def slow_insert(conn):
        conn.execute("INSERT INTO marks VALUES ('abandoned')")
        conn.execute("SELECT pg_sleep(0.5)")
        finished.set()

    with trio.move_on_after(0.1) as gave_up:
        await database.run(slow_insert)
    assert gave_up.cancelled_caught
    await trio.to_thread.run_sync(finished.wait, 5)
    # The pool has one connection: this waits until the abandoned attempt gave it back.
    await database.run(lambda conn: conn.execute("INSERT INTO marks VALUES ('next')"))
    assert marks(database_url) == ["next"]


async def test_an_attempt_abandoned_while_waiting_for_a_connection_never_runs(database, database_url):
    ran = threading.Event()
    holding = threading.Event()

    def hold_the_only_connection(conn):
        holding.set()
        conn.execute("SELECT pg_sleep(0.5)")

    def insert(conn):
        ran.set()
        conn.execute("INSERT INTO marks VALUES ('late')")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(database.run, hold_the_only_connection)
        await trio.to_thread.run_sync(holding.wait, 5)
        with trio.move_on_after(0.1):
            await database.run(insert)  # waits for the pool, and is given up
        await database.run(lambda conn: conn.execute("SELECT 1"))  # after both threads are done
    assert not ran.is_set()
    assert marks(database_url) == []


async def test_a_completed_attempt_commits(database, database_url):
    assert await database.run(lambda conn: conn.execute("INSERT INTO marks VALUES ('kept') RETURNING name").fetchone()) == ("kept",)
    assert marks(database_url) == ["kept"]


def test_an_attempt_already_committing_cannot_be_abandoned():
    attempt = Attempt()
    assert attempt.may_commit()
    assert not attempt.abandon()  # its COMMIT is under way: the caller must not assume it failed
    other = Attempt()
    assert other.abandon() and not other.may_commit()
