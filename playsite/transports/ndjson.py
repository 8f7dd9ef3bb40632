"""ndjson streams: /bot/stream/event and /bot/game/stream/{id}."""

from __future__ import annotations

from quart import Blueprint


def ndjson_routes(services) -> Blueprint:
    return Blueprint("ndjson_routes", __name__)
