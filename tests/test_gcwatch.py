"""PLAY_GC_FULL_INTERVAL_S=0: the watch never runs a full collection (steady state makes no
reference cycles: tests/test_reference_cycles.py), and still collects the young on its period."""

from __future__ import annotations

import gc

import trio
import trio.testing

from playsite.config import Settings
from playsite.gcwatch import YOUNG_PERIOD_S, run_gc_watch


def test_never_is_the_default_and_an_interval_can_be_set():
    assert Settings.from_environ({}).gc_full_interval_s == 0
    assert Settings.from_environ({"PLAY_GC_FULL_INTERVAL_S": "1800"}).gc_full_interval_s == 1800


async def test_an_interval_of_zero_never_runs_a_full_collection(autojump_clock):
    before = gc.get_threshold()
    async with trio.open_nursery() as nursery:
        watch = await nursery.start(run_gc_watch, 0)
        try:
            watch.tune()
            await trio.sleep(YOUNG_PERIOD_S * 10)
            assert 9 <= watch.pauses[0].count <= 11, "young collections still run on the watch's period"
            await trio.sleep(600)
            await trio.testing.wait_all_tasks_blocked()
            assert watch.full_collections == 0
        finally:
            nursery.cancel_scope.cancel()
            gc.unfreeze()
            gc.set_threshold(*before)
