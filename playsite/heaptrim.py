"""The C heap's free pages, given back to the system every so often.

Python's own allocator serves objects of up to 512 bytes; anything bigger (an event's JSON
text, a legal-move tree's table, a socket's buffers) comes from the C library's `malloc`.
glibc keeps what is freed for reuse and returns memory to the system only from the top of
its heap, so a heap with one block still in use near its top keeps every free page below it.
A serving process churns through such blocks at a steady live size, and its RSS grew anyway:
in a 25-minute run at 400 games x 5 sockets with the memory store's bounds reached, the
memory Python's objects held stayed between 176 and 184 MiB (tracemalloc, three snapshots
ten minutes apart) while RSS kept climbing, and one `malloc_trim(0)` gave 184 MiB back at
once (674 to 491 MiB).

So, once the port is open, every `interval_s` (PLAY_HEAP_TRIM_INTERVAL_S; 0: never) the
serving process calls glibc's `malloc_trim(0)`, which hands every whole free page of the heap
back to the system. It runs on the event loop, between two steps, and is timed: its pause is
`playsite_heap_trim_seconds` in /metrics, and what RSS fell by, `playsite_heap_trimmed_bytes`.
Where the C library has no `malloc_trim` (musl, macOS), the task does nothing.
"""

from __future__ import annotations

import ctypes
import os
import time
from collections.abc import Callable

import attrs
import trio

from playsite.periodic import run_every
from playsite.histogram import Histogram

PAUSE_BUCKETS_S = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where the C library has none."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


MALLOC_TRIM = _malloc_trim()


def resident_bytes() -> int | None:
    """This process's RSS, from /proc (None elsewhere)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@attrs.define
class HeapTrim:
    pauses: Histogram = attrs.field(factory=lambda: Histogram(PAUSE_BUCKETS_S))
    trimmed_bytes: int = 0
    """What RSS fell by across the trims, in bytes (a trim during which RSS rose counts 0)."""
    armed: trio.Event = attrs.field(factory=trio.Event)
    """Set once the port is open (`arm`): boot's own allocations are not the serving process's
    churn, and a process that never serves (a test of the services alone) never trims."""

    def arm(self) -> None:
        self.armed.set()

    def trim(self) -> None:
        """One `malloc_trim(0)`, timed, and what it gave back."""
        if MALLOC_TRIM is None:
            return
        before = resident_bytes()
        started = time.perf_counter()
        MALLOC_TRIM(0)
        self.pauses.observe(time.perf_counter() - started)
        after = resident_bytes()
        if before is not None and after is not None:
            self.trimmed_bytes += max(0, before - after)


async def run_heap_trim(
    interval_s: float, *, task_status: trio.TaskStatus[HeapTrim] = trio.TASK_STATUS_IGNORED
) -> None:
    """Until cancelled, once armed: trim the C heap every `interval_s` (0: never)."""
    heap = HeapTrim()
    task_status.started(heap)
    if interval_s <= 0 or MALLOC_TRIM is None:
        return

    async def trim() -> None:
        heap.trim()

    await heap.armed.wait()
    await run_every(interval_s, trim, name="heap trim", first_after_period=True)
