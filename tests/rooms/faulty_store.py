"""A MemoryStore that claims durability and fails on command: the durability machinery's test double.

It is not a mock of PostgreSQL (those tests use the real server): it stands in for "a
store whose writes fail" so retry timing can run under MockClock.
"""

from __future__ import annotations

import trio

from playsite.store.memory import MemoryStore


class StoreDown(Exception):
    pass


class FaultyStore(MemoryStore):
    durable = True
    save_timeout_s = 1.0

    def __init__(self) -> None:
        super().__init__()
        self.failing = False
        self.hanging = False
        self.fail_next = 0
        self.attempts = 0

    async def _gate(self) -> None:
        self.attempts += 1
        if self.hanging:
            await trio.sleep_forever()
        if self.fail_next > 0:
            self.fail_next -= 1
            raise StoreDown("injected failure")
        if self.failing:
            raise StoreDown("store is down")

    async def save_game(self, write) -> None:
        await self._gate()
        await super().save_game(write)

    async def finish_game(self, write, ending) -> None:
        await self._gate()
        await super().finish_game(write, ending)
