"""The strength math against values worked out by hand, and its symmetries (Hypothesis)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playsite.strength.stats import (
    DEFAULT_SPRT,
    PENTANOMIAL_SCORES,
    TRINOMIAL_SCORES,
    Pentanomial,
    SprtParameters,
    SprtVerdict,
    Trinomial,
    bradley_terry,
    elo_of_score,
    expected_score,
    gsprt_llr,
    rank,
    sprt,
)

T = Trinomial


def test_expected_score_is_the_logistic_elo_curve():
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-400) == pytest.approx(1 / 11)
    assert elo_of_score(expected_score(123.4)) == pytest.approx(123.4)


# ----- Bradley-Terry -----------------------------------------------------------------------------


def test_bradley_terry_of_two_bots_is_the_elo_of_the_score_ratio():
    # 3 wins to 1: strength ratio 3, so 400 log10(3) = 190.85 Elo apart, centred on 0.
    elo = bradley_terry({("a", "b"): T(losses=1, wins=3)}, prior=0)
    assert elo["a"] == pytest.approx(200 * math.log10(3), abs=1e-6)
    assert elo["b"] == pytest.approx(-200 * math.log10(3), abs=1e-6)


def test_bradley_terry_of_a_chain_adds_the_edges_and_centres_the_pool():
    # a-b 2:1 and b-c 3:1 and nothing else: each edge is its own ratio (120.41 and 190.85 Elo);
    # a = x, b = x - 120.41, c = x - 311.26 with mean 0 gives x = 143.89.
    elo = bradley_terry({("a", "b"): T(losses=1, wins=2), ("b", "c"): T(losses=1, wins=3)}, prior=0)
    ab, bc = 400 * math.log10(2), 400 * math.log10(3)
    top = (ab + ab + bc) / 3
    assert elo == pytest.approx({"a": top, "b": top - ab, "c": top - ab - bc}, abs=1e-6)
    assert elo["a"] == pytest.approx(143.8908, abs=1e-4)


def test_bradley_terry_of_a_balanced_cycle_is_all_zero():
    cycle = {("a", "b"): T(1, 0, 2), ("b", "c"): T(1, 0, 2), ("a", "c"): T(2, 0, 1)}
    assert bradley_terry(cycle, prior=0) == pytest.approx({"a": 0, "b": 0, "c": 0}, abs=1e-9)


def test_a_draw_counts_half_a_win_each_way():
    assert bradley_terry({("a", "b"): T(losses=1, draws=2, wins=1)}, prior=0) == pytest.approx({"a": 0, "b": 0}, abs=1e-9)
    # 1 win + 2 draws against 1 loss: a scores 2 of 3, ratio 2.
    elo = bradley_terry({("a", "b"): T(losses=1, draws=2, wins=2)}, prior=0)
    assert elo["a"] - elo["b"] == pytest.approx(400 * math.log10(3 / 2), abs=1e-6)


def test_the_prior_keeps_a_perfect_score_finite_and_shrinks_towards_the_pool():
    elo = bradley_terry({("a", "b"): T(wins=5)})
    assert math.isfinite(elo["a"]) and elo["a"] == pytest.approx(-elo["b"])
    assert elo["a"] > 0
    plain = bradley_terry({("a", "b"): T(losses=1, wins=3)}, prior=0)
    shrunk = bradley_terry({("a", "b"): T(losses=1, wins=3)})
    assert 0 < shrunk["a"] < plain["a"]


def test_the_prior_fits_the_hand_solved_one_game_case():
    # a beat b once; each also drew once (virtually) with a player of Elo 0. By symmetry
    # a = -b = x (natural log-strength t): a's score 1.5 = 1·σ(2t) + 1·σ(t) + ... solved:
    # score(a) = σ(2t) + σ(t) = 1.5 (one real game, one virtual one), so t solves it.
    low, high = 0.0, 10.0
    for _ in range(200):
        t = (low + high) / 2
        low, high = (t, high) if 1 / (1 + math.exp(-2 * t)) + 1 / (1 + math.exp(-t)) < 1.5 else (low, t)
    elo = bradley_terry({("a", "b"): T(wins=1)})
    assert elo["a"] == pytest.approx(400 * t / math.log(10), abs=1e-6)


ratios = st.dictionaries(
    st.sampled_from([("a", "b"), ("a", "c"), ("b", "c"), ("b", "d"), ("c", "d")]),
    st.builds(T, st.integers(0, 12), st.integers(0, 4), st.integers(0, 12)).filter(lambda t: t.games > 0),
    min_size=1,
)


@settings(max_examples=60, deadline=None)
@given(ratios)
def test_bradley_terry_is_centred_and_mirrors_when_every_result_is_reversed(table):
    elo = bradley_terry(table)
    assert sum(elo.values()) == pytest.approx(0, abs=1e-6)
    mirrored = bradley_terry({pair: games.reversed() for pair, games in table.items()})
    assert mirrored == pytest.approx({player: -value for player, value in elo.items()}, abs=1e-6)


@settings(max_examples=60, deadline=None)
@given(ratios)
def test_bradley_terry_does_not_depend_on_names_or_on_which_side_a_matchup_is_stored(table):
    elo = bradley_terry(table)
    renamed = {("z" + b, "z" + a): games.reversed() for (a, b), games in table.items()}
    assert bradley_terry(renamed) == pytest.approx({"z" + p: v for p, v in elo.items()}, abs=1e-6)


def test_the_ranking_is_ordered_with_intervals_and_likelihoods_of_superiority():
    table = {("a", "b"): T(3, 1, 12), ("b", "c"): T(4, 2, 10), ("a", "c"): T(1, 0, 15), ("c", "d"): T(8, 0, 8)}
    rows = rank(table)
    assert [row.player for row in rows] == ["a", "b", "c", "d"] or [row.player for row in rows] == ["a", "b", "d", "c"]
    fitted = bradley_terry(table)
    for row in rows:
        assert row.elo == pytest.approx(fitted[row.player])
        assert row.ci_low <= row.elo <= row.ci_high
    assert [row.los_vs_next is None for row in rows] == [False, False, False, True]
    assert all(0 <= row.los_vs_next <= 1 for row in rows[:-1])
    assert rows[0].los_vs_next > 0.95  # 15-1 against b's 12-3 share: a is clearly first
    assert rank(table) == rows  # the same games give the same report (fixed seed)


def test_a_pair_one_side_won_every_game_of_still_has_an_interval_with_width():
    rows = rank({("a", "b"): T(0, 0, 3)})  # a won all three
    assert [row.player for row in rows] == ["a", "b"]
    for row in rows:
        assert row.ci_high - row.ci_low > 50, row  # three games say little
    assert 0.5 < rows[0].los_vs_next < 1.0


def test_an_empty_pool_has_no_ranking():
    assert rank({}) == [] and bradley_terry({}) == {}


# ----- the SPRT ----------------------------------------------------------------------------------


def test_default_bounds_are_walds_for_five_percent_errors():
    assert DEFAULT_SPRT.elo0 == 0 and DEFAULT_SPRT.elo1 == 50
    assert DEFAULT_SPRT.lower == pytest.approx(-math.log(19))  # ln(0.05 / 0.95)
    assert DEFAULT_SPRT.upper == pytest.approx(math.log(19))
    assert DEFAULT_SPRT.upper == pytest.approx(2.944439, abs=1e-6)


@pytest.mark.parametrize("kwargs", [{"elo0": 10, "elo1": 10}, {"alpha": 0}, {"beta": 0.5}])
def test_nonsense_parameters_are_refused(kwargs):
    with pytest.raises(ValueError):
        SprtParameters(**kwargs)


def test_with_two_outcomes_the_llr_is_the_binomial_ratio():
    # No draws possible: the constrained distribution is fixed by its mean, p(win) = s.
    s0, s1 = expected_score(0), expected_score(50)
    wins, losses = 5, 3
    by_hand = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert gsprt_llr([losses, wins], [0.0, 1.0], 0, 50) == pytest.approx(by_hand, rel=1e-12)
    assert by_hand == pytest.approx(0.205265, abs=1e-6)


def constrained_log_likelihood(counts, mean: float) -> float:
    """max Σ c_i log p_i over (loss, draw, win) distributions with expected score `mean`,
    worked out another way: the draw share d fixes the rest (win = mean - d/2, loss =
    1 - mean - d/2), and the concave function of d is maximised by golden-section search."""
    losses, draws, wins = counts

    def value(d: float) -> float:
        return losses * math.log(1 - mean - d / 2) + draws * math.log(d) + wins * math.log(mean - d / 2)

    low, high = 1e-15, 2 * min(mean, 1 - mean) - 1e-15
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(300):
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        low, high = (low, b) if value(a) > value(b) else (a, high)
    return value((low + high) / 2)


@pytest.mark.parametrize("counts", [(525, 100, 575), (3, 2, 7), (10, 10, 10), (40, 1, 12)])
def test_the_trinomial_llr_is_the_ratio_of_the_constrained_maximum_likelihoods(counts):
    by_search = constrained_log_likelihood(counts, expected_score(50)) - constrained_log_likelihood(counts, 0.5)
    assert gsprt_llr(counts, TRINOMIAL_SCORES, 0, 50) == pytest.approx(by_search, rel=1e-7)


def test_near_the_hypotheses_the_llr_is_close_to_the_normal_approximation():
    losses, draws, wins = 525, 100, 575
    n = wins + draws + losses
    score = (wins + draws / 2) / n
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / n
    s0, s1 = expected_score(0), expected_score(50)
    approximate = n * (s1 - s0) * (2 * score - s0 - s1) / (2 * variance)
    assert gsprt_llr([losses, draws, wins], TRINOMIAL_SCORES, 0, 50) == pytest.approx(approximate, rel=0.03)


def test_an_outcome_never_seen_still_gives_a_finite_ratio_near_the_two_outcome_one():
    all_wins = gsprt_llr([0, 0, 10], TRINOMIAL_SCORES, 0, 50)
    assert all_wins == pytest.approx(10 * math.log(expected_score(50) / 0.5), rel=0.01)


def test_verdicts_follow_the_bounds():
    assert sprt(Pentanomial(), T(wins=100)).verdict == SprtVerdict.ACCEPT_H1
    assert sprt(Pentanomial(), T(losses=100)).verdict == SprtVerdict.ACCEPT_H0
    assert sprt(Pentanomial(), T(losses=150, wins=150)).verdict == SprtVerdict.ACCEPT_H0  # equal: not stronger by 50
    assert sprt(Pentanomial(), T(losses=50, wins=50)).verdict == SprtVerdict.CONTINUE  # not yet sure of that
    few = sprt(Pentanomial(), T(losses=2, draws=1, wins=3))
    assert few.verdict == SprtVerdict.CONTINUE and few.lower < few.llr < few.upper
    assert few.observations == 6


def test_the_verdict_changes_exactly_at_the_bounds():
    # 40 straight wins: LLR 40·ln(s1/0.5)·(1 - tiny) ≈ 2.85: choose alpha so the bound sits just below or above it.
    llr = sprt(Pentanomial(), T(wins=40)).llr
    at = SprtParameters(alpha=(1 - 0.05) / math.exp(llr))  # upper = ln(0.95 / alpha) = llr
    assert at.upper == pytest.approx(llr, abs=1e-12)
    above = SprtParameters(alpha=(1 - 0.05) / math.exp(llr) * 1.0001)
    below = SprtParameters(alpha=(1 - 0.05) / math.exp(llr) / 1.0001)
    assert sprt(Pentanomial(), T(wins=40), above).verdict == SprtVerdict.ACCEPT_H1
    assert sprt(Pentanomial(), T(wins=40), below).verdict == SprtVerdict.CONTINUE


def test_no_games_no_evidence():
    result = sprt(Pentanomial(), T())
    assert (result.llr, result.verdict, result.observations) == (0.0, SprtVerdict.CONTINUE, 0)


def test_mirror_pairs_and_singles_add_their_evidence():
    pairs, singles = Pentanomial(n2=3, n3=4, n4=2), T(losses=3, draws=1, wins=5)
    combined = sprt(pairs, singles)
    assert combined.llr == pytest.approx(
        gsprt_llr(pairs.counts, PENTANOMIAL_SCORES, 0, 50) + gsprt_llr(singles.counts, TRINOMIAL_SCORES, 0, 50)
    )
    assert combined.observations == 9 + 9


histograms = st.lists(st.integers(0, 60), min_size=3, max_size=3).filter(lambda c: sum(c) > 0)
elos = st.floats(-300, 300, allow_nan=False)


@settings(max_examples=80, deadline=None)
@given(histograms, elos, elos)
def test_the_llr_is_the_same_seen_from_the_other_side(counts, elo0, elo1):
    # The other side's histogram is reversed, its scores are 1 - a, and elo becomes -elo.
    assert gsprt_llr(counts[::-1], TRINOMIAL_SCORES, -elo0, -elo1) == pytest.approx(
        gsprt_llr(counts, TRINOMIAL_SCORES, elo0, elo1), rel=1e-6, abs=1e-6
    )


@settings(max_examples=80, deadline=None)
@given(histograms, elos, elos)
def test_swapping_the_hypotheses_negates_the_llr(counts, elo0, elo1):
    assert gsprt_llr(counts, TRINOMIAL_SCORES, elo1, elo0) == pytest.approx(
        -gsprt_llr(counts, TRINOMIAL_SCORES, elo0, elo1), rel=1e-6, abs=1e-6
    )


@settings(max_examples=80, deadline=None)
@given(histograms)
def test_a_sample_scoring_exactly_elo1_favours_h1_and_one_scoring_elo0_favours_h0(counts):
    losses, draws, wins = counts
    score = (wins + draws / 2) / sum(counts)
    if 0.02 < score < 0.98:
        elo = elo_of_score(score)
        assert gsprt_llr(counts, TRINOMIAL_SCORES, elo - 40, elo) >= -1e-6
        assert gsprt_llr(counts, TRINOMIAL_SCORES, elo, elo + 40) <= 1e-6
