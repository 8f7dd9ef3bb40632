"""`playsite demo` as a newcomer runs it: a real process with its own PostgreSQL, the featured
bot answering by webhook, the showcase open; stopped and started again on the same data."""

from __future__ import annotations

import json
import random
import re
import uuid

import httpx
import pytest

from playsite.store.migrations import load_migrations
from playsite.wire import TurnPlayed
from tests.support.client import Player, seated
from tests.support.browser import launch
from tests.support.demo import Demo, demo_dir, play_turn  # noqa: F401 (a fixture)
from tests.support.waiting import deadline, wait_until_sync

pytestmark = pytest.mark.postgres

METRICS_TOKEN = "demo-metrics-token"


def loop_lag_samples(demo: Demo) -> float:
    """How many times the event loop's watch has sampled (`/metrics`): none until it is armed."""
    text = httpx.get(demo.url + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10).text
    found = re.search(r"^playsite_event_loop_lag_seconds_count (\S+)$", text, re.M)
    assert found, text
    return float(found[1])


async def test_the_demo_serves_the_showcase_with_its_bot_and_keeps_games_across_a_restart(demo_dir):
    data, log = demo_dir / "demo", demo_dir / "demo.log"
    demo = Demo(data, log, env={"PLAY_METRICS_TOKEN": METRICS_TOKEN})
    try:
        health = demo.get("/health").json()
        assert health["store"] == {"kind": "postgres", "durable": True, "reachable": True}
        # Served as `playsite serve` serves: once the port is open the event loop's watch is armed.
        wait_until_sync(lambda: loop_lag_samples(demo) > 0, "the event loop's watch samples", timeout=10)
        demo.wait_open()
        demo.assert_clean_start()
        assert (data / "featured-bot.json").stat().st_mode & 0o777 == 0o600
        token = json.loads((data / "featured-bot.json").read_text())["token"]

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
                await player.play_until_then_resign(
                    rng, lambda events: any(isinstance(e, TurnPlayed) and e.seat == bot_seat for e in events))
        wait_until_sync(lambda: demo.get("/showcase").json()["status"] == "open", "the table reopens", timeout=30)
    finally:
        assert demo.stop() == 0, demo.output()
    assert "playsite demo: stopped (PostgreSQL too)" in demo.output()
    assert not (data / "postgres" / "data" / "postmaster.pid").exists(), "PostgreSQL stopped with the demo"

    again = Demo(data, log)
    try:
        history = again.get(f"/games/{claim['gameId']}/history")
        assert history.status_code == 200 and history.json()["gameId"] == claim["gameId"]
        again.wait_open()
        again.assert_clean_start()  # no failed probe of the previous run's bot, no table "unavailable"
        assert json.loads((data / "featured-bot.json").read_text())["token"] == token, "the bot keeps its identity"
        # The log file is shared by both starts: every migration appears once, from the first.
        assert again.output().count("applied migration") == len(load_migrations()), "migrations ran on the first start only"
    finally:
        assert again.stop() == 0, again.output()


def test_a_visitor_claims_the_showcase_in_a_browser_and_plays_the_featured_bot(demo_dir):
    from playwright.sync_api import expect, sync_playwright

    demo = Demo(demo_dir / "demo", demo_dir / "demo.log", "--no-league")
    try:
        demo.wait_open()
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                # a visitor of the home page watching the table: the cards under it stay put as
                # it goes live (play-through, session 55: "Create a game" moved up 23 px)
                home = browser.new_page(viewport={"width": 1366, "height": 900})
                home.goto(demo.url + "/")
                expect(home.locator("#showcase-status")).to_have_attribute("data-status", "open")
                below = home.locator("#friend-create").bounding_box()["y"]
                page = browser.new_page()
                page.goto(demo.url + "/")
                expect(page.locator("#showcase-status")).to_have_attribute("data-status", "open")
                with page.expect_request("**/showcase/claim") as claim:
                    page.click("#showcase-claim")
                # the visitor's share of the dice goes with the claim (this demo's seed window is 0
                # for speed, so here it comes too late to count; tests/showcase follow it into the dice)
                assert re.fullmatch(r"[0-9a-f]{32}", claim.value.post_data_json["clientEntropy"])
                expect(page).to_have_url(re.compile(r"/play/[0-9a-f-]{36}$"))
                game_id = page.url.split("/play/")[1]
                assert "token" not in page.url, "the seat token never reaches the address bar"
                claimed = demo.get(f"/games/{game_id}").json()
                assert claimed["players"]["black"] == {"kind": "Bot", "name": "demo featured"}
                expect(home.locator("#showcase-status")).to_have_attribute("data-status", "live")
                # whom the bot plays, and which side (play-through s58: "is playing a game now" only)
                expect(home.locator("#showcase-status")).to_have_text(
                    "demo/featured (Black) is playing Anonymous (White): watch it.")
                assert abs(home.locator("#friend-create").bounding_box()["y"] - below) < 1
                expect(page.locator("#status")).to_have_attribute("data-status", "your-turn", timeout=15_000)
                play_turn(page, demo.url, game_id, random.Random(5))
                # The bot answers by webhook: White's turn again (after its turn or its forced
                # pass), or the game is over (it may have taken an exposed king).
                wait_until_sync(
                    lambda: (s := demo.get(f"/games/{game_id}").json())["activeSeat"] == "White" or "Active" not in s["status"],
                    "the featured bot answers", timeout=15,
                )
                expect(page.locator("#status")).to_have_attribute("data-status", re.compile("your-turn|ended"))
                # (Not through the home page's Watch link: the bot may already have won by
                # capturing an exposed king, and the table reopened.)
                watcher = browser.new_page()
                watcher.goto(f"{demo.url}/play/{game_id}")
                expect(watcher.locator('[data-square="e2"]')).to_be_visible()
                expect(watcher.locator("#status")).to_have_attribute("data-status", re.compile(".+"))
                # Its end offers the table again (play-through s61: only "New game", to the home
                # page, where the table is): a new game of this visitor's, not a rematch. White's turn
                # waits for the visitor, so the game is over only if the bot ended it already.
                if "Active" in demo.get(f"/games/{game_id}").json()["status"]:
                    page.click("#resign")
                    page.click("#confirm-yes")
                again = page.locator("#showcase-again")
                expect(again).to_have_text("Play demo/featured again")
                expect(page.locator("#bot-again")).to_be_hidden()  # the table's own, not the lobby's
                expect(watcher.locator("#showcase-again")).to_be_hidden()  # a spectator is offered no seat
                again.click()
                expect(page).not_to_have_url(re.compile(game_id), timeout=30_000)
                expect(page.locator("#role")).to_have_text(re.compile("^You play (White|Black)$"))
                expect(page.locator("#player-black .name, #player-white .name")).to_contain_text(["featured"])
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
        demo.wait_open()
        assert "pgserver" in (demo_dir / "demo" / "postgres" / "data" / "postmaster.opts").read_text()
    finally:
        assert demo.stop() == 0, demo.output()
