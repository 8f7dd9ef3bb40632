"""The room actor: turn flow, clocks, draws, aborts, disconnects, all under MockClock."""

from __future__ import annotations

import functools
import json
import random

import pytest
import trio
import trio.testing

from playsite.dice import SEED_BYTES, roll
from playsite.dice.procedure import commitment
from playsite.rooms.durable import dump_state, load_state
from playsite.rooms.model import DISCONNECT_GRACE_S, RoomPhase
from playsite.rooms.writes import game_ending, history_record
from playsite.rules import format_dfen
from playsite.store.memory import MemoryStore
from playsite.wire import (
    Abort,
    AnswerDraw,
    DrawDeclined,
    Fischer,
    GameEnded,
    PerMove,
    Resign,
    Snapshot,
    SubmitSeed,
    SubmitTurn,
    SuddenDeath,
    TurnPlayed,
    Unlimited,
    UnplayedRoll,
    Win,
    decode_event,
    encode_history,
)
from tests.support.rooms import (
    attach,
    command,
    detach,
    play_randomly,
    received,
    room_setup,
    running_registry,
    seat_setup,
    sparing_turn,
)
from tests.support.turns import king_square, random_turn


def seed_where(*predicates) -> bytes:
    """A deterministic seed whose rolls at ply 0, 1, ... satisfy `predicates` in order."""
    for n in range(100_000):
        seed = n.to_bytes(SEED_BYTES, "big")
        if all(predicate(roll(seed, "", "", ply)) for ply, predicate in enumerate(predicates)):
            return seed
    raise AssertionError("no seed found")


def playable(dice) -> bool:
    """From the start position only pawns (1) and knights (2) can move."""
    return 1 in dice or 2 in dice


async def test_two_random_players_finish_a_game_with_increasing_versions(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), purpose_general(), ())
        white, black, spectator = await attach(room, "White"), await attach(room, "Black"), await attach(room)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_randomly, room, white, random.Random(1))
            nursery.start_soon(play_randomly, room, black, random.Random(2))
            watched = []
            async for text in spectator.events:
                watched.append(decode_event(text))
        assert isinstance(watched[0], Snapshot)
        versions = [event.v for event in watched]
        assert versions == sorted(set(versions)), "versions strictly increase"
        ended = watched[-1]
        assert isinstance(ended, GameEnded)
        assert commitment(bytes.fromhex(ended.seed)) == room.game.fairness.commit
        turns = [e for e in watched if isinstance(e, TurnPlayed)]
        assert len(watched[0].history) + len(turns) == len(room.game.history) > 0
        assert room.ended and room.game_id not in registry.live


async def test_a_five_plus_three_game_flags_in_mock_time(autojump_clock):
    async with running_registry(seeds=[seed_where(playable, playable)]) as registry:
        room = await registry.create(room_setup(time_control=SuddenDeath(300)), purpose_general(), ())
        white, black = await attach(room, "White"), await attach(room, "Black")
        start = trio.current_time()
        async with trio.open_nursery() as nursery:
            # Both play one turn each, then White never moves again.
            nursery.start_soon(functools.partial(play_randomly, room, white, random.Random(3), turns=1))
            nursery.start_soon(play_randomly, room, black, random.Random(4))
            await room.finished.wait()
        assert room.ending.termination.value == "timeout"
        assert room.ending.winner == "Black"
        assert 300 <= trio.current_time() - start < 301


async def test_timeout_before_both_seats_played_is_an_abort(autojump_clock):
    async with running_registry(seeds=[seed_where(playable)]) as registry:
        room = await registry.create(room_setup(time_control=Fischer(60, 0)), purpose_general(), ())
        await room.finished.wait()
        assert room.ending.termination.value == "aborted"
        assert room.ending.over.result is None
        assert room.ending.abort == Abort("timeout", "White"), "White's clock ran out before its first turn"


async def test_forced_pass_is_immediate_and_costs_no_clock_time(autojump_clock):
    seed = seed_where(lambda dice: not ({1, 2} & set(dice)))
    async with running_registry(seeds=[seed]) as registry:
        room = await registry.create(room_setup(time_control=Fischer(60, 5)), purpose_general(), ())
        assert (room.game.history[0].seat, room.game.history[0].moves) == ("White", ())
        assert room.game.clock.remaining_ms["White"] == 60_000, "no time charged, no increment earned"
        assert room.game.ply >= 2, "Black was rolled for at once"


async def test_fischer_increment_is_credited_once_per_turn(autojump_clock):
    seed = seed_where(playable)
    async with running_registry(seeds=[seed]) as registry:
        room = await registry.create(room_setup(time_control=Fischer(60, 5)), purpose_general(), ())
        await trio.sleep(7)
        verdict = await command(room, "White", SubmitTurn(tuple(random_turn(room.game.tree, random.Random(0)))))
        assert verdict.applied
        assert room.game.clock.remaining_ms["White"] == 60_000 - 7_000 + 5_000


async def test_per_move_budget_is_fresh_each_turn(autojump_clock):
    seed = seed_where(playable)
    async with running_registry(seeds=[seed]) as registry:
        room = await registry.create(room_setup(time_control=PerMove(10)), purpose_general(), ())
        await trio.sleep(9)
        assert (await command(room, "White", SubmitTurn(tuple(random_turn(room.game.tree, random.Random(0)))))).applied
        if room.game.tree:  # Black rolled something playable: its budget is a full 10 s
            assert room.game.clock.remaining_ms["Black"] == 10_000
            assert room.game.clock.flag_at() == pytest.approx(trio.current_time() + 10)


async def test_unlimited_has_no_clock(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), purpose_general(), ())
        assert room.game.clock is None and room.public_state().clocks is None
        await trio.sleep(100_000)
        assert not room.ended


async def test_illegal_and_out_of_turn_commands_are_rejected_without_changing_the_game(autojump_clock):
    seed = seed_where(playable)
    async with running_registry(seeds=[seed]) as registry:
        room = await registry.create(room_setup(), purpose_general(), ())
        version, position, history = room.version, room.game.position, list(room.game.history)
        not_yours = await command(room, "Black", SubmitTurn(("e7e5",)))
        assert (not_yours.applied, not_yours.reason) == (False, "not your turn")
        illegal = await command(room, "White", SubmitTurn(("e2e5",)))
        assert not illegal.applied and illegal.reason.startswith("illegal turn:")
        # Each refusal is a version of its own (its Rejected event), and nothing else changed.
        assert (not_yours.version, illegal.version, room.version) == (version + 1, version + 2, version + 2)
        assert (room.game.position, room.game.history, room.game.active_seat) == (position, history, "White")


async def test_resign_after_both_played_wins_for_the_other_seat(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), purpose_general(), ())
        await play_until_both_played(room)
        assert (await command(room, "White", Resign())).applied
        assert room.ending.termination.value == "resign" and room.ending.winner == "Black"
        assert room.ending.over.termination == "Resign" and room.ending.over.result == Win("Black")


async def test_a_finished_room_keeps_no_socket_of_its_seats(autojump_clock):
    """The registry keeps finished rooms for late readers; the sockets that were seated when
    the game ended, their queues and what was queued are not kept with them."""
    async with running_registry() as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), purpose_general(), ())
        white, black = await attach(room, "White"), await attach(room, "Black")
        assert room.seated == {white: "White", black: "Black"}
        await play_until_both_played(room)
        assert (await command(room, "White", Resign())).applied
        await room.finished.wait()
        assert registry.get(room.game_id) is room and room.seated == {}
        assert white.closed and black.closed


async def test_the_roll_a_game_ended_on_is_in_its_record_where_it_checks_out(autojump_clock):
    """A player who resigns (or whose clock runs out) on a roll they saw: that roll's dice are
    in the record, rolled at the ply after the last turn, like every turn's."""
    async with running_registry(seeds=[seed_where(playable)]) as registry:
        room = await registry.create(room_setup(), purpose_general(), ())
        assert room.game.phase is RoomPhase.PLAYING and room.game.active_seat == "White"
        shown = room.game.rolled
        assert (await command(room, "White", Resign())).applied
        record = history_record(room.game.state())
        assert record.unplayed_roll == UnplayedRoll("White", shown) and record.turns == ()
        assert tuple(room.game.fairness.roll(len(record.turns))) == shown
        assert encode_history(record)["unplayedRoll"] == {"activeColor": "White", "dice": list(shown)}


async def test_resign_before_both_played_is_an_abort(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(), purpose_general(), ())
        assert (await command(room, "Black", Resign())).applied
        assert room.ending.termination.value == "aborted"
        assert room.ending.abort == Abort("resign", "Black") and not room.ending.technical
        record = history_record(room.game.state())
        assert encode_history(record)["abort"] == {"cause": "resign", "seat": "Black"}
        assert (game_ending(room.game.state()).result.abort_cause, game_ending(room.game.state()).result.abort_seat) == (
            "resign", "Black")
        assert load_state(dump_state(room.game.state())).ending == room.ending, "a resumed room knows why too"


def human_seats(**overrides):
    return room_setup(time_control=Unlimited(), white=seat_setup(False), black=seat_setup(False), **overrides)


async def test_draw_offer_accepted_ends_in_a_draw(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(human_seats(), purpose_general(), ())
        offerer = await play_until_both_played(room)
        await offer_draw_with_a_turn(room, offerer)
        assert room.game.phase is RoomPhase.DRAW_ANSWER and room.game.tree is None, "no roll before the answer"
        assert (await command(room, room.game.active_seat, AnswerDraw(True))).applied
        assert room.ending.termination.value == "draw_agreement" and room.ending.winner is None
        assert history_record(room.game.state()).unplayed_roll is None, "answered before the next roll"


async def test_draw_offer_declined_rolls_and_blocks_a_second_offer(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(human_seats(), purpose_general(), ())
        spectator = await attach(room)
        offerer = await play_until_both_played(room)
        await offer_draw_with_a_turn(room, offerer)
        answerer = room.game.active_seat
        assert (await command(room, answerer, AnswerDraw(False))).applied
        assert any(isinstance(e, DrawDeclined) and e.seat == answerer for e in received(spectator))
        await play_until(room, offerer)
        again = await command(room, offerer, SubmitTurn(sparing_turn(room, random.Random(5)), offer_draw=True))
        assert not again.applied and "may not offer a draw again" in again.reason


async def test_a_declined_draw_offer_stays_in_the_snapshot_the_stored_state_and_the_archive(autojump_clock):
    """Play-through (session 51): only a page that saw the offer live showed it; a reload, a late
    spectator and the replay lost it. The history records it, and its answer, everywhere."""
    store = MemoryStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(human_seats(), purpose_general(), ())
        offerer = await play_until_both_played(room)
        await offer_draw_with_a_turn(room, offerer)

        index = len(room.state().history) - 1  # the offering turn (the answerer's roll may pass after it)

        def turn(at: int):
            snapshot = decode_event(room.snapshot_text())
            assert isinstance(snapshot, Snapshot)
            return snapshot.history[at]

        offered = turn(index)
        assert (offered.seat, offered.draw_offer, offered.draw_declined) == (offerer, True, False)
        assert (await command(room, room.game.active_seat, AnswerDraw(False))).applied
        declined = turn(index)
        assert (declined.draw_offer, declined.draw_declined) == (True, True)
        stored = store.games[room.game_id].snapshot["history"]
        assert (stored[index]["drawOffer"], stored[index]["drawDeclined"]) == (True, True), "the stored state says it"
        assert [n for n, t in enumerate(stored) if "drawOffer" in t] == [index], "no other turn offered"
        resumed = load_state(store.games[room.game_id].snapshot).history[index]
        assert (resumed.draw_offer, resumed.draw_declined) == (True, True), "a resumed room keeps it"
        assert (await command(room, room.game.active_seat, Resign())).applied
        await room.finished.wait()
    record = json.loads(store.archive[room.game_id])
    flagged = [(turn["turnNumber"], turn.get("drawOffer"), turn.get("drawDeclined")) for turn in record["turns"] if "drawOffer" in turn]
    assert flagged == [(index + 1, True, True)], "the archive says it"


def king_taking_turn(tree: dict, king: str) -> list[str] | None:
    """A complete turn of `tree` with a micro-move onto `king`'s square, or None."""
    for move, rest in sorted(tree.items()):
        if move[2:4] == king:
            return [move, *random_turn(rest, random.Random(0))]
        tail = king_taking_turn(rest, king)
        if tail is not None:
            return [move, *tail]
    return None


async def test_a_turn_that_takes_the_king_offers_no_draw(autojump_clock):
    """Play-through (session 60): the offer rode on the winning turn into the move list and the
    record ("Rg4xg1# (offers a draw)"). The game is over: nothing is offered, the turn stands."""
    store = MemoryStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(human_seats(), purpose_general(), ())
        rng = random.Random(21)
        taking = None
        while taking is None:
            assert not room.ended, f"{room.ending} before a king could be taken"
            await trio.testing.wait_all_tasks_blocked()
            seat = room.game.active_seat
            if room.game.tree and len(room.game.played | {seat}) == 2:
                opponent = "Black" if seat == "White" else "White"
                taking = king_taking_turn(room.game.tree, king_square(format_dfen(room.game.position), opponent))
                if taking is not None:
                    break
            if room.game.tree:
                assert (await command(room, seat, SubmitTurn(sparing_turn(room, rng)))).applied
        # watching from here: a queue nobody reads during a long game would fill up and be dropped
        watcher = await attach(room)
        verdict = await command(room, seat, SubmitTurn(tuple(taking), offer_draw=True))
        assert verdict.applied, verdict.reason
        await room.finished.wait()
    events = received(watcher)
    played = [event for event in events if isinstance(event, TurnPlayed)][-1]
    assert (played.seat, list(played.moves), played.draw_offer) == (seat, taking, False)
    ended = events[-1]
    assert isinstance(ended, GameEnded) and ended.over.result == Win(seat)
    record = json.loads(store.archive[room.game_id])
    assert not [turn for turn in record["turns"] if "drawOffer" in turn], "the record offers nothing"


async def test_no_draw_offer_to_an_api_seat(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(time_control=Unlimited(), white=seat_setup(False)), purpose_general(), ())
        await play_until(room, "White")
        verdict = await command(room, "White", SubmitTurn(sparing_turn(room, random.Random(3)), offer_draw=True))
        assert not verdict.applied and "cannot answer" in verdict.reason


async def test_no_draw_offer_before_both_sides_have_played_a_turn(autojump_clock):
    """Agreed then, it would only abort the game (rules.md): the first player's first turn may
    not offer one, the second player's first turn may (both have played once it is played)."""
    async with running_registry() as registry:
        room = await registry.create(human_seats(), purpose_general(), ())
        await trio.testing.wait_all_tasks_blocked()
        first = room.game.active_seat  # the first roll with a move (a roll without one passes)
        assert room.game.tree and not room.game.played
        refused = await command(room, first, SubmitTurn(sparing_turn(room, random.Random(3)), offer_draw=True))
        assert not refused.applied and refused.reason == "a draw cannot be offered before both sides have played a turn"
        assert not room.game.played, "nothing of the refused turn was played"
        assert (await command(room, first, SubmitTurn(sparing_turn(room, random.Random(3))))).applied
        second = "Black" if first == "White" else "White"
        await play_until(room, second)  # its first turn with a move: both will have played once it is
        await offer_draw_with_a_turn(room, second)
        assert room.game.phase is RoomPhase.DRAW_ANSWER


async def test_answering_without_an_offer_is_rejected(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(), purpose_general(), ())
        verdict = await command(room, "Black", AnswerDraw(True))
        assert (verdict.applied, verdict.reason) == (False, "there is no draw offer to answer")


async def test_disconnect_grace_forfeits_after_30_seconds(autojump_clock):
    setup = room_setup(time_control=Unlimited(), white=seat_setup(False), black=seat_setup(False), await_joins=True)
    store = MemoryStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(setup, purpose_general(), ())
        white, black = await attach(room, "White"), await attach(room, "Black")
        await play_until_both_played(room)
        await detach(room, white)
        left_at = trio.current_time()
        await room.finished.wait()
        assert trio.current_time() - left_at == pytest.approx(DISCONNECT_GRACE_S)
        assert room.ending.termination.value == "disconnect" and room.ending.winner == "Black"
        assert room.ending.over.termination == "Resign"
    record = json.loads(store.archive[room.game_id])
    assert (record["termination"], record["result"], record["disconnect"]) == ("resign", -1, True), "archived as a forfeit"
    assert store.results[room.game_id].disconnect and store.results[room.game_id].termination == "resign"
    [listed] = await store.recent_archives(5)
    assert (listed["termination"], listed["disconnect"]) == ("resign", True), "the list of finished games says so too"


async def test_a_resignation_is_not_archived_as_a_forfeit(autojump_clock):
    store = MemoryStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(room_setup(), purpose_general(), ())
        await play_until_both_played(room)
        assert (await command(room, "White", Resign())).applied
        await room.finished.wait()
    record = json.loads(store.archive[room.game_id])
    assert record["termination"] == "resign" and "disconnect" not in record
    assert not store.results[room.game_id].disconnect


async def test_reconnecting_within_the_grace_keeps_the_game(autojump_clock):
    setup = room_setup(time_control=Unlimited(), white=seat_setup(False), black=seat_setup(False), await_joins=True)
    async with running_registry() as registry:
        room = await registry.create(setup, purpose_general(), ())
        white, _black = await attach(room, "White"), await attach(room, "Black")
        await play_until_both_played(room)
        await detach(room, white)
        await trio.sleep(DISCONNECT_GRACE_S - 1)
        await attach(room, "White")
        await trio.sleep(DISCONNECT_GRACE_S * 10)
        assert not room.ended


async def test_friend_game_waits_for_both_seats_then_aborts_at_the_join_window(autojump_clock):
    setup = room_setup(white=seat_setup(False), black=seat_setup(False), await_joins=True, join_window_s=60)
    async with running_registry() as registry:
        room = await registry.create(setup, purpose_general(), ())
        await attach(room, "White")
        assert room.game.phase is RoomPhase.AWAITING_JOINS and room.game.ply == 0
        await room.finished.wait()
        assert room.ending.termination.value == "aborted"
        assert room.ending.abort == Abort("not_joined", "Black") and not room.ending.technical


async def test_a_friend_game_neither_player_came_to_names_no_seat(autojump_clock):
    setup = room_setup(white=seat_setup(False), black=seat_setup(False), await_joins=True, join_window_s=60)
    async with running_registry() as registry:
        room = await registry.create(setup, purpose_general(), ())
        await room.finished.wait()
        assert room.ending.abort == Abort("not_joined") and not room.ending.technical


async def test_both_joins_start_the_game(autojump_clock):
    setup = room_setup(white=seat_setup(False), black=seat_setup(False), await_joins=True)
    async with running_registry() as registry:
        room = await registry.create(setup, purpose_general(), ())
        await attach(room, "White")
        await attach(room, "Black")
        assert room.game.ply >= 1


async def test_seed_window_rolls_early_when_both_seeds_arrive(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(seed_window_s=2), purpose_general(), ())
        assert room.game.phase is RoomPhase.SEEDING
        assert (await command(room, "White", SubmitSeed("w" * 16))).applied
        assert room.game.phase is RoomPhase.SEEDING
        assert (await command(room, "Black", SubmitSeed("b" * 16))).applied
        assert room.game.ply >= 1 and trio.current_time() < 1
        late = await command(room, "White", SubmitSeed("x" * 16))
        assert not late.applied and late.reason == "seed ignored (late)"
        assert (room.game.fairness.client_seeds.white, room.game.fairness.client_seeds.black) == ("w" * 16, "b" * 16)


async def test_seed_window_expires_and_rolls_with_what_was_given(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(seed_window_s=2), purpose_general(), ())
        malformed = await command(room, "White", SubmitSeed("short"))
        assert not malformed.applied and malformed.reason == "seed ignored (malformed)"
        await trio.sleep(2.5)  # past the window, not racing the room's own deadline
        assert room.game.ply >= 1
        assert room.game.fairness.client_seeds.white == room.game.fairness.client_seeds.black == ""


async def test_slow_subscriber_is_dropped_without_delaying_the_room(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), purpose_general(), ())
        stuck = await attach(room, capacity=2, drop_limit=3)  # never reads
        white, black, fast = await attach(room, "White"), await attach(room, "Black"), await attach(room)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_randomly, room, white, random.Random(7))
            nursery.start_soon(play_randomly, room, black, random.Random(8))
            fast_events = [decode_event(text) async for text in fast.events]
        assert stuck.closed and stuck not in room.fanout.subscribers
        assert room.fanout.stats.dropped_subscribers >= 1
        assert isinstance(fast_events[-1], GameEnded)
        assert [e.v for e in fast_events] == list(range(fast_events[0].v, fast_events[-1].v + 1))


async def test_rebind_first_redemption_wins(autojump_clock):
    from playsite.rooms.intents import Rebind

    async with running_registry() as registry:
        room = await registry.create(room_setup(), purpose_general(), ())
        answers = []
        for principal in ("guest:a", "guest:b", "guest:a"):
            intent = Rebind("Black", principal)
            await room.send(intent)
            answers.append(await intent.reply.wait())
        assert answers == [True, False, True]


async def test_commands_after_the_end_are_refused(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(), purpose_general(), ())
        await command(room, "White", Resign())
        await room.finished.wait()
        assert not await room.send(Resign())


# ----- helpers ------------------------------------------------------------------------------


def purpose_general():
    from playsite.rooms.admission import Purpose

    return Purpose.GENERAL


async def play_until(room, seat: str) -> None:
    """Play random turns for whoever is to move until `seat` has dice with moves."""
    rng = random.Random(11)
    while not (room.game.active_seat == seat and room.game.tree):
        assert not room.ended
        verdict = await command(room, room.game.active_seat, SubmitTurn(sparing_turn(room, rng)))
        assert verdict.applied, verdict.reason


async def play_until_both_played(room) -> str:
    """Random turns until both seats have played; returns the seat now to move with dice."""
    rng = random.Random(12)
    while len(room.game.played) < 2 or not room.game.tree:
        assert not room.ended, f"{room.ending} after {len(room.game.history)} turns"
        verdict = await command(room, room.game.active_seat, SubmitTurn(sparing_turn(room, rng)))
        assert verdict.applied, verdict.reason
    return room.game.active_seat


async def offer_draw_with_a_turn(room, seat: str) -> None:
    verdict = await command(room, seat, SubmitTurn(sparing_turn(room, random.Random(13)), offer_draw=True))
    assert verdict.applied, verdict.reason


async def test_a_task_spawned_in_a_room_ends_with_the_game_and_none_starts_after(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(time_control=Unlimited()), purpose_general(), ())
        started, cancelled = trio.Event(), trio.Event()

        async def hosted(note: str) -> None:
            started.set()
            try:
                await trio.sleep_forever()
            finally:
                cancelled.set()

        assert room.spawn(hosted, "delivery")
        await started.wait()
        assert (await command(room, "White", Resign())).applied
        await room.finished.wait()
        with trio.fail_after(1):
            await cancelled.wait()
        assert not room.spawn(hosted, "too late"), "a finished room hosts nothing"


async def test_a_late_reader_sees_the_clock_counted_down_to_when_it_reads(autojump_clock):
    """wire.md: clocks are what each side has left when the message is sent. A Snapshot and the
    public state read 7 s into White's roll showed White's full minute: the room's view was made
    at the roll and kept its clocks."""
    async with running_registry(seeds=[seed_where(playable)]) as registry:
        room = await registry.create(room_setup(time_control=Fischer(60, 0)), purpose_general(), ())
        await trio.sleep(7)
        spectator = await attach(room)
        snapshot = decode_event(await spectator.events.receive())
        assert isinstance(snapshot, Snapshot)
        assert (snapshot.state.clocks.white_ms, snapshot.state.clocks.black_ms) == (53_000, 60_000)
        await trio.sleep(2)
        state = json.loads(room.state_text())
        assert state["clocks"] == {"white": 51_000, "black": 60_000}
        assert room.public_state().clocks.white_ms == 51_000


async def test_sockets_coming_and_going_keep_the_version_s_view_and_its_encoded_snapshot(autojump_clock):
    """A spectator's arrival or departure changes nothing of the game: the room keeps the view it
    published (and the Snapshot it encoded for the first of them), and each Snapshot still
    carries the clocks of the moment it is sent."""
    async with running_registry(seeds=[seed_where(playable)]) as registry:
        room = await registry.create(room_setup(time_control=Fischer(60, 0)), purpose_general(), ())
        view = room.published
        clocks = []
        for _ in range(3):
            await trio.sleep(1)
            spectator = await attach(room)
            clocks.append(decode_event(await spectator.events.receive()).state.clocks.white_ms)
            await detach(room, spectator)
        assert room.published is view
        assert clocks == [59_000, 58_000, 57_000]
