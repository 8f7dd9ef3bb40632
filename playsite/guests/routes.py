"""A guest's own history, as the ecosystem's site reads it (docs/bots/compatibility.md):

    GET /players/{guestId}/games[?vs=human|team/name][&result=win|draw|loss][&before=<instant>]
        -> {games: [{gameId, seat, opponent, result, rated, termination, timeControl, finishedAt}], hasMore}
    GET /players/{guestId}/opponents -> {opponents: [{opponent, team, botName, games, wins, draws, losses, lastPlayedAt}]}

`guestId` is the bare UUID (an account's `/players/{nickname}` never clashes: a nickname has
at most 20 characters, a guest id 36). Like every read of finished results, these need
persistence: without it they answer 404 `persistence_required`.

    GET|POST /auth/me/guests -> 501 guest_claims_unsupported

playsite does not link guest ids to accounts (a person signs in before playing, and the
games are the account's), so the site's claim calls get a clear refusal, never a 404.
"""

from __future__ import annotations

from datetime import datetime

from quart import request

from playsite.bots.directory import SLUG
from playsite.guests.history import RESULTS, GamesFilter, read_guest_games, read_guest_opponents
from playsite.games.refusals import CANONICAL_GAME_ID
from playsite.http.errors import PROBLEM_SHAPE, Refusal, RouteFamily, invalid_request, temporarily_unavailable
from playsite.http.responses import NO_CACHE, json_response
from playsite.services import Services
from playsite.store.database import DatabaseUnavailable


def guest_routes(services: Services) -> RouteFamily:
    routes = RouteFamily("guests", __name__)

    async def read(query):
        if services.database is None:
            raise Refusal(404, "persistence_required", "finished games are kept only when the server runs with persistence")
        try:
            return await services.database.run(query)
        except DatabaseUnavailable:
            raise temporarily_unavailable("the games could not be read; try again") from None

    @routes.get("/players/<guest_id>/games")
    async def guest_games(guest_id: str):
        principal = guest_principal(guest_id)
        wanted = games_filter()
        return json_response(await read(lambda conn: read_guest_games(conn, principal, wanted)), headers=NO_CACHE)

    @routes.get("/players/<guest_id>/opponents")
    async def guest_opponents(guest_id: str):
        principal = guest_principal(guest_id)
        return json_response(await read(lambda conn: read_guest_opponents(conn, principal)), headers=NO_CACHE)

    return routes


def guest_claim_routes(_services: Services) -> RouteFamily:
    """Under `/auth`, so in that family's shape (problem details)."""
    routes = RouteFamily("guest_claims", __name__, shape=PROBLEM_SHAPE)

    @routes.route("/auth/me/guests", methods=["GET", "POST"])
    async def guest_claims():
        raise Refusal(
            501, "guest_claims_unsupported",
            "playsite does not link guest ids to accounts: sign in before playing, and the games are the account's",
        )

    return routes


def guest_principal(raw: str) -> str:
    guest_id = raw.lower()
    if not CANONICAL_GAME_ID.fullmatch(guest_id):
        raise Refusal(400, "invalid_guest_id", "a guest id is a UUID (8-4-4-4-12 hexadecimal digits)")
    return f"guest:{guest_id}"


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
        at = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise invalid_request("before is an ISO-8601 instant (as finishedAt is written)") from None
    if at.tzinfo is None:
        raise invalid_request("before needs its offset (as finishedAt is written: ...Z)")
    return at
