"""What the rooms of one registry count, for the operator's metrics (`playsite.metrics`).

Plain numbers the rooms add to as they go (one object shared by every room of a registry,
so counts survive the rooms that made them); nothing here is read on the hot path, and the
metrics endpoint turns it into Prometheus text only when it is scraped.
"""

from __future__ import annotations

import bisect

import attrs

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


@attrs.define
class FanoutStats:
    delivered: int = 0
    dropped_events: int = 0
    dropped_subscribers: int = 0


@attrs.define
class RoomCounters:
    turns: int = 0
    """Turns played (forced passes, which nobody plays, not counted)."""
    refused: int = 0
    """Turns and draw answers refused (each a Rejected event)."""
    games_ended: int = 0
    fanout: FanoutStats = attrs.field(factory=FanoutStats)
    verdict_s: Histogram = attrs.field(factory=Histogram)
    """A player command taken off the room's queue -> its verdict given (after the commit)."""
    write_s: Histogram = attrs.field(factory=Histogram)
    """One store write attempt, successful or not."""
    write_failures: int = 0
    """Write attempts that failed (each one retried, given up, or logged under best effort)."""
