"""The claim grace: a person's seat still empty when the game begins must be taken within
the grace, or counts as a dropped connection (the showcase's winner who never connects)."""

from __future__ import annotations

import trio

from playsite.rooms.admission import Purpose
from playsite.rooms.intents import Rebind
from playsite.rules import Termination
from tests.support.rooms import attach, room_setup, running_registry, seat_setup


def showcase_like(**overrides):
    return room_setup(white=seat_setup(always_present=False), black=seat_setup(always_present=True), claim_grace_s=30.0, **overrides)


async def test_a_winner_who_never_connects_loses_as_a_dropped_connection_after_the_grace(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(showcase_like(), Purpose.GENERAL, ())
        start = trio.current_time()
        await room.finished.wait()
        # The deadline is absolute (creation's wall-clock time + 30 s, to the millisecond): the
        # real milliseconds between creation and the start come off it, never more.
        assert 29.9 <= trio.current_time() - start <= 30.0
        # The dropped-connection path: before both seats have played, that is an abort (no result).
        assert room.ending.termination is Termination.ABORTED and room.ending.winner is None and not room.ending.technical


async def test_connecting_within_the_grace_keeps_the_game_going(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(showcase_like(), Purpose.GENERAL, ())
        await trio.sleep(29)
        intent = Rebind("White", "guest:00000000-0000-4000-8000-000000000001")
        await room.send(intent)
        assert await intent.reply.wait()
        await attach(room, "White")
        await trio.sleep(60)
        assert not room.ended


async def test_without_a_claim_grace_an_absent_seat_has_no_deadline(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(
            room_setup(white=seat_setup(always_present=False), black=seat_setup(always_present=True)), Purpose.GENERAL, ()
        )
        await trio.sleep(120)
        assert not room.ended or room.ending.termination is Termination.TIMEOUT
