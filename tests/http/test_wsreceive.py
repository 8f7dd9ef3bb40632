"""A WebSocket route reads its client's messages itself: no relay task between hypercorn and
the route (playsite/http/wsreceive.py), and a client's disconnect still ends the route."""

from __future__ import annotations

import json

import trio
import trio.testing

from playsite.config import Settings
from tests.support.app import booted, friend_game, test_client


def task_names(task: trio.lowlevel.Task) -> list[str]:
    names = [task.name]
    for nursery in task.child_nurseries:
        for child in nursery.child_tasks:
            names += task_names(child)
    return names


async def test_a_game_socket_is_served_by_its_route_alone_and_ends_when_the_client_leaves():
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        client = test_client(services)
        game = await friend_game(services)
        async with client.websocket(f"/games/{game.room.game_id}/ws?mode=spectator") as ws:
            assert "Snapshot" in json.loads(await ws.receive())
            await trio.testing.wait_all_tasks_blocked()
            names = task_names(trio.lowlevel.current_root_task())
            assert any(name.endswith("socket_commands.SocketCommands.read") for name in names), names
            assert not any("handle_messages" in name for name in names), names  # quart-trio's relay
            await ws.send(json.dumps({"Resign": {}}))  # read by the route itself, and answered
            assert json.loads(await ws.receive()) == {"Error": {"reason": "spectators cannot send commands"}}
            assert services.sockets.spectators_by_game == {game.room.game_id: 1}
        await trio.testing.wait_all_tasks_blocked()
        # The client's disconnect reached the route, which ended and gave its place back.
        assert services.sockets.spectators_by_game == {}
        assert not any(name.endswith("socket_commands.SocketCommands.read") for name in task_names(trio.lowlevel.current_root_task()))
