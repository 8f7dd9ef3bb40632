"""A finished game stays readable by id after a restart: GET /games/{id} and /moves answer
its final state from the store once no room holds it any more."""

from __future__ import annotations

import uuid

from playsite.config import Settings
from playsite.rooms.intents import Abort
from playsite.store import MemoryStore
from tests.support.app import booted, friend_game, test_client
from tests.support.errors import assert_error


async def test_an_ended_game_is_read_from_the_store_after_a_restart():
    store = MemoryStore()
    async with booted(Settings(dice_seed_window_ms=0), store=store) as first:
        game = await friend_game(first)
        assert await game.room.send(Abort("ended for the test"))
        await game.room.finished.wait()
        before = await (await test_client(first).get(f"/games/{game.room.game_id}")).get_json()
    async with booted(Settings(dice_seed_window_ms=0), store=store) as restarted:
        assert restarted.registry.get(game.room.game_id) is None
        client = test_client(restarted)
        state = await client.get(f"/games/{game.room.game_id}")
        moves = await client.get(f"/games/{game.room.game_id}/moves")
        assert state.status_code == 200 and await state.get_json() == before
        assert "Ended" in before["status"]
        assert moves.status_code == 200 and (await moves.get_json())["legalMoves"] == {}


async def test_an_unknown_game_is_still_404():
    async with booted() as services:
        client = test_client(services)
        for game_id in (str(uuid.uuid4()), "not-a-game"):
            response = await client.get(f"/games/{game_id}")
            assert_error((response.status_code, await response.get_json()), 404, "game_not_found")
