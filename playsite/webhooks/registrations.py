"""Webhook registrations of registered bots: URL policy, ownership handshake, fence, stats.

A registration is stored only after the URL passed the outbound policy and answered the
ownership handshake: `{"type":"verification","nonce":"<random>"}` POSTed through the
pinned transport, which must be answered 200 `{"nonce":"<the same value>"}` within 5 s (the
same echo the showcase readiness probe uses). The echo is unsigned, as the contract calls it
(service.md: "the unsigned verification echo"): it carries no `X-DiceChess-*` header, and a
bot answers it by its `type`. The new secret is minted only for a registration whose
handshake succeeded; it then replaces any earlier one under a new, larger generation. A
failed handshake stores nothing. Every `yourTurn` delivery is signed with the secret.

The per-bot fence (a trio.Lock per bot) serialises every change of a bot's registration
with the check a delivery makes before its answer enters a room: "is the registration I
was sent under still the current one?". An answer that fails that check is recorded as
`stale_registration` and goes nowhere.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from datetime import datetime, timezone

import trio

from playsite.store.database import Database
from playsite.transports.pinned import (
    RESPONSE_BODY_MAX,
    OutboundFailure,
    PinnedTarget,
    Resolver,
    UrlPolicy,
    UrlRefused,
    post_pinned,
    resolve_and_pin,
)
from playsite.webhooks.sealing import Sealer
from playsite.webhooks.store import Delivery, DeliveryStats, Registration, WebhookStore, webhook_store_for

log = logging.getLogger("playsite.webhooks")

VERIFICATION_ECHO_TIMEOUT_S = 5.0
"""service.md, Limits: the verification echo is answered within 5 s."""
TIMESTAMP_HEADER = "X-DiceChess-Timestamp"
SIGNATURE_HEADER = "X-DiceChess-Signature"
SECRET_BYTES = 32
"""HMAC-SHA256 keys: 32 random bytes, shown as 64 hex characters."""
NONCE_BYTES = 16
REGISTRATION_ATTEMPTS_PER_WINDOW = 10
REGISTRATION_WINDOW_S = 60.0
"""Each registration attempt can cost an outbound request: at most this many per bot per window."""


class RegistrationRefused(Exception):
    """`code` is url_policy or handshake_failed; `reason` says why, for the bot's author."""

    def __init__(self, code: str, reason: str):
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason


class RegistrationRateLimited(Exception):
    def __init__(self, retry_after_s: int):
        super().__init__(f"too many registration attempts; retry in {retry_after_s} s")
        self.retry_after_s = retry_after_s


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def sign(secret: str, timestamp: int, body: str) -> str:
    """`X-DiceChess-Signature`: hex HMAC-SHA256 of "<timestamp>.<body>", keyed by the secret's UTF-8 bytes."""
    return hmac.new(secret.encode(), f"{timestamp}.{body}".encode(), hashlib.sha256).hexdigest()


def signed_headers(secret: str, body: str, now: datetime) -> dict[str, str]:
    """The headers of every POST to a webhook: JSON, and the signature of `body` at `now`."""
    timestamp = int(now.timestamp())
    return {
        "Content-Type": "application/json",
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: sign(secret, timestamp, body),
    }


class Webhooks:
    """The registrations of every bot, with their fences; one per process."""

    def __init__(
        self,
        store: WebhookStore,
        policy: UrlPolicy,
        *,
        enabled: bool = True,
        wall_clock: Callable[[], datetime] = utc_now,
        resolver: Resolver | None = None,
        verify=True,
    ):
        self.store = store
        self.policy = policy
        self.enabled = enabled
        """WEBHOOK_PUSH_ENABLED: registration, inspection and delivery are on."""
        self.wall_clock = wall_clock
        self.resolver = resolver
        """Host name lookups (None: the system resolver); tests map names of their own."""
        self.verify = verify
        """TLS verification for outbound requests (True: the system's CA bundle)."""
        self.listeners: list[Callable[[str], None]] = []
        """Called with a bot id after its registration was replaced or deleted."""
        self._fences: dict[str, trio.Lock] = {}
        self._cache: dict[str, Registration | None] = {}
        self._attempts: dict[str, deque[float]] = defaultdict(deque)
        self.outcomes: Counter[str] = Counter()
        """Delivery attempts of this process by outcome (`applied`, `timed_out`, `http_503` ...), for /metrics."""

    @classmethod
    def from_settings(cls, database: Database | None, settings) -> Webhooks:
        return cls(
            webhook_store_for(database, Sealer.from_settings(settings)),
            UrlPolicy.from_settings(settings),
            enabled=settings.webhook_push_enabled,
        )

    # ----- the fence ------------------------------------------------------------------------

    def fence(self, bot_id: str) -> trio.Lock:
        """Held for every change of the bot's registration and for every stale check."""
        lock = self._fences.get(bot_id)
        if lock is None:
            lock = self._fences[bot_id] = trio.Lock()
        return lock

    async def current(self, bot_id: str) -> Registration | None:
        """The bot's current registration (cached; loaded under the fence on a miss)."""
        if bot_id in self._cache:
            return self._cache[bot_id]
        async with self.fence(bot_id):
            return await self.current_under_fence(bot_id)

    async def current_under_fence(self, bot_id: str) -> Registration | None:
        """The same, for a caller that already holds the bot's fence (trio locks do not nest)."""
        if bot_id not in self._cache:
            self._cache[bot_id] = await self.store.current(bot_id)
        return self._cache[bot_id]

    # ----- changes ------------------------------------------------------------------------

    async def register(self, bot_id: str, url: object) -> Registration:
        """Check the URL, run the handshake, store a new registration (replacing any).

        Raises RegistrationRefused (422) or RegistrationRateLimited (429).
        """
        self._count_attempt(bot_id)
        try:
            target = await resolve_and_pin(url, self.policy, self.resolver)
        except UrlRefused as refused:
            raise RegistrationRefused("url_policy", refused.reason) from None
        await self.verify_echo(target)
        secret = secrets.token_hex(SECRET_BYTES)  # only for an endpoint that answered the echo
        # The handshake ran outside the fence; only the replacement itself holds it, so
        # deliveries checking their generation wait for a store write, never for a bot.
        async with self.fence(bot_id):
            registration = await self.store.replace(bot_id, str(url), secret, self.wall_clock())
            self._cache[bot_id] = registration
        log.info("webhook registered: bot=%s host=%s generation=%d", bot_id, target.host, registration.registration_id)
        self._announce(bot_id)
        return registration

    async def remove(self, bot_id: str) -> bool:
        async with self.fence(bot_id):
            removed = await self.store.delete(bot_id)
            self._cache[bot_id] = None
        if removed:
            log.info("webhook removed: bot=%s", bot_id)
            self._announce(bot_id)
        return removed

    def installed(self, bot_id: str, registration: Registration | None) -> None:
        """A registration written or removed elsewhere (staged management, `management.py`),
        committed while the caller held the bot's fence: cache it and tell the listeners."""
        self._cache[bot_id] = registration
        self._announce(bot_id)

    def _announce(self, bot_id: str) -> None:
        for listener in list(self.listeners):
            try:
                listener(bot_id)
            except Exception:  # a listener's fault must not undo a committed change
                log.exception("webhook listener failed for bot=%s", bot_id)

    def _count_attempt(self, bot_id: str) -> None:
        now = trio.current_time()
        attempts = self._attempts[bot_id]
        while attempts and attempts[0] <= now - REGISTRATION_WINDOW_S:
            attempts.popleft()
        if len(attempts) >= REGISTRATION_ATTEMPTS_PER_WINDOW:
            raise RegistrationRateLimited(max(1, int(attempts[0] + REGISTRATION_WINDOW_S - now + 0.999)))
        attempts.append(now)

    # ----- the verification echo ------------------------------------------------------------

    async def verify_echo(self, target: PinnedTarget) -> None:
        """The ownership handshake, unsigned; RegistrationRefused('handshake_failed') when it fails."""
        nonce = secrets.token_hex(NONCE_BYTES)
        body = json.dumps({"type": "verification", "nonce": nonce}, separators=(",", ":"))
        try:
            answer = await post_pinned(
                target,
                body.encode(),
                {"Content-Type": "application/json"},  # the unsigned echo: no X-DiceChess-* header
                timeout_s=VERIFICATION_ECHO_TIMEOUT_S,
                verify=self.verify,
            )
        except OutboundFailure as failure:
            log.info("webhook handshake failed: host=%s %s", target.host, failure)
            if failure.kind == "timed_out":
                raise RegistrationRefused(
                    "handshake_failed", f"the endpoint did not answer within {VERIFICATION_ECHO_TIMEOUT_S:g} s"
                ) from None
            raise RegistrationRefused("handshake_failed", "the endpoint could not be reached") from None
        if answer.status != 200:
            raise RegistrationRefused("handshake_failed", f"the endpoint answered HTTP {answer.status}, not 200")
        if answer.oversized:
            raise RegistrationRefused("handshake_failed", f"the answer is larger than {RESPONSE_BODY_MAX} bytes")
        try:
            echoed = json.loads(answer.body)
        except (ValueError, UnicodeDecodeError, RecursionError):
            echoed = None
        if not isinstance(echoed, dict) or not isinstance(echoed.get("nonce"), str):
            raise RegistrationRefused("handshake_failed", 'the answer is not {"nonce": "<the nonce sent>"}')
        if not hmac.compare_digest(echoed["nonce"].encode(), nonce.encode()):
            raise RegistrationRefused("handshake_failed", "the endpoint echoed a different nonce")

    async def probe(self, bot_id: str) -> bool:
        """Does the bot's current webhook answer the verification echo now? (showcase readiness)"""
        registration = await self.current(bot_id)
        if registration is None or registration.unusable or not self.enabled:
            return False
        try:
            target = await resolve_and_pin(registration.url, self.policy, self.resolver)
            await self.verify_echo(target)
        except (UrlRefused, RegistrationRefused):
            return False
        return True

    # ----- telemetry ----------------------------------------------------------------------

    async def record(self, delivery: Delivery) -> None:
        """Keep one attempt for the stats; a failing write is logged and never reaches the game."""
        self.outcomes[delivery.outcome] += 1
        try:
            await self.store.record(delivery)
        except Exception as error:
            log.warning("webhook delivery not recorded: bot=%s %s", delivery.bot_id, type(error).__name__)

    async def stats(self, bot_id: str) -> DeliveryStats:
        return await self.store.stats(bot_id, self.wall_clock())
