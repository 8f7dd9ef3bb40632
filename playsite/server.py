"""`playsite serve`: one process, one root nursery, boot in the order ARCHITECTURE.md gives.

1. store (schema checked) — configuration was validated before `trio.run`;
2. room registry and everything that must precede the port (later issues add them here);
3. supervised loops enabled by configuration;
4. hypercorn serving the app, until SIGINT/SIGTERM triggers a graceful shutdown.
"""

from __future__ import annotations

import logging
import signal
import sys

import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve as hypercorn_serve

from playsite.app import Services, create_app
from playsite.analytics import run_outbox_pump
from playsite.archive.retention import run_retention
from playsite.bots.accounts import BotDirectory
from playsite.bots.events import AccountEvents
from playsite.config import Settings
from playsite.dice import SystemSeedSource
from playsite.ratings.batch import run_rating_batch
from playsite.ratings.ladder import run_ladder
from playsite.rooms.admission import Admission
from playsite.rooms.registry import Registry
from playsite.store import run_store
from playsite.transports.webhook import attach_to_live_games, attach_webhook_dispatchers
from playsite.version import git_revision, package_version

log = logging.getLogger("playsite")

GRACEFUL_SHUTDOWN_S = 3


async def main(settings: Settings, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
    async with trio.open_nursery() as nursery:
        store = await nursery.start(run_store, settings)
        bots = BotDirectory(store)
        await bots.load()
        registry = await nursery.start(Registry(Admission(limits_of=bots.limits_of), SystemSeedSource(), store).run)
        await registry.resume_all()  # before the port opens: nothing is served half-restored
        if settings.analytics_enabled:
            await nursery.start(run_outbox_pump, store, settings)
        if settings.rating_batch_enabled:
            await nursery.start(run_rating_batch, store)
        if settings.retention_enabled:
            await nursery.start(run_retention, store, settings.retention_days)
        services = Services(
            settings=settings,
            store=store,
            registry=registry,
            bots=bots,
            account_events=AccountEvents(),
            version=package_version(),
            revision=git_revision(),
        )
        if settings.webhook_push_enabled:
            registry.creation_hooks.append(lambda room: attach_webhook_dispatchers(services, room))
            attach_to_live_games(services)  # the games resumed before the port opens
            # Bots registering mid-game are picked up by the sweep the webhook routes run.
        if settings.ladder_enabled:
            await nursery.start(run_ladder, services)
        shutdown = trio.Event()
        nursery.start_soon(wait_for_signals, shutdown, nursery.cancel_scope)
        await run_http(create_app(services), settings, shutdown, task_status=task_status)
        # hypercorn returns once its graceful shutdown is over; stop everything else.
        nursery.cancel_scope.cancel()


async def run_http(app, settings: Settings, shutdown: trio.Event, *, task_status=trio.TASK_STATUS_IGNORED):
    config = HypercornConfig()
    config.bind = [f"{settings.host}:{settings.port}"]
    config.accesslog = None  # URLs may carry seat tokens: never log them
    config.errorlog = logging.getLogger("hypercorn.error")
    config.graceful_timeout = GRACEFUL_SHUTDOWN_S
    await hypercorn_serve(app, config, shutdown_trigger=shutdown.wait, task_status=_Announce(task_status))


class _Announce:
    """Pass hypercorn's bound addresses on, printing them for operators and tests."""

    def __init__(self, task_status):
        self.task_status = task_status

    def started(self, binds=None):
        for bind in binds or ():
            print(f"playsite: listening on {bind}", file=sys.stderr, flush=True)
        self.task_status.started(binds)


async def wait_for_signals(shutdown: trio.Event, root: trio.CancelScope) -> None:
    """First SIGINT/SIGTERM: graceful shutdown. A second one: stop at once."""
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            name = signal.Signals(signum).name
            if not shutdown.is_set():
                print(f"playsite: {name} received, shutting down", file=sys.stderr, flush=True)
                shutdown.set()
            else:
                print(f"playsite: {name} received again, stopping now", file=sys.stderr, flush=True)
                root.cancel()
