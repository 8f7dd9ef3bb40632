"""Sign-in end to end, over real sockets: a real OpenID Connect provider (node's oidc-provider),
a real `playsite serve` process on PostgreSQL, httpx as the browser.

Cookies are handled by hand: they are `Secure`, which a browser honours on http://127.0.0.1
but Python's cookie jar does not, and the attributes themselves are under test.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
import uuid
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import psycopg
import pytest
import trio
from joserfc import jwt
from trio_websocket import ConnectionRejected, open_websocket_url

from playsite.accounts.sessions import Sessions, derive_key
from playsite.wire import GameEnded, Resign, Snapshot, encode_command
from tests.support.documented import Documented
from tests.support.client import Player, Table
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.ratings import one_period
from tests.support.oidc_provider import oidc_provider, sign_in_at_provider  # noqa: F401 (fixture)
from tests.support.sign_in import CSRF, SECRET, relative, set_cookies, site  # noqa: F401 (site: a fixture)

pytestmark = pytest.mark.postgres


async def test_the_whole_sign_in_flow_sets_a_host_only_secure_session(site):
    async with site.client() as browser, httpx.AsyncClient(timeout=15) as provider_http:
        start = await browser.get("/auth/login", params={"next": "/lobby?x=1"})
        assert start.status_code == 303
        authorize = urlsplit(start.headers["location"])
        query = parse_qs(authorize.query)
        assert start.headers["location"].startswith(site.provider.issuer)
        assert query["response_type"] == ["code"] and query["code_challenge_method"] == ["S256"]
        assert query["redirect_uri"] == [f"{site.origin}/auth/callback"] and query["client_id"] == [site.provider.client_id]
        assert len(query["state"][0]) >= 32 and len(query["nonce"][0]) >= 32 and query["state"] != query["nonce"]
        state_cookie, flags = set_cookies(start)["signin_state"]
        assert flags["httponly"] and flags["secure"] and flags["samesite"] == "Lax" and flags["path"] == "/auth/callback"
        assert "domain" not in flags and int(flags["max-age"]) == 600
        assert query["state"][0] not in state_cookie.split(".")[0], "the state is carried signed, not in the header"

        back = await sign_in_at_provider(provider_http, start.headers["location"], "alice")
        assert back.startswith(f"{site.origin}/auth/callback?")
        done = await browser.get(relative(back), headers={"Cookie": f"signin_state={state_cookie}"})
    assert done.status_code == 303 and done.headers["location"] == "/lobby?x=1"
    assert done.headers["cache-control"] == "no-store, private"
    cookies = set_cookies(done)
    session, flags = cookies["access_token"]
    assert flags["httponly"] and flags["secure"] and flags["samesite"] == "Lax" and flags["path"] == "/"
    assert "domain" not in flags and int(flags["max-age"]) == 168 * 3600
    assert cookies["signin_state"][0] == "" and int(cookies["signin_state"][1]["max-age"]) == 0, "state cookie cleared"

    me = await site.me(session)
    assert me.status_code == 200 and me.headers["cache-control"] == "no-store, private"
    body = me.json()
    assert body["nickname"] == "alice" and body["principal"] == f"user:{body['id']}"
    uuid.UUID(body["id"])
    # Signing in again is the same account.
    assert (await site.me(await site.sign_in("alice"))).json()["id"] == body["id"]
    # Nothing secret reached the server's log.
    log = site.server.output()
    assert session not in log and state_cookie not in log and parse_qs(urlsplit(back).query)["code"][0] not in log


async def test_a_callback_that_does_not_belong_to_this_browser_is_refused_generically(site):
    async with site.client() as browser, httpx.AsyncClient(timeout=15) as provider_http:
        first = await browser.get("/auth/login")
        second = await browser.get("/auth/login")
        first_cookie = set_cookies(first)["signin_state"][0]
        second_cookie = set_cookies(second)["signin_state"][0]
        back = relative(await sign_in_at_provider(provider_http, first.headers["location"], "mallory"))
        code = parse_qs(urlsplit(back).query)["code"][0]
        answers = {
            "another sign-in's cookie": await browser.get(back, headers={"Cookie": f"signin_state={second_cookie}"}),
            "no cookie": await browser.get(back),
            "a forged cookie": await browser.get(back, headers={"Cookie": f"signin_state={first_cookie[:-2]}xx"}),
            "a changed state": await browser.get(
                "/auth/callback?" + urlencode({"code": code, "state": "x" + parse_qs(urlsplit(back).query)["state"][0]}),
                headers={"Cookie": f"signin_state={first_cookie}"},
            ),
            "the provider's error": await browser.get(
                "/auth/callback?error=access_denied&state=s", headers={"Cookie": f"signin_state={first_cookie}"}
            ),
        }
        for why, answer in answers.items():  # one generic refusal, on the page that says it in words
            assert answer.status_code == 303, why
            assert answer.headers["location"] == "/sign-in-failed?reason=sign_in_failed", why
            assert "access_token" not in set_cookies(answer), why
        # The code was never redeemed above: it still works once, then never again.
        ok = await browser.get(back, headers={"Cookie": f"signin_state={first_cookie}"})
        assert ok.status_code == 303
        replay = await browser.get(back, headers={"Cookie": f"signin_state={first_cookie}"})
        assert replay.status_code == 303 and replay.headers["location"] == "/sign-in-failed?reason=sign_in_failed"
    log = site.server.output()
    assert "sign-in failed" in log and code not in log and first_cookie not in log


async def test_sign_out_ends_every_session_of_the_account(site):
    laptop = await site.sign_in("bob")
    phone = await site.sign_in("bob")
    assert (await site.me(laptop)).status_code == 200 and (await site.me(phone)).status_code == 200
    out = await site.write("POST", "/auth/logout", laptop)
    assert out.status_code == 204
    assert set_cookies(out)["access_token"][0] == ""
    for old in (laptop, phone):
        refused = await site.me(old)
        assert refused.status_code == 401 and refused.json()["code"] == "not_signed_in"
        assert set_cookies(refused)["access_token"][0] == "", "a dead session cookie is cleared"
    assert (await site.me(await site.sign_in("bob"))).status_code == 200, "signing in again works"


async def test_sign_out_of_one_session_leaves_the_others(site):
    """As lichess's "Sign out": the laptop's session ends, the phone's goes on; a session from
    before sessions had ids ends only with all of them (it names none to end)."""
    laptop = await site.sign_in("dora")
    phone = await site.sign_in("dora")
    for body in ({"everywhere": "no"}, {"everywhere": False, "also": 1}, [False]):
        refused = await site.write("POST", "/auth/logout", laptop, json=body)
        assert refused.status_code == 400 and refused.json()["code"] == "invalid_request", body
    assert (await site.me(laptop)).status_code == 200, "a refused sign-out signs nobody out"
    out = await site.write("POST", "/auth/logout", laptop, json={"everywhere": False})
    assert out.status_code == 204 and set_cookies(out)["access_token"][0] == ""
    assert (await site.me(laptop)).status_code == 401, "the laptop's session ended"
    assert (await site.me(phone)).status_code == 200, "the phone's goes on"
    again = await site.write("POST", "/auth/logout", laptop, json={"everywhere": False})
    assert again.status_code == 204, "signing out an ended session only clears the cookie"
    assert (await site.me(phone)).status_code == 200

    account_id = (await site.me(phone)).json()["id"]
    older = jwt.encode({"alg": "HS256", "typ": "JWT"}, {
        "iss": "playsite", "aud": "access_token", "sub": account_id, "gen": 0,
        "iat": int(time.time()), "exp": int(time.time()) + 3600}, derive_key(SECRET, "session"))
    assert (await site.me(older)).status_code == 200, "a session without an id is still a session"
    out = await site.write("POST", "/auth/logout", older, json={"everywhere": False})
    assert out.status_code == 204
    assert (await site.me(older)).status_code == 401 and (await site.me(phone)).status_code == 401


async def test_forged_sessions_are_refused(site):
    account_id = (await site.me(await site.sign_in("carol"))).json()["id"]

    class Stub:
        id, session_generation = uuid.UUID(account_id), 0

    forged = Sessions("another-secret-" + "y" * 24, 3600).issue(Stub)
    expired = Sessions(SECRET, 3600, now=lambda: 1_000_000).issue(Stub)
    header = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0"  # {"alg":"none","typ":"JWT"}
    payload = forged.split(".")[1]
    for why, token in {"other key": forged, "expired": expired, "alg none": f"{header}.{payload}.", "garbage": "x.y.z"}.items():
        answer = await site.me(token)
        assert answer.status_code == 401, why


async def test_session_writes_need_the_exact_origin_and_the_csrf_header(site):
    session = await site.sign_in("dave")
    refused = {
        "no Origin": await site.write("PATCH", "/auth/me", session, origin=False, json={"nickname": "dave2"}),
        "another origin": await site.write("PATCH", "/auth/me", session, origin="http://evil.example", json={"nickname": "dave2"}),
        "an origin differing in port": await site.write(
            "PATCH", "/auth/me", session, origin=site.origin.rsplit(":", 1)[0] + ":1", json={"nickname": "dave2"}
        ),
        "no CSRF header": await site.write("PATCH", "/auth/me", session, csrf=False, json={"nickname": "dave2"}),
        "logout without CSRF": await site.write("POST", "/auth/logout", session, csrf=False),
        "logout from elsewhere": await site.write("POST", "/auth/logout", session, origin="http://evil.example"),
    }
    for why, answer in refused.items():
        assert answer.status_code == 403 and answer.json()["code"] == "csrf_origin_rejected", why
    async with site.client() as browser:
        not_json = await browser.patch(
            "/auth/me", content=b"nickname=dave2",
            headers={"Cookie": f"access_token={session}", "Origin": site.origin, **CSRF,
                     "Content-Type": "application/x-www-form-urlencoded"},
        )
        assert not_json.status_code == 415
        preflight = await browser.options(
            "/auth/me", headers={"Origin": site.origin, "Access-Control-Request-Method": "PATCH",
                                 "Access-Control-Request-Headers": "content-type,x-game-csrf"},
        )
        assert preflight.status_code == 204 and "X-Game-CSRF" in preflight.headers["access-control-allow-headers"]
        assert preflight.headers["access-control-allow-origin"] == site.origin
        evil = await browser.options(
            "/auth/me", headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "PATCH"}
        )
        assert "access-control-allow-origin" not in evil.headers
    assert (await site.me(session)).json()["nickname"] == "dave", "nothing refused changed anything"
    changed = await site.write("PATCH", "/auth/me", session, json={"nickname": "Dave_2"})
    assert changed.status_code == 200 and changed.json()["nickname"] == "Dave_2"
    assert changed.headers["access-control-allow-origin"] == site.origin
    assert changed.headers["access-control-allow-credentials"] == "true"


async def test_nicknames_are_unique_and_validated(site):
    erin, frank = await site.sign_in("erin"), await site.sign_in("frank")
    taken = await site.write("PATCH", "/auth/me", frank, json={"nickname": "ERIN"})
    assert taken.status_code == 409 and taken.json()["code"] == "nickname_taken"
    for bad in ("ab", "x" * 21, "with space", "é-accent", 42, None):
        answer = await site.write("PATCH", "/auth/me", frank, json={"nickname": bad})
        assert answer.status_code == 400 and answer.json()["code"] == "invalid_request", bad
    unknown = await site.write("PATCH", "/auth/me", frank, json={"nickname": "frank2", "id": "x"})
    assert unknown.status_code == 400
    assert (await site.me(erin)).json()["nickname"] == "erin"
    # a name given up stays its account's: refused to another, as such
    assert (await site.write("PATCH", "/auth/me", erin, json={"nickname": "erin_b"})).status_code == 200
    reserved = await site.write("PATCH", "/auth/me", frank, json={"nickname": "Erin"})
    assert reserved.status_code == 409 and reserved.json()["code"] == "nickname_reserved", reserved.text
    Documented().check_http("patch", "/auth/me", reserved)
    assert (await site.write("PATCH", "/auth/me", erin, json={"nickname": "erin"})).status_code == 200  # its own again


async def test_deactivation_revokes_at_once_and_deletion_forgets_the_account(site):
    session = await site.sign_in("gina")
    account_id = (await site.me(session)).json()["id"]
    done = subprocess.run(
        [sys.executable, "-m", "playsite", "accounts", "deactivate", "gina"],
        env={"PATH": "/usr/bin:/bin", "DATABASE_URL": site.database_url}, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("playsite: gina deactivated: its sessions end at their next request"), done.stdout
    assert (await site.me(session)).status_code == 401, "the very next request"
    async with site.client() as browser, httpx.AsyncClient(timeout=15) as provider_http:
        start = await browser.get("/auth/login")
        back = await sign_in_at_provider(provider_http, start.headers["location"], "gina")
        again = await browser.get(relative(back), headers={"Cookie": f"signin_state={set_cookies(start)['signin_state'][0]}"})
        # sent to a page that says why (play-through s62: the browser showed a problem+json body)
        assert again.status_code == 303 and again.headers["location"] == "/sign-in-failed?reason=account_deactivated"
        assert "access_token" not in set_cookies(again)
        shown = await browser.get(again.headers["location"])
        assert shown.status_code == 200 and shown.headers["content-type"].startswith("text/html")
    subprocess.run(
        [sys.executable, "-m", "playsite", "accounts", "reactivate", "gina"],
        env={"PATH": "/usr/bin:/bin", "DATABASE_URL": site.database_url}, capture_output=True, text=True, timeout=60, check=True,
    )
    session = await site.sign_in("gina")
    wrong = await site.write("DELETE", "/auth/me", session, json={"confirm": "yes"})
    assert wrong.status_code == 400 and (await site.me(session)).status_code == 200
    deleted = await site.write("DELETE", "/auth/me", session, json={"confirm": "delete my account"})
    assert deleted.status_code == 204 and (await site.me(session)).status_code == 401
    with psycopg.connect(site.database_url) as conn:
        row = conn.execute("SELECT issuer, subject, nickname, status FROM accounts WHERE id = %s", (account_id,)).fetchone()
    assert row == (None, None, None, "deleted")
    fresh = (await site.me(await site.sign_in("gina"))).json()
    assert fresh["id"] != account_id and fresh["nickname"] == "gina"


async def seat(site, game: dict, color: str, session: str | None, *, origin: str | None = None, guest: str | None = None):
    url = site.server.ws_url + game["seats"][color.lower()]["wsUrl"] + (f"&guest={guest}" if guest else "")
    headers = [("Origin", origin or site.origin)]
    if session:
        headers.append(("Cookie", f"access_token={session}"))
    return open_websocket_url(url, extra_headers=headers)


async def test_accounts_take_seats_play_rated_and_reach_the_leaderboard(site):
    alice, bob = await site.sign_in("alice"), await site.sign_in("bob")
    async with site.client() as http:
        game = (await http.post("/games", json={"rated": True})).json()
        guest_game = (await http.post("/games", json={"rated": True})).json()
    white, black = Player(site.server.ws_url, game, "White"), Player(site.server.ws_url, game, "Black")
    for player in (white, black):
        player.url = site.server.ws_url + game["seats"][player.seat.lower()]["wsUrl"]  # no guest=: the session says who
    headers = lambda session: [("Origin", site.origin), ("Cookie", f"access_token={session}")]  # noqa: E731
    async with open_websocket_url(white.url, extra_headers=headers(alice)) as w, \
            open_websocket_url(black.url, extra_headers=headers(bob)) as b:
        white.ws, black.ws = w, b
        table = Table(white, black)
        async with trio.open_nursery() as nursery:
            for player in (white, black):
                nursery.start_soon(table._read, player)
            await table.wait_for(white, lambda e: isinstance(e, Snapshot))
            async with site.client() as http:
                state = (await http.get(f"/games/{game['gameId']}")).json()
            assert state["players"] == {"white": {"kind": "Human", "name": "alice"}, "black": {"kind": "Human", "name": "bob"}}
            assert state["rated"] is True and "user:" not in json.dumps(state)
            # A guest cannot take an account's seat, even with its token.
            with pytest.raises(ConnectionRejected) as refused:
                async with await seat(site, game, "Black", None, guest=str(uuid.uuid4())):
                    pass
            assert refused.value.status_code == 403 and b"seat_taken" in refused.value.body
            rng, movers = random.Random(3), set()
            while movers != {"White", "Black"}:  # a resignation before both have played is an abort
                movers.add((await table.play_turn(rng, spare_king=True)).seat)
            await white.ws.send_message(encode_command(Resign()))
            await table.wait_for(black, lambda e: isinstance(e, GameEnded))
            nursery.cancel_scope.cancel()
    # From a page of another origin, the session does not count: a guest id is needed.
    async with await seat(site, guest_game, "White", alice, origin="http://evil.example", guest=str(uuid.uuid4())) as ws:
        await ws.get_message()
        async with site.client() as http:
            casual = (await http.get(f"/games/{guest_game['gameId']}")).json()
        assert casual["rated"] is False and casual["players"]["white"]["name"] is None

    assert await one_period(site.database_url) == 1
    async with site.client() as http:
        profile = await http.get("/players/BOB")
        leaders = (await http.get("/leaderboard")).json()
    assert profile.status_code == 200, profile.text
    body = profile.json()
    assert body["nickname"] == "bob" and body["games"] == 1 and body["wins"] == 1 and body["rating"] > 1500
    assert "user:" not in profile.text
    assert leaders["players"] == [], "after one game the rating is still provisional (RD above 110)"
