"""The PostgreSQL store: every query goes through the one `Database` adapter.

Each method is one short transaction: the two writes a verdict waits for (a turn's,
`save_game`, and a game's last, `finish_game`) are sent from the event loop itself, every
other call runs in a worker thread (store/database.py). Writes are fenced on the
version (an older write never overwrites a newer one, nothing reopens an ended game). A
terminal write stores its results, archive and outbox rows only together with the final
games row; a repeat of the same ending adds nothing, and any other terminal write the fence
refuses fails with `WriteRefused`, so a game is never both active and archived.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import psycopg
import trio
from psycopg.types.json import Jsonb

from playsite.store.base import (
    GameEnding,
    GameWrite,
    OutboxItem,
    Pruned,
    ResultRow,
    StoreHealth,
    WriteRefused,
    archive_summary,
    json_bytes,
)
from playsite.store.database import Database, DatabaseUnavailable
from playsite.store.lease import current_epoch
from playsite.store.loopwrites import LoopStatement

HEALTH_PROBE_TIMEOUT_S = 2

_WRITE_GAME = """
WITH game AS (
    INSERT INTO games (id, origin, durability, rated, status, version, snapshot)
    SELECT %(id)s::uuid, %(origin)s::text, %(durability)s::text, %(rated)s::boolean, %(status)s::text,
           %(version)s::integer, %(snapshot)s::jsonb
     WHERE %(epoch)s::bigint IS NULL OR EXISTS (SELECT 1 FROM serving_epoch WHERE id = 1 AND epoch = %(epoch)s::bigint)
    ON CONFLICT (id) DO UPDATE
       SET status = EXCLUDED.status, version = EXCLUDED.version, snapshot = EXCLUDED.snapshot, updated_at = now()
     WHERE games.version <= EXCLUDED.version AND games.status = 'active'
    RETURNING id, version
), seats AS (
    INSERT INTO game_seats (game_id, seat, token_hash, principal)
    SELECT game.id, seat.name, seat.token_hash, seat.principal
      FROM game, unnest(%(seats)s::text[], %(token_hashes)s::bytea[], %(principals)s::text[])
           AS seat (name, token_hash, principal)
    ON CONFLICT (game_id, seat) DO UPDATE SET principal = COALESCE(game_seats.principal, EXCLUDED.principal)
)
SELECT version FROM game
"""
"""The game row and its seats in one statement: the seats only when the fence let the game
row through (they join its RETURNING), a principal only ever set once. Fenced twice: on the
row's version and status, and on the serving lease's epoch (a process that another has taken
the lease from writes nothing: `epoch` NULL, outside a serving process, skips that fence)."""
_WRITE_GAME_ON_LOOP = LoopStatement.of(_WRITE_GAME)
"""The same, as a turn's write sends it from the event loop (`Database.write_on_loop`)."""

_WITH_PEOPLE = "(record -> 'players' -> 'white' ->> 'kind' = 'Human' OR record -> 'players' -> 'black' ->> 'kind' = 'Human')"
"""A person held a seat (`has_a_person`): word for word the condition of the partial index of
016_archive_lists.sql, so that the planner uses it."""


def _recent_archives(condition: str) -> str:
    """A page of the archive's summaries, newest first, for `condition`."""
    return (
        "SELECT record - 'turns', jsonb_array_length(record -> 'turns') FROM game_archive"
        " WHERE (%(before)s::uuid IS NULL OR (finished_at, game_id) <"
        " (SELECT finished_at, game_id FROM game_archive WHERE game_id = %(before)s::uuid))"
        f" AND {condition} ORDER BY finished_at DESC, game_id DESC LIMIT %(limit)s"
    )


_RECENT_ARCHIVES = _recent_archives("true")
_RECENT_ARCHIVES_WITH_PEOPLE = _recent_archives(_WITH_PEOPLE)

_FINISH_GAME_ON_LOOP = LoopStatement.of(
    _WRITE_GAME.removesuffix("SELECT version FROM game\n")
    + """, results AS (
    INSERT INTO game_results (game_id, finished_at, rated, origin, white_principal, black_principal, result,
                              termination, time_control, disconnect, abort_cause, abort_seat)
    SELECT game.id, %(finished_at)s, %(result_rated)s, %(result_origin)s, %(white_principal)s,
           %(black_principal)s, %(result)s::smallint, %(termination)s, %(time_control)s, %(disconnect)s,
           %(abort_cause)s, %(abort_seat)s
      FROM game
    ON CONFLICT (game_id) DO NOTHING
), archive AS (
    INSERT INTO game_archive (game_id, finished_at, record)
    SELECT game.id, %(finished_at)s, %(record)s FROM game
    ON CONFLICT (game_id) DO NOTHING
), outbox AS (
    INSERT INTO analytics_outbox (idempotency_key, payload)
    SELECT %(outbox_key)s, %(outbox_payload)s FROM game
    ON CONFLICT (idempotency_key) DO NOTHING
)
SELECT version FROM game
"""
)
"""A terminal write in one statement from the event loop: the final game row and seats as
`_WRITE_GAME` writes them, and the results, archive and outbox rows only when the fence let
that row through (they select from its RETURNING)."""


def _game_params(write: GameWrite, epoch: int | None) -> dict[str, Any]:
    seats = list(write.seats.items())
    return {
        "epoch": epoch,
        "id": write.game_id,
        "origin": write.origin,
        "durability": write.durability,
        "rated": write.rated,
        "status": write.status,
        "version": write.version,
        "snapshot": Jsonb(write.snapshot, dumps=json_bytes),
        "seats": [seat for seat, _ in seats],
        "token_hashes": [token_hash for _, (token_hash, _) in seats],
        "principals": [principal for _, (_, principal) in seats],
    }


def write_game(conn: psycopg.Connection, write: GameWrite, epoch: int | None) -> bool:
    """Upsert the game and its seats; False (nothing written) when a fence refused it."""
    return conn.execute(_WRITE_GAME, _game_params(write, epoch)).fetchone() is not None


def _finish_fence_holds(conn: psycopg.Connection, write: GameWrite) -> bool:
    """After a refused terminal upsert: True only for a repeat of this very ending (the row is
    already ended at this version), which then adds nothing."""
    row = conn.execute("SELECT status, version FROM games WHERE id = %s", (write.game_id,)).fetchone()
    return row is not None and row == ("ended", write.version)


class PostgresStore:
    kind = "postgres"
    durable = True

    def __init__(self, database: Database, *, save_timeout_s: float = 5.0):
        self.database = database
        self.save_timeout_s = save_timeout_s
        self._in_doubt: set[str] = set()
        """Games with a write whose COMMIT was sent and whose answer was lost."""

    def in_doubt(self, game_id: str) -> bool:
        """Whether a write of this game may have committed without this process knowing."""
        return game_id in self._in_doubt

    async def _write(self, game_id: str, send: Callable[[Callable[[], None]], Awaitable[int]]) -> int:
        """`send(in_doubt)`: one write of this game through the database, which calls
        `in_doubt` when its COMMIT was sent and the answer lost; returns what `send` returns."""
        written = await send(lambda: self._in_doubt.add(game_id))
        # Committed: any earlier attempt in doubt had finished first (it held the row, or the
        # key, this one needed), so nothing is in doubt any more.
        self._in_doubt.discard(game_id)
        return written

    async def read_back(self, game_id: str) -> tuple[str, int] | None:
        """The game's stored (status, version), or None when it is not stored, once every
        transaction still writing it has finished: a COMMIT in flight holds the row (an
        update) or its key (an insert) until it is decided, and this waits for both. Raises
        DatabaseUnavailable (e.g. the statement timeout) while that is not yet known."""

        def work(conn: psycopg.Connection) -> tuple[str, int] | None:
            row = conn.execute("SELECT status, version FROM games WHERE id = %s FOR SHARE", (game_id,)).fetchone()
            if row is not None:
                return row[0], row[1]
            with conn.transaction():  # a savepoint, never kept: an insert in flight is waited out
                probe = conn.execute(
                    "INSERT INTO games (id, origin, durability, status, version, snapshot)"
                    " VALUES (%s, 'friend', 'best_effort', 'active', 0, '{}') ON CONFLICT (id) DO NOTHING RETURNING id",
                    (game_id,),
                ).fetchone()
                raise psycopg.Rollback()
            if probe is not None:
                return None
            row = conn.execute("SELECT status, version FROM games WHERE id = %s", (game_id,)).fetchone()
            return None if row is None else (row[0], row[1])

        stored = await self.database.run(work)
        self._in_doubt.discard(game_id)
        return stored

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

    async def save_game(self, write: GameWrite) -> None:
        # The write every turn waits for: on the event loop, without a worker thread's hops.
        params = _game_params(write, self.database.serving_epoch)
        written = await self._write(
            write.game_id, lambda in_doubt: self.database.write_on_loop(_WRITE_GAME_ON_LOOP, params, in_doubt=in_doubt)
        )
        if not written:
            await self._refuse_if_superseded(write)

    async def _refuse_if_superseded(self, write: GameWrite) -> None:
        """After a write that wrote nothing: WriteRefused when the reason is that another process
        has taken the serving lease since (this one's epoch is no longer current)."""
        epoch = self.database.serving_epoch
        if epoch is None:
            return
        current = await self.database.run(current_epoch)
        if current != epoch:
            raise WriteRefused(
                f"game {write.game_id}: another process serves this database now (serving lease epoch {epoch},"
                f" now {current})"
            )

    async def finish_game(self, write: GameWrite, ending: GameEnding) -> None:
        # The verdict of a game's last turn waits for this write: one statement from the event
        # loop, as a turn's (it was five round trips in a worker thread).
        result = ending.result
        params = _game_params(write, self.database.serving_epoch) | {
            "finished_at": result.finished_at,
            "result_rated": result.rated,
            "result_origin": result.origin,
            "white_principal": result.white_principal,
            "black_principal": result.black_principal,
            "result": result.result,
            "termination": result.termination,
            "time_control": Jsonb(result.time_control),
            "disconnect": result.disconnect,
            "abort_cause": result.abort_cause,
            "abort_seat": result.abort_seat,
            "record": Jsonb(ending.archive, dumps=json_bytes),
            "outbox_key": ending.outbox_key,
            "outbox_payload": Jsonb(ending.outbox_payload),
        }
        written = await self._write(
            write.game_id, lambda in_doubt: self.database.write_on_loop(_FINISH_GAME_ON_LOOP, params, in_doubt=in_doubt)
        )
        if written:
            return
        # A fence refused the row (nothing was written): the lease's epoch, or the row's; a
        # repeat of this very ending, whose earlier attempt landed, adds nothing; any other
        # terminal write is refused.
        await self._refuse_if_superseded(write)
        if not await self.database.run(lambda conn: _finish_fence_holds(conn, write)):
            raise WriteRefused(f"game {write.game_id}: no active row at or below version {write.version}")

    async def active_games(self) -> list[dict[str, Any]]:
        rows = await self.database.run(
            lambda conn: conn.execute("SELECT snapshot FROM games WHERE status = 'active' ORDER BY created_at").fetchall()
        )
        return [row[0] for row in rows]

    async def ended_game(self, game_id: str) -> dict[str, Any] | None:
        row = await self.database.run(
            lambda conn: conn.execute(
                "SELECT snapshot FROM games WHERE id = %s AND status = 'ended'", (game_id,)
            ).fetchone()
        )
        return None if row is None else row[0]

    async def ended_result(self, game_id: str) -> ResultRow | None:
        """The results row of a finished game (kept when retention dropped its games row)."""
        row = await self.database.run(
            lambda conn: conn.execute(
                "SELECT game_id, finished_at, rated, origin, white_principal, black_principal, result, termination,"
                " time_control, disconnect, abort_cause, abort_seat FROM game_results WHERE game_id = %s",
                (game_id,),
            ).fetchone()
        )
        return None if row is None else ResultRow(str(row[0]), *row[1:])

    async def end_archived_games(self) -> list[str]:
        rows = await self.database.run(
            lambda conn: conn.execute(
                "UPDATE games SET status = 'ended', updated_at = now() WHERE status = 'active'"
                " AND EXISTS (SELECT 1 FROM game_archive a WHERE a.game_id = games.id) RETURNING id"
            ).fetchall()
        )
        return sorted(str(game_id) for (game_id,) in rows)

    async def read_archive(self, game_id: str) -> dict[str, Any] | None:
        row = await self.database.run(
            lambda conn: conn.execute(
                "SELECT record FROM game_archive WHERE game_id = %s", (game_id,)
            ).fetchone()
        )
        return None if row is None else row[0]

    async def recent_archives(
        self, limit: int, before: str | None = None, *, with_people: bool = False
    ) -> list[dict[str, Any]]:
        # Before a game: the rows after it in the list's own order (an id not archived: no row
        # compares, so none). With people: the very condition of the partial index that serves it.
        query = _RECENT_ARCHIVES_WITH_PEOPLE if with_people else _RECENT_ARCHIVES
        rows = await self.database.run(
            lambda conn: conn.execute(query, {"before": before, "limit": limit}).fetchall()
        )
        return [archive_summary(record, turns) for record, turns in rows]

    async def due_outbox(self, limit: int) -> list[OutboxItem]:
        rows = await self.database.run(
            lambda conn: conn.execute(
                "SELECT id, idempotency_key, payload, attempts FROM analytics_outbox"
                " WHERE delivered_at IS NULL AND next_attempt_at <= now() ORDER BY id LIMIT %s",
                (limit,),
            ).fetchall()
        )
        return [OutboxItem(*row) for row in rows]

    async def outbox_delivered(self, item_id: int) -> None:
        await self.database.run(
            lambda conn: conn.execute(
                "UPDATE analytics_outbox SET delivered_at = now() WHERE id = %s AND delivered_at IS NULL", (item_id,)
            )
        )

    async def outbox_failed(self, item_id: int, error: str, retry_in_s: float) -> None:
        await self.database.run(
            lambda conn: conn.execute(
                "UPDATE analytics_outbox SET attempts = attempts + 1, last_error = %s,"
                " next_attempt_at = now() + make_interval(secs => %s) WHERE id = %s",
                (error[:500], retry_in_s, item_id),
            )
        )

    async def prune(self, older_than: datetime) -> Pruned:
        def work(conn: psycopg.Connection) -> Pruned:
            with conn.transaction():
                old = "SELECT game_id FROM game_results WHERE finished_at < %(t)s"
                seats = conn.execute(f"DELETE FROM game_seats WHERE game_id IN ({old})", {"t": older_than}).rowcount
                games = conn.execute(
                    f"DELETE FROM games WHERE status = 'ended' AND id IN ({old})", {"t": older_than}
                ).rowcount
                outbox = conn.execute(
                    "DELETE FROM analytics_outbox WHERE delivered_at < %(t)s", {"t": older_than}
                ).rowcount
            return Pruned(games=games, seats=seats, outbox=outbox)

        return await self.database.run(work)
