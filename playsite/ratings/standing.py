"""Whether a profile page names somebody (`/@/<nickname>`, `/@/<team>/<name>`): an account or a
registered bot that exists, a name nobody has (the page is served as a 404), or not known for
sure (no database keeps profiles, or it did not answer: the page is served and says itself)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import psycopg
import trio

from playsite.accounts.model import NICKNAME
from playsite.bots.directory import SLUG
from playsite.ratings.queries import bot_principal, player_principal
from playsite.refusals import READ_TIMEOUT_S
from playsite.store.database import Database, DatabaseUnavailable

Known = Literal["known", "unknown", "unsure"]


async def profile_standing(database: Database | None, names: tuple[str, ...]) -> Known:
    """`names`: a nickname alone, or a bot's team and name."""
    if database is None:
        return "unsure"
    reader: Callable[[psycopg.Connection, str], str | None]
    if len(names) == 1 and NICKNAME.fullmatch(names[0]):
        reader, key = player_principal, names[0]
    elif len(names) == 2 and all(SLUG.fullmatch(name) for name in names):
        reader, key = bot_principal, "/".join(names)
    else:
        return "unknown"  # no query for a name nobody can have
    with trio.move_on_after(READ_TIMEOUT_S):
        try:
            principal = await database.run(lambda conn: reader(conn, key))
        except DatabaseUnavailable:
            return "unsure"
        return "unknown" if principal is None else "known"
    return "unsure"
