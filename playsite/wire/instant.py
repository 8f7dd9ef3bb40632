"""An instant on the wire: ISO-8601 in UTC with a `Z`, to the millisecond
(`2025-01-31T12:00:00.000Z`), the form `finishedAt`, the rematch deadlines and every other
timestamp a client reads are written in. The one encoder of it, and its reader."""

from __future__ import annotations

from datetime import datetime, timezone


def encode_instant(at: datetime) -> str:
    """`at` (timezone-aware) as the wire writes an instant."""
    return at.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def encode_epoch(seconds: float) -> str:
    """An instant given in seconds since the epoch, as the wire writes it."""
    return encode_instant(datetime.fromtimestamp(seconds, timezone.utc))


def decode_instant(text: str) -> datetime:
    """An ISO-8601 instant (a `Z` or an offset) as a datetime; ValueError when it is not one."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
