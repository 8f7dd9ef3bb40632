"""The suite's PostgreSQL databases with the schema in place (see `database_url` in tests/conftest.py)."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Callable, Iterator

import psycopg
import pytest

from playsite.store.database import Database
from playsite.store.migrations import apply_pending, load_migrations


def migrate(url: str) -> str:
    """Apply every pending migration to the database at `url`; returns `url`."""
    with psycopg.connect(url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    return url


@pytest.fixture
def migrated_url(database_url) -> str:
    """A fresh database with the current schema (import this fixture into a test module to use it)."""
    return migrate(database_url)


@pytest.fixture(scope="module")
def module_migrated_url(pg_cluster) -> Iterator[str]:
    """`migrated_url` for a whole module: one database its tests share (with a server they
    share: each server boot costs a second and a half of CPU)."""
    name = f"m_{uuid.uuid4().hex[:16]}"
    yield migrate(pg_cluster.create_database(name))
    pg_cluster.drop_database(name)


def sql(url: str, query: str, params=()):
    """One statement on its own connection, committed: its rows, or None for a statement without."""
    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(query, params)
        return cursor.fetchall() if cursor.description else None


def refuse_writes(url: str, table: str, events: str = "INSERT OR UPDATE") -> None:
    """Make the database refuse `events` on `table` with an error of its own (a trigger that
    raises): a store that answers but will not take the write, as a read-only standby or a
    constraint would. `allow_writes` takes it away."""
    sql(url, f"CREATE FUNCTION refuse_{table}() RETURNS trigger LANGUAGE plpgsql AS"
             f" $$ BEGIN RAISE EXCEPTION '{table} refuses writes here'; END $$")
    sql(url, f"CREATE TRIGGER refuse_{table} BEFORE {events} ON {table} FOR EACH ROW EXECUTE FUNCTION refuse_{table}()")


def allow_writes(url: str, table: str) -> None:
    sql(url, f"DROP TRIGGER refuse_{table} ON {table}")
    sql(url, f"DROP FUNCTION refuse_{table}()")


HELD_COMMITS_LOCK = 0x5EA7_C0DE
"""The advisory lock `commits_held` holds and its trigger waits for."""


@contextlib.contextmanager
def commits_held(url: str, table: str) -> Iterator[Callable[[], None]]:
    """Hold the COMMIT of every transaction that inserted into `table` until `release()` (or the
    block's end): a deferred constraint trigger waits, at COMMIT, for an advisory lock this
    helper holds. The COMMIT is then on the wire with its answer late, so a caller that gives
    up meanwhile does not know that it lands after all (mind the server's statement_timeout,
    which bounds the wait)."""
    sql(url, f"CREATE FUNCTION hold_{table}() RETURNS trigger LANGUAGE plpgsql AS"
             f" $$ BEGIN PERFORM pg_advisory_xact_lock({HELD_COMMITS_LOCK}); RETURN NULL; END $$")
    sql(url, f"CREATE CONSTRAINT TRIGGER hold_{table} AFTER INSERT ON {table} DEFERRABLE INITIALLY DEFERRED"
             f" FOR EACH ROW EXECUTE FUNCTION hold_{table}()")
    holder = psycopg.connect(url, autocommit=True)
    holder.execute("SELECT pg_advisory_lock(%s)", (HELD_COMMITS_LOCK,))

    def release() -> None:
        if not holder.closed:
            holder.close()  # the session's advisory lock goes with it

    try:
        yield release
    finally:
        release()
        sql(url, f"DROP TRIGGER hold_{table} ON {table}")
        sql(url, f"DROP FUNCTION hold_{table}()")


def in_transaction(url: str, work):
    """`work(conn)` on a connection of its own, committed: what the store's functions of a
    connection do inside `Database.run`."""
    with psycopg.connect(url) as conn:
        result = work(conn)
        conn.commit()
        return result


@contextlib.asynccontextmanager
async def opened_database(url: str, *, pool_size: int) -> AsyncIterator[Database]:
    """The store's `Database` adapter on `url`, open for the block and closed after it."""
    database = Database(url, pool_size=pool_size, statement_timeout_ms=5000)
    await database.open()
    try:
        yield database
    finally:
        await database.close()
