"""The claim grace: a person's seat still empty when the game begins must be taken within
the grace, or counts as a dropped connection (the showcase's winner who never connects)."""

from __future__ import annotations

import json

import trio
import trio.testing

from playsite.bots.events import BotEvents
from playsite.bots.games import Human, create_game_with_bots
from playsite.rooms.admission import Purpose
from playsite.rooms.intents import Detach, Rebind
from playsite.rules import Termination
from playsite.wire import Abort, Fischer, SubmitSeed
from tests.support.rooms import attach, command, drained, room_setup, running_registry, seat_setup


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
        assert room.ending.abort == Abort("not_joined", "White"), "never taken, not left"


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


async def test_a_lobby_game_whose_seat_is_never_taken_is_aborted_after_the_grace_and_said_so(autojump_clock):
    """A seek's creator whose page died before someone took the seek: the game begins at once
    (a lobby game does not wait for its seats), the one who came is told the other seat was
    never taken and when the game goes, and 30 s after the creation it is aborted, never after
    the whole clock."""
    async with running_registry() as registry:
        game = await create_game_with_bots(
            registry, BotEvents(), white=Human("guest:gone"), black=Human("guest:here"), time_control=Fischer(900, 10),
            rated=False, origin="lobby", seed_window_s=0, durability="best_effort",
        )
        room = game.room
        assert room.setup.claim_grace_s == 30.0
        start = trio.current_time()
        here = await attach(room, "Black", presence=True)
        [told] = [json.loads(t)["Presence"] for t in drained(here) if t.startswith('{"Presence"')]
        assert told["seat"] == "White" and told["away"] is True and told["arrived"] is False and "forfeitAt" in told
        await room.finished.wait()
        assert 29.9 <= trio.current_time() - start <= 30.0
        assert room.ending.termination is Termination.ABORTED and room.ending.winner is None and not room.ending.technical
        assert room.ending.abort == Abort("not_joined", "White"), "never taken, not left"


async def test_a_seat_that_was_here_and_left_is_not_told_as_never_arrived(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(
            room_setup(white=seat_setup(always_present=False), black=seat_setup(always_present=False), await_joins=False,
                       claim_grace_s=30.0),
            Purpose.GENERAL, (),
        )
        white = await attach(room, "White")
        watcher = await attach(room, None, presence=True)
        [black] = [json.loads(t)["Presence"] for t in drained(watcher) if t.startswith('{"Presence"')]
        assert black["seat"] == "Black" and black["away"] is True and black["arrived"] is False
        assert await room.send(Detach(white))  # the White page goes away
        await trio.testing.wait_all_tasks_blocked()
        [left] = [json.loads(t)["Presence"] for t in drained(watcher) if t.startswith('{"Presence"')]
        assert left["seat"] == "White" and left["away"] is True and "forfeitAt" in left and "arrived" not in left


async def test_the_first_roll_waits_for_a_person_s_seat_to_be_taken_so_their_seed_can_count(autojump_clock):
    """A lobby or bot game begins at once, but its first roll waits until each person's seat is
    taken, then gives the seed window from that moment: a page that opens 10 s after the game
    began still adds its share of the dice."""
    async with running_registry() as registry:
        room = await registry.create(showcase_like(seed_window_s=2.0), Purpose.GENERAL, ())
        await trio.sleep(10)
        assert room.game.roll_due is None and not room.published.state.dice_pending, "no roll before the person came"
        intent = Rebind("White", "guest:00000000-0000-4000-8000-000000000001")
        await room.send(intent)
        assert await intent.reply.wait()
        await attach(room, "White")
        assert await command(room, "White", SubmitSeed("w" * 32)) is not None
        assert room.game.fairness.client_seeds.white == "w" * 32, "in time: the person's seed counts"
        joined = trio.current_time()
        while not room.published.state.dice_pending:
            await trio.sleep(0.1)
        assert 2.0 <= trio.current_time() - joined <= 2.2, "the window runs from the person's arrival"


async def test_a_game_whose_seat_is_never_taken_never_rolls_and_ends_at_the_claim_grace(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(showcase_like(seed_window_s=2.0), Purpose.GENERAL, ())
        await room.finished.wait()
        assert room.game.history == [] and room.game.ply == 0, "no die was ever rolled"
        assert room.ending.termination is Termination.ABORTED
