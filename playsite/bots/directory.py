"""Bot identities: anonymous (minted, in memory, about 24 h) and registered (durable).

A bot is known here by `team/name`; its principal (kept in the database) is `bot:team/name`.
On the wire it is written as the ecosystem writes it: the Bot API's `id` is
`bot:team:<team>:<name>` and its public face is `{"kind": "Bot", "name": "<team> <name>"}`.
Bearer tokens are shown once and kept as SHA-256.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
import re
import secrets
from datetime import datetime, timedelta, timezone
from typing import Protocol

import attrs

from playsite.principals import Kind, Principal, id_of
from playsite.rooms.admission import Limits
from playsite.store.database import DatabaseUnavailable
from playsite.tokens import digest, new_token
from playsite.wire import PublicFace

ANON_TEAM = "anon"
RESERVED_TEAMS = frozenset({ANON_TEAM, "house"})
ANON_TTL = timedelta(hours=24)
SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
CAPACITY_MIN, CAPACITY_MAX = 1, 32
DESCRIPTION_MAX = 200


class IdentityError(ValueError):
    """A bad or unavailable identity; `code` is the API error code."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class TokenReplaced(Exception):
    """The token a rotation was asked with was replaced before the rotation was stored."""


@attrs.define
class BotAccount:
    team: str
    name: str
    token_hash: bytes = attrs.field(repr=False)
    registered: bool
    max_concurrent_games: int = 1
    on_ladder: bool = False
    open_to_humans: bool = False
    description: str = ""
    created_at: datetime = attrs.field(factory=lambda: datetime.now(timezone.utc))

    @property
    def id(self) -> str:
        return f"{self.team}/{self.name}"

    @property
    def principal(self) -> str:
        return str(Principal.bot(self.id))

    @property
    def public_name(self) -> str:
        """The team-qualified name the public sees, as the ecosystem writes it: `<team> <name>`."""
        return public_bot_name(self.team, self.name)

    @property
    def face(self) -> PublicFace:
        return PublicFace(kind="Bot", name=self.public_name)

    @property
    def external_id(self) -> str:
        """The id the Bot API shows, in the ecosystem's form `bot:team:<team>:<name>`."""
        return f"bot:team:{self.team}:{self.name}"

    @property
    def ladder_allowance(self) -> int:
        """How much of the declaration the ladder may take: one slot stays free for people."""
        if self.open_to_humans:
            return max(1, self.max_concurrent_games - 1)
        return self.max_concurrent_games


def public_bot_name(team: str, name: str) -> str:
    """A bot's public, team-qualified name (`PublicFace.name`): team and name, one space apart."""
    return f"{team} {name}"


def slugify(value: str) -> str:
    """Lower-case ASCII letters and digits, everything else one '-', none at either end."""
    return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")


def check_slug(kind: str, value: object) -> str:
    rule = "1-32 of a-z, 0-9 and '-', starting with a letter or digit"
    if value is None:
        raise IdentityError("invalid_request", f"{kind} is required: {rule}")
    if not isinstance(value, str) or not SLUG.fullmatch(value):
        raise IdentityError("invalid_request", f"{kind} must be {rule}")
    return value


class BotStore(Protocol):
    """Where the directory keeps registered bots (`bots.store`: in memory or in PostgreSQL)."""

    async def load(self) -> list[BotAccount]:
        """Every registered bot."""

    async def save(self, account: BotAccount, *, created: bool = False) -> None:
        """Insert a new registration (`created`) or write a registered bot's settings (not its token)."""

    async def replace_token(self, bot_id: str, old: bytes, new: bytes) -> bool:
        """Store the bot's new token digest in place of `old`; False (nothing written) when the
        stored digest is no longer `old` (replaced meanwhile)."""

    async def stored(self, bot_id: str) -> BotAccount | None:
        """The bot as stored now (None: no such bot): the read back after a write whose answer
        never came."""


class BotDirectory:
    """Every bot identity this process knows. Registered bots are written through to the store."""

    def __init__(self, store: BotStore | None = None, *, featured: str | None = None):
        self.store = store
        """None: nothing is stored (unit tests)."""
        self.featured = featured
        """The showcase's featured bot (`team/name`), when the showcase is enabled."""
        self._by_id: dict[str, BotAccount] = {}
        self._by_token: dict[bytes, BotAccount] = {}
        self._anon_expiry: dict[str, datetime] = {}

    async def load(self) -> int:
        """At boot: every registered bot from the store."""
        if self.store is None:
            return 0
        for account in await self.store.load():
            self._index(account)
        return len(self._by_id)

    def _index(self, account: BotAccount) -> None:
        self._by_id[account.id] = account
        self._by_token[account.token_hash] = account

    def authenticate(self, token: str) -> BotAccount | None:
        account = self._by_token.get(digest(token))
        if account is None:
            return None
        expiry = self._anon_expiry.get(account.id)
        if expiry is not None and expiry <= datetime.now(timezone.utc):
            self._forget(account)
            return None
        return account

    def _forget(self, account: BotAccount) -> None:
        self._by_id.pop(account.id, None)
        self._by_token.pop(account.token_hash, None)
        self._anon_expiry.pop(account.id, None)

    def get(self, bot_id: str) -> BotAccount | None:
        return self._by_id.get(bot_id)

    def by_principal(self, principal: str) -> BotAccount | None:
        bot_id = id_of(principal, Kind.BOT)
        return None if bot_id is None else self._by_id.get(bot_id)

    def mint_anonymous(self, name: str | None) -> tuple[BotAccount, str]:
        """A name is made a slug as the ecosystem does (`MyBot` -> `mybot`); one with nothing
        usable in it is refused."""
        base = slugify(name)[:23].rstrip("-") if name else "bot"
        if name and not base:
            raise IdentityError("invalid_request", "name has no letter or digit to make a slug of")
        while True:
            bot_name = f"{base}-{secrets.token_hex(4)}"
            if f"{ANON_TEAM}/{bot_name}" not in self._by_id:
                break
        token, token_hash = new_token()
        account = BotAccount(ANON_TEAM, bot_name, token_hash, registered=False)
        self._sweep_expired()
        self._index(account)
        self._anon_expiry[account.id] = datetime.now(timezone.utc) + ANON_TTL
        return account, token

    def _sweep_expired(self) -> None:
        now = datetime.now(timezone.utc)
        for bot_id in [b for b, at in self._anon_expiry.items() if at <= now]:
            self._forget(self._by_id[bot_id])

    async def register(self, team: object, name: object) -> tuple[BotAccount, str]:
        team, name = check_slug("team", team), check_slug("name", name)
        if team in RESERVED_TEAMS:
            raise IdentityError("team_reserved", f"the team '{team}' is reserved for this server's own bots")
        if f"{team}/{name}" in self._by_id:
            raise IdentityError("identity_taken", f"{team}/{name} is already registered")
        token, token_hash = new_token()
        account = BotAccount(team, name, token_hash, registered=True)
        self._index(account)  # claimed before the write, so a concurrent register sees it
        try:
            await self._save(account, created=True)
        except DatabaseUnavailable:
            if not await self._stored_anyway(account.id, lambda stored: stored.token_hash == token_hash):
                self._forget(account)
                raise
        except BaseException:
            self._forget(account)
            raise
        return account, token

    async def ensure_house(self, name: str, *, capacity: int, description: str) -> BotAccount:
        """A house bot (team 'house', reserved): created and stored on first boot, then found.
        Its token is never shown: house bots play in-process, not through the Bot API."""
        existing = self._by_id.get(f"house/{check_slug('name', name)}")
        if existing is not None:
            return existing
        account = BotAccount(
            "house", name, new_token()[1], registered=True, max_concurrent_games=capacity,
            open_to_humans=True, description=description,
        )
        self._index(account)
        try:
            await self._save(account, created=True)
        except BaseException:
            self._forget(account)
            raise
        return account

    async def rotate_token(self, account: BotAccount) -> str:
        """A new token for the bot in place of the one it called with, stored first (a write
        whose answer never came is read back), then the only one that opens it here.

        Raises `TokenReplaced` when that token was replaced meanwhile (another rotation, its
        owner's new token): the store swaps only the digest it still holds, and this process's
        copy only the token it still knows, so two replacements at once never leave the
        memory and the store holding different tokens."""
        old = account.token_hash
        token, token_hash = new_token()
        if self.store is not None and account.registered:
            try:
                replaced = await self.store.replace_token(account.id, old, token_hash)
            except DatabaseUnavailable:
                if not await self._stored_anyway(account.id, lambda stored: stored.token_hash == token_hash):
                    raise
                replaced = True
            if not replaced:
                raise TokenReplaced(f"{account.id}'s token was replaced while this rotation was under way")
        if account.token_hash == old:  # else a later replacement is already the one here
            self._retoken(account, token_hash)
        return token

    def token_replaced(self, bot_id: str, token_hash: bytes) -> None:
        """The bot's new token was stored elsewhere (its owner's reset, `WebhookManagement`):
        from now on only that one opens it here."""
        account = self._by_id.get(bot_id)
        if account is not None and account.registered:
            self._retoken(account, token_hash)

    def _retoken(self, account: BotAccount, token_hash: bytes) -> None:
        self._by_token.pop(account.token_hash, None)
        account.token_hash = token_hash
        self._by_token[token_hash] = account

    async def update(self, account: BotAccount, **changes: object) -> BotAccount:
        """Change settings of a registered bot, durably first, then in memory (a write whose
        answer never came is read back: stored, it is done)."""
        proposed = copy.copy(account)
        for field, value in changes.items():
            setattr(proposed, field, value)
        try:
            await self._save(proposed)
        except DatabaseUnavailable:
            if not await self._stored_anyway(
                account.id, lambda stored: all(getattr(stored, field) == value for field, value in changes.items())
            ):
                raise
        for field, value in changes.items():
            setattr(account, field, value)
        return account

    async def _stored_anyway(self, bot_id: str, written: Callable[[BotAccount], bool]) -> bool:
        """A write whose answer never came may have happened: read the bot back and ask
        `written` whether it holds what was written (a read that fails too leaves it unknown:
        False, and the caller's 503 says to look before trying again)."""
        if self.store is None:
            return False
        try:
            stored = await self.store.stored(bot_id)
        except DatabaseUnavailable:
            return False
        return stored is not None and written(stored)

    async def _save(self, account: BotAccount, created: bool = False) -> None:
        if self.store is not None and account.registered:
            await self.store.save(account, created=created)

    def limits_of(self, principal: str) -> Limits | None:
        """Admission bounds: a registered bot's declaration; the featured bot's declaration split
        between general and showcase (3: general 2, showcase 1, never borrowed); anonymous bots
        and humans unbounded."""
        account = self.by_principal(principal)
        if account is None or not account.registered:
            return None
        if account.id == self.featured:
            return Limits.featured_bot(account.max_concurrent_games)
        return Limits.bot(account.max_concurrent_games)

    def registered(self) -> list[BotAccount]:
        return [a for a in self._by_id.values() if a.registered]
