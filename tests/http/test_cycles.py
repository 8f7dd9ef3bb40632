"""A closed connection leaves no reference cycles behind (playsite/http/cycles.py): the serving
process freezes what survives its young collections, so cyclic garbage would wait, frozen,
for the periodic full collection. The server runs in this process (real hypercorn, real
sockets) so that its garbage can be counted."""

from __future__ import annotations

import collections
import gc

import httpx
import pytest
import trio
import trio_websocket

from playsite.config import Settings
from playsite.http.cycles import raise_cancelled_alone
from playsite.server import main
from tests.support.cycles import cycles_left_by, kind_of

SOCKETS = 20
REQUESTS = 20
"""How long every task must stay blocked to call the server quiet: under the event-loop lag
watch's period (it wakes every 0.1 s once the port is open), so that a quiet moment exists."""


async def closed_sockets_and_requests(base_url: str) -> list:
    """Garbage in cycles made by SOCKETS spectator sockets and REQUESTS HTTP connections,
    each opened, used and closed."""
    async with httpx.AsyncClient(base_url=base_url) as http:
        game = (await http.post("/games", json={"timeControl": {"Unlimited": {}}})).json()
    spectate = base_url.replace("http://", "ws://") + game["spectatorWsUrl"]

    async def watch_once() -> None:
        async with trio_websocket.open_websocket_url(spectate) as ws:
            assert '"Snapshot"' in await ws.get_message()

    host, port = base_url.removeprefix("http://").rsplit(":", 1)

    async def read_once() -> None:
        # A connection of its own, by hand: a client library's own cycles would be counted too.
        async with await trio.open_tcp_stream(host, int(port)) as stream:
            await stream.send_all(
                f"GET /games/{game['gameId']} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
            )
            answer = b""
            while chunk := await stream.receive_some():
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 200")

    async def use_and_close() -> None:
        for _ in range(SOCKETS):
            await watch_once()
        for _ in range(REQUESTS):
            await read_once()

    return await cycles_left_by(use_and_close)


async def test_closed_sockets_and_connections_leave_no_cycles():
    settings = Settings.from_environ({
        "PLAY_HOST": "127.0.0.1", "PLAY_PORT": "0", "PLAY_GC_TUNING": "0", "DICE_SEED_WINDOW_MS": "0",
    })
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(main, settings)
        with trio.fail_after(60):
            garbage = await closed_sockets_and_requests(binds[0])
        nursery.cancel_scope.cancel()
    kinds = collections.Counter(kind_of(o) for o in garbage)
    # Before: ~220 objects a closed socket (the handler's cancelled nursery: exceptions,
    # tracebacks, frames, tasks), ~38 a connection (hypercorn's connection and protocol), and
    # 9 a closed socket (wsproto's frame parser, a generator that keeps what keeps it).
    for kind in ("Cancelled", "BaseExceptionGroup", "frame", "traceback", "Task", "TCPServer", "ProtocolWrapper",
                 "FrameProtocol", "generator"):
        assert kinds[kind] == 0, kinds
    # Nor is werkzeug's router closure left, one per request (http/routercycles.py).
    assert not garbage, kinds


async def test_a_group_of_nothing_but_cancellations_leaves_as_one_cancelled():
    caught = []
    with trio.CancelScope() as scope:
        scope.cancel()
        try:
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(trio.sleep_forever)
                    await trio.sleep_forever()
            except BaseExceptionGroup as group:
                raise_cancelled_alone(group)
                raise
        except BaseException as error:  # what left the block, before the scope absorbs it
            caught.append(error)
            raise
    assert scope.cancelled_caught
    assert len(caught) == 1 and isinstance(caught[0], trio.Cancelled)
    assert caught[0].__context__ is None, "not tied back to the group it came from"


async def test_a_group_with_anything_but_cancellations_is_raised_as_it_is():
    async def fail() -> None:
        raise ValueError("a real failure")

    with pytest.raises(BaseExceptionGroup) as raised:
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(fail)
                await trio.sleep_forever()
        except BaseExceptionGroup as group:
            raise_cancelled_alone(group)
            raise
    assert raised.group_contains(ValueError)
