"""One demo per data directory: a second `playsite demo --dir D` while one runs from D is refused
at once, naming the first one's pid, and touches nothing (no PostgreSQL started, no reset);
once the first is gone, the directory is free again."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from playsite.demo.exclusive import LOCK_FILE, hold

HOLDER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from playsite.demo.exclusive import hold
    held = hold(Path(sys.argv[1]))
    print("held", flush=True)
    sys.stdin.read()  # until the test closes our stdin
""")


def demo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playsite", "demo", *args], capture_output=True, text=True, timeout=60)


def test_a_second_demo_on_the_same_directory_is_refused_and_the_first_keeps_it(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        second = demo("--dir", str(tmp_path), "--port", "0", "--no-league")
        assert second.returncode == 2, second.stderr
        assert f"another demo is running from {tmp_path} (pid {holder.pid})" in second.stderr
        assert "PostgreSQL" not in second.stderr, "nothing was started"
        reset = demo("--dir", str(tmp_path), "--reset", "--yes")
        assert reset.returncode == 2 and "another demo is running" in reset.stderr
        assert (tmp_path / LOCK_FILE).read_text().strip() == str(holder.pid), "the first one's lock is untouched"
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    # the first is gone: the directory is free, and its lock says who holds it now
    held = hold(tmp_path)
    try:
        assert (tmp_path / LOCK_FILE).read_text().strip().isdigit()
    finally:
        held.close()
