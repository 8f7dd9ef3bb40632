"""The demo's settings: the operator's environment wins over the demo's defaults, except
DATABASE_URL, which is always the demo's own cluster. (`playsite.cli.demo` runs it all.)

Webhook secrets are sealed: the demo's own PLAY_SECRETS_KEY is generated once into its
data directory (`secrets-key`, mode 0600) and never printed."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

from playsite.config import Settings
from playsite.demo.bot import BOT_ID

DEFAULTS = {
    "PLAY_HOST": "127.0.0.1",
    "PLAY_PORT": "8080",
    "RATING_BATCH_ENABLED": "true",
    "RETENTION_ENABLED": "true",
    "WEBHOOK_PUSH_ENABLED": "true",
    "WEBHOOK_ALLOW_LOOPBACK": "true",  # the featured bot answers on 127.0.0.1
    "SHOWCASE_ENABLED": "true",
    "SHOWCASE_BOT": BOT_ID,
}


SECRETS_KEY_FILE = "secrets-key"


def demo_secrets_key(state_dir: Path) -> str:
    """The demo's PLAY_SECRETS_KEY: read from the data directory, made there (0600) on first use."""
    path = state_dir / SECRETS_KEY_FILE
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    state_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made meanwhile by another run: use that one
        return path.read_text().strip()
    with os.fdopen(descriptor, "w") as file:
        file.write(key + "\n")
    return key


def demo_settings(
    environ: Mapping[str, str], database_url: str, *, host: str | None, port: int | None, secrets_key: str | None = None
) -> Settings:
    values = {**DEFAULTS, **environ, "DATABASE_URL": database_url, "PERSISTENCE_ENABLED": "true"}
    if secrets_key is not None and not environ.get("PLAY_SECRETS_KEY", "").strip():
        values["PLAY_SECRETS_KEY"] = secrets_key
    if host is not None:
        values["PLAY_HOST"] = host
    if port is not None:
        values["PLAY_PORT"] = str(port)
    return Settings.from_environ(values)
