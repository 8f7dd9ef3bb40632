"""The ndjson stream routes: GET /bot/stream/event and GET /bot/game/stream/{id} (see `streams`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from quart import Response

from playsite.bots.streams import NDJSON, account_lines, game_lines
from playsite.games.refusals import game_not_found
from playsite.http.auth import calling_bot
from playsite.http.errors import RouteFamily
from playsite.services import Services


def stream_routes(services: Services) -> RouteFamily:
    routes = RouteFamily("ndjson_routes", __name__)
    keepalive = services.settings.ndjson_keepalive_ms / 1000

    @routes.get("/bot/stream/event")
    async def account_stream():
        account = calling_bot(services.bots)
        return ndjson_response(account_lines(services.bot_events, account.id, keepalive))

    @routes.get("/bot/game/stream/<game_id>")
    async def game_stream(game_id: str):
        calling_bot(services.bots)  # any bot may watch any game (401 without a bot token)
        room = services.registry.get(game_id)
        if room is None:
            raise game_not_found()
        return ndjson_response(game_lines(room, keepalive))

    return routes


def ndjson_response(lines: AsyncIterator[bytes]) -> Response:
    # Connection: close: the connection ends with the stream (a game stream ends with its
    # game), so a client that stopped reading does not keep the descriptor as a kept-alive
    # connection after it.
    response = Response(lines, status=200, content_type=NDJSON, headers={"Cache-Control": "no-cache", "Connection": "close"})
    response.timeout = None  # a stream lasts as long as its game, not RESPONSE_TIMEOUT
    return response
