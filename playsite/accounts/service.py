"""The accounts service of one boot, and the one helper that says who is calling.

`Accounts.caller(guest_id)` is what every route family asks (the game socket, the showcase,
rematch, `/me`): the signed-in account when a valid session cookie came with the request,
else the guest id the route was given, else nobody. The session token is checked, then the
account is re-read from the database on every request: a session of a deactivated or deleted
account, or one issued before "sign out everywhere", is no session.

Without persistence, PLAY_SESSION_SECRET or the OIDC settings, accounts are off: the
`/auth/...` routes are not mounted and `caller` only ever returns guests.
"""

from __future__ import annotations

import logging
import uuid

import attrs

from playsite.accounts import queries
from playsite.accounts.model import Account
from playsite.accounts.oidc import OidcClient
from playsite.accounts.sessions import SESSION_COOKIE, Sessions
from playsite.config import Settings
from playsite.http.auth import cookie, handshake_origin, is_handshake, request_header, request_method
from playsite.http.errors import read_or_unavailable
from playsite.http.origin import CSRF_HEADER, OriginPolicy

log = logging.getLogger("playsite.accounts")

CALLBACK_PATH = "/auth/callback"


@attrs.frozen
class Caller:
    """Who is calling: `principal` is 'user:<uuid>' (then `account` is set) or 'guest:<uuid>'."""

    principal: str
    account: Account | None = None

    @property
    def name(self) -> str | None:
        """The public name to show for this caller: an account's nickname; guests have none."""
        return self.account.nickname if self.account is not None else None


class Accounts:
    def __init__(self, settings: Settings, database, origins: OriginPolicy):
        self.enabled = settings.accounts_enabled and database is not None
        self.database = database
        self.origins = origins
        self.sessions: Sessions | None = None
        self.oidc: OidcClient | None = None
        if self.enabled:
            self.sessions = Sessions(settings.session_secret, settings.session_lifetime_hours * 3600)
            self.oidc = OidcClient(
                settings.oidc_issuer,
                settings.oidc_client_id,
                settings.oidc_client_secret,
                settings.public_origin + CALLBACK_PATH,
            )

    async def run(self, work):
        """`work(conn)` in one transaction, answered 503 when the database does not answer in time."""
        return await read_or_unavailable(lambda: self.database.run(work), "accounts are unavailable; try again")

    async def signed_in(self) -> Account | None:
        """The active account whose current session cookie came with this request or handshake."""
        if not self.enabled:
            return None
        token = cookie(SESSION_COOKIE)
        claims = self.sessions.verify(token) if token else None
        if claims is None:
            return None
        account = await self.run(lambda conn: queries.find(conn, claims.account_id))
        if account is None or not account.active or account.session_generation != claims.generation:
            return None
        return account

    async def caller(self, guest_id: str | None = None) -> Caller | None:
        """The calling principal: `user:<uuid>` when signed in (an account always wins over a
        guest id), else `guest:<uuid>` from `guest_id` when it is a UUID, else None.

        The session counts only where the browser boundary lets it (`http.origin`): on a
        WebSocket handshake, from a page of an allowed origin (browsers apply no CORS to
        WebSockets); on a write, with an allowed Origin and `X-Game-CSRF: 1`. From anywhere
        else the cookie is ignored, and the caller is whoever the guest id says."""
        if self._session_may_count():
            account = await self.signed_in()
            if account is not None:
                return Caller(account.principal, account)
        if guest_id is None:
            return None
        try:
            return Caller(f"guest:{uuid.UUID(guest_id)}")
        except ValueError:
            return None

    def _session_may_count(self) -> bool:
        if is_handshake():
            return self.origins.admits_socket(handshake_origin())
        if request_method() in ("GET", "HEAD", "OPTIONS"):
            return True
        return self.origins.admits_write(request_header("Origin"), request_header(CSRF_HEADER))

    async def nicknames(self, principals) -> dict[str, str]:
        """principal -> nickname for the `user:` principals among `principals` that have one."""
        ids = {}
        for principal in principals:
            if principal and principal.startswith("user:"):
                try:
                    ids[uuid.UUID(principal.removeprefix("user:"))] = principal
                except ValueError:
                    continue
        if not ids or not self.enabled:
            return {}
        found = await self.run(lambda conn: queries.nicknames(conn, list(ids)))
        return {ids[account_id]: nickname for account_id, nickname in found.items()}
