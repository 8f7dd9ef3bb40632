"""Bot game commands are rate-limited per client address (PLAY_BOT_COMMANDS_PER_MINUTE)."""

from __future__ import annotations

import trio

from playsite.config import Settings
from playsite.wire import Unlimited
from tests.support.app import booted, test_client
from tests.support.errors import assert_error


async def test_game_commands_past_the_limit_are_429_until_the_window_reopens(autojump_clock):
    async with booted(Settings(dice_seed_window_ms=2000, bot_commands_per_minute=2)) as services:
        white, token = services.bots.mint_anonymous("w")
        black, _ = services.bots.mint_anonymous("b")
        game = await services.bot_games.start(white=white, black=black, time_control=Unlimited(), rated=False, origin="challenge")
        client = test_client(services)
        auth = {"Authorization": f"Bearer {token}"}
        path = f"/bot/game/{game.room.game_id}/seed"
        answers = [await client.post(path, json={"seed": "s" * 16}, headers=auth) for _ in range(3)]
        assert [a.status_code for a in answers[:2]] == [202, 202]
        assert_error((answers[2].status_code, await answers[2].get_json()), 429, "rate_limited")
        assert 1 <= int(answers[2].headers["Retry-After"]) <= 60
        await trio.sleep(60)
        assert (await client.post(path, json={"seed": "s" * 16}, headers=auth)).status_code == 202
