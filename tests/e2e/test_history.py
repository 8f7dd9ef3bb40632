"""GET /games/{id}/history against a real `playsite serve`, over real sockets.

A game is played to its end (client seeds from both seats, random turns with at least one
forced pass, then a resignation). Its archive record is then read back: immutable caching,
the wire schema, every turn as it was broadcast, the fairness reveal with both client seeds,
and `playsite verify` accepting it (and rejecting a copy with one die changed). Unknown,
malformed and still-active ids answer 404. With PostgreSQL the record outlives the process;
with the in-memory default it is served while the process lives.
"""

from __future__ import annotations

import json
import random
import sys
import uuid

import httpx
import pytest
import trio

from playsite.rules import START_POSITION, format_dfen
from playsite.wire import DiceRolled, GameEnded, Rejected, Resign, SubmitSeed, TurnPlayed, Win, encode_command
from playsite.wire.schemas import validator

from tests.support.client import Player, Table, create_game
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.waiting import deadline

IMMUTABLE = "public, max-age=31536000, immutable"
CLIENT_SEEDS = {
    "White": "white's client seed \U0001f3b2 \u00fcber-lucky",  # non-ASCII: hashed as UTF-8, as sent
    "Black": "black-client-seed-0123456789abcdef",
}
GAMES_TRIED = 8
"""A random game sees a forced pass before it ends about 2 times in 3: a few tries suffice."""
TURNS_MAX = 200


def events_of(player: Player, kind) -> list:
    return [event for event in player.events if isinstance(event, kind)]


async def next_roll_or_end(table: Table, timeout: float = 20) -> Player | None:
    """The seat with dice and legal moves, or None once the game has ended."""
    white = table.players["White"]
    with deadline(timeout, "a roll with legal moves or the end of the game"):
        while True:
            if events_of(white, GameEnded):
                return None
            if (player := table.seat_to_move()) is not None:
                return player
            await trio.sleep(0.01)


async def play_and_resign(server, rng: random.Random) -> tuple[dict, Player]:
    """Play games until one has had a forced pass and a turn from each seat, then Black resigns.

    Returns the game's creation body and White's player (whose `events` hold everything
    White's socket received, in order).
    """
    for _ in range(GAMES_TRIED):
        game = await create_game(server.base_url, timeControl={"Unlimited": {}})
        table = Table(Player(server.ws_url, game, "White"), Player(server.ws_url, game, "Black"))
        async with table.open():
            for seat, player in table.players.items():
                await player.ws.send_message(encode_command(SubmitSeed(CLIENT_SEEDS[seat])))
            white, black = table.players["White"], table.players["Black"]
            for _ in range(TURNS_MAX):
                mover = await next_roll_or_end(table)
                if mover is None:
                    break  # a king was captured before the game had everything we need: next game
                turns = events_of(white, TurnPlayed)
                if any(not t.moves for t in turns) and {t.seat for t in turns if t.moves} == {"White", "Black"}:
                    await black.ws.send_message(encode_command(Resign()))
                    await table.wait_for(black, lambda e: isinstance(e, GameEnded))
                    await table.wait_for(white, lambda e: isinstance(e, GameEnded))
                    for player in (white, black):
                        assert not events_of(player, Rejected), events_of(player, Rejected)
                    return game, white
                moves = await table.submit(mover, rng)
                await table.wait_for(mover, lambda e, m=moves: isinstance(e, TurnPlayed) and list(e.moves) == m)
    raise AssertionError(f"no game of {GAMES_TRIED} had a forced pass before it ended")


async def get(url: str) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.get(url, timeout=10)


async def verify(source: str) -> tuple[int, str]:
    done = await trio.run_process(
        [sys.executable, "-m", "playsite", "verify", source], capture_stdout=True, capture_stderr=True, check=False
    )
    return done.returncode, (done.stdout + done.stderr).decode()


def assert_not_found(response: httpx.Response) -> None:
    assert response.status_code == 404, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["error"]["code"] == "game_not_found" and isinstance(body["error"]["message"], str)


def assert_archive_matches_the_game(record: dict, game: dict, white: Player) -> None:
    errors = sorted(validator("history").iter_errors(record), key=str)
    assert not errors, "\n".join(e.message for e in errors)
    ended = events_of(white, GameEnded)[-1]
    assert ended.over.termination == "Resign" and ended.over.result == Win("White")
    assert record["gameId"] == game["gameId"]
    assert (record["termination"], record["result"], record["rated"]) == ("resign", 1, False)
    assert record["timeControl"] == {"Unlimited": {}}
    assert record["initialDfen"] == format_dfen(START_POSITION)
    assert record["fairness"] == {
        "commit": game["commit"],
        "seed": ended.seed,
        "clientSeeds": {"white": CLIENT_SEEDS["White"], "black": CLIENT_SEEDS["Black"]},
    }
    played = events_of(white, TurnPlayed)
    rolled = events_of(white, DiceRolled)
    turns = record["turns"]
    assert [t["turnNumber"] for t in turns] == list(range(1, len(played) + 1))
    assert [(t["activeColor"], t["moves"], t["fenAfter"]) for t in turns] == [
        (t.seat, list(t.moves), t.fen_after) for t in played
    ]
    # Every roll made a turn, except one still waiting for its mover at the resignation, which
    # the record keeps as the roll the game ended on.
    assert len(rolled) - len(turns) in (0, 1)
    assert [t["dice"] for t in turns] == [list(r.dice) for r in rolled[: len(turns)]]
    if len(rolled) > len(turns):
        assert record["unplayedRoll"] == {"activeColor": rolled[-1].seat, "dice": list(rolled[-1].dice)}
    else:
        assert "unplayedRoll" not in record
    assert any(t["moves"] == [] for t in turns), "the forced pass is in the record"


async def check_verifier(url: str, record: dict, tmp_path) -> None:
    code, output = await verify(url)
    assert code == 0, output
    unplayed = " and the unplayed last roll" if "unplayedRoll" in record else ""
    assert f"{len(record['turns'])} turns{unplayed} checked" in output
    tampered = json.loads(json.dumps(record))
    die = tampered["turns"][-1]["dice"]
    die[0] = die[0] % 6 + 1
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(tampered))
    code, output = await verify(str(path))
    assert code == 1, output
    assert "MISMATCH" in output and f"turn {len(record['turns'])} " in output


@pytest.mark.parametrize("durability", ["best_effort", "required"])
async def test_history_of_a_game_played_over_sockets(serve, migrated_url, durability, tmp_path):
    env = {"DATABASE_URL": migrated_url, "DICE_SEED_WINDOW_MS": "2000", "GAME_DURABILITY": durability}
    server = serve(env)
    game, white = await play_and_resign(server, random.Random(11))
    url = f"{server.base_url}/games/{game['gameId']}/history"

    response = await get(url)
    assert response.status_code == 200, response.text
    assert response.headers["Cache-Control"] == IMMUTABLE
    assert response.headers["content-type"].startswith("application/json")
    record = response.json()
    assert_archive_matches_the_game(record, game, white)
    await check_verifier(url, record, tmp_path)

    assert_not_found(await get(f"{server.base_url}/games/{uuid.uuid4()}/history"))
    assert_not_found(await get(f"{server.base_url}/games/not-a-uuid/history"))

    active = await create_game(server.base_url, timeControl={"Unlimited": {}})
    assert (await get(f"{server.base_url}/games/{active['gameId']}")).status_code == 200
    response = await get(f"{server.base_url}/games/{active['gameId']}/history")
    assert_not_found(response)
    assert response.headers["Cache-Control"] == "no-cache"

    # The archive is PostgreSQL's, not the process's: a new process serves the same bytes.
    assert server.stop() == 0
    restarted = serve(env)
    again = await get(f"{restarted.base_url}/games/{game['gameId']}/history")
    assert again.status_code == 200 and again.headers["Cache-Control"] == IMMUTABLE
    assert again.json() == record


async def test_history_is_served_from_memory_while_the_process_lives(serve, tmp_path):
    env = {"DATABASE_URL": "", "DICE_SEED_WINDOW_MS": "2000"}
    server = serve(env)
    health = (await get(f"{server.base_url}/health")).json()
    assert health["store"] == {"kind": "memory", "durable": False, "reachable": True}
    game, white = await play_and_resign(server, random.Random(12))
    url = f"{server.base_url}/games/{game['gameId']}/history"

    response = await get(url)
    assert response.status_code == 200, response.text
    assert response.headers["Cache-Control"] == IMMUTABLE
    record = response.json()
    assert_archive_matches_the_game(record, game, white)
    await check_verifier(url, record, tmp_path)

    assert server.stop() == 0
    restarted = serve(env)
    assert_not_found(await get(f"{restarted.base_url}/games/{game['gameId']}/history"))
