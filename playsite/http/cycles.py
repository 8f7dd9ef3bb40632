"""Reference cycles a closed connection would leave, broken where they are made.

The serving process freezes whatever survives its young collections (playsite/gcwatch.py),
so an object that only the cyclic collector can free waits, frozen, for the periodic full
collection, whose pause grows with the sockets open. Each closed game socket left ~220
objects in cycles; with these two fixes it leaves none (tests/e2e/test_gc_cycles.py):

- `raise_cancelled_alone(group)`: when a client goes away, quart-trio cancels the route's
  handler, and a nursery inside it raises a `BaseExceptionGroup` of nothing but `Cancelled`.
  quart-trio treats such a group as a failure of the route: it splits it and keeps the parts
  in local variables of frames that the parts' own tracebacks hold (exceptions, tracebacks,
  frames, the handler's tasks and contexts: ~185 objects a socket). Re-raised as one bare
  `Cancelled`, it goes straight up to the cancel scope that was cancelled, which absorbs it.
- `install()`: hypercorn's connection object (`TCPServer`) keeps its protocol, whose send
  callback is a method of that same connection, and its task group, for good: ~38 objects a
  connection, every HTTP connection included. Once the connection is done, they are dropped.
"""

from __future__ import annotations

import trio
from hypercorn.trio.tcp_server import TCPServer

from playsite.http.pinned import require_hypercorn


def raise_cancelled_alone(group: BaseExceptionGroup) -> None:
    """Raise the group's first `Cancelled` if it holds nothing else; return otherwise.

    Call it in an `except BaseExceptionGroup as group:` block and re-raise after it. (Not a
    context manager: contextlib's `__exit__` frame would keep the group.) Nothing the raised
    exception keeps (its traceback's frames, its context) leads back to it."""
    first = _first_cancelled(group)
    if first is None:
        return
    context = first.__context__
    try:
        raise first
    finally:
        # Raised here, it would get the group as its context, and the group's traceback keeps
        # the nursery's exit frame, which keeps this very exception: a cycle.
        first.__context__ = context
        del first, group, context


def _first_cancelled(group: BaseExceptionGroup[BaseException]) -> trio.Cancelled | None:
    first = None
    for exception in group.exceptions:
        cancelled = _first_cancelled(exception) if isinstance(exception, BaseExceptionGroup) else exception
        if not isinstance(cancelled, trio.Cancelled):
            return None
        first = first or cancelled
    return first


def install() -> None:
    """Make hypercorn's connections drop their protocol and task group once they are done.
    Called once by `server.run_http`."""
    require_hypercorn("http.cycles")
    if getattr(TCPServer.run, "_playsite_drops_cycles", False):
        return
    original = TCPServer.run

    async def run(self: TCPServer) -> None:
        try:
            await original(self)
        finally:
            # Both refer back to this connection (the protocol through its send callback).
            self.__dict__.pop("protocol", None)
            self.__dict__.pop("_task_group", None)

    # A patch of hypercorn's class (the version is pinned above): setattr, as it is no assignment
    # the type checker could verify.
    setattr(run, "_playsite_drops_cycles", True)
    setattr(TCPServer, "run", run)
