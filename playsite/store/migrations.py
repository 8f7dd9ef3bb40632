"""Numbered SQL migrations (`sql/NNN_name.sql`), tracked in `schema_migrations`.

`playsite migrate` applies what is pending; `playsite serve` only checks, so a deployment
never changes its schema by surprise at boot. Each migration runs in its own transaction
under an advisory lock, so two concurrent migrators cannot apply one file twice.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import psycopg

MIGRATIONS_DIR = Path(__file__).resolve().parent / "sql"
_FILE_NAME = re.compile(r"(\d{3})_([a-z0-9_]+)\.sql")
_LOCK_KEY = 0x706C6179  # "play": pg_advisory_xact_lock key shared by every migrator


@attrs.frozen
class Migration:
    version: int
    name: str
    sql: str


class MigrationError(Exception):
    """The database schema and this code do not match; the message says how to fix it."""


def load_migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    found = []
    for path in sorted(directory.glob("*.sql")):
        match = _FILE_NAME.fullmatch(path.name)
        if match is None:
            raise MigrationError(f"{path.name}: migration files are named NNN_name.sql")
        found.append(Migration(int(match[1]), match[2], path.read_text(encoding="utf-8")))
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise MigrationError(f"migrations must be numbered 1..n without gaps, found {versions}")
    return found


def applied_versions(conn: psycopg.Connection) -> set[int]:
    exists = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if exists is None or not exists[0]:
        return set()
    return {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}


def check_schema(conn: psycopg.Connection, migrations: list[Migration]) -> None:
    """Raise MigrationError unless the database is exactly at this code's schema."""
    refuse_newer(conn, migrations)
    applied = applied_versions(conn)
    known = {m.version for m in migrations}
    if pending := sorted(known - applied):
        raise MigrationError(f"database schema is behind (pending {pending}): run `playsite migrate`")


def refuse_newer(conn: psycopg.Connection, migrations: list[Migration]) -> None:
    """Raise MigrationError when the database was migrated by newer code than this."""
    if unknown := sorted(applied_versions(conn) - {m.version for m in migrations}):
        raise MigrationError(
            f"database has migrations {unknown} that this version does not know; "
            "it was migrated by newer code"
        )


def apply_pending(conn: psycopg.Connection, migrations: list[Migration]) -> list[Migration]:
    """Apply every migration not yet recorded; returns those applied now (empty when current).
    MigrationError, before anything is applied, on a database migrated by newer code (a
    rollback's deploy must fail at its migrate step, not at the serve after it)."""
    refuse_newer(conn, migrations)
    applied_now = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY,"
            " name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
    for migration in migrations:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            if migration.version in applied_versions(conn):
                continue
            conn.execute(migration.sql)
            conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                (migration.version, migration.name),
            )
            applied_now.append(migration)
    return applied_now
