"""The one HTTP edge: refusals rendered in their family's shape, bodies read once against the
route's own limit, the framework's own errors as JSON, the bot caller, the origin policy."""

from __future__ import annotations

import json

import pytest
from quart import request
from quart_trio import QuartTrio

from playsite.http.auth import calling_bot, client_address
from playsite.http.bodies import (
    BODY_MAX_DEFAULT,
    body_limit,
    json_object,
    reject_unknown_fields,
)
from playsite.http.edge import install_edge
from playsite.http.errors import (
    ErrorShape,
    Refusal,
    RouteFamily,
    temporarily_unavailable,
)
from playsite.http.origin import OriginPolicy
from playsite.http.responses import json_response
from playsite.refusals import Refused

STATEFUL = ErrorShape(
    "application/json",
    lambda r: {"error": {"code": r.code, "message": r.message}, **({"state": r.state} if r.state else {})},
)
PROBLEM = ErrorShape("application/problem+json", lambda r: {"type": "about:blank", "status": r.status, "code": r.code})


async def assert_refused(response, status: int, code: str) -> None:
    """A quart test response carrying exactly the Bot API error body with `code`."""
    assert response.status_code == status
    assert response.mimetype == "application/json"
    body = json.loads(await response.get_data())
    assert body.keys() == {"error"} and body["error"].keys() == {"code", "message"}
    assert body["error"]["code"] == code and body["error"]["message"]


class Tokens:
    """A token checker: `good` is a registered bot, `anon` an anonymous one."""

    class Account:
        def __init__(self, principal: str, registered: bool):
            self.principal, self.registered = principal, registered

    def authenticate(self, token: str):
        return {"good": self.Account("bot:t/good", True), "anon": self.Account("bot:anon", False)}.get(token)


class StoreDown(Exception):
    pass


def edge_app():
    app = QuartTrio("edge-test")
    install_edge(app, unavailable=(StoreDown,))
    plain = RouteFamily("plain", __name__)
    problems = RouteFamily("problems", __name__, shape=PROBLEM)
    domain = RouteFamily(
        "domain", __name__, shape=STATEFUL, statuses={"seat_taken": 409, "no_such_seat": 404, "too_many_seats": 429},
        headers={"Cache-Control": "no-store"}, retry_after={"too_many_seats": 30},
    )
    tokens = Tokens()

    @plain.post("/echo")
    async def echo():
        body = await json_object()
        reject_unknown_fields(body, {"a"})
        return json_response(body)

    @plain.post("/small")
    @body_limit(16)
    async def small():
        return json_response(await json_object())

    @plain.get("/unavailable")
    async def unavailable():
        raise temporarily_unavailable()

    @plain.get("/me")
    async def me():
        return json_response({"principal": calling_bot(tokens, registered=request.args.get("registered") == "1").principal})

    @plain.get("/boom/<path:rest>")
    async def boom(rest: str):
        raise RuntimeError("a bug")

    @plain.get("/store-down")
    async def store_down():
        raise StoreDown("no connection")

    @problems.get("/problem")
    async def problem():
        raise Refusal(409, "taken", "already taken")

    def malformed(status: int, message: str) -> Refusal:
        return Refusal(status, "malformed_request", message)

    @problems.post("/problem-body")
    async def problem_body():
        body = await json_object(malformed)
        reject_unknown_fields(body, {"a"}, malformed)
        return json_response(body)

    policy = OriginPolicy(frozenset({"https://play.example"}))

    @plain.post("/session-write")
    async def session_write():
        await policy.require_write(Refusal(403, "csrf_origin_rejected", "origin or CSRF header missing"))
        return json_response({"ok": True})

    @domain.get("/domain/<code>")
    async def domain_refuses(code: str):
        raise Refused(code, f"refused: {code}", {"seat": "white"} if code == "seat_taken" else None)

    app.register_blueprint(plain)
    app.register_blueprint(problems)
    app.register_blueprint(domain)
    return app.test_client()


async def test_a_refusal_is_rendered_in_the_default_bot_api_shape_with_its_headers():
    response = await edge_app().get("/unavailable")
    await assert_refused(response, 503, "temporarily_unavailable")
    assert response.headers["Retry-After"] == "5"


async def test_a_route_family_renders_refusals_in_its_own_shape():
    response = await edge_app().get("/problem")
    assert response.status_code == 409
    assert response.mimetype == "application/problem+json"
    assert json.loads(await response.get_data()) == {"type": "about:blank", "status": 409, "code": "taken"}


async def test_a_domain_refusal_gets_its_status_headers_and_shape_from_the_route_family():
    client = edge_app()
    taken = await client.get("/domain/seat_taken")
    assert taken.status_code == 409 and taken.headers["Cache-Control"] == "no-store"
    assert json.loads(await taken.get_data()) == {
        "error": {"code": "seat_taken", "message": "refused: seat_taken"}, "state": {"seat": "white"},
    }
    missing = await client.get("/domain/no_such_seat")
    assert missing.status_code == 404
    assert json.loads(await missing.get_data()) == {"error": {"code": "no_such_seat", "message": "refused: no_such_seat"}}


async def test_a_family_refuses_a_body_it_cannot_take_with_its_own_refusal():
    client = edge_app()
    for data, headers, status in [
        (b"a=1", {"Content-Type": "application/x-www-form-urlencoded"}, 415),
        (b"{nope", {"Content-Type": "application/json"}, 400),
        (b"[1]", {"Content-Type": "application/json"}, 400),
        (b'{"a": 1, "b": 2}', {"Content-Type": "application/json"}, 400),
    ]:
        response = await client.post("/problem-body", data=data, headers=headers)
        assert response.status_code == status and response.mimetype == "application/problem+json"
        assert json.loads(await response.get_data())["code"] == "malformed_request"
    taken = await client.post("/problem-body", data=b'{"a": 1}', headers={"Content-Type": "application/json"})
    assert json.loads(await taken.get_data()) == {"a": 1}


async def test_every_family_answers_a_domain_temporarily_unavailable_503_with_retry_after():
    response = await edge_app().get("/domain/temporarily_unavailable")
    assert response.status_code == 503 and response.headers["Retry-After"] == "5"
    assert response.headers["Cache-Control"] == "no-store"
    assert json.loads(await response.get_data())["error"]["code"] == "temporarily_unavailable"


async def test_a_family_says_when_to_retry_after_the_codes_it_names():
    client = edge_app()
    limited = await client.get("/domain/too_many_seats")
    assert limited.status_code == 429 and limited.headers["Retry-After"] == "30"
    assert "Retry-After" not in (await client.get("/domain/seat_taken")).headers


async def test_a_domain_code_its_family_has_no_status_for_is_a_logged_500(caplog):
    response = await edge_app().get("/domain/unheard_of")
    await assert_refused(response, 500, "internal_error")
    assert "no status for the domain code 'unheard_of'" in caplog.text


async def test_a_body_over_the_routes_own_limit_is_413_and_closes_the_connection():
    client = edge_app()
    response = await client.post("/small", json={"a": "x" * 20})
    await assert_refused(response, 413, "request_too_large")
    assert response.headers["Connection"] == "close"
    fits = await client.post("/small", json={"a": 1})
    assert fits.status_code == 200 and await fits.get_json() == {"a": 1}


async def test_routes_without_a_limit_take_the_default():
    client = edge_app()
    over = await client.post("/echo", data=b" " * (BODY_MAX_DEFAULT + 1), headers={"Content-Type": "application/json"})
    assert over.status_code == 413
    under = await client.post("/echo", data=b" " * BODY_MAX_DEFAULT, headers={"Content-Type": "application/json"})
    assert under.status_code == 200 and await under.get_json() == {}


@pytest.mark.parametrize(
    ("data", "content_type", "status", "code"),
    [
        (b'{"a": 1', "application/json", 400, "invalid_request"),
        (b"[1]", "application/json", 400, "invalid_request"),
        (b"[" * 2000 + b"]" * 2000, "application/json", 400, "invalid_request"),
        (b'{"b": 1}', "application/json", 400, "invalid_request"),
        (b'{"a": 1}', "text/plain", 415, "unsupported_media_type"),
        (b'{"a": NaN}', "application/json", 400, "invalid_request"),
        (b'{"a": -Infinity}', "application/json", 400, "invalid_request"),
    ],
)
async def test_bad_json_bodies_are_client_errors_never_500(data, content_type, status, code):
    response = await edge_app().post("/echo", data=data, headers={"Content-Type": content_type})
    await assert_refused(response, status, code)


async def test_framework_errors_are_json_and_405_names_the_allowed_methods():
    client = edge_app()
    missing = await client.get("/no/such/path")
    await assert_refused(missing, 404, "not_found")
    wrong = await client.delete("/echo")
    await assert_refused(wrong, 405, "method_not_allowed")
    assert "POST" in wrong.headers["Allow"]


async def test_the_bot_caller_needs_a_valid_token_and_registration_where_asked():
    client = edge_app()
    nobody = await client.get("/me")
    await assert_refused(nobody, 401, "unauthorized")
    assert nobody.headers["WWW-Authenticate"].startswith("Bearer")
    wrong = await client.get("/me", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    anon = await client.get("/me?registered=1", headers={"Authorization": "Bearer anon"})
    await assert_refused(anon, 403, "registered_only")
    good = await client.get("/me?registered=1", headers={"Authorization": "bearer good"})
    assert good.status_code == 200 and (await good.get_json())["principal"] == "bot:t/good"


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Origin": "https://play.example", "X-Game-CSRF": "1"}, 200),
        ({"Origin": "https://play.example"}, 403),
        ({"X-Game-CSRF": "1"}, 403),
        ({"Origin": "https://play.example.evil", "X-Game-CSRF": "1"}, 403),
        ({"Origin": "https://play.example", "X-Game-CSRF": "0"}, 403),
    ],
)
async def test_session_writes_need_an_allowed_origin_and_the_csrf_header(headers, status):
    response = await edge_app().post("/session-write", headers=headers)
    assert response.status_code == status
    if status == 403:
        assert (await response.get_json())["error"]["code"] == "csrf_origin_rejected"


def test_without_an_allow_list_no_session_write_is_admitted():
    policy = OriginPolicy()
    assert not policy.configured
    assert not policy.admits_write("https://play.example", "1")
    assert not policy.admits_write(None, "1")


async def test_a_dependency_down_is_503_not_500():
    response = await edge_app().get("/store-down")
    await assert_refused(response, 503, "temporarily_unavailable")
    assert response.headers["Retry-After"] == "5"


async def test_a_bug_is_a_json_500_and_its_log_line_cannot_be_forged_by_the_path(caplog):
    response = await edge_app().get("/boom/x%0dFORGED%1b%5b31m")
    await assert_refused(response, 500, "internal_error")
    [record] = [r for r in caplog.records if r.getMessage().startswith("Exception on request")]
    assert record.getMessage() == "Exception on request GET /boom/x%0DFORGED%1B%5B31m"
    assert record.exc_info is not None and "a bug" not in (await response.get_data(as_text=True))


async def test_the_client_behind_a_trusted_proxy_is_the_one_it_forwarded():
    """Per-address limits count clients: from a PLAY_TRUSTED_PROXIES peer, the address is read
    from X-Forwarded-For, right to left past the trusted hops; from anyone else it is ignored."""
    app = QuartTrio("test")
    install_edge(app, trusted_proxies=("10.0.0.0/8", "127.0.0.1"))

    @app.get("/who")
    async def who():
        return json_response({"address": client_address()})

    client = app.test_client()

    async def address(peer: str, *forwarded: str) -> str:
        headers = [("X-Forwarded-For", value) for value in forwarded]
        answer = await client.get("/who", headers=headers, scope_base={"client": (peer, 40000)})
        return (await answer.get_json())["address"]

    assert await address("10.1.2.3", "203.0.113.9") == "203.0.113.9"
    # a client's own claim on the left is not believed: the proxy's entry on the right is
    assert await address("10.1.2.3", "198.51.100.1, 203.0.113.9") == "203.0.113.9"
    # two trusted proxies in a row, in one header line or two
    assert await address("127.0.0.1", "203.0.113.9, 10.9.9.9") == "203.0.113.9"
    assert await address("127.0.0.1", "203.0.113.9", "10.9.9.9") == "203.0.113.9"
    assert await address("10.1.2.3", "2001:db8::7") == "2001:db8::7"
    # no header, only trusted hops, or an entry that is no address: the proxy itself
    assert await address("10.1.2.3") == "10.1.2.3"
    assert await address("10.1.2.3", "10.4.4.4") == "10.1.2.3"
    assert await address("10.1.2.3", "unknown, 10.4.4.4") == "10.1.2.3"
    # anyone else says what it likes: its own address counts
    assert await address("198.51.100.20", "203.0.113.9") == "198.51.100.20"

    plain = QuartTrio("plain")  # no proxy trusted: the peer, whatever the header
    install_edge(plain)
    plain.get("/who")(who)
    answer = await plain.test_client().get("/who", headers={"X-Forwarded-For": "203.0.113.9"},
                                           scope_base={"client": ("10.1.2.3", 40000)})
    assert (await answer.get_json())["address"] == "10.1.2.3"

