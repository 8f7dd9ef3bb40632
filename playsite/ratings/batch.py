"""The rating batch: applies the game-results projection to the ratings of bots
(`bot_ratings`) and accounts (`account_ratings`), one period a run: one pool, people and
bots rated against each other.

One run of `apply_pending` is one Glicko-2 rating period, done in ONE transaction under
`pg_advisory_xact_lock(RATING_LOCK_KEY)`:

1. select the pending eligible results: `rated`, decided (`result` not NULL),
   `rating_applied_at` NULL, each side a registered bot (`bot:<bots.id>`) or an account
   that was not deleted (`user:<accounts.id>`; a deactivated account is still rated: its
   games were real), two different principals; oldest first, at most `limit` rows;
2. read every involved player's stored rating (absent: 1500/350/0.06) and age it by one
   idle step (φ*) per whole day since its `updated_at` — its PRE-period rating;
3. rate each player with all its games of the period against the opponents' PRE-period
   ratings (`glicko2.rate`), count games/wins/draws/losses;
4. upsert `bot_ratings` / `account_ratings`, add one `rating_history` row per player of the
   period (its rating after it and the period's games), and set `rating_applied_at = now()`
   on exactly those rows, with each side's PRE-period rating and the game's share of its
   change (`glicko2.shares`: the shares of a player's period add up to its change).

A crash or error anywhere rolls the whole period back: nothing is applied, and the next run
selects the same rows again. The lock plus READ COMMITTED (each statement sees what the
previous holder committed) means two batches never interleave and never apply a game twice.

Never selected, so never rated and left with `rating_applied_at` NULL (the column means
"this result is in the ratings", nothing else): unrated games, aborted games, games with a
guest, an anonymous bot, a bot no longer registered or a deleted account on either side,
self-play.

Bots that did not play in a period are not touched. Their inactivity is applied lazily, by
`as_of`: one φ* step per whole idle day (`IDLE_STEP_S`), capped at RD 350, when they next
play — and `as_of` is what a reader uses to show a current RD. Counting idle steps per batch
run instead would make the RD of an absent bot depend on how often the batch happens to run.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from datetime import datetime

import psycopg
import trio

from playsite.periodic import run_every
from playsite.principals import Kind, Principal
from playsite.ratings.book import RatingBook
from playsite.ratings.glicko2 import Rating, age, rate, shares
from playsite.store.database import Database

log = logging.getLogger("playsite.ratings")

RATING_PERIOD_S = 3600.0
"""How often the service runs a period: bots on the ladder play about 10-15 games an hour."""
IDLE_STEP_S = 86400.0
"""Length of one inactivity step (φ* without games) for a bot that did not play."""
MAX_GAMES_PER_PERIOD = 10_000
"""Bounds one transaction under the statement timeout; a larger backlog spans periods."""
RATING_LOCK_KEY = 0x72617465  # "rate": pg_advisory_xact_lock key of the rating batch

# A rated side is a registered bot ('bot:' || bots.id) or an account that was not deleted
# ('user:' || accounts.id): people and bots share one pool.
_RATED_SIDE = """(
    EXISTS (SELECT 1 FROM bots b WHERE 'bot:' || b.id = {side})
    OR EXISTS (SELECT 1 FROM accounts a WHERE 'user:' || a.id::text = {side} AND a.status <> 'deleted')
)"""

_PENDING = f"""
SELECT r.game_id, r.white_principal, r.black_principal, r.result
FROM game_results r
WHERE r.rated AND r.result IS NOT NULL AND r.rating_applied_at IS NULL
  AND r.white_principal <> r.black_principal
  AND {_RATED_SIDE.format(side="r.white_principal")}
  AND {_RATED_SIDE.format(side="r.black_principal")}
ORDER BY r.finished_at, r.game_id
LIMIT %s
"""

_COUNTERS = """
    rating = EXCLUDED.rating,
    rd = EXCLUDED.rd,
    volatility = EXCLUDED.volatility,
    games = {table}.games + EXCLUDED.games,
    wins = {table}.wins + EXCLUDED.wins,
    draws = {table}.draws + EXCLUDED.draws,
    losses = {table}.losses + EXCLUDED.losses,
    updated_at = EXCLUDED.updated_at
"""

_UPSERT = {
    Kind.BOT: "INSERT INTO bot_ratings (bot_id, rating, rd, volatility, games, wins, draws, losses, updated_at)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (bot_id) DO UPDATE SET"
    + _COUNTERS.format(table="bot_ratings"),
    Kind.USER: "INSERT INTO account_ratings (account_id, rating, rd, volatility, games, wins, draws, losses, updated_at)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (account_id) DO UPDATE SET"
    + _COUNTERS.format(table="account_ratings"),
}
_HISTORY = (
    "INSERT INTO rating_history (principal, period_at, rating, rd, games, wins, draws, losses)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
_APPLIED = """
UPDATE game_results r
   SET rating_applied_at = %s,
       white_rating_before = c.white_before, white_rating_change = c.white_change,
       black_rating_before = c.black_before, black_rating_change = c.black_change
  FROM unnest(%s::uuid[], %s::float8[], %s::float8[], %s::float8[], %s::float8[])
       AS c(game_id, white_before, white_change, black_before, black_change)
 WHERE r.game_id = c.game_id AND r.rating_applied_at IS NULL
"""
_STORED = {
    Kind.BOT: "SELECT 'bot:' || bot_id, rating, rd, volatility, updated_at FROM bot_ratings"
    " WHERE bot_id = ANY(%s) FOR UPDATE",
    Kind.USER: "SELECT 'user:' || account_id::text, rating, rd, volatility, updated_at FROM account_ratings"
    " WHERE account_id::text = ANY(%s) FOR UPDATE",
}


def _rated_side(principal: str) -> Principal:
    """A side the pending query selected: a registered bot or an account, never a guest."""
    side = Principal.parse(principal)
    if side is None or not side.is_rated:  # impossible: _PENDING selects rated sides only
        raise RuntimeError(f"rating batch selected {principal!r}, which is not a rated side")
    return side


class RatingBatchUnavailable(RuntimeError):
    """The rating batch needs the PostgreSQL store (RATING_BATCH_ENABLED requires persistence)."""


def idle_steps(updated_at: datetime, now: datetime) -> int:
    """Whole inactivity steps between a bot's last rating update and `now`."""
    return max(0, math.floor((now - updated_at).total_seconds() / IDLE_STEP_S))


def as_of(stored: Rating, updated_at: datetime, now: datetime) -> Rating:
    """A stored rating as it stands at `now`: RD grown by the idle steps since `updated_at`."""
    return age(stored, idle_steps(updated_at, now))


def _score(result: int, as_white: bool) -> float:
    points = (result + 1) / 2  # White's score: 1, 0.5, 0
    return points if as_white else 1.0 - points


def _apply_period(conn: psycopg.Connection, limit: int) -> int:
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (RATING_LOCK_KEY,))
        now = conn.execute("SELECT now()").fetchall()[0][0]
        games = conn.execute(_PENDING, (limit,)).fetchall()
        if not games:
            return 0
        players = sorted({white for _, white, _, _ in games} | {black for _, _, black, _ in games})
        sides = {principal: _rated_side(principal) for principal in players}
        stored: dict[str, Rating] = {}
        for kind, query in _STORED.items():
            keys = [side.id for side in sides.values() if side.kind is kind]
            if keys:
                stored.update(
                    (principal, as_of(Rating(rating, rd, volatility), updated_at, now))
                    for principal, rating, rd, volatility, updated_at in conn.execute(query, (keys,))
                )
        before = {principal: stored.get(principal, Rating()) for principal in players}
        played: dict[str, list[tuple[Rating, float]]] = defaultdict(list)
        seats: dict[str, list[tuple[str, str]]] = defaultdict(list)  # (game id, "white"/"black"), as played
        for game_id, white, black, result in games:
            played[white].append((before[black], _score(result, True)))
            played[black].append((before[white], _score(result, False)))
            seats[white].append((game_id, "white"))
            seats[black].append((game_id, "black"))
        rows: dict[Kind, list[tuple[object, ...]]] = defaultdict(list)
        history = []
        changes: dict[tuple[str, str], float] = {}
        for principal in players:
            after = rate(before[principal], played[principal])
            changes.update(zip(seats[principal], shares(before[principal], played[principal], after), strict=True))
            scores = [score for _, score in played[principal]]
            wins, draws = scores.count(1.0), scores.count(0.5)
            losses = len(scores) - wins - draws
            side = sides[principal]
            history.append((principal, now, after.rating, after.rd, len(scores), wins, draws, losses))
            rows[side.kind].append(
                (side.id, after.rating, after.rd, after.volatility, len(scores), wins, draws, losses, now)
            )
        with conn.cursor() as cursor:
            for kind, kind_rows in rows.items():
                cursor.executemany(_UPSERT[kind], kind_rows)
            cursor.executemany(_HISTORY, history)
        applied = conn.execute(
            _APPLIED,
            (
                now,
                [game_id for game_id, _, _, _ in games],
                [before[white].rating for _, white, _, _ in games],
                [changes[game_id, "white"] for game_id, _, _, _ in games],
                [before[black].rating for _, _, black, _ in games],
                [changes[game_id, "black"] for game_id, _, _, _ in games],
            ),
        ).rowcount
        if applied != len(games):  # impossible under the lock; refuse to commit a double count
            raise RuntimeError(f"rating batch marked {applied} of {len(games)} results")
        return len(games)


async def apply_pending(database: Database, *, limit: int = MAX_GAMES_PER_PERIOD) -> int:
    """Run one rating period over what is pending; returns the number of games applied."""
    return await database.run(lambda conn: _apply_period(conn, limit))


async def run_rating_batch(
    database: Database | None,
    *,
    period_s: float = RATING_PERIOD_S,
    book: RatingBook | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Supervised service: a rating period now (catching up after a restart), then every `period_s`.
    A period that rated games refreshes `book` at once, so the names on the board show the new
    ratings as soon as the profiles do (not up to the book's own 30 s later)."""
    if database is None:
        raise RatingBatchUnavailable("the rating batch needs the PostgreSQL store")

    async def period() -> None:
        if applied := await apply_pending(database):
            log.info("rating batch applied games=%d", applied)
            if book is not None:
                await book.refresh()

    await run_every(period_s, period, name="rating batch", task_status=task_status)
