"""A turn is answered and broadcast as soon as its write commits; the next roll, committed in
the same write, is announced once its legal-move tree is computed (a worker's batch away)."""

from __future__ import annotations

import random

import trio
import trio.testing

from playsite.rooms.admission import Purpose
from playsite.rooms.model import REQUIRED
from playsite.rooms.trees import Trees, pack
from playsite.wire import DiceRolled, SubmitTurn, TurnPlayed, Unlimited

from .faulty_store import FaultyStore
from .harness import attach, command, received, room_setup, running_registry, sparing_turn
from .test_room import playable, seed_where


class GatedTrees(Trees):
    """Trees computed in this process, each only once the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = trio.Event()
        self.gate.set()

    async def _compute(self, position):
        await self.gate.wait()
        return pack(position)


def required_setup():
    return room_setup(durability=REQUIRED, time_control=Unlimited())


async def wait_for_tree(room) -> None:
    for _ in range(100):
        if room.tree:
            return
        await trio.testing.wait_all_tasks_blocked()
    raise AssertionError("the room has no roll with legal moves")


async def test_the_verdict_and_turn_do_not_wait_for_the_next_rolls_tree(autojump_clock):
    store, trees = FaultyStore(), GatedTrees()
    async with running_registry(seeds=[seed_where(playable, playable)], store=store, trees=trees) as registry:
        room = await registry.create(required_setup(), Purpose.GENERAL, ())
        spectator = await attach(room)
        await wait_for_tree(room)
        received(spectator)
        writes = store.attempts
        trees.gate = trio.Event()  # the next tree is "in a worker" until the gate opens

        with trio.fail_after(60):  # the tree never comes: the verdict must not wait for it
            verdict = await command(room, room.active_seat, SubmitTurn(sparing_turn(room, random.Random(3))))

        assert verdict.applied
        turn = received(spectator)
        assert [type(event) for event in turn] == [TurnPlayed] and turn[0].v == verdict.version
        between = room.public_state()
        assert (between.version, between.dice_pending, between.legal_moves) == (verdict.version, False, None)
        assert room.published.moves_text().count('"dicePending":false') == 1
        # The roll committed with the turn, in one write, before either was published.
        assert store.attempts == writes + 1
        assert store.games[room.game_id].version == verdict.version + 1

        trees.gate.set()
        await trio.testing.wait_all_tasks_blocked()
        roll = received(spectator)
        assert [type(event) for event in roll] == [DiceRolled] and roll[0].v == verdict.version + 1
        rolled = room.public_state()
        assert (rolled.version, rolled.dice_pending) == (verdict.version + 1, True)
        assert store.attempts == writes + 1, "announcing the roll writes nothing"


async def test_a_committed_roll_without_moves_is_passed_when_the_room_resumes(autojump_clock):
    # White's first roll has neither a pawn nor a knight die: it can only pass.
    seed = seed_where(lambda dice: not playable(dice), playable)
    store, trees = FaultyStore(), GatedTrees()
    trees.gate = trio.Event()
    async with running_registry(seeds=[seed], store=store, trees=trees) as registry:
        room = await registry.create(required_setup(), Purpose.GENERAL, ())
        await trio.testing.wait_all_tasks_blocked()
        assert store.games[room.game_id].version == room.version and room.ply == 1
        assert room.history == [], "the pass waits for the roll's tree"
    # The server stopped there: the roll is durable, its forced pass never happened.
    async with running_registry(store=store) as registry:
        assert await registry.resume_all() == 1
        resumed = registry.live[room.game_id]
        await wait_for_tree(resumed)
        assert [(turn.seat, turn.moves) for turn in resumed.history] == [("White", ())]
        assert (resumed.ply, resumed.active_seat) == (2, "Black")
        assert store.games[room.game_id].version == resumed.version
