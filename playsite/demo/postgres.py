"""A private PostgreSQL cluster in a directory of its own, kept between runs.

The system's server binaries are used (Debian: /usr/lib/postgresql/<version>/bin, or
$PG_BINDIR, or PATH); without them, the PostgreSQL that the `pgserver` wheel ships (the
optional extra `pip install playsite[demo]`). PLAYSITE_DEMO_POSTGRES=bundled prefers the
wheel's even when the system has its own. PostgreSQL refuses to run as root, so as root every server command runs
as the `postgres` user on a directory handed to that user. When that user cannot enter the
demo's directory (it lies under a parent closed to others, such as /root), the cluster lives
in a place of its own under /var/lib/playsite-demo instead, one per demo directory (named
after a hash of its path; `cluster_place`), and everything else stays in the demo's
directory. The server listens on loopback only, with its socket in the cluster's directory.
"""

from __future__ import annotations

import glob
import hashlib
import importlib.util
import os
import shutil
import socket
import subprocess
from pathlib import Path

DATABASE = "playsite"
START_TIMEOUT_S = 60
OUTSIDE_ROOT = Path("/var/lib/playsite-demo")
"""Where, as root, the clusters of demo directories the `postgres` user cannot enter live."""


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


def postgres_can_enter(directory: Path) -> bool:
    """Whether the `postgres` user can reach `directory` (every parent searchable by it)."""
    done = subprocess.run(["runuser", "-u", "postgres", "--", "test", "-x", str(directory)], capture_output=True)
    return done.returncode == 0


def cluster_place(state_dir: Path) -> Path:
    """Where the cluster of the demo directory `state_dir` lives: inside it, or, as root when
    the `postgres` user cannot enter it, in a place of its own under OUTSIDE_ROOT."""
    inside = state_dir / "postgres"
    if os.geteuid() != 0:
        return inside
    state_dir.mkdir(parents=True, exist_ok=True)
    if postgres_can_enter(state_dir):
        return inside
    digest = hashlib.sha256(str(state_dir.resolve()).encode()).hexdigest()[:16]
    return OUTSIDE_ROOT / digest


def remove_cluster(place: Path) -> None:
    """Stop a server a killed run left in `place`, then delete the cluster (`--reset`)."""
    if (place / "data" / "postmaster.pid").exists():
        try:
            LocalPostgres(place).stop()
        except (PostgresMissing, OSError):
            pass
    shutil.rmtree(place, ignore_errors=True)
    if place.parent == OUTSIDE_ROOT:
        try:
            OUTSIDE_ROOT.rmdir()  # the last demo's cluster gone: nothing of the demo's left there
        except OSError:
            pass


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
        if self.as_root and self.root.parent == OUTSIDE_ROOT:
            OUTSIDE_ROOT.mkdir(mode=0o755, parents=True, exist_ok=True)
        self.root.mkdir(parents=True, exist_ok=True)
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
            reachable = subprocess.run(["runuser", "-u", "postgres", "--", "test", "-w", str(self.root)], capture_output=True)
            if reachable.returncode != 0:
                raise PostgresFailed(
                    f"PostgreSQL runs as the postgres user, which cannot reach {self.root} (a parent directory is"
                    " closed to it): choose a --dir it can enter"
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
