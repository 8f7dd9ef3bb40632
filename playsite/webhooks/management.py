"""Account-owned bots and staged webhook management: the one implementation behind `/me/...`
(a bot's owner) and `/admin/...` (administrators). Only `Actor.authority` differs between them;
status mapping, compare-and-set, redaction, verification and audit are this module's.

A bot's webhook *slot* has a revision (the strong ETag) that every change bumps. A change names
the revision it was made against (`If-Match`); another one is refused 412 `revision_mismatch`.
The slot holds at most one *setup*: a candidate URL waiting to become the bot's registration.

Activation is two-phase and leased (service.md, "Staged webhook activation"):

1. One transaction under the bot's fence (`slot_queries.fence`): authority, a live lease (409
   `activation_in_progress`), the setup's state and deadline, the revision, the attempt budget;
   then a new lease bound to the setup and the next revision, one attempt spent, and the
   `webhook.activation.start` audit event, all committed together. A request refused here spent
   nothing and caused no lookup and no outbound request.
2. Outside any transaction: the candidate's host resolved and pinned once, and the signed
   verification echo sent through the pinned transport (`Webhooks.verify_echo`).
3. One transaction under the fence again: the bot's incarnation, the actor's authority, the
   revision, the setup, its candidate and the lease must all still be the ones of step 1 and
   the lease unexpired (database clock). Then the registration is written (its secret sealed
   by the store), the setup ends `activated` and the secret is shown once. A failed echo ends
   the lease with the attempt spent (`exhausted` after the fifth).

A process that dies between 1 and 3 leaves the lease to expire (`slot_queries.LEASE_LIFETIME_S`); the
attempt stays spent. Nothing here reads a webhook secret back: views show none.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

import attrs
import httpx
import psycopg

from playsite import principals
from playsite.accounts.admins import LIVE_S, AdminAuthority
from playsite.accounts.model import Account
from playsite.bots import owners
from playsite.bots.directory import BotDirectory
from playsite.refusals import Refused
from playsite.store.database import Database, DatabaseUnavailable
from playsite.tokens import new_token
from playsite.transports.pinned import UrlRefused, check_url, resolve_and_pin
from playsite.webhooks import slot_queries
from playsite.webhooks.registrations import SECRET_BYTES, RegistrationRefused, Webhooks
from playsite.webhooks.slot_queries import ATTEMPTS_MAX, Setup, Slot
from playsite.wire.instant import encode_instant
from playsite.webhooks.store import PostgresWebhookStore, Registration

log = logging.getLogger("playsite.webhooks")

T = TypeVar("T")
AUDIT_SHOWN = 20
"""Audit events a slot's view carries, newest first."""


class SlotRefusal(Refused):
    """A refused management request: a stable `code` and a sentence; `retry_after_s` when
    the same request can succeed later, `revision` the slot's current revision (the client
    re-reads with it)."""

    def __init__(self, code: str, message: str, *, retry_after_s: int | None = None, revision: int | None = None):
        super().__init__(code, message)
        self.retry_after_s = retry_after_s
        self.revision = revision


def bot_not_found() -> SlotRefusal:
    return SlotRefusal("bot_not_found", "no such bot among the bots you manage")


def admin_required() -> SlotRefusal:
    return SlotRefusal("admin_required", "administrator authority is not available for this request")


def admin_authority_unsettled() -> SlotRefusal:
    """An administrator on this process's list, while another list is still live too (a deploy
    that changed PLAY_ADMINS: the old process's beats age out within LIVE_S), or while this
    process's own beats fail: the same refusal, saying so, and when to try again."""
    return SlotRefusal(
        "admin_required",
        "administrator authority is not settled: another list of administrators is still live (a deploy), or"
        " this server's heartbeat is failing; try again shortly",
        retry_after_s=LIVE_S,
    )


@attrs.frozen
class Actor:
    """Who asks, and under which authority: 'owner' (`/me`) or 'admin' (`/admin`)."""

    account: Account
    authority: str

    @property
    def principal(self) -> str:
        return self.account.principal


def redacted(url: str) -> str:
    """A URL as views, logs and the audit trail show it: scheme, host, port and path; a query
    (where serverless platforms put their keys) is replaced by `?…`."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError):
        return "(unparseable)"
    shown = parsed.copy_with(query=None, fragment=None, userinfo=b"")
    return str(shown) + ("?…" if parsed.query else "")


def host_of(url: str) -> str:
    try:
        return httpx.URL(url).host
    except (httpx.InvalidURL, ValueError, TypeError):
        return ""


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else encode_instant(moment)


@attrs.frozen
class _Completed:
    """An activation's completion: the registration written (None when the echo failed), the
    slot's view and revision after it."""

    registration: Registration | None
    view: dict
    revision: int


@attrs.frozen
class Activated:
    view: dict
    revision: int
    secret: str = attrs.field(repr=False)


class WebhookManagement:
    def __init__(self, database: Database, webhooks: Webhooks, bots: BotDirectory, admins: AdminAuthority) -> None:
        self.database = database
        self.webhooks = webhooks
        self.bots = bots
        self.admins = admins
        self.admins.on_sole.append(self.scrub_foreign_admin_setups)

    # ----- authority -----------------------------------------------------------------------

    def _admin_refused(self, actor: Actor) -> SlotRefusal:
        """Why an admin request is refused: not on this list, or the list not settled yet."""
        return admin_authority_unsettled() if self.admins.is_admin(actor.account.id) else admin_required()

    def _authorise(self, conn: psycopg.Connection, actor: Actor, bot_id: str) -> Slot:
        """The slot under the fence when `actor` may manage `bot_id`; refusals otherwise. An
        admin's authority is checked first, so a refusal says nothing about the bot."""
        if actor.authority == "admin":
            if not self.admins.admits(conn, actor.account.id):
                raise self._admin_refused(actor)
            slot = slot_queries.fence(conn, bot_id)
        else:
            slot = slot_queries.fence(conn, bot_id)
            if slot is not None and owners.owner_of(conn, bot_id) != actor.account.id:
                slot = None
        if slot is None:
            raise bot_not_found()
        return slot

    def _authority_holds(self, conn: psycopg.Connection, actor: Actor, bot_id: str, setup: Setup) -> bool:
        """At completion: may the actor still activate this setup?"""
        if actor.authority == "admin":
            staged_here = setup.authority != "admin" or setup.admin_generation == self.admins.digest
            return self.admins.admits(conn, actor.account.id) and staged_here
        return owners.owner_of(conn, bot_id) == actor.account.id

    def _begin_change(
        self, conn: psycopg.Connection, actor: Actor, bot_id: str, if_match: int | None
    ) -> tuple[Slot, Setup | None]:
        """Every change of a slot starts so, in this order: authority under the fence, then no
        live lease (409), then `If-Match` (428/412). Returns (slot, setup)."""
        slot = self._authorise(conn, actor, bot_id)
        setup = slot_queries.setup_of(conn, bot_id)
        if setup is not None and setup.lease_live:
            raise SlotRefusal(
                "activation_in_progress", "an activation of this bot's webhook is running; try again shortly",
                retry_after_s=slot_queries.LEASE_LIFETIME_S,
            )
        self._check_revision(slot, if_match)
        return slot, setup

    @staticmethod
    def _check_revision(slot: Slot, if_match: int | None, *, reveal: bool = False) -> None:
        """428 without If-Match, 412 when it is not the slot's revision. `reveal`: the 428 also
        carries the ETag (a caller that proved control of the bot and has no read to GET it
        from: claiming and releasing)."""
        if if_match is None:
            raise SlotRefusal(
                "revision_required", "send If-Match with the slot's ETag (GET it first)",
                revision=slot.revision if reveal else None,
            )
        if if_match != slot.revision:
            raise SlotRefusal(
                "revision_mismatch", "the slot changed since you read it; read it again", revision=slot.revision
            )

    async def _run(self, work: Callable[[psycopg.Connection], T]) -> T:
        return await self.database.run(work)

    # ----- views ---------------------------------------------------------------------------

    def _view(self, conn: psycopg.Connection, bot_id: str) -> tuple[dict, int]:
        slot = slot_queries.peek(conn, bot_id)
        assert slot is not None, "viewed after its authorisation"
        setup = slot_queries.setup_of(conn, bot_id)
        registration = conn.execute(
            "SELECT registration_id, url, verified_at FROM webhook_registrations WHERE bot_id = %s", (bot_id,)
        ).fetchone()
        owner = owners.owner_of(conn, bot_id)
        team, name = bot_id.split("/", 1)
        body = {
            "bot": {"id": bot_id, "team": team, "name": name, "owner": None if owner is None else principals.user(owner)},
            "revision": slot.revision,
            "registration": None
            if registration is None
            else {"registrationId": registration[0], "url": redacted(registration[1]), "verifiedAt": iso(registration[2])},
            "setup": None if setup is None else self._setup_body(setup),
            "audit": [
                {"at": iso(event["at"]), "kind": event["kind"], "actor": event["actor"], "detail": event["detail"]}
                for event in slot_queries.audit_trail(conn, bot_id, AUDIT_SHOWN)
            ],
        }
        return body, slot.revision

    @staticmethod
    def _setup_body(setup: Setup) -> dict:
        state = "expired" if setup.expired else setup.state
        return {
            "setupId": str(setup.setup_id),
            "candidateUrl": redacted(setup.candidate_url),
            "state": state,
            "authority": setup.authority,
            "stagedBy": setup.created_by,
            "activationAttempts": setup.attempts,
            "attemptsLeft": max(0, ATTEMPTS_MAX - setup.attempts) if state == "pending" else 0,
            "activating": setup.lease_live,
            "leaseExpiresAt": iso(setup.lease_expires_at) if setup.lease_live else None,
            "stagedAt": iso(setup.created_at),
            "expiresAt": iso(setup.expires_at),
            "endedAt": iso(setup.ended_at),
        }

    async def view(self, actor: Actor, bot_id: str) -> tuple[dict, int]:
        def work(conn: psycopg.Connection) -> tuple[dict, int]:
            self._authorise(conn, actor, bot_id)
            return self._view(conn, bot_id)

        return await self._run(work)

    # ----- ownership -----------------------------------------------------------------------

    async def claim(self, account: Account, token: object, if_match: int | None) -> tuple[dict, bool, int]:
        """The bot whose token this is becomes the account's; (its summary, newly claimed, the
        slot's revision after it). Like every mutation it names the revision it was made
        against (`If-Match`): the token holder learns it from the 428 or 412 (ETag)."""
        bot = self.bots.authenticate(token) if isinstance(token, str) and token else None
        if bot is None or not bot.registered:
            raise SlotRefusal("bot_token_rejected", "that is not the token of a registered bot")

        def work(conn: psycopg.Connection) -> tuple[dict, bool, int]:
            slot = slot_queries.fence(conn, bot.id)
            if slot is None:
                raise SlotRefusal("bot_token_rejected", "that is not the token of a registered bot")
            self._check_revision(slot, if_match, reveal=True)
            owner, claimed_at, new = owners.claim(conn, bot.id, account.id)
            if owner != account.id:
                raise SlotRefusal("bot_owned", "another account owns this bot; its owner can release it")
            revision = slot.revision
            if new:
                slot_queries.audit(conn, "bot.claimed", account.principal, bot.id, {})
                revision = slot_queries.bump(conn, bot.id)
            return {"id": bot.id, "team": bot.team, "name": bot.name, "claimedAt": iso(claimed_at)}, new, revision

        return await self._run(work)

    async def release(self, account: Account, bot_id: str, if_match: int | None) -> None:
        """The account stops owning the bot; a setup it staged can no longer be activated.
        Fenced on the slot's revision (`If-Match`), as every mutation is."""

        def work(conn: psycopg.Connection) -> None:
            slot = self._authorise(conn, Actor(account, "owner"), bot_id)
            self._check_revision(slot, if_match, reveal=True)
            slot_queries.release(conn, bot_id, account.id, account.principal, {})

        await self._run(work)

    async def new_token(self, account: Account, bot_id: str, if_match: int | None) -> tuple[str, int]:
        """A new token for the account's bot, shown once (a token lost or leaked: the Bot API's
        own rotation needs the old one); the old one stops working at once. (The token, the
        slot's revision after it.) An answer that never came is read back: the new token's
        digest stored means it happened."""
        token, token_hash = new_token()

        def work(conn: psycopg.Connection) -> int:
            slot = self._authorise(conn, Actor(account, "owner"), bot_id)
            self._check_revision(slot, if_match)
            conn.execute("UPDATE bots SET token_hash = %s WHERE id = %s", (token_hash, bot_id))
            slot_queries.audit(conn, "bot.token.replaced", account.principal, bot_id, {})
            return slot_queries.bump(conn, bot_id)

        def stored(conn: psycopg.Connection) -> int | None:
            row = conn.execute("SELECT token_hash, webhook_revision FROM bots WHERE id = %s", (bot_id,)).fetchone()
            return row[1] if row is not None and bytes(row[0]) == token_hash else None

        try:
            revision = await self._run(work)
        except DatabaseUnavailable:
            found = await self._run(stored)  # unavailable again: unknown, the 503 says read back
            if found is None:
                raise
            revision = found
        self.bots.token_replaced(bot_id, token_hash)
        log.info("bot token replaced by its owner: bot=%s", bot_id)
        return token, revision

    async def bots_of(self, actor: Actor) -> list[dict]:
        def work(conn: psycopg.Connection) -> list[dict]:
            if actor.authority == "admin":
                if not self.admins.admits(conn, actor.account.id):
                    raise self._admin_refused(actor)
                rows = owners.owned_bots(conn, None)
            else:
                rows = owners.owned_bots(conn, actor.account.id)
            return [
                {
                    "id": bot_id,
                    "team": bot_id.split("/", 1)[0],
                    "name": bot_id.split("/", 1)[1],
                    "owner": None if owner is None else principals.user(owner),
                    "ownerNickname": nickname,
                    "claimedAt": iso(claimed_at),
                    "webhookRegistered": registered,
                }
                for bot_id, owner, nickname, claimed_at, registered in rows
            ]

        return await self._run(work)

    # ----- slot mutations --------------------------------------------------------------------

    async def stage(self, actor: Actor, bot_id: str, if_match: int | None, url: object) -> tuple[dict, int]:
        """Stage `url` as the slot's candidate (replacing any setup that is not activating)."""

        def work(conn: psycopg.Connection) -> tuple[dict, int]:
            slot, _ = self._begin_change(conn, actor, bot_id, if_match)
            try:
                check_url(url, self.webhooks.policy)  # its form only: no lookup before activation
            except UrlRefused as refused:
                raise SlotRefusal("url_policy", refused.reason) from None
            generation = self.admins.digest if actor.authority == "admin" else None
            slot_queries.stage(conn, slot, str(url), actor.principal, actor.authority, generation)
            slot_queries.bump(conn, bot_id)
            slot_queries.audit(conn, "webhook.setup.staged", actor.principal, bot_id,
                        {"authority": actor.authority, "host": host_of(str(url))})
            return self._view(conn, bot_id)

        return await self._run(work)

    async def discard(self, actor: Actor, bot_id: str, if_match: int | None) -> tuple[dict, int]:
        def work(conn: psycopg.Connection) -> tuple[dict, int]:
            _, setup = self._begin_change(conn, actor, bot_id, if_match)
            if setup is None:
                raise SlotRefusal("no_setup", "this bot has no staged setup")
            slot_queries.discard(conn, bot_id)
            slot_queries.bump(conn, bot_id)
            slot_queries.audit(conn, "webhook.setup.discarded", actor.principal, bot_id, {"authority": actor.authority})
            return self._view(conn, bot_id)

        return await self._run(work)

    async def remove(self, actor: Actor, bot_id: str, if_match: int | None) -> tuple[dict, int]:
        """Delete the bot's current registration: no more webhook deliveries."""

        def work(conn: psycopg.Connection) -> tuple[dict, int]:
            self._begin_change(conn, actor, bot_id, if_match)
            if conn.execute("DELETE FROM webhook_registrations WHERE bot_id = %s", (bot_id,)).rowcount == 0:
                raise SlotRefusal("no_registration", "this bot has no webhook registration")
            slot_queries.bump(conn, bot_id)
            slot_queries.audit(conn, "webhook.registration.removed", actor.principal, bot_id, {"authority": actor.authority})
            return self._view(conn, bot_id)

        async with self.webhooks.fence(bot_id):  # deliveries' stale checks wait for the change
            result = await self._run(work)
            self.webhooks.installed(bot_id, None)
        return result

    # ----- activation ----------------------------------------------------------------------

    async def activate(self, actor: Actor, bot_id: str, if_match: int | None) -> Activated:
        lease = await self._run(lambda conn: self._lease(conn, actor, bot_id, if_match))
        setup, lease_id, revision = lease
        failure: tuple[str, str] | None = None
        secret = secrets.token_hex(SECRET_BYTES)
        try:
            target = await resolve_and_pin(setup.candidate_url, self.webhooks.policy, self.webhooks.resolver)
            await self.webhooks.verify_echo(target)
        except UrlRefused as refused:
            failure = ("url_policy", refused.reason)
        except RegistrationRefused as refused:
            failure = (refused.code, refused.reason)
        async with self.webhooks.fence(bot_id):
            outcome = await self._run(lambda conn: self._complete(conn, actor, bot_id, setup, lease_id, revision, secret, failure))
            if isinstance(outcome, _Completed) and outcome.registration is not None:
                self.webhooks.installed(bot_id, outcome.registration)
        if isinstance(outcome, str):
            raise SlotRefusal("setup_changed", f"the activation was not completed: {outcome}; read the slot again")
        view, current, registration = outcome.view, outcome.revision, outcome.registration
        if registration is None:
            assert failure is not None, "only a failed echo writes no registration"
            code, reason = failure
            left = view["setup"]["attemptsLeft"] if view["setup"] else 0
            raise SlotRefusal(code, f"{reason} ({left} activation attempts left)", revision=current)
        log.info("webhook activated: bot=%s by=%s host=%s generation=%d", bot_id, actor.authority,
                 host_of(setup.candidate_url), registration.registration_id)
        return Activated(view, current, secret)

    def _lease(
        self, conn: psycopg.Connection, actor: Actor, bot_id: str, if_match: int | None
    ) -> tuple[Setup, uuid.UUID, int]:
        slot, setup = self._begin_change(conn, actor, bot_id, if_match)
        if setup is None or setup.state in ("activated", "scrubbed"):
            raise SlotRefusal("no_setup", "stage a candidate URL first")
        if setup.state == "exhausted" or setup.attempts >= ATTEMPTS_MAX:
            raise SlotRefusal("attempts_exhausted", f"this setup used its {ATTEMPTS_MAX} activation attempts; stage it again")
        if setup.expired:
            raise SlotRefusal("setup_expired", f"a setup must be activated within {slot_queries.SETUP_LIFETIME}; stage it again")
        if setup.incarnation != slot.incarnation:
            raise SlotRefusal("setup_changed", "this setup belongs to an earlier bot of the same name; stage it again")
        if actor.authority == "admin" and setup.authority == "admin" and setup.admin_generation != self.admins.digest:
            raise SlotRefusal("setup_changed", "this setup was staged under an earlier admin list; stage it again")
        revision = slot_queries.bump(conn, bot_id)
        lease_id, attempts = slot_queries.take_lease(conn, bot_id, revision)
        slot_queries.audit(conn, "webhook.activation.start", actor.principal, bot_id, {
            "authority": actor.authority, "setupId": str(setup.setup_id), "attempt": attempts,
            "host": host_of(setup.candidate_url), "leaseId": str(lease_id),
        })
        return setup, lease_id, revision

    def _complete(
        self, conn: psycopg.Connection, actor: Actor, bot_id: str, setup: Setup, lease_id: uuid.UUID, revision: int,
        secret: str, failure: tuple[str, str] | None,
    ) -> _Completed | str:
        """The activation's second transaction: `_Completed`, or why it was abandoned."""
        slot = slot_queries.fence(conn, bot_id)
        now = slot_queries.setup_of(conn, bot_id) if slot is not None else None
        ours = now is not None and now.lease_id == lease_id
        why = None
        if slot is None or slot.incarnation != setup.incarnation:
            why = "the bot was replaced"
        elif now is None or not ours:
            why = "the lease was lost"
        elif not now.lease_live:
            why = "the lease expired"
        elif slot.revision != revision or now.lease_revision != revision:
            why = "the slot changed"
        elif now.setup_id != setup.setup_id or now.candidate_url != setup.candidate_url:
            why = "the setup changed"
        elif not self._authority_holds(conn, actor, bot_id, now):
            why = "the authority is gone"
        if why is not None:
            if ours:
                slot_queries.end_lease(conn, bot_id, "pending")
                slot_queries.bump(conn, bot_id)
            slot_queries.audit(conn, "webhook.activation.abandoned", actor.principal, bot_id,
                        {"setupId": str(setup.setup_id), "leaseId": str(lease_id), "why": why})
            return why  # committed, then refused
        assert now is not None
        registration = None
        detail: dict[str, object]
        if failure is None:
            store = self.webhooks.store
            assert isinstance(store, PostgresWebhookStore), "webhook management runs only with PostgreSQL"
            registration = store.replace_in(conn, bot_id, setup.candidate_url, secret, self.webhooks.wall_clock())
            slot_queries.end_lease(conn, bot_id, "activated")
            kind, detail = "webhook.activation.complete", {"registrationId": registration.registration_id}
        else:
            spent = now.attempts >= ATTEMPTS_MAX
            slot_queries.end_lease(conn, bot_id, "exhausted" if spent else "pending")
            kind, detail = "webhook.activation.failed", {"reason": failure[0]}
        slot_queries.bump(conn, bot_id)
        slot_queries.audit(conn, kind, actor.principal, bot_id,
                    {"setupId": str(setup.setup_id), "leaseId": str(lease_id), **detail})
        view, current = self._view(conn, bot_id)
        return _Completed(registration, view, current)

    # ----- the sole admin generation's duty --------------------------------------------------

    async def scrub_foreign_admin_setups(self) -> int:
        """Pending setups admins staged under another allow-list can never be activated: end
        them, each under its fence and only while ours is still the sole live generation."""
        bot_ids = await self._run(lambda conn: slot_queries.admin_setups_of_other_generations(conn, self.admins.digest))
        scrubbed = 0
        for bot_id in bot_ids:
            def work(conn: psycopg.Connection, bot_id: str = bot_id) -> bool:
                if slot_queries.fence(conn, bot_id) is None or not self.admins.sole(conn):
                    return False
                setup = slot_queries.setup_of(conn, bot_id)
                if setup is None or setup.state != "pending" or setup.authority != "admin":
                    return False
                if setup.admin_generation == self.admins.digest:
                    return False
                slot_queries.scrub(conn, bot_id)
                slot_queries.bump(conn, bot_id)
                slot_queries.audit(conn, "webhook.setup.scrubbed", "system:admin-generation", bot_id,
                            {"setupId": str(setup.setup_id), "generation": self.admins.digest[:12]})
                return True

            scrubbed += await self._run(work)
        if scrubbed:
            log.info("admin authority: scrubbed %d setups staged under an earlier allow-list", scrubbed)
        await self._run(slot_queries.prune)
        return scrubbed
