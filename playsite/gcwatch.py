"""The cyclic garbage collector of the serving process: tuned once the port is open, and watched.

A serving process allocates everything long-lived at boot (modules, the app, resumed rooms),
and then churns through short-lived objects per message and per turn, which reference
counting frees at once. The collector only matters for cycles; left at its defaults it
walks every live object again and again, and with thousands of sockets open that is
millions of objects (~300 per socket: its tasks, cancel scopes, protocol state): a full
collection then pauses the process for a second or more. So, once the port is open
(`GcWatch.tune`):

- `gc.freeze()` moves everything boot allocated into the permanent generation, which no
  collection walks again;
- the youngest generation is collected every YOUNG_PERIOD_S by the watch's own task (so
  between two steps of the event loop), or sooner after GEN0_THRESHOLD allocations; what
  survives a collection is frozen too. Automatic collections therefore only ever walk what
  was allocated since the last one, and their pauses no longer grow with the number of
  sockets. (A threshold alone does not bound them: its count is of allocations minus
  deallocations, frozen objects' included, so while sockets open and close the young
  generation grew far past it before it was collected);
- a frozen object that later becomes part of a garbage cycle is not collected until the
  next *full* collection, which unfreezes everything and walks it once every
  `full_interval_s` (PLAY_GC_FULL_INTERVAL_S; 0: never). That pause grows with the sockets
  open (~1-2 s with 6,000); between two of them, garbage cycles through long-lived objects
  wait in memory. Steady state makes none: a closed connection used to be such a cycle (~220
  objects a game socket, ~38 any connection, and 9 more a WebSocket: wsproto's frame parser),
  broken where it is made by playsite/http/cycles.py, and so was every request (werkzeug's
  router closure, 8 objects), which playsite/http/routercycles.py matches without.
  tests/test_reference_cycles.py and tests/http/test_cycles.py hold requests, closed sockets
  and whole games to no cycle at all, so the full collection can be switched off. (The count
  of objects collections found, `collected` below, misses a cycle through a generator: the
  collector frees it by finalizing the generator and does not count it. The tests count what
  a collection frees instead.)

Every collection's pause is timed (read by the metrics endpoint).
"""

from __future__ import annotations

import gc
import time
from functools import partial

import attrs
import trio

from playsite.periodic import run_every
from playsite.histogram import Histogram

YOUNG_PERIOD_S = 0.125
"""How often the watch collects the youngest generation once tuned (bench/results/gc.md)."""
GEN0_THRESHOLD = 200_000
"""The allocation threshold behind it, for a burst between two periods."""
GEN1_THRESHOLD = 10
GEN2_THRESHOLD = 10
PAUSE_BUCKETS_S = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


@attrs.define
class GcWatch:
    """Times each collection through `gc.callbacks`, per generation, while installed; once
    tuned, freezes what survives each collection."""

    pauses: dict[int, Histogram] = attrs.field(factory=lambda: {g: Histogram(PAUSE_BUCKETS_S) for g in range(3)})
    collected: int = 0
    cpu_seconds: float = 0.0
    """CPU time the collections took (a pause's wall time also counts any time the process
    was not running, which on a busy machine can be most of it)."""
    full_collections: int = 0
    """Full collections run by `collect_everything` (the periodic ones)."""
    tuned_event: trio.Event = attrs.field(factory=trio.Event)
    """Set by `tune`: the periodic collections of `run_gc_watch` start then, never before."""
    _started: float | None = None
    _started_cpu: float = 0.0

    def install(self) -> None:
        if self._on_gc not in gc.callbacks:
            gc.callbacks.append(self._on_gc)

    def remove(self) -> None:
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def tune(self) -> None:
        """Freeze what exists, raise the youngest generation's threshold, and from now on
        freeze the survivors of every collection (and, from `run_gc_watch`, collect the young
        every YOUNG_PERIOD_S). Once per process, when the port is open."""
        gc.collect()
        gc.freeze()
        gc.set_threshold(GEN0_THRESHOLD, GEN1_THRESHOLD, GEN2_THRESHOLD)
        self.tuned_event.set()

    @property
    def tuned(self) -> bool:
        return self.tuned_event.is_set()

    def collect_everything(self) -> int:
        """A full collection over every object, frozen ones included; returns what it freed."""
        gc.unfreeze()
        found = gc.collect()  # once tuned, its callback freezes the survivors again
        self.full_collections += 1
        return found

    def _on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            self._started_cpu = time.thread_time()
        elif self._started is not None:
            self.pauses[info["generation"]].observe(time.perf_counter() - self._started)
            self.cpu_seconds += time.thread_time() - self._started_cpu
            self.collected += info.get("collected", 0)
            self._started = None
            if self.tuned:
                gc.freeze()

    @property
    def seconds(self) -> float:
        """Time spent in collections while installed."""
        return sum(histogram.sum for histogram in self.pauses.values())


async def run_gc_watch(
    full_interval_s: float, *, task_status: trio.TaskStatus[GcWatch] = trio.TASK_STATUS_IGNORED
) -> None:
    """Time the collector's pauses for as long as the services run; once tuned, collect the
    youngest generation every YOUNG_PERIOD_S and everything every `full_interval_s` (0: never;
    a process that is never tuned keeps Python's own schedule, and this task sleeps)."""
    watch = GcWatch()
    watch.install()

    async def young_collection() -> None:
        gc.collect(0)

    async def full_collection() -> None:
        watch.collect_everything()

    try:
        task_status.started(watch)
        await watch.tuned_event.wait()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                partial(run_every, YOUNG_PERIOD_S, young_collection, name="young garbage collection",
                        first_after_period=True)
            )
            if full_interval_s > 0:
                nursery.start_soon(
                    partial(run_every, full_interval_s, full_collection, name="full garbage collection",
                            first_after_period=True)
                )
    finally:
        watch.remove()
