"""Several WebSocket text messages of one socket handed to hypercorn, and written, at once.

An ASGI `websocket.send` carries one message. Through hypercorn each one takes its own way to
the socket: wsproto's framing, the connection's send lock and a socket write, the last two
each a trip round trio's event loop, and a system call. A turn queues two events on every
socket of its game (`TurnPlayed`, then `DiceRolled`), so the frames of one socket usually
come in pairs; sending a pair as one write halves the trips, writes and calls per socket.

- `install()` teaches hypercorn's WebSocket stream one more message type, SEND_TEXTS
  (`{"type": SEND_TEXTS, "texts": [...]}`): each text becomes its own frame, exactly as if
  sent one by one, and the frames go out in one write. `server.run_http` installs it.
- `expose(app)` wraps the ASGI app so a WebSocket scope carries hypercorn's own `send` under
  SEND_KEY: a route under quart reaches it through `websocket.scope`. Where the key is
  missing (quart's test client) the route sends its texts one at a time.
"""

from __future__ import annotations

from hypercorn.protocol.events import Data
from typing import Final, Literal, TypedDict, cast

from hypercorn.protocol.ws_stream import ASGIWebsocketState, WSStream
from hypercorn.typing import ASGIFramework, ASGIReceiveCallable, ASGISendCallable, ASGISendEvent, Scope
from wsproto.events import TextMessage
from wsproto.utilities import LocalProtocolError

from playsite.http.pinned import require_hypercorn

SEND_TEXTS: Final = "playsite.websocket.send_texts"
SEND_KEY = "playsite.send"
"""Where a WebSocket scope carries the server's `send`, which takes SEND_TEXTS messages."""


class SendTexts(TypedDict):
    type: Literal["playsite.websocket.send_texts"]
    texts: list[str]


_hypercorn_app_send = WSStream.app_send


async def _app_send(stream: WSStream, message: ASGISendEvent | SendTexts | None) -> None:
    if message is None or message["type"] != SEND_TEXTS:
        return await _hypercorn_app_send(stream, message)
    if stream.closed or stream.state is not ASGIWebsocketState.CONNECTED:
        return  # as hypercorn does for a send after the close
    try:
        data = b"".join(stream.connection.send(TextMessage(data=text)) for text in message["texts"])
    except LocalProtocolError:
        return  # the connection is closing: as hypercorn does for one message
    await stream.send(Data(stream_id=stream.stream_id, data=data))


def install() -> None:
    require_hypercorn("http.wsbatch")
    # A patch of hypercorn's class (the version is pinned above): setattr, as it is no
    # assignment the type checker could verify.
    setattr(WSStream, "app_send", _app_send)


def expose(app: ASGIFramework) -> ASGIFramework:
    async def asgi(scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        if scope["type"] == "websocket":
            # An ASGI scope is an open dict; hypercorn's type lists only the standard keys.
            scope = cast(Scope, {**scope, SEND_KEY: send})
        return await app(scope, receive, send)

    return asgi
