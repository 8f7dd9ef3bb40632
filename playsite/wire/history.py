"""A finished game's archive record: the body of ``GET /games/{id}/history``.

`result` is White's point of view: 1 White won, -1 Black won, 0 a draw, and also 0 for an
aborted game (which has no result; read `termination`). `termination` keeps playsite's
finer reasons in snake_case, unlike the live `Over.termination`; a forfeit after the
disconnect grace is archived as ``resign``, as it travels live.
"""

from __future__ import annotations

from typing import Any

import attrs

from . import _read
from .common import (
    BLACK,
    WHITE,
    Checked,
    ClientSeedsView,
    Players,
    Seat,
    as_tuple,
    check_seat,
    decode_client_seeds,
    decode_players,
    encode_client_seeds,
    encode_players,
    read_dice,
    read_digest,
    read_moves,
    read_seat,
    read_timestamp,
)
from .errors import WireError
from .outcome import ABORTED, DRAW, Draw, Over, Win, WireTermination
from .termination import ARCHIVE_TERMINATIONS, Abort, ArchiveTermination, decode_abort, encode_abort, from_archive, to_wire
from .time_control import TimeControl, decode_time_control, encode_time_control

_DRAWN = ("draw_agreement", "no_progress", "aborted")  # result 0
_WHITE_POV = {1: WHITE, -1: BLACK}


def live_termination(termination: ArchiveTermination) -> WireTermination:
    """The `Over.termination` wire string for an archived reason."""
    return to_wire(from_archive(termination))


def archive_result(over: Over) -> int:
    """The White-POV integer result of a live `Over` (0 for a draw or an abort)."""
    if isinstance(over.result, Win):
        return 1 if over.result.side == WHITE else -1
    return 0


def live_over(result: int, termination: ArchiveTermination) -> Over:
    """The `Over` an archived (result, termination) pair is sent as live."""
    live = live_termination(termination)
    if live == ABORTED:
        return Over(None, ABORTED)
    if live == DRAW:
        return Over(Draw(), DRAW)
    return Over(Win(_WHITE_POV[result]), live)


def _result_fits(instance: HistoryRecord, attribute: attrs.Attribute[Checked], value: Checked) -> None:
    _check_result(value, instance.termination, "HistoryRecord")


def _check_result(result: object, termination: object, where: str) -> None:
    if termination not in ARCHIVE_TERMINATIONS:
        raise WireError(
            f"{where}.termination must be one of {', '.join(ARCHIVE_TERMINATIONS)}, "
            f"got {_read.show(termination)}"
        )
    allowed = (0,) if termination in _DRAWN else (1, -1)
    if type(result) is not int or result not in allowed:
        wanted = "0" if allowed == (0,) else "1 or -1"
        raise WireError(
            f"{where}.result must be {wanted} for termination {termination}, got {_read.show(result)}"
        )


@attrs.frozen
class ArchiveTurn:
    """One played turn (forced passes included, with no moves), numbered from 1. `draw_offer`
    and `draw_declined` (playsite extensions): the turn offered a draw, which was declined."""

    turn_number: int
    active_color: Seat = attrs.field(validator=check_seat)
    dice: tuple[int, ...] = attrs.field(converter=as_tuple)
    moves: tuple[str, ...] = attrs.field(converter=as_tuple)
    fen_after: str
    draw_offer: bool = False
    draw_declined: bool = False


@attrs.frozen
class UnplayedRoll:
    """The roll a game ended on before its seat played it (a resignation, a clock or a first
    move run out, a player gone): rolled at the ply after the last turn, shown to the players,
    and so in the record, where its dice can be checked like every turn's."""

    active_color: Seat = attrs.field(validator=check_seat)
    dice: tuple[int, ...] = attrs.field(converter=as_tuple)


@attrs.frozen
class FairnessRecord:
    """The dice reveal of a finished game: every field is always present in the archive."""

    commit: str
    seed: str
    client_seeds: ClientSeedsView


@attrs.frozen
class HistoryRecord:
    game_id: str
    players: Players
    rated: bool
    time_control: TimeControl
    result: int = attrs.field(validator=_result_fits)
    termination: ArchiveTermination
    finished_at: str
    """RFC 3339 in UTC, e.g. ``2025-01-31T12:00:00Z``."""
    initial_dfen: str
    turns: tuple[ArchiveTurn, ...] = attrs.field(converter=as_tuple)
    fairness: FairnessRecord
    technical: bool = attrs.field(default=False, validator=lambda record, _, value: _check_technical(value, record.termination, "HistoryRecord"))
    """An abort of the server's own (service.md: "a technical abort, archived as such"): in the
    JSON as `"technical": true`, and absent for every other game (an abort by its players included)."""
    disconnect: bool = attrs.field(default=False, validator=lambda record, _, value: _check_disconnect(value, record.termination, "HistoryRecord"))
    """A forfeit: the loser stayed away past the disconnect grace. The ecosystem's archive has no
    name for it, so the record reads `resign` (as the game travelled live) and adds
    `"disconnect": true`; absent for every other game, a resignation included."""
    abort: Abort | None = attrs.field(default=None, validator=lambda record, _, value: _check_abort(value, record, "HistoryRecord"))
    """Why its players' game was aborted, and by which seat (`"abort": {"cause", "seat"}`): only
    on an `aborted` record that is not technical, and absent on those archived before it was kept."""
    unplayed_roll: UnplayedRoll | None = None
    """The roll the game ended on, unplayed (`"unplayedRoll": {"activeColor", "dice"}`): absent
    when the game ended after a turn or a draw's answer, and on records archived before it was kept."""


def _check_technical(technical: object, termination: object, where: str) -> None:
    if technical is True and termination != "aborted":
        raise WireError(f"{where}.technical is only for an aborted game, not {_read.show(termination)}")


def _check_abort(abort: object, record: HistoryRecord, where: str) -> None:
    if abort is None:
        return
    if record.termination != "aborted" or record.technical:
        raise WireError(f"{where}.abort is only for an aborted game its players ended, not {_read.show(record.termination)}"
                        + (" (technical)" if record.technical else ""))


def _check_disconnect(disconnect: object, termination: object, where: str) -> None:
    if disconnect is True and termination != "resign":
        raise WireError(f"{where}.disconnect is only for a forfeit archived as resign, not {_read.show(termination)}")


def encode_history(record: HistoryRecord) -> dict[str, Any]:
    """The JSON object of `record` (HTTP bodies serialise it themselves)."""
    return {
        "gameId": record.game_id,
        "players": encode_players(record.players),
        "rated": record.rated,
        "timeControl": encode_time_control(record.time_control),
        "result": record.result,
        "termination": record.termination,
        "finishedAt": record.finished_at,
        "initialDfen": record.initial_dfen,
        "turns": [_encode_turn(turn) for turn in record.turns],
        "fairness": {
            "commit": record.fairness.commit,
            "seed": record.fairness.seed,
            "clientSeeds": encode_client_seeds(record.fairness.client_seeds),
        },
        **({"technical": True} if record.technical else {}),
        **({"disconnect": True} if record.disconnect else {}),
        **({"abort": encode_abort(record.abort)} if record.abort is not None else {}),
        **({"unplayedRoll": _encode_unplayed(record.unplayed_roll)} if record.unplayed_roll is not None else {}),
    }


def _encode_unplayed(roll: UnplayedRoll) -> dict[str, Any]:
    return {"activeColor": roll.active_color, "dice": list(roll.dice)}


def _decode_unplayed(obj: object, where: str) -> UnplayedRoll:
    body = _read.fields(obj, where, ("activeColor", "dice"))
    return UnplayedRoll(read_seat(body["activeColor"], f"{where}.activeColor"), read_dice(body["dice"], f"{where}.dice"))


def _encode_turn(turn: ArchiveTurn) -> dict[str, Any]:
    body: dict[str, Any] = {
        "turnNumber": turn.turn_number,
        "activeColor": turn.active_color,
        "dice": list(turn.dice),
        "moves": list(turn.moves),
        "fenAfter": turn.fen_after,
    }
    if turn.draw_offer:
        body["drawOffer"] = True
    if turn.draw_declined:
        body["drawDeclined"] = True
    return body


def _decode_turn(obj: object, where: str) -> ArchiveTurn:
    body = _read.fields(
        obj, where, ("turnNumber", "activeColor", "dice", "moves", "fenAfter"), ("drawOffer", "drawDeclined")
    )
    return ArchiveTurn(
        _read.integer(body["turnNumber"], f"{where}.turnNumber", 1),
        read_seat(body["activeColor"], f"{where}.activeColor"),
        read_dice(body["dice"], f"{where}.dice"),
        read_moves(body["moves"], f"{where}.moves"),
        _read.string(body["fenAfter"], f"{where}.fenAfter"),
        _read.boolean(body.get("drawOffer", False), f"{where}.drawOffer"),
        _read.boolean(body.get("drawDeclined", False), f"{where}.drawDeclined"),
    )


def _decode_fairness(obj: object, where: str) -> FairnessRecord:
    body = _read.fields(obj, where, ("commit", "seed", "clientSeeds"))
    return FairnessRecord(
        read_digest(body["commit"], f"{where}.commit"),
        read_digest(body["seed"], f"{where}.seed"),
        decode_client_seeds(body["clientSeeds"], f"{where}.clientSeeds"),
    )


_HISTORY_FIELDS = (
    "gameId",
    "players",
    "rated",
    "timeControl",
    "result",
    "termination",
    "finishedAt",
    "initialDfen",
    "turns",
    "fairness",
)


def _flag(body: dict[str, Any], name: str, where: str) -> bool:
    """An extension flag: `true` when present, absent otherwise (never `false`)."""
    if name in body and body[name] is not True:
        raise WireError(f"{where}.{name} is true when present, got {_read.show(body[name])}")
    return name in body


def decode_history(obj: object, where: str = "history") -> HistoryRecord:
    body = _read.fields(obj, where, _HISTORY_FIELDS, ("technical", "disconnect", "abort", "unplayedRoll"))
    termination = _read.one_of(body["termination"], f"{where}.termination", ARCHIVE_TERMINATIONS)
    result = _read.integer(body["result"], f"{where}.result", -1, 1)
    _check_result(result, termination, where)
    technical = _flag(body, "technical", where)
    _check_technical(technical, termination, where)
    disconnect = _flag(body, "disconnect", where)
    _check_disconnect(disconnect, termination, where)
    return HistoryRecord(
        game_id=_read.string(body["gameId"], f"{where}.gameId"),
        players=decode_players(body["players"], f"{where}.players"),
        rated=_read.boolean(body["rated"], f"{where}.rated"),
        time_control=decode_time_control(body["timeControl"], f"{where}.timeControl"),
        result=result,
        termination=termination,  # type: ignore[arg-type]
        finished_at=read_timestamp(body["finishedAt"], f"{where}.finishedAt"),
        initial_dfen=_read.string(body["initialDfen"], f"{where}.initialDfen"),
        turns=_read.array(body["turns"], f"{where}.turns", _decode_turn, item_kind="turns"),
        fairness=_decode_fairness(body["fairness"], f"{where}.fairness"),
        technical=technical,
        disconnect=disconnect,
        abort=decode_abort(body["abort"], f"{where}.abort") if "abort" in body else None,
        unplayed_roll=_decode_unplayed(body["unplayedRoll"], f"{where}.unplayedRoll") if "unplayedRoll" in body else None,
    )
