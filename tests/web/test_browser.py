"""The web client in a real Chromium (Debian's, driven by Playwright) against a real
`playsite serve`: two people play a friend game by clicking legal squares, a spectator
watches, one resigns. Every wait is on a page condition, never a sleep."""

from __future__ import annotations

import random
import re

import httpx
from playwright.sync_api import expect

from tests.support.browser import pending, play_turn, turn_in_list
from tests.support.server import module_server
from tests.support.waiting import wait_until_sync

TURNS = 4


def test_two_people_play_by_clicking_and_a_spectator_follows(server, chromium):
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    game_id = game["gameId"]
    pages = {}
    for seat in ("White", "Black"):
        page = chromium.new_page()
        token = game["seats"][seat.lower()]["token"]
        page.goto(f"{base}/play/{game_id}#seat={seat}&token={token}")
        expect(page).to_have_url(f"{base}/play/{game_id}")  # the token left the address bar at once
        pages[seat] = page
    watcher = chromium.new_page()
    watcher.goto(f"{base}/play/{game_id}")
    for page in (*pages.values(), watcher):
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
    expect(watcher.locator("#role")).to_have_text("Watching")

    rng = random.Random(11)
    played = []
    # At least TURNS turns, and one by each side: a resignation before both have played is an
    # abort, and a seat whose dice have no move passes by itself.
    while len(played) < TURNS or set(played) != {"White", "Black"}:
        state = wait_until_sync(lambda: pending(base, game_id), "a roll waiting to be played")
        played.append(state["activeSeat"])
        page = pages[state["activeSeat"]]
        expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
        moves = play_turn(page, base, game_id, state["activeSeat"], rng)
        for each in (*pages.values(), watcher):
            expect(turn_in_list(each, state["activeSeat"], moves)).not_to_have_count(0)
        expect(page.locator("#partial")).to_have_attribute("data-moves", "")

    pages["White"].click("#resign")
    pages["White"].click("#confirm-yes")  # Resign asks once
    for page in (*pages.values(), watcher):
        expect(page.locator("#status")).to_have_attribute("data-status", "ended")
    expect(watcher.locator("#result")).to_contain_text("Black won: White resigned")
    expect(pages["Black"].locator("#result")).to_contain_text("You won: White resigned")


def test_the_home_page_creates_a_friend_game_and_lists_it(server, chromium):
    page = chromium.new_page()
    page.goto(server.base_url + "/")
    expect(page.locator("#showcase")).to_be_hidden()  # no showcase on this server
    page.select_option("#friend-clock", label="3+2")
    expect(page.locator("#friend-rated")).to_be_disabled()  # signed out: no rated game to promise
    page.click("#friend-create")
    # to the board at once, in the creator's seat (play-through s71: the link and "Play White"
    # stayed in the lobby, which never said the friend had come)
    expect(page.locator("#role")).to_have_text("You play White")
    expect(page.locator("#time-control")).to_have_text("3+2 \u00b7 Casual")
    expect(page.locator("#connection")).to_have_attribute("data-state", "open")
    # the friend's link is on the game's page until the friend comes
    expect(page.locator("#invite-link")).to_have_value(re.compile("#seat=Black&token="))
    friend_link = page.locator("#invite-link").input_value()
    assert "#seat=Black&token=" in friend_link and friend_link.startswith(server.base_url + "/play/")
    friend = chromium.new_page()
    friend.goto(friend_link)
    expect(friend.locator("#role")).to_have_text("You play Black")
    expect(friend.locator("#invite")).to_be_hidden()
    expect(page.locator("#invite")).to_be_hidden()  # the friend came: the game begins
    home = chromium.new_page()
    home.goto(server.base_url + "/")
    expect(home.locator("#live-games li a")).to_have_count(1)
    game_id = friend_link.split("/play/")[1].split("#")[0]
    state = httpx.get(f"{server.base_url}/games/{game_id}", timeout=10).json()
    assert state["timeControl"] == {"Fischer": {"initialSeconds": 180, "incrementSeconds": 2}}  # the one chosen


server_with_house_bots = module_server({"DICE_SEED_WINDOW_MS": "0", "PLAY_HOUSE_BOTS": "true"}, "server_with_house_bots")


def test_a_person_plays_a_house_bot_from_the_home_page(server_with_house_bots, chromium):
    base = server_with_house_bots.base_url
    page = chromium.new_page()
    page.goto(base + "/")
    page.click('button[data-bot="house/greedy"]')
    expect(page.locator("#role")).to_contain_text("You play")
    game_id = page.url.split("/play/")[1]
    seat = page.locator("#role").inner_text().split()[-1]
    expect(page.locator("#connection")).to_have_attribute("data-state", "open")

    def my_roll():
        state = pending(base, game_id)
        return state if state and state["activeSeat"] == seat else None

    state = wait_until_sync(my_roll, "the person's roll (the house bot moves at once when it is White)")
    expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
    moves = play_turn(page, base, game_id, seat, random.Random(2))
    expect(turn_in_list(page, seat, moves)).not_to_have_count(0)
    house = "Black" if seat == "White" else "White"
    expect(page.locator(f'#history .turn[data-seat="{house}"]')).not_to_have_count(0)  # the house bot answered
    assert state["players"][house.lower()] == {"kind": "Bot", "name": "house greedy"}
