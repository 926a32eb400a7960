"""Elo, its interval and the pentanomial GSPRT, against published values and brute force."""

from __future__ import annotations

import math
import re
import statistics

import numpy as np
import pytest

from mctslab.arena.match import Tally
from mctslab.arena.stats import (
    SPRT,
    Z_95,
    elo_estimate,
    expected_score,
    log_likelihood_ratio,
    logistic_elo,
    mle_with_mean,
    pentanomial,
)
from tests.conftest import load_data

TRUTH = load_data("elo.json")
PAIR_VALUES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


@pytest.mark.parametrize("case", TRUTH["score_to_elo"])
def test_score_to_elo_matches_published_values(case: dict[str, float]) -> None:
    assert logistic_elo(case["score"]) == pytest.approx(case["elo"], abs=0.005)


@pytest.mark.parametrize("case", TRUTH["elo_to_score"])
def test_elo_to_score_matches_the_rule_of_thumb(case: dict[str, float]) -> None:
    assert expected_score(case["elo"]) == pytest.approx(case["score"], abs=0.005)


def test_elo_and_score_are_inverse_and_unbounded_at_the_ends() -> None:
    for elo in (-600.0, -35.5, 0.0, 12.25, 800.0):
        assert logistic_elo(expected_score(elo)) == pytest.approx(elo)
    assert logistic_elo(1.0) == math.inf and logistic_elo(0.0) == -math.inf


@pytest.mark.parametrize("case", TRUTH["sprt_bounds"])
def test_wald_bounds(case: dict[str, float]) -> None:
    test = SPRT(0, 5, alpha=case["alpha"], beta=case["beta"])
    assert test.lower_bound == pytest.approx(case["lower"], abs=0.005)
    assert test.upper_bound == pytest.approx(case["upper"], abs=0.005)


def test_the_95_quantile_is_the_normal_one() -> None:
    assert statistics.NormalDist().inv_cdf(0.975) == pytest.approx(Z_95, abs=1e-12)


def test_pentanomial_interval_matches_the_sample_of_pair_scores() -> None:
    # Expand the counts into one score per pair and take mean and spread directly.
    counts = [4, 17, 40, 26, 13]
    sample = np.repeat(PAIR_VALUES, counts)
    mean, error = sample.mean(), sample.std() / math.sqrt(sample.size)
    estimate = elo_estimate(counts)
    assert estimate.score == pytest.approx(mean)
    assert estimate.elo == pytest.approx(-400 * math.log10(1 / mean - 1))
    assert expected_score(estimate.lower) == pytest.approx(mean - Z_95 * error)
    assert expected_score(estimate.upper) == pytest.approx(mean + Z_95 * error)
    assert estimate.los == pytest.approx(1 - statistics.NormalDist(mean, error).cdf(0.5))


def test_trinomial_interval_matches_the_sample_of_game_scores() -> None:
    counts = [30, 45, 25]
    sample = np.repeat([0.0, 0.5, 1.0], counts)
    error = sample.std() / math.sqrt(sample.size)
    estimate = elo_estimate(counts)
    assert estimate.score == pytest.approx(sample.mean())
    assert expected_score(estimate.lower) == pytest.approx(sample.mean() - Z_95 * error)


def test_pairs_give_a_narrower_interval_when_colours_cancel() -> None:
    # The same 100 games: as pairs, every pair split 1-1 (the opening decided), or unpaired.
    pairs = elo_estimate([0, 0, 50, 0, 0])
    games = elo_estimate([50, 0, 50])
    assert pairs.upper - pairs.lower < games.upper - games.lower


def _max_log_likelihood(counts: list[int], score: float) -> float:
    """max sum n_i log p_i over pentanomial p with mean ``score``, by grid search.

    Brute force, independent of the secular equation: p1, p2, p3 on a grid,
    p0 and p4 from the two constraints, the grid refined around its best point.
    """
    n = np.asarray(counts, dtype=float)
    low, high = np.zeros(3), np.ones(3)
    for _ in range(30):
        axes = [np.linspace(lo, hi, 41) for lo, hi in zip(low, high, strict=True)]
        p1, p2, p3 = np.meshgrid(*axes, indexing="ij")
        p4 = score - 0.25 * p1 - 0.5 * p2 - 0.75 * p3
        p0 = 1.0 - p1 - p2 - p3 - p4
        probabilities = (p0, p1, p2, p3, p4)
        feasible = np.logical_and.reduce([p > 0 for p in probabilities])
        with np.errstate(divide="ignore", invalid="ignore"):
            values = sum(count * np.log(p) for count, p in zip(n, probabilities, strict=True))
        values = np.where(feasible, values, -np.inf)
        best = np.unravel_index(np.argmax(values), values.shape)
        point = np.array([axes[d][best[d]] for d in range(3)])
        step = (high - low) / 40
        low, high = np.maximum(point - 4 * step, 0.0), np.minimum(point + 4 * step, 1.0)
    return float(values[best])


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [
        ([10789, 19328, 33806, 19402, 10543], -3.0, 1.0),  # a fishtest run's pentanomial
        ([3, 20, 50, 22, 5], 0.0, 10.0),
        ([1, 4, 10, 30, 20], 0.0, 100.0),
        ([20, 30, 10, 4, 1], 0.0, 50.0),
    ],
)
def test_llr_matches_brute_force_maximum_likelihood(
    counts: list[int], elo0: float, elo1: float
) -> None:
    reference = _max_log_likelihood(counts, expected_score(elo1)) - _max_log_likelihood(
        counts, expected_score(elo0)
    )
    assert log_likelihood_ratio(counts, elo0, elo1) == pytest.approx(reference, abs=1e-6)


def test_constrained_mle_has_the_asked_mean() -> None:
    probabilities = mle_with_mean([3, 20, 50, 22, 5], 0.6)
    assert sum(probabilities) == pytest.approx(1.0)
    assert float(np.dot(probabilities, PAIR_VALUES)) == pytest.approx(0.6)


def test_sprt_decides_both_ways_and_waits_in_between() -> None:
    test = SPRT(0, 20)
    assert test.llr([0, 0, 0, 0, 0]) == 0.0
    strong = [0, 2, 10, 30, 20]
    weak = [20, 30, 10, 2, 0]
    assert test.verdict(test.llr(strong)) == "H1"
    assert test.verdict(test.llr(weak)) == "H0"
    assert test.verdict(test.llr([1, 2, 3, 2, 1])) is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("elo0=0", "needs elo1"),
        ("elo0=0,elo1=x", "The 'elo1' parameter of SPRT must be a number"),
        ("elo0=5,elo1=5", "must be greater than elo0"),
        ("elo0=0,elo1=5,alpha=0.7", "The 'alpha' parameter of SPRT"),
        ("elo0=0,elo1=5,alpha=0", "The 'alpha' parameter of SPRT must be a float in (0, 0.5]"),
        ("elo0=0,elo1=5,gamma=1", "'gamma=1' is not one of those"),
        # Before, the last value was kept without a word.
        ("elo0=0,elo1=5,elo1=20", "--sprt 'elo0=0,elo1=5,elo1=20' gives 'elo1' twice."),
        (
            "elo0=0,elo1=5,alpha=0.5,beta=0.5",
            "The 'beta' parameter of SPRT must be < 1 - alpha (0.5). Got 0.5 instead.",
        ),
    ],
)
def test_sprt_spec_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        SPRT.parse(text)


def test_sprt_bounds_are_apart_so_that_no_test_decides_before_a_game() -> None:
    # Before, alpha = beta = 0.5 made both of Wald's bounds 0: H1 passed with zero games.
    test = SPRT(0, 5, alpha=0.5, beta=0.4)
    assert test.lower_bound < test.llr([0, 0, 0, 0, 0]) < test.upper_bound
    with pytest.raises(ValueError, match=r"The 'beta' parameter of SPRT must be < 1 - alpha"):
        SPRT(0, 5, alpha=0.5, beta=0.5)


@pytest.mark.parametrize("elos", [(0.0, 7000.0), (-1e6, 0.0), (0.0, 4000.5), (-4001.0, 0.0)])
def test_hypotheses_beyond_what_a_score_can_express_are_refused_before_any_game(
    elos: tuple[float, float],
) -> None:
    # At +7000 Elo the expected score, 1 - 3e-18, is 1.0 as a float: no likelihood has that
    # mean. Before, such a test was taken and failed after the first pair ("The score must
    # be in (0, 1)"), or overflowed at -1e6.
    assert 1.0 / (1.0 + 10.0 ** (-7000.0 / 400.0)) == 1.0
    with pytest.raises(ValueError, match=r"SPRT must be a float in \[-4000, 4000\]"):
        SPRT(*elos)


def test_hypotheses_at_the_limit_still_give_a_finite_llr() -> None:
    test = SPRT(-4000, 4000)
    assert 0 < test.llr([0, 0, 0, 0, 3]) < math.inf
    assert -math.inf < test.llr([3, 0, 0, 0, 0]) < 0


def test_an_unknown_sprt_option_is_named_once() -> None:
    # Before: "...; 'foo' is not one of those. Got 'foo' instead."
    with pytest.raises(ValueError) as refused:
        SPRT.parse("foo")
    assert str(refused.value) == (
        "--sprt takes elo0=..,elo1=..[,alpha=..,beta=..]; 'foo' is not one of those."
    )


def test_sprt_spec_defaults() -> None:
    assert SPRT.parse("elo0=0,elo1=10") == SPRT(0.0, 10.0, 0.05, 0.05)
    assert SPRT.parse(" elo0=-2 , elo1=3, beta=0.1").beta == 0.1


def test_tally_counts_pairs_only_when_both_games_are_in() -> None:
    tally = Tally()
    for pair, score in [(0, 1.0), (1, 0.5), (0, 0.0), (2, 1.0), (2, 1.0)]:
        tally.add(pair, score)
    assert (tally.wins, tally.draws, tally.losses) == (3, 1, 1)
    assert tally.pentanomial() == [0, 0, 1, 0, 1] == pentanomial([1.0, 2.0])
    assert tally.score == pytest.approx(3.5 / 5)


@pytest.mark.parametrize(
    ("frequencies", "requirement"),
    [
        (None, "3 (L, D, W) or 5 (pair) counts"),
        (5, "3 (L, D, W) or 5 (pair) counts"),
        ([1, 2], "3 (L, D, W) or 5 (pair) counts"),
        ([1, 2, 3, 4], "3 (L, D, W) or 5 (pair) counts"),
        ([1, math.nan, 1], "counts that are whole numbers >= 0"),
        ([1, math.inf, 1], "counts that are whole numbers >= 0"),
        ([-1, 2, 3], "counts that are whole numbers >= 0"),
        (["1", 2, 3], "counts that are whole numbers >= 0"),
        ([True, 2, 3], "counts that are whole numbers >= 0"),
        ([1e-9, 0, 0], "counts that are whole numbers >= 0"),
        ([0.5, 1, 1], "counts that are whole numbers >= 0"),
        ([0, 0, 0], "counts of at least one game or pair"),
        ([0, 0, 0, 0, 0], "counts of at least one game or pair"),
    ],
)
def test_counts_that_are_not_results_are_refused(frequencies: object, requirement: str) -> None:
    # NaN had counted as a zero, 1e-9 losses as +191 Elo, no games as Elo 0 with an
    # infinite interval, and two or four counts as some other spacing of outcomes.
    message = (
        f"The 'frequencies' parameter of elo_estimate must be {requirement}. "
        f"Got {frequencies!r} instead."
    )
    with pytest.raises(ValueError) as raised:
        elo_estimate(frequencies)  # type: ignore[arg-type]
    assert str(raised.value) == message
    with pytest.raises(ValueError, match=r"^The 'frequencies' parameter of log_likelihood_ratio"):
        log_likelihood_ratio(frequencies, 0.0, 10.0)  # type: ignore[arg-type]


def test_counts_may_be_any_whole_numbers() -> None:
    # NumPy's counts (np.bincount) and whole floats count as the ints they hold.
    expected = elo_estimate([30, 45, 25])
    assert elo_estimate((30.0, 45.0, 25.0)) == expected
    assert elo_estimate(np.array([30, 45, 25])) == expected
    assert elo_estimate([0, 0, 1]).score == pytest.approx(1.0005 / 1.002)  # zeros count 1e-3
