"""`Database.run` times each call that returned in three parts (`CallTimings`, GET /metrics):
getting a thread and a pooled connection, the transaction, and getting back to the caller."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
import trio

from playsite.store.database import DatabaseUnavailable
from tests.support.database import opened_database

pytestmark = pytest.mark.postgres

HELD_S = 0.2


@pytest.fixture
async def one_connection(database_url):
    async with opened_database(database_url, pool_size=1) as db:
        yield db


async def test_a_call_waiting_for_the_only_connection_is_timed_as_waiting(one_connection):
    database = one_connection
    holding, release = threading.Event(), threading.Event()
    took: dict[str, float] = {}

    def hold(conn):
        holding.set()
        release.wait(5)
        conn.execute("SELECT 1")

    async def timed(name, work):
        started = time.perf_counter()
        await database.run(work)
        took[name] = time.perf_counter() - started

    async with trio.open_nursery() as nursery:
        nursery.start_soon(timed, "holder", hold)
        await trio.to_thread.run_sync(holding.wait, 5)
        nursery.start_soon(timed, "waiter", lambda conn: conn.execute("SELECT pg_sleep(%s)", (2 * HELD_S,)))
        await trio.sleep(HELD_S)  # the waiter is in the pool's queue all this time
        release.set()

    timings = database.timings
    assert timings.wait.count == timings.transaction.count == timings.return_.count == 2
    assert timings.wait.sum >= HELD_S, "the waiter waited for the connection the holder kept"
    # The holder's transaction lasted as long as the waiter waited, the waiter's twice that.
    assert timings.transaction.sum >= 3 * HELD_S, "both transactions, and no wait, are in the transaction part"
    parts = timings.wait.sum + timings.transaction.sum + timings.return_.sum
    assert parts <= took["holder"] + took["waiter"], "the parts add up to no more than the calls took"


async def test_a_call_that_failed_or_was_given_up_is_not_timed(one_connection):
    database = one_connection
    await database.run(lambda conn: conn.execute("SELECT 1"))
    with pytest.raises(psycopg.errors.UndefinedTable):
        await database.run(lambda conn: conn.execute("SELECT * FROM no_such_table"))
    with trio.move_on_after(0.05) as gave_up:
        await database.run(lambda conn: conn.execute("SELECT pg_sleep(0.5)"))
    assert gave_up.cancelled_caught
    assert database.timings.wait.count == database.timings.transaction.count == database.timings.return_.count == 1
    with pytest.raises(DatabaseUnavailable):
        await database.run(lambda conn: conn.execute("SELECT pg_terminate_backend(pg_backend_pid())"))
    assert database.timings.transaction.count == 1
