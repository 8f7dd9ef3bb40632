"""The embedded default store: process memory, gone on restart, so it never claims durability."""

from __future__ import annotations

from playsite.store.base import StoreHealth


class MemoryStore:
    kind = "memory"
    durable = False

    async def health(self) -> StoreHealth:
        return StoreHealth(kind=self.kind, durable=self.durable, reachable=True)
