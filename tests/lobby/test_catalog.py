"""The human catalog and catalog play over a real `playsite serve`: GET /lobby/bots and
POST /lobby/play-bot (seat token works on the game socket), every refusal, rate limit."""

from __future__ import annotations

import httpx
from trio_websocket import open_websocket_url

from playsite.lobby.human_routes import HUMAN_STARTS_PER_MINUTE
from playsite.wire import Snapshot, decode_frame
from tests.support.errors import assert_error, assert_no_server_errors
from tests.support.lobby_api import CLOCKED, FAST_GAMES, ONE_SECOND_MOVES, Api, api, guest_id, shared_api  # noqa: F401
from tests.support.waiting import wait_until_sync


def play(api, bot: dict, guest: str | None = None, **extra) -> httpx.Response:
    body = {"guestId": guest or guest_id(), "team": bot["team"], "name": bot["name"], "timeControl": CLOCKED, **extra}
    return api.call("POST", "/lobby/play-bot", json=body)


def test_catalog_lists_registered_bots_open_to_humans(api):
    api.register("acme", "zed", open_to_humans=True)
    alice = api.register("acme", "alice")
    api.ok("POST", "/bot/open-to-humans", alice, json={"description": "aggressive + book"})
    api.register("acme", "closed")
    api.anon()
    assert api.ok("GET", "/lobby/bots") == {
        "bots": [
            {
                "team": "acme",
                "name": "alice",
                "rating": 1500.0,
                "rd": 350.0,
                "provisional": True,
                "description": "aggressive + book",
                "available": True,
            },
            {"team": "acme", "name": "zed", "rating": 1500.0, "rd": 350.0, "provisional": True, "available": True},
        ]
    }
    api.ok("POST", "/bot/open-to-humans/leave", alice)
    assert [b["name"] for b in api.ok("GET", "/lobby/bots")["bots"]] == ["zed"]


def test_catalog_availability_follows_the_declared_capacity(api):
    bot = api.register("acme", "alice", capacity=1, open_to_humans=True)
    assert play(api, bot).status_code == 201
    assert api.ok("GET", "/lobby/bots")["bots"][0]["available"] is False
    api.ok("POST", "/bot/capacity", bot, json={"maxConcurrentGames": 2})
    assert api.ok("GET", "/lobby/bots")["bots"][0]["available"] is True


async def test_play_bot_seats_the_guest_with_a_working_token(api):
    bot = api.register("acme", "alice", open_to_humans=True)
    guest = guest_id()
    response = play(api, bot, guest, preferredColor="Black")
    assert response.status_code == 201
    assert response.headers["cache-control"] == "no-store, private"
    match = response.json()
    assert set(match) == {"gameId", "token", "seat", "wsUrl"} and match["seat"] == "Black"
    state = api.ok("GET", f"/games/{match['gameId']}")
    assert state["players"] == {"white": {"kind": "Bot", "name": "acme alice"}, "black": {"kind": "Human", "name": None}}
    assert state["timeControl"] == CLOCKED
    async with open_websocket_url(api.server.ws_url + match["wsUrl"]) as ws:
        snapshot = decode_frame(await ws.get_message())
    assert isinstance(snapshot, Snapshot)
    assert api.active_games(bot) == 1


def test_play_bot_without_a_preference_picks_a_seat(api):
    bot = api.register("acme", "alice", capacity=8, open_to_humans=True)
    seats = {play(api, bot).json()["seat"] for _ in range(8)}
    assert seats <= {"White", "Black"} and seats
    assert api.ok("GET", "/bot/capacity", bot)["activeGames"] == 8


def test_play_bot_outside_the_catalog_is_404(api):
    closed = api.register("acme", "closed")
    anonymous = api.anon()
    assert_error(play(api, closed), 404, "not_in_catalog")
    assert_error(play(api, anonymous), 404, "not_in_catalog")
    assert_error(play(api, {"team": "acme", "name": "ghost"}), 404, "not_in_catalog")


def test_play_bot_at_capacity_is_409(api):
    bot = api.register("acme", "alice", capacity=1, open_to_humans=True)
    assert play(api, bot).status_code == 201
    assert_error(play(api, bot), 409, "capacity")


def test_a_guest_has_one_unfinished_catalog_game_at_a_time(serve):
    # A first-move limit of a second: nobody moves, and the game ends at once, on the bot's clock
    # or at the guest's first move (a person's first turn is not on the clock; the limit is).
    server = serve({**FAST_GAMES, "PLAY_FIRST_MOVE_S": "1"})
    api = Api(server)
    bot = api.register("acme", "alice", capacity=4, open_to_humans=True)
    other = api.register("acme", "bob", open_to_humans=True)
    guest = guest_id()
    quick = {"guestId": guest, "team": "acme", "name": "alice", "timeControl": ONE_SECOND_MOVES}
    started = api.call("POST", "/lobby/play-bot", json=quick)
    assert started.status_code == 201
    assert_error(play(api, bot, guest), 409, "guest_busy")
    assert_error(play(api, other, guest.upper()), 409, "guest_busy")
    assert play(api, bot).status_code == 201  # another guest is not affected
    # Once the game ends, the guest may start another.
    game = started.json()["gameId"]
    wait_until_sync(lambda: "Ended" in api.ok("GET", f"/games/{game}")["status"], "the guest's game to end")
    assert play(api, other, guest).status_code == 201
    api.close()
    assert_no_server_errors(server)


def test_play_bot_bodies_are_checked(shared_api):
    bot = shared_api.register("acme", "alice", capacity=32, open_to_humans=True)
    valid = {"guestId": guest_id(), "team": "acme", "name": "alice", "timeControl": CLOCKED}
    json_type = {"Content-Type": "application/json"}
    cases = [
        ({"json": {**valid, "timeControl": {"Unlimited": {}}}}, 400, "invalid_request"),
        ({"json": {k: v for k, v in valid.items() if k != "timeControl"}}, 400, "invalid_request"),
        ({"json": {**valid, "timeControl": {"Fischer": {"initialSeconds": 60}}}}, 400, "invalid_request"),
        ({"json": {k: v for k, v in valid.items() if k != "guestId"}}, 400, "invalid_guest_id"),
        ({"json": {**valid, "guestId": "guest-1"}}, 400, "invalid_guest_id"),
        ({"json": {**valid, "guestId": 12}}, 400, "invalid_guest_id"),
        ({"json": {k: v for k, v in valid.items() if k != "team"}}, 400, "invalid_request"),
        ({"json": {**valid, "name": ""}}, 400, "invalid_request"),
        ({"json": {**valid, "preferredColor": "white"}}, 400, "invalid_request"),
        ({"json": {**valid, "preferredColor": ["White"]}}, 400, "invalid_request"),
        ({"json": [valid]}, 400, "invalid_request"),
        ({"content": b"{", "headers": json_type}, 400, "invalid_request"),
        ({}, 400, "invalid_guest_id"),
        ({"content": b"guestId=x", "headers": {"Content-Type": "text/plain"}}, 415, "unsupported_media_type"),
        ({"content": b'{"team": "' + b"a" * 5000 + b'"}', "headers": json_type}, 413, "request_too_large"),
    ]
    for kwargs, status, code in cases:
        assert_error(shared_api.call("POST", "/lobby/play-bot", **kwargs), status, code)
    assert shared_api.active_games(bot) == 0


def test_play_bot_rate_limit_per_address_answers_429(api):
    bot = api.register("acme", "alice", capacity=32, open_to_humans=True)
    for _ in range(HUMAN_STARTS_PER_MINUTE):
        assert play(api, bot).status_code == 201
    response = play(api, bot)
    assert_error(response, 429, "rate_limited")
    assert 1 <= int(response.headers["retry-after"]) <= 60
