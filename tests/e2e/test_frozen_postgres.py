"""PostgreSQL frozen (SIGSTOP, then SIGCONT) at each write point of a required-durability game,
under a real `playsite serve`: a write the server gave up on never commits, and after the
recovery and after a restart every game is either active or ended with its archive, never
both, and a failed creation leaves no game behind."""

from __future__ import annotations

import random
import uuid

import httpx
import psycopg
import pytest
import trio

from playsite.refusals import READ_TIMEOUT_S
from playsite.wire import GameEnded, Resign, TurnPlayed, encode_command
from tests.support.client import create_game, table
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.frozen_postgres import assert_active_xor_archived, frozen, settled, stored
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres

FROZEN_S = 3
"""Longer than the server's write timeout (1 s below), so every write in flight is given up."""


def server_env(url: str) -> dict[str, str]:
    return {
        "DATABASE_URL": url,
        "GAME_DURABILITY": "required",
        "DICE_SEED_WINDOW_MS": "0",
        "PLAY_DB_STATEMENT_TIMEOUT_MS": "1000",
        "PLAY_DB_POOL_SIZE": "4",
    }


async def read_game(base_url: str, game_id: str) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.get(f"{base_url}/games/{game_id}", timeout=10)


async def assert_ended_not_resumed(base_url: str, game_id: str) -> None:
    """After a restart the game is not live again; reading it by id shows its stored ending."""
    async with httpx.AsyncClient() as http:
        live = (await http.get(f"{base_url}/games", timeout=10)).json()
    assert game_id not in [g["gameId"] for g in live["games"]], "an ended game was resumed"
    state = await read_game(base_url, game_id)
    assert state.status_code == 200 and "Ended" in state.json()["status"]


def restarted(serve, server, url: str):
    server.kill()
    return serve(server_env(url))


async def test_a_creation_answered_503_while_postgres_is_frozen_never_appears(serve, migrated_url, pg_cluster):
    server = serve(server_env(migrated_url))
    with frozen(pg_cluster):
        async with httpx.AsyncClient() as http:
            refused = await http.post(f"{server.base_url}/games", json={}, timeout=30)
            assert refused.status_code == 503 and refused.json()["error"]["code"] == "temporarily_unavailable"
            started = trio.current_time()
            history = await http.get(f"{server.base_url}/games/{uuid.uuid4()}/history", timeout=30)
            assert history.status_code == 503 and history.headers["Retry-After"] == "5"
            assert trio.current_time() - started < READ_TIMEOUT_S + 2
        await trio.sleep(FROZEN_S)
    settled(migrated_url)
    with psycopg.connect(migrated_url) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0, "the refused creation was stored"
    again = restarted(serve, server, migrated_url)
    async with httpx.AsyncClient() as http:
        assert (await http.get(f"{again.base_url}/games", timeout=10)).json()["total"] == 0


async def test_a_move_given_up_while_postgres_is_frozen_is_discarded_and_the_abort_archived(
    serve, migrated_url, pg_cluster
):
    server = serve(server_env(migrated_url))
    game = await create_game(server.base_url, timeControl={"Unlimited": {}})
    rng = random.Random(11)
    async with table(server, game).open() as players:
        await players.play_turn(rng, spare_king=True)
        mover = await players.wait_for_roll()
        before = (await read_game(server.base_url, game["gameId"])).json()
        played = [list(e.moves) for e in mover.events if isinstance(e, TurnPlayed)]
        with frozen(pg_cluster):
            given_up = await players.submit(mover, rng, spare_king=True)
            await wait_until(lambda: "event=given_up" in server.output(), "the server to give the move up", 60, 0.1)
        ended = await players.wait_for(mover, lambda e: isinstance(e, GameEnded), timeout=60)
    assert ended.over.termination == "Aborted" and ended.v == before["version"] + 1
    settled(migrated_url)
    assert stored(migrated_url, game["gameId"]) == ("ended", 1, 1, 1)
    assert_active_xor_archived(migrated_url)
    again = restarted(serve, server, migrated_url)
    await assert_ended_not_resumed(again.base_url, game["gameId"])
    async with httpx.AsyncClient() as http:
        history = (await http.get(f"{again.base_url}/games/{game['gameId']}/history", timeout=10)).json()
    assert history["termination"] == "aborted"
    assert [turn["moves"] for turn in history["turns"]] == played, "the given-up move was discarded"
    assert given_up not in played
    assert_active_xor_archived(migrated_url)


async def test_an_ending_written_while_postgres_is_frozen_commits_once_after_it_thaws(serve, migrated_url, pg_cluster):
    server = serve(server_env(migrated_url))
    game = await create_game(server.base_url, timeControl={"Unlimited": {}})
    rng = random.Random(13)
    async with table(server, game).open() as players:
        while {e.seat for e in players.players["White"].events if isinstance(e, TurnPlayed) and e.moves} != {"White", "Black"}:
            await players.play_turn(rng, spare_king=True)  # a resignation before both seats played is an abort
        white = players.players["White"]
        with frozen(pg_cluster):
            await white.ws.send_message(encode_command(Resign()))
            await trio.sleep(FROZEN_S)
            assert not [e for e in white.events if isinstance(e, GameEnded)], "published before it was stored"
        ended = await players.wait_for(white, lambda e: isinstance(e, GameEnded), timeout=60)
    assert ended.over.termination == "Resign"
    settled(migrated_url)
    assert stored(migrated_url, game["gameId"]) == ("ended", 1, 1, 1)
    again = restarted(serve, server, migrated_url)
    await assert_ended_not_resumed(again.base_url, game["gameId"])
    assert_active_xor_archived(migrated_url)


async def test_a_game_in_play_while_postgres_was_frozen_is_active_and_unarchived_after_a_restart(
    serve, migrated_url, pg_cluster
):
    server = serve(server_env(migrated_url))
    game = await create_game(server.base_url, timeControl={"Unlimited": {}})
    rng = random.Random(17)
    async with table(server, game).open() as players:
        await players.play_turn(rng, spare_king=True)
        mover = await players.wait_for_roll()
        with frozen(pg_cluster):
            moves = await players.submit(mover, rng, spare_king=True)
            await trio.sleep(FROZEN_S / 2)  # thawed before the room gives the move up
        await players.wait_for(mover, lambda e: isinstance(e, TurnPlayed) and list(e.moves) == moves, 60)
    settled(migrated_url)
    assert stored(migrated_url, game["gameId"]) == ("active", 0, 0, 0), server.output()[-4000:]
    again = restarted(serve, server, migrated_url)
    resumed = await read_game(again.base_url, game["gameId"])
    assert resumed.status_code == 200 and resumed.json()["status"] == {"Active": {}}
    assert_active_xor_archived(migrated_url)
