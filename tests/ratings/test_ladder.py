"""The ladder: pure pairing (never self, never beyond free slots, no starvation, odd counts,
colours) and the scheduler in-process on the memory store under capacity limits."""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from functools import partial

import attrs
import trio

from playsite.config import Settings
from playsite.ratings.book import Rating
from playsite.ratings.ladder import (
    LADDER_CONTROL,
    LADDER_ORIGIN,
    Candidate,
    Ladder,
    choose_pairings,
    free_ladder_slots,
    pair_ids,
    run_ladder,
)
from playsite.rooms.admission import Purpose
from playsite.wire import Fischer, Unlimited
from tests.support.app import booted


def assert_valid(pairs, candidates):
    free = {c.id: c.free for c in candidates}
    used = Counter()
    for white, black in pairs:
        assert white.id != black.id
        used[white.id] += 1
        used[black.id] += 1
    for bot_id, count in used.items():
        assert count == 1 and free[bot_id] >= 1, (bot_id, count)


# ----- choose_pairings ----------------------------------------------------------------------


def test_a_single_bot_or_nobody_gets_no_pair():
    assert choose_pairings([]) == []
    assert choose_pairings([Candidate("a/a", free=3)]) == []


def test_never_a_bot_with_itself_even_when_listed_twice():
    a = Candidate("a/a", free=2)
    assert choose_pairings([a, a, attrs.evolve(a, free=5)]) == []
    pairs = choose_pairings([a, a, Candidate("b/b", free=1)], rng=random.Random(1))
    assert sorted(sorted(p) for p in pair_ids(pairs)) == [["a/a", "b/b"]]


def test_bots_without_a_free_slot_are_never_paired():
    candidates = [Candidate("a/a", free=0), Candidate("b/b", free=1), Candidate("c/c", free=0), Candidate("d/d", free=2)]
    for seed in range(50):
        pairs = choose_pairings(candidates, rng=random.Random(seed))
        assert_valid(pairs, candidates)
        assert {frozenset(p) for p in pair_ids(pairs)} == {frozenset({"b/b", "d/d"})}


def test_each_bot_at_most_once_per_round_and_odd_counts_leave_one_out():
    for n in range(2, 12):
        candidates = [Candidate(f"t/b{i}", free=random.Random(n + i).randint(1, 4)) for i in range(n)]
        for seed in range(20):
            pairs = choose_pairings(candidates, rng=random.Random(seed))
            assert_valid(pairs, candidates)
            assert len(pairs) == n // 2


def test_the_longest_waiters_are_paired_first():
    candidates = [Candidate(f"t/b{i}", free=1, waiting_since=float(i)) for i in range(5)]
    for seed in range(20):
        pairs = choose_pairings(candidates, rng=random.Random(seed))
        assert {frozenset(p) for p in pair_ids(pairs)} == {frozenset({"t/b0", "t/b1"}), frozenset({"t/b2", "t/b3"})}


def test_equal_waits_pair_by_rating_proximity():
    candidates = [
        Candidate("t/low", free=1, rating=1200, waiting_since=0.0),
        Candidate("t/first", free=1, rating=1500, waiting_since=-1.0),
        Candidate("t/near", free=1, rating=1520, waiting_since=0.0),
        Candidate("t/high", free=1, rating=1900, waiting_since=0.0),
    ]
    for seed in range(20):
        pairs = pair_ids(choose_pairings(candidates, rng=random.Random(seed)))
        assert frozenset({"t/first", "t/near"}) in {frozenset(p) for p in pairs}


def test_colours_go_to_the_bot_owed_white():
    owed, ahead = Candidate("t/owed", free=1, colour_balance=-2), Candidate("t/ahead", free=1, colour_balance=1)
    for seed in range(20):
        assert pair_ids(choose_pairings([ahead, owed], rng=random.Random(seed))) == [("t/owed", "t/ahead")]
    even = [Candidate("t/x", free=1), Candidate("t/y", free=1)]
    whites = {pair_ids(choose_pairings(even, rng=random.Random(seed)))[0][0] for seed in range(40)}
    assert whites == {"t/x", "t/y"}


def test_no_bot_starves_over_many_rounds():
    """A simulated ladder: random free slots each round; every bot keeps getting games and no
    eligible bot sits out more than a couple of rounds in a row."""
    rng = random.Random(7)
    ids = [f"t/b{i}" for i in range(7)]
    ratings = {bot_id: rng.uniform(1000, 2000) for bot_id in ids}
    waiting = {bot_id: 0.0 for bot_id in ids}
    balance = Counter()
    games = Counter()
    eligible_without_game = Counter()
    longest_sit_out = 0
    for now in range(1, 401):
        candidates = [
            Candidate(b, free=rng.choice([0, 1, 1, 2]), rating=ratings[b], waiting_since=waiting[b], colour_balance=balance[b])
            for b in ids
        ]
        pairs = choose_pairings(candidates, rng=rng)
        assert_valid(pairs, candidates)
        paired = set()
        for white, black in pairs:
            paired |= {white.id, black.id}
            waiting[white.id] = waiting[black.id] = float(now)
            balance[white.id] += 1
            balance[black.id] -= 1
        for c in candidates:
            if c.id in paired:
                games[c.id] += 1
                eligible_without_game[c.id] = 0
            elif c.free:
                eligible_without_game[c.id] += 1
                longest_sit_out = max(longest_sit_out, eligible_without_game[c.id])
    assert min(games.values()) >= 0.8 * max(games.values())
    assert longest_sit_out <= 3
    assert all(abs(b) <= 2 for b in balance.values())


# ----- the scheduler, in-process ---------------------------------------------------------------


@contextlib.asynccontextmanager
async def running_services():
    # The ladder is off in the boot: each test runs its own scheduler, with its own period.
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        yield services


async def start_ladder(nursery, services, period_s: float = 5) -> Ladder:
    ladder = Ladder(services.bot_games, services.bots, services.ratings)
    await nursery.start(partial(run_ladder, ladder, period_s=period_s))
    return ladder


async def ladder_bot(services, name: str, *, capacity: int = 1, on_ladder: bool = True, open_to_humans=False):
    account, _token = await services.bots.register("lad", name)
    await services.bots.update(account, max_concurrent_games=capacity, on_ladder=on_ladder, open_to_humans=open_to_humans)
    return account


def general_games(services, account) -> int:
    return services.registry.admission.occupancy(account.principal)[Purpose.GENERAL]


async def test_free_slots_count_general_occupancy_against_the_allowance():
    async with running_services() as services:
        bot = await ladder_bot(services, "a", capacity=3, open_to_humans=True)
        other = await ladder_bot(services, "b", capacity=8)
        assert bot.ladder_allowance == 2
        assert free_ladder_slots(bot, services.registry.admission) == 2
        from playsite.bots.games import create_game_with_bots

        for _ in range(2):
            await create_game_with_bots(
                services.registry, services.bot_events, white=bot, black=other,
                time_control=Unlimited(), rated=False, origin="challenge", seed_window_s=0, durability="best_effort",
            )
        assert free_ladder_slots(bot, services.registry.admission) == 0
        assert free_ladder_slots(other, services.registry.admission) == 6


async def test_the_scheduler_respects_capacity_and_refills_as_games_end(autojump_clock):
    """Three on-ladder bots of capacity 1: at most one game each at once (so one game at a
    time), every game a rated ladder game, and new games start when the previous end."""
    async with running_services() as services:
        bots = [await ladder_bot(services, name) for name in ("a", "b", "c")]
        await ladder_bot(services, "off", on_ladder=False)
        rooms = []
        services.registry.creation_hooks.append(rooms.append)
        async with trio.open_nursery() as nursery:
            ladder = await start_ladder(nursery, services)
            peak = 0
            for _ in range(2400):  # 2 hours of mock time, checked every 3 s
                await trio.sleep(3)
                counts = [general_games(services, b) for b in bots]
                assert max(counts) <= 1
                peak = max(peak, sum(counts))
            nursery.cancel_scope.cancel()
        assert peak == 2  # one game, two seats: the third bot waits
        assert ladder.started == len(rooms) >= 10
        for room in rooms:
            assert room.setup.origin == LADDER_ORIGIN and room.setup.rated
            assert room.setup.time_control == LADDER_CONTROL == Fischer(180, 2)
            assert room.setup.purpose == Purpose.GENERAL.value
        seated = Counter(p for room in rooms for p in room.setup.participants)
        assert set(seated) == {b.principal for b in bots}
        assert min(seated.values()) >= len(rooms) // 2  # nobody starves: 2 of every 3 games
        assert all(room.setup.participants[0] != room.setup.participants[1] for room in rooms)


async def test_a_bot_busy_elsewhere_or_off_the_ladder_is_not_scheduled(autojump_clock):
    async with running_services() as services:
        a, b = await ladder_bot(services, "a"), await ladder_bot(services, "b")
        human_facing = await ladder_bot(services, "c", capacity=2, open_to_humans=True)  # allowance 1
        from playsite.bots.games import Human, create_game_with_bots

        await create_game_with_bots(
            services.registry, services.bot_events, white=Human("guest:x"), black=b,
            time_control=Unlimited(), rated=False, origin="lobby", seed_window_s=0, durability="best_effort",
        )
        async with trio.open_nursery() as nursery:
            ladder = await start_ladder(nursery, services)
            await trio.sleep(1)
            assert ladder.started == 1  # a vs c; b is busy with a person
            assert general_games(services, b) == 1 and general_games(services, human_facing) == 1
            await services.bots.update(a, on_ladder=False)
            await services.bots.update(human_facing, on_ladder=False)
            await trio.sleep(600)
            assert ladder.started == 1
            nursery.cancel_scope.cancel()


async def test_ladder_rounds_read_the_rating_book_for_proximity(autojump_clock):
    async with running_services() as services:
        for name in ("w", "x", "y", "z"):
            await ladder_bot(services, name)
        services.ratings.replace(
            {"lad/w": Rating(1000, 60), "lad/x": Rating(1010, 60), "lad/y": Rating(2000, 60), "lad/z": Rating(1990, 60)}
        )
        rooms = []
        services.registry.creation_hooks.append(rooms.append)
        async with trio.open_nursery() as nursery:
            await start_ladder(nursery, services)
            await trio.sleep(1)
            nursery.cancel_scope.cancel()
        pairs = {frozenset(room.setup.participants) for room in rooms}
        assert pairs == {frozenset({"bot:lad/w", "bot:lad/x"}), frozenset({"bot:lad/y", "bot:lad/z"})}
