"""`playsite migrate`: apply pending SQL migrations to DATABASE_URL (idempotent)."""

from __future__ import annotations

import argparse
import sys

import psycopg

from playsite.cli.serve import EXIT_BOOT, EXIT_CONFIG, load_settings_or_exit
from playsite.config import redact_url
from playsite.store.migrations import MigrationError, apply_pending, check_schema, load_migrations


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("migrate", help="apply pending database migrations")
    parser.add_argument("--check", action="store_true", help="only report; exit 1 when migrations are pending")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    settings = load_settings_or_exit()
    if settings.database_url is None:
        print("playsite: migrate needs DATABASE_URL (the in-memory store has no schema)", file=sys.stderr)
        return EXIT_CONFIG
    shown_url = redact_url(settings.database_url)
    try:
        migrations = load_migrations()
        with psycopg.connect(settings.database_url, autocommit=True, connect_timeout=10) as conn:
            if args.check:
                check_schema(conn, migrations)
                print(f"playsite: schema of {shown_url} is current ({len(migrations)} migrations)")
                return 0
            applied = apply_pending(conn, migrations)
    except MigrationError as error:
        print(f"playsite: {error}", file=sys.stderr)
        return 1
    except psycopg.Error as error:
        first_line = (str(error).strip().splitlines() or ["no detail"])[0]
        print(f"playsite: cannot migrate {shown_url}: {first_line}", file=sys.stderr)
        return EXIT_BOOT
    for migration in applied:
        print(f"playsite: applied {migration.version:03d}_{migration.name}")
    print(f"playsite: {shown_url} is at schema version {len(migrations)} ({len(applied)} applied now)")
    return 0
