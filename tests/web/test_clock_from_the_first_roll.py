"""The clocks from a game's first roll: with the first-move limit off (PLAY_FIRST_MOVE_S=0), a
person's first turn is on their clock as every other turn is (with the limit, the default, it
is not: tests/web/test_first_move.py). Found by playing (2026-11-28, session 51): the clocks
stop where they are at the end, and a clock run out before both sides had played says whose."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import expect

from tests.support.browser import pending, seat_link
from tests.support.server import module_server
from tests.support.waiting import wait_until_sync

server = module_server({"DICE_SEED_WINDOW_MS": "0", "PLAY_FIRST_MOVE_S": "0"})
CLOCK = re.compile(r"(\d+):(\d\d)")


def seconds(text: str) -> int:
    minutes, secs = CLOCK.match(text).groups()
    return int(minutes) * 60 + int(secs)


def test_the_clocks_stop_where_they_are_and_an_empty_seat_is_awaited(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()  # 10+10: the clocks run
    white = context.new_page()
    white.goto(f"{base}/play/{game['gameId']}#seat=White&token={game['seats']['white']['token']}")
    expect(white.locator("#player-black .name")).to_have_text("waiting for a player...")
    black = context.new_page()
    black.goto(f"{base}/play/{game['gameId']}#seat=Black&token={game['seats']['black']['token']}")
    # The seat to move (White's first roll may have been a forced pass): its clock runs.
    active = wait_until_sync(lambda: (pending(base, game["gameId"]) or {}).get("activeSeat"), "a roll to play").lower()
    idle = "black" if active == "white" else "white"
    expect(white.locator("#player-black .name > .line")).to_have_text("Anonymous")  # (under it, perhaps the first-move count)
    clock = white.locator(f"#clock-{active}")
    expect(clock).to_have_text(re.compile(r"^\d+:\d\d$"))
    start = seconds(clock.inner_text())
    wait_until_sync(lambda: seconds(clock.inner_text()) <= start - 2, "the clock to run two seconds")
    seen = seconds(clock.inner_text())
    resting = white.locator(f"#clock-{idle}").inner_text()
    white.click("#resign")
    white.click("#confirm-yes")  # before both have played: an abort
    expect(white.locator("#result-title")).to_have_text("Game aborted")
    for page in (white, black):
        expect(page.locator("#result-title")).to_have_text("Game aborted")
        # stopped where it stood, not put back to its value at the roll
        assert seconds(page.locator(f"#clock-{active}").inner_text()) <= (seen if page is white else start - 1)
        expect(page.locator(f"#clock-{idle}")).to_have_text(resting)


def test_an_abort_on_time_before_both_have_played_says_who_ran_out(server, context):
    """Play-through (session 51): a clock run out before both sides had played read only "It
    ended before both sides had played a turn", nothing about the clock. CI (12-02): on a busy
    machine a page's own count of the clock lagged the server's, and it said so again; White's page
    here counts time at half speed, so only the server's final clocks can tell it."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={"timeControl": {"PerMove": {"secondsPerMove": 2}}}, timeout=10).json()
    pages = {}
    for seat in ("White", "Black"):
        pages[seat] = context.new_page()
        if seat == "White":
            pages[seat].add_init_script("const now = performance.now.bind(performance); performance.now = () => now() / 2;")
        pages[seat].goto(seat_link(base, game, seat))
    mover = wait_until_sync(lambda: (pending(base, game["gameId"]) or {}).get("activeSeat"), "a roll to play")
    for seat, page in pages.items():  # nobody plays: the mover's 2 s run out, and nobody has played yet
        expect(page.locator("#result-title")).to_have_text("Game aborted", timeout=15_000)
        who = "You" if seat == mover else "Your opponent"
        expect(page.locator("#result-detail")).to_have_text(
            f"{who} ran out of time before both sides had played a turn: no result, no rating.")
        flagged_in_red(page, mover)
    late = context.browser.new_context().new_page()  # a spectator opened after the end: the final clocks say it too
    late.goto(f"{base}/play/{game['gameId']}")  # (another browser: this one's tabs play the seats)
    expect(late.locator("#result-detail")).to_have_text(
        f"{mover} ran out of time before both sides had played a turn: no result, no rating.")
    flagged_in_red(late, mover)


def flagged_in_red(page, mover: str) -> None:
    """The clock that ran out stays red after the end (play-through s61: "0:00.0" in plain text),
    the other one not."""
    other = "black" if mover == "White" else "white"
    expect(page.locator(f"#clock-{mover.lower()}")).to_have_class(re.compile(r"\blow\b"))
    expect(page.locator(f"#clock-{other}")).not_to_have_class(re.compile(r"\blow\b"))
