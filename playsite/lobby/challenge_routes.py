"""Challenge routes: POST /bot/challenge, GET /bot/challenges, POST /bot/challenge/{id}/accept|decline."""

from __future__ import annotations

from quart import Blueprint

from playsite.games.routes import json_response
from playsite.lobby import bodies
from playsite.lobby.challenges import encode_challenge
from playsite.lobby.http import json_object, with_bot
from playsite.lobby.refusals import LobbyRefusal
from playsite.wire import Unlimited


def mount_challenge_routes(routes: Blueprint, lobby) -> None:
    bots, events = lobby.services.bots, lobby.services.account_events

    @routes.post("/bot/challenge")
    @with_bot(bots)
    async def create_challenge(account):
        body = await json_object()
        if isinstance(body, tuple):
            return body
        team, name = bodies.required_string(body, "team"), bodies.required_string(body, "name")
        time_control = bodies.time_control(body, default=Unlimited())
        target = bots.get(f"{team}/{name}")
        if target is None:
            raise LobbyRefusal("bot_not_found", f"no bot {team}/{name}")
        challenge = lobby.challenges.create(account, target, time_control)
        return json_response({**encode_challenge(challenge), "targetOnline": events.online(target.id)}, 201)

    @routes.get("/bot/challenges")
    @with_bot(bots)
    async def list_challenges(account):
        incoming, outgoing = lobby.challenges.involving(account)
        body = {"in": [encode_challenge(c) for c in incoming], "out": [encode_challenge(c) for c in outgoing]}
        return json_response(body, headers={"Cache-Control": "no-store"})

    @routes.post("/bot/challenge/<challenge_id>/accept")
    @with_bot(bots)
    async def accept_challenge(account, challenge_id: str):
        game = await lobby.accept_challenge(account, challenge_id)
        return json_response({"gameId": game.room.game_id}, 201)

    @routes.post("/bot/challenge/<challenge_id>/decline")
    @with_bot(bots)
    async def decline_challenge(account, challenge_id: str):
        challenge = lobby.challenges.decline(account, challenge_id)
        return json_response({"id": challenge.id})
