"""Every page at a phone's size (390 x 844) in Chromium: nothing is wider than the screen,
the board fits its width and the play page's buttons are on screen. Without sign-in
mounted, the header shows no account controls."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.support.browser import PHONE, finished_game

OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"


def test_every_page_fits_a_phone_screen(server, chromium):
    base = server.base_url
    finished = finished_game(server, 2)
    live = httpx.post(f"{base}/games", json={}, timeout=10).json()
    phone = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        white = live["seats"]["white"]["token"]
        ready = {
            "/": "#friend-create",
            f"/play/{live['gameId']}#seat=White&token={white}": "#connection[data-state=open]",
            "/history": f'li[data-game="{finished}"]',
            f"/replay/{finished}": "#fairness[data-state=verified]",
            "/ranking": "#ranking-message:has-text('no ratings')",
            "/@/alice": "#profile-message:has-text('no profiles')",
        }
        for path, shown in ready.items():
            page.goto(base + path)
            expect(page.locator(shown)).to_be_visible()
            assert page.evaluate(OVERFLOW) <= 0, f"{path} is wider than the screen"
            expect(page.locator("#account")).to_be_empty()  # this server has no sign-in
            if "/play/" in path or "/replay/" in path:
                board = page.locator("#board").bounding_box()
                assert board["x"] >= 0 and board["x"] + board["width"] <= PHONE["width"], path
                assert board["width"] >= 0.8 * PHONE["width"], "the board takes the screen's width"
            if "/play/" in path:  # no roll yet: the turn's own buttons wait (test_play_review)
                page.locator("#resign").scroll_into_view_if_needed()
                expect(page.locator("#resign")).to_be_in_viewport()
        page.goto(base + "/")
        page.click("#friend-create")
        expect(page.locator("#friend-links")).to_be_visible()  # with the friend's long link shown
        assert page.evaluate(OVERFLOW) <= 0
    finally:
        phone.close()
