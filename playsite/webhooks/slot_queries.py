"""A bot's webhook slot in the database (sql/009_webhook_management.sql): its revision, its
setup, the activation lease, the audit trail. Every function takes a connection and runs
inside `Database.run`'s transaction.

`fence` is where every mutation of a slot starts: a per-bot transaction-scoped advisory lock
(held until commit, whatever process or connection asks next), then the bot's row locked
FOR UPDATE. Every deadline is compared with the database's clock, never a process clock: its
`clock_timestamp()`, the time of the statement, not `now()`, the transaction's start (which may
be long before: a transaction first waits on the fence).
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

import attrs
import psycopg
from psycopg.rows import TupleRow

from playsite.bots import owners

ATTEMPTS_MAX = 5
"""service.md Limits: activation attempts per staged setup."""
SETUP_LIFETIME = "24 hours"
"""A pending setup not activated within this is expired (410 setup_expired)."""
LEASE_LIFETIME_S = 15
"""An activation lease: the echo's 5 s, resolving the host, and the completion's transaction,
with room to spare. A process that dies holding one leaves it to expire; its attempt stays spent."""
ENDED_RETENTION = "30 days"
"""Terminal setups (activated, exhausted, scrubbed) are pruned after this."""


def only_value(cursor: psycopg.Cursor[TupleRow]) -> Any:  # a column's type is the database's: psycopg says Any
    """The first column of the one row a statement always returns (RETURNING on a row that
    exists, an aggregate, `now()`)."""
    row = cursor.fetchone()
    assert row is not None, "the statement returns one row"
    return row[0]


@attrs.frozen
class Slot:
    """A bot's row as the fence read it."""

    bot_id: str
    incarnation: uuid.UUID
    revision: int


@attrs.frozen
class Setup:
    setup_id: uuid.UUID
    incarnation: uuid.UUID
    candidate_url: str
    state: str
    """pending, activated, exhausted or scrubbed."""
    created_by: str
    authority: str
    admin_generation: str | None
    attempts: int
    lease_id: uuid.UUID | None
    lease_revision: int | None
    lease_expires_at: datetime | None
    created_at: datetime
    expires_at: datetime
    ended_at: datetime | None
    lease_live: bool
    """A lease exists and has not expired (on the database clock)."""
    expired: bool
    """Pending past `expires_at` (on the database clock)."""


def fence(conn: psycopg.Connection, bot_id: str) -> Slot | None:
    """Take the bot's advisory fence and lock its row; None for no such (registered) bot."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('webhook-slot:' || %s, 0))", (bot_id,))
    row = conn.execute("SELECT incarnation, webhook_revision FROM bots WHERE id = %s FOR UPDATE", (bot_id,)).fetchone()
    return None if row is None else Slot(bot_id, row[0], row[1])


def peek(conn: psycopg.Connection, bot_id: str) -> Slot | None:
    """The slot's revision for a read (no fence)."""
    row = conn.execute("SELECT incarnation, webhook_revision FROM bots WHERE id = %s", (bot_id,)).fetchone()
    return None if row is None else Slot(bot_id, row[0], row[1])


def bump(conn: psycopg.Connection, bot_id: str) -> int:
    """The slot changed: its next revision."""
    return only_value(conn.execute(
        "UPDATE bots SET webhook_revision = webhook_revision + 1 WHERE id = %s RETURNING webhook_revision", (bot_id,)
    ))


_SETUP_COLUMNS = """setup_id, incarnation, candidate_url, state, created_by, authority, admin_generation,
    activation_attempts, lease_id, lease_revision, lease_expires_at, created_at, expires_at, ended_at,
    lease_expires_at IS NOT NULL AND lease_expires_at > clock_timestamp(),
    state = 'pending' AND expires_at <= clock_timestamp()"""


def setup_of(conn: psycopg.Connection, bot_id: str) -> Setup | None:
    row = conn.execute(f"SELECT {_SETUP_COLUMNS} FROM webhook_setups WHERE bot_id = %s", (bot_id,)).fetchone()
    return None if row is None else Setup(*row)


def stage(conn: psycopg.Connection, slot: Slot, url: str, actor: str, authority: str, generation: str | None) -> None:
    """A new pending setup for `url`, replacing whatever setup the bot had."""
    conn.execute(
        """INSERT INTO webhook_setups (bot_id, setup_id, incarnation, candidate_url, state, created_by, authority,
                                       admin_generation, expires_at)
           VALUES (%s, %s, %s, %s, 'pending', %s, %s, %s, now() + %s::interval)
           ON CONFLICT (bot_id) DO UPDATE SET
               setup_id = EXCLUDED.setup_id, incarnation = EXCLUDED.incarnation,
               candidate_url = EXCLUDED.candidate_url, state = 'pending', created_by = EXCLUDED.created_by,
               authority = EXCLUDED.authority, admin_generation = EXCLUDED.admin_generation,
               activation_attempts = 0, lease_id = NULL, lease_revision = NULL, lease_expires_at = NULL,
               created_at = now(), expires_at = EXCLUDED.expires_at, ended_at = NULL""",
        (slot.bot_id, uuid.uuid4(), slot.incarnation, url, actor, authority, generation, SETUP_LIFETIME),
    )


def discard(conn: psycopg.Connection, bot_id: str) -> bool:
    return conn.execute("DELETE FROM webhook_setups WHERE bot_id = %s", (bot_id,)).rowcount == 1


def take_lease(conn: psycopg.Connection, bot_id: str, revision: int) -> tuple[uuid.UUID, int]:
    """Bind a new lease to the setup and `revision` and spend one attempt: (lease id, attempts now)."""
    lease_id = uuid.uuid4()
    attempts = only_value(conn.execute(
        """UPDATE webhook_setups
              SET lease_id = %s, lease_revision = %s, lease_expires_at = now() + make_interval(secs => %s),
                  activation_attempts = activation_attempts + 1
            WHERE bot_id = %s AND state = 'pending'
        RETURNING activation_attempts""",
        (lease_id, revision, LEASE_LIFETIME_S, bot_id),
    ))
    return lease_id, attempts


def end_lease(conn: psycopg.Connection, bot_id: str, state: str) -> None:
    """The lease is over: the setup stays pending (another attempt may follow) or ends in `state`."""
    conn.execute(
        """UPDATE webhook_setups
              SET lease_id = NULL, lease_revision = NULL, lease_expires_at = NULL, state = %s,
                  ended_at = CASE WHEN %s = 'pending' THEN NULL ELSE now() END
            WHERE bot_id = %s""",
        (state, state, bot_id),
    )


def scrub(conn: psycopg.Connection, bot_id: str) -> None:
    """A pending setup whose authority is gone: it can never be activated."""
    conn.execute(
        """UPDATE webhook_setups SET state = 'scrubbed', ended_at = now(),
                  lease_id = NULL, lease_revision = NULL, lease_expires_at = NULL
            WHERE bot_id = %s AND state = 'pending'""",
        (bot_id,),
    )


def release(conn: psycopg.Connection, bot_id: str, account_id: uuid.UUID, actor: str, detail: dict) -> None:
    """Under the bot's fence: the account stops owning it, a setup the owner staged can no
    longer be activated, the slot moves on, and the trail says who (`actor`) and why (`detail`)."""
    owners.release(conn, bot_id, account_id)
    setup = setup_of(conn, bot_id)
    if setup is not None and setup.state == "pending" and setup.authority == "owner":
        scrub(conn, bot_id)
    bump(conn, bot_id)
    audit(conn, "bot.released", actor, bot_id, detail)


def release_every_bot(conn: psycopg.Connection, account_id: uuid.UUID, actor: str) -> None:
    """Every bot the account owns, released as its owner would (an account being deleted: its
    bots' token holders may claim them again). Fenced one at a time, in id order."""
    for bot_id in owners.bots_owned_by(conn, account_id):
        if fence(conn, bot_id) is not None and owners.owner_of(conn, bot_id) == account_id:
            release(conn, bot_id, account_id, actor, {"why": "account_deleted"})


def admin_setups_of_other_generations(conn: psycopg.Connection, generation: str) -> list[str]:
    """Bots with a pending setup staged by admins under another PLAY_ADMINS generation."""
    rows = conn.execute(
        """SELECT bot_id FROM webhook_setups
            WHERE state = 'pending' AND authority = 'admin' AND admin_generation <> %s ORDER BY bot_id""",
        (generation,),
    ).fetchall()
    return [row[0] for row in rows]


def prune(conn: psycopg.Connection) -> int:
    return conn.execute(
        "DELETE FROM webhook_setups WHERE state <> 'pending' AND ended_at < now() - %s::interval", (ENDED_RETENTION,)
    ).rowcount


def audit(conn: psycopg.Connection, kind: str, actor: str, bot_id: str | None, detail: dict) -> None:
    conn.execute(
        "INSERT INTO audit_events (kind, actor, bot_id, detail) VALUES (%s, %s, %s, %s::jsonb)",
        (kind, actor, bot_id, json.dumps(detail, separators=(",", ":"))),
    )


def audit_trail(conn: psycopg.Connection, bot_id: str, limit: int = 50) -> list[dict]:
    rows = conn.execute(
        "SELECT at, kind, actor, detail FROM audit_events WHERE bot_id = %s ORDER BY id DESC LIMIT %s", (bot_id, limit)
    ).fetchall()
    return [{"at": at, "kind": kind, "actor": actor, "detail": detail} for at, kind, actor, detail in rows]


def database_now(conn: psycopg.Connection) -> datetime:
    return only_value(conn.execute("SELECT clock_timestamp()"))
