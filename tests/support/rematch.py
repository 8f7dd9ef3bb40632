"""Rematch over HTTP on a real PostgreSQL, booted in-process: a server whose origin is allowed,
a finished game (the source of a rematch), and the participants' requests."""

from __future__ import annotations

import contextlib
import random
import uuid
from datetime import datetime

from playsite.bots.directory import BotAccount
from playsite.bots.games import Human
from playsite.config import Settings
from playsite.games.creation import create_human_game
from playsite.lobby.people_seek_routes import PEOPLE_SEEK_ORIGIN
from playsite.rooms.intents import Abort, Rebind
from playsite.rooms.model import RoomPhase
from playsite.wire import BLACK, SEATS, WHITE, Fischer, Resign, SubmitTurn, TimeControl
from tests.support.app import booted, test_client
from tests.support.rooms import attach, command, sparing_turn
from tests.support.waiting import wait_until

ORIGIN = "https://play.example"
WRITE = {"Origin": ORIGIN, "X-Game-CSRF": "1"}


def settings_for(url: str, **overrides) -> Settings:
    values = dict(database_url=url, persistence_enabled=True, dice_seed_window_ms=0, cors_origins=(ORIGIN,))
    values.update(overrides)
    return Settings(**values)


@contextlib.asynccontextmanager
async def server(url: str, **overrides):
    async with booted(settings_for(url, **overrides)) as services:
        yield services, test_client(services)


async def finished_game(
    services,
    principals: dict | None = None,
    *,
    rated: bool = False,
    resign_after_turns: bool = True,
    technical_abort: bool = False,
    through_a_seek: bool = False,
    origin: str | None = None,
    time_control: TimeControl = Fischer(300, 3),
):
    """A friend game played by two people (a turn each), then resigned by White (or, with
    `technical_abort`, aborted by the server itself); `through_a_seek`: a game two people met
    in through a lobby seek instead; `origin`: a game the lobby started with that origin.
    `principals` says who takes each seat: a principal, a `BotAccount` (a bot's seat, always
    present: the lobby starts the game) or None (a friend game's seat never taken). Returns
    (game id, seat -> token, seat -> principal)."""
    principals = principals or {seat: f"guest:{uuid.uuid4()}" for seat in SEATS}
    if through_a_seek:
        origin = PEOPLE_SEEK_ORIGIN
    if origin is not None or any(isinstance(who, BotAccount) for who in principals.values()):
        participants = {seat: who if isinstance(who, BotAccount) else Human(who) for seat, who in principals.items()}
        met = await services.lobby.start_game(
            white=participants[WHITE], black=participants[BLACK], time_control=time_control,
            origin=origin or PEOPLE_SEEK_ORIGIN, rated=rated,
        )
        room, tokens = met.room, dict(met.human_tokens)
    else:
        created = await create_human_game(
            services.registry, time_control, rated=rated, seed_window_s=0, durability=services.settings.game_durability
        )
        room, tokens = created.room, created.tokens
    people = [seat for seat in SEATS if isinstance(principals[seat], str)]
    for seat in people:
        rebind = Rebind(seat, principals[seat], None)
        assert await room.send(rebind) and await rebind.reply.wait()
    subscribers = [await attach(room, seat) for seat in people]
    rng = random.Random(7)
    while resign_after_turns and len(room.game.played) < 2:
        await wait_until(lambda: room.game.phase is RoomPhase.PLAYING and room.game.tree, "a roll with moves", timeout=10)
        verdict = await command(room, room.game.active_seat, SubmitTurn(sparing_turn(room, rng)))
        assert verdict.applied, verdict.reason
    if technical_abort:
        abort = Abort("the test's technical abort")
        assert await room.send(abort) and await abort.reply.wait()
    else:
        await command(room, WHITE, Resign())
    await wait_until(lambda: room.completed, "the source's ending committed", timeout=10)
    del subscribers
    return room.game_id, tokens, principals


def as_seat(token: str) -> dict:
    return {"X-Rematch-Seat-Token": token}


async def post(client, game_id: str, token: str | None, action: str, request_id: str | None = None,
               scope_base: dict | None = None, **headers):
    """One command as `token`'s seat (None: no seat header): (status, JSON body, headers)."""
    body = {"requestId": request_id or str(uuid.uuid4()), "action": action}
    sent = {**WRITE, **(as_seat(token) if token else {}), **headers}
    response = await client.post(f"/games/{game_id}/rematch", json=body, headers=sent, scope_base=scope_base)
    return response.status_code, await response.get_json(), response.headers


async def get(client, game_id: str, token: str | None, scope_base: dict | None = None, **headers):
    """The private state as `token`'s seat reads it: (status, JSON body, headers)."""
    response = await client.get(
        f"/games/{game_id}/rematch", headers={**(as_seat(token) if token else {}), **headers}, scope_base=scope_base
    )
    return response.status_code, await response.get_json(), response.headers


async def continuation(client, game_id: str) -> dict:
    response = await client.get(f"/games/{game_id}/continuation")
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    return await response.get_json()


async def accept(client, game_id: str, token: str, action: str = "accept") -> dict:
    """Accept the offer as `token`'s seat (with `action`: the other's `propose` is consent too):
    the matched state that seat then reads. The answer says `starting` when the successor's
    commit took longer than the request waits for it (a loaded machine): the seat then reads on
    until it is matched, as a client polls."""
    status, body, _ = await post(client, game_id, token, action)
    assert status == 200 and body["phase"] in ("starting", "matched"), body
    if body["phase"] == "matched":
        return body
    return await wait_until(lambda: matched_state(client, game_id, token), "the successor hosted", timeout=20)


async def rematched(client, game_id: str, tokens: dict) -> dict:
    """The source offers a rematch (Black reads it available), White proposes, Black accepts:
    a successor other than the source is matched. Returns Black's matched state."""
    _, body, _ = await get(client, game_id, tokens[BLACK])
    assert body["phase"] == "available" and body["allowedActions"] == ["propose"]
    status, body, _ = await post(client, game_id, tokens[WHITE], "propose")
    assert status == 200 and body["phase"] == "offered"
    body = await accept(client, game_id, tokens[BLACK])
    assert body["phase"] == "matched" and body["nextGameId"] != game_id
    return body


async def matched_state(client, game_id: str, token: str) -> dict | None:
    """The seat's state once it is matched (None before)."""
    status, body, _ = await get(client, game_id, token)
    assert status == 200, body
    return body if body["phase"] == "matched" else None


def seconds(stamp: str) -> float:
    """A payload's timestamp as seconds since the epoch."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
