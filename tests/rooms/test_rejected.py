"""A refused turn is an event of the room: `Rejected`, with a version of its own, for everyone.

As in the dicechess-play ecosystem, whose clients drop any event with `v` at or below the
last one they saw: the refusal gets the next version, every subscriber receives it, and the
version is committed like any other before anything is published. Nothing but the version
changes. Seeds are not moves (an ignored seed is no event); a game that is over publishes
nothing more.
"""

from __future__ import annotations

import random

import trio
import trio.testing

from playsite.rooms.admission import Purpose
from playsite.rooms.intents import PlayerCommand
from playsite.rooms.model import REQUIRED, TECHNICAL_ABORT_REASON
from playsite.wire import AnswerDraw, DiceRolled, Fischer, GameEnded, Rejected, Resign, SubmitSeed, SubmitTurn, Unlimited
from tests.support.faulty_store import FaultyStore
from tests.support.rooms import attach, command, received, room_setup, running_registry, sparing_turn


async def rolled_room(registry, **overrides):
    room = await registry.create(room_setup(**{"time_control": Unlimited(), **overrides}), Purpose.GENERAL, ())
    while not room.game.tree:
        await trio.testing.wait_all_tasks_blocked()
        await trio.sleep(0.001)
    return room


async def test_a_refusal_is_broadcast_to_every_subscriber_with_the_next_version(autojump_clock):
    async with running_registry() as registry:
        room = await rolled_room(registry)
        mover = room.game.active_seat
        waiting = "Black" if mover == "White" else "White"
        subscribers = [await attach(room, mover), await attach(room, waiting), await attach(room)]
        for subscriber in subscribers:
            received(subscriber)  # the Snapshots
        version, position, history = room.version, room.game.position, list(room.game.history)

        illegal = await command(room, mover, SubmitTurn(("a1a8",)))
        out_of_turn = await command(room, waiting, SubmitTurn(("e2e4",)))

        assert (illegal.applied, illegal.version) == (False, version + 1)
        assert illegal.reason.startswith("illegal turn")
        assert (out_of_turn.applied, out_of_turn.version, out_of_turn.reason) == (False, version + 2, "not your turn")
        expected = [
            Rejected(v=version + 1, seat=mover, reason=illegal.reason),
            Rejected(v=version + 2, seat=waiting, reason="not your turn"),
        ]
        for subscriber in subscribers:
            assert received(subscriber) == expected, "the mover, the other seat and a spectator alike"
        assert (room.game.position, room.game.history, room.game.active_seat) == (position, history, mover), "only the version moved"
        assert room.published.version == version + 2 and room.published.tree == room.game.tree

        # The roll still stands: a legal turn is played at the version after the refusals.
        played = await command(room, mover, SubmitTurn(sparing_turn(room, random.Random(3))))
        assert played.applied and played.version == version + 3


async def test_a_refused_draw_answer_is_broadcast_too(autojump_clock):
    async with running_registry() as registry:
        room = await rolled_room(registry)
        spectator = await attach(room)
        received(spectator)
        verdict = await command(room, room.game.active_seat, AnswerDraw(True))
        assert not verdict.applied and "no draw offer" in verdict.reason
        assert received(spectator) == [Rejected(v=verdict.version, seat=room.game.active_seat, reason=verdict.reason)]


async def test_an_ignored_seed_and_a_command_after_the_end_publish_nothing(autojump_clock):
    async with running_registry() as registry:
        room = await rolled_room(registry)
        spectator = await attach(room)
        received(spectator)
        version = room.version
        late = await command(room, "White", SubmitSeed("too late " + "x" * 20))
        assert (late.applied, late.reason) == (False, "seed ignored (late)")
        assert room.version == version and received(spectator) == []

        assert (await command(room, "White", Resign())).applied
        ended = received(spectator)
        assert [type(e) for e in ended] == [GameEnded]
        await room.finished.wait()
        intent = PlayerCommand("Black", SubmitTurn(("e7e5",)))
        assert not await room.send(intent), "a game that is over takes no command, and publishes nothing"
        assert room.version == ended[0].v and received(spectator) == []


async def test_a_rejected_is_published_only_once_its_version_is_committed(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await rolled_room(registry, durability=REQUIRED)
        spectator = await attach(room)
        received(spectator)
        version = room.version
        assert store.games[room.game_id].version == version
        store.fail_next = 2
        async with trio.open_nursery() as nursery:
            nursery.start_soon(command, room, room.game.active_seat, SubmitTurn(("a1a8",)))
            await trio.sleep(0.1)  # inside the first retry's backoff
            assert received(spectator) == [], "no Rejected while its version is not committed"
            assert store.games[room.game_id].version == version
            assert room.published.version == version, "reads show only the committed version"
        (rejected,) = received(spectator)
        assert isinstance(rejected, Rejected) and rejected.v == version + 1
        assert store.games[room.game_id].version == version + 1, "the version published is the one committed"


async def test_a_rejected_whose_write_is_given_up_is_never_published(autojump_clock):
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await rolled_room(registry, durability=REQUIRED)
        spectator = await attach(room)
        received(spectator)
        version = room.version
        store.fail_next = 5  # the first attempt and all four retries
        verdict = await command(room, room.game.active_seat, SubmitTurn(("a1a8",)))
        assert (verdict.applied, verdict.reason) == (False, TECHNICAL_ABORT_REASON)
        await room.finished.wait()
        events = received(spectator)
        assert [type(e) for e in events] == [GameEnded] and events[0].v == version + 1


async def test_the_mover_pays_for_the_writes_of_its_own_refused_moves(autojump_clock):
    """A stalled write is credited to the mover, but not the write of its own refusal:
    sending refused moves must not stop its clock."""
    store = FaultyStore()
    async with running_registry(store=store) as registry:
        room = await rolled_room(registry, durability=REQUIRED, time_control=Fischer(60, 0))
        mover = room.game.active_seat
        waiting = "Black" if mover == "White" else "White"
        for refused_by, credited in ((waiting, True), (mover, False)):
            store.fail_next = 1  # one failed attempt: a stall of the first retry's backoff
            before = room.game.clock.read(trio.current_time())
            started = trio.current_time()
            verdict = await command(room, refused_by, SubmitTurn(("a1a8",)))
            assert not verdict.applied
            stalled_ms = round((trio.current_time() - started) * 1000)
            assert stalled_ms > 0
            after = room.game.clock.read(trio.current_time())
            spent = (before.white_ms - after.white_ms) if mover == "White" else (before.black_ms - after.black_ms)
            assert spent == (0 if credited else stalled_ms), (refused_by, spent, stalled_ms)


async def test_dice_rolled_after_refusals_still_carry_increasing_versions(autojump_clock):
    async with running_registry() as registry:
        room = await rolled_room(registry)
        spectator = await attach(room)
        received(spectator)
        for _ in range(3):
            await command(room, room.game.active_seat, SubmitTurn(("a1a8",)))
        assert (await command(room, room.game.active_seat, SubmitTurn(sparing_turn(room, random.Random(4))))).applied
        seen = received(spectator)
        assert [type(e).__name__ for e in seen][:4] == ["Rejected"] * 3 + ["TurnPlayed"]
        assert any(isinstance(e, DiceRolled) for e in seen), "the next roll is published with the turn"
        versions = [e.v for e in seen]
        assert versions == list(range(versions[0], versions[0] + len(versions))), "one version per event, no gaps"
