"""Who sits at a board or calls the API: a principal, written `<kind>:<id>`.

Three kinds exist:
- `user:<uuid>`: a signed-in account (rated);
- `guest:<uuid>`: a browser without an account, named by the guest id it keeps (never rated);
- `bot:<team>/<name>`: a bot (rated).

Rooms, stores and the wire keep the written form (a `str`); this module is the one place that
builds and reads it, and the one place that decides what a UUID in a request may look like.
It imports nothing from playsite.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def canonical_uuid(text: object) -> str | None:
    """`text` as the service writes UUIDs (lowercase 8-4-4-4-12), or None when it is not one.

    Upper-case hex is accepted and lowered. Braces, `urn:uuid:`, missing or misplaced hyphens
    and surrounding space are refused: Python's UUID parser takes them but PostgreSQL and the
    ecosystem do not, so an id is checked by this and never by `uuid.UUID`."""
    if not isinstance(text, str):
        return None
    lowered = text.lower()
    return lowered if _CANONICAL_UUID.fullmatch(lowered) else None


class Kind(enum.Enum):
    USER = "user"
    GUEST = "guest"
    BOT = "bot"


@dataclass(frozen=True, slots=True)
class Principal:
    kind: Kind
    id: str

    @classmethod
    def user(cls, account_id: object) -> Principal:
        return cls(Kind.USER, str(account_id))

    @classmethod
    def guest(cls, guest_id: str) -> Principal:
        return cls(Kind.GUEST, guest_id)

    @classmethod
    def bot(cls, bot_id: str) -> Principal:
        return cls(Kind.BOT, bot_id)

    @classmethod
    def parse(cls, text: str | None) -> Principal | None:
        """The principal `text` writes, or None for None, an unknown kind or an empty id."""
        if not text:
            return None
        kind, sep, ident = text.partition(":")
        if not sep or not ident:
            return None
        try:
            return cls(Kind(kind), ident)
        except ValueError:
            return None

    def __str__(self) -> str:
        return f"{self.kind.value}:{self.id}"

    @property
    def is_rated(self) -> bool:
        """Accounts and bots have ratings; guests never do."""
        return self.kind is not Kind.GUEST

    @property
    def is_human(self) -> bool:
        return self.kind is not Kind.BOT


def kind_of(text: str | None) -> Kind | None:
    """The kind of the principal `text` writes, or None."""
    principal = Principal.parse(text)
    return None if principal is None else principal.kind


def id_of(text: str | None, kind: Kind) -> str | None:
    """The id of `text` when it is a principal of `kind`, else None."""
    principal = Principal.parse(text)
    return principal.id if principal is not None and principal.kind is kind else None


def user(account_id: object) -> str:
    """The written principal of an account."""
    return str(Principal.user(account_id))


def guest(guest_id: str) -> str:
    """The written principal of a guest id (the caller checks it with `canonical_uuid`)."""
    return str(Principal.guest(guest_id))


def bot(bot_id: str) -> str:
    """The written principal of a bot (`<team>/<name>`)."""
    return str(Principal.bot(bot_id))
