"""A histogram as the operator's metrics write it: counts under fixed bounds, and their sum.

A plain value every part of the server may add to (rooms, the collector's watch, the database
adapter); `playsite.metrics` turns it into Prometheus text only when it is scraped.
"""

from __future__ import annotations

import bisect

LATENCY_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Histogram:
    """Counts of observations at or under each bound (the last count: above them all), and their sum."""

    def __init__(self, bounds: tuple[float, ...] = LATENCY_BUCKETS_S):
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.sum += value

    @property
    def count(self) -> int:
        return sum(self.counts)

    def cumulative(self) -> list[tuple[str, int]]:
        """(upper bound, observations at or under it) as Prometheus writes buckets, `+Inf` last."""
        running, out = 0, []
        for bound, count in zip((*map(str, self.bounds), "+Inf"), self.counts):
            running += count
            out.append((bound, running))
        return out
