"""Time controls: the four-variant tagged union, kept lossless on the wire.

JSON shapes (one key naming the variant, its fields in camelCase, all integers in seconds):
``{"Fischer": {"initialSeconds": 600, "incrementSeconds": 10}}``,
``{"SuddenDeath": {"initialSeconds": 180}}``, ``{"PerMove": {"secondsPerMove": 10}}``,
``{"Unlimited": {}}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

import attrs

from . import _read

# Accepted ranges, in seconds. Three hours of initial time covers every classical control;
# an increment above three minutes or a per-move budget above an hour is a typo, not a game.
INITIAL_SECONDS_MIN = 1
INITIAL_SECONDS_MAX = 10_800
INCREMENT_SECONDS_MIN = 0
INCREMENT_SECONDS_MAX = 180
SECONDS_PER_MOVE_MIN = 1
SECONDS_PER_MOVE_MAX = 3_600


def _in_range(low: int, high: int) -> Callable[[object, attrs.Attribute[int], int], None]:
    def check(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
        _read.integer(value, f"{type(instance).__name__}.{attribute.name}", low, high)

    return check


@attrs.frozen
class Fischer:
    """A starting budget plus an increment credited once per completed turn."""

    initial_seconds: int = attrs.field(validator=_in_range(INITIAL_SECONDS_MIN, INITIAL_SECONDS_MAX))
    increment_seconds: int = attrs.field(
        validator=_in_range(INCREMENT_SECONDS_MIN, INCREMENT_SECONDS_MAX)
    )


@attrs.frozen
class SuddenDeath:
    """A single budget for the whole game, no increment."""

    initial_seconds: int = attrs.field(validator=_in_range(INITIAL_SECONDS_MIN, INITIAL_SECONDS_MAX))


@attrs.frozen
class PerMove:
    """A fresh budget for every turn; nothing carries over."""

    seconds_per_move: int = attrs.field(
        validator=_in_range(SECONDS_PER_MOVE_MIN, SECONDS_PER_MOVE_MAX)
    )


@attrs.frozen
class Unlimited:
    """No clock at all; clocks travel as null."""


TimeControl = Union[Fischer, SuddenDeath, PerMove, Unlimited]

DEFAULT_TIME_CONTROL: TimeControl = Fischer(600, 10)

TIME_CONTROL_VARIANTS = ("Fischer", "SuddenDeath", "PerMove", "Unlimited")


def encode_time_control(tc: TimeControl) -> dict[str, Any]:
    """The single-key JSON object of `tc`."""
    if isinstance(tc, Fischer):
        return {
            "Fischer": {
                "initialSeconds": tc.initial_seconds,
                "incrementSeconds": tc.increment_seconds,
            }
        }
    if isinstance(tc, SuddenDeath):
        return {"SuddenDeath": {"initialSeconds": tc.initial_seconds}}
    if isinstance(tc, PerMove):
        return {"PerMove": {"secondsPerMove": tc.seconds_per_move}}
    if isinstance(tc, Unlimited):
        return {"Unlimited": {}}
    raise TypeError(f"not a time control: {tc!r}")


def decode_time_control(obj: object, where: str = "timeControl") -> TimeControl:
    """The time control `obj` (parsed JSON) describes; WireError says precisely what is wrong."""
    variant, body = _read.tagged(obj, where, "time control", TIME_CONTROL_VARIANTS)
    at = f"{where}.{variant}"
    if variant == "Fischer":
        body = _read.fields(body, at, ("initialSeconds", "incrementSeconds"))
        return Fischer(
            _initial(body["initialSeconds"], f"{at}.initialSeconds"),
            _read.integer(
                body["incrementSeconds"],
                f"{at}.incrementSeconds",
                INCREMENT_SECONDS_MIN,
                INCREMENT_SECONDS_MAX,
            ),
        )
    if variant == "SuddenDeath":
        body = _read.fields(body, at, ("initialSeconds",))
        return SuddenDeath(_initial(body["initialSeconds"], f"{at}.initialSeconds"))
    if variant == "PerMove":
        body = _read.fields(body, at, ("secondsPerMove",))
        return PerMove(
            _read.integer(
                body["secondsPerMove"],
                f"{at}.secondsPerMove",
                SECONDS_PER_MOVE_MIN,
                SECONDS_PER_MOVE_MAX,
            )
        )
    _read.fields(body, at)
    return Unlimited()


def _initial(value: object, where: str) -> int:
    return _read.integer(value, where, INITIAL_SECONDS_MIN, INITIAL_SECONDS_MAX)

