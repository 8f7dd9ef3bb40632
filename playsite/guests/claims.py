"""Guest ids claimed by accounts (table `guest_claims`): functions of a connection.

A claim links a browser's guest id to the account signed in on it. The first claim of a guest
id wins and is final; claiming one's own again changes nothing.
"""

from __future__ import annotations

import uuid

import psycopg

MAX_CLAIMS_PER_ACCOUNT = 100
"""A person uses a handful of browsers; a hundred ids is far past that and bounds the list."""


class ClaimedByAnother(Exception):
    """The guest id is already linked to another account."""


class TooManyClaims(Exception):
    """The account has claimed MAX_CLAIMS_PER_ACCOUNT guest ids already."""


def claimed_guests(conn: psycopg.Connection, account_id: uuid.UUID) -> list[str]:
    """The guest ids `account_id` has claimed, oldest first, as bare lowercase UUIDs."""
    rows = conn.execute(
        "SELECT guest_id FROM guest_claims WHERE account_id = %s ORDER BY claimed_at, guest_id",
        (account_id,),
    ).fetchall()
    return [str(row[0]) for row in rows]


def claim_guest(conn: psycopg.Connection, account_id: uuid.UUID, guest_id: str) -> list[str]:
    """Link `guest_id` to `account_id` and return the account's claims (run it in one
    transaction, as `Database.run` does).

    Idempotent, so a client that lost the answer may simply ask again: a guest id the account
    already holds is left as it is. Raises `ClaimedByAnother` when another account holds it,
    `TooManyClaims` past the bound."""
    # One account's claims are serialised, so the bound holds under concurrent claims; two
    # accounts racing for one guest id meet at its primary key, and the first insert wins.
    conn.execute("SELECT id FROM accounts WHERE id = %s FOR UPDATE", (account_id,))
    owner = conn.execute("SELECT account_id FROM guest_claims WHERE guest_id = %s", (guest_id,)).fetchone()
    if owner is None:
        held = conn.execute("SELECT count(*) FROM guest_claims WHERE account_id = %s", (account_id,)).fetchone()
        if held is not None and held[0] >= MAX_CLAIMS_PER_ACCOUNT:
            raise TooManyClaims()
        conn.execute(
            "INSERT INTO guest_claims (guest_id, account_id) VALUES (%s, %s) ON CONFLICT (guest_id) DO NOTHING",
            (guest_id, account_id),
        )
        owner = conn.execute("SELECT account_id FROM guest_claims WHERE guest_id = %s", (guest_id,)).fetchone()
    if owner is None or owner[0] != account_id:
        raise ClaimedByAnother()
    return claimed_guests(conn, account_id)
