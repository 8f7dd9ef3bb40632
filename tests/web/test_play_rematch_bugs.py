"""The rematch control when things go wrong (issue 29, bugs 8 and 9), in real Chromium against a
real `playsite serve` on PostgreSQL: a refused rematch command shows its error and gives the
control back; when the server goes away the countdown stops, the buttons are disabled and a
"connection lost" bar shows, while a normal end never reads as a lost connection."""

from __future__ import annotations

import json
import random
import re

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.browser import pending, build_turn, open_seats
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.server import free_port
from tests.support.waiting import wait_until_sync

pytestmark = pytest.mark.postgres
COUNTDOWN = re.compile(r"\(\d+\u00a0s\)")  # a no-break space: the count never wraps apart


@pytest.fixture
def server(serve, migrated_url):
    port = free_port()
    # The pages' own origin must be allowed: rematch commands need an exact allowed Origin.
    return serve({
        "DATABASE_URL": migrated_url, "DICE_SEED_WINDOW_MS": "0", "PLAY_PORT": str(port),
        "PLAY_CORS_ORIGINS": f"http://127.0.0.1:{port}",
    })


def spoil_the_request_id(route):
    """The page's command goes to the real server with a request id it must refuse (400)."""
    body = json.loads(route.request.post_data)
    route.continue_(post_data=json.dumps({**body, "requestId": "not-a-uuid"}))


def test_a_refused_rematch_shows_why_and_a_lost_server_stops_the_countdown(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    game_id = game["gameId"]
    pages = open_seats(context, base, game, apart=True)  # two guests: a rematch needs two people
    rng = random.Random(3)
    played = set()
    while played != {"White", "Black"}:
        seat = wait_until_sync(lambda: (pending(base, game_id) or {}).get("activeSeat"), "a roll to play")
        expect(pages[seat].locator("#status")).to_have_attribute("data-status", "your-turn")
        build_turn(pages[seat], base, game_id, seat, rng)
        pages[seat].click("#submit")
        expect(pages[seat].locator("#partial")).to_have_attribute("data-moves", "")
        played.add(seat)
    white = pages["White"]
    white.click("#resign")
    white.click("#confirm-yes")
    propose = white.locator('#rematch-slot button[data-action="propose"]')
    expect(propose).to_be_enabled()
    expect(white.locator("#rematch-status")).to_have_text(COUNTDOWN)
    expect(white.locator("#connection-lost")).to_be_hidden()  # the socket's normal close is no loss

    # Bug 9: the command is refused; the page says so and the button can be pressed again.
    white.route(f"**/games/{game_id}/rematch", lambda route: spoil_the_request_id(route)
                if route.request.method == "POST" else route.continue_())
    propose.click()
    expect(white.locator("#rematch-error")).to_be_visible()
    expect(white.locator("#rematch-error")).not_to_be_empty()
    expect(propose).to_be_enabled()

    # Bug 8: the server goes away.
    server.kill()
    expect(white.locator("#connection-lost")).to_be_visible()
    expect(white.locator("#connection-lost")).to_contain_text("reconnecting")
    expect(propose).to_be_disabled()
    expect(white.locator("#rematch-status")).not_to_have_text(COUNTDOWN)
