"""The home page as a lobby, in real Chromium against a real `playsite serve`: two people meet
through a seek (one posts it with a clock, the other sees it appear and accepts, both land on
the game in opposite seats), a seek is cancelled, the friend link is copied, a bot is played
with the clock chosen, and the wall of live games shows each position as a mini-board and
follows it without a reload."""

from __future__ import annotations

import random
import re
import uuid

import httpx
from playwright.sync_api import expect

from tests.support.browser import PHONE, pending, seat_link
from tests.support.client import TableInThread
from tests.support.server import module_server
from tests.support.waiting import wait_until_sync

FILES = "abcdefgh"


server = module_server({"DICE_SEED_WINDOW_MS": "0", "PLAY_HOUSE_BOTS": "true"})


def squares(dfen: str) -> set[str]:
    """The mini-board classes of every piece of a DFEN: {"f1 r1", ...} (file and rank, 1-based)."""
    found = set()
    for row, line in enumerate(dfen.split(" ")[0].split("/")):
        file = 0
        for char in line:
            if char.isdigit():
                file += int(char)
                continue
            found.add(f"f{file + 1} r{8 - row}")
            file += 1
    return found


def test_two_people_meet_through_a_seek(server, chromium):
    alice, bob = chromium.new_context(), chromium.new_context()
    try:
        creator = alice.new_page()
        creator.goto(server.base_url + "/")
        creator.click('#pairing-grid button[data-clock="5+3"]')
        expect(creator.locator("#seek-waiting")).to_contain_text("Waiting for an opponent (5+3)")
        tile = creator.locator('#pairing-grid button[data-clock="5+3"]')
        expect(tile).to_have_attribute("aria-pressed", "true")
        # Under the pointer the chosen tile stays the accent colour, its text readable.
        accent = creator.evaluate("""() => {
            const probe = Object.assign(document.createElement("span"), { textContent: "x" });
            probe.style.background = "var(--accent)";
            probe.style.color = "var(--accent-text)";
            document.body.append(probe);
            const style = getComputedStyle(probe);
            const colours = [style.backgroundColor, style.color];
            probe.remove();
            return colours;
        }""")
        tile.hover()
        expect(tile).to_have_css("background-color", accent[0])
        expect(tile).to_have_css("color", accent[1])
        expect(creator.locator("#seek-list tr.own")).to_contain_text("You")

        taker = bob.new_page()
        taker.goto(server.base_url + "/")
        row = taker.locator("#seek-list tr", has_text="5+3")
        expect(row).to_contain_text("Anonymous")
        row.get_by_role("button", name="Accept").click()
        expect(taker.locator("#role")).to_contain_text("You play")
        expect(creator).to_have_url(taker.url)  # the creator's page followed by itself
        expect(creator.locator("#role")).to_contain_text("You play")
        seats = {page.locator("#role").inner_text().split()[-1] for page in (creator, taker)}
        assert seats == {"White", "Black"}
        game_id = taker.url.split("/play/")[1]
        state = httpx.get(f"{server.base_url}/games/{game_id}", timeout=10).json()
        assert state["timeControl"] == {"Fischer": {"initialSeconds": 300, "incrementSeconds": 3}}
        assert httpx.get(f"{server.base_url}/lobby/seeks", timeout=10).json() == []
    finally:
        alice.close()
        bob.close()


def test_a_seek_is_cancelled_and_leaves_the_lobby(server, chromium):
    alice, bob = chromium.new_context(), chromium.new_context()
    try:
        creator = alice.new_page()
        creator.goto(server.base_url + "/")
        creator.click('#pairing-grid button[data-clock="3+0"]')
        expect(creator.locator("#seek-waiting")).to_be_visible()
        other = bob.new_page()
        other.goto(server.base_url + "/")
        expect(other.locator("#seek-list tr", has_text="3+0")).to_be_visible()
        creator.click("#seek-cancel")
        expect(creator.locator("#seek-waiting")).to_be_hidden()
        expect(other.locator("#seek-list")).to_contain_text("No open seek")  # refreshed without a reload
        assert httpx.get(f"{server.base_url}/lobby/seeks", timeout=10).json() == []
    finally:
        alice.close()
        bob.close()


def test_one_s_own_seek_in_another_tab_is_shown_as_one_s_own(server, context):
    """Play-through s58: the seek posted in one tab showed Accept in a second tab of the same
    browser, which answered "this is your own seek". It reads "You ... in another tab" there, and
    a seek posted there takes its place."""
    first = context.new_page()
    first.goto(server.base_url + "/")
    first.click('#pairing-grid button[data-clock="3+2"]')
    expect(first.locator("#seek-list tr.own")).to_contain_text("You")
    second = context.new_page()
    second.goto(server.base_url + "/")
    row = second.locator("#seek-list tr", has_text="3+2")
    expect(row).to_have_class(re.compile(r"\bown\b"))
    expect(row).to_contain_text("You")
    expect(row).to_contain_text("in another tab or browser")
    expect(row.get_by_role("button")).to_have_count(0)  # neither Accept nor a Cancel it holds no secret for
    # One seek a person: a new one takes the place of the other tab's (play-through s72: a tab
    # gone without a word held it for two minutes, and no other browser could cancel it).
    second.click('#pairing-grid button[data-clock="5+3"]')
    expect(second.locator("#seek-waiting-text")).to_have_text("Waiting for an opponent (5+3)...")
    expect(first.locator("#seek-message")).to_have_text(
        "Your seek is gone (you started another game or seek, or it lapsed); pick a clock to seek again.", timeout=15_000)
    expect(first.locator("#seek-waiting")).to_be_hidden()
    # its list is read again at once: the row of the seek that went is gone (it kept its Cancel)
    expect(first.locator("#seek-list tr.own")).to_have_count(1, timeout=2_000)
    expect(first.locator("#seek-list tr.own")).to_contain_text("5+3", timeout=2_000)
    expect(first.locator("#seek-list tr.own").get_by_role("button")).to_have_count(0)
    second.click("#seek-cancel")
    expect(first.locator("#seek-list")).to_contain_text("No open seek")


def test_a_seek_left_open_in_one_tab_goes_when_a_game_starts_in_another(server, context):
    """Play-through s58/s59: a seek open in one tab while its creator played a bot in another
    started a second game; now it is withdrawn, and its tab says so and offers the game."""
    first = context.new_page()
    first.goto(server.base_url + "/")
    first.click('#pairing-grid button[data-clock="10+0"]')
    expect(first.locator("#seek-waiting")).to_be_visible()
    second = context.new_page()
    second.goto(server.base_url + "/")
    second.click('button[data-bot="house/random"]')
    expect(second.locator("#role")).to_contain_text("You play")
    expect(first.locator("#seek-message")).to_contain_text("Your seek is gone", timeout=15_000)
    expect(first.locator("#seek-waiting")).to_be_hidden()
    expect(first.locator("#my-games")).to_contain_text("You have a game in progress")
    assert httpx.get(f"{server.base_url}/lobby/seeks", timeout=10).json() == []


def test_a_game_begun_in_another_tab_shows_even_when_the_withdrawal_is_heard_first(server, context):
    """CI s72: the server withdraws the seek as it makes the bot's game, before the other tab has
    its answer and keeps the seat; a poll landing between the two found no game to offer, and the
    lobby never looked again. Here the other tab's answer is held until the lobby has heard."""
    first = context.new_page()
    first.goto(server.base_url + "/")
    first.click('#pairing-grid button[data-clock="10+0"]')
    expect(first.locator("#seek-waiting")).to_be_visible()
    second = context.new_page()
    held = []
    second.route(re.compile(r".*/lobby/play-bot$"), lambda route: held.append(route))
    second.goto(server.base_url + "/")
    second.click('button[data-bot="house/random"]')
    for _ in range(600):  # the bot is woken first, then its game asked for
        if held:
            break
        second.wait_for_timeout(50)
    answer = held[0].fetch()  # the game is made, and the seek withdrawn, now
    expect(first.locator("#seek-message")).to_contain_text("Your seek is gone", timeout=15_000)
    expect(first.locator("#my-games")).to_be_hidden()
    held[0].fulfill(response=answer)
    expect(second.locator("#role")).to_contain_text("You play")
    expect(first.locator("#my-games")).to_contain_text("You have a game in progress")
    expect(first.locator("#my-games a")).to_have_attribute("href", re.compile(r"^/play/"))


def test_no_other_game_starts_from_the_lobby_while_one_is_being_played(server, context):
    """Play-through s72: a player back in the lobby from a bot game posted a seek, was paired,
    and lost the bot game by forfeit 30 s later. Now the lobby says to finish that game first,
    until it has ended."""
    game = context.new_page()
    game.goto(server.base_url + "/")
    game.click('button[data-bot="house/random"]')
    expect(game.locator("#role")).to_contain_text("You play")
    lobby = context.new_page()

    def as_before_the_first_roll(route):
        # the game as the lobby reads it while the first roll waits for the players' seeds (2 s
        # by default; this server rolls at once): nothing rolled, yet a bot is always there
        answer = route.fetch()
        state = answer.json()
        route.fulfill(response=answer, json={**state, "version": 0, "dicePending": False})

    lobby.route(re.compile(r".*/games/[0-9a-f-]+$"), as_before_the_first_roll)
    lobby.goto(server.base_url + "/")
    expect(lobby.locator("#my-games")).to_contain_text("You have a game in progress (5+3)")
    refusal = "You are playing a game (5+3): finish it, or resign it, before starting another."
    lobby.click('#pairing-grid button[data-clock="3+0"]')
    expect(lobby.locator("#seek-message")).to_have_text(refusal)
    expect(lobby.locator("#seek-waiting")).to_be_hidden()
    lobby.click('button[data-bot="house/random"]')
    expect(lobby.locator("#bots-message")).to_have_text(refusal)
    lobby.click("#friend-create")
    expect(lobby.locator("#friend-message")).to_have_text(refusal)
    assert lobby.url == server.base_url + "/"
    assert httpx.get(f"{server.base_url}/lobby/seeks", timeout=10).json() == []
    game.click("#resign")  # "Abort" before both sides have played: the game ends
    game.click("#confirm-yes")
    expect(game.locator("#result")).to_be_visible()
    lobby.click('#pairing-grid button[data-clock="3+0"]')
    expect(lobby.locator("#seek-waiting")).to_be_visible()
    expect(lobby.locator("#seek-message")).to_have_text("")
    expect(lobby.locator("#my-games")).to_be_hidden()
    lobby.click("#seek-cancel")  # the lobby is left as it was found, for the tests after this one
    expect(lobby.locator("#seek-waiting")).to_be_hidden()
    wait_until_sync(lambda: httpx.get(f"{server.base_url}/lobby/seeks", timeout=10).json() == [], "the seek withdrawn")


def test_leaving_the_page_withdraws_the_seek(server, context):
    page = context.new_page()
    page.goto(server.base_url + "/")
    page.click('#pairing-grid button[data-clock="10+0"]')
    expect(page.locator("#seek-list tr.own")).to_be_visible()
    assert len(httpx.get(f"{server.base_url}/lobby/seeks", timeout=10).json()) == 1
    page.goto(server.base_url + "/history")
    wait_until_sync(lambda: httpx.get(f"{server.base_url}/lobby/seeks", timeout=10).json() == [],
                    "the seek withdrawn when its page was left")


def test_a_seek_whose_creator_is_gone_says_the_other_seat_is_not_here_yet(server, context):
    """The creator's page died without withdrawing its seek (no page, no poll): whoever takes
    it is told the other seat was never taken and when the game goes (the claim grace)."""
    creator = str(uuid.uuid4())
    three_minutes = {"Fischer": {"initialSeconds": 180, "incrementSeconds": 0}}
    posted = httpx.post(f"{server.base_url}/lobby/seeks", json={"creator": creator, "timeControl": three_minutes}, timeout=10)
    assert posted.status_code == 201, posted.text
    page = context.new_page()
    page.goto(server.base_url + "/")
    page.locator("#seek-list tr", has_text="3+0").get_by_role("button", name="Accept").click()
    expect(page.locator("#role")).to_contain_text("You play")
    other = "white" if page.locator("#role").inner_text().split()[-1] == "Black" else "black"
    away = page.locator(f"#player-{other} .away")
    expect(away).to_contain_text("not here yet: aborted in")
    left = int(re.search(r"aborted in (\d+) s", away.inner_text())[1])
    assert 20 <= left <= 30, left
    expect(away).to_contain_text("unless they come")
    # on a 360 px phone the count stays whole: the last words give way, not the seconds (play-through s57)
    page.set_viewport_size({"width": 360, "height": 740})
    expect(away).to_have_text(re.compile(r"^not here: aborted in \d+ s$"), use_inner_text=True)
    assert away.evaluate("a => a.scrollWidth <= a.clientWidth"), away.inner_text()
    assert "unless they come" in away.get_attribute("title")

def test_the_lobby_s_refresh_keeps_the_focus_on_a_seek_and_on_a_live_game(server, context):
    """The lobby reads the seeks and the live games every few seconds; what did not change stays
    in the page as it was, so a keyboard's focus on a seek's Accept or on a game's tile stays."""
    three_minutes = {"Fischer": {"initialSeconds": 180, "incrementSeconds": 0}}
    posted = httpx.post(f"{server.base_url}/lobby/seeks", json={"creator": str(uuid.uuid4()), "timeControl": three_minutes},
                        timeout=10)
    seek = posted.json()
    try:
        with two_seats(server) as table:
            page = context.new_page()
            page.goto(server.base_url + "/")
            accept = page.locator("#seek-list tr", has_text="3+0").get_by_role("button", name="Accept")
            tile = page.locator(f'#live-games li[data-game="{table.game_id}"] a')
            for target in (accept, tile):
                expect(target).to_be_visible()
                target.focus()
                for _ in range(2):  # two reads of the lobby answered: the first one is drawn
                    page.wait_for_event("response", lambda r: "/lobby/seeks?viewer=" in r.url and r.request.method == "GET")
                assert target.evaluate("e => e === document.activeElement"), "made anew by the refresh"
    finally:
        httpx.delete(f"{server.base_url}/lobby/seeks/{seek['seekId']}", params={"secret": seek["secret"]}, timeout=10)

def test_a_player_back_in_the_lobby_mid_game_is_shown_the_way_back(server, chromium):
    """Play-through (session 57): a player who went to the lobby during their game saw it only
    as a tile on the wall, while the game counted them away. The lobby says so and links back."""
    game = httpx.post(f"{server.base_url}/games", json={"timeControl": {"Fischer": {"initialSeconds": 300, "incrementSeconds": 3}}},
                      timeout=10).json()
    white, black = chromium.new_context(), chromium.new_context()
    try:
        pages = {}
        for seat, context in (("White", white), ("Black", black)):
            pages[seat] = context.new_page()
            pages[seat].goto(seat_link(server.base_url, game, seat))
            expect(pages[seat].locator("#connection")).to_have_attribute("data-state", "open")
        mover = wait_until_sync(lambda: (pending(server.base_url, game["gameId"]) or {}).get("activeSeat"), "a roll")
        lobby = pages["White"]
        lobby.goto(server.base_url + "/")
        way_back = lobby.locator("#my-games")
        # whose move it is, and what staying away costs (play-through s58: nothing said the game would be lost)
        expect(way_back).to_contain_text(
            "You have a game in progress (5+3): it is your turn." if mover == "White" else "You have a game in progress (5+3).")
        expect(way_back).to_contain_text(
            "A player away from the board for 30 s loses the game, or aborts it before both sides have played a turn.")
        way_back.get_by_role("link", name="Back to the game").click()
        expect(lobby).to_have_url(f"{server.base_url}/play/{game['gameId']}")
        expect(lobby.locator("#role")).to_have_text("You play White")  # the seat, kept by the browser
        stranger = chromium.new_context()
        try:
            other = stranger.new_page()
            other.goto(server.base_url + "/")
            expect(other.locator("#seek-list")).to_be_attached()
            other.wait_for_load_state("networkidle")
            expect(other.locator("#my-games")).to_be_hidden()  # nobody else is told of it
        finally:
            stranger.close()
    finally:
        white.close()
        black.close()

def test_the_friend_link_is_copied(server, chromium):
    context = chromium.new_context(permissions=["clipboard-read", "clipboard-write"])
    try:
        page = context.new_page()
        page.goto(server.base_url + "/")
        page.click("#friend-create")
        expect(page.locator("#invite")).to_be_visible()  # on the game's page
        expect(page.locator("#invite-link")).to_have_value(re.compile("#seat=Black&token="))
        page.click("#invite-copy")
        expect(page.locator("#invite-copied")).to_have_text("Copied: send it to your friend.")
        link = page.locator("#invite-link").input_value()
        assert "#seat=Black&token=" in link
        assert page.evaluate("navigator.clipboard.readText()") == link
    finally:
        context.close()


def test_a_bot_is_played_with_the_chosen_clock(server, context):
    page = context.new_page()
    page.goto(server.base_url + "/")
    page.select_option("#bot-clock", "3+0")
    page.click('button[data-bot="house/random"]')
    expect(page.locator("#role")).to_contain_text("You play")
    game_id = page.url.split("/play/")[1]
    state = httpx.get(f"{server.base_url}/games/{game_id}", timeout=10).json()
    assert state["timeControl"] == {"Fischer": {"initialSeconds": 180, "incrementSeconds": 0}}


def test_a_bot_whose_program_is_not_running_is_not_played(server, context):
    """Play-through (session 57): "Play" against a catalog bot whose program had stopped began a
    game the bot never moved in, aborted when its clock ran out. The page asks the bot first."""
    registered = httpx.post(f"{server.base_url}/bot/register", json={"team": "sleepy", "name": "absent"}, timeout=10)
    assert registered.status_code in (200, 201), registered.text
    token = registered.json()["token"]
    opened = httpx.post(f"{server.base_url}/bot/open-to-humans", json={}, headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert opened.status_code == 200, opened.text
    page = context.new_page()
    page.goto(server.base_url + "/")
    page.click('button[data-bot="sleepy/absent"]')
    expect(page.locator("#bots-message")).to_have_text(
        "sleepy/absent is not answering right now (its program is not running); try another bot.")
    expect(page.locator('button[data-bot="sleepy/absent"]')).to_be_enabled()
    assert page.url.rstrip("/") == server.base_url, "no game was begun"
    assert httpx.get(f"{server.base_url}/bot/games", headers={"Authorization": f"Bearer {token}"}, timeout=10).json() == {"games": []}

def test_the_bots_list_is_read_again_and_keeps_the_focus(server, context):
    """Play-through (session 64): the bots' ratings in "Play a bot" never moved while the page
    was open (the seeks and the wall are read every 3 s). The list is read again every 30 s: a
    bot opened to people meanwhile appears, and a card kept keeps the focus on its Play."""
    page = context.new_page()
    page.clock.install()
    page.goto(server.base_url + "/")
    play = page.locator('button[data-bot="house/random"]')
    expect(play).to_be_visible()
    play.focus()
    name = f"late{uuid.uuid4().hex[:8]}"
    token = httpx.post(f"{server.base_url}/bot/register", json={"team": "fresh", "name": name}, timeout=10).json()["token"]
    opened = httpx.post(f"{server.base_url}/bot/open-to-humans", json={}, headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert opened.status_code == 200, opened.text
    page.clock.run_for(10_000)
    expect(page.locator(f'button[data-bot="fresh/{name}"]')).to_have_count(0)  # not yet: 30 s apart
    page.clock.run_for(21_000)
    expect(page.locator(f'button[data-bot="fresh/{name}"]')).to_be_visible()
    expect(play).to_be_focused()


def two_seats(server) -> TableInThread:
    """A friend game whose seats wait for a roll; `act()` plays one random legal turn."""
    return TableInThread(
        server, lambda table: table.wait_for_roll(), lambda table: table.play_turn(random.Random(3), spare_king=True)
    )


def pieces_drawn(page, game_id: str, wanted: set[str]) -> None:
    """Wait until the game's mini-board draws exactly `wanted` (file and rank classes)."""
    page.wait_for_function(
        "([selector, wanted]) => JSON.stringify([...document.querySelectorAll(selector)].map((i) => i.className).sort())"
        " === JSON.stringify(wanted)",
        arg=[f'#live-games li[data-game="{game_id}"] .mini-board img', sorted(wanted)],
    )


def test_the_wall_shows_each_position_and_follows_it(server, context):
    page = context.new_page()
    page.goto(server.base_url + "/")
    with two_seats(server) as game:
        state = lambda: httpx.get(f"{server.base_url}/games/{game.game_id}", timeout=10).json()  # noqa: E731
        before = state()["dfen"]
        pieces_drawn(page, game.game_id, squares(before))
        tile = page.locator(f'#live-games li[data-game="{game.game_id}"] a')
        expect(tile).to_have_attribute("href", f"/play/{game.game_id}")
        expect(tile).to_contain_text("Anonymous")  # as the game page, the seeks and the records call one
        game.act()  # one turn
        after = state()["dfen"]
        assert squares(after) != squares(before)
        pieces_drawn(page, game.game_id, squares(after))  # without a reload
        # the turn's squares marked, as the game's board marks them (each micro-move's from and to)
        listed = next(g for g in httpx.get(f"{server.base_url}/games", timeout=10).json()["games"] if g["gameId"] == game.game_id)
        marked = {f"last-move f{FILES.index(square[0]) + 1} r{square[1]}"
                  for uci in listed["lastMoves"] for square in (uci[:2], uci[2:4])}
        assert marked, listed
        page.wait_for_function(
            "([selector, wanted]) => JSON.stringify([...document.querySelectorAll(selector)].map((m) => m.className).sort())"
            " === JSON.stringify(wanted)",
            arg=[f'#live-games li[data-game="{game.game_id}"] .mini-board .last-move', sorted(marked)],
        )
        # under the pieces: a marked square's piece is what a tap finds there
        assert page.locator(f'#live-games li[data-game="{game.game_id}"] .mini-board img').first.evaluate(
            "(img) => getComputedStyle(img).zIndex") == "1"


def test_the_creator_of_a_friend_game_chooses_a_side(server, chromium):
    """White, Black, or a side drawn in the page: the friend's link is the other seat's."""
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.goto(server.base_url + "/")
        # the friend form's clocks: the pairing's and the bots' nine with the longer ones, shortest
        # first (play-through s71: 15+0 came after 30+20)
        pairing = page.locator("#pairing-grid .clock-main").all_inner_texts()
        assert page.locator("#bot-clock option").all_inner_texts() == pairing
        assert page.locator("#friend-clock option").all_inner_texts() == [
            *pairing[:-1], "15+0", pairing[-1], "30+20", "No clock"]
        expect(page.locator("#friend-clock option:checked")).to_have_text("10+5")
        page.select_option("#friend-side", "Black")
        page.select_option("#friend-clock", label="15+0")  # 15 minutes without increment, said so in the game too
        page.click("#friend-create")
        expect(page.locator("#role")).to_have_text("You play Black")
        expect(page.locator("#time-control")).to_contain_text("15+0")
        expect(page.locator("#table")).to_have_attribute("data-orientation", "black")
        expect(page.locator("#invite-link")).to_have_value(re.compile("#seat=White&token="))
        page.go_back()  # the lobby again: "Create a game" is offered again (held while the first was made)
        expect(page.locator("#friend-create")).to_be_enabled()
        sides = set()
        for _ in range(20):  # a random side is one of the two, each seen (20 draws: 1 in 524,288 to miss one)
            page.goto(server.base_url + "/")
            page.select_option("#friend-side", "random")
            page.click("#friend-create")
            expect(page.locator("#role")).to_have_text(re.compile("^You play (White|Black)$"))
            mine = page.locator("#role").inner_text().removeprefix("You play ")
            theirs = "Black" if mine == "White" else "White"
            expect(page.locator("#invite-link")).to_have_value(re.compile(f"#seat={theirs}&token="))
            sides.add(mine)
        assert sides == {"White", "Black"}
    finally:
        context.close()


def test_the_bots_names_are_a_fingers_target_on_a_phone(server, chromium):
    """Play-through (session 55): a bot's name in "Play a bot" was a link 19 px high."""
    phone = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        page.goto(server.base_url + "/")
        names = page.locator("#bot-list .bot-name")
        expect(names.first).to_be_visible()
        heights = [names.nth(i).bounding_box()["height"] for i in range(names.count())]
        assert heights and min(heights) >= 24, heights
    finally:
        phone.close()


def test_a_long_name_s_seek_keeps_its_accept_on_a_phone(server, chromium):
    """Play-through (session 56): a 20-letter name pushed the Mode column and Accept off a phone's
    screen, and the page 5 px wider than it. The name is cut short, whole on hover."""
    bot = httpx.post(f"{server.base_url}/bot/anon", params={"name": "a-very-long-bot-name-x"}, timeout=10).json()
    seek = httpx.post(f"{server.base_url}/bot/seeks", headers={"Authorization": f"Bearer {bot['token']}"},
                      json={}, timeout=10).json()
    phone = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        page.goto(server.base_url + "/")
        row = page.locator(f'#seek-list tr[data-seek="{seek["seekId"]}"]')
        expect(row.locator(".seeker")).to_have_attribute("title", f"anon/{bot['name']}")
        accept = row.get_by_role("button", name=re.compile("^Accept "))
        expect(accept).to_be_visible()
        box = accept.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
        table = page.locator("#seek-table").locator("xpath=..")  # its scroll box: nothing to scroll to
        assert table.evaluate("box => box.scrollWidth - box.clientWidth") <= 0
        assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0
        # and on the game's page the long name gives way on its one line (play-through, session
        # 56: what followed it was cut off, or wrapped under it and moved the board)
        accept.click()
        expect(page.locator("#role")).to_contain_text("You play")
        mine = page.locator("#role").inner_text().split()[-1].lower()
        theirs = "white" if mine == "black" else "black"
        line = page.locator(f"#player-{theirs} .name .line")
        expect(line.locator("a")).to_have_text(f"anon/{bot['name']}")
        shown = line.locator("a > span")
        assert shown.evaluate("s => s.scrollWidth > s.clientWidth"), "cut short, with an ellipsis"
        for part in (line, page.locator(f"#player-{mine} .name .line")):
            tops = part.evaluate("l => [...l.children].map((c) => Math.round(c.getBoundingClientRect().top))")
            assert max(tops) - min(tops) < 8, tops  # one line: the BOT tag, the name, "(you)"
        expect(page.locator(f"#player-{mine} .name")).to_contain_text("(you)")
    finally:
        phone.close()
        httpx.delete(f"{server.base_url}/lobby/seeks/{seek['seekId']}", params={"secret": seek["secret"]}, timeout=10)


def test_a_live_game_s_tile_writes_a_bot_s_name_whole_on_a_small_phone(server, chromium):
    """Play-through (session 63): at half a phone's width a tile cut "demo/featu…" short beside
    its clock. The bot's name, with the dot of the side to move, fits at 360 px."""
    player = chromium.new_context()
    phone = chromium.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    try:
        game = player.new_page()
        game.goto(server.base_url + "/")
        game.click('button[data-bot="house/greedy"]')
        expect(game.locator("#role")).to_contain_text("You play")
        game_id = game.url.split("/play/")[1]
        page = phone.new_page()
        page.goto(server.base_url + "/")
        name = page.locator(f'#live-games li[data-game="{game_id}"] .who', has_text="house/greedy")
        expect(name).to_be_visible()
        # as when the bot is to move (bold, after a dot), the widest it gets: measured at once
        fits = name.evaluate("""(who) => { who.parentElement.classList.add("to-move");
            return who.scrollWidth <= who.clientWidth; }""")
        assert fits, "the name cut short"
    finally:
        player.close()
        phone.close()
