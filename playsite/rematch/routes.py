"""HTTP routes of rematch and continuation (contract v1). Thin: limit, authorise, hand over, encode.

    GET  /games/{id}/rematch        the caller's private state (a final source participant)
    POST /games/{id}/rematch        {requestId, action}: one command, answered with the state
    GET  /games/{id}/continuation   the public projection

Who the caller is (authentication rules 1-8): the signed-in account whose principal holds a
final source seat, else the `X-Rematch-Seat-Token` header matching the capability of a seat
a guest held, accepted only over HTTPS (`http.auth.over_https`: TLS to this server, a
loopback peer, or a PLAY_TRUSTED_PROXIES proxy saying `X-Forwarded-Proto: https`). A guest's
token never opens an account's seat; a guest id or a nickname alone
opens nothing. On POST the Origin and `X-Game-CSRF: 1` checks come first and fail as 403
`not_participant`, before any seat is looked up. Every answer, errors included, is
`Cache-Control: no-store`; errors are `{error: {code}, state?}` with the caller's state only
once the caller is authorised.
"""

from __future__ import annotations

import uuid

from quart import request

from playsite.http.auth import client_address, credentials, over_https
from playsite.http.bodies import body_limit, parse_json
from playsite.http.errors import ErrorShape, Refusal, RouteFamily
from playsite.http.origin import CSRF_HEADER
from playsite.http.ratelimit import RateLimiter
from playsite.http.responses import json_response
from playsite.principals import canonical_uuid
from playsite.rematch.opportunity import ACTIONS
from playsite.rematch.service import Rematches, RematchRefused, SourceNotFound, Unavailable
from playsite.rematch.source import Source
from playsite.services import Services
from playsite.tokens import matches
from playsite.wire import SEATS, Seat

BODY_MAX = 1024
"""service.md Limits: the rematch request body is at most 1 KiB."""
READS_PER_MINUTE = 120
MUTATIONS_PER_MINUTE = 30
RATE_RETRY_AFTER_S = 60
SEAT_TOKEN_HEADER = "X-Rematch-Seat-Token"
NO_STORE = {"Cache-Control": "no-store"}


class StateRefusal(Refusal):
    """A rematch refusal; `state` is the caller's private state, attached once authorised."""

    def __init__(self, status: int, code: str, state: dict | None = None, headers: dict[str, str] | None = None):
        super().__init__(status, code, code.replace("_", " "), {**NO_STORE, **(headers or {})})
        self.state = state


def _error_body(refusal: Refusal) -> dict:
    body: dict = {"error": {"code": refusal.code}}
    state = getattr(refusal, "state", None)
    if state is not None:
        body["state"] = state
    return body


REMATCH_SHAPE = ErrorShape("application/json", _error_body)
"""service.md "Rematch error body": `{error: {code}, state?}`."""


def rematch_routes(services: Services) -> RouteFamily:
    routes = RouteFamily("rematch", __name__, shape=REMATCH_SHAPE)
    rematches: Rematches | None = services.rematches
    reads = RateLimiter(READS_PER_MINUTE, 60)
    mutations = RateLimiter(MUTATIONS_PER_MINUTE, 60)

    @routes.after_request
    async def never_cached(response):
        response.headers["Cache-Control"] = "no-store"
        return response

    def service() -> Rematches:
        if rematches is None:
            raise StateRefusal(503, "temporarily_unavailable")  # in-memory: rematch needs PostgreSQL
        return rematches

    def limit(limiter: RateLimiter, key: str) -> None:
        if limiter.attempt(key) is not None:
            raise StateRefusal(429, "rate_limited", headers={"Retry-After": str(RATE_RETRY_AFTER_S)})

    async def source_named(raw: str) -> Source:
        game_id = canonical_uuid(raw)
        if game_id is None:
            raise StateRefusal(404, "game_not_found")
        try:
            return await service().source(game_id)
        except SourceNotFound:
            raise StateRefusal(404, "game_not_found") from None
        except Unavailable:
            raise unavailable() from None

    async def participant(source: Source) -> Seat:
        """The source seat the caller holds (rules 1-3), else 401/403 with no state."""
        account = await services.accounts.signed_in(credentials()) if services.accounts.enabled else None
        if account is not None:
            seat = source.seat_of(account.principal)
            if seat is not None:
                return seat
        token = request.headers.get(SEAT_TOKEN_HEADER)
        if token and not over_https(services.settings.trusted_proxies):
            # A bearer credential that crossed a network in clear text is not used (and a
            # client that sends it so learns to stop): the same answer as no credential.
            token = None
        if token:
            for seat in SEATS:
                held = source.seats[seat]
                if held.guest and matches(token, held.token_hash):
                    return seat
        if account is None and not token:
            raise StateRefusal(401, "authentication_required")
        raise StateRefusal(403, "not_participant")

    async def answer(call):
        try:
            return json_response(await call(), 200, NO_STORE)
        except RematchRefused as refused:
            raise StateRefusal(refused.status, refused.code, refused.state) from None
        except Unavailable:
            raise unavailable() from None

    @routes.get("/games/<game_id>/rematch")
    async def read_rematch(game_id: str):
        rematches = service()
        limit(reads, f"address:{client_address()}")
        source = await source_named(game_id)
        seat = await participant(source)
        limit(reads, f"participant:{source.seats[seat].principal}")
        return await answer(lambda: rematches.read(source, seat))

    @routes.post("/games/<game_id>/rematch")
    @body_limit(BODY_MAX)
    async def command_rematch(game_id: str):
        rematches = service()
        limit(mutations, f"address:{client_address()}")
        if not services.origins.admits_write(request.headers.get("Origin"), request.headers.get(CSRF_HEADER)):
            raise StateRefusal(403, "not_participant")  # before any seat is looked up (rule 5)
        request_id, action = await command_body()
        source = await source_named(game_id)
        seat = await participant(source)
        limit(mutations, f"participant:{source.seats[seat].principal}")
        return await answer(lambda: rematches.command(source, seat, request_id, action))

    @routes.get("/games/<game_id>/continuation")
    async def read_continuation(game_id: str):
        rematches = service()
        limit(reads, f"address:{client_address()}")
        source = await source_named(game_id)
        return await answer(lambda: rematches.continuation(source))

    return routes


async def command_body() -> tuple[uuid.UUID, str]:
    """`{requestId, action}` and nothing else, as JSON; 400 invalid_request otherwise."""
    if request.mimetype != "application/json":
        raise StateRefusal(400, "invalid_request")
    try:
        body = parse_json(await request.get_data())
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise StateRefusal(400, "invalid_request") from None
    if not isinstance(body, dict) or set(body) != {"requestId", "action"}:
        raise StateRefusal(400, "invalid_request")
    request_id, action = body["requestId"], body["action"]
    if not isinstance(action, str) or action not in ACTIONS or not isinstance(request_id, str):
        raise StateRefusal(400, "invalid_request")
    try:
        parsed = uuid.UUID(request_id)
    except ValueError:
        raise StateRefusal(400, "invalid_request") from None
    if str(parsed) != request_id.lower():
        raise StateRefusal(400, "invalid_request")  # only the canonical 8-4-4-4-12 form
    return parsed, action


def unavailable() -> StateRefusal:
    """503: the store did not answer; the command may have been committed all the same."""
    return StateRefusal(503, "temporarily_unavailable", headers={"Retry-After": "5"})
