"""What a room hands the store: a version's write, and at the end the terminal records.

The terminal records are built once from the room's final state: the results projection
row (rating batch), the immutable archive record (GET /games/{id}/history) and the
analytics outbox payload, all written in the terminal transaction.
"""

from __future__ import annotations

from typing import Any

from playsite.rooms.model import RoomState, seat_to_move
from playsite.rules import Termination, format_dfen
from playsite.store.base import GameEnding, GameWrite, ResultRow
from playsite.wire.instant import decode_instant
from playsite.wire import (
    BLACK,
    SEATS,
    WHITE,
    ArchiveTurn,
    ClientSeedsView,
    FairnessRecord,
    HistoryRecord,
    UnplayedRoll,
    archive_result,
    encode_history,
    encode_players,
    encode_time_control,
    to_archive,
)

ANALYTICS_SOURCE = "playsite"


def game_write(state: RoomState, snapshot: dict[str, Any]) -> GameWrite:
    """The store write of `state`, whose durable form is `snapshot` (`durable.dump_state`)."""
    return GameWrite(
        game_id=state.game_id,
        version=state.version,
        status="ended" if state.ended else "active",
        origin=state.setup.origin,
        durability=state.setup.durability,
        rated=state.rated,
        snapshot=snapshot,
        seats={seat: (state.setup.seat(seat).token_hash, state.principals[seat]) for seat in SEATS},
    )


def history_record(state: RoomState) -> HistoryRecord:
    assert state.ending is not None and state.ending.at is not None, "an ending is stamped when it is made"
    seeds = state.fairness.client_seeds
    return HistoryRecord(
        game_id=state.game_id,
        players=state.setup.players,
        rated=state.rated,
        time_control=state.setup.time_control,
        result=archive_result(state.ending.over),
        termination=to_archive(state.ending.termination),
        finished_at=state.ending.at,
        initial_dfen=format_dfen(state.setup.start),
        turns=tuple(
            ArchiveTurn(
                turn_number=n, active_color=t.seat, dice=t.dice, moves=t.moves, fen_after=t.fen_after,
                draw_offer=t.draw_offer, draw_declined=t.draw_declined,
            )
            for n, t in enumerate(state.history, start=1)
        ),
        fairness=FairnessRecord(
            commit=state.fairness.commit,
            seed=state.fairness.seed.hex(),
            client_seeds=ClientSeedsView(white=seeds.white, black=seeds.black),
        ),
        technical=state.ending.technical,
        disconnect=state.ending.termination is Termination.DISCONNECT,
        abort=state.ending.abort,
        unplayed_roll=unplayed_roll(state),
    )


def unplayed_roll(state: RoomState) -> UnplayedRoll | None:
    """The roll a room ended on before its seat played it: every roll but that one is a turn of
    the history (forced passes included), so there is one more roll than turns."""
    if state.ply != len(state.history) + 1 or not state.rolled:
        return None
    return UnplayedRoll(active_color=seat_to_move(state.position), dice=state.rolled)


def game_ending(state: RoomState) -> GameEnding:
    assert state.ending is not None, "only an ended game has an ending"
    record = history_record(state)
    aborted = state.ending.termination is Termination.ABORTED
    result = ResultRow(
        game_id=state.game_id,
        finished_at=decode_instant(record.finished_at),
        rated=state.rated,
        origin=state.setup.origin,
        white_principal=state.principals[WHITE],
        black_principal=state.principals[BLACK],
        result=None if aborted else record.result,
        termination=record.termination,
        time_control=encode_time_control(state.setup.time_control),
        disconnect=record.disconnect,
        abort_cause=None if record.abort is None else record.abort.cause,
        abort_seat=None if record.abort is None else record.abort.seat,
    )
    payload = {
        "source": ANALYTICS_SOURCE,
        "gameId": state.game_id,
        "finishedAt": record.finished_at,
        "rated": state.rated,
        "origin": state.setup.origin,
        "timeControl": encode_time_control(state.setup.time_control),
        "players": encode_players(state.setup.players),
        "result": result.result,
        "termination": record.termination,
        "turns": len(record.turns),
    }
    return GameEnding(
        result=result,
        archive=encode_history(record),
        outbox_key=f"game:{state.game_id}",
        outbox_payload=payload,
    )
