"""Challenges, seeks, human lobby and wake routes (/bot/challenge..., /bot/seeks..., /lobby/...).

The process's one `Lobby` (built by the boot, which also runs its housekeeping) holds the
pending offers; these routes only parse, authorise and hand over.
"""

from __future__ import annotations

from playsite.bots.refusals import BOT_API_STATUSES
from playsite.http.errors import RouteFamily
from playsite.lobby.challenge_routes import mount_challenge_routes
from playsite.lobby.human_routes import mount_human_routes
from playsite.lobby.people_seek_routes import mount_people_seek_routes
from playsite.lobby.seek_routes import mount_seek_routes
from playsite.lobby.wake_routes import mount_wake_routes
from playsite.services import Services


def lobby_routes(services: Services) -> RouteFamily:
    routes = RouteFamily("lobby_routes", __name__, statuses=BOT_API_STATUSES)
    mount_challenge_routes(routes, services)
    mount_seek_routes(routes, services)
    mount_human_routes(routes, services)
    mount_people_seek_routes(routes, services)
    mount_wake_routes(routes, services)
    return routes
