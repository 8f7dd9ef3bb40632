"""Reference cycles a closed connection would leave, broken where they are made.

The serving process freezes whatever survives its young collections (playsite/gcwatch.py),
so an object that only the cyclic collector can free waits, frozen, for the periodic full
collection, whose pause grows with the sockets open. Each closed game socket left ~220
objects in cycles; with these three fixes it leaves none (tests/test_reference_cycles.py):

- `raise_cancelled_alone(group)`: when a client goes away, quart-trio cancels the route's
  handler, and a nursery inside it raises a `BaseExceptionGroup` of nothing but `Cancelled`.
  quart-trio treats such a group as a failure of the route: it splits it and keeps the parts
  in local variables of frames that the parts' own tracebacks hold (exceptions, tracebacks,
  frames, the handler's tasks and contexts: ~185 objects a socket). Re-raised as one bare
  `Cancelled`, it goes straight up to the cancel scope that was cancelled, which absorbs it.
- `install()`: hypercorn's connection object (`TCPServer`) keeps its protocol, whose send
  callback is a method of that same connection, and its task group, for good: ~38 objects a
  connection, every HTTP connection included. Once the connection is done, they are dropped.
- `install()` also closes, when a WebSocket stream closes, the generator wsproto parses its
  frames with (`FrameProtocol._parse_more`): the generator's frame keeps the frame protocol
  that keeps the generator. A client that closes cleanly ends it (its Close frame is the
  generator's last); one that drops the connection, or is closed by the server, left a cycle
  of ~12 objects and its buffers, a few KiB a socket. The collector frees a cycle through a
  generator by finalizing the generator, so `gc.collect()` does not count it and
  `gc.DEBUG_SAVEALL` does not save it: the tests count what a collection frees instead.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio
from hypercorn.protocol.events import Event, StreamClosed
from hypercorn.protocol.ws_stream import WSStream
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

    # Patches of hypercorn's classes (the version is pinned above): setattr, as they are no
    # assignments the type checker could verify.
    setattr(run, "_playsite_drops_cycles", True)
    setattr(TCPServer, "run", run)
    setattr(WSStream, "handle", _closing_the_parser(WSStream.handle))


def _closing_the_parser(handle: Callable[[WSStream, Event], Awaitable[None]]) -> Callable[[WSStream, Event], Awaitable[None]]:
    async def closing_handle(self: WSStream, event: Event) -> None:
        try:
            await handle(self, event)
        finally:
            if isinstance(event, StreamClosed):
                # Nothing is received once the stream is closed (sending does not use the parser).
                parser = getattr(getattr(getattr(self, "connection", None), "_proto", None), "_parse_more", None)
                if parser is not None:
                    parser.close()

    return closing_handle
