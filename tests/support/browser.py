"""What the browser tests share: Debian's Chromium through Playwright (launched once per
module), finished games made over real sockets, and the steps a person takes on a game page."""

from __future__ import annotations

import random
from collections.abc import Callable

import httpx
import pytest
import trio
from playwright.sync_api import expect, sync_playwright

from playsite.wire import GameEnded, Resign, SubmitSeed, TurnPlayed, encode_command
from tests.support.client import Player, Table, create_game
from tests.support.turns import king_sparing_turn
from tests.support.waiting import wait_until_sync

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
expect.set_options(timeout=15_000)  # a 2-core CI machine under load: generous, never a sleep
WINDOWS = """Every page a test opens after a profile's first is a window of its own, as two players'
pages are on two machines: headless Chromium runs the animation frames of a tab behind another
about once a second, and Playwright waits for two frames in which an element stays put before it
clicks, so a click on a tab behind took 1-2 s (and a layout that moves on every frame, as the
board that shrank in CI s66, could not be clicked at all). A tab brought to the front has the
same effect, until the next page is opened in front of it."""


def launch(playwright):
    """Debian's Chromium, whose profiles (`new_context`) open their pages as WINDOWS says."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    new_context = browser.new_context

    def windowed_context(**options):
        return windowed(new_context(**options))

    browser.new_context = windowed_context
    return browser


def windowed(context):
    """`context`, whose `new_page` opens each page after the first in a window of its own."""
    new_tab = context.new_page

    def new_page():
        if not context.pages:
            return new_tab()
        first = context.pages[0]
        session = context.new_cdp_session(first)
        profile = session.send("Target.getTargetInfo")["targetInfo"]["browserContextId"]
        session.detach()
        browser = context.browser.new_browser_cdp_session()
        with context.expect_page() as made:
            browser.send("Target.createTarget", {"url": "about:blank", "browserContextId": profile, "newWindow": True})
        browser.detach()
        return made.value

    context.new_page = new_page
    return context


@pytest.fixture(scope="module")
def chromium():
    with sync_playwright() as playwright:
        launched = launch(playwright)
        yield launched
        launched.close()


@pytest.fixture
def context(chromium):
    """A fresh browser profile (cookies, storage) for one test."""
    made = chromium.new_context()
    yield made
    made.close()


def bots_game(base_url: str) -> str:
    """A game between two anonymous API bots, neither ever moving: it stays under way (and on
    the home page's wall) for the first player's whole clock, whatever a person's graces and
    first-move limit do; returns its id."""
    tokens = []
    for name in ("idle-white", "idle-black"):
        minted = httpx.post(f"{base_url}/bot/anon", params={"name": name}, timeout=10)
        assert minted.status_code == 201, minted.text
        tokens.append((minted.json(), {"Authorization": f"Bearer {minted.json()['token']}"}))
    (_, white), (black, black_auth) = tokens
    challenge = httpx.post(f"{base_url}/bot/challenge", json={"team": black["team"], "name": black["name"]},
                           headers=white, timeout=10)
    assert challenge.status_code == 201, challenge.text
    accepted = httpx.post(f"{base_url}/bot/challenge/{challenge.json()['id']}/accept", headers=black_auth, timeout=10)
    assert accepted.status_code == 201, accepted.text
    return accepted.json()["gameId"]


def finished_game(
    server, turns: int, seeds: dict[str, str] | None = None, seed: int = 5, *, a_turn_of: int = 0, game: dict | None = None,
    until: Callable[[TurnPlayed], bool] | None = None,
) -> str:
    """A game played `turns` turns over real sockets (never taking a king; with `turns`, more
    until both sides have played one), then resigned by White; returns its id once the archive
    has it. With `a_turn_of`, play on (up to 100 turns) until one turn made at least that many
    moves: the dice are the server's, and may give only passes and one-move turns for a while.
    With `until`, play on (up to 150 turns) until a turn played satisfies it. `game`: one already
    created (as `POST /games` answered it, Unlimited), else a new one."""

    async def play() -> str:
        nonlocal game
        game = game or await create_game(server.base_url, timeControl={"Unlimited": {}})
        table = Table(Player(server.ws_url, game, "White"), Player(server.ws_url, game, "Black"))
        rng = random.Random(seed)
        async with table.open():
            for seat, text in (seeds or {}).items():
                await table.players[seat].ws.send_message(encode_command(SubmitSeed(text)))
            played = longest = 0
            seats: set[str] = set()
            limit, taken = (100, True) if until is None else (150, False)
            # both sides must have played a turn, or the resignation is an abort: a side whose
            # rolls all passed has played none (CI s69: Black passed four rolls in a row)
            while played < turns or longest < a_turn_of or (turns and len(seats) < 2) or not taken:
                assert played < limit, f"no turn of {a_turn_of} moves, or none `until` takes, in {limit} turns"
                turn = await table.play_turn(rng, spare_king=True)
                played, longest = played + 1, max(longest, len(turn.moves))
                seats.add(turn.seat)
                taken = until is None or until(turn)  # asked of every turn played, in order
            white = table.players["White"]
            await white.ws.send_message(encode_command(Resign()))
            await table.wait_for(white, lambda event: isinstance(event, GameEnded))
        return game["gameId"]

    return trio.run(play)


def play_a_bot(page, base: str, bot: str = "house/random") -> tuple[str, str]:
    """A game against `bot` from the home page, as a guest: (my seat, the bot's seat), lower case."""
    page.goto(base + "/")
    page.click(f'button[data-bot="{bot}"]')
    expect(page.locator("#role")).to_contain_text("You play")
    mine = page.locator("#role").inner_text().split()[-1].lower()
    return mine, "white" if mine == "black" else "black"


# Where a player's turn stands on the screen: the line of moves' top, the board's width, the foot
# of "Play this turn", the window and how far the page is scrolled.
TURN_IN_VIEW = """() => { const box = (id) => document.getElementById(id).getBoundingClientRect();
    return { stripTop: box("move-strip").top, board: box("board").width, submitBottom: box("submit").bottom,
             width: innerWidth, height: innerHeight, scrolled: scrollY }; }"""


def touch_screen(chromium, width: int, height: int, **options):
    """A browser context as a phone's or a tablet's: its window, a touch screen, a mobile viewport."""
    return chromium.new_context(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True, **options)


def pending(base: str, game_id: str) -> dict | None:
    """The game's state when a roll waits to be played, else None; its `legalMoves` always the
    whole tree: the state leaves out one over 48 KiB (`null`, ~3% of rolls, a test's first move
    read from it failed in CI s73), which `/moves` always has (None if the game moved on between)."""
    state = httpx.get(f"{base}/games/{game_id}", timeout=10).json()
    if not state["dicePending"]:
        return None
    if state["legalMoves"] is None:
        roll = httpx.get(f"{base}/games/{game_id}/moves", timeout=10).json()
        if roll["version"] != state["version"]:
            return None
        state["legalMoves"] = roll["legalMoves"]
    return state


def seat_link(base: str, game: dict, seat: str) -> str:
    """The game page of `seat`, as a friend's link gives it (the seat's token in the fragment);
    `game` as `POST /games` answers it."""
    return f"{base}/play/{game['gameId']}#seat={seat}&token={game['seats'][seat.lower()]['token']}"


def open_seats(context, base: str, game: dict, *, apart: bool = False) -> dict:
    """A page per seat; `apart`: Black's in a browser profile of its own (another guest id)."""
    pages = {}
    for seat in ("White", "Black"):
        page = context.browser.new_context().new_page() if apart and seat == "Black" else context.new_page()
        page.goto(seat_link(base, game, seat))
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        pages[seat] = page
    return pages


def build_turn(page, base: str, game_id: str, seat: str, rng: random.Random) -> list[str]:
    """Build a random legal turn by clicking the board (never taking a king: the game must go
    on), without submitting it."""
    roll = httpx.get(f"{base}/games/{game_id}/moves", timeout=10).json()
    moves = king_sparing_turn(roll["legalMoves"], roll["dfen"], seat, rng)
    click_turn(page, moves)
    return moves


def click_turn(page, moves: list[str]) -> None:
    """Click a turn's micro-moves on the board (and a promotion's piece), not submitting it."""
    for uci in moves:
        page.click(f'[data-square="{uci[:2]}"]')
        page.click(f'[data-square="{uci[2:4]}"]')
        if len(uci) == 5:
            page.click(f'#promotion button[data-move="{uci}"]')
    expect(page.locator("#partial")).to_have_attribute("data-moves", " ".join(moves))


def play_turn(page, base: str, game_id: str, seat: str, rng: random.Random) -> list[str]:
    """Build a random legal turn by clicking the board, then play it."""
    moves = build_turn(page, base, game_id, seat, rng)
    page.click("#submit")
    return moves


def play_until_both_played(pages: dict, base: str, game_id: str, rng: random.Random) -> str:
    """Play turns on the seats' pages (clicking the board) until both sides have played one:
    before that a draw offer is not offered (accepted, it would only abort the game). Returns
    the seat whose roll waits next."""
    played, version = set(), -1
    while True:
        state = wait_until_sync(
            lambda: (s := pending(base, game_id)) and s["version"] > version and s, "the next roll")
        version, seat = state["version"], state["activeSeat"]
        if played == {"White", "Black"}:
            return seat
        expect(pages[seat].locator("#status")).to_have_attribute("data-status", "your-turn")
        play_turn(pages[seat], base, game_id, seat, rng)
        played.add(seat)


def turn_in_list(page, seat: str, moves: list[str]):
    """The move list's entry for a turn `seat` played (its micro-moves in `data-moves`)."""
    return page.locator(f'#history .turn[data-seat="{seat}"][data-moves="{" ".join(moves)}"]')


def text_lines(locator) -> int:
    """On how many lines the element's text is laid out (its text's boxes by their tops)."""
    return locator.evaluate("""(e) => { const words = document.createRange(); words.selectNodeContents(e);
        return new Set([...words.getClientRects()].map((r) => Math.round(r.top))).size; }""")
