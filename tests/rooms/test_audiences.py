"""Each event is encoded once per audience: seats get the legal-move tree of a roll, spectators
(who never play) get the same event without it (`legalMoves: null`; a forced pass stays `{}`),
in the Snapshot too."""

from __future__ import annotations

import random

import trio.testing

from playsite.rooms.admission import Purpose
from playsite.wire import BLACK, WHITE, DiceRolled, Snapshot, SubmitTurn
from tests.support.rooms import attach, command, received, room_setup, running_registry, sparing_turn


async def test_spectators_get_rolls_without_the_tree_and_seats_with_it(autojump_clock):
    # A fixed seed, so the first roll has a tree small enough to be inlined (and is no pass).
    async with running_registry(seeds=[bytes(range(32))]) as registry:
        room = await registry.create(room_setup(), Purpose.GENERAL, ())
        await trio.testing.wait_all_tasks_blocked()
        seated = {seat: await attach(room, seat) for seat in (WHITE, BLACK)}
        watcher = await attach(room, None)
        snapshots = {name: received(sub)[0] for name, sub in {**seated, "watcher": watcher}.items()}
        assert all(isinstance(s, Snapshot) for s in snapshots.values())
        assert snapshots[WHITE].state.legal_moves and snapshots[BLACK].state.legal_moves == snapshots[WHITE].state.legal_moves
        assert snapshots["watcher"].state.legal_moves is None
        assert snapshots["watcher"].state.dfen == snapshots[WHITE].state.dfen  # the same version otherwise

        verdict = await command(room, room.game.active_seat, SubmitTurn(sparing_turn(room, random.Random(1))))
        assert verdict.applied
        rolls = {name: [e for e in received(sub) if isinstance(e, DiceRolled)] for name, sub in {**seated, "watcher": watcher}.items()}
        assert rolls[WHITE] and rolls[WHITE] == rolls[BLACK]
        assert [r.v for r in rolls["watcher"]] == [r.v for r in rolls[WHITE]]
        for seen, watched in zip(rolls[WHITE], rolls["watcher"]):
            # A forced pass stays `{}` for everyone (it says there was nothing to play).
            assert watched.legal_moves == ({} if seen.legal_moves == {} else None)
        assert any(r.legal_moves for r in rolls[WHITE])
