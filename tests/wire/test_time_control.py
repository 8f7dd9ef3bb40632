"""Time controls: lossless for all four variants, precise reasons for every bad shape."""

from __future__ import annotations

import json

import pytest
from hypothesis import given

from playsite import wire
from playsite.wire.schemas import validator

from .strategies import time_controls


@given(time_controls)
def test_time_control_round_trips_losslessly(tc):
    obj = wire.encode_time_control(tc)
    validator("time-control").validate(obj)
    assert wire.decode_time_control(json.loads(json.dumps(obj))) == tc


@pytest.mark.parametrize(
    ("tc", "obj"),
    [
        (wire.Fischer(600, 10), {"Fischer": {"initialSeconds": 600, "incrementSeconds": 10}}),
        (wire.SuddenDeath(180), {"SuddenDeath": {"initialSeconds": 180}}),
        (wire.PerMove(10), {"PerMove": {"secondsPerMove": 10}}),
        (wire.Unlimited(), {"Unlimited": {}}),
    ],
)
def test_time_control_wire_shapes(tc, obj):
    assert wire.encode_time_control(tc) == obj
    assert wire.decode_time_control(obj) == tc


def test_default_time_control_is_ten_plus_ten():
    assert wire.DEFAULT_TIME_CONTROL == wire.Fischer(600, 10)


def test_range_bounds_are_inclusive():
    assert wire.decode_time_control({"Fischer": {"initialSeconds": 1, "incrementSeconds": 0}})
    assert wire.decode_time_control({"Fischer": {"initialSeconds": 10_800, "incrementSeconds": 180}})
    assert wire.decode_time_control({"PerMove": {"secondsPerMove": 3600}})


BAD_TIME_CONTROLS = {
    "not_an_object": ([600, 10], "timeControl must be an object, got array"),
    "null": (None, "timeControl must be an object, got null"),
    "no_key": ({}, "timeControl must have exactly one key naming the time control, got none"),
    "two_keys": (
        {"Unlimited": {}, "PerMove": {"secondsPerMove": 5}},
        'timeControl must have exactly one key naming the time control, got 2 keys ("Unlimited", "PerMove")',
    ),
    "unknown_variant": (
        {"Bronstein": {"initialSeconds": 60}},
        'unknown time control "Bronstein"; expected one of: Fischer, SuddenDeath, PerMove, Unlimited',
    ),
    "body_not_object": ({"Unlimited": None}, "timeControl.Unlimited must be an object, got null"),
    "missing_field": (
        {"Fischer": {"initialSeconds": 600}},
        'timeControl.Fischer is missing field "incrementSeconds"',
    ),
    "extra_field": (
        {"SuddenDeath": {"initialSeconds": 60, "incrementSeconds": 0}},
        'timeControl.SuddenDeath has unknown field "incrementSeconds"',
    ),
    "unlimited_with_field": (
        {"Unlimited": {"initialSeconds": 60}},
        'timeControl.Unlimited has unknown field "initialSeconds"',
    ),
    "string_number": (
        {"PerMove": {"secondsPerMove": "10"}},
        'timeControl.PerMove.secondsPerMove must be an integer, got string "10"',
    ),
    "float": (
        {"SuddenDeath": {"initialSeconds": 60.5}},
        "timeControl.SuddenDeath.initialSeconds must be an integer, got number 60.5",
    ),
    "bool_is_not_integer": (
        {"Fischer": {"initialSeconds": 60, "incrementSeconds": True}},
        "timeControl.Fischer.incrementSeconds must be an integer, got boolean true",
    ),
    "zero_initial": (
        {"Fischer": {"initialSeconds": 0, "incrementSeconds": 1}},
        "timeControl.Fischer.initialSeconds must be between 1 and 10800, got 0",
    ),
    "initial_too_long": (
        {"SuddenDeath": {"initialSeconds": 10_801}},
        "timeControl.SuddenDeath.initialSeconds must be between 1 and 10800, got 10801",
    ),
    "negative_increment": (
        {"Fischer": {"initialSeconds": 60, "incrementSeconds": -1}},
        "timeControl.Fischer.incrementSeconds must be between 0 and 180, got -1",
    ),
    "increment_too_large": (
        {"Fischer": {"initialSeconds": 60, "incrementSeconds": 181}},
        "timeControl.Fischer.incrementSeconds must be between 0 and 180, got 181",
    ),
    "per_move_zero": (
        {"PerMove": {"secondsPerMove": 0}},
        "timeControl.PerMove.secondsPerMove must be between 1 and 3600, got 0",
    ),
    "per_move_too_long": (
        {"PerMove": {"secondsPerMove": 3601}},
        "timeControl.PerMove.secondsPerMove must be between 1 and 3600, got 3601",
    ),
}


@pytest.mark.parametrize("case", list(BAD_TIME_CONTROLS))
def test_bad_time_control_is_refused_with_precise_reason(case):
    obj, reason = BAD_TIME_CONTROLS[case]
    with pytest.raises(wire.WireError) as caught:
        wire.decode_time_control(obj)
    assert caught.value.reason == reason
    assert isinstance(caught.value, ValueError)
    assert not validator("time-control").is_valid(obj)


def test_time_control_constructor_checks_ranges():
    with pytest.raises(wire.WireError, match="Fischer.initial_seconds must be between 1 and 10800"):
        wire.Fischer(0, 0)
    with pytest.raises(wire.WireError, match="PerMove.seconds_per_move must be an integer"):
        wire.PerMove(True)


def test_encode_time_control_refuses_non_time_control():
    with pytest.raises(TypeError):
        wire.encode_time_control("5+3")
