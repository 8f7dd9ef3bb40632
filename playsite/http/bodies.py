"""Request bodies: read and size-checked once, before any route runs; parsed by the route.

Every body is read in full before the route answers (`read_body_first`, installed by the
app): under quart-trio on hypercorn a response sent over an unread body is now and then cut
short, or leaves a kept-alive connection stalled on the leftover bytes. The limit is the
route's own (`@body_limit(n)`), `BODY_MAX_DEFAULT` otherwise; a body over it is answered
413 and closes the connection without being read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from typing import TypeVar

from quart import current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from playsite.http.errors import Refusal, invalid_request, too_large

BODY_MAX_DEFAULT = 4096
"""Every request body the service takes today is a handful of short fields or one command."""
BODY_MAX_ANY = 64 * 1024
"""The app-wide bound (quart's MAX_CONTENT_LENGTH) on a body sent without Content-Length."""
_LIMIT_ATTRIBUTE = "playsite_body_limit"
Route = TypeVar("Route", bound=Callable[..., object])
BodyRefusal = Callable[[int, str], Exception]
"""A route family's own refusal of a body it cannot take: (status, message) -> what to raise."""


def edge_body_refusal(status: int, message: str) -> Refusal:
    """The edge's refusal of a body: 415 `unsupported_media_type`, else 400 `invalid_request`."""
    if status == 415:
        return Refusal(415, "unsupported_media_type", message)
    return invalid_request(message)


def body_limit(limit: int) -> Callable[[Route], Route]:
    """Route decorator: this route takes bodies of up to `limit` bytes."""

    def mark(route: Route) -> Route:
        setattr(route, _LIMIT_ATTRIBUTE, limit)
        return route

    return mark


def limit_of_current_route() -> int:
    route = current_app.view_functions.get(request.endpoint or "")
    limit = getattr(route, _LIMIT_ATTRIBUTE, BODY_MAX_DEFAULT)
    return limit if isinstance(limit, int) else BODY_MAX_DEFAULT


async def read_body_first() -> None:
    """The app's `before_request` hook: read the body once, refusing one over the route's limit."""
    if request.method in ("GET", "HEAD", "OPTIONS") and not request.content_length:
        return
    limit = limit_of_current_route()
    if request.content_length is not None and request.content_length > limit:
        raise too_large(limit)
    try:
        # A body without Content-Length stops being read at the app's BODY_MAX_ANY.
        data = await request.get_data()
    except RequestEntityTooLarge:
        raise too_large(limit) from None
    if len(data) > limit:
        raise too_large(limit)


async def request_body() -> bytes:
    """The body `read_body_first` read, as bytes."""
    return await request.get_data(cache=True, as_text=False, parse_form_data=False)


async def json_object(refusal: BodyRefusal | None = None) -> dict[str, object]:
    """The request's (already read) body as a JSON object; {} when empty. Refused 415
    `unsupported_media_type` for another media type, 400 `invalid_request` for anything else
    than one JSON object, or with the route family's own `refusal(status, message)`."""
    refuse = refusal or edge_body_refusal
    raw = await request_body()
    if not raw.strip():
        return {}
    if request.mimetype != "application/json":
        raise refuse(415, "send the body as application/json")
    try:
        body = parse_json(raw)
    except (ValueError, UnicodeDecodeError):
        raise refuse(400, "body is not valid JSON (UTF-8 without a BOM, each key once)") from None
    except RecursionError:
        raise refuse(400, "body is nested too deeply") from None
    if not isinstance(body, dict):
        raise refuse(400, "body must be a JSON object")
    return body


def parse_json(raw: bytes) -> object:
    """A JSON text as RFC 8259 exchanges it, and nothing looser: UTF-8 without a byte order
    mark (Python's parser also takes UTF-16 and UTF-32, and a BOM), each object key once
    (Python's keeps the last of duplicates, where another parser may keep the first: two
    readers of one body could disagree), no NaN or Infinity. Raises ValueError (or
    UnicodeDecodeError, RecursionError)."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raise ValueError("a byte order mark")
    return json.loads(raw.decode("utf-8"), parse_constant=_not_json, object_pairs_hook=_unique_keys)


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    body = dict(pairs)
    if len(body) != len(pairs):
        raise ValueError("a key appears twice in one object")
    return body


def _not_json(constant: str) -> float:
    """NaN and Infinity are not JSON (RFC 8259), though Python's parser takes them."""
    raise ValueError(f"{constant} is not a JSON value")


def reject_unknown_fields(body: Mapping[str, object], known: Collection[str], refusal: BodyRefusal | None = None) -> None:
    """400 `invalid_request` (or the family's `refusal(400, message)`) naming the fields of
    `body` that are not `known`."""
    if unknown := set(body) - set(known):
        raise (refusal or edge_body_refusal)(400, f"unknown field(s): {', '.join(sorted(unknown))}")
