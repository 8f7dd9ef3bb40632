"""GET /games/{id}/history: a finished game's archive record, independent of live rooms."""

from __future__ import annotations

import json

from quart import Response

from playsite.games.refusals import canonical_game_id
from playsite.http.errors import Refusal, RouteFamily, read_or_unavailable
from playsite.services import Services

IMMUTABLE = "public, max-age=31536000, immutable"


def archive_routes(services: Services) -> RouteFamily:
    routes = RouteFamily("archive", __name__)

    @routes.get("/games/<game_id>/history")
    async def read_history(game_id: str):
        game_id = canonical_game_id(game_id)
        record = await read_or_unavailable(
            lambda: services.store.read_archive(game_id), "the history could not be read; try again"
        )
        if record is None:
            # Perhaps still being played: the answer may change, so it must not be cached.
            raise Refusal(404, "game_not_found", "no finished game with this id", {"Cache-Control": "no-cache"})
        text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
        return Response(text, content_type="application/json", headers={"Cache-Control": IMMUTABLE})

    return routes
