"""What a connection reads, taken to its route with fewer trips round trio's event loop.

A seat's command comes in as one read of its connection (hypercorn's task for the
connection), is handed through hypercorn's queue to the route, and through the room's queue
to the room. Under hypercorn each of these steps paid for something it did not use:

- `install()`: hypercorn's read loop enters a deadline scope (`trio.fail_after`) around every
  read, its `read_timeout`. playsite sets none, so the scope's deadline is infinite: a
  cancel scope made, attached and torn down for each read, and its objects alive for the
  whole wait (the seats' waits outlive a young collection, playsite/gcwatch.py). Without a
  `read_timeout` the loop now reads with no scope; with one it is hypercorn's own loop.
- `put(send, message)`: a put into a trio memory channel with room in its buffer is done at
  once, but trio's `send` then yields to the event loop all the same (a schedule point).
  The reading task has nothing else to do before its next read, which waits in any case,
  so the put is made without the yield (`playsite/channels.py`); a full buffer still waits
  for room, as before. The room's queue of intents takes the same way (rooms/room.py).

Measured with tools/loadgen.py at 400 games x 5 sockets, eight alternating pairs
(docs/performance.md, what goal 2 kept): the serving process's CPU over its clients' 2.8% lower
at the median, and 2-4 MiB less resident.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import trio
from hypercorn.events import Closed, RawData
from hypercorn.trio.tcp_server import MAX_RECV, TCPServer

from playsite import channels
from playsite.http.pinned import require_hypercorn


async def put(send: Callable[[Any], Awaitable[None]], message: Any) -> None:
    """`await send(message)`, where `send` is hypercorn's put into a route's queue (a memory
    channel's bound `send`), without the yield when the queue has room. A cancelled caller
    is cancelled first, and a closed or broken queue raises, as with `send`."""
    channel = getattr(send, "__self__", None)
    if isinstance(channel, trio.MemorySendChannel):
        await channels.put(channel, message)
    else:
        await send(message)


async def _read_data(self: TCPServer) -> None:
    """hypercorn's read loop (hypercorn/trio/tcp_server.py) with no deadline scope when
    `read_timeout` is unset; the original runs when it is set."""
    if self.config.read_timeout:
        await _original_read_data(self)
        return
    while True:
        try:
            data = await self.stream.receive_some(MAX_RECV)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            break
        await self.protocol.handle(RawData(bytes(data)))
        if data == b"":
            break
    await self.protocol.handle(Closed())


_original_read_data = TCPServer._read_data


def install() -> None:
    """Replace hypercorn's read loop. Called once by `server.run_http`."""
    require_hypercorn("http.reads")
    # A patch of hypercorn's class (the version is pinned above): setattr, as it is no
    # assignment the type checker could verify.
    setattr(TCPServer, "_read_data", _read_data)
