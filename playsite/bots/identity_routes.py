"""Bot identity routes: /bot/anon, /bot/register, /bot/token, /bot/account, capacity, ladder, open-to-humans.

Shapes follow the ecosystem's Bot API (TokenResponse, Account, LadderState,
OpenToHumansState, Capacity); errors are `{"error": {"code", "message"}}`. Settings of a
registered bot are written to the store first and changed in memory only once stored, so a
store outage answers 503 and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import trio
from quart import Response, request

from playsite.bots.directory import (
    CAPACITY_MAX,
    CAPACITY_MIN,
    DESCRIPTION_MAX,
    BotAccount,
    BotDirectory,
    IdentityError,
    TokenReplaced,
)
from playsite.bots.refusals import BOT_API_STATUSES
from playsite.http.auth import bot_unauthorized, calling_bot, client_address
from playsite.http.bodies import json_object
from playsite.http.errors import RouteFamily, invalid_request, temporarily_unavailable
from playsite.http.ratelimit import RateLimiter, limit_by_address
from playsite.http.responses import NO_STORE, json_response
from playsite.ratings.book import RatingBook
from playsite.refusals import READ_TIMEOUT_S, Refused
from playsite.rooms.registry import Registry
from playsite.store.database import DatabaseUnavailable

ANON_MINTS_PER_MINUTE = 20
"""Per client address: enough for a test suite, too few to fill memory with identities."""
REGISTRATIONS_PER_HOUR = 5
"""Identities claimed per client address, as the anchor allows: durable names are not for
bulk claiming. Only successful claims count, so a typo does not lock an author out."""
CHANGE_NOT_STORED = "the change could not be stored; try again"


def identity_routes(bots: BotDirectory, registry: Registry, ratings: RatingBook) -> RouteFamily:
    """Bots' identities and settings in `bots`; their occupancy from `registry`, ratings from `ratings`."""
    routes = RouteFamily("identity_routes", __name__, statuses=BOT_API_STATUSES)
    anon_mints = RateLimiter(ANON_MINTS_PER_MINUTE, 60)
    registrations = RateLimiter(REGISTRATIONS_PER_HOUR, 3600)

    @routes.post("/bot/anon")
    async def mint_anonymous() -> Response:
        limit_by_address(anon_mints, "anonymous mints")
        try:
            account, token = bots.mint_anonymous(request.args.get("name") or None)
        except IdentityError as error:
            raise Refused(error.code, str(error)) from None
        return token_response(account, token)

    @routes.post("/bot/register")
    async def register() -> Response:
        limit_by_address(registrations, "registrations", count=False)
        body = await json_object()
        try:
            account, token = await bots.register(body.get("team"), body.get("name"))
        except IdentityError as error:
            raise Refused(error.code, str(error)) from None
        except DatabaseUnavailable:
            raise temporarily_unavailable(CHANGE_NOT_STORED) from None
        registrations.count(client_address())
        return token_response(account, token)

    @routes.post("/bot/token")
    async def rotate_token() -> Response:
        account = calling_bot(bots, registered=True)
        try:
            token = await bots.rotate_token(account)
        except TokenReplaced:
            raise bot_unauthorized("this token was replaced while it was being rotated; use the newer token") from None
        except DatabaseUnavailable:
            raise temporarily_unavailable(CHANGE_NOT_STORED) from None
        return json_response({"token": token}, headers=NO_STORE)

    @routes.get("/bot/account")
    async def read_account() -> Response:
        account = calling_bot(bots)
        return json_response({"team": account.team, "name": account.name, "id": account.external_id})

    @routes.post("/bot/ladder/join")
    async def join_ladder() -> Response:
        return await change(calling_bot(bots, registered=True), ladder_state, on_ladder=True)

    @routes.post("/bot/ladder/leave")
    async def leave_ladder() -> Response:
        return await change(calling_bot(bots, registered=True), ladder_state, on_ladder=False)

    @routes.post("/bot/open-to-humans")
    async def open_to_humans() -> Response:
        account = calling_bot(bots, registered=True)
        body = await json_object()
        description = body.get("description")
        description = "" if description is None else description
        if not isinstance(description, str) or len(description) > DESCRIPTION_MAX:
            raise invalid_request(f"description must be a string of at most {DESCRIPTION_MAX} characters")
        return await change(account, catalog_state, open_to_humans=True, description=description)

    @routes.post("/bot/open-to-humans/leave")
    async def leave_humans() -> Response:
        return await change(calling_bot(bots, registered=True), catalog_state, open_to_humans=False)

    @routes.get("/bot/capacity")
    async def read_capacity() -> Response:
        return json_response(capacity_state(calling_bot(bots, registered=True)))

    @routes.post("/bot/capacity")
    async def declare_capacity() -> Response:
        account = calling_bot(bots, registered=True)
        body = await json_object()
        wanted = body.get("maxConcurrentGames")
        if isinstance(wanted, bool) or not isinstance(wanted, int) or not CAPACITY_MIN <= wanted <= CAPACITY_MAX:
            raise invalid_request(f"maxConcurrentGames must be an integer {CAPACITY_MIN}..{CAPACITY_MAX}")
        return await change(account, capacity_state, max_concurrent_games=wanted)

    async def change(
        account: BotAccount, view: Callable[[BotAccount], dict[str, object]], **changes: object
    ) -> Response:
        # Bounded as every store call of a request: 503 in READ_TIMEOUT_S, not the pool's 10 s.
        with trio.move_on_after(READ_TIMEOUT_S):
            try:
                await bots.update(account, **changes)
            except DatabaseUnavailable:
                raise temporarily_unavailable(CHANGE_NOT_STORED) from None
            return json_response(view(account))
        raise temporarily_unavailable(CHANGE_NOT_STORED)

    def capacity_state(account: BotAccount) -> dict:
        occupancy = registry.admission.occupancy(account.principal)
        return {
            "maxConcurrentGames": account.max_concurrent_games,
            "openToHumans": account.open_to_humans,
            "ladderAllowance": account.ladder_allowance,
            "activeGames": sum(occupancy.values()),
        }

    def ladder_state(account: BotAccount) -> dict:
        rating = ratings.rating_of(account.id)
        return {"onLadder": account.on_ladder, "glickoRating": rating.rating, "glickoRd": rating.rd}

    return routes


def token_response(account: BotAccount, token: str) -> Response:
    body = {"token": token, "team": account.team, "name": account.name, "id": account.external_id}
    return json_response(body, 201, {"Cache-Control": "no-store"})


def catalog_state(account: BotAccount) -> dict:
    body: dict = {"openToHumans": account.open_to_humans}
    if account.description:
        body["description"] = account.description
    return body
