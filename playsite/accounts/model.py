"""An account as the service sees it, and the rules of a nickname."""

from __future__ import annotations

import re
import uuid

import attrs

from playsite import principals

NICKNAME_MAX = 20
NICKNAME = re.compile(rf"[A-Za-z0-9_-]{{3,{NICKNAME_MAX}}}")
"""3-20 letters, digits, '_' or '-'; unique whatever its case (the database enforces it)."""
ACTIVE, DEACTIVATED, DELETED = "active", "deactivated", "deleted"
DELETE_CONFIRMATION = "delete my account"
"""What `DELETE /auth/me` must be sent, typed out, before it deletes anything."""


@attrs.frozen
class Account:
    id: uuid.UUID
    nickname: str | None
    status: str
    session_generation: int

    @property
    def principal(self) -> str:
        return principals.user(self.id)

    @property
    def active(self) -> bool:
        return self.status == ACTIVE


def claimed_nickname(claims: dict) -> str | None:
    """The nickname the provider's claims ask for (preferred_username, nickname, the email's
    local part), reduced to the allowed characters and kept whole when it fits (up to
    NICKNAME_MAX characters); None when nothing fits."""
    for claim in ("preferred_username", "nickname", "name", "email"):
        value = claims.get(claim)
        if not isinstance(value, str):
            continue
        base = re.sub(r"[^A-Za-z0-9_-]", "", value.split("@")[0].replace(" ", "_"))[:NICKNAME_MAX]
        if len(base) >= 3:
            return base
    return None


def suggested_nickname(claims: dict, taken_suffix: int = 0) -> str:
    """A first nickname: the claimed one; with `taken_suffix`, that name cut just enough to end
    in `-<n>`; `player-xxxxxx` when the claims give none."""
    base = claimed_nickname(claims)
    if base is None:
        return f"player-{uuid.uuid4().hex[:6]}"
    if taken_suffix == 0:
        return base
    suffix = f"-{taken_suffix}"
    return base[: NICKNAME_MAX - len(suffix)] + suffix
