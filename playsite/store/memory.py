"""The embedded default store: process memory, gone on restart, so it never claims durability.

It keeps the same records as PostgreSQL (so history, results and the outbox behave the
same while the process lives) and the same behavioural tests run against both.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import attrs
import orjson

from playsite.store.base import (
    GameEnding,
    GameWrite,
    OutboxItem,
    Pruned,
    ResultRow,
    StoreHealth,
    WriteRefused,
    archive_summary,
    has_a_person,
    json_bytes,
)


@attrs.define
class _Outbox:
    id: int
    key: str
    payload: dict[str, Any]
    attempts: int = 0
    next_attempt_at: datetime = attrs.field(factory=lambda: datetime.now(timezone.utc))
    delivered_at: datetime | None = None
    last_error: str | None = None


MEMORY_FINISHED_KEPT = 10_000
"""Finished games whose archive and results the memory store keeps by default (oldest dropped
first; PLAY_MEMORY_FINISHED_KEPT)."""


class MemoryStore:
    kind = "memory"
    durable = False
    save_timeout_s = 2.0

    def __init__(self, *, keep_outbox: bool = True, finished_kept: int = MEMORY_FINISHED_KEPT) -> None:
        self.keep_outbox = keep_outbox
        """False where nothing could deliver the outbox (analytics needs persistence)."""
        self.finished_kept = finished_kept
        self.games: dict[str, GameWrite] = {}
        """The newest write of every game. An ended game's snapshot is moved out of it, to
        `ended_snapshots`, and left empty here."""
        self.ended_snapshots: dict[str, str] = {}
        """An ended game's snapshot as JSON text, like a jsonb column: a fifth of the memory of
        its dicts (a 50-turn game: 8.6 KB against 48.6 KB), and no reader can mutate it."""
        self.ended_at: dict[str, datetime] = {}
        self.results: dict[str, ResultRow] = {}
        self.archive: dict[str, str] = {}
        self.outbox: dict[str, _Outbox] = {}
        self._outbox_ids = itertools.count(1)

    async def health(self) -> StoreHealth:
        return StoreHealth(kind=self.kind, durable=self.durable, reachable=True)

    def in_doubt(self, game_id: str) -> bool:
        """Never: a write in memory has no answer to lose."""
        return False

    async def read_back(self, game_id: str) -> tuple[str, int] | None:
        write = self.games.get(game_id)
        return None if write is None else (write.status, write.version)

    async def save_game(self, write: GameWrite) -> None:
        self._upsert(write)

    def _upsert(self, write: GameWrite) -> bool:
        current = self.games.get(write.game_id)
        if current is not None and (current.version > write.version or current.status == "ended"):
            return False
        # Kept as given: a writer hands over a snapshot it never changes again (dump_state builds
        # a new one for every write), and readers get copies. A copy here cost 5% of the CPU of
        # a loaded server for nothing.
        self.games[write.game_id] = write
        return True

    async def finish_game(self, write: GameWrite, ending: GameEnding) -> None:
        if not self._upsert(write):
            current = self.games.get(write.game_id)
            if current is not None and (current.status, current.version) == ("ended", write.version):
                return  # a repeat of this very ending adds nothing
            raise WriteRefused(f"game {write.game_id}: no active row at or below version {write.version}")
        self.ended_snapshots[write.game_id] = _text(write.snapshot)
        self.games[write.game_id] = attrs.evolve(write, snapshot={})
        self.ended_at.setdefault(write.game_id, ending.result.finished_at)
        self.results.setdefault(write.game_id, ending.result)
        # Stored as text like a jsonb column: a reader can never mutate the archive.
        self.archive.setdefault(write.game_id, _text(ending.archive))
        if self.keep_outbox and ending.outbox_key not in self.outbox:
            self.outbox[ending.outbox_key] = _Outbox(next(self._outbox_ids), ending.outbox_key, ending.outbox_payload)
        while len(self.archive) > self.finished_kept:
            oldest = next(iter(self.archive))
            for records in (self.archive, self.results, self.ended_at, self.games, self.ended_snapshots):
                records.pop(oldest, None)

    async def active_games(self) -> list[dict[str, Any]]:
        return [copy.deepcopy(w.snapshot) for w in self.games.values() if w.status == "active"]

    async def ended_game(self, game_id: str) -> dict[str, Any] | None:
        text = self.ended_snapshots.get(game_id)
        return None if text is None else orjson.loads(text)

    async def ended_result(self, game_id: str) -> ResultRow | None:
        return self.results.get(game_id)

    async def end_archived_games(self) -> list[str]:
        repaired = sorted(g for g, w in self.games.items() if w.status == "active" and g in self.archive)
        for game_id in repaired:
            self.ended_snapshots[game_id] = _text(self.games[game_id].snapshot)
            self.games[game_id] = attrs.evolve(self.games[game_id], status="ended", snapshot={})
        return repaired

    async def read_archive(self, game_id: str) -> dict[str, Any] | None:
        text = self.archive.get(game_id)
        return None if text is None else orjson.loads(text)

    async def recent_archives(
        self, limit: int, before: str | None = None, *, with_people: bool = False
    ) -> list[dict[str, Any]]:
        order: Iterator[str] = reversed(self.archive)  # kept in the order the games finished: newest first
        if before is not None:
            if before not in self.archive:
                return []
            order = itertools.dropwhile(lambda game_id: game_id != before, order)
            next(order)  # `before` itself
        records: Iterator[dict[str, Any]] = (orjson.loads(self.archive[game_id]) for game_id in order)
        if with_people:
            records = filter(has_a_person, records)
        return [archive_summary(record, len(record["turns"])) for record in itertools.islice(records, limit)]

    async def due_outbox(self, limit: int) -> list[OutboxItem]:
        now = datetime.now(timezone.utc)
        due = [o for o in self.outbox.values() if o.delivered_at is None and o.next_attempt_at <= now]
        due.sort(key=lambda o: o.id)
        return [OutboxItem(o.id, o.key, copy.deepcopy(o.payload), o.attempts) for o in due[:limit]]

    def _by_id(self, item_id: int) -> _Outbox:
        return next(o for o in self.outbox.values() if o.id == item_id)

    async def outbox_delivered(self, item_id: int) -> None:
        item = self._by_id(item_id)
        item.delivered_at = item.delivered_at or datetime.now(timezone.utc)

    async def outbox_failed(self, item_id: int, error: str, retry_in_s: float) -> None:
        item = self._by_id(item_id)
        item.attempts += 1
        item.last_error = error[:500]
        item.next_attempt_at = datetime.now(timezone.utc) + timedelta(seconds=retry_in_s)

    async def prune(self, older_than: datetime) -> Pruned:
        old_games = [gid for gid, at in self.ended_at.items() if at < older_than and gid in self.games]
        for game_id in old_games:
            del self.games[game_id]
            self.ended_snapshots.pop(game_id, None)
        old_outbox = [k for k, o in self.outbox.items() if o.delivered_at is not None and o.delivered_at < older_than]
        for key in old_outbox:
            del self.outbox[key]
        return Pruned(games=len(old_games), seats=2 * len(old_games), outbox=len(old_outbox))


def _text(value: object) -> str:
    """A finished game's record as JSON text, as a jsonb column would hold it (the standard
    library's encoder was ~0.4% of a loaded server's CPU, at every game's end)."""
    return json_bytes(value).decode()
