"""One address for people: a browser that opens the demo under another loopback name than its
public origin (`http://localhost:8080/` for `http://127.0.0.1:8080`) is sent to the public
origin. Sign-in needs it: the sign-in cookie is set on the host the browser used, and the
provider returns the browser to the public origin, where a cookie set for `localhost` is not
sent. Only page navigations are redirected (`Sec-Fetch-Mode: navigate`, which browsers send
and API clients do not): `curl localhost:8080/health` answers as before."""

from __future__ import annotations

from urllib.parse import urlsplit

from hypercorn.typing import (
    ASGIFramework,
    ASGIReceiveCallable,
    ASGISendCallable,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    Scope,
)

from playsite.demo.settings import is_loopback


def one_address(app: ASGIFramework, public_origin: str) -> ASGIFramework:
    """`app` (ASGI), with browser navigations to another loopback name sent to `public_origin`."""
    public = urlsplit(public_origin)
    if not is_loopback(public.hostname or ""):
        return app

    async def asgi(scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            headers = dict(scope["headers"])
            host = headers.get(b"host", b"").decode("latin-1")
            navigating = headers.get(b"sec-fetch-mode") == b"navigate"
            name = urlsplit(f"//{host}").hostname or ""
            if navigating and host != public.netloc and is_loopback(name):
                query = scope.get("query_string", b"").decode("latin-1")
                location = public_origin + scope.get("raw_path", scope["path"].encode()).decode("latin-1")
                location += f"?{query}" if query else ""
                start: HTTPResponseStartEvent = {
                    "type": "http.response.start", "status": 308,
                    "headers": [(b"location", location.encode("latin-1")), (b"cache-control", b"no-store"),
                                (b"content-length", b"0")],
                }
                body: HTTPResponseBodyEvent = {"type": "http.response.body", "body": b"", "more_body": False}
                await send(start)
                await send(body)
                return
        await app(scope, receive, send)

    return asgi
