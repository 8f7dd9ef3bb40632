"""A seat whose connection drops comes back by itself and plays on from the server's Snapshot;
and every page, on a desktop and on a phone, saved as a screenshot artefact."""

from __future__ import annotations

import random
import re

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.artifacts import screenshot
from tests.support.browser import PHONE, finished_game, pending, play_turn, turn_in_list
from tests.support.waiting import wait_until_sync


@pytest.fixture(scope="module")
def server():
    from tests.support.server import ServerProcess

    process = ServerProcess({"DICE_SEED_WINDOW_MS": "0", "PLAY_HOUSE_BOTS": "true"}).start()
    yield process
    process.close()


def test_a_dropped_connection_reconnects_and_the_game_goes_on(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    game_id = game["gameId"]
    pages, sockets = {}, {}
    for seat in ("White", "Black"):
        page = context.new_page() if seat == "White" else context.browser.new_context().new_page()
        sockets[seat] = []

        def relay(route, opened=sockets[seat]):
            opened.append((route, route.connect_to_server()))  # a pass-through we can cut

        page.route_web_socket(re.compile(r".*/games/.*/ws.*"), relay)
        page.goto(f"{base}/play/{game_id}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        pages[seat] = page
    rng = random.Random(5)
    state = wait_until_sync(lambda: pending(base, game_id), "the first roll")
    mover = pages[state["activeSeat"]]

    # The connection drops under the page (both ends closed abnormally, as a network would).
    page_end, server_end = sockets[state["activeSeat"]][-1]
    server_end.close(code=4000, reason="dropped")
    page_end.close(code=4000, reason="dropped")
    expect(mover.locator("#connection")).not_to_have_attribute("data-state", "open")
    expect(mover.locator("#connection-lost")).to_be_visible()  # the bar says so while away
    expect(mover.locator("#connection")).to_have_attribute("data-state", "open", timeout=30_000)
    expect(mover.locator("#connection-lost")).to_be_hidden()
    assert len(sockets[state["activeSeat"]]) == 2  # it came back on a new socket
    # The fresh Snapshot gives the mover its roll back: it plays on as if nothing happened.
    expect(mover.locator("#status")).to_have_attribute("data-status", "your-turn")
    moves = play_turn(mover, base, game_id, state["activeSeat"], rng)
    for page in pages.values():
        expect(turn_in_list(page, state["activeSeat"], moves)).to_have_count(1)


def test_every_page_on_a_desktop_and_a_phone(server, chromium, artifacts):
    game_id = finished_game(server, turns=4)
    live = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()["gameId"]
    pages = {
        "home": "/", "play": f"/play/{live}", "history": "/history", "replay": f"/replay/{game_id}",
        "ranking": "/ranking", "bot-profile": "/@/house/greedy",
    }
    for device, viewport in (("desktop", {"width": 1280, "height": 800}), ("phone", PHONE)):
        context = chromium.new_context(viewport=viewport)
        errors: list[str] = []
        try:
            page = context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            for name, path in pages.items():
                page.goto(server.base_url + path)
                expect(page.locator("header.site")).to_be_visible()
                page.wait_for_load_state("networkidle")
                saved = screenshot(page, artifacts, f"{name}-{device}")
                assert saved.stat().st_size > 2000, f"{saved} looks empty"
        finally:
            context.close()
        assert not errors, f"script errors on the {device}: {errors}"


def test_a_server_that_says_it_is_restarting_is_tried_again_every_second(server, context):
    """Play-through (session 62): after a restart the page's backoff (1, 2, 4, 8, 15 s) came
    back 8 s after the new process answered, and the player to move lost those seconds. A close
    saying "the server is restarting" (1013, as a stopping server sends it) is followed by a try
    every second: here the next four are refused (the server still down), the fifth comes about
    5 s after the close, where the backoff's would come after 30."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    attempts = []

    def relay(route):
        attempts.append(route)
        if 1 < len(attempts) <= 5:
            route.close(code=1011, reason="down")  # refused before it opens, as a closed port is
            return
        route.connect_to_server()

    page = context.new_page()
    page.route_web_socket(re.compile(r".*/games/.*/ws.*"), relay)
    page.goto(f"{base}/play/{game['gameId']}#seat=White&token={game['seats']['white']['token']}")
    expect(page.locator("#connection")).to_have_attribute("data-state", "open")
    attempts[0].close(code=1013, reason="the server is restarting: reconnect for a fresh snapshot")
    expect(page.locator("#connection")).not_to_have_attribute("data-state", "open")
    expect(page.locator("#connection")).to_have_attribute("data-state", "open", timeout=15_000)
    assert len(attempts) == 6, len(attempts)
    expect(page.locator("#connection-lost")).to_be_hidden()
