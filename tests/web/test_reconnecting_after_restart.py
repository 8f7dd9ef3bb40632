"""After a restart, a player whose page is on its way back to the new process is shown
"reconnecting", not "left the game" (play-through, session 63: a spectator read "left the game"
of both players a second after a restart, while their pages were coming back)."""

from __future__ import annotations

import random
import re

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.browser import finished_game, pending, play_until_both_played, seat_link
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.server import free_port
from tests.support.waiting import wait_until_sync

pytestmark = pytest.mark.postgres


def test_a_player_not_back_yet_reads_reconnecting_then_left_then_nothing_once_back(serve, migrated_url, chromium):
    """White's page and a spectator's come back to the restarted server within a second; Black's
    (a slow phone, here its socket refused) does not: both read "reconnecting after a server
    restart" under Black, in grey, for 10 s, then "left the game: loses in N s unless back" with
    the grace counted from the restart; once Black's page gets through, nothing."""
    env = {"DATABASE_URL": migrated_url, "GAME_DURABILITY": "required", "DICE_SEED_WINDOW_MS": "0", "PLAY_PORT": str(free_port())}
    server = serve(env)
    base = server.base_url
    game = httpx.post(f"{base}/games", json={"timeControl": {"Unlimited": {}}}, timeout=10).json()
    contexts = [chromium.new_context() for _ in range(3)]
    refusing = []

    def black_socket(route):
        if refusing:
            route.close(code=1011, reason="unreachable")  # refused before it opens, as a lost network is
            return
        route.connect_to_server()

    pages = {}
    for context, seat in zip(contexts, ("White", "Black")):
        pages[seat] = context.new_page()
        if seat == "Black":
            pages[seat].route_web_socket(re.compile(r".*/games/.*/ws.*"), black_socket)
        pages[seat].goto(f"{base}/play/{game['gameId']}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
        expect(pages[seat].locator("#connection")).to_have_attribute("data-state", "open")
    watcher = contexts[2].new_page()
    watcher.goto(f"{base}/play/{game['gameId']}")
    wait_until_sync(lambda: pending(base, game["gameId"]), "the first roll: the game is on")
    play_until_both_played(pages, base, game["gameId"], random.Random(7))

    refusing.append(True)
    assert server.stop() == 0
    serve(env)  # the same port: the pages come back to the address they know
    for page in (pages["White"], watcher):
        away = page.locator("#player-black .away")
        expect(away).to_have_text("reconnecting after a server restart", timeout=10_000)
        expect(away).to_have_class(re.compile(r"\breconnecting\b"))
        expect(page.locator("#player-white .away")).to_have_count(0)  # White's page is back
    for page in (pages["White"], watcher):  # not back in 10 s: gone, as anyone who left
        away = page.locator("#player-black .away")
        expect(away).to_contain_text("left the game: loses in", timeout=12_000)
        expect(away).not_to_have_class(re.compile(r"\breconnecting\b"))
        left = int(re.search(r"loses in (\d+) s", away.inner_text())[1])
        assert 10 <= left <= 21, f"the grace counts from the restart, not from the end of the 10 s: {left}"
    refusing.clear()  # Black's page gets through on its next try
    for page in (pages["White"], watcher):
        expect(page.locator("#player-black .away")).to_have_count(0, timeout=20_000)
    expect(pages["White"].locator("#result")).to_be_hidden()
    for context in contexts:
        context.close()


def test_a_game_over_before_the_restart_opens_as_its_replay(serve, migrated_url, chromium):
    """A finished game is served live only while its room is kept (the last 1,000 ended, until a
    restart): after that its page, a spectator's or a player's from the seat's link, shows the
    game's replay (play-through s69: "Waiting for the game... reconnecting..." for good)."""
    env = {"DATABASE_URL": migrated_url, "GAME_DURABILITY": "required", "DICE_SEED_WINDOW_MS": "0", "PLAY_PORT": str(free_port())}
    server = serve(env)
    game = httpx.post(f"{server.base_url}/games", json={"timeControl": {"Unlimited": {}}}, timeout=10).json()
    game_id = finished_game(server, 2, game=game)
    assert server.stop() == 0
    base = serve(env).base_url
    context = chromium.new_context()
    for link in (f"{base}/play/{game_id}", seat_link(base, game, "White")):
        page = context.new_page()
        sockets = []
        page.on("websocket", lambda socket: sockets.append(socket.url))
        page.goto(link)
        # sent on by the server (play-through s71: the page opened a socket first, refused), and
        # the seat's token out of the address bar
        expect(page).to_have_url(f"{base}/replay/{game_id}")
        expect(page.locator("#outcome")).to_contain_text("Black won by resignation")
        assert sockets == []
    expect(page.locator("#name-bottom .you")).to_have_text("(you)")  # the seat's link: White's side
    context.close()
