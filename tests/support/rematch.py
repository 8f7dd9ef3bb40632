"""Rematch over HTTP on a real PostgreSQL, booted in-process: a server whose origin is allowed,
and a friend game two people finished (the source of a rematch)."""

from __future__ import annotations

import contextlib
import random
import uuid

from playsite.config import Settings
from playsite.bots.games import Human
from playsite.games.creation import create_human_game
from playsite.lobby.people_seek_routes import PEOPLE_SEEK_ORIGIN
from playsite.rooms.intents import Abort, Rebind
from playsite.rooms.model import RoomPhase
from playsite.wire import BLACK, SEATS, WHITE, Fischer, Resign, SubmitTurn
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
):
    """A friend game played by two people (a turn each), then resigned by White (or, with
    `technical_abort`, aborted by the server itself); `through_a_seek`: a game two people met
    in through a lobby seek instead. Returns (game id, seat -> token, seat -> principal)."""
    principals = principals or {seat: f"guest:{uuid.uuid4()}" for seat in SEATS}
    if through_a_seek:
        met = await services.lobby.start_game(
            white=Human(principals[WHITE]), black=Human(principals[BLACK]), time_control=Fischer(300, 3),
            origin=PEOPLE_SEEK_ORIGIN,
        )
        room, tokens = met.room, dict(met.human_tokens)
    else:
        created = await create_human_game(
            services.registry, Fischer(300, 3), rated=rated, seed_window_s=0, durability=services.settings.game_durability
        )
        room, tokens = created.room, created.tokens
    for seat in SEATS:
        rebind = Rebind(seat, principals[seat], None)
        assert await room.send(rebind) and await rebind.reply.wait()
    subscribers = [await attach(room, seat) for seat in SEATS]
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
