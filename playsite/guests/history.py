"""Queries behind `GET /players/{guestId}/games` and `/opponents`: a guest's finished games
from their own side, newest first, in the ecosystem site's shapes.

A guest id is not a secret the way a token is (it seats nobody), and these reads show only
what the public history of each game already shows, reframed for one side: no other guest id
and no account id ever appears, only public faces.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs
import psycopg

from playsite import principals
from playsite.ratings.queries import (
    OWN_GAME_COLUMNS, OWN_GAMES, OWN_GAMES_OF_ANY, RESULTS, nicknames_of, own_game, read_opponents,
)

GAMES_PAGE = 20
"""Games per page of `GET /players/{guestId}/games`."""
SCORES = {name: score for score, name in RESULTS.items()}


@attrs.frozen
class GamesFilter:
    """The page asked for: the opponent ('human' or a bot's 'team/name'), the guest's result,
    and the keyset cursor (only games finished strictly before it)."""

    vs: str | None = None
    result: str | None = None
    before: datetime | None = None


def read_guest_games(
    conn: psycopg.Connection, principal: str, wanted: GamesFilter, *, also: Sequence[str] = ()
) -> dict[str, object]:
    """A page of `principal`'s games from its side; with `also` (the guests an account claimed),
    theirs too, in one list."""
    conditions: list[str] = []
    values: dict[str, object] = {"p": [principal, *also] if also else principal, "limit": GAMES_PAGE + 1}
    if wanted.vs == "human":
        conditions.append("(other IS NULL OR other NOT LIKE 'bot:%%')")
    elif wanted.vs is not None:
        conditions.append("other = %(vs)s")
        values["vs"] = principals.bot(wanted.vs)
    if wanted.result is not None:
        conditions.append("score = %(score)s")
        values["score"] = SCORES[wanted.result]
    if wanted.before is not None:
        # At the precision `finishedAt` is written with, so the oldest game shown is not shown again.
        conditions.append("date_trunc('milliseconds', finished_at) < %(before)s")
        values["before"] = wanted.before
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    rows = conn.execute(
        f"""
        SELECT {OWN_GAME_COLUMNS}
          FROM ({OWN_GAMES_OF_ANY if also else OWN_GAMES}) own {where}
         ORDER BY finished_at DESC, game_id DESC
         LIMIT %(limit)s
        """,
        values,
    ).fetchall()
    page = rows[:GAMES_PAGE]
    names = nicknames_of(conn, [row[2] for row in page])
    games = []
    for row in page:
        game = own_game(row, names)
        games.append({**game, "timeControl": time_control_text(game["timeControl"])})
    return {"games": games, "hasMore": len(rows) > GAMES_PAGE}


def read_guest_opponents(conn: psycopg.Connection, principal: str) -> dict[str, object]:
    """The guest's record per registered bot, and one row for every person together."""
    return {"opponents": read_opponents(conn, principal)}


def time_control_text(encoded: dict) -> str:
    """The ecosystem's text form of a time control in these lists: `Fischer(300,3)`,
    `SuddenDeath(300)`, `PerMove(30)`, `Unlimited`."""
    (kind, fields), = encoded.items()
    if kind == "Fischer":
        return f"Fischer({fields['initialSeconds']},{fields['incrementSeconds']})"
    if kind == "SuddenDeath":
        return f"SuddenDeath({fields['initialSeconds']})"
    if kind == "PerMove":
        return f"PerMove({fields['secondsPerMove']})"
    return kind
