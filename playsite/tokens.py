"""Bearer capabilities (seat tokens, bot tokens): random, shown once, stored only as SHA-256."""

from __future__ import annotations

import hashlib
import hmac
import secrets

TOKEN_BYTES = 32


def new_token() -> tuple[str, bytes]:
    """A fresh token and the digest to store in its place."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, digest(token)


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def matches(token: str, stored_digest: bytes) -> bool:
    """Constant-time comparison of a presented token against a stored digest."""
    return hmac.compare_digest(digest(token), stored_digest)
