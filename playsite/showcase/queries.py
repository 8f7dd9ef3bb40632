"""The showcase's queries over its durable records (sql/007_showcase.sql), and the rows they
return. Every function takes a connection and runs inside `Database.run`'s transaction."""

from __future__ import annotations

import hashlib
import json
import uuid

import attrs
import psycopg

CLAIM_RETENTION = "24 hours"


@attrs.frozen
class TableRow:
    next_human_color: str
    current_game: str | None


@attrs.frozen
class ClaimRecord:
    fingerprint: bytes
    game_id: str
    seat: str | None
    """None for a losing claim (then `reason` says why it was spectating)."""
    seat_token: str | None
    reason: str | None = None


def fingerprint(actor: str, guest_id: object, entropy: str | None) -> bytes:
    """What a retry with the same Idempotency-Key must repeat exactly (`guest_id`: the body's
    `guestId` as sent, any JSON value)."""
    return hashlib.sha256(json.dumps([actor, guest_id, entropy]).encode()).digest()


def read_table(conn: psycopg.Connection) -> TableRow:
    row = conn.execute("SELECT next_human_color, current_game FROM showcase_table WHERE id = 1").fetchone()
    assert row is not None, "sql/ seeds the one showcase_table row"
    color, game = row
    return TableRow(color, None if game is None else str(game))


def find_claim(conn: psycopg.Connection, actor: str, key: uuid.UUID) -> ClaimRecord | None:
    """The actor's claim under this key, after pruning every record past its retention."""
    conn.execute(f"DELETE FROM showcase_claims WHERE created_at < now() - interval '{CLAIM_RETENTION}'")
    row = conn.execute(
        "SELECT fingerprint, game_id, seat, seat_token, reason FROM showcase_claims"
        " WHERE actor = %s AND idempotency_key = %s",
        (actor, key),
    ).fetchone()
    return None if row is None else ClaimRecord(bytes(row[0]), str(row[1]), row[2], row[3], row[4])


def record_losing_claim(
    conn: psycopg.Connection, *, actor: str, key: uuid.UUID, print_: bytes, game_id: str, reason: str
) -> None:
    """A claim answered `spectating`: recorded like a winner's, so its key replays it (and the
    same key with another fingerprint conflicts) for 24 hours."""
    conn.execute(
        "INSERT INTO showcase_claims (actor, idempotency_key, fingerprint, game_id, reason)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (actor, idempotency_key) DO NOTHING",
        (actor, key, print_, game_id, reason),
    )


def settle_colour(conn: psycopg.Connection, bot_principal: str) -> TableRow:
    """The table row, with the colour advanced past the newest showcase game if that game's
    creation never advanced it (its claim transaction failed, or the process died first):
    the colour alternates on every durable creation, whatever happened to its claim."""
    row = read_table(conn)
    newest = conn.execute(
        "SELECT id, snapshot -> 'setup' -> 'seats' -> 'White' ->> 'principal' FROM games"
        " WHERE origin = 'showcase' ORDER BY created_at DESC LIMIT 1"
    ).fetchone()
    if newest is None or (row.current_game is not None and str(newest[0]) == row.current_game):
        return row
    human = "Black" if newest[1] == bot_principal else "White"
    if human != row.next_human_color:
        return row
    color = "Black" if human == "White" else "White"
    conn.execute("UPDATE showcase_table SET next_human_color = %s, updated_at = now() WHERE id = 1", (color,))
    return TableRow(color, row.current_game)


class ClaimFenceRefused(Exception):
    """The table moved on meanwhile: the colour changed or another game is current."""


def commit_claim(
    conn: psycopg.Connection, *, seated: str, game_id: str, actor: str, key: uuid.UUID, print_: bytes, token: str
) -> None:
    """The winning claim's one transaction: advance the colour, point at the game, record the
    claim; fenced on the colour the human was seated on and on no game being current."""
    advanced = conn.execute(
        "UPDATE showcase_table SET next_human_color = %s, current_game = %s, updated_at = now()"
        " WHERE id = 1 AND next_human_color = %s AND current_game IS NULL",
        ("Black" if seated == "White" else "White", game_id, seated),
    ).rowcount
    if advanced != 1:
        raise ClaimFenceRefused(f"the table is no longer open on {seated}")
    conn.execute(
        "INSERT INTO showcase_claims (actor, idempotency_key, fingerprint, game_id, seat, seat_token)"
        " VALUES (%s, %s, %s, %s, %s, %s)",
        (actor, key, print_, game_id, seated, token),
    )


def claim_landed(conn: psycopg.Connection, game_id: str) -> bool:
    """Whether a winning claim of `game_id`, whose COMMIT answer was lost, stands: read once the
    transaction still deciding it has finished (it updated the table's row, which this waits on)."""
    row = conn.execute("SELECT current_game FROM showcase_table WHERE id = 1 FOR SHARE").fetchone()
    return row is not None and row[0] is not None and str(row[0]) == game_id


def adopt(conn: psycopg.Connection, game_id: str, human_color: str) -> TableRow:
    """A resumed showcase game whose claim never committed: point at it, and advance the colour
    past the one its human sits on (it was taken by a durable creation)."""
    row = read_table(conn)
    if row.current_game == game_id:
        return row
    color = "Black" if human_color == "White" else "White"
    conn.execute(
        "UPDATE showcase_table SET next_human_color = %s, current_game = %s, updated_at = now() WHERE id = 1",
        (color, game_id),
    )
    return TableRow(color, game_id)


def clear_pointer(conn: psycopg.Connection, game_id: str) -> bool:
    """Clear the pointer at `game_id` once its archive row exists; False when it points elsewhere
    or the game is not archived (then it stays: a finished game is released only when durable)."""
    return (
        conn.execute(
            "UPDATE showcase_table SET current_game = NULL, updated_at = now()"
            " WHERE id = 1 AND current_game = %s AND EXISTS (SELECT 1 FROM game_archive WHERE game_id = %s)",
            (game_id, game_id),
        ).rowcount
        == 1
    )


def game_status(conn: psycopg.Connection, game_id: str) -> str | None:
    """'active', 'ended', or None when the games table has no such game."""
    row = conn.execute("SELECT status FROM games WHERE id = %s", (game_id,)).fetchone()
    return None if row is None else row[0]
