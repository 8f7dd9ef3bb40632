"""Fault tests against a real PostgreSQL and a real `playsite serve` process.

kill -9 of the server mid-game loses nothing committed; stopping PostgreSQL mid-game lets a
best-effort room play on, and halts a required-durability room, which retries, recovers
when PostgreSQL returns, or aborts as specified.
"""

from __future__ import annotations

import random

import httpx
import trio

from playsite.wire import GameEnded, Snapshot, TurnPlayed

from tests.support.client import Player, Table, create_game
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.waiting import wait_until


def server_env(url: str, durability: str) -> dict[str, str]:
    return {
        "DATABASE_URL": url,
        "GAME_DURABILITY": durability,
        "DICE_SEED_WINDOW_MS": "0",
        "PLAY_DB_STATEMENT_TIMEOUT_MS": "1000",
        "PLAY_DB_POOL_SIZE": "4",
    }


def table(server, game: dict, guests: tuple[str, str] = ("", "")) -> Table:
    return Table(
        Player(server.ws_url, game, "White", guests[0] or None),
        Player(server.ws_url, game, "Black", guests[1] or None),
    )


async def read_game(base_url: str, game_id: str) -> dict:
    async with httpx.AsyncClient() as http:
        response = await http.get(f"{base_url}/games/{game_id}", timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


async def test_kill_9_mid_game_resumes_at_the_last_committed_turn(serve, migrated_url):
    server = serve(server_env(migrated_url, "required"))
    game = await create_game(server.base_url, timeControl={"Unlimited": {}})
    guests = ("6f1e0a52-4c1b-4b7e-9a59-0c7c2f7f0001", "6f1e0a52-4c1b-4b7e-9a59-0c7c2f7f0002")
    rng = random.Random(1)
    async with table(server, game, guests).open() as first:
        for _ in range(4):
            await first.play_turn(rng, spare_king=True)
        await first.wait_for_roll()
        before = await read_game(server.base_url, game["gameId"])
    server.kill()
    restarted = serve(server_env(migrated_url, "required"))
    after = await read_game(restarted.base_url, game["gameId"])
    assert (after["version"], after["dfen"], after["commit"]) == (before["version"], before["dfen"], before["commit"])
    assert after["status"] == {"Active": {}} and after["legalMoves"] == before["legalMoves"]
    async with table(restarted, game, guests).open() as second:
        snapshot = await second.wait_for(second.players["White"], lambda e: isinstance(e, Snapshot))
        assert snapshot.v == before["version"]
        assert len(snapshot.history) == len([e for e in first.players["White"].events if isinstance(e, TurnPlayed)]) + len(
            [e for e in first.players["White"].events if isinstance(e, Snapshot)][0].history
        )
        turn = await second.play_turn(rng, spare_king=True)
        assert turn.v > before["version"]


async def test_best_effort_room_plays_on_while_postgres_is_down(serve, migrated_url, pg_cluster):
    server = serve(server_env(migrated_url, "best_effort"))
    game = await create_game(server.base_url, timeControl={"Unlimited": {}})
    rng = random.Random(3)
    async with table(server, game).open() as players:
        await players.play_turn(rng, spare_king=True)
        pg_cluster.stop()
        try:
            assert isinstance(await players.play_turn(rng, spare_king=True), TurnPlayed)
        finally:
            pg_cluster.start()
    assert "event=write_failed_best_effort" in server.output()


async def test_required_room_halts_retries_and_recovers_when_postgres_returns(serve, migrated_url, pg_cluster):
    server = serve(server_env(migrated_url, "required"))
    game = await create_game(server.base_url, timeControl={"Unlimited": {}})
    rng = random.Random(5)
    async with table(server, game).open() as players:
        await players.play_turn(rng, spare_king=True)
        mover = await players.wait_for_roll()
        pg_cluster.stop()
        try:
            moves = await players.submit(mover, rng, spare_king=True)
            await trio.sleep(1.0)
            assert not [e for e in mover.events if isinstance(e, TurnPlayed) and list(e.moves) == moves], (
                "nothing is published before it is committed"
            )
        finally:
            pg_cluster.start()
        turn = await players.wait_for(
            mover, lambda e: isinstance(e, GameEnded) or (isinstance(e, TurnPlayed) and list(e.moves) == moves), 30
        )
        assert isinstance(turn, TurnPlayed) and list(turn.moves) == moves
    output = server.output()
    assert f"game={game['gameId']}" in output and "event=retrying" in output and "event=recovered" in output


async def test_required_room_aborts_when_the_outage_outlasts_its_retries(serve, migrated_url, pg_cluster):
    server = serve(server_env(migrated_url, "required"))
    game = await create_game(server.base_url, timeControl={"Unlimited": {}})
    rng = random.Random(7)
    async with table(server, game).open() as players:
        await players.play_turn(rng, spare_king=True)
        await players.play_turn(rng, spare_king=True)
        mover = await players.wait_for_roll()
        before = await read_game(server.base_url, game["gameId"])
        pg_cluster.stop()
        try:
            await players.submit(mover, rng, spare_king=True)
            await wait_until(lambda: "event=given_up" in server.output(), "the server to give the move up", 30, 0.2)
        finally:
            pg_cluster.start()
        ended = await players.wait_for(mover, lambda e: isinstance(e, GameEnded), timeout=60)
        assert ended.over.termination == "Aborted" and ended.v == before["version"] + 1
    async with httpx.AsyncClient() as http:
        response = await http.get(f"{server.base_url}/games/{game['gameId']}/history", timeout=10)
    history = response.json()
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert history["termination"] == "aborted" and history["fairness"]["commit"] == before["commit"]
