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
        self.answers_lost = 0
        """The next this many writes commit, but their answer is lost (raised, and in doubt)."""
        self.doubtful: set[str] = set()
        self.read_backs = 0

    async def _gate(self) -> None:
        self.attempts += 1
        if self.hanging:
            await trio.sleep_forever()
        if self.fail_next > 0:
            self.fail_next -= 1
            raise StoreDown("injected failure")
        if self.failing:
            raise StoreDown("store is down")

    def in_doubt(self, game_id: str) -> bool:
        return game_id in self.doubtful

    async def read_back(self, game_id: str):
        await self._gate()
        self.read_backs += 1
        self.doubtful.discard(game_id)
        return await super().read_back(game_id)

    async def save_game(self, write) -> None:
        if self.answers_lost > 0:
            self.answers_lost -= 1
            await super().save_game(write)
            self.doubtful.add(write.game_id)
            raise StoreDown("the COMMIT's answer was lost")
        await self._gate()
        await super().save_game(write)
        self.doubtful.discard(write.game_id)

    async def finish_game(self, write, ending) -> None:
        await self._gate()
        await super().finish_game(write, ending)
