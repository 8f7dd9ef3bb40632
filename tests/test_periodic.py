"""`run_every`: the shape of every periodic loop (on trio's MockClock)."""

from __future__ import annotations

import logging
from functools import partial

import trio
import trio.testing

from playsite.periodic import run_every


class Rounds:
    def __init__(self, failing: set[int] = frozenset()):
        self.at: list[float] = []
        self.failing = failing

    async def round(self) -> None:
        self.at.append(trio.current_time())
        if len(self.at) in self.failing:
            raise RuntimeError(f"round {len(self.at)} broke")


async def test_a_round_runs_now_and_then_every_period(autojump_clock):
    rounds = Rounds()
    async with trio.open_nursery() as nursery:
        await nursery.start(partial(run_every, 10, rounds.round, name="test"))
        await trio.sleep(35)
        nursery.cancel_scope.cancel()
    assert rounds.at == [0, 10, 20, 30]


async def test_first_after_period_waits_one_period_first(autojump_clock):
    rounds = Rounds()
    async with trio.open_nursery() as nursery:
        await nursery.start(partial(run_every, 10, rounds.round, name="test", first_after_period=True))
        await trio.sleep(25)
        nursery.cancel_scope.cancel()
    assert rounds.at == [10, 20]


async def test_a_failing_round_is_logged_and_the_loop_goes_on(autojump_clock, caplog):
    rounds = Rounds(failing={1, 2})
    async with trio.open_nursery() as nursery:
        await nursery.start(partial(run_every, 10, rounds.round, name="the job"))
        await trio.sleep(25)
        nursery.cancel_scope.cancel()
    assert rounds.at == [0, 10, 20]
    failures = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage().split(" (")[0] for r in failures] == ["the job failed", "the job failed"]
    assert "round 1 broke" in failures[0].getMessage()


async def test_ready_after_first_round_holds_the_boot_until_that_round_ended(autojump_clock):
    rounds = Rounds()

    async def slow_round():
        await trio.sleep(3)
        await rounds.round()

    async with trio.open_nursery() as nursery:
        await nursery.start(partial(run_every, 10, slow_round, name="test", ready_after_first_round=True))
        assert rounds.at == [3] and trio.current_time() == 3
        nursery.cancel_scope.cancel()


async def test_ready_after_a_failed_first_round_still_starts(autojump_clock):
    rounds = Rounds(failing={1})
    async with trio.open_nursery() as nursery:
        await nursery.start(partial(run_every, 10, rounds.round, name="test", ready_after_first_round=True))
        await trio.sleep(15)
        nursery.cancel_scope.cancel()
    assert rounds.at == [0, 10]
