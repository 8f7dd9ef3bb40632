"""The first-move limit on the play page: the player who has not played a turn yet is counted
down under their name, on both pages; past it the game is aborted and the result says who did
not move (PLAY_FIRST_MOVE_S, here a few seconds so the test sees it run out)."""

from __future__ import annotations

import random
import re

import httpx
from playwright.sync_api import expect

from tests.support.browser import build_turn, open_seats, pending
from tests.support.server import module_server
from tests.support.waiting import wait_until_sync

LIMIT_S = 20
"""Long enough for a loaded machine to click a turn and read both pages before it runs out."""
server = module_server({"DICE_SEED_WINDOW_MS": "0", "PLAY_FIRST_MOVE_S": str(LIMIT_S)})
TEN_MINUTES = {"Fischer": {"initialSeconds": 600, "incrementSeconds": 0}}


def first_roll(base: str, game_id: str) -> str:
    return wait_until_sync(lambda: (pending(base, game_id) or {}).get("activeSeat"), "a roll to play")


def test_a_first_mover_who_never_moves_is_counted_down_and_the_game_aborted(server, context):
    game = httpx.post(f"{server.base_url}/games", json={"timeControl": TEN_MINUTES}, timeout=10).json()
    pages = open_seats(context, server.base_url, game)
    mover = first_roll(server.base_url, game["gameId"])
    other = "Black" if mover == "White" else "White"
    for page in pages.values():
        due = page.locator(f"#player-{mover.lower()} .first-move")
        expect(due).to_have_text(re.compile(r"^first move: \d+ s left, or the game is aborted$"), use_inner_text=True)
        expect(page.locator(f"#player-{other.lower()} .first-move")).to_have_count(0)
    # and where the mover looks, the status line (play-through s59: a grey line at the board's foot was missed)
    expect(pages[mover].locator("#status")).to_have_text(
        re.compile(r"^Your turn: play your first move within \d+\s+s, or the game is aborted\.$"))
    expect(pages[other].locator("#status")).to_have_text(  # and on the other page (play-through s59: it did not)
        re.compile(rf"^{mover} to move: waiting for your opponent's first move \(\d+\s+s left, or the game is aborted\)\.$"))
    calm = pages[other].locator(f"#player-{mover.lower()} .first-move")
    expect(calm).not_to_have_class(re.compile(r"\bsoon\b"))  # news, not an alarm, until its last 10 s
    expect(calm).to_have_class(re.compile(r"\bsoon\b"), timeout=LIMIT_S * 1000)
    for page in pages.values():  # 10 s and more on the first move, and not on the clock
        expect(page.locator(f"#clock-{mover.lower()}")).to_have_text("10:00")
        expect(page.locator(f"#clock-{mover.lower()}")).not_to_have_class(re.compile(r"\brunning\b"))
    for seat, page in pages.items():
        expect(page.locator("#result-title")).to_have_text("Game aborted", timeout=(LIMIT_S + 10) * 1000)
        who = "You" if seat == mover else "Your opponent"
        expect(page.locator("#result-detail")).to_have_text(f"{who} did not play a first move in time: no result, no rating.")
        expect(page.locator(f"#player-{mover.lower()} .first-move")).to_have_count(0)  # over: nothing to count
    record = httpx.get(f"{server.base_url}/games/{game['gameId']}", timeout=10).json()
    assert record["status"]["Ended"]["over"]["termination"] == "Aborted", record["status"]
    archived = httpx.get(f"{server.base_url}/games/{game['gameId']}/history", timeout=10).json()
    assert archived["abort"] == {"cause": "first_move", "seat": mover}
    # A page opened after the end has seen no count run out: the record says why, as do the
    # replay and the list of finished games.
    page = pages[mover]
    page.reload()
    expect(page.locator("#result-detail")).to_have_text("You did not play a first move in time: no result, no rating.")
    # no turn was played, but a roll was: the replay has it to show and check (play-through s59)
    assert archived["unplayedRoll"]["activeColor"] == mover, archived
    expect(page.locator("#replay")).to_be_visible()
    page.goto(f"{server.base_url}/replay/{game['gameId']}")
    expect(page.locator("#outcome")).to_contain_text(f"Aborted: {mover} did not play a first move in time, ")
    page.goto(f"{server.base_url}/history")
    listed = page.locator(f"[data-game='{game['gameId']}'] .result")
    expect(listed).to_have_text(f"Aborted: {mover} did not play a first move in time")
    # without a count of moves (play-through s61: an abort's passes read "1 move")
    expect(page.locator(f"[data-game='{game['gameId']}'] .meta")).not_to_have_text(re.compile(r"\d\s+moves?\b"))


def test_a_first_turn_played_moves_the_count_to_the_other_side(server, context):
    game = httpx.post(f"{server.base_url}/games", json={"timeControl": TEN_MINUTES}, timeout=10).json()
    pages = open_seats(context, server.base_url, game)
    mover = first_roll(server.base_url, game["gameId"])
    other = "Black" if mover == "White" else "White"
    rng, turns = random.Random(5), 0
    while (state := wait_until_sync(lambda: pending(server.base_url, game["gameId"]), "a roll to play"))["activeSeat"] == mover:
        turns += 1  # more than one when the other side's rolls were passed for want of a move
        build_turn(pages[mover], server.base_url, game["gameId"], mover, rng)
        pages[mover].click("#submit")
        expect(pages[other].locator(f"#player-{mover.lower()} .first-move")).to_have_count(0)
        wait_until_sync(lambda: (pending(server.base_url, game["gameId"]) or {}).get("version", 0) > state["version"], "the next roll")
    for page in pages.values():
        expect(page.locator(f"#player-{other.lower()} .first-move")).to_contain_text("first move:")
        expect(page.locator(f"#player-{mover.lower()} .first-move")).to_have_count(0)
        # a first turn is not on the clock (the server's clocks, as the roll gave them): the
        # other side's stands still at its start, and so does the mover's after one turn
        expect(page.locator(f"#clock-{other.lower()}")).to_have_text("10:00")
        expect(page.locator(f"#clock-{other.lower()}")).not_to_have_class(re.compile(r"\brunning\b"))
        if turns == 1:
            expect(page.locator(f"#clock-{mover.lower()}")).to_have_text("10:00")
    # on a phone the count stays, the rest of the sentence gives way
    pages[mover].set_viewport_size({"width": 360, "height": 740})
    due = pages[mover].locator(f"#player-{other.lower()} .first-move")
    expect(due).to_have_text(re.compile(r"^first move: \d+ s$"), use_inner_text=True)
    assert "or the game is aborted" in due.get_attribute("title")
