"""One demo at a time per data directory: a second `playsite demo` on the same `--dir` would
start the same PostgreSQL cluster again under the first one, move its identity provider's port
and resume the games the first one is playing. The first holds an exclusive lock on
`<dir>/demo.lock` (with its pid in it) for as long as it runs; the kernel lets it go when the
process ends, however it ends."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

LOCK_FILE = "demo.lock"


class DemoRunning(Exception):
    """Another process holds this directory's lock; `pid` is what it wrote there, if anything."""

    def __init__(self, state_dir: Path, pid: str):
        self.state_dir = state_dir
        self.pid = pid
        holder = f" (pid {pid})" if pid else ""
        super().__init__(f"another demo is running from {state_dir}{holder}: stop it first, or give this one another --dir")


def hold(state_dir: Path) -> IO[str]:
    """The directory's lock, held until the returned file is closed or the process ends;
    DemoRunning when another process holds it."""
    state_dir.mkdir(parents=True, exist_ok=True)
    lock = open(state_dir / LOCK_FILE, "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        pid = lock.read().strip()
        lock.close()
        raise DemoRunning(state_dir, pid) from None
    lock.seek(0)
    lock.truncate()
    lock.write(f"{os.getpid()}\n")
    lock.flush()
    return lock
