"""Seek routes: bots post and accept (/bot/seeks...); the public list and the creator's
poll and cancel (/lobby/seeks...), the last two gated by the seek's secret."""

from __future__ import annotations

from quart import Blueprint, Response, request

from playsite.games.routes import json_response
from playsite.lobby import bodies
from playsite.lobby.http import answers_refusals, json_object, with_bot
from playsite.lobby.refusals import LobbyRefusal
from playsite.lobby.seeks import SeekState, encode_public_seek
from playsite.wire import DEFAULT_TIME_CONTROL


def mount_seek_routes(routes: Blueprint, lobby) -> None:
    bots = lobby.services.bots

    @routes.post("/bot/seeks")
    @with_bot(bots)
    async def post_seek(account):
        body = await json_object()
        if isinstance(body, tuple):
            return body
        # A human may sit down at a seek, so an omitted clock is the lobby default, not Unlimited.
        time_control = bodies.time_control(body, default=DEFAULT_TIME_CONTROL)
        seek, secret = lobby.seeks.post(account, time_control)
        return json_response({"seekId": seek.id, "secret": secret}, 201, {"Cache-Control": "no-store"})

    @routes.post("/bot/seeks/<seek_id>/accept")
    @with_bot(bots)
    async def bot_accepts_seek(account, seek_id: str):
        game, _seat = await lobby.accept_seek(seek_id, account)
        return json_response({"gameId": game.room.game_id}, 201)

    @routes.get("/lobby/seeks")
    async def list_seeks():
        seeks = [encode_public_seek(seek) for seek in lobby.seeks.open_seeks()]
        return json_response(seeks, headers={"Cache-Control": "no-cache"})

    @routes.get("/lobby/seeks/<seek_id>")
    @answers_refusals
    async def poll_seek(seek_id: str):
        seek = lobby.seeks.poll(seek_id, creator_secret())
        body: dict = {"matched": seek.state is SeekState.MATCHED}
        if seek.game_id is not None:
            body["gameId"] = seek.game_id
        return json_response(body, headers={"Cache-Control": "no-store"})

    @routes.delete("/lobby/seeks/<seek_id>")
    @answers_refusals
    async def cancel_seek(seek_id: str):
        lobby.seeks.cancel(seek_id, creator_secret())
        return Response(b"", status=204)


def creator_secret() -> str:
    secret = request.args.get("secret")
    if not secret:
        raise LobbyRefusal("secret_required", "give ?secret=<the secret POST /bot/seeks returned>")
    return secret
