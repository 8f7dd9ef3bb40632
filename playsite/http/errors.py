"""Refusals and the error shapes they are rendered in.

A route that will not do what it was asked raises `Refusal(status, code, message)`; the
app's one handler renders it. Each route family declares its error shape once, on its
blueprint (`RouteFamily(name, __name__, shape=...)`); the default is the Bot API shape
`{"error": {"code": ..., "message": ...}}`, which the game, lobby, archive and discovery
endpoints share. Never a traceback, never a 500 for a client's mistake.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

import attrs
import trio
from quart import Blueprint, Response, current_app, has_request_context, request, websocket
from quart.wrappers.base import BaseRequestWebsocket

from playsite.refusals import READ_TIMEOUT_S, Refused
from playsite.wire.text import compact_json

log = logging.getLogger("playsite.http")

RETRY_AFTER_S = 5
"""Retry-After of a 503 `temporarily_unavailable`: the store is expected back soon."""
CLOSE = {"Connection": "close"}
T = TypeVar("T")


class Refusal(Exception):
    """A request the service will not carry out, with the HTTP status and machine code to answer."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None,
        state: Mapping[str, object] | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})
        self.state = state
        """What the caller may see of the current state; only error shapes that carry a state show it."""


def temporarily_unavailable(message: str = "the store is unavailable; try again") -> Refusal:
    """503: a write or read could not reach the store; nothing changed."""
    return Refusal(503, "temporarily_unavailable", message, {"Retry-After": str(RETRY_AFTER_S)})


async def read_or_unavailable(read: Callable[[], Awaitable[T]], message: str) -> T:
    """`await read()`, or 503 `temporarily_unavailable` when it takes longer than
    READ_TIMEOUT_S: a store that does not answer is unavailable, not broken."""
    with trio.move_on_after(READ_TIMEOUT_S):
        return await read()
    raise temporarily_unavailable(message)


def too_large(limit: int) -> Refusal:
    """413, closing the connection: the unread rest of the body must not be taken for the next request."""
    return Refusal(413, "request_too_large", f"body is over {limit} bytes", CLOSE)


def rate_limited(what: str, retry_after_s: int) -> Refusal:
    return Refusal(429, "rate_limited", f"too many {what}; retry later", {"Retry-After": str(retry_after_s)})


def invalid_request(message: str) -> Refusal:
    return Refusal(400, "invalid_request", message)


@attrs.frozen
class ErrorShape:
    """How a route family writes an error body."""

    content_type: str
    body: Callable[[Refusal], dict[str, object]]


BOT_API_SHAPE = ErrorShape("application/json", lambda r: {"error": {"code": r.code, "message": r.message}})
"""`{"error": {"code", "message"}}`: a stable code for programs, a sentence for people."""

PROBLEM_SHAPE = ErrorShape(
    "application/problem+json",
    lambda r: {"type": "about:blank", "title": r.message, "status": r.status, "code": r.code},
)
"""RFC 7807 problem details with a string `code`: the browser-facing families (accounts,
the showcase) answer in it."""


EDGE_STATUSES: Mapping[str, int] = {"temporarily_unavailable": 503}
"""Domain codes every route family answers alike, unless its own table says otherwise."""


class RouteFamily(Blueprint):
    """A blueprint that knows the error shape of its family's refusals, and the HTTP status of
    each code its domain refuses with (`playsite.refusals.Refused`)."""

    def __init__(
        self, name: str, import_name: str, *, shape: ErrorShape = BOT_API_SHAPE,
        statuses: Mapping[str, int] | None = None, headers: Mapping[str, str] | None = None,
        retry_after: Mapping[str, int] | None = None, edge_codes: Mapping[str, str] | None = None,
    ):
        super().__init__(name, import_name)
        self.error_shape = shape
        self.statuses = dict(statuses or {})
        """Domain code -> HTTP status; a code missing here is a programming error (500, logged)."""
        self.refusal_headers = dict(headers or {})
        """Headers every domain refusal of this family carries (e.g. `Cache-Control: no-store`)."""
        self.retry_after = dict(retry_after or {})
        """Domain code -> the seconds its `Retry-After` header says (a 503 says RETRY_AFTER_S)."""
        self.edge_codes = dict(edge_codes or {})
        """The edge's own code -> the family's code for it, where the family's contract has no
        such code (the rematch contract answers an oversized body 400 `invalid_request`, not 413);
        the status then follows `statuses`."""

    def edge_refusal(self, refusal: Refusal) -> Refusal:
        """A refusal raised for this family's request (by the edge or a route) as the family
        answers it: its code translated where the family has none such, and the headers every
        answer of the family carries added."""
        code = self.edge_codes.get(refusal.code, refusal.code)
        status = self.statuses.get(code, refusal.status) if code != refusal.code else refusal.status
        headers = {**self.refusal_headers, **refusal.headers}
        return Refusal(status, code, refusal.message, headers, refusal.state)

    def refusal(self, refused: Refused) -> Refusal:
        """The HTTP refusal this family answers for a domain's `refused`. Every family answers
        `temporarily_unavailable` (a store that did not answer) 503 with Retry-After."""
        status = self.statuses.get(refused.code, EDGE_STATUSES.get(refused.code))
        if status is None:
            log.error("route family %s has no status for the domain code %r", self.name, refused.code)
            return Refusal(500, "internal_error", "the server failed on this request; it has been logged")
        headers = dict(self.refusal_headers)
        retry_after = self.retry_after.get(refused.code, RETRY_AFTER_S if status == 503 else None)
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
        return Refusal(status, refused.code, refused.message, headers, refused.state)


def _current_family() -> RouteFamily | None:
    context = request if has_request_context() else websocket
    name = context.blueprint or _blueprint_of_path(context)
    family = current_app.blueprints.get(name or "")
    return family if isinstance(family, RouteFamily) else None


def _blueprint_of_path(context: BaseRequestWebsocket) -> str | None:
    """The blueprint whose route has this path, when the request's method is not one it takes
    (no route was chosen, so quart names no blueprint): a 405 answers in that family's words."""
    error = getattr(context, "routing_exception", None)
    methods = sorted(getattr(error, "valid_methods", None) or ())
    adapter = current_app.create_url_adapter(context) if methods else None
    if adapter is None:
        return None
    try:
        rule, _ = adapter.match(context.path, method=methods[0], return_rule=True)
    except Exception:  # werkzeug's routing exceptions: no route after all
        return None
    endpoint = rule.endpoint
    return endpoint.rsplit(".", 1)[0] if "." in endpoint else None


def refusal_of_domain(refused: Refused) -> Refusal:
    """A domain refusal that escaped a route, as the HTTP refusal of the route's family."""
    family = _current_family()
    if family is not None:
        return family.refusal(refused)
    log.error("a domain refusal %r escaped a route outside any route family", refused.code)
    return Refusal(500, "internal_error", "the server failed on this request; it has been logged")


def render(refusal: Refusal) -> Response:
    """The refusal in the error shape of the route family that raised it (or whose path it
    is, for a method the path does not take), with the family's headers."""
    family = _current_family()
    shape = BOT_API_SHAPE
    if family is not None:
        refusal = family.edge_refusal(refusal)
        shape = family.error_shape
    text = compact_json(shape.body(refusal))
    return Response(text, status=refusal.status, content_type=shape.content_type, headers=refusal.headers)
