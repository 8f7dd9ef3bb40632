"""Seeks over a real `playsite serve`: post, public list, poll and cancel with the secret, bot
and guest accepts, the open-seek cap, and admission (409 keeps the seek open)."""

from __future__ import annotations

from playsite.lobby.seeks import MAX_OPEN_SEEKS_PER_BOT
from tests.support.errors import assert_error
from tests.support.lobby_api import CLOCKED, ONE_SECOND_MOVES, api, guest_id, shared_api  # noqa: F401

DEFAULT_SEEK_CLOCK = {"Fischer": {"initialSeconds": 600, "incrementSeconds": 10}}


def post_seek(api, bot, time_control=None) -> dict:
    body = {"timeControl": time_control} if time_control else None
    return api.ok("POST", "/bot/seeks", bot, 201, json=body)


def test_post_seek_answers_id_and_secret_and_lists_the_public_face(api):
    bot = api.anon("seeker")
    response = api.call("POST", "/bot/seeks", bot["token"])
    assert response.status_code == 201
    assert response.headers["cache-control"] == "no-store"
    seek = response.json()
    assert set(seek) == {"seekId", "secret"}
    listed = api.ok("GET", "/lobby/seeks")
    # An omitted time control is the lobby default, Fischer 600+10 (a human may sit down).
    assert listed == [{
        "id": seek["seekId"], "timeControl": DEFAULT_SEEK_CLOCK, "rated": False, "kind": "Bot", "name": f"anon {bot['name']}",
        "rating": None,  # an anonymous bot is never rated (and this server keeps no ratings)
    }]
    assert seek["secret"] not in api.call("GET", "/lobby/seeks").text


def test_seek_with_an_explicit_time_control(api):
    bot = api.anon()
    post_seek(api, bot, {"Unlimited": {}})
    assert api.ok("GET", "/lobby/seeks")[0]["timeControl"] == {"Unlimited": {}}


def test_seek_bodies_are_checked(shared_api):
    bot = shared_api.anon()
    json_type = {"Content-Type": "application/json"}
    for kwargs, status, code in [
        ({"json": {"timeControl": {"PerMove": {"secondsPerMove": 0}}}}, 400, "invalid_request"),
        ({"json": {"timeControl": []}}, 400, "invalid_request"),
        ({"json": []}, 400, "invalid_request"),
        ({"content": b"{", "headers": json_type}, 400, "invalid_request"),
        ({"content": b"x", "headers": {"Content-Type": "text/plain"}}, 415, "unsupported_media_type"),
        ({"content": b"{" + b" " * 5000 + b"}", "headers": json_type}, 413, "request_too_large"),
    ]:
        assert_error(shared_api.call("POST", "/bot/seeks", bot["token"], **kwargs), status, code)
    assert_error(shared_api.call("POST", "/bot/seeks"), 401, "unauthorized")
    assert shared_api.ok("GET", "/lobby/seeks") == []


def test_at_most_three_open_seeks_per_bot(api):
    bot = api.anon()
    seeks = [post_seek(api, bot) for _ in range(MAX_OPEN_SEEKS_PER_BOT)]
    assert_error(api.call("POST", "/bot/seeks", bot["token"]), 429, "too_many_seeks")
    # Another bot is not affected; cancelling one frees a place.
    post_seek(api, api.anon())
    assert api.call("DELETE", f"/lobby/seeks/{seeks[0]['seekId']}", params={"secret": seeks[0]["secret"]}).status_code == 204
    post_seek(api, bot)


def test_poll_reports_open_then_matched_and_needs_the_secret(api):
    creator, accepter = api.anon(), api.anon()
    seek = post_seek(api, creator)
    path = f"/lobby/seeks/{seek['seekId']}"
    assert api.ok("GET", path, params={"secret": seek["secret"]}) == {"matched": False}
    assert_error(api.call("GET", path), 403, "secret_required")
    assert_error(api.call("GET", path, params={"secret": "wrong"}), 404, "seek_not_found")
    assert_error(api.call("GET", "/lobby/seeks/seek-nope", params={"secret": seek["secret"]}), 404, "seek_not_found")

    accepted = api.ok("POST", f"/bot/seeks/{seek['seekId']}/accept", accepter, 201)
    assert set(accepted) == {"gameId"}
    assert api.ok("GET", path, params={"secret": seek["secret"]}) == {"matched": True, "gameId": accepted["gameId"]}
    assert api.ok("GET", "/lobby/seeks") == []
    players = api.ok("GET", f"/games/{accepted['gameId']}")["players"]
    assert {players["white"]["name"], players["black"]["name"]} == {f"anon {creator['name']}", f"anon {accepter['name']}"}


def test_cancel_removes_an_open_seek_with_its_secret_only(api):
    bot = api.anon()
    seek = post_seek(api, bot)
    path = f"/lobby/seeks/{seek['seekId']}"
    assert_error(api.call("DELETE", path), 403, "secret_required")
    assert_error(api.call("DELETE", path, params={"secret": "wrong"}), 404, "seek_not_found")
    assert api.call("DELETE", path, params={"secret": seek["secret"]}).status_code == 204
    assert api.ok("GET", "/lobby/seeks") == []
    assert_error(api.call("DELETE", path, params={"secret": seek["secret"]}), 404, "seek_not_found")
    assert_error(api.call("POST", f"{path.replace('/lobby/', '/bot/')}/accept", api.anon()["token"]), 404, "seek_not_found")


def test_a_matched_seek_cannot_be_cancelled_or_accepted_again(api):
    creator, first, second = api.anon(), api.anon(), api.anon()
    seek = post_seek(api, creator)
    api.ok("POST", f"/bot/seeks/{seek['seekId']}/accept", first, 201)
    assert_error(api.call("POST", f"/bot/seeks/{seek['seekId']}/accept", second["token"]), 409, "seek_taken")
    response = api.call("DELETE", f"/lobby/seeks/{seek['seekId']}", params={"secret": seek["secret"]})
    assert_error(response, 409, "seek_taken")


def test_accepting_your_own_seek_is_400_and_unknown_is_404(api):
    bot = api.anon()
    seek = post_seek(api, bot)
    assert_error(api.call("POST", f"/bot/seeks/{seek['seekId']}/accept", bot["token"]), 400, "own_seek")
    assert_error(api.call("POST", "/bot/seeks/seek-nope/accept", bot["token"]), 404, "seek_not_found")
    assert len(api.ok("GET", "/lobby/seeks")) == 1


def test_bot_accept_at_capacity_is_409_and_the_seek_stays_open(api):
    busy = api.register("acme", "busy", capacity=1)
    opponent, creator = api.anon(), api.anon()
    running = api.challenge(opponent, busy, ONE_SECOND_MOVES)
    api.ok("POST", f"/bot/challenge/{running['id']}/accept", busy, 201)
    seek = post_seek(api, creator)
    assert_error(api.call("POST", f"/bot/seeks/{seek['seekId']}/accept", busy["token"]), 409, "capacity")
    assert [s["id"] for s in api.ok("GET", "/lobby/seeks")] == [seek["seekId"]]
    api.wait_until_idle(busy)
    api.ok("POST", f"/bot/seeks/{seek['seekId']}/accept", busy, 201)


def test_a_creator_at_capacity_keeps_its_seek_open(api):
    busy = api.register("acme", "busy", capacity=1)
    seek = post_seek(api, busy)
    other = api.anon()
    running = api.challenge(other, busy)
    api.ok("POST", f"/bot/challenge/{running['id']}/accept", busy, 201)
    assert_error(api.call("POST", "/lobby/accept", json={"seekId": seek["seekId"], "guestId": guest_id()}), 409, "capacity")
    assert [s["id"] for s in api.ok("GET", "/lobby/seeks")] == [seek["seekId"]]


def test_a_guest_accepts_a_seek_and_gets_its_own_seat(api):
    bot = api.anon()
    seek = post_seek(api, bot, CLOCKED)
    guest = guest_id()
    response = api.call("POST", "/lobby/accept", json={"seekId": seek["seekId"], "guestId": guest})
    assert response.status_code == 201
    assert response.headers["cache-control"] == "no-store, private"
    match = response.json()
    assert set(match) == {"gameId", "token", "seat", "wsUrl"}
    assert match["seat"] in ("White", "Black")
    assert match["wsUrl"] == f"/games/{match['gameId']}/ws?token={match['token']}&guest={guest}"
    state = api.ok("GET", f"/games/{match['gameId']}")
    assert state["players"][match["seat"].lower()] == {"kind": "Human", "name": None}
    assert state["timeControl"] == CLOCKED
    assert api.ok("GET", f"/lobby/seeks/{seek['seekId']}", params={"secret": seek["secret"]})["matched"] is True


def test_guest_accept_bodies_are_checked(shared_api):
    seek = post_seek(shared_api, shared_api.anon())
    for body, status, code in [
        ({"seekId": seek["seekId"]}, 400, "invalid_guest_id"),
        ({"seekId": seek["seekId"], "guestId": "not-a-uuid"}, 400, "invalid_guest_id"),
        ({"seekId": seek["seekId"], "guestId": "{" + guest_id() + "}"}, 400, "invalid_guest_id"),
        ({"guestId": guest_id()}, 400, "invalid_request"),
        ({"seekId": "seek-nope", "guestId": guest_id()}, 404, "seek_not_found"),
    ]:
        assert_error(shared_api.call("POST", "/lobby/accept", json=body), status, code)
    response = shared_api.call("POST", "/lobby/accept", content=b"seekId=x", headers={"Content-Type": "text/plain"})
    assert_error(response, 415, "unsupported_media_type")
    assert [s["id"] for s in shared_api.ok("GET", "/lobby/seeks")] == [seek["seekId"]]
