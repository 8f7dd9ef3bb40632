"""Draw offers on the play page in Chromium: a turn played with "Offer a draw" shows the
other side an Accept / Decline banner; a declined offer is announced, an accepted one
ends the game drawn; every move list, however it was opened, and the replay note both offers
and how each was answered."""

from __future__ import annotations

import random

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.browser import build_turn, pending, play_turn
from tests.support.waiting import wait_until_sync

OTHER = {"White": "Black", "Black": "White"}


def roll_of(base: str, game_id: str) -> str:
    def pending():
        state = httpx.get(f"{base}/games/{game_id}", timeout=10).json()
        return state["activeSeat"] if state["dicePending"] else None

    return wait_until_sync(pending, "a roll waiting to be played")


def play_built(page) -> None:
    """Play the turn built on `page` and wait until the page has seen it played."""
    page.click("#submit")
    expect(page.locator("#partial")).to_have_attribute("data-moves", "")


def built_on_the_roll_of(want: str, pages: dict, base: str, game_id: str, rng, *, blocked: str, tries: int) -> None:
    """Play turns (built by clicks, no offer) until `want` has a roll, and build its turn without
    sending it; on every roll of `blocked`, whose offer was declined, the page offers no draw."""
    for _ in range(tries):
        seat = roll_of(base, game_id)
        build_turn(pages[seat], base, game_id, seat, rng)
        if seat == blocked:
            expect(pages[seat].locator("#offer-draw-label")).to_be_hidden()
        if seat == want:
            return
        play_built(pages[seat])
    pytest.fail(f"{want} never had a roll in {tries}")


def test_a_draw_offer_is_declined_then_another_is_accepted(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    game_id = game["gameId"]
    pages = {}
    for seat in ("White", "Black"):
        pages[seat] = context.new_page()
        pages[seat].goto(f"{base}/play/{game_id}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
        expect(pages[seat].locator("#connection")).to_have_attribute("data-state", "open")
    rng = random.Random(3)

    # before both sides have played a turn there is no offer to make (it would only abort)
    first = roll_of(base, game_id)
    version = pending(base, game_id)["version"]
    expect(pages[first].locator("#status")).to_have_attribute("data-status", "your-turn")
    build_turn(pages[first], base, game_id, first, rng)
    expect(pages[first].locator("#submit")).to_be_enabled()
    expect(pages[first].locator("#offer-draw-label")).to_be_hidden()
    pages[first].click("#submit")
    # the other side's first turn may offer one: both will have played once it is in
    offerer = OTHER[first]
    while (state := wait_until_sync(
            lambda: (s := pending(base, game_id)) and s["version"] > version and s, "the next roll"))["activeSeat"] != offerer:
        version = state["version"]  # the other side's roll passed: the first plays again
        expect(pages[first].locator("#status")).to_have_attribute("data-status", "your-turn")
        play_turn(pages[first], base, game_id, first, rng)
    expect(pages[offerer].locator("#status")).to_have_attribute("data-status", "your-turn")  # its page has the roll
    # the offer is there from the turn's start (play-through s74: only once every die was spent)
    expect(pages[offerer].locator("#offer-draw-label")).to_be_visible()
    assert pages[offerer].locator("#partial").get_attribute("data-moves") == ""
    build_turn(pages[offerer], base, game_id, offerer, rng)
    pages[offerer].check("#offer-draw")
    pages[offerer].click("#submit")
    answerer = pages[OTHER[offerer]]
    expect(answerer.locator("#draw-offer")).to_contain_text(f"{offerer} offers a draw")
    expect(pages[offerer].locator("#draw-offer")).to_contain_text("You offered a draw")
    expect(pages[offerer].locator("#draw-accept")).to_be_hidden()
    answerer.set_viewport_size({"width": 390, "height": 844})  # on a phone the two answers stay side by side
    accept_box, decline_box = (answerer.locator(b).bounding_box() for b in ("#draw-accept", "#draw-decline"))
    assert abs(accept_box["y"] - decline_box["y"]) < 2, (accept_box, decline_box)
    answerer.set_viewport_size({"width": 1280, "height": 800})
    # on both, the answers right under the status's question, Resign below them (play-through
    # s64: on a desktop Resign stood between the question and its answers)
    status_box, accept_box, resign_box = (answerer.locator(b).bounding_box() for b in ("#status", "#draw-accept", "#resign"))
    assert status_box["y"] < accept_box["y"] < resign_box["y"], (status_box, accept_box, resign_box)
    answerer.click("#draw-decline")
    expect(answerer.locator("#message")).to_have_text("You declined the draw.")  # not "Black declined"
    expect(pages[offerer].locator("#message")).to_have_text(f"{OTHER[offerer]} declined the draw.")
    for page in pages.values():
        offer = page.locator(f'#history .turn[data-seat="{offerer}"] .note')
        expect(offer).to_have_count(1)
        expect(offer).to_contain_text("offers a draw; declined")
        expect(page.locator("#draw-offer")).to_be_hidden()
    # ... and so it stays after a reload, and for a spectator who comes later (play-through,
    # session 51: only a page that saw it live showed it)
    pages[offerer].reload()
    late = context.new_page()
    late.goto(f"{base}/play/{game_id}")
    for page in (pages[offerer], late):
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        expect(page.locator(f'#history .turn[data-seat="{offerer}"] .note')).to_have_text(" (offers a draw; declined)")

    # reloaded, the offerer's page still knows its offer was declined: on its next roll no box
    # (CI, session 60: it showed one after a reload, and the server refuses such an offer)
    built_on_the_roll_of(offerer, pages, base, game_id, rng, blocked=offerer, tries=8)
    play_built(pages[offerer])

    # now the decliner offers (the first offerer may not offer again until then); a forced
    # pass may hand the roll back to the first offerer, who then plays on without an offer
    decliner = OTHER[offerer]
    built_on_the_roll_of(decliner, pages, base, game_id, rng, blocked=offerer, tries=6)
    pages[decliner].check("#offer-draw")
    pages[decliner].click("#submit")
    expect(pages[offerer].locator("#draw-offer")).to_contain_text(f"{OTHER[offerer]} offers a draw")
    pages[offerer].click("#draw-accept")
    for page in pages.values():
        expect(page.locator("#status")).to_have_attribute("data-status", "ended")
        expect(page.locator("#result")).to_contain_text("Draw by agreement")
        expect(page.locator("#message")).to_have_text("")  # no sentence of the game in play stays
        expect(page.locator("#replay")).to_have_attribute("href", f"/replay/{game_id}")
        # the offer the game was drawn by says so (play-through, session 60: it read as one pending)
        expect(page.locator("#history .turn .note").last).to_have_text(" (offers a draw; accepted)")
    # a page opened after the end reads it from the Snapshot: "Draw by agreement", both offers noted
    late.goto(f"{base}/play/{game_id}")
    expect(late.locator("#result")).to_contain_text("Draw by agreement")
    notes = late.locator("#history .turn .note")
    expect(notes).to_have_count(2)
    expect(notes.first).to_have_text(" (offers a draw; declined)")
    expect(notes.last).to_have_text(" (offers a draw; accepted)")
    # and the replay lists both offers, each with its answer
    late.goto(f"{base}/replay/{game_id}")
    notes = late.locator("#turns .note")
    expect(notes).to_have_count(2)
    expect(notes.first).to_have_text(" (offers a draw; declined)")
    expect(notes.last).to_have_text(" (offers a draw; accepted)")
    # under the turn's moves, which keep their one line (play-through s63: the note beside them
    # squeezed them to one a line)
    for note in notes.all():
        moves = note.locator("xpath=ancestor::li[1]").locator(".micro")
        tops = {round(box["y"]) for box in (moves.nth(i).bounding_box() for i in range(moves.count()))}
        assert len(tops) == 1, f"the moves on one line: {tops}"
        assert note.bounding_box()["y"] > tops.pop(), "the note under them"
    expect(late.locator("#last")).to_be_disabled()  # the replay opens at the end: the last turn's line
    expect(late.locator("#moves")).to_contain_text("(offers a draw; accepted)")
