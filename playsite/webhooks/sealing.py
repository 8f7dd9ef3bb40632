"""Webhook secrets sealed at rest with a server key (AES-256-GCM, from `cryptography`).

A webhook secret is an HMAC key the server must keep to sign every delivery, so it cannot
be a digest. With `PLAY_SECRETS_KEY` set, `webhook_registrations.secret` holds it sealed:

    sealed1:<key id>:<base64url(nonce || ciphertext+tag), unpadded>

- the nonce is 12 random bytes, new for every seal;
- the key id is a non-secret fingerprint of the key (the first 8 hex characters of
  SHA-256 over a domain-separating label and the key), so a value names the key it needs;
- the associated data binds the value to its row (the bot id) and to its own header, so a
  value copied into another bot's row, or relabelled with another key id, does not open.

A value that is not sealed (a row written before the key was set) opens as itself. A value
that cannot be opened raises `SecretUnreadable`, whose message says why without the secret,
the key or the stored value. `PLAY_SECRETS_KEY_PREVIOUS` opens values sealed under the key
before a rotation; the boot re-seals them under the current key (store.py, `seal_at_boot`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from playsite.config import Settings

VERSION = "sealed1"
KEY_BYTES = 32
NONCE_BYTES = 12
TAG_BYTES = 16
KEY_ID_LABEL = b"playsite secrets key id v1\x00"
_SEALED = re.compile(r"sealed[0-9]+:")
_KEY_ID = re.compile(r"[0-9a-f]{8}")


class SecretUnreadable(Exception):
    """A stored secret that cannot be opened. `reason` never holds the secret, the key or the value."""

    def __init__(self, bot_id: str, reason: str):
        super().__init__(f"the webhook secret of bot {bot_id} cannot be opened: {reason}")
        self.bot_id = bot_id
        self.reason = reason


def key_id(key: bytes) -> str:
    """The non-secret fingerprint a sealed value names its key by."""
    return hashlib.sha256(KEY_ID_LABEL + key).hexdigest()[:8]


def is_sealed(stored: str) -> bool:
    """Sealed (by any version of the format), as opposed to a legacy plain-text secret."""
    return _SEALED.match(stored) is not None


def sealed_key_id(stored: str) -> str | None:
    """The key id a sealed value names (None when it is plain text or malformed)."""
    parts = stored.split(":", 2)
    if len(parts) == 3 and parts[0] == VERSION and _KEY_ID.fullmatch(parts[1]):
        return parts[1]
    return None


WEBHOOK_SECRET = "webhook_registrations.secret"
"""The column a webhook secret is sealed for (other capabilities name theirs: `seal_stored`)."""


def _associated_data(kid: str, bot_id: str, column: str = WEBHOOK_SECRET) -> bytes:
    return f"{VERSION}:{kid}:{column}:{bot_id}".encode()


class Sealer:
    """Seals under the current key; opens under the current key or the previous one."""

    def __init__(self, key: bytes, previous: bytes | None = None):
        if len(key) != KEY_BYTES or (previous is not None and len(previous) != KEY_BYTES):
            raise ValueError(f"a secrets key is exactly {KEY_BYTES} bytes")
        self.key_id = key_id(key)
        self._current = AESGCM(key)
        self._openers: list[tuple[str, AESGCM]] = [(self.key_id, self._current)]
        self.previous_key_id: str | None = None
        if previous is not None and previous != key:
            self.previous_key_id = key_id(previous)
            self._openers.append((self.previous_key_id, AESGCM(previous)))

    @classmethod
    def from_hex(cls, key_hex: str, previous_hex: str | None = None) -> Sealer:
        return cls(bytes.fromhex(key_hex), bytes.fromhex(previous_hex) if previous_hex else None)

    @classmethod
    def from_settings(cls, settings: Settings) -> Sealer | None:
        """From PLAY_SECRETS_KEY (and _PREVIOUS); None when no key is configured."""
        key = settings.secrets_key
        if key is None:
            return None
        return cls.from_hex(key, settings.secrets_key_previous)

    def __repr__(self) -> str:
        return f"Sealer(key_id={self.key_id!r}, previous_key_id={self.previous_key_id!r})"

    def seal(self, secret: str, bot_id: str, column: str = WEBHOOK_SECRET) -> str:
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._current.encrypt(nonce, secret.encode(), _associated_data(self.key_id, bot_id, column))
        text = base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")
        return f"{VERSION}:{self.key_id}:{text}"

    def is_current(self, stored: str) -> bool:
        """Sealed under the current key (nothing for the boot to re-seal)."""
        return sealed_key_id(stored) == self.key_id

    def open(self, stored: str, bot_id: str, column: str = WEBHOOK_SECRET) -> str:
        """The plain secret; a plain-text value as it is. Raises SecretUnreadable."""
        if not is_sealed(stored):
            return stored
        return open_sealed(self._openers, stored, bot_id, column)


def open_stored(sealer: Sealer | None, stored: str, bot_id: str, column: str = WEBHOOK_SECRET) -> str:
    """`sealer.open`, also when no key is configured (then only plain text opens)."""
    if sealer is not None:
        return sealer.open(stored, bot_id, column)
    if is_sealed(stored):
        raise SecretUnreadable(bot_id, "it is sealed and PLAY_SECRETS_KEY is not set")
    return stored


def seal_stored(sealer: Sealer | None, value: str, row: str, column: str) -> str:
    """A capability other than a webhook secret (a seat token kept for a retry), sealed for
    `column` of `row`; plain text when no key is configured (as webhook secrets are)."""
    return value if sealer is None else sealer.seal(value, row, column)


def open_sealed(openers: list[tuple[str, AESGCM]], stored: str, bot_id: str, column: str = WEBHOOK_SECRET) -> str:
    version, _, rest = stored.partition(":")
    if version != VERSION:
        raise SecretUnreadable(bot_id, f"it is sealed in an unknown format ({version[:16]})")
    kid = sealed_key_id(stored)
    if kid is None:
        raise SecretUnreadable(bot_id, "the sealed value is malformed (no key id)")
    candidates = [aead for known, aead in openers if known == kid]
    if not candidates:
        raise SecretUnreadable(
            bot_id, f"it is sealed under key id {kid}, which is neither PLAY_SECRETS_KEY nor PLAY_SECRETS_KEY_PREVIOUS"
        )
    text = rest.partition(":")[2]
    try:
        blob = base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise SecretUnreadable(bot_id, "the sealed value is malformed (not base64url)") from None
    if len(blob) < NONCE_BYTES + TAG_BYTES:
        raise SecretUnreadable(bot_id, "the sealed value is malformed (too short)")
    nonce, sealed = blob[:NONCE_BYTES], blob[NONCE_BYTES:]
    for aead in candidates:
        try:
            plain = aead.decrypt(nonce, sealed, _associated_data(kid, bot_id, column))
        except InvalidTag:
            continue
        try:
            return plain.decode()
        except UnicodeDecodeError:
            break
    raise SecretUnreadable(
        bot_id, f"the value sealed under key id {kid} does not authenticate (altered, or sealed for another bot)"
    )
