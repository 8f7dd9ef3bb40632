"""The Store protocol every implementation satisfies, and the values it speaks in."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

import attrs
import orjson


class WriteRefused(Exception):
    """The store refused a write whose fence did not hold; nothing of it was stored."""


@attrs.frozen
class StoreHealth:
    kind: str
    durable: bool
    reachable: bool
    detail: str | None = None


@attrs.frozen
class GameWrite:
    """One version of a game's durable state, as the room hands it to the store."""

    game_id: str
    version: int
    status: str
    """'active' or 'ended'."""
    origin: str
    durability: str
    rated: bool
    snapshot: dict[str, Any]
    """Handed over: the writer builds it for this write and never changes it afterwards."""
    seats: dict[str, tuple[bytes, str | None]]
    """Seat -> (token digest, principal or None)."""


@attrs.frozen
class ResultRow:
    """The game-results projection row the rating batch reads."""

    game_id: str
    finished_at: datetime
    rated: bool
    origin: str
    white_principal: str | None
    black_principal: str | None
    result: int | None
    """White's point of view: 1, 0, -1; None for an aborted game."""
    termination: str
    time_control: dict[str, Any]
    disconnect: bool = False
    """A forfeit after the disconnect grace, archived with termination 'resign'."""
    abort_cause: str | None = None
    """Why the players' game was aborted (the archive record's `abort.cause`), None for any other."""
    abort_seat: str | None = None
    """The seat that caused that abort (`abort.seat`), None when none is named."""


@attrs.frozen
class GameEnding:
    """Everything the terminal transaction writes besides the final snapshot."""

    result: ResultRow
    archive: dict[str, Any]
    """The history record (GET /games/{id}/history body), immutable once written."""
    outbox_key: str
    outbox_payload: dict[str, Any]


@attrs.frozen
class OutboxItem:
    id: int
    key: str
    payload: dict[str, Any]
    attempts: int


@attrs.frozen
class Pruned:
    games: int
    seats: int
    outbox: int


class Store(Protocol):
    kind: str
    durable: bool
    """Whether a committed write survives a crash; required-durability rooms refuse stores without it."""
    save_timeout_s: float
    """Each write attempt gives up after this long (its own timeout, under the room's retry policy)."""

    async def health(self) -> StoreHealth: ...

    def in_doubt(self, game_id: str) -> bool:
        """Whether a write of this game may have committed without this process knowing."""
        ...

    async def read_back(self, game_id: str) -> tuple[str, int] | None:
        """The game's stored (status, version), or None when it is not stored."""
        ...

    async def save_game(self, write: GameWrite) -> None:
        """Upsert the game's state; a write older than the stored version changes nothing."""

    async def finish_game(self, write: GameWrite, ending: GameEnding) -> None:
        """One transaction: final snapshot, results row, archive record, outbox payload.
        A repeat of the same ending adds nothing; a terminal write the version fence refuses
        (the game is ended at another version, or stored at a newer one) raises WriteRefused
        and stores nothing."""

    async def active_games(self) -> list[dict[str, Any]]:
        """Durable snapshots of every game still active, for resumption at boot."""

    async def ended_game(self, game_id: str) -> dict[str, Any] | None:
        """The final durable snapshot of an ended game still kept (retention drops it after
        RETENTION_DAYS; the archive stays); None for an unknown or still active game."""

    async def end_archived_games(self) -> list[str]:
        """Repair at boot: a game stored as active that also has an archive record (which no
        write of this version can produce) is marked ended, so it is not resumed. Returns
        the ids repaired, for the operator."""

    async def read_archive(self, game_id: str) -> dict[str, Any] | None: ...

    async def recent_archives(
        self, limit: int, before: str | None = None, *, with_people: bool = False
    ) -> list[dict[str, Any]]:
        """The newest finished games' summaries (`archive_summary`), newest first; with `before`
        (a listed game's id), the ones that finished before it (none for an id not archived);
        `with_people`: only the games a person played in (`has_a_person`)."""

    async def due_outbox(self, limit: int) -> list[OutboxItem]: ...

    async def outbox_delivered(self, item_id: int) -> None: ...

    async def outbox_failed(self, item_id: int, error: str, retry_in_s: float) -> None: ...

    async def prune(self, older_than: datetime) -> Pruned:
        """Drop what retention may drop: live-state rows and seat digests of games ended
        before `older_than`, and delivered outbox rows; never archive or results rows."""


def archive_summary(record: dict[str, Any], turns: int) -> dict[str, Any]:
    """What a list of finished games shows of one archive record (GET /archive); `turns`
    counts the record's turns (the record may come without them)."""
    return {
        "gameId": record["gameId"],
        "players": record.get("players"),
        "rated": record.get("rated", False),
        "result": record["result"],
        "termination": record["termination"],
        **({"disconnect": True} if record.get("disconnect") else {}),
        **({"abort": record["abort"]} if record.get("abort") else {}),
        "finishedAt": record["finishedAt"],
        "turns": turns,
    }


def has_a_person(record: dict[str, Any]) -> bool:
    """Whether a person (not a bot) held a seat of an archived game, by its record's faces."""
    players = record.get("players") or {}
    return any((players.get(side) or {}).get("kind") == "Human" for side in ("white", "black"))


def json_bytes(value: object) -> bytes:
    """A record (a snapshot, an archive) as compact JSON, as both stores keep it: orjson, ~8 times
    faster than the standard library's encoder on a 100-turn snapshot (23 against 198 µs), and
    the wire's options (keys that are not strings written as strings)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
