"""How late the serving process's event loop wakes up: its lag, measured from inside.

Every task of the process shares one thread. When something holds it (a long computation,
a full garbage collection, a machine out of CPU), every socket, timer and verdict waits
alike. The watch asks to be woken every PERIOD_S and records how much later than asked it
ran: that delay is what any task due at the same moment waited too. Exported by
`/metrics` as `playsite_event_loop_lag_seconds` (a histogram) and
`playsite_event_loop_lag_max_seconds` (the worst since start), the figures an operator
alerts on.
"""

from __future__ import annotations

import attrs
import trio

from playsite.histogram import Histogram

PERIOD_S = 0.1
"""How often the watch wakes; a lag shorter than its resolution is still measured."""
LAG_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


@attrs.define
class LoopWatch:
    lags: Histogram = attrs.field(factory=lambda: Histogram(LAG_BUCKETS_S))
    worst_s: float = 0.0
    """The longest lag seen since the process started."""
    armed: trio.Event = attrs.field(factory=trio.Event)
    """Set once the port is open (`arm`): the watch measures a serving process, not its boot,
    and a process that never serves (a test of the services alone) never wakes for it."""

    def arm(self) -> None:
        self.armed.set()

    def observe(self, lag_s: float) -> None:
        lag_s = max(0.0, lag_s)
        self.lags.observe(lag_s)
        self.worst_s = max(self.worst_s, lag_s)


async def run_loop_watch(
    *, period_s: float = PERIOD_S, task_status: trio.TaskStatus[LoopWatch] = trio.TASK_STATUS_IGNORED
) -> None:
    """Until cancelled, once armed: sleep until a deadline, record how late the wake-up came."""
    watch = LoopWatch()
    task_status.started(watch)
    await watch.armed.wait()
    while True:
        due = trio.current_time() + period_s
        await trio.sleep_until(due)
        watch.observe(trio.current_time() - due)
