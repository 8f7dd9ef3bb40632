"""A private PostgreSQL cluster in a directory of its own, kept between runs.

The system's server binaries are used (Debian: /usr/lib/postgresql/<version>/bin, or
$PG_BINDIR, or PATH); without them, the PostgreSQL that the `pgserver` wheel ships (the
optional extra `pip install playsite[demo]`). PLAYSITE_DEMO_POSTGRES=bundled prefers the
wheel's even when the system has its own. PostgreSQL refuses to run as root, so as root every server command runs
as the `postgres` user on a directory handed to that user. The server listens on loopback
only, with its socket in the cluster's directory.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import socket
import subprocess
from pathlib import Path

DATABASE = "playsite"
START_TIMEOUT_S = 60


class PostgresMissing(Exception):
    """No PostgreSQL server binaries on this machine."""


class PostgresFailed(Exception):
    """A server command failed; the message carries its output."""


def bundled_bindir() -> Path | None:
    """The server binaries of the `pgserver` wheel, when it is installed."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or spec.origin is None:
        return None
    bindir = Path(spec.origin).parent / "pginstall" / "bin"
    return bindir if (bindir / "initdb").exists() else None


def find_bindir() -> Path:
    """$PG_BINDIR, else the newest system server binaries (Debian's layout, then PATH), else
    the `pgserver` wheel's; the wheel's first with PLAYSITE_DEMO_POSTGRES=bundled."""
    if env := os.environ.get("PG_BINDIR"):
        return Path(env)
    if os.environ.get("PLAYSITE_DEMO_POSTGRES") == "bundled" and (bundled := bundled_bindir()):
        return bundled
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if candidates:
        return Path(candidates[-1]).parent
    if initdb := shutil.which("initdb"):
        return Path(initdb).parent
    if bundled := bundled_bindir():
        return bundled
    raise PostgresMissing(
        "no PostgreSQL server found: install it (Debian: apt-get install postgresql), or the bundled one"
        " (pip install 'playsite[demo]'), or set PG_BINDIR"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LocalPostgres:
    def __init__(self, root: Path):
        self.bindir = find_bindir()
        self.root = root
        self.data = root / "data"
        self.as_root = os.geteuid() == 0
        self.port: int | None = None

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"

    @property
    def initialised(self) -> bool:
        return (self.data / "PG_VERSION").exists()

    def _run(self, tool: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [str(self.bindir / tool), *args]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.root)
        if check and done.returncode != 0:
            raise PostgresFailed(f"{tool} failed: {done.stderr.strip() or done.stdout.strip()}")
        return done

    def start(self) -> None:
        """initdb on first use; stop a server a crashed run left behind; start; create the database."""
        self.root.mkdir(parents=True, exist_ok=True)
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
            reachable = subprocess.run(["runuser", "-u", "postgres", "--", "test", "-w", str(self.root)], capture_output=True)
            if reachable.returncode != 0:
                raise PostgresFailed(
                    f"PostgreSQL runs as the postgres user, which cannot reach {self.root} (a parent directory is"
                    " closed to it): choose a --dir it can enter, e.g. --dir /var/tmp/playsite-demo"
                )
        if not self.initialised:
            self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-instructions")
        if self._run("pg_ctl", "-D", str(self.data), "status", check=False).returncode == 0:
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        self.port = free_port()
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "postgres.log"),
                  "-w", "-t", str(START_TIMEOUT_S), "start")
        exists = self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-tAc",
                           f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'")
        if exists.stdout.strip() != "1":
            self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", DATABASE)

    def stop(self) -> None:
        if self._run("pg_ctl", "-D", str(self.data), "status", check=False).returncode == 0:
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)
