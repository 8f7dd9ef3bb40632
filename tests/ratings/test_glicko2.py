"""Glicko-2 against Glickman's worked example and its basic properties."""

from __future__ import annotations

import math

import pytest

from playsite.ratings import glicko2
from playsite.ratings.glicko2 import SCALE, Rating, age, expected, g, rate

PLAYER = Rating(1500, 200, 0.06)
OPPONENTS = [Rating(1400, 30), Rating(1550, 100), Rating(1700, 300)]
SCORES = [1, 0, 0]
PAPER_RESULTS = list(zip(OPPONENTS, SCORES))


def test_initial_rating_is_the_papers_default():
    assert Rating() == Rating(rating=1500, rd=350, volatility=0.06)


def test_tau_is_within_the_papers_suggested_range():
    assert 0.3 <= glicko2.TAU <= 1.2
    assert glicko2.EPSILON == 1e-6


def test_paper_example_intermediate_quantities():
    # Step 2 to 4, to the precision the paper prints.
    mu, phi = (PLAYER.rating - 1500) / SCALE, PLAYER.rd / SCALE
    assert (round(mu, 4), round(phi, 4)) == (0.0, 1.1513)
    rows = [((o.rating - 1500) / SCALE, o.rd / SCALE) for o in OPPONENTS]
    assert [round(m, 4) for m, _ in rows] == [-0.5756, 0.2878, 1.1513]
    assert [round(p, 4) for _, p in rows] == [0.1727, 0.5756, 1.7269]
    assert [round(g(p), 4) for _, p in rows] == [0.9955, 0.9531, 0.7242]
    assert [round(expected(mu, m, p), 3) for m, p in rows] == [0.639, 0.432, 0.303]
    v = 1 / sum(g(p) ** 2 * expected(mu, m, p) * (1 - expected(mu, m, p)) for m, p in rows)
    delta = v * sum(g(p) * (s - expected(mu, m, p)) for (m, p), s in zip(rows, SCORES))
    # The paper computes v and Δ from its rounded g and E; unrounded they are 1.77898 and −0.48393.
    assert v == pytest.approx(1.7785, abs=1e-3)
    assert delta == pytest.approx(-0.4834, abs=1e-3)


def test_paper_example_final_rating():
    after = rate(PLAYER, PAPER_RESULTS, tau=0.5)
    # Glicko-2 scale, as printed: μ' = −0.2069, φ' = 0.8722, σ' = 0.05999.
    assert round((after.rating - 1500) / SCALE, 4) == -0.2069
    assert round(after.rd / SCALE, 4) == 0.8722
    # Public scale: r' ≈ 1464.06 (the paper converts the rounded μ'), RD' ≈ 151.52.
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(after.rd, 2) == 151.52
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def _volatility_by_bisection(phi, sigma, v, delta, tau):
    """An independent root finder for step 5's f(x) = 0 (plain bisection, tight tolerance)."""
    a = math.log(sigma**2)

    def f(x):
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    lo, hi = a - 20, a + 20
    assert f(lo) > 0 > f(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return math.exp(lo / 2)


@pytest.mark.parametrize("scores", [[1, 0, 0], [1, 1, 1], [0, 0, 0], [0.5, 0.5, 0.5], [0, 1, 1]])
@pytest.mark.parametrize("tau", [0.3, 0.5, 1.2])
def test_illinois_volatility_matches_bisection(scores, tau):
    mu, phi = 0.0, PLAYER.rd / SCALE
    rows = [((o.rating - 1500) / SCALE, o.rd / SCALE) for o in OPPONENTS]
    v = 1 / sum(g(p) ** 2 * expected(mu, m, p) * (1 - expected(mu, m, p)) for m, p in rows)
    delta = v * sum(g(p) * (s - expected(mu, m, p)) for (m, p), s in zip(rows, scores))
    after = rate(PLAYER, list(zip(OPPONENTS, scores)), tau=tau)
    assert after.volatility == pytest.approx(_volatility_by_bisection(phi, 0.06, v, delta, tau), abs=1e-6)


def test_a_win_raises_and_a_loss_lowers():
    opponent = Rating(1500, 100)
    assert rate(Rating(), [(opponent, 1)]).rating > 1500
    assert rate(Rating(), [(opponent, 0)]).rating < 1500
    # Beating a much weaker, certain opponent still gains a little; losing to it costs a lot.
    strong = Rating(1800, 60)
    weak = Rating(1200, 60)
    assert 0 < rate(strong, [(weak, 1)]).rating - 1800 < 1800 - rate(strong, [(weak, 0)]).rating


def test_rd_shrinks_after_games_and_grows_with_inactivity():
    player = Rating(1600, 120, 0.06)
    assert rate(player, [(Rating(1550, 80), 0.5), (Rating(1650, 90), 1)]).rd < 120
    idle = rate(player, [])
    assert idle.rd > 120
    assert (idle.rating, idle.volatility) == (1600, 0.06)
    assert idle.rd == pytest.approx(SCALE * math.sqrt((120 / SCALE) ** 2 + 0.06**2))


def test_age_applies_the_idle_step_per_period_and_caps_at_the_initial_rd():
    player = Rating(1600, 60, 0.06)
    assert age(player, 0) == player
    stepwise = player
    for _ in range(5):
        stepwise = rate(stepwise, [])
    assert age(player, 5).rd == pytest.approx(stepwise.rd)
    assert age(player, 5).rating == 1600
    assert age(player, 10**6).rd == 350
    assert age(Rating(1500, 350), 3).rd == 350
    with pytest.raises(ValueError):
        age(player, -1)


def test_a_draw_between_equals_is_symmetric_and_moves_nothing():
    a = b = Rating(1500, 200, 0.06)
    a_after = rate(a, [(b, 0.5)])
    b_after = rate(b, [(a, 0.5)])
    assert a_after == b_after
    assert a_after.rating == pytest.approx(1500)


def test_a_draw_moves_both_players_towards_each_other_symmetrically():
    a, b = Rating(1700, 150, 0.06), Rating(1300, 150, 0.06)
    a_after, b_after = rate(a, [(b, 0.5)]), rate(b, [(a, 0.5)])
    assert a_after.rating < 1700 and b_after.rating > 1300
    assert 1700 - a_after.rating == pytest.approx(b_after.rating - 1300)
    assert a_after.rd == pytest.approx(b_after.rd)


def test_win_and_loss_are_mirror_images_for_equal_players():
    a = b = Rating(1500, 200, 0.06)
    winner, loser = rate(a, [(b, 1)]), rate(b, [(a, 0)])
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.rd == pytest.approx(loser.rd)


def test_scores_outside_zero_to_one_are_refused():
    with pytest.raises(ValueError):
        rate(Rating(), [(Rating(), 2)])
