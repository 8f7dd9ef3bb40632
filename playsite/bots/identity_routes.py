"""Bot identity routes: /bot/anon, /bot/register, /bot/token, /bot/account, capacity, ladder, open-to-humans.

Shapes follow the ecosystem's Bot API (TokenResponse, Account, LadderState,
OpenToHumansState, Capacity); errors are `{"error": {"code", "message"}}`. Settings of a
registered bot are written to the store first and changed in memory only once stored, so a
store outage answers 503 and changes nothing.
"""

from __future__ import annotations

from quart import Blueprint, request

from playsite.bots.accounts import (
    CAPACITY_MAX,
    CAPACITY_MIN,
    DESCRIPTION_MAX,
    BotAccount,
    IdentityError,
)
from playsite.bots.ratelimit import RateLimiter
from playsite.games.routes import json_response
from playsite.lobby.http import (
    answers_refusals,
    client_address,
    json_object,
    rate_limited,
    temporarily_unavailable,
    with_bot,
)
from playsite.lobby.ratings import rating_of
from playsite.lobby.refusals import LobbyRefusal
from playsite.store.database import DatabaseUnavailable

ANON_MINTS_PER_MINUTE = 20
"""Per client address: enough for a test suite, too few to fill memory with identities."""
REGISTRATIONS_PER_HOUR = 5
"""Identities claimed per client address, as the anchor allows: durable names are not for
bulk claiming. Only successful claims count, so a typo does not lock an author out."""


def identity_routes(services) -> Blueprint:
    routes = Blueprint("identity_routes", __name__)
    bots = services.bots
    anon_mints = RateLimiter(ANON_MINTS_PER_MINUTE, 60)
    registrations = RateLimiter(REGISTRATIONS_PER_HOUR, 3600)

    @routes.post("/bot/anon")
    @answers_refusals
    async def mint_anonymous():
        if (limited := rate_limited(anon_mints, "anonymous mints")) is not None:
            return limited
        try:
            account, token = bots.mint_anonymous(request.args.get("name") or None)
        except IdentityError as error:
            raise LobbyRefusal(error.code, str(error)) from None
        return token_response(account, token)

    @routes.post("/bot/register")
    @answers_refusals
    async def register():
        if (limited := rate_limited(registrations, "registrations", count=False)) is not None:
            return limited
        body = await json_object()
        if isinstance(body, tuple):
            return body
        try:
            account, token = await bots.register(body.get("team"), body.get("name"))
        except IdentityError as error:
            raise LobbyRefusal(error.code, str(error)) from None
        except DatabaseUnavailable:
            return temporarily_unavailable()
        registrations.count(client_address())
        return token_response(account, token)

    @routes.post("/bot/token")
    @with_bot(bots, registered=True)
    async def rotate_token(account: BotAccount):
        try:
            token = await bots.rotate_token(account)
        except DatabaseUnavailable:
            return temporarily_unavailable()
        return json_response({"token": token}, headers={"Cache-Control": "no-store"})

    @routes.get("/bot/account")
    @with_bot(bots)
    async def read_account(account: BotAccount):
        return json_response({"team": account.team, "name": account.name, "id": account.external_id})

    @routes.post("/bot/ladder/join")
    @with_bot(bots, registered=True)
    async def join_ladder(account: BotAccount):
        return await change(account, ladder_state, on_ladder=True)

    @routes.post("/bot/ladder/leave")
    @with_bot(bots, registered=True)
    async def leave_ladder(account: BotAccount):
        return await change(account, ladder_state, on_ladder=False)

    @routes.post("/bot/open-to-humans")
    @with_bot(bots, registered=True)
    async def open_to_humans(account: BotAccount):
        body = await json_object()
        if isinstance(body, tuple):
            return body
        description = body.get("description")
        description = "" if description is None else description
        if not isinstance(description, str) or len(description) > DESCRIPTION_MAX:
            raise LobbyRefusal("invalid_request", f"description must be a string of at most {DESCRIPTION_MAX} characters")
        return await change(account, catalog_state, open_to_humans=True, description=description)

    @routes.post("/bot/open-to-humans/leave")
    @with_bot(bots, registered=True)
    async def leave_humans(account: BotAccount):
        return await change(account, catalog_state, open_to_humans=False)

    @routes.get("/bot/capacity")
    @with_bot(bots, registered=True)
    async def read_capacity(account: BotAccount):
        return json_response(capacity_state(account))

    @routes.post("/bot/capacity")
    @with_bot(bots, registered=True)
    async def declare_capacity(account: BotAccount):
        body = await json_object()
        if isinstance(body, tuple):
            return body
        wanted = body.get("maxConcurrentGames")
        if isinstance(wanted, bool) or not isinstance(wanted, int) or not CAPACITY_MIN <= wanted <= CAPACITY_MAX:
            raise LobbyRefusal("invalid_request", f"maxConcurrentGames must be an integer {CAPACITY_MIN}..{CAPACITY_MAX}")
        return await change(account, capacity_state, max_concurrent_games=wanted)

    async def change(account: BotAccount, view, **changes):
        try:
            await bots.update(account, **changes)
        except DatabaseUnavailable:
            return temporarily_unavailable()
        return json_response(view(account))

    def capacity_state(account: BotAccount) -> dict:
        occupancy = services.registry.admission.occupancy(account.principal)
        return {
            "maxConcurrentGames": account.max_concurrent_games,
            "openToHumans": account.open_to_humans,
            "ladderAllowance": account.ladder_allowance,
            "activeGames": sum(occupancy.values()),
        }

    return routes


def token_response(account: BotAccount, token: str):
    body = {"token": token, "team": account.team, "name": account.name, "id": account.external_id}
    return json_response(body, 201, {"Cache-Control": "no-store"})


def ladder_state(account: BotAccount) -> dict:
    rating = rating_of(account.id)
    return {"onLadder": account.on_ladder, "glickoRating": rating.rating, "glickoRd": rating.rd}


def catalog_state(account: BotAccount) -> dict:
    body: dict = {"openToHumans": account.open_to_humans}
    if account.description:
        body["description"] = account.description
    return body
