"""Castling in a real game: offered as the king's move two squares over, played as lichess lets
one play it (the king onto the castling square, or onto its own rook), both dice it costs dimmed,
the rook moved beside the king, and the turn written "O-O" / "O-O-O" in every move list.

From the start position castling needs a king die and a rook die together before either piece
has moved, which the maximum-dice rule rarely leaves (a lone king or rook die moves that piece),
so the game begins with the back ranks clear (tests/support/positioned_server.py) and with a
server seed whose first two rolls are pawn, rook and king (tests/support/dice.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import turn_in_list
from tests.support.dice import seed_rolling
from tests.support.positioned_server import positioned_game, seats_in_browsers

START = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1 -"
PAWN_ROOK_KING = (1, 4, 6)


@pytest.fixture
def positioned():
    """The server and its one game, both rolls known: pawn, rook and king twice."""
    with positioned_game(START, seed_rolling(*[lambda dice: tuple(sorted(dice)) == PAWN_ROOK_KING] * 2)) as started:
        yield started


def centre(page, square: str) -> tuple[float, float]:
    box = page.locator(f'[data-square="{square}"]').bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def pieces(page, *squares: str) -> list[str | None]:
    return [page.locator(f'[data-square="{square}"]').get_attribute("data-piece") for square in squares]


def test_castling_is_played_onto_the_rook_and_written_o_o(positioned, chromium):
    server, game = positioned
    pages = seats_in_browsers(chromium, server, game)
    white, black = pages["White"], pages["Black"]

    # White: the king's destinations are the squares beside it and both castlings
    expect(white.locator("#status")).to_have_attribute("data-status", "your-turn")
    white.click('[data-square="e1"]')
    expect(white.locator("#board .target")).to_have_count(4)
    for square in ("d1", "f1", "c1", "g1"):
        expect(white.locator(f'[data-square="{square}"]')).to_have_class(re.compile(r"\btarget\b"))
    expect(white.locator('[data-square="h1"]')).to_have_attribute("aria-label", "h1, white rook, castle with this rook")
    # the king put on its own rook castles on that side, and the dice it costs are both spent
    white.click('[data-square="h1"]')
    expect(white.locator("#partial")).to_have_attribute("data-moves", "e1g1")
    assert pieces(white, "e1", "f1", "g1", "h1") == [None, "R", "K", None]
    expect(white.locator('#dice [aria-label$=", used"]')).to_have_count(2)
    expect(white.locator('#dice [aria-label="die: king, used"]')).to_have_count(1)
    expect(white.locator('#dice [aria-label="die: rook, used"]')).to_have_count(1)
    white.click('[data-square="a2"]')
    white.click('[data-square="a3"]')
    expect(white.locator("#partial")).to_have_attribute("data-moves", "e1g1 a2a3")
    white.click("#submit")
    for page in pages.values():
        entry = turn_in_list(page, "White", ["e1g1", "a2a3"])
        expect(entry.locator(".turn-moves")).to_have_text("O-O a2-a3")
        expect(entry).to_have_attribute("aria-label", re.compile(r": castles king side, pawn a2 to a3$"))
    assert pieces(black, "e1", "f1", "g1", "h1") == [None, "R", "K", None]

    # Black: the king dragged onto the a-rook castles queen side
    expect(black.locator("#status")).to_have_attribute("data-status", "your-turn")
    black.mouse.move(*centre(black, "e8"))
    black.mouse.down()
    for step in range(1, 6):
        x0, y0 = centre(black, "e8")
        x1, y1 = centre(black, "a8")
        black.mouse.move(x0 + (x1 - x0) * step / 5, y0 + (y1 - y0) * step / 5)
    black.mouse.up()
    expect(black.locator("#partial")).to_have_attribute("data-moves", "e8c8")
    assert pieces(black, "a8", "b8", "c8", "d8", "e8") == [None, None, "k", "r", None]
    black.click('[data-square="h7"]')
    black.click('[data-square="h6"]')
    black.click("#submit")
    for page in pages.values():
        entry = turn_in_list(page, "Black", ["e8c8", "h7h6"])
        expect(entry.locator(".turn-moves")).to_have_text("O-O-O h7-h6")
        expect(entry).to_have_attribute("aria-label", re.compile(r": castles queen side, pawn h7 to h6$"))
    assert pieces(white, "a8", "b8", "c8", "d8", "e8") == [None, None, "k", "r", None]
