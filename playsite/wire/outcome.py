"""How a game ends (`Over`) and whether it has (`Status`).

Wire strings for the termination are exactly the ecosystem's five: KingCaptured, Resign,
Draw, Aborted, Timeout. playsite's richer reasons map onto them:

- a forfeit after the disconnect grace travels as ``Resign`` (the absent side resigned);
- a draw by agreement and a draw by no progress both travel as ``Draw``;
- an aborted game has no result: ``{"result": null, "termination": "Aborted"}``.

These five names are an encoding: how a game ends is playsite.rules' `Termination`, named
here by `termination.to_wire`. The archive (history.py) keeps finer names.
"""

from __future__ import annotations

from typing import Any, Literal, Union

import attrs

from . import _read
from .common import Checked, Seat, check_seat, read_seat
from .errors import WireError

WireTermination = Literal["KingCaptured", "Resign", "Draw", "Aborted", "Timeout"]
KING_CAPTURED: WireTermination = "KingCaptured"
RESIGN: WireTermination = "Resign"
DRAW: WireTermination = "Draw"
ABORTED: WireTermination = "Aborted"
TIMEOUT: WireTermination = "Timeout"
TERMINATIONS: tuple[WireTermination, ...] = (KING_CAPTURED, RESIGN, DRAW, ABORTED, TIMEOUT)

WINNING_TERMINATIONS = (KING_CAPTURED, RESIGN, TIMEOUT)


@attrs.frozen
class Win:
    side: Seat = attrs.field(validator=check_seat)
    """The seat that won."""


@attrs.frozen
class Draw:
    pass


Result = Union[Win, Draw]


def _result_fits_termination(instance: Over, attribute: attrs.Attribute[Checked], value: Checked) -> None:
    if value not in TERMINATIONS:
        raise WireError(f"Over.termination must be one of {', '.join(TERMINATIONS)}, got {value!r}")
    expected = _expected_result(value)
    if not isinstance(instance.result, expected):
        raise WireError(
            f"termination {value} needs {_RESULT_NAMES[expected]}, got {instance.result!r}"
        )


def _expected_result(termination: str) -> type:
    if termination == ABORTED:
        return type(None)
    if termination == DRAW:
        return Draw
    return Win


_RESULT_NAMES = {type(None): "no result (null)", Draw: "a Draw result", Win: "a Win result"}


@attrs.frozen
class Over:
    """A finished game: who won (None when aborted) and how it ended."""

    result: Result | None
    termination: WireTermination = attrs.field(validator=_result_fits_termination)


def encode_result(result: Result | None) -> dict[str, Any] | None:
    if result is None:
        return None
    if isinstance(result, Win):
        return {"Win": {"side": result.side}}
    return {"Draw": {}}


def decode_result(obj: object, where: str = "result") -> Result | None:
    if obj is None:
        return None
    tag, body = _read.tagged(obj, where, "result", ("Win", "Draw"))
    if tag == "Win":
        body = _read.fields(body, f"{where}.Win", ("side",))
        return Win(read_seat(body["side"], f"{where}.Win.side"))
    _read.fields(body, f"{where}.Draw")
    return Draw()


def encode_over(over: Over) -> dict[str, Any]:
    return {"result": encode_result(over.result), "termination": over.termination}


def decode_over(obj: object, where: str = "over") -> Over:
    body = _read.fields(obj, where, ("result", "termination"))
    result = decode_result(body["result"], f"{where}.result")
    termination = _read.one_of(body["termination"], f"{where}.termination", TERMINATIONS)
    expected = _expected_result(termination)
    if not isinstance(result, expected):
        raise WireError(
            f"{where}: termination {termination} needs {_RESULT_NAMES[expected]}"
        )
    return Over(result, termination)  # type: ignore[arg-type]


@attrs.frozen
class Active:
    """The game is being played."""


@attrs.frozen
class Ended:
    over: Over


Status = Union[Active, Ended]


def encode_status(status: Status) -> dict[str, Any]:
    if isinstance(status, Ended):
        return {"Ended": {"over": encode_over(status.over)}}
    return {"Active": {}}


def decode_status(obj: object, where: str = "status") -> Status:
    tag, body = _read.tagged(obj, where, "status", ("Active", "Ended"))
    if tag == "Active":
        _read.fields(body, f"{where}.Active")
        return Active()
    body = _read.fields(body, f"{where}.Ended", ("over",))
    return Ended(decode_over(body["over"], f"{where}.Ended.over"))
