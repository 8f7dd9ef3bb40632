"""Legal-move trees in worker processes (rooms/trees.py): the same trees as the serving
process computes, and never a lost tree when the pool is busy, slow or broken. Real worker
processes, so these run on the real clock."""

from __future__ import annotations

import math
import os
import random
import signal
from pathlib import Path

import orjson
import trio
import trio.testing

from playsite.rooms import trees as trees_module
from playsite.rooms.admission import Purpose
from playsite.rooms.trees import INLINE_TREE_MAX_BYTES, LEAF_JSON_BYTES_MIN, PackedTree, TreePool, Trees, pack
from playsite.rules import START_DFEN, count_turns, legal_tree, max_dice, parse_dfen, play_turn
from playsite.wire import GameEnded, Snapshot, Unlimited, decode_event
from tests.support.rooms import attach, play_randomly, room_setup, running_registry
from tests.support.turns import random_turn


def positions(count: int, seed: int = 7) -> list:
    """Positions with dice pending, from seeded random play (some without any legal move)."""
    rng = random.Random(seed)
    found = []
    position = parse_dfen(START_DFEN)
    while len(found) < count:
        position = position.with_dice(tuple(rng.randint(1, 6) for _ in range(3)))
        found.append(position)
        tree = legal_tree(position)
        outcome = play_turn(position, tuple(random_turn(tree, rng)) if tree else ())
        position = parse_dfen(START_DFEN) if outcome.end is not None else outcome.after
    return found


def expected(position) -> tuple[dict, int, int]:
    """What the serving process itself finds: the tree, its count and its L."""
    tree = legal_tree(position)
    return tree, count_turns(tree) if tree else 0, max_dice(position) if tree else 0


def unpacked(packed: PackedTree, position) -> tuple[dict, int, int]:
    return packed.tree(position), packed.turns, packed.longest


def worker_pids() -> list[int]:
    """This process's trio-parallel workers."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"spawn_main" in command:
            pids.append(int(entry))
    return pids


def make_every_batch_time_out(monkeypatch) -> None:
    """A microsecond per batch: no worker can answer in time."""
    monkeypatch.setattr(trees_module, "BATCH_TIMEOUT_S", 1e-6)
    monkeypatch.setattr(trees_module, "BATCH_TIMEOUT_PER_TREE_S", 0)


async def started_pool(nursery: trio.Nursery, workers: int = 1, take_back_after_s: float = math.inf) -> TreePool:
    """A pool that never takes a tree back, unless asked to: which trees the workers computed
    is then up to the test, not to how fast a busy machine runs them."""
    pool = await nursery.start(TreePool(workers, take_back_after_s=take_back_after_s).run)
    with trio.fail_after(60):
        await pool.warm.wait()
    return pool


async def test_the_pool_computes_the_very_trees_of_the_serving_process():
    forced_pass = parse_dfen(START_DFEN).with_dice((3, 4, 5))  # only pawns and knights can move
    sample = [*positions(60), forced_pass]
    async with trio.open_nursery() as nursery:
        pool = await started_pool(nursery)
        for position in sample:
            assert unpacked(await pool.compute(position), position) == expected(position)
        nursery.cancel_scope.cancel()
    assert pool.computed_by_workers == len(sample)
    assert pool.computed_here == pool.fallbacks == 0
    assert expected(forced_pass) == ({}, 0, 0)
    assert pool.waits.count == len(sample) and pool.waits.sum > 0  # each wait timed, for GET /metrics


async def test_without_a_pool_trees_are_computed_and_counted_in_the_serving_process():
    here = Trees()
    sample = positions(5)
    for position in sample:
        assert unpacked(await here.compute(position), position) == expected(position)
    assert here.statistics()["here"] == len(sample) and here.statistics()["by_workers"] == 0
    assert here.waits.count == len(sample)


def test_a_packed_tree_carries_its_json_inline_up_to_the_cap():
    small = next(p for p in positions(200, seed=2) if 0 < expected(p)[1] <= 50)
    packed = pack(small)
    tree, turns, longest = expected(small)
    assert unpacked(packed, small) == (tree, turns, longest)
    assert orjson.loads(packed.json(small)) == tree
    assert orjson.dumps({"legalMoves": packed.inline()}) == orjson.dumps({"legalMoves": tree})
    assert pack(parse_dfen(START_DFEN).with_dice((3, 4, 5))).inline() == {}
    sample = positions(400, seed=4)
    size = {id(p): len(orjson.dumps(expected(p)[0])) for p in sample}
    # What lets pack skip encoding a tree too many turns long to fit: each turn's leaf entry.
    assert all(size[id(p)] >= LEAF_JSON_BYTES_MIN * expected(p)[1] for p in sample)
    big = next((p for p in sample if size[id(p)] > INLINE_TREE_MAX_BYTES), None)
    assert big is not None, "the sample has a tree over the inline cap"
    assert pack(big).inline() is None and orjson.loads(pack(big).json(big)) == expected(big)[0]
    # Up to the cap in bytes, however many turns: more than the 2,000 turns of the cap before.
    near = max((p for p in sample if size[id(p)] <= INLINE_TREE_MAX_BYTES), key=lambda p: size[id(p)])
    assert expected(near)[1] > 2000
    assert orjson.dumps({"legalMoves": pack(near).inline()}) == orjson.dumps({"legalMoves": expected(near)[0]})


async def test_trees_asked_together_go_to_a_worker_as_one_batch():
    sample = positions(12, seed=11)
    results = {}
    async with trio.open_nursery() as nursery:
        pool = await started_pool(nursery)

        async def compute(index, position):
            results[index] = unpacked(await pool.compute(position), position)

        async with trio.open_nursery() as together:
            for index, position in enumerate(sample):
                together.start_soon(compute, index, position)
        nursery.cancel_scope.cancel()
    assert results == {index: expected(position) for index, position in enumerate(sample)}
    assert pool.computed_by_workers == len(sample)
    assert pool.batches <= 2, "one batch, or two if the worker woke before every tree was asked"


async def test_a_tree_no_worker_takes_in_time_is_taken_back_while_every_worker_is_busy():
    sample = positions(400, seed=21)
    heavy = sorted(sample, key=lambda p: expected(p)[1], reverse=True)[:16] * 4  # one batch: ~70 ms of work
    extra = sample[1]
    async with trio.open_nursery() as nursery:
        pool = await started_pool(nursery, take_back_after_s=0.02)
        answers = {}

        async def compute(index, position):
            answers[index] = unpacked(await pool.compute(position), position)

        async with trio.open_nursery() as asking:
            for index, position in enumerate(heavy):
                asking.start_soon(compute, index, position)
            await trio.testing.wait_all_tasks_blocked()
            assert pool.busy == 1, "the worker holds the batch"
            # Asked while the only worker is busy: taken back after 0.02 s, computed here.
            assert unpacked(await pool.compute(extra), extra) == expected(extra)
            assert (pool.taken_back, pool.computed_here) == (1, 1)
        # The worker's batch is answered all the same; the dispatcher skips what was taken back.
        pool.take_back_after_s = math.inf
        assert unpacked(await pool.compute(sample[2]), sample[2]) == expected(sample[2])
        nursery.cancel_scope.cancel()
    assert answers == {index: expected(position) for index, position in enumerate(heavy)}
    assert (pool.computed_by_workers, pool.computed_here, pool.batches) == (len(heavy) + 1, 1, 2)


async def test_a_batch_past_its_timeout_has_its_worker_killed_and_is_computed_here(monkeypatch):
    sample = positions(3, seed=5)
    async with trio.open_nursery() as nursery:
        pool = await started_pool(nursery)
        make_every_batch_time_out(monkeypatch)
        assert unpacked(await pool.compute(sample[0]), sample[0]) == expected(sample[0])
        assert (pool.fallbacks, pool.computed_here, pool.computed_by_workers) == (1, 1, 0)
        monkeypatch.setattr(trees_module, "BATCH_TIMEOUT_S", 30.0)
        # A fresh worker takes over.
        assert unpacked(await pool.compute(sample[1]), sample[1]) == expected(sample[1])
        assert pool.computed_by_workers == 1
        nursery.cancel_scope.cancel()


async def test_a_pool_that_keeps_failing_is_given_up(monkeypatch):
    sample = positions(8, seed=3)
    async with trio.open_nursery() as nursery:
        pool = await started_pool(nursery)
        make_every_batch_time_out(monkeypatch)
        for position in sample:
            assert unpacked(await pool.compute(position), position) == expected(position)
        nursery.cancel_scope.cancel()
    assert pool.fallbacks == trees_module.FAILURES_TO_GIVE_UP
    assert not pool.enabled and pool.statistics()["workers"] == 0
    assert pool.computed_here == len(sample) and pool.computed_by_workers == 0


async def test_a_killed_worker_loses_no_tree():
    sample = positions(4, seed=9)
    async with trio.open_nursery() as nursery:
        pool = await started_pool(nursery)
        assert unpacked(await pool.compute(sample[0]), sample[0]) == expected(sample[0])
        killed = worker_pids()
        assert killed, "the pool runs a worker process"
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        for position in sample[1:]:
            assert unpacked(await pool.compute(position), position) == expected(position)
        nursery.cancel_scope.cancel()
    assert pool.computed_by_workers + pool.computed_here == len(sample)


async def test_a_game_on_the_pool_is_the_game_played_in_process():
    """Same seed, same players: the same events, version for version."""

    async def watched_game(**options) -> list[str]:
        async with running_registry(seeds=[bytes(32)], **options) as registry:
            room = await registry.create(room_setup(time_control=Unlimited()), Purpose.GENERAL, ())
            white, black, spectator = await attach(room, "White"), await attach(room, "Black"), await attach(room)
            texts = []
            async with trio.open_nursery() as nursery:
                nursery.start_soon(play_randomly, room, white, random.Random(1))
                nursery.start_soon(play_randomly, room, black, random.Random(2))
                async for text in spectator.events:
                    texts.append(text)
            return texts

    in_process = await watched_game()
    async with trio.open_nursery() as nursery:
        pool = await started_pool(nursery)
        pooled = await watched_game(trees=pool)
        nursery.cancel_scope.cancel()
    assert isinstance(decode_event(in_process[-1]), GameEnded)
    assert isinstance(decode_event(in_process[0]), Snapshot)
    assert pooled[1:] == in_process[1:]
    assert pool.computed_by_workers > 10
