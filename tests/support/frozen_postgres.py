"""PostgreSQL frozen for a block: every process of the test cluster stopped (SIGSTOP), a server
that hangs rather than one that refuses, then continued (SIGCONT)."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def cluster_pids(data: Path) -> list[int]:
    """The postmaster and every process it started (backends, writers)."""
    postmaster = int((data / "postmaster.pid").read_text().split()[0])
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                    children.append(int(entry.name))
    return [postmaster, *children]


@contextlib.contextmanager
def frozen(cluster):
    """Every PostgreSQL process stopped (a server that hangs, not one that refuses) for the block."""
    pids = cluster_pids(cluster.data)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
