"""The cyclic garbage collector of the serving process: tuned once the port is open, and watched.

A serving process allocates everything long-lived at boot (modules, the app, resumed rooms),
and then churns through short-lived objects per message and per turn, which reference
counting frees at once. The collector only matters for cycles; left at its defaults it
walks every live object again and again, which grows with the number of sockets and rooms.
So, once the port is open:

- `gc.freeze()` moves everything boot allocated into the permanent generation, which no
  collection walks again;
- the youngest generation is collected every GEN0_THRESHOLD allocations instead of 700, and
  the older ones as rarely as the defaults. A young collection has a large cost whatever its
  size, so fewer of them cost less in all: with 1,000 games over 5,000 sockets the collector
  took 33.5% of the server's CPU at 10,000 and 7.4% at 50,000 (bench/results/gc.md), at the
  price of longer pauses (~0.1 s each);

and every collection's pause is timed (`GcWatch`, read by the metrics endpoint).
"""

from __future__ import annotations

import gc
import time

import attrs

from playsite.rooms.counters import Histogram

GEN0_THRESHOLD = 50_000
GEN1_THRESHOLD = 10
GEN2_THRESHOLD = 10
PAUSE_BUCKETS_S = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)


def tune_after_boot() -> None:
    """Freeze what boot allocated and raise the youngest generation's threshold."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, GEN1_THRESHOLD, GEN2_THRESHOLD)


@attrs.define
class GcWatch:
    """Times each collection through `gc.callbacks`, per generation, while installed."""

    pauses: dict[int, Histogram] = attrs.field(factory=lambda: {g: Histogram(PAUSE_BUCKETS_S) for g in range(3)})
    collected: int = 0
    cpu_seconds: float = 0.0
    """CPU time the collections took (a pause's wall time also counts any time the process
    was not running, which on a busy machine can be most of it)."""
    _started: float | None = None
    _started_cpu: float = 0.0

    def install(self) -> None:
        if self._on_gc not in gc.callbacks:
            gc.callbacks.append(self._on_gc)

    def remove(self) -> None:
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            self._started_cpu = time.thread_time()
        elif self._started is not None:
            self.pauses[info["generation"]].observe(time.perf_counter() - self._started)
            self.cpu_seconds += time.thread_time() - self._started_cpu
            self.collected += info.get("collected", 0)
            self._started = None

    @property
    def seconds(self) -> float:
        """Time spent in collections while installed."""
        return sum(histogram.sum for histogram in self.pauses.values())
