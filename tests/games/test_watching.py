"""GET /games/{id}/watching and the `watching` of GET /games: the spectator sockets a real server
holds for a game, over real sockets; players' own sockets are not counted."""

from __future__ import annotations

import uuid

import httpx
import trio
from trio_websocket import open_websocket_url

from playsite.wire import Snapshot, decode_frame
from tests.support.waiting import wait_until

DEADLINE_S = 25


async def watching(http: httpx.AsyncClient, game_id: str) -> tuple[int, int]:
    """(the count route's answer, the game's entry in the list)."""
    alone = (await http.get(f"/games/{game_id}/watching")).json()
    listed = {game["gameId"]: game["watching"] for game in (await http.get("/games")).json()["games"]}
    return alone["watching"], listed[game_id]


async def test_spectators_are_counted_while_connected_and_players_are_not(serve):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    with trio.fail_after(DEADLINE_S):
        async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
            game = (await http.post("/games", json={})).json()
            game_id = game["gameId"]
            assert await watching(http, game_id) == (0, 0)
            white = f"{server.ws_url}/games/{game_id}/ws?token={game['seats']['white']['token']}&guest={uuid.uuid4()}"
            spectate = f"{server.ws_url}/games/{game_id}/ws?mode=spectator"
            async with open_websocket_url(white) as seat, open_websocket_url(spectate) as first:
                for socket in (seat, first):
                    assert isinstance(decode_frame(await socket.get_message()), Snapshot)
                assert await watching(http, game_id) == (1, 1), "the seat's own socket is no spectator"
                async with open_websocket_url(spectate) as second:
                    assert isinstance(decode_frame(await second.get_message()), Snapshot)
                    assert await watching(http, game_id) == (2, 2)
                async def one_left() -> bool:
                    return await watching(http, game_id) == (1, 1)

                await wait_until(one_left, "the closed spectator socket no longer counted")
            unknown = (await http.get(f"/games/{uuid.uuid4()}/watching")).json()
            assert unknown["watching"] == 0
            refused = await http.get("/games/not-a-game/watching")
            assert refused.status_code == 404 and refused.json()["error"]["code"] == "game_not_found"
