"""The maximum-dice rule in words (play-through, session 65: a player rolled a rook and found
both rooks refused, a knight offered two of its three squares, and nothing on the page said
why). A rolled piece that cannot move says it may be the rule; the dice legend states the rule
where there is room for it (a desktop), and a phone's one-line legend leaves it to the tap.

The game starts from the usual position with a server seed whose first roll (White's) is
pawn, pawn, rook: a rook die, and both rooks still behind their pawns
(tests/support/positioned_server.py, tests/support/dice.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.dice import seed_rolling
from tests.support.positioned_server import positioned_game, seats_in_browsers

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 -"
PAWN_PAWN_ROOK = (1, 1, 4)
RULE = "A turn plays as many dice as it can."


@pytest.fixture(scope="module")
def positioned():
    with positioned_game(START, seed_rolling(lambda dice: tuple(sorted(dice)) == PAWN_PAWN_ROOK)) as started:
        yield started


def test_a_rolled_piece_that_cannot_move_names_the_rule_and_the_legend_states_it(positioned, chromium):
    server, game = positioned
    pages = seats_in_browsers(chromium, server, game)
    try:
        white = pages["White"]
        expect(white.locator("#status")).to_have_attribute("data-status", "your-turn")
        expect(white.locator(".legend-rule")).to_have_text(f" {RULE} Rules")
        expect(white.locator(".legend-rule a")).to_have_attribute("href", "/rules")
        expect(white.locator(".legend-rule")).to_be_visible()
        white.click('[data-square="h1"]')
        expect(white.locator("#message")).to_have_text(
            "The rook on h1 cannot move now: it is blocked, or moving it plays fewer dice than the roll"
            " allows (a turn plays as many as it can).")
        white.click('[data-square="g1"]')  # no die for a knight: the other sentence
        expect(white.locator("#message")).to_have_text("No die for a knight: this roll moves pawn, rook.")
        # on a phone the legend keeps to one line: the rule is the tap's to say
        white.set_viewport_size({"width": 390, "height": 844})
        expect(white.locator(".legend-rule")).to_be_hidden()
    finally:
        for page in pages.values():
            page.context.close()


def test_the_rules_page_is_a_click_from_the_lobby_and_draws_the_six_faces(positioned, chromium):
    server, _ = positioned
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.goto(server.base_url + "/")
        page.get_by_role("link", name="How to play").click()
        expect(page).to_have_url(server.base_url + "/rules")
        expect(page.locator("h1")).to_have_text("How to play dice chess")
        faces = page.locator("#all-faces .die")
        expect(faces).to_have_count(6)
        assert [faces.nth(i).get_attribute("aria-label") for i in range(6)] == [
            f"die: {piece}" for piece in ("pawn", "knight", "bishop", "rook", "queen", "king")]
        expect(page.locator("#a-turn")).to_contain_text(RULE)
        expect(page.locator("#winning")).to_contain_text("Capture the king to win.")
        # what leaving costs, which the lobby only hinted at (play-through s72)
        expect(page.locator("#winning")).to_contain_text(
            "Leaving the board: a player whose game page is closed or offline for 30 seconds loses the game")
    finally:
        context.close()
