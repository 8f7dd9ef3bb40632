#!/usr/bin/env python3
"""A throwaway local PostgreSQL cluster: initdb in a temp dir, a random free port, gone on exit.

    python tools/devdb.py            # prints the URL, runs until Ctrl-C, then removes everything

The test suite uses `Cluster` through a session fixture, so tests need no manual setup.
PostgreSQL refuses to run as root, so when run as root every server command runs as the
`postgres` user (the Debian package creates it) on a directory handed to that user.
Standard library only.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


class ClusterError(Exception):
    pass


def find_bindir() -> Path:
    """The newest installed server binaries: $PG_BINDIR, Debian's layout, or PATH."""
    if env := os.environ.get("PG_BINDIR"):
        return Path(env)
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3])
    )
    if candidates:
        return Path(candidates[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise ClusterError("no PostgreSQL server found (install postgresql, or set PG_BINDIR)")


MEMORY = "/dev/shm"
MEMORY_ROOM_BYTES = 2 << 30  # the suite's cluster stays small (each test's database is dropped)


def _room(path: str) -> int:
    try:
        stats = os.statvfs(path)
    except OSError:
        return 0
    return stats.f_bavail * stats.f_frsize


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Cluster:
    """One private PostgreSQL server. `start()`/`stop()` may be repeated (fault tests)."""

    def __init__(self, *, in_memory: bool = False) -> None:
        """`in_memory`: the data directory on /dev/shm when it has room (MEMORY_ROOM_BYTES free),
        else in the temp dir as always. For throwaway data (the test suite): creating a database
        there takes ~25 ms where a virtual disk took ~200 ms. Never for a benchmark of durability."""
        self.bindir = find_bindir()
        self.as_root = os.geteuid() == 0
        where = MEMORY if in_memory and _room(MEMORY) >= MEMORY_ROOM_BYTES else None
        self.root = Path(tempfile.mkdtemp(prefix="playsite-pg-", dir=where))
        self.data = self.root / "data"
        self.port = free_port()
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "-E", "UTF8", "--no-sync", "--no-instructions")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bindir / tool), *args]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, cwd=self.root)
        if result.returncode != 0:
            raise ClusterError(f"{tool} failed: {result.stderr.strip() or result.stdout.strip()}")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
                  "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server; mode "immediate" is a crash as far as PostgreSQL is concerned."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def create_database(self, name: str) -> str:
        """A fresh empty database on this cluster; returns its URL."""
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def drop_database(self, name: str) -> None:
        """Drop `name`, its sessions ended first; nothing when it is gone or the server is down
        (a fault test may have stopped it)."""
        try:
            self._run("dropdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                      "--force", "--if-exists", name)
        except ClusterError:
            pass

    def close(self) -> None:
        try:
            self.stop("immediate")
        except ClusterError:
            pass
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Cluster:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def main() -> int:
    try:
        with Cluster() as cluster:
            print(cluster.url, flush=True)
            stop = []
            signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
            try:
                while not stop:
                    time.sleep(0.5)
            except KeyboardInterrupt:
                pass
    except ClusterError as error:
        print(f"devdb: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
