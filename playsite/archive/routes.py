"""GET /games/{id}/history: a finished game's archive record, independent of live rooms;
GET /games/{id}/players: the names its people go by now (`faces`); GET /archive: the newest
finished games, for the web client's history page, with those names (`before=<game id>`: the
page after that game)."""

from __future__ import annotations

import json

from quart import Response, request

from playsite.archive.faces import current_faces, named
from playsite.games.refusals import GAME_STATUSES, canonical_game_id
from playsite.http.errors import Refusal, RouteFamily, read_or_unavailable
from playsite.http.responses import json_response
from playsite.principals import canonical_uuid
from playsite.store import Store
from playsite.store.database import Database

IMMUTABLE = "public, max-age=31536000, immutable"
ARCHIVE_LIST_DEFAULT = 30
ARCHIVE_LIST_MAX = 100


def archive_routes(store: Store, database: Database | None) -> RouteFamily:
    """`database` (None without PostgreSQL, where there are no accounts to name) gives the names."""
    routes = RouteFamily("archive", __name__, statuses=GAME_STATUSES)

    async def faces_now(game_ids: list[str]) -> dict:
        if database is None:
            return {}
        return await read_or_unavailable(
            lambda: database.run(lambda conn: current_faces(conn, game_ids)), "the players could not be read; try again"
        )

    async def finished_record(game_id: str) -> dict:
        """The archive record of a finished game (`game_id` canonical), else 404 `game_not_found`."""
        record = await read_or_unavailable(
            lambda: store.read_archive(game_id), "the history could not be read; try again"
        )
        if record is None:
            # Perhaps still being played: the answer may change, so it must not be cached.
            raise Refusal(404, "game_not_found", "no finished game with this id", {"Cache-Control": "no-cache"})
        return record

    @routes.get("/games/<game_id>/history")
    async def read_history(game_id: str) -> Response:
        record = await finished_record(canonical_game_id(game_id))
        text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
        return Response(text, content_type="application/json", headers={"Cache-Control": IMMUTABLE})

    @routes.get("/archive")
    async def list_archive() -> Response:
        limit = request.args.get("limit", str(ARCHIVE_LIST_DEFAULT))
        if not limit.isdigit() or not 1 <= int(limit) <= ARCHIVE_LIST_MAX:
            raise Refusal(400, "invalid_request", f"limit: a whole number from 1 to {ARCHIVE_LIST_MAX}")
        before = request.args.get("before")
        if before is not None:
            before = canonical_uuid(before)
            if before is None:
                raise Refusal(400, "invalid_request", "before: the id of a listed game")
        people = request.args.get("people")
        if people not in (None, "1"):
            raise Refusal(400, "invalid_request", "people: 1 (only the games a person played in), or absent")
        games = await read_or_unavailable(
            lambda: store.recent_archives(int(limit), before, with_people=people == "1"),
            "the finished games could not be read; try again",
        )
        faces = await faces_now([game["gameId"] for game in games])
        games = [{**game, "players": named(game.get("players"), faces.get(game["gameId"]))} for game in games]
        return json_response({"games": games}, headers={"Cache-Control": "no-cache"})

    @routes.get("/games/<game_id>/players")
    async def read_players(game_id: str) -> Response:
        """The record's faces with each person named as they are now (never cached: a
        nickname changes, and a deleted account's goes)."""
        game_id = canonical_game_id(game_id)
        record = await finished_record(game_id)
        faces = await faces_now([game_id])
        return json_response(named(record.get("players"), faces.get(game_id)), headers={"Cache-Control": "no-cache"})

    return routes
