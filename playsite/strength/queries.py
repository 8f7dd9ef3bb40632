"""The strength report's one query: rated results counted in PostgreSQL (`game_results`),
grouped by who played and how it ended, so the answer has a few rows per matchup however
many games were played. Run inside `Database.run`."""

from __future__ import annotations

import psycopg

from playsite.strength.report import ResultRow


def _bot_side(column: str) -> str:
    # Everything that is not a bot collapses to NULL, so the answer has a few rows per matchup.
    return f"CASE WHEN {column} LIKE 'bot:%%' THEN {column} END"


_RATED_COUNTS = f"""
SELECT {_bot_side("white_principal")}, {_bot_side("black_principal")}, result, count(*)
  FROM game_results
 WHERE rated
 GROUP BY 1, 2, 3
"""


def read_rated_counts(conn: psycopg.Connection) -> list[ResultRow]:
    return [(white, black, result, int(games)) for white, black, result, games in conn.execute(_RATED_COUNTS)]
