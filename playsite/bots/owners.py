"""Which account owns which registered bot (sql/009_webhook_management.sql `bot_owners`).

An account becomes a bot's owner by presenting the bot's bearer token once (`POST /me/bots`):
holding the token is holding the bot. A bot has at most one owner; the owner may release it,
and then anyone with the token may claim it. Every function runs inside `Database.run`.
"""

from __future__ import annotations

import uuid
from datetime import datetime

import psycopg


def claim(conn: psycopg.Connection, bot_id: str, account_id: uuid.UUID) -> tuple[uuid.UUID, datetime, bool]:
    """(owner, claimed at, newly claimed): the owner afterwards, who may be someone else."""
    inserted = conn.execute(
        "INSERT INTO bot_owners (bot_id, account_id) VALUES (%s, %s) ON CONFLICT (bot_id) DO NOTHING RETURNING claimed_at",
        (bot_id, account_id),
    ).fetchone()
    if inserted is not None:
        return account_id, inserted[0], True
    found = conn.execute("SELECT account_id, claimed_at FROM bot_owners WHERE bot_id = %s", (bot_id,)).fetchone()
    assert found is not None  # the insert conflicted on this row, which nothing deletes in this transaction
    owner, claimed_at = found
    return owner, claimed_at, False


def owner_of(conn: psycopg.Connection, bot_id: str) -> uuid.UUID | None:
    row = conn.execute("SELECT account_id FROM bot_owners WHERE bot_id = %s", (bot_id,)).fetchone()
    return None if row is None else row[0]


def bots_owned_by(conn: psycopg.Connection, account_id: uuid.UUID) -> list[str]:
    """The ids of the account's bots, in order."""
    rows = conn.execute("SELECT bot_id FROM bot_owners WHERE account_id = %s ORDER BY bot_id", (account_id,))
    return [bot_id for (bot_id,) in rows.fetchall()]


def release(conn: psycopg.Connection, bot_id: str, account_id: uuid.UUID) -> bool:
    return conn.execute(
        "DELETE FROM bot_owners WHERE bot_id = %s AND account_id = %s", (bot_id, account_id)
    ).rowcount == 1


def owned_bots(
    conn: psycopg.Connection, account_id: uuid.UUID | None
) -> list[tuple[str, uuid.UUID | None, str | None, datetime | None, bool]]:
    """(bot id, owner, the owner's nickname, claimed at, has a webhook) of the account's bots, or
    of every registered bot when `account_id` is None (an admin's view), by id."""
    query = """SELECT b.id, o.account_id, a.nickname, o.claimed_at, r.bot_id IS NOT NULL
                 FROM bots b LEFT JOIN bot_owners o ON o.bot_id = b.id
                 LEFT JOIN accounts a ON a.id = o.account_id
                 LEFT JOIN webhook_registrations r ON r.bot_id = b.id"""
    if account_id is None:
        rows = conn.execute(query + " ORDER BY b.id").fetchall()
    else:
        rows = conn.execute(query + " WHERE o.account_id = %s ORDER BY b.id", (account_id,)).fetchall()
    return [tuple(row) for row in rows]
