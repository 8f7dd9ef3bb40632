"""Accounts in PostgreSQL (`accounts`, sql/006_accounts.sql). Accounts exist only with
persistence: a sign-in that a restart forgets would be no account at all.

Every function takes a connection and runs inside `Database.run`'s transaction.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import psycopg

from playsite import principals
from playsite.accounts.model import ACTIVE, DEACTIVATED, DELETED, Account, claimed_nickname, suggested_nickname
from playsite.webhooks import slot_queries

_COLUMNS = "id, nickname, status, session_generation"
NICKNAME_ATTEMPTS = 20


class NicknameTaken(Exception):
    """Another account has this nickname (compared without case)."""


class NicknameReserved(NicknameTaken):
    """Another account gave this nickname up by renaming, and keeps it for its old links."""


def _account(row: tuple[Any, ...]) -> Account:  # psycopg types a row's columns as Any
    return Account(id=row[0], nickname=row[1], status=row[2], session_generation=row[3])


def _found(row: tuple[Any, ...] | None) -> Account | None:
    return None if row is None else _account(row)


def find(conn: psycopg.Connection, account_id: uuid.UUID) -> Account | None:
    return _found(conn.execute(f"SELECT {_COLUMNS} FROM accounts WHERE id = %s", (account_id,)).fetchone())


def find_session(conn: psycopg.Connection, account_id: uuid.UUID, session_id: str | None) -> Account | None:
    """The account of a session, unless that session was signed out on its own (`end_session`);
    the caller checks the account's status and session generation."""
    return _found(conn.execute(
        f"SELECT {_COLUMNS} FROM accounts WHERE id = %s"
        " AND NOT EXISTS (SELECT 1 FROM ended_sessions WHERE session_id = %s)",
        (account_id, session_id),
    ).fetchone())


def find_by_subject(conn: psycopg.Connection, issuer: str, subject: str) -> Account | None:
    return _found(
        conn.execute(
            f"SELECT {_COLUMNS} FROM accounts WHERE issuer = %s AND subject = %s", (issuer, subject)
        ).fetchone()
    )


def sign_in(conn: psycopg.Connection, issuer: str, subject: str, claims: dict[str, object]) -> Account:
    """The account of (issuer, subject), created on first sign-in with a nickname taken from
    the provider's claims (made unique with a suffix). Two first sign-ins racing create one."""
    for attempt in range(NICKNAME_ATTEMPTS):
        if (found := find_by_subject(conn, issuer, subject)) is not None:
            return found
        nickname = suggested_nickname(claims, attempt) if attempt < NICKNAME_ATTEMPTS - 1 else suggested_nickname({})
        if _former_owner(conn, nickname) is not None:
            continue  # another account's former name: its old links lead there
        row = conn.execute(
            f"INSERT INTO accounts (id, issuer, subject, nickname) VALUES (%s, %s, %s, %s)"
            f" ON CONFLICT DO NOTHING RETURNING {_COLUMNS}",
            (uuid.uuid4(), issuer, subject, nickname),
        ).fetchone()
        if row is not None:
            return _account(row)
    raise NicknameTaken("no free nickname could be derived from the provider's claims")


def sign_in_reporting_nickname(conn: psycopg.Connection, issuer: str, subject: str, claims: dict[str, object]) -> tuple[Account, str | None]:
    """`sign_in`, and the nickname the claims asked for when it made a new account that could not
    have it (another account's, now or before): the page tells the person, who may choose again."""
    if (found := find_by_subject(conn, issuer, subject)) is not None:
        return found, None  # an account signing in again: nothing to tell
    account = sign_in(conn, issuer, subject, claims)
    wanted = claimed_nickname(claims)
    return account, wanted if wanted is not None and account.nickname != wanted else None


def rename(conn: psycopg.Connection, account_id: uuid.UUID, nickname: str) -> Account | None:
    """A new nickname: free of every other account's current and former ones. The name given up
    becomes a former one of the account (its old links lead to it); taking a former one of its
    own back is allowed."""
    if _former_owner(conn, nickname) not in (None, account_id):
        raise NicknameReserved(nickname)
    try:
        with conn.transaction():  # a savepoint: the unique violation must not poison the caller's transaction
            old = conn.execute(
                "SELECT nickname FROM accounts WHERE id = %s AND status = %s FOR UPDATE", (account_id, ACTIVE)
            ).fetchone()
            row = conn.execute(
                f"UPDATE accounts SET nickname = %s, updated_at = now() WHERE id = %s AND status = %s"
                f" RETURNING {_COLUMNS}",
                (nickname, account_id, ACTIVE),
            ).fetchone()
            conn.execute(
                "DELETE FROM former_nicknames WHERE lower(nickname) = lower(%s) AND account_id = %s", (nickname, account_id)
            )
            if row is not None and old is not None and old[0] and old[0].lower() != nickname.lower():
                conn.execute(
                    "INSERT INTO former_nicknames (nickname, account_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                    (old[0], account_id),
                )
    except psycopg.errors.UniqueViolation:
        raise NicknameTaken(nickname) from None
    return _found(row)


def _former_owner(conn: psycopg.Connection, nickname: str) -> uuid.UUID | None:
    row = conn.execute("SELECT account_id FROM former_nicknames WHERE lower(nickname) = lower(%s)", (nickname,)).fetchone()
    return None if row is None else row[0]


def end_session(conn: psycopg.Connection, account_id: uuid.UUID, session_id: str, expires_at: datetime) -> None:
    """Sign out one session: the others of the account go on. Its row is needed only until the
    session would have expired; the rows past that are purged here, so the table holds no more
    than the sessions signed out within one session lifetime."""
    conn.execute("DELETE FROM ended_sessions WHERE expires_at < now()")
    conn.execute(
        "INSERT INTO ended_sessions (session_id, account_id, expires_at) VALUES (%s, %s, %s)"
        " ON CONFLICT (session_id) DO NOTHING",
        (session_id, account_id, expires_at),
    )


def end_sessions(conn: psycopg.Connection, account_id: uuid.UUID) -> None:
    """Sign out everywhere: every session issued so far stops being accepted."""
    conn.execute(
        "UPDATE accounts SET session_generation = session_generation + 1, updated_at = now() WHERE id = %s",
        (account_id,),
    )


def set_active(conn: psycopg.Connection, account_id: uuid.UUID, active: bool) -> Account | None:
    """Deactivate (its sessions stop at once; it cannot sign in) or reactivate an account."""
    row = conn.execute(
        f"UPDATE accounts SET status = %s, session_generation = session_generation + 1, updated_at = now()"
        f" WHERE id = %s AND status <> %s RETURNING {_COLUMNS}",
        (ACTIVE if active else DEACTIVATED, account_id, DELETED),
    ).fetchone()
    return _found(row)


def delete(conn: psycopg.Connection, account_id: uuid.UUID) -> bool:
    """Forget who the account was: issuer, subject and nickname are erased and its rating
    removed, and its bots released (their token holders may claim them again). The id stays, as
    an anonymous name its games in history keep pointing at."""
    slot_queries.release_every_bot(conn, account_id, principals.user(account_id))
    conn.execute("DELETE FROM account_ratings WHERE account_id = %s", (account_id,))
    conn.execute("DELETE FROM former_nicknames WHERE account_id = %s", (account_id,))  # its old names are free again
    return (
        conn.execute(
            "UPDATE accounts SET status = %s, issuer = NULL, subject = NULL, nickname = NULL,"
            " session_generation = session_generation + 1, updated_at = now()"
            " WHERE id = %s AND status <> %s",
            (DELETED, account_id, DELETED),
        ).rowcount
        == 1
    )

