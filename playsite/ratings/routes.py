"""Public rating reads: GET /leaderboard, the profiles GET /bots/{team}/{name} and
GET /players/{nickname}, their rating histories (`.../rating-history`), and what one finished
game did to its players' ratings (GET /games/{id}/rating-change) (docs/ladder.md).

Both read PostgreSQL directly (`bots`, `bot_ratings`, `game_results`), so they exist only
with persistence: on the memory store they answer 404, as the anchor does (see
`persistence_required` for the code). A database outage answers 503
`temporarily_unavailable` with Retry-After 5. The queries live in `ratings.queries`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import psycopg
from quart import Response, request

from playsite.accounts.model import NICKNAME
from playsite.bots.directory import SLUG
from playsite.games.refusals import GAME_STATUSES, canonical_game_id
from playsite.http.errors import Refusal, RouteFamily, read_or_unavailable, temporarily_unavailable
from playsite.http.responses import NO_CACHE, json_response
from playsite.ratings.book import PROVISIONAL_RD
from playsite.ratings.queries import (
    bot_principal,
    player_principal,
    read_leaders,
    read_player_leaders,
    read_player_profile,
    read_profile,
    read_rating_change,
    read_rating_history,
)
from playsite.store.database import Database, DatabaseUnavailable

T = TypeVar("T")


def ratings_routes(database: Database | None) -> RouteFamily:
    """The rating reads over `database`; None (the memory store): each answers 404 `persistence_required`."""
    routes = RouteFamily("ratings_routes", __name__, statuses=GAME_STATUSES)

    def persistent() -> Database:
        if database is None:
            # The code stays specific until specs/openapi.yaml lists it (tests/test_specs.py checks every code).
            raise Refusal(404, "persistence_required", "ratings exist only when the server runs with persistence")
        return database

    async def read(query: Callable[[psycopg.Connection], T]) -> T:
        message = "the ratings could not be read; try again"
        try:  # bounded as every read is: a store that does not answer is 503 in READ_TIMEOUT_S
            return await read_or_unavailable(lambda: persistent().run(query), message)
        except DatabaseUnavailable:
            raise temporarily_unavailable(message) from None

    @routes.get("/leaderboard")
    async def leaderboard() -> Response:
        # ?provisional=true: every rated bot and person, each entry saying whether its rating
        # is still provisional (converged ones first); without it, converged ratings only.
        provisional = request.args.get("provisional") == "true"
        rows = await read(lambda conn: read_leaders(conn, provisional))
        leaders = [
            {
                "rank": rank,
                "team": team,
                "name": name,
                "rating": float(rating),
                "rd": float(rd),
                "onLadder": bool(on_ladder),
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
            }
            for rank, (team, name, rating, rd, on_ladder, games, wins, draws, losses) in enumerate(rows, start=1)
        ]
        player_rows = await read(lambda conn: read_player_leaders(conn, provisional))
        players = [
            {
                "rank": rank,
                "nickname": nickname,
                "rating": float(rating),
                "rd": float(rd),
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
            }
            for rank, (nickname, rating, rd, games, wins, draws, losses) in enumerate(player_rows, start=1)
        ]
        if provisional:
            for entry in (*leaders, *players):
                entry["provisional"] = entry["rd"] > PROVISIONAL_RD
        return json_response({"leaders": leaders, "players": players}, headers=NO_CACHE)

    @routes.get("/players/<nickname>")
    async def player_profile(nickname: str) -> Response:
        persistent()  # without persistence: 404 persistence_required
        valid = NICKNAME.fullmatch(nickname)  # no query for a name no account can have
        found = await read(lambda conn: read_player_profile(conn, nickname)) if valid else None
        if found is None:
            raise Refusal(404, "player_not_found", "no player with this nickname")
        return json_response(found, headers=NO_CACHE)

    @routes.get("/bots/<team>/<name>")
    async def profile(team: str, name: str) -> Response:
        persistent()  # without persistence: 404 persistence_required, whatever the name
        valid = SLUG.fullmatch(team) and SLUG.fullmatch(name)  # no query for a name no bot can have
        found = await read(lambda conn: read_profile(conn, f"{team}/{name}")) if valid else None
        if found is None:
            raise Refusal(404, "bot_not_found", f"no registered bot {team}/{name}" if valid else "no registered bot with this name")
        return json_response(found, headers=NO_CACHE)

    async def history_of(principal_of: Callable[[psycopg.Connection], str | None]) -> list[dict[str, object]] | None:
        def query(conn: psycopg.Connection) -> list[dict[str, object]] | None:
            principal = principal_of(conn)
            return None if principal is None else read_rating_history(conn, principal)

        return await read(query)

    @routes.get("/players/<nickname>/rating-history")
    async def player_rating_history(nickname: str) -> Response:
        persistent()
        valid = NICKNAME.fullmatch(nickname)
        points = await history_of(lambda conn: player_principal(conn, nickname)) if valid else None
        if points is None:
            raise Refusal(404, "player_not_found", "no player with this nickname")
        return json_response({"nickname": nickname, "points": points}, headers=NO_CACHE)

    @routes.get("/bots/<team>/<name>/rating-history")
    async def bot_rating_history(team: str, name: str) -> Response:
        persistent()
        valid = SLUG.fullmatch(team) and SLUG.fullmatch(name)
        points = await history_of(lambda conn: bot_principal(conn, f"{team}/{name}")) if valid else None
        if points is None:
            raise Refusal(404, "bot_not_found", f"no registered bot {team}/{name}" if valid else "no registered bot with this name")
        return json_response({"team": team, "name": name, "points": points}, headers=NO_CACHE)

    @routes.get("/games/<game_id>/rating-change")
    async def game_rating_change(game_id: str) -> Response:
        persistent()
        game_id = canonical_game_id(game_id)
        found = await read(lambda conn: read_rating_change(conn, game_id))
        if found is None:
            # perhaps still being played: the answer may change, so it must not be cached
            raise Refusal(404, "game_not_found", "no finished game with this id", NO_CACHE)
        return json_response(found, headers=NO_CACHE)

    return routes
