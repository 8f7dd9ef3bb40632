"""The rating a bot shows in the ladder state and the catalog, and the rating each player of a
live game shows beside their name (`GET /games/{id}/ratings`).

Callers read synchronously (`book.rating_of(bot_id)`, `book.rating_of_principal(p)`, no I/O on a
request path), so the ratings live in the boot's `RatingBook`, refreshed from `bot_ratings` and
`account_ratings` (written only by the rating batch): every `REFRESH_S` by a loop the boot
starts, and at each ladder round. A bot or an account without a row — and every one on the
memory store — shows Glickman's starting values.
A failed refresh keeps the last good book: a rating may be a little old, never an error.
"""

from __future__ import annotations

import logging

import attrs
import psycopg
import trio

from playsite.bots.directory import ANON_TEAM
from playsite.periodic import run_every
from playsite.principals import Kind, Principal
from playsite.store.database import Database, DatabaseUnavailable

log = logging.getLogger("playsite.ratings")

DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
PROVISIONAL_RD = 110.0
"""Above this deviation a rating has not converged: shown, flagged provisional; the
leaderboard lists only ratings at or below it."""
ANONYMOUS_BOTS = f"{ANON_TEAM}/"
"""Anonymous bots' ids begin so; the rating batch never rates them."""
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


class RatingBook:
    """The ratings of every rated bot and account, as last read from the store."""

    def __init__(self, database: Database | None = None):
        self.database = database
        """Where the ratings live; None (the memory store): everyone shows the starting values."""
        self._ratings: dict[str, Rating] = {}
        """By bot id (`team/name`)."""
        self._accounts: dict[str, Rating] = {}
        """By account id."""

    def rating_of(self, bot_id: str) -> Rating:
        return self._ratings.get(bot_id, DEFAULT)

    def rating_of_principal(self, principal: str | None) -> Rating | None:
        """A registered bot's or an account's rating (the starting values before its first rated
        game, or while the book has not read it yet); None for a guest or an anonymous bot,
        which are never rated."""
        parsed = Principal.parse(principal)
        if parsed is None or not parsed.is_rated:
            return None
        if parsed.kind is Kind.BOT:
            return None if parsed.id.startswith(ANONYMOUS_BOTS) else self._ratings.get(parsed.id, DEFAULT)
        return self._accounts.get(parsed.id, DEFAULT)

    def public(self, principal: str | None) -> dict[str, object] | None:
        """What a page shows beside a name: `{"rating", "rd", "provisional"}`, or None for a guest,
        an anonymous bot, or a server that keeps no ratings (the memory store)."""
        rating = self.rating_of_principal(principal) if self.database is not None else None
        if rating is None:
            return None
        return {"rating": round(rating.rating, 1), "rd": round(rating.rd, 1), "provisional": rating.provisional}

    def replace(self, ratings: dict[str, Rating], accounts: dict[str, Rating] | None = None) -> None:
        """Swap in a whole new book (one assignment each: a reader sees a whole refresh of a
        kind, never half of one)."""
        self._ratings = dict(ratings)
        if accounts is not None:
            self._accounts = dict(accounts)

    async def refresh(self) -> bool:
        """Re-read every rating from PostgreSQL; False (book unchanged) on the memory store or
        when the database is unavailable."""
        if self.database is None:
            return False
        try:
            self.replace(*await self.database.run(_read_book))
        except (DatabaseUnavailable, psycopg.Error) as error:
            log.warning("ratings: refresh failed, keeping the last ratings (%s)", type(error).__name__)
            return False
        return True

    async def run_refresh(
        self, *, period_s: float = REFRESH_S, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Refresh now (the boot waits for it), then every `period_s`."""
        await run_every(period_s, self.refresh, name="ratings refresh", ready_after_first_round=True, task_status=task_status)


def _read_book(conn: psycopg.Connection) -> tuple[dict[str, Rating], dict[str, Rating]]:
    """The rated bots' and accounts' ratings; one without a row reads the starting values
    (`rating_of`, `rating_of_principal`), so only the rows are read."""
    bots = conn.execute("SELECT bot_id, rating, rd FROM bot_ratings").fetchall()
    accounts = conn.execute("SELECT account_id, rating, rd FROM account_ratings").fetchall()
    return (
        {bot_id: Rating(float(rating), float(rd)) for bot_id, rating, rd in bots},
        {str(account_id): Rating(float(rating), float(rd)) for account_id, rating, rd in accounts},
    )
