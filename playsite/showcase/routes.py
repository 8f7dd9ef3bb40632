"""`GET /showcase` and `POST /showcase/claim` (mounted only with SHOWCASE_ENABLED=true).

Errors are problem details (`application/problem+json`) with the codes of docs/showcase.md.
The claim's actor is the signed-in account (its session needs an allowed Origin and
`X-Game-CSRF: 1`; without a PLAY_CORS_ORIGINS allow-list the session path is refused and
visitors claim as guests) or else the body's stable `guestId`.
"""

from __future__ import annotations

import hashlib
import re
import uuid

from quart import Response, request

from playsite.dice.client_seeds import is_valid_client_seed
from playsite.http.auth import client_address, credentials
from playsite.http.bodies import body_limit, parse_json
from playsite.http.errors import PROBLEM_SHAPE, Refusal, RouteFamily
from playsite.http.ratelimit import RateLimiter
from playsite.http.responses import json_text
from playsite.services import Services
from playsite.showcase.table import (
    TIME_CONTROL,
    Claimed,
    IdempotencyConflict,
    ShowcaseUnavailable,
    TablePhase,
)
from playsite.wire import encode_time_control

CLAIM_BODY_MAX = 4096
CLAIMS_PER_ADDRESS_PER_MINUTE = 20
CLAIMS_PER_ACTOR_PER_MINUTE = 10
UNAVAILABLE_RETRY_AFTER_S = 15
STATUS_HEADERS = {"Cache-Control": "no-store, no-cache, must-revalidate"}
CANONICAL_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def problem(status: int, code: str, message: str, headers: dict | None = None) -> Refusal:
    return Refusal(status, code, message, headers)


def malformed(message: str, status: int = 400) -> Refusal:
    return problem(status, "malformed_request", message)


def showcase_routes(services: Services) -> RouteFamily:
    routes = RouteFamily("showcase", __name__, shape=PROBLEM_SHAPE)
    table = services.showcase
    by_address = RateLimiter(CLAIMS_PER_ADDRESS_PER_MINUTE, 60)
    by_actor = RateLimiter(CLAIMS_PER_ACTOR_PER_MINUTE, 60)
    team, _, name = table.bot_id.partition("/")

    @routes.get("/showcase")
    async def status():
        phase, reason = table.public_phase()
        body = {
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
        if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
            return Response(b"", status=304, headers=headers)
        return Response(text, content_type="application/json", headers=headers)

    @routes.post("/showcase/claim")
    @body_limit(CLAIM_BODY_MAX)
    async def claim():
        if (retry := by_address.attempt(client_address())) is not None:
            raise problem(429, "rate_limited", "too many claims from this address", {"Retry-After": str(retry)})
        key = idempotency_key()
        body = await claim_body()
        entropy = body.get("clientEntropy")
        if entropy is not None and not is_valid_client_seed(entropy):
            raise malformed("clientEntropy must be a string of 16 to 256 characters")
        guest_id = body.get("guestId")
        actor = await claim_actor(guest_id)
        if (retry := by_actor.attempt(actor)) is not None:
            raise problem(429, "rate_limited", "too many claims from this player", {"Retry-After": str(retry)})
        try:
            outcome = await table.claim(actor=actor, guest_id=guest_id, entropy=entropy, key=key)
        except IdempotencyConflict:
            raise problem(409, "idempotency_conflict", "this Idempotency-Key was used for another claim") from None
        except ShowcaseUnavailable:
            raise problem(
                503, "showcase_unavailable", "the showcase table cannot take claims now",
                {"Retry-After": str(UNAVAILABLE_RETRY_AFTER_S)},
            ) from None
        if isinstance(outcome, Claimed):
            guest = f"&guest={guest_id.lower()}" if actor.startswith("guest:") else ""
            answer = {
                "outcome": "claimed",
                "seat": outcome.seat,
                "seatToken": outcome.seat_token,
                "wsUrl": f"/games/{outcome.game_id}/ws?token={outcome.seat_token}{guest}",
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
            raise problem(400, "missing_idempotency_key", "send an Idempotency-Key header (a UUID)")
        if not CANONICAL_UUID.fullmatch(value.strip()):
            raise problem(400, "invalid_idempotency_key", "the Idempotency-Key must be a UUID")
        return uuid.UUID(value.strip())

    async def claim_body() -> dict:
        raw = await request.get_data()
        if not raw.strip():
            return {}
        if request.mimetype != "application/json":
            raise malformed("send the body as application/json", 415)
        try:
            body = parse_json(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise malformed("the body is not valid JSON") from None
        if not isinstance(body, dict):
            raise malformed("the body must be a JSON object")
        unknown = set(body) - {"guestId", "clientEntropy"}
        if unknown:
            raise malformed(f"unknown field(s): {', '.join(sorted(unknown))}")
        return body

    async def claim_actor(guest_id) -> str:
        """The session account when there is one and the deployment allows the session path;
        else the guest id. A session from a page that fails the boundary is refused."""
        if services.origins.configured:
            account = await services.accounts.signed_in(credentials())
            if account is not None:
                await services.origins.require_write(
                    problem(403, "csrf_origin_rejected", "send this from an allowed origin with X-Game-CSRF: 1")
                )
                return account.principal
        if guest_id is None:
            raise problem(400, "guest_required", "sign in, or send a stable guestId (a UUID)")
        if not isinstance(guest_id, str) or not CANONICAL_UUID.fullmatch(guest_id):
            raise problem(400, "invalid_guest_id", "guestId must be a UUID (8-4-4-4-12 hexadecimal digits)")
        return f"guest:{guest_id.lower()}"

    return routes
