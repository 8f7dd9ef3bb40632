"""PostgreSQL frozen for a block: every process of the test cluster stopped (SIGSTOP), a server
that hangs rather than one that refuses, then continued (SIGCONT); and what a test checks of the
database once it thawed."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import psycopg


def _postmaster(data: Path) -> int:
    return int((data / "postmaster.pid").read_text().split()[0])


def _children(parent: int) -> list[int]:
    """The processes `parent` started (backends, writers, autovacuum workers), as /proc lists them now."""
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                    children.append(int(entry.name))
    return children


@contextlib.contextmanager
def frozen(cluster):
    """Every PostgreSQL process stopped (a server that hangs, not one that refuses) for the block.

    The postmaster is stopped first, so it starts no process meanwhile; then each of its
    children. A child listed may exit before its signal (a backend whose connection just
    closed, an autovacuum worker done): it needs no freezing. Whatever was stopped is
    continued at the end, even when the block (or the freezing itself) fails."""
    postmaster = _postmaster(cluster.data)
    os.kill(postmaster, signal.SIGSTOP)
    stopped = [postmaster]
    try:
        for pid in _children(postmaster):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
                stopped.append(pid)
        yield
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def settled(url: str, timeout_s: float = 30) -> None:
    """Until no other session of this database is inside a transaction: every attempt the
    server abandoned has finished (committed or rolled back) by then."""
    deadline = time.monotonic() + timeout_s
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            busy = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')"
            ).fetchone()[0]
            if busy == 0:
                return
            assert time.monotonic() < deadline, f"{busy} session(s) still in a transaction"
            time.sleep(0.05)


def stored(url: str, game_id: str) -> tuple[str | None, int, int, int]:
    """(games.status, archive rows, results rows, outbox rows) of one game."""
    with psycopg.connect(url) as conn:
        status = conn.execute("SELECT status FROM games WHERE id = %s", (game_id,)).fetchone()
        counts = [
            conn.execute(f"SELECT count(*) FROM {table} WHERE {key} = %s", (value,)).fetchone()[0]
            for table, key, value in (
                ("game_archive", "game_id", game_id),
                ("game_results", "game_id", game_id),
                ("analytics_outbox", "idempotency_key", f"game:{game_id}"),
            )
        ]
    return (status[0] if status else None, *counts)


def assert_active_xor_archived(url: str) -> None:
    """The invariant over every game in the database."""
    with psycopg.connect(url) as conn:
        both = conn.execute(
            "SELECT id FROM games g WHERE status = 'active' AND EXISTS (SELECT 1 FROM game_archive a WHERE a.game_id = g.id)"
        ).fetchall()
        unarchived = conn.execute(
            "SELECT id FROM games g WHERE status = 'ended' AND NOT EXISTS (SELECT 1 FROM game_archive a WHERE a.game_id = g.id)"
        ).fetchall()
    assert both == [] and unarchived == []
