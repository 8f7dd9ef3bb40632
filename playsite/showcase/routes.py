"""`GET /showcase` and `POST /showcase/claim` (mounted only with SHOWCASE_ENABLED=true).

Errors are problem details (`application/problem+json`) with the codes of docs/showcase.md.
The claim's actor is the signed-in account (its session needs an allowed Origin and
`X-Game-CSRF: 1`; without a PLAY_CORS_ORIGINS allow-list the session path is refused and
visitors claim as guests) or else the body's stable `guestId`.
"""

from __future__ import annotations

import contextlib
import hashlib
import uuid
from collections.abc import Iterator

from quart import Response, request

from playsite.accounts.service import Accounts
from playsite.dice.client_seeds import is_valid_client_seed
from playsite.http.auth import credentials
from playsite.http.bodies import body_limit, json_object, reject_unknown_fields
from playsite.http.errors import PROBLEM_SHAPE, Refusal, RouteFamily, rate_limited
from playsite.http.origin import OriginPolicy
from playsite.http.ratelimit import RateLimiter, limit_by_address
from playsite.http.responses import json_text
from playsite.principals import Kind, canonical_uuid, guest, id_of
from playsite.refusals import Refused
from playsite.showcase.table import TIME_CONTROL, Claimed, ShowcaseTable, ShowcaseUnavailable, TablePhase
from playsite.wire import encode_time_control

CLAIM_BODY_MAX = 4096
CLAIMS_PER_ADDRESS_PER_MINUTE = 20
CLAIMS_PER_ACTOR_PER_MINUTE = 10
UNAVAILABLE_RETRY_AFTER_S = 15
STATUS_HEADERS = {"Cache-Control": "no-store, no-cache, must-revalidate"}

STATUSES = {
    "missing_idempotency_key": 400,
    "invalid_idempotency_key": 400,
    "guest_required": 400,
    "invalid_guest_id": 400,
    "malformed_request": 400,
    "csrf_origin_rejected": 403,
    "idempotency_conflict": 409,
    "showcase_unavailable": 503,
}
"""service.md "Errors, Showcase": the status of each code the table and these routes refuse
with (413, 415 and 429 come from the edge's helpers)."""


def showcase_routes(table: ShowcaseTable, accounts: Accounts, origins: OriginPolicy) -> RouteFamily:
    """Mounted only with SHOWCASE_ENABLED (the boot then builds `table`)."""
    routes = RouteFamily(
        "showcase", __name__, shape=PROBLEM_SHAPE, statuses=STATUSES,
        # a database that did not answer reading the session: the table's own 503
        edge_codes={"temporarily_unavailable": "showcase_unavailable"},
    )
    by_address = RateLimiter(CLAIMS_PER_ADDRESS_PER_MINUTE, 60)
    by_actor = RateLimiter(CLAIMS_PER_ACTOR_PER_MINUTE, 60)
    team, _, name = table.bot_id.partition("/")

    @routes.get("/showcase")
    async def status() -> Response:
        phase, reason = table.public_phase()
        body: dict[str, object] = {
            "status": phase.value,
            "featuredBot": {"team": team, "name": name},
            "timeControl": encode_time_control(TIME_CONTROL),
            "rated": False,
        }
        if phase in (TablePhase.OPEN, TablePhase.LIVE, TablePhase.FINISHING):
            body["nextHumanColor"] = table.next_color
        if phase in (TablePhase.LIVE, TablePhase.FINISHING) and table.current_game:
            body["currentGame"] = table.current_game
            body["wsUrl"] = f"/games/{table.current_game}/ws?mode=spectator"
        if phase is TablePhase.UNAVAILABLE:
            body["reason"] = reason or "maintenance"
        text = json_text(body)
        etag = f'W/"{hashlib.sha256(text.encode()).hexdigest()[:20]}"'
        headers = {**STATUS_HEADERS, "ETag": etag}
        if not_modified(request.headers.get("If-None-Match", ""), etag):
            return Response(b"", status=304, headers=headers)
        return Response(text, content_type="application/json", headers=headers)

    @routes.post("/showcase/claim")
    @body_limit(CLAIM_BODY_MAX)
    async def claim() -> Response:
        limit_by_address(by_address, "claims")
        key = idempotency_key()
        body = await claim_body()
        entropy = client_entropy(body)
        guest_id = body.get("guestId")
        actor = await claim_actor(guest_id)
        if (retry := by_actor.attempt(actor)) is not None:
            raise rate_limited("claims from this player", retry)
        try:
            outcome = await table.claim(actor=actor, guest_id=guest_id, entropy=entropy, key=key)
        except ShowcaseUnavailable as refused:
            refusal = routes.refusal(refused)
            refusal.headers["Retry-After"] = str(UNAVAILABLE_RETRY_AFTER_S)
            raise refusal from None
        if isinstance(outcome, Claimed):
            as_guest = id_of(actor, Kind.GUEST)
            guest_query = f"&guest={as_guest}" if as_guest is not None else ""
            answer = {
                "outcome": "claimed",
                "seat": outcome.seat,
                "seatToken": outcome.seat_token,
                "wsUrl": f"/games/{outcome.game_id}/ws?token={outcome.seat_token}{guest_query}",
                "gameId": outcome.game_id,
            }
            return Response(json_text(answer), content_type="application/json", headers={"Cache-Control": "no-store, private"})
        answer = {
            "outcome": "spectating",
            "reason": outcome.reason,
            "gameId": outcome.game_id,
            "spectatorWsUrl": f"/games/{outcome.game_id}/ws?mode=spectator",
        }
        return Response(json_text(answer), content_type="application/json", headers={"Cache-Control": "no-store"})

    def idempotency_key() -> uuid.UUID:
        value = request.headers.get("Idempotency-Key")
        if value is None:
            raise Refused("missing_idempotency_key", "send an Idempotency-Key header (a UUID)")
        key = canonical_uuid(value.strip())
        if key is None:
            raise Refused("invalid_idempotency_key", "the Idempotency-Key must be a UUID")
        return uuid.UUID(key)

    async def claim_body() -> dict[str, object]:
        with in_showcase_words():
            body = await json_object()
            reject_unknown_fields(body, {"guestId", "clientEntropy"})
        return body

    async def claim_actor(guest_id: object) -> str:
        """The session account when there is one and the deployment allows the session path;
        else the guest id. A session from a page that fails the boundary is refused."""
        if origins.configured:
            account = await accounts.signed_in(credentials())
            if account is not None:
                await origins.require_write(
                    routes.refusal(Refused("csrf_origin_rejected", "send this from an allowed origin with X-Game-CSRF: 1"))
                )
                return account.principal
        if guest_id is None:
            raise Refused("guest_required", "sign in, or send a stable guestId (a UUID)")
        canonical = canonical_uuid(guest_id)
        if canonical is None:
            raise Refused("invalid_guest_id", "guestId must be a UUID (8-4-4-4-12 hexadecimal digits)")
        return guest(canonical)

    return routes


def client_entropy(body: dict[str, object]) -> str | None:
    entropy = body.get("clientEntropy")
    if entropy is None:
        return None
    if not isinstance(entropy, str) or not is_valid_client_seed(entropy):
        raise Refused("malformed_request", "clientEntropy must be a string of 16 to 256 characters")
    return entropy


@contextlib.contextmanager
def in_showcase_words() -> Iterator[None]:
    """The edge's body refusals keep their status (400, 415) and take the showcase's one code
    for a body it cannot take, `malformed_request`."""
    try:
        yield
    except Refusal as refusal:
        if refusal.code in ("invalid_request", "unsupported_media_type"):
            raise Refusal(refusal.status, "malformed_request", refusal.message) from None
        raise


def not_modified(if_none_match: str, etag: str) -> bool:
    """`If-None-Match` against the current tag with the weak comparison it calls for (RFC 9110
    13.1.2): `W/"x"` and `"x"` are the same tag, and `*` matches any current representation."""
    def opaque(tag: str) -> str:
        tag = tag.strip()
        return tag[2:] if tag.startswith("W/") else tag

    tags = [tag.strip() for tag in if_none_match.split(",") if tag.strip()]
    return "*" in tags or opaque(etag) in {opaque(tag) for tag in tags}
