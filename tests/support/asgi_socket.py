"""One WebSocket to a bare ASGI app served by playsite's own hypercorn set-up (`run_http`):
what the transport-level tests write through and read back."""

from __future__ import annotations

import trio
import trio_websocket

from playsite.config import Settings
from playsite.server import run_http


async def answer_lifespan(receive, send) -> None:
    """An ASGI app's part in the server's start-up and shut-down."""
    while (await receive())["type"] != "lifespan.shutdown":
        await send({"type": "lifespan.startup.complete"})
    await send({"type": "lifespan.shutdown.complete"})


def accepting(on_socket):
    """An ASGI app that starts up, accepts each WebSocket and hands it to `on_socket(scope, send)`."""

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            await answer_lifespan(receive, send)
            return
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        await on_socket(scope, send)

    return app


async def read_all(app, finished: trio.Event | None = None, *, reading_after_s: float = 0.0) -> tuple[list, int]:
    """Serve `app`, open one socket to it, and read every message until the close (waiting
    `reading_after_s` before reading); the messages and the close code."""
    settings = Settings.from_environ({"PLAY_HOST": "127.0.0.1", "PLAY_PORT": "0"})
    received = []
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(run_http, app, settings, trio.Event())
        url = binds[0].replace("http://", "ws://") + "/anything"
        with trio.fail_after(20):
            async with trio_websocket.open_websocket_url(url, max_message_size=1 << 20) as ws:
                await trio.sleep(reading_after_s)
                try:
                    while True:
                        received.append(await ws.get_message())
                except trio_websocket.ConnectionClosed as closed:
                    code = closed.reason.code
            if finished is not None:
                await finished.wait()
        nursery.cancel_scope.cancel()
    return received, code
