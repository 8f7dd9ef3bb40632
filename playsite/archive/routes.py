"""GET /games/{id}/history: a finished game's archive record, independent of live rooms."""

from __future__ import annotations

import json

import trio

from quart import Response

from playsite.games.refusals import canonical_game_id
from playsite.http.errors import Refusal, RouteFamily, temporarily_unavailable
from playsite.services import Services

IMMUTABLE = "public, max-age=31536000, immutable"
READ_TIMEOUT_S = 3
"""A history read that takes longer is answered 503 with Retry-After."""


def archive_routes(services: Services) -> RouteFamily:
    routes = RouteFamily("archive", __name__)

    @routes.get("/games/<game_id>/history")
    async def read_history(game_id: str):
        game_id = canonical_game_id(game_id)
        record = None
        with trio.move_on_after(READ_TIMEOUT_S) as deadline:
            record = await services.store.read_archive(game_id)
        if deadline.cancelled_caught:  # a store that does not answer is unavailable, not broken
            raise temporarily_unavailable("the history could not be read; try again")
        if record is None:
            # Perhaps still being played: the answer may change, so it must not be cached.
            raise Refusal(404, "game_not_found", "no finished game with this id", {"Cache-Control": "no-cache"})
        text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
        return Response(text, content_type="application/json", headers={"Cache-Control": IMMUTABLE})

    return routes
