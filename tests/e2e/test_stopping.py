"""A server that is stopped (SIGTERM, a deploy) ends its long-lived responses as the contract
says, not by cutting them: a game socket, seat or spectator, is closed with 1013 ("try again
later": the game goes on, reconnect for a fresh Snapshot), and an ndjson stream, a bot's
account stream or a game's, ends its body cleanly. Play-through (session 62): both were cut
after hypercorn's 3 s drain, a WebSocket with 1006 and a stream mid-chunk
(`RemoteProtocolError: incomplete chunked read`), which a client written to the contract reads
as a failure, not a restart."""

from __future__ import annotations

import contextlib
import json
import signal

import httpx
import trio
from trio_websocket import ConnectionClosed, open_websocket_url

from tests.support.client import Player, create_game, seated


async def lines_of(stack: contextlib.AsyncExitStack, http: httpx.AsyncClient, path: str, token: str):
    response = await stack.enter_async_context(http.stream("GET", path, headers={"Authorization": f"Bearer {token}"}))
    assert response.status_code == 200
    return response.aiter_lines()


async def close_of(ws) -> tuple[int, str]:
    """Read until the server closes the socket; its close code and reason."""
    try:
        while True:
            await ws.get_message()
    except ConnectionClosed as closed:
        return closed.reason.code, closed.reason.reason or ""


async def test_a_stop_closes_game_sockets_with_1013_and_ends_ndjson_streams_cleanly(serve):
    server = serve()
    game = await create_game(server.base_url)
    white = Player(server.ws_url, game, "White")
    spectating = f"{server.ws_url}/games/{game['gameId']}/ws?mode=spectator"
    async with httpx.AsyncClient(base_url=server.base_url, timeout=20) as http, contextlib.AsyncExitStack() as stack:
        bot = (await http.post("/bot/anon", params={"name": "watcher"})).json()
        account = await lines_of(stack, http, "/bot/stream/event", bot["token"])
        watched = await lines_of(stack, http, f"/bot/game/stream/{game['gameId']}", bot["token"])
        with trio.fail_after(10):
            assert await account.__anext__() == "", "the account stream is live"
            assert "Snapshot" in json.loads(await watched.__anext__()), "the game stream is live"
        async with seated(white), open_websocket_url(spectating) as spectator:
            with trio.fail_after(10):
                await white.receive()  # the seat's Snapshot: subscribed
                await spectator.get_message()
            server.process.send_signal(signal.SIGTERM)
            with trio.fail_after(10):
                for ws in (white.ws, spectator):
                    code, reason = await close_of(ws)
                    assert code == 1013, (code, reason)
                    assert "restarting" in reason, reason
                # both bodies end without an error (an incomplete chunked body raises here)
                assert [line async for line in account if line.strip()] == []
                rest = [json.loads(line) for line in [line async for line in watched] if line.strip()]
                assert not any("GameEnded" in event for event in rest), rest  # the game goes on
    assert await trio.to_thread.run_sync(server.process.wait, 15) == 0
    assert "Traceback" not in server.output()
