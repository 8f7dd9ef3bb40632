"""Each event is encoded once per audience: seats get the legal-move tree of a roll, spectators
(who never play) get the same event without it (`legalMoves: null`; a forced pass stays `{}`),
in the Snapshot too."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone

import trio
import trio.testing

from playsite.rooms.admission import Purpose
from playsite.rooms.intents import Detach, Rebind
from playsite.rooms.model import DISCONNECT_GRACE_S, RECONNECT_WINDOW_S
from playsite.rooms.watchers import TELL_EVERY_S
from playsite.wire.termination import Abort
from playsite.store.memory import MemoryStore
from playsite.wire import BLACK, WHITE, DiceRolled, Snapshot, SubmitTurn
from tests.support.rooms import (
    EPOCH,
    attach,
    command,
    drained,
    play_one_turn,
    received,
    room_setup,
    running_registry,
    seat_setup,
    sparing_turn,
    trio_wall,
)


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


async def test_presence_frames_go_only_to_subscribers_that_asked_and_count_down_the_grace(autojump_clock):
    """A seat's last connection gone while the game is on: `Presence {seat, away, forfeitAt}` to the
    subscribers that asked (playsite's web client), never to the others (the ecosystem's clients do
    not know the frame); back again: `away` false. A newcomer that asks hears who is away now."""
    setup = room_setup(white=seat_setup(always_present=False), black=seat_setup(always_present=False))
    async with running_registry() as registry:
        room = await registry.create(setup, Purpose.GENERAL, ())
        await trio.testing.wait_all_tasks_blocked()
        white = await attach(room, WHITE, presence=True)
        black = await attach(room, BLACK)
        watcher, plain = await attach(room, None, presence=True), await attach(room, None)
        await trio.testing.wait_all_tasks_blocked()
        for subscriber in (white, black, watcher, plain):
            drained(subscriber)
        assert await room.send(Detach(black))
        await trio.testing.wait_all_tasks_blocked()
        [frame] = [text for text in drained(watcher) if text.startswith('{"Presence"')]
        presence = json.loads(frame)["Presence"]
        assert presence["seat"] == "Black" and presence["away"] is True
        left = (datetime.fromisoformat(presence["forfeitAt"].replace("Z", "+00:00")) - datetime.now(timezone.utc)).total_seconds()
        assert 25 < left <= DISCONNECT_GRACE_S + 1, left
        assert any(text.startswith('{"Presence"') for text in drained(white))
        assert not any(text.startswith('{"Presence"') for text in drained(plain)), "asked for nothing, told nothing"
        late = await attach(room, None, presence=True)  # a page opened now hears it after the Snapshot
        assert [json.loads(t)["Presence"]["seat"] for t in drained(late) if t.startswith('{"Presence"')] == ["Black"]
        await attach(room, BLACK)
        await trio.testing.wait_all_tasks_blocked()
        back = [json.loads(t)["Presence"] for t in drained(watcher) if t.startswith('{"Presence"')]
        assert back == [{"seat": "Black", "away": False}]
        assert not room.ended


async def test_a_seat_named_after_the_start_is_told_as_presence_once_published(autojump_clock):
    """A signed-in player who sits down after the game began (a seek's creator, whose page follows
    a moment later): the pages that asked for Presence hear of the seat once the name is
    published, so they read the players again; an unchanged name tells nothing."""
    async with running_registry() as registry:
        room = await registry.create(room_setup(), Purpose.GENERAL, ())
        await trio.testing.wait_all_tasks_blocked()
        watcher, plain = await attach(room, None, presence=True), await attach(room, None)
        drained(watcher), drained(plain)
        principal = room.game.seats[WHITE].principal or "user:6f1c1a52-2a4e-4a3e-9d0e-0f3a8e1b2c01"
        rebind = Rebind(WHITE, principal, "alice")
        assert await room.send(rebind) and await rebind.reply.wait()
        await trio.testing.wait_all_tasks_blocked()
        told = [json.loads(t)["Presence"] for t in drained(watcher) if t.startswith('{"Presence"')]
        assert told == [{"seat": "White", "away": False}]
        assert room.published.state.players.white.name == "alice", "published before it is told"
        assert not any(t.startswith('{"Presence"') for t in drained(plain))
        again = Rebind(WHITE, principal, "alice")
        assert await room.send(again) and await again.reply.wait()
        await trio.testing.wait_all_tasks_blocked()
        assert not any(t.startswith('{"Presence"') for t in drained(watcher)), "the same name: nothing new"


async def test_both_seats_are_told_present_when_a_friend_game_begins(autojump_clock):
    """Play-through (session 53): an anonymous opponent's arrival showed nowhere, so both pages
    read "Waiting for your opponent to join..." through the seed window, until the first roll.
    The game's beginning is told as Presence, once published, to the pages that asked for it."""
    setup = room_setup(white=seat_setup(False), black=seat_setup(False), await_joins=True, seed_window_s=2)
    async with running_registry() as registry:
        room = await registry.create(setup, Purpose.GENERAL, ())
        white, watcher = await attach(room, WHITE, presence=True), await attach(room, None, presence=True)
        await trio.testing.wait_all_tasks_blocked()
        assert not any(t.startswith('{"Presence"') for t in drained(white) + drained(watcher)), "nobody else here yet"
        black = await attach(room, BLACK, presence=True)
        await trio.testing.wait_all_tasks_blocked()
        told = {name: drained(subscriber) for name, subscriber in (("white", white), ("black", black), ("watcher", watcher))}
        assert presence(told["white"]) == [{"seat": "Black", "away": False}]
        assert presence(told["black"]) == [{"seat": "White", "away": False}]
        assert presence(told["watcher"]) == [{"seat": "White", "away": False}, {"seat": "Black", "away": False}]
        kinds = [next(iter(json.loads(text))) for text in told["black"] if not text.startswith('{"Watching"')]
        assert kinds[:2] == ["Snapshot", "Presence"], "told as the game begins, before its first roll"


def presence(texts: list[str]) -> list[dict]:
    return [json.loads(text)["Presence"] for text in texts if text.startswith('{"Presence"')]




async def played_before_a_restart(store, rng: random.Random) -> str:
    """A game of two people, both at the board, with a turn written to `store`; then the
    registry is gone (a restart, as far as the store knows), and the players' pages with it."""
    setup = room_setup(white=seat_setup(always_present=False), black=seat_setup(always_present=False))
    async with running_registry(store=store, wall_clock=trio_wall) as registry:
        room = await registry.create(setup, Purpose.GENERAL, ())
        for seat in (WHITE, BLACK):
            await attach(room, seat)
        await play_one_turn(room, rng)  # written with both seats joined
    return room.game_id


async def test_after_a_restart_a_player_who_was_here_is_told_as_reconnecting_for_ten_seconds(autojump_clock):
    """Play-through (session 63): a moment after a restart the spectator read "left the game" of
    both players, whose pages were a second from coming back. A resumed game tells a seat whose
    player was here as `reconnectingUntil` 10 s on (its grace runs from the restart all the
    same); back in time: `away` false; not back by then: away as anyone who left."""
    store = MemoryStore()
    game_id = await played_before_a_restart(store, random.Random(1))
    async with running_registry(store=store, wall_clock=trio_wall) as registry:
        assert await registry.resume_all() == 1
        room = registry.live[game_id]
        await trio.testing.wait_all_tasks_blocked()
        restarted_at = trio.current_time()
        watcher, plain = await attach(room, None, presence=True), await attach(room, None)
        told = presence(drained(watcher))
        until = (EPOCH + timedelta(seconds=restarted_at + RECONNECT_WINDOW_S)).isoformat(timespec="milliseconds")
        forfeit = (EPOCH + timedelta(seconds=restarted_at + DISCONNECT_GRACE_S)).isoformat(timespec="milliseconds")
        assert told == [
            {"seat": seat, "away": True, "forfeitAt": forfeit.replace("+00:00", "Z"), "reconnectingUntil": until.replace("+00:00", "Z")}
            for seat in ("White", "Black")
        ]
        assert not presence(drained(plain))
        await attach(room, WHITE)  # White's page is back in time
        await trio.testing.wait_all_tasks_blocked()
        assert presence(drained(watcher)) == [{"seat": "White", "away": False}]
        await trio.sleep(RECONNECT_WINDOW_S)  # Black's is not
        late = await attach(room, None, presence=True)
        assert presence(drained(late)) == [{"seat": "Black", "away": True, "forfeitAt": forfeit.replace("+00:00", "Z")}]
        white_again = await attach(room, WHITE, presence=True)
        assert "reconnectingUntil" not in presence(drained(white_again))[0]
        assert not room.ended, "the grace runs from the restart: 30 s, not 10"
        await trio.sleep(DISCONNECT_GRACE_S - RECONNECT_WINDOW_S)
        await trio.testing.wait_all_tasks_blocked()  # the room's own deadline fell due at the same instant
        # Black's leaving ends it: a loss, or an abort while one side has not played a turn yet
        assert room.ended and (room.ending.winner == WHITE or room.ending.abort == Abort("disconnect", BLACK)), room.ending


async def test_a_player_who_leaves_after_coming_back_from_a_restart_has_left(autojump_clock):
    """The reconnecting words are for the way back from a restart only: a player who came back
    and then left again is told away like anyone who leaves, at once."""
    store = MemoryStore()
    game_id = await played_before_a_restart(store, random.Random(2))
    async with running_registry(store=store, wall_clock=trio_wall) as registry:
        await registry.resume_all()
        room = registry.live[game_id]
        watcher = await attach(room, None, presence=True)
        black = await attach(room, BLACK)
        assert await room.send(Detach(black))
        await trio.testing.wait_all_tasks_blocked()
        [*_, last] = [told for told in presence(drained(watcher)) if told["seat"] == "Black"]
        assert last["away"] is True and "reconnectingUntil" not in last


async def test_the_watchers_are_counted_after_the_snapshot_and_told_once_a_second_when_changed(autojump_clock):
    """`Watching {count}` to the subscribers that asked for Presence: after their Snapshot, and
    when the number of spectators (no seat, no trees) changed, at most once a second: a crowd
    arriving is one frame; one leaving and another coming within that second tells nothing."""
    async with running_registry() as registry:
        room = await registry.create(room_setup(), Purpose.GENERAL, ())
        white = await attach(room, WHITE, presence=True)
        assert watching(drained(white)) == [0], "after the Snapshot: nobody watches"
        plain = await attach(room, None)
        crowd = [await attach(room, None, presence=True) for _ in range(3)]
        assert watching(drained(crowd[0])) == [2], "its own Snapshot's count, itself included"
        await told_after(TELL_EVERY_S)
        assert watching(drained(white)) == [4], "four arrived: one frame"
        assert watching(drained(crowd[0])) == [4]
        assert not watching(drained(plain)), "asked for nothing, told nothing"
        await attach(room, BLACK)  # a seat is no watcher
        await attach(room, None, watching=False)  # nor a webhook's dispatch of a seat's turns
        assert await room.send(Detach(crowd[2]))
        await attach(room, None)
        await told_after(TELL_EVERY_S)
        assert watching(drained(white)) == [], "one left and one came: the same four"
        assert await room.send(Detach(plain))
        await told_after(TELL_EVERY_S)
        assert watching(drained(white)) == [3]


async def told_after(seconds: float) -> None:
    """`seconds` on, and the room's tasks due then have run (they wake at the same instant)."""
    await trio.sleep(seconds)
    await trio.testing.wait_all_tasks_blocked()


def watching(texts: list[str]) -> list[int]:
    return [json.loads(text)["Watching"]["count"] for text in texts if text.startswith('{"Watching"')]
