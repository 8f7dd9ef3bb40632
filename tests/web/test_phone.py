"""Every page at a phone's size (390 x 844) in Chromium: nothing is wider than the screen,
the board fits its width and the play page's buttons are on screen. Without sign-in
mounted, the header shows no account controls."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.support.browser import PHONE, finished_game, text_lines
from tests.support.waiting import wait_until_sync

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
            if path == "/history":  # play-through s60: each pill's words on two lines, a row four lines
                lines = [[pill.text_content(), text_lines(pill)] for pill in page.locator(".choice a").all()]
                assert all(count == 1 for _, count in lines), f"a filter's words wrap: {lines}"
                row = page.locator(f'li[data-game="{finished}"]')
                facts, whole = row.locator(".meta").bounding_box(), row.bounding_box()
                assert facts["width"] >= 0.9 * whole["width"], "the game's facts share their line with Replay"
                off = row.locator("a.replay").evaluate("""(a) => { const words = document.createRange();
                    words.selectNodeContents(a); const w = words.getBoundingClientRect(), b = a.getBoundingClientRect();
                    return (w.top + w.bottom) / 2 - (b.top + b.bottom) / 2; }""")
                assert abs(off) <= 2, f"'Replay' sits {off:.1f} px off its button's middle (play-through s61: high)"
            if "/play/" in path or "/replay/" in path:
                board = page.locator("#board").bounding_box()
                assert board["x"] >= 0 and board["x"] + board["width"] <= PHONE["width"], path
                assert board["width"] >= 0.8 * PHONE["width"], "the board takes the screen's width"
            if "/play/" in path:  # no roll yet: the turn's own buttons wait (test_play_review)
                page.locator("#resign").scroll_into_view_if_needed()
                expect(page.locator("#resign")).to_be_in_viewport()
            # a finger's targets (play-through, session 60: buttons 38 px, the header's links 32);
            # the rows of a list of turns keep a list's height (the board's squares are ~45 px)
            short = page.evaluate("""() => [...document.querySelectorAll('button, .button, header.site nav a')]
                .filter((e) => e.offsetParent && !e.closest('.board, #board, .seek-table, #turns, #history'))
                .map((e) => [e.id || e.textContent.trim().slice(0, 20), e.getBoundingClientRect().height])
                .filter(([, height]) => height < (/* a link of the header */ 40) - 0.5)""")
            assert short == [], f"{path}: under 40 px tall: {short}"
        page.goto(base + "/")
        page.click("#friend-create")
        expect(page.locator("#invite")).to_be_visible()  # the game's page, with the friend's long link shown
        assert page.evaluate(OVERFLOW) <= 0
    finally:
        phone.close()


def test_a_turn_tapped_in_a_list_far_below_the_board_brings_the_board_back(server, chromium):
    """Play-through (session 60): on a phone the list is under the panel, the board far above it;
    a tap on a turn changed a board nobody could see. The board comes back into sight."""
    base = server.base_url
    finished = finished_game(server, 24)
    # a short screen, so that the list's end leaves the whole board above it (as a live game's
    # panel, dice and buttons do on a 360 x 740 one)
    phone = chromium.new_context(viewport={"width": 360, "height": 560}, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        for path, turn, board in ((f"/play/{finished}", "#history .turn", "#table"),
                                  (f"/replay/{finished}", "#turns li button", "#board")):
            page.goto(base + path)
            first = page.locator(turn).first
            expect(first).to_be_visible()
            page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
            seen = box(page, board)
            assert seen["bottom"] < (seen["bottom"] - seen["top"]) / 2, f"{path}: the board is mostly out of sight"
            first.tap()
            wait_until_sync(lambda: (b := box(page, board))["top"] >= -1 and b["bottom"] <= 561, f"{path}: the board in sight")
    finally:
        phone.close()


def box(page, selector: str) -> dict:
    return page.locator(selector).evaluate("(e) => { const b = e.getBoundingClientRect(); return { top: b.top, bottom: b.bottom }; }")


def test_a_phone_shows_the_games_moves_in_a_line_over_the_board(server, chromium):
    """Play-through (session 61): on a phone the move list was a screen below the board. A line of
    the game's turns runs over the board, as on lichess's phone page: in the list's words, the
    newest marked and scrolled into view; a tap looks at a turn, a tap on the newest goes back.
    It holds its height before the first turn (the board never moves down when it comes), and a
    desktop, with the list beside the board, has no such line. Held sideways, it is a column
    between the clocks."""
    base = server.base_url
    finished = finished_game(server, 24)
    live = httpx.post(f"{base}/games", json={}, timeout=10).json()
    phone = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        page.goto(f"{base}/play/{live['gameId']}")
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        empty = page.locator("#move-strip").bounding_box()
        page.goto(f"{base}/play/{finished}")
        strip, turns = page.locator("#move-strip"), page.locator("#move-strip .turn")
        # the dice may pass a side's roll (a turn of its own): the list's count, not the 24 played
        played = page.locator("#history .turn:not(.blank)")
        expect(played).not_to_have_count(0)
        expect(turns).to_have_count(played.count())
        assert strip.bounding_box()["height"] == empty["height"] > 20, "the line's height comes and goes"
        expect(strip).to_have_attribute("aria-hidden", "true")  # the list below says the same
        board = page.locator("#board").bounding_box()
        assert strip.bounding_box()["y"] + strip.bounding_box()["height"] <= board["y"], "the line is over the board"
        listed = [" ".join(t.split()) for t in page.locator("#history .turn .turn-moves").all_text_contents()]
        assert [t or "pass" for t in listed] == turns.all_text_contents()
        numbers = page.locator("#move-strip .number").all_text_contents()
        assert numbers == page.locator("#history .number").all_text_contents(), numbers  # White's turns, numbered
        assert numbers[:3] == ["1.", "2.", "3."] and len(numbers) >= 12, numbers
        newest = turns.last
        expect(newest).to_have_class("turn current")

        def in_view(item, start: str = "x", length: str = "width") -> bool:  # (upright: across)
            shown, seen = item.bounding_box(), strip.bounding_box()
            return shown[start] >= seen[start] - 1 and shown[start] + shown[length] <= seen[start] + seen[length] + 1

        wait_until_sync(lambda: in_view(newest), "the newest turn in view")
        assert not in_view(turns.nth(0)), "every turn fits a phone's width: the test shows nothing"
        page.evaluate("document.getElementById('move-strip').scrollLeft = 0")
        turns.nth(2).tap()
        expect(page.locator("#browse-note")).to_have_text("After White's move 2")
        expect(page.locator("#history .turn.current")).to_have_attribute("data-index", "2")
        expect(turns.nth(2)).to_have_class("turn current")
        expect(newest).to_have_class("turn")
        wait_until_sync(lambda: in_view(turns.nth(2)), "the turn looked at in view")
        page.evaluate("document.getElementById('move-strip').scrollLeft = 1e6")
        newest.tap()
        expect(page.locator("#browse-note")).to_be_hidden()
        expect(page.locator("#history .turn.current")).to_have_count(0)
        page.set_viewport_size({"width": 1366, "height": 900})
        expect(strip).to_be_hidden()
        # a phone held sideways (session 63: it showed no move on its first screen): the line is a
        # column between the clocks, as lichess has its list, with the newest turn in view
        page.set_viewport_size({"width": 600, "height": 290})  # a small one, less its browser's bars
        expect(strip).to_be_visible()
        above, below = page.locator("#player-black").bounding_box(), page.locator("#player-white").bounding_box()
        seen = strip.bounding_box()
        assert above["y"] + above["height"] <= seen["y"] and seen["y"] + seen["height"] <= below["y"], (above, seen, below)
        assert seen["height"] >= 50, "room for a few turns' lines"
        assert seen["x"] >= board["x"] + page.locator("#board").bounding_box()["width"] - 1, "beside the board"

        def in_column(item) -> bool:
            return in_view(item, "y", "height")

        wait_until_sync(lambda: in_column(newest), "the newest turn in the column")
        assert not in_column(turns.nth(0)), "every turn fits the column: the test shows nothing"
        page.evaluate("document.getElementById('move-strip').scrollTop = 0")
        turns.nth(1).tap()
        expect(page.locator("#browse-note")).to_have_text("After Black's move 1")
        expect(turns.nth(1)).to_have_class("turn current")
        live_chip = page.locator("#move-strip .strip-live")
        wait_until_sync(lambda: in_column(live_chip), "the way back to the game at the column's foot")
        # a turn from the middle, looked at: in the column above the way back, not under it
        later = turns.nth(turns.count() // 2)
        # tapped at the column's top, clear of the way back held at its foot (Playwright's own
        # scrolling may leave it under that chip, which then takes the tap)
        later.evaluate("(turn) => { turn.parentElement.scrollTop = turn.offsetTop; }")
        later.tap()
        expect(later).to_have_class("turn current")
        wait_until_sync(
            lambda: in_column(later) and later.bounding_box()["y"] + later.bounding_box()["height"] <= live_chip.bounding_box()["y"] + 1,
            "the turn looked at above the way back")
        live_chip.tap()
        expect(page.locator("#browse-note")).to_be_hidden()
        wait_until_sync(lambda: in_column(newest), "the newest turn in the column again")
    finally:
        phone.close()
