"""A guest's own history, as the ecosystem's site reads it (docs/bots/compatibility.md), and any
player's games by the same pages:

    GET /players/{guestId}/games[?vs=human|team/name][&result=win|draw|loss][&before=<instant>]
        -> {games: [{gameId, seat, opponent, result, rated, termination, timeControl, finishedAt}], hasMore}
    GET /players/{guestId}/opponents -> {opponents: [{opponent, team, botName, games, wins, draws, losses, lastPlayedAt}]}
    GET /players/{nickname}/games, GET /bots/{team}/{name}/games -> an account's, a registered bot's
        games, the same way (a profile's "More games")

`guestId` is the bare UUID (an account's `/players/{nickname}` never clashes: a nickname has
at most 20 characters, a guest id 36). Like every read of finished results, these need
persistence: without it they answer 404 `persistence_required`.

    GET  /auth/me/games[?vs=..][&result=..][&before=..] -> the signed-in account's own games and its
                                          claimed guests', in one list, as above
    GET  /auth/me/guests                  -> {guests: [guestId, ...]} (oldest first)
    POST /auth/me/guests {"guestId": uuid} -> the same, the guest id linked to the account

A claim links the browser's guest id to the account signed in on it: the first claim of a guest
id wins and is final (409 `guest_claimed` for another account; claiming one's own again
changes nothing). Nothing is rewritten: the guest's games keep their `guest:` seat, the public
profile counts the account's own games only, and a client unites the histories at read time
(`/players/{guestId}/games` of each claimed id). Under `/auth`, in problem details; 401
`not_signed_in` without a session (and always without sign-in configured).

The claim is a session write, held to the browser boundary with one allowance for the site,
which never sends `X-Game-CSRF`: `OriginPolicy.require_json_write` (an allowed Origin and a
JSON body) instead of `require_write`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

import psycopg
from quart import Response, request

from playsite.accounts.model import NICKNAME, Account
from playsite.accounts.service import Accounts
from playsite.bots.directory import SLUG
from playsite.guests import claims
from playsite.guests.history import RESULTS, GamesFilter, read_guest_games, read_guest_opponents
from playsite.http.auth import credentials
from playsite.http.bodies import body_limit, json_object, reject_unknown_fields
from playsite.http.errors import (
    PROBLEM_SHAPE, Refusal, RouteFamily, invalid_request, rate_limited, temporarily_unavailable,
)
from playsite.http.ratelimit import RateLimiter
from playsite.http.responses import NO_CACHE, json_response
from playsite.http.origin import OriginPolicy
from playsite.principals import canonical_uuid, guest, user
from playsite.ratings.queries import bot_principal, player_principal
from playsite.store.database import Database, DatabaseUnavailable
from playsite.wire.instant import decode_instant

T = TypeVar("T")
CLAIMS_PER_MINUTE = 10
"""Claims per account per minute: a person links a browser now and then."""
PRIVATE = {"Cache-Control": "no-store, private", "Vary": "Cookie"}


def guest_routes(database: Database | None) -> RouteFamily:
    """A guest's history, read from `database` (None: no persistence, nothing is kept)."""
    routes = RouteFamily("guests", __name__)

    async def read(query: Callable[[psycopg.Connection], T]) -> T:
        if database is None:
            raise Refusal(404, "persistence_required", "finished games are kept only when the server runs with persistence")
        try:
            return await database.run(query)
        except DatabaseUnavailable:
            raise temporarily_unavailable("the games could not be read; try again") from None

    async def games_of(principal_of: Callable[[psycopg.Connection], str | None], wanted: GamesFilter) -> dict[str, object] | None:
        """A page of the games of the player `principal_of` finds; None when it finds none."""

        def query(conn: psycopg.Connection) -> dict[str, object] | None:
            principal = principal_of(conn)
            return None if principal is None else read_guest_games(conn, principal, wanted)

        return await read(query)

    @routes.get("/players/<player>/games")
    async def player_games(player: str) -> Response:
        """A guest's games by its id; an account's by its nickname (as its profile, a name it gave
        up included; 404 `player_not_found` for none, or a deleted account)."""
        wanted = games_filter()
        guest_id = canonical_uuid(player)
        page: dict[str, object] | None
        if guest_id is not None:
            page = await read(lambda conn: read_guest_games(conn, guest(guest_id), wanted))
        elif NICKNAME.fullmatch(player):
            page = await games_of(lambda conn: player_principal(conn, player), wanted)
            if page is None:
                raise Refusal(404, "player_not_found", "no player with this nickname")
        else:
            raise Refusal(400, "invalid_guest_id",
                          "a guest id is a UUID (8-4-4-4-12 hexadecimal digits), a nickname 3 to 20 letters, digits, _ or -")
        return json_response(page, headers=NO_CACHE)

    @routes.get("/bots/<team>/<name>/games")
    async def bot_games(team: str, name: str) -> Response:
        """A registered bot's finished games, as a player's (its profile's "Older games")."""
        wanted = games_filter()
        valid = SLUG.fullmatch(team) and SLUG.fullmatch(name)  # no query for a name no bot can have
        page = await games_of(lambda conn: bot_principal(conn, f"{team}/{name}"), wanted) if valid else None
        if page is None:
            raise Refusal(404, "bot_not_found", f"no registered bot {team}/{name}" if valid else "no registered bot with this name")
        return json_response(page, headers=NO_CACHE)

    @routes.get("/players/<guest_id>/opponents")
    async def guest_opponents(guest_id: str) -> Response:
        principal = guest_principal(guest_id)
        return json_response(await read(lambda conn: read_guest_opponents(conn, principal)), headers=NO_CACHE)

    return routes


def guest_claim_routes(accounts: Accounts, origins: OriginPolicy) -> RouteFamily:
    """Under `/auth`, so in that family's shape (problem details)."""
    routes = RouteFamily("guest_claims", __name__, shape=PROBLEM_SHAPE)
    claims_per_minute = RateLimiter(CLAIMS_PER_MINUTE, 60)

    async def account() -> Account:
        signed_in = await accounts.signed_in(credentials())
        if signed_in is None:
            raise Refusal(401, "not_signed_in", "sign in first (GET /auth/login)", PRIVATE)
        return signed_in

    @routes.get("/auth/me/guests")
    async def claimed() -> Response:
        me = await account()
        guests = await accounts.run(lambda conn: claims.claimed_guests(conn, me.id))
        return json_response({"guests": guests}, headers=PRIVATE)

    @routes.get("/auth/me/games")
    async def my_games() -> Response:
        """The signed-in account's own finished games and those of the guests it claimed, in one
        list, in the shape and pages of a guest's (`/players/{guestId}/games`): what the web
        client's "Your games" lists."""
        me = await account()
        wanted = games_filter()

        def mine(conn: psycopg.Connection) -> dict[str, object]:
            guests = [guest(claimed) for claimed in claims.claimed_guests(conn, me.id)]
            return read_guest_games(conn, user(me.id), wanted, also=guests)

        page = await accounts.run(mine)
        return json_response(page, headers=PRIVATE)

    @routes.post("/auth/me/guests")
    @body_limit(256)
    async def claim() -> Response:
        origins.require_json_write(
            Refusal(403, "csrf_origin_rejected", "send this from an allowed origin, as application/json")
        )
        me = await account()
        body = await json_object()
        reject_unknown_fields(body, {"guestId"})
        guest_id = canonical_uuid(body.get("guestId"))
        if guest_id is None:
            raise invalid_request("guestId is the bare guest UUID (8-4-4-4-12 hexadecimal digits, no 'guest:')")
        retry_after = claims_per_minute.attempt(str(me.id))
        if retry_after is not None:
            raise rate_limited("guest claims", retry_after)
        try:
            guests = await accounts.run(lambda conn: claims.claim_guest(conn, me.id, guest_id))
        except claims.ClaimedByAnother:
            raise Refusal(409, "guest_claimed", "this guest id already belongs to another account", PRIVATE) from None
        except claims.TooManyClaims:
            raise Refusal(
                409, "too_many_guest_claims", f"an account links at most {claims.MAX_CLAIMS_PER_ACCOUNT} guest ids", PRIVATE,
            ) from None
        return json_response({"guests": guests}, headers=PRIVATE)

    return routes


def guest_principal(raw: str) -> str:
    guest_id = canonical_uuid(raw)
    if guest_id is None:
        raise Refusal(400, "invalid_guest_id", "a guest id is a UUID (8-4-4-4-12 hexadecimal digits)")
    return guest(guest_id)


def games_filter() -> GamesFilter:
    args = request.args
    vs, result, before = args.get("vs"), args.get("result"), args.get("before")
    if vs is not None and vs != "human":
        team, _, name = vs.partition("/")
        if not (SLUG.fullmatch(team) and SLUG.fullmatch(name)):
            raise invalid_request("vs is 'human' or a bot's 'team/name'")
    if result is not None and result not in RESULTS.values():
        raise invalid_request("result is win, draw or loss")
    return GamesFilter(vs=vs, result=result, before=instant(before) if before is not None else None)


def instant(text: str) -> datetime:
    try:
        at = decode_instant(text)
    except ValueError:
        raise invalid_request("before is an ISO-8601 instant (as finishedAt is written)") from None
    if at.tzinfo is None:
        raise invalid_request("before needs its offset (as finishedAt is written: ...Z)")
    return at
