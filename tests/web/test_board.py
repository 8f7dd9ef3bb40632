"""The board (assets/board.js, createBoard) in Chromium against a real `playsite serve`: the
module is loaded from the server's own /assets/ on one of its pages and driven as a page
would drive it. Drag and drop (mouse and touch) plays a legal destination and refuses an
illegal one, clicks select and play, a king put on its own rook castles where the castling is
offered, legal destinations show as dots and captures as rings,
the last turn is highlighted, coordinates follow the orientation, an opponent's move slides
(not under prefers-reduced-motion), focus survives redraws, and the dark theme applies. Last,
on the real play page, a drag builds the turn from the server's tree."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import expect

from playsite.web.routes import Assets
from tests.support.artifacts import screenshot
from tests.support.browser import pending, PHONE
from tests.support.server import module_server
from tests.support.waiting import wait_until_sync

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# After 1. e4 d5: White's pawn may take on d5 or go on; the knight has its two squares.
OPENING = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2"
DESTS = {"e4": ["e5", "d5"], "g1": ["f3", "h3"], "d2": ["d3", "d4"]}


server = module_server()


def mount(page, server, width: str = "480px") -> None:
    """A board in a container `width` wide on a real page of the server, as `window.board`;
    every onMove lands in `window.moves`."""
    page.goto(f"{server.base_url}/history")
    assets = Assets()
    page.evaluate(
        """async ([board, css, width]) => {
            const link = Object.assign(document.createElement("link"), { rel: "stylesheet", href: css });
            document.head.append(link);
            await new Promise((loaded) => { link.onload = loaded; });
            const frame = document.createElement("div");
            frame.style.width = width;
            frame.style.margin = "12px";
            const element = Object.assign(document.createElement("div"), { id: "board" });
            frame.append(element);
            document.body.prepend(frame);
            const module = await import(board);
            window.boardModule = module;
            window.moves = [];
            window.board = module.createBoard(element, { onMove: (from, to) => window.moves.push([from, to]) });
        }""",
        [f"/assets/{assets.names['board.js']}", f"/assets/{assets.names['board.css']}", width],
    )


def setup(page, dfen: str = OPENING, **state) -> None:
    page.evaluate(
        """([dfen, state]) => window.board.set({ pieces: window.boardModule.parsePlacement(dfen), ...state })""",
        [dfen, {"orientation": "white", "dests": DESTS, "lastMove": [["d7", "d5"]], **state}],
    )


def centre(page, square: str) -> tuple[float, float]:
    box = page.locator(f'[data-square="{square}"]').bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page, source: str, target: str) -> None:
    (x0, y0), (x1, y1) = centre(page, source), centre(page, target)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()


def moves(page) -> list[list[str]]:
    return page.evaluate("window.moves")


def after(page, square: str) -> str:
    """The background of a square's ::after layer: where the dot or the ring is drawn."""
    return page.locator(f'[data-square="{square}"]').evaluate("s => getComputedStyle(s, '::after').backgroundImage")


def test_drag_and_drop_plays_a_legal_destination_and_refuses_an_illegal_one(server, context, artifacts):
    page = context.new_page()
    mount(page, server)
    setup(page)
    drag(page, "g1", "g3")  # not a destination of the knight: nothing is played, the knight stays
    assert moves(page) == []
    expect(page.locator('[data-square="g1"]')).to_have_attribute("data-piece", "N")
    expect(page.locator(".selected")).to_have_count(0)
    expect(page.locator(".piece.dragging")).to_have_count(0)
    # while dragged, the piece follows the pointer and a faint copy stays on its square
    (x0, y0), (x1, y1) = centre(page, "e4"), centre(page, "d5")
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=5)
    expect(page.locator('[data-square="e4"] .piece.ghost')).to_have_count(1)
    dragged = page.locator('[data-square="e4"] .piece.dragging').bounding_box()
    assert abs(dragged["x"] + dragged["width"] / 2 - x1) < 2 and abs(dragged["y"] + dragged["height"] / 2 - y1) < 2
    expect(page.locator('[data-square="d5"]')).to_contain_class("drag-over")
    page.mouse.up()  # dropped on the capture
    assert moves(page) == [["e4", "d5"]]
    expect(page.locator(".piece.ghost, .piece.dragging, .drag-over")).to_have_count(0)
    drag(page, "e7", "e5")  # Black's pawn: not movable, no drag starts
    assert moves(page) == [["e4", "d5"]]
    drag(page, "g1", "g1")  # dropped where it was: it stays selected, its destinations shown
    expect(page.locator('[data-square="g1"]')).to_contain_class("selected")
    expect(page.locator(".target")).to_have_count(2)
    # filled, the selected square is marked more than a movable one (play-through, session 60:
    # the movable squares' glow took the fill away, so the piece picked was the least marked)
    fill = page.locator('[data-square="g1"]').evaluate("s => getComputedStyle(s).backgroundImage")
    assert fill.startswith("linear-gradient"), fill
    screenshot(page, artifacts, "board-selected-light")
    page.click('[data-square="f3"]')  # a click on a destination plays the selected piece
    assert moves(page) == [["e4", "d5"], ["g1", "f3"]]


def test_the_king_put_on_its_own_rook_castles_only_where_the_castling_is_offered(server, context):
    page = context.new_page()
    mount(page, server)
    # White may castle king side only (the tree's e1g1); the a-rook's side is not offered
    setup(page, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", dests={"e1": ["f1", "g1"], "h1": ["g1"]}, lastMove=[])
    page.click('[data-square="e1"]')
    expect(page.locator('[data-square="h1"]')).to_have_attribute("aria-label", "h1, white rook, castle with this rook")
    expect(page.locator('[data-square="a1"]')).to_have_attribute("aria-label", "a1, white rook")
    expect(page.locator('[data-square="h8"]')).to_have_attribute("aria-label", "h8, black rook")
    page.click('[data-square="a1"]')  # not offered: the selection drops, nothing is played
    assert moves(page) == []
    expect(page.locator(".selected")).to_have_count(0)
    page.click('[data-square="e1"]')
    page.click('[data-square="h8"]')  # a rook of the other side is not a castling
    assert moves(page) == []
    page.click('[data-square="e1"]')
    page.click('[data-square="h1"]')  # clicked: the castling is played as the king's move
    drag(page, "e1", "h1")  # and dropped
    assert moves(page) == [["e1", "g1"], ["e1", "g1"]]
    page.click('[data-square="h1"]')  # the rook alone still moves as a rook
    page.click('[data-square="g1"]')
    assert moves(page) == [["e1", "g1"], ["e1", "g1"], ["h1", "g1"]]


def test_a_touch_drag_plays_on_a_phone(server, chromium):
    phone = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        mount(page, server, "100%")
        setup(page)
        cdp = phone.new_cdp_session(page)
        (x0, y0), (x1, y1) = centre(page, "d2"), centre(page, "d4")
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
        for fraction in (0.25, 0.5, 0.75, 1.0):
            point = {"x": x0 + (x1 - x0) * fraction, "y": y0 + (y1 - y0) * fraction}
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        page.wait_for_function("window.moves.length === 1")
        assert moves(page) == [["d2", "d4"]]
        # a tap selects, a second tap plays
        page.tap('[data-square="g1"]')
        expect(page.locator('[data-square="g1"]')).to_contain_class("selected")
        page.tap('[data-square="h3"]')
        page.wait_for_function("window.moves.length === 2")
        assert moves(page)[1] == ["g1", "h3"]
    finally:
        phone.close()


def test_legal_destinations_are_dots_captures_rings_and_the_last_turn_is_marked(server, context):
    page = context.new_page()
    mount(page, server)
    setup(page, lastMove=[["d7", "d5"], ["c7", "c6"]])
    for square in ("e4", "g1", "d2"):
        expect(page.locator(f'[data-square="{square}"]')).to_contain_class("movable")
    expect(page.locator(".movable")).to_have_count(3)
    # a frame that reads at a glance (play-through s58: a 2 px outline went unseen) and a glow
    marked = page.locator('[data-square="g1"]').evaluate(
        "s => [getComputedStyle(s).boxShadow, getComputedStyle(s).backgroundImage]")
    width = float(re.search(r"0px 0px 0px ([\d.]+)px inset", marked[0])[1])
    assert width >= 3 and "radial-gradient" in marked[1], marked  # 0.22rem: 3.5 px
    expect(page.locator(".target")).to_have_count(0)
    page.click('[data-square="e4"]')
    expect(page.locator('[data-square="e4"]')).to_contain_class("selected")
    expect(page.locator('[data-square="e4"]')).to_have_attribute("aria-pressed", "true")
    # said in words too (play-through s54: a screen reader heard nothing of the pick)
    expect(page.locator('[data-square="e4"]')).to_have_attribute("aria-label", "e4, white pawn, selected: choose where it goes")
    expect(page.locator(".target")).to_have_count(2)
    expect(page.locator('[data-square="e5"]')).to_have_attribute("aria-label", "e5, legal move")
    expect(page.locator('[data-square="d5"]')).to_have_attribute("aria-label", "d5, black pawn, capture")
    expect(page.locator('[data-square="g1"]')).to_have_attribute("aria-label", "g1, white knight, can move")
    expect(page.locator('[data-square="e5"]')).not_to_contain_class("capture")
    expect(page.locator('[data-square="d5"]')).to_contain_class("capture")
    dot, ring = after(page, "e5"), after(page, "d5")
    assert dot.startswith("radial-gradient") and ring.startswith("radial-gradient") and dot != ring
    assert after(page, "e6") == "none"
    # the last turn: every square its micro-moves touched, and no other
    marked = page.locator(".last-move")
    expect(marked).to_have_count(4)
    for square in ("d7", "d5", "c7", "c6"):
        expect(page.locator(f'[data-square="{square}"]')).to_contain_class("last-move")
    # clicking the selected piece again drops the selection; an empty square does too
    page.click('[data-square="e4"]')
    expect(page.locator(".selected")).to_have_count(0)
    page.click('[data-square="g1"]')
    page.click('[data-square="a6"]')
    expect(page.locator(".selected")).to_have_count(0)
    assert moves(page) == []
    # not interactive: no movable square, a click selects nothing
    page.evaluate("window.board.set({ dests: {} })")
    expect(page.locator(".movable")).to_have_count(0)
    page.click('[data-square="e4"]')
    expect(page.locator(".selected")).to_have_count(0)


def near(page, label: str, square: str, corner: str) -> None:
    """The coordinate `label` is drawn inside `square`, in its `corner` quarter."""
    text = page.locator(label).bounding_box()
    box = page.locator(f'[data-square="{square}"]').bounding_box()
    x, y = text["x"] + text["width"] / 2, text["y"] + text["height"] / 2
    left, top = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    assert box["x"] <= x <= box["x"] + box["width"] and box["y"] <= y <= box["y"] + box["height"], (label, square)
    assert (x < left) == ("left" in corner) and (y < top) == ("top" in corner), (label, square, corner)


def test_coordinates_follow_the_orientation(server, context):
    page = context.new_page()
    mount(page, server)
    setup(page, dfen=START, dests={})
    assert page.evaluate("window.board.orientation") == "white"
    files = page.locator(".coord.file")
    ranks = page.locator(".coord.rank")
    expect(page.locator(".coords")).to_have_attribute("aria-hidden", "true")
    expect(page.locator("[data-square] .coord")).to_have_count(0)  # a square's name is its label alone
    expect(files).to_have_text(list("abcdefgh"))
    expect(ranks).to_have_text(list("87654321"))
    near(page, ".coord.rank >> nth=7", "a1", "top-left")
    near(page, ".coord.file >> nth=0", "a1", "bottom-right")
    first = page.locator("#board > .square").first
    expect(first).to_have_attribute("data-square", "a8")
    page.evaluate("window.board.set({ orientation: 'black' })")
    assert page.evaluate("window.board.orientation") == "black"
    expect(files).to_have_text(list("hgfedcba"))
    expect(ranks).to_have_text(list("12345678"))
    expect(first).to_have_attribute("data-square", "h1")
    near(page, ".coord.rank >> nth=7", "h8", "top-left")
    near(page, ".coord.file >> nth=0", "h8", "bottom-right")
    near(page, ".coord.file >> nth=7", "a8", "bottom-right")
    expect(page.locator('[data-square="e1"]')).to_have_attribute("aria-label", "e1, white king")
    expect(page.locator('[data-square="e4"]')).to_have_attribute("aria-label", "e4")


def test_an_opponents_move_slides_unless_motion_is_reduced(server, chromium):
    for motion, expected in (("no-preference", 1), ("reduce", 0)):
        made = chromium.new_context(reduced_motion=motion)
        try:
            page = made.new_page()
            mount(page, server)
            setup(page, dfen=START, dests={})
            running = page.evaluate(
                """(dfen) => {
                    window.board.set({ pieces: window.boardModule.parsePlacement(dfen), animate: true,
                                       lastMove: [["e2", "e4"]] });
                    return document.querySelector('[data-square="e4"] .piece').getAnimations().length;
                }""",
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            )
            assert running == expected, motion
            expect(page.locator('[data-square="e4"]')).to_have_attribute("data-piece", "P")
            expect(page.locator('[data-square="e2"]')).not_to_have_attribute("data-piece", "P")
            # animate: false (or a jump) never slides
            jumped = page.evaluate(
                """(dfen) => {
                    window.board.set({ pieces: window.boardModule.parsePlacement(dfen), animate: false });
                    return document.querySelector('[data-square="d5"] .piece').getAnimations().length;
                }""",
                "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2",
            )
            assert jumped == 0
            # a promotion slides too, from the square the last move left
            promoted = page.evaluate(
                """() => {
                    window.board.set({ pieces: { e1: "K", e8: "k", b7: "P" }, animate: false });
                    window.board.set({ pieces: { e1: "K", e8: "k", b8: "Q" }, animate: true,
                                       lastMove: [["b7", "b8"]] });
                    return document.querySelector('[data-square="b8"] .piece').getAnimations().length;
                }"""
            )
            assert promoted == expected, motion
        finally:
            made.close()


def test_the_keyboard_picks_and_plays_and_focus_survives_redraws(server, context):
    page = context.new_page()
    mount(page, server)
    setup(page)
    expect(page.locator('[data-square="a1"]')).to_have_attribute("tabindex", "0")  # where Tab enters
    page.focus('[data-square="a1"]')
    for key in ["ArrowRight"] * 4 + ["ArrowUp"] * 3:
        page.keyboard.press(key)
    expect(page.locator('[data-square="e4"]')).to_be_focused()
    expect(page.locator('[data-square="e4"]')).to_have_attribute("tabindex", "0")
    expect(page.locator('[tabindex="0"]')).to_have_count(1)
    page.keyboard.press("Enter")
    expect(page.locator('[data-square="e4"]')).to_contain_class("selected")
    setup(page)  # a redraw (the server's next event) keeps the focus and the selection
    expect(page.locator('[data-square="e4"]')).to_be_focused()
    expect(page.locator('[data-square="e4"]')).to_contain_class("selected")
    page.keyboard.press("Escape")  # Escape drops the selection
    expect(page.locator(".selected")).to_have_count(0)
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowUp")
    page.keyboard.press(" ")
    assert moves(page) == [["e4", "e5"]]
    page.evaluate("window.board.set({ orientation: 'black' })")  # a flip keeps the focused square
    expect(page.locator('[data-square="e5"]')).to_be_focused()


# White's pawn on e7 may promote on e8 (or take on d8); Black's on b2 on b1.
PROMOTING = "3r3k/4P3/8/8/8/8/1p6/K7 w - - 0 1"


def offer(page, square: str, moves: list[str]) -> None:
    """Open the picker over `square` with these moves; picks land in window.picked, a cancel as null."""
    page.evaluate(
        """([square, moves]) => {
            window.picked = [];
            const piece = (uci) => (square[1] === "8" ? uci[4].toUpperCase() : uci[4]);
            window.board.promote(square, moves.map((move) => ({ piece: piece(move), move })), {
                onPick: (move) => window.picked.push(move),
                onCancel: () => window.picked.push(null),
            });
        }""",
        [square, moves],
    )


def test_the_promotion_picker_stands_over_the_square_and_answers_once(server, context, artifacts):
    page = context.new_page()
    mount(page, server)
    setup(page, PROMOTING, dests={"e7": ["e8", "d8"]}, lastMove=[])
    choices = ["e7e8q", "e7e8n", "e7e8r", "e7e8b"]
    offer(page, "e8", choices)
    tiles = page.locator("#board .promotion button.promotion-choice")
    expect(tiles).to_have_count(4)
    expect(tiles.first).to_be_focused()  # the keyboard starts on the queen
    # a column in the pawn's file, from the promotion square down toward the middle
    for tile, square in zip(choices, ("e8", "e7", "e6", "e5")):
        at, under = page.locator(f'[data-move="{tile}"]').bounding_box(), page.locator(f'[data-square="{square}"]').bounding_box()
        assert abs(at["x"] - under["x"]) < 1 and abs(at["y"] - under["y"]) < 1, (tile, square, at, under)
    expect(page.locator('[data-move="e7e8n"]')).to_have_attribute("aria-label", "knight")
    # the tile under the pointer lights up and keeps its piece (the site's button:hover sets
    # the whole background shorthand)
    page.hover('[data-move="e7e8n"]')
    hovered = page.locator('[data-move="e7e8n"]').evaluate(
        "(tile) => { const s = getComputedStyle(tile); return [s.backgroundImage, s.backgroundSize, s.backgroundRepeat]; }")
    # the size as the browser writes it back: "80% auto" or, in other Chromium versions, "80%"
    assert "url(" in hovered[0] and hovered[1] in ("80% auto", "80%") and hovered[2] == "no-repeat", hovered
    screenshot(page, artifacts, "board-promotion-light")
    # the arrow keys go round the choices; Enter picks; the picker closes
    page.keyboard.press("ArrowDown")
    expect(page.locator('[data-move="e7e8n"]')).to_be_focused()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    expect(page.locator('[data-move="e7e8b"]')).to_be_focused()
    page.keyboard.press("Enter")
    assert page.evaluate("window.picked") == ["e7e8b"]
    expect(tiles).to_have_count(0)
    expect(page.locator('[data-square="e8"]')).to_be_focused()  # the keyboard goes on from the new piece
    assert moves(page) == [], "a pick is the picker's answer, not a move of the board's"
    # a click on the veil, away from the tiles, cancels; so does Escape
    offer(page, "e8", choices)
    x, y = centre(page, "a4")
    page.mouse.click(x, y)
    assert page.evaluate("window.picked") == [None]
    expect(tiles).to_have_count(0)
    expect(page.locator('[data-square="a4"]')).not_to_contain_class("selected")
    offer(page, "e8", ["e7e8n"])  # the maximum-dice rule may leave one choice
    expect(tiles).to_have_count(1)
    page.keyboard.press("Escape")
    assert page.evaluate("window.picked") == [None]
    expect(tiles).to_have_count(0)
    # Black's promotion seen from Black's side: b1 is at the top, the column grows downwards;
    # seen from White's, at the bottom, upwards. A flip closes an open picker.
    setup(page, PROMOTING, orientation="black", dests={"b2": ["b1"]}, lastMove=[])
    black = ["b2b1q", "b2b1n", "b2b1r", "b2b1b"]
    offer(page, "b1", black)
    for tile, square in zip(black, ("b1", "b2", "b3", "b4")):
        at, under = page.locator(f'[data-move="{tile}"]').bounding_box(), page.locator(f'[data-square="{square}"]').bounding_box()
        assert abs(at["y"] - under["y"]) < 1, (tile, square)
    expect(page.locator('[data-move="b2b1q"]')).to_have_attribute("data-piece", "q")
    page.evaluate("window.board.set({ orientation: 'white' })")
    expect(tiles).to_have_count(0)
    offer(page, "b1", black)
    first, last = page.locator('[data-move="b2b1q"]').bounding_box(), page.locator('[data-move="b2b1b"]').bounding_box()
    assert last["y"] < first["y"], "from the bottom edge the column grows upwards"
    page.locator('[data-move="b2b1r"]').click()
    assert page.evaluate("window.picked") == ["b2b1r"]


def test_the_dark_theme_follows_the_colour_scheme(server, chromium, artifacts):
    colours = {}
    for scheme in ("light", "dark"):
        for name, viewport in (("desktop", {"width": 1366, "height": 900}), ("phone", PHONE)):
            made = chromium.new_context(color_scheme=scheme, viewport=viewport)
            try:
                page = made.new_page()
                mount(page, server, "min(640px, calc(100% - 24px))")
                setup(page, lastMove=[["d7", "d5"]], selected="e4")
                expect(page.locator(".target")).to_have_count(2)
                colours[scheme] = [
                    page.locator(f'[data-square="{square}"]').evaluate("s => getComputedStyle(s).backgroundColor")
                    for square in ("a8", "a1")
                ]
                screenshot(page, artifacts, f"board-{scheme}-{name}")
            finally:
                made.close()
    assert colours["light"] == ["rgb(240, 217, 181)", "rgb(181, 136, 99)"]  # wood
    assert colours["dark"] == ["rgb(222, 227, 230)", "rgb(140, 162, 173)"]  # blue-grey


def test_on_the_play_page_a_drag_builds_the_turn_and_an_illegal_drop_does_nothing(serve, chromium):
    """The board where it is used: the real play page, the server's roll and tree."""
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    base = server.base_url
    game = httpx.post(f"{base}/games", json={}, timeout=10).json()
    contexts = [chromium.new_context(viewport={"width": 1366, "height": 900}) for _ in range(2)]
    try:
        pages = {}
        for seat, made in zip(("White", "Black"), contexts):
            pages[seat] = made.new_page()
            pages[seat].goto(f"{base}/play/{game['gameId']}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
        state = wait_until_sync(lambda: pending(base, game["gameId"]), "a roll to play")
        page = pages[state["activeSeat"]]
        expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
        tree = httpx.get(f"{base}/games/{game['gameId']}/moves", timeout=10).json()["legalMoves"]
        first = next(uci for uci in tree if len(uci) == 4)
        source, target = first[:2], first[2:4]
        legal = {uci[2:4] for uci in tree if uci.startswith(source)}
        illegal = next(f"{file}{rank}" for rank in "3456" for file in "abcdefgh"
                       if f"{file}{rank}" not in legal and f"{file}{rank}" != source)
        expect(page.locator(f'[data-square="{source}"]')).to_contain_class("movable")
        moved = page.locator(f'[data-square="{source}"]').get_attribute("data-piece")
        drag(page, source, illegal)
        expect(page.locator(".selected")).to_have_count(0)
        expect(page.locator("#partial")).to_have_attribute("data-moves", "")
        drag(page, source, target)
        expect(page.locator("#partial")).to_have_attribute("data-moves", first)
        expect(page.locator(f'[data-square="{target}"]')).to_have_attribute("data-piece", moved)
        expect(page.locator(f'[data-square="{source}"]')).not_to_have_attribute("data-piece", moved)
    finally:
        for made in contexts:
            made.close()


def test_a_destroyed_board_leaves_nothing_behind(server, context):
    page = context.new_page()
    mount(page, server)
    setup(page)
    played = page.evaluate(
        """async (dfen) => {
            const element = document.getElementById("board");
            window.board.destroy();
            const empty = element.children.length === 0 && !element.classList.contains("cb-board");
            const again = [];
            window.board = window.boardModule.createBoard(element, { onMove: (f, t) => again.push([f, t]) });
            window.board.set({ pieces: window.boardModule.parsePlacement(dfen), dests: { g1: ["f3"] } });
            element.querySelector('[data-square="g1"]').click();
            element.querySelector('[data-square="f3"]').click();
            return { empty, again, before: window.moves };
        }""",
        OPENING,
    )
    assert played == {"empty": True, "again": [["g1", "f3"]], "before": []}  # the old board heard nothing
