"""How the one `Termination` (playsite.rules.ending) is named on the wire and in the archive.

Both names are explicit tables, never a `Termination`'s Python value. Neither is one to
one: the wire has the ecosystem's five names and the archive six, for seven reasons. A
forfeit after the disconnect grace travels, and is archived, as a resignation; live, both
kinds of draw are ``Draw``. Decoding gives the reason a name stands for first (``Resign``
-> RESIGN, ``Draw`` -> DRAW_AGREEMENT), so that encoding it again gives the same name.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from playsite.rules.ending import Termination

from . import _read
from .common import Seat, read_seat
from .errors import WireError
from .outcome import ABORTED, DRAW, KING_CAPTURED, RESIGN, TIMEOUT, WireTermination

ArchiveTermination = Literal["king_captured", "timeout", "resign", "draw_agreement", "no_progress", "aborted"]
ARCHIVE_TERMINATIONS: tuple[ArchiveTermination, ...] = (
    "king_captured",
    "timeout",
    "resign",
    "draw_agreement",
    "no_progress",
    "aborted",
)

_WIRE: dict[Termination, WireTermination] = {
    Termination.KING_CAPTURED: KING_CAPTURED,
    Termination.RESIGN: RESIGN,
    Termination.DISCONNECT: RESIGN,  # the absent side resigned
    Termination.TIMEOUT: TIMEOUT,
    Termination.DRAW_AGREEMENT: DRAW,
    Termination.NO_PROGRESS: DRAW,
    Termination.ABORTED: ABORTED,
}
_FROM_WIRE: dict[WireTermination, Termination] = {
    KING_CAPTURED: Termination.KING_CAPTURED,
    RESIGN: Termination.RESIGN,
    TIMEOUT: Termination.TIMEOUT,
    DRAW: Termination.DRAW_AGREEMENT,
    ABORTED: Termination.ABORTED,
}
_ARCHIVE: dict[Termination, ArchiveTermination] = {
    Termination.KING_CAPTURED: "king_captured",
    Termination.RESIGN: "resign",
    Termination.DISCONNECT: "resign",  # archived as it travelled live
    Termination.TIMEOUT: "timeout",
    Termination.DRAW_AGREEMENT: "draw_agreement",
    Termination.NO_PROGRESS: "no_progress",
    Termination.ABORTED: "aborted",
}
_FROM_ARCHIVE: dict[ArchiveTermination, Termination] = {
    "king_captured": Termination.KING_CAPTURED,
    "resign": Termination.RESIGN,
    "timeout": Termination.TIMEOUT,
    "draw_agreement": Termination.DRAW_AGREEMENT,
    "no_progress": Termination.NO_PROGRESS,
    "aborted": Termination.ABORTED,
}


def to_wire(termination: Termination) -> WireTermination:
    """The `Over.termination` name clients see."""
    return _WIRE[termination]


def from_wire(name: WireTermination) -> Termination:
    """The reason a wire name stands for first (KeyError for a name that is not one)."""
    return _FROM_WIRE[name]


def to_archive(termination: Termination) -> ArchiveTermination:
    """The history record's and the results row's name (GET /games/{id}/history)."""
    return _ARCHIVE[termination]


def from_archive(name: ArchiveTermination) -> Termination:
    """The reason an archived name stands for first (KeyError for a name that is not one)."""
    return _FROM_ARCHIVE[name]


AbortCause = Literal["first_move", "resign", "timeout", "disconnect", "both_away", "not_joined"]
"""Why the players' game was aborted, as the archive names it: a seat did not play its first
turn within the first-move limit (`first_move`); before both seats had played a turn, a seat
resigned (`resign`), ran out of time (`timeout`) or stayed away past the disconnect grace
(`disconnect`); both seats were away past their grace at once, at any point (`both_away`); a
seat was never taken within its join window or claim grace (`not_joined`)."""
ABORT_CAUSES: tuple[AbortCause, ...] = ("first_move", "resign", "timeout", "disconnect", "both_away", "not_joined")
_WITHOUT_SEAT: frozenset[str] = frozenset({"both_away"})
"""Causes of both seats at once: no seat is named."""
_SEAT_OPTIONAL: frozenset[str] = frozenset({"not_joined"})
"""The seat that never came, or none when neither did."""


def _check_abort_seat(abort: Abort, _: object, seat: Seat | None) -> None:
    check_abort(abort.cause, seat, "Abort")


def check_abort(cause: str, seat: object, where: str) -> None:
    """Raise WireError unless `cause` is an abort cause and `seat` fits it."""
    _read.one_of(cause, f"{where}.cause", ABORT_CAUSES)
    if seat is None:
        if cause not in _WITHOUT_SEAT | _SEAT_OPTIONAL:
            raise WireError(f"{where}.seat is required for an abort by {cause}")
        return
    if cause in _WITHOUT_SEAT:
        raise WireError(f"{where}.seat is not named for an abort by {cause}, got {_read.show(seat)}")
    read_seat(seat, f"{where}.seat")


@attrs.frozen
class Abort:
    """Why a game its players ended before it was decided has no result, and which seat caused
    it. A technical abort (the server's own) has none: its record says `technical` instead."""

    cause: AbortCause
    seat: Seat | None = attrs.field(default=None, validator=_check_abort_seat)


def encode_abort(abort: Abort) -> dict[str, Any]:
    return {"cause": abort.cause, **({"seat": abort.seat} if abort.seat is not None else {})}


def decode_abort(obj: object, where: str) -> Abort:
    body = _read.fields(obj, where, ("cause",), ("seat",))
    seat = read_seat(body["seat"], f"{where}.seat") if "seat" in body else None
    check_abort(body["cause"], seat, where)
    return Abort(body["cause"], seat)
