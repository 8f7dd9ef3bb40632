"""The one place that calls PostgreSQL: psycopg 3's sync pool, run in trio worker threads,
and for the writes a verdict waits for (`write_on_loop`) connections the event loop drives itself.

Why threads: there is no maintained trio-native PostgreSQL driver (docs/architecture.md). The
writes every verdict waits for are worth the exception: `loopwrites` sends their three round
trips with libpq's non-blocking calls and awaits the socket in trio, with the same guarantees
as `run` below.
Why `abandon_on_cancel`: a cancelled caller must never wait for a hung query; the
server-side `statement_timeout` then bounds how long the abandoned thread holds its
connection.

An abandoned attempt never commits: `run` owns each attempt's transaction, and the worker
thread commits only if, under the attempt's lock, the caller has not given up; a caller that
gives up first marks the attempt, and the thread rolls back (at once, if it was still waiting
for a pooled connection). Only a COMMIT already sent when the caller gave up can still land:
such an attempt is reported as in doubt (`run(..., in_doubt=...)`), and its writer reads back
what the database holds before deciding anything (`PostgresStore.read_back`).

At most twice `pool_size` calls run in worker threads at once (`CapacityLimiter`); the
others wait in trio, where waiting costs nothing. With trio's default of 40 threads, every
room with a write started a thread that then blocked in the pool for a connection: up to 40
threads woke, slept and fought the event loop for the GIL. Twice the pool, not the pool: a
connection given back is taken at once by a thread already waiting for it, where with one
thread per connection the next write would start only once the event loop, busy under load,
had seen the last one finish (bench/store_writes.py, docs/performance.md).

Every call that returns is timed in three parts (`CallTimings`, in GET /metrics): getting a
connection (for `run`, a thread too), the transaction itself, and getting back to the caller.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import attrs
import psycopg
import psycopg_pool
import trio

from playsite.histogram import Histogram
from playsite.store.loopwrites import LoopStatement, LoopWrites, closed_by_server

T = TypeVar("T")

log = logging.getLogger("playsite.store")

CONNECT_TIMEOUT_S = 10
KEEPALIVE_IDLE_S = 10
"""A connection with nothing to say for this long sends its first keepalive probe."""
KEEPALIVE_INTERVAL_S = 5
USER_TIMEOUT_MS = 30_000
"""Data sent (or a probe) unanswered for this long: the kernel gives the connection up."""


SERVING_APPLICATION = "playsite serve"
"""What every connection of a serving process is named (`application_name`), with its process id
after it: the serving lease tells a predecessor's connections from its own by it."""


def serving_application_name() -> str:
    return f"{SERVING_APPLICATION} {os.getpid()}"


def connection_options(*, statement_timeout_ms: int | None = None) -> dict[str, Any]:
    """libpq's parameters for every connection the serving process opens (its pools, the
    probe at open, the serving lease's).

    A PostgreSQL that vanishes without closing its connections (a failover to another host,
    a network cut, a host powered off) sends nothing more, and without TCP keepalives a call
    waiting for its answer would wait for ever: its caller gives up after its timeout, but the
    worker thread would keep the pooled connection and its place among `Database`'s threads,
    until every place was taken and no call could run at all. With these the kernel probes a
    silent connection after `KEEPALIVE_IDLE_S` and gives it up when probes or data go
    unanswered for `USER_TIMEOUT_MS` (about half a minute): the call fails, the connection is
    dropped and replaced. A PostgreSQL that is alive but slow still answers the probes, so
    only `statement_timeout` bounds a slow statement. (On a Unix-domain socket libpq ignores
    the TCP parameters: there is no network to lose.) Each is named for this process
    (`serving_application_name`), as `pg_stat_activity` shows it."""
    options: dict[str, Any] = {
        "application_name": serving_application_name(),
        "connect_timeout": CONNECT_TIMEOUT_S,
        "keepalives": 1,
        "keepalives_idle": KEEPALIVE_IDLE_S,
        "keepalives_interval": KEEPALIVE_INTERVAL_S,
        "tcp_user_timeout": USER_TIMEOUT_MS,
    }
    if statement_timeout_ms is not None:
        options["options"] = f"-c statement_timeout={statement_timeout_ms}"
    return options
CALL_BUCKETS_S = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


@attrs.define
class CallTimings:
    """Where the calls of `Database.run` and `write_on_loop` that returned spent their time, in
    three parts that add up to the whole call (GET /metrics). Under load a turn's write spends most of it
    getting into and out of a worker thread, not in PostgreSQL: the parts tell an operator
    which one is slow, the database or the serving process (docs/performance.md)."""

    wait: Histogram = attrs.field(factory=lambda: Histogram(CALL_BUCKETS_S))
    """The call -> it holds a connection: its worker thread a pooled one (a free thread, the
    thread running, a free connection), or a turn's write one of the event loop's."""
    transaction: Histogram = attrs.field(factory=lambda: Histogram(CALL_BUCKETS_S))
    """The transaction, from its BEGIN to its COMMIT answered: PostgreSQL's round trips."""
    return_: Histogram = attrs.field(factory=lambda: Histogram(CALL_BUCKETS_S))
    """The COMMIT answered -> the caller runs again (the connection given back, the event loop
    taking up the worker thread's result; next to nothing for a write on the event loop)."""

    def observe(self, marks: list[float]) -> None:
        """`marks`: when the call was made, held its connection and had its COMMIT answered
        (`time.perf_counter`); the caller runs again now."""
        called, connected, committed = marks
        self.wait.observe(connected - called)
        self.transaction.observe(committed - connected)
        self.return_.observe(time.perf_counter() - committed)


class DatabaseUnavailable(Exception):
    """PostgreSQL could not be reached or refused the work; the message is safe to log."""


class _Abandoned(Exception):
    """Raised in a worker thread whose caller gave up: rolls its transaction back."""


class Attempt:
    """One call of `Database.run`, shared by the caller (trio) and its worker thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.abandoned = False
        self.committing = False

    def may_commit(self) -> bool:
        """In the thread, right before COMMIT: True (and the caller can no longer give up) unless abandoned."""
        with self._lock:
            if not self.abandoned:
                self.committing = True
            return self.committing

    def abandon(self) -> bool:
        """The caller gives up; True when the attempt is now sure never to commit."""
        with self._lock:
            if not self.committing:
                self.abandoned = True
            return self.abandoned


class Database:
    def __init__(self, url: str, *, pool_size: int = 8, statement_timeout_ms: int = 5000):
        self._url = url
        self._pool = psycopg_pool.ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs=connection_options(statement_timeout_ms=statement_timeout_ms),
            timeout=CONNECT_TIMEOUT_S,
            open=False,
        )
        self._threads = trio.CapacityLimiter(2 * pool_size)
        """Worker threads at once: one at work per pooled connection, one waiting for it."""
        self._loop_writes = LoopWrites(
            lambda: psycopg.connect(
                url,
                autocommit=True,  # BEGIN and COMMIT are sent by LoopWrites itself
                **connection_options(statement_timeout_ms=statement_timeout_ms),
            ),
            pool_size,
        )
        self.timings = CallTimings()
        self.writes_by_thread = 0
        """Writes of `write_on_loop` that found every connection of the loop busy."""
        self.serving_epoch: int | None = None
        """The serving lease's epoch this process writes games under, once it holds the lease
        (set at boot, `services.py`): game writes carry it, and the database refuses one that
        is no longer current (store/lease.py). None: no fence (a process that serves nothing)."""

    @property
    def connections_needed(self) -> int:
        """The most connections one process holds: the threads' pool, as many for the writes
        from the event loop, and the serving lease's own."""
        return 2 * self._pool.max_size + 1

    async def open(self) -> None:
        """Open the pool; warn when PostgreSQL admits fewer connections than this process may
        hold at its busiest (`connections_needed`): past that, writes fail under load with
        "too many clients" instead of at boot."""
        try:
            admitted = await trio.to_thread.run_sync(self._open_and_probe, abandon_on_cancel=True)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            raise DatabaseUnavailable(_describe(exc)) from None
        if admitted < self.connections_needed:
            log.warning(
                "PostgreSQL admits %d connections for non-superusers (max_connections less"
                " superuser_reserved_connections), fewer than the %d one process may hold with"
                " PLAY_DB_POOL_SIZE=%d: raise max_connections or lower the pool size"
                " (docs/configuration.md)",
                admitted,
                self.connections_needed,
                self._pool.max_size,
            )

    def _open_and_probe(self) -> int:
        """Open the pool; PostgreSQL's connections for non-superusers, in all."""
        # One direct connection first: a refused or misconfigured server fails at once
        # with its own message instead of after the pool's retry timeout.
        psycopg.connect(self._url, **connection_options()).close()
        self._pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        with self._pool.connection() as conn:
            row = conn.execute(
                "SELECT current_setting('max_connections')::int"
                " - current_setting('superuser_reserved_connections')::int"
            ).fetchone()
        assert row is not None
        return int(row[0])

    async def run(self, work: Callable[[psycopg.Connection], T], *, in_doubt: Callable[[], None] | None = None) -> T:
        """Run `work(conn)` in one transaction on a pooled connection in a worker thread.

        It commits when `work` returns, unless the caller was cancelled first (a timeout, a
        shutdown): then nothing `work` did is ever committed. When the caller gives up (or
        the connection fails) after the COMMIT was sent, the outcome is unknown: `in_doubt`,
        when given, is called then, and only then."""
        attempt = Attempt()
        marks = [time.perf_counter()]
        """When it was called, had a connection, and had its COMMIT answered (`CallTimings`)."""

        def in_thread() -> T:
            conn = self._sound_connection()
            try:
                marks.append(time.perf_counter())
                if attempt.abandoned:
                    raise _Abandoned()
                with conn.transaction():
                    result = work(conn)  # its own conn.transaction() blocks are savepoints here
                    if not attempt.may_commit():
                        raise _Abandoned()  # leaves the block: rolled back
                marks.append(time.perf_counter())
                return result
            finally:
                self._pool.putconn(conn)

        try:
            result = await trio.to_thread.run_sync(in_thread, abandon_on_cancel=True, limiter=self._threads)
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout) as exc:
            if attempt.committing and in_doubt is not None:
                in_doubt()  # the COMMIT was sent and its answer lost with the connection
            raise DatabaseUnavailable(_describe(exc)) from None
        except trio.Cancelled:
            if not attempt.abandon() and in_doubt is not None:
                in_doubt()  # the COMMIT is on the wire: it may still land
            raise
        self.timings.observe(marks)
        return result

    def _sound_connection(self) -> psycopg.Connection:
        """A pooled connection PostgreSQL has not closed (in a worker thread). After a restart
        every idle connection of the pool is dead: each is closed here, which makes the pool
        drop it and open another, instead of failing the call that took it."""
        for _ in range(self._pool.max_size):
            conn = self._pool.getconn()
            if not closed_by_server(conn.pgconn):
                return conn
            conn.close()
            self._pool.putconn(conn)
        return self._pool.getconn()  # all closed: a new one (or the pool's timeout)

    async def write_on_loop(
        self, statement: LoopStatement, params: dict[str, object], *, in_doubt: Callable[[], None] | None = None
    ) -> int:
        """`statement` between BEGIN and COMMIT on a connection the event loop drives itself
        (`loopwrites`): no worker thread. The same guarantees as `run`: nothing commits once
        the caller gave up before the COMMIT was sent; after it, `in_doubt` is called. Returns
        the rows the statement returned.

        When every connection of the loop is busy, the write goes through a worker thread
        (`run`) instead of waiting: a busy event loop wakes a write's task late after each of
        its round trips, so at a burst (a thousand games set up at once) the loop's
        connections stay held far longer than their transactions take, and writes queued for
        them would wait past their timeout where a thread runs its round trips by itself."""
        if not self._loop_writes.free:
            self.writes_by_thread += 1
            return await self.run(lambda conn: len(conn.execute(statement.named, params).fetchall()), in_doubt=in_doubt)
        marks = [time.perf_counter()]
        try:
            rows = await self._loop_writes.write(statement, params, in_doubt=in_doubt, marks=marks)
        except psycopg.OperationalError as exc:
            raise DatabaseUnavailable(_describe(exc)) from None
        self.timings.observe(marks)
        return rows

    async def close(self) -> None:
        self._loop_writes.close()
        await trio.to_thread.run_sync(self._pool.close, abandon_on_cancel=True)


def _describe(exc: BaseException) -> str:
    """First line of a driver error, which names the problem without echoing the password."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else 'no detail'}"
