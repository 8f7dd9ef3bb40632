"""Routes people use: the bot catalog (GET /lobby/bots), playing a catalog bot
(POST /lobby/play-bot) and accepting a bot's seek (POST /lobby/accept).

No login needed: a guest names itself with a stable `guestId` (UUID); a signed-in person
(session cookie, from an allowed page) plays as the account and needs no guestId. Either gets
a seat token back, shown once. Both writes are rate-limited per client address. A game
against a catalog bot is casual unless a signed-in person asks for it rated.
"""

from __future__ import annotations

from quart import Response

from playsite.accounts.service import Accounts
from playsite.bots.directory import BotDirectory
from playsite.bots.games import BotGame, Human
from playsite.http.auth import credentials
from playsite.http.bodies import json_object
from playsite.http.errors import Refusal, RouteFamily
from playsite.http.ratelimit import RateLimiter, limit_by_address
from playsite.http.responses import NO_CACHE, json_response
from playsite.lobby import bodies
from playsite.lobby.catalog import catalog, catalog_card
from playsite.lobby.service import Lobby
from playsite.principals import Kind, id_of
from playsite.ratings.book import RatingBook
from playsite.rooms.admission import Admission

HUMAN_STARTS_PER_MINUTE = 30
"""Per client address, for play-bot and seek accepts together."""


def mount_human_routes(
    routes: RouteFamily, lobby: Lobby, accounts: Accounts, bots: BotDirectory, admission: Admission, ratings: RatingBook
) -> None:
    starts = RateLimiter(HUMAN_STARTS_PER_MINUTE, 60)

    @routes.get("/lobby/bots")
    async def list_catalog() -> Response:
        cards = [catalog_card(bot, admission, ratings) for bot in catalog(bots)]
        return json_response({"bots": cards}, headers=NO_CACHE)

    @routes.post("/lobby/play-bot")
    async def play_bot() -> Response:
        limit_by_address(starts, "game starts")
        body = await json_object()
        guest = await person(accounts, body)
        bot_id = f"{bodies.required_string(body, 'team')}/{bodies.required_string(body, 'name')}"
        time_control = bodies.time_control(body, default=None)
        preferred = bodies.optional_side(body, "preferredColor")
        rated = bodies.optional_flag(body, "rated")
        if rated and id_of(guest.principal, Kind.USER) is None:
            # people and bots are rated in one pool, but a guest has no rating to keep
            raise Refusal(401, "not_signed_in", "a rated game needs a signed-in player: sign in first (GET /auth/login)")
        game, seat = await lobby.play_catalog_bot(guest, bot_id, time_control, preferred, rated=rated)
        return seat_response(game, seat, guest)

    @routes.post("/lobby/accept")
    async def guest_accepts_seek() -> Response:
        limit_by_address(starts, "game starts")
        body = await json_object()
        guest = await person(accounts, body)
        game, seat = await lobby.accept_seek(bodies.required_string(body, "seekId"), guest)
        return seat_response(game, seat, guest)


async def person(accounts: Accounts, body: dict, field: str = "guestId") -> Human:
    """Who takes the seat: the signed-in account (`Accounts.caller`), else the body's guest id
    (its `field`)."""
    principal, _ = await named_person(accounts, body, field)
    return Human(principal)  # the nickname shows once the socket takes the seat


async def named_person(accounts: Accounts, body: dict, field: str = "guestId") -> tuple[str, str | None]:
    """As `person`: (the principal, the account's nickname, or None for a guest)."""
    caller = await accounts.caller(credentials())
    if caller is not None:
        return caller.principal, caller.name
    return bodies.guest_principal(body, field), None


def seat_response(game: BotGame, seat: str, guest: Human) -> Response:
    """The guest's own seat (PlayBotMatch): never the other seat, never shown again."""
    game_id, token = game.room.game_id, game.human_tokens[seat]
    guest_id = id_of(guest.principal, Kind.GUEST)
    who = f"&guest={guest_id}" if guest_id is not None else ""
    body = {
        "gameId": game_id,
        "token": token,
        "seat": seat,
        "wsUrl": f"/games/{game_id}/ws?token={token}{who}",
    }
    return json_response(body, 201, {"Cache-Control": "no-store, private"})
