"""The idle forfeit of Unlimited games (PLAY_IDLE_FORFEIT_S): a seat to move that does not play
its roll in time loses on time; off by default; clocked games never use it."""

from __future__ import annotations

import random

import trio

from playsite.rooms.admission import Purpose
from playsite.rules import Termination
from playsite.wire import Fischer, Unlimited
from tests.support.rooms import play_one_turn, room_setup, running_registry


async def test_an_idle_seat_loses_on_time_after_both_have_played(autojump_clock):
    async with running_registry(idle_forfeit_s=120) as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), Purpose.GENERAL, ())
        assert room.setup.idle_forfeit_s == 120
        rng, movers = random.Random(4), set()
        while movers != {"White", "Black"}:
            movers.add(await play_one_turn(room, rng))
        idle = room.game.active_seat
        started = trio.current_time()
        await room.finished.wait()
        assert trio.current_time() - started == 120
        assert room.ending.termination is Termination.TIMEOUT
        assert room.ending.winner == ("Black" if idle == "White" else "White")


async def test_a_bot_that_never_moves_frees_its_game_as_an_abort(autojump_clock):
    async with running_registry(idle_forfeit_s=120) as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), Purpose.GENERAL, ())
        await room.finished.wait()
        assert room.ending.termination is Termination.ABORTED, "no result before both seats have played"
        assert not room.ending.technical
        assert room.ending.abort is not None and room.ending.abort.cause == "timeout"


async def test_off_by_default_and_never_for_clocked_games(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), Purpose.GENERAL, ())
        await trio.sleep(86_400)
        assert not room.ended and room.setup.idle_forfeit_s is None
    async with running_registry(idle_forfeit_s=120) as registry:
        clocked = await registry.create(room_setup(time_control=Fischer(3600, 0)), Purpose.GENERAL, ())
        assert clocked.setup.idle_forfeit_s is None
        await trio.sleep(600)
        assert not clocked.ended, "a clocked game is decided by its clock, not by the idle forfeit"
