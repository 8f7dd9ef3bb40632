"""Fixtures for the dice tests."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from playsite.dice import Fairness, FixedSeedSource
from tests.support.dice import finished_game_record, load_vectors


@pytest.fixture(scope="session")
def vectors() -> dict[str, Any]:
    return load_vectors()


@pytest.fixture
def game_fairness() -> Fairness:
    seed = hashlib.sha256(b"verifier test game").digest()
    fairness = Fairness.draw(FixedSeedSource([seed]))
    fairness = fairness.submit_client_seed("White", "white's own entropy \u265e")
    fairness = fairness.submit_client_seed("Black", "black-entropy-0123456789")
    return fairness.freeze_client_seeds()


@pytest.fixture
def finished_record(game_fairness: Fairness) -> dict[str, Any]:
    # Turn 3 (ply 2) is a forced pass: it still consumes a roll.
    return finished_game_record(game_fairness, passes=(2,))
