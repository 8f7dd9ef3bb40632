"""Bugs 10-13 of the web client, each in a real Chromium against a real `playsite serve`:

10. the home page's live games refresh without a reload;
11. an unknown path answers a browser an HTML 404 page (API families keep their JSON error),
    and every page has a favicon (`/favicon.ico` answered too);
12. no page logs a console error when nobody is signed in (here: a server without sign-in;
    `test_accounts_pages.py` checks a server with it);
13. a provisional rating reads "1500, provisional", with a tooltip saying why.
"""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.support.browser import seat_link
from tests.support.server import module_server


server = module_server({"DICE_SEED_WINDOW_MS": "0", "PLAY_HOUSE_BOTS": "true"})


def console_errors(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def test_live_games_appear_on_the_home_page_without_a_reload(server, context):
    page = context.new_page()
    page.goto(server.base_url + "/")
    expect(page.locator("#live-games")).to_contain_text("No game is being played")
    created = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    tile = page.locator(f'#live-games a[href="/play/{created["gameId"]}"]')
    # a friend game nobody has joined is nothing to watch yet; once both players are in, it is
    seats = [context.new_page() for _ in range(2)]
    seats[0].goto(seat_link(server.base_url, created, "White"))
    expect(seats[0].locator("#connection")).to_have_attribute("data-state", "open")
    for _ in range(2):  # two reads of the wall that listed the game, not begun: not shown
        page.wait_for_event("requestfinished", predicate=lambda request: request.url.endswith("/games"), timeout=15_000)
    expect(tile).to_have_count(0)
    expect(page.locator("#live-games")).to_contain_text("No game is being played")
    seats[1].goto(seat_link(server.base_url, created, "Black"))
    expect(tile).to_be_visible()


def test_an_unknown_path_is_an_html_page_for_browsers_and_json_for_api_families(server, context):
    page = context.new_page()
    errors = console_errors(page)
    answer = page.goto(server.base_url + "/no/such/page")
    assert answer.status == 404
    assert answer.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in answer.headers["content-security-policy"]
    expect(page.locator("h1")).to_have_text("Page not found")
    expect(page.locator("main a[href='/']")).to_be_visible()
    assert page.title().startswith("Not found")
    assert [e for e in errors if "404" not in e] == []  # the page's own 404 is the only one
    # ... and the API families this server does not mount (play-through s62: a scrape of /metrics
    # on a server without PLAY_METRICS_TOKEN read the HTML page)
    for path in ("/games/0b5e6a8c-4f7e-4a55-9d51-3a0f3d1b2c44/nothing", "/bot/nothing", "/lobby/nothing",
                 "/assets/nothing.000000000000.js", "/metrics", "/admin/bots", "/me/bots"):
        for accept in ("text/html", "application/json"):
            refused = httpx.get(server.base_url + path, headers={"Accept": accept}, timeout=10)
            assert refused.status_code == 404 and refused.headers["content-type"] == "application/json", path
            assert refused.json()["error"]["code"] == "not_found"
            if not path.startswith("/assets/"):  # the assets' own 404, for no person's eyes
                assert refused.headers["vary"] == "Sec-Fetch-Mode", path
    # ... unless a person's browser went there (play-through s72: `/admin` and `/lobby` showed the
    # JSON error where any other unknown address shows the page)
    for path in ("/admin", "/lobby", "/lobby/nothing", "/games/no/such/thing"):
        answer = page.goto(server.base_url + path)
        assert answer.status == 404 and answer.headers["content-type"].startswith("text/html"), path
        assert answer.headers["vary"] == "Sec-Fetch-Mode", path
        expect(page.locator("h1")).to_have_text("Page not found")
    plain = httpx.get(server.base_url + "/no/such/page", headers={"Accept": "application/json"}, timeout=10)
    assert plain.status_code == 404 and plain.headers["content-type"].startswith("text/html"), "no Accept variance"


def test_every_page_names_a_favicon_and_favicon_ico_is_answered(server, context):
    ico = httpx.get(server.base_url + "/favicon.ico", timeout=10)
    assert ico.status_code == 200 and ico.headers["content-type"] == "image/svg+xml"
    assert b"<svg" in ico.content
    page = context.new_page()
    for path in ("/", "/play/0b5e6a8c-4f7e-4a55-9d51-3a0f3d1b2c44", "/history", "/ranking", "/@/alice", "/nothing"):
        page.goto(server.base_url + path)
        href = page.locator('link[rel="icon"]').get_attribute("href")
        icon = httpx.get(server.base_url + href, timeout=10)
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml", path


def test_no_console_error_when_nobody_is_signed_in(server, context):
    page = context.new_page()
    errors = console_errors(page)
    for path in ("/", "/history", "/ranking"):
        page.goto(server.base_url + path)
        page.wait_for_load_state("networkidle")
    assert errors == []


def test_a_provisional_rating_reads_as_such(server, context):
    page = context.new_page()
    page.goto(server.base_url + "/")
    rating = page.locator('#bot-list [data-card="house/greedy"] .rating')
    expect(rating).to_have_text("1500, provisional")
    assert "?" not in page.locator("#bot-list").inner_text()
    assert "provisional" in rating.get_attribute("title").lower()


def test_the_site_read_answers_200_with_what_this_server_has(server):
    answer = httpx.get(server.base_url + "/web/site", timeout=10)
    assert answer.status_code == 200
    assert answer.json() == {"signIn": False, "account": None, "showcase": False, "ratings": False, "ratingPeriodS": None,
                             "bots": False, "admin": False}
    assert answer.headers["cache-control"] == "no-store, private" and answer.headers["vary"] == "Cookie"
    assert httpx.get(server.base_url + "/auth/me", timeout=10).status_code == 404, "no sign-in here: /auth/me unchanged"


def test_a_sign_in_that_cannot_complete_says_why_in_words(server, context):
    """Play-through (session 62): a deactivated account signing in read raw problem+json at
    /auth/callback. A browser is sent to /sign-in-failed?reason=<code> (test_sign_in_e2e), which
    says why and what to do next; a deactivated account is not offered to sign in again."""
    page = context.new_page()
    errors = console_errors(page)
    for reason, title, again in (
        ("account_deactivated", "This account is deactivated", False),
        ("provider_unavailable", "The sign-in provider is not answering", True),
        ("rate_limited", "Too many sign-in attempts", True),
        ("sign_in_failed", "Sign-in did not complete", True),
        ("something-else", "Sign-in did not complete", True),
    ):
        answer = page.goto(f"{server.base_url}/sign-in-failed?reason={reason}")
        assert answer.status == 200 and answer.headers["content-type"].startswith("text/html")
        expect(page.locator("h1")).to_have_text(title)
        assert page.title() == f"{title}: playsite"
        offered = expect(page.locator("#failed-again"))
        offered.to_be_visible() if again else offered.to_be_hidden()
        expect(page.locator("main a[href='/']")).to_be_visible()
    assert errors == []
