"""Steady state makes no reference cycles: a request, or a whole game, leaves nothing that only
the cyclic garbage collector could free (so the serving process can do without full collections:
PLAY_GC_FULL_INTERVAL_S=0, see playsite/gcwatch.py).

Each case runs with the collector off, after one warm-up of the same case (what a first use
sets up for good is not garbage); then one collection counts what the case left in cycles,
and `gc.DEBUG_SAVEALL` keeps those objects to name them in the failure message. The app runs
in this trio run (tests/support/app.py), so its garbage is this process's.
"""

from __future__ import annotations

import random

import pytest
import trio

from playsite.config import Settings
from playsite.wire import Unlimited
from tests.support.app import booted, call, test_client
from tests.support.cycles import cycles_left_by, described
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.turns import random_turn


async def new_game(services) -> tuple[str, dict[str, str]]:
    """A bot game (unlimited time) and each seat's bearer token."""
    white, white_token = services.bots.mint_anonymous("white")
    black, black_token = services.bots.mint_anonymous("black")
    game = await services.bot_games.start(white=white, black=black, time_control=Unlimited(), rated=False, origin="challenge")
    return game.room.game_id, {"White": white_token, "Black": black_token}


async def play_turn(client, game_id: str, tokens: dict[str, str], rng: random.Random) -> bool:
    """Play one random legal turn as the seat to move, over HTTP; False once the game is over."""
    with trio.fail_after(10):
        while True:
            _, state, _ = await call(client, "GET", f"/games/{game_id}")
            if "Active" not in state["status"]:
                return False
            _, moves, _ = await call(client, "GET", f"/games/{game_id}/moves")
            if moves["dicePending"] and moves["version"] == state["version"]:
                break
            await trio.sleep(0.01)
    turn = random_turn(moves["legalMoves"], rng)
    status, _, _ = await call(client, "POST", f"/bot/game/{game_id}/move", tokens[state["activeSeat"]], json={"moves": turn})
    assert status == 200
    return True


async def test_requests_leave_no_reference_cycle():
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        game_id, tokens = await new_game(services)
        client = test_client(services)
        rng = random.Random(7)

        async def list_games() -> None:
            assert (await call(client, "GET", "/games"))[0] == 200

        async def read_game() -> None:
            assert (await call(client, "GET", f"/games/{game_id}"))[0] == 200

        async def move() -> None:
            assert await play_turn(client, game_id, tokens, rng)

        failures = {}
        for name, case in (("GET /games", list_games), ("GET /games/{id}", read_game), ("a bot's move", move)):
            garbage = await cycles_left_by(case)
            if garbage:
                failures[name] = described(garbage)
        assert not failures, "\n".join(f"{name}: {found}" for name, found in failures.items())


async def test_a_whole_game_leaves_no_reference_cycle():
    await whole_games_leave_no_cycle(Settings(dice_seed_window_ms=0))


@pytest.mark.postgres
async def test_a_whole_game_on_postgresql_leaves_no_reference_cycle(migrated_url):
    await whole_games_leave_no_cycle(
        Settings(database_url=migrated_url, persistence_enabled=True, dice_seed_window_ms=0)
    )


async def whole_games_leave_no_cycle(settings: Settings) -> None:
    async with booted(settings) as services:
        client = test_client(services)
        rng = random.Random(11)

        async def whole_game() -> None:
            game_id, tokens = await new_game(services)
            while await play_turn(client, game_id, tokens, rng):
                pass

        garbage = await cycles_left_by(whole_game)
        assert not garbage, described(garbage)
