"""The suite's PostgreSQL databases with the schema in place (see `database_url` in tests/conftest.py)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

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
