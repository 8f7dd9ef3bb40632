"""People's open seeks: the board itself on trio's MockClock (limits, expiry, the claim), then
the routes over a real `playsite serve` in the shapes of the ecosystem's lobby client: post,
list (beside bots' seeks), poll, cancel, accept, and both people seated in the game.

Seeks are ephemeral (process-local, forgotten by a restart), so there is no PostgreSQL case:
nothing about them is stored."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from trio_websocket import open_websocket_url

from playsite.lobby.people_seeks import (
    MAX_SEEKS_PER_PERSON,
    PEOPLE_SEEK_TTL_S,
    PeopleSeekBoard,
    State,
    encode_status,
)
from playsite.refusals import Refused
from playsite.wire import Unlimited, decode_frame
from playsite.wire.events import Snapshot
from tests.support.documented import Documented
from tests.support.errors import assert_error
from tests.support.lobby_api import CLOCKED, api, guest_id, shared_api  # noqa: F401

ALICE, BOB = "guest:" + "a" * 8 + "-0000-4000-8000-" + "0" * 12, "guest:" + "b" * 8 + "-0000-4000-8000-" + "0" * 12
DEFAULT_CLOCK = {"Fischer": {"initialSeconds": 600, "incrementSeconds": 10}}


def refused(code: str, action) -> None:
    with pytest.raises(Refused) as raised:
        action()
    assert raised.value.code == code


# ----- the board ---------------------------------------------------------------------------------


@pytest.fixture
def mock_clock():
    return trio.testing.MockClock(autojump_threshold=0)


async def test_one_open_seek_per_person_and_a_bounded_board():
    board = PeopleSeekBoard(capacity=2)
    old, old_secret = board.post(ALICE, Unlimited())
    assert MAX_SEEKS_PER_PERSON == 1
    # A new seek takes the open one's place (play-through s72: the tab that held it may be gone,
    # and nobody else can cancel it): its creator's poll of the old one finds nothing.
    first, _ = board.post(ALICE, Unlimited())
    refused("seek_not_found", lambda: board.poll(old.id, old_secret))
    board.post(BOB, Unlimited())
    refused("too_many_seeks", lambda: board.post("guest:c", Unlimited()))  # the board is full
    assert [s.id for s in board.open_seeks()] == [first.id, board.open_seeks()[1].id]
    # One being accepted at this moment stays, and a new one waits for its game to start.
    board.claim(first.id, BOB)
    refused("too_many_seeks", lambda: board.post(ALICE, Unlimited()))
    assert len(board) == 2


async def test_poll_keeps_a_seek_alive_and_an_unpolled_one_lapses(mock_clock):
    board = PeopleSeekBoard()
    kept, kept_secret = board.post(ALICE, Unlimited())
    dropped, _ = board.post(BOB, Unlimited())
    await trio.sleep(PEOPLE_SEEK_TTL_S - 1)
    board.poll(kept.id, kept_secret)
    await trio.sleep(1)
    assert board.open_seeks() == [kept]
    refused("seek_not_found", lambda: board.poll(dropped.id, "anything"))
    await trio.sleep(PEOPLE_SEEK_TTL_S)
    assert board.open_seeks() == [] and len(board) == 0


async def test_claim_release_match_and_the_creators_status(mock_clock):
    board = PeopleSeekBoard()
    seek, secret = board.post(ALICE, Unlimited())
    refused("own_seek", lambda: board.claim(seek.id, ALICE))
    board.claim(seek.id, BOB)
    assert board.open_seeks() == []  # hidden while its game starts
    refused("seek_taken", lambda: board.claim(seek.id, "guest:c"))
    refused("seek_taken", lambda: board.cancel(seek.id, secret))
    await trio.sleep(PEOPLE_SEEK_TTL_S * 2)
    assert len(board) == 1, "a claimed seek never lapses under its game's start"
    board.release(seek)
    assert board.open_seeks() == [seek] and seek.state is State.OPEN
    board.claim(seek.id, BOB)
    board.matched_with_seat(seek, "game-1", "Black", "token-1")
    assert encode_status(board.poll(seek.id, secret)) == {
        "matched": True, "gameId": "game-1", "token": "token-1", "seat": "Black"
    }
    refused("seek_not_found", lambda: board.poll(seek.id, "wrong secret"))
    await trio.sleep(PEOPLE_SEEK_TTL_S)
    refused("seek_not_found", lambda: board.poll(seek.id, secret))  # forgotten after its last poll


# ----- the routes ----------------------------------------------------------------------------------


def post(api, creator: str, time_control=None) -> dict:
    body = {"creator": creator} | ({"timeControl": time_control} if time_control else {})
    response = api.call("POST", "/lobby/seeks", json=body)
    assert response.status_code == 201, response.text
    assert response.headers["cache-control"] == "no-store"
    return response.json()


async def first_event(url: str):
    async with open_websocket_url(url) as ws:
        return decode_frame(await ws.get_message())


def test_two_people_meet_through_a_seek(api):
    alice, bob = guest_id(), guest_id()
    seek = post(api, alice, CLOCKED)
    assert set(seek) == {"seekId", "secret"}
    assert api.ok("GET", "/lobby/seeks") == [{"id": seek["seekId"], "timeControl": CLOCKED, "rated": False, "kind": "Human", "name": None, "rating": None}]
    status = api.ok("GET", f"/lobby/seeks/{seek['seekId']}", params={"secret": seek["secret"]})
    assert status == {"matched": False, "gameId": None, "token": None, "seat": None}

    response = api.call("POST", f"/lobby/seeks/{seek['seekId']}/accept", json={"accepter": bob})
    assert response.status_code == 201, response.text
    assert response.headers["cache-control"] == "no-store, private"
    match = response.json()
    assert set(match) == {"gameId", "token", "seat", "wsUrl"} and match["seat"] in ("White", "Black")
    assert api.ok("GET", "/lobby/seeks") == []
    assert_error(api.call("POST", f"/lobby/seeks/{seek['seekId']}/accept", json={"accepter": guest_id()}),
                 409, "seek_taken")

    mine = api.ok("GET", f"/lobby/seeks/{seek['seekId']}", params={"secret": seek["secret"]})
    assert mine["matched"] is True and mine["gameId"] == match["gameId"]
    assert {mine["seat"], match["seat"]} == {"White", "Black"} and mine["token"] != match["token"]
    state = api.ok("GET", f"/games/{match['gameId']}")
    assert state["timeControl"] == CLOCKED and state["rated"] is False
    assert state["players"] == {"white": {"kind": "Human", "name": None}, "black": {"kind": "Human", "name": None}}

    ws = api.server.ws_url
    for token, guest in ((match["token"], bob), (mine["token"], alice)):
        event = trio.run(first_event, f"{ws}/games/{match['gameId']}/ws?token={token}&guest={guest}")
        assert isinstance(event, Snapshot), "each person's token takes its seat"


def test_cancel_and_the_default_clock(api):
    alice = guest_id()
    seek = post(api, alice)
    assert api.ok("GET", "/lobby/seeks")[0]["timeControl"] == DEFAULT_CLOCK
    assert_error(api.call("DELETE", f"/lobby/seeks/{seek['seekId']}", params={"secret": "wrong"}), 404, "seek_not_found")
    assert api.call("DELETE", f"/lobby/seeks/{seek['seekId']}", params={"secret": seek["secret"]}).status_code == 204
    assert api.ok("GET", "/lobby/seeks") == []
    first = post(api, alice)
    second = post(api, alice)  # one seek a person: the new one takes the open one's place
    assert [s["id"] for s in api.ok("GET", "/lobby/seeks")] == [second["seekId"]]
    assert_error(api.call("GET", f"/lobby/seeks/{first['seekId']}", params={"secret": first["secret"]}), 404, "seek_not_found")


def test_the_lobby_lists_bots_and_people_and_accept_takes_either(api):
    bot = api.anon("seeker")
    bot_seek = api.ok("POST", "/bot/seeks", bot, 201, json={"timeControl": CLOCKED})
    person = post(api, guest_id())
    kinds = {entry["id"]: entry["kind"] for entry in api.ok("GET", "/lobby/seeks")}
    assert kinds == {bot_seek["seekId"]: "Bot", person["seekId"]: "Human"}
    guest = guest_id()
    match = api.call("POST", f"/lobby/seeks/{bot_seek['seekId']}/accept", json={"accepter": guest})
    assert match.status_code == 201, match.text
    assert match.json()["wsUrl"].endswith(f"&guest={guest}")
    assert api.ok("GET", f"/lobby/seeks/{bot_seek['seekId']}", params={"secret": bot_seek["secret"]})["matched"] is True


def test_people_seek_requests_are_checked(shared_api):
    creator = guest_id()
    seek = post(shared_api, creator)
    json_type = {"Content-Type": "application/json"}
    for path, kwargs, status, code in [
        ("/lobby/seeks", {"json": {}}, 400, "invalid_guest_id"),
        ("/lobby/seeks", {"json": {"creator": "alice"}}, 400, "invalid_guest_id"),
        ("/lobby/seeks", {"json": {"creator": guest_id(), "timeControl": {"Fischer": {}}}}, 400, "invalid_request"),
        ("/lobby/seeks", {"json": []}, 400, "invalid_request"),
        ("/lobby/seeks", {"content": b"{", "headers": json_type}, 400, "invalid_request"),
        ("/lobby/seeks", {"content": b"x", "headers": {"Content-Type": "text/plain"}}, 415, "unsupported_media_type"),
        (f"/lobby/seeks/{seek['seekId']}/accept", {"json": {}}, 400, "invalid_guest_id"),
        ("/lobby/seeks/people-0000/accept", {"json": {"accepter": guest_id()}}, 404, "seek_not_found"),
        ("/lobby/seeks/seek-0000/accept", {"json": {"accepter": guest_id()}}, 404, "seek_not_found"),
    ]:
        assert_error(shared_api.call("POST", path, **kwargs), status, code)
    assert_error(shared_api.call("GET", f"/lobby/seeks/{seek['seekId']}"), 403, "secret_required")
    assert_error(shared_api.call("GET", f"/lobby/seeks/{seek['seekId']}", params={"secret": "x"}), 404, "seek_not_found")
    assert_error(shared_api.call("DELETE", "/lobby/seeks/people-0000", params={"secret": "x"}), 404, "seek_not_found")
    own = shared_api.call("POST", f"/lobby/seeks/{seek['seekId']}/accept", json={"accepter": creator})
    assert_error(own, 400, "own_seek")



def test_every_answer_matches_openapi(api):
    """Each route's answers, as the ecosystem's lobby client calls them, against openapi.yaml."""
    documented = Documented()
    check = documented.check_http
    alice, bob = guest_id(), guest_id()
    posted = api.call("POST", "/lobby/seeks", json={"creator": alice, "timeControl": CLOCKED})
    seek = check("post", "/lobby/seeks", posted)
    secret = {"secret": seek["secret"]}
    path = f"/lobby/seeks/{seek['seekId']}"
    check("get", "/lobby/seeks", api.call("GET", "/lobby/seeks"))
    check("get", "/lobby/seeks/{id}", api.call("GET", path, params=secret))
    check("post", "/lobby/seeks", api.call("POST", "/lobby/seeks", json={"creator": alice}))  # 429
    check("post", "/lobby/seeks", api.call("POST", "/lobby/seeks", json={"creator": "alice"}))  # 400
    check("post", "/lobby/seeks/{id}/accept", api.call("POST", f"{path}/accept", json={"accepter": alice}))  # own
    check("post", "/lobby/seeks/{id}/accept", api.call("POST", f"{path}/accept", json={"accepter": bob}))  # 201
    check("post", "/lobby/seeks/{id}/accept", api.call("POST", f"{path}/accept", json={"accepter": bob}))  # 409
    check("get", "/lobby/seeks/{id}", api.call("GET", path, params=secret))  # matched
    check("delete", "/lobby/seeks/{id}", api.call("DELETE", path, params=secret))  # 409 taken
    other = check("post", "/lobby/seeks", api.call("POST", "/lobby/seeks", json={"creator": guest_id()}))
    check("delete", "/lobby/seeks/{id}", api.call("DELETE", f"/lobby/seeks/{other['seekId']}", params={"secret": other["secret"]}))
    check("post", "/lobby/seeks/{id}/accept", api.call("POST", "/lobby/seeks/people-00/accept", json={"accepter": bob}))


def test_a_person_who_sits_down_to_another_game_has_their_open_seek_withdrawn(api):
    """Play-through s58: a seek left open in one tab was taken while its creator played a bot in
    another, and she had two games on the clock at once. A game that seats a person withdraws
    their open seeks, whatever started it; a stranger's seek stays."""
    alice, bob, carol = guest_id(), guest_id(), guest_id()
    alices = post(api, alice, CLOCKED)
    carols = post(api, carol, CLOCKED)
    api.register("acme", "opponent", open_to_humans=True)
    started = api.call("POST", "/lobby/play-bot", json={"guestId": alice, "team": "acme", "name": "opponent",
                                                        "timeControl": CLOCKED})
    assert started.status_code == 201, started.text
    assert [seek["id"] for seek in api.ok("GET", "/lobby/seeks")] == [carols["seekId"]]
    assert_error(api.call("POST", f"/lobby/seeks/{alices['seekId']}/accept", json={"accepter": bob}), 404, "seek_not_found")
    assert_error(api.call("GET", f"/lobby/seeks/{alices['seekId']}", params={"secret": alices["secret"]}),
                 404, "seek_not_found")  # her page's poll: gone (the page says so)
    # accepting a seek withdraws the accepter's own
    bobs = post(api, bob, CLOCKED)
    assert api.call("POST", f"/lobby/seeks/{carols['seekId']}/accept", json={"accepter": bob}).status_code == 201
    assert_error(api.call("GET", f"/lobby/seeks/{bobs['seekId']}", params={"secret": bobs["secret"]}), 404, "seek_not_found")
    assert api.ok("GET", "/lobby/seeks") == []


def test_the_list_marks_the_viewing_guest_s_own_seek(api):
    alice, bob = guest_id(), guest_id()
    post(api, alice, CLOCKED)
    post(api, bob, CLOCKED)
    marked = {entry["id"]: entry.get("yours") for entry in api.ok("GET", "/lobby/seeks", params={"viewer": alice})}
    assert sorted(marked.values(), key=str) == [None, True], "hers, and only hers"
    assert all("yours" not in entry for entry in api.ok("GET", "/lobby/seeks")), "nobody named: nobody's"
    assert_error(api.call("GET", "/lobby/seeks", params={"viewer": "alice"}), 400, "invalid_guest_id")
