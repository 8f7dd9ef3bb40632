"""Challenges over a real `playsite serve`: create, list, accept, decline, every refusal, and
admission (a bot at capacity gets 409 and the challenge stays pending)."""

from __future__ import annotations

from playsite.lobby.challenges import MAX_PENDING_PER_CHALLENGER
from tests.support.errors import assert_error
from tests.support.lobby_api import ONE_SECOND_MOVES, api, shared_api  # noqa: F401


def test_challenge_answers_201_with_the_challenge_and_target_online(api):
    a, b = api.anon("rustam"), api.anon("emilia")
    response = api.call("POST", "/bot/challenge", a["token"], json={"team": b["team"], "name": b["name"]})
    assert response.status_code == 201
    challenge = response.json()
    assert challenge["id"].startswith("challenge-")
    assert challenge["challenger"] == {"Bot": {"team": "anon", "name": a["name"]}}
    assert challenge["target"] == {"Bot": {"team": "anon", "name": b["name"]}}
    # An omitted time control is Unlimited, as in the anchor.
    assert challenge["timeControl"] == {"Unlimited": {}}
    assert challenge["targetOnline"] is False


def test_challenge_lists_show_in_and_out(api):
    a, b, c = api.anon(), api.anon(), api.anon()
    first = api.challenge(a, b, {"Fischer": {"initialSeconds": 180, "incrementSeconds": 2}})
    second = api.challenge(c, a)
    listed = api.ok("GET", "/bot/challenges", a)
    assert [x["id"] for x in listed["in"]] == [second["id"]]
    assert [x["id"] for x in listed["out"]] == [first["id"]]
    assert listed["out"][0]["timeControl"] == {"Fischer": {"initialSeconds": 180, "incrementSeconds": 2}}
    assert set(listed["out"][0]) == {"id", "challenger", "target", "timeControl"}
    assert api.ok("GET", "/bot/challenges", b) == {"in": [listed["out"][0]], "out": []}


def test_accept_creates_the_game_challenger_white(api):
    a, b = api.anon("rustam"), api.anon("emilia")
    challenge = api.challenge(a, b)
    accepted = api.ok("POST", f"/bot/challenge/{challenge['id']}/accept", b, 201)
    assert set(accepted) == {"gameId"}
    game = api.ok("GET", f"/games/{accepted['gameId']}")
    assert game["players"] == {
        "white": {"kind": "Bot", "name": f"anon {a['name']}"},
        "black": {"kind": "Bot", "name": f"anon {b['name']}"},
    }
    assert game["timeControl"] == {"Unlimited": {}}
    # Accepted challenges leave both lists.
    assert api.ok("GET", "/bot/challenges", a) == {"in": [], "out": []}
    assert api.ok("GET", "/bot/challenges", b) == {"in": [], "out": []}
    assert_error(api.call("POST", f"/bot/challenge/{challenge['id']}/accept", b["token"]), 404, "challenge_not_found")


def test_decline_answers_200_and_removes_the_challenge(api):
    a, b = api.anon(), api.anon()
    challenge = api.challenge(a, b)
    assert api.ok("POST", f"/bot/challenge/{challenge['id']}/decline", b) == {"id": challenge["id"]}
    assert api.ok("GET", "/bot/challenges", a) == {"in": [], "out": []}
    assert_error(api.call("POST", f"/bot/challenge/{challenge['id']}/decline", b["token"]), 404, "challenge_not_found")
    assert_error(api.call("POST", f"/bot/challenge/{challenge['id']}/accept", b["token"]), 404, "challenge_not_found")


def test_only_the_target_may_answer_a_challenge(api):
    a, b, stranger = api.anon(), api.anon(), api.anon()
    challenge = api.challenge(a, b)
    for action in ("accept", "decline"):
        path = f"/bot/challenge/{challenge['id']}/{action}"
        assert_error(api.call("POST", path, a["token"]), 403, "not_yours")
        assert_error(api.call("POST", path, stranger["token"]), 404, "challenge_not_found")
    assert_error(api.call("POST", "/bot/challenge/challenge-nope/accept", b["token"]), 404, "challenge_not_found")
    assert len(api.ok("GET", "/bot/challenges", b)["in"]) == 1


def test_challenging_yourself_is_400(api):
    a = api.anon()
    assert_error(api.call("POST", "/bot/challenge", a["token"], json={"team": a["team"], "name": a["name"]}), 400, "self_challenge")


def test_challenging_an_unknown_bot_is_404(api):
    a = api.anon()
    assert_error(api.call("POST", "/bot/challenge", a["token"], json={"team": "acme", "name": "ghost"}), 404, "bot_not_found")


def test_challenge_bodies_are_checked(shared_api):
    a, b = shared_api.anon(), shared_api.anon()
    target = {"team": b["team"], "name": b["name"]}
    json_type = {"Content-Type": "application/json"}
    cases = [
        ({"json": {"team": b["team"]}}, 400, "invalid_request"),
        ({"json": {"name": b["name"]}}, 400, "invalid_request"),
        ({"json": {"team": 1, "name": b["name"]}}, 400, "invalid_request"),
        ({"json": {**target, "timeControl": {"Fischer": {"initialSeconds": 0, "incrementSeconds": 0}}}}, 400, "invalid_request"),
        ({"json": {**target, "timeControl": {"Blitz": {}}}}, 400, "invalid_request"),
        ({"json": {**target, "timeControl": "Unlimited"}}, 400, "invalid_request"),
        ({"json": [target]}, 400, "invalid_request"),
        ({"content": b"{", "headers": json_type}, 400, "invalid_request"),
        ({}, 400, "invalid_request"),
        ({"content": b"team=a&name=b", "headers": {"Content-Type": "application/x-www-form-urlencoded"}}, 415, "unsupported_media_type"),
        ({"content": b'{"team": "' + b"a" * 5000 + b'"}', "headers": json_type}, 413, "request_too_large"),
    ]
    for kwargs, status, code in cases:
        assert_error(shared_api.call("POST", "/bot/challenge", a["token"], **kwargs), status, code)
    assert shared_api.ok("GET", "/bot/challenges", a) == {"in": [], "out": []}


def test_too_many_pending_challenges_is_429(api):
    a, b = api.anon(), api.anon()
    for _ in range(MAX_PENDING_PER_CHALLENGER):
        api.challenge(a, b)
    response = api.call("POST", "/bot/challenge", a["token"], json={"team": b["team"], "name": b["name"]})
    assert_error(response, 429, "too_many_challenges")
    # Answering one frees a place.
    first = api.ok("GET", "/bot/challenges", b)["in"][0]
    api.ok("POST", f"/bot/challenge/{first['id']}/decline", b)
    api.challenge(a, b)


def test_accept_at_capacity_is_409_and_the_challenge_stays_pending(api):
    busy = api.register("acme", "busy", capacity=1)
    first, second = api.anon(), api.anon()
    # The first game ends by timeout within seconds: nobody moves with one second per move.
    running = api.challenge(first, busy, ONE_SECOND_MOVES)
    api.ok("POST", f"/bot/challenge/{running['id']}/accept", busy, 201)
    assert api.active_games(busy) == 1

    waiting = api.challenge(second, busy)
    refused = api.call("POST", f"/bot/challenge/{waiting['id']}/accept", busy["token"])
    assert_error(refused, 409, "capacity")
    assert [c["id"] for c in api.ok("GET", "/bot/challenges", busy)["in"]] == [waiting["id"]]
    assert [c["id"] for c in api.ok("GET", "/bot/challenges", second)["out"]] == [waiting["id"]]

    api.wait_until_idle(busy)
    accepted = api.ok("POST", f"/bot/challenge/{waiting['id']}/accept", busy, 201)
    assert api.ok("GET", f"/games/{accepted['gameId']}")["players"]["black"]["name"] == "acme busy"
    assert api.ok("GET", "/bot/challenges", busy) == {"in": [], "out": []}


def test_a_challenger_at_capacity_also_blocks_the_accept(api):
    busy = api.register("acme", "busy", capacity=1)
    opponent, target = api.anon(), api.anon()
    running = api.challenge(busy, opponent)
    api.ok("POST", f"/bot/challenge/{running['id']}/accept", opponent, 201)
    waiting = api.challenge(busy, target)
    assert_error(api.call("POST", f"/bot/challenge/{waiting['id']}/accept", target["token"]), 409, "capacity")
    assert [c["id"] for c in api.ok("GET", "/bot/challenges", target)["in"]] == [waiting["id"]]
