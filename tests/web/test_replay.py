"""The history and replay pages in Chromium: a finished game is listed, replayed turn by turn,
and every roll is checked by the browser itself (WebCrypto) against the revealed seed; a
record with one roll altered shows the mismatch. The verification module is also run on
the published golden vectors (specs/dice/vectors-v1.json) inside the browser."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from playsite.web.routes import Assets
from tests.support.artifacts import screenshot
from tests.support.browser import PHONE, finished_game
from tests.support.server import ServerProcess
from tests.support.waiting import wait_until_sync

PIECES = {1: "pawn", 2: "knight", 3: "bishop", 4: "rook", 5: "queen", 6: "king"}
VECTORS = Path(__file__).resolve().parents[2] / "specs" / "dice" / "vectors-v1.json"
TURNS = 4
SEEDS = {"White": "alice's seed \u2713 with a few more bytes", "Black": "b\u00e9b\u00e9's own seed, composed"}


@pytest.fixture(scope="module")
def server_with_a_game():
    """One server and one finished game for the module (the games are what the tests read)."""
    server = ServerProcess({"DICE_SEED_WINDOW_MS": "2000"}).start()  # both seeds count
    try:
        yield server, finished_game(server, TURNS, SEEDS, a_turn_of=2)  # a turn of micro-moves to mark
    finally:
        server.close()


def test_the_history_lists_the_game_and_the_replay_verifies_every_roll(server_with_a_game, context):
    server, game_id = server_with_a_game
    record = httpx.get(f"{server.base_url}/games/{game_id}/history", timeout=10).json()
    assert record["fairness"]["clientSeeds"] == {"white": SEEDS["White"], "black": SEEDS["Black"]}  # multi-byte UTF-8
    page = context.new_page()
    page.goto(f"{server.base_url}/history")
    page.locator(f'li[data-game="{game_id}"] a.replay').click()
    expect(page).to_have_url(f"{server.base_url}/replay/{game_id}")
    badge = page.locator("#fairness")
    expect(badge).to_have_attribute("data-state", "verified")
    # every turn's roll, and the one White resigned on (finished_game resigns with a roll pending)
    assert record["unplayedRoll"]["activeColor"] in ("White", "Black"), record.get("unplayedRoll")
    expect(badge).to_contain_text(f"Provably fair: verified ({len(record['turns']) + 1} rolls")
    last = page.locator("#turns li.unplayed")
    expect(last).to_contain_text(f"{record['unplayedRoll']['activeColor']}")
    expect(last).to_contain_text("the roll the game ended on, not played")
    expect(last).to_have_attribute("data-ok", "true")
    expect(badge).not_to_contain_text("no player added a seed")
    expect(page.locator("#fairness-details")).not_to_have_attribute("open", "")  # a replay, not a check, was asked for
    # what kind of game it was, as the history writes it (play-through s59: the page said nothing of it)
    assert record["timeControl"] == {"Unlimited": {}} and not record["rated"], record  # finished_game's
    expect(page.locator("#game-kind")).to_have_text("no clock \u00b7 Casual")
    # it opens on the final position; stepping shows each turn's dice and position
    total = len(record["turns"])
    moves = (total + 1) // 2  # counted in moves, as the list numbers them (play-through s53: "61 / 61")
    black_last = "\u2026" if record["turns"][-1]["activeColor"] == "Black" else ""  # "19… / 19": Black's half
    expect(page.locator("#step")).to_have_text(f"{moves}{black_last} / {moves}")
    expect(page.locator("#step")).to_have_attribute("data-step", str(total))
    page.click("#first")
    expect(page.locator("#step")).to_have_text(f"0 / {moves}")
    expect(page.locator('[data-square="e1"]')).to_have_attribute("data-piece", "K")
    page.keyboard.press("ArrowRight")
    first = record["turns"][0]
    expect(page.locator("#step")).to_have_text(f"1 / {moves}")
    expect(page.locator("#dice")).to_have_text(" ".join(map(str, sorted(first["dice"]))))  # lowest first
    expect(page.locator("#dice .die").first).to_have_attribute("aria-label", f"die: {PIECES[min(first['dice'])]}")
    expect(page.locator("#turn-check")).to_have_text("\u2713 dice verified")  # dice words, not chess's check
    # the first turn with a move (a roll may be a forced pass): its last destination is marked
    step, played = next((n, t) for n, t in enumerate(record["turns"], start=1) if t["moves"])
    page.locator(f'#turns li[data-step="{step}"] button').click()
    # written as the play page writes them: "Ng1-f3", "e4xd5"
    expect(page.locator("#moves")).to_contain_text(f'{played["moves"][0][:2]}-{played["moves"][0][2:4]}')
    words = page.locator("#moves").inner_text().split(" ")
    assert len(words) == len(played["moves"])
    for word, uci in zip(words, played["moves"], strict=True):
        assert re.fullmatch(rf"[NBRQK]?{uci[:2]}[-x]{uci[2:4]}(=[NBRQ])?", word), (word, uci)
    expect(page.locator(f'[data-square="{played["moves"][-1][2:4]}"]')).to_contain_class("last-move")
    page.click("#last")
    expect(page.locator("#step")).to_have_text(f"{moves}{black_last} / {moves}")
    # each step says something new (play-through s58: "19 / 20" twice read as a key press lost)
    page.click("#first")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert record["turns"][1]["activeColor"] == "Black"  # the seats take turns strictly, passes included
    expect(page.locator("#step")).to_have_text(f"1\u2026 / {moves}")
    page.click("#last")
    # numbered as chess numbers moves (and the play page its list): a White turn and the Black
    # one after it share a number
    last_seat = record["turns"][-1]["activeColor"]
    expect(page.locator("#turn-seat")).to_have_text(f"Move {(total + 1) // 2}, {last_seat}")
    numbers = page.locator("#turns li").evaluate_all("items => items.map((item) => item.value)")
    assert numbers == [n // 2 + 1 for n in range(total + 1)], numbers  # the roll it ended on numbered as its turn
    page.keyboard.press("Home")
    expect(page.locator("#prev")).to_be_disabled()
    page.keyboard.press("End")
    expect(page.locator("#next")).to_be_disabled()
    # the list follows the position back to the start, which has no row of its own (play-through
    # s74: at "0 / 7" the list stayed scrolled to its end, the first move out of view)
    page.locator("#turns").evaluate("list => { list.style.maxHeight = '4rem'; list.style.overflowY = 'auto'; }")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("End")
    scrolled = lambda: page.locator("#turns").evaluate("list => list.scrollTop")  # noqa: E731
    wait_until_sync(lambda: scrolled() > 0, "the list to scroll to its last move")
    page.keyboard.press("Home")
    wait_until_sync(lambda: scrolled() == 0, "the list to scroll back to its first move")


def test_the_fairness_details_say_what_was_proven_and_how_to_check_it_without_the_page(server_with_a_game, context, tmp_path):
    """Play-through (session 53): the details named a file of the repository ("docs/dice.md")
    and showed players' seeds nobody sent as `""`. They say in words what the check proves, and
    offer the one-file verifier with the command to run on this game's record, which works."""
    server, _ = server_with_a_game
    game_id = finished_game(server, 2, seed=11)  # no seeds of the players'
    page = context.new_page()
    page.goto(f"{server.base_url}/replay/{game_id}#fairness")  # as the play page's "Verify the dice" links it
    expect(page.locator("#fairness")).to_have_attribute("data-state", "verified")
    details = page.locator("#fairness-details")
    expect(details).to_have_attribute("open", "")  # opened for it (play-through s59: it stayed closed)
    expect(details).to_contain_text("could neither pick the dice as the game went nor change them afterwards")
    expect(details).not_to_contain_text("docs/")
    expect(page.locator("#client-white")).to_have_text("none sent")
    expect(page.locator("#client-black")).to_have_text("none sent")
    command = page.locator("#verify-command").inner_text()
    assert command == f"python3 verify_dice.py {server.base_url}/games/{game_id}/history", command
    with page.expect_download() as download:
        page.click('a[href="/verify_dice.py"]')
    assert download.value.suggested_filename == "verify_dice.py"
    script = tmp_path / "verify_dice.py"
    download.value.save_as(script)
    ran = subprocess.run([sys.executable, str(script), *command.split()[2:]], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path, env={"PATH": os.environ["PATH"]})
    assert ran.returncode == 0, ran.stdout + ran.stderr
    # the record itself, kept as a file, checks the same way without the server
    with page.expect_download() as download:
        page.click("#record")
    assert download.value.suggested_filename == f"playsite-{game_id}.json"
    kept = tmp_path / download.value.suggested_filename
    download.value.save_as(kept)
    assert json.loads(kept.read_text())["gameId"] == game_id
    ran = subprocess.run([sys.executable, str(script), kept.name], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path, env={"PATH": os.environ["PATH"]})
    assert ran.returncode == 0, ran.stdout + ran.stderr


def replay_served(context, server, game_id: str, record: dict):
    """The replay page of `game_id`, its record answered with `record` (a tampered one)."""
    page = context.new_page()
    page.route(f"**/games/{game_id}/history",
               lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(record)))
    page.goto(f"{server.base_url}/replay/{game_id}")
    return page


def test_a_tampered_roll_shows_the_mismatch_at_its_turn(server_with_a_game, context):
    server, game_id = server_with_a_game
    record = httpx.get(f"{server.base_url}/games/{game_id}/history", timeout=10).json()
    tampered = json.loads(json.dumps(record))
    turn = tampered["turns"][1]
    honest = list(turn["dice"])
    turn["dice"][0] = honest[0] % 6 + 1  # a different face, still a die
    page = replay_served(context, server, game_id, tampered)
    badge = page.locator("#fairness")
    expect(badge).to_have_attribute("data-state", "mismatch")
    expect(badge).to_contain_text(f"Mismatch at turn {turn['turnNumber']}")
    expect(badge).to_contain_text(f"the seed gives {' '.join(map(str, honest))}")
    expect(page.locator('#turns li[data-step="2"]')).to_have_attribute("data-ok", "false")


def test_a_tampered_roll_the_game_ended_on_is_a_mismatch(server_with_a_game, context):
    server, game_id = server_with_a_game
    tampered = httpx.get(f"{server.base_url}/games/{game_id}/history", timeout=10).json()
    honest = list(tampered["unplayedRoll"]["dice"])
    tampered["unplayedRoll"]["dice"] = [honest[0] % 6 + 1, *honest[1:]]
    page = replay_served(context, server, game_id, tampered)
    badge = page.locator("#fairness")
    expect(badge).to_have_attribute("data-state", "mismatch")
    expect(badge).to_have_text(f"Mismatch at the roll the game ended on: the seed gives {' '.join(map(str, honest))}, "
                               f"the record says {' '.join(map(str, tampered['unplayedRoll']['dice']))}")
    expect(page.locator("#turns li.unplayed")).to_have_attribute("data-ok", "false")
    expect(page.locator('#turns li[data-step="1"]')).to_have_attribute("data-ok", "true")  # the turns before it check out


def test_a_game_no_player_seeded_says_so_beside_its_verdict(server_with_a_game, context):
    """Rolls from the server's committed seed alone check out all the same, but nobody else had
    a share in them: the badge says so rather than read as if the players had."""
    server, _ = server_with_a_game
    game_id = finished_game(server, 2)
    assert httpx.get(f"{server.base_url}/games/{game_id}/history", timeout=10).json()["fairness"]["clientSeeds"] == {
        "white": "", "black": ""}
    page = context.new_page()
    page.goto(f"{server.base_url}/replay/{game_id}")
    badge = page.locator("#fairness")
    expect(badge).to_have_attribute("data-state", "verified")
    expect(badge).to_have_text(re.compile(r"^Provably fair: verified \(\d+ rolls checked in your browser\); no player added a seed$"))


def test_a_game_still_being_played_is_not_revealed_yet(server_with_a_game, context):
    server, _ = server_with_a_game
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    page = context.new_page()
    page.goto(f"{server.base_url}/replay/{game['gameId']}")
    expect(page.locator("#fairness")).to_have_attribute("data-state", "unrevealed")
    expect(page.locator("#fairness")).to_contain_text("Not revealed yet")


def test_the_commitment_shown_during_the_game_is_the_one_the_replay_checks(server_with_a_game, context):
    """Play-through (session 60): the replay said both players had been shown the seed's
    fingerprint, but no page showed it. The play page shows it while the game is played and keeps
    it in the browser; the replay compares it with the record's, and a different one is a mismatch."""
    server, game_id = server_with_a_game
    commit = httpx.get(f"{server.base_url}/games/{game_id}/history", timeout=10).json()["fairness"]["commit"]
    page = context.new_page()
    page.goto(f"{server.base_url}/play/{game_id}")
    expect(page.locator("#commitment")).to_be_visible()
    expect(page.locator("#commit-short")).to_have_text(f"{commit[:12]}\u2026")
    page.locator("#commitment summary").click()
    expect(page.locator("#commit-full")).to_have_text(commit)
    page.goto(f"{server.base_url}/replay/{game_id}")
    expect(page.locator("#fairness")).to_have_attribute("data-state", "verified")
    expect(page.locator("#commit-seen")).to_have_attribute("data-ok", "true")
    expect(page.locator("#commit-seen")).to_have_text(
        "\u2713 This browser was shown the same commitment while the game was played.")
    other = ("0" if commit[0] != "0" else "1") + commit[1:]
    page.evaluate("([id, seen]) => localStorage.setItem('playsite.commitments', JSON.stringify([{ gameId: id, commit: seen }]))",
                  [game_id, other])
    page.reload()
    expect(page.locator("#fairness")).to_have_attribute("data-state", "commitment")
    expect(page.locator("#fairness")).to_contain_text("not the one this browser was shown during the game")
    expect(page.locator("#commit-seen")).to_contain_text(other)
    # a browser that never saw the game has only the record to go by, and says nothing of it
    fresh = context.browser.new_context()
    try:
        elsewhere = fresh.new_page()
        elsewhere.goto(f"{server.base_url}/replay/{game_id}")
        expect(elsewhere.locator("#fairness")).to_have_attribute("data-state", "verified")
        expect(elsewhere.locator("#commit-seen")).to_be_hidden()
    finally:
        fresh.close()


def test_the_browser_verifier_reproduces_every_published_vector(server_with_a_game, context):
    server, _ = server_with_a_game
    page = context.new_page()
    page.goto(f"{server.base_url}/history")
    module = f"/assets/{Assets().names['fair.js']}"
    vectors = json.loads(VECTORS.read_text())["vectors"]
    cases = [{"seedHex": v["seedHex"], "white": v["white"], "black": v["black"], "commit": v["commit"],
              "rolls": [{"ply": str(r["ply"]), "dice": r["dice"]} for r in v["rolls"]]} for v in vectors]
    results = page.evaluate(
        """async ([module, cases]) => {
            const fair = await import(module);
            const out = [];
            for (const c of cases) {
              const commit = await fair.commitmentOf(fair.fromHex(c.seedHex));
              const rolls = [];
              for (const r of c.rolls) rolls.push(await fair.roll(c.seedHex, c.white, c.black, BigInt(r.ply)));
              out.push({ commit, rolls });
            }
            return out;
        }""",
        [module, cases],
    )
    assert len(results) == len(vectors) >= 3
    for vector, result in zip(vectors, results):
        assert result["commit"] == vector["commit"], vector["id"]
        assert result["rolls"] == [r["dice"] for r in vector["rolls"]], vector["id"]


def corner_square(page, corner: str) -> str:
    """The square drawn at the board's bottom-left or top-right corner, by where it is on screen."""
    return page.evaluate(
        """(corner) => {
            const board = document.getElementById("board").getBoundingClientRect();
            const x = corner === "bottom-left" ? board.left + 2 : board.right - 2;
            const y = corner === "bottom-left" ? board.bottom - 2 : board.top + 2;
            return document.elementFromPoint(x, y).closest("[data-square]").dataset.square;
        }""",
        corner,
    )


def dice_paid(dfen: str, moves: list[str]) -> int:
    """How many dice `moves` spent from the position `dfen`: one a micro-move, two for castling
    (a king's move of two files pays a rook die too)."""
    squares = {}
    for rank, row in zip("87654321", dfen.split()[0].split("/"), strict=True):
        file = 0
        for char in row:
            if char.isdigit():
                file += int(char)
            else:
                squares["abcdefgh"[file] + rank] = char
                file += 1
    paid = 0
    for uci in moves:
        piece = squares.pop(uci[:2])
        castles = piece in "Kk" and abs(ord(uci[0]) - ord(uci[2])) == 2
        paid += 2 if castles else 1
        squares[uci[2:4]] = piece
    return paid


def test_the_replay_board_shows_pictures_coordinates_the_last_turn_and_flips(server_with_a_game, chromium, artifacts):
    server, game_id = server_with_a_game
    record = httpx.get(f"{server.base_url}/games/{game_id}/history", timeout=10).json()
    turns = sorted(record["turns"], key=lambda turn: turn["turnNumber"])
    desktop = {"width": 1366, "height": 900}
    for scheme, viewport in (("light", desktop), ("dark", PHONE), ("dark", desktop), ("light", PHONE)):
        context = chromium.new_context(viewport=viewport, color_scheme=scheme)
        try:
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on("console", lambda message: message.type == "error" and errors.append(message.text))  # CSP too
            page.goto(f"{server.base_url}/replay/{game_id}")
            expect(page.locator("#fairness")).to_have_attribute("data-state", "verified")
            # pieces are pictures that load, on the squares the position says
            king = page.locator('[data-square="e1"][data-piece="K"] .piece')
            page.click("#first")
            expect(king).to_have_count(1)
            assert "/pieces/chessnut/wK." in king.evaluate("p => getComputedStyle(p).backgroundImage")
            # each turn of the list shows its dice as pictures, the ones it left unused faded
            before = record["initialDfen"]
            for step, turn in enumerate(turns, start=1):
                dice = page.locator(f'#turns li[data-step="{step}"] .die')
                expect(dice).to_have_count(len(turn["dice"]))
                expect(dice.first).to_have_attribute("aria-label", re.compile(f"^die: {PIECES[min(turn['dice'])]}"))
                unused = len(turn["dice"]) - dice_paid(before, turn["moves"])
                expect(page.locator(f'#turns li[data-step="{step}"] .die.unplayable')).to_have_count(unused)
                before = turn["fenAfter"]
            # a turn with moves marks every square its micro-moves went from and to, and nothing else
            step, played = next((n, t) for n, t in enumerate(turns, start=1) if len(t["moves"]) >= 2)
            page.locator(f'#turns li[data-step="{step}"] button').click()
            marked = {square for uci in played["moves"] for square in (uci[:2], uci[2:4])}
            expect(page.locator(".last-move")).to_have_count(len(marked))
            for square in marked:
                expect(page.locator(f'[data-square="{square}"]')).to_contain_class("last-move")
            # and numbers where each went, in order (play-through s74: the order was the list's to tell)
            order = {uci[2:4]: str(n) for n, uci in enumerate(played["moves"], start=1)}
            expect(page.locator("[data-order]")).to_have_count(len(order))
            for square, number in order.items():
                expect(page.locator(f'[data-square="{square}"]')).to_have_attribute("data-order", number)
            # coordinates on the edges follow the orientation; F flips the board and the names
            page.locator("#board").scroll_into_view_if_needed()
            assert corner_square(page, "bottom-left") == "a1" and corner_square(page, "top-right") == "h8"
            expect(page.locator(".coord.file")).to_have_text(list("abcdefgh"))
            expect(page.locator(".coord.rank")).to_have_text(list("87654321"))
            expect(page.locator("#name-bottom")).to_contain_text("White")
            page.keyboard.press("f")
            expect(page.locator("#board")).to_have_attribute("data-orientation", "black")
            assert corner_square(page, "bottom-left") == "h8" and corner_square(page, "top-right") == "a1"
            expect(page.locator(".coord.file")).to_have_text(list("hgfedcba"))
            expect(page.locator(".coord.rank")).to_have_text(list("12345678"))
            expect(page.locator("#name-bottom")).to_contain_text("Black")
            expect(page.locator("#name-top")).to_contain_text("White")
            page.click("#flip")
            expect(page.locator("#board")).to_have_attribute("data-orientation", "white")
            # a click on the board keeps the page's keys; arrows on a focused square move on the board
            if page.locator("#last").is_enabled():  # disabled when the turn chosen above was the last
                page.click("#last")
            expect(page.locator("#step")).to_have_attribute("data-step", str(len(turns)))
            page.click('[data-square="e4"]')
            page.keyboard.press("ArrowLeft")
            expect(page.locator("#step")).to_have_attribute("data-step", str(len(turns) - 1))
            page.focus('[data-square="e4"]')
            page.keyboard.press("ArrowLeft")
            expect(page.locator('[data-square="d4"]')).to_be_focused()
            expect(page.locator("#step")).to_have_attribute("data-step", str(len(turns) - 1))
            # the board is large: most of the window's height on a desktop, the width on a phone
            box = page.locator("#board").bounding_box()
            assert abs(box["width"] - box["height"]) < 1
            if viewport is PHONE:
                assert box["width"] >= 0.9 * PHONE["width"]
                # the page's title first, as on a desktop (it came after the board and its steps)
                title = page.get_by_role("heading", name="Replay").bounding_box()
                assert title["y"] + title["height"] <= box["y"], (title, box)
                # a narrow list wraps between moves, never inside one ("Ra8-" / "b8")
                lines = page.locator("#turns .micro").evaluate_all("moves => moves.map((m) => m.getClientRects().length)")
                assert lines and set(lines) == {1}, lines
            else:
                assert box["height"] >= 0.65 * viewport["height"]
            # dark theme: the blue-grey squares of the board's dark palette
            light = page.locator('[data-square="a8"]').evaluate("s => getComputedStyle(s).backgroundColor")
            assert light == ("rgb(222, 227, 230)" if scheme == "dark" else "rgb(240, 217, 181)")
            screenshot(page, artifacts, f"replay-board-{scheme}-{viewport['width']}")
            assert errors == []
        finally:
            context.close()


def test_held_sideways_the_replay_board_fits_the_height(server_with_a_game, chromium, artifacts):
    """Second play-through (session 51): at 844x390 the replay's board ran off the bottom of the
    screen (the play page's fits)."""
    server, game_id = server_with_a_game
    for viewport in ({"width": 844, "height": 390}, {"width": 667, "height": 375}):
        context = chromium.new_context(viewport=viewport)
        try:
            page = context.new_page()
            page.goto(f"{server.base_url}/replay/{game_id}")
            expect(page.locator("#fairness")).to_have_attribute("data-state", "verified")
            board, bottom = page.locator("#board").bounding_box(), page.locator("#strip-bottom").bounding_box()
            assert bottom["y"] + bottom["height"] <= viewport["height"] + 1, f"the bottom strip on screen: {bottom}"
            assert board["height"] >= 0.6 * viewport["height"], f"the board takes most of the height: {board}"
            steps = page.locator("#steps").bounding_box()
            assert steps["x"] >= board["x"] + board["width"], f"the steps beside the board: {steps}"
            assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0
            expect(page.locator("#move-strip")).to_be_hidden()  # the list is beside the board
            screenshot(page, artifacts, f"replay-sideways-{viewport['width']}")
        finally:
            context.close()


def test_a_phone_s_replay_has_the_line_of_turns_over_the_board(server_with_a_game, chromium):
    """As the play page's (session 63): on a phone the list was a screen below the board, under
    the steps and the fairness box. The line over the board says each turn in the list's words,
    marks the turn shown and steps to a turn tapped; a desktop has none."""
    server, game_id = server_with_a_game
    phone = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        page.goto(f"{server.base_url}/replay/{game_id}")
        expect(page.locator("#fairness")).to_have_attribute("data-state", "verified")
        strip, turns = page.locator("#move-strip"), page.locator("#move-strip .turn")
        listed = page.locator("#turns li:not(.unplayed) .moves")
        expect(turns).to_have_count(listed.count())
        assert turns.all_text_contents() == [" ".join(t.split()) or "pass" for t in listed.all_text_contents()]
        expect(strip).to_have_attribute("aria-hidden", "true")
        line, board = strip.bounding_box(), page.locator("#board").bounding_box()
        assert line["y"] + line["height"] <= board["y"] and line["height"] > 20, (line, board)
        expect(turns.last).to_have_class("turn current")  # the replay opens at the end
        turns.first.tap()
        expect(page.locator("#step")).to_have_attribute("data-step", "1")
        expect(page.locator("#turns li.current")).to_have_attribute("data-step", "1")
        expect(turns.first).to_have_class("turn current")
        page.locator("#first").tap()
        expect(page.locator("#move-strip .turn.current")).to_have_count(0)  # the start: no turn marked
        page.set_viewport_size({"width": 1366, "height": 900})
        expect(strip).to_be_hidden()
    finally:
        phone.close()


def test_a_player_s_own_replay_is_seen_from_their_side(server_with_a_game, context):
    """Play-through (session 57): Black's replay showed White at the bottom, where Black's game
    page had Black. A browser that held the Black seat sees the replay from Black's side, its
    name marked "(you)"."""
    server, game_id = server_with_a_game
    page = context.new_page()
    page.goto(f"{server.base_url}/replay/{game_id}")
    expect(page.locator("#name-bottom .side")).to_have_text("White")  # anyone else: White's side
    expect(page.locator("#name-bottom .you, #name-top .you")).to_have_count(0)
    page.evaluate("(id) => localStorage.setItem('playsite.seats', JSON.stringify([{gameId: id, seat: 'Black', token: 't'}]))",
                  game_id)
    page.reload()
    expect(page.locator("#fairness")).to_have_attribute("data-state", "verified")
    expect(page.locator("#name-bottom .side")).to_have_text("Black")
    expect(page.locator("#name-top .side")).to_have_text("White")
    # and its own side is marked, as the game's page marked it (play-through s61: "Anonymous" only)
    expect(page.locator("#name-bottom .you")).to_have_text("(you)")
    expect(page.locator("#name-top .you")).to_have_count(0)
    page.keyboard.press("f")  # the mark follows the side across a flip
    expect(page.locator("#name-top .you")).to_have_text("(you)")


def test_the_history_offers_older_games_page_after_page(server_with_a_game, context):
    """Play-through (session 57): /history listed the newest 30 games and nothing before them."""
    server, game_id = server_with_a_game
    base = server.base_url
    a, b = (httpx.post(f"{base}/bot/anon", timeout=10).json() for _ in range(2))
    for _ in range(30):  # 30 games finish after the module's own: it is on the second page
        challenge = httpx.post(f"{base}/bot/challenge", json={"team": b["team"], "name": b["name"]},
                               headers={"Authorization": f"Bearer {a['token']}"}, timeout=10).json()
        accepted = httpx.post(f"{base}/bot/challenge/{challenge['id']}/accept",
                              headers={"Authorization": f"Bearer {b['token']}"}, timeout=10).json()
        assert httpx.post(f"{base}/bot/game/{accepted['gameId']}/resign", headers={"Authorization": f"Bearer {a['token']}"},
                          timeout=10).status_code in (200, 202, 204)
    wait_until_sync(lambda: len(httpx.get(f"{base}/archive", timeout=10).json()["games"]) == 30
                    and game_id not in {g["gameId"] for g in httpx.get(f"{base}/archive", timeout=10).json()["games"]},
                    "thirty newer games archived")
    page = context.new_page()
    page.goto(f"{base}/history")
    rows = page.locator("#finished-games li.game-row")
    expect(rows).to_have_count(30)
    expect(page.locator(f'#finished-games li[data-game="{game_id}"]')).to_have_count(0)
    page.click("#older-games")
    expect(page.locator(f'#finished-games li[data-game="{game_id}"]')).to_have_count(1)  # the page before
    assert rows.count() > 30
    expect(page.locator("#older-games")).to_be_hidden()  # a short page: nothing older
    assert httpx.get(f"{base}/archive", params={"before": "not-a-game"}, timeout=10).status_code == 400


def test_the_keys_are_named_on_a_desktop_only(server_with_a_game, chromium):
    """Play-through s58: a phone's replay told its player about Left, Right, Home and End."""
    server, game_id = server_with_a_game
    for touch, shown in ((True, False), (False, True)):
        context = chromium.new_context(viewport=PHONE if touch else {"width": 1366, "height": 900},
                                       is_mobile=touch, has_touch=touch)
        try:
            page = context.new_page()
            page.goto(f"{server.base_url}/replay/{game_id}")
            expect(page.locator("#fairness")).to_have_attribute("data-state", "verified")
            hint = page.locator(".keys-hint")
            (expect(hint).to_be_visible if shown else expect(hint).to_be_hidden)()
        finally:
            context.close()


def test_a_game_with_no_turn_played_checks_the_roll_it_ended_on_if_any(server_with_a_game, context):
    """Play-through s59: a game aborted on its first roll read "ended before any roll" under
    that very roll, and then "no turn was played, so no roll to check" though the players saw a
    roll. The roll a game ended on is in the record and checked; with no roll made, it says so."""
    server, _ = server_with_a_game
    game_id = finished_game(server, 0)  # resigned at once: in the seed window (no roll), or on the first roll
    record = httpx.get(f"{server.base_url}/games/{game_id}/history", timeout=10).json()
    page = context.new_page()
    page.goto(f"{server.base_url}/replay/{game_id}")
    badge = page.locator("#fairness")
    expect(badge).to_have_attribute("data-state", "verified")
    if "unplayedRoll" in record:
        expect(badge).to_contain_text("Provably fair: verified (1 roll checked in your browser)")
        expect(page.locator("#turns li.unplayed")).to_have_attribute("data-ok", "true")
    else:
        expect(badge).to_have_text("Provably fair: the seed matches its commitment; no roll was made, so none to check")
        expect(page.locator("#turns li")).to_have_count(0)


def test_the_history_lists_the_games_with_people_apart(server_with_a_game, context):
    """Play-through (session 59): the bots' own games filled "All games"; "With people" lists only
    the games a person played in (the filter itself: tests/store/test_store_contract.py)."""
    server, game_id = server_with_a_game
    page = context.new_page()
    page.goto(f"{server.base_url}/history")
    page.click("#people-games")
    expect(page).to_have_url(f"{server.base_url}/history?people=1")
    expect(page.locator("#people-games")).to_have_attribute("aria-current", "page")
    expect(page.locator("#all-games")).not_to_have_attribute("aria-current", "page")
    expect(page.locator(f'li[data-game="{game_id}"]')).to_contain_text("Anonymous vs Anonymous")
    with page.expect_request(lambda request: "/archive?" in request.url) as read:
        page.reload()
    assert "people=1" in read.value.url
