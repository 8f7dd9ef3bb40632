"""How a server stops, in order (SIGINT/SIGTERM: server.py).

1. `begin`, as the signal comes: the listening sockets close, and every long-lived response
   ends itself while HTTP drains: a game socket closes with 1013 ("try again later": the game
   goes on, reconnect), an ndjson stream ends its body cleanly. Without this, hypercorn's
   drain would wait for them in vain and then cut them (a WebSocket's 1006, a stream's
   chunked body broken off), which a client of the documented contract reads as a failure.
2. `finish`, once HTTP has drained and before every loop is cancelled: what must still reach
   the database runs while it is open (the admin heartbeat's row: accounts/admins.py).
   Cancelled all at once, the loops closed the database under it.

A route registers the cancel scope that ends it (`ends`) only while it waits, or for a
socket's life; nothing is spawned per connection.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

import trio

log = logging.getLogger("playsite")

FINISH_TIMEOUT_S = 2
"""How long the work of `finish` may take, all of it (a database that does not answer)."""


class Stopping:
    def __init__(self) -> None:
        self.begun = False
        self._scopes: set[trio.CancelScope] = set()
        self._last_work: list[Callable[[], Awaitable[object]]] = []

    @contextmanager
    def ends(self, scope: trio.CancelScope) -> Iterator[None]:
        """Within this block, the server's stop cancels `scope` (at once when it has begun)."""
        if self.begun:
            scope.cancel()
        self._scopes.add(scope)
        try:
            yield
        finally:
            self._scopes.discard(scope)

    def begin(self) -> None:
        """The stop has begun: end every long-lived response."""
        self.begun = True
        for scope in list(self._scopes):
            scope.cancel()

    def at_finish(self, work: Callable[[], Awaitable[object]]) -> None:
        """Run `work` in `finish`, after the ones registered before it."""
        self._last_work.append(work)

    async def finish(self) -> None:
        """Run the registered work in order, FINISH_TIMEOUT_S for all of it; a failure is
        logged and the rest still runs."""
        with trio.move_on_after(FINISH_TIMEOUT_S) as timeout:
            for work in self._last_work:
                try:
                    await work()
                except Exception as error:
                    log.warning("stopping: %s failed: %s", getattr(work, "__qualname__", work), type(error).__name__)
        if timeout.cancelled_caught:
            log.warning("stopping: the last work took over %s s and was cut short", FINISH_TIMEOUT_S)
