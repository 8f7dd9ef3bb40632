"""Opening the store's `Database`: a PostgreSQL that admits fewer connections than one process
may hold at its busiest is named at boot, not found out under load."""

from __future__ import annotations

import logging

import psycopg
import pytest

from tests.support.database import opened_database

pytestmark = pytest.mark.postgres


def admitted(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int"
        ).fetchone()
    return row[0]


async def test_a_pool_postgresql_cannot_admit_is_warned_about_at_open(database_url, caplog):
    limit = admitted(database_url)
    too_big = limit // 2 + 1  # 2 x pool + 1 > limit
    with caplog.at_level(logging.WARNING, logger="playsite.store"):
        async with opened_database(database_url, pool_size=too_big) as database:
            assert database.connections_needed == 2 * too_big + 1 > limit
    warned = [r.getMessage() for r in caplog.records if r.name == "playsite.store"]
    assert len(warned) == 1, warned
    assert f"admits {limit} connections" in warned[0] and f"PLAY_DB_POOL_SIZE={too_big}" in warned[0]


async def test_a_pool_postgresql_admits_opens_quietly(database_url, caplog):
    limit = admitted(database_url)
    fits = (limit - 1) // 2  # 2 x pool + 1 <= limit
    with caplog.at_level(logging.WARNING, logger="playsite.store"):
        async with opened_database(database_url, pool_size=fits) as database:
            assert database.connections_needed <= limit
    assert [r for r in caplog.records if r.name == "playsite.store"] == []
