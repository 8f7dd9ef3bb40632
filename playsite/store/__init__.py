"""Where games live between versions: the Store protocol and the service that opens one.

Two implementations side by side: `MemoryStore` (the embedded default, nothing survives
a restart, never claims durability) and `PostgresStore` (psycopg 3 via `Database`).
"""

from __future__ import annotations

import trio

from playsite.config import Settings
from playsite.store.base import Store, StoreHealth
from playsite.store.database import Database, DatabaseUnavailable
from playsite.store.memory import MemoryStore
from playsite.store.migrations import check_schema, load_migrations
from playsite.store.postgres import PostgresStore

__all__ = ["Store", "StoreHealth", "MemoryStore", "PostgresStore", "DatabaseUnavailable", "run_store"]


async def run_store(settings: Settings, *, task_status: trio.TaskStatus[Store] = trio.TASK_STATUS_IGNORED) -> None:
    """Open the configured store, check the schema, hand it over, close it on shutdown."""
    if not settings.persistence_enabled:
        task_status.started(MemoryStore(keep_outbox=False, finished_kept=settings.memory_finished_kept))
        await trio.sleep_forever()
    assert settings.database_url is not None  # Settings validation guarantees it
    database = Database(
        settings.database_url,
        pool_size=settings.db_pool_size,
        statement_timeout_ms=settings.db_statement_timeout_ms,
    )
    await database.open()
    try:
        migrations = load_migrations()
        await database.run(lambda conn: check_schema(conn, migrations))
        task_status.started(PostgresStore(database, save_timeout_s=settings.db_statement_timeout_ms / 1000))
        await trio.sleep_forever()
    finally:
        with trio.CancelScope(shield=True):
            await database.close()
