"""/history?mine=1, "Your games": a guest's games played in this browser (by its guest id), or a
signed-in person's own (with this browser's guest games once linked), from their side, 20 a
page with "Older games"."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.support.artifacts import screenshot
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (fixture)
from tests.support.ratings import History, query
from tests.support.sign_in import sign_in_at_the_provider, site  # noqa: F401 (site: a fixture)

pytestmark = pytest.mark.postgres

CLOCK = {"Fischer": {"initialSeconds": 300, "incrementSeconds": 3}}


def test_a_guest_sees_the_games_of_this_browser_and_pages_back(site, context, artifacts):  # noqa: F811
    me, other = f"{uuid.uuid4()}", f"guest:{uuid.uuid4()}"
    history = History(site.database_url)
    games = [history.add(None, None, result, principals=players, time_control=CLOCK,
                         abort=("first_move", "Black") if result is None else (None, None))
             for result, players in [(1, (f"guest:{me}", other)), (1, (other, f"guest:{me}")), (None, (f"guest:{me}", other))] * 8]
    history.add(None, None, 1, principals=(other, f"guest:{uuid.uuid4()}"), time_control=CLOCK)  # someone else's
    context.add_init_script(f"localStorage.setItem('playsite.guestId', '{me}')")
    page = context.new_page()
    page.goto(site.server.base_url + "/history")
    expect(page.locator("#all-games")).to_have_attribute("aria-current", "page")
    page.click("#your-games")
    expect(page).to_have_url(site.server.base_url + "/history?mine=1")
    expect(page.locator("#your-games")).to_have_attribute("aria-current", "page")
    rows = page.locator("#finished-games .game-row")
    expect(rows).to_have_count(20)
    newest = [str(game) for game in reversed(games)]
    assert [rows.nth(i).get_attribute("data-game") for i in range(20)] == newest[:20]
    expect(rows.nth(0)).to_contain_text("Aborted as White against Anonymous")
    expect(rows.nth(0)).to_contain_text("your opponent did not play a first move in time \u00b7 5+3")
    expect(rows.nth(1)).to_contain_text("You lost as Black against Anonymous")
    expect(rows.nth(2)).to_contain_text("You won as White against Anonymous")
    expect(page.locator("#mine-note")).to_have_text(
        "The games played in this browser without signing in. Sign in to keep your games wherever you play.")
    screenshot(page, artifacts, "history-your-games")
    page.focus("#older-games")
    page.keyboard.press("Enter")
    expect(rows).to_have_count(24)
    expect(page.locator("#older-games")).to_be_hidden()
    # nothing more to show: the card ends under its last game (play-through s65: a line of blank
    # card was left where the hidden button's row stood)
    card = page.locator("#finished-games").evaluate("list => list.closest('.card').getBoundingClientRect().bottom")
    last = rows.nth(23).bounding_box()
    assert card - (last["y"] + last["height"]) < 24, f"{card - (last['y'] + last['height'])} px under the last game"
    # the keyboard's focus goes to the first game the last page added, not to the page's top
    expect(rows.nth(20).get_by_role("link", name="Replay")).to_be_focused()
    assert [rows.nth(i).get_attribute("data-game") for i in range(24)] == newest
    rows.nth(0).get_by_role("link", name="Replay").click()
    expect(page).to_have_url(f"{site.server.base_url}/replay/{newest[0]}")


def test_a_drawn_game_is_said_from_the_players_side(site, context):  # noqa: F811
    """Play-through (session 60): "Drawn as White" beside "You won as ..." and "You lost as ..."."""
    me, other = f"{uuid.uuid4()}", f"guest:{uuid.uuid4()}"
    History(site.database_url).add(None, None, 0, principals=(f"guest:{me}", other), time_control=CLOCK)
    context.add_init_script(f"localStorage.setItem('playsite.guestId', '{me}')")
    page = context.new_page()
    page.goto(site.server.base_url + "/history?mine=1")
    expect(page.locator("#finished-games .game-row .players-line")).to_have_text("You drew as White against Anonymous")


def test_signed_in_your_games_are_the_account_s(site, context):  # noqa: F811
    me = str(uuid.uuid4())
    context.add_init_script(f"localStorage.setItem('playsite.guestId', '{me}')")
    before = History(site.database_url).add(None, None, -1, principals=(f"guest:{me}", f"guest:{uuid.uuid4()}"),
                                            time_control=CLOCK)  # played here before signing in
    page = context.new_page()
    page.goto(site.server.base_url + "/history?mine=1")
    expect(page.locator(f'#finished-games .game-row[data-game="{before}"]')).to_be_visible()
    page.click("#sign-in")
    sign_in_at_the_provider(page, "yara")
    expect(page).to_have_url(site.server.base_url + "/history?mine=1")
    expect(page.locator("#finished-games")).to_contain_text("You have not finished a game while signed in yet.")
    [(account_id,)] = query(site.database_url, "SELECT id FROM accounts WHERE nickname = 'yara'")
    game = History(site.database_url).add(None, None, 1, principals=(f"guest:{uuid.uuid4()}", f"user:{account_id}"),
                                          time_control=CLOCK)
    page.reload()
    expect(page.locator("#finished-games .game-row")).to_have_count(1)
    expect(page.locator(f'#finished-games .game-row[data-game="{game}"]')).to_contain_text("You lost as Black against Anonymous")
    # and the way to the games this browser played before signing in (play-through s59: gone from view)
    note = page.locator("#mine-note")
    expect(note).to_contain_text("Your games while signed in. This browser also played games without signing in:")
    note.get_by_role("link", name="games without signing in").click()
    expect(page).to_have_url(site.server.base_url + "/history?mine=browser")
    expect(page.locator("#finished-games .game-row")).to_have_count(1)
    expect(page.locator(f'#finished-games .game-row[data-game="{before}"]')).to_contain_text("You lost as White")
    expect(page.locator("#your-games")).to_have_attribute("aria-current", "page")
    # linked to the account, they are its own games (as the ecosystem's site offers), for good
    page.goto(site.server.base_url + "/history?mine=1")
    page.click("#link-browser-games")
    expect(page.locator("#finished-games .game-row")).to_have_count(2)
    expect(page.locator(f'#finished-games .game-row[data-game="{before}"]')).to_contain_text("You lost as White")
    expect(note).to_have_text("Your games, with those this browser played before you signed in.")
    expect(page.locator("#finished-games a.replay").first).to_be_focused()  # the list, where the button was
    page.reload()
    expect(page.locator("#finished-games .game-row")).to_have_count(2)
    expect(page.locator("#link-browser-games")).to_have_count(0)
