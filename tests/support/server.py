"""Start a real `playsite serve` process for end-to-end tests and talk to it over real sockets."""

from __future__ import annotations

import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_LISTENING = re.compile(r"playsite: listening on http://[^:]+:(\d+)")
BOOT_TIMEOUT_S = 30


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServerProcess:
    """`playsite serve` on a random port; stderr goes to a file so the pipe never fills."""

    def __init__(
        self, env: dict[str, str] | None = None, *, cwd: Path | None = None, open_files: int | None = None,
        module: tuple[str, ...] = ("playsite", "serve"),
    ):
        # No house bots unless the test asks: it sees exactly the bots it made.
        self.env = {**os.environ, "PLAY_PORT": "0", "PLAY_HOST": "127.0.0.1", "PLAY_HOUSE_BOTS": "false", **(env or {})}
        self.cwd = cwd
        """Where the process starts (`python -m` imports from there first)."""
        self.module = module
        """What `python -m` runs: `playsite serve`, or a launcher of the tests' around it."""
        self.open_files = open_files
        """A soft open-files limit to start the process with (its hard limit unchanged)."""
        self.log_path = Path(tempfile.mkstemp(prefix="playsite-serve-", suffix=".log")[1])
        self.process: subprocess.Popen | None = None
        self.port: int | None = None

    def start(self) -> ServerProcess:
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", *self.module],
                env=self.env,
                cwd=self.cwd,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=None if self.open_files is None else self._lower_open_files,
            )
        deadline = time.monotonic() + BOOT_TIMEOUT_S
        while time.monotonic() < deadline:
            if match := _LISTENING.search(self.output()):
                self.port = int(match[1])
                return self
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}:\n{self.output()}")
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"server did not listen within {BOOT_TIMEOUT_S} s:\n{self.output()}")

    def _lower_open_files(self) -> None:
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, hard))

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout: float = 15) -> int:
        """SIGTERM and wait for a clean exit; returns the exit code."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self) -> None:
        """kill -9: a crash, as far as the server is concerned."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def close(self) -> None:
        self.kill()
        self.log_path.unlink(missing_ok=True)


def module_server(env: dict[str, str] | None = None, name: str = "server"):
    """A pytest fixture, `server` (or `name`), for a test module: one `playsite serve` with `env`,
    started for the module's first test and stopped after its last. In a module: `server =
    module_server({...})`; another beside it: `other = module_server({...}, "other")`."""
    import pytest

    @pytest.fixture(scope="module", name=name)
    def server():
        started = ServerProcess(env).start()
        try:
            yield started
        finally:
            started.close()

    return server
