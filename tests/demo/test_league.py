"""The demo's league takes in a bot its author put on the ladder, while that bot is connected:
a bot author gets rated games on the demo, which runs no ladder scheduler."""

from __future__ import annotations

import itertools

from playsite.config import Settings
from playsite.demo.league import LEAGUE_BOTS, League
from tests.support.app import booted


async def test_a_ladder_bot_is_paired_with_the_league_s_bots_in_turn_while_it_is_connected():
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        league = League(services)
        opponents = itertools.cycle(LEAGUE_BOTS)
        joined, _token = await services.bots.register("author", "first")
        await services.bots.update(joined, on_ladder=True)
        off_ladder, _token = await services.bots.register("author", "shy")
        assert league.guest_pairs(opponents) == [], "not connected: a game it would never move in"
        streams = [services.bot_events.open(bot.id) for bot in (joined, off_ladder)]
        met = []
        for _ in range(len(LEAGUE_BOTS)):
            [pair] = league.guest_pairs(opponents)  # the bot off the ladder is never taken in
            assert joined.id in pair
            met.append(next(bot for bot in pair if bot != joined.id))
        assert sorted(met) == sorted(LEAGUE_BOTS), "every league bot in turn"
        services.bot_events.close(joined.id, streams[0])
        assert league.guest_pairs(opponents) == []
