"""The play page when a game ends under a player's hands, and its fit in a laptop's window, in a
real Chromium against a real `playsite serve` (play-through, session 60): a turn being built
when the opponent resigns is taken back from the board; the page, a player's or a spectator's,
ends inside a 1366 x 900 window; a turn that takes the king says so to the notation."""

from __future__ import annotations

import random
import re

import httpx
from playwright.sync_api import expect

from playsite.web.routes import Assets
from tests.support.browser import open_seats, pending, play_until_both_played
from tests.support.turns import king_square, placement

OTHER = {"White": "Black", "Black": "White"}


def test_a_turn_being_built_when_the_opponent_resigns_leaves_the_board(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    game_id = game["gameId"]
    pages = open_seats(context, base, game)
    mover = play_until_both_played(pages, base, game_id, random.Random(7))
    page = pages[mover]
    expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
    roll = pending(base, game_id)
    before = placement(roll["dfen"])
    king = king_square(roll["dfen"], OTHER[mover])
    # a first micro-move that neither promotes (no piece to pick) nor takes the king (no game left)
    first = next(move for move in sorted(roll["legalMoves"]) if len(move) == 4 and move[2:] != king)
    page.click(f'[data-square="{first[:2]}"]')
    page.click(f'[data-square="{first[2:4]}"]')
    expect(page.locator("#partial")).to_have_attribute("data-moves", first)
    expect(page.locator(f'#board [data-square="{first[:2]}"]')).not_to_have_attribute("data-piece", before[first[:2]])

    resigner = pages[OTHER[mover]]
    resigner.click("#resign")
    resigner.click("#confirm-yes")
    expect(page.locator("#result")).to_contain_text("You won")
    # the move never played is off the board: its piece is back where the game ended with it
    expect(page.locator(f'#board [data-square="{first[:2]}"]')).to_have_attribute("data-piece", before[first[:2]])
    expect(page.locator("#partial")).to_have_attribute("data-moves", "")
    shown = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#board [data-square]')]
        .filter((square) => square.dataset.piece).map((square) => [square.dataset.square, square.dataset.piece]))""")
    assert shown == before, "the board shows the position the game ended in"
    # ... nor marked as the last move: the marks are the last turn played's
    played = [moves for moves in page.locator("#history .turn").evaluate_all("(turns) => turns.map((t) => t.dataset.moves)") if moves]
    marked = page.locator("#board .last-move").evaluate_all("(squares) => squares.map((s) => s.dataset.square)")
    assert set(marked) == {square for uci in played[-1].split() for square in (uci[:2], uci[2:4])}, (marked, played[-1])


def fits(page) -> None:
    """Nothing of the page is below the window (its tools, the foot of the panel)."""
    expect(page.locator("#clock-white")).to_have_text(re.compile(r"\d+:\d\d"))  # the strips drawn in full
    page.wait_for_function("document.documentElement.scrollHeight <= innerHeight")
    tools = page.locator(".tools").bounding_box()
    assert tools["y"] + tools["height"] <= 900, tools


def test_the_play_page_ends_inside_a_laptops_window(server, chromium):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    laptop = chromium.new_context(viewport={"width": 1366, "height": 900})
    try:
        pages = open_seats(laptop, base, game)
        watcher = laptop.new_page()
        watcher.goto(f"{base}/play/{game['gameId']}")
        for page in [*pages.values(), watcher]:
            fits(page)
            box = page.locator(".tools").bounding_box()
            buttons = page.locator(".tools button:visible")
            rows = {round(buttons.nth(i).bounding_box()["y"]) for i in range(buttons.count())}
            assert len(rows) == 1, f"the board's tools on one line ({rows}, {box})"
    finally:
        laptop.close()


def test_the_notation_knows_a_turn_that_takes_the_king(server, context):
    page = context.new_page()
    page.goto(f"{server.base_url}/history")
    said = page.evaluate(
        """async ([boardModule, listModule]) => {
            const { parsePlacement } = await import(boardModule);
            const { notateTurn, drawNote } = await import(listModule);
            const pieces = parsePlacement("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1");
            return {
              taking: notateTurn(pieces, ["e2e5", "e5e8"]),
              sparing: notateTurn(pieces, ["e2e5", "e5d5"]),
              notes: [drawNote(true, false), drawNote(true, true), drawNote(true, false, true), drawNote(false, false, true)],
            };
        }""",
        [f"/assets/{Assets().names['board.js']}", f"/assets/{Assets().names['movelist.js']}"],
    )
    assert (said["taking"]["texts"], said["taking"]["kingTaken"]) == (["Re2-e5", "Re5xe8#"], True)
    assert (said["sparing"]["texts"], said["sparing"]["kingTaken"]) == (["Re2-e5", "Re5-d5"], False)
    assert said["notes"] == [" (offers a draw)", " (offers a draw; declined)", " (offers a draw; accepted)", ""]


def test_a_panel_taller_than_the_board_leaves_the_board_its_size(server, chromium):
    """CI s66: in a 1280 x 720 window the notice of a first roll passed made the panel taller
    than the board and its strips; the grid stretched the board's column to the panel, the page
    read the stretch as the strips' height, shrank the board, read a taller stretch, and so on,
    frame after frame, down to 200 px (and a button beside it never stood still to be clicked)."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    short = chromium.new_context(viewport={"width": 1280, "height": 540})  # the panel needs more than this
    try:
        page = open_seats(short, base, game)["White"]
        expect(page.locator("#clock-white")).to_have_text(re.compile(r"\d+:\d\d"))
        sizes = []
        for _ in range(3):
            page.evaluate("() => new Promise((done) => { let n = 30; const next = () => (--n ? requestAnimationFrame(next) : done()); requestAnimationFrame(next); })")
            sizes.append(page.evaluate("""() => {
                const table = document.getElementById('table');
                const strips = ['player-white', 'player-black'].reduce((sum, id) => sum + document.getElementById(id).offsetHeight, 0);
                return [document.getElementById('board').offsetHeight, table.offsetHeight - strips];
            }"""))
        board = sizes[0][0]
        assert sizes == [[board, board]] * 3, f"the board keeps one size, its column no taller than it and the strips: {sizes}"
        # as tall as the window allows under the header with both strips in it
        assert board >= 540 - 200, sizes
    finally:
        short.close()
