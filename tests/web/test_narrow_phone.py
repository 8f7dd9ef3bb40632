"""The pages on a narrow phone (320 x 640, and 390 x 844), in real Chromium against a real
`playsite serve` (play-through s64): one's own strip keeps "(you)" whole while the name gives
way, a bot's team and name are read whole beside its clock, the header keeps to one line, the
turn's three buttons share a line, the board's letters wear a halo over the pieces, the small
targets that are not buttons are 24 px tall, and a guest's "Sign in to play" reads as two even,
centred lines."""

from __future__ import annotations

import pytest
import trio
from playwright.sync_api import expect

from tests.support.browser import PHONE, TURN_IN_VIEW, finished_game, play_a_bot, text_lines, touch_screen
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (a fixture)
from tests.support.server import module_server
from tests.support.waiting import wait_until_sync
from tests.support.sign_in import site, site_with_house_bots  # noqa: F401 (fixtures)

server = module_server({"DICE_SEED_WINDOW_MS": "0", "PLAY_HOUSE_BOTS": "true"})

SMALL = {"width": 320, "height": 640}
CLOCK = {"Fischer": {"initialSeconds": 180, "incrementSeconds": 2}}

# The horizontal room an element's content needs against the room it has, and where "(you)" ends
# against the strip's clipping box.
STRIP = """(strip) => {
  const who = strip.querySelector(".who"), line = strip.querySelector(".name .line");
  const you = [...line.children].find((c) => c.textContent === "(you)");
  return { whoOver: who.scrollWidth - who.clientWidth, lineOver: line.scrollWidth - line.clientWidth,
           youRight: you ? you.getBoundingClientRect().right : null, whoRight: who.getBoundingClientRect().right };
}"""


def phone(chromium, size=SMALL, **options):
    return touch_screen(chromium, size["width"], size["height"], **options)


def test_one_s_own_strip_keeps_you_whole_and_a_bot_s_name_whole_at_320(server, chromium):
    """Play-through s64: at 320 px one's own strip read "White Anonymous (you" on one's turn (the
    ▶ and the first-move line shown), and the bot's "Black BOT hous… 1223?", house/random not
    told from house/greedy."""
    made = phone(chromium)
    try:
        page = made.new_page()
        mine, theirs = play_a_bot(page, server.base_url)
        expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
        own = page.locator(f"#player-{mine}")
        expect(own).to_have_attribute("data-to-move", "true")  # the ▶ shown
        expect(own.locator(".first-move")).to_be_visible()  # and the first move's count under the name
        expect(own.locator(".name")).to_contain_text("Anonymous (you)")
        measured = own.evaluate(STRIP)
        assert measured["whoOver"] <= 0 and measured["lineOver"] <= 0, measured  # nothing cut
        assert measured["youRight"] <= measured["whoRight"] + 0.5, measured  # "(you)" not clipped
        bot = page.locator(f"#player-{theirs}")
        expect(bot.locator(".name a > span")).to_have_text("house/random")
        assert bot_strip_whole(bot), "the bot's team/name whole"
        # the side's word is still there for a screen reader, only not drawn on so narrow a strip
        expect(bot.locator(".side")).to_have_text(theirs.capitalize())
    finally:
        made.close()


def bot_strip_whole(bot, name: str | None = None, rating: str | None = None) -> bool:
    """A bot's name strip shows its team/name and rating whole, as it is and as when the bot is to
    move (the ▶ before it: the widest it gets, set here since the bot answers within moments);
    `name`, `rating`: drawn in place of the bot's own (a longer name; a rating where the server
    keeps none)."""
    for to_move in ("false", "true"):
        measured = bot.evaluate("""(strip, [toMove, instead, rating]) => {
            strip.dataset.toMove = toMove;
            if (instead) strip.querySelector(".name .line a > span").textContent = instead;
            if (rating && !strip.querySelector(".name .line .rating")) {
              const shown = Object.assign(document.createElement("span"), { className: "rating" });
              strip.querySelector(".name .line a").after(shown);
            }
            if (rating) strip.querySelector(".name .line .rating").textContent = rating;
            const line = strip.querySelector(".name .line");
            const name = line.querySelector("a > span"), who = strip.querySelector(".who").getBoundingClientRect();
            return { nameOver: name.scrollWidth - name.clientWidth, whoRight: who.right,
                     rights: [...line.children].map((c) => c.getBoundingClientRect().right) }; }""", [to_move, name, rating])
        assert measured["nameOver"] <= 0, (to_move, measured)  # not cut short
        assert max(measured["rights"]) <= measured["whoRight"] + 0.5, (to_move, measured)  # the rating whole
    return True


@pytest.mark.postgres
def test_a_twenty_letter_nickname_its_you_and_a_rated_bot_are_whole_at_320(site_with_house_bots, chromium):  # noqa: F811
    """The same at 320 px for a signed-in player with a nickname of twenty letters, the most a
    nickname has, and its rating: the strip holds them and "(you)" whole (a name too long would
    be the one cut, with an ellipsis); the bot's strip carries its rating ("1500?") whole."""
    site = site_with_house_bots
    session = trio.run(site.sign_in, "Grandmaster_Longname")
    made = phone(chromium)
    made.add_cookies([{"name": "access_token", "value": session, "url": site.origin}])
    try:
        page = made.new_page()
        mine, theirs = play_a_bot(page, site.origin)
        own = page.locator(f"#player-{mine}")
        expect(own.locator(".name")).to_contain_text("(you)")
        expect(own.locator(".name .line > a > span")).to_have_text("Grandmaster_Longname")
        expect(own.locator(".rating")).to_have_text("1500?")
        measured = own.evaluate(STRIP)
        assert measured["whoOver"] <= 0 and measured["youRight"] <= measured["whoRight"] + 0.5, measured
        bot = page.locator(f"#player-{theirs}")
        expect(bot.locator(".rating")).to_have_text("1500?")
        assert bot_strip_whole(bot)
    finally:
        made.close()


def test_the_turn_s_buttons_share_a_line_and_the_board_s_letters_read_over_the_pieces_at_320(server, chromium):
    """Play-through s64: at 320 px "Abort" went under "Play this turn" and "Undo"; the first rank's
    letters were lost against the pieces' feet."""
    made = phone(chromium)
    try:
        page = made.new_page()
        play_a_bot(page, server.base_url)
        expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
        for last in ("Abort", "Resign"):  # "Resign" once both have played, the wider of the two
            tops = page.evaluate("""(last) => { document.getElementById("resign").textContent = last;
                return ["submit", "undo", "resign"].map((id) => Math.round(document.getElementById(id).getBoundingClientRect().top)); }""", last)
            assert len(set(tops)) == 1, (last, tops)
        halo = page.locator(".cb-board .coord.file").first.evaluate("(c) => getComputedStyle(c).textShadow")
        assert halo != "none", halo
    finally:
        made.close()


# Where the turn's essentials stand once the page has shown a roll of mine: the move strip's top
# (the board's top edge, its line of moves over it), the board's width, "Play this turn"'s foot.
@pytest.mark.parametrize("size", [{"width": 360, "height": 640}, {"width": 390, "height": 664}, PHONE])
def test_the_board_the_dice_and_play_this_turn_are_one_screen_on_a_short_phone(server, chromium, size):
    """Play-through s67: on a 320 x 640 screen "Play this turn" was under the screen's foot with a
    turn built (15 px at 320 x 640, 38 at 360 x 640, 26 at 375 x 667, with the header scrolled
    away), as on a 390 x 844 phone's browser with its bars shown (664 px). A player's board gives up
    to an eighth of its width, the dice's legend gives way, and the header is scrolled away as a
    player's page opens on a live game (here: its start, and a reload on my roll) or a roll of mine
    comes. Where it all fits (390 x 844), nothing moves.
    The bot's name stays whole beside its clock on the narrower board's strips."""
    made = phone(chromium, size)
    try:
        page = made.new_page()
        mine, theirs = play_a_bot(page, server.base_url)

        def laid_out(measured: dict) -> bool:
            """"Play this turn" shown inside the screen, the board's top (and its line of moves) in
            view too, and the board as wide as the screen leaves it."""
            full = measured["width"] - 16
            board = (measured["scrolled"] == 0 and measured["board"] == full if size is PHONE
                     else 0.88 * full - 1 <= measured["board"] < full)
            return 0 < measured["submitBottom"] <= measured["height"] and measured["stripTop"] >= 0 and board

        def in_view(opened: str) -> None:
            # measured once the turn is shown: before it the button is hidden (its foot at 0) and
            # the strips may not have their names yet (the board is fitted again once they do)
            seen: list[dict] = []
            try:
                wait_until_sync(lambda: laid_out(seen.append(page.evaluate(TURN_IN_VIEW)) or seen[-1]),
                                f"Play this turn inside the screen, the page opened on {opened}", timeout=5)
            except AssertionError as timed_out:
                raise AssertionError(f"{timed_out}: {seen[-1]}") from None

        in_view("the game's start")
        expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
        page.evaluate("window.scrollTo(0, 0)")
        page.reload()
        expect(page.locator("#status")).to_have_attribute("data-status", "your-turn")
        in_view("my roll")
        expect(page.locator(".dice-row .legend")).to_be_visible(visible=size["height"] > 760)
        assert bot_strip_whole(page.locator(f"#player-{theirs}")), "the bot's team/name whole"
        # the demo's featured bot, the longest name of the demo's, at 390 px too (play-through s71: "demo/feat…")
        assert bot_strip_whole(page.locator(f"#player-{theirs}"), "demo/featured", "1823?")
        page.click("#resign")  # the bot's seat back for the file's other games (it plays 8 at once)
        page.click("#confirm-yes")
        expect(page.locator("#result")).to_be_visible()
    finally:
        made.close()


@pytest.mark.postgres
def test_the_header_keeps_to_one_line_at_320(site, chromium):  # noqa: F811
    """Play-through s64: at 320 px "Sign in" went to a second line of the header (at 340 too).
    Signed out with sign-in mounted, then signed in as an account with a long nickname."""
    session = trio.run(site.sign_in, "Phonecaller")
    for width in (320, 340):
        made = phone(chromium, {"width": width, "height": 640})
        try:
            page = made.new_page()
            page.goto(site.origin + "/")
            expect(page.locator("#sign-in")).to_be_visible()
            header = page.locator("header.site").bounding_box()
            link = page.locator("header.site nav a").first.bounding_box()
            sign_in = page.locator("#sign-in").bounding_box()
            assert header["height"] < 60, (width, header)
            assert sign_in["y"] < link["y"] + link["height"], (width, sign_in, link)  # beside the links
            assert sign_in["x"] + sign_in["width"] <= width, (width, sign_in)

            # signed in: the account's menu, the long nickname cut short, still on the line
            made.add_cookies([{"name": "access_token", "value": session, "url": site.origin}])
            page.reload()
            expect(page.locator("#account-name")).to_have_text("Phonecaller")
            header = page.locator("header.site").bounding_box()
            menu = page.locator("#account summary").bounding_box()
            assert header["height"] < 60, (width, header)
            assert menu["y"] < link["y"] + link["height"] and menu["x"] + menu["width"] <= width, (width, menu)
        finally:
            made.close()


def test_the_small_targets_are_24_px_tall_on_a_phone(server, chromium):
    """Play-through s64, on a 390 px phone: the Rated boxes were 17 x 18 px, "Write your own bot"
    16 px tall, the play page's "Fair dice" 20 px and the replay's "How the dice are checked" 23 px."""
    game_id = finished_game(server, 2)
    made = phone(chromium, PHONE)
    try:
        page = made.new_page()
        page.goto(server.base_url + "/")
        expect(page.locator("#bot-list .bot").first).to_be_visible()
        heights = {
            "seek Rated box": page.locator("#seek-rated").bounding_box()["height"],
            "friend Rated box": page.locator("#friend-rated").bounding_box()["height"],
            "seek Rated label": page.locator("label.seek-rated").bounding_box()["height"],
            "friend Rated label": page.locator("label:has(#friend-rated)").bounding_box()["height"],
            "Write your own bot": page.get_by_role("link", name="Write your own bot").bounding_box()["height"],
        }
        box = page.locator("#seek-rated").bounding_box()  # square, not squeezed by its label's words
        play_a_bot(page, server.base_url)
        summary = page.locator("#commitment summary")
        expect(summary).to_be_visible()
        heights["Fair dice"] = summary.bounding_box()["height"]
        page.goto(f"{server.base_url}/replay/{game_id}")
        summary = page.locator("#fairness-details summary")
        expect(summary).to_be_visible()
        heights["How the dice are checked"] = summary.bounding_box()["height"]
        assert all(height >= 24 for height in heights.values()), heights
        assert box["width"] >= 24, box
    finally:
        made.close()


@pytest.mark.postgres
def test_a_guest_s_sign_in_to_play_reads_as_two_centred_lines_on_a_phone(site, chromium):  # noqa: F811
    """Play-through s64: on a phone a rated seek's "Sign in to play" wrapped in its table cell,
    its lines pushed to the right (three lines at 320 px: "Sign / in to / play"). Two even lines,
    centred, within the card. The seek is a signed-in player's, posted for real."""
    bob = trio.run(site.sign_in, "bob")
    posted = trio.run(lambda: site.write("POST", "/lobby/seeks", bob, json={"rated": True, "timeControl": CLOCK}))
    assert posted.status_code == 201, posted.text
    for size in (SMALL, PHONE):
        made = phone(chromium, size)
        try:
            page = made.new_page()
            page.goto(site.origin + "/")
            button = page.locator("#seek-list").get_by_role("link", name="Sign in to play")
            expect(button).to_be_visible()
            assert text_lines(button) <= 2, size
            lines = button.evaluate("""(b) => { const words = document.createRange(); words.selectNodeContents(b);
                const box = b.getBoundingClientRect();
                return [...words.getClientRects()].map((r) => [r.left - box.left, box.right - r.right]); }""")
            for left, right in lines:
                assert abs(left - right) <= 2, (size, lines)  # centred
            box = button.bounding_box()
            card = page.locator("#seek-table").locator("xpath=ancestor::section[1]").bounding_box()
            assert box["x"] + box["width"] <= card["x"] + card["width"], (size, box, card)
            assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0
        finally:
            made.close()
