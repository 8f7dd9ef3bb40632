"""Rematch in real Chromium against a real `playsite serve` on PostgreSQL: two people finish a
friend game, one proposes a rematch, the other accepts, both land on the successor and it
starts; a spectator of the first game follows the chain to the successor on its own, and a page
opened on the first game afterwards stays there, with a link to the rematch."""

from __future__ import annotations

import random
import re

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.artifacts import screenshot
from tests.support.browser import pending, play_turn, play_until_both_played, seat_link, turn_in_list
from tests.support.database import module_migrated_url  # noqa: F401 (a fixture)
from tests.support.server import ServerProcess, free_port
from tests.support.waiting import wait_until_sync

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def server(module_migrated_url):
    port = free_port()
    # The pages' own origin must be allowed: rematch commands need an exact allowed Origin.
    started = ServerProcess({
        "DATABASE_URL": module_migrated_url, "DICE_SEED_WINDOW_MS": "0", "PLAY_PORT": str(port),
        "PLAY_CORS_ORIGINS": f"http://127.0.0.1:{port}",
    }).start()
    try:
        yield started
    finally:
        started.close()


def focused_through_two_reads(page, button, game_id: str) -> None:
    """Focus `button`, let the page read the rematch twice more, and check it is still focused."""
    button.focus()
    for _ in range(2):  # the reads follow one another: after the second's answer the first is drawn
        page.wait_for_event("response", lambda r: r.url.endswith(f"/games/{game_id}/rematch") and r.request.method == "GET")
    assert button.evaluate("b => b === document.activeElement"), "the focused button was made anew"

def test_a_rematch_is_proposed_and_accepted_in_two_browsers_and_a_spectator_follows(server, chromium, artifacts):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    game_id = game["gameId"]
    contexts = {seat: chromium.new_context() for seat in ("White", "Black", "watcher")}
    try:
        pages = {}
        for seat in ("White", "Black"):
            page = contexts[seat].new_page()
            page.goto(f"{base}/play/{game_id}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
            pages[seat] = page
        watcher = contexts["watcher"].new_page()
        watcher.goto(f"{base}/play/{game_id}")
        for page in (*pages.values(), watcher):
            expect(page.locator("#connection")).to_have_attribute("data-state", "open")

        rng = random.Random(3)
        played = set()
        while played != {"White", "Black"}:  # a turn each (a roll without moves passes by itself)
            state = wait_until_sync(lambda: pending(base, game_id), "a roll waiting to be played")
            page = pages[state["activeSeat"]]
            expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
            moves = play_turn(page, base, game_id, state["activeSeat"], rng)
            expect(turn_in_list(page, state["activeSeat"], moves)).not_to_have_count(0)
            played.add(state["activeSeat"])  # now the resignation decides the game: not an abort
        pages["White"].click("#resign")
        pages["White"].click("#confirm-yes")

        # The control shows on the authoritative end, for both players; the watcher gets none.
        for page in pages.values():
            expect(page.locator("#rematch-slot")).to_have_attribute("data-phase", "available")
        # ... only what the public projection says: the players may still agree (play-through s61:
        # the spectator was told nothing until the page changed under them)
        expect(watcher.locator("#rematch-status")).to_have_text(
            re.compile(r"^The players may still agree to a rematch \(\d+\s+s left\)\.$"))
        expect(watcher.locator("#rematch-slot button")).to_have_count(0)
        screenshot(pages["White"], artifacts, "rematch-available")
        # By keyboard: the page reads the rematch every second, and a read that changes nothing
        # keeps the focused button (it was made anew each time: focus fell to the page, Enter did nothing).
        propose = pages["White"].locator('#rematch-slot button[data-action="propose"]')
        focused_through_two_reads(pages["White"], propose, game_id)
        pages["White"].keyboard.press("Enter")
        expect(pages["White"].locator("#rematch-status")).to_contain_text("waiting for your opponent")
        accept = pages["Black"].locator('#rematch-slot button[data-action="accept"]')
        expect(accept).to_be_visible()
        screenshot(pages["Black"], artifacts, "rematch-offered")
        focused_through_two_reads(pages["Black"], accept, game_id)
        pages["Black"].keyboard.press("Enter")

        successor = wait_until_sync(lambda: _successor(base, game_id), "the successor committed")
        for page in (*pages.values(), watcher):
            expect(page).to_have_url(f"{base}/play/{successor}")  # no token in any address
        roles = {pages[seat].locator("#role").inner_text() for seat in ("White", "Black")}
        assert roles == {"You play White", "You play Black"}
        for page in pages.values():  # the colours drawn afresh are said, not left to be guessed
            seat = page.locator("#role").inner_text().split()[-1]
            expect(page.locator("#message")).to_have_text(f"A rematch: colours are drawn afresh, and you play {seat}.")
        expect(watcher.locator("#message")).to_have_text("A rematch of the game before: the colours are drawn afresh.")
        expect(watcher.locator("#role")).to_have_text("Watching")
        state = wait_until_sync(lambda: _begun(base, successor), "the successor begins with both seats here")
        assert state["rematchStartup"] == {"phase": "active"}
        screenshot(watcher, artifacts, "rematch-successor-spectated")

        # Opened later, the first game's page shows that game, with a link to its rematch.
        later = contexts["watcher"].new_page()
        later.goto(f"{base}/play/{game_id}")
        link = later.locator("#rematch-slot a")
        expect(link).to_have_text("Watch the rematch")
        expect(link).to_have_attribute("href", f"/play/{successor}")
        expect(later).to_have_url(f"{base}/play/{game_id}")
        expect(later.locator("#result-title")).to_contain_text("resigned")
        # ... and so does a player's, in a new tab of their own (play-through, session 51)
        player_again = contexts["White"].new_page()
        player_again.goto(seat_link(base, game, "White"))
        again = player_again.locator("#rematch-status a")
        expect(again).to_have_text("Open the rematch")
        expect(again).to_have_attribute("href", f"/play/{successor}")
        expect(player_again.locator("#rematch-status")).to_contain_text("A rematch of this game was played.")
        expect(player_again).to_have_url(f"{base}/play/{game_id}")
    finally:
        for context in contexts.values():
            context.close()


def _successor(base: str, game_id: str) -> str | None:
    body = httpx.get(f"{base}/games/{game_id}/continuation", timeout=10).json()
    return body.get("nextGameId")


def _begun(base: str, game_id: str) -> dict | None:
    state = httpx.get(f"{base}/games/{game_id}", timeout=10).json()
    return state if state["rematchStartup"]["phase"] != "awaiting_joins" else None


def test_who_declined_or_withdrew_a_rematch_is_told_from_each_side(server, chromium):
    """The one offered who declines reads "You declined the rematch.", the one who offered
    "Your opponent declined the rematch."; a withdrawn offer likewise from each side, and one
    left unanswered (play-through, session 60: both read only that the window had closed)."""
    base = server.base_url
    contexts = {seat: chromium.new_context() for seat in ("White", "Black")}
    onlooker = chromium.new_context()
    try:
        for refusal, refuser, words in (
            ("decline", "Black", {"White": "Your opponent declined the rematch.", "Black": "You declined the rematch."}),
            ("cancel", "White", {"White": "You withdrew your rematch offer.", "Black": "Your opponent withdrew the rematch offer."}),
            (None, None, {
                "White": "Your rematch offer expired: your opponent did not answer in time.",
                "Black": "The rematch offer expired unanswered.",
            }),
        ):
            game = httpx.post(f"{base}/games", json={}, timeout=10).json()
            pages = {}
            for seat, context in contexts.items():
                pages[seat] = context.new_page()
                pages[seat].goto(f"{base}/play/{game['gameId']}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
                expect(pages[seat].locator("#connection")).to_have_attribute("data-state", "open")
            wait_until_sync(lambda: pending(base, game["gameId"]), "the first roll")
            watcher = onlooker.new_page()  # told no more than the public projection: no who, no why
            watcher.goto(f"{base}/play/{game['gameId']}")
            expect(watcher.locator("#connection")).to_have_attribute("data-state", "open")
            pages["White"].click("#resign")
            pages["White"].click("#confirm-yes")  # an abort by the players: a rematch is still theirs to have
            expect(watcher.locator("#rematch-status")).to_contain_text("The players may still agree to a rematch")
            pages["White"].click('#rematch-slot button[data-action="propose"]')
            expect(pages["Black"].locator('#rematch-slot button[data-action="accept"]')).to_be_visible()
            if refusal:
                pages[refuser].click(f'#rematch-slot button[data-action="{refusal}"]')
            for seat, page in pages.items():
                # unanswered, the offer lasts the window's 15 s from the end (OFFER_WINDOW_S)
                expect(page.locator("#rematch-status")).to_have_text(words[seat], timeout=30_000)
                page.close()
            expect(watcher.locator("#rematch-status")).to_have_text("No rematch.", timeout=30_000)
            watcher.close()
    finally:
        for context in (*contexts.values(), onlooker):
            context.close()


def seats_in_their_browsers(contexts: dict, base: str, game: dict) -> dict:
    """Each seat's page, opened in its own browser context and connected."""
    pages = {}
    for seat, context in contexts.items():
        pages[seat] = context.new_page()
        pages[seat].goto(seat_link(base, game, seat))
        expect(pages[seat].locator("#connection")).to_have_attribute("data-state", "open")
    return pages


def test_a_rematch_waiting_for_a_player_counts_its_seconds_down(server, chromium):
    """Play-through (session 55): a rematch waiting for its players said "by 7:32:54 AM", a wall
    clock's time for a 15 s wait. It counts the seconds down; the one who never comes loses."""
    base = server.base_url
    contexts = {seat: chromium.new_context() for seat in ("White", "Black")}
    try:
        game = httpx.post(f"{base}/games", json={}, timeout=10).json()
        pages = seats_in_their_browsers(contexts, base, game)
        wait_until_sync(lambda: pending(base, game["gameId"]), "the first roll")
        pages["White"].click("#resign")
        pages["White"].click("#confirm-yes")
        pages["White"].click('#rematch-slot button[data-action="propose"]')
        expect(pages["Black"].locator('#rematch-slot button[data-action="accept"]')).to_be_visible()
        contexts["White"].close()  # the proposer leaves before the answer
        pages["Black"].click('#rematch-slot button[data-action="accept"]')
        successor = wait_until_sync(lambda: _successor(base, game["gameId"]), "the successor committed")
        black = pages["Black"]
        expect(black).to_have_url(f"{base}/play/{successor}")
        status = black.locator("#status")
        expect(status).to_have_attribute("data-status", "awaiting-joins")
        waiting = re.compile(r"^Rematch: it starts when both players are here \((\d+) s\)\.$")
        first = int(waiting.match(status.inner_text())[1])
        assert 0 < first <= 15, first
        expect(status).to_have_text(re.compile(rf"\((?!{first} s)\d+ s\)"))  # a second later, fewer
        assert int(waiting.match(status.inner_text())[1]) < first
        # the one who never came lost for leaving, not "resigned" (the page said so until the record was read)
        expect(black.locator("#result-title")).to_have_text(re.compile(r"^You won: (White|Black) left the game$"), timeout=30_000)
        # and nobody is there to play again: no rematch offered to the one who never came
        expect(black.locator("#rematch-status")).to_have_text("Your opponent has left: no rematch.")
        expect(black.locator("#rematch-slot button")).to_have_count(0)
    finally:
        for context in contexts.values():
            context.close()


def test_the_one_who_forfeited_by_leaving_is_offered_no_rematch_on_coming_back(server, chromium):
    """Play-through s72: the player who left and lost for it, back at the board, was offered a
    Rematch counting down, while the other side read "Your opponent has left: no rematch."."""
    base = server.base_url
    contexts = {seat: chromium.new_context() for seat in ("White", "Black")}
    try:
        game = httpx.post(f"{base}/games", json={}, timeout=10).json()
        pages = seats_in_their_browsers(contexts, base, game)
        play_until_both_played(pages, base, game["gameId"], random.Random(11))
        pages["Black"].goto("about:blank")  # Black leaves for good (the browser keeps the seat)
        white = pages["White"]
        expect(white.locator("#result-title")).to_have_text("You won: Black left the game", timeout=45_000)
        expect(white.locator("#rematch-status")).to_have_text("Your opponent has left: no rematch.")
        black = pages["Black"]
        black.goto(f"{base}/play/{game['gameId']}")  # back, within the rematch window
        expect(black.locator("#result-title")).to_have_text("You lost: you left the game")
        expect(black.locator("#rematch-status")).to_have_text("You left the game: no rematch.")
        expect(black.locator("#rematch-slot button")).to_have_count(0)
    finally:
        for context in contexts.values():
            context.close()


def test_a_player_who_left_before_moving_is_offered_no_rematch_after_a_reload_either(server, chromium):
    """Play-through (session 59): the page that saw its opponent leave said "Your opponent has
    left: no rematch.", and reloaded within the rematch window it offered one. The record says
    why the game was aborted, and the page goes by it."""
    base = server.base_url
    contexts = {seat: chromium.new_context() for seat in ("White", "Black")}
    try:
        game = httpx.post(f"{base}/games", json={}, timeout=10).json()
        pages = seats_in_their_browsers(contexts, base, game)
        mover = wait_until_sync(lambda: (pending(base, game["gameId"]) or {}).get("activeSeat"), "the first roll")
        contexts[mover].close()  # the player to move leaves before their first turn
        stayer = pages["Black" if mover == "White" else "White"]
        expect(stayer.locator("#result-title")).to_have_text("Game aborted", timeout=45_000)
        left = "Your opponent left before both sides had played a turn: no result, no rating."
        expect(stayer.locator("#result-detail")).to_have_text(left)
        expect(stayer.locator("#rematch-status")).to_have_text("Your opponent has left: no rematch.")
        stayer.reload()  # within the 15 s the rematch would have had
        expect(stayer.locator("#result-detail")).to_have_text(left)
        expect(stayer.locator("#rematch-status")).to_have_text("Your opponent has left: no rematch.")
        expect(stayer.locator("#rematch-slot button")).to_have_count(0)
    finally:
        for context in contexts.values():
            context.close()
