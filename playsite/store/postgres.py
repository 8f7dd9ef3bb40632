"""The PostgreSQL store: every query goes through the one `Database` adapter."""

from __future__ import annotations

from playsite.store.base import StoreHealth

import trio

from playsite.store.database import Database, DatabaseUnavailable

HEALTH_PROBE_TIMEOUT_S = 2


class PostgresStore:
    kind = "postgres"
    durable = True

    def __init__(self, database: Database):
        self.database = database

    async def health(self) -> StoreHealth:
        detail = None
        with trio.move_on_after(HEALTH_PROBE_TIMEOUT_S) as probe:
            try:
                await self.database.run(lambda conn: conn.execute("SELECT 1").fetchone())
            except DatabaseUnavailable as exc:
                detail = str(exc)
        if probe.cancelled_caught:
            detail = f"no answer within {HEALTH_PROBE_TIMEOUT_S} s"
        return StoreHealth(kind=self.kind, durable=self.durable, reachable=detail is None, detail=detail)
