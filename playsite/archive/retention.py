"""The retention job: prunes what may go, on a schedule, supervised with the server.

May go, once a game ended more than RETENTION_DAYS ago: its live-state row (the archive
holds the history) and its seat token digests, and delivered analytics outbox rows.
Never pruned: archive records and the results projection (ratings and history need them).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

import trio

log = logging.getLogger("playsite.retention")

RETENTION_INTERVAL_S = 3600


async def run_retention(store, days: int, *, interval_s: float = RETENTION_INTERVAL_S, task_status=trio.TASK_STATUS_IGNORED):
    task_status.started()
    while True:
        try:
            pruned = await store.prune(datetime.now(timezone.utc) - timedelta(days=days))
            if pruned.games or pruned.outbox:
                log.info("retention pruned games=%d seats=%d outbox=%d", pruned.games, pruned.seats, pruned.outbox)
        except Exception as error:  # the job retries next round; a failure never stops the server
            log.warning("retention round failed: %s", type(error).__name__)
        await trio.sleep(interval_s)
