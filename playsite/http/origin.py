"""The browser's security boundary for cookie-authenticated writes.

A write authenticated by a session cookie must come from a page of an allowed origin:
its `Origin` header exactly equal to an entry of `PLAY_CORS_ORIGINS`, and the header
`X-Game-CSRF: 1` (a header a cross-site form cannot send). With no allow-list configured,
every such write is refused. Bearer-token (bot) and guest requests carry no ambient
credential and are not subject to this policy.
"""

from __future__ import annotations

import attrs
from quart import request

from playsite.http.errors import Refusal

CSRF_HEADER = "X-Game-CSRF"


@attrs.frozen
class OriginPolicy:
    allowed: frozenset[str] = frozenset()
    """Exact origins (scheme://host[:port]) whose pages may make session writes."""

    @property
    def configured(self) -> bool:
        return bool(self.allowed)

    def admits_write(self, origin: str | None, csrf: str | None) -> bool:
        return origin is not None and origin in self.allowed and csrf == "1"

    def require_write(self, refusal: Refusal) -> None:
        """Raise `refusal` (the route family's own 403) unless this request passes the policy."""
        if not self.admits_write(request.headers.get("Origin"), request.headers.get(CSRF_HEADER)):
            raise refusal
