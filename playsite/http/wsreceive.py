"""A WebSocket route that reads its client's messages itself, without quart-trio's relay task.

quart-trio serves a WebSocket with two tasks: the route, and a relay (`handle_messages`) that
takes each event from hypercorn and hands the message on, through a memory channel, to the
route's `websocket.receive()`. Each text a seat sends (one a turn) thus woke two tasks, each
leaving its parked coroutine behind for the young collections (playsite/gcwatch.py), and every
connection started the relay as a task of its own.

`DirectReceive`, the app's WebSocket connection class, has the route's `receive` read
hypercorn's events itself. The relay did one more thing: on the client's disconnect it
cancelled the connection, wherever the route was waiting. Here the disconnect is seen by the
route's next receive, which then cancels the connection the same way. playsite's one
WebSocket route (games/socket_routes.py) keeps a reader waiting from the moment its socket is
attached to the room, so from then on a disconnect is seen at once, as before; one during the
handshake's own waits (the seat's redemption, the attach: REDEEM_WAIT_S at most) is seen when
that reader starts, and ends the route the same way. Until the route reads, hypercorn holds
what arrives in its own queue (`max_app_queue_size`), as the relay's channel did.

Under hypercorn the route may also take its messages without being woken at all: the
connection gets an `Inbox` (http/reads.py), found in the route's scope under INBOX_KEY, and
while the route waits here with nothing queued, a message goes to the inbox's handler in the
connection's reading task. Such a message does not pass quart's `websocket_received` signal
(playsite connects nothing to it). Where there is no hypercorn stream (quart's test client),
there is no inbox and every message comes through `receive`.

The class leans on quart-trio's private parts (`_create_websocket_from_scope`, and the
`handle_websocket` its own `__call__` awaits, the `_receive` of quart's Websocket): quart-trio's minor
version is pinned (http/pinned.py) and checked when the app is made.
"""

from __future__ import annotations

from typing import Any, Final

import trio
from hypercorn.protocol.ws_stream import WSStream
from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable
from quart.signals import websocket_received
from quart_trio.asgi import TrioASGIWebsocketConnection

from playsite.http.pinned import require_quart_trio
from playsite.http.reads import INBOX_ATTRIBUTE, Inbox, payload

INBOX_KEY: Final = "playsite.inbox"
"""Where a WebSocket scope carries its connection's `Inbox` under hypercorn."""


class DirectReceive(TrioASGIWebsocketConnection):
    """quart-trio's WebSocket connection, with the route reading hypercorn's events itself."""

    async def __call__(self, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        stream = getattr(send, "__self__", None)  # hypercorn's send is its stream's bound app_send
        inbox = None
        if isinstance(stream, WSStream):
            inbox = Inbox()
            setattr(stream, INBOX_ATTRIBUTE, inbox)  # read by reads.deliver, in the reading task
            self.scope[INBOX_KEY] = inbox  # type: ignore[typeddict-unknown-key]  # an ASGI scope is an open dict
        queue = getattr(receive, "__self__", None)  # hypercorn's queue of the route's messages
        websocket = self._create_websocket_from_scope(send)
        async with trio.open_nursery() as nursery:
            cancel = nursery.cancel_scope

            async def next_event() -> Any:
                if inbox is None or not isinstance(queue, trio.MemoryReceiveChannel):
                    return await receive()
                await trio.lowlevel.checkpoint_if_cancelled()
                try:
                    return queue.receive_nowait()
                except trio.WouldBlock:
                    pass
                inbox.waiting = True  # the queue is empty: the inbox's handler may take what comes
                try:
                    return await receive()
                finally:
                    inbox.waiting = False

            async def next_message() -> str | bytes:
                while True:
                    event = await next_event()
                    if event["type"] == "websocket.receive":
                        message = payload(event)
                        await websocket_received.send_async(message, _sync_wrapper=self.app.ensure_async)  # type: ignore[arg-type]
                        return message
                    if event["type"] == "websocket.disconnect":
                        cancel.cancel()  # the client left: the route ends, as under quart-trio's relay
                        await trio.lowlevel.checkpoint()  # raises Cancelled

            websocket._receive = next_message  # quart's Websocket keeps its receive callable here
            try:
                await self.handle_websocket(nursery, websocket, send)  # cancels the nursery when done
            finally:
                if inbox is not None:
                    inbox.handler = None  # nothing is taken for a route that has ended


def use_direct_receive(app: Any) -> None:
    """Serve `app`'s WebSockets with `DirectReceive`. Called once by `create_app`."""
    require_quart_trio("http.wsreceive")
    app.asgi_websocket_class = DirectReceive
