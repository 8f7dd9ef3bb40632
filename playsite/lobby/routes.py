"""Challenges, seeks, human lobby and wake routes (/bot/challenge..., /bot/seeks..., /lobby/...).

The process's one `Lobby` (built by the boot, which also runs its housekeeping) holds the
pending offers; these routes only parse, authorise and hand over.
"""

from __future__ import annotations

from playsite.accounts.service import Accounts
from playsite.bots.directory import BotDirectory
from playsite.bots.events import BotEvents
from playsite.bots.refusals import BOT_API_STATUSES
from playsite.http.errors import RouteFamily
from playsite.lobby.challenge_routes import mount_challenge_routes
from playsite.lobby.human_routes import mount_human_routes
from playsite.lobby.people_seek_routes import mount_people_seek_routes
from playsite.lobby.seek_routes import mount_seek_routes
from playsite.lobby.wake_routes import mount_wake_routes
from playsite.lobby.service import Lobby
from playsite.lobby.wake import Wakes
from playsite.ratings.book import RatingBook
from playsite.rooms.admission import Admission


def lobby_routes(
    lobby: Lobby, *, bots: BotDirectory, events: BotEvents, accounts: Accounts, admission: Admission,
    ratings: RatingBook, wakes: Wakes,
) -> RouteFamily:
    routes = RouteFamily("lobby_routes", __name__, statuses=BOT_API_STATUSES)
    mount_challenge_routes(routes, lobby, bots, events)
    mount_seek_routes(routes, lobby, bots, ratings)
    mount_human_routes(routes, lobby, accounts, bots, admission, ratings)
    mount_people_seek_routes(routes, lobby, accounts)
    mount_wake_routes(routes, wakes)
    return routes
