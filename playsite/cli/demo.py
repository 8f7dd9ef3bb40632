"""`playsite demo`: the whole product on one machine, with no set-up.

A private PostgreSQL in a data directory (kept between runs, so games survive a restart),
migrations applied, the server with persistence, ratings, retention, webhooks and the
showcase table, and a featured bot answering webhooks on loopback. docs/demo.md.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import time
from pathlib import Path

import psycopg

from playsite.cli.serve import EXIT_BOOT, EXIT_CONFIG, boot_failure
from playsite.config import ConfigError

DEFAULT_DIR = ".playsite-demo"


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("demo", help="run the whole product locally: PostgreSQL, the server, a featured bot")
    parser.add_argument("--dir", default=os.environ.get("PLAYSITE_DEMO_DIR", DEFAULT_DIR),
                        help=f"where the demo keeps its data (default {DEFAULT_DIR}, or $PLAYSITE_DEMO_DIR)")
    parser.add_argument("--host", default=None, help="listening address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="listening port (default 8080; 0 = any free port)")
    parser.add_argument("--reset", action="store_true", help="delete the demo's data directory (needs --yes) and exit")
    parser.add_argument("--yes", action="store_true", help="confirm --reset")
    parser.set_defaults(run=run)


def run(args) -> int:
    import trio

    from playsite.demo.postgres import LocalPostgres, PostgresFailed, PostgresMissing
    from playsite.demo.settings import demo_secrets_key, demo_settings
    from playsite.store.migrations import apply_pending, load_migrations

    state_dir = Path(args.dir).resolve()
    if args.reset:
        if not args.yes:
            print(f"playsite demo: --reset deletes {state_dir} and every game in it; add --yes to confirm", file=sys.stderr)
            return EXIT_CONFIG
        shutil.rmtree(state_dir, ignore_errors=True)
        print(f"playsite demo: deleted {state_dir}", file=sys.stderr)
        return 0
    logging.basicConfig(level="INFO", format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    for noisy in ("httpx", "httpcore", "hypercorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    started = time.monotonic()
    try:
        postgres = LocalPostgres(state_dir / "postgres")
    except PostgresMissing as error:
        print(f"playsite demo: {error}", file=sys.stderr)
        return EXIT_CONFIG
    first = not postgres.initialised
    print(f"playsite demo: {'creating' if first else 'starting'} PostgreSQL in {postgres.root}", file=sys.stderr, flush=True)
    try:
        postgres.start()
    except PostgresFailed as error:
        print(f"playsite demo: {error}", file=sys.stderr)
        return EXIT_BOOT
    try:
        with psycopg.connect(postgres.url, autocommit=True) as conn:
            for migration in apply_pending(conn, load_migrations()):
                print(f"playsite demo: applied migration {migration.version:03d}_{migration.name}", file=sys.stderr)
        try:
            settings = demo_settings(os.environ, postgres.url, host=args.host, port=args.port,
                                     secrets_key=demo_secrets_key(state_dir))
        except ConfigError as error:
            for problem in error.problems:
                print(f"playsite demo: configuration error: {problem}", file=sys.stderr)
            return EXIT_CONFIG
        print(f"playsite demo: ready to serve after {time.monotonic() - started:.1f} s; data in {state_dir};"
              " Ctrl-C stops it, `playsite demo --reset --yes` starts over", file=sys.stderr, flush=True)
        try:
            trio.run(serve_demo, settings, state_dir)
        except KeyboardInterrupt:
            pass
        except Exception as failure:
            message = boot_failure(failure, settings)
            if message is None:
                raise
            print(f"playsite demo: {message}", file=sys.stderr)
            return EXIT_BOOT
    finally:
        postgres.stop()
        print("playsite demo: stopped (PostgreSQL too)", file=sys.stderr, flush=True)
    return 0


async def serve_demo(settings, state_dir: Path) -> None:
    """The server as `playsite serve` runs it, plus the featured bot once the port is open."""
    import trio

    from playsite.app import create_app
    from playsite.demo.bot import FeaturedBot
    from playsite.server import run_http, wait_for_signals
    from playsite.services import boot

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

        nursery.start_soon(FeaturedBot(state_dir, server_url, on_ready=table_ready).supervise)
        print(f"playsite demo: open {server_url}/", flush=True)
