"""`run_every`: the one shape of every periodic loop the boot starts.

A round runs now (or after one period, with `first_after_period`), then every
`period_s` after the previous round ended. A round that raises is logged and the loop
goes on: a failure in one round never stops the server or the loop.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import trio

log = logging.getLogger("playsite.periodic")


async def run_every(
    period_s: float,
    round: Callable[[], Awaitable[object]],
    *,
    name: str,
    first_after_period: bool = False,
    ready_after_first_round: bool = False,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run `round` periodically until cancelled.

    `ready_after_first_round`: report started only once the first round finished, so the
    boot waits for it (e.g. state a request must see before the port opens)."""
    if not ready_after_first_round:
        task_status.started()
    if first_after_period:
        await trio.sleep(period_s)
    while True:
        try:
            await round()
        except Exception as error:
            log.warning("%s failed (%s: %s); next round in %g s", name, type(error).__name__, error, period_s)
        if ready_after_first_round:
            ready_after_first_round = False
            task_status.started()
        await trio.sleep(period_s)
