"""Rematch's queries over its durable records (sql/008_rematch.sql), and the rows they return.
Every function takes a connection and runs inside `Database.run`'s transaction.

Serialisation is the database's: every command on a source locks that source's opportunity
row (`lock`, SELECT ... FOR UPDATE) for its whole transaction, so the commands of one source
are applied one after another, each seeing the last one's result, whatever connection or
request carries them (and a restart cannot interleave with one). The successor's uniqueness
is a constraint: `rematch_successors` has the source as primary key, and the commit is fenced
on the phase still being `starting`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timezone

import attrs
import psycopg
from psycopg.rows import TupleRow

from playsite.rematch.opportunity import ClosedReason, Opportunity, Phase
from playsite.store.base import GameWrite
from playsite.store.postgres import write_game
from playsite.wire import Seat

REQUEST_RETENTION = "24 hours"
"""service.md Limits: request ids are kept 24 hours from the first attempt."""
CAPABILITY_RETENTION = "24 hours"
"""A successor's seat capabilities are erased this long after its commit."""


def stamp(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


def seconds(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


@attrs.frozen
class RequestRecord:
    action: str
    error_code: str | None


@attrs.frozen
class Successor:
    game_id: str
    join_deadline_at: float
    white_moves_to: Seat
    """The successor seat of the source's White participant (Black gets the other)."""
    tokens: dict[Seat, str | None]
    """Successor seat -> its capability (None once erased)."""

    def seat_moved_from(self, source_seat: Seat) -> Seat:
        """The successor seat of the participant who sat at `source_seat` in the source."""
        if source_seat == Seat.WHITE:
            return self.white_moves_to
        return Seat.BLACK if self.white_moves_to == Seat.WHITE else Seat.WHITE


_COLUMNS = "phase, ended_at, proposed_at, initiator, consents, closed_reason, successor_game_id"


def _opportunity(source_game_id: str, row: TupleRow) -> Opportunity:
    phase, ended_at, proposed_at, initiator, consents, closed_reason, successor = row
    return Opportunity(
        source_game_id=source_game_id,
        phase=Phase(phase),
        ended_at=ended_at.timestamp(),
        proposed_at=seconds(proposed_at),
        initiator=None if initiator is None else Seat(initiator),
        consents=frozenset(Seat(seat) for seat in consents),
        closed_reason=None if closed_reason is None else ClosedReason(closed_reason),
        successor_game_id=None if successor is None else str(successor),
    )


def read(conn: psycopg.Connection, source_game_id: str) -> Opportunity | None:
    """The opportunity's row without locking it (None: nobody has acted on it yet)."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM rematch_opportunities WHERE source_game_id = %s", (source_game_id,)
    ).fetchone()
    return None if row is None else _opportunity(source_game_id, row)


def lock(conn: psycopg.Connection, source_game_id: str, ended_at: float) -> Opportunity:
    """The opportunity's row, created `available` if new, locked until the transaction ends."""
    conn.execute(
        "INSERT INTO rematch_opportunities (source_game_id, phase, ended_at) VALUES (%s, 'available', %s)"
        " ON CONFLICT (source_game_id) DO NOTHING",
        (source_game_id, stamp(ended_at)),
    )
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM rematch_opportunities WHERE source_game_id = %s FOR UPDATE", (source_game_id,)
    ).fetchone()
    assert row is not None, "inserted above if it was missing"
    return _opportunity(source_game_id, row)


def save(conn: psycopg.Connection, opportunity: Opportunity) -> None:
    """Write the (locked) opportunity's phase and fields. A committed successor is never
    overwritten: a row that is `matched` stays so (service.md, Rematch opportunity rule 8)."""
    conn.execute(
        "UPDATE rematch_opportunities SET phase = %s, proposed_at = %s, initiator = %s, consents = %s,"
        " closed_reason = %s, updated_at = now() WHERE source_game_id = %s AND phase <> 'matched'",
        (
            opportunity.phase.value,
            None if opportunity.proposed_at is None else stamp(opportunity.proposed_at),
            None if opportunity.initiator is None else str(opportunity.initiator),
            sorted(str(seat) for seat in opportunity.consents),
            None if opportunity.closed_reason is None else opportunity.closed_reason.value,
            opportunity.source_game_id,
        ),
    )


def find_request(conn: psycopg.Connection, source_game_id: str, seat: Seat, request_id: uuid.UUID) -> RequestRecord | None:
    """This seat's earlier command under `request_id`, while its record is retained."""
    row = conn.execute(
        "SELECT action, error_code FROM rematch_requests WHERE source_game_id = %s AND seat = %s AND request_id = %s"
        f" AND created_at >= now() - interval '{REQUEST_RETENTION}'",
        (source_game_id, str(seat), request_id),
    ).fetchone()
    return None if row is None else RequestRecord(*row)


def record_request(
    conn: psycopg.Connection, source_game_id: str, seat: Seat, request_id: uuid.UUID, action: str, error_code: str | None
) -> None:
    """Keep the command and its outcome. An expired record under the same id is replaced
    (the retention counts from the first attempt; a replay never extends it)."""
    conn.execute(
        "INSERT INTO rematch_requests (source_game_id, seat, request_id, action, error_code) VALUES (%s, %s, %s, %s, %s)"
        " ON CONFLICT (source_game_id, seat, request_id) DO UPDATE"
        " SET action = EXCLUDED.action, error_code = EXCLUDED.error_code, created_at = now()",
        (source_game_id, str(seat), request_id, action, error_code),
    )


class SuccessorFenceRefused(Exception):
    """The opportunity is no longer `starting`, or a successor already exists: nothing was written."""


def commit_successor(
    conn: psycopg.Connection,
    *,
    source_game_id: str,
    game_id: str,
    settle: Callable[[], tuple[float, GameWrite]],
    white_moves_to: Seat,
    tokens: dict[Seat, str],
    epoch: int | None,
) -> None:
    """The successor's one transaction: its first version (snapshot, seats with their final
    participants and capability digests), the link from the source with the first-join
    deadline and the capabilities, and the opportunity turned `matched`. Fenced on the
    phase being `starting`; the primary key of `rematch_successors` makes a second
    successor for one source impossible even past the fence. The game row is fenced on the
    serving lease's `epoch` as every game write is.

    `settle()` is called once this transaction holds the fence and the link's row (after any
    wait for either): it fixes the first-join deadline ("15 s from commit": what is left to
    run, the first version's row and one update of the link, waits on nothing another
    transaction holds) and returns it with the creation write that carries it."""
    matched = conn.execute(
        "UPDATE rematch_opportunities SET phase = 'matched', successor_game_id = %s, updated_at = now()"
        " WHERE source_game_id = %s AND phase = 'starting'",
        (game_id, source_game_id),
    ).rowcount
    if matched != 1:
        raise SuccessorFenceRefused(f"the rematch of {source_game_id} is no longer starting")
    conn.execute(
        "INSERT INTO rematch_successors (source_game_id, game_id, join_deadline_at, white_moves_to, white_token, black_token)"
        " VALUES (%s, %s, now(), %s, %s, %s)",
        (source_game_id, game_id, str(white_moves_to), tokens[Seat.WHITE], tokens[Seat.BLACK]),
    )
    join_deadline_at, write = settle()
    if not write_game(conn, write, epoch):
        raise SuccessorFenceRefused(f"game {game_id} already exists, or another process serves this database now")
    conn.execute(
        "UPDATE rematch_successors SET join_deadline_at = %s WHERE source_game_id = %s",
        (stamp(join_deadline_at), source_game_id),
    )


def successor(conn: psycopg.Connection, source_game_id: str) -> Successor | None:
    row = conn.execute(
        "SELECT game_id, join_deadline_at, white_moves_to, white_token, black_token FROM rematch_successors"
        " WHERE source_game_id = %s",
        (source_game_id,),
    ).fetchone()
    if row is None:
        return None
    game_id, deadline, white_moves_to, white_token, black_token = row
    return Successor(
        str(game_id), deadline.timestamp(), Seat(white_moves_to), {Seat.WHITE: white_token, Seat.BLACK: black_token}
    )


def close_if_starting(conn: psycopg.Connection, source_game_id: str, reason: ClosedReason) -> bool:
    """`starting` with no successor -> closed(reason); False when it is not (a committed
    successor always wins)."""
    return (
        conn.execute(
            "UPDATE rematch_opportunities SET phase = 'closed', closed_reason = %s, updated_at = now()"
            " WHERE source_game_id = %s AND phase = 'starting' AND successor_game_id IS NULL",
            (reason.value, source_game_id),
        ).rowcount
        == 1
    )


def close_unfinished(conn: psycopg.Connection, now: float, window_s: float) -> list[tuple[str, str]]:
    """At boot: every `offered` or `starting` opportunity without a committed successor is
    closed for good (`restart`; an `offered` one already past its deadline, `expired`).
    Returns (source, reason) of each."""
    rows = conn.execute(
        "UPDATE rematch_opportunities SET phase = 'closed', updated_at = now(),"
        " closed_reason = CASE WHEN phase = 'offered' AND proposed_at + make_interval(secs => %s) <= %s"
        "                      THEN 'expired' ELSE 'restart' END"
        " WHERE phase IN ('offered', 'starting') AND successor_game_id IS NULL"
        " RETURNING source_game_id, closed_reason",
        (window_s, stamp(now)),
    ).fetchall()
    return [(str(source), reason) for source, reason in rows]


def stale_starting(conn: psycopg.Connection, older_than_s: float, limit: int) -> list[str]:
    """Sources `starting` for longer than `older_than_s` (a bounded batch)."""
    rows = conn.execute(
        "SELECT source_game_id FROM rematch_opportunities WHERE phase = 'starting'"
        " AND updated_at < now() - make_interval(secs => %s) ORDER BY updated_at LIMIT %s",
        (older_than_s, limit),
    ).fetchall()
    return [str(source) for (source,) in rows]


def unhosted_successors(conn: psycopg.Connection, limit: int) -> list[dict]:
    """Snapshots of committed successors still active in the store and never begun (the
    scan hosts any that this process is not running)."""
    rows = conn.execute(
        "SELECT g.snapshot FROM rematch_successors s JOIN games g ON g.id = s.game_id"
        " WHERE g.status = 'active' AND g.snapshot->>'phase' = 'awaiting_joins'"
        " ORDER BY s.committed_at DESC LIMIT %s",
        (limit,),
    ).fetchall()
    return [snapshot for (snapshot,) in rows]


def prune(conn: psycopg.Connection) -> tuple[int, int]:
    """Drop request records past their retention and erase old capabilities; the links stay."""
    requests = conn.execute(
        f"DELETE FROM rematch_requests WHERE created_at < now() - interval '{REQUEST_RETENTION}'"
    ).rowcount
    capabilities = conn.execute(
        "UPDATE rematch_successors SET white_token = NULL, black_token = NULL"
        f" WHERE committed_at < now() - interval '{CAPABILITY_RETENTION}' AND white_token IS NOT NULL"
    ).rowcount
    return requests, capabilities


def game_status(conn: psycopg.Connection, game_id: str) -> str | None:
    """'active', 'ended' (also when only its archive is left), or None when unknown."""
    row = conn.execute("SELECT status FROM games WHERE id = %s", (game_id,)).fetchone()
    if row is not None:
        return row[0]
    archived = conn.execute("SELECT 1 FROM game_archive WHERE game_id = %s", (game_id,)).fetchone()
    return "ended" if archived else None
