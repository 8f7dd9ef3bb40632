"""Seek routes: bots post and accept (/bot/seeks...); the public list and the creator's
poll and cancel (/lobby/seeks...), the last two gated by the seek's secret. The list holds
bots' and people's seeks (`kind` says which); a people's seek id (`people-...`) is polled and
cancelled on the people's board (people_seek_routes.py posts and accepts them)."""

from __future__ import annotations

from quart import Response, request

from playsite.bots.directory import BotDirectory

from playsite.http.auth import calling_bot
from playsite.http.bodies import json_object
from playsite.http.errors import RouteFamily
from playsite.http.responses import NO_CACHE, NO_STORE, empty_response, json_response
from playsite.lobby import bodies
from playsite.lobby.people_seeks import encode_public_people_seek, encode_status, is_people_seek_id
from playsite.lobby.seeks import SeekState, encode_public_seek
from playsite.lobby.service import Lobby
from playsite.ratings.book import RatingBook
from playsite.refusals import Refused
from playsite.wire import DEFAULT_TIME_CONTROL


def mount_seek_routes(routes: RouteFamily, lobby: Lobby, bots: BotDirectory, ratings: RatingBook) -> None:

    @routes.post("/bot/seeks")
    async def post_seek() -> Response:
        account = calling_bot(bots)
        body = await json_object()
        # A human may sit down at a seek, so an omitted clock is the lobby default, not Unlimited.
        time_control = bodies.time_control(body, default=DEFAULT_TIME_CONTROL)
        seek, secret = lobby.seeks.post(account, time_control)
        return json_response({"seekId": seek.id, "secret": secret}, 201, NO_STORE)

    @routes.post("/bot/seeks/<seek_id>/accept")
    async def bot_accepts_seek(seek_id: str) -> Response:
        account = calling_bot(bots)
        game, _seat = await lobby.accept_seek(seek_id, account)
        return json_response({"gameId": game.room.game_id}, 201)

    @routes.get("/lobby/seeks")
    async def list_seeks() -> Response:
        # each with its seeker's rating now (null for a guest or an anonymous bot); `?viewer=<guest
        # id>` marks that guest's own seek `yours` (another tab of the browser that posted it)
        viewer = request.args.get("viewer")
        mine = bodies.guest_principal({"viewer": viewer}, "viewer") if viewer is not None else None
        seeks = [encode_public_seek(seek) | {"rating": ratings.public(seek.principal)} for seek in lobby.seeks.open_seeks()]
        seeks += [encode_public_people_seek(seek) | {"rating": ratings.public(seek.principal)}
                  | ({"yours": True} if seek.creator == mine else {})
                  for seek in lobby.people_seeks.open_seeks()]
        return json_response(seeks, headers=NO_CACHE)

    @routes.get("/lobby/seeks/<seek_id>")
    async def poll_seek(seek_id: str) -> Response:
        if is_people_seek_id(seek_id):
            return json_response(encode_status(lobby.people_seeks.poll(seek_id, creator_secret())), headers=NO_STORE)
        seek = lobby.seeks.poll(seek_id, creator_secret())
        body: dict = {"matched": seek.state is SeekState.MATCHED}
        if seek.game_id is not None:
            body["gameId"] = seek.game_id
        return json_response(body, headers=NO_STORE)

    @routes.delete("/lobby/seeks/<seek_id>")
    async def cancel_seek(seek_id: str) -> Response:
        board = lobby.people_seeks if is_people_seek_id(seek_id) else lobby.seeks
        board.cancel(seek_id, creator_secret())
        return empty_response(204)


def creator_secret() -> str:
    secret = request.args.get("secret")
    if not secret:
        raise Refused("secret_required", "give ?secret=<the secret POST /bot/seeks returned>")
    return secret
