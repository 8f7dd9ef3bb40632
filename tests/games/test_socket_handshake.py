"""Taking a seat over the game socket never hangs on, and is never decided by, a stalled store:
the socket opens with the last published state and closes 1013 (retry) while the room is
halted, and a seat redemption queued as the game ends gets the final state and 1000."""

from __future__ import annotations

import json
import uuid

import pytest
import trio
import trio.testing
from quart.testing.connections import WebsocketDisconnectError, WebsocketResponseError

from playsite.config import Settings
from playsite.games.creation import create_human_game
from playsite.rooms.intents import PlayerCommand
from playsite.wire import DEFAULT_TIME_CONTROL, Resign
from tests.support.app import booted, friend_game, seat_path, test_client
from tests.support.faulty_store import FaultyStore


async def frames_until_close(ws) -> tuple[list[dict], int]:
    frames = []
    while True:
        try:
            frames.append(json.loads(await ws.receive()))
        except WebsocketDisconnectError as closed:
            return frames, closed.args[0]


@pytest.fixture
async def required_game():
    store = FaultyStore()
    async with booted(Settings(dice_seed_window_ms=0), store=store) as services:
        game = await create_human_game(
            services.registry, DEFAULT_TIME_CONTROL, rated=False, seed_window_s=0, durability="required"
        )
        yield store, test_client(services), game


async def seated_game(client, game):
    """Both seats taken by their guests; the game has begun. Returns the guests."""
    guests = {seat: uuid.uuid4() for seat in ("White", "Black")}
    for seat, guest in guests.items():
        async with client.websocket(seat_path(game, seat, guest)) as ws:
            assert "Snapshot" in json.loads(await ws.receive())
    return guests


async def test_a_seat_reconnecting_while_the_room_is_halted_sees_the_last_state_and_1013(autojump_clock, required_game):
    store, client, game = required_game
    guests = await seated_game(client, game)
    async with client.websocket(seat_path(game, "White", guests["White"])) as white:
        await white.receive()
        store.hanging = True  # the resignation's terminal write never returns
        await white.send(json.dumps({"Resign": {}}))
        frames, code = await frames_until_close(white)
    assert game.room.persistence_stalled and not game.room.completed
    assert code == 1013, "a halted room's sockets close as 'try again', not as a finished game"
    assert frames == []
    # The same guest reconnects during the stall: no hang, the last committed state, 1013.
    async with client.websocket(seat_path(game, "White", guests["White"])) as again:
        frames, code = await frames_until_close(again)
    assert code == 1013
    [snapshot] = frames
    assert "Active" in snapshot["Snapshot"]["state"]["status"], "the unsaved resignation is not shown"


async def test_a_redemption_queued_as_the_ending_commits_gets_the_final_state_and_1000(autojump_clock, required_game):
    store, client, game = required_game
    await seated_game(client, game)
    store.hanging = True  # the resignation's terminal write hangs once...
    await game.room.send(PlayerCommand("White", Resign()))
    await trio.testing.wait_all_tasks_blocked()
    assert game.room.ended and not game.room.completed
    store.hanging = False  # ...and its retry commits
    # Someone else holding Black's token asks for the seat while the ending is being written:
    # not refused as "seat taken", shown the final state.
    async with client.websocket(seat_path(game, "Black", uuid.uuid4())) as late:
        frames, code = await frames_until_close(late)
    assert game.room.completed
    assert code == 1000
    assert [next(iter(frame)) for frame in frames] == ["Snapshot"]
    assert "Active" not in frames[0]["Snapshot"]["state"]["status"]


async def test_spectators_are_capped_per_game_and_per_address_and_seats_never_are():
    settings = Settings(dice_seed_window_ms=0, spectators_per_game=3, spectators_per_address=2)
    async with booted(settings) as services:
        client = test_client(services)
        one, two = [
            await friend_game(services)
            for _ in range(2)
        ]
        watch = lambda game: client.websocket(f"/games/{game.room.game_id}/ws?mode=spectator")  # noqa: E731
        async with watch(one) as a, watch(one) as b:
            await a.receive()
            await b.receive()
            for game in (one, two):  # this address holds its 2 places, on any game
                async with watch(game) as refused:
                    with pytest.raises(WebsocketResponseError) as error:
                        await refused.receive()
                response = error.value.response
                assert response.status_code == 429 and response.headers["Retry-After"] == "30"
                assert json.loads(await response.get_data())["error"]["code"] == "too_many_spectators"
            async with client.websocket(seat_path(one, "White", uuid.uuid4())) as seat:
                assert "Snapshot" in json.loads(await seat.receive())
        # Places are given back when sockets close.
        assert services.sockets.spectators_by_game == {} and services.sockets.by_address == {}
        services.sockets.spectators_per_address = 10
        async with watch(one) as a, watch(one) as b, watch(one) as c:
            for ws in (a, b, c):
                await ws.receive()
            async with watch(one) as fourth:
                with pytest.raises(WebsocketResponseError) as error:
                    await fourth.receive()
            assert "this game has its 3 spectators" in (await error.value.response.get_data(as_text=True))


async def test_game_creations_socket_connects_and_waiting_games_are_bounded(autojump_clock):
    settings = Settings(dice_seed_window_ms=0, game_creations_per_minute=3, unjoined_games_max=2, socket_connects_per_minute=2)
    async with booted(settings) as services:
        client = test_client(services)
        answers = [await client.post("/games", json={}) for _ in range(3)]
        assert [a.status_code for a in answers] == [201, 201, 503], "two games already wait for their players"
        busy = await answers[2].get_json()
        assert busy["error"]["code"] == "too_many_pending_games" and answers[2].headers["Retry-After"] == "30"
        limited = await client.post("/games", json={})
        assert limited.status_code == 429 and (await limited.get_json())["error"]["code"] == "rate_limited"
        assert int(limited.headers["Retry-After"]) >= 1
        game_id = (await answers[0].get_json())["gameId"]
        for expected in (True, True, False):
            async with client.websocket(f"/games/{game_id}/ws?mode=spectator") as ws:
                if expected:
                    assert "Snapshot" in json.loads(await ws.receive())
                else:
                    with pytest.raises(WebsocketResponseError) as refused:
                        await ws.receive()
                    assert refused.value.response.status_code == 429
        await trio.sleep(61)  # the windows reopen
        assert (await client.post("/games", json={})).status_code == 503  # still two waiting


async def test_a_waiting_game_whose_players_arrive_frees_its_place_among_the_waiting():
    settings = Settings(dice_seed_window_ms=0, unjoined_games_max=2)
    async with booted(settings) as services:
        client = test_client(services)
        games = [
            await friend_game(services)
            for _ in range(2)
        ]
        assert services.registry.awaiting_joins() == 2
        assert (await client.post("/games", json={})).status_code == 503
        async with client.websocket(seat_path(games[0], "White", uuid.uuid4())) as white, client.websocket(
            seat_path(games[0], "Black", uuid.uuid4())
        ) as black:
            await white.receive()
            await black.receive()
            await trio.testing.wait_all_tasks_blocked()
            assert services.registry.awaiting_joins() == 1, "the game both players joined no longer waits"
            assert (await client.post("/games", json={})).status_code == 201
            assert services.registry.awaiting_joins() == 2


async def test_one_address_holds_at_most_its_sockets_seats_included():
    settings = Settings(dice_seed_window_ms=0, sockets_per_address=2)
    async with booted(settings) as services:
        client = test_client(services)
        game = await friend_game(services)
        async with client.websocket(seat_path(game, "White", uuid.uuid4())) as white, client.websocket(
            f"/games/{game.room.game_id}/ws?mode=spectator"
        ) as watcher:
            await white.receive()
            await watcher.receive()
            async with client.websocket(seat_path(game, "Black", uuid.uuid4())) as third:
                with pytest.raises(WebsocketResponseError) as refused:
                    await third.receive()
            response = refused.value.response
            assert response.status_code == 429 and response.headers["Retry-After"] == "30"
            assert json.loads(await response.get_data())["error"]["code"] == "too_many_sockets"
        assert services.sockets.by_address == {}
