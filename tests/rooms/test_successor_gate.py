"""The startup gate of a rematch successor (service.md "Successor startup"), on the MockClock.

The successor's wall clock is tied to trio's, so its absolute first-join deadline (a wall-clock
time) and the room's timers (trio time) agree to the millisecond.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import trio
import trio.testing

from playsite.dice import Fairness, SystemSeedSource
from playsite.rooms.admission import Purpose
from playsite.rooms.fanout import QueueSubscriber
from playsite.rooms.intents import Attach
from playsite.rooms.model import RoomPhase
from playsite.rooms.room import Room
from playsite.rules import Termination
from playsite.store import MemoryStore
from playsite.wire import BLACK, WHITE, RematchStartup
from tests.support.rooms import EPOCH, attach, detach, room_setup, running_registry, seat_setup, trio_wall as wall

WINDOW_S = 15


def successor_setup(deadline_in: float = WINDOW_S):
    deadline = (EPOCH + timedelta(seconds=trio.current_time() + deadline_in)).isoformat(timespec="milliseconds")
    return room_setup(
        white=seat_setup(always_present=False),
        black=seat_setup(always_present=False),
        await_joins=True,
        join_window_s=WINDOW_S,
        predecessor="5f1c1c9e-0000-4000-8000-000000000001",
        join_deadline_at=deadline.replace("+00:00", "Z"),
        origin="rematch",
    )


@pytest.fixture
def store():
    return MemoryStore()


async def test_both_seats_connected_begin_the_game_once_and_only_then_do_clocks_and_dice_start(autojump_clock, store):
    async with running_registry(store=store, wall_clock=wall) as registry:
        room = await registry.create(successor_setup(), _general(), ())
        assert room.public_state().rematch_startup == RematchStartup("awaiting_joins", room.setup.join_deadline_at)
        white = await attach(room, WHITE)
        await trio.sleep(10)  # well inside the window: nothing runs with one seat here
        assert room.game.phase is RoomPhase.AWAITING_JOINS and room.game.clock.running is None and room.game.ply == 0
        black = await attach(room, BLACK)
        await trio.testing.wait_all_tasks_blocked()
        assert room.game.phase is RoomPhase.PLAYING and room.game.ply >= 1 and room.game.clock.running == room.game.active_seat
        assert room.public_state().rematch_startup == RematchStartup("active")
        assert room.state().activated and room.state().joined == {WHITE, BLACK}
        # Past the original deadline nothing happens to an activated game.
        await trio.sleep(WINDOW_S)
        assert not room.ended
        await detach(room, white)
        await detach(room, black)


async def test_the_deadline_with_one_seat_connected_makes_that_seat_win(autojump_clock, store):
    async with running_registry(store=store, wall_clock=wall) as registry:
        room = await registry.create(successor_setup(), _general(), ())
        black = await attach(room, BLACK)
        await trio.sleep(WINDOW_S)
        await trio.testing.wait_all_tasks_blocked()
        assert room.ended and room.ending.termination is Termination.DISCONNECT and room.ending.winner == BLACK
        assert room.public_state().rematch_startup == RematchStartup("aborted")
        assert room.game.clock.remaining_ms == {WHITE: 300_000, BLACK: 300_000}  # the join window is no chess clock
        await detach(room, black)


async def test_the_deadline_with_no_seat_ever_joined_is_a_technical_abort(autojump_clock, store):
    async with running_registry(store=store, wall_clock=wall) as registry:
        room = await registry.create(successor_setup(), _general(), ())
        await trio.sleep(WINDOW_S)
        await trio.testing.wait_all_tasks_blocked()
        assert room.ended and room.ending.termination is Termination.ABORTED and room.ending.winner is None
        assert room.ending.technical and room.ending.abort is None, "the server's abort: no player caused it"
        assert store.results[room.game_id].result is None


async def test_a_seat_that_left_before_activation_must_be_back_by_the_deadline(autojump_clock, store):
    async with running_registry(store=store, wall_clock=wall) as registry:
        room = await registry.create(successor_setup(), _general(), ())
        white = await attach(room, WHITE)
        await detach(room, white)
        await trio.testing.wait_all_tasks_blocked()
        # White's join is durable history, but White is not here: the game does not start on Black's join.
        assert store.games[room.game_id].snapshot["joined"] == ["White"]
        black = await attach(room, BLACK)
        await trio.testing.wait_all_tasks_blocked()
        assert room.game.phase is RoomPhase.AWAITING_JOINS
        await trio.sleep(WINDOW_S)
        await trio.testing.wait_all_tasks_blocked()
        assert room.ending.termination is Termination.DISCONNECT and room.ending.winner == BLACK
        await detach(room, black)


async def test_a_first_join_at_the_deadline_is_late(autojump_clock, store):
    async with running_registry(store=store, wall_clock=wall) as registry:
        room = await registry.create(successor_setup(), _general(), ())
        white = await attach(room, WHITE)
        # Hold the room's attention until exactly the deadline, then send the second join.
        await trio.sleep_until(room.game.join_deadline)
        # Whichever the room sees first, its deadline or this join, the join is late.
        late = Attach(QueueSubscriber(BLACK))
        assert not await room.send(late) or await late.reply.wait() is False
        assert room.ended and room.ending.winner == WHITE
        await detach(room, white)


async def test_a_restart_aborts_a_successor_that_had_not_begun_whatever_time_is_left(autojump_clock, store):
    async with running_registry(store=store, wall_clock=wall) as registry:
        room = await registry.create(successor_setup(), _general(), ())
        await attach(room, WHITE)
        await trio.testing.wait_all_tasks_blocked()
        snapshot = store.games[room.game_id].snapshot
    # A new process resumes it 2 s into its 15 s window: a technical abort, not a new window.
    async with running_registry(store=store, wall_clock=wall) as registry:
        await registry.resume_all()
        await trio.testing.wait_all_tasks_blocked()
        resumed = registry.get(room.game_id)
        assert resumed.ended and resumed.ending.termination is Termination.ABORTED and resumed.ending.winner is None
        assert resumed.ending.technical
        assert resumed.public_state().rematch_startup == RematchStartup("aborted")
        assert store.results[room.game_id].result is None
    assert snapshot["phase"] == "awaiting_joins"


async def test_a_late_registration_without_restart_keeps_the_original_deadline(autojump_clock, store):
    async with running_registry(store=store, wall_clock=wall) as registry:
        setup = successor_setup(deadline_in=5)
        written = Room(setup, _fairness(), store, wall_clock=wall)
        await written.write_creation()
        adopted = await registry.adopt(store.games[setup.game_id].snapshot)
        assert adopted.game.phase is RoomPhase.AWAITING_JOINS
        white = await attach(adopted, WHITE)
        await trio.sleep(5)
        await trio.testing.wait_all_tasks_blocked()
        assert adopted.ended and adopted.ending.winner == WHITE  # 5 s, not a fresh 15 s window
        await detach(adopted, white)


class CommitsThenWaits(MemoryStore):
    """A store whose first write commits, then keeps its answer until `answer` is set: the
    moment a creation is in the database but its room not yet hosted."""

    def __init__(self) -> None:
        super().__init__()
        self.committed, self.answer = trio.Event(), trio.Event()

    async def save_game(self, write) -> None:
        await super().save_game(write)
        if not self.committed.is_set():
            self.committed.set()
            await self.answer.wait()


async def test_a_successor_committed_but_not_yet_hosted_is_not_hosted_twice(autojump_clock):
    """The rematch scan hosts committed successors the registry does not run; one whose
    creation has committed but whose room is not yet registered must not get a second room."""
    store = CommitsThenWaits()
    async with running_registry(store=store, wall_clock=wall) as registry, trio.open_nursery() as nursery:
        setup = successor_setup()
        created = []

        async def create():
            created.append(await registry.create(setup, _general(), ()))

        nursery.start_soon(create)
        await store.committed.wait()
        assert registry.get(setup.game_id) is None, "committed, not yet hosted: the scan's window"
        adopted = await registry.adopt(store.games[setup.game_id].snapshot)  # the scan's doing
        store.answer.set()
        await trio.testing.wait_all_tasks_blocked()
        assert created == [adopted], "one room for the game: the one being created"
        assert list(registry.live) == [setup.game_id] and registry.get(setup.game_id) is adopted


async def test_an_ordinary_friend_game_has_no_startup_marker(autojump_clock, store):
    async with running_registry(store=store, wall_clock=wall) as registry:
        room = await registry.create(room_setup(await_joins=True, white=seat_setup(False), black=seat_setup(False)), _general(), ())
        assert room.public_state().rematch_startup is None
        assert "rematchStartup" not in room.state_text()


def _general():
    return Purpose.GENERAL


def _fairness():
    return Fairness.draw(SystemSeedSource())
