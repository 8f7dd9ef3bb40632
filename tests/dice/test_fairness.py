"""Fairness: commitment published at once, seed revealed only at the end."""

from __future__ import annotations

import hashlib
import logging

import pytest

from playsite.dice import (
    ClientSeeds,
    ClientSeedsOpen,
    Fairness,
    FixedSeedSource,
    InvalidSeed,
    SystemSeedSource,
    commitment,
    roll,
)

SEED = hashlib.sha256(b"fairness tests").digest()


def new_fairness() -> Fairness:
    return Fairness.draw(FixedSeedSource([SEED]))


def test_commit_is_sha256_of_the_seed_from_creation():
    fairness = new_fairness()
    assert fairness.commit == commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert fairness.public() == {"commit": fairness.commit, "seed": None, "clientSeeds": None}


def test_seed_is_not_in_the_repr():
    fairness = new_fairness()
    assert SEED.hex() not in repr(fairness)
    assert repr(SEED) not in repr(fairness)
    assert SEED.hex() not in str(fairness.public())


def test_reveal_has_the_history_fairness_shape():
    fairness = new_fairness().submit_client_seed("White", "white-client-seed!")
    fairness = fairness.freeze_client_seeds()
    assert fairness.reveal() == {
        "commit": commitment(SEED),
        "seed": SEED.hex(),
        "clientSeeds": {"white": "white-client-seed!", "black": ""},
    }


def test_rolls_use_the_frozen_client_seeds():
    fairness = (
        new_fairness()
        .submit_client_seed("White", "white-client-seed!")
        .submit_client_seed("Black", "black-client-seed!")
        .freeze_client_seeds()
    )
    for ply in range(5):
        assert fairness.roll(ply) == roll(SEED, "white-client-seed!", "black-client-seed!", ply)


def test_seeds_are_frozen_at_first_roll():
    with pytest.raises(ClientSeedsOpen):
        new_fairness().roll(0)
    frozen = new_fairness().freeze_client_seeds()
    assert frozen.submit_client_seed("Black", "too-late-for-this-game") is frozen


def test_ignored_client_seed_returns_the_same_fairness():
    fairness = new_fairness()
    assert fairness.submit_client_seed("White", "short") is fairness


def test_fairness_requires_a_32_byte_seed():
    with pytest.raises(InvalidSeed):
        Fairness(seed=b"\x00" * 31)
    with pytest.raises(InvalidSeed):
        Fairness(seed="00" * 32)  # type: ignore[arg-type]


def test_fairness_round_trips_through_its_reveal():
    original = new_fairness().submit_client_seed("Black", "black-client-seed!")
    original = original.freeze_client_seeds()
    revealed = original.reveal()
    restored = Fairness(
        seed=bytes.fromhex(revealed["seed"]),
        client_seeds=ClientSeeds(**revealed["clientSeeds"], frozen=True),
    )
    assert restored == original


def test_drawn_from_the_system_source_each_game_differs():
    first, second = Fairness.draw(SystemSeedSource()), Fairness.draw(SystemSeedSource())
    assert first.commit != second.commit


def test_dice_package_does_not_log(caplog):
    caplog.set_level(logging.DEBUG)
    fairness = new_fairness().freeze_client_seeds()
    fairness.roll(0)
    fairness.reveal()
    assert caplog.records == []
