"""The retention job prunes on its schedule, survives a failing round, never touches archives."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import trio

from playsite.archive.retention import run_retention
from playsite.store.base import GameWrite, ResultRow
from playsite.store.memory import MemoryStore


def finished(store: MemoryStore, game_id: str, days_ago: int) -> None:
    at = datetime.now(timezone.utc) - timedelta(days=days_ago)
    write = GameWrite(game_id, 3, "ended", "friend", "best_effort", False, {}, {})
    result = ResultRow(game_id, at, False, "friend", None, None, 1, "resign", {"Unlimited": {}})
    store.games[game_id] = write
    store.ended_at[game_id] = at
    store.results[game_id] = result
    store.archive[game_id] = "{}"


class FlakyStore(MemoryStore):
    def __init__(self):
        super().__init__()
        self.rounds = 0

    async def prune(self, older_than):
        self.rounds += 1
        if self.rounds == 1:
            raise ConnectionError("database went away")
        return await super().prune(older_than)


async def test_retention_prunes_each_interval_and_keeps_archives(autojump_clock):
    store = FlakyStore()
    finished(store, "old", days_ago=40)
    finished(store, "recent", days_ago=2)
    async with trio.open_nursery() as nursery:
        await nursery.start(run_retention, store, 30)
        await trio.sleep(1)
        assert store.rounds == 1 and "old" in store.games, "the failed round changed nothing and did not stop the job"
        await trio.sleep(3600)
        assert store.rounds == 2
        nursery.cancel_scope.cancel()
    assert "old" not in store.games and "recent" in store.games
    assert set(store.archive) == {"old", "recent"} and set(store.results) == {"old", "recent"}
