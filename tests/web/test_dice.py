"""The dice module (assets/dice.js) in Chromium against a real `playsite serve`: `spentDice`
agrees with the rules engine on which dice every prefix of every legal turn has spent
(castling, promotions and a promoted piece moving on included), and `renderDice` draws
pictures with their labels, dims the spent dice and tumbles a fresh roll (not under
prefers-reduced-motion)."""

from __future__ import annotations

import random
from collections import Counter

import httpx
from playwright.sync_api import expect

from playsite.rules import START_POSITION, format_dfen, iter_turns, legal_tree, parse_dfen, play_turn
from playsite.rules.turn import _Turn
from playsite.web.routes import Assets
from tests.support.browser import open_seats, pending
from tests.support.server import module_server
from tests.support.waiting import wait_until_sync

# Positions where the payment rules matter: castling both ways, promotions (then the new piece
# moving on with its own die), en passant, Black to move.
CRAFTED = [
    ("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", (4, 5, 6)),
    ("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1", (1, 4, 6)),
    ("4k3/1P4P1/8/8/8/8/8/4K3 w - - 0 1", (1, 2, 2)),
    ("4k3/1P4P1/8/8/8/8/8/4K3 w - - 0 1", (1, 1, 5)),
    ("4k3/8/8/8/8/8/1p4p1/4K3 b - - 0 1", (1, 3, 4)),
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", (1, 1, 6)),
]


server = module_server()


def harness(page, server) -> None:
    """A real page of the server with board.css loaded: the modules run same-origin there."""
    page.goto(f"{server.base_url}/history")
    css = f"/assets/{Assets().names['board.css']}"
    page.evaluate(
        """async (css) => {
            const link = Object.assign(document.createElement("link"), { rel: "stylesheet", href: css });
            document.head.append(link);
            await new Promise((loaded) => { link.onload = loaded; });
        }""",
        css,
    )


def cases() -> list[dict]:
    """Every prefix of (a sample of) every legal turn, with the dice the engine says are left."""
    rng = random.Random(29)
    positions = [parse_dfen(dfen).with_dice(dice) for dfen, dice in CRAFTED]
    for _ in range(30):  # random rolls from random positions of real play
        position = START_POSITION
        for _ in range(rng.randrange(0, 12)):
            rolled = position.with_dice([rng.randint(1, 6) for _ in range(3)])
            turns = list(iter_turns(legal_tree(rolled)))
            outcome = play_turn(rolled, rng.choice(turns) if turns else [])
            if outcome.end:
                break
            position = outcome.after
        positions.append(position.with_dice([rng.randint(1, 6) for _ in range(3)]))
    found = []
    for position in positions:
        turns = list(iter_turns(legal_tree(position)))
        for moves in rng.sample(turns, min(len(turns), 12)):
            turn = _Turn(position)
            for length in range(len(moves) + 1):
                if length:
                    turn.play(moves[length - 1])
                found.append({"dfen": format_dfen(position), "dice": list(position.dice),
                              "moves": list(moves[:length]), "left": sorted(turn.dice)})
    return found


def test_spent_dice_agree_with_the_rules_engine_on_every_prefix(server, context):
    found = cases()
    kinds = Counter()
    for case in found:
        castles = case["dfen"].startswith("r3k2r")  # the kings stand on e1 and e8 there
        kinds["castling"] += castles and any(uci in ("e1g1", "e1c1", "e8g8", "e8c8") for uci in case["moves"])
        kinds["promotion"] += any(len(uci) == 5 for uci in case["moves"])
        if len(case["moves"]) >= 2 and len(case["moves"][0]) == 5:
            kinds["promoted piece moves on"] += case["moves"][1][:2] == case["moves"][0][2:4]
    assert kinds["castling"] and kinds["promotion"] and kinds["promoted piece moves on"], kinds
    page = context.new_page()
    harness(page, server)
    assets = Assets()
    left = page.evaluate(
        """async ([board, dice, cases]) => {
            const { parsePlacement } = await import(board);
            const { spentDice } = await import(dice);
            return cases.map((c) => {
              const spent = spentDice(c.dice, parsePlacement(c.dfen), c.moves);
              return c.dice.filter((_, index) => !spent[index]).sort();
            });
        }""",
        [f"/assets/{assets.names['board.js']}", f"/assets/{assets.names['dice.js']}", found],
    )
    assert len(left) == len(found) > 500
    wrong = [(case, got) for case, got in zip(found, left) if got != case["left"]]
    assert wrong == []


def render(page, dice: list[int], options: dict) -> None:
    page.evaluate(
        """async ([module, dice, options]) => {
            const { renderDice } = await import(module);
            let slot = document.getElementById("dice-under-test");
            if (!slot) {
              slot = Object.assign(document.createElement("div"), { id: "dice-under-test" });
              document.body.prepend(slot);
            }
            renderDice(slot, dice, options);
            window.diceAnimations = slot.getAnimations({ subtree: true }).length;
        }""",
        [f"/assets/{Assets().names['dice.js']}", dice, options],
    )


def test_dice_are_pictures_with_labels_spent_ones_dimmed_and_a_roll_tumbles(server, context, artifacts):
    page = context.new_page()
    harness(page, server)
    render(page, [2, 1, 6], {"spent": [True, False, False], "rolling": True})
    dice = page.locator("#dice-under-test .die")
    expect(dice).to_have_count(3)
    # lowest first, whatever order they were rolled in (a reload reads them from the DFEN, sorted),
    # each keeping its own spent mark
    for index, label in enumerate(("die: pawn", "die: knight, used", "die: king")):
        expect(dice.nth(index)).to_have_attribute("role", "img")
        expect(dice.nth(index)).to_have_attribute("aria-label", label)
    expect(page.locator("#dice-under-test")).to_have_text("1 2 6")
    # White's roll wears White's pieces (play-through s58: dark pieces on White's dice read as Black's)
    assert "/pieces/chessnut/wN." in dice.nth(1).locator("img").get_attribute("src")
    assert page.evaluate("window.diceAnimations") == 3, "a fresh roll tumbles in"
    page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished))")
    opacity = [float(dice.nth(i).evaluate("d => getComputedStyle(d).opacity")) for i in range(3)]
    assert opacity[1] < 0.5 and opacity[0] == opacity[2] == 1.0, opacity
    expect(dice.nth(0).locator("img")).to_have_js_property("complete", True)
    assert dice.nth(0).locator("img").evaluate("i => i.naturalWidth") > 0, "the piece picture loads"
    page.locator("#dice-under-test").screenshot(path=str(artifacts / "dice-light.png"))
    # Black's dice are stone-grey with Black's pieces; redrawn without `rolling`, nothing moves
    render(page, [5, 3, 4], {"spent": [True, False, True], "side": "black"})
    expect(page.locator("#dice-under-test")).to_have_attribute("data-side", "black")
    assert "/pieces/chessnut/bB." in dice.nth(0).locator("img").get_attribute("src")
    expect(dice.nth(2)).to_have_attribute("aria-label", "die: queen, used")
    assert page.evaluate("window.diceAnimations") == 0


def test_no_tumble_under_reduced_motion(server, chromium):
    reduced = chromium.new_context(reduced_motion="reduce")
    try:
        page = reduced.new_page()
        harness(page, server)
        render(page, [1, 2, 3], {"rolling": True})
        expect(page.locator("#dice-under-test .die")).to_have_count(3)
        assert page.evaluate("window.diceAnimations") == 0
    finally:
        reduced.close()


def test_the_play_page_says_whose_roll_the_dice_are(server, context):
    """Play-through s58: Black's page showed White's roll under "White to move" with nothing to
    say it was not Black's own. The box names the roll's owner, and the dice wear its pieces."""
    game = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    pages = open_seats(context, server.base_url, game)
    mover = wait_until_sync(lambda: (pending(server.base_url, game["gameId"]) or {}).get("activeSeat"), "a roll", timeout=15)
    other = "Black" if mover == "White" else "White"
    expect(pages[mover].locator("#dice-owner")).to_have_text("Your roll")
    expect(pages[other].locator("#dice-owner")).to_have_text(f"{mover}'s roll")
    expect(pages[other].locator("#dice")).to_have_attribute("data-side", mover.lower())
    piece = pages[other].locator("#dice .die img").first.get_attribute("src")
    assert f"/pieces/chessnut/{mover[0].lower()}" in piece, piece


def test_the_king_s_capture_is_marked_in_the_notation_and_said(server, context):
    """Play-through s58: the move that took the king read "Qb8xe8" like any capture."""
    page = context.new_page()
    harness(page, server)
    movelist = f"/assets/{Assets().names['movelist.js']}"
    written = page.evaluate(
        """async (path) => {
            const { notateTurn } = await import(path);
            const pieces = { b8: "Q", e8: "k", a2: "P", a1: "K" };
            return notateTurn(pieces, ["a2a3", "b8e8"]);
        }""",
        movelist,
    )
    assert written["texts"] == ["a2-a3", "Qb8xe8#"]
    assert written["spoken"] == ["pawn a2 to a3", "queen b8 takes the king on e8"]


def test_the_dice_a_turn_can_still_play_agree_with_the_rules_engine(server, context):
    """`playableDice`: of the dice left after every prefix of (a sample of) every legal turn,
    those some completion of the turn spends, as many of a kind as the most any completion
    plays; the others are the dice the page fades (play-through s71: a die no piece could use
    looked as live as one still to play)."""
    found = cases()
    known: dict[tuple, list[int]] = {}  # the sampled turns of a roll share their first prefixes
    trees: dict[tuple, dict] = {}
    for case in found:
        position = parse_dfen(case["dfen"]).with_dice(case["dice"])
        roll = (case["dfen"], tuple(case["dice"]))
        if roll not in trees:
            trees[roll] = legal_tree(position)
        below = trees[roll]
        for uci in case["moves"]:
            below = below[uci]
        case["tree"] = below
        key = (case["dfen"], tuple(case["dice"]), tuple(case["moves"]))
        if key not in known:
            after = _Turn(position)
            for uci in case["moves"]:
                after.play(uci)
            most: Counter = Counter()
            for rest in iter_turns(below):
                turn = _Turn(position)
                for uci in (*case["moves"], *rest):
                    turn.play(uci)
                most = most | (Counter(after.dice) - Counter(turn.dice))
            known[key] = sorted((Counter(after.dice) & most).elements())
        case["playable"] = known[key]
    unplayable = sum(case["playable"] != case["left"] for case in found)
    assert unplayable > 20, unplayable  # the sample has turns that leave dice unplayed
    page = context.new_page()
    harness(page, server)
    assets = Assets()
    got = page.evaluate(
        """async ([board, dice, cases]) => {
            const { applyMove, parsePlacement } = await import(board);
            const { playableDice, spentDice } = await import(dice);
            return cases.map((c) => {
              const start = parsePlacement(c.dfen);
              const spent = spentDice(c.dice, start, c.moves);
              const pieces = c.moves.reduce((on, uci) => applyMove(on, uci), start);
              const playable = playableDice(c.dice, spent, pieces, c.tree);
              return c.dice.filter((_, index) => playable[index]).sort();
            });
        }""",
        [f"/assets/{assets.names['board.js']}", f"/assets/{assets.names['dice.js']}", found],
    )
    wrong = [(case["dfen"], case["dice"], case["moves"], case["playable"], mine)
             for case, mine in zip(found, got) if mine != case["playable"]]
    assert wrong == []
