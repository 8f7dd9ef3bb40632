"""The play and replay pages between a phone and a desktop, in real Chromium against a real
`playsite serve` (play-through s68). On a tablet held upright the page beside the board left the
board under two thirds of the width (472 px of a 768 x 1024 tablet's 768, 728 of a 1024 x 1366
one's) and was itself too narrow for the board's tools, which ran 51-111 px past the window's
right edge in every window 761-1,024 px wide with a panel of 272-332 px. A tablet held upright
(up to 1,100 px wide, at least 6/5 as tall) now has the phone's one column, and the tools wrap
where the panel beside the board is narrow."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.browser import TURN_IN_VIEW, finished_game, play_a_bot, touch_screen
from tests.support.server import module_server
from tests.support.waiting import wait_until_sync

# a first move may wait (the window is resized while one is due), as long as a slow machine needs
server = module_server({"DICE_SEED_WINDOW_MS": "0", "PLAY_HOUSE_BOTS": "true", "PLAY_FIRST_MOVE_S": "600"})

OVER_THE_RIGHT_EDGE = "document.documentElement.scrollWidth - innerWidth"
# where the panel stands against the board: under it (one column) or beside it
PANEL = """() => { const board = document.getElementById("board").getBoundingClientRect();
    const panel = document.querySelector(".panel").getBoundingClientRect();
    return { under: panel.top >= board.bottom, beside: panel.left >= board.right }; }"""


def resign(page) -> None:
    """The bot's seat back for the file's other games (a house bot plays 8 at once)."""
    page.click("#resign")
    page.click("#confirm-yes")
    expect(page.locator("#result")).to_be_visible()


# a 768 x 1024 tablet's browser with its bars shown, and a 1024 x 1366 one's
@pytest.mark.parametrize("size", [(768, 954), (1024, 1292)])
def test_a_tablet_held_upright_plays_in_one_column_with_its_turn_on_one_screen(server, chromium, size):
    width, height = size
    made = touch_screen(chromium, width, height)
    try:
        page = made.new_page()
        play_a_bot(page, server.base_url)
        expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
        measured = wait_until_sync(lambda: (m := page.evaluate(TURN_IN_VIEW))["submitBottom"] <= m["height"] and m,
                                   "Play this turn inside the screen", timeout=5)
        assert measured["stripTop"] >= 0, measured  # the board's top (and its line of moves) in view too
        # beside the panel: 472 of 752 px (63%) and 728 of 1,008 (72%); now 79% and 93%
        assert measured["board"] >= 0.75 * (width - 16), measured
        assert page.evaluate(PANEL)["under"]
        assert page.evaluate(OVER_THE_RIGHT_EDGE) <= 0
        expect(page.locator("#move-strip")).to_be_visible()  # the phone's line of moves over the board
        resign(page)
    finally:
        made.close()


def test_no_window_between_a_phone_and_a_desktop_runs_past_its_right_edge(server, chromium):
    """One game, its window resized: beside the board where the window is wider than it is tall
    (or not tall enough for one column), under it on a tablet held upright."""
    made = chromium.new_context(viewport={"width": 1366, "height": 900})
    try:
        page = made.new_page()
        play_a_bot(page, server.base_url)
        expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
        for width, height, column in ((800, 600, "beside"), (820, 700, "beside"), (900, 700, "beside"),
                                      (900, 1000, "beside"), (1024, 768, "beside"), (768, 1024, "under"),
                                      (834, 1112, "under"), (1024, 1366, "under"), (1280, 800, "beside")):
            page.set_viewport_size({"width": width, "height": height})
            wait_until_sync(lambda: page.evaluate(PANEL)[column], f"the panel {column} the board at {width} x {height}",
                            timeout=5)
            expect(page.locator("#quick-turns")).to_be_visible()
            # the board drawn at the window's size (play.js's fit, on the frame after a resize)
            wait_until_sync(lambda: page.evaluate(OVER_THE_RIGHT_EDGE) <= 0, f"nothing past the right edge at {width} x {height}",
                            timeout=5)
            tools = page.locator("#quick-turns").bounding_box()
            assert tools["x"] + tools["width"] <= width, (width, height, tools)
            # the desktop's rules (the move list down the panel, its tools at the foot) exactly beside
            stretched = page.evaluate("getComputedStyle(document.querySelector('main.game')).alignItems") == "stretch"
            assert stretched == (column == "beside"), (width, height)
        resign(page)
    finally:
        made.close()


def test_a_spectator_s_and_the_replay_s_board_take_an_upright_tablet_s_width(server, chromium):
    """A spectator's board with both its strips within the window's height (a tablet's board takes
    the width only as far as that); the replay's board across the width, the list under it (beside
    it, the board had 592 of a 1024 x 1366 tablet's 1,008 px), as far as the window's height
    leaves its steps in view (at 768 x 954 they were 50 px under the window's foot)."""
    game_id = finished_game(server, 2)
    made = touch_screen(chromium, 1024, 1366)
    try:
        page = made.new_page()
        for width, height, least in ((1024, 1366, 0.95), (768, 954, 0.85)):
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{server.base_url}/replay/{game_id}")
            frame = page.locator(".replay-board .board-frame")
            expect(frame).to_be_visible()
            board, panel = frame.bounding_box(), page.locator(".replay-panel").bounding_box()
            assert board["width"] >= least * (width - 16) and panel["y"] >= board["y"] + board["height"], (board, panel)
            steps = page.locator("#steps").bounding_box()
            assert steps["y"] + steps["height"] <= height, (width, height, steps)
        page.set_viewport_size({"width": 1024, "height": 1366})

        play_a_bot(page, server.base_url)  # a game under way, then watched from another window
        game_url = page.url.split("#")[0]
        watcher = made.browser.new_context(viewport={"width": 1024, "height": 1366}, is_mobile=True).new_page()
        watcher.goto(game_url)
        expect(watcher.locator("#role")).to_have_text("Watching")
        table = wait_until_sync(lambda: (t := watcher.locator("#table").bounding_box())["width"] > 900 and t,
                                "the watched board across the width", timeout=5)
        assert table["y"] + table["height"] <= 1366, table
        assert watcher.evaluate(PANEL)["under"]
        watcher.context.close()
        resign(page)
    finally:
        made.close()


def test_a_tablet_s_lobby_shows_the_pairing_a_friend_s_game_and_the_bots_in_its_first_screen(server, chromium):
    """Play-through s68: at 768 x 1024 the lobby was one column, a bot's Play under the screen's
    foot (its foot 1,118 px down here, 1,256 in the demo with its featured bot). From 768 px wide it
    has two even columns; the live games go two a row in theirs. Under 768 px, one column as before."""
    for width, height, columns in ((768, 1024, 2), (834, 1112, 2), (767, 1000, 1)):
        made = touch_screen(chromium, width, height)
        try:
            page = made.new_page()
            page.goto(server.base_url + "/")
            play = page.locator("#bot-list .bot button").first
            expect(play).to_be_visible()
            pairing, bots = page.locator("#pairing-grid").bounding_box(), play.bounding_box()
            if columns == 2:
                assert bots["y"] + bots["height"] <= height, (width, bots)  # a bot's Play in the first screen
                assert bots["x"] >= pairing["x"] + pairing["width"], (width, bots, pairing)  # beside the pairing
                tracks = page.evaluate("getComputedStyle(document.querySelector('.wall')).gridTemplateColumns")
                assert len(tracks.split()) == 2, tracks
            else:
                assert bots["y"] >= pairing["y"] + pairing["height"], (width, bots, pairing)  # under it
            assert page.evaluate(OVER_THE_RIGHT_EDGE) <= 0
        finally:
            made.close()

