"""A COMMIT whose answer never came (PostgreSQL stopped at the instant the COMMIT is on the
wire, by a proxy that reads the protocol): the write may stand. The server must not decide
until it has read back what the database holds, then adopt it; never tell a client a move was
discarded when it stands, never leave a room retrying a write the fence refuses forever, and
never leave a game both active and archived. Real `playsite serve`, real PostgreSQL."""

from __future__ import annotations

import random

import httpx
import psycopg
import pytest
import trio

from playsite.wire import GameEnded, TurnPlayed
from tests.support.client import create_game, table
from tests.support.frozen_postgres import assert_active_xor_archived, frozen, settled, stored
from tests.support.turns import random_turn
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres

STATEMENT_TIMEOUT_MS = "1000"
"""Short, so the room gives a write up (5 attempts, about 8 s) while the COMMIT is held."""


def server_env(url: str) -> dict[str, str]:
    return {
        "DATABASE_URL": url,
        "GAME_DURABILITY": "required",
        "DICE_SEED_WINDOW_MS": "0",
        "PLAY_DB_STATEMENT_TIMEOUT_MS": STATEMENT_TIMEOUT_MS,
        "PLAY_DB_POOL_SIZE": "4",
    }


def stored_version(url: str, game_id: str) -> tuple[str, int] | None:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT status, version FROM games WHERE id = %s", (game_id,)).fetchone()


async def test_a_move_whose_commit_answer_was_lost_stands_and_is_played_before_and_after_a_restart(
    serve, migrated_url, freezer
):
    server = serve(server_env(freezer.url(migrated_url)))
    game = await create_game(server.base_url, timeControl={"Unlimited": {}})
    game_id = game["gameId"]
    rng = random.Random(5)
    async with table(server, game).open() as players:
        await players.play_turn(rng, spare_king=True)
        await players.play_turn(rng, spare_king=True)
        mover = await players.wait_for_roll()
        freezer.arm("INSERT INTO games")
        moves = await players.submit(mover, rng, spare_king=True)
        await wait_until(freezer.stopped.is_set, "the move's COMMIT to be held", 10)
        await wait_until(lambda: "event=given_up" in server.output(), "the room to give the write up", 30, 0.05)
        await wait_until(lambda: "event=in_doubt" in server.output(), "the room to read back", 10, 0.05)
        assert not [e for e in mover.events if isinstance(e, GameEnded)], "told the game ended while the move may stand"
        freezer.thaw()
        played = await players.wait_for(mover, lambda e: isinstance(e, TurnPlayed) and list(e.moves) == moves, 30)
        assert not [e for e in mover.events if isinstance(e, GameEnded)], "the move stands: the game goes on"
        await players.play_turn(rng, spare_king=True)  # the game is still played after the adopted move
    settled(migrated_url)
    status, version = stored_version(migrated_url, game_id)
    assert status == "active" and version > played.v
    assert stored(migrated_url, game_id) == ("active", 0, 0, 0)
    assert "WriteRefused" not in server.output() and "event=adopted" in server.output()
    assert_active_xor_archived(migrated_url)
    server.kill()
    again = serve(server_env(freezer.url(migrated_url)))
    async with httpx.AsyncClient() as http:
        resumed = (await http.get(f"{again.base_url}/games/{game_id}", timeout=10)).json()
    assert resumed["status"] == {"Active": {}} and resumed["version"] == version
    assert_active_xor_archived(migrated_url)


async def accept_challenge(base_url: str, answer: list) -> None:
    """Register two bots, one challenges the other, the other accepts: `answer` gets the
    accept's response (and the bots' tokens are kept for later calls). Registered, not anonymous:
    the game must outlive a restart, which forgets anonymous bots and aborts their games."""
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        challenger = (await http.post("/bot/register", json={"team": "faults", "name": "challenger"})).json()
        target = (await http.post("/bot/register", json={"team": "faults", "name": "target"})).json()
        body = {"team": target["team"], "name": target["name"], "timeControl": {"Unlimited": {}}}
        auth = {"Authorization": f"Bearer {challenger['token']}"}
        challenge = await http.post("/bot/challenge", json=body, headers=auth)
        assert challenge.status_code == 201, challenge.text
        answer.append(await http.post(
            f"/bot/challenge/{challenge.json()['id']}/accept", headers={"Authorization": f"Bearer {target['token']}"}
        ))


def games(url: str) -> list[tuple[str, str, int]]:
    with psycopg.connect(url) as conn:
        return [(str(i), s, v) for i, s, v in conn.execute("SELECT id, status, version FROM games").fetchall()]


async def test_an_accepted_challenge_whose_commit_answer_was_lost_is_answered_with_its_game(serve, migrated_url, freezer):
    server = serve(server_env(freezer.url(migrated_url)))
    answer: list[httpx.Response] = []
    async with trio.open_nursery() as nursery:
        freezer.arm("INSERT INTO games")
        nursery.start_soon(accept_challenge, server.base_url, answer)
        await wait_until(freezer.stopped.is_set, "the creation's COMMIT to be held", 20)
        await wait_until(lambda: "event=creation_failed" in server.output() or "event=read_back" in server.output(),
                         "the creation attempt to time out", 20, 0.05)
        assert not answer, "answered while the creation may stand"
        freezer.thaw()
    accepted = answer[0]
    assert accepted.status_code == 201, accepted.text
    game_id = accepted.json()["gameId"]
    settled(migrated_url)
    [(stored_id, status, _version)] = games(migrated_url)
    assert (stored_id, status) == (game_id, "active")
    async with httpx.AsyncClient() as http:
        live = (await http.get(f"{server.base_url}/games/{game_id}", timeout=10)).json()
    assert live["status"] == {"Active": {}}
    server.kill()
    again = serve(server_env(freezer.url(migrated_url)))
    async with httpx.AsyncClient() as http:
        resumed = (await http.get(f"{again.base_url}/games/{game_id}", timeout=10)).json()
    assert resumed["status"] == {"Active": {}}, "the game its acceptor was given is resumed"
    assert_active_xor_archived(migrated_url)


async def test_a_technical_abort_answers_the_mover_with_the_last_durable_version(serve, migrated_url, pg_cluster):
    server = serve({**server_env(migrated_url), "PLAY_MOVE_VERDICT_WAIT_MS": "30000"})
    async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as http:
        white = (await http.post("/bot/anon")).json()
        black = (await http.post("/bot/anon")).json()
        body = {"team": black["team"], "name": black["name"], "timeControl": {"Unlimited": {}}}
        challenge = (await http.post("/bot/challenge", json=body, headers=bearer(white))).json()
        accepted = await http.post(f"/bot/challenge/{challenge['id']}/accept", headers=bearer(black))
        assert accepted.status_code == 201, accepted.text
        game_id = accepted.json()["gameId"]
        seat, moves = await wait_until(lambda: seat_to_move(http, game_id), "dice with legal moves", 20, 0.05)
        mover = white if seat == "White" else black
        durable = (await http.get(f"/games/{game_id}")).json()["version"]
        with frozen(pg_cluster):  # nothing in flight when it froze: the move is surely not stored
            refused = await http.post(
                f"/bot/game/{game_id}/move", json={"moves": random_turn(moves, random.Random(3))}, headers=bearer(mover)
            )
        assert refused.status_code == 409, refused.text
        assert refused.json() == {
            "applied": False, "version": durable, "reason": "technical abort", "detail": "the game could not be saved"
        }
        ended = await wait_until(lambda: ended_state(http, game_id), "the abort to be stored", 30, 0.05)
    assert ended["version"] == durable + 1
    settled(migrated_url)
    assert stored(migrated_url, game_id) == ("ended", 1, 1, 1)


def bearer(bot: dict) -> dict[str, str]:
    return {"Authorization": f"Bearer {bot['token']}"}


async def seat_to_move(http: httpx.AsyncClient, game_id: str) -> tuple[str, dict] | None:
    """(the seat with dice, its legal moves) once a roll with moves is pending."""
    state = (await http.get(f"/games/{game_id}")).json()
    return (state["activeSeat"], state["legalMoves"]) if state["dicePending"] and state["legalMoves"] else None


async def ended_state(http: httpx.AsyncClient, game_id: str) -> dict | None:
    state = (await http.get(f"/games/{game_id}")).json()
    return state if "Ended" in state["status"] else None
