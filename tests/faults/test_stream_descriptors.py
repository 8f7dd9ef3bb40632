"""An ndjson game stream ends with its game, whether or not its client reads: 50 bot
streams that never read give their descriptors back within 5 s of the game's end (the
response closes its connection, it is not left kept-alive for the client to close). Real
`playsite serve`, raw sockets."""

from __future__ import annotations

import os
import socket
import time

import httpx
from trio_websocket import open_websocket_url

from playsite.wire import GameEnded, Resign, decode_frame, encode_command
from tests.support.client import create_game
from tests.support.waiting import wait_until

STREAMS = 50


def descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def open_stream(port: int, game_id: str, token: str) -> socket.socket:
    """A game stream whose first line (the Snapshot) has arrived; then never read again."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(f"GET /bot/game/stream/{game_id} HTTP/1.1\r\nHost: playsite\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    received = b""
    sock.settimeout(10)
    while b"Snapshot" not in received:
        received += sock.recv(65536)
    assert received.startswith(b"HTTP/1.1 200"), received[:200]
    return sock


async def test_fifty_streams_that_never_read_give_their_descriptors_back_within_5_s_of_the_games_end(serve):
    server = serve({"PLAY_NDJSON_KEEPALIVE_MS": "60000"})
    pid = server.process.pid
    game = await create_game(server.base_url, timeControl={"Unlimited": {}})
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        token = (await http.post("/bot/anon")).json()["token"]
    before = descriptors(pid)
    streams = [open_stream(server.port, game["gameId"], token) for _ in range(STREAMS)]
    try:
        during = descriptors(pid)  # one per stream, give or take a connection of the set-up closing
        assert during >= before + STREAMS - 3
        white = server.ws_url + game["seats"]["white"]["wsUrl"] + "&guest=" + "3" * 8 + "-3333-4333-8333-" + "3" * 12
        async with open_websocket_url(white) as ws:
            await ws.send_message(encode_command(Resign()))
            while not isinstance(decode_frame(await ws.get_message()), GameEnded):
                pass
        ended = time.monotonic()
        await wait_until(lambda: descriptors(pid) <= during - STREAMS + 2, "the streams' descriptors to come back", 10, 0.05)
        assert time.monotonic() - ended < 3  # at once, not at the 5 s keep-alive timeout
    finally:
        for sock in streams:
            sock.close()
