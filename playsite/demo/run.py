"""The demo's process: its private PostgreSQL, the server, and the featured bot.

    settings = demo_settings(os.environ, database_url)
    trio.run(serve_demo, settings, state_dir)

The operator's environment wins over the demo's defaults, except DATABASE_URL, which is
always the demo's own cluster.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import trio

from playsite.app import create_app
from playsite.config import Settings
from playsite.demo.bot import BOT_ID, FeaturedBot
from playsite.server import run_http, wait_for_signals
from playsite.services import boot

log = logging.getLogger("playsite.demo")

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


async def serve_demo(settings: Settings, state_dir: Path) -> None:
    async with trio.open_nursery() as nursery:
        services = await boot(settings, nursery)
        shutdown = trio.Event()
        nursery.start_soon(wait_for_signals, shutdown, nursery.cancel_scope)

        async def http(task_status=trio.TASK_STATUS_IGNORED):
            await run_http(create_app(services), settings, shutdown, task_status=task_status)
            nursery.cancel_scope.cancel()  # hypercorn's graceful shutdown is over: stop the rest

        binds = await nursery.start(http)
        server_url = binds[0].replace("0.0.0.0", "127.0.0.1")

        async def table_ready() -> None:
            if services.showcase is not None:
                await services.showcase.reconcile()

        bot = FeaturedBot(state_dir, server_url, on_ready=table_ready)
        nursery.start_soon(bot.supervise)
        print(f"playsite demo: open {server_url}/ (the showcase: {server_url}/showcase)", flush=True)
