"""The C heap's free pages go back to the system (playsite/heaptrim.py): a trim gives back a
heap with holes that `free` alone keeps, and the task trims on its period once armed."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from playsite.config import Settings
from playsite.heaptrim import MALLOC_TRIM, HeapTrim, resident_bytes, run_heap_trim

pytestmark = pytest.mark.skipif(MALLOC_TRIM is None, reason="the C library has no malloc_trim (not glibc)")

BLOCK_BYTES = 4000
"""Over Python's 512-byte limit: each block comes from the C library's malloc."""
BLOCKS = 40_000
"""~160 MB of them."""


def test_the_interval_is_a_setting():
    assert Settings.from_environ({}).heap_trim_interval_s == 60
    assert Settings.from_environ({"PLAY_HEAP_TRIM_INTERVAL_S": "0"}).heap_trim_interval_s == 0


def test_a_trim_gives_back_the_free_pages_a_free_keeps():
    # Keep one block in 64 (and the last one, on top of the heap): the heap cannot shrink from
    # its top, and every page between the kept blocks is free.
    blocks = [bytes(BLOCK_BYTES) for _ in range(BLOCKS)]
    kept = blocks[::64] + blocks[-1:]
    del blocks
    heap = HeapTrim()
    before = resident_bytes()
    assert before is not None
    heap.trim()
    after = resident_bytes()
    assert after is not None
    assert before - after > BLOCK_BYTES * BLOCKS / 2, f"RSS {before} -> {after}"
    assert heap.trimmed_bytes >= before - after - 1024 * 1024  # what its own reads measured
    assert heap.pauses.count == 1
    del kept


async def test_the_task_trims_on_its_period_once_armed(autojump_clock):
    async with trio.open_nursery() as nursery:
        heap = await nursery.start(run_heap_trim, 60)
        await trio.sleep(600)
        assert heap.pauses.count == 0, "nothing before the port opens"
        heap.arm()
        await trio.sleep(60 * 5 + 30)
        await trio.testing.wait_all_tasks_blocked()
        assert heap.pauses.count == 5
        nursery.cancel_scope.cancel()


async def test_an_interval_of_zero_never_trims(autojump_clock):
    async with trio.open_nursery() as nursery:
        heap = await nursery.start(run_heap_trim, 0)
        heap.arm()
        await trio.sleep(86_400)
        await trio.testing.wait_all_tasks_blocked()
        assert heap.pauses.count == 0
        nursery.cancel_scope.cancel()
