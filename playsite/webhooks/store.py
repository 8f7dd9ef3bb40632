"""Where webhook registrations and delivery records live: a memory twin and PostgreSQL.

A bot has at most one current registration. Every registration gets a new generation
(`registration_id`, strictly increasing), so a delivery can tell whether the registration
it was sent under is still the current one. Secrets are stored because every delivery is
signed with them (they are HMAC keys, not credentials we could keep as digests); they are
shown once at registration and never logged. With PLAY_SECRETS_KEY, PostgreSQL holds them
sealed (sealing.py) and `seal_at_boot` seals or re-seals what an earlier boot left.

Delivery records feed `GET /bot/webhook/stats`: one row per attempt, kept a little longer
than the 7-day window the stats report.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections import defaultdict, deque
from datetime import datetime, timedelta
from typing import Protocol

import attrs
import psycopg

from playsite import principals
from playsite.config import Settings
from playsite.store.database import Database
from playsite.webhooks import slot_queries
from playsite.webhooks.sealing import Sealer, SecretUnreadable, is_sealed, open_stored
from playsite.wire.instant import encode_instant

log = logging.getLogger("playsite.webhooks")

STATS_WINDOWS = (("last24h", timedelta(hours=24)), ("last7d", timedelta(days=7)))
DELIVERY_RETENTION = timedelta(days=8)
MEMORY_DELIVERIES_PER_BOT = 20_000
"""The memory twin keeps at most this many recent attempts per bot."""

APPLIED = "applied"
DECLINED = "declined"
STALE_REGISTRATION = "stale_registration"
NOT_A_FAILURE = frozenset({APPLIED, DECLINED, STALE_REGISTRATION})
"""Outcomes that never become `lastFailure`: the bot behaved as designed, or the answer
belonged to a registration that is no longer current (it must not touch the current
registration's health)."""


@attrs.frozen
class Registration:
    bot_id: str
    registration_id: int
    """The generation: a new registration always has a larger one than any before it."""
    url: str
    secret: str = attrs.field(repr=False)
    verified_at: datetime
    unusable: str | None = None
    """Why the stored secret cannot be opened (key missing or wrong), when it cannot; then
    `secret` is empty and nothing is delivered under this registration."""


@attrs.frozen
class Delivery:
    """One attempt to deliver a turn, as `GET /bot/webhook/stats` counts it."""

    bot_id: str
    registration_id: int
    at: datetime
    outcome: str
    """applied, declined, refused, garbled, oversized_body, http_<code>, timed_out,
    unreachable or stale_registration."""
    latency_ms: int
    reason: str
    """A sentence for the bot's author (never a secret, an address or a payload)."""


@attrs.frozen
class Window:
    total: int
    outcomes: tuple[tuple[str, int], ...]
    """(outcome, count), largest count first, then by name."""
    p50_ms: int | None
    p90_ms: int | None
    p99_ms: int | None

    def to_json(self) -> dict:
        return {
            "totalDeliveries": self.total,
            "outcomes": [{"outcome": outcome, "count": count} for outcome, count in self.outcomes],
            "p50Ms": self.p50_ms,
            "p90Ms": self.p90_ms,
            "p99Ms": self.p99_ms,
        }


@attrs.frozen
class DeliveryStats:
    windows: dict[str, Window]
    last_failure: tuple[datetime, str] | None

    def to_json(self) -> dict:
        body: dict[str, object] = {name: window.to_json() for name, window in self.windows.items()}
        if self.last_failure is None:
            body["lastFailure"] = None
        else:
            at, reason = self.last_failure
            body["lastFailure"] = {"at": encode_instant(at), "reason": reason}
        return body




def nearest_rank(sorted_values: list[int], fraction: float) -> int | None:
    """The smallest value with at least `fraction` of all values at or below it (percentile_disc)."""
    if not sorted_values:
        return None
    return sorted_values[max(0, math.ceil(fraction * len(sorted_values)) - 1)]


def summarize(deliveries: list[Delivery]) -> Window:
    counts: dict[str, int] = defaultdict(int)
    for delivery in deliveries:
        counts[delivery.outcome] += 1
    latencies = sorted(d.latency_ms for d in deliveries)
    return Window(
        total=len(deliveries),
        outcomes=tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0]))),
        p50_ms=nearest_rank(latencies, 0.50),
        p90_ms=nearest_rank(latencies, 0.90),
        p99_ms=nearest_rank(latencies, 0.99),
    )


class WebhookStore(Protocol):
    async def current(self, bot_id: str) -> Registration | None: ...

    async def replace(self, bot_id: str, url: str, secret: str, verified_at: datetime) -> Registration:
        """Make this the bot's registration under a new, larger generation."""

    async def delete(self, bot_id: str) -> bool:
        """Drop the bot's registration; False when it had none."""

    async def record(self, delivery: Delivery) -> None: ...

    async def stats(self, bot_id: str, now: datetime) -> DeliveryStats: ...


class MemoryWebhookStore:
    """Process memory: registrations and records are gone on restart, like every memory-store game."""

    def __init__(self) -> None:
        self._registrations: dict[str, Registration] = {}
        self._generations = itertools.count(1)
        self._deliveries: dict[str, deque[Delivery]] = defaultdict(lambda: deque(maxlen=MEMORY_DELIVERIES_PER_BOT))

    async def current(self, bot_id: str) -> Registration | None:
        return self._registrations.get(bot_id)

    async def replace(self, bot_id: str, url: str, secret: str, verified_at: datetime) -> Registration:
        registration = Registration(bot_id, next(self._generations), url, secret, verified_at)
        self._registrations[bot_id] = registration
        return registration

    async def delete(self, bot_id: str) -> bool:
        return self._registrations.pop(bot_id, None) is not None

    async def record(self, delivery: Delivery) -> None:
        kept = self._deliveries[delivery.bot_id]
        kept.append(delivery)
        horizon = delivery.at - DELIVERY_RETENTION
        while kept and kept[0].at < horizon:
            kept.popleft()

    async def stats(self, bot_id: str, now: datetime) -> DeliveryStats:
        kept = list(self._deliveries.get(bot_id, ()))
        windows = {name: summarize([d for d in kept if d.at > now - span]) for name, span in STATS_WINDOWS}
        failures = [d for d in kept if d.outcome not in NOT_A_FAILURE]
        last = max(failures, key=lambda d: d.at, default=None)
        return DeliveryStats(windows, (last.at, last.reason) if last else None)


_REPLACE = """
INSERT INTO webhook_registrations (bot_id, registration_id, url, secret, verified_at)
VALUES (%s, nextval('webhook_registration_ids'), %s, %s, %s)
ON CONFLICT (bot_id) DO UPDATE
   SET registration_id = EXCLUDED.registration_id, url = EXCLUDED.url,
       secret = EXCLUDED.secret, verified_at = EXCLUDED.verified_at
RETURNING registration_id
"""
_WINDOW = """
SELECT outcome, count(*) FROM webhook_deliveries
 WHERE bot_id = %s AND at > %s GROUP BY outcome
"""
_PERCENTILES = """
SELECT percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY latency_ms)
  FROM webhook_deliveries WHERE bot_id = %s AND at > %s
"""
_LAST_FAILURE = """
SELECT at, reason FROM webhook_deliveries
 WHERE bot_id = %s AND outcome <> ALL(%s) ORDER BY at DESC, id DESC LIMIT 1
"""


@attrs.frozen
class Resealed:
    """What `PostgresWebhookStore.reseal` did (counts and bot ids only, never a secret)."""

    plain: int
    """Rows that held the secret in plain text, now sealed."""
    rotated: int
    """Rows sealed under PLAY_SECRETS_KEY_PREVIOUS, now sealed under PLAY_SECRETS_KEY."""
    unreadable: tuple[str, ...]
    """Bots whose stored secret opens under neither key (left as they are)."""


class PostgresWebhookStore:
    """The same records in PostgreSQL, through the store's one `Database` adapter.

    With a `sealer`, secrets are written sealed and opened on reading; without one they are
    written in plain text (and a sealed one reads as an unusable registration)."""

    def __init__(self, database: Database, sealer: Sealer | None = None) -> None:
        self.database = database
        self.sealer = sealer

    async def current(self, bot_id: str) -> Registration | None:
        row = await self.database.run(
            lambda conn: conn.execute(
                "SELECT registration_id, url, secret, verified_at FROM webhook_registrations WHERE bot_id = %s",
                (bot_id,),
            ).fetchone()
        )
        if row is None:
            return None
        registration_id, url, stored, verified_at = row
        try:
            secret = open_stored(self.sealer, stored, bot_id)
        except SecretUnreadable as unreadable:
            log.warning(
                "webhook registration of bot=%s is unusable: %s; nothing is delivered to it until the key is"
                " restored or the bot registers its webhook again", bot_id, unreadable.reason,
            )
            return Registration(bot_id, registration_id, url, "", verified_at, unusable=unreadable.reason)
        return Registration(bot_id, registration_id, url, secret, verified_at)

    def replace_in(
        self, conn: psycopg.Connection, bot_id: str, url: str, secret: str, verified_at: datetime
    ) -> Registration:
        """`replace` inside the caller's transaction on `conn` (its commit makes it current).
        The secret is written sealed when there is a key; the registration returned holds it plain."""
        stored = secret if self.sealer is None else self.sealer.seal(secret, bot_id)
        generation = slot_queries.only_value(conn.execute(_REPLACE, (bot_id, url, stored, verified_at)))
        return Registration(bot_id, generation, url, secret, verified_at)

    async def replace(self, bot_id: str, url: str, secret: str, verified_at: datetime) -> Registration:
        """The bot's own registration (`POST /bot/webhook`): a change of its webhook slot like
        any other, under the slot's fence, bumping its revision (docs/webhook-management.md)."""

        def work(conn: psycopg.Connection) -> Registration:
            with conn.transaction():
                slot_queries.fence(conn, bot_id)
                registration = self.replace_in(conn, bot_id, url, secret, verified_at)
                slot_queries.bump(conn, bot_id)
                slot_queries.audit(conn, "webhook.registration.replaced", principals.bot(bot_id), bot_id,
                            {"registrationId": registration.registration_id})
                return registration

        return await self.database.run(work)

    async def reseal(self) -> Resealed:
        """Seal every plain-text secret, and re-seal every one sealed under the previous key,
        under the current key, in one transaction. Needs a sealer."""
        sealer = self.sealer
        if sealer is None:
            raise ValueError("re-sealing needs PLAY_SECRETS_KEY")

        def work(conn: psycopg.Connection) -> Resealed:
            plain, rotated, unreadable = 0, 0, []
            with conn.transaction():
                rows = conn.execute(
                    "SELECT bot_id, secret FROM webhook_registrations WHERE secret NOT LIKE %s"
                    " ORDER BY bot_id FOR UPDATE",
                    (f"sealed1:{sealer.key_id}:%",),
                ).fetchall()
                for bot_id, stored in rows:
                    try:
                        secret = sealer.open(stored, bot_id)
                    except SecretUnreadable:
                        unreadable.append(bot_id)
                        continue
                    if is_sealed(stored):
                        rotated += 1
                    else:
                        plain += 1
                    conn.execute(
                        "UPDATE webhook_registrations SET secret = %s WHERE bot_id = %s",
                        (sealer.seal(secret, bot_id), bot_id),
                    )
            return Resealed(plain, rotated, tuple(unreadable))

        return await self.database.run(work)

    async def count_sealed(self) -> int:
        """How many stored secrets are sealed (by any key)."""
        return await self.database.run(
            lambda conn: slot_queries.only_value(
                conn.execute("SELECT count(*) FROM webhook_registrations WHERE secret ~ '^sealed[0-9]+:'")
            )
        )

    async def delete(self, bot_id: str) -> bool:
        def work(conn: psycopg.Connection) -> bool:
            with conn.transaction():
                slot_queries.fence(conn, bot_id)
                if conn.execute("DELETE FROM webhook_registrations WHERE bot_id = %s", (bot_id,)).rowcount == 0:
                    return False
                slot_queries.bump(conn, bot_id)
                slot_queries.audit(conn, "webhook.registration.removed", principals.bot(bot_id), bot_id, {})
                return True

        return await self.database.run(work)

    async def record(self, delivery: Delivery) -> None:
        def work(conn: psycopg.Connection) -> None:
            with conn.transaction():
                conn.execute(
                    "INSERT INTO webhook_deliveries (bot_id, registration_id, at, outcome, latency_ms, reason)"
                    " VALUES (%s, %s, %s, %s, %s, %s)",
                    (
                        delivery.bot_id,
                        delivery.registration_id,
                        delivery.at,
                        delivery.outcome,
                        delivery.latency_ms,
                        delivery.reason,
                    ),
                )
                conn.execute(
                    "DELETE FROM webhook_deliveries WHERE bot_id = %s AND at < %s",
                    (delivery.bot_id, delivery.at - DELIVERY_RETENTION),
                )

        await self.database.run(work)

    async def stats(self, bot_id: str, now: datetime) -> DeliveryStats:
        def work(conn: psycopg.Connection) -> DeliveryStats:
            windows = {}
            for name, span in STATS_WINDOWS:
                since = now - span
                counts = conn.execute(_WINDOW, (bot_id, since)).fetchall()
                p50, p90, p99 = slot_queries.only_value(conn.execute(_PERCENTILES, (bot_id, since))) or (None, None, None)
                windows[name] = Window(
                    total=sum(count for _, count in counts),
                    outcomes=tuple(sorted(((o, c) for o, c in counts), key=lambda item: (-item[1], item[0]))),
                    p50_ms=p50,
                    p90_ms=p90,
                    p99_ms=p99,
                )
            last = conn.execute(_LAST_FAILURE, (bot_id, sorted(NOT_A_FAILURE))).fetchone()
            return DeliveryStats(windows, (last[0], last[1]) if last else None)

        return await self.database.run(work)


def webhook_store_for(database: Database | None, sealer: Sealer | None = None) -> WebhookStore:
    """PostgreSQL beside a PostgreSQL game store (secrets sealed by `sealer`, if any); memory otherwise."""
    if database is not None:
        return PostgresWebhookStore(database, sealer)
    return MemoryWebhookStore()


async def seal_at_boot(webhook_store: WebhookStore, settings: Settings) -> Resealed | None:
    """Before the port opens: with a key, seal what is stored in plain text and re-seal what
    is sealed under the previous key (one transaction, counts logged); without one, warn that
    PostgreSQL holds the secrets unencrypted. Memory stores keep nothing to seal."""
    if not isinstance(webhook_store, PostgresWebhookStore):
        return None
    if webhook_store.sealer is None:
        if settings.webhook_push_enabled:
            log.warning(
                "webhook secrets are stored unencrypted in PostgreSQL: set PLAY_SECRETS_KEY to seal them"
                " (docs/configuration.md)"
            )
        if sealed := await webhook_store.count_sealed():
            log.warning(
                "webhook secrets: %d are stored sealed but PLAY_SECRETS_KEY is not set: those registrations"
                " are unusable until the key is set again or the bots register again", sealed,
            )
        return None
    done = await webhook_store.reseal()
    log.info(
        "webhook secrets: sealed %d stored in plain text, re-sealed %d under the new key", done.plain, done.rotated
    )
    if done.unreadable:
        log.warning(
            "webhook secrets: %d cannot be opened with PLAY_SECRETS_KEY or PLAY_SECRETS_KEY_PREVIOUS, left as"
            " they are; those registrations are unusable until the bots register again: %s",
            len(done.unreadable), ", ".join(done.unreadable),
        )
    elif webhook_store.sealer.previous_key_id is not None:
        log.info("webhook secrets: every secret is sealed under PLAY_SECRETS_KEY; PLAY_SECRETS_KEY_PREVIOUS can go")
    return done
