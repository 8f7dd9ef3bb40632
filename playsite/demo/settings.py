"""The demo's settings: the operator's environment wins over the demo's defaults, except
DATABASE_URL, which is always the demo's own cluster. (`playsite.cli.demo` runs it all.)"""

from __future__ import annotations

from collections.abc import Mapping

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


def demo_settings(environ: Mapping[str, str], database_url: str, *, host: str | None, port: int | None) -> Settings:
    values = {**DEFAULTS, **environ, "DATABASE_URL": database_url, "PERSISTENCE_ENABLED": "true"}
    if host is not None:
        values["PLAY_HOST"] = host
    if port is not None:
        values["PLAY_PORT"] = str(port)
    return Settings.from_environ(values)
