"""Required durability on ordinary rooms: publish after commit, retries, stall, abort, resume."""

from __future__ import annotations

import functools
import json
import logging
import random

import pytest
import trio
import trio.testing

from playsite.rooms.admission import Purpose
from playsite.rooms.durable import load_state
from playsite.rooms.model import (
    BEST_EFFORT,
    DISCONNECT_GRACE_S,
    REQUIRED,
    TECHNICAL_ABORT_REASON,
)
from playsite.rooms.persistence import (
    STALL_GRACE_S,
    TERMINAL_BACKOFF_MAX_S,
    DurabilityPolicy,
    read_back_durably,
    write_durably,
)
from playsite.rooms.registry import CreationFailed
from playsite.rules import Termination
from playsite.store.memory import MemoryStore
from playsite.wire import Abort, Fischer, GameEnded, Resign, SubmitTurn, Unlimited
from tests.support.faulty_store import FaultyStore
from tests.support.rooms import attach, command, received, room_setup, running_registry, seat_setup, sparing_turn


def required_setup(**overrides):
    return room_setup(**{"durability": REQUIRED, "time_control": Unlimited(), **overrides})


async def play_one_turn(room, rng=None):
    rng = rng or random.Random(1)
    while not room.game.tree:
        await trio.testing.wait_all_tasks_blocked()
    return await command(room, room.game.active_seat, SubmitTurn(sparing_turn(room, rng)))


async def test_registry_refuses_required_durability_over_the_memory_store(autojump_clock):
    async with running_registry(store=MemoryStore()) as registry:
        with pytest.raises(CreationFailed):
            await registry.create(required_setup(), Purpose.GENERAL, ())
        assert not registry.live


async def test_failed_creation_write_admits_nothing(autojump_clock):
    store = FaultyStore()
    store.failing = True
    async with running_registry(store=store, limits_of=lambda p: None) as registry:
        with pytest.raises(CreationFailed):
            await registry.create(required_setup(), Purpose.GENERAL, ["bot:x"])
        assert registry.admission.occupancy("bot:x")[Purpose.GENERAL] == 0
        assert not store.games


async def test_nothing_is_published_before_it_is_committed(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(required_setup(), Purpose.GENERAL, ())
        spectator = await attach(room)
        received(spectator)
        store.fail_next = 2
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_one_turn, room)
            await trio.sleep(0.1)  # inside the first retry's backoff
            assert received(spectator) == [], "no event while its version is not committed"
            assert store.games[room.game_id].version < room.version
        events = received(spectator)
        assert events and store.games[room.game_id].version == room.version == events[-1].v


async def test_intermediate_write_retries_report_and_recover(autojump_clock, caplog):
    caplog.set_level(logging.INFO, logger="playsite.persistence")
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(required_setup(time_control=Fischer(60, 0)), Purpose.GENERAL, ())
        await trio.testing.wait_all_tasks_blocked()
        mover = room.game.active_seat
        before = room.game.clock.remaining_ms[mover]
        store.fail_next = 3
        verdict = await play_one_turn(room)
        assert verdict.applied
        err = caplog.text
        assert err.count(f"game={room.game_id}") == 4
        assert err.count("event=retrying") == 3 and err.count("event=recovered") == 1
        assert room.game.clock.remaining_ms[mover] == before, "the stall is credited to the mover"


async def test_exhausted_intermediate_write_aborts_from_the_last_durable_version(autojump_clock, caplog):
    caplog.set_level(logging.INFO, logger="playsite.persistence")
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(required_setup(), Purpose.GENERAL, ())
        spectator = await attach(room)
        durable_version = store.games[room.game_id].version
        durable_history = len(room.game.history)
        received(spectator)
        store.fail_next = 5  # the first attempt and all four retries
        verdict = await play_one_turn(room)
        assert (verdict.applied, verdict.reason) == (False, TECHNICAL_ABORT_REASON)
        await room.finished.wait()
        assert room.ending.termination.value == "aborted"
        assert len(room.game.history) == durable_history, "the unsaved turn is discarded"
        ended = received(spectator)
        assert [type(e) for e in ended] == [GameEnded] and ended[0].v == durable_version + 1
        assert ended[0].over.termination == "Aborted"
        assert store.archive[room.game_id] and store.results[room.game_id].result is None
        assert "event=given_up" in caplog.text


async def test_terminal_write_is_retried_without_bound_and_completion_waits_for_it(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store, limits_of=lambda p: None) as registry:
        room = await registry.create(required_setup(), Purpose.GENERAL, ["bot:x"])
        await play_one_turn(room)
        store.failing = True
        intent_done = trio.Event()

        async def resign():
            await command(room, "White", Resign())
            intent_done.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(resign)
            await trio.sleep(600)
            assert not intent_done.is_set() and room.game_id in registry.live, "completion waits for the commit"
            assert registry.admission.occupancy("bot:x")[Purpose.GENERAL] == 1
            attempts = store.attempts
            await trio.sleep(10 * TERMINAL_BACKOFF_MAX_S)
            assert store.attempts - attempts <= 11, "backed off to one attempt per 30 s"
            store.failing = False
        await room.finished.wait()
        await trio.testing.wait_all_tasks_blocked()
        assert room.game_id not in registry.live and room.game_id in store.archive
        assert registry.admission.occupancy("bot:x")[Purpose.GENERAL] == 0


async def test_stall_grace_drops_subscribers_and_raises_the_stalled_flag(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(required_setup(), Purpose.GENERAL, ())
        spectator = await attach(room)
        await play_one_turn(room)
        store.failing = True
        async with trio.open_nursery() as nursery:
            nursery.start_soon(command, room, "White", Resign())  # a terminal write: retried forever
            await trio.sleep(STALL_GRACE_S + 5)
            assert room.persistence_stalled and spectator.closed
            store.failing = False
        await room.finished.wait()
        assert not room.persistence_stalled


@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.parametrize("timeout_s", [5.0, 30.0])
async def test_the_stall_grace_fires_at_15_s_even_while_an_attempt_hangs(autojump_clock, terminal, timeout_s):
    """Not at the end of the wait or the attempt that is running then: 16.75 s and 30.25 s
    before, with attempts that hang until the store's timeout."""
    stalls = []
    start = trio.current_time()

    async def hangs():
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(functools.partial(
            write_durably, hangs, game_id="g", version=3, terminal=terminal, timeout_s=timeout_s,
            on_stall=lambda: stalls.append(trio.current_time() - start)))
        await trio.sleep(STALL_GRACE_S + 40)
        nursery.cancel_scope.cancel()
    assert stalls == [STALL_GRACE_S]


async def test_a_write_that_commits_within_the_grace_never_stalls_and_a_read_back_stalls_on_time(autojump_clock):
    stalls = []
    tries = []

    async def commits_on_the_third_try():
        tries.append(trio.current_time())
        if len(tries) < 3:
            await trio.sleep(4)
            raise OSError("connection refused")

    assert await write_durably(commits_on_the_third_try, game_id="g", version=3, terminal=True, timeout_s=5,
                               on_stall=lambda: stalls.append("write"))
    await trio.sleep(STALL_GRACE_S)
    assert stalls == [] and len(tries) == 3

    async def reads_nothing():
        await trio.sleep_forever()

    reading = trio.current_time()
    with trio.move_on_after(STALL_GRACE_S + 10):
        await read_back_durably(reads_nothing, game_id="g", version=3, timeout_s=30,
                                on_stall=lambda: stalls.append(trio.current_time() - reading))
    assert stalls == [STALL_GRACE_S]


async def test_a_hung_store_counts_as_a_failed_attempt(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(required_setup(), Purpose.GENERAL, ())
        store.hanging = True
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_one_turn, room)
            await trio.sleep(store.save_timeout_s * 2 + 1)
            store.hanging = False
        assert store.games[room.game_id].version == room.version


async def test_best_effort_room_plays_on_when_writes_fail(autojump_clock, caplog):
    caplog.set_level(logging.INFO, logger="playsite.persistence")
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(room_setup(durability=BEST_EFFORT, time_control=Unlimited()), Purpose.GENERAL, ())
        spectator = await attach(room)
        received(spectator)
        store.failing = True
        assert (await play_one_turn(room)).applied
        assert received(spectator), "events still flow"
        assert "event=write_failed_best_effort" in caplog.text


async def test_resume_continues_from_the_last_committed_version(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store, limits_of=lambda p: None) as registry:
        room = await registry.create(required_setup(participants=("bot:x",)), Purpose.GENERAL, ["bot:x"])
        for n in range(4):
            await play_one_turn(room, random.Random(n))
        version, history = room.version, list(room.game.history)
    # The first registry is gone (a crash, as far as the store knows).
    async with running_registry(store=store, limits_of=lambda p: None) as registry:
        assert await registry.resume_all() == 1
        resumed = registry.live[room.game_id]
        assert resumed.version == version and resumed.game.history == history
        assert registry.admission.occupancy("bot:x")[Purpose.GENERAL] == 1
        assert (await play_one_turn(resumed)).applied


async def test_an_ending_that_never_committed_is_not_an_ending(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(required_setup(), Purpose.GENERAL, ())
        await play_one_turn(room)
        store.failing = True
        async with trio.open_nursery() as nursery:
            nursery.start_soon(command, room, "White", Resign())
            await trio.sleep(5)
            assert room.ended  # in memory only
            nursery.cancel_scope.cancel()
    store.failing = False
    assert room.game_id not in store.archive
    async with running_registry(store=store) as registry:
        await registry.resume_all()
        assert not registry.live[room.game_id].ended


async def test_reads_during_a_failing_write_show_only_the_committed_version(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(required_setup(), Purpose.GENERAL, ())
        await play_one_turn(room)
        committed = room.state_text()
        store.fail_next = 2
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_one_turn, room)
            await trio.sleep(0.1)
            assert room.version > room.published.version, "the working state runs ahead"
            assert room.state_text() == committed and room.public_state().version == store.games[room.game_id].version
        assert room.public_state().version == room.version


async def test_the_seed_is_not_revealed_before_the_ending_commits(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(room_setup(durability=BEST_EFFORT, time_control=Unlimited()), Purpose.GENERAL, ())
        spectator = await attach(room)
        await play_one_turn(room)
        received(spectator)
        store.failing = True
        async with trio.open_nursery() as nursery:
            nursery.start_soon(command, room, "White", Resign())
            await trio.sleep(5)  # well inside the stall grace: subscribers stay
            assert room.ended and room.public_state().seed is None
            assert '"seed"' not in room.snapshot_text() or '"seed":null' in room.snapshot_text()
            assert received(spectator) == [], "GameEnded waits for the terminal commit, even best effort"
            store.failing = False
        ended = received(spectator)
        assert isinstance(ended[-1], GameEnded) and room.public_state().seed == ended[-1].seed


async def test_completion_hooks_never_run_for_an_uncommitted_ending(autojump_clock):
    store = FaultyStore()
    completed = []
    async with running_registry(store=store) as registry:

        async def hook(room):
            completed.append(room.game_id)

        registry.completion_hooks.append(hook)
        room = await registry.create(required_setup(), Purpose.GENERAL, ())
        await play_one_turn(room)
        store.failing = True
        async with trio.open_nursery() as nursery:
            nursery.start_soon(command, room, "White", Resign())
            await trio.sleep(5)
            nursery.cancel_scope.cancel()
    assert room.ended and not room.completed and completed == []


LONG_ATTEMPTS = DurabilityPolicy(timeout_s=20.0)
"""Attempts so long that an intermediate write stalls before it is given up."""


async def stalled_mid_game(store, registry):
    """A required game between two people, both connected, both having played; then a write
    that hangs past the stall grace (run it under LONG_ATTEMPTS). Returns the room, halted
    and stalled."""
    room = await registry.create(
        required_setup(white=seat_setup(always_present=False), black=seat_setup(always_present=False)),
        Purpose.GENERAL,
        (),
    )
    for seat in ("White", "Black"):
        await attach(room, seat)
    while len(room.game.played) < 2:  # both seats must have played (a roll may be a forced pass)
        await play_one_turn(room)
    store.hanging = True
    return room


async def test_no_disconnect_grace_runs_while_the_room_is_halted(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store, policy=LONG_ATTEMPTS) as registry:
        room = await stalled_mid_game(store, registry)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_one_turn, room)
            await trio.sleep(STALL_GRACE_S + 10)
            assert room.persistence_stalled
            await trio.sleep(DISCONNECT_GRACE_S + 20)  # the store stays down far past a grace
            store.hanging = False
        recovered_at = trio.current_time()
        await trio.testing.wait_all_tasks_blocked()
        assert not room.persistence_stalled and not room.ended, "a stall the server caused decided the game"
        white = await attach(room, "White")  # White comes back within the grace that started at recovery
        await trio.sleep(DISCONNECT_GRACE_S + 1)
        assert room.ending is not None and room.ending.termination is Termination.DISCONNECT
        assert room.ending.winner == "White" and trio.current_time() - recovered_at >= DISCONNECT_GRACE_S
        assert received(white)


async def test_both_seats_away_past_their_grace_at_once_abort_whatever_the_seat_order(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store, policy=LONG_ATTEMPTS) as registry:
        room = await stalled_mid_game(store, registry)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_one_turn, room)
            await trio.sleep(STALL_GRACE_S + 10)
            store.hanging = False
        await trio.sleep(DISCONNECT_GRACE_S + 1)
        assert room.ending is not None and room.ending.termination is Termination.ABORTED
        assert room.ending.over.result is None and not room.ending.technical, "the players left: not the server's doing"
        assert room.ending.abort == Abort("both_away")
        await room.finished.wait()
        archived = json.loads(store.archive[room.game_id])
        assert "technical" not in archived, "a players' abort is archived as a plain abort"
        assert archived["abort"] == {"cause": "both_away"}


async def test_a_write_whose_answers_were_lost_is_read_back_and_played_when_it_stands(autojump_clock, caplog):
    caplog.set_level(logging.INFO, logger="playsite.persistence")
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(required_setup(), Purpose.GENERAL, ())
        spectator = await attach(room)
        received(spectator)
        history = len(room.game.history)
        store.answers_lost = 5  # every attempt commits; no answer comes back
        verdict = await play_one_turn(room)
        assert verdict.applied, verdict.reason
        assert store.read_backs == 1 and room.ending is None
        # Played exactly once (a forced pass of random dice may stand before or after it).
        assert len([turn for turn in room.game.history[history:] if turn.moves]) == 1
        assert store.games[room.game_id].version == room.version
        assert not any(isinstance(e, GameEnded) for e in received(spectator))
        err = caplog.text
        assert "event=given_up" in err and "event=in_doubt" in err and "event=adopted" in err


async def test_a_write_in_doubt_that_did_not_land_is_a_technical_abort_once_read_back(autojump_clock, caplog):
    caplog.set_level(logging.INFO, logger="playsite.persistence")
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(required_setup(), Purpose.GENERAL, ())
        durable_version = store.games[room.game_id].version
        store.doubtful.add(room.game_id)  # an answer was lost ...
        store.fail_next = 5  # ... and no attempt committed
        verdict = await play_one_turn(room)
        assert (verdict.applied, verdict.version, verdict.reason) == (False, durable_version, TECHNICAL_ABORT_REASON)
        await room.finished.wait()
        assert store.read_backs == 1 and room.ending.termination is Termination.ABORTED and room.ending.technical
        assert store.games[room.game_id].version == durable_version + 1  # the abort was not refused
        assert load_state(await store.ended_game(room.game_id)).ending.technical, "stored as technical"
        archived = json.loads(store.archive[room.game_id])
        assert archived["termination"] == "aborted" and archived["technical"] is True, "archived as such"
        assert "event=absent" in caplog.text
