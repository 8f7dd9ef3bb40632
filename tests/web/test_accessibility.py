"""axe-core on every page of the web client, in Chromium against a real `playsite serve`: no
serious or critical violation, in the light and the dark theme, on a desktop and a phone.

The pages are checked as a person sees them: the home page with its bots, seeks and live
games drawn, a game from a seat and as a spectator, a finished game's replay verified, the
history, the ranking, a profile, and the not-found page."""

from __future__ import annotations

import uuid

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.axe import serious_violations
from tests.support.browser import PHONE, bots_game, finished_game
from tests.support.server import ServerProcess

DESKTOP = {"width": 1366, "height": 900}


@pytest.fixture(scope="module")
def site():
    server = ServerProcess({"DICE_SEED_WINDOW_MS": "0", "PLAY_HOUSE_BOTS": "true"}).start()
    try:
        server.finished = finished_game(server, 2)
        httpx.post(f"{server.base_url}/lobby/seeks", json={"creator": str(uuid.uuid4())}, timeout=10)
        # a game under way for the home page's wall (one nobody has joined is not shown there),
        # between bots: a person's seat never taken would end it 30 s on, before the last theme's turn
        bots_game(server.base_url)
        yield server
    finally:
        server.close()


def pages(server) -> dict[str, tuple[str, str]]:
    """name -> (path, a selector shown once the page has drawn what it reads)."""
    live = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    white = live["seats"]["white"]["token"]
    return {
        "home": ("/", "#live-games .tile"),
        "play, a seat": (f"/play/{live['gameId']}#seat=White&token={white}", "#connection[data-state=open]"),
        "play, a spectator": (f"/play/{live['gameId']}", "#connection[data-state=open]"),
        "history": ("/history", f'li[data-game="{server.finished}"]'),
        "replay": (f"/replay/{server.finished}", "#fairness[data-state=verified]"),
        "ranking": ("/ranking", "#ranking-message:not(:empty)"),
        "strength": ("/ranking/strength", "#strength-message:not(:empty)"),
        "profile": ("/@/house/greedy", "#profile-message:not(:empty)"),
        "rules": ("/rules", "#all-faces .die"),
        "not found": ("/no/such/page", "#missing-path:not(:empty)"),
    }


@pytest.mark.parametrize(("scheme", "viewport"), [("light", DESKTOP), ("dark", DESKTOP), ("light", PHONE), ("dark", PHONE)],
                         ids=["light-desktop", "dark-desktop", "light-phone", "dark-phone"])
def test_no_serious_or_critical_violation_on_any_page(site, chromium, scheme, viewport):
    context = chromium.new_context(bypass_csp=True, color_scheme=scheme, viewport=viewport)
    try:
        page = context.new_page()
        found = {}
        for name, (path, shown) in pages(site).items():
            page.goto(site.base_url + path)
            expect(page.locator(shown).first).to_be_visible()
            page.wait_for_load_state("networkidle")
            violations = serious_violations(page)
            if violations:
                found[name] = violations
        assert found == {}, found
    finally:
        context.close()
