"""The play page's bugs found by playing (issue 29, 1-7), each checked in a real Chromium against a
real `playsite serve`: the strips follow the board, a draw offer runs the answerer's clock, an
unknown game says so once, the last turn is marked, Resign says Abort while it is one and asks
first, spectators get no controls, names and endings are words. Every wait is on a page condition."""

from __future__ import annotations

import random
import re
import uuid
from collections import Counter

import httpx
from playwright.sync_api import expect

from playsite.rules import iter_turns, parse_dfen
from playsite.rules.turn import _Turn
from tests.support.browser import PHONE, build_turn, open_seats, pending, play_until_both_played, seat_link, text_lines
from tests.support.turns import placement
from tests.support.server import module_server
from tests.support.waiting import wait_until_sync

OTHER = {"White": "Black", "Black": "White"}
RUNNING = re.compile(r"\brunning\b")
LAST_MOVE = re.compile(r"\blast-move\b")


def test_black_has_its_own_strip_and_clock_at_the_bottom(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    pages = open_seats(context, base, game)
    for seat, page in pages.items():
        expect(page.locator(f"#clock-{seat.lower()}")).to_have_text(re.compile(r"\d+:\d\d"))
        # read together, once the board has been fitted to the strips their clocks grew (the
        # refit follows them: three reads apart caught a board of before it, CI s61)
        ids = ["board", f"player-{seat.lower()}", f"player-{OTHER[seat].lower()}"]
        read = lambda: page.evaluate(  # noqa: E731
            "(ids) => ids.map((id) => { const b = document.getElementById(id).getBoundingClientRect();"
            " return { top: b.top, bottom: b.bottom }; })", ids)
        wait_until_sync(lambda: (b := read())[1]["top"] >= b[0]["bottom"] - 1, f"{seat}'s own strip below the board")
        wait_until_sync(lambda: (b := read())[2]["bottom"] <= b[0]["top"] + 1, f"{seat}'s opponent's strip above it")
        assert page.locator(f"#player-{seat.lower()} #clock-{seat.lower()}").count() == 1
    # The flip button turns the board, the strips and the clocks together.
    black = pages["Black"]
    black.click("#flip")
    expect(black.locator("#board")).to_have_attribute("data-orientation", "white")
    board = black.locator("#board").bounding_box()
    assert black.locator("#player-white").bounding_box()["y"] >= board["y"] + board["height"] - 1
    assert black.locator("#player-black").bounding_box()["y"] < board["y"]
    # and in the page's order too, as Tab meets them (play-through s64: the stylesheet alone turned them)
    order = black.evaluate("[...document.querySelectorAll('#table > .player, #table > #board')].map((e) => e.id)")
    assert order == ["player-black", "board", "player-white"], order
    black.click("#flip")
    expect(black.locator("#board")).to_have_attribute("data-orientation", "black")
    order = black.evaluate("[...document.querySelectorAll('#table > .player, #table > #board')].map((e) => e.id)")
    assert order == ["player-white", "board", "player-black"], order


def test_a_draw_offer_runs_the_answerers_clock_and_says_who_answers(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()  # 10+10: the clocks run
    game_id = game["gameId"]
    pages = open_seats(context, base, game)
    rng = random.Random(3)
    offerer = play_until_both_played(pages, base, game_id, rng)
    answerer = OTHER[offerer]
    build_turn(pages[offerer], base, game_id, offerer, rng)
    pages[offerer].check("#offer-draw")
    pages[offerer].click("#submit")
    expect(pages[answerer].locator("#draw-offer")).to_be_visible()
    for page in pages.values():
        expect(page.locator("#status")).to_have_attribute("data-status", "draw-answer")
        expect(page.locator(f"#clock-{answerer.lower()}")).to_have_class(RUNNING)
        expect(page.locator(f"#clock-{offerer.lower()}")).not_to_have_class(RUNNING)
    # the banner says the offer; the status what to do, not the offer again
    expect(pages[answerer].locator("#draw-offer-text")).to_have_text(f"{offerer} offers a draw.")
    expect(pages[answerer].locator("#status")).to_have_text("Your answer: accept the draw or decline it.")
    expect(pages[offerer].locator("#status")).to_have_text(f"Waiting for {answerer}'s answer.")
    expect(pages[answerer].locator("#status")).not_to_contain_text("to move")


def test_an_unknown_game_says_no_such_game_and_stops(server, context):
    page = context.new_page()
    sockets = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: where a card at the edge shows
    answer = page.goto(f"{server.base_url}/play/{uuid.uuid4()}")
    assert answer.status == 404  # the server knows it (play-through s71: a 200, then a socket's 404)
    # The whole page says it, as the not-found page does: no empty board, no idle buttons.
    expect(page.locator(".notfound h1")).to_have_text("No such game")
    expect(page.locator(".notfound")).to_contain_text("The link is wrong, or the game is long over.")
    expect(page.locator(".notfound a[href='/']")).to_be_visible()
    expect(page.locator(".notfound a[href='/history']")).to_be_visible()
    assert page.locator("#board, #flip, #mute, #submit").count() == 0
    card = page.locator(".notfound").bounding_box()
    assert card["x"] >= 8, f"the card stands off the window's edge, as the not-found page's: {card}"
    page.wait_for_timeout(300)  # the clock's tick (100 ms) runs on and draws nothing
    assert errors == []
    assert sockets == []  # no socket asked for a game the server said it does not have
    answer = page.goto(f"{server.base_url}/replay/{uuid.uuid4()}")
    assert answer.status == 404
    expect(page.locator(".notfound h1")).to_have_text("No finished game with this id")
    assert page.locator("#board, #steps").count() == 0
    page.keyboard.press("ArrowRight")  # the replay's keys have nothing to step through
    assert errors == []


def test_a_seat_link_someone_else_holds_watches_the_game_and_says_why(server, context):
    """Play-through (session 51): a friend's link already used by another person left the page
    "You play Black", reconnecting for ever against the server's refusals."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    open_seats(context, base, game)  # both seats taken, by this browser's guest
    other = context.browser.new_context()  # another person, with the same Black link
    try:
        page = other.new_page()
        sockets = []
        page.on("websocket", lambda socket: sockets.append(socket.url))
        page.goto(seat_link(base, game, "Black"))
        expect(page.locator("#seat-refused")).to_be_visible()
        expect(page.locator("#seat-refused")).to_have_text(
            "This link's seat is taken by someone else: you are watching the game.")
        expect(page.locator("#role")).to_have_text("Watching")
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        expect(page.locator("#my-controls")).to_be_hidden()
        expect(page.locator("#board .piece").first).to_be_visible()
        expect(page.locator("#board")).to_have_attribute("data-orientation", "white")  # as a spectator sees it
        assert page.evaluate(f"sessionStorage.getItem('playsite.seat.{game['gameId']}')") is None
        seat_sockets = [url for url in sockets if "token=" in url]
        assert len(seat_sockets) == 2, sockets  # refused twice, then watching: no endless retries
        page.reload()  # the tab no longer claims the seat
        expect(page.locator("#role")).to_have_text("Watching")
    finally:
        other.close()


def test_the_opponents_last_turn_is_marked_on_the_board(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    game_id = game["gameId"]
    pages = open_seats(context, base, game)
    mover = wait_until_sync(lambda: (pending(base, game_id) or {}).get("activeSeat"), "a roll to play")
    moves = build_turn(pages[mover], base, game_id, mover, random.Random(8))
    pages[mover].click("#submit")
    squares = {square for uci in moves for square in (uci[:2], uci[2:4])}
    for page in pages.values():  # the opponent's page and the mover's own
        for square in squares:
            expect(page.locator(f'[data-square="{square}"]')).to_have_class(LAST_MOVE)
        expect(page.locator("[data-square].last-move")).to_have_count(len(squares))
    # the turn was played with the mouse: the page's keys still step through the game, where
    # the focus used to be put on the board's squares, whose arrows move among them (play-through s72)
    mover_page = pages[mover]
    assert mover_page.evaluate("document.activeElement.closest('#board') === null")
    mover_page.keyboard.press("ArrowLeft")
    expect(mover_page.locator("#browse-note")).to_be_visible()
    mover_page.keyboard.press("ArrowRight")
    expect(mover_page.locator("#browse-note")).to_be_hidden()


def test_resign_says_abort_before_both_have_played_and_asks_first(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    game_id = game["gameId"]
    pages = open_seats(context, base, game)
    wait_until_sync(lambda: pending(base, game_id), "the first roll")
    white = pages["White"]
    expect(white.locator("#resign")).to_have_text("Abort")
    white.click("#resign")
    expect(white.locator("#confirm")).to_be_visible()
    expect(white.locator("#confirm")).to_contain_text("Abort the game?")
    white.click("#confirm-no")
    expect(white.locator("#confirm")).to_be_hidden()
    assert "Active" in httpx.get(f"{base}/games/{game_id}", timeout=10).json()["status"]  # nothing was sent
    white.click("#resign")
    white.click("#confirm-yes")
    for page in pages.values():
        expect(page.locator("#status")).to_have_attribute("data-status", "ended")
        expect(page.locator("#result")).to_contain_text("Game aborted")
        expect(page.locator("#result")).not_to_contain_text("Aborted)")


def test_a_spectator_sees_no_player_controls_and_endings_are_words(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    game_id = game["gameId"]
    pages = open_seats(context, base, game)
    watcher = context.browser.new_context().new_page()  # another browser: this one's tabs play the seats
    watcher.goto(f"{base}/play/{game_id}")
    expect(watcher.locator("#connection")).to_have_attribute("data-state", "open")
    expect(watcher.locator("#role")).to_have_text("Watching")
    for control in ("#partial", "#submit", "#undo", "#resign", "#offer-draw"):
        expect(watcher.locator(control)).to_be_hidden()
    expect(watcher.locator("#dice")).to_be_visible()
    rng = random.Random(11)
    played = set()
    while played != {"White", "Black"}:
        seat = wait_until_sync(lambda: (pending(base, game_id) or {}).get("activeSeat"), "a roll to play")
        expect(pages[seat].locator("#status")).to_have_attribute("data-status", "your-turn")
        build_turn(pages[seat], base, game_id, seat, rng)
        pages[seat].click("#submit")
        expect(pages[seat].locator("#partial")).to_have_attribute("data-moves", "")
        played.add(seat)
    expect(pages["White"].locator("#resign")).to_have_text("Resign")
    pages["White"].click("#resign")
    expect(pages["White"].locator("#confirm")).to_contain_text("Resign the game?")
    pages["White"].click("#confirm-yes")
    expect(watcher.locator("#result")).to_contain_text("Black won: White resigned")
    expect(pages["Black"].locator("#result")).to_contain_text("You won: White resigned")
    expect(pages["White"].locator("#result")).to_contain_text("You lost: you resigned")
    for page in (*pages.values(), watcher):
        expect(page.locator("#status")).to_have_attribute("data-status", "ended")
        expect(page.locator("body")).not_to_contain_text("(Resign)")
        # a normal end is not a lost connection
        expect(page.locator("#connection")).to_have_attribute("data-state", "ended")
        expect(page.locator("#connection-lost")).to_be_hidden()


server_with_house_bots = module_server({"DICE_SEED_WINDOW_MS": "0", "PLAY_HOUSE_BOTS": "true"}, "server_with_house_bots")


def test_a_bot_is_named_as_every_page_names_it(server_with_house_bots, context):
    base = server_with_house_bots.base_url
    page = context.new_page()
    page.goto(base + "/")
    page.click('button[data-bot="house/greedy"]')
    expect(page.locator("#role")).to_contain_text("You play")
    seat = page.locator("#role").inner_text().split()[-1]
    strip = page.locator(f"#player-{OTHER[seat].lower()} .name")
    # as every page writes it ("house/greedy"), marked as a bot, linking to its profile
    expect(strip.locator('a[href="/@/house/greedy"]')).to_have_text("house/greedy")
    expect(strip.locator(".tag")).to_have_text("BOT")
    expect(page.locator("main")).not_to_contain_text("house greedy")  # the wire's form, never shown
    # the name is a finger's target of 24 px at least (play-through, session 55: 19 px, by the
    # board's edge), the strip and the board not moved by it
    # measured once the game has begun (the first roll redraws the strips, and under load it came
    # between measuring the link and probing it), in one go inside the page
    expect(page.locator("#dice-owner")).not_to_have_text("")
    for viewport in ({"width": 1366, "height": 900}, PHONE):
        page.set_viewport_size(viewport)
        link, reach = strip.locator("a").evaluate("""(a) => {
            const box = a.getBoundingClientRect();
            const x = box.x + box.width / 2;
            const reach = [];
            for (let y = Math.floor(box.y) - 12; y < box.y + box.height + 12; y++) {
              if (document.elementFromPoint(x, y)?.closest("a")?.getAttribute("href") === "/@/house/greedy") reach.push(y);
            }
            return [{ x: box.x, y: box.y, width: box.width, height: box.height }, reach];
        }""")
        assert len(reach) >= 24, (viewport, link, reach)
    # upright, however narrow, one line: cut short rather than "house/" over "greedy" (play-through,
    # session 60: the break meant for the sideways column wrapped it at 360 px)
    for width in (390, 360, 320):
        page.set_viewport_size({"width": width, "height": 740})
        tops = text_lines(strip.locator("a span"))
        assert tops == 1, (width, tops)
    # held sideways, the name goes in the narrow column beside the board: it may go on a second
    # line after its slash, never inside a word (play-through s59: "house/gree" "dy")
    page.set_viewport_size({"width": 844, "height": 390})
    lines = strip.locator("a").evaluate("""(a) => [...a.querySelector("span").childNodes]
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => { const range = document.createRange(); range.selectNodeContents(node); return range.getClientRects().length; })""")
    assert lines == [1, 1, 1], lines  # "house", "/", "greedy": none of them split across lines


def test_a_guest_s_second_tab_of_its_game_plays_its_seat(server, context):
    """Noticed in session 51: a guest who opened its own game again in another tab (from the
    address bar, the history, a bookmark) only watched, the seat's token being the first tab's.
    The browser keeps it too, so the second tab plays the seat as the same guest."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    first = context.new_page()
    first.goto(seat_link(base, game, "White"))
    other = context.browser.new_context()  # the opponent, another guest
    try:
        other.new_page().goto(seat_link(base, game, "Black"))
        again = context.new_page()
        again.goto(f"{base}/play/{game['gameId']}")  # no token in the address
        expect(again.locator("#role")).to_have_text("You play White")
        expect(again.locator("#connection")).to_have_attribute("data-state", "open")
        seat = wait_until_sync(lambda: (pending(base, game["gameId"]) or {}).get("activeSeat"), "a roll to play")
        if seat == "White":  # its roll is played from the second tab
            expect(again.locator("#status")).to_have_attribute("data-status", "your-turn")
        expect(first.locator("#role")).to_have_text("You play White")  # the first tab plays on too
        stranger = context.browser.new_context().new_page()  # another browser has no seat there
        stranger.goto(f"{base}/play/{game['gameId']}")
        expect(stranger.locator("#role")).to_have_text("Watching")
        stranger.context.close()
    finally:
        other.close()


WORDS = {"P": "pawn", "N": "knight", "B": "bishop", "R": "rook", "Q": "queen", "K": "king"}


def played_dice(roll: dict) -> list[int]:
    """The kinds of die (1-6) some complete turn of `roll` (a pending roll's state) plays, by the
    rules engine."""
    position = parse_dfen(roll["dfen"])
    played: set[int] = set()
    for moves in iter_turns(roll["legalMoves"]):
        turn = _Turn(position)
        for uci in moves:
            turn.play(uci)
        played |= set(Counter(position.dice) - Counter(turn.dice))
    return sorted(played)


def test_a_piece_that_cannot_move_says_why(server, context):
    """Play-through (session 60): a tap on one's own piece that no die lets move did nothing. The
    page says why: no die for it, or no legal move this turn; a move made takes it away."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    pages = open_seats(context, base, game)
    roll = wait_until_sync(lambda: pending(base, game["gameId"]), "the first roll")
    seat = roll["activeSeat"]
    page = pages[seat]
    expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
    own = {square: piece for square, piece in placement(roll["dfen"]).items() if piece.isupper() == (seat == "White")}
    movable = {uci[:2] for uci in roll["legalMoves"]}
    dice = sorted({"PNBRQK".index(letter.upper()) + 1 for letter in roll["dfen"].split()[6]})
    square = next(square for square in sorted(own) if square not in movable)  # a rook, at the start
    word = WORDS[own[square].upper()]
    page.click(f'[data-square="{square}"]')
    if "PNBRQK".index(own[square].upper()) + 1 in dice:
        said = (f"The {word} on {square} cannot move now: it is blocked, or moving it plays fewer dice than the"
                " roll allows (a turn plays as many as it can).")
    else:  # the dice named are those some turn of the roll plays (s71: never one that cannot move)
        said = f"No die for a {word}: this roll moves {', '.join(WORDS['PNBRQK'[die - 1]] for die in played_dice(roll))}."
    expect(page.locator("#message")).to_have_text(said)
    expect(page.locator(".selected")).to_have_count(0)
    first = next(uci for uci in sorted(roll["legalMoves"]) if len(uci) == 4)
    page.click(f'[data-square="{first[:2]}"]')
    page.click(f'[data-square="{first[2:4]}"]')
    expect(page.locator("#message")).to_have_text("")  # a move made: the sentence goes
    # the opponent's pieces explain nothing
    theirs = next(square for square, piece in placement(roll["dfen"]).items() if piece.isupper() != (seat == "White"))
    page.click(f'[data-square="{theirs}"]')
    expect(page.locator("#message")).to_have_text("")


def test_a_turn_being_built_is_kept_through_a_reload(server, context):
    """Play-through (session 65): "This turn: Bd3-a6", then a reload, and the turn was gone: the
    bishop back on d3 and the clock running while it was made again. This tab keeps it, for the
    same roll; played or undone, nothing is kept."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    pages = open_seats(context, base, game)
    roll = wait_until_sync(lambda: pending(base, game["gameId"]), "the first roll")
    page = pages[roll["activeSeat"]]
    expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
    first = next(uci for uci in sorted(roll["legalMoves"]) if len(uci) == 4)
    page.click(f'[data-square="{first[:2]}"]')
    page.click(f'[data-square="{first[2:4]}"]')
    expect(page.locator("#partial")).to_have_attribute("data-moves", first)
    page.reload()
    expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
    expect(page.locator("#partial")).to_have_attribute("data-moves", first)
    expect(page.locator(f'[data-square="{first[2:4]}"]')).to_have_attribute("data-piece", re.compile("."))
    expect(page.locator(f'[data-square="{first[:2]}"]')).not_to_have_attribute("data-piece", re.compile("."))
    page.click("#undo")
    expect(page.locator("#partial")).to_have_attribute("data-moves", "")
    page.reload()
    expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
    expect(page.locator("#partial")).to_have_attribute("data-moves", "")
    # nothing is kept once the turn is undone
    assert page.evaluate(f"sessionStorage.getItem('playsite.partial.{game['gameId']}')") is None
