"""What the rooms of one registry count, for the operator's metrics (`playsite.metrics`).

Plain numbers the rooms add to as they go (one object shared by every room of a registry,
so counts survive the rooms that made them); nothing here is read on the hot path, and the
metrics endpoint turns it into Prometheus text only when it is scraped.
"""

from __future__ import annotations

import attrs

from playsite.histogram import Histogram


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
