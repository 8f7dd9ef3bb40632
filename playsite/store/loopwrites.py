"""The writes a verdict waits for (a turn's, a game's last) on the event loop itself:
PostgreSQL connections driven by trio, no thread.

Every other database call runs in a worker thread (`Database.run`). Under load that costs a
turn's write more than PostgreSQL does: a hop into the thread, the interpreter's lock after each
round trip while the event loop holds it, and a hop back (docs/performance.md, "Capacity"). The
write a verdict waits for, one statement between BEGIN and COMMIT, is sent here instead with
libpq's non-blocking calls, and its answers are awaited with trio's own waits on the socket.

The same guarantees as `Database.run`: a caller that gives up (a timeout, a shutdown) before the
COMMIT is sent never commits: its connection is closed with the transaction open, which
PostgreSQL rolls back. Once the COMMIT is sent, giving up (or losing the connection) leaves the
outcome unknown, and `in_doubt` is called, so the writer reads back before deciding anything.
A connection that failed or was given up on is never used again; its place in the pool is taken
by a new connection when the next write needs one, so the pool never shrinks.
"""

from __future__ import annotations

import re
import select
import threading
import time
from collections.abc import Callable, Generator, Mapping
from typing import Any

import attrs
import psycopg
import trio
from psycopg import generators, pq
from psycopg.adapt import PyFormat, Transformer
from psycopg.errors import error_from_result
from psycopg.pq.abc import PGresult
from psycopg.waiting import Ready, Wait

_NAMED = re.compile(r"%\((\w+)\)s")
_OK = (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK)


@attrs.frozen
class LoopStatement:
    """One statement written with `%(name)s` placeholders (as every query of the store is),
    turned once into PostgreSQL's `$n` form and the order its values go in."""

    named: str
    """As written: what a worker thread sends when no connection of the loop is free."""
    sql: bytes
    names: tuple[str, ...]

    @classmethod
    def of(cls, named_sql: str) -> LoopStatement:
        names: list[str] = []

        def number(match: re.Match[str]) -> str:
            if match[1] not in names:
                names.append(match[1])
            return f"${names.index(match[1]) + 1}"

        return cls(named_sql, _NAMED.sub(number, named_sql).encode(), tuple(names))


class _Link:
    """One connection of the pool and the statements prepared on it (by their values' types)."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn
        self.pgconn = conn.pgconn
        self.pgconn.nonblocking = 1
        self.prepared: dict[tuple[LoopStatement, tuple[int, ...]], bytes] = {}

    def close(self) -> None:
        try:
            fileno: int | None = self.pgconn.socket
        except psycopg.OperationalError:
            fileno = None  # libpq has closed it already (the connection was lost)
        if fileno is not None:
            trio.lowlevel.notify_closing(fileno)  # before the descriptor goes, as trio asks
        self.conn.close()


def closed_by_server(pgconn: pq.abc.PGconn) -> bool:
    """Whether an idle connection was closed by PostgreSQL: a restart or a terminated backend
    says why and closes the socket, which then reads as ready. Nothing else is sent to an idle
    connection of the store (it LISTENs to nothing), so a readable one is not used again. One
    `poll` of the socket, no round trip: cheap enough to ask before every use, where a stale
    connection would fail the call that took it (after a restart, one call per connection)."""
    try:
        fileno = pgconn.socket
    except psycopg.OperationalError:
        return True  # libpq has closed it already
    poller = select.poll()  # not select(): the serving process's descriptors go past FD_SETSIZE
    poller.register(fileno, select.POLLIN)
    return bool(poller.poll(0))


async def _drive(gen: Generator[Wait, Ready | int, Any], fileno: int) -> Any:
    """Run one of psycopg's non-blocking generators to its end on trio's waits."""
    try:
        wait = next(gen)
        while True:
            if wait & Wait.W:
                await trio.lowlevel.wait_writable(fileno)
                wait = gen.send(Ready.W)
            else:
                await trio.lowlevel.wait_readable(fileno)
                wait = gen.send(Ready.R)
    except StopIteration as done:
        return done.value


class LoopWrites:
    """Up to `size` connections, opened as writes need them, each used by one write at a time."""

    def __init__(self, connect: Callable[[], psycopg.Connection], size: int) -> None:
        self._connect = connect
        self._slots = trio.Semaphore(size)
        self._idle: list[_Link] = []

    @property
    def free(self) -> bool:
        """Whether a write would have a connection at once (an idle one, or room to open one)."""
        return self._slots.value > 0

    async def write(
        self,
        statement: LoopStatement,
        params: Mapping[str, Any],
        *,
        in_doubt: Callable[[], None] | None = None,
        marks: list[float] | None = None,
    ) -> int:
        """BEGIN, `statement` with `params`, COMMIT; returns the rows the statement returned.
        Raises what psycopg raises for an error PostgreSQL answered, OperationalError for a
        lost connection; the caller decides what is retried. `marks`, when given, gets the
        moments it had a connection and had its COMMIT answered (`time.perf_counter`)."""
        async with self._slots:
            link = self._sound_idle_link() or await self._open()
            if marks is not None:
                marks.append(time.perf_counter())
            committing = False
            try:
                pgconn = link.pgconn
                fileno = pgconn.socket
                transformer = Transformer()
                values = transformer.dump_sequence(
                    [params[name] for name in statement.names], [PyFormat.AUTO] * len(statement.names)
                )
                types = tuple(transformer.types or ())
                name = link.prepared.get((statement, types))
                if name is None:
                    name = f"playsite_{len(link.prepared)}".encode()
                    pgconn.send_prepare(name, statement.sql, param_types=types)
                    _check(await _drive(generators.execute(pgconn), fileno))
                    link.prepared[statement, types] = name
                pgconn.send_query(b"BEGIN")
                _check(await _drive(generators.execute(pgconn), fileno))
                pgconn.send_query_prepared(name, values, param_formats=transformer.formats)
                (result,) = _check(await _drive(generators.execute(pgconn), fileno))
                committing = True
                pgconn.send_query(b"COMMIT")
                (committed,) = _check(await _drive(generators.execute(pgconn), fileno))
                if committed.command_status != b"COMMIT":
                    raise psycopg.errors.InFailedSqlTransaction("the transaction was rolled back at COMMIT")
            except BaseException as failure:
                link.close()
                lost = isinstance(failure, (trio.Cancelled, psycopg.OperationalError))
                if committing and lost and in_doubt is not None:
                    in_doubt()  # the COMMIT was sent and its answer will never come here
                raise
            if marks is not None:
                marks.append(time.perf_counter())
            self._idle.append(link)
            return result.ntuples

    def _sound_idle_link(self) -> _Link | None:
        """An idle connection PostgreSQL has not closed; the closed ones are dropped."""
        while self._idle:
            link = self._idle.pop()
            if not closed_by_server(link.pgconn):
                return link
            link.close()
        return None

    async def _open(self) -> _Link:
        abandoned = threading.Event()

        def connect() -> psycopg.Connection:
            conn = self._connect()
            if abandoned.is_set():
                conn.close()  # its caller gave up while it connected
            return conn

        try:
            return _Link(await trio.to_thread.run_sync(connect, abandon_on_cancel=True))
        except trio.Cancelled:
            abandoned.set()
            raise

    def close(self) -> None:
        while self._idle:
            self._idle.pop().close()


def _check(results: list[PGresult]) -> list[PGresult]:
    for result in results:
        if result.status not in _OK:
            raise error_from_result(result)
    return results
