"""CORS: which pages of other origins may read playsite's answers, and the preflights that let
their browsers send the requests at all.

- An origin on PLAY_CORS_ORIGINS (`OriginPolicy.allowed`) reads every answer *with*
  credentials: its own name comes back in `Access-Control-Allow-Origin`, with
  `Access-Control-Allow-Credentials: true`, and its preflights are answered in full.
- `*` on the list (`any_origin`) lets every other page read the answers *without*
  credentials: `Access-Control-Allow-Origin: *` and never `Allow-Credentials`, so a browser
  neither sends nor exposes a session for it. It opens no session write and no socket seat:
  those stay with the exact origins (`http.origin`).
- Any other origin gets no CORS header: its page cannot read the answer, and its preflight is
  answered 204 without permission, so its browser never sends the request.

Installed by the edge on every request (`http.edge`), answers of errors included.
"""

from __future__ import annotations

import attrs
from quart import Response, request

from playsite.http.origin import OriginPolicy

PREFLIGHT_MAX_AGE_S = 600
ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE"
ALLOWED_HEADERS = "Content-Type, X-Game-CSRF, If-Match, Idempotency-Key, X-Rematch-Seat-Token"
EXPOSED_HEADERS = "ETag, Retry-After, Location"


@attrs.frozen
class CorsPolicy:
    origins: OriginPolicy = OriginPolicy()
    any_origin: bool = False
    """`*` was listed: any page may read the answers, without credentials."""

    def _granted(self, origin: str | None) -> dict[str, str]:
        """The Allow-Origin (and credentials) headers this request's origin gets, if any."""
        if origin is not None and self.origins.admits(origin):
            return {"Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true"}
        if self.any_origin and origin is not None:
            return {"Access-Control-Allow-Origin": "*"}
        return {}

    # async: quart would run a plain function as a hook in a worker thread.
    async def preflight(self) -> Response | None:
        """The answer to a CORS preflight (OPTIONS with Access-Control-Request-Method), or
        None for any other request. An origin without permission gets 204 and no CORS header."""
        if request.method != "OPTIONS" or "Access-Control-Request-Method" not in request.headers:
            return None
        response = Response(b"", status=204)
        if self._granted(request.headers.get("Origin")):
            response.headers.update(
                {
                    "Access-Control-Allow-Methods": ALLOWED_METHODS,
                    "Access-Control-Allow-Headers": ALLOWED_HEADERS,
                    "Access-Control-Max-Age": str(PREFLIGHT_MAX_AGE_S),
                }
            )
        return response

    async def add_headers(self, response: Response) -> Response:
        """After every request. `Vary: Origin` keeps a cache from serving one origin's answer to
        another (the answer names the origin, or depends on whether there was one)."""
        if self.origins.configured or self.any_origin:
            response.vary.add("Origin")
        granted = self._granted(request.headers.get("Origin"))
        if granted:
            if "Access-Control-Allow-Credentials" not in granted:
                response.headers.pop("Access-Control-Allow-Credentials", None)
            response.headers.update(granted)
            response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        return response
