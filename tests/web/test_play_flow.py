"""The game's flow on the play page, in a real Chromium against a real `playsite serve`: the move
list in notation and browsable by keys, the dice spent by a half-built turn, the forced-pass
notice, the live region and the tab title, the remembered mute switch, the low-time warning,
`f` to flip, and the board's size on a desktop and a phone. Every wait is on a page condition."""

from __future__ import annotations

import json
import random
import re
import uuid

import httpx
import pytest
from playwright.sync_api import expect

from playsite.rules import START_POSITION, format_dfen, parse_dfen
from playsite.wire import GameEnded, Resign, encode_command

from tests.support.browser import PHONE, open_seats, pending, play_turn, play_until_both_played, seat_link, turn_in_list
from tests.support.client import TableInThread
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.server import module_server
from tests.support.turns import king_sparing_turn, placement
from tests.support.waiting import wait_until_sync

NOTATION = re.compile(r"^(pass|((O-O(-O)?|[KQRBN]?[a-h][1-8][-x][a-h][1-8](=[QRBN])?#?) ?){1,3})$")
FILES = "abcdefgh"
DIE_NAMES = {1: "pawn", 2: "knight", 3: "bishop", 4: "rook", 5: "queen", 6: "king"}


# the tests of passes create games until the dice give them one: past the default 30 a minute,
# and two seats' sockets a game past the default 120 handshakes a minute (a run of 60 games met
# the limit: the reloaded page waited out its backoff, CI on b7c2c7a)
server = module_server(
    {"DICE_SEED_WINDOW_MS": "0", "PLAY_GAME_CREATIONS_PER_MINUTE": "1000", "PLAY_SOCKET_CONNECTS_PER_MINUTE": "10000"})


def board_pieces(page) -> dict[str, str]:
    return page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#board [data-piece]')]"
        ".map((square) => [square.dataset.square, square.dataset.piece]))"
    )


def dice_paid(moves: list[str], dfen: str) -> int:
    """How many dice these micro-moves spend: one each, two for castling (a king and a rook die)."""
    pieces = placement(dfen)
    paid = 0
    for uci in moves:
        piece = pieces.pop(uci[:2], "")
        paid += 2 if piece.upper() == "K" and abs(FILES.index(uci[2]) - FILES.index(uci[0])) == 2 else 1
        pieces[uci[2:4]] = piece
    return paid


def play_by_clicks(page, base: str, game_id: str, seat: str, rng: random.Random, *,
                   keys: bool = False) -> tuple[str, list[str]]:
    """Build and play a random legal turn (played with Enter on "Play this turn" when `keys`);
    returns the position it was rolled in and its moves."""
    roll = httpx.get(f"{base}/games/{game_id}/moves", timeout=10).json()
    moves = king_sparing_turn(roll["legalMoves"], roll["dfen"], seat, rng)
    for index, uci in enumerate(moves):
        page.click(f'[data-square="{uci[:2]}"]')
        page.click(f'[data-square="{uci[2:4]}"]')
        if len(uci) == 5:
            page.click(f'#board .promotion button[data-move="{uci}"]')
        expect(page.locator("#partial")).to_have_attribute("data-moves", " ".join(moves[: index + 1]))
        # the dice this much of the turn has paid for are dimmed and labelled "used"
        expect(page.locator('#dice [aria-label$=", used"]')).to_have_count(dice_paid(moves[: index + 1], roll["dfen"]))
    if keys:
        page.focus("#submit")
        page.keyboard.press("Enter")
    else:
        page.click("#submit")
    expect(page.locator("#partial")).to_have_attribute("data-moves", "")
    return roll["dfen"], moves


def test_turns_are_listed_in_notation_and_browsed_with_the_keys(server, context):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    game_id = game["gameId"]
    pages = open_seats(context, base, game)
    watcher = context.browser.new_context().new_page()  # another browser: this one's tabs play the seats
    watcher.goto(f"{base}/play/{game_id}")
    rng = random.Random(21)
    before = []  # the position each turn with moves was rolled in
    for turn in range(3):
        seat = wait_until_sync(lambda: (pending(base, game_id) or {}).get("activeSeat"), "a roll to play")
        expect(pages[seat].locator("#status")).to_have_attribute("data-status", "your-turn")
        expect(pages[seat]).to_have_title(re.compile(r"^\u25CF Your turn"))  # the tab says so
        dice = parse_dfen(pending(base, game_id)["dfen"]).dice
        # the dice are said lowest first, as they are drawn (play-through s60: rolled order)
        words = ", ".join(DIE_NAMES[die] for die in sorted(dice))
        expect(pages[seat].locator("#announce")).to_contain_text(f"Your turn. Dice: {words}.")
        if turn:  # what came just before (the other's turn, or a pass) is said with it, not replaced
            expect(pages[seat].locator("#announce")).to_have_text(re.compile(r"^\S.*\. Your turn\. Dice: "))
        expect(pages[{"White": "Black", "Black": "White"}[seat]]).not_to_have_title(re.compile("Your turn"))
        keys = turn == 2
        before.append(play_by_clicks(pages[seat], base, game_id, seat, rng, keys=keys))
        # "Play this turn" disables itself: played from the keyboard, the focus goes back to the
        # board, not to the page's top; clicked, it leaves the page's keys to the page (play-through
        # s72: the arrows moved among the squares instead of through the game)
        on_board = pages[seat].evaluate("document.activeElement.closest('#board') !== null")
        assert on_board == keys, f"focus on the board: {on_board}, the turn played with the keys: {keys}"
    # On one's own turn, an earlier position says how to get back to play (play-through s54: it
    # still read "move the pieces", and the board took no click)
    seat = wait_until_sync(lambda: (pending(base, game_id) or {}).get("activeSeat"), "a roll to play")
    expect(pages[seat].locator("#status")).to_have_attribute("data-status", "your-turn")
    pages[seat].click("#previous")
    expect(pages[seat].locator("#status")).to_have_text(re.compile(r"^Your turn: back to the game to play it( \(End\))?\.$"))
    pages[seat].click("#last")
    # (a side whose rolls were all passed so far still has its first move due: then that is said)
    expect(pages[seat].locator("#status")).to_have_text(re.compile(
        r"^Your turn: (move the pieces your dice allow|play your first move within \d+\ss, or the game is aborted)\.$"))
    turns = watcher.locator("#history .turn:not(.blank)")
    count = turns.count()
    assert count >= 3
    for index in range(count):
        text = turns.nth(index).locator(".turn-moves").inner_text()
        assert NOTATION.match(text), text
    expect(watcher.locator("#history .number").first).to_have_text("1.")

    # A click on a turn shows the position after it, its squares marked; Left and Right step.
    last = watcher.locator(f'#history .turn[data-moves="{" ".join(before[-1][1])}"]').last
    expect(last).to_be_visible()
    index = int(last.get_attribute("data-index"))
    watcher.locator(f'#history .turn[data-index="{index - 1}"]').click()
    expect(watcher.locator("#board")).to_have_attribute("data-browsing", str(index - 1))
    expect(watcher.locator("#back-live")).to_be_visible()
    assert board_pieces(watcher) == placement(before[-1][0])  # where the last turn was rolled
    watcher.keyboard.press("ArrowLeft")  # on the clicked turn: the list is redrawn, the focus follows
    expect(watcher.locator("#board")).to_have_attribute("data-browsing", str(index - 2))
    expect(watcher.locator("#history .turn.current")).to_have_attribute("data-index", str(index - 2))
    expect(watcher.locator("#history .turn.current")).to_be_focused()  # play-through s53: it fell to <body>
    watcher.locator("body").press("ArrowRight")
    expect(watcher.locator("#board")).to_have_attribute("data-browsing", str(index - 1))
    assert board_pieces(watcher) == placement(before[-1][0])
    # Home: the start; End: back to the live game.
    watcher.locator("body").press("Home")
    expect(watcher.locator("#board")).to_have_attribute("data-browsing", "-1")
    assert len(board_pieces(watcher)) == 32
    watcher.locator("body").press("End")
    expect(watcher.locator("#back-live")).to_be_hidden()
    expect(watcher.locator("#board")).to_have_attribute("data-browsing", "")
    # From the live game, Left goes back one turn; "Back to the game" returns.
    watcher.locator("body").press("ArrowLeft")
    expect(watcher.locator("#board")).to_have_attribute("data-browsing", re.compile(r"^\d+$"))
    watcher.click("#back-live")
    expect(watcher.locator("#board")).to_have_attribute("data-browsing", "")
    # A spectator may turn the board with f.
    watcher.locator("body").press("f")
    expect(watcher.locator("#board")).to_have_attribute("data-orientation", "black")
    board = watcher.locator("#board").bounding_box()
    assert watcher.locator("#player-white").bounding_box()["y"] < board["y"]
    assert watcher.locator("#player-black").bounding_box()["y"] >= board["y"] + board["height"] - 1


def seats_of_a_game_where(server, context, found, what: str, *, tries: int, pages: dict | None = None) -> tuple[dict, str]:
    """The seats' pages (`pages`, or new ones, reused from game to game) and the id of the first
    new Unlimited game whose first pending roll's state satisfies `found`."""
    base = server.base_url
    for _ in range(tries):
        created = httpx.post(f"{base}/games", json={"timeControl": {"Unlimited": {}}}, timeout=10)
        assert created.status_code == 201, created.text
        game = created.json()
        if pages is None:
            pages = open_seats(context, base, game)
        else:
            for seat, page in pages.items():
                page.goto(f"{base}/play/{game['gameId']}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
        if found(wait_until_sync(lambda: pending(base, game["gameId"]), "the first roll")):
            return pages, game["gameId"]
    pytest.fail(f"no game with {what} in {tries}")


def test_two_passes_in_a_row_are_both_told(server, context):
    """Play-through (session 60): "1. pass pass" told White only of Black's pass; its own, a
    moment before, was gone from the page. Both are said, in order, on both pages and after a reload
    (after any passes before them: a run may be longer)."""
    start = format_dfen(START_POSITION).split()[0]
    # both first rolls pass when neither holds a pawn or a knight die: about one game in eleven
    pages, _ = seats_of_a_game_where(
        server, context, lambda state: state["activeSeat"] == "White" and state["dfen"].split()[0] == start and state["version"] > 2,
        "two passes in a row", tries=120)
    die = "(bishop|rook|queen|king)"
    dice = f"{die}, {die}, {die}"
    expect(pages["White"].locator("#notice")).to_have_text(re.compile(
        rf"(^|\. )You had no legal move with {dice}: your turn passed\. Black had no legal move with {dice}: turn passed\.$"))
    expect(pages["Black"].locator("#notice")).to_have_text(re.compile(
        rf"(^|\. )White had no legal move with {dice}: turn passed\. You had no legal move with {dice}: your turn passed\.$"))
    pages["White"].reload()  # from the Snapshot: the same
    expect(pages["White"].locator("#notice")).to_have_text(re.compile(
        rf"(^|\. )You had no legal move with {dice}: your turn passed\. Black had no legal move with {dice}: turn passed\.$"))
    # the move list fades the dice a turn left unused: a pass, all of them (play-through s74)
    passes = pages["White"].locator('#history button.turn[data-moves=""]')
    expect(passes.first.locator(".die")).to_have_count(3)
    expect(passes.first.locator(".die.unplayable")).to_have_count(3)


def test_a_player_whose_rolls_passed_before_they_ever_moved_is_told(server, context):
    """Play-through (session 60): a bot's quick turns in between, a person's first rolls passed
    before the page was open and nothing said so. Until they have moved, the page says it."""
    base = server.base_url
    rng = random.Random(5)

    def next_roll(game_id: str, after: int) -> dict:
        return wait_until_sync(lambda: (s := pending(base, game_id)) and s["version"] > after and s, "the next roll")

    # White moves, Black's roll passes, White moves again, Black's roll has moves: about one game
    # in eight (a pass at the start: no pawn or knight die, ~30%)
    pages = None
    for _ in range(100):
        pages, game_id = seats_of_a_game_where(
            server, context, lambda state: state["activeSeat"] == "White", "White's first roll with a move", tries=40, pages=pages)
        state = pending(base, game_id)
        play_turn(pages["White"], base, game_id, "White", rng)
        state = next_roll(game_id, state["version"])
        if state["activeSeat"] != "White":
            continue
        play_turn(pages["White"], base, game_id, "White", rng)
        if next_roll(game_id, state["version"])["activeSeat"] == "Black":
            break
    else:
        pytest.fail("no Black roll passed between two of White's in 100 games")
    black = pages["Black"]
    black.reload()
    # one roll, or more when the first rolls of both passed, in turn, before White's first move
    # (CI s62: three, after two rounds of both passing); then the latest passes in a row, when
    # White's second move was followed by more (CI s64: Black's and White's)
    die = "(pawn|knight|bishop|rook|queen|king)"
    latest = rf"( You had no legal move with {die}, {die}, {die}: your turn passed\.| White had no legal move with {die}, {die}, {die}: turn passed\.)*"
    expect(black.locator("#notice")).to_have_text(re.compile(rf"^Your (roll|[2-9] rolls) before had no legal move: passed\.{latest}$"))


def test_a_forced_pass_is_announced_in_words(server, context):
    # White's first roll has no move when no die is a pawn or a knight: about 30% of games.
    pages, _ = seats_of_a_game_where(server, context, lambda state: state["activeSeat"] == "Black", "a forced pass", tries=40)
    # Black's roll, pending now, has moves (a pass would have gone on by itself): White's pass
    # is the latest, told to White in the second person (after any passes before it in a row)
    expect(pages["White"].locator("#notice")).to_have_text(
        re.compile(r"(^|\. )You had no legal move with (bishop|rook|queen|king), (bishop|rook|queen|king), (bishop|rook|queen|king): your turn passed\.$"))
    expect(pages["Black"].locator("#notice")).to_have_text(
        re.compile(r"(^|\. )White had no legal move with (bishop|rook|queen|king), (bishop|rook|queen|king), (bishop|rook|queen|king): turn passed\.$"))
    for page in pages.values():
        expect(page.locator('#history .turn[data-index="0"]')).to_have_attribute("data-seat", "White")
        expect(page.locator('#history .turn[data-index="0"] .turn-moves')).to_have_text("pass")
    first = pages["White"].locator('#history .turn[data-index="0"]')
    expect(first).to_have_attribute("aria-label", re.compile(r"^White, dice (bishop|rook|queen|king), (bishop|rook|queen|king), (bishop|rook|queen|king): no legal move, passed$"))


def test_the_mute_switch_is_remembered(server, context):
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    page = context.new_page()
    page.goto(f"{server.base_url}/play/{game['gameId']}")
    mute = page.get_by_role("button", name="Mute sound")  # a toggle keeps its name
    expect(mute).to_have_attribute("aria-pressed", "false")
    expect(mute).to_have_text("Mute sound")
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    expect(mute).to_have_text("Sound muted")  # the words say what is the case
    page.reload()
    expect(mute).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("localStorage.getItem('playsite.muted')") == "1"


def running_clock(context, base: str, time_control: dict):
    """A new game of `time_control` with both seats open, each side's first turn played (they
    are not on the clock): the page of the side to move and its clock, running."""
    game = httpx.post(f"{base}/games", json={"timeControl": time_control}, timeout=10).json()
    pages = open_seats(context, base, game)
    seat = play_until_both_played(pages, base, game["gameId"], random.Random(2))
    clock = pages[seat].locator(f"#clock-{seat.lower()}")
    expect(clock).to_have_class(re.compile(r"\brunning\b"))
    return pages[seat], clock


def test_the_clock_warns_of_low_time(server, context):
    page, clock = running_clock(context, server.base_url, {"PerMove": {"secondsPerMove": 8}})
    expect(clock).to_have_class(re.compile(r"\blow\b"))  # under half of the 8 s
    expect(page.locator("#announce")).to_have_text("Low time.")
    expect(clock).to_have_text(re.compile(r"^0:0\d\.\d$"))  # tenths under ten seconds


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_the_board_fills_the_screen(server, chromium, device):
    viewport = {"width": 1366, "height": 900} if device == "desktop" else PHONE
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    made = chromium.new_context(viewport=viewport, is_mobile=device == "phone", has_touch=device == "phone")
    try:
        page = made.new_page()
        page.goto(f"{server.base_url}/play/{game['gameId']}#seat=White&token={game['seats']['white']['token']}")
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        board = page.locator("#board").bounding_box()
        panel = page.locator("aside.panel").bounding_box()
        assert abs(board["width"] - board["height"]) <= 1
        if device == "desktop":
            assert board["height"] >= 0.75 * viewport["height"], board  # most of the window's height
            assert panel["x"] >= board["x"] + board["width"], "the panel beside the board"
            bottom = page.locator("#player-white").bounding_box()
            assert bottom["y"] + bottom["height"] <= viewport["height"], "the whole table on screen"
        else:
            assert board["width"] >= 0.95 * viewport["width"], board  # the full width
            assert panel["y"] >= board["y"] + board["height"], "the panel below the board"
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    finally:
        made.close()


def test_before_the_first_roll_the_status_says_who_is_awaited(server, context):
    """A friend game's creator alone reads that the opponent is awaited (one, not "the
    players"); a spectator, that the game has not begun."""
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    mine = context.new_page()
    mine.goto(seat_link(server.base_url, game, "White"))
    expect(mine.locator("#status")).to_have_text("Waiting for your opponent to join...")
    watcher = context.browser.new_context().new_page()  # another browser: this one's tab holds White
    watcher.goto(f"{server.base_url}/play/{game['gameId']}")
    expect(watcher.locator("#status")).to_have_text("Waiting for the game to start...")
    again = context.new_page()  # the creator's browser, another tab: the seat's page again
    again.goto(f"{server.base_url}/play/{game['gameId']}")
    expect(again.locator("#status")).to_have_text("Waiting for your opponent to join...")


@pytest.fixture
def stored_server(serve, migrated_url):  # noqa: F811 (a fixture)
    return serve({"DATABASE_URL": migrated_url, "DICE_SEED_WINDOW_MS": "0"})


@pytest.mark.postgres
def test_the_move_list_shows_the_turn_that_ended_the_game_beside_the_result(stored_server, chromium):
    """Second play-through (session 51): on a desktop the result box and then the rematch
    control appeared above the move list after the list had scrolled to its newest turn, so the
    list shrank and the move that ended the game was out of sight. A long game (30 turns) is
    played on its sockets, White's page open beside them as the same guest, and Black resigns."""
    server = stored_server  # with PostgreSQL: the rematch control shows under the result
    white = str(uuid.uuid4())
    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    context.add_init_script(f"localStorage.setItem('playsite.guestId', '{white}')")
    page = context.new_page()
    with long_game(server, turns=30, white_guest=white) as game:
        page.goto(f"{server.base_url}/play/{game.game_id}#seat=White&token={game.tokens['White']}")
        expect(page.locator("#role")).to_have_text("You play White")
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        game.act()  # Black resigns
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#rematch-slot")).to_have_attribute("data-phase", "available")  # laid out after a read
        page.wait_for_timeout(300)
        listed = page.locator("#history")
        last = listed.locator(".turn:not(.blank)").last
        box, view = last.bounding_box(), listed.bounding_box()
        assert listed.evaluate("(list) => list.scrollHeight > list.clientHeight"), "a list long enough to scroll"
        assert view["y"] - 1 <= box["y"] and box["y"] + box["height"] <= view["y"] + view["height"] + 1, (box, view)
    context.close()


def long_game(server, turns: int, white_guest: str) -> TableInThread:
    """A friend game played `turns` turns on its sockets, White's as `white_guest`; `act()`: Black resigns."""
    async def play(table):
        rng = random.Random(5)
        for _ in range(turns):
            await table.play_turn(rng, spare_king=True)

    async def resign(table):
        black = table.players["Black"]
        await black.ws.send_message(encode_command(Resign()))
        await table.wait_for(black, lambda event: isinstance(event, GameEnded))

    return TableInThread(server, play, resign, white_guest=white_guest, ready_s=120)


def test_a_short_game_s_clock_turns_red_at_ten_seconds(server, context):
    """Play-through (session 53): at 1+0 the clock turned red at 6 s (10% of the start, at least
    5 s), too late for a turn of up to three moves. Never under 10 s: a 20 s game's at 10."""
    _, clock = running_clock(context, server.base_url, {"SuddenDeath": {"initialSeconds": 20}})
    expect(clock).not_to_have_class(re.compile(r"\blow\b"))
    expect(clock).to_have_class(re.compile(r"\blow\b"), timeout=15_000)
    shown = clock.inner_text()  # tenths under ten seconds: "0:09.8"
    assert re.fullmatch(r"0:0[6-9]\.\d|0:10(\.\d)?", shown), shown


def clicked_at_once(page, base: str, game_id: str, seat: str, rng: random.Random) -> list[str]:
    """A random legal turn clicked on the board of a page that plays turns at once (it goes by itself)."""
    roll = httpx.get(f"{base}/games/{game_id}/moves", timeout=10).json()
    moves = king_sparing_turn(roll["legalMoves"], roll["dfen"], seat, rng)
    for uci in moves:
        page.click(f'[data-square="{uci[:2]}"]')
        page.click(f'[data-square="{uci[2:4]}"]')
        if len(uci) == 5:
            page.click(f'#promotion button[data-move="{uci}"]')
    return moves


def test_turns_can_be_played_at_once_when_complete_and_the_choice_is_kept(server, context):
    """Play-through s58: at 1+0 every turn cost a click on "Play this turn". The toggle sends a
    complete turn at once (as lichess sends a move without confirmation); off by default."""
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    pages = open_seats(context, server.base_url, game)
    seat = wait_until_sync(lambda: (pending(server.base_url, game["gameId"]) or {}).get("activeSeat"), "a roll")
    page = pages[seat]
    toggle = page.locator("#quick-turns")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(toggle).to_have_text("Turns play at once")
    roll = httpx.get(f"{server.base_url}/games/{game['gameId']}/moves", timeout=10).json()
    moves = king_sparing_turn(roll["legalMoves"], roll["dfen"], seat, random.Random(8))
    for uci in moves:  # the last click completes the turn, and it goes: no "Play this turn"
        page.click(f'[data-square="{uci[:2]}"]')
        page.click(f'[data-square="{uci[2:4]}"]')
    other = pages["Black" if seat == "White" else "White"]
    expect(turn_in_list(other, seat, moves)).to_have_count(1)
    page.reload()
    expect(page.locator("#quick-turns")).to_have_attribute("aria-pressed", "true")  # this browser keeps it
    # a draw can still be offered: the box is there while the turn is built (play-through s59:
    # it showed only once the turn was complete, by when the turn had gone)
    rng, other_played = random.Random(9), False
    # on until the other side has played a turn too (an offer before that would only abort) and it is ours
    while (state := wait_until_sync(lambda: pending(server.base_url, game["gameId"]), "a roll"))["activeSeat"] != seat \
            or not other_played:
        mover = state["activeSeat"]
        other_played = other_played or mover != seat
        clicked_at_once(pages[mover], server.base_url, game["gameId"], mover, rng)  # one browser, one choice
        wait_until_sync(lambda: (pending(server.base_url, game["gameId"]) or {}).get("version", 0) > state["version"], "the turn")
    expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
    expect(page.locator("#offer-draw-label")).to_be_visible()
    page.check("#offer-draw")
    clicked_at_once(page, server.base_url, game["gameId"], seat, rng)
    expect(other.locator("#draw-offer")).to_be_visible()


def test_a_spectator_is_not_offered_the_turn_toggle(server, context):
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    page = context.new_page()
    page.goto(f"{server.base_url}/play/{game['gameId']}")
    expect(page.locator("#connection")).to_have_attribute("data-state", "open")
    expect(page.locator("#flip")).to_be_visible()
    expect(page.locator("#quick-turns")).to_be_hidden()  # play-through s59: a spectator plays no turn
    # a seat's link opened by another guest once the seat is taken: the page watches, untoggled
    open_seats(context, server.base_url, game)
    stranger = context.browser.new_context().new_page()
    stranger.goto(seat_link(server.base_url, game, "White"))
    expect(stranger.locator("#role")).to_have_text("Watching")
    expect(stranger.locator("#quick-turns")).to_be_hidden()
    # nor is a player once the game is over (play-through, session 60: it stayed under the result)
    seats = open_seats(context, server.base_url, game)
    expect(seats["White"].locator("#quick-turns")).to_be_visible()
    seats["White"].click("#resign")
    seats["White"].click("#confirm-yes")
    for page in seats.values():
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#quick-turns")).to_be_hidden()


def test_a_roll_whose_tree_is_being_read_says_so_and_is_played_once_read(server, chromium):
    """A roll whose legal-move tree is too big to travel with it (`legalMoves: null`): the page
    reads GET .../moves, and until then says so (play-through s71: it said "White to move:
    waiting for your opponent." to White). Here every roll arrives so: the socket's frames are
    rewritten on their way to the page, and the tree's read is held until the test lets it go."""
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    made = chromium.new_context()
    held = []

    def without_trees(route):
        to_server = route.connect_to_server()

        def to_page(message):
            frame = json.loads(message)
            if isinstance(frame, dict) and "DiceRolled" in frame:
                frame["DiceRolled"]["legalMoves"] = None
            route.send(json.dumps(frame))

        to_server.on_message(to_page)
        route.on_message(lambda message: to_server.send(message))

    try:
        made.route_web_socket(re.compile(r".*/games/.*/ws.*"), without_trees)
        made.route(re.compile(r".*/games/[^/]+/moves$"), lambda route: held.append(route))
        pages = open_seats(made, base, game)
        seat = wait_until_sync(lambda: (s := pending(base, game["gameId"])) and s["legalMoves"] != {} and s["activeSeat"],
                               "a roll with moves to play")
        page = pages[seat]
        expect(page.locator("#status")).to_have_text("Your turn: reading the moves your dice allow...")
        expect(page.locator("#status")).to_have_attribute("data-status", "reading-moves")
        wait_until_sync(lambda: held, "the tree's read")
        for route in held:
            route.continue_()
        expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
        expect(page.locator("#status")).to_have_text(re.compile("^Your turn: "))
    finally:
        made.close()
