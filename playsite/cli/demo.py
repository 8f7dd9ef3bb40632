"""`playsite demo`: the whole product on one machine, with no set-up.

A private PostgreSQL (kept between runs, so games survive a restart), migrations applied,
the server with persistence, ratings, retention, webhooks and the showcase table, a
featured bot answering webhooks on loopback, a demo identity provider so people can sign
in, and a league in which the bots play rated games in the background. docs/demo.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import socket
import time
from pathlib import Path
from typing import TYPE_CHECKING

import psycopg

from playsite.cli.serve import EXIT_BOOT, EXIT_CONFIG, boot_failure
from playsite.config import ConfigError, Settings

if TYPE_CHECKING:  # imported when the demo runs: `playsite dice roll` does not pay for them
    from playsite.demo.bot import FeaturedBot
    from playsite.demo.identity import DemoIdentityProvider
    from playsite.showcase.table import ShowcaseTable

DEFAULT_DIR = ".playsite-demo"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="run the whole product locally: PostgreSQL, the server, a featured bot, sign-in, a league"
    )
    parser.add_argument("--dir", default=os.environ.get("PLAYSITE_DEMO_DIR", DEFAULT_DIR),
                        help=f"where the demo keeps its data (default {DEFAULT_DIR}, or $PLAYSITE_DEMO_DIR)")
    parser.add_argument("--host", default=None, help="listening address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="listening port (default 8080; 0 = any free port)")
    parser.add_argument("--no-sign-in", action="store_true", help="do not run the demo identity provider")
    parser.add_argument("--sign-in-on-network", action="store_true",
                        help="run the demo identity provider (anyone signs in as anyone) although --host is not loopback")
    parser.add_argument("--no-league", action="store_true", help="the bots play no rated games in the background")
    parser.add_argument("--league-think", type=float, default=1.0, metavar="S",
                        help="seconds a bot waits before each turn of a league game (default 1)")
    parser.add_argument("--league-rest", type=float, default=5.0, metavar="S",
                        help="seconds between two league games (default 5)")
    parser.add_argument("--reset", action="store_true", help="delete the demo's data (needs --yes) and exit")
    parser.add_argument("--yes", action="store_true", help="confirm --reset")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import trio

    from playsite.demo.exclusive import DemoRunning, hold
    from playsite.demo.postgres import LocalPostgres, PostgresFailed, PostgresMissing, cluster_place, remove_cluster
    from playsite.demo.settings import (
        demo_metrics_token, demo_secrets_key, demo_session_secret, demo_settings, is_loopback, origins_for, reserve_port,
        resolve_address,
    )
    from playsite.store.migrations import apply_pending, load_migrations

    state_dir = Path(args.dir).resolve()
    place = cluster_place(state_dir)
    outside = place.parent != state_dir
    try:
        lock = hold(state_dir)  # released when this process ends
    except DemoRunning as running:
        print(f"playsite demo: {running}", file=sys.stderr)
        return EXIT_CONFIG
    except OSError as error:
        print(f"playsite demo: cannot use {state_dir}: {error}", file=sys.stderr)
        return EXIT_CONFIG
    if args.reset:
        if not args.yes:
            where = f"{state_dir} and {place}" if outside else str(state_dir)
            print(f"playsite demo: --reset deletes {where} and every game in it; add --yes to confirm", file=sys.stderr)
            return EXIT_CONFIG
        remove_cluster(place)
        lock.close()
        shutil.rmtree(state_dir, ignore_errors=True)
        print(f"playsite demo: deleted {state_dir}" + (f" and {place}" if outside else ""), file=sys.stderr)
        return 0
    if args.league_think < 0 or args.league_rest < 0:
        print("playsite demo: --league-think and --league-rest are seconds, 0 or more", file=sys.stderr)
        return EXIT_CONFIG
    try:
        host, port = resolve_address(os.environ, args.host, args.port)
        held = reserve_port(host, port) if args.port == 0 else None
    except OSError as error:
        print(f"playsite demo: cannot listen on the address asked for: {error}", file=sys.stderr)
        return EXIT_CONFIG
    own_provider = not args.no_sign_in and not os.environ.get("OIDC_ISSUER", "").strip()
    if own_provider and not is_loopback(host) and not args.sign_in_on_network:
        print(f"playsite demo: --host {host} is not a loopback address, and the demo's identity provider signs anyone"
              " in as anyone: add --no-sign-in, or --sign-in-on-network if that is really what you want",
              file=sys.stderr)
        return EXIT_CONFIG
    logging.basicConfig(level="INFO", format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    for noisy in ("httpx", "httpcore", "hypercorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    started = time.monotonic()
    try:
        postgres = LocalPostgres(place)
    except PostgresMissing as error:
        print(f"playsite demo: {error}", file=sys.stderr)
        return EXIT_CONFIG
    first = not postgres.initialised
    print(f"playsite demo: {'creating' if first else 'starting'} PostgreSQL in {postgres.root}"
          + (f" (the postgres user cannot enter {state_dir}; the rest stays there)" if outside else ""),
          file=sys.stderr, flush=True)
    try:
        postgres.start()
    except PostgresFailed as error:
        print(f"playsite demo: {error}", file=sys.stderr)
        return EXIT_BOOT
    try:
        with psycopg.connect(postgres.url, autocommit=True) as conn:
            for migration in apply_pending(conn, load_migrations()):
                print(f"playsite demo: applied migration {migration.version:03d}_{migration.name}", file=sys.stderr)
            registered = conn.execute(
                "SELECT 1 FROM webhook_registrations WHERE bot_id = %s", ("demo/featured",)
            ).fetchone() is not None
        provider = None
        sign_in = None
        operator = None
        if own_provider:
            from playsite.accounts import queries as accounts_store
            from playsite.demo.identity import OPERATOR, DemoIdentityProvider, subject_of

            provider = DemoIdentityProvider(state_dir, host="127.0.0.1" if is_loopback(host) else host)
            public, _ = origins_for(host, port)
            sign_in = {**provider.configure(os.environ.get("PLAY_PUBLIC_ORIGIN", "").strip() or public),
                       "PLAY_SESSION_SECRET": demo_session_secret(state_dir)}
            # the operator's account, made as its first sign-in would make it: "admin" is the demo's administrator
            with psycopg.connect(postgres.url) as conn:
                operator = accounts_store.sign_in(
                    conn, provider.issuer, subject_of(OPERATOR), {"nickname": OPERATOR, "preferred_username": OPERATOR})
                conn.commit()
        metrics_token = demo_metrics_token(state_dir)
        try:
            settings = demo_settings(os.environ, postgres.url, host=host, port=port,
                                     secrets_key=demo_secrets_key(state_dir), sign_in=sign_in, metrics_token=metrics_token,
                                     operator=str(operator.id) if operator is not None else None)
        except ConfigError as error:
            for problem in error.problems:
                print(f"playsite demo: configuration error: {problem}", file=sys.stderr)
            return EXIT_CONFIG
        if provider is not None and settings.oidc_issuer == provider.issuer and settings.public_origin is not None:
            provider.configure(settings.public_origin)
        print("playsite: effective configuration", file=sys.stderr)
        for name, value in settings.effective():  # as `playsite serve` says it, secrets redacted
            print(f"  {name}={value}", file=sys.stderr)
        for line in operator_lines(settings, state_dir, postgres.url, operator is not None, metrics_token):
            print(f"playsite demo: {line}", file=sys.stderr)
        print(f"playsite demo: ready to serve after {time.monotonic() - started:.1f} s; data in {state_dir};"
              " Ctrl-C stops it, `playsite demo --reset --yes` starts over", file=sys.stderr, flush=True)
        league = None if args.no_league else {"think_s": args.league_think, "rest_s": args.league_rest}
        try:
            trio.run(serve_demo, settings, state_dir, provider, league, not registered, held)
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


def operator_lines(
    settings: Settings, state_dir: Path, database_url: str, operator: bool, demo_token: str
) -> list[str]:
    """How to be the demo's operator: its administrator, its metrics, its database (no secret
    in them: the metrics token is named by its file, `demo_token` being the one kept there)."""
    from playsite.demo.identity import OPERATOR
    from playsite.demo.settings import METRICS_TOKEN_FILE

    origin = settings.public_origin or f"http://{settings.host}:{settings.port}"
    lines = []
    if operator and settings.session_management_mountable and settings.admins:
        lines.append(f'the operator: sign in as "{OPERATOR}", then Your bots ({origin}/account/bots?all=1:'
                     " every bot's webhook, as administrator)")
    if settings.metrics_token:
        token = f"$(cat {state_dir / METRICS_TOKEN_FILE})" if settings.metrics_token == demo_token else "$PLAY_METRICS_TOKEN"
        lines.append(f'metrics: curl -H "Authorization: Bearer {token}" {origin}/metrics')
    lines.append(f"its database: DATABASE_URL={database_url} (for `playsite accounts`, `playsite migrate --check`)")
    return lines


async def serve_demo(
    settings: Settings, state_dir: Path, provider: DemoIdentityProvider | None, league_options: dict[str, float] | None,
    first_run: bool, held: socket.socket | None = None,
) -> None:
    """The server as `playsite serve` runs it, with the demo around it. The featured bot's
    webhook and the identity provider listen before the server boots, so the server finds
    them at boot; on the first run the bot registers on a first, private boot without the
    showcase, so that the showcase's probe at the real boot finds it ready."""
    import trio

    from playsite.demo.address import one_address
    from playsite.demo.bot import FeaturedBot
    from playsite.demo.league import League
    from playsite.server import serve, wait_for_signals
    from playsite.services import boot

    async with trio.open_nursery() as nursery:
        table: dict[str, ShowcaseTable | None] = {}

        async def table_ready() -> None:
            if (showcase := table.get("showcase")) is not None:
                await showcase.reconcile()

        bot = FeaturedBot(state_dir, on_ready=table_ready)
        await nursery.start(bot.listen)
        if provider is not None:
            await nursery.start(provider.serve)
        if first_run:
            try:
                await register_first(settings, bot)
            except Exception as error:  # the bot then registers after the boot, as on every start
                logging.getLogger("playsite.demo").info(
                    "demo: the first-run registration of the featured bot failed (%s); it registers once the"
                    " server is up", type(error).__name__)

        services = await boot(settings, nursery)
        table["showcase"] = services.showcase
        league = None
        if league_options is not None:
            league = League(services, think_s=league_options["think_s"], rest_s=league_options["rest_s"])
            league.adopt_resumed()  # a league game resumed at boot is paced as soon as possible
            bot.think = league.think
            if services.house is not None:
                services.house.think = league.think
        shutdown = trio.Event()
        nursery.start_soon(wait_for_signals, shutdown, nursery.cancel_scope)

        async def http(task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED) -> None:
            public = settings.public_origin
            wrap = (lambda app: one_address(app, public)) if public else None
            await serve(services, shutdown, wrap=wrap, task_status=task_status)  # as `playsite serve` serves
            nursery.cancel_scope.cancel()  # hypercorn's graceful shutdown is over: stop the rest

        binds = await nursery.start(http)
        if held is not None:
            held.close()  # the server listens on the port now
        server_url = binds[0].replace("0.0.0.0", "127.0.0.1")
        if league is not None:
            nursery.start_soon(league.run)
        nursery.start_soon(bot.supervise, server_url)
        print(f"playsite demo: open {settings.public_origin or server_url}/", flush=True)


async def register_first(settings: Settings, bot: FeaturedBot) -> None:
    """First run: the featured bot registers through the Bot API of a private boot of the
    server (loopback, a free port, no showcase), which then stops."""
    import attrs
    import trio
    from hypercorn.config import Config as HypercornConfig
    from hypercorn.trio import serve as hypercorn_serve

    from playsite.app import create_app
    from playsite.services import boot

    private = attrs.evolve(settings, showcase_enabled=False, host="127.0.0.1", port=0)
    async with trio.open_nursery() as nursery:
        services = await boot(private, nursery)
        config = HypercornConfig()
        config.bind = ["127.0.0.1:0"]
        config.accesslog = None
        config.errorlog = logging.getLogger("playsite.demo.first-run")
        binds = await nursery.start(lambda task_status: hypercorn_serve(create_app(services), config, task_status=task_status))
        bot.server_url = binds[0]
        assert bot.hook_url is not None, "the bot listens first"
        await bot.register(bot.hook_url)
        await services.stopping.finish()  # as a stop does: what must reach the database, while it is open
        nursery.cancel_scope.cancel()
