"""Waiting for something to happen elsewhere, with a deadline that fails with what was awaited.

On trio's MockClock a test never polls: `trio.testing.wait_all_tasks_blocked()` returns once
every task is stuck, and a mock-time sleep reaches a deadline at once. These helpers are for
tests on the real clock, against real sockets, threads, processes or PostgreSQL, where
looking again is the only way to learn that something happened; every look is bounded.
"""

from __future__ import annotations

import contextlib
import inspect
import time
from collections.abc import Callable, Iterator
from typing import Any

import trio
import trio.testing


@contextlib.contextmanager
def deadline(seconds: float, what: str) -> Iterator[None]:
    """`trio.fail_after`, failing with an AssertionError that names what did not happen in time."""
    with trio.move_on_after(seconds) as scope:
        yield
    if scope.cancelled_caught:
        raise AssertionError(f"timed out after {seconds} s waiting for {what}")


async def wait_until(condition: Callable[[], Any], what: str, timeout: float = 10, interval: float = 0.01) -> Any:
    """Look at `condition()` (plain or async) every `interval` s until it is true; returns its value."""
    if isinstance(trio.lowlevel.current_clock(), trio.testing.MockClock):
        raise AssertionError("no polling on the MockClock: use wait_all_tasks_blocked() or sleep the mock deadline")
    with deadline(timeout, what):
        while True:
            value = condition()
            if inspect.isawaitable(value):
                value = await value
            if value:
                return value
            await trio.sleep(interval)


def wait_until_sync(condition: Callable[[], Any], what: str, timeout: float = 10, interval: float = 0.05) -> Any:
    """The same for blocking code (a test driving a server process with a synchronous client)."""
    stop = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < stop, f"timed out after {timeout} s waiting for {what}"
        time.sleep(interval)
    return value
