"""Analytics ingest: delivery of the game-end outbox to the analytics service.

Each ended game leaves one row in the transactional outbox, written by the room in the
same transaction as the terminal write (service.md, "What the service does" 8). The
outbox pump (`run_outbox_pump`, supervised by the server when
`ANALYTICS_INGEST_ENABLED=true`) POSTs every due row to `{ANALYTICS_URL}/api/games?source=playsite`
with the row's idempotency key, retries with backoff, and marks the row delivered once the
analytics service has it. See docs/analytics.md for the receiver's side of the contract.
"""

from playsite.analytics.outbox import (
    ANALYTICS_PATH,
    OutboxCounters,
    OutboxPolicy,
    OutboxPump,
    parse_retry_after,
    retry_delay,
    run_outbox_pump,
)

__all__ = [
    "ANALYTICS_PATH",
    "OutboxCounters",
    "OutboxPolicy",
    "OutboxPump",
    "parse_retry_after",
    "retry_delay",
    "run_outbox_pump",
]
