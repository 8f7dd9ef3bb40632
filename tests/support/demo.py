"""Running `playsite demo` as a newcomer would: a real process, its log in a file, stopped
with SIGTERM as Ctrl-C would. A start is "clean" when nothing up to the open showcase is
logged at WARNING or ERROR."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.browser import click_turn
from tests.support.turns import random_turn
from tests.support.waiting import wait_until_sync

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "demo"
"""Screenshots (kept out of git)."""


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


# ----- playing through the page's stable hooks ---------------------------------------------------


def play_turn(page, base: str, game_id: str, rng: random.Random) -> list[str]:
    roll = httpx.get(f"{base}/games/{game_id}/moves", timeout=10).json()
    moves = random_turn(roll["legalMoves"], rng)
    click_turn(page, moves)
    page.click("#submit")
    return moves


def resign(page) -> None:
    """Click Resign, then its confirmation, whichever shape it takes (the button itself
    turned "Confirm", a `#resign-confirm` button, or the confirm group's Yes)."""
    page.click("#resign")
    confirm = page.locator("#resign-confirm:visible, #confirm-yes:visible, #resign:visible:text-is('Confirm')")
    expect(confirm.first).to_be_visible()
    confirm.first.click()


# ----- the demo's process ---------------------------------------------------------------------------

LISTENING = re.compile(r"playsite: listening on (http://127\.0\.0\.1:\d+)")
BOOT_TIMEOUT_S = 60
LOUD = re.compile(r"^\S+ \S+ (WARNING|ERROR|CRITICAL) ", re.MULTILINE)


class Demo:
    def __init__(self, data: Path, log: Path, *args: str, env: dict | None = None):
        self.log = log
        self.offset = log.stat().st_size if log.exists() else 0
        before = len(LISTENING.findall(self.output())) if log.exists() else 0
        environ = {**os.environ, "DICE_SEED_WINDOW_MS": "0", **(env or {})}
        environ.pop("DATABASE_URL", None)
        with open(log, "ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "playsite", "demo", "--port", "0", "--dir", str(data), *args],
                stdout=out, stderr=subprocess.STDOUT, env=environ,
            )
        stop = time.monotonic() + BOOT_TIMEOUT_S
        while len(found := LISTENING.findall(self.output())) <= before:
            if self.process.poll() is not None or time.monotonic() > stop:
                self.process.kill()
                raise AssertionError(f"the demo did not start:\n{self.output()}")
            time.sleep(0.1)
        self.url = found[-1]

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def this_run(self) -> str:
        """What this start logged (the log file is shared by the starts of one test)."""
        with open(self.log, "rb") as file:
            file.seek(self.offset)
            return file.read().decode(errors="replace")

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.url + path, timeout=10)

    def wait_open(self) -> None:
        wait_until_sync(lambda: self.get("/showcase").json()["status"] == "open", "the showcase opens", timeout=30)

    def assert_clean_start(self) -> None:
        """Up to now (the showcase open), this start logged no WARNING or ERROR, and the first
        run's private boot stopped as a server stops (its admin row taken away, not aged out)."""
        loud = [line for line in self.this_run().splitlines() if LOUD.match(line) or "not removed at stop" in line]
        assert not loud, "a normal start logged:\n" + "\n".join(loud)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(30)


@pytest.fixture
def demo_dir():
    # Not under pytest's tmp_path: as root, PostgreSQL runs as `postgres`, which must reach it.
    root = Path(tempfile.mkdtemp(prefix="playsite-demo-test-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)
