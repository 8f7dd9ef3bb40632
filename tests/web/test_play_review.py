"""Bugs found by playing the whole product in Chromium, desktop and phone (a review of
2026-11-28), each checked against a real `playsite serve`: the move lists follow the newest
turn (the clocks stop where they are at the end: test_clock_from_the_first_roll.py), a finished
game's record calls its people players, the answerer of a draw offer sees no stale dice (and
the offerer reads the refusal as news, not as an error), the
turn's buttons are on a phone's first screen, and an aborted rated game promises no rating
change but offers the rematch its players may have."""

from __future__ import annotations

import contextlib
import random
import re

import httpx
import pytest
import trio
from playwright.sync_api import expect

from tests.support.artifacts import screenshot
from tests.support.browser import PHONE, build_turn, click_turn, finished_game, open_seats, pending, play_until_both_played, seat_link, text_lines
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (a fixture)
from tests.support.sign_in import sign_in_at_the_provider, site, site_with_house_bots  # noqa: F401 (fixtures)
from tests.support.waiting import wait_until_sync

IN_VIEW = """([list, item]) => {
  const outer = list.getBoundingClientRect(), inner = item.getBoundingClientRect();
  return inner.top >= outer.top - 1 && inner.bottom <= outer.bottom + 1;
}"""


def in_view(page, list_selector: str, item_selector: str) -> bool:
    return page.evaluate(IN_VIEW, [page.locator(list_selector).element_handle(), page.locator(item_selector).element_handle()])


def test_the_move_lists_follow_the_newest_turn_and_records_call_people_players(server, context):
    base = server.base_url
    game_id = finished_game(server, 30)
    page = context.new_page()
    page.goto(f"{base}/play/{game_id}")
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#history .turn:not(.blank)").first).to_be_visible()
    turns = page.locator("#history .turn:not(.blank)").count()
    assert turns >= 30  # and the forced passes the dice gave
    assert page.evaluate("document.querySelector('#history').scrollHeight > document.querySelector('#history').clientHeight")
    assert in_view(page, "#history", "#history .turn:not(.blank) >> nth=-1"), "the newest turn is in view"
    page.keyboard.press("Home")  # browse to the start: the list goes with it
    expect(page.locator("#browse-note")).to_be_visible()
    assert page.evaluate("document.querySelector('#history').scrollTop") == 0, "the list at its first move"
    expect(page.locator("#browse-note")).to_have_text("The start position")
    expect(page.locator("#back-live")).to_have_text("Back to the end")  # a finished game has no "game" to go back to
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # Black's first: numbered as the list numbers it
    expect(page.locator("#browse-note")).to_have_text("After Black's move 1")
    expect(page.locator("#history .turn.current")).to_have_count(1)
    assert in_view(page, "#history", "#history .turn.current")

    page.goto(f"{base}/replay/{game_id}")
    last = "\u2026" if turns % 2 == 0 else ""  # an even count of turns ends on Black's half: "5… / 5"
    expect(page.locator("#step")).to_have_text(f"{(turns + 1) // 2}{last} / {(turns + 1) // 2}")  # in moves, as the list
    assert in_view(page, "#turns", "#turns li.current"), "the replay opens at the last turn, and its list too"
    expect(page.locator("#name-top")).to_contain_text("Anonymous")  # as the live page called them (a record cannot tell a guest)
    page.goto(f"{base}/history")
    expect(page.locator(f'li[data-game="{game_id}"]')).to_contain_text("Anonymous vs Anonymous")
    # counted in moves, as the list numbers them (White's and Black's turn of a number together)
    expect(page.locator(f'li[data-game="{game_id}"]')).to_contain_text(f"\u00b7 {(turns + 1) // 2} moves \u00b7")


def test_the_answerer_of_a_draw_offer_sees_no_stale_dice(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    pages = open_seats(context, base, game)
    rng = random.Random(5)
    offerer = play_until_both_played(pages, base, game["gameId"], rng)
    answerer = "Black" if offerer == "White" else "White"
    build_turn(pages[offerer], base, game["gameId"], offerer, rng)
    pages[offerer].check("#offer-draw")
    pages[offerer].click("#submit")
    expect(pages[answerer].locator("#draw-offer")).to_be_visible()
    expect(pages[answerer].locator("#dice-row")).to_be_hidden()
    # Every sentence the offerer's page says, as it says it (a forced pass may clear it at once).
    pages[offerer].evaluate("""() => {
        const message = document.getElementById("message");
        window.said = [];
        new MutationObserver(() => window.said.push([message.textContent, message.className]))
            .observe(message, { childList: true, characterData: true, subtree: true, attributes: true });
    }""")
    pages[answerer].click("#draw-decline")
    expect(pages[answerer].locator("#dice-row")).to_be_visible()  # its own roll, once declined
    wait_until_sync(lambda: any(text == f"{answerer} declined the draw." for text, _ in pages[offerer].evaluate("window.said")),
                    "the offerer told of the refusal")
    classes = {cls for text, cls in pages[offerer].evaluate("window.said") if text == f"{answerer} declined the draw."}
    assert all("info" in cls.split() for cls in classes), classes  # news, not an error's red


def test_a_turn_built_while_the_network_drops_is_kept_and_played_once_back(server, chromium):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    made = chromium.new_context()
    network = {"up": True, "sockets": []}

    def relay(route):  # a pass-through the test can cut, and keep cut
        if not network["up"]:
            route.close(code=1006)
            return
        network["sockets"].append((route, route.connect_to_server()))

    try:
        made.route_web_socket(re.compile(r".*/games/.*/ws.*"), relay)
        pages = open_seats(made, base, game)
        seat = wait_until_sync(lambda: (pending(base, game["gameId"]) or {}).get("activeSeat"), "a roll to play")
        page = pages[seat]
        expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
        moves = build_turn(page, base, game["gameId"], seat, random.Random(9))
        expect(page.locator("#submit")).to_be_enabled()
        network["up"] = False
        for page_end, server_end in network["sockets"]:
            server_end.close(code=4000, reason="dropped")
            page_end.close(code=4000, reason="dropped")
        expect(page.locator("#connection-lost")).to_be_visible()
        expect(page.locator("#submit")).to_be_disabled()  # nothing can be sent: never "Turn sent"
        # Play-through (session 53): the status still said "play it (Enter)" and the bar pushed
        # the board ~40 px down (a tap then lands on another square): it lies over the page now.
        expect(page.locator("#status")).to_have_text("Your turn is complete and kept: it can be played once the connection is back.")
        board = page.locator("#board").bounding_box()  # compared below, once the bar is gone
        bar = page.locator("#connection-lost").bounding_box()
        assert bar["y"] + bar["height"] <= board["y"], (bar, board)  # over the header, not the board
        expect(page.locator("#partial")).to_have_attribute("data-moves", " ".join(moves))
        network["up"] = True
        expect(page.locator("#connection")).to_have_attribute("data-state", "open", timeout=30_000)
        expect(page.locator("#partial")).to_have_attribute("data-moves", " ".join(moves))  # kept over the reconnect
        expect(page.locator("#connection-lost")).to_be_hidden()
        assert page.locator("#board").bounding_box() == board, "the bar moved the board"
        page.click("#submit")
        other = pages["Black" if seat == "White" else "White"]
        expect(other.locator(f'#history .turn[data-seat="{seat}"][data-moves="{" ".join(moves)}"]')).to_have_count(1)
    finally:
        made.close()


@contextlib.contextmanager
def seated_on_a_phone(server, chromium, viewport):
    """A new game's two seats opened on one phone, once a roll waits: (pages by seat, the seat
    to move), the page of that seat scrolled to the top."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    phone = chromium.new_context(viewport=viewport, is_mobile=True, has_touch=True)
    try:
        pages = open_seats(phone, base, game)
        seat = wait_until_sync(lambda: (pending(base, game["gameId"]) or {}).get("activeSeat"), "a roll to play")
        expect(pages[seat].locator("#status")).to_have_attribute("data-status", "your-turn")
        pages[seat].evaluate("window.scrollTo(0, 0)")
        yield pages, seat
    finally:
        phone.close()


SMALL_PHONE = {"width": 360, "height": 740}


@pytest.mark.parametrize("viewport", [PHONE, SMALL_PHONE], ids=["390x844", "360x740"])
def test_on_a_phone_the_turns_buttons_are_on_the_first_screen(server, chromium, artifacts, viewport):
    # at 360 x 740 too (play-through, session 60: the dice's legend, a column of seven lines beside
    # them, left 7 px of "Play this turn" on the screen)
    with seated_on_a_phone(server, chromium, viewport) as (pages, seat):
        page = pages[seat]
        for shown in ("#board", "#dice-row", "#submit", "#undo"):
            box = page.locator(shown).bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], f"{shown} is below the fold: {box}"
        header = page.locator("header.site").bounding_box()
        assert header["height"] <= 56, f"the header keeps to one line: {header}"
        screenshot(page, artifacts, f"phone-your-turn-{viewport['width']}")
        # a passed roll's notice (two lines on a phone) comes after the turn's buttons, not between
        # them and the dice: it cannot push "Play this turn" off the screen
        page.evaluate("() => { const n = document.querySelector('#notice'); n.textContent = 'White had no legal move with king, king, queen: turn passed.'; n.hidden = false; }")
        assert page.locator("#notice").bounding_box()["y"] > page.locator("#submit").bounding_box()["y"]
        # the other seat, waiting: no greyed-out turn to build between the dice and the moves
        waiting = pages["Black" if seat == "White" else "White"]
        expect(waiting.locator("#status")).to_have_attribute("data-status", "waiting")
        for hidden in ("#partial-row", "#submit", "#undo"):
            expect(waiting.locator(hidden)).to_be_hidden()
        expect(waiting.locator("#resign")).to_be_visible()
        # whose roll it is, on one line (play-through s61: "White's" / "roll")
        owner = waiting.locator("#dice-owner")
        expect(owner).to_have_text(f"{seat}'s roll")
        lines = text_lines(owner)
        assert lines == 1, f"{seat}'s roll on {lines} lines"
        screenshot(waiting, artifacts, "phone-their-turn")


SIDEWAYS = {"width": 844, "height": 390}
SMALL_SIDEWAYS = {"width": 667, "height": 375}


@pytest.mark.parametrize("viewport", [PHONE, SMALL_PHONE, SIDEWAYS, SMALL_SIDEWAYS],
                         ids=["390x844", "360x740", "844x390", "667x375"])
def test_on_a_phone_play_this_turn_stays_under_the_thumb_as_the_turn_completes(server, chromium, artifacts, viewport):
    """Play-through (session 61): the status went from two lines ("...move the pieces your dice
    allow.") to one ("...complete: play it or undo.") with the turn's last move, and "Offer a draw
    with this turn" came in above the buttons: "Play this turn" jumped 22 px up, a quick tap landed
    where it had been (nothing, or at 360 px "Resign", wrapped under it). The buttons stay put and
    on one line, the first turn (its countdown) and a later one (the draw box) alike."""
    base = server.base_url
    with seated_on_a_phone(server, chromium, viewport) as (pages, seat):
        game_id = pages[seat].url.split("/play/")[1].split("#")[0]
        rng = random.Random(8)
        for turn in ("first", "later"):
            page = pages[seat]
            expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
            before = {button: page.locator(button).bounding_box() for button in ("#submit", "#undo", "#resign")}
            upright = viewport["width"] < viewport["height"]  # sideways at 667 the panel is too narrow for one line
            assert not upright or len({round(box["y"]) for box in before.values()}) == 1, f"the turn's buttons on two lines: {before}"
            build_turn(page, base, game_id, seat, rng)
            expect(page.locator("#submit")).to_be_enabled()
            if turn == "later":
                expect(page.locator("#offer-draw-label")).to_be_visible()
            for button, box in before.items():
                now = page.locator(button).bounding_box()
                assert abs(now["y"] - box["y"]) < 1, f"{turn} turn: {button} moved from {box['y']} to {now['y']}"
            screenshot(page, artifacts, f"phone-turn-complete-{turn}-{viewport['width']}")
            if turn == "first":
                page.click("#submit")
                seat = play_until_both_played(pages, base, game_id, rng)


def test_on_a_phone_the_line_of_moves_takes_a_player_back_to_a_half_built_turn(server, chromium):
    """Play-through (session 62): with a move of the turn made, a tap on an earlier turn in the
    line over the board and then on the newest left the page looking at the newest turn's
    position, the turn's buttons greyed and the clock running; the list's "Back to the game"
    was a screen below, at 360 x 740. The newest, and "Back to the game" at the line's end (on
    the first screen), both go back, the half-built turn kept."""
    base = server.base_url
    with seated_on_a_phone(server, chromium, SMALL_PHONE) as (pages, seat):
        game_id = pages[seat].url.split("/play/")[1].split("#")[0]
        seat = play_until_both_played(pages, base, game_id, random.Random(8))
        page = pages[seat]
        page.evaluate("window.scrollTo(0, 0)")
        roll = httpx.get(f"{base}/games/{game_id}/moves", timeout=10).json()
        first = next(iter(roll["legalMoves"]))  # one micro-move of the turn
        click_turn(page, [first])
        strip = page.locator("#move-strip")
        for way_back in ("newest", "live"):
            strip.locator(".turn").first.tap()
            expect(page.locator("#browse-note")).to_be_visible()
            live = strip.locator(".strip-live")
            expect(live).to_have_text("Back to the game")
            box = live.bounding_box()
            assert 0 <= box["x"] and box["x"] + box["width"] <= SMALL_PHONE["width"] + 1, f"off the screen: {box}"
            assert box["y"] + box["height"] <= SMALL_PHONE["height"], f"below the first screen: {box}"
            (strip.locator(".turn").last if way_back == "newest" else live).tap()
            expect(page.locator("#browse-note")).to_be_hidden()
            expect(live).to_have_count(0)
            expect(page.locator("#partial")).to_have_attribute("data-moves", first)  # the turn is still there
            expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
            expect(page.locator("#status")).not_to_contain_text("back to the game")


def test_a_player_who_leaves_is_shown_away_with_the_forfeit_counted_down_and_back_on_return(server, chromium):
    """Presence frames (asked for with &presence=1): the other player and a spectator see the
    one who left "left the game: loses in N s unless back" within the 30 s grace, and nothing
    once they return; gone for good, the forfeit reads "Black left the game", not "resigned",
    then and on every page opened later."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    contexts = [chromium.new_context() for _ in range(3)]
    try:
        pages = {}
        for context, seat in zip(contexts, ("White", "Black")):
            pages[seat] = context.new_page()
            pages[seat].goto(f"{base}/play/{game['gameId']}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
            expect(pages[seat].locator("#connection")).to_have_attribute("data-state", "open")
        watcher = contexts[2].new_page()
        watcher.goto(f"{base}/play/{game['gameId']}")
        wait_until_sync(lambda: pending(base, game["gameId"]), "the first roll: the game is on")
        expect(pages["White"].locator("#player-black .away")).to_have_count(0)
        pages["Black"].goto("about:blank")  # Black leaves (the tab keeps the seat's token)
        for page in (pages["White"], watcher):
            away = page.locator("#player-black .away")
            expect(away).to_contain_text("left the game: aborted in")  # nobody has played a turn yet
            left = int(re.search(r"aborted in (\d+) s", away.inner_text())[1])
            assert 20 <= left <= 30, left
        pages["Black"].goto(f"{base}/play/{game['gameId']}")
        expect(pages["Black"].locator("#role")).to_have_text("You play Black")
        for page in (pages["White"], watcher):
            expect(page.locator("#player-black .away")).to_have_count(0)
        expect(pages["White"].locator("#result")).to_be_hidden()  # no forfeit
        # both play a turn (before that, leaving aborts the game), then Black is gone for good:
        # past the grace the game is forfeited, and said so, not "resigned"
        play_until_both_played(pages, base, game["gameId"], random.Random(5))
        pages["Black"].goto("about:blank")
        expect(pages["White"].locator("#player-black .away")).to_contain_text("left the game: loses in")
        expect(pages["White"].locator("#result-title")).to_have_text("You won: Black left the game", timeout=45_000)
        expect(watcher.locator("#result-title")).to_have_text("White won: Black left the game")
        # the score and who did what under it, as lichess says the end (play-through s71: nothing)
        for page in (pages["White"], watcher):
            expect(page.locator("#result-detail")).to_have_text(
                re.compile(r"^1\u20130 \u00b7 .+ left the game and did not come back in time\.$"))
        # and so it stays: in the record (a page opened after the end, the replay, the list)
        late = contexts[2].new_page()
        late.goto(f"{base}/play/{game['gameId']}")
        expect(late.locator("#result-title")).to_have_text("White won: Black left the game")
        # the line under it too (play-through s72: the record's word reached the title only,
        # "You lost: you left the game" over "0–1 · You resigned.")
        expect(late.locator("#result-detail")).to_have_text(
            re.compile(r"^1\u20130 \u00b7 .+ left the game and did not come back in time\.$"))
        late.goto(f"{base}/replay/{game['gameId']}")
        expect(late.locator("#outcome")).to_contain_text("White won: Black left the game")
        late.goto(f"{base}/history")
        expect(late.locator(f'[data-game="{game["gameId"]}"] .result')).to_have_text("White won: Black left the game")
    finally:
        for context in contexts:
            context.close()


LANDSCAPE = {"width": 844, "height": 390}


@pytest.mark.parametrize("viewport", [LANDSCAPE, {"width": 667, "height": 375}], ids=["844x390", "667x375"])
def test_a_phone_held_sideways_keeps_board_strips_and_panel_side_by_side(server, chromium, artifacts, viewport):
    with seated_on_a_phone(server, chromium, viewport) as (pages, seat):
        page = pages[seat]
        board = page.locator("#board").bounding_box()
        assert board["height"] >= 0.72 * viewport["height"], f"the board takes most of the height: {board}"
        assert board["y"] + board["height"] <= viewport["height"], f"the whole board is on screen: {board}"
        # the strips stand beside the board, the opponent's at its top and one's own at its bottom
        mine, theirs = (page.locator(f"#player-{side}").bounding_box() for side in (
            seat.lower(), "black" if seat == "White" else "white"))
        for strip in (mine, theirs):
            assert strip["x"] >= board["x"] + board["width"], f"a strip beside the board: {strip}"
        assert abs(theirs["y"] - board["y"]) < 2
        assert abs(mine["y"] + mine["height"] - (board["y"] + board["height"])) < 2
        # the panel beside them, and the turn's buttons on the first screen
        for shown in ("#dice-row", "#submit", "#undo", "#resign"):
            box = page.locator(shown).bounding_box()
            assert box["x"] >= mine["x"] + mine["width"], f"{shown} beside the board: {box}"
            assert box["y"] + box["height"] <= viewport["height"], f"{shown} is below the fold: {box}"
        assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0
        # a passed roll's notice comes after the turn's buttons here too (second play-through,
        # session 51: sideways it pushed "Play this turn" below the fold)
        page.evaluate("() => { const n = document.querySelector('#notice'); n.textContent = 'White had no legal move with king, king, queen: turn passed.'; n.hidden = false; }")
        submit = page.locator("#submit").bounding_box()
        assert page.locator("#notice").bounding_box()["y"] > submit["y"]
        assert submit["y"] + submit["height"] <= viewport["height"], f"#submit is below the fold: {submit}"
        screenshot(page, artifacts, f"phone-sideways-{viewport['width']}")


@pytest.mark.postgres
def test_an_aborted_rated_game_promises_no_rating_and_offers_a_rematch(site, chromium, artifacts):  # noqa: F811
    base = site.origin
    sessions = {"White": trio.run(site.sign_in, "alice"), "Black": trio.run(site.sign_in, "bob")}
    game = httpx.post(f"{base}/games", json={"rated": True}, timeout=10).json()
    contexts, pages = [], {}
    try:
        for seat, session in sessions.items():
            context = chromium.new_context()
            contexts.append(context)
            context.add_cookies([{"name": "access_token", "value": session, "url": base}])
            pages[seat] = context.new_page()
            pages[seat].goto(f"{base}/play/{game['gameId']}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
            expect(pages[seat].locator("#connection")).to_have_attribute("data-state", "open")
        wait_until_sync(lambda: pending(base, game["gameId"]), "the first roll")
        expect(pages["White"].locator("#player-black .name")).to_contain_text("bob")
        pages["White"].click("#resign")
        pages["White"].click("#confirm-yes")  # before both have played: the players' own abort
        for page in pages.values():
            expect(page.locator("#result-title")).to_have_text("Game aborted")
            expect(page.locator("#result-rated")).to_be_hidden()  # no rating moves
        propose = pages["White"].locator('#rematch-slot button[data-action="propose"]')
        expect(propose).to_be_enabled()  # an abort of the players' own is rematchable
        propose.click()
        accept = pages["Black"].locator('#rematch-slot button[data-action="accept"]')
        expect(accept).to_be_enabled()
        accept.click()
        for page in pages.values():
            expect(page).not_to_have_url(re.compile(game["gameId"]))  # both land on the new game
        screenshot(pages["Black"], artifacts, "rematch-after-an-abort")
        # The abort rated nothing, and no list calls it rated.
        history = pages["Black"]
        history.goto(base + "/history")
        row = history.locator(f'.game-row[data-game="{game["gameId"]}"]')
        expect(row.locator(".result")).to_have_text("Aborted: White aborted the game before both sides had played a turn")
        expect(row).not_to_contain_text("rated")
        # aborted at once: nothing but forced passes before it (they can follow one another)
        turns = httpx.get(f"{base}/games/{game['gameId']}/history", timeout=10).json()["turns"]
        assert all(not turn["moves"] for turn in turns), turns
        expect(row.locator(".meta")).not_to_have_text(re.compile(r"\d\s+moves?\b"))  # no count of passes (s61)
        history.goto(base + "/@/bob")
        aborted = history.locator("#recent .game-row").filter(has_text="aborted as Black against alice")
        expect(aborted.locator(".meta")).to_contain_text(
            re.compile(r"^White aborted the game before both sides had played a turn · .+ · \w{3} \d+, \d{4}"))
        expect(aborted.locator(".meta")).not_to_contain_text("rated")

        # Signed in, on a phone: the header keeps to one line, the account is one menu.
        page = pages["White"]
        page.set_viewport_size(PHONE)
        page.goto(base + "/")
        expect(page.locator("#account-name")).to_have_text("alice")
        header = page.locator("header.site").bounding_box()
        assert header["height"] <= 56, f"the header keeps to one line: {header}"
        page.click("#account-menu summary")
        expect(page.locator("#account-profile")).to_have_attribute("href", "/@/alice")
        expect(page.locator("#sign-out")).to_be_visible()
        screenshot(page, artifacts, "phone-account-menu")
    finally:
        for context in contexts:
            context.close()


@pytest.mark.postgres
def test_a_signed_in_player_who_closed_the_tab_returns_to_the_seat(site, chromium):  # noqa: F811
    """The seat's token lives in the tab that opened the link; a signed-in player who closed it
    and opens the game again (or on another device) is back in the seat by the account, not
    watching until the disconnect grace forfeits the game. Another account only watches."""
    base = site.origin
    sessions = {name: trio.run(site.sign_in, name) for name in ("alice", "bob", "carol")}
    game = httpx.post(f"{base}/games", json={"rated": True}, timeout=10).json()
    contexts = {}
    try:
        for name, session in sessions.items():
            contexts[name] = chromium.new_context()
            contexts[name].add_cookies([{"name": "access_token", "value": session, "url": base}])
        pages = {}
        for seat, name in (("White", "alice"), ("Black", "bob")):
            pages[seat] = contexts[name].new_page()
            pages[seat].goto(f"{base}/play/{game['gameId']}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
            expect(pages[seat].locator("#connection")).to_have_attribute("data-state", "open")
        wait_until_sync(lambda: pending(base, game["gameId"]), "the first roll")
        pages["White"].close()  # the tab, and its token, are gone
        again = contexts["alice"].new_page()
        again.goto(f"{base}/play/{game['gameId']}")
        expect(again.locator("#role")).to_have_text("You play White")
        expect(again.locator("#time-control")).to_have_text("10+10 \u00b7 Rated")
        expect(again.locator("#connection")).to_have_attribute("data-state", "open")
        expect(again.locator("#player-white .name")).to_contain_text("alice")
        expect(again.locator("#resign")).to_be_visible()
        stranger = contexts["carol"].new_page()
        stranger.goto(f"{base}/play/{game['gameId']}")
        expect(stranger.locator("#role")).to_have_text("Watching")
        expect(stranger.locator("#my-controls")).to_be_hidden()
        seats = {name: httpx.get(f"{base}/auth/me/games/{game['gameId']}", timeout=10,
                                 cookies={"access_token": session}).json()["seat"]
                 for name, session in sessions.items()}
        assert seats == {"alice": "White", "bob": "Black", "carol": None}
    finally:
        for context in contexts.values():
            context.close()


def a_rated_friend_game(base: str, host) -> tuple[dict, object]:
    """A rated friend game (10+10) and its White page, opened in the `host` browser context."""
    game = httpx.post(f"{base}/games", json={"rated": True}, timeout=10).json()
    white = host.new_page()
    white.goto(seat_link(base, game, "White"))
    return game, white


@pytest.mark.postgres
def test_a_rated_game_that_turns_casual_says_why(site, chromium):  # noqa: F811
    """Play-through (session 51): a rated friend game turned "Casual" without a word when a guest
    took a seat; and one account in both seats was promised a rating change that never came."""
    base = site.origin
    session = trio.run(site.sign_in, "alice")
    alice, guest = chromium.new_context(), chromium.new_context()
    alice.add_cookies([{"name": "access_token", "value": session, "url": base}])
    try:
        for other, why in (
            (guest, "This game is casual now: a player who is not signed in took a seat."),
            (alice, "This game is casual now: the same player holds both seats."),
        ):
            game, white = a_rated_friend_game(base, alice)
            expect(white.locator("#time-control")).to_have_text("10+10 \u00b7 Rated")
            black = other.new_page()
            black.goto(seat_link(base, game, "Black"))
            if other is guest:  # asked first, and chooses to play as a guest
                black.click("#rated-gate-guest")
            expect(black.locator("#role")).to_have_text("You play Black")
            expect(white.locator("#time-control")).to_have_text("10+10 \u00b7 Casual")
            expect(white.locator("#message")).to_have_text(why)
            assert httpx.get(f"{base}/games/{game['gameId']}", timeout=10).json()["rated"] is False
            white.close()
            black.close()
    finally:
        alice.close()
        guest.close()


@pytest.mark.postgres
def test_a_signed_in_players_seek_is_listed_under_their_nickname(site, chromium):  # noqa: F811
    """Play-through (session 51): a signed-in player's quick-pairing seek was listed as "Guest";
    and the opponent's page, open before that player's page sat down, kept calling them "Guest"."""
    base = site.origin
    session = trio.run(site.sign_in, "alice")
    alice, guest = chromium.new_context(), chromium.new_context()
    alice.add_cookies([{"name": "access_token", "value": session, "url": base}])
    try:
        creator = alice.new_page()
        creator.goto(base + "/")
        expect(creator.locator("#account-name")).to_have_text("alice")
        creator.click('#pairing-grid button[data-clock="3+2"]')
        expect(creator.locator("#seek-list tr.own")).to_contain_text("You")
        taker = guest.new_page()
        taker.goto(base + "/")
        row = taker.locator("#seek-list tr", has_text="3+2")
        expect(row.locator("a")).to_have_text("alice")
        expect(row.locator("a")).to_have_attribute("href", "/@/alice")
        row.get_by_role("button", name="Accept").click()
        expect(taker.locator("#role")).to_contain_text("You play")
        mine = taker.locator("#role").inner_text().split()[-1]
        theirs = "white" if mine == "Black" else "black"
        expect(creator).to_have_url(taker.url)  # the creator's page followed by itself
        expect(creator.locator("#role")).to_have_text(f"You play {theirs.capitalize()}")
        expect(taker.locator(f"#player-{theirs} .name")).to_contain_text("alice")  # as the list said
    finally:
        alice.close()
        guest.close()


@pytest.mark.postgres
def test_a_rated_seek_is_taken_by_a_signed_in_player_and_offers_a_guest_the_sign_in(site, chromium):  # noqa: F811
    """Play-through (session 55): the lobby paired only casual games, so two signed-in strangers
    could never meet in a rated one. A signed-in player ticks Rated; a guest sees the seek as rated
    with the way to sign in; another signed-in player takes it and both play a rated game."""
    base = site.origin
    sessions = {name: trio.run(site.sign_in, name) for name in ("alice", "bob")}
    contexts = {name: chromium.new_context() for name in ("alice", "bob", "guest")}
    try:
        for name, session in sessions.items():
            contexts[name].add_cookies([{"name": "access_token", "value": session, "url": base}])
        creator = contexts["alice"].new_page()
        creator.goto(base + "/")
        expect(creator.locator("#account-name")).to_have_text("alice")
        expect(creator.locator("#seek-rated")).to_be_enabled()
        creator.check("#seek-rated")
        creator.click('#pairing-grid button[data-clock="3+2"]')
        expect(creator.locator("#seek-waiting-text")).to_have_text("Waiting for an opponent (3+2, rated)...")
        expect(creator.locator("#seek-rated")).to_be_disabled()  # a posted seek keeps its kind
        expect(creator.locator("#seek-list tr.own td").nth(2)).to_have_text("rated")

        guest = contexts["guest"].new_page()
        guest.goto(base + "/")
        expect(guest.locator("#seek-rated")).to_be_disabled()
        row = guest.locator("#seek-list tr", has_text="3+2")
        expect(row.locator("td").nth(2)).to_have_text("rated")
        rating = row.locator("td").first.locator(".rating")  # the seeker's rating, as lichess's lobby has it
        expect(rating).to_have_text("1500?")
        assert "provisional" in rating.get_attribute("title").lower()
        # and in words under the table, for a phone that shows no title (play-through s59: "1500?"
        # beside the bot list's "1500, provisional" read as two things)
        expect(guest.locator("#seek-provisional")).to_have_text(
            "A rating marked ? is provisional: based on too few games to be reliable yet.")
        expect(row.get_by_role("button", name="Accept")).to_have_count(0)
        expect(row.get_by_role("link", name="Sign in to play")).to_have_attribute("href", "/auth/login?next=%2F")

        taker = contexts["bob"].new_page()
        taker.goto(base + "/")
        row = taker.locator("#seek-list tr", has_text="3+2")
        row.get_by_role("button", name=re.compile("^Accept alice's 3\\+2 rated seek$")).click()
        expect(taker.locator("#role")).to_contain_text("You play")
        expect(creator).to_have_url(taker.url)
        for page in (creator, taker):
            expect(page.locator("#time-control")).to_have_text("3+2 · Rated")
            # each name with its rating, as lichess shows it: two new accounts, so 1500, provisional
            for seat in ("white", "black"):
                rating = page.locator(f"#player-{seat} .name .rating")
                expect(rating).to_have_text("1500?")
                assert "Provisional" in rating.get_attribute("title")
        ratings = httpx.get(f"{base}/games/{taker.url.rsplit('/', 1)[1]}/ratings", timeout=10).json()
        assert ratings["white"] == ratings["black"] == {"rating": 1500.0, "rd": 350.0, "provisional": True}

        # Signing out in the middle of it warns first (play-through, session 55: the game was
        # silently left to the disconnect grace), then leaves this browser holding no seat.
        assert creator.evaluate("JSON.parse(localStorage.getItem('playsite.seats'))")
        second = contexts["alice"].new_page()  # the same game in another tab of alice's
        second.goto(creator.url)
        expect(second.locator("#role")).to_have_text(creator.locator("#role").inner_text())
        creator.click("#account-menu summary")
        creator.click("#sign-out")
        expect(creator.locator("#account-message")).to_have_text(
            "You are playing a game: signed out, you lose it unless you sign in again within 30 s.")
        expect(creator.locator("#sign-out")).to_have_text("Sign out anyway")
        # Escape closes the warned menu as any other (play-through s63: the button had lost the
        # focus while it asked, and the menu stayed over the game); opened again, it asks anew
        expect(creator.locator("#sign-out")).to_be_focused()
        creator.keyboard.press("Escape")
        expect(creator.locator("#account-menu")).not_to_have_attribute("open", "")
        expect(creator.locator("#account-menu summary")).to_be_focused()
        creator.click("#account-menu summary")
        expect(creator.locator("#sign-out")).to_have_text("Sign out")
        expect(creator.locator("#account-message")).to_have_text("")
        creator.click("#sign-out")
        expect(creator.locator("#sign-out")).to_have_text("Sign out anyway")
        creator.click("#sign-out")
        expect(creator.locator("#sign-in")).to_be_visible()
        expect(creator.locator("#role")).to_have_text("Watching")  # no longer "You play ..." (session 56)
        assert creator.evaluate("localStorage.getItem('playsite.seats')") is None
        assert creator.evaluate("Object.keys(sessionStorage).filter((k) => k.startsWith('playsite.seat.'))") == []
        # Both tabs watch now, and say why and how to come back (play-through s65: the other tab
        # said "This link's seat is taken by someone else", and the game was lost unawares)
        for page in (creator, second):
            expect(page.locator("#role")).to_have_text("Watching")
            expect(page.locator("#signed-out")).to_have_text(
                "You signed out, so you are watching. Sign in again to take your seat back before your time away runs out.")
            expect(page.locator("#seat-refused")).to_be_hidden()
        second.click("#signed-out-sign-in")
        sign_in_at_the_provider(second, "alice")
        expect(second).to_have_url(creator.url)
        expect(second.locator("#role")).to_contain_text("You play")  # the seat again, by the session
        expect(second.locator("#signed-out")).to_be_hidden()
        for page in (taker, second):
            expect(page.locator("#player-white .away, #player-black .away")).to_have_count(0)
    finally:
        for context in contexts.values():
            context.close()


def test_a_draw_offer_and_its_answer_name_the_players(site, chromium):  # noqa: F811
    """Play-through (session 63): "White offers a draw." between two named players, where lichess
    writes "alice offers a draw" (a rematch draws the colours again: "White" is not one person)."""
    base = site.origin
    contexts = {}
    try:
        for name in ("alice", "bob"):
            contexts[name] = chromium.new_context()
            contexts[name].add_cookies([{"name": "access_token", "value": trio.run(site.sign_in, name), "url": base}])
        game = httpx.post(f"{base}/games", json={}, timeout=10).json()
        pages = {}
        for seat, name in (("White", "alice"), ("Black", "bob")):
            pages[seat] = contexts[name].new_page()
            pages[seat].goto(seat_link(base, game, seat))
        for page in pages.values():
            expect(page.locator("#player-white .name a")).to_have_text("alice")
            expect(page.locator("#player-black .name a")).to_have_text("bob")
        rng = random.Random(9)
        offerer = play_until_both_played(pages, base, game["gameId"], rng)
        answerer = "Black" if offerer == "White" else "White"
        names = {"White": "alice", "Black": "bob"}
        expect(pages[offerer].locator("#status")).to_have_attribute("data-status", "your-turn")
        build_turn(pages[offerer], base, game["gameId"], offerer, rng)
        pages[offerer].check("#offer-draw")
        pages[offerer].click("#submit")
        expect(pages[answerer].locator("#draw-offer-text")).to_have_text(f"{names[offerer]} offers a draw.")
        expect(pages[offerer].locator("#status")).to_have_text(f"Waiting for {names[answerer]}'s answer.")
        pages[answerer].click("#draw-decline")
        expect(pages[offerer].locator("#message")).to_have_text(f"{names[answerer]} declined the draw.")
        expect(pages[answerer].locator("#message")).to_have_text("You declined the draw.")
    finally:
        for context in contexts.values():
            context.close()


LUMINANCE = """(id) => {
  const [r, g, b] = getComputedStyle(document.getElementById(id)).backgroundColor.match(/\\d+/g).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}"""


def test_the_dark_palette_darkens_the_fairness_badge_and_the_draw_banner(server, chromium):
    game_id = finished_game(server, 2)
    dark = chromium.new_context(color_scheme="dark")
    try:
        page = dark.new_page()
        page.goto(f"{server.base_url}/replay/{game_id}")
        expect(page.locator("#fairness")).to_have_attribute("data-state", "verified")
        assert page.evaluate(LUMINANCE, "fairness") < 0.3, "the verified badge is dark in the dark palette"
        page.goto(f"{server.base_url}/play/{game_id}")
        expect(page.locator("#result")).to_be_visible()
        assert page.evaluate(LUMINANCE, "draw-offer") < 0.3, "the draw banner is dark in the dark palette"
    finally:
        dark.close()


def test_a_page_waiting_for_its_opponent_hears_that_they_sat_down_before_the_first_roll(chromium):
    """Play-through (session 53): two guests' friend game read "Waiting for your opponent to
    join..." on both pages until the first roll, seconds after both were there (the seed window):
    an anonymous opponent's arrival showed nowhere. The game's beginning is told (Presence)."""
    from tests.support.server import ServerProcess

    process = ServerProcess({"DICE_SEED_WINDOW_MS": "10000"}).start()
    contexts = [chromium.new_context(), chromium.new_context()]  # two guests
    try:
        base = process.base_url
        game = httpx.post(f"{base}/games", json={}, timeout=10).json()
        white = contexts[0].new_page()
        white.goto(seat_link(base, game, "White"))
        expect(white.locator("#status")).to_have_text("Waiting for your opponent to join...")
        black = contexts[1].new_page()

        def without_seeds(socket):
            # Black's page adds no seed here: with both seeds in, the room would roll at once, and
            # the moment between the opponent's arrival and the first roll is what is under test
            server = socket.connect_to_server()
            socket.on_message(lambda message: None if "SubmitSeed" in str(message) else server.send(message))

        black.route_web_socket(re.compile(r"/ws\?"), without_seeds)
        black.goto(seat_link(base, game, "Black"))
        for page in (white, black):  # within the 10 s before the first roll
            expect(page.locator("#status")).to_have_text("The game is starting: the first roll is coming...", timeout=8_000)
        expect(white.locator("#player-black .name")).not_to_contain_text("waiting")
        assert pending(base, game["gameId"]) is None, "the dice are not rolled yet"
    finally:
        for context in contexts:
            context.close()
        process.close()


@pytest.mark.postgres
def test_a_friend_signed_out_is_asked_to_sign_in_before_a_rated_game_turns_casual(site, chromium):  # noqa: F811
    """Play-through (session 63): a guest who opened a rated friend game's link took the seat at
    once, and the game turned casual for both without the guest ever being told. Signed out, the
    friend is asked first ("alice invites you to a rated game (10+10)."): nothing is taken until
    they choose, and signing in there comes back to the game, the seat theirs by their account,
    the game still rated on both pages."""
    base = site.origin
    alice = chromium.new_context()
    alice.add_cookies([{"name": "access_token", "value": trio.run(site.sign_in, "alice"), "url": base}])
    friend = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        game, white = a_rated_friend_game(base, alice)
        expect(white.locator("#player-white .name")).to_contain_text("alice")
        black = friend.new_page()
        black.goto(seat_link(base, game, "Black"))
        gate = black.locator("#rated-gate")
        expect(gate).to_be_visible()
        expect(black.locator("#rated-gate-title")).to_have_text("alice invites you to a rated game (10+10).")
        expect(black.locator("#rated-gate-title")).to_be_focused()
        assert gate.bounding_box()["y"] + gate.bounding_box()["height"] <= 844, "on a phone's first screen"
        expect(black.locator("#board [data-piece]")).to_have_count(32)  # the board as it will begin
        expect(black.locator("#player-white .name")).to_contain_text("alice")
        black.wait_for_timeout(1000)  # a moment to choose: nothing is taken meanwhile
        state = httpx.get(f"{base}/games/{game['gameId']}", timeout=10).json()
        assert state["rated"] is True and state["players"]["black"]["name"] is None, state
        expect(white.locator("#time-control")).to_have_text("10+10 \u00b7 Rated")
        black.click("#rated-gate-sign-in")
        sign_in_at_the_provider(black, "bob")
        expect(black).to_have_url(f"{base}/play/{game['gameId']}")  # back at the game, the seat kept for the tab
        expect(black.locator("#role")).to_have_text("You play Black")
        expect(gate).to_be_hidden()
        expect(black.locator("#player-black .name")).to_contain_text("bob")
        expect(white.locator("#player-black .name")).to_contain_text("bob")
        for page in (white, black):
            expect(page.locator("#time-control")).to_have_text("10+10 \u00b7 Rated")
        assert httpx.get(f"{base}/games/{game['gameId']}", timeout=10).json()["rated"] is True
        expect(white.locator("#message")).not_to_contain_text("casual")
    finally:
        alice.close()
        friend.close()


@pytest.mark.postgres
def test_a_signed_in_player_plays_a_bot_rated(site_with_house_bots, chromium):  # noqa: F811
    """Play-through (session 63): a game against a bot from the lobby was always casual, so a
    signed-in person with nobody about could never play for a rating. Signed in, "Rated" under
    the bots' clock makes it rated (people and bots share one pool); signed out, the box is off."""
    site = site_with_house_bots
    base = site.origin
    signed_in, guest = chromium.new_context(), chromium.new_context()
    signed_in.add_cookies([{"name": "access_token", "value": trio.run(site.sign_in, "dora"), "url": base}])
    try:
        stranger = guest.new_page()
        stranger.goto(base + "/")
        expect(stranger.locator('button[data-bot="house/random"]')).to_be_visible()
        expect(stranger.locator("#bot-rated")).to_be_disabled()
        page = signed_in.new_page()
        page.goto(base + "/")
        expect(page.locator("#account-name")).to_have_text("dora")
        expect(page.locator("#bot-rated")).to_be_enabled()
        page.check("#bot-rated")
        page.click('button[data-bot="house/random"]')
        expect(page.locator("#role")).to_contain_text("You play")
        expect(page.locator("#time-control")).to_have_text("5+3 \u00b7 Rated")
        game_id = page.url.split("/play/")[1]
        assert httpx.get(f"{base}/games/{game_id}", timeout=10).json()["rated"] is True
        expect(page.locator('#player-white .name, #player-black .name').filter(has_text="house/random")).to_have_count(1)
    finally:
        signed_in.close()
        guest.close()
