"""The retention job: prunes what may go, on a schedule, supervised with the server.

May go, once a game ended more than RETENTION_DAYS ago: its live-state row (the archive
holds the history) and its seat token digests, and delivered analytics outbox rows.
Never pruned: archive records and the results projection (ratings and history need them).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone
from functools import partial

import trio

from playsite.periodic import run_every
from playsite.store.base import Store

log = logging.getLogger("playsite.retention")

RETENTION_INTERVAL_S = 3600


async def prune_expired(store: Store, days: int) -> None:
    """One retention round: prune what ended more than `days` days ago."""
    pruned = await store.prune(datetime.now(timezone.utc) - timedelta(days=days))
    if pruned.games or pruned.outbox:
        log.info("retention pruned games=%d seats=%d outbox=%d", pruned.games, pruned.seats, pruned.outbox)


async def run_retention(
    store: Store, days: int, *, interval_s: float = RETENTION_INTERVAL_S,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """A round now and every `interval_s`; a failed round is retried next time, never stops the server."""
    await run_every(interval_s, partial(prune_expired, store, days), name="retention", task_status=task_status)
