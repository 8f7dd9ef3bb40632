"""The suite's PostgreSQL databases with the schema in place (see `database_url` in tests/conftest.py)."""

from __future__ import annotations

import psycopg
import pytest

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
