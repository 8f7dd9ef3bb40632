"""The material a side is up, beside its name, as chess sites show it: the pieces it has taken
net of the same kinds lost, and the score in pawns; on the play page and the replay, for the
position shown (browsing included). Counted here from the DFEN on our own, not by the page's
module."""

from __future__ import annotations

from collections import Counter

import httpx
from playwright.sync_api import expect

from playsite.web.routes import Assets
from tests.support.browser import chromium, finished_game  # noqa: F401 (a fixture)
from tests.support.server import module_server

server = module_server({"DICE_SEED_WINDOW_MS": "0"})
VALUES = {"q": 9, "r": 5, "b": 3, "n": 3, "p": 1}


def material(dfen: str) -> dict[str, tuple[str, int]]:
    """Each side's (pieces it is up, as the letters of the other side's colour, the most valuable
    first; the score it is ahead by)."""
    count = Counter(char for char in dfen.split(" ")[0] if char.isalpha())
    up = {"white": "", "black": ""}
    balance = 0
    for kind in "qrbnp":
        more = count[kind.upper()] - count[kind]
        if more > 0:
            up["white"] += kind * more
        else:
            up["black"] += kind.upper() * -more
        balance += more * VALUES[kind]
    return {"white": (up["white"], max(balance, 0)), "black": (up["black"], max(-balance, 0))}


def shown(page, where: str) -> tuple[str, int]:
    """What the strip `where` (a CSS selector) shows: ("", 0) when it shows no material."""
    tag = page.locator(f"{where} .material")
    if tag.count() == 0:
        return "", 0
    return tag.get_attribute("data-taken"), int(tag.get_attribute("data-score"))


LEVEL = {"white": ("", 0), "black": ("", 0)}


def uneven_game(server) -> str:
    """A finished game (resigned by White) whose last turn played changed the material and left a
    side up some: the position before it has other material than the end's."""
    before = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"]

    def took(turn) -> bool:
        changed = material(turn.fen_after) != material(before[-1])
        before.append(turn.fen_after)
        return changed and material(turn.fen_after) != LEVEL

    return finished_game(server, 6, seed=11, until=took)


def test_the_count_of_a_position(chromium, server):  # noqa: F811
    """The module on positions made for it: level, a piece for pawns, a promotion, a king gone."""
    page = chromium.new_context().new_page()
    page.goto(f"{server.base_url}/rules")
    module = f"/assets/{Assets().names['material.js']}"
    positions = {
        "start": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w",
        "a knight for three pawns": "r1bqkbnr/pppppppp/8/8/8/8/PPPPP3/RNBQKBNR w",
        "a queen for a rook": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/QNBQKBNR w",
        "a king taken, a bishop up": "rn1q1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w",
    }
    board = f"/assets/{Assets().names['board.js']}"
    answers = page.evaluate("""async ([module, board, positions]) => {
        const { materialOf, materialTag } = await import(module);
        const { parsePlacement } = await import(board);
        return Object.fromEntries(Object.entries(positions).map(([name, dfen]) => {
          const both = materialOf(parsePlacement(dfen));
          const label = (side) => materialTag(side)?.getAttribute("aria-label") ?? null;
          return [name, { white: [both.white.taken.join(""), both.white.score, label(both.white)],
                          black: [both.black.taken.join(""), both.black.score, label(both.black)] }];
        })); }""", [module, board, positions])
    for name, dfen in positions.items():
        for side in ("white", "black"):
            assert tuple(answers[name][side][:2]) == material(dfen)[side], (name, side, answers[name])
    assert answers["start"]["white"][2] is None and answers["start"]["black"][2] is None  # nothing shown
    assert answers["a knight for three pawns"]["white"][2] == "a knight more"  # level: no score
    assert answers["a knight for three pawns"]["black"][2] == "3 pawns more"
    assert answers["a queen for a rook"]["white"][2] == "a queen more, 4 points ahead"  # a promotion counts as what it became
    assert answers["a queen for a rook"]["black"][2] == "a rook more"  # behind: not said to be ahead
    assert answers["a king taken, a bishop up"]["white"][2] == "a bishop more, 3 points ahead"  # kings are not counted
    page.context.close()


def test_the_strips_show_the_material_of_the_position_shown(chromium, server):  # noqa: F811
    game_id = uneven_game(server)
    # every step of the replay, passes included (a roll with no move is a turn of the record)
    record = httpx.get(f"{server.base_url}/games/{game_id}/history", timeout=10).json()
    after = [turn["fenAfter"] for turn in sorted(record["turns"], key=lambda turn: turn["turnNumber"])]
    last = len(after)
    uneven = next(step for step in range(1, last + 1) if material(after[step - 1]) != material(after[-1]))
    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    # the replay: at its end, then a step back to a position with other material, then the start
    page.goto(f"{server.base_url}/replay/{game_id}")
    expect(page.locator("#step")).to_have_attribute("data-step", str(last))
    top, bottom = "#name-top", "#name-bottom"  # Black above, White below

    def replay_shows(step: int) -> None:
        expect(page.locator("#step")).to_have_attribute("data-step", str(step))
        counted = material(after[step - 1]) if step else LEVEL
        assert (shown(page, bottom), shown(page, top)) == (counted["white"], counted["black"]), step

    replay_shows(last)
    page.locator(f'#turns li[data-step="{uneven}"] button').click()
    replay_shows(uneven)
    page.click("#first")
    replay_shows(0)
    # a strip with material is as high as one without (a sideways phone's replay has no height to spare)
    def heights() -> list[float]:
        return [page.locator(strip).bounding_box()["height"] for strip in ("#strip-top", "#strip-bottom")]

    plain = heights()
    page.click("#last")
    replay_shows(last)
    expect(page.locator("#strip-top .material, #strip-bottom .material").first).to_be_visible()
    assert heights() == plain
    # the play page of the finished game (a spectator's): the end, then browsing back to that step
    page.goto(f"{server.base_url}/play/{game_id}")
    expect(page.locator("#status")).to_have_attribute("data-status", "ended")
    state = httpx.get(f"{server.base_url}/games/{game_id}", timeout=10).json()
    counted = material(state["dfen"])
    expect(page.locator("#player-white .material, #player-black .material")).to_have_count(
        sum(1 for side in counted.values() if side != ("", 0)))
    assert (shown(page, "#player-white"), shown(page, "#player-black")) == (counted["white"], counted["black"])
    for _ in range(last - uneven):
        page.click("#previous")
    expect(page.locator("#board")).to_have_attribute("data-browsing", str(uneven - 1))
    counted = material(after[uneven - 1])
    assert (shown(page, "#player-white"), shown(page, "#player-black")) == (counted["white"], counted["black"])
    # a phone held sideways: the strips stand in a narrow column beside the board, and the moves
    # between them need its height (a line of pieces under each name left them 53 px)
    page.click("#last")
    tags = page.locator("#player-white .material, #player-black .material")
    expect(tags.first).to_be_visible()
    page.set_viewport_size({"width": 600, "height": 290})
    for at in range(tags.count()):
        expect(tags.nth(at)).to_be_hidden()
    context.close()
