"""Challenges, seeks and human lobby routes (/bot/challenge..., /bot/seeks..., /lobby/...).

One Lobby per process holds the pending offers; its housekeeping task lives in the app's
serving nursery, started when serving starts and stopped when it ends.
"""

from __future__ import annotations

from quart import Blueprint, current_app

from playsite.lobby.challenge_routes import mount_challenge_routes
from playsite.lobby.human_routes import mount_human_routes
from playsite.lobby.seek_routes import mount_seek_routes
from playsite.lobby.service import Lobby


def lobby_routes(services) -> Blueprint:
    routes = Blueprint("lobby_routes", __name__)
    lobby = Lobby(services)

    @routes.before_app_serving
    async def start_housekeeping():
        await current_app.nursery.start(lobby.run)

    @routes.after_app_serving
    async def stop_housekeeping():
        lobby.stop()

    mount_challenge_routes(routes, lobby)
    mount_seek_routes(routes, lobby)
    mount_human_routes(routes, lobby)
    return routes
