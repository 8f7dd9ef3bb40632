"""A registry on the memory store with scripted players, for room tests under MockClock."""

from __future__ import annotations

import contextlib
import random
import uuid
from datetime import datetime, timedelta, timezone

import trio
from trio.testing import wait_all_tasks_blocked

from playsite.dice import FixedSeedSource, SystemSeedSource
from playsite.rooms.admission import Admission
from playsite.rooms.fanout import QueueSubscriber
from playsite.rooms.intents import Attach, Detach, PlayerCommand
from playsite.rooms.model import RoomSetup, SeatSetup
from playsite.rooms.registry import Registry
from playsite.rules import format_dfen
from playsite.tokens import new_token
from playsite.wire import DiceRolled, Fischer, GameEnded, PublicFace, Snapshot, SubmitTurn, decode_event
from tests.support.turns import king_sparing_turn, random_turn


def seat_setup(always_present: bool = True) -> SeatSetup:
    return SeatSetup(token_hash=new_token()[1], face=PublicFace(kind="Human", name=None), always_present=always_present)


def room_setup(**overrides) -> RoomSetup:
    values = dict(
        game_id=str(uuid.uuid4()),
        time_control=Fischer(300, 3),
        white=seat_setup(),
        black=seat_setup(),
        await_joins=False,
        seed_window_s=0,
    )
    values.update(overrides)
    return RoomSetup(**values)


@contextlib.asynccontextmanager
async def running_registry(seeds=None, limits_of=lambda participant: None, store=None, **options):
    """A running registry; `options` (policy, wall_clock) go to the Registry."""
    source = FixedSeedSource(seeds) if seeds is not None else SystemSeedSource()
    async with trio.open_nursery() as nursery:
        registry = await nursery.start(Registry(Admission(limits_of), source, store, **options).run)
        yield registry
        nursery.cancel_scope.cancel()


def sparing_turn(room, rng: random.Random) -> tuple[str, ...]:
    """A random legal turn for the seat to move that leaves the enemy king alone whenever it
    can: a test that needs the game to go on must not end it by chance."""
    return tuple(king_sparing_turn(room.game.tree, format_dfen(room.game.position), room.game.active_seat, rng))


async def attach(room, seat=None, **kwargs) -> QueueSubscriber:
    subscriber = QueueSubscriber(seat, **kwargs)
    intent = Attach(subscriber)
    assert await room.send(intent)
    assert await intent.reply.wait()
    return subscriber


EPOCH = datetime(2026, 11, 24, 12, 0, tzinfo=timezone.utc)
"""`trio_wall`'s instant at trio's time 0."""


def trio_wall() -> str:
    """A wall clock tied to trio's (a room's `wall_clock`): under MockClock, instants the room
    writes move with the jumps of trio's time, as they would in real time."""
    moment = EPOCH + timedelta(seconds=trio.current_time())
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def play_one_turn(room, rng) -> str:
    """The seat to move plays a random legal turn; returns that seat."""
    while not (room.published.state.dice_pending and room.published.tree):
        await wait_all_tasks_blocked()
        await trio.sleep(0.001)
    seat = room.published.state.active_seat
    intent = PlayerCommand(seat, SubmitTurn(sparing_turn(room, rng)))
    await room.send(intent)
    assert (await intent.reply.wait()).applied
    return seat


async def command(room, seat, cmd):
    intent = PlayerCommand(seat, cmd)
    assert await room.send(intent)
    return await intent.reply.wait()


def received(subscriber: QueueSubscriber) -> list:
    """The events queued for this subscriber so far, decoded (without waiting for more)."""
    events = []
    while True:
        try:
            events.append(decode_event(subscriber.events.receive_nowait()))
        except (trio.WouldBlock, trio.EndOfChannel):
            return events


async def play_randomly(room, subscriber: QueueSubscriber, rng: random.Random, *, turns: int | None = None):
    """Play every roll of this seat with a random legal turn; returns the events seen."""
    seen = []
    played = 0
    async for text in subscriber.events:
        event = decode_event(text)
        seen.append(event)
        if isinstance(event, GameEnded):
            break
        if isinstance(event, Snapshot):
            my_roll = event.state.dice_pending and event.state.active_seat == subscriber.seat
            tree = event.state.legal_moves
        else:
            my_roll = isinstance(event, DiceRolled) and event.seat == subscriber.seat
            tree = event.legal_moves if my_roll else None
        if my_roll and tree != {}:
            if turns is not None and played >= turns:
                continue
            tree = tree if tree is not None else room.game.tree
            verdict = await command(room, subscriber.seat, SubmitTurn(tuple(random_turn(tree, rng))))
            assert verdict.applied, verdict.reason
            played += 1
    return seen


async def detach(room, subscriber):
    await room.send(Detach(subscriber))

def drained(subscriber) -> list[str]:
    """The texts queued for `subscriber` so far, undecoded (Presence is not an event of the wire's)."""
    texts = []
    while True:
        try:
            texts.append(subscriber.events.receive_nowait())
        except (trio.WouldBlock, trio.EndOfChannel):
            return texts
