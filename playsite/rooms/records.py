"""What a room hands the store: a version's write, and at the end the terminal records.

The terminal records are built once from the room's final state: the results projection
row (rating batch), the immutable archive record (GET /games/{id}/history) and the
analytics outbox payload, all written in the terminal transaction.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from playsite.rules import format_dfen
from playsite.store.base import GameEnding, GameWrite, ResultRow
from playsite.wire import (
    ArchiveTurn,
    ClientSeedsView,
    Fairness,
    HistoryRecord,
    archive_result,
    encode_history,
    encode_players,
    encode_time_control,
)

if TYPE_CHECKING:
    from playsite.rooms.room import Room

ANALYTICS_SOURCE = "playsite"

_ARCHIVE_TERMINATION = {"disconnect": "resign"}  # a forfeit travels, and is archived, as resign


def game_write(room: Room, snapshot: dict[str, Any]) -> GameWrite:
    return GameWrite(
        game_id=room.game_id,
        version=room.version,
        status="ended" if room.ended else "active",
        origin=room.setup.origin,
        durability=room.setup.durability,
        rated=room.setup.rated,
        snapshot=snapshot,
        seats={seat: (state.setup.token_hash, state.principal) for seat, state in room.seats.items()},
    )


def history_record(room: Room) -> HistoryRecord:
    assert room.ending is not None
    seeds = room.fairness.client_seeds
    termination = room.ending.termination.value
    return HistoryRecord(
        game_id=room.game_id,
        players=room.players,
        rated=room.setup.rated,
        time_control=room.setup.time_control,
        result=archive_result(room.ending.over),
        termination=_ARCHIVE_TERMINATION.get(termination, termination),
        finished_at=room.ending.at,
        initial_dfen=format_dfen(room.setup.start),
        turns=tuple(
            ArchiveTurn(turn_number=n, active_color=t.seat, dice=t.dice, moves=t.moves, fen_after=t.fen_after)
            for n, t in enumerate(room.history, start=1)
        ),
        fairness=Fairness(
            commit=room.fairness.commit,
            seed=room.fairness.seed.hex(),
            client_seeds=ClientSeedsView(white=seeds.white, black=seeds.black),
        ),
    )


def terminal_records(room: Room) -> GameEnding:
    record = history_record(room)
    aborted = room.ending.termination.value == "aborted"
    result = ResultRow(
        game_id=room.game_id,
        finished_at=datetime.fromisoformat(record.finished_at.replace("Z", "+00:00")),
        rated=room.setup.rated,
        origin=room.setup.origin,
        white_principal=room.seats["White"].principal,
        black_principal=room.seats["Black"].principal,
        result=None if aborted else record.result,
        termination=record.termination,
        time_control=encode_time_control(room.setup.time_control),
    )
    payload = {
        "source": ANALYTICS_SOURCE,
        "gameId": room.game_id,
        "finishedAt": record.finished_at,
        "rated": room.setup.rated,
        "origin": room.setup.origin,
        "timeControl": encode_time_control(room.setup.time_control),
        "players": encode_players(room.players),
        "result": result.result,
        "termination": record.termination,
        "turns": len(record.turns),
    }
    return GameEnding(
        result=result,
        archive=encode_history(record),
        outbox_key=f"game:{room.game_id}",
        outbox_payload=payload,
    )
