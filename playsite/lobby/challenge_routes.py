"""Challenge routes: POST /bot/challenge, GET /bot/challenges, POST /bot/challenge/{id}/accept|decline."""

from __future__ import annotations

from quart import Response

from playsite.bots.directory import BotDirectory
from playsite.bots.events import BotEvents

from playsite.http.auth import calling_bot
from playsite.http.bodies import json_object
from playsite.http.errors import RouteFamily
from playsite.http.responses import NO_STORE, json_response
from playsite.lobby import bodies
from playsite.lobby.challenges import encode_challenge
from playsite.lobby.service import Lobby
from playsite.refusals import Refused
from playsite.wire import Unlimited


def mount_challenge_routes(routes: RouteFamily, lobby: Lobby, bots: BotDirectory, events: BotEvents) -> None:

    @routes.post("/bot/challenge")
    async def create_challenge() -> Response:
        account = calling_bot(bots)
        body = await json_object()
        team, name = bodies.required_string(body, "team"), bodies.required_string(body, "name")
        time_control = bodies.time_control(body, default=Unlimited())
        target = bots.get(f"{team}/{name}")
        if target is None:
            raise Refused("bot_not_found", f"no bot {team}/{name}")
        challenge = lobby.challenges.create(account, target, time_control)
        return json_response({**encode_challenge(challenge), "targetOnline": events.online(target.id)}, 201)

    @routes.get("/bot/challenges")
    async def list_challenges() -> Response:
        account = calling_bot(bots)
        incoming, outgoing = lobby.challenges.involving(account)
        body = {"in": [encode_challenge(c) for c in incoming], "out": [encode_challenge(c) for c in outgoing]}
        return json_response(body, headers=NO_STORE)

    @routes.post("/bot/challenge/<challenge_id>/accept")
    async def accept_challenge(challenge_id: str) -> Response:
        account = calling_bot(bots)
        game = await lobby.accept_challenge(account, challenge_id)
        return json_response({"gameId": game.room.game_id}, 201)

    @routes.post("/bot/challenge/<challenge_id>/decline")
    async def decline_challenge(challenge_id: str) -> Response:
        account = calling_bot(bots)
        challenge = lobby.challenges.decline(account, challenge_id)
        return json_response({"id": challenge.id})
