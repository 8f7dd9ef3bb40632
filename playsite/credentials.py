"""What a request presents about who is calling, as a value the domains can read.

The edge builds one per request or WebSocket handshake (`playsite.http.auth.credentials()`)
and a route hands it to `Accounts.caller` / `Accounts.signed_in`: the accounts domain never
reads the web framework, so it answers the same outside a request (a test, a job). A session
cookie is ambient (the browser attaches it to other sites' requests too), so whether it counts
depends on how the request came: its method, its `Origin`, its `X-Game-CSRF` header, and
whether it is a WebSocket handshake. Which of these admit a session is the browser boundary's
rule (`SessionBoundary`, `playsite.http.origin.OriginPolicy`). Imports nothing from playsite.
"""

from __future__ import annotations

from typing import Protocol

import attrs

SESSION_COOKIE = "access_token"
"""The cookie that carries a person's session (accounts/sessions.py issues it)."""
CSRF_HEADER = "X-Game-CSRF"
"""The header a page of an allowed origin sends with a session write (a cross-site form cannot)."""


@attrs.frozen
class Credentials:
    method: str
    """The HTTP method; a WebSocket handshake is a GET."""
    origin: str | None
    """The `Origin` header, as sent."""
    csrf: str | None = None
    """The `X-Game-CSRF` header, as sent."""
    handshake: bool = False
    """A WebSocket handshake (browsers apply no CORS to it) rather than an HTTP request."""
    session: str | None = attrs.field(default=None, repr=False)
    """The session cookie's token, unchecked."""

    @property
    def is_read(self) -> bool:
        return self.method in ("GET", "HEAD", "OPTIONS") and not self.handshake


NO_CREDENTIALS = Credentials(method="GET", origin=None)
"""A caller that presents nothing: no session, whoever asks (a job, a test)."""


class SessionBoundary(Protocol):
    """Whether a request's session cookie may count, given how the request came."""

    def admits_session(self, credentials: Credentials) -> bool: ...
