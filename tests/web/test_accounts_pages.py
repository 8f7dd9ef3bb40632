"""Pages that need PostgreSQL, in Chromium: a person signs in from the header (through a
real OpenID Connect provider), changes the nickname, finds the ranking with a bot and
with themselves, opens both profiles, then signs out from the header."""

from __future__ import annotations

import re


import httpx
import psycopg
import pytest
from playwright.sync_api import expect

from tests.support.artifacts import screenshot
from tests.support.browser import text_lines
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (fixture)
from tests.support.server import free_port
from tests.support.sign_in import sign_in_at_the_provider

pytestmark = pytest.mark.postgres


@pytest.fixture
def site(serve, migrated_url, oidc_provider):  # noqa: F811
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    server = serve({
        "PLAY_PORT": str(port), "DATABASE_URL": migrated_url, "PLAY_SESSION_SECRET": "web-session-secret-" + "x" * 24,
        "OIDC_ISSUER": oidc_provider.issuer, "OIDC_CLIENT_ID": oidc_provider.client_id,
        "OIDC_CLIENT_SECRET": oidc_provider.client_secret, "PLAY_PUBLIC_ORIGIN": origin, "PLAY_CORS_ORIGINS": origin,
        "DICE_SEED_WINDOW_MS": "0",
    })
    server.database_url = migrated_url
    return server


def converge(database_url: str) -> None:
    """Ratings as a season of games would leave them (a converged RD, so they are listed)."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("INSERT INTO bot_ratings (bot_id, rating, rd, games, wins, draws, losses)"
                     " VALUES ('acme/star', 1612.4, 80, 30, 18, 2, 10)")
        conn.execute("INSERT INTO account_ratings (account_id, rating, rd, games, wins, draws, losses)"
                     " SELECT id, 1555, 90, 25, 13, 1, 11 FROM accounts")


def test_sign_in_rename_ranking_profiles_and_sign_out_from_the_header(site, context, artifacts):  # noqa: F811
    base = site.base_url
    registered = httpx.post(f"{base}/bot/register", json={"team": "acme", "name": "star"}, timeout=10)
    assert registered.status_code in (200, 201), registered.text
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(base + "/history")
    expect(page.locator("#sign-in")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert errors == [], "a signed-out page logs no failed request (bug 12)"
    page.set_viewport_size({"width": 360, "height": 740})  # the most common Android width
    signed_out = page.locator("header.site").bounding_box()
    assert signed_out["height"] <= 56, f"signed out, the header keeps to one line at 360 px: {signed_out}"
    # from the page of a failed sign-in, signing in lands home, not on the failure's words again
    # (play-through s62: signed in as carol, "Sign-in did not complete")
    page.goto(base + "/sign-in-failed?reason=sign_in_failed")
    expect(page.locator("#sign-in")).to_have_attribute("href", "/auth/login?next=%2F")
    page.goto(base + "/history")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.click("#sign-in")
    sign_in_at_the_provider(page, "alice")
    expect(page).to_have_url(base + "/history")  # back where the person started
    expect(page.locator("#account-name")).to_be_visible()
    site_read = page.evaluate("fetch('/web/site').then((r) => r.json())")
    assert site_read["signIn"] is True and site_read["ratings"] is True and site_read["account"]["nickname"] == "alice"
    assert httpx.get(base + "/web/site", timeout=10).json()["account"] is None, "without the cookie: nobody"
    other = context.new_page()  # another tab of the site, in the same browser
    other.goto(base + "/ranking")
    expect(other.locator("#account-name")).to_have_text("alice")
    page.click("#account-menu summary")
    page.fill("#nickname-input", "alice_web")
    page.click("#nickname-form button[type=submit]")
    expect(page.locator("#account-name")).to_have_text("alice_web")
    # ... shows the new name at once too (play-through s63: only after a reload)
    expect(other.locator("#account-name")).to_have_text("alice_web")
    expect(page.locator("#account-message")).to_have_text("Saved.")
    expect(page.locator("#account-message")).to_have_class(re.compile(r"\binfo\b"))  # news, not an error's red
    expect(page.locator("#account-profile")).to_have_attribute("href", "/@/alice_web")
    with psycopg.connect(site.database_url, autocommit=True) as conn:  # someone else's name
        conn.execute("INSERT INTO accounts (id, issuer, subject, nickname) VALUES (gen_random_uuid(), 'x', 'y', 'taken_name')")
    page.fill("#nickname-input", "Taken_Name")
    page.click("#nickname-form button[type=submit]")
    expect(page.locator("#account-message")).to_have_text("Another player has this nickname.")
    expect(page.locator("#account-message")).not_to_have_class(re.compile(r"\binfo\b"))
    page.fill("#nickname-input", "a b")  # malformed: the browser stops it, the old answer goes
    # and the rule is said once, in the menu: the browser's own bubble (which hid half of it,
    # play-through s61) is not shown; a listener after the page's sees whether it was stopped
    page.evaluate("""() => document.querySelector('#nickname-input').addEventListener('invalid',
        (event) => { document.body.dataset.bubble = event.defaultPrevented ? 'none' : 'shown'; })""")
    page.click("#nickname-form button[type=submit]")
    expect(page.locator("#account-message")).to_have_text("A nickname is 3 to 20 letters, digits, _ or -.")
    expect(page.locator("body")).to_have_attribute("data-bubble", "none")
    page.fill("#nickname-input", "alice_again")
    expect(page.locator("#account-message")).to_have_text("")  # typing clears it
    page.fill("#nickname-input", "")
    expect(page.locator("#account-name")).to_have_text("alice_web")
    # the menu closes as menus do (play-through, session 60): Escape, the focus back on the name;
    # a click anywhere else; and its name carries a caret, never the browser's "▶" triangle
    menu = page.locator("#account-menu")
    page.keyboard.press("Escape")
    expect(menu).not_to_have_attribute("open", "")
    expect(page.locator("#account-menu summary")).to_be_focused()
    page.click("#account-menu summary")
    expect(menu).to_have_attribute("open", "")
    page.mouse.click(5, 500)
    expect(menu).not_to_have_attribute("open", "")
    summary = page.locator("#account-menu summary")
    assert summary.evaluate("s => getComputedStyle(s).listStyleType") == "none"
    assert "\u25be" in summary.evaluate("s => getComputedStyle(s, '::after').content")

    converge(site.database_url)
    with psycopg.connect(site.database_url, autocommit=True) as conn:  # and a newcomer, provisional
        conn.execute("INSERT INTO accounts (id, issuer, subject, nickname) VALUES (gen_random_uuid(), 'x', 'n', 'newcomer')")
        conn.execute("INSERT INTO account_ratings (account_id, rating, rd, games, wins, draws, losses)"
                     " SELECT id, 1530, 210, 2, 1, 0, 1 FROM accounts WHERE nickname = 'newcomer'")
    page.goto(base + "/ranking")
    expect(page.locator("#bot-ranking tbody tr")).to_have_count(1)
    expect(page.locator("#bot-ranking tbody")).to_contain_text("acme/star")
    expect(page.locator("#bot-ranking tbody")).to_contain_text("acme/star")
    assert "1612\u00a0\u00b180" in page.locator("#bot-ranking tbody").text_content()  # never wrapped apart
    expect(page.locator("#player-ranking tbody")).to_contain_text("alice_web")
    screenshot(page, artifacts, "ranking-signed-in")
    # one table above the other, their columns line up (play-through s61: the ratings 50 px apart)
    edges = [page.locator(f"{table} thead th").evaluate_all("(ths) => ths.map((th) => Math.round(th.getBoundingClientRect().right))")
             for table in ("#bot-ranking", "#player-ranking")]
    assert all(abs(a - b) <= 1 for a, b in zip(*edges)), f"the columns' right edges differ: {edges}"
    expect(page.locator("#bot-ranking tbody .sub")).to_be_hidden()  # the columns say it on a desktop
    # on a phone: rank, name and rating, the games and the record under the name, nothing cut off
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator("#bot-ranking tbody .sub")).to_be_visible()
    assert page.locator("#bot-ranking tbody .sub").text_content() == "30 games \u00b7 18\u00a0/\u00a02\u00a0/\u00a010"
    provisional = page.locator("#player-ranking .rating.provisional")
    expect(provisional.first).to_be_visible()
    for cell in provisional.all():  # "1530?" on one line (play-through, session 56: two lines a row)
        assert re.fullmatch(r"\d+", cell.inner_text()), cell.inner_text()  # the deviation and the word hidden
        assert cell.locator(".figures").evaluate("f => getComputedStyle(f, '::after').content") == '"?"'
        tops = cell.evaluate("c => [...c.getClientRects()].map((r) => [Math.round(r.top), Math.round(r.height)])")
        assert len({top for top, height in tops if height}) == 1, tops
    lines = text_lines(page.locator("#bot-ranking tbody .sub"))  # one line, never "30 games ·" over the record
    assert lines == 1, lines
    expect(page.locator("#bot-ranking thead th").nth(3)).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0
    for table in ("#bot-ranking", "#player-ranking"):
        box, card = page.locator(table).bounding_box(), page.locator(table).locator("xpath=..").bounding_box()
        assert box["x"] + box["width"] <= card["x"] + card["width"] + 1, f"{table} fits its card"
        link = page.locator(f"{table} tbody a").first.bounding_box()
        assert link["height"] >= 24, f"a finger's target in {table}: {link}"
    header = page.locator("header.site").bounding_box()
    assert header["height"] <= 56, f"the header keeps to one line with a nickname of 9 letters: {header}"
    cut = page.locator("#account-name").evaluate("n => n.scrollWidth - n.clientWidth")
    assert cut <= 0, f"a nickname of 9 letters is read whole at 390 px (play-through s61: 'Phon…'): {cut} px cut"
    caret = page.locator("#account-menu summary").evaluate("s => getComputedStyle(s, '::after').content")
    assert "\u25be" in caret, f"the nickname says it opens a menu: {caret!r}"
    page.set_viewport_size({"width": 360, "height": 740})
    header = page.locator("header.site").bounding_box()
    assert header["height"] <= 56, f"and at 360 px, caret and all: {header}"
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, artifacts, "ranking-phone")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.click("#bot-ranking a")
    expect(page).to_have_url(base + "/@/acme/star")
    expect(page.locator("#profile-name")).to_have_text("Bot acme/star")
    expect(page.locator("#profile-record")).to_contain_text("30 rated games: 18 won, 2 drawn, 10 lost")
    page.go_back()
    page.click("#player-ranking a")
    expect(page).to_have_url(base + "/@/alice_web")
    expect(page.locator("#profile-rating")).to_contain_text("Rating 1555")
    # as the ranking writes it (read as text: Playwright's matching takes a no-break space for a space)
    assert page.locator("#profile-rating").text_content().startswith("Rating 1555\u00a0\u00b1")
    # the opponents and the recent games share the row under the summary, to its right edge
    summary = page.locator(".profile-summary").bounding_box()
    recent = page.locator("#recent").locator("xpath=ancestor::section[1]").bounding_box()
    assert abs((recent["x"] + recent["width"]) - (summary["x"] + summary["width"])) < 2, (summary, recent)
    screenshot(page, artifacts, "profile-signed-in")
    page.goto(base + "/@/nobody_here")
    # as every page of something not here: what, and the ways on (play-through s64: a red line only)
    expect(page.locator(".notfound h1")).to_have_text("No player called nobody_here")
    expect(page.locator(".notfound a[href='/']")).to_be_visible()
    expect(page.locator(".notfound a[href='/history']")).to_be_visible()
    # the name alice gave up still leads to her, under the name she has now
    page.goto(base + "/@/alice")
    expect(page.locator("#profile-name")).to_have_text("alice_web")
    expect(page.locator("#profile-message")).to_have_text("alice is now called alice_web.")
    expect(page).to_have_url(base + "/@/alice_web")

    page.click("#account-menu summary")  # signing out is in the account's menu: here, or everywhere
    expect(page.locator("#sign-out-everywhere")).to_have_text("Sign out everywhere")
    expect(page.locator("#sign-out")).to_have_text("Sign out")
    page.click("#sign-out")
    expect(page.locator("#sign-in")).to_be_visible()
    expect(other.locator("#sign-in")).to_be_visible()  # the other tab, reloaded, goes on as nobody's
    page.reload()
    expect(page.locator("#sign-in")).to_be_visible()  # the session is gone from the browser too

    # Someone new signs in with a name that is now alice's: a new account "alice_web-1", told why
    # in the opened menu, the word gone from the address (play-through s64: not a word was said)
    newcomer = context.browser.new_context()  # another person, unknown to the provider too
    try:
        page = newcomer.new_page()
        page.goto(base + "/ranking?x=1")
        page.click("#sign-in")
        sign_in_at_the_provider(page, "alice_web")
        expect(page).to_have_url(base + "/ranking?x=1")
        expect(page.locator("#account-name")).to_have_text("alice_web-1")
        expect(page.locator("#account-menu")).to_have_attribute("open", "")
        expect(page.locator("#account-message")).to_have_text(
            "alice_web is another player's nickname, so you are alice_web-1. Choose another here if you like.")
        page.reload()
        expect(page.locator("#account-menu")).not_to_have_attribute("open", "")  # said once
    finally:
        newcomer.close()
