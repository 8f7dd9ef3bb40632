"""The end of a game against a bot offers "Play <bot> again" (play-through s67: the page
offered only "New game", back to the lobby, where a rematch against lichess's computer is one
click): a new game against the same bot on the same clock, rated as the last one was, the
colours swapped; and the bot marked BOT on its replay as on its game's page. Real Chromium, a
real `playsite serve` with the house bots, a real OpenID Connect provider for the rated game."""

from __future__ import annotations

import random
import uuid

import httpx
import pytest
import trio
from playwright.sync_api import expect

from playsite.web.routes import Assets
from playsite.wire import TurnPlayed
from tests.support.browser import PHONE, play_turn
from tests.support.client import Player, seated
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (a fixture)
from tests.support.sign_in import site_with_house_bots  # noqa: F401 (a fixture)
from tests.support.waiting import wait_until_sync

OTHER = {"White": "Black", "Black": "White"}
MY_TURN_OR_OVER = """() => !document.getElementById("result").hidden ? "over"
    : document.getElementById("status").dataset.status === "your-turn" ? "turn" : null"""


def start_against(page, bot: str, clock: str, *, rated: bool) -> tuple[str, str]:
    """A game against `bot` from the home page's "Play a bot": (its id, my side)."""
    page.select_option("#bot-clock", clock)
    if rated:
        page.check("#bot-rated")
    page.click(f'button[data-bot="{bot}"]')
    expect(page.locator("#role")).to_contain_text("You play")
    return page.url.split("/play/")[1].split("#")[0], page.locator("#role").inner_text().split()[-1]


def end_at_once(page) -> None:
    """Abort (or resign) from the turn's buttons, confirmed."""
    expect(page.locator("#resign")).to_be_enabled()
    page.click("#resign")
    page.click("#confirm-yes")
    expect(page.locator("#result")).to_be_visible()


def play_again(page, first: str, side: str, bot: str, kind: str) -> None:
    """At the end of game `first`, where I played `side` against `bot`: "Play <bot> again" opens a
    new game against it, the colours swapped, its clock and kind `kind` ("3+2 · Rated")."""
    again = page.locator("#bot-again")
    expect(again).to_have_text(f"Play {bot} again")
    again.click()
    page.wait_for_url(lambda url: "/play/" in url and first not in url)
    expect(page.locator("#role")).to_have_text(f"You play {OTHER[side]}")
    expect(page.locator("#time-control")).to_have_text(kind)
    expect(page.locator(f"#player-{side.lower()} .name")).to_contain_text(bot)


@pytest.mark.postgres
def test_a_rated_game_against_a_bot_ends_with_play_it_again_on_the_same_clock_the_colours_swapped(
    site_with_house_bots, chromium  # noqa: F811
):
    site = site_with_house_bots
    session = trio.run(site.sign_in, "Againplayer")
    made = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    made.add_cookies([{"name": "access_token", "value": session, "url": site.origin}])
    try:
        page = made.new_page()
        page.goto(site.origin + "/")
        first, side = start_against(page, "house/random", "3+2", rated=True)
        expect(page.locator("#time-control")).to_have_text("3+2 · Rated")
        end_at_once(page)
        play_again(page, first, side, "house/random", "3+2 · Rated")
    finally:
        made.close()


@pytest.mark.postgres
def test_a_rated_game_s_end_says_when_ratings_are_next_updated(site_with_house_bots, chromium):  # noqa: F811
    """Play-through s68: the end of a rated game said "the ratings change at the next rating
    period", which tells a player neither when nor what a period is (an hour, by default: the
    page stopped reading after three minutes). It says how often ratings are updated here
    (RATING_PERIOD_S: `/web/site`'s ratingPeriodS), and that this game counts at the next update.
    No rating batch runs on this server: the sentence stays."""
    site = site_with_house_bots
    assert httpx.get(site.origin + "/web/site", timeout=10).json()["ratingPeriodS"] == 3600
    session = trio.run(site.sign_in, "Hourlyplayer")
    made = chromium.new_context(viewport={"width": 1366, "height": 900})
    made.add_cookies([{"name": "access_token", "value": session, "url": site.origin}])
    try:
        page = made.new_page()
        page.goto(site.origin + "/")
        # the home page's three "Rated" boxes are one size (play-through s74: the one beside a
        # two-line label was squeezed to 13 px wide)
        boxes = [page.locator(f"#{which}-rated").bounding_box() for which in ("bot", "seek", "friend")]
        assert {(round(b["width"]), round(b["height"])) for b in boxes} == {(round(boxes[1]["width"]),) * 2}, boxes
        game_id, side = start_against(page, "house/random", "3+2", rated=True)
        # My turns until both sides have played one (a roll with no legal move is no turn played):
        # then a resignation decides the game, where before it an Abort rates nothing. A turn sent
        # makes the page's status leave "your-turn" at once; it comes back with my next roll, by
        # when the page has read the bot's turn. The bot may take my king first: decided too.
        rng = random.Random(4)
        for _ in range(30):
            state = wait_until_sync(lambda: page.evaluate(MY_TURN_OR_OVER), "my roll, or the game's end", timeout=30)
            if state == "over" or page.locator("#resign").text_content().strip() == "Resign":
                break
            play_turn(page, site.origin, game_id, side, rng)
        if state != "over":
            expect(page.locator("#resign")).to_have_text("Resign")
            page.click("#resign")
            page.click("#confirm-yes")
        expect(page.locator("#result-rated")).to_have_text(
            "Rated game: ratings are updated every hour; this game counts at the next update.")
        # other periods in words, a number never parted from its unit at a line's end (the demo's
        # "every 10 s" broke before its "s" in a desktop's result box)
        module = f"/assets/{Assets().names['ratingchange.js']}"
        words = page.evaluate("""async (module) => { const { periodWords } = await import(module);
            return [10, 60, 900, 3600, 7200].map(periodWords); }""", module)
        assert words == ["every 10\u00a0s", "every minute", "every 15\u00a0minutes", "every hour", "every 2\u00a0hours"], words
    finally:
        made.close()


@pytest.mark.postgres
def test_a_guest_plays_a_bot_again_casual_on_a_desktop(site_with_house_bots, chromium):  # noqa: F811
    site = site_with_house_bots
    made = chromium.new_context(viewport={"width": 1366, "height": 900})
    try:
        page = made.new_page()
        page.goto(site.origin + "/")
        first, side = start_against(page, "house/greedy", "10+5", rated=False)
        end_at_once(page)
        play_again(page, first, side, "house/greedy", "10+5 · Casual")
    finally:
        made.close()


def a_turn_against(base: str, ws_url: str, bot: str) -> str:
    """A guest's game against `bot` (`POST /lobby/play-bot`) played over the socket until a turn
    has moved something, then resigned; its id."""
    team, name = bot.split("/")
    clock = {"Fischer": {"initialSeconds": 600, "incrementSeconds": 5}}
    answer = httpx.post(f"{base}/lobby/play-bot", json={"guestId": str(uuid.uuid4()), "team": team, "name": name,
                                                        "timeControl": clock}, timeout=10)
    assert answer.status_code == 201, answer.text
    seat = answer.json()
    game = {"gameId": seat["gameId"], "seats": {seat["seat"].lower(): {"wsUrl": seat["wsUrl"]}}}

    async def play() -> None:
        player = Player(ws_url, game, seat["seat"])
        player.url = ws_url + seat["wsUrl"]
        async with seated(player):
            await player.play_until_then_resign(
                random.Random(3), lambda events: any(isinstance(e, TurnPlayed) and e.moves for e in events))

    trio.run(play)
    return seat["gameId"]


@pytest.mark.postgres
def test_the_replay_of_a_game_against_a_bot_marks_the_bot_as_the_play_page_does(site_with_house_bots, chromium):  # noqa: F811
    """Play-through s67: the play page's strip reads "BOT house/random", the replay's only
    "house/random", as a person's name."""
    site = site_with_house_bots
    game_id = a_turn_against(site.origin, site.origin.replace("http://", "ws://"), "house/random")
    made = chromium.new_context()
    try:
        page = made.new_page()
        for path in (f"/play/{game_id}", f"/replay/{game_id}"):
            page.goto(site.origin + path)
            strips = page.locator("#player-white, #player-black") if path.startswith("/play") else page.locator("#name-top, #name-bottom")
            expect(strips.filter(has_text="house/random").locator(".tag")).to_have_text("BOT")
            expect(strips.filter(has_text="Anonymous").locator(".tag")).to_have_count(0)
    finally:
        made.close()
