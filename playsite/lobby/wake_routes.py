"""POST /lobby/bots/{team}/{name}/wake: is a catalog bot there to play now? (`lobby/wake.py`)

Public, no body. Each call may make playsite contact the bot, so each client address may
wake at most `WAKES_PER_MINUTE` times a minute (429 with Retry-After past it), on top of the
per-bot bound the waking itself keeps.
"""

from __future__ import annotations

from quart import Response

from playsite.http.errors import RouteFamily
from playsite.http.ratelimit import RateLimiter, limit_by_address
from playsite.http.responses import NO_STORE, json_response
from playsite.lobby.wake import Wakes

WAKES_PER_MINUTE = 10
"""Per client address: a visitor wakes a bot once before each game it starts."""


def mount_wake_routes(routes: RouteFamily, wakes: Wakes) -> None:
    per_address = RateLimiter(WAKES_PER_MINUTE, 60)

    @routes.post("/lobby/bots/<team>/<name>/wake")
    async def wake_catalog_bot(team: str, name: str) -> Response:
        limit_by_address(per_address, "wake requests")
        woken = await wakes.wake(f"{team}/{name}")
        return json_response({"alive": woken.alive, "busy": woken.busy}, headers=NO_STORE)
