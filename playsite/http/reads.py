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
- `Inbox`, `deliver(stream, message)`: a WebSocket route may take its messages in the
  connection's reading task itself, without being woken. While the route waits on an empty
  queue (`Inbox.waiting`, kept by http/wsreceive.py), a finished message goes to the route's
  `Inbox.handler`, called there and then; a handler that cannot finish the message at once
  (it would have to wait) declines it, and the message, with every one after it until the
  route waits again, goes through the queue as before, in order. The game socket hands a
  seat's turn to its room this way (games/socket_routes.py): one task woken less per turn.

Measured with tools/loadgen.py at 400 games x 5 sockets, eight alternating pairs
(docs/performance.md, what goal 2 kept): the serving process's CPU over its clients' 2.8% lower
at the median, and 2-4 MiB less resident.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

import trio
from hypercorn.events import Closed, RawData
from hypercorn.protocol.ws_stream import WSStream
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


INBOX_ATTRIBUTE: Final = "playsite_inbox"
"""Where a WebSocket stream of hypercorn's carries its route's `Inbox` (set by http/wsreceive.py)."""


class Inbox:
    """A WebSocket route's messages, handed to `handler` in the connection's reading task
    while the route waits with nothing queued (`waiting`); otherwise, or when the handler
    declines, to the route's queue."""

    __slots__ = ("handler", "waiting")

    def __init__(self) -> None:
        self.handler: Callable[[str | bytes], bool] | None = None
        """Takes a message at once and says True, or says False (and does nothing) when it
        would have to wait: the message then goes through the route's queue."""
        self.waiting = False
        """The route waits on its empty queue: nothing it has not handled is on its way."""

    def take(self, message: dict[str, Any]) -> bool:
        """Whether the handler took the message. Once one is declined, the route is no longer
        waiting: the queue keeps the order until the route has read it empty again."""
        handler = self.handler
        if not self.waiting or handler is None:
            return False
        if handler(payload(message)):
            return True
        self.waiting = False
        return False


def payload(message: dict[str, Any]) -> str | bytes:
    """A `websocket.receive` message's text or bytes."""
    data: str | bytes = message.get("bytes") or message["text"]
    return data


async def deliver(stream: WSStream, message: dict[str, Any]) -> None:
    """A finished message of `stream`, to its route's inbox or else its queue (`put`)."""
    inbox: Inbox | None = getattr(stream, INBOX_ATTRIBUTE, None)
    if inbox is not None and inbox.take(message):
        return
    assert stream.app_put is not None  # set by the accepted handshake, before any message
    await put(stream.app_put, message)


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
