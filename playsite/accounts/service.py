"""The accounts service of one boot, and the one helper that says who is calling.

`Accounts.caller(credentials, guest_id)` is what every route family asks (the game socket,
the lobby, the showcase, rematch, `/me`): the signed-in account when a valid session cookie
came with the request and the browser boundary lets it count, else the guest id the route was
given, else nobody. The route hands over what the request presented (`playsite.credentials`,
built by the edge's `http.auth.credentials()`): this module reads no request, so it answers the
same outside one. The session token is checked, then the account is re-read from the database
on every request: a session of a deactivated or deleted account, or one issued before "sign out
everywhere", is no session.

Without persistence, PLAY_SESSION_SECRET or the OIDC settings, accounts are off: the
`/auth/...` routes are not mounted and `caller` only ever returns guests.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

import attrs
import psycopg
import trio

from playsite import principals
from playsite.accounts import queries
from playsite.accounts.model import Account
from playsite.accounts.oidc import OidcClient
from playsite.accounts.sessions import SessionClaims, Sessions
from playsite.config import Settings
from playsite.credentials import Credentials, SessionBoundary
from playsite.principals import canonical_uuid
from playsite.refusals import READ_TIMEOUT_S, Refused
from playsite.store.database import Database

log = logging.getLogger("playsite.accounts")

CALLBACK_PATH = "/auth/callback"
T = TypeVar("T")


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
    def __init__(self, settings: Settings, database: Database | None, boundary: SessionBoundary):
        self.enabled = settings.accounts_enabled and database is not None
        self.database = database
        self.boundary = boundary
        """Whether a request's session may count (`http.origin.OriginPolicy`)."""
        self.sessions: Sessions | None = None
        self.oidc: OidcClient | None = None
        secret, issuer, client = settings.session_secret, settings.oidc_issuer, settings.oidc_client_id
        client_secret, origin = settings.oidc_client_secret, settings.public_origin
        if self.enabled:
            # accounts_enabled: every sign-in setting is given
            assert secret is not None and issuer is not None and client is not None
            assert client_secret is not None and origin is not None
            self.sessions = Sessions(secret, settings.session_lifetime_hours * 3600)
            self.oidc = OidcClient(issuer, client, client_secret, origin + CALLBACK_PATH)

    async def run(self, work: Callable[[psycopg.Connection], T]) -> T:
        """`work(conn)` in one transaction; refused `temporarily_unavailable` when the database
        does not answer within READ_TIMEOUT_S."""
        database = self.database
        if database is None:
            raise Refused("temporarily_unavailable", "accounts need persistence")
        with trio.move_on_after(READ_TIMEOUT_S):
            return await database.run(work)
        raise Refused("temporarily_unavailable", "accounts are unavailable; try again")

    async def signed_in(self, credentials: Credentials) -> Account | None:
        """The active account whose current session cookie came with `credentials` (wherever
        the request came from: the caller applies the browser boundary, see `caller`)."""
        found = await self.session(credentials)
        return None if found is None else found[0]

    async def session(self, credentials: Credentials) -> tuple[Account, SessionClaims] | None:
        """`signed_in`'s account with the session's own claims (which session it is)."""
        if self.sessions is None:
            return None
        token = credentials.session
        claims = self.sessions.verify(token) if token else None
        if claims is None:
            return None
        account = await self.run(lambda conn: queries.find_session(conn, claims.account_id, claims.session_id))
        if account is None or not account.active or account.session_generation != claims.generation:
            return None
        return account, claims

    async def caller(self, credentials: Credentials, guest_id: str | None = None) -> Caller | None:
        """The calling principal: `user:<uuid>` when signed in (an account always wins over a
        guest id), else `guest:<uuid>` from `guest_id` when it is a canonical UUID, else None.

        The session counts only where the browser boundary lets it (`http.origin`): on a
        WebSocket handshake, from a page of an allowed origin (browsers apply no CORS to
        WebSockets); on a write, with an allowed Origin and `X-Game-CSRF: 1`. From anywhere
        else the cookie is ignored, and the caller is whoever the guest id says."""
        if self.boundary.admits_session(credentials):
            account = await self.signed_in(credentials)
            if account is not None:
                return Caller(account.principal, account)
        guest = canonical_uuid(guest_id)
        return None if guest is None else Caller(principals.guest(guest))
