"""The rating a bot shows in the ladder state and the catalog.

Callers read synchronously (`rating_of(bot_id)`, no I/O on a request path), so the ratings
live in a process-wide book that is refreshed from `bot_ratings` (written only by the rating
batch): every `REFRESH_S` by the ratings blueprint's serving task, and at each ladder round.
A bot without a row — and every bot on the memory store — shows Glickman's starting values.
A failed refresh keeps the last good book: a rating may be a little old, never an error.
"""

from __future__ import annotations

import logging

import attrs
import psycopg
import trio

from playsite.store.database import DatabaseUnavailable

log = logging.getLogger("playsite.ratings")

DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
PROVISIONAL_RD = 110.0
"""Above this deviation a rating has not converged: shown, flagged provisional; the
leaderboard lists only ratings at or below it."""
REFRESH_S = 30.0
"""How often the served process re-reads bot_ratings (the batch runs far less often)."""


@attrs.frozen
class Rating:
    rating: float
    rd: float

    @property
    def provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


DEFAULT = Rating(DEFAULT_RATING, DEFAULT_RD)

_book: dict[str, Rating] = {}


def rating_of(bot_id: str) -> Rating:
    return _book.get(bot_id, DEFAULT)


def replace_book(ratings: dict[str, Rating]) -> None:
    """Swap in a whole new book (one assignment: readers never see half of a refresh)."""
    global _book
    _book = dict(ratings)


def clear_book() -> None:
    replace_book({})


def _read_book(conn) -> dict[str, Rating]:
    rows = conn.execute("SELECT bot_id, rating, rd FROM bot_ratings").fetchall()
    return {bot_id: Rating(float(rating), float(rd)) for bot_id, rating, rd in rows}


async def refresh_ratings(store) -> bool:
    """Re-read every rating from PostgreSQL; False (book unchanged) on the memory store or
    when the database is unavailable."""
    if getattr(store, "kind", None) != "postgres":
        return False
    try:
        replace_book(await store.database.run(_read_book))
    except (DatabaseUnavailable, psycopg.Error) as error:
        log.warning("ratings: refresh failed, keeping the last ratings (%s)", error)
        return False
    return True


async def run_refresh(store, *, period_s: float = REFRESH_S, task_status=trio.TASK_STATUS_IGNORED) -> None:
    """Refresh now, then every `period_s`, until cancelled (memory store: nothing to do)."""
    if getattr(store, "kind", None) != "postgres":
        task_status.started()
        return
    await refresh_ratings(store)
    task_status.started()
    while True:
        await trio.sleep(period_s)
        await refresh_ratings(store)
