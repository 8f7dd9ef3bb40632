"""A promotion in a real game: the pawn's choices stand over its promotion square, as on lichess
(the board veiled), exactly the ones the server's tree allows; Escape or a click on the veil
closes them with nothing played, a pick plays the promotion and the turn goes on from there.
A promotion is rare from the start position, so the game begins from one where six White
pawns stand on the seventh rank (tests/support/positioned_server.py: the real server with one
game set up); a promotion the dice leave one piece for plays at once, and the page says which."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.artifacts import screenshot
from tests.support.browser import pending, turn_in_list
from tests.support.positioned_server import positioned_game, seats_in_browsers
from tests.support.turns import placement
from tests.support.waiting import wait_until_sync

# White: a king on a1 and six pawns about to promote (a promotion the dice force uses one up, and
# with no pawn left the game would drift to the no-progress draw); Black: a lone king on h3.
START = "8/PPPPPP2/8/8/8/7k/8/K7 w - - 0 1 -"
FILES = "abcdefgh"
ROLLS = 80  # rolls played, at most, before White's dice offer a pawn a choice of pieces
TILES = "#board .promotion button.promotion-choice"


@pytest.fixture
def positioned():
    """The server and its one game, afresh for each test (the game is played)."""
    with positioned_game(START) as started:
        yield started


def turns(tree: dict, prefix: tuple[str, ...] = ()):
    """Every complete turn of a tree, as its micro-moves."""
    if not tree:
        yield prefix
    for uci, below in tree.items():
        yield from turns(below, (*prefix, uci))


def calm(dfen: str, moves: tuple[str, ...]) -> int:
    """How far Black's king stands from every White piece after these moves (-1 when a king is
    taken): the larger, the less the game can end before White has its choice of pieces."""
    pieces = placement(dfen)
    for uci in moves:
        if pieces.get(uci[2:4], " ").upper() == "K":
            return -1
        piece = pieces.pop(uci[:2])
        pieces[uci[2:4]] = (uci[4].upper() if piece.isupper() else uci[4]) if len(uci) == 5 else piece
    king = next(square for square, piece in pieces.items() if piece == "k")
    return min(
        max(abs(FILES.index(square[0]) - FILES.index(king[0])), abs(int(square[1]) - int(king[1])))
        for square, piece in pieces.items() if piece.isupper()
    )


def choices_of(tree: dict) -> dict[str, list[str]]:
    """The first micro-moves of a tree that promote, by the squares they go from and to."""
    found: dict[str, list[str]] = {}
    for uci in tree:
        if len(uci) == 5:
            found.setdefault(uci[:4], []).append(uci)
    return found


def play(page, moves) -> None:
    """Click a turn on the board. A promotion with one piece allowed is played by the click on
    its square, and the page says which piece; with a choice, the picker opens and its tile is
    clicked."""
    for uci in moves:
        page.click(f'[data-square="{uci[:2]}"]')
        page.click(f'[data-square="{uci[2:4]}"]')
        if len(uci) == 5 and page.locator(TILES).count():
            page.click(f'{TILES}[data-move="{uci}"]')
        elif len(uci) == 5:  # the dice left one piece: said, not a surprise
            piece = {"q": "queen", "r": "rook", "b": "bishop", "n": "knight"}[uci[4]]
            expect(page.locator("#message")).to_have_text(f"The dice leave one choice: the pawn becomes a {piece}.")
        expect(page.locator(TILES)).to_have_count(0)
    page.click("#submit")


def test_a_promotion_is_chosen_over_its_square(positioned, chromium, artifacts):
    server, game = positioned
    base, game_id = server.base_url, game["gameId"]
    pages = seats_in_browsers(chromium, server, game)
    white, tiles = pages["White"], pages["White"].locator(TILES)
    version = -1
    for _ in range(ROLLS):
        state = wait_until_sync(
            lambda: (s := pending(base, game_id)) and s["version"] > version and s, "the next roll to play")
        version = state["version"]
        roll = httpx.get(f"{base}/games/{game_id}/moves", timeout=10).json()
        seat, tree = state["activeSeat"], roll["legalMoves"]
        offered = {step: ucis for step, ucis in choices_of(tree).items() if len(ucis) > 1}
        if seat == "White" and offered:
            break
        expect(pages[seat].locator("#status")).to_have_attribute("data-status", "your-turn")
        # the calmest turn, and of those the one that promotes least (a forced promotion spends a pawn)
        play(pages[seat], max(turns(tree), key=lambda moves: (calm(roll["dfen"], moves), -sum(len(m) == 5 for m in moves))))
    else:
        pytest.fail(f"White's dice gave no pawn a choice of pieces in {ROLLS} rolls")
    step, choices = next(iter(sorted(offered.items())))
    source, target = step[:2], step[2:]
    expect(white.locator("#status")).to_have_attribute("data-status", "your-turn")

    # Escape closes the choice with nothing played; so does a click on the veil
    white.click(f'[data-square="{source}"]')
    white.click(f'[data-square="{target}"]')
    expect(tiles).to_have_count(len(choices))
    # the status line asks for the choice (play-through s71: it still said "move the pieces")
    expect(white.locator("#status")).to_have_text(re.compile(r"^Your turn: choose what the pawn becomes"))
    white.keyboard.press("Escape")
    expect(tiles).to_have_count(0)
    expect(white.locator("#status")).to_have_text("Your turn: move the pieces your dice allow.")
    expect(white.locator(f'[data-square="{source}"]')).to_have_attribute("data-piece", "P")
    white.click(f'[data-square="{source}"]')
    white.click(f'[data-square="{target}"]')
    expect(tiles).to_have_count(len(choices))
    box = white.locator('[data-square="a4"]').bounding_box()
    white.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(tiles).to_have_count(0)
    expect(white.locator("#partial")).to_have_attribute("data-moves", "")

    # exactly the pieces the tree allows, the first over the promotion square itself
    white.click(f'[data-square="{source}"]')
    white.click(f'[data-square="{target}"]')
    assert sorted(tiles.evaluate_all("(tiles) => tiles.map((tile) => tile.dataset.move)")) == sorted(choices)
    first, square = tiles.first.bounding_box(), white.locator(f'[data-square="{target}"]').bounding_box()
    assert abs(first["x"] - square["x"]) < 1 and abs(first["y"] - square["y"]) < 1
    screenshot(white, artifacts, "play-promotion")
    # a pick plays it, and the rest of the turn is built from there
    turn = max((moves for moves in turns(tree) if moves[0] in choices), key=lambda moves: calm(roll["dfen"], moves))
    white.click(f'{TILES}[data-move="{turn[0]}"]')
    expect(tiles).to_have_count(0)
    expect(white.locator("#partial")).to_have_attribute("data-moves", turn[0])
    expect(white.locator(f'[data-square="{target}"]')).to_have_attribute("data-piece", turn[0][4].upper())
    play(white, turn[1:])
    expect(turn_in_list(pages["Black"], "White", list(turn))).to_have_count(1)
