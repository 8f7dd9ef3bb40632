"""Bot gameplay routes: /bot/game/{id}/seed|move|resign and /bot/games.

A bot seat needs no connection: each request hands the room a `PlayerCommand` for the
caller's seat. A move waits for the room's verdict at most `PLAY_MOVE_VERDICT_WAIT_MS` (3 s):
200 applied, 409 refused (both a MoveVerdict), or 202 with no verdict yet — the command
still stands and its outcome shows on the game stream and in the polling reads. A refused
turn is also an event of the room: `Rejected`, with a version of its own, on every stream of
the game. Seeds and resignations are fire-and-forget (202).
"""

from __future__ import annotations

from typing import NamedTuple

import trio
from quart import Response

from playsite.bots.directory import BotAccount, BotDirectory
from playsite.config import Settings
from playsite.games.refusals import GAME_STATUSES, game_not_found
from playsite.http.auth import calling_bot
from playsite.http.bodies import body_limit, json_object
from playsite.http.errors import RouteFamily, invalid_request
from playsite.http.ratelimit import RateLimiter, limit_by_address
from playsite.http.responses import NO_STORE, empty_response, json_response
from playsite.rooms.intents import PlayerCommand, Verdict
from playsite.rooms.model import TECHNICAL_ABORT_REASON
from playsite.rooms.registry import Registry
from playsite.rooms.room import Room
from playsite.wire import (
    MAX_COMMAND_BYTES,
    Resign,
    SubmitSeed,
    WireError,
    command_from_json,
    encode_clocks,
    encode_time_control,
)

BODY_MAX = MAX_COMMAND_BYTES
"""Gameplay bodies are commands: the same 4 KiB bound as a socket frame."""
GAME_IS_OVER = "game is over"


def gameplay_routes(registry: Registry, bots: BotDirectory, settings: Settings) -> RouteFamily:
    """Seated bots' commands to the rooms of `registry`, and their list of games."""
    routes = RouteFamily("gameplay_routes", __name__, statuses=GAME_STATUSES)
    wait_s = settings.move_verdict_wait_ms / 1000

    commands = RateLimiter(settings.bot_commands_per_minute, 60)

    async def seated_request(game_id: str) -> Seated:
        """The caller, its seat and the JSON body (429, 401, 404, 415 or 400 otherwise)."""
        limit_by_address(commands, "game commands")
        account = calling_bot(bots)
        room = registry.get(game_id)
        seats = room.seats_of(account.principal) if room is not None else ()
        if room is None or not seats:
            raise game_not_found("no such game, or you are not seated in it")
        body = await json_object()
        # A bot holding both seats (a self-game) acts for whichever is to move.
        seat = room.turn.seat if room.turn.seat in seats else seats[0]
        return Seated(account, room, seat, body)

    @routes.post("/bot/game/<game_id>/seed")
    @body_limit(BODY_MAX)
    async def submit_seed(game_id: str) -> Response:
        seated = await seated_request(game_id)
        if set(seated.body) != {"seed"} or not isinstance(seated.body["seed"], str):
            raise invalid_request('send {"seed": "<string>"} and nothing else')
        # Duplicate, late or malformed seeds are the dice layer's to ignore: still 202 (the
        # ecosystem's answer), with a body that says whether the seed counts, and if not why.
        verdict = await verdict_or_later(seated.room, PlayerCommand(seated.seat, SubmitSeed(seated.body["seed"])), wait_s)
        if verdict is None:
            return json_response({"accepted": None, "reason": None}, 202)
        return json_response({"accepted": verdict.applied, "reason": None if verdict.applied else verdict.reason}, 202)

    @routes.post("/bot/game/<game_id>/move")
    @body_limit(BODY_MAX)
    async def submit_move(game_id: str) -> Response:
        seated = await seated_request(game_id)
        try:
            command = command_from_json({"SubmitTurn": seated.body})
        except WireError as error:
            raise invalid_request(f"bad move body: {error.reason}") from None
        verdict = await verdict_or_later(seated.room, PlayerCommand(seated.seat, command), wait_s)
        if verdict is None:
            return json_response({"applied": False, "version": None, "reason": None}, 202)
        return json_response(verdict_json(verdict), 200 if verdict.applied else 409)

    @routes.post("/bot/game/<game_id>/resign")
    @body_limit(BODY_MAX)
    async def resign(game_id: str) -> Response:
        seated = await seated_request(game_id)
        await seated.room.send(PlayerCommand(seated.seat, Resign()))
        return empty_response(202)

    @routes.get("/bot/games")
    async def my_games() -> Response:
        account = calling_bot(bots)
        # gone from the list once its end is published, not before: a polling bot that sees its
        # game go then reads it ended (play-through s74: it read {"Active": {}} for a moment)
        games = [
            my_game(room, seat)
            for room in list(registry.live.values())
            if not room.ended_as_published
            for seat in room.seats_of(account.principal)
        ]
        return json_response({"games": games}, headers=NO_STORE)

    return routes


class Seated(NamedTuple):
    account: BotAccount
    room: Room
    seat: str
    body: dict


async def verdict_or_later(room: Room, intent: PlayerCommand, wait_s: float) -> Verdict | None:
    """The room's verdict on `intent`, or None when it took longer than `wait_s` (a 202).

    The intent still stands then; one the room had not even queued (its queue was full)
    is queued later by `queue_late`.
    """
    queued = False
    with trio.move_on_after(wait_s):
        if not await room.send(intent):
            return Verdict(False, room.version, GAME_IS_OVER)
        queued = True
        return await intent.reply.wait()
    if not queued:
        room.spawn(queue_late, room, intent)
    return None


async def queue_late(room: Room, intent: PlayerCommand) -> None:
    """Finish what a 202 left standing: queue the intent the room had no room for yet. Its
    outcome is the room's to tell (a TurnPlayed, or a Rejected on every stream of the game)."""
    await room.send(intent)


def verdict_json(verdict: Verdict) -> dict:
    """The MoveVerdict as the ecosystem writes it: a refusal has `version: null` and its short
    reason ("illegal turn", "not your turn", "game is over"); what follows the reason's colon
    (which move, why) is kept in `detail`, a playsite extension."""
    if verdict.applied:
        return {"applied": True, "version": verdict.version, "reason": None}
    reason, _, detail = (verdict.reason or "refused").partition(": ")
    # A technical abort keeps its version: the last durable one, where the game now stands.
    version = verdict.version if verdict.reason == TECHNICAL_ABORT_REASON else None
    body = {"applied": False, "version": version, "reason": reason}
    if detail:
        body["detail"] = detail
    return body


def my_game(room: Room, seat: str) -> dict[str, object]:
    state = room.public_state()
    return {
        "gameId": room.game_id,
        "seat": seat,
        "activeSeat": state.active_seat,
        "dicePending": state.dice_pending,
        "timeControl": encode_time_control(state.time_control),
        "clocks": encode_clocks(state.clocks),
        "version": state.version,
    }
