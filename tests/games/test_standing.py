"""Where a game stands for the pages that name it, on trio's MockClock: its own page while it is
played and for five minutes after its end, then its replay (play-through s74: a finished game's
page opened half an hour later still said "Watching" and offered a rematch long over)."""

from __future__ import annotations

import uuid

import pytest
import trio
import trio.testing

from playsite.games.standing import GAME_PAGE_AFTER_END_S, game_standing
from playsite.rooms.intents import PlayerCommand
from playsite.wire import WHITE, Resign
from tests.support.app import booted, friend_game


@pytest.fixture
def mock_clock():
    return trio.testing.MockClock(autojump_threshold=0)


async def test_a_game_is_live_while_played_and_for_five_minutes_after_its_end_then_finished(mock_clock):
    async with booted() as services:
        room = (await friend_game(services)).room

        async def standing(game_id: str = room.game_id) -> str:
            return await game_standing(services.registry, services.store, game_id)

        assert await standing() == "live"
        resign = PlayerCommand(WHITE, Resign())
        await room.send(resign)
        await resign.reply.wait()
        await room.finished.wait()
        await trio.testing.wait_all_tasks_blocked()
        assert room.game_id not in services.registry.live and services.registry.get(room.game_id) is room
        assert await standing() == "live", "just over: its page shows the result and the rematch"
        await trio.sleep(GAME_PAGE_AFTER_END_S - 1)
        assert await standing() == "live"
        await trio.sleep(2)
        assert await standing() == "finished", "its replay from then on"
        assert await standing(room.game_id.upper()) == "finished"
        assert await standing(str(uuid.uuid4())) == "unknown"
        assert await standing("not-a-game") == "unknown"
