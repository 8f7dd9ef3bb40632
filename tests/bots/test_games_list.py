"""`GET /bot/games` and the game's own state agree on when a game is over (play-through s74: a
polling bot saw its game leave the list, read `GET /games/{id}`, and found it still active, since
the list followed the room's working state and the state its last committed version). On a
frozen MockClock, with a store that claims durability and holds a write for as long as a test
needs: the end is decided in the room but not committed, hence not published."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from playsite.config import Settings
from playsite.rooms.intents import PlayerCommand
from playsite.wire import WHITE, Resign, Unlimited
from tests.support.app import booted, test_client
from tests.support.faulty_store import FaultyStore


@pytest.fixture
def mock_clock():
    return trio.testing.MockClock()  # frozen: time moves only when the test jumps it


async def test_a_game_leaves_bot_games_when_its_end_is_published_not_before(mock_clock):
    store = FaultyStore()
    settings = Settings(game_durability="required", dice_seed_window_ms=0)
    async with booted(settings, store=store) as services:
        client = test_client(services)
        white, token = await services.bots.register("lists", "white")
        black, _ = await services.bots.register("lists", "black")
        room = (await services.bot_games.start(
            white=white, black=black, time_control=Unlimited(), rated=False, origin="challenge")).room
        await trio.testing.wait_all_tasks_blocked()

        async def listed() -> list[str]:
            answer = await client.get("/bot/games", headers={"Authorization": f"Bearer {token}"})
            return [game["gameId"] for game in (await answer.get_json())["games"]]

        async def status() -> dict:
            return (await (await client.get(f"/games/{room.game_id}")).get_json())["status"]

        assert await listed() == [room.game_id] and await status() == {"Active": {}}
        store.hanging = True  # the end's write waits
        await room.send(PlayerCommand(WHITE, Resign()))
        await trio.testing.wait_all_tasks_blocked()
        assert room.ended and not room.ended_as_published
        assert await listed() == [room.game_id], "listed while its state still reads active"
        assert await status() == {"Active": {}}
        store.hanging = False
        for _ in range(20):  # the held attempt times out and the next one commits
            if room.ended_as_published:
                break
            mock_clock.jump(store.save_timeout_s)
            await trio.testing.wait_all_tasks_blocked()
        assert room.ended_as_published
        assert await listed() == []
        assert "Ended" in await status()
