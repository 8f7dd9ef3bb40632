"""The event-loop lag watch records how late it was woken, on trio's mock clock."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from playsite.loopwatch import PERIOD_S, run_loop_watch


@pytest.fixture
def autojump_clock():
    return trio.testing.MockClock(autojump_threshold=0)


async def test_a_held_loop_shows_as_lag_and_a_free_one_as_none(autojump_clock):
    async with trio.open_nursery() as nursery:
        watch = await nursery.start(run_loop_watch)
        await trio.sleep(PERIOD_S * 30)
        assert watch.lags.count == 0, "nothing is measured before the port opens"
        watch.arm()
        await trio.sleep(PERIOD_S * 10 + PERIOD_S / 2)  # ten wake-ups, each exactly on time
        assert watch.lags.count == 10 and watch.worst_s == 0.0
        # The loop is held for 0.35 s half-way to the next wake-up: that one comes 0.3 s late.
        autojump_clock.jump(0.35)
        await trio.testing.wait_all_tasks_blocked()
        assert watch.lags.count == 11
        assert watch.worst_s == pytest.approx(0.3)
        assert watch.lags.cumulative()[-1] == ("+Inf", 11)
        assert dict(watch.lags.cumulative())["0.25"] == 10 and dict(watch.lags.cumulative())["0.5"] == 11
        nursery.cancel_scope.cancel()
