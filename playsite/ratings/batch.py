"""The rating batch: applies the game-results projection to `bot_ratings`, one period a run.

One run of `apply_pending` is one Glicko-2 rating period, done in ONE transaction under
`pg_advisory_xact_lock(RATING_LOCK_KEY)`:

1. select the pending eligible results: `rated`, decided (`result` not NULL),
   `rating_applied_at` NULL, both principals registered bots (`bot:<bots.id>`), two
   different bots; oldest first, at most `limit` rows (the rest is next period's);
2. read every involved bot's stored rating (absent: 1500/350/0.06) and age it by one
   idle step (φ*) per whole day since its `updated_at` — its PRE-period rating;
3. rate each bot with all its games of the period against the opponents' PRE-period
   ratings (`glicko2.rate`), count games/wins/draws/losses;
4. upsert `bot_ratings` and set `rating_applied_at = now()` on exactly those rows.

A crash or error anywhere rolls the whole period back: nothing is applied, and the next run
selects the same rows again. The lock plus READ COMMITTED (each statement sees what the
previous holder committed) means two batches never interleave and never apply a game twice.

Never selected, so never rated and left with `rating_applied_at` NULL (the column means
"this result is in bot_ratings", nothing else): unrated games, aborted games, games with a
guest or an anonymous bot (or a bot no longer registered) on either side, self-play.

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

import trio

from playsite.periodic import run_every
from playsite.ratings.glicko2 import Rating, age, rate

log = logging.getLogger("playsite.ratings")

RATING_PERIOD_S = 3600.0
"""How often the service runs a period: bots on the ladder play about 10-15 games an hour."""
IDLE_STEP_S = 86400.0
"""Length of one inactivity step (φ* without games) for a bot that did not play."""
MAX_GAMES_PER_PERIOD = 10_000
"""Bounds one transaction under the statement timeout; a larger backlog spans periods."""
RATING_LOCK_KEY = 0x72617465  # "rate": pg_advisory_xact_lock key of the rating batch

_PENDING = """
SELECT r.game_id, w.id, b.id, r.result
FROM game_results r
JOIN bots w ON r.white_principal = 'bot:' || w.id
JOIN bots b ON r.black_principal = 'bot:' || b.id
WHERE r.rated AND r.result IS NOT NULL AND r.rating_applied_at IS NULL AND w.id <> b.id
ORDER BY r.finished_at, r.game_id
LIMIT %s
"""

_UPSERT = """
INSERT INTO bot_ratings (bot_id, rating, rd, volatility, games, wins, draws, losses, updated_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (bot_id) DO UPDATE SET
    rating = EXCLUDED.rating,
    rd = EXCLUDED.rd,
    volatility = EXCLUDED.volatility,
    games = bot_ratings.games + EXCLUDED.games,
    wins = bot_ratings.wins + EXCLUDED.wins,
    draws = bot_ratings.draws + EXCLUDED.draws,
    losses = bot_ratings.losses + EXCLUDED.losses,
    updated_at = EXCLUDED.updated_at
"""


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


def _apply_period(conn, limit: int) -> int:
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (RATING_LOCK_KEY,))
        now = conn.execute("SELECT now()").fetchone()[0]
        games = conn.execute(_PENDING, (limit,)).fetchall()
        if not games:
            return 0
        bots = sorted({white for _, white, _, _ in games} | {black for _, _, black, _ in games})
        stored = {
            bot_id: as_of(Rating(rating, rd, volatility), updated_at, now)
            for bot_id, rating, rd, volatility, updated_at in conn.execute(
                "SELECT bot_id, rating, rd, volatility, updated_at FROM bot_ratings"
                " WHERE bot_id = ANY(%s) FOR UPDATE",
                (bots,),
            )
        }
        before = {bot_id: stored.get(bot_id, Rating()) for bot_id in bots}
        played: dict[str, list[tuple[Rating, float]]] = defaultdict(list)
        for _, white, black, result in games:
            played[white].append((before[black], _score(result, True)))
            played[black].append((before[white], _score(result, False)))
        rows = []
        for bot_id in bots:
            after = rate(before[bot_id], played[bot_id])
            scores = [score for _, score in played[bot_id]]
            wins, draws = scores.count(1.0), scores.count(0.5)
            losses = len(scores) - wins - draws
            rows.append((bot_id, after.rating, after.rd, after.volatility, len(scores), wins, draws, losses, now))
        with conn.cursor() as cursor:
            cursor.executemany(_UPSERT, rows)
        applied = conn.execute(
            "UPDATE game_results SET rating_applied_at = %s WHERE game_id = ANY(%s) AND rating_applied_at IS NULL",
            (now, [game_id for game_id, _, _, _ in games]),
        ).rowcount
        if applied != len(games):  # impossible under the lock; refuse to commit a double count
            raise RuntimeError(f"rating batch marked {applied} of {len(games)} results")
        return len(games)


async def apply_pending(store, *, limit: int = MAX_GAMES_PER_PERIOD) -> int:
    """Run one rating period over what is pending; returns the number of games applied."""
    database = getattr(store, "database", None)
    if database is None:
        raise RatingBatchUnavailable("the rating batch needs the PostgreSQL store")
    return await database.run(lambda conn: _apply_period(conn, limit))


async def run_rating_batch(store, *, period_s: float = RATING_PERIOD_S, task_status=trio.TASK_STATUS_IGNORED):
    """Supervised service: a rating period now (catching up after a restart), then every `period_s`."""
    if getattr(store, "database", None) is None:
        raise RatingBatchUnavailable("the rating batch needs the PostgreSQL store")
    async def period() -> None:
        if applied := await apply_pending(store):
            log.info("rating batch applied games=%d", applied)

    await run_every(period_s, period, name="rating batch", task_status=task_status)
