"""The serving lease: at most one `playsite serve` serves a database at a time.

Admission, the lobby and every live room are process-local, so two processes on one
database would both resume and play the same games. The serving process therefore holds a
session-level PostgreSQL advisory lock on a connection of its own, taken before any room is
resumed. A second process finds it taken and refuses to boot. If the lease connection is
lost (a PostgreSQL restart, a network cut) the holder takes it again; if it then finds the
lock held by another process, it has lost the lease and stops serving. While PostgreSQL
cannot be reached at all, nobody can take the lease, so the holder keeps serving.
A process killed with -9 loses its connection, and with it the lease, at once.

A holder whose lease connection alone was lost (its backend terminated, a cut that spared its
pool) goes on serving until its next check finds the lease taken, up to CHECK_EVERY_S: its
turns would be written after the new holder had read its games. So a new holder, once it has
the lease, waits until the connections of every other serving process on this database are
gone (`pg_stat_activity`, by their `application_name`) before anything is resumed: a
predecessor that finds the lease taken stops, and its connections go with it. At most
PREDECESSOR_WAIT_S; a predecessor still connected then is logged as an error, and the boot goes
on. Its writes are refused all the same: each holder bumps the lease's epoch (`serving_epoch`)
when it takes the lease, every game write carries its writer's epoch (`Database.serving_epoch`,
store/postgres.py), and the database writes nothing for one no longer current. A holder that
takes the lock again after losing its connection stops if the epoch moved meanwhile.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import psycopg
import trio

from playsite.store.database import SERVING_APPLICATION, DatabaseUnavailable, connection_options, serving_application_name

log = logging.getLogger("playsite.lease")

LEASE_KEY = 0x706C61797369_7465 & 0x7FFF_FFFF_FFFF_FFFF
"""The advisory lock key ("playsite" in ASCII, as a positive bigint)."""
CHECK_EVERY_S = 2.0
RELEASE_TIMEOUT_S = 2.0
"""How long stopping waits for PostgreSQL to take the lease back."""
PREDECESSOR_WAIT_S = 10.0
"""How long a new holder waits for another serving process's connections to go (it stops
within CHECK_EVERY_S of finding the lease taken, and closes them as it exits)."""
PREDECESSOR_POLL_S = 0.1
LOST_DRAIN_S = 1.0
"""How long a holder that lost the lease lets its stop's first step run (game sockets closed with
1013, streams ended) before it exits."""


def current_epoch(conn: psycopg.Connection) -> int | None:
    """The serving lease's epoch as the database holds it now (None before sql/019's row)."""
    row = conn.execute("SELECT epoch FROM serving_epoch WHERE id = 1").fetchone()
    return None if row is None else int(row[0])


def other_servers(conn: psycopg.Connection) -> list[tuple[str, str | None]]:
    """The connections other serving processes hold to this database now: (application_name,
    client address, None on a local socket), as `pg_stat_activity` shows them."""
    return conn.execute(
        "SELECT application_name, client_addr::text FROM pg_stat_activity"
        " WHERE datname = current_database() AND application_name LIKE %s AND application_name <> %s",
        (f"{SERVING_APPLICATION} %", serving_application_name()),
    ).fetchall()


class LeaseTaken(Exception):
    """Another process serves this database."""


class LeaseLost(Exception):
    """This process held the lease, lost its connection, and another process took the lease."""


class ServingLease:
    def __init__(self, url: str):
        self.url = url
        self._conn: psycopg.Connection | None = None
        self.epoch: int | None = None
        """This holder's epoch (`serving_epoch`), bumped when it took the lease: every game
        write it makes carries it, and the database refuses one that is no longer current."""
        self.superseded = False
        """Whether another process held the lease while this one had lost its connection."""
        self.holders: list[str] = []
        """The serving processes connected when the lease was found taken, as `pg_stat_activity`
        names them ("playsite serve 1234 from 10.0.0.5"): whom an operator must stop."""

    def _take(self) -> bool:
        """(Re)connect and try the lock; True when this process holds it now."""
        self._drop()
        conn = psycopg.connect(self.url, autocommit=True, **connection_options())
        held = conn.execute("SELECT pg_try_advisory_lock(%s)", (LEASE_KEY,)).fetchone()
        if held is None or not held[0]:
            self.holders = [
                f"{name} from {address or 'a local socket'}"
                for name, address in sorted(set(other_servers(conn)), key=lambda row: (row[0], row[1] or ""))
            ]
            conn.close()
            return False
        if self.epoch is None:  # the boot's take: a new epoch, which fences every holder before
            bumped = conn.execute("UPDATE serving_epoch SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch").fetchone()
            assert bumped is not None, "serving_epoch has its one row (sql/019)"
            self.epoch = int(bumped[0])
        elif current_epoch(conn) != self.epoch:
            # taken again, after another process held it meanwhile (and wrote games): this
            # process's games in memory are no longer what the database holds
            conn.execute("SELECT pg_advisory_unlock(%s)", (LEASE_KEY,))
            conn.close()
            self.superseded = True
            return False
        self._conn = conn
        return True

    @property
    def held(self) -> bool:
        """Whether this process held the lease at its last check."""
        return self._conn is not None

    def _alive(self) -> bool:
        if self._conn is None or self._conn.closed:
            return False
        try:
            self._conn.execute("SELECT 1")
            return True
        except psycopg.Error:
            return False

    def _drop(self) -> None:
        if self._conn is not None:
            # Given back before the connection closes: a closed connection's lock is released by
            # its backend as it exits, after this process has gone on, and a holder that follows
            # at once (the demo's real boot after its private one) found it still taken.
            try:
                if not self._conn.closed:
                    self._conn.execute("SELECT pg_advisory_unlock(%s)", (LEASE_KEY,))
            except psycopg.Error:
                pass  # the connection is gone: so is the lock, once its backend has noticed
            self._conn.close()
            self._conn = None

    async def take(self) -> None:
        """At boot: hold the lease, or raise LeaseTaken; then wait for a predecessor to be gone."""
        if not await trio.to_thread.run_sync(self._take, abandon_on_cancel=True):
            holders = f": {', '.join(self.holders)}" if self.holders else ""
            raise LeaseTaken(
                f"another playsite process is serving this database (it holds the serving lease{holders});"
                " stop it first"
            )
        await self._outlive_predecessors()

    def _predecessors(self) -> int:
        """Connections of other serving processes to this database, now."""
        assert self._conn is not None
        return len(other_servers(self._conn))

    async def _outlive_predecessors(self) -> None:
        """Wait (PREDECESSOR_WAIT_S at most) until no other serving process is connected."""
        waited = False
        with trio.move_on_after(PREDECESSOR_WAIT_S):
            while (left := await trio.to_thread.run_sync(self._predecessors, abandon_on_cancel=True)) > 0:
                if not waited:
                    log.warning(
                        "serving lease: taken while another serving process still has %d connection(s) to this"
                        " database; waiting for it to stop before resuming any game", left,
                    )
                    waited = True
                await trio.sleep(PREDECESSOR_POLL_S)
            if waited:
                log.warning("serving lease: the previous serving process is gone; resuming")
            return
        log.error(
            "serving lease: another serving process is still connected after %g s; resuming all the same"
            " (its game writes are refused: the lease's epoch has moved on)", PREDECESSOR_WAIT_S,
        )

    async def keep(self, on_lost: Callable[[], None] | None = None) -> None:
        """Until cancelled: check the lease connection; retake it when lost; LeaseLost when another
        took it, after `on_lost()` and LOST_DRAIN_S (the server's stop begins: its sockets are
        told to reconnect, as at a restart, rather than cut when the process exits)."""
        while True:
            await trio.sleep(CHECK_EVERY_S)
            if await trio.to_thread.run_sync(self._alive, abandon_on_cancel=True):
                continue
            log.warning("serving lease: connection lost; taking the lease again")
            try:
                held = await trio.to_thread.run_sync(self._take, abandon_on_cancel=True)
            except psycopg.Error as error:
                log.warning("serving lease: PostgreSQL unreachable (%s); still serving", type(error).__name__)
                continue
            if not held:
                lost = LeaseLost(
                    "another playsite process held the serving lease meanwhile; this one stops serving"
                    if self.superseded
                    else "the serving lease was taken by another playsite process; this one stops serving"
                )
                if on_lost is not None:
                    log.warning("serving lease: lost to another process; its sockets are told to reconnect, then it exits")
                    on_lost()
                    await trio.sleep(LOST_DRAIN_S)
                raise lost
            log.info("serving lease: held again")

    async def close(self) -> None:
        """Give the lease back, waiting RELEASE_TIMEOUT_S at most for a PostgreSQL that does not
        answer (the abandoned thread's connection goes with the process)."""
        with trio.move_on_after(RELEASE_TIMEOUT_S):
            await trio.to_thread.run_sync(self._drop, abandon_on_cancel=True)


async def run_serving_lease(
    url: str, on_lost: Callable[[], None] | None = None,
    *, task_status: trio.TaskStatus[ServingLease] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Take the lease (LeaseTaken if another process holds it), then keep it while serving;
    `on_lost` is called when another process has it (`ServingLease.keep`)."""
    lease = ServingLease(url)
    try:
        await lease.take()
    except psycopg.Error as error:
        raise DatabaseUnavailable(f"cannot take the serving lease: {type(error).__name__}") from None
    task_status.started(lease)
    try:
        await lease.keep(on_lost)
    finally:
        with trio.CancelScope(shield=True):
            await lease.close()
