"""Your account (/account), in Chromium against a real `playsite serve` on PostgreSQL with
sign-in through a real OpenID Connect provider: a person signed out is asked to sign in and
comes back; signed in, the page names the account and its pages; deleting it asks for the
server's words typed, is refused while the account plays a game (the game linked), and then
deletes it: the page says so, the site's other tabs sign out, the session is over."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.artifacts import screenshot
from tests.support.axe import serious_violations
from tests.support.browser import play_a_bot, seat_link
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (fixture)
from tests.support.sign_in import sign_in_at_the_provider, site_with_house_bots  # noqa: F401 (fixture)

pytestmark = pytest.mark.postgres


def test_the_account_page_and_deleting_the_account(site_with_house_bots, chromium, artifacts):  # noqa: F811
    base = site_with_house_bots.origin
    context = chromium.new_context(bypass_csp=True)
    page = context.new_page()
    failures: list[str] = []
    page.on("pageerror", lambda error: failures.append(str(error)))
    page.goto(base + "/account")
    expect(page.locator("#account-closed-why")).to_have_text("Sign in to see your account.")
    page.click("#account-sign-in")
    sign_in_at_the_provider(page, "leaver")
    expect(page).to_have_url(base + "/account")
    expect(page.locator("#about-nickname")).to_have_text("leaver")
    me = page.evaluate("fetch('/web/site').then((r) => r.json())")["account"]
    expect(page.locator("#about-id")).to_have_text(me["id"])
    expect(page.locator("#about-profile")).to_have_attribute("href", "/@/leaver")
    expect(page.locator("#about-bots")).to_be_hidden()  # this server does not manage bots
    expect(page.locator("#about-admin")).to_be_hidden()
    page.click("#account-menu summary")
    expect(page.locator("#account-page")).to_have_attribute("href", "/account")  # the menu leads here
    page.keyboard.press("Escape")
    assert serious_violations(page) == []
    screenshot(page, artifacts, "account")

    # the words typed, or nothing is sent
    delete = page.locator("#delete")
    expect(delete).to_be_disabled()
    page.fill("#delete-confirm", "delete my")
    expect(delete).to_be_disabled()
    page.fill("#delete-confirm", "Delete my account")
    expect(delete).to_be_enabled()

    # not while the account plays: the game is linked, and ended from its page
    game = context.new_page()
    play_a_bot(game, base)
    game_id = game.url.split("/play/")[1].split("#")[0]
    delete.click()
    expect(page.locator("#delete-message")).to_have_text(
        "You are playing: finish or resign your game first, then delete your account.")
    expect(page.locator(f"#delete-games a[href='/play/{game_id}']")).to_have_text("Your game")
    expect(page.locator("#about-nickname")).to_have_text("leaver")  # nothing was deleted
    expect(game.locator("#resign")).to_be_enabled()
    game.click("#resign")
    game.click("#confirm-yes")
    expect(game.locator("#result")).to_be_visible()

    other = context.new_page()  # another tab of the site, signed in
    other.goto(base + "/history")
    expect(other.locator("#account-name")).to_have_text("leaver")
    cookie = next(c["value"] for c in context.cookies() if c["name"] == "access_token")
    delete.click()
    expect(page).to_have_url(base + "/account?deleted=1")
    expect(page.locator("#account-closed-why")).to_have_text(
        "Your account is deleted. Signing in again starts a new account.")
    expect(page.locator("#account-sign-in")).to_be_hidden()
    expect(page.locator("#sign-in")).to_be_visible()  # the header: signed out
    expect(other.locator("#sign-in")).to_be_visible()  # and the other tab too, at once
    gone = httpx.get(f"{base}/auth/me", headers={"Cookie": f"access_token={cookie}"}, timeout=10)
    assert gone.status_code == 401, "the session ended with the account"
    assert httpx.get(f"{base}/players/leaver", timeout=10).status_code == 404, "the nickname is gone"
    assert failures == []
    context.close()


def test_a_friend_game_waiting_for_its_other_player_is_said_so_and_signing_out_loses_nothing(site_with_house_bots, chromium):  # noqa: F811
    """Play-through s71: a friend game nobody else had joined read "You have a game in progress
    ... away for 30 s loses the game" in the lobby, and signing out warned of losing it, while
    nobody is counted away before both seats are taken. And a nickname changed from the menu
    shows on Your account at once (it kept the old one)."""
    base = site_with_house_bots.origin
    context = chromium.new_context()
    page = context.new_page()
    page.goto(base + "/account")
    page.click("#account-sign-in")
    sign_in_at_the_provider(page, "waiter")
    expect(page.locator("#about-nickname")).to_have_text("waiter")
    page.click("#account-menu summary")
    expect(page.locator("#account-games")).to_have_attribute("href", "/history?mine=1")  # the menu's way to them
    page.fill("#nickname-input", "waiter_two")
    page.click("#nickname-form button[type=submit]")
    expect(page.locator("#about-nickname")).to_have_text("waiter_two")
    expect(page.locator("#about-profile")).to_have_attribute("href", "/@/waiter_two")
    page.keyboard.press("Escape")

    game = httpx.post(f"{base}/games", json={}, headers={"Origin": base}, timeout=10).json()
    page.goto(seat_link(base, game, "White"))
    expect(page.locator("#role")).to_have_text("You play White")
    expect(page.locator("#status")).to_have_text("Waiting for your opponent to join...")
    me = page.evaluate("fetch('/auth/me').then((r) => r.json())")
    assert me["playing"] == me["waiting"] == [game["gameId"]], me  # the seat is the account's, the game not begun
    page.goto(base + "/")
    expect(page.locator("#my-games")).to_have_text("You have a game waiting for its other player (10+10). Back to the game")
    page.click("#account-menu summary")
    page.click("#sign-out")  # once: nothing to lose, nothing to warn of
    expect(page.locator("#sign-in")).to_be_visible()
    context.close()
