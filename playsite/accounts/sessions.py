"""The session: a short HMAC-signed JWT in the `access_token` cookie, and the sign-in state.

The session token proves only *who* signed in (the account id), under which session
generation, and which session it is (a random id, `sid`); it grants nothing by itself. Every
authenticated request re-reads the account (`Accounts.signed_in`), so "sign out everywhere"
(the generation moves on), a sign-out of this session alone (its id is ended), deactivation
and deletion take effect at the next request, not when the token expires.

Keys: PLAY_SESSION_SECRET is never used directly. HKDF-SHA256 derives one key per purpose
(the session cookie, the sign-in state cookie), so a token made for one purpose never
verifies as the other. Only HS256 is accepted: a token naming any other algorithm (`none`,
RS256 with the secret taken as a public key, ...) is refused before its signature is read.
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
import uuid
from collections.abc import Callable

import attrs
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import OctKey

from playsite.accounts.model import Account
from playsite.credentials import SESSION_COOKIE
from playsite.principals import canonical_uuid

LOGIN_COOKIE = "signin_state"
LOGIN_STATE_LIFETIME_S = 600
"""How long a person has at the provider between `/auth/login` and `/auth/callback`."""
ISSUER = "playsite"
ALGORITHM = "HS256"


def derive_key(secret: str, purpose: str) -> OctKey:
    raw = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=f"playsite {purpose}".encode()).derive(
        secret.encode()
    )
    return OctKey.import_key(raw)


SESSION_ID = re.compile(r"[A-Za-z0-9_-]{22}")
"""A session's id: 16 random bytes, base64url without padding."""


@attrs.frozen
class SessionClaims:
    account_id: uuid.UUID
    generation: int
    session_id: str | None
    """None for a session issued before sessions had ids: it ends only with all of them."""
    expires_at: int


@attrs.frozen
class LoginState:
    """What `/auth/login` remembers for `/auth/callback`, in a signed HttpOnly cookie."""

    state: str
    nonce: str
    verifier: str
    next_path: str


class Sessions:
    def __init__(self, secret: str, lifetime_s: int, *, now: Callable[[], float] = time.time):
        self._session_key = derive_key(secret, "session")
        self._login_key = derive_key(secret, "sign-in state")
        self.lifetime_s = lifetime_s
        self._now = now

    # ----- the session cookie -----------------------------------------------------------------

    def issue(self, account: Account) -> str:
        now = int(self._now())
        claims = {
            "iss": ISSUER,
            "aud": SESSION_COOKIE,
            "sub": str(account.id),
            "gen": account.session_generation,
            "sid": secrets.token_urlsafe(16),
            "iat": now,
            "exp": now + self.lifetime_s,
        }
        return jwt.encode({"alg": ALGORITHM, "typ": "JWT"}, claims, self._session_key)

    def verify(self, token: str) -> SessionClaims | None:
        """The claims of a valid, unexpired session token of this service; None for anything else."""
        claims = self._decode(token, self._session_key, aud=SESSION_COOKIE)
        if claims is None:
            return None
        generation = claims.get("gen")
        subject = canonical_uuid(claims.get("sub"))
        if subject is None:
            return None
        if not isinstance(generation, int) or isinstance(generation, bool) or generation < 0:
            return None
        session_id = claims.get("sid")
        if session_id is not None and not (isinstance(session_id, str) and SESSION_ID.fullmatch(session_id)):
            return None
        return SessionClaims(account_id=uuid.UUID(subject), generation=generation, session_id=session_id,
                             expires_at=int(claims["exp"]))

    # ----- the sign-in state cookie -----------------------------------------------------------

    def seal_login(self, login: LoginState) -> str:
        now = int(self._now())
        claims = {
            "iss": ISSUER,
            "aud": LOGIN_COOKIE,
            "iat": now,
            "exp": now + LOGIN_STATE_LIFETIME_S,
            "state": login.state,
            "nonce": login.nonce,
            "verifier": login.verifier,
            "next": login.next_path,
        }
        return jwt.encode({"alg": ALGORITHM, "typ": "JWT"}, claims, self._login_key)

    def open_login(self, sealed: str, state: str) -> LoginState | None:
        """The sign-in this callback belongs to, when the cookie is ours, fresh, and its state
        equals `state` (compared in constant time); None otherwise."""
        claims = self._decode(sealed, self._login_key, aud=LOGIN_COOKIE)
        if claims is None:
            return None
        fields = [claims.get(name) for name in ("state", "nonce", "verifier", "next")]
        texts = [value for value in fields if isinstance(value, str)]
        if len(texts) != len(fields):
            return None
        if not hmac.compare_digest(texts[0].encode(), state.encode()):
            return None
        return LoginState(*texts)

    # ----- shared -----------------------------------------------------------------------------

    def _decode(self, token: str, key: OctKey, *, aud: str) -> dict | None:
        try:
            decoded = jwt.decode(token, key, algorithms=[ALGORITHM])
            if decoded.header.get("alg") != ALGORITHM:
                return None
            jwt.JWTClaimsRegistry(
                now=lambda: int(self._now()),
                iss={"essential": True, "value": ISSUER},
                aud={"essential": True, "value": aud},
                exp={"essential": True},
                iat={"essential": True},
            ).validate(decoded.claims)
        except (JoseError, ValueError, TypeError, KeyError):
            return None
        return decoded.claims
