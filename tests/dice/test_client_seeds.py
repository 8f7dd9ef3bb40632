"""Client seeds: one per seat, 16..256 characters, before the first roll; otherwise ignored."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from playsite.dice import (
    CLIENT_SEED_MAX,
    CLIENT_SEED_MIN,
    ClientSeeds,
    SeedVerdict,
    UnknownSeat,
    is_valid_client_seed,
)

GOOD = "a-good-client-seed"  # 18 characters


def test_client_seed_bounds_match_the_spec():
    assert (CLIENT_SEED_MIN, CLIENT_SEED_MAX) == (16, 256)


def test_nobody_contributed_means_empty_strings():
    assert ClientSeeds().to_json() == {"white": "", "black": ""}


@pytest.mark.parametrize("seat, field", [("White", "white"), ("Black", "black")])
def test_client_seed_accepted_before_first_roll(seat, field):
    seeds = ClientSeeds().submit(seat, GOOD)
    assert getattr(seeds, field) == GOOD
    assert seeds.for_seat(seat) == GOOD
    assert ClientSeeds().judge(seat, GOOD) is SeedVerdict.ACCEPTED


def test_each_seat_contributes_independently():
    seeds = ClientSeeds().submit("White", GOOD).submit("Black", "another-seed-for-black")
    assert seeds == ClientSeeds(white=GOOD, black="another-seed-for-black")


def test_duplicate_client_seed_is_ignored():
    seeds = ClientSeeds().submit("White", GOOD)
    assert seeds.judge("White", "a-second-seed-from-white") is SeedVerdict.DUPLICATE
    assert seeds.submit("White", "a-second-seed-from-white") is seeds
    assert seeds.submit("White", GOOD) is seeds  # the same value again is a duplicate too


def test_late_client_seed_is_ignored_after_freezing():
    seeds = ClientSeeds().submit("White", GOOD).freeze()
    assert seeds.frozen
    assert seeds.judge("Black", "a-late-seed-for-black") is SeedVerdict.LATE
    assert seeds.submit("Black", "a-late-seed-for-black") is seeds
    assert seeds.black == ""


def test_freeze_is_idempotent():
    seeds = ClientSeeds().freeze()
    assert seeds.freeze() is seeds


@pytest.mark.parametrize(
    "value",
    [
        None,
        16,
        b"sixteen-bytes-ok",
        ["a-list-of-text-0"],
        "",
        "x" * (CLIENT_SEED_MIN - 1),
        "x" * (CLIENT_SEED_MAX + 1),
        "\ud800" + "x" * 20,  # a lone surrogate, as a JSON decoder can produce
    ],
    ids=["none", "int", "bytes", "list", "empty", "too-short", "too-long", "lone-surrogate"],
)
def test_malformed_client_seed_is_ignored(value):
    seeds = ClientSeeds()
    assert not is_valid_client_seed(value)
    assert seeds.judge("White", value) is SeedVerdict.MALFORMED
    assert seeds.submit("White", value) is seeds


@pytest.mark.parametrize("length", [CLIENT_SEED_MIN, CLIENT_SEED_MAX])
def test_client_seed_length_bounds_are_inclusive(length):
    assert is_valid_client_seed("s" * length)


def test_client_seed_length_counts_characters_not_bytes():
    assert is_valid_client_seed("\U0001f3b2" * CLIENT_SEED_MAX)  # 1024 UTF-8 bytes
    assert not is_valid_client_seed("\U0001f3b2" * (CLIENT_SEED_MIN - 1))  # 60 bytes


def test_malformed_then_valid_submission_is_accepted():
    # An ignored submission does not use up the seat's one contribution.
    seeds = ClientSeeds().submit("Black", "short").submit("Black", GOOD)
    assert seeds.black == GOOD


def test_unknown_seat_is_a_caller_error():
    with pytest.raises(UnknownSeat):
        ClientSeeds().submit("white", GOOD)
    with pytest.raises(UnknownSeat):
        ClientSeeds().freeze().judge("Red", GOOD)


def test_client_seeds_cannot_be_built_with_invalid_values():
    with pytest.raises(ValueError):
        ClientSeeds(white="short")
    with pytest.raises(ValueError):
        ClientSeeds(black=None)  # type: ignore[arg-type]


def test_client_seeds_are_immutable():
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        ClientSeeds().white = GOOD  # type: ignore[misc]


@given(st.one_of(st.text(max_size=300), st.binary(), st.integers(), st.none()))
def test_submitting_anything_never_raises(value):
    seeds = ClientSeeds()
    result = seeds.submit("White", value)
    assert result is seeds or result.white == value
