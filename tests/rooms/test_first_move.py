"""The first-move limit (PLAY_FIRST_MOVE_S): in a clocked game, a person who has not played a
turn yet and leaves a roll unplayed for the limit aborts the game, so the other player is not
held for a whole clock; API seats (bots) and Unlimited games are never held to it."""

from __future__ import annotations

import json
import random
from datetime import timedelta

import trio
from trio.testing import wait_all_tasks_blocked

from playsite.rooms.admission import Purpose
from playsite.rooms.durable import dump_setup, load_setup
from playsite.rules import Termination
from playsite.wire import Abort, Fischer, Unlimited
from playsite.wire.instant import decode_instant
from tests.support.rooms import attach, detach, drained, play_one_turn, room_setup, running_registry, seat_setup, trio_wall


def people(**overrides):
    return room_setup(white=seat_setup(always_present=False), black=seat_setup(always_present=False), **overrides)


def first_moves(subscriber) -> list[dict]:
    return [json.loads(text)["FirstMove"] for text in drained(subscriber) if text.startswith('{"FirstMove"')]


async def test_a_first_mover_who_never_plays_aborts_the_game_after_the_limit_not_the_clock(autojump_clock):
    async with running_registry(first_move_s=30) as registry:
        room = await registry.create(people(time_control=Fischer(900, 10)), Purpose.GENERAL, ())
        assert room.setup.first_move_s == 30
        await attach(room, "White")
        await attach(room, "Black")
        started = trio.current_time()
        await room.finished.wait()
        assert trio.current_time() - started == 30
        assert room.ending.termination is Termination.ABORTED and room.ending.winner is None
        assert not room.ending.technical, "a player's doing, not the server's"
        # the seat whose roll went unplayed (White's first roll may have been passed for want of a move)
        assert room.ending.abort == Abort("first_move", room.game.active_seat)


async def test_the_second_player_has_the_limit_for_its_own_first_turn(autojump_clock):
    async with running_registry(first_move_s=30) as registry:
        room = await registry.create(people(time_control=Fischer(900, 10)), Purpose.GENERAL, ())
        await attach(room, "White")
        await attach(room, "Black")
        rng = random.Random(7)
        first = await play_one_turn(room, rng)
        while room.game.active_seat == first:  # the other seat's rolls may be passed for want of a move
            first = await play_one_turn(room, rng)
        waiting_since, second = trio.current_time(), room.game.active_seat
        await room.finished.wait()
        assert trio.current_time() - waiting_since == 30
        assert room.ending.termination is Termination.ABORTED and room.ending.winner is None
        assert room.ending.abort == Abort("first_move", second) and second != first


async def test_once_both_have_played_the_clock_alone_decides(autojump_clock):
    async with running_registry(first_move_s=30) as registry:
        room = await registry.create(people(time_control=Fischer(120, 0)), Purpose.GENERAL, ())
        await attach(room, "White")
        await attach(room, "Black")
        rng, movers = random.Random(3), set()
        while movers != {"White", "Black"}:
            movers.add(await play_one_turn(room, rng))
        idle = room.game.active_seat
        await trio.sleep(60)
        assert not room.ended
        await room.finished.wait()
        assert room.ending.termination is Termination.TIMEOUT and room.ending.winner == ("Black" if idle == "White" else "White")


async def test_bot_seats_and_unlimited_games_are_never_held_to_it(autojump_clock):
    async with running_registry(first_move_s=30) as registry:
        bots = await registry.create(room_setup(time_control=Fischer(900, 10)), Purpose.GENERAL, ())
        unlimited = await registry.create(people(time_control=Unlimited()), Purpose.GENERAL, ())
        await attach(unlimited, "White")
        await attach(unlimited, "Black")
        await trio.sleep(120)
        assert not bots.ended, "an API seat's first move may take its clock"
        assert not unlimited.ended and unlimited.setup.first_move_s is None
    async with running_registry() as registry:
        off = await registry.create(people(time_control=Fischer(900, 10)), Purpose.GENERAL, ())
        await attach(off, "White")
        await attach(off, "Black")
        await trio.sleep(120)
        assert not off.ended and off.setup.first_move_s is None, "off unless the server sets it"


async def test_pages_that_asked_for_presence_are_told_who_must_move_and_by_when(autojump_clock):
    async with running_registry(first_move_s=30, wall_clock=trio_wall) as registry:
        room = await registry.create(people(time_control=Fischer(900, 10)), Purpose.GENERAL, ())
        white = await attach(room, "White", presence=True)
        black = await attach(room, "Black", presence=True)
        quiet = await attach(room, None)
        await wait_all_tasks_blocked()
        rolled_at = room.game.wall_clock()
        [told] = first_moves(black)
        first = room.game.active_seat  # White, or Black when White's first roll had no move
        assert told["seat"] == first
        assert decode_instant(told["abortAt"]) == decode_instant(rolled_at) + timedelta(seconds=30)
        assert first_moves(white) == [told]
        assert first_moves(quiet) == [], "only to subscribers that asked for Presence"
        await trio.sleep(10)
        late = await attach(room, None, presence=True)
        assert first_moves(late) == [told], "a page opened later hears of the running deadline"
        rng = random.Random(11)
        second = "Black" if first == "White" else "White"
        while await play_one_turn(room, rng) and room.game.active_seat == first:
            pass  # the other's roll was passed for want of a move: the first mover rolls again (it has played)
        await wait_all_tasks_blocked()
        assert [t["seat"] for t in first_moves(late)] == [second], "the second player's own first turn, told once"


def test_the_limit_is_kept_with_the_stored_setup():
    setup = people(first_move_s=30.0)
    assert load_setup(dump_setup(setup)).first_move_s == 30.0
    old = dump_setup(people())
    del old["firstMoveS"]
    assert load_setup(old).first_move_s is None, "a snapshot written before the limit existed"


async def test_a_persons_first_turn_is_not_on_the_clock_and_the_second_is(autojump_clock):
    """The limit stands in for the clock on a person's first turn: 20 s spent on it cost no clock
    time (and earn no increment); from the seat's second turn on, the clock runs as ever."""
    async with running_registry(first_move_s=30) as registry:
        room = await registry.create(people(time_control=Fischer(60, 5)), Purpose.GENERAL, ())
        await attach(room, "White")
        await attach(room, "Black")
        rng, full = random.Random(11), 60_000
        while len(room.game.played) < 2:
            while not (room.published.state.dice_pending and room.published.tree):
                await wait_all_tasks_blocked()
                await trio.sleep(0.001)
            mover = room.published.state.active_seat
            if mover in room.game.played:  # the other side's roll was passed: this one's second turn
                assert room.game.clock.running == mover
                await play_one_turn(room, rng)
                continue
            assert room.game.clock.running is None, "a first turn: no clock runs"
            assert room.game.clock.flag_at() is None
            before = room.game.clock.read(trio.current_time())
            await trio.sleep(20)
            assert room.game.clock.read(trio.current_time()) == before
            await play_one_turn(room, rng)
            assert room.game.clock.remaining_ms[mover] == full, "no time charged, no increment"
        # Both have played: the seat to move is on its clock now.
        while not (room.published.state.dice_pending and room.published.tree):
            await wait_all_tasks_blocked()
            await trio.sleep(0.001)
        mover = room.published.state.active_seat
        assert room.game.clock.running == mover
        before = room.game.clock.remaining_ms[mover]  # more than full when a second turn came before
        await trio.sleep(10)
        await play_one_turn(room, rng)
        assert room.game.clock.remaining_ms[mover] == before - 10_000 + 5_000


async def test_an_api_seats_first_turn_is_on_its_clock(autojump_clock):
    async with running_registry(first_move_s=30) as registry:
        room = await registry.create(room_setup(time_control=Fischer(60, 0)), Purpose.GENERAL, ())
        while not (room.published.state.dice_pending and room.published.tree):
            await wait_all_tasks_blocked()
            await trio.sleep(0.001)
        assert room.game.clock.running == room.published.state.active_seat


async def test_a_first_mover_who_left_is_said_to_have_left(autojump_clock):
    """The first move runs out before the disconnect grace of a player who left after the roll:
    the record puts the abort down to the leaving (no rematch is offered to someone gone)."""
    async with running_registry(first_move_s=30) as registry:
        room = await registry.create(people(time_control=Fischer(900, 10)), Purpose.GENERAL, ())
        sockets = {"White": await attach(room, "White"), "Black": await attach(room, "Black")}
        while not (room.published.state.dice_pending and room.published.tree):
            await wait_all_tasks_blocked()
            await trio.sleep(0.001)
        mover = room.published.state.active_seat
        await trio.sleep(5)
        await detach(room, sockets[mover])
        await room.finished.wait()
        assert room.ending.termination is Termination.ABORTED
        assert room.ending.abort == Abort("disconnect", mover)
