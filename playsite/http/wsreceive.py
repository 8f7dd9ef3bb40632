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

The class leans on quart-trio's private parts (`_create_websocket_from_scope`, and the
`handle_websocket` its own `__call__` awaits, the `_receive` of quart's Websocket): quart-trio's minor
version is pinned (http/pinned.py) and checked when the app is made.
"""

from __future__ import annotations

from typing import Any

import trio
from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable
from quart.signals import websocket_received
from quart_trio.asgi import TrioASGIWebsocketConnection

from playsite.http.pinned import require_quart_trio


class DirectReceive(TrioASGIWebsocketConnection):
    """quart-trio's WebSocket connection, with the route reading hypercorn's events itself."""

    async def __call__(self, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        websocket = self._create_websocket_from_scope(send)
        async with trio.open_nursery() as nursery:
            cancel = nursery.cancel_scope

            async def next_message() -> str | bytes:
                while True:
                    event: Any = await receive()
                    if event["type"] == "websocket.receive":
                        message: str | bytes = event.get("bytes") or event["text"]
                        await websocket_received.send_async(message, _sync_wrapper=self.app.ensure_async)  # type: ignore[arg-type]
                        return message
                    if event["type"] == "websocket.disconnect":
                        cancel.cancel()  # the client left: the route ends, as under quart-trio's relay
                        await trio.lowlevel.checkpoint()  # raises Cancelled

            websocket._receive = next_message  # quart's Websocket keeps its receive callable here
            await self.handle_websocket(nursery, websocket, send)  # cancels the nursery when done


def use_direct_receive(app: Any) -> None:
    """Serve `app`'s WebSockets with `DirectReceive`. Called once by `create_app`."""
    require_quart_trio("http.wsreceive")
    app.asgi_websocket_class = DirectReceive
