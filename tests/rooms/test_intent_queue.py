"""The room's queue of intents: a send with room in the queue takes no trip round the event
loop (its sender waits for the verdict next), a full queue still makes the sender wait, and a
cancelled sender queues nothing."""

from __future__ import annotations

import trio
import trio.testing

from playsite.rooms.admission import Purpose
from playsite.rooms.fanout import QueueSubscriber
from playsite.rooms.intents import Detach, PlayerCommand
from playsite.rooms.room import INTENT_QUEUE
from playsite.wire import Resign, Seat, Unlimited
from tests.support.rooms import attach, room_setup, running_registry


async def test_a_send_with_room_in_the_queue_is_no_schedule_point(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), Purpose.GENERAL, ())
        await attach(room, "White")
        await trio.testing.wait_all_tasks_blocked()
        ran: list[str] = []

        async def other() -> None:
            ran.append("other")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(other)
            version = room.version
            intent = PlayerCommand(Seat("White"), Resign())
            assert await room.send(intent)
            # Neither the other task nor the room has run yet.
            assert ran == [] and not intent.reply.ready and room.version == version
            await intent.reply.wait()
        assert ran == ["other"] and room.version > version


async def test_a_full_queue_makes_the_sender_wait_while_the_room_takes_what_is_queued(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), Purpose.GENERAL, ())
        await trio.testing.wait_all_tasks_blocked()
        # The first is handed to the waiting room at once, the next INTENT_QUEUE fill the queue
        # (the room has not run since: no send was a schedule point).
        for _ in range(1 + INTENT_QUEUE):
            assert await room.send(Detach(QueueSubscriber(None)))
        assert room.queued_intents() == INTENT_QUEUE
        ran: list[str] = []

        async def other() -> None:
            ran.append("other")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(other)
            assert await room.send(Detach(QueueSubscriber(None)))  # waited for room: the others ran meanwhile
            assert ran == ["other"]
        await trio.testing.wait_all_tasks_blocked()
        assert room.queued_intents() == 0  # every intent was taken, the last one too


async def test_a_cancelled_sender_queues_nothing(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), Purpose.GENERAL, ())
        await trio.testing.wait_all_tasks_blocked()
        with trio.CancelScope() as scope:
            scope.cancel()
            await room.send(Detach(QueueSubscriber(None)))
        assert scope.cancelled_caught
        assert room.queued_intents() == 0
