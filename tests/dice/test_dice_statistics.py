"""Goodness of fit of the dice over a million deterministic dice.

The inputs are fixed, so each test either always passes or always fails: it cannot flake.
It guards against a bias introduced by a change to the procedure (a modulo shortcut, a
wrong byte range); a second test shows the same statistic catches the modulo shortcut.

Critical values are the upper-tail points of the chi-square distribution at significance
alpha = 0.001, from the NIST/SEMATECH e-Handbook of Statistical Methods, section 1.3.6.7.4
"Critical Values of the Chi-Square Distribution" (https://www.itl.nist.gov/div898/handbook/
eda/section3/eda3674.htm): 20.515 for 5 degrees of freedom (six faces) and 66.619 for 35
degrees of freedom (36 ordered pairs).
"""

from __future__ import annotations

import collections
import hashlib
import itertools

import pytest

from playsite.dice import dice_from_digests, roll_digests, roll_message

CHI2_CRITICAL_ALPHA_0_001_DF_5 = 20.515
CHI2_CRITICAL_ALPHA_0_001_DF_35 = 66.619

SEEDS = 12
PLIES_PER_SEED = 27_778  # 12 seeds x 27,778 rolls x 3 dice = 1,000,008 dice
DICE_TOTAL = SEEDS * PLIES_PER_SEED * 3


def chi_square(counts: collections.Counter, cells: list) -> float:
    total = sum(counts[cell] for cell in cells)
    expected = total / len(cells)
    return sum((counts[cell] - expected) ** 2 / expected for cell in cells)


@pytest.fixture(scope="module")
def sample():
    """Rolls from fixed seeds, with and without client seeds, and the same digests mapped
    naively (first three bytes, b % 6 + 1, no rejection)."""
    rolls, naive = [], []
    for index in range(SEEDS):
        seed = hashlib.sha256(f"chi-square seed {index}".encode()).digest()
        white = "" if index % 3 == 0 else f"white client seed #{index}"
        black = "" if index % 2 == 0 else f"black client seed #{index} \u2658"
        for ply in range(PLIES_PER_SEED):
            digests = roll_digests(seed, roll_message(white, black, ply))
            first = next(digests)
            rolls.append(dice_from_digests(itertools.chain([first], digests)))
            naive.append(tuple(b % 6 + 1 for b in first[:3]))
    return rolls, naive


FACES = [1, 2, 3, 4, 5, 6]


@pytest.mark.slow
def test_faces_are_uniform_chi_square(sample):
    rolls, _ = sample
    counts = collections.Counter(die for dice in rolls for die in dice)
    assert sum(counts.values()) == DICE_TOTAL >= 10**6
    statistic = chi_square(counts, FACES)
    assert statistic < CHI2_CRITICAL_ALPHA_0_001_DF_5, (statistic, sorted(counts.items()))


@pytest.mark.slow
@pytest.mark.parametrize("position", [0, 1, 2])
def test_each_die_position_is_uniform_chi_square(sample, position):
    rolls, _ = sample
    counts = collections.Counter(dice[position] for dice in rolls)
    assert chi_square(counts, FACES) < CHI2_CRITICAL_ALPHA_0_001_DF_5


@pytest.mark.slow
@pytest.mark.parametrize("positions", [(0, 1), (1, 2)])
def test_consecutive_dice_in_a_roll_are_independent_chi_square(sample, positions):
    # One pair per roll, so the pairs counted are independent of each other.
    rolls, _ = sample
    first, second = positions
    counts = collections.Counter((dice[first], dice[second]) for dice in rolls)
    cells = list(itertools.product(FACES, FACES))
    assert chi_square(counts, cells) < CHI2_CRITICAL_ALPHA_0_001_DF_35


@pytest.mark.slow
def test_chi_square_detects_the_modulo_bias_rejection_sampling_removes(sample):
    # b % 6 + 1 over all 256 byte values gives faces 1-4 43/256 and faces 5-6 42/256:
    # expected statistic ~ 122 at this sample size, far above the critical value.
    _, naive = sample
    counts = collections.Counter(die for dice in naive for die in dice)
    assert chi_square(counts, FACES) > CHI2_CRITICAL_ALPHA_0_001_DF_5
