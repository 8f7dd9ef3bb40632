"""What `playsite demo` shows a newcomer beyond the showcase, in real Chromium: two people sign
in as two accounts through the demo's identity provider, play a rated friend game to the
end, see both ratings move, agree on a rematch and land on the successor; after a restart
the accounts, the game and the ratings are all still there. Also: the identity provider's
refusals, the league filling the bots' ratings, and the root case (a demo directory the
`postgres` user cannot enter).

Only the play page's stable hooks are used: `[data-square]`, `#promotion button[data-move]`,
`#partial`, `#submit`, `#resign` (and its confirmation), `#status[data-status]`, the players'
names (`#player-white .name`, `#player-black .name`) and the buttons of `#rematch-slot`."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.sync_api import expect, sync_playwright

from tests.support.browser import launch
from tests.support.demo import Demo, demo_dir, play_turn, resign, shot  # noqa: F401 (a fixture)
from tests.support.waiting import wait_until_sync

pytestmark = pytest.mark.postgres

def state(base: str, game_id: str) -> dict:
    return httpx.get(f"{base}/games/{game_id}", timeout=10).json()


def sign_in(page, base: str, nickname: str) -> None:
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{base}/auth/login?next=/")
    expect(page.locator("body")).to_contain_text("Demo identity provider")
    icon = page.request.get(page.url.split("/authorize")[0] + "/favicon.ico")
    assert icon.status == 200 and icon.headers["content-type"] == "image/svg+xml"
    shot(page, f"sign-in-{nickname}")
    page.fill("#nickname", nickname)
    page.click("#sign-in")
    page.wait_for_url(f"{base}/")
    assert errors == [], errors  # play-through s53: the provider's page had no icon (a 404 each time)
    me = page.request.get(f"{base}/auth/me")
    assert me.status == 200 and me.json()["nickname"] == nickname


def profile(base: str, nickname: str) -> dict:
    return httpx.get(f"{base}/players/{nickname}", timeout=10).json()


# ----- the tests ---------------------------------------------------------------------------------


def test_two_accounts_play_a_rated_game_agree_on_a_rematch_and_find_it_all_after_a_restart(demo_dir):
    data, log = demo_dir / "demo", demo_dir / "demo.log"
    demo = Demo(data, log, "--no-league")
    base = demo.url
    try:
        demo.wait_open()
        demo.assert_clean_start()
        with sync_playwright() as playwright:
            browser = launch(playwright)
            contexts = {seat: browser.new_context(viewport={"width": 1366, "height": 900}) for seat in ("White", "Black")}
            pages = {seat: context.new_page() for seat, context in contexts.items()}
            nicknames = {"White": "alice", "Black": "bob"}
            for seat, page in pages.items():
                sign_in(page, base, nicknames[seat])

            # A rated friend game, created from alice's page (her session, the page's own Origin).
            created = pages["White"].evaluate(
                """async () => {
                    const answer = await fetch("/games", {method: "POST", credentials: "same-origin",
                      headers: {"Content-Type": "application/json", "X-Game-CSRF": "1"},
                      body: JSON.stringify({rated: true, timeControl: {Fischer: {initialSeconds: 300, incrementSeconds: 3}}})});
                    return {status: answer.status, body: await answer.json()};
                }"""
            )
            assert created["status"] == 201, created
            game = created["body"]
            game_id = game["gameId"]
            for seat, page in pages.items():
                page.goto(f"{base}/play/{game_id}#seat={seat}&token={game['seats'][seat.lower()]['token']}")
            wait_until_sync(lambda: state(base, game_id)["players"]["black"].get("name") == "bob", "bob takes his seat")
            assert state(base, game_id)["players"]["white"] == {"kind": "Human", "name": "alice"}
            assert state(base, game_id)["rated"] is True

            rng = random.Random(7)
            played = set()
            while played != {"White", "Black"}:  # a turn each (a roll without moves passes by itself)

                def ready() -> dict | None:
                    """The roll to play, once its player's page shows it (its events follow the server's state)."""
                    now = state(base, game_id)
                    if not now["dicePending"]:
                        return None
                    shown = pages[now["activeSeat"]].locator("#status").get_attribute("data-status")
                    return now if shown == "your-turn" else None

                seat = wait_until_sync(ready, "a roll to play, on its player's page", timeout=20, interval=0.1)["activeSeat"]
                play_turn(pages[seat], base, game_id, rng)
                played.add(seat)
            # alice's page opened before bob sat down: its names are read again once the game begins.
            expect(pages["White"].locator("#player-black .name a")).to_have_text("bob")
            expect(pages["Black"].locator("#player-white .name a")).to_have_text("alice")
            # each with the rating it brings to the game: new accounts, 1500 and provisional
            expect(pages["White"].locator("#player-black .name .rating")).to_have_text("1500?")
            shot(pages["White"], "rated-game")
            if "Active" in state(base, game_id)["status"]:  # a random turn may have taken a king
                resign(pages["White"])
            for page in pages.values():
                expect(page.locator("#status")).to_have_attribute("data-status", "ended")

            # The rating batch runs every few seconds in the demo: both ratings move.
            ratings = wait_until_sync(
                lambda: all(profile(base, n).get("games") == 1 for n in nicknames.values())
                and {n: profile(base, n) for n in nicknames.values()},
                "the rating batch rates both accounts", timeout=30,
            )
            assert all(p["rating"] != 1500 for p in ratings.values()), ratings
            assert ratings["alice"]["rating"] != ratings["bob"]["rating"]
            # Each end-of-game box says its player's new rating and the change, once applied.
            for seat, page in pages.items():
                box = page.locator("#result-rated")
                expect(box).to_have_attribute("data-ratings", "applied", timeout=30_000)
                new = int(ratings[nicknames[seat]]["rating"] + 0.5)
                # one's own change first, Black's too; "?" while provisional, as the strips say it
                expect(box).to_contain_text(f"New ratings: you {new}? (")
                sign = "+" if new > 1500 else "\u2212"
                expect(box).to_contain_text(f"you {new}? ({sign}{abs(new - 1500)})")
                # and the name strip beside the board says the rating brought to the game with the
                # game's change beside it, where lichess writes both (play-through s58: no change
                # said; s65: the change; s71: the new rating beside the change, the replay the old)
                assert ratings[nicknames[seat]]["provisional"] is True
                expect(page.locator(f"#player-{seat.lower()} .rating")).to_have_text("1500?")
                expect(page.locator(f"#player-{seat.lower()} .rating-change")).to_have_text(f"{sign}{abs(new - 1500)}")
            shot(pages["White"], "rated-game-over")
            # A page opened after the game reads the same from the histories, "?" and all
            # (play-through s63: "1662" there, where the profile said provisional).
            later = browser.new_context()
            watcher = later.new_page()
            watcher.goto(f"{base}/play/{game_id}")
            expect(watcher.locator("#result-rated")).to_have_attribute("data-ratings", "applied")
            for seat in pages:
                new = int(ratings[nicknames[seat]]["rating"] + 0.5)
                expect(watcher.locator(f"#player-{seat.lower()} .rating")).to_have_text("1500?")
                expect(watcher.locator(f"#player-{seat.lower()} .rating-change")).to_have_text(
                    f"+{new - 1500}" if new > 1500 else f"\u2212{1500 - new}")
            # and the replay says what the game made of both ratings (play-through s63: not a word)
            watcher.goto(f"{base}/replay/{game_id}")
            change = watcher.locator("#rating-change")
            expect(change).to_have_attribute("data-ratings", "applied")
            words = [f"{n} {int(ratings[n]['rating'] + 0.5)}? (" for n in ("alice", "bob")]
            expect(change).to_contain_text(re.compile(rf"^Rated game\. New ratings: ({re.escape(words[0])}.*{re.escape(words[1])}|{re.escape(words[1])}.*{re.escape(words[0])})"))
            # and each name says the rating it brought and the game's change, as lichess's replay does
            for seat, where in (("White", "bottom"), ("Black", "top")):
                new = int(ratings[nicknames[seat]]["rating"] + 0.5)
                expect(watcher.locator(f"#name-{where} .rating")).to_have_text("1500?")  # as the play page
                expect(watcher.locator(f"#name-{where} .rating-change")).to_have_text(
                    f"+{new - 1500}" if new > 1500 else f"\u2212{1500 - new}")
            shot(watcher, "replay-rated")
            later.close()

            # Rematch: alice proposes, bob accepts, both land on the successor.
            for page in pages.values():
                expect(page.locator("#rematch-slot")).to_have_attribute("data-phase", "available")
            pages["White"].click('#rematch-slot button[data-action="propose"]')
            accept = pages["Black"].locator('#rematch-slot button[data-action="accept"]')
            expect(accept).to_be_visible()
            # each side names the other, as a draw offer does (play-through s64: "Your opponent")
            expect(pages["Black"].locator("#rematch-status")).to_contain_text(f"{nicknames['White']} offers a rematch.")
            expect(pages["White"].locator("#rematch-status")).to_contain_text(f"Rematch offered; waiting for {nicknames['Black']}.")
            shot(pages["Black"], "rematch-offered")
            accept.click()
            successor = wait_until_sync(
                lambda: httpx.get(f"{base}/games/{game_id}/continuation", timeout=10).json().get("nextGameId"),
                "the successor is committed",
            )
            for page in pages.values():
                expect(page).to_have_url(f"{base}/play/{successor}")
            # the game just left behind: its rating change is said on the rematch's page too
            # (play-through, session 55: a quick rematch never showed it)
            for seat, page in pages.items():
                new = int(ratings[nicknames[seat]]["rating"] + 0.5)
                expect(page.locator("#last-game")).to_contain_text(f"you {new}? (")
                expect(page.locator("#last-game")).to_contain_text("Your last game, rated. New ratings: ")
            begun = wait_until_sync(
                lambda: (s := state(base, successor))["rematchStartup"]["phase"] == "active" and s,
                "the successor begins with both players on it",
            )
            assert {begun["players"]["white"]["name"], begun["players"]["black"]["name"]} == {"alice", "bob"}
            assert begun["rated"] is True
            shot(pages["White"], "rematch-successor")

            # A restart: the accounts, their sessions, the game and the ratings are all kept.
            assert demo.stop() == 0, demo.output()
            demo = Demo(data, log, "--no-league")
            base = demo.url
            demo.wait_open()
            demo.assert_clean_start()
            for seat, page in pages.items():
                me = page.request.get(f"{base}/auth/me")
                assert me.status == 200 and me.json()["nickname"] == nicknames[seat], "still signed in"
            history = httpx.get(f"{base}/games/{game_id}/history", timeout=10)
            assert history.status_code == 200 and history.json()["rated"] is True
            # the game's page, the game no longer in memory, is its replay (play-through s71: the
            # page opened a socket that was refused, then went there); a game page of no game is a 404
            page_of = httpx.get(f"{base}/play/{game_id}", timeout=10)
            assert page_of.status_code == 302 and page_of.headers["Location"] == f"/replay/{game_id}"
            assert httpx.get(f"{base}/play/{uuid.uuid4()}", timeout=10).status_code == 404
            for nickname, before in ratings.items():
                after = profile(base, nickname)
                assert (after["rating"], after["games"]) == (before["rating"], 1)
                assert any(game["gameId"] == game_id for game in after["recent"])
            # Each one's own games say what the game did to their rating: "rated +12", green up, red down
            for seat, page in pages.items():
                new = int(ratings[nicknames[seat]]["rating"] + 0.5)
                page.goto(f"{base}/history?mine=1")
                change = page.locator(f'#finished-games [data-game="{game_id}"] .rating-change')
                expect(change).to_have_text(f"+{new - 1500}" if new > 1500 else f"\u2212{1500 - new}")
                expect(change).to_have_class(re.compile("rating-up" if new > 1500 else "rating-down"))
                expect(page.locator(f'#finished-games [data-game="{game_id}"] .meta')).to_contain_text("rated ")
            shot(pages["White"], "your-games-rated")
            # Signing in again as alice is the same account, not a new "alice-1".
            fresh = browser.new_context()
            sign_in(fresh.new_page(), base, "alice")
            fresh.close()
            # The ranking: both people listed after one rated game (provisional, RD above 110);
            # the converged-only leaderboard stays as it was.
            board = httpx.get(f"{base}/leaderboard?provisional=true", timeout=10).json()
            assert {(p["nickname"], p["games"], p["provisional"]) for p in board["players"]} == {
                ("alice", 1, True), ("bob", 1, True)}
            assert httpx.get(f"{base}/leaderboard", timeout=10).json()["players"] == []
            pages["White"].goto(f"{base}/ranking")
            expect(pages["White"].locator("#player-ranking tbody")).to_contain_text("alice")
            expect(pages["White"].locator("#player-ranking tbody")).to_contain_text("bob")
            shot(pages["White"], "ranking-after-restart")
            browser.close()
    finally:
        assert demo.stop() == 0, demo.output()


def test_a_browser_at_localhost_is_sent_to_the_demo_address_where_sign_in_works(demo_dir):
    demo = Demo(demo_dir / "demo", demo_dir / "demo.log", "--no-league")
    base = demo.url
    elsewhere = base.replace("127.0.0.1", "localhost")
    try:
        health = httpx.get(f"{elsewhere}/health", timeout=10)  # an API client is answered where it asked
        assert health.status_code == 200 and health.json()["status"] == "ok"
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page()
            page.goto(f"{elsewhere}/ranking?x=1")
            expect(page).to_have_url(f"{base}/ranking?x=1")
            page.goto(f"{elsewhere}/auth/login?next=/ranking")
            expect(page.locator("body")).to_contain_text("Demo identity provider")
            page.fill("#nickname", "dora")
            page.click("#sign-in")
            page.wait_for_url(f"{base}/ranking")
            assert page.request.get(f"{base}/auth/me").json()["nickname"] == "dora"
            browser.close()
    finally:
        assert demo.stop() == 0, demo.output()


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def test_the_demo_identity_provider_is_strict_about_codes_clients_and_addresses(demo_dir):
    data = demo_dir / "demo"
    demo = Demo(data, demo_dir / "demo.log", "--no-league")
    try:
        key_file = data / "identity-key.json"
        assert key_file.stat().st_mode & 0o777 == 0o600 and '"d"' in key_file.read_text()
        issuer = httpx.get(demo.url + "/auth/login", follow_redirects=False, timeout=10).headers["location"].split("/authorize")[0]
        discovery = httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
        assert discovery["issuer"] == issuer and discovery["code_challenge_methods_supported"] == ["S256"]
        keys = httpx.get(discovery["jwks_uri"], timeout=10).json()["keys"]
        assert [k["kty"] for k in keys] == ["EC"] and all("d" not in k for k in keys), "only the public key is published"
        secret = (data / "identity-client-secret").read_text().strip()
        redirect = f"{demo.url}/auth/callback"
        verifier, challenge = pkce()
        query = {"response_type": "code", "client_id": "playsite-demo", "redirect_uri": redirect, "scope": "openid",
                 "state": "s" * 48, "nonce": "n" * 48, "code_challenge": challenge, "code_challenge_method": "S256"}

        # Never a redirect to an address that is not the server's callback; no PKCE, no sign-in.
        for bad in ({"redirect_uri": "http://evil.example/cb"}, {"client_id": "other"}, {"code_challenge_method": "plain"},
                    {"code_challenge": ""}):
            page = httpx.get(f"{issuer}/authorize", params={**query, **bad}, timeout=10)
            assert page.status_code == 400 and "location" not in page.headers and "Sign-in refused" in page.text

        def code_for(nickname: str) -> str:
            answer = httpx.post(f"{issuer}/authorize", data={**query, "nickname": nickname}, timeout=10)
            assert answer.status_code == 303
            target = urlsplit(answer.headers["location"])
            assert f"{target.scheme}://{target.netloc}{target.path}" == redirect
            return parse_qs(target.query)["code"][0]

        bad_nickname = httpx.post(f"{issuer}/authorize", data={**query, "nickname": "<b>x</b>"}, timeout=10)
        assert bad_nickname.status_code == 400 and "<b>x</b>" not in bad_nickname.text

        def exchange(code: str, *, verifier: str = verifier, password: str = secret) -> httpx.Response:
            return httpx.post(f"{issuer}/token", auth=("playsite-demo", password), timeout=10,
                              data={"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                    "code_verifier": verifier})

        assert exchange(code_for("carol"), password="wrong").status_code == 401
        assert exchange(code_for("carol"), verifier=pkce()[0]).json() == {"error": "invalid_grant"}
        code = code_for("carol")
        first = exchange(code)
        assert first.status_code == 200 and first.headers["cache-control"] == "no-store"
        token = first.json()
        header, claims = (json.loads(base64.urlsafe_b64decode(part + "==")) for part in token["id_token"].split(".")[:2])
        assert header["alg"] == "ES256" and header["kid"] == keys[0]["kid"]
        assert claims["iss"] == issuer and claims["aud"] == "playsite-demo" and claims["nonce"] == "n" * 48
        assert claims["exp"] - claims["iat"] <= 300 and token["expires_in"] <= 300
        assert claims["sub"] == "demo:carol" and claims["preferred_username"] == "carol"
        assert exchange(code).json() == {"error": "invalid_grant"}, "a code is good once"
    finally:
        assert demo.stop() == 0, demo.output()


def test_sign_in_refuses_a_network_address_unless_asked_and_can_be_turned_off(demo_dir):
    env = {**os.environ}
    env.pop("DATABASE_URL", None)
    refused = subprocess.run(
        [sys.executable, "-m", "playsite", "demo", "--host", "0.0.0.0", "--port", "0", "--dir", str(demo_dir / "d")],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert refused.returncode == 2 and "--no-sign-in" in refused.stderr and "signs anyone" in refused.stderr
    demo = Demo(demo_dir / "d", demo_dir / "demo.log", "--no-sign-in", "--no-league")
    try:
        assert demo.get("/auth/login").status_code == 404
        assert not (demo_dir / "d" / "identity-key.json").exists()
    finally:
        assert demo.stop() == 0, demo.output()


def test_the_league_fills_the_bots_ratings_and_profiles_in_the_background(demo_dir):
    demo = Demo(demo_dir / "demo", demo_dir / "demo.log", "--league-think", "0", "--league-rest", "0")
    try:
        demo.wait_open()
        demo.assert_clean_start()

        def rated() -> dict | None:
            bots = {b: httpx.get(f"{demo.url}/bots/{b}", timeout=10).json() for b in ("house/random", "house/greedy", "demo/featured")}
            return bots if sum(b["games"] for b in bots.values()) >= 6 else None

        bots = wait_until_sync(rated, "league games rated", timeout=90, interval=1)
        # Rated periods ran: the deviation of each bot that played fell from the start's 350 (the
        # rating itself may stay 1500 exactly: a win and a loss against two 1500s in one period)
        assert all(b["rd"] < 350 for b in bots.values() if b["games"]), bots
        recent = [game for b in bots.values() for game in b["recent"]]
        assert all(game["rated"] for game in recent) and {game["opponent"]["kind"] for game in recent} == {"Bot"}
        ranked = httpx.get(f"{demo.url}/leaderboard?provisional=true", timeout=10).json()["leaders"]
        # (The batch may have rated one more game since: the ranking holds at least those.)
        assert {f"{b['team']}/{b['name']}" for b in ranked} >= {name for name, b in bots.items() if b["games"]}
        assert all(b["games"] >= 1 and isinstance(b["provisional"], bool) for b in ranked)
    finally:
        assert demo.stop() == 0, demo.output()


@pytest.mark.skipif(os.geteuid() != 0, reason="the root case: PostgreSQL runs as `postgres`, which needs root to set up")
def test_as_root_the_demo_works_from_a_directory_closed_to_other_users():
    closed = Path(tempfile.mkdtemp(prefix="playsite-demo-closed-"))
    closed.chmod(0o700)  # as /root is: the postgres user cannot enter it
    data = closed / "clone" / ".playsite-demo"
    try:
        demo = Demo(data, closed / "demo.log")
        try:
            assert demo.get("/health").json()["store"]["reachable"] is True
            demo.wait_open()
            demo.assert_clean_start()
            said = re.findall(r"PostgreSQL in (\S+) \(the postgres user cannot enter", demo.output())
            assert len(said) == 1, demo.output()
            place = Path(said[0])
            assert place.parent == Path("/var/lib/playsite-demo") and (place / "data" / "PG_VERSION").exists()
            assert not (data / "postgres").exists(), "nothing of PostgreSQL's in the closed directory"
            assert (data / "featured-bot.json").exists() and (data / "identity-key.json").exists()
        finally:
            assert demo.stop() == 0, demo.output()
        again = Demo(data, closed / "demo.log")  # the same place again
        try:
            again.wait_open()
            again.assert_clean_start()
            assert f"starting PostgreSQL in {place}" in again.this_run()
        finally:
            assert again.stop() == 0, again.output()
        reset = subprocess.run([sys.executable, "-m", "playsite", "demo", "--dir", str(data), "--reset", "--yes"],
                               capture_output=True, text=True, timeout=60)
        assert reset.returncode == 0, reset.stderr
        assert not place.exists() and not data.exists(), "--reset removes both places"
    finally:
        shutil.rmtree(closed, ignore_errors=True)


def test_the_demos_operator_is_admin_reads_the_metrics_and_reaches_the_database(demo_dir):
    """Play-through (session 62): the demo mounted neither /metrics nor /admin, and never said
    where its database was; an operator had to chain four documents and restart it with three
    variables. Now the demo's "admin" account is its administrator, the metrics need the token
    kept in its directory (named there, never printed), and the start says all three."""
    data = demo_dir / "demo"
    demo = Demo(data, demo_dir / "demo.log", "--no-league")
    base = demo.url
    try:
        out = demo.this_run()
        token = (data / "metrics-token").read_text().strip()
        assert len(token) >= 32 and token not in out, "the metrics token is named by its file, never printed"
        assert oct((data / "metrics-token").stat().st_mode & 0o777) == "0o600"
        assert f'the operator: sign in as "admin", then Your bots ({base}/account/bots?all=1:' in out, out
        assert f'curl -H "Authorization: Bearer $(cat {data.resolve() / "metrics-token"})" {base}/metrics' in out, out
        assert "playsite: effective configuration" in out and "PLAY_METRICS_TOKEN=<redacted>" in out, out
        assert demo.get("/metrics").status_code == 401
        metrics = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=10)
        assert metrics.status_code == 200 and "playsite_" in metrics.text
        database = re.search(r"its database: DATABASE_URL=(\S+)", out)[1]
        shown = subprocess.run([sys.executable, "-m", "playsite", "accounts", "show", "admin"], capture_output=True,
                               text=True, env={**os.environ, "DATABASE_URL": database}, timeout=60)
        assert shown.returncode == 0 and "admin" in shown.stdout, shown.stdout + shown.stderr
        with sync_playwright() as playwright:
            browser = launch(playwright)
            for nickname, status in (("admin", 200), ("carol", 403)):
                page = browser.new_context().new_page()
                sign_in(page, base, nickname)
                answer = page.request.get(f"{base}/admin/bots")
                assert answer.status == status, (nickname, answer.text())
                # the page the start names: every bot, as administrator (the house bots and the featured bot)
                page.goto(f"{base}/account/bots?all=1")
                if status == 200:
                    expect(page.locator("#bots-listed-title")).to_contain_text("Every registered bot")
                    expect(page.locator('li[data-bot="demo/featured"]')).to_be_visible()
                else:
                    expect(page.locator("#bots-views")).to_be_hidden()
                    expect(page.locator("#bots-title")).to_have_text("Your bots")
            browser.close()
    finally:
        assert demo.stop() == 0, demo.output()
