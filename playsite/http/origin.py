"""The browser's security boundary: every rule about cookies crossing origins, in one place.

A session cookie is ambient: the browser attaches it to requests that other sites' pages
make. So whatever a session cookie authorises must come from a page of an allowed origin:

- **Writes** (`require_write`): the `Origin` header exactly equal to an entry of
  `PLAY_CORS_ORIGINS`, the header `X-Game-CSRF: 1` (a cross-site form cannot send a custom
  header, and a cross-site `fetch` that sends one needs our CORS preflight), and a JSON
  body when there is a body. With no allow-list configured, every such write is refused.
- **Cross-origin reads** (`http.cors`, installed by the edge): CORS answers with
  credentials go only to allowed origins; others get no CORS header at all (or, when the
  operator lists `*`, a credential-less `*`), so the browser withholds the response, or any
  session, from their page.
- **WebSocket handshakes** (`admits_socket`): browsers do not apply CORS to WebSockets, so
  a handshake whose sitter is identified by the session cookie must carry an allowed Origin.
- **Whose session counts** (`admits_session`, the `SessionBoundary` that `Accounts` is given):
  a request's session cookie counts on a read, on a handshake from an allowed page, and on a
  write that passes the write checks; otherwise the caller is whoever the guest id says.

Bearer-token (bot) requests and guest requests carry no ambient credential and are not
subject to this policy.
"""

from __future__ import annotations

import attrs
from quart import request

from playsite.credentials import CSRF_HEADER as CSRF_HEADER
from playsite.credentials import Credentials
from playsite.http.bodies import BodyRefusal, edge_body_refusal, request_body


@attrs.frozen
class OriginPolicy:
    allowed: frozenset[str] = frozenset()
    """Exact origins (scheme://host[:port]) whose pages may make session writes."""

    @property
    def configured(self) -> bool:
        return bool(self.allowed)

    def admits(self, origin: str | None) -> bool:
        return origin is not None and origin in self.allowed

    def admits_write(self, origin: str | None, csrf: str | None) -> bool:
        return self.admits(origin) and csrf == "1"

    async def require_write(self, refusal: Exception, body_refusal: BodyRefusal | None = None) -> None:
        """Raise `refusal` (the route family's own 403) unless this request passes the
        Origin and CSRF checks; 415 `unsupported_media_type` (or the family's
        `body_refusal(415, message)`) when it has a body that is not JSON (the body was read
        before the route ran, so this costs nothing)."""
        if not self.admits_write(request.headers.get("Origin"), request.headers.get(CSRF_HEADER)):
            raise refusal
        if (await request_body()).strip() and request.mimetype != "application/json":
            raise (body_refusal or edge_body_refusal)(415, "send the body as application/json")

    def require_json_write(self, refusal: Exception) -> None:
        """Raise `refusal` unless this request comes from an allowed `Origin` as
        `application/json`, with or without `X-Game-CSRF`. For a session write from a client
        that never sends the header (the ecosystem's site claiming a guest id): a cross-origin
        request with a JSON body needs the CORS preflight, which only allowed origins get, and
        a form cannot send JSON, so the two prove what the header proves elsewhere."""
        if not self.admits(request.headers.get("Origin")) or request.mimetype != "application/json":
            raise refusal

    def admits_socket(self, origin: str | None) -> bool:
        """A handshake identified by its session cookie must come from an allowed page."""
        return self.admits(origin)

    def admits_session(self, credentials: Credentials) -> bool:
        """Whether the session cookie of a request that came as `credentials` may count."""
        if credentials.handshake:
            return self.admits_socket(credentials.origin)
        if credentials.is_read:
            return True
        return self.admits_write(credentials.origin, credentials.csrf)
