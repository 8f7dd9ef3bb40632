"""The published API descriptions (specs/openapi.yaml, specs/asyncapi.yaml) are valid, complete
and true.

- valid: openapi.yaml passes openapi-spec-validator with its relative `wire/...` references
  resolved; every reference in asyncapi.yaml resolves, and its operations use their channel's
  messages;
- complete: every route the quart app registers is documented with its method, every
  documented path exists, and every error code the source can produce is documented;
- true: real answers of a running server, real ndjson lines and real WebSocket frames validate
  against the documented schemas, and so do the wire codecs' examples.

PyYAML comes with openapi-spec-validator (a test dependency); the server never parses YAML.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import random
import re
import time
import uuid

import httpx
import pytest
import trio
import yaml
from openapi_spec_validator import validate as validate_openapi
from quart_trio import QuartTrio
from trio_websocket import ConnectionRejected, open_websocket_url

from playsite import wire
from playsite.accounts.routes import account_routes
from playsite.app import create_app
from playsite.bots.refusals import BOT_API_STATUSES
from playsite.config import Settings
from playsite.http.edge import install_edge
from playsite.http.errors import EDGE_STATUSES
from playsite.specs_routes import specs_routes
from playsite.webhooks.management_routes import management_routes
from tests.support.app import booted
from tests.support.documented import ASYNCAPI_PATH, OPENAPI_PATH, ROOT, SPECS, Documented, pointer, wire_documents
from tests.support.receiver import WebhookReceiver, echo
from tests.support.turns import random_turn
from tests.support.waiting import deadline
from tests.wire import examples

HTTP_METHODS = {"get", "put", "post", "delete", "patch"}
FRAMEWORK_ENDPOINTS = {
    "static": "Quart's built-in /static/<filename>; playsite ships no static folder, so it answers 404 to all",
}
PUBLIC_BOT_OPERATIONS = {("post", "/bot/anon"), ("post", "/bot/register")}
"""The only /bot/... operations without a bearer token: they hand tokens out."""
DECLINED_OPERATIONS = {("post", "/ingest/games")}
"""The ecosystem site's calls playsite serves only to decline them (docs/bots/compatibility.md): no success answer."""

SERVER_FRAMES = ["Snapshot", "DiceRolled", "TurnPlayed", "DrawDeclined", "GameEnded", "Rejected", "Error"]
COMMANDS = ["SubmitTurn", "SubmitSeed", "Resign", "AnswerDraw"]
ACCOUNT_EVENTS = ["ChallengeReceived", "ChallengeDeclined", "GameStart"]
WEBHOOK_MESSAGES = ["Verification", "VerificationEcho", "YourTurn", "TurnAnswer"]
EVERY_MESSAGE = SERVER_FRAMES + COMMANDS + ACCOUNT_EVENTS + ["KeepAlive"] + WEBHOOK_MESSAGES



# ----- loading and resolving ---------------------------------------------------------------------


def template(path: str) -> str:
    """A route with its parameter names erased: /games/<game_id>/ws and /games/{id}/ws -> /games/{}/ws."""
    path = re.sub(r"<(?:[^<>:]+:)?[^<>]+>", "{}", path)
    return re.sub(r"\{[^{}]+\}", "{}", path)


@pytest.fixture(scope="module")
def documented() -> Documented:
    return Documented()


@contextlib.asynccontextmanager
async def booted_app(settings: Settings | None = None):
    """The app as `server.main` builds it, booted on the memory store."""
    async with booted(settings) as services:
        app = create_app(services)
        app.services = services
        yield app


def walk(node, path=()):
    """Every (path, key, value) of a parsed document."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield path, key, value
            yield from walk(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, path + (index,))


# ----- valid ----------------------------------------------------------------------------------------


def test_openapi_is_a_valid_openapi_3_1_document_with_its_wire_references_resolved(documented):
    assert documented.openapi["openapi"].startswith("3.1.")
    validate_openapi(documented.openapi, base_uri=OPENAPI_PATH.as_uri())


def test_every_reference_in_both_documents_resolves(documented):
    wire_files = wire_documents()
    for name, document in (("openapi.yaml", documented.openapi), ("asyncapi.yaml", documented.asyncapi)):
        refs = [value for _, key, value in walk(document) if key == "$ref"]
        assert refs, name
        for ref in refs:
            target, _, fragment = ref.partition("#")
            if not target:
                documented.resolve_local(document, ref)
                continue
            assert target.startswith("wire/") and target.removeprefix("wire/") in wire_files, f"{name}: {ref}"
            if fragment:
                documented.resolve_local(wire_files[target.removeprefix("wire/")], "#" + fragment)


def test_asyncapi_is_an_asyncapi_3_document_listing_every_message(documented):
    doc = documented.asyncapi
    assert doc["asyncapi"].startswith("3.")
    assert {"title", "version"} <= set(doc["info"])
    messages = doc["components"]["messages"]
    assert sorted(messages) == sorted(EVERY_MESSAGE)
    for name, message in messages.items():
        assert message["name"] == name and "payload" in message, name
    channels = doc["channels"]
    socket = {documented.resolve_local(doc, m["$ref"])["name"] for m in channels["gameSocket"]["messages"].values()}
    assert socket == set(SERVER_FRAMES + COMMANDS)
    account = {documented.resolve_local(doc, m["$ref"])["name"] for m in channels["accountEvents"]["messages"].values()}
    assert account == set(ACCOUNT_EVENTS + ["KeepAlive"])
    game = {documented.resolve_local(doc, m["$ref"])["name"] for m in channels["gameStream"]["messages"].values()}
    assert game == set(SERVER_FRAMES) - {"Error"} | {"KeepAlive"}
    hook = {documented.resolve_local(doc, m["$ref"])["name"] for m in channels["webhook"]["messages"].values()}
    assert hook == set(WEBHOOK_MESSAGES)
    assert channels["gameSocket"]["address"] == "/games/{id}/ws"
    assert channels["accountEvents"]["address"] == "/bot/stream/event"
    assert channels["gameStream"]["address"] == "/bot/game/stream/{id}"


def test_asyncapi_operations_use_their_own_channels_messages(documented):
    doc = documented.asyncapi
    used = set()
    for name, operation in doc["operations"].items():
        assert operation["action"] in ("send", "receive"), name
        for part in (operation, operation.get("reply")):
            if part is None:
                continue
            channel = part["channel"]["$ref"]
            assert part["messages"], name
            for message in part["messages"]:
                assert message["$ref"].startswith(channel + "/messages/"), f"{name}: {message['$ref']} not of {channel}"
                documented.resolve_local(doc, message["$ref"])
                used.add(message["$ref"])
    every = {f"#/channels/{c}/messages/{m}" for c, channel in doc["channels"].items() for m in channel["messages"]}
    assert every == used, f"channel messages no operation sends or receives: {sorted(every - used)}"
    actions = {name: op["action"] for name, op in doc["operations"].items()}
    assert actions["receiveCommands"] == "receive"
    assert all(action == "send" for name, action in actions.items() if name != "receiveCommands")


def test_asyncapi_payloads_accept_the_wire_codecs_examples(documented):
    for event in examples.EVENTS.values():
        documented.check_line(wire.encode_event(event))
    for command in examples.COMMANDS.values():
        documented.check_line(wire.encode_command(command))
    documented.check_line(wire.encode_error('SubmitTurn.moves[1] "e2e9" is not a UCI move'))


def test_asyncapi_and_openapi_examples_match_their_own_schemas(documented):
    for name, message in documented.asyncapi["components"]["messages"].items():
        for example in message.get("examples", []):
            documented.check_message(name, example["payload"])


# ----- complete ---------------------------------------------------------------------------------------


async def test_every_app_route_is_documented_and_every_documented_route_is_served(documented):
    async with booted_app(Settings(showcase_enabled=True, showcase_bot="acme/star", metrics_token="t")) as app:
        # Sign-in needs PostgreSQL and a provider to be mounted, and bot management (/me, /admin)
        # needs sign-in and PLAY_CORS_ORIGINS as well; their routes are listed all the same.
        services = app.services
        app.register_blueprint(account_routes(services.accounts, services.origins, services.registry))
        for authority in ("owner", "admin"):
            app.register_blueprint(management_routes(None, services.accounts, services.origins, authority))
    served = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint in FRAMEWORK_ENDPOINTS:
            continue
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            served.add((method.lower(), template(rule.rule)))
    documented_routes = {
        (method, template(path))
        for path, item in documented.openapi["paths"].items()
        for method in item
        if method in HTTP_METHODS
    }
    assert not served - documented_routes, f"served but not in openapi.yaml: {sorted(served - documented_routes)}"
    assert not documented_routes - served, f"in openapi.yaml but not served: {sorted(documented_routes - served)}"


def test_the_framework_static_route_serves_nothing():
    """Why FRAMEWORK_ENDPOINTS may skip `static`: there is nothing under it to document."""
    assert not (ROOT / "playsite" / "static").exists(), "static files are served now: document /static/{filename}"


def test_bearer_security_exactly_on_the_bot_api(documented):
    schemes = documented.openapi["components"]["securitySchemes"]
    assert schemes["botToken"] == {**schemes["botToken"], "type": "http", "scheme": "bearer"}
    assert documented.openapi.get("security", []) == []
    for path, item in documented.openapi["paths"].items():
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            bearer = operation.get("security", []) == [{"botToken": []}]
            wanted = path.startswith("/bot/") and (method, path) not in PUBLIC_BOT_OPERATIONS
            assert bearer == wanted, f"{method.upper()} {path}: security {operation.get('security')}"
            if bearer or operation.get("security") == [{"session": []}]:
                assert "401" in operation["responses"], f"{method.upper()} {path} needs a 401"
            succeeds = any(s.startswith(("2", "3")) or s == "101" for s in operation["responses"])
            assert succeeds != ((method, path) in DECLINED_OPERATIONS), f"{method.upper()} {path}"


ANY_REQUEST_ERRORS = {"NoSuchRoute": 404, "MethodNotAllowed": 405, "BodyOverServerLimit": 413, "ServerFault": 500}
"""Answers the app may give to any request (components/responses), with their statuses."""


def error_codes(response: dict) -> list[str]:
    content = response.get("content", {})
    codes = []
    for part in content.get("application/json", {}).get("schema", {}).get("allOf", []):
        codes += part.get("properties", {}).get("error", {}).get("properties", {}).get("code", {}).get("enum", [])
    for part in content.get("application/problem+json", {}).get("schema", {}).get("allOf", []):
        codes += part.get("properties", {}).get("code", {}).get("enum", [])
    return codes


def documented_error_codes(documented) -> set[tuple[int, str]]:
    pairs = set()
    for path, item in documented.openapi["paths"].items():
        for method in (m for m in item if m in HTTP_METHODS):
            for status in item[method]["responses"]:
                _, response = documented.response(method, path, int(status))
                pairs.update((int(status), code) for code in error_codes(response))
    responses = documented.openapi["components"]["responses"]
    for name, status in ANY_REQUEST_ERRORS.items():
        pairs.update((status, code) for code in error_codes(responses[name]))
    return pairs


REFUSAL_FACTORIES = {
    "temporarily_unavailable": (503, "temporarily_unavailable"),
    "too_large": (413, "request_too_large"),
    "rate_limited": (429, "rate_limited"),
    "invalid_request": (400, "invalid_request"),
    "game_not_found": (404, "game_not_found"),
    "malformed": (400, "malformed_request"),
}
"""The refusals `playsite.http.errors` and `playsite.games.refusals` build, by factory name."""


def source_error_codes() -> set[tuple[int, str]]:
    """(status, code) of every error the package source can answer with."""
    statuses = {**EDGE_STATUSES, **BOT_API_STATUSES}
    pairs = {(status, code) for code, status in statuses.items()}
    for path in (ROOT / "playsite").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        pairs.update((int(s), c) for s, c in re.findall(r'(?:Refusal|problem)\(\s*(\d{3}),\s*"([a-z_]+)"', text))
        for factory, pair in REFUSAL_FACTORIES.items():
            if re.search(rf"\b{factory}\(", text):
                pairs.add(pair)
        for code in re.findall(r'(?:Refused|IdentityError)\(\s*"([a-z_]+)"', text):
            if code in statuses:  # the Bot API's codes; other families' tables are their own
                pairs.add((statuses[code], code))
        pairs.update((422, code) for code in re.findall(r'RegistrationRefused\(\s*"([a-z_]+)"', text))
        for table in re.findall(r"^[A-Z_]*STATUSES = \{\n(.*?)^\}", text, re.M | re.S):  # a route family's statuses=
            pairs.update((int(s), c) for c, s in re.findall(r'"([a-z_]+)": (\d{3})', table))
    return pairs


def test_every_error_code_the_source_produces_is_documented_with_its_status(documented):
    in_source = source_error_codes()
    assert len(in_source) > 20  # the scan found the codes (guards against a silently broken regex)
    missing = in_source - documented_error_codes(documented)
    assert not missing, f"error (status, code) pairs the code answers but openapi.yaml does not list: {sorted(missing)}"


# ----- served ------------------------------------------------------------------------------------------


async def test_the_specs_routes_serve_the_files_cacheably(documented):
    async with booted_app() as app:
        client = app.test_client()
    for path, file, media in [
        ("/openapi.yaml", OPENAPI_PATH, "application/yaml"),
        ("/specs/openapi.yaml", OPENAPI_PATH, "application/yaml"),
        ("/asyncapi.yaml", ASYNCAPI_PATH, "application/yaml"),
        ("/specs/asyncapi.yaml", ASYNCAPI_PATH, "application/yaml"),
        ("/specs/wire/time-control.schema.json", SPECS / "wire" / "time-control.schema.json", "application/schema+json"),
    ]:
        response = await client.get(path)
        body = await response.get_data()
        assert response.status_code == 200, path
        assert response.headers["Content-Type"] == media, path
        assert response.headers["Cache-Control"] == "public, max-age=300", path
        assert body == file.read_bytes(), path
        route = path if not path.startswith("/specs/wire/") else "/specs/wire/{name}.schema.json"
        documented.check("get", route, 200, response.headers["Content-Type"], body)
        again = await client.get(path, headers={"If-None-Match": response.headers["ETag"]})
        assert again.status_code == 304 and await again.get_data() == b"", path
        documented.check("get", route, 304, None, b"")
    missing = await client.get("/specs/wire/no-such.schema.json")
    documented.check("get", "/specs/wire/{name}.schema.json", 404, missing.headers["Content-Type"], await missing.get_data())


async def test_wire_references_resolve_over_http_beside_the_documents(documented):
    """Fetched from /specs/<document>, every relative `wire/...` reference is served."""
    async with booted_app() as app:
        client = app.test_client()
    for document in (documented.openapi, documented.asyncapi):
        targets = {value.partition("#")[0] for _, key, value in walk(document) if key == "$ref"} - {""}
        for target in targets:
            for base in ("/specs/", "/"):  # beside /specs/openapi.yaml, and beside /openapi.yaml (the page's link)
                response = await client.get(f"{base}{target}")
                assert response.status_code == 200, f"{base}{target}"
            json.loads(await response.get_data())


async def test_a_checkout_without_specs_answers_404(tmp_path, documented):
    app = QuartTrio("playsite")
    install_edge(app)
    app.register_blueprint(specs_routes(tmp_path))
    response = await app.test_client().get("/openapi.yaml")
    documented.check("get", "/openapi.yaml", 404, response.headers["Content-Type"], await response.get_data())


def test_playsite_serve_serves_the_specs(serve):
    server = serve()
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        response = http.get("/openapi.yaml")
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/yaml"
        assert yaml.safe_load(response.text)["openapi"].startswith("3.1.")
        assert http.get("/specs/wire/public-game-state.schema.json").status_code == 200


# ----- true: a running server's answers ----------------------------------------------------------------


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_real_answers_of_a_running_server_match_openapi(serve, documented):
    server = serve()
    with httpx.Client(base_url=server.base_url, timeout=10) as http:

        def call(method: str, route: str, url: str | None = None, **kwargs) -> httpx.Response:
            response = http.request(method.upper(), url or route, **kwargs)
            documented.check_http(method, route, response)
            return response

        health = call("get", "/health")
        assert health.status_code == 200 and health.json()["store"]["kind"] == "memory"
        assert call("get", "/version").status_code == 200

        created = call("post", "/games", json={"timeControl": {"SuddenDeath": {"initialSeconds": 300}}})
        assert created.status_code == 201
        game_id = created.json()["gameId"]
        assert call("post", "/games").status_code == 201  # no body: the defaults
        assert call("get", "/games/{id}", f"/games/{game_id}").status_code == 200
        assert call("get", "/games/{id}/moves", f"/games/{game_id}/moves").status_code == 200
        assert call("get", "/games").json()["total"] == 2
        assert call("get", "/games/{id}", f"/games/{uuid.uuid4()}").json()["error"]["code"] == "game_not_found"
        assert call("get", "/games/{id}/history", f"/games/{game_id}/history").status_code == 404
        assert call("get", "/games/{id}/history", "/games/not-a-uuid/history").status_code == 404
        assert call("post", "/games", json={"colour": "White"}).status_code == 400
        assert call("post", "/games", content=b"rated", headers={"Content-Type": "text/plain"}).status_code == 415
        # On a connection of its own: nothing after it depends on how the server treats a
        # connection once it refused a body.
        for method, route in [("post", "/games"), ("post", "/bot/anon"), ("get", "/bot/account"),
                              ("post", "/bot/game/{id}/seed"), ("post", "/lobby/play-bot")]:
            with httpx.Client(base_url=server.base_url, timeout=10) as once:
                oversize = once.request(method.upper(), route.replace("{id}", game_id), content=b"{" * 5000,
                                        headers={"Content-Type": "application/json"})
                documented.check_http(method, route, oversize)
                assert oversize.status_code == 413, route

        anon = call("post", "/bot/anon", params={"name": "specs"})
        assert anon.status_code == 201
        token = anon.json()["token"]
        assert call("post", "/bot/anon", params={"name": "!!!"}).status_code == 400
        refused = call("get", "/bot/account")
        assert refused.status_code == 401 and refused.headers["WWW-Authenticate"].startswith("Bearer")
        assert call("get", "/bot/account", headers=bearer("wrong")).status_code == 401
        assert call("get", "/bot/account", headers=bearer(token)).json()["team"] == "anon"
        assert call("get", "/bot/capacity", headers=bearer(token)).status_code == 403
        assert call("post", "/bot/token", headers=bearer(token)).status_code == 403
        assert call("get", "/bot/games", headers=bearer(token)).json() == {"games": []}
        assert call("get", "/bot/challenges", headers=bearer(token)).status_code == 200
        assert call("post", "/bot/game/{id}/move", f"/bot/game/{game_id}/move", headers=bearer(token),
                    json={"moves": ["e2e4"]}).status_code == 404
        assert call("get", "/bot/game/stream/{id}", f"/bot/game/stream/{uuid.uuid4()}",
                    headers=bearer(token)).status_code == 404
        assert call("get", "/bot/stream/event").status_code == 401

        seek = call("post", "/bot/seeks", headers=bearer(token), json={})
        assert seek.status_code == 201
        seek_id, secret = seek.json()["seekId"], seek.json()["secret"]
        assert [s["id"] for s in call("get", "/lobby/seeks").json()] == [seek_id]
        assert call("get", "/lobby/seeks/{id}", f"/lobby/seeks/{seek_id}", params={"secret": secret}).json() == {
            "matched": False
        }
        assert call("get", "/lobby/seeks/{id}", f"/lobby/seeks/{seek_id}").status_code == 403
        assert call("post", "/bot/seeks/{id}/accept", f"/bot/seeks/{seek_id}/accept", headers=bearer(token)).status_code == 400
        assert call("delete", "/lobby/seeks/{id}", f"/lobby/seeks/{seek_id}", params={"secret": secret}).status_code == 204
        assert call("delete", "/lobby/seeks/{id}", f"/lobby/seeks/{seek_id}", params={"secret": secret}).status_code == 404
        assert call("post", "/lobby/accept", json={"guestId": str(uuid.uuid4()), "seekId": seek_id}).status_code == 404
        assert call("post", "/lobby/play-bot", json={"guestId": "me"}).status_code == 400

        team = f"specs-{uuid.uuid4().hex[:8]}"
        registered = call("post", "/bot/register", json={"team": team, "name": "bot"})
        assert registered.status_code == 201
        assert call("post", "/bot/register", json={"team": team, "name": "bot"}).status_code == 409
        mine = bearer(registered.json()["token"])
        assert call("post", "/bot/capacity", headers=mine, json={"maxConcurrentGames": 2}).status_code == 200
        assert call("post", "/bot/capacity", headers=mine, json={"maxConcurrentGames": 99}).status_code == 400
        assert call("get", "/bot/capacity", headers=mine).json()["maxConcurrentGames"] == 2
        assert call("post", "/bot/ladder/join", headers=mine).json()["onLadder"] is True
        assert call("post", "/bot/ladder/leave", headers=mine).json()["onLadder"] is False
        assert call("post", "/bot/open-to-humans", headers=mine, json={"description": "plays fast"}).status_code == 200
        assert [b["team"] for b in call("get", "/lobby/bots").json()["bots"]] == [team]
        assert call("post", "/lobby/play-bot", json={
            "guestId": str(uuid.uuid4()), "team": team, "name": "bot", "timeControl": {"Unlimited": {}},
        }).status_code == 400
        play = call("post", "/lobby/play-bot", json={
            "guestId": str(uuid.uuid4()), "team": team, "name": "bot",
            "timeControl": {"Fischer": {"initialSeconds": 60, "incrementSeconds": 0}}, "preferredColor": "Black",
        })
        assert play.status_code == 201 and play.json()["seat"] == "Black"
        assert call("post", "/bot/open-to-humans/leave", headers=mine).json()["openToHumans"] is False
        assert call("get", "/bot/webhook/stats", headers=mine).status_code == 200
        assert call("get", "/bot/webhook", headers=bearer(token)).status_code == 403
        # WEBHOOK_PUSH_ENABLED is off by default.
        assert call("get", "/bot/webhook", headers=mine).json()["error"]["code"] == "webhooks_disabled"
        # On a connection of its own, as above: the 503 comes before the route reads the body.
        with httpx.Client(base_url=server.base_url, timeout=10) as once:
            disabled = once.post("/bot/webhook", headers=mine, json={"url": "https://example.org/"})
            documented.check_http("post", "/bot/webhook", disabled)
            assert disabled.status_code == 503
        assert call("delete", "/bot/webhook", headers=mine).status_code == 503

        challenge = call("post", "/bot/challenge", headers=bearer(token), json={"team": team, "name": "bot"})
        assert challenge.status_code == 201
        challenge_id = challenge.json()["id"]
        assert call("post", "/bot/challenge", headers=bearer(token), json={"team": team, "name": "nobody"}).status_code == 404
        assert call("post", "/bot/challenge/{id}/accept", f"/bot/challenge/{challenge_id}/accept",
                    headers=bearer(token)).status_code == 403
        assert call("get", "/bot/challenges", headers=mine).json()["in"][0]["id"] == challenge_id
        assert call("post", "/bot/challenge/{id}/decline", f"/bot/challenge/{challenge_id}/decline",
                    headers=mine).json() == {"id": challenge_id}
        assert call("post", "/bot/challenge/{id}/decline", f"/bot/challenge/{challenge_id}/decline",
                    headers=mine).status_code == 404
        assert call("post", "/bot/token", headers=mine).status_code == 200


def dice_to_play(event: dict) -> tuple[str, dict | None] | None:
    """(seat, tree or None when not inlined) if the event leaves a seat with dice to play."""
    if "DiceRolled" in event:
        rolled = event["DiceRolled"]
        return None if rolled["legalMoves"] == {} else (rolled["seat"], rolled["legalMoves"])
    if "Snapshot" in event:
        state = event["Snapshot"]["state"]
        if "Active" in state["status"] and state["dicePending"] and state["legalMoves"] != {}:
            return state["activeSeat"], state["legalMoves"]
    return None


async def test_real_stream_lines_match_asyncapi(serve, documented):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    rng = random.Random(7)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:

        async def call(method: str, route: str, url: str | None = None, **kwargs) -> httpx.Response:
            response = await http.request(method.upper(), url or route, **kwargs)
            documented.check_http(method, route, response)
            return response

        tokens = {}
        for seat in ("White", "Black"):
            tokens[seat] = (await call("post", "/bot/anon", params={"name": seat.lower()})).json()
        white, black = bearer(tokens["White"]["token"]), bearer(tokens["Black"]["token"])

        async def next_line(lines, *, skip_blank=True) -> str:
            with trio.fail_after(10):
                async for line in lines:
                    if line or not skip_blank:
                        return line
            raise AssertionError("the stream ended")

        seen = []
        async with http.stream("GET", "/bot/stream/event", headers=white) as white_stream, \
                http.stream("GET", "/bot/stream/event", headers=black) as black_stream:
            for stream in (white_stream, black_stream):
                documented.check("get", "/bot/stream/event", stream.status_code, stream.headers["content-type"], b"")
            white_lines, black_lines = white_stream.aiter_lines(), black_stream.aiter_lines()
            seen.append(documented.check_line(await next_line(white_lines, skip_blank=False)))
            seen.append(documented.check_line(await next_line(black_lines, skip_blank=False)))

            body = {"team": "anon", "name": tokens["Black"]["name"]}
            first = (await call("post", "/bot/challenge", headers=white, json=body)).json()
            seen.append(documented.check_line(await next_line(black_lines)))
            await call("post", "/bot/challenge/{id}/decline", f"/bot/challenge/{first['id']}/decline", headers=black)
            seen.append(documented.check_line(await next_line(white_lines)))

            second = (await call("post", "/bot/challenge", headers=white, json=body)).json()
            seen.append(documented.check_line(await next_line(black_lines)))
            accepted = await call("post", "/bot/challenge/{id}/accept", f"/bot/challenge/{second['id']}/accept",
                                  headers=black)
            game_id = accepted.json()["gameId"]
            for lines in (white_lines, black_lines):
                seen.append(documented.check_line(await next_line(lines)))
        assert seen == ["KeepAlive", "KeepAlive", "ChallengeReceived", "ChallengeDeclined", "ChallengeReceived",
                        "GameStart", "GameStart"]

        games = (await call("get", "/bot/games", headers=white)).json()["games"]
        assert [g["gameId"] for g in games] == [game_id]
        seats = {"White": white, "Black": black}
        names = []
        async with http.stream("GET", f"/bot/game/stream/{game_id}", headers=white) as game_stream:
            documented.check("get", "/bot/game/stream/{id}", game_stream.status_code,
                             game_stream.headers["content-type"], b"")
            lines = game_stream.aiter_lines()
            played = resigned = False
            with trio.fail_after(30):
                while "GameEnded" not in names:
                    line = await next_line(lines)
                    names.append(documented.check_line(line))
                    event = json.loads(line)
                    if names == ["Snapshot"]:
                        # With no seed window the opening roll may precede the stream; seeds are
                        # ignored then, and still answered 202.
                        for seat in seats:
                            seed = await call("post", "/bot/game/{id}/seed", f"/bot/game/{game_id}/seed",
                                              headers=seats[seat], json={"seed": f"{seat} seed for the spec test"})
                            assert seed.status_code == 202
                    turn = dice_to_play(event)
                    if turn is not None and not played:
                        played = True
                        seat, tree = turn
                        if tree is None:
                            tree = (await call("get", "/games/{id}/moves", f"/games/{game_id}/moves")).json()["legalMoves"]
                        moves = random_turn(tree, rng)
                        verdict = await call("post", "/bot/game/{id}/move", f"/bot/game/{game_id}/move",
                                             headers=seats[seat], json={"moves": moves})
                        assert verdict.status_code in (200, 202), verdict.text
                        # White again, with those moves: refused (not its turn, or not its pieces), so
                        # the game's streams (this one included) hear Rejected.
                        refusal = await call("post", "/bot/game/{id}/move", f"/bot/game/{game_id}/move",
                                             headers=white, json={"moves": moves})
                        assert refusal.status_code == 409, refusal.text
                    if played and {"TurnPlayed", "DiceRolled"} <= set(names) and not resigned:
                        resigned = True
                        resign = await call("post", "/bot/game/{id}/resign", f"/bot/game/{game_id}/resign",
                                            headers=white)
                        assert resign.status_code == 202
        assert names[0] == "Snapshot" and {"DiceRolled", "TurnPlayed", "Rejected", "GameEnded"} <= set(names)
        await call("get", "/games/{id}", f"/games/{game_id}")
        with deadline(10, "the ended game's history to be archived"):
            while (await http.get(f"/games/{game_id}/history")).status_code != 200:
                await trio.sleep(0.05)
        await call("get", "/games/{id}/history", f"/games/{game_id}/history")


async def test_real_socket_frames_and_handshake_refusals_match_the_documents(serve, documented):
    server = serve()
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        game = (await http.post("/games", json={})).json()
    game_id = game["gameId"]

    async def refused(path: str, status: int) -> bytes:
        with pytest.raises(ConnectionRejected) as rejected:
            async with open_websocket_url(server.ws_url + path):
                pass
        answer = rejected.value
        assert answer.status_code == status, path
        content_type = dict((k.decode().lower(), v.decode()) for k, v in answer.headers).get("content-type")
        documented.check("get", "/games/{id}/ws", status, content_type, answer.body)
        return answer.body

    await refused(f"/games/{uuid.uuid4()}/ws?mode=spectator", 404)
    await refused(game["seats"]["black"]["wsUrl"], 400)  # a seat nobody holds yet: who sits?
    await refused(f"/games/{game_id}/ws?token=wrong&guest={uuid.uuid4()}", 403)
    malformed = await refused(game["seats"]["white"]["wsUrl"] + "&guest=not-a-uuid", 400)
    assert b"guest must be a UUID" in malformed, malformed  # named as malformed, not as missing
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        plain = await http.get(f"/games/{game_id}/ws")  # no WebSocket upgrade
    documented.check("get", "/games/{id}/ws", plain.status_code, plain.headers["content-type"], plain.content)
    assert plain.status_code == 426 and plain.headers["upgrade"] == "websocket"

    with trio.fail_after(20):
        async with open_websocket_url(server.ws_url + game["spectatorWsUrl"]) as spectator:
            assert documented.check_line(await spectator.get_message()) == "Snapshot"
            await spectator.send_message(wire.encode_command(wire.Resign()))
            assert documented.check_line(await spectator.get_message()) == "Error"
        guest = uuid.uuid4()
        async with open_websocket_url(server.ws_url + game["seats"]["white"]["wsUrl"] + f"&guest={guest}") as seat:
            assert documented.check_line(await seat.get_message()) == "Snapshot"
            await seat.send_message('{"SubmitTurn": {"moves": ["e2e9"]}}')
            assert documented.check_line(await seat.get_message()) == "Error"
            await seat.send_message(wire.encode_command(wire.AnswerDraw(True)))
            assert documented.check_line(await seat.get_message()) == "Rejected"
        await refused(game["seats"]["white"]["wsUrl"] + f"&guest={uuid.uuid4()}", 403)  # seat_taken


async def test_answers_any_request_may_get_match_their_components(documented):
    async with booted_app() as app:
        client = app.test_client()
    responses = documented.openapi["components"]["responses"]
    for name, method, path in [("NoSuchRoute", "GET", "/games/no/such/path"), ("MethodNotAllowed", "PUT", "/games")]:
        response = await client.open(path, method=method)
        assert response.status_code == ANY_REQUEST_ERRORS[name], (name, response.status_code)
        where = pointer("components", "responses", name, "content", "application/json", "schema")
        body = json.loads(await response.get_data())
        documented.validator(f"{OPENAPI_PATH.as_uri()}#{where}").validate(body)
        assert responses[name]["content"].keys() == {response.mimetype}


# ----- true: webhook push --------------------------------------------------------------------------


def test_real_webhook_posts_match_asyncapi(serve, documented):
    server = serve({"WEBHOOK_PUSH_ENABLED": "true", "WEBHOOK_ALLOW_LOOPBACK": "true", "DICE_SEED_WINDOW_MS": "0"})
    with httpx.Client(base_url=server.base_url, timeout=15) as http, WebhookReceiver(seed=11) as hook:

        def call(method: str, route: str, url: str | None = None, **kwargs) -> httpx.Response:
            response = http.request(method.upper(), url or route, **kwargs)
            documented.check_http(method, route, response)
            return response

        team = f"hook-{uuid.uuid4().hex[:8]}"
        mine = bearer(call("post", "/bot/register", json={"team": team, "name": "bot"}).json()["token"])
        assert call("get", "/bot/webhook", headers=mine).status_code == 404
        registered = call("post", "/bot/webhook", headers=mine, json={"url": hook.url()})
        assert registered.status_code == 201, registered.text
        secret = registered.json()["secret"]
        assert call("get", "/bot/webhook", headers=mine).json()["url"] == hook.url()
        refused = call("post", "/bot/webhook", headers=mine, json={"url": "ftp://example.org/"})
        assert refused.json()["error"]["code"] == "url_policy"

        other = call("post", "/bot/anon", params={"name": "other"}).json()
        theirs = bearer(other["token"])
        challenge = call("post", "/bot/challenge", headers=mine, json={"team": "anon", "name": other["name"]}).json()
        game_id = call("post", "/bot/challenge/{id}/accept", f"/bot/challenge/{challenge['id']}/accept",
                       headers=theirs).json()["gameId"]
        deadline = time.monotonic() + 30
        rng = random.Random(5)
        while not hook.of_kind("yourTurn"):
            assert time.monotonic() < deadline, "no yourTurn delivery"
            for game in call("get", "/bot/games", headers=theirs).json()["games"]:
                if game["dicePending"] and game["activeSeat"] == game["seat"]:  # the other bot plays by polling
                    tree = call("get", "/games/{id}/moves", f"/games/{game_id}/moves").json()["legalMoves"]
                    moves = random_turn(tree, rng)
                    call("post", "/bot/game/{id}/move", f"/bot/game/{game_id}/move", headers=theirs, json={"moves": moves})
            time.sleep(0.05)
        while not call("get", "/bot/webhook/stats", headers=mine).json()["last24h"]["totalDeliveries"]:
            assert time.monotonic() < deadline, "the delivery was not counted"
            time.sleep(0.05)
        assert call("post", "/bot/game/{id}/resign", f"/bot/game/{game_id}/resign", headers=theirs).status_code == 202
        assert call("delete", "/bot/webhook", headers=mine).status_code == 204

    kinds = []
    for seen in hook.seen:
        message = seen.json
        name = {"verification": "Verification", "yourTurn": "YourTurn"}[message["type"]]
        kinds.append(name)
        documented.check_message(name, message)
        header_schema = documented.asyncapi["components"]["messages"][name]["headers"]
        canonical = {key.lower(): key for key in header_schema["properties"]}
        headers = {canonical.get(key, key): value for key, value in seen.headers.items()}
        documented.validator_for(header_schema).validate(headers)
        reply = {"Verification": "VerificationEcho", "YourTurn": "TurnAnswer"}[name]
        documented.check_message(reply, json.loads(echo(seen).body) if name == "Verification" else {"moves": []})
        if name == "Verification":  # the unsigned verification echo
            assert "X-DiceChess-Signature" not in headers and "X-DiceChess-Timestamp" not in headers
            continue
        # Every delivery is signed with the registration's secret.
        signed = headers["X-DiceChess-Timestamp"].encode() + b"." + seen.body
        expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(expected, headers["X-DiceChess-Signature"]), name
    assert kinds[0] == "Verification" and "YourTurn" in kinds
