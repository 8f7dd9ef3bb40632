"""The play page with a keyboard only: arrow keys move between squares, Enter picks, and a
whole turn is built and played without a mouse."""

from __future__ import annotations

import random

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.turns import king_sparing_turn
from tests.support.waiting import wait_until_sync
from tests.web.test_browser import pending

FILES = "abcdefgh"


@pytest.fixture
def server(serve):
    return serve({"DICE_SEED_WINDOW_MS": "0"})


def arrows(start: str, end: str) -> list[str]:
    """The arrow keys from `start` to `end` on a board seen from White."""
    across = FILES.index(end[0]) - FILES.index(start[0])
    up = int(end[1]) - int(start[1])
    return ["ArrowRight" if across > 0 else "ArrowLeft"] * abs(across) + ["ArrowUp" if up > 0 else "ArrowDown"] * abs(up)


def test_a_turn_is_built_and_played_with_the_keyboard(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    game_id = game["gameId"]
    pages = {}
    for seat in ("White", "Black"):
        page = context.new_page() if seat == "White" else context.browser.new_context().new_page()
        page.goto(f"{base}/play/{game_id}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
        pages[seat] = page
    white = pages["White"]
    state = wait_until_sync(lambda: (s := pending(base, game_id)) and s["activeSeat"] == "White" and s, "White's roll")
    expect(white.locator("#status")).to_have_attribute("data-status", "your-turn")
    roll = httpx.get(f"{base}/games/{game_id}/moves", timeout=10).json()
    moves = king_sparing_turn(roll["legalMoves"], roll["dfen"], "White", random.Random(4))
    white.focus('[data-square="a1"]')  # where Tab enters the board
    at = "a1"
    for uci in moves:
        for square in (uci[:2], uci[2:4]):
            for key in arrows(at, square):
                white.keyboard.press(key)
            expect(white.locator(f'[data-square="{square}"]')).to_be_focused()
            white.keyboard.press("Enter")
            at = square
        if len(uci) == 5:
            white.focus(f'#promotion button[data-move="{uci}"]')
            white.keyboard.press("Enter")
        expect(white.locator("#partial")).to_contain_text(uci)
    white.focus("#submit")
    white.keyboard.press("Enter")
    expect(pages["Black"].locator("#history")).to_contain_text(f"White: {' '.join(moves)}")
    assert state["activeSeat"] == "White"
