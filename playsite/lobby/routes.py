"""Challenges, seeks and human lobby routes (/bot/challenge..., /bot/seeks..., /lobby/...)."""

from __future__ import annotations

from quart import Blueprint


def lobby_routes(services) -> Blueprint:
    return Blueprint("lobby_routes", __name__)
