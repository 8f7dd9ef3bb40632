"""`playsite demo` as a newcomer runs it: a real process with its own PostgreSQL, the featured
bot answering by webhook, the showcase open; stopped and started again on the same data."""

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
import uuid
from pathlib import Path

import httpx
import pytest

from playsite.store.migrations import load_migrations
from playsite.wire import GameEnded, Resign, TurnPlayed, encode_command
from tests.support.client import Player, seated
from tests.support.waiting import deadline, wait_until_sync

pytestmark = pytest.mark.postgres
LISTENING = re.compile(r"playsite: listening on (http://127\.0\.0\.1:\d+)")
BOOT_TIMEOUT_S = 60


class Demo:
    def __init__(self, data: Path, log: Path):
        self.log = log
        before = len(LISTENING.findall(self.output())) if log.exists() else 0
        env = {**os.environ, "DICE_SEED_WINDOW_MS": "0"}
        env.pop("DATABASE_URL", None)
        with open(log, "ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "playsite", "demo", "--port", "0", "--dir", str(data)],
                stdout=out, stderr=subprocess.STDOUT, env=env,
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

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.url + path, timeout=10)

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


async def test_the_demo_serves_the_showcase_with_its_bot_and_keeps_games_across_a_restart(demo_dir):
    data, log = demo_dir / "demo", demo_dir / "demo.log"
    demo = Demo(data, log)
    try:
        health = demo.get("/health").json()
        assert health["store"] == {"kind": "postgres", "durable": True, "reachable": True}
        wait_until_sync(lambda: demo.get("/showcase").json()["status"] == "open", "the showcase opens", timeout=30)
        assert (data / "featured-bot.json").stat().st_mode & 0o777 == 0o600
        token_file = (data / "featured-bot.json").read_text()

        guest = str(uuid.uuid4())
        claim = httpx.post(demo.url + "/showcase/claim", json={"guestId": guest},
                           headers={"Idempotency-Key": str(uuid.uuid4())}, timeout=10).json()
        assert claim["outcome"] == "claimed"
        ws_base = demo.url.replace("http://", "ws://")
        game = {"gameId": claim["gameId"], "seats": {claim["seat"].lower(): {"wsUrl": claim["wsUrl"]}}}
        player = Player(ws_base, game, claim["seat"])
        player.url = ws_base + claim["wsUrl"]
        rng, bot_seat = random.Random(1), "Black" if claim["seat"] == "White" else "White"
        async with seated(player):
            with deadline(60, "the featured bot answers a turn by webhook"):
                while not any(isinstance(e, TurnPlayed) and e.seat == bot_seat for e in player.events):
                    if player.tree is not None:
                        await player.play(rng)
                    else:
                        await player.receive()
            if not any(isinstance(e, GameEnded) for e in player.events):  # the bot may have taken the king
                await player.ws.send_message(encode_command(Resign()))
                await player.until(lambda e: isinstance(e, GameEnded))
        wait_until_sync(lambda: demo.get("/showcase").json()["status"] == "open", "the table reopens", timeout=30)
    finally:
        assert demo.stop() == 0, demo.output()
    assert "playsite demo: stopped (PostgreSQL too)" in demo.output()
    assert not (data / "postgres" / "data" / "postmaster.pid").exists(), "PostgreSQL stopped with the demo"

    again = Demo(data, log)
    try:
        history = again.get(f"/games/{claim['gameId']}/history")
        assert history.status_code == 200 and history.json()["gameId"] == claim["gameId"]
        wait_until_sync(lambda: again.get("/showcase").json()["status"] == "open", "the showcase opens again", timeout=30)
        assert (data / "featured-bot.json").read_text() == token_file, "the bot keeps its identity"
        # The log file is shared by both starts: every migration appears once, from the first.
        assert again.output().count("applied migration") == len(load_migrations()), "migrations ran on the first start only"
    finally:
        assert again.stop() == 0, again.output()


def test_a_visitor_claims_the_showcase_in_a_browser_and_plays_the_featured_bot(demo_dir):
    from playwright.sync_api import expect, sync_playwright

    from tests.web.test_browser import ARGS, CHROMIUM, play_turn

    demo = Demo(demo_dir / "demo", demo_dir / "demo.log")
    try:
        wait_until_sync(lambda: demo.get("/showcase").json()["status"] == "open", "the showcase opens", timeout=30)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                page = browser.new_page()
                page.goto(demo.url + "/")
                expect(page.locator("#showcase-status")).to_have_attribute("data-status", "open")
                page.click("#showcase-claim")
                expect(page.locator("#role")).to_have_text("You play White")
                game_id = page.url.split("/play/")[1]
                assert "token" not in page.url, "the seat token never reaches the address bar"
                expect(page.locator("#status")).to_have_attribute("data-status", "your-turn", timeout=15_000)
                moves = play_turn(page, demo.url, game_id, "White", random.Random(5))
                expect(page.locator("#history")).to_contain_text(f"White: {' '.join(moves)}")
                # The bot answered by webhook (its turn, or its forced pass, is the second entry).
                expect(page.locator("#history li").nth(1)).to_contain_text("Black:", timeout=15_000)
                # (Not through the home page's Watch link: the bot may already have won by
                # capturing an exposed king, and the table reopened.)
                watcher = browser.new_page()
                watcher.goto(f"{demo.url}/play/{game_id}")
                expect(watcher.locator("#role")).to_have_text("Watching")
                expect(watcher.locator("#history li").nth(1)).to_contain_text("Black:")
            finally:
                browser.close()
    finally:
        assert demo.stop() == 0, demo.output()


def test_the_demo_runs_on_the_postgresql_of_the_pgserver_wheel(demo_dir, monkeypatch):
    monkeypatch.setenv("PLAYSITE_DEMO_POSTGRES", "bundled")
    from playsite.demo.postgres import bundled_bindir, find_bindir

    assert find_bindir() == bundled_bindir() and "pgserver" in str(bundled_bindir())
    demo = Demo(demo_dir / "demo", demo_dir / "demo.log")
    try:
        assert demo.get("/health").json()["store"]["kind"] == "postgres"
        wait_until_sync(lambda: demo.get("/showcase").json()["status"] == "open", "the showcase opens", timeout=30)
        assert "pgserver" in (demo_dir / "demo" / "postgres" / "data" / "postmaster.opts").read_text()
    finally:
        assert demo.stop() == 0, demo.output()
