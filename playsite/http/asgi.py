"""`finish_sends`: an ASGI wrapper that lets hypercorn finish what a response's last send starts.

Under quart-trio, the last `send` of an HTTP response runs hypercorn's end of the exchange
inline: for `Connection: close` it closes the socket, for a kept-alive connection it
restarts the keep-alive timer. The same send makes hypercorn report `http.disconnect` to
quart-trio, which then cancels the nursery the send runs in, so the close (or the timer)
was cancelled half-way: connections were never closed and the keep-alive timeout never
ran, pinning one descriptor per client. Shielding each HTTP send lets it complete; it
cannot block any longer than before, since hypercorn already shields its socket writes.
"""

from __future__ import annotations

import trio
from hypercorn.typing import ASGIFramework, ASGIReceiveCallable, ASGISendCallable, ASGISendEvent, Scope

from playsite.http.pinned import require_hypercorn


def finish_sends(app: ASGIFramework) -> ASGIFramework:
    require_hypercorn("http.asgi.finish_sends")

    async def asgi(scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)

        async def send_to_the_end(message: ASGISendEvent) -> None:
            with trio.CancelScope(shield=True):
                await send(message)

        return await app(scope, receive, send_to_the_end)

    return asgi
