"""The browser boundary (http.origin) on a small app: the Origin x CSRF matrix of session
writes, JSON bodies, CORS answers and preflights, WebSocket handshakes."""

from __future__ import annotations

import itertools

import pytest
from quart import websocket
from quart_trio import QuartTrio

from playsite.credentials import SESSION_COOKIE, Credentials
from playsite.http.auth import credentials
from playsite.http.edge import install_edge
from playsite.http.errors import Refusal, RouteFamily
from playsite.http.origin import OriginPolicy
from playsite.http.responses import json_response

ALLOWED = "https://play.example"


def boundary_app(policy: OriginPolicy):
    app = QuartTrio("origin-test")
    install_edge(app, origins=policy)
    routes = RouteFamily("session", __name__)

    @routes.post("/write")
    async def write():
        await policy.require_write(Refusal(403, "csrf_origin_rejected", "no"))
        return json_response({"ok": True})

    @routes.post("/write-own-refusals")
    async def write_own_refusals():
        await policy.require_write(Refusal(403, "not_participant", "no"), lambda _status, message: Refusal(400, "invalid_request", message))
        return json_response({"ok": True})

    @routes.get("/read")
    async def read():
        return json_response({"ok": True})

    app.register_blueprint(routes)
    return app.test_client()


ORIGINS = {"allowed": ALLOWED, "another origin": "https://evil.example", "the null origin": "null",
           "another port": "https://play.example:8443", "another scheme": "http://play.example", "none": None}
CSRF = {"1": "1", "0": "0", "none": None}


@pytest.mark.parametrize(("origin_name", "csrf_name"), list(itertools.product(ORIGINS, CSRF)))
async def test_only_the_exact_origin_with_the_csrf_header_may_write(origin_name, csrf_name):
    client = boundary_app(OriginPolicy(frozenset({ALLOWED})))
    headers = {}
    if ORIGINS[origin_name] is not None:
        headers["Origin"] = ORIGINS[origin_name]
    if CSRF[csrf_name] is not None:
        headers["X-Game-CSRF"] = CSRF[csrf_name]
    answer = await client.post("/write", json={}, headers=headers)
    if origin_name == "allowed" and csrf_name == "1":
        assert answer.status_code == 200
    else:
        assert answer.status_code == 403 and (await answer.get_json())["error"]["code"] == "csrf_origin_rejected"


async def test_a_session_write_must_be_json_when_it_has_a_body():
    client = boundary_app(OriginPolicy(frozenset({ALLOWED})))
    headers = {"Origin": ALLOWED, "X-Game-CSRF": "1"}
    form = await client.post("/write", data="a=1", headers={**headers, "Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415
    assert (await client.post("/write", headers=headers)).status_code == 200, "no body: nothing to check"


async def test_without_an_allow_list_no_session_write_passes():
    client = boundary_app(OriginPolicy())
    answer = await client.post("/write", json={}, headers={"Origin": ALLOWED, "X-Game-CSRF": "1"})
    assert answer.status_code == 403


async def test_cors_answers_go_to_allowed_origins_only():
    client = boundary_app(OriginPolicy(frozenset({ALLOWED})))
    allowed = await client.get("/read", headers={"Origin": ALLOWED})
    assert allowed.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert allowed.headers["Access-Control-Allow-Credentials"] == "true"
    assert "Origin" in allowed.headers["Vary"]
    other = await client.get("/read", headers={"Origin": "https://evil.example"})
    assert not [name for name in other.headers.keys() if name.lower().startswith("access-control-")]
    assert "Origin" in other.headers["Vary"], "a cache must not reuse one origin's answer for another"


async def test_preflights_are_granted_to_allowed_origins_only():
    client = boundary_app(OriginPolicy(frozenset({ALLOWED})))
    asked = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type, x-game-csrf"}
    granted = await client.options("/write", headers={"Origin": ALLOWED, **asked})
    assert granted.status_code == 204
    assert "X-Game-CSRF" in granted.headers["Access-Control-Allow-Headers"]
    assert "POST" in granted.headers["Access-Control-Allow-Methods"]
    assert int(granted.headers["Access-Control-Max-Age"]) > 0
    assert granted.headers["Access-Control-Allow-Origin"] == ALLOWED
    refused = await client.options("/write", headers={"Origin": "https://evil.example", **asked})
    assert refused.status_code == 204
    assert not [name for name in refused.headers.keys() if name.lower().startswith("access-control-allow")]


def test_a_handshake_counts_its_session_only_from_an_allowed_origin():
    policy = OriginPolicy(frozenset({ALLOWED}))
    assert policy.admits_socket(ALLOWED)
    for origin in ("https://evil.example", "null", None, ALLOWED + "/"):
        assert not policy.admits_socket(origin)
    assert not OriginPolicy().admits_socket(ALLOWED)


def test_a_session_counts_on_reads_on_allowed_handshakes_and_on_checked_writes_only():
    policy = OriginPolicy(frozenset({ALLOWED}))
    counts = policy.admits_session
    assert counts(Credentials(method="GET", origin="https://evil.example"))
    assert counts(Credentials(method="GET", origin=ALLOWED, handshake=True))
    assert not counts(Credentials(method="GET", origin="https://evil.example", handshake=True))
    assert not counts(Credentials(method="GET", origin=None, handshake=True))
    assert counts(Credentials(method="POST", origin=ALLOWED, csrf="1"))
    for origin, csrf in [(ALLOWED, None), (ALLOWED, "0"), ("https://evil.example", "1"), (None, "1")]:
        assert not counts(Credentials(method="POST", origin=origin, csrf=csrf))
    assert not OriginPolicy().admits_session(Credentials(method="POST", origin=ALLOWED, csrf="1"))


async def test_the_edge_reads_a_requests_credentials_and_a_handshakes():
    app = QuartTrio("credentials-test")
    install_edge(app)
    routes = RouteFamily("who", __name__)
    seen: list[Credentials] = []

    @routes.post("/who")
    async def who():
        seen.append(credentials())
        return json_response({})

    @routes.websocket("/who/ws")
    async def who_socket():
        seen.append(credentials())
        await websocket.accept()

    app.register_blueprint(routes)
    client = app.test_client()
    headers = {"Origin": ALLOWED, "X-Game-CSRF": "1", "Cookie": f"{SESSION_COOKIE}=token-1"}
    await client.post("/who", headers=headers)
    async with client.websocket("/who/ws", headers={"Origin": ALLOWED, "Cookie": f"{SESSION_COOKIE}=token-2"}):
        pass
    assert seen == [
        Credentials(method="POST", origin=ALLOWED, csrf="1", session="token-1"),
        Credentials(method="GET", origin=ALLOWED, handshake=True, session="token-2"),
    ]


async def test_a_family_refuses_a_write_and_a_body_that_is_not_json_in_its_own_words():
    client = boundary_app(OriginPolicy(frozenset({ALLOWED})))
    refused = await client.post("/write-own-refusals", headers={"Origin": "https://evil.example", "X-Game-CSRF": "1"})
    assert refused.status_code == 403 and (await refused.get_json())["error"]["code"] == "not_participant"
    form = await client.post(
        "/write-own-refusals", data=b"a=1",
        headers={"Origin": ALLOWED, "X-Game-CSRF": "1", "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert form.status_code == 400 and (await form.get_json())["error"]["code"] == "invalid_request"
    passed = await client.post("/write-own-refusals", json={}, headers={"Origin": ALLOWED, "X-Game-CSRF": "1"})
    assert passed.status_code == 200
