"""Seats promised to a guest at creation (`POST /games {white, black}`, the ecosystem's shape):
the token alone seats that guest, another guest with the token is refused, and seats nobody
was promised keep needing `guest`. A socket without a token watches."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest
from trio_websocket import ConnectionRejected, open_websocket_url

from tests.support.server import ServerProcess
from tests.support.waiting import deadline


@pytest.fixture(scope="module")
def server():
    process = ServerProcess({"DICE_SEED_WINDOW_MS": "0"}).start()
    yield process
    process.close()


def create(server, body: dict) -> dict:
    answer = httpx.post(f"{server.base_url}/games", json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()


async def first_frame(url: str) -> str:
    with deadline(10, f"the first frame of {url}"):
        async with open_websocket_url(url) as ws:
            return next(iter(json.loads(await ws.get_message())))


async def refused(url: str) -> tuple[int, str]:
    with pytest.raises(ConnectionRejected) as rejected:
        async with open_websocket_url(url):
            pass
    return rejected.value.status_code, json.loads(rejected.value.body)["error"]["code"]


async def test_a_promised_seat_opens_with_its_token_alone_and_only_for_its_guest(server):
    alice, bob = str(uuid.uuid4()), str(uuid.uuid4())
    game = create(server, {"white": alice, "black": bob})
    tokens = {entry["seat"]: entry["token"] for entry in game["tokens"]}
    assert tokens == {"White": game["seats"]["white"]["token"], "Black": game["seats"]["black"]["token"]}
    socket = f"{server.ws_url}/games/{game['gameId']}/ws"
    assert await first_frame(f"{socket}?token={tokens['White']}") == "Snapshot"
    assert await first_frame(f"{socket}?token={tokens['White']}&guest={alice}") == "Snapshot", "its guest, named"
    assert await refused(f"{socket}?token={tokens['Black']}&guest={alice}") == (403, "seat_taken"), "bob's seat"
    assert await first_frame(f"{socket}?token={tokens['Black']}") == "Snapshot"
    state = httpx.get(f"{server.base_url}/games/{game['gameId']}", timeout=10).json()
    assert state["players"] == {"white": {"kind": "Human", "name": None}, "black": {"kind": "Human", "name": None}}


async def test_a_seat_nobody_was_promised_still_needs_its_guest(server):
    game = create(server, {})
    socket = f"{server.ws_url}/games/{game['gameId']}/ws"
    token = game["seats"]["white"]["token"]
    assert await refused(f"{socket}?token={token}") == (400, "invalid_request")
    guest = uuid.uuid4()
    assert await first_frame(f"{socket}?token={token}&guest={guest}") == "Snapshot"
    assert await refused(f"{socket}?token={token}") == (400, "invalid_request"), "redeemed: still only with its guest id"


async def test_a_socket_without_a_token_watches(server):
    game = create(server, {"white": str(uuid.uuid4()), "black": str(uuid.uuid4())})
    with deadline(10, "a watcher's Snapshot and Error"):
        async with open_websocket_url(f"{server.ws_url}/games/{game['gameId']}/ws") as ws:
            assert next(iter(json.loads(await ws.get_message()))) == "Snapshot"
            await ws.send_message(json.dumps({"Resign": {}}))
            assert json.loads(await ws.get_message()) == {"Error": {"reason": "spectators cannot send commands"}}


async def test_one_guest_may_hold_both_seats(server):
    guest = str(uuid.uuid4())
    game = create(server, {"white": guest, "black": guest, "timeControl": {"Unlimited": {}}})
    socket = f"{server.ws_url}/games/{game['gameId']}/ws"
    for entry in game["tokens"]:
        assert await first_frame(f"{socket}?token={entry['token']}") == "Snapshot"
