"""Edges shared by the Bot API identity and lobby routes: bearer guard, rate-limit answers,
body reading, and the one mapping from domain refusals to HTTP statuses.

Every failure here is the Bot API error body `{"error": {"code", "message"}}`.
"""

from __future__ import annotations

import functools

from quart import request

from playsite.bots.auth import authenticate, registered_only
from playsite.bots.ratelimit import RateLimiter
from playsite.games.errors import error_response
from playsite.games.routes import read_json_body
from playsite.lobby.refusals import LobbyRefusal

BODY_MAX = 4096
"""Every identity and lobby body is a handful of short fields."""

REFUSAL_STATUS = {
    "invalid_request": 400,
    "invalid_guest_id": 400,
    "self_challenge": 400,
    "own_seek": 400,
    "registered_only": 403,
    "not_yours": 403,
    "secret_required": 403,
    "bot_not_found": 404,
    "challenge_not_found": 404,
    "seek_not_found": 404,
    "not_in_catalog": 404,
    "identity_taken": 409,
    "capacity": 409,
    "seek_taken": 409,
    "challenge_busy": 409,
    "guest_busy": 409,
    "too_many_challenges": 429,
    "too_many_seeks": 429,
    "temporarily_unavailable": 503,
}


def refusal_response(refusal: LobbyRefusal):
    status = REFUSAL_STATUS[refusal.code]
    headers = {"Retry-After": "5"} if status == 503 else None
    return error_response(status, refusal.code, str(refusal), headers)


def too_large():
    """413, closing the connection: the unread body must not be taken for the next request."""
    return error_response(413, "request_too_large", f"body is over {BODY_MAX} bytes", {"Connection": "close"})


async def drain_small_body():
    """Read the request body before answering, even when the route ignores it; None, or the
    413 response for a body over the limit (which is never read).

    Under quart-trio on hypercorn, a response sent while the request body is still unread
    is now and then cut short, or leaves the kept-alive connection unusable, and the client
    waits forever. Reading the body first closes that race."""
    length = request.content_length
    if length is not None and length > BODY_MAX:
        return too_large()
    if length:
        await request.get_data()
    return None


def answers_refusals(handler):
    """Route decorator: a LobbyRefusal raised by the handler becomes its error response."""

    @functools.wraps(handler)
    async def route(*args, **kwargs):
        if (refused := await drain_small_body()) is not None:
            return refused
        try:
            return await handler(*args, **kwargs)
        except LobbyRefusal as refusal:
            return refusal_response(refusal)

    return route


def with_bot(directory, *, registered: bool = False):
    """Route decorator: the handler receives the authenticated BotAccount first (401 otherwise;
    403 `registered_only` for anonymous bots when `registered`) and may raise LobbyRefusal."""

    def wrap(handler):
        handler = answers_refusals(handler)

        @functools.wraps(handler)
        async def route(*args, **kwargs):
            if (refused := await drain_small_body()) is not None:
                return refused
            account = authenticate(directory)
            if isinstance(account, tuple):
                return account
            if registered and (refused := registered_only(account)) is not None:
                return refused
            return await handler(account, *args, **kwargs)

        return route

    return wrap


def client_address() -> str:
    """The peer address of the connection. Forwarding headers are not trusted: the service
    is reached directly (one serving process), and a header is whatever the client says."""
    return request.remote_addr or "unknown"


def rate_limited(limiter: RateLimiter, what: str, *, count: bool = True):
    """None when this client may go ahead, else the 429 response (with Retry-After) to return.

    With `count=False` the request is only checked; the route counts it (`limiter.count`)
    once it succeeded."""
    address = client_address()
    retry_after = limiter.attempt(address) if count else limiter.retry_after(address)
    if retry_after is None:
        return None
    return error_response(
        429, "rate_limited", f"too many {what} from this address; retry later", {"Retry-After": str(retry_after)}
    )


async def json_object():
    """The request body as a JSON object ({} when empty) or an error response tuple."""
    return await read_json_body(BODY_MAX)


def temporarily_unavailable():
    return refusal_response(LobbyRefusal("temporarily_unavailable", "the change could not be stored; try again"))
