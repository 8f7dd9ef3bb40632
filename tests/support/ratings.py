"""Rating periods over a real PostgreSQL: the migrated database with the bots in `BOTS`
(`store`, a fixture), `game_results` rows inserted by SQL (`History`), accounts made as
sign-in makes them, and the Glicko-2 period computed by hand to compare against."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime, timedelta, timezone

import psycopg
import pytest
from psycopg.types.json import Jsonb

from playsite.accounts import queries as accounts
from playsite.ratings.batch import apply_pending
from playsite.ratings.glicko2 import Rating, rate
from playsite.store.database import Database
from playsite.store.migrations import apply_pending as migrate
from playsite.store.migrations import load_migrations
from playsite.store.postgres import PostgresStore

BOTS = ["red/ant", "red/bee", "blue/cat", "blue/dog", "green/eel", "green/fox"]
START = datetime(2026, 7, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
async def store(database_url):
    with psycopg.connect(database_url, autocommit=True) as conn:
        migrate(conn, load_migrations())
        for bot_id in BOTS:
            team, name = bot_id.split("/")
            conn.execute(
                "INSERT INTO bots (id, team, name, token_hash) VALUES (%s, %s, %s, %s)",
                (bot_id, team, name, hashlib.sha256(bot_id.encode()).digest()),
            )
    database = Database(database_url, pool_size=2, statement_timeout_ms=5000)
    await database.open()
    try:
        yield PostgresStore(database)
    finally:
        await database.close()


class History:
    """Inserts game_results rows by SQL and remembers them."""

    def __init__(self, url: str):
        self.url = url
        self.clock = START

    def add(self, white, black, result: int | None, *, rated: bool = True, principals=None, time_control=None,
            abort: tuple[str, str | None] = (None, None)) -> uuid.UUID:
        """A game's results row; `abort`: an aborted game's (cause, seat), as the room writes it."""
        game_id = uuid.uuid4()
        self.clock += timedelta(minutes=1)
        white_p, black_p = principals or (f"bot:{white}", f"bot:{black}")
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(
                "INSERT INTO game_results (game_id, finished_at, rated, origin, white_principal, black_principal,"
                " result, termination, time_control, abort_cause, abort_seat)"
                " VALUES (%s, %s, %s, 'ladder', %s, %s, %s, %s, %s, %s, %s)",
                (game_id, self.clock, rated, white_p, black_p, result, "aborted" if result is None else "checkmate",
                 Jsonb(time_control or {"initialS": 300, "incrementS": 3}), *abort),
            )
        return game_id


def query(url: str, sql: str, params=()):
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchall()


def period_by_hand(before: dict[str, Rating], games: list[tuple[str, str, int]]) -> dict[str, Rating]:
    """One Glicko-2 rating period: each player against the opponents' ratings from `before`."""
    results: dict[str, list] = {}
    for white, black, result in games:
        white_score = {1: 1.0, 0: 0.5, -1: 0.0}[result]
        results.setdefault(white, []).append((before.get(black, Rating()), white_score))
        results.setdefault(black, []).append((before.get(white, Rating()), 1.0 - white_score))
    after = dict(before)
    for bot, played in results.items():
        after[bot] = rate(before.get(bot, Rating()), played)
    return after


def account(url: str, nickname: str):
    with psycopg.connect(url) as conn:
        made = accounts.sign_in(conn, "https://id.example", nickname, {"nickname": nickname})
        conn.commit()
    return made


async def one_period(database_url: str) -> int:
    """One run of the rating batch on its own connection: how many results it applied."""
    database = Database(database_url, pool_size=1)
    await database.open()
    try:
        return await apply_pending(database)
    finally:
        await database.close()
