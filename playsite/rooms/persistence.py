"""How a room makes a version durable before anyone may see it.

Required durability (the showcase room, or any room configured so) fails closed: a write
that fails halts the room and is retried — an intermediate write 4 more times with about
3 s of backoff in total, a terminal write without bound, backing off to one attempt per
30 s. Best-effort rooms try once, log a failure and play on in memory. Every retry, give-up
and recovery is one stderr line naming game and version (service.md, durability point 2).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

import attrs
import trio

from playsite.store.base import GameEnding, GameWrite

INTERMEDIATE_BACKOFF_S = (0.25, 0.5, 1.0, 1.25)
"""Four retries after the first attempt, 3 s of backoff in total."""
TERMINAL_BACKOFF_FIRST_S = 0.5
TERMINAL_BACKOFF_MAX_S = 30
"""A terminal write is retried forever, at most this far apart."""
STALL_GRACE_S = 15
"""After failing this long, a room drops its subscribers (they reconnect to durable state)."""


class RoomStore(Protocol):
    """What rooms need of the store their versions are written to (and resumed from)."""

    durable: bool
    save_timeout_s: float

    async def save_game(self, write: GameWrite) -> None: ...

    async def finish_game(self, write: GameWrite, ending: GameEnding) -> None: ...

    def in_doubt(self, game_id: str) -> bool:
        """Whether a write of this game may have committed without this process knowing."""
        ...

    async def read_back(self, game_id: str) -> tuple[str, int] | None:
        """The game's stored (status, version), or None when it is not stored."""
        ...

    async def active_games(self) -> list[dict[str, Any]]:
        """The last committed snapshot of every game not ended."""
        ...


class WriteFailed(Exception):
    """A store write did not commit (error, or no answer within the store's save timeout)."""


log = logging.getLogger("playsite.persistence")

SETTLED_EVENTS = frozenset({"recovered", "adopted"})
"""Events that end a trouble well, logged at INFO; every other event is a WARNING."""


def telemetry(game_id: str, version: int, event: str, detail: str = "") -> None:
    """One event of a game's writes, a log line of `playsite.persistence` (docs/persistence.md)."""
    log.log(logging.INFO if event in SETTLED_EVENTS else logging.WARNING,
            f"game={game_id} version={version} event={event} {detail}".rstrip())


async def attempt_write(write: Callable[[], Awaitable[None]], timeout_s: float) -> str | None:
    """One attempt under the store's own save timeout; None on success, else why it failed."""
    with trio.move_on_after(timeout_s):
        try:
            await write()
            return None
        except Exception as error:  # any store failure is a failed attempt, never a crash of the room
            return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}".strip()
    return f"no answer within {timeout_s:g} s"


async def write_durably(
    write: Callable[[], Awaitable[None]],
    *,
    game_id: str,
    version: int,
    terminal: bool,
    timeout_s: float,
    on_stall: Callable[[], None],
) -> bool:
    """Required durability: retry per policy. True once committed, False when given up.

    `on_stall` is called once, STALL_GRACE_S after the first attempt began, if the write has
    not committed (nor been given up) by then: while an attempt hangs as well as between them.
    """
    started = trio.current_time()
    first: str | None = None
    if timeout_s <= STALL_GRACE_S:
        # The common case, alone: an attempt that commits, with no watch started for it
        # (an attempt this short cannot outlast the grace).
        first = await attempt_write(write, timeout_s)
        if first is None:
            return True
    async with _stall_watch(started, on_stall):
        return await _retried(write, first, game_id=game_id, version=version, terminal=terminal,
                              timeout_s=timeout_s, started=started)


async def _retried(
    write: Callable[[], Awaitable[None]], error: str | None, *, game_id: str, version: int, terminal: bool,
    timeout_s: float, started: float,
) -> bool:
    """`write_durably`'s retries, after a first attempt that failed with `error` (None: not tried yet)."""
    attempt = 0 if error is None else 1
    backoff = iter(INTERMEDIATE_BACKOFF_S)
    delay = TERMINAL_BACKOFF_FIRST_S
    while True:
        if attempt:
            if terminal:
                wait, delay = delay, min(delay * 2, TERMINAL_BACKOFF_MAX_S)
            else:
                next_wait = next(backoff, None)
                if next_wait is None:
                    telemetry(game_id, version, "given_up", f"attempts={attempt} error={error!r}")
                    return False
                wait = next_wait
            telemetry(game_id, version, "retrying", f"attempt={attempt} next_in_s={wait:g} error={error!r}")
            await trio.sleep(wait)
        attempt += 1
        error = await attempt_write(write, timeout_s)
        if error is None:
            if attempt > 1:
                waited = trio.current_time() - started
                telemetry(game_id, version, "recovered", f"attempts={attempt} stalled_s={waited:.1f}")
            return True


@contextlib.asynccontextmanager
async def _stall_watch(started: float, on_stall: Callable[[], None]) -> AsyncIterator[None]:
    """Call `on_stall` once at `started` + STALL_GRACE_S unless the body is over by then."""

    async def watch() -> None:
        await trio.sleep_until(started + STALL_GRACE_S)
        on_stall()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch)
        yield
        nursery.cancel_scope.cancel()


async def read_back_durably(
    read: Callable[[], Awaitable[tuple[str, int] | None]],
    *,
    game_id: str,
    version: int,
    timeout_s: float,
    on_stall: Callable[[], None],
) -> tuple[str, int] | None:
    """After a write whose COMMIT answer was lost: read back what the store holds, retried as
    a terminal write is (without bound, backing off to one attempt per 30 s), because nothing
    may be decided before it is known. `on_stall` as for `write_durably`."""
    started = trio.current_time()
    attempt = 1
    delay = TERMINAL_BACKOFF_FIRST_S
    async with _stall_watch(started, on_stall):
        while True:
            stored: list[tuple[str, int] | None] = []

            async def once() -> None:
                stored.append(await read())

            error = await attempt_write(once, timeout_s)
            if error is None:
                return stored[0]
            wait, delay = delay, min(delay * 2, TERMINAL_BACKOFF_MAX_S)
            telemetry(game_id, version, "read_back_retrying", f"attempt={attempt} next_in_s={wait:g} error={error!r}")
            await trio.sleep(wait)
            attempt += 1


async def write_best_effort(write: Callable[[], Awaitable[None]], *, game_id: str, version: int, timeout_s: float) -> bool:
    """Best effort: one attempt; a failure is logged and the game goes on in memory."""
    error = await attempt_write(write, timeout_s)
    if error is not None:
        telemetry(game_id, version, "write_failed_best_effort", f"error={error!r}")
    return error is None


@attrs.frozen
class DurabilityPolicy:
    """How hard a room tries to make a version durable, by the room's durability and the
    kind of write. One value per deployment (the registry hands it to every room)."""

    timeout_s: float
    """One attempt's limit: the store's save timeout."""

    @classmethod
    def for_store(cls, store: RoomStore | None) -> DurabilityPolicy:
        """The policy of rooms writing to `store` (None: a room that writes nowhere)."""
        return cls(timeout_s=store.save_timeout_s if store is not None else 0.0)

    async def write(
        self,
        attempt: Callable[[], Awaitable[None]],
        *,
        required: bool,
        terminal: bool,
        game_id: str,
        version: int,
        on_stall: Callable[[], None],
    ) -> bool:
        """True once the version committed; False when it was given up, or (best effort)
        failed: the caller then plays on (best effort) or aborts (required).

        A terminal write reveals the seed, so in every mode it commits before anyone sees
        it, retried without bound; a best-effort room is best effort mid-game only."""
        if required or terminal:
            return await write_durably(
                attempt, game_id=game_id, version=version, terminal=terminal, timeout_s=self.timeout_s, on_stall=on_stall
            )
        await write_best_effort(attempt, game_id=game_id, version=version, timeout_s=self.timeout_s)
        return True
