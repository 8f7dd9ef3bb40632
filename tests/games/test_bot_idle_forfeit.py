"""No bot game hangs forever: an Unlimited game with a bot seat forfeits the seat to move after
PLAY_BOT_IDLE_FORFEIT_S (120 s by default, as in the ecosystem), and the bot's capacity is free
the moment the game ends."""

from __future__ import annotations

import pytest
import trio
from trio.testing import wait_all_tasks_blocked

from playsite.config import Settings
from playsite.rooms.admission import AdmissionRefused, Limits, Purpose
from playsite.rooms.model import SeatSetup
from playsite.rules import Termination
from playsite.tokens import new_token
from playsite.wire import Fischer, PublicFace, Unlimited
from tests.support.rooms import room_setup, running_registry, seat_setup

BOT = "bot:acme/stalls"
REFERENCE_IDLE_S = 120


def bot_seat() -> SeatSetup:
    return SeatSetup(
        token_hash=new_token()[1], face=PublicFace(kind="Bot", name="acme stalls"), principal=BOT, always_present=True
    )


def bot_game(**overrides):
    return room_setup(white=bot_seat(), black=seat_setup(), participants=(BOT,), **overrides)


def one_game_at_a_time(participant: str):
    return Limits.bot(1) if participant == BOT else None


def test_the_bots_idle_forfeit_is_the_ecosystems_120_s_by_default_and_0_turns_it_off():
    assert Settings().bot_idle_forfeit_s == REFERENCE_IDLE_S
    assert Settings.from_environ({}).bot_idle_forfeit_s == REFERENCE_IDLE_S
    assert Settings.from_environ({"PLAY_BOT_IDLE_FORFEIT_S": "0"}).bot_idle_forfeit_s == 0
    assert Settings.from_environ({"PLAY_BOT_IDLE_FORFEIT_S": "45"}).bot_idle_forfeit_s == 45


async def test_a_silent_bots_unlimited_game_ends_after_120_s_and_frees_its_capacity_at_once(autojump_clock):
    async with running_registry(limits_of=one_game_at_a_time, bot_idle_forfeit_s=REFERENCE_IDLE_S) as registry:
        room = await registry.create(bot_game(time_control=Unlimited()), Purpose.GENERAL, (BOT,))
        assert room.setup.idle_forfeit_s == REFERENCE_IDLE_S
        with pytest.raises(AdmissionRefused):
            await registry.create(bot_game(time_control=Unlimited()), Purpose.GENERAL, (BOT,))
        started = trio.current_time()
        await room.finished.wait()
        ended_at = trio.current_time()
        assert ended_at - started == REFERENCE_IDLE_S
        assert room.ending.termination is Termination.ABORTED, "nobody played: no result"
        await wait_all_tasks_blocked()  # the registry's host of the room finishes its part
        assert sum(registry.admission.occupancy(BOT).values()) == 0, "the bot's capacity is free once its game is over"
        assert trio.current_time() == ended_at, "at the ending's instant"
        again = await registry.create(bot_game(time_control=Unlimited()), Purpose.GENERAL, (BOT,))
        assert trio.current_time() == ended_at, "the next game is admitted without waiting"
        assert not again.ended


async def test_people_keep_thinking_and_clocks_decide_clocked_games(autojump_clock):
    async with running_registry(bot_idle_forfeit_s=REFERENCE_IDLE_S) as registry:
        people = await registry.create(room_setup(time_control=Unlimited()), Purpose.GENERAL, ())
        clocked = await registry.create(bot_game(time_control=Fischer(3600, 0)), Purpose.GENERAL, (BOT,))
        await trio.sleep(3 * REFERENCE_IDLE_S)
        assert people.setup.idle_forfeit_s is None and not people.ended, "a game of people has no idle forfeit by default"
        assert clocked.setup.idle_forfeit_s is None and not clocked.ended, "a clocked game is decided by its clock"


async def test_the_shorter_forfeit_applies_and_zero_turns_the_bots_off(autojump_clock):
    async with running_registry(idle_forfeit_s=60, bot_idle_forfeit_s=REFERENCE_IDLE_S) as registry:
        room = await registry.create(bot_game(time_control=Unlimited()), Purpose.GENERAL, (BOT,))
        assert room.setup.idle_forfeit_s == 60
    async with running_registry(bot_idle_forfeit_s=None) as registry:
        room = await registry.create(bot_game(time_control=Unlimited()), Purpose.GENERAL, (BOT,))
        await trio.sleep(86_400)
        assert room.setup.idle_forfeit_s is None and not room.ended
