"""HTTP routes of rematch and continuation (contract v1). Thin: limit, authorise, hand over, encode.

    GET  /games/{id}/rematch        the caller's private state (a final source participant)
    POST /games/{id}/rematch        {requestId, action}: one command, answered with the state
    GET  /games/{id}/continuation   the public projection

Who the caller is (service.md, Rematch authentication rules 1-8): the signed-in account
whose principal holds a final source seat, else the `X-Rematch-Seat-Token` header matching the capability of a seat
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
from collections.abc import Awaitable

from quart import Response, request

from playsite.accounts.service import Accounts
from playsite.http.auth import client_address, credentials, over_https
from playsite.http.bodies import body_limit, json_object
from playsite.http.errors import ErrorShape, Refusal, RouteFamily, invalid_request, rate_limited
from playsite.http.origin import OriginPolicy
from playsite.http.ratelimit import RateLimiter
from playsite.http.responses import NO_STORE, json_response
from playsite.principals import canonical_uuid
from playsite.refusals import Refused
from playsite.rematch.opportunity import ACTIONS
from playsite.rematch.service import Rematches, SourceNotFound
from playsite.rematch.source import Source
from playsite.tokens import matches
from playsite.wire import SEATS, Seat

BODY_MAX = 1024
"""service.md Limits: the rematch request body is at most 1 KiB."""
READS_PER_MINUTE = 120
MUTATIONS_PER_MINUTE = 30
RATE_RETRY_AFTER_S = 60
"""service.md Limits: exhaustion is answered `Retry-After: 60`, whatever is left of the window."""
SEAT_TOKEN_HEADER = "X-Rematch-Seat-Token"

STATUSES = {
    "invalid_request": 400,
    "authentication_required": 401,
    "not_participant": 403,
    "game_not_found": 404,
    "invalid_transition": 409,
    "request_id_conflict": 409,
    "settings_unavailable": 409,
    "rematch_closed": 410,
    "temporarily_unavailable": 503,
}
"""service.md "Rematch and continuation": the status of each code the rematch domain and
these routes refuse with (429 and the 503 of a store that did not answer are the edge's)."""


EDGE_CODES = {"request_too_large": "invalid_request", "unsupported_media_type": "invalid_request"}
"""The edge's body refusals in the rematch contract, which has neither 413 nor 415: a body over
1 KiB or not JSON is a malformed body, 400 `invalid_request` (an oversized one still closes
the connection)."""


def _error_body(refusal: Refusal) -> dict[str, object]:
    body: dict[str, object] = {"error": {"code": refusal.code}}
    if refusal.state is not None:
        body["state"] = refusal.state
    return body


REMATCH_SHAPE = ErrorShape("application/json", _error_body)
"""service.md "Rematch error body": `{error: {code}, state?}`; the state is the caller's
private state, which the domain attaches only once the caller is authorised."""


def rematch_routes(
    rematches: Rematches | None, accounts: Accounts, origins: OriginPolicy, *, trusted_proxies: tuple[str, ...]
) -> RouteFamily:
    """`rematches` is None without PostgreSQL: every route then answers 503."""
    routes = RouteFamily(
        "rematch", __name__, shape=REMATCH_SHAPE, statuses=STATUSES, headers=NO_STORE, edge_codes=EDGE_CODES,
    )
    # service.md: at most 10,000 keys each; key exhaustion is refused (429, Retry-After: 60),
    # never made room for by forgetting someone's open window.
    reads = RateLimiter(READS_PER_MINUTE, 60, refuse_when_full=True)
    mutations = RateLimiter(MUTATIONS_PER_MINUTE, 60, refuse_when_full=True)

    @routes.after_request
    async def never_cached(response: Response) -> Response:
        response.headers["Cache-Control"] = "no-store"
        return response

    def service() -> Rematches:
        if rematches is None:
            raise Refused("temporarily_unavailable", "rematch needs the PostgreSQL store")
        return rematches

    def limit(limiter: RateLimiter, key: str) -> None:
        if limiter.attempt(key) is not None:
            raise rate_limited("rematch requests", RATE_RETRY_AFTER_S)

    async def source_named(raw: str) -> Source:
        game_id = canonical_uuid(raw)
        if game_id is None:
            raise SourceNotFound(raw)
        return await service().source(game_id)

    async def participant(source: Source) -> Seat:
        """The source seat the caller holds (service.md, Rematch authentication rules 1-3),
        else 401/403 with no state."""
        account = await accounts.signed_in(credentials()) if accounts.enabled else None
        if account is not None:
            seat = source.seat_held_by(account.principal)
            if seat is not None:
                return seat
        token = request.headers.get(SEAT_TOKEN_HEADER)
        if token and not over_https(trusted_proxies):
            # A bearer credential that crossed a network in clear text is not used (and a
            # client that sends it so learns to stop): the same answer as no credential.
            token = None
        if token:
            for seat in SEATS:
                held = source.seats[seat]
                if held.guest and matches(token, held.token_hash):
                    return seat
        if account is None and not token:
            raise Refused("authentication_required")
        raise Refused("not_participant")

    async def answer(state: Awaitable[dict[str, object]]) -> Response:
        return json_response(await state, 200, NO_STORE)

    @routes.get("/games/<game_id>/rematch")
    async def read_rematch(game_id: str) -> Response:
        rematches = service()
        limit(reads, f"address:{client_address()}")
        source = await source_named(game_id)
        seat = await participant(source)
        limit(reads, f"participant:{source.seats[seat].principal}")
        return await answer(rematches.read(source, seat))

    @routes.post("/games/<game_id>/rematch")
    @body_limit(BODY_MAX)
    async def command_rematch(game_id: str) -> Response:
        rematches = service()
        limit(mutations, f"address:{client_address()}")
        # Before any seat is looked up (service.md, Rematch authentication rule 5); the same 403 as for a stranger.
        await origins.require_write(routes.refusal(Refused("not_participant")))
        request_id, action = await command_body()
        source = await source_named(game_id)
        seat = await participant(source)
        limit(mutations, f"participant:{source.seats[seat].principal}")
        return await answer(rematches.command(source, seat, request_id, action))

    @routes.get("/games/<game_id>/continuation")
    async def read_continuation(game_id: str) -> Response:
        rematches = service()
        limit(reads, f"address:{client_address()}")
        source = await source_named(game_id)
        return await answer(rematches.continuation(source))

    return routes


async def command_body() -> tuple[uuid.UUID, str]:
    """`{requestId, action}` and nothing else, as JSON; 400 invalid_request otherwise."""
    body = await json_object()
    if set(body) != {"requestId", "action"}:
        raise invalid_request("send exactly requestId and action")
    request_id, action = canonical_uuid(body["requestId"]), body["action"]
    if not isinstance(action, str) or action not in ACTIONS or request_id is None:
        raise invalid_request("requestId must be a UUID and action one of " + ", ".join(ACTIONS))
    return uuid.UUID(request_id), action
