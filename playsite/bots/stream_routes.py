"""The ndjson stream routes: GET /bot/stream/event and GET /bot/game/stream/{id} (see `streams`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from quart import Response

from playsite.bots.directory import BotDirectory
from playsite.bots.events import BotEvents
from playsite.bots.streams import NDJSON, account_lines, game_lines
from playsite.games.refusals import GAME_STATUSES, game_not_found
from playsite.http.auth import calling_bot
from playsite.http.errors import RouteFamily
from playsite.rooms.registry import Registry
from playsite.stopping import Stopping
from playsite.wire import SEATS


def stream_routes(
    bots: BotDirectory, events: BotEvents, registry: Registry, stopping: Stopping, *, keepalive_s: float
) -> RouteFamily:
    """A bot's own event stream (from `events`) and any game's stream (from `registry`), a
    keep-alive line every `keepalive_s` while quiet; both end when the server stops."""
    routes = RouteFamily("ndjson_routes", __name__, statuses=GAME_STATUSES)

    @routes.get("/bot/stream/event")
    async def account_stream() -> Response:
        account = calling_bot(bots)
        return ndjson_response(account_lines(events, account.id, keepalive_s, stopping))

    @routes.get("/bot/game/stream/<game_id>")
    async def game_stream(game_id: str) -> Response:
        account = calling_bot(bots)  # any bot may watch any game (401 without a bot token)
        room = registry.get(game_id)
        if room is None:
            raise game_not_found()
        seated = any(room.setup.seat(seat).principal == account.principal for seat in SEATS)
        return ndjson_response(game_lines(room, keepalive_s, stopping, seated=seated))

    return routes


def ndjson_response(lines: AsyncIterator[bytes]) -> Response:
    # Connection: close: the connection ends with the stream (a game stream ends with its
    # game), so a client that stopped reading does not keep the descriptor as a kept-alive
    # connection after it.
    response = Response(lines, status=200, content_type=NDJSON, headers={"Cache-Control": "no-cache", "Connection": "close"})
    response.timeout = None  # a stream lasts as long as its game, not RESPONSE_TIMEOUT
    return response
