"""Bot gameplay routes: /bot/game/{id}/seed|move|resign and /bot/games."""

from __future__ import annotations

from quart import Blueprint


def gameplay_routes(services) -> Blueprint:
    return Blueprint("gameplay_routes", __name__)
