"""The play page says how many people watch the game ("N watching"), as its socket's `Watching`
frames tell it: after the Snapshot, and within a second of a change (play-through s63: read
every 20 s, the count lagged behind a spectator's coming and going)."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect


def test_a_player_sees_spectators_come_and_go_within_seconds(serve, chromium):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    context = chromium.new_context()
    others = []  # other browsers: this one holds the seat, and would open the game in it
    try:
        player = context.new_page()
        reads = []
        player.on("request", lambda request: reads.append(request.url) if request.url.endswith("/watching") else None)
        token = game["seats"]["white"]["token"]
        player.goto(f"{server.base_url}/play/{game['gameId']}#seat=White&token={token}")
        expect(player.locator("#connection")).to_have_attribute("data-state", "open")
        expect(player.locator("#watching")).to_be_hidden()  # nobody watches: nothing said
        watchers = []
        for _ in range(2):
            others.append(chromium.new_context())
            page = others[-1].new_page()
            page.goto(f"{server.base_url}/play/{game['gameId']}")
            expect(page.locator("#connection")).to_have_attribute("data-state", "open")
            watchers.append(page)
        # well inside the old 20 s read: the frame comes a second after the change
        expect(player.locator("#watching")).to_have_text("2 watching", timeout=5_000)
        expect(player.locator("#watching")).to_be_visible()
        expect(watchers[0].locator("#watching")).to_have_text("2 watching")  # a spectator counts itself
        watchers.pop().context.close()
        expect(player.locator("#watching")).to_have_text("1 watching", timeout=5_000)
        watchers.pop().context.close()
        expect(player.locator("#watching")).to_be_hidden(timeout=5_000)
        assert reads == [], "told, not read"
    finally:
        for browser in [context, *others]:
            browser.close()


def test_a_spectator_is_counted_on_their_own_page_at_once(serve, chromium):
    """Play-through (session 61): a spectator's page read the count before its own socket was
    held and said nothing for 20 s. The count follows the Snapshot."""
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.goto(f"{server.base_url}/play/{game['gameId']}")
        expect(page.locator("#watching")).to_have_text("1 watching", timeout=3_000)
    finally:
        context.close()
