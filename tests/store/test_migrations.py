"""Migrations against a real PostgreSQL: applied in order, idempotent, checked at boot."""

from __future__ import annotations

import subprocess
import sys
import threading

import psycopg
import pytest

from playsite.store.migrations import (
    MigrationError,
    apply_pending,
    applied_versions,
    check_schema,
    load_migrations,
)


def migrate_cli(database_url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "playsite", "migrate", *args],
        env={"PATH": "/usr/bin:/bin", "DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_repository_migrations_are_numbered_without_gaps():
    migrations = load_migrations()
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))


def test_migrate_applies_everything_once_and_is_idempotent(database_url):
    migrations = load_migrations()
    with psycopg.connect(database_url, autocommit=True) as conn:
        assert [m.version for m in apply_pending(conn, migrations)] == [m.version for m in migrations]
        assert apply_pending(conn, migrations) == []
        assert applied_versions(conn) == {m.version for m in migrations}
        check_schema(conn, migrations)
        tables = {row[0] for row in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert {"schema_migrations", "games", "game_seats"} <= tables


def test_migrate_command_twice(database_url):
    first = migrate_cli(database_url)
    assert first.returncode == 0, first.stderr
    assert "applied 001_games" in first.stdout
    second = migrate_cli(database_url)
    assert second.returncode == 0, second.stderr
    assert "(0 applied now)" in second.stdout
    assert migrate_cli(database_url, "--check").returncode == 0


def test_concurrent_migrators_apply_each_file_once(database_url):
    migrations = load_migrations()
    results: list[list] = []

    def migrate():
        with psycopg.connect(database_url, autocommit=True) as conn:
            results.append(apply_pending(conn, migrations))

    threads = [threading.Thread(target=migrate) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Each file runs in its own transaction under the lock, so migrators may take turns; what
    # matters is that every file was applied by exactly one of them.
    assert len(results) == 4
    assert sorted(m.version for applied in results for m in applied) == [m.version for m in migrations]


def test_check_schema_names_pending_and_unknown_migrations(database_url):
    migrations = load_migrations()
    with psycopg.connect(database_url, autocommit=True) as conn:
        with pytest.raises(MigrationError, match="pending"):
            check_schema(conn, migrations)
        apply_pending(conn, migrations)
        conn.execute("INSERT INTO schema_migrations (version, name) VALUES (999, 'from_the_future')")
        with pytest.raises(MigrationError, match=r"migrations \[999\] that this version does not know"):
            check_schema(conn, migrations)


def test_migrate_refuses_a_database_migrated_by_newer_code(database_url):
    """Ops review s74: after a rollback, `migrate` said "at schema version 18" and exited 0, and
    the deploy failed only at `serve`'s start."""
    assert migrate_cli(database_url).returncode == 0
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations (version, name) VALUES (999, 'from_the_future')")
    for extra in ((), ("--check",)):
        result = migrate_cli(database_url, *extra)
        assert result.returncode == 1, (extra, result.stdout)
        assert "migrations [999] that this version does not know" in result.stderr
        assert "is at schema version" not in result.stdout


def test_migrate_check_fails_on_pending_schema(database_url):
    result = migrate_cli(database_url, "--check")
    assert result.returncode == 1
    assert "run `playsite migrate`" in result.stderr


def test_migrate_without_database_url_is_a_clear_error():
    result = subprocess.run(
        [sys.executable, "-m", "playsite", "migrate"],
        env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2
    assert "migrate needs DATABASE_URL" in result.stderr
