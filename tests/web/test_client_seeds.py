"""The play page adds its seat's share of the dice: a random client seed sent before the first
roll, so no roll follows from the server's seed alone; the showcase's claim sends one too."""

from __future__ import annotations

import re
import time

import httpx
from playwright.sync_api import expect

from tests.support.browser import open_seats, seat_link
from tests.support.server import module_server
from tests.support.waiting import wait_until_sync

server = module_server({"PLAY_HOUSE_BOTS": "true", "DICE_SEED_WINDOW_MS": "20000"})
HEX_SEED = re.compile(r"^[0-9a-f]{32}$")


def test_both_pages_send_a_seed_and_the_first_roll_comes_without_waiting_the_window(server, context):
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    # White's page, reloaded while Black has not come: its second seed is ignored quietly
    white = context.new_page()
    white.goto(seat_link(server.base_url, game, "White"))
    expect(white.locator("#connection")).to_have_attribute("data-state", "open")
    white.reload()
    expect(white.locator("#connection")).to_have_attribute("data-state", "open")
    expect(white.locator("#status")).to_have_attribute("data-status", "waiting-players")
    white.wait_for_timeout(500)  # the duplicate's answer has come back by now
    assert white.locator("#message").inner_text() == "", "an ignored seed is no error of the player's"
    white.close()
    started = time.monotonic()
    pages = open_seats(context, server.base_url, game)
    # both seeds in: the room rolls at once rather than at the end of the 20 s window
    wait_until_sync(lambda: httpx.get(f"{server.base_url}/games/{game['gameId']}", timeout=10).json()["dicePending"],
                    "the first roll", timeout=15)
    assert time.monotonic() - started < 15
    pages["White"].click("#resign")
    pages["White"].click("#confirm-yes")
    expect(pages["Black"].locator("#result-title")).to_be_visible()
    state = httpx.get(f"{server.base_url}/games/{game['gameId']}", timeout=10).json()
    seeds = state["clientSeeds"]
    assert HEX_SEED.match(seeds["white"]) and HEX_SEED.match(seeds["black"]) and seeds["white"] != seeds["black"], seeds
