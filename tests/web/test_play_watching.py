"""The play page says how many people watch the game ("N watching"), from GET /games/{id}/watching."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect


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
