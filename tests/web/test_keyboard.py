"""The play page with a keyboard only: arrow keys move between squares, Enter picks, and a
whole turn is built and played without a mouse."""

from __future__ import annotations

import random
import re

import httpx
from playwright.sync_api import expect

from tests.support.browser import open_seats, pending, seat_link, turn_in_list
from tests.support.turns import king_sparing_turn
from tests.support.waiting import wait_until_sync

FILES = "abcdefgh"


def arrows(start: str, end: str, seat: str) -> list[str]:
    """The arrow keys from `start` to `end` on the board as `seat` sees it (Black's is turned)."""
    across = FILES.index(end[0]) - FILES.index(start[0])
    up = int(end[1]) - int(start[1])
    if seat == "Black":
        across, up = -across, -up
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
    # The first roll with moves: White's, or Black's when White's dice had no move (a forced pass).
    state = wait_until_sync(lambda: pending(base, game_id), "a roll to play")
    seat = state["activeSeat"]
    other = pages["Black" if seat == "White" else "White"]
    player = pages[seat]  # the seat that plays, White in most games
    expect(player.locator("#status")).to_have_attribute("data-status", "your-turn")
    roll = httpx.get(f"{base}/games/{game_id}/moves", timeout=10).json()
    moves = king_sparing_turn(roll["legalMoves"], roll["dfen"], seat, random.Random(4))
    player.focus('[data-square="a1"]')  # where Tab enters the board
    at = "a1"
    for uci in moves:
        for square in (uci[:2], uci[2:4]):
            for key in arrows(at, square, seat):
                player.keyboard.press(key)
            expect(player.locator(f'[data-square="{square}"]')).to_be_focused()
            player.keyboard.press("Enter")
            at = square
        if len(uci) == 5:
            player.focus(f'#board .promotion button[data-move="{uci}"]')
            player.keyboard.press("Enter")
    expect(player.locator("#partial")).to_have_attribute("data-moves", " ".join(moves))
    # each step is said (play-through s54: a screen reader heard nothing of the turn being built)
    expect(player.locator("#announce")).to_have_text(
        re.compile(r"(^|\. )[A-Z][a-z]+ [a-h][1-8] (to|takes) [a-h][1-8][^.]*\. The turn is complete: play it \(Enter\) or undo\.$"))
    # Focus is still on the board: Enter there plays the complete turn, as the button says.
    expect(player.locator(f'[data-square="{at}"]')).to_be_focused()
    focus_ring = player.locator(f'[data-square="{at}"]').evaluate("(square) => getComputedStyle(square).outlineStyle")
    assert focus_ring == "solid", "the keyboard's square is outlined, whatever else marks it"
    player.keyboard.press("Enter")
    expect(turn_in_list(other, seat, moves)).to_have_count(1)
    # Resigning by keyboard (here an abort: only one side has played): the confirm's Yes hides the
    # controls, and focus goes to the result, from where Tab goes on (play-through s57: to nothing).
    player.focus("#resign")
    player.keyboard.press("Enter")
    expect(player.locator("#confirm-no")).to_be_focused()
    player.focus("#confirm-yes")
    player.keyboard.press("Enter")
    expect(player.locator("#result-title")).to_be_focused()
    expect(player.locator("#result-title")).to_have_text("Game aborted")
    player.keyboard.press("Tab")
    expect(player.locator("#new-game")).to_be_focused()


def test_undo_escape_and_flip_keep_the_keyboard_where_it_was(server, context):
    """Play-through s58: undoing a turn's only move, or backing out of the resign question with
    Escape, left the focus on the page's top (five Tabs from the board), and "f" did nothing with
    the focus on the board, where a keyboard player spends the game."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    pages = open_seats(context, base, game, apart=True)
    seat = wait_until_sync(lambda: pending(base, game["gameId"]), "a roll to play")["activeSeat"]
    player = pages[seat]
    expect(player.locator("#status")).to_have_attribute("data-status", "your-turn")
    roll = httpx.get(f"{base}/games/{game['gameId']}/moves", timeout=10).json()
    first = king_sparing_turn(roll["legalMoves"], roll["dfen"], seat, random.Random(4))[0]
    for square in (first[:2], first[2:4]):
        player.focus(f'[data-square="{square}"]')
        player.keyboard.press("Enter")
    expect(player.locator("#partial")).to_have_attribute("data-moves", first)  # no promotion from the start
    player.focus("#undo")
    player.keyboard.press("Enter")
    expect(player.locator("#partial")).to_have_attribute("data-moves", "")
    expect(player.locator(f'[data-square="{first[:2]}"]')).to_be_focused()  # where the piece went back to
    # "f" on the board flips it, and the focus stays on its square
    board = player.locator("#board")
    before = board.get_attribute("data-orientation")
    player.keyboard.press("f")
    expect(board).not_to_have_attribute("data-orientation", before)
    expect(player.locator(f'[data-square="{first[:2]}"]')).to_be_focused()
    player.keyboard.press("Shift+F")  # "F", as the replay's hint writes it (play-through s59: ignored here)
    expect(board).to_have_attribute("data-orientation", before)
    # Escape answers the resign question as No does: back on Resign
    player.focus("#resign")
    player.keyboard.press("Enter")
    expect(player.locator("#confirm-no")).to_be_focused()
    player.keyboard.press("Escape")
    expect(player.locator("#confirm-no")).to_be_hidden()
    expect(player.locator("#resign")).to_be_focused()


def test_the_first_tab_offers_a_way_past_the_header_to_the_board(server, context):
    """Play-through s58: five Tabs through the header before the board."""
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    page = context.new_page()
    page.goto(seat_link(server.base_url, game, "White"))
    expect(page.locator("#connection")).to_have_attribute("data-state", "open")
    skip = page.locator("#skip-to-board")
    assert skip.bounding_box()["x"] < 0, "out of sight until the keyboard reaches it"
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    assert skip.bounding_box()["x"] >= 0, "seen once focused"
    page.keyboard.press("Enter")
    expect(page.locator('#board [tabindex="0"]')).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#board [data-square]:focus")).to_have_count(1)


def test_escape_puts_down_a_piece_picked_with_the_mouse(server, context):
    """Play-through (session 59): a piece picked with the mouse left the focus on the page, where
    Escape did nothing; it puts the piece down as it does for one picked with the keyboard."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    pages = open_seats(context, base, game)
    mover = wait_until_sync(lambda: (pending(base, game["gameId"]) or {}).get("activeSeat"), "a roll to play")
    page = pages[mover]
    piece = page.locator("#board .square.movable").first
    piece.click()
    expect(page.locator("#board .square.selected")).to_have_count(1)
    page.evaluate("document.activeElement.blur()")  # wherever the click left the focus: the page itself
    page.keyboard.press("Escape")
    expect(page.locator("#board .square.selected")).to_have_count(0)
    expect(page.locator("#board .square.movable").first).to_be_visible()  # nothing else changed: still to play
