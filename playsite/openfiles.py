"""The open-files limit: every socket, and every database connection, is an open file.

A process starts with its soft limit (often 1,024) and may raise it, without privileges, up to
its hard limit. `playsite serve` does so at start: a server holding 25,000 game sockets needs
more than 25,000 files, and a limit reached turns arriving players away (the listener waits
and retries while the process is at its limit). The hard limit is the operator's to set
(systemd's `LimitNOFILE=`, `ulimit -Hn`, a container's `--ulimit nofile=`)."""

from __future__ import annotations

import resource


def raise_to_hard_limit() -> tuple[int, int]:
    """Raise the soft limit of open files to the hard limit; returns (before, now).

    An unlimited hard limit is left alone (Linux refuses an unlimited soft one), and so is a
    soft limit the kernel will not raise: the process keeps what it had."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft == hard:
        return soft, soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        return soft, soft
    return soft, hard
