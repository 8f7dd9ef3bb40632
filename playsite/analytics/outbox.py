"""The outbox pump: delivers due analytics outbox rows by HTTP POST, retried and idempotent.

Delivery is at-least-once from here and exactly-once at the receiver: every POST carries
the row's `Idempotency-Key` (`game:<gameId>`), and the analytics service keeps the first
payload it stores for a key (first writer wins) and answers 409 to later ones. So a POST
whose answer was lost, a pump that died between the POST and the mark, or two pumps
racing on the same row all end the same way: the row marked delivered, the payload
stored once.

A row is never dropped here. A transient failure (timeout, connection error, 408, 425,
429, 5xx) is retried with exponential backoff; any other answer (a 4xx the service will
give again, a redirect) is a permanent problem an operator must fix, retried only at the
backoff cap so it stays visible in `analytics_outbox.last_error` and in the log.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Protocol
from urllib.parse import urlsplit

import attrs
import httpx
import trio

from playsite.config import REDACTED
from playsite.rooms.writes import ANALYTICS_SOURCE
from playsite.store.base import OutboxItem, Store

log = logging.getLogger("playsite.analytics")

ANALYTICS_PATH = "/api/games"
"""service.md: the payload is POSTed to the analytics service path `/api/games` with `source=playsite`."""

RETRYABLE_STATUSES = frozenset({408, 425, 429})
"""Besides every 5xx: answers that say "not now" rather than "never"."""

ALREADY_STORED = 409
"""The analytics service already holds a payload for this key: the first writer won."""

_ERROR_TEXT_MAX = 300


@attrs.frozen(kw_only=True)
class OutboxPolicy:
    """Timing of the pump; the defaults are production values, tests shrink them."""

    batch_size: int = 50
    poll_interval_s: float = 2.0
    """Pause when no row is due (and between batches that did not fill `batch_size`)."""
    request_timeout_s: float = 10.0
    """Whole-request deadline: connect, send, and the complete answer."""
    backoff_base_s: float = 1.0
    """Delay after a row's first failure; it doubles with every further failure."""
    backoff_cap_s: float = 600.0
    """Longest delay between attempts, and the delay after a permanent failure."""
    store_backoff_cap_s: float = 60.0
    """Longest pause while the store itself fails (it starts at `poll_interval_s`)."""


class AnalyticsSettings(Protocol):
    """What the pump reads from `playsite.config.Settings`."""

    analytics_url: str | None
    analytics_token: str | None


@attrs.define
class OutboxCounters:
    """Process-local figures for health reporting; never carries a secret or a payload."""

    delivered: int = 0
    """Rows marked delivered (2xx or 409)."""
    already_stored: int = 0
    """Of those, rows the service already held (409: an earlier POST or another pump won)."""
    failed: int = 0
    """Failed delivery attempts (each one rescheduled, none dropped)."""
    store_errors: int = 0
    """Times the store refused a read or a mark; the pump backed off and carried on."""
    last_error: str | None = None
    """`<key>: <what went wrong>` of the latest failure, or `store: ...`."""
    last_error_at: datetime | None = None
    last_delivered_at: datetime | None = None


@attrs.frozen
class _Attempt:
    delivered: bool
    already_stored: bool = False
    error: str | None = None
    retry_in_s: float = 0.0
    permanent: bool = False


def retry_delay(attempts: int, policy: OutboxPolicy, retry_after_s: float | None = None) -> float:
    """Delay before the next attempt of a row that has failed `attempts` times before this failure.

    Exponential (`base * 2**attempts`, capped); a `Retry-After` from the service is honoured
    as a lower bound, itself capped so a bad header cannot park a row for days.
    """
    delay = policy.backoff_base_s * 2 ** min(max(attempts, 0), 60)
    if retry_after_s is not None:
        delay = max(delay, retry_after_s)
    return min(delay, policy.backoff_cap_s)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds a `Retry-After` header asks for (delta-seconds or HTTP-date); None if absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = now or datetime.now(timezone.utc)
    return max(0.0, (when - now).total_seconds())


def _default_client(policy: OutboxPolicy) -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=httpx.Timeout(policy.request_timeout_s), follow_redirects=False)


class OutboxPump:
    """One supervised loop: fetch due rows, POST each, mark it delivered or rescheduled."""

    def __init__(
        self,
        store: Store,
        settings: AnalyticsSettings,
        *,
        policy: OutboxPolicy | None = None,
        client_factory: Callable[[], httpx.AsyncClient] | None = None,
    ):
        if not settings.analytics_url:
            raise ValueError("the outbox pump needs ANALYTICS_URL")
        self.store = store
        self.policy = policy or OutboxPolicy()
        self.counters = OutboxCounters()
        self.url = settings.analytics_url.rstrip("/") + ANALYTICS_PATH
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if settings.analytics_token:
            self._headers["Authorization"] = f"Bearer {settings.analytics_token}"
        self._secrets = [s for s in (settings.analytics_token, urlsplit(self.url).password) if s]
        self._client_factory = client_factory or (lambda: _default_client(self.policy))

    async def run(self, *, task_status: trio.TaskStatus[OutboxPump] = trio.TASK_STATUS_IGNORED) -> None:
        """Deliver until cancelled. Survives any one row's failure and any store outage."""
        async with self._client_factory() as client:
            task_status.started(self)
            store_pause = self.policy.poll_interval_s
            while True:
                try:
                    handled = await self.deliver_due(client)
                except Exception as exc:  # the store refused: keep the rows, try again later
                    self.counters.store_errors += 1
                    self._note_error(f"store: {self._describe(exc)}")
                    log.warning(
                        "analytics outbox: store failed (%s); next try in %.1f s", self._describe(exc), store_pause
                    )
                    await trio.sleep(store_pause)
                    store_pause = min(store_pause * 2, self.policy.store_backoff_cap_s)
                    continue
                store_pause = self.policy.poll_interval_s
                if handled < self.policy.batch_size:
                    await trio.sleep(self.policy.poll_interval_s)

    async def deliver_due(self, client: httpx.AsyncClient) -> int:
        """One batch: every due row POSTed once and its outcome recorded; returns how many.

        A store error propagates (the rest of the batch stays due); a POST's failure never does.
        """
        items = await self.store.due_outbox(self.policy.batch_size)
        for item in items:
            attempt = await self._post(client, item)
            await self._record(item, attempt)
        return len(items)

    async def _post(self, client: httpx.AsyncClient, item: OutboxItem) -> _Attempt:
        headers = {**self._headers, "Idempotency-Key": item.key}
        timeout = self.policy.request_timeout_s
        try:
            body = json.dumps(item.payload, separators=(",", ":"), ensure_ascii=False).encode()
            with trio.move_on_after(timeout) as deadline:
                response = await client.post(
                    self.url, params={"source": ANALYTICS_SOURCE}, content=body, headers=headers
                )
            if deadline.cancelled_caught:
                return self._transient(item, f"timeout: no complete answer within {timeout:g} s")
            return self._judge(item, response)
        except httpx.TimeoutException as exc:
            return self._transient(item, f"timeout ({type(exc).__name__})")
        except httpx.TransportError as exc:
            return self._transient(item, self._describe(exc))
        except Exception as exc:  # a bug must not stop the pump nor lose the row
            return self._transient(item, f"unexpected {self._describe(exc)}")

    def _judge(self, item: OutboxItem, response: httpx.Response) -> _Attempt:
        status = response.status_code
        if 200 <= status < 300:
            return _Attempt(delivered=True)
        if status == ALREADY_STORED:
            return _Attempt(delivered=True, already_stored=True)
        if status in RETRYABLE_STATUSES or status >= 500:
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
            return self._transient(item, f"HTTP {status}", retry_after)
        detail = " ".join(response.text.split())[:160]
        error = f"HTTP {status}, rejected by the analytics service; needs an operator"
        if detail:
            error += f": {self._scrub(detail)}"
        return _Attempt(delivered=False, error=error, retry_in_s=self.policy.backoff_cap_s, permanent=True)

    def _transient(self, item: OutboxItem, error: str, retry_after_s: float | None = None) -> _Attempt:
        return _Attempt(delivered=False, error=error, retry_in_s=retry_delay(item.attempts, self.policy, retry_after_s))

    async def _record(self, item: OutboxItem, attempt: _Attempt) -> None:
        if attempt.delivered:
            await self.store.outbox_delivered(item.id)
            self.counters.delivered += 1
            self.counters.already_stored += attempt.already_stored
            self.counters.last_delivered_at = datetime.now(timezone.utc)
            return
        assert attempt.error is not None
        self.counters.failed += 1
        self._note_error(f"{item.key}: {attempt.error}")
        level = logging.ERROR if attempt.permanent else logging.WARNING
        log.log(
            level,
            "analytics outbox %s: %s (attempt %d); next try in %.1f s",
            item.key,
            attempt.error,
            item.attempts + 1,
            attempt.retry_in_s,
        )
        await self.store.outbox_failed(item.id, attempt.error, attempt.retry_in_s)

    def _note_error(self, error: str) -> None:
        self.counters.last_error = error
        self.counters.last_error_at = datetime.now(timezone.utc)

    def _describe(self, exc: BaseException) -> str:
        """Class and first line of an error, without any secret and never the payload."""
        lines = str(exc).strip().splitlines()
        text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
        return self._scrub(text)[:_ERROR_TEXT_MAX]

    def _scrub(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text


async def run_outbox_pump(
    store: Store,
    settings: AnalyticsSettings,
    *,
    policy: OutboxPolicy | None = None,
    client_factory: Callable[[], httpx.AsyncClient] | None = None,
    task_status: trio.TaskStatus[OutboxPump] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Supervised service: `pump = await nursery.start(run_outbox_pump, store, settings)`.

    Hands the `OutboxPump` (its `counters` feed health reporting) to `task_status` once its
    HTTP client is open, then delivers until cancelled.
    """
    pump = OutboxPump(store, settings, policy=policy, client_factory=client_factory)
    await pump.run(task_status=task_status)
