"""The play page says how many people watch the game ("N watching"), from GET /games/{id}/watching."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.support.waiting import wait_until_sync


def test_a_player_sees_how_many_watch(serve, chromium):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    context = chromium.new_context()
    try:
        watchers = []
        for _ in range(2):
            page = context.new_page()
            page.goto(f"{server.base_url}/play/{game['gameId']}")
            expect(page.locator("#connection")).to_have_attribute("data-state", "open")
            watchers.append(page)
        player = context.new_page()
        token = game["seats"]["white"]["token"]
        player.goto(f"{server.base_url}/play/{game['gameId']}#seat=White&token={token}")
        expect(player.locator("#watching")).to_have_text("2 watching")
        expect(player.locator("#watching")).to_be_visible()
    finally:
        context.close()


def test_nobody_watching_shows_nothing(serve, chromium):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    context = chromium.new_context()
    try:
        player = context.new_page()
        token = game["seats"]["white"]["token"]
        with player.expect_response(lambda response: response.url.endswith("/watching")):
            player.goto(f"{server.base_url}/play/{game['gameId']}#seat=White&token={token}")
        expect(player.locator("#connection")).to_have_attribute("data-state", "open")
        expect(player.locator("#watching")).to_be_hidden()
    finally:
        context.close()


def test_a_spectator_is_counted_on_their_own_page_once_connected(serve, chromium):
    """Play-through (session 61): a spectator's page read the count as it loaded, before its own
    socket was held, and said nothing for the next 20 s (the period of the read); it reads again
    once its socket is open."""
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    context = chromium.new_context()
    try:
        page = context.new_page()
        reads = []
        page.on("request", lambda request: reads.append(request.url) if request.url.endswith("/watching") else None)
        page.goto(f"{server.base_url}/play/{game['gameId']}")
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        # the read as it loads, and one once connected: well inside the 20 s period (the
        # evaluate lets Playwright take in the page's requests meanwhile)
        wait_until_sync(lambda: page.evaluate("1") and len(reads) >= 2, "a second read of the count", timeout=8)
        expect(page.locator("#watching")).to_have_text("1 watching")
    finally:
        context.close()
