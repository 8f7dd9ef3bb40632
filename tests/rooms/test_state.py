"""A room's durable state: only the injected wall clock stamps it, and it survives its snapshot."""

from __future__ import annotations

import itertools
import json
import random

import trio
import trio.testing

from playsite.rooms.admission import Purpose
from playsite.rooms.durable import TERMINATION_NAMES, dump_state, load_state
from playsite.rooms.room import Room
from playsite.rules import Termination
from playsite.store.memory import MemoryStore
from playsite.wire import Resign, Seat, SubmitTurn, Unlimited
from tests.support.rooms import command, room_setup, running_registry, sparing_turn


def ticking_clock():
    """A wall clock that tells a new, known time at each reading."""
    ticks = itertools.count()
    return lambda: f"2030-01-01T00:00:{next(ticks):02d}.000Z"


async def play_until_both_played(room):
    rng = random.Random(7)
    while len(room.game.played) < 2:
        while not room.game.tree:
            await trio.testing.wait_all_tasks_blocked()
        await command(room, room.game.active_seat, SubmitTurn(sparing_turn(room, rng)))


async def test_the_injected_wall_clock_stamps_creation_and_ending(autojump_clock):
    store = MemoryStore()
    async with running_registry(store=store, wall_clock=ticking_clock()) as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), Purpose.GENERAL, ())
        assert room.setup.created_at == "2030-01-01T00:00:00.000Z"
        await play_until_both_played(room)
        assert (await command(room, "White", Resign())).applied
        await room.finished.wait()
    assert room.ending.at == "2030-01-01T00:00:01.000Z"
    archived = json.loads(store.archive[room.game_id])
    assert archived["finishedAt"] == "2030-01-01T00:00:01.000Z"
    assert (await store.ended_game(room.game_id))["setup"]["createdAt"] == "2030-01-01T00:00:00.000Z"


async def test_a_room_resumes_into_the_state_it_was_saved_in(autojump_clock):
    store = MemoryStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), Purpose.GENERAL, ())
        await play_until_both_played(room)
        data = store.games[room.game_id].snapshot
        state = load_state(data)
        assert dump_state(state) == data
        resumed = Room.resume(data, None).state()
    assert resumed.history == state.history and resumed.principals == state.principals
    assert (resumed.version, resumed.phase, resumed.position) == (state.version, state.phase, state.position)
    assert all(type(t.seat) is Seat for t in state.history) and all(type(s) is Seat for s in state.played)


def test_every_termination_has_its_own_snapshot_name():
    assert set(TERMINATION_NAMES) == set(Termination)
    assert len(set(TERMINATION_NAMES.values())) == len(Termination), "a resumed room must tell them apart"
