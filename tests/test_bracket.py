"""The rigorous two-sided bracket [lower, upper] of DP-SGD (issue 25, item 4).

Oracles that can catch a wrong lower end:

* one step, each direction: the privacy profile of ``pld.discretize_step_lower`` is below the exact profile
  (mpmath, the Gaussian CDFs at 50 digits) at every epsilon tried, and close to it (a stub that rounds every
  loss down, or drops mass, fails the closeness check);
* composed: lower <= exact at T = 1 (mpmath bisection) and at q = 1 (the exact GDP profile); lower <= the
  pessimistic PLD of dp_accounting (an upper bound computed by an independent code) and <= prv_accountant's
  upper bound; upper >= dp_accounting's optimistic PLD and prv_accountant's lower bound;
* tightness: the bracket is narrower than 0.2% on the benchmark rows (the old lower end was 7-190% below).
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest

from symdp.accountants import pld
from symdp.accountants.algebra import tight
from symdp.mechanisms import Gaussian, SelfComposed, Subsampled
from symdp.verify import oracles_accounting as O


def _mech(s: float, q: float, T: int):
    return SelfComposed(Subsampled(Gaussian(1.0, s), q) if q < 1 else Gaussian(1.0, s), T)


def _exact_dir_delta(s: float, q: float, e: float, direction: str) -> float:
    """Exact delta(eps) of one step in one direction (mpmath, 50 digits)."""
    with mpmath.workdps(50):
        s_, q_, e_ = mpmath.mpf(s), mpmath.mpf(q), mpmath.mpf(e)
        if direction == "remove":
            xs = s_**2 * mpmath.log((mpmath.exp(e_) - (1 - q_)) / q_) + mpmath.mpf(1) / 2
            v = (1 - q_) * mpmath.ncdf(-xs / s_) + q_ * mpmath.ncdf((1 - xs) / s_) - mpmath.exp(e_) * mpmath.ncdf(-xs / s_)
        else:
            if not mpmath.exp(-e_) > 1 - q_:
                return 0.0
            xa = s_**2 * mpmath.log((mpmath.exp(-e_) - (1 - q_)) / q_) + mpmath.mpf(1) / 2
            v = mpmath.ncdf(xa / s_) - mpmath.exp(e_) * ((1 - q_) * mpmath.ncdf(xa / s_) + q_ * mpmath.ncdf((xa - 1) / s_))
        return float(max(v, 0))


def _profile(p: pld.DiscretePLD, e: float) -> float:
    ell = (p.j0 + np.arange(len(p.pmf))) * p.h
    w = -np.expm1(np.minimum(e - ell, 0.0))
    return float(np.sum(p.pmf * w) + p.inf_mass)


def _aligned(q: float, h: float, direction: str) -> float:
    """The lower end's grid (``algebra._lower_grids``): a divisor of -log(1 - q), just above (remove) or below (add)."""
    a = -math.log1p(-q)
    return a * (1 + (1e-9 if direction == "remove" else -1e-9)) / max(1, round(a / h))


@pytest.mark.parametrize("s,q,h", [(1.1, 256 / 60000, 1e-4), (0.8, 0.01, 2.5e-4), (3.0, 0.1, 5e-4), (0.5, 0.3, 1e-3),
                                   (50.0, 0.5, 1e-4)])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_one_step_lower_profile_below_exact_second_order(s, q, h, direction):
    """Below the exact profile at every epsilon, and the worst relative gap shrinks by >= 3x when h halves
    (second order; rounding every loss down is first order: 2x)."""
    eps = np.concatenate([[0.0], np.geomspace(1e-4, 8.0, 25)])
    ex = np.array([_exact_dir_delta(s, q, float(e), direction) for e in eps])
    gaps = []
    for hh in (_aligned(q, h, direction), _aligned(q, h, direction) / 2):
        lo = pld.discretize_step_lower(s, q, hh, direction, tail=1e-14)
        assert lo.inf_mass == 0.0 and np.all(lo.pmf >= 0) and lo.pmf.sum() <= 1.0
        got = np.array([_profile(lo, float(e)) for e in eps])
        assert np.all(got <= ex * (1 + 1e-12) + 1e-15), (got - ex).max()  # dominated: below the exact profile
        pe = pld.discretize_step(s, q, hh, direction, tail=1e-14)
        up = np.array([_profile(pe, float(e)) for e in eps])
        assert np.all(up >= ex * (1 - 1e-12) - 1e-15)  # the pessimistic one is above it
        big = ex > 1e-9
        gaps.append(float(np.max((ex[big] - got[big]) / ex[big])))
    assert gaps[1] <= gaps[0] / 3 + 1e-9, gaps
    assert gaps[0] <= 0.02, gaps


BENCH = [(1.1, 256 / 60000, 2340, 1e-5), (1.0, 0.02, 5000, 1e-5), (3.0, 0.1, 2000, 1e-6), (0.8, 0.01, 10000, 1e-8)]


@pytest.mark.parametrize("s,q,T,d", BENCH)
def test_bench_rows_tight_bracket_around_dp_accounting(s, q, T, d):
    from dp_accounting.pld import privacy_loss_distribution as PLD

    r = tight.epsilon(_mech(s, q, T), d)
    assert r.is_upper_bound and 0 < r.lower <= r.epsilon
    assert r.epsilon / r.lower - 1 <= 2e-3, (r.lower, r.epsilon)
    pess = PLD.from_gaussian_mechanism(s, sampling_prob=q, value_discretization_interval=1e-4).self_compose(T)
    assert r.lower <= pess.get_epsilon_for_delta(d)  # an independent upper bound
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt = PLD.from_gaussian_mechanism(s, sampling_prob=q, pessimistic_estimate=False,
                                          value_discretization_interval=1e-3).self_compose(T)
    assert r.epsilon >= opt.get_epsilon_for_delta(d)  # an independent lower bound (up to its truncation)


@pytest.mark.parametrize("s,q,T,d", [(1.1, 256 / 60000, 2340, 1e-5), (2.0, 0.1, 1000, 1e-6)])
def test_bracket_against_prv_accountant(s, q, T, d):
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    acc = PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=q)],
                        eps_error=0.01, delta_error=d / 1000, max_self_compositions=[T])
    lo, _est, hi = acc.compute_epsilon(delta=d, num_self_compositions=[T])
    r = tight.epsilon(_mech(s, q, T), d)
    assert r.lower <= hi and r.epsilon >= lo


@pytest.mark.parametrize("s,q,d", [(0.5, 0.1, 1e-5), (1.0, 0.01, 1e-12), (50.0, 0.5, 1e-8), (0.5, 0.9, 1e-6)])
def test_one_step_bracket_contains_exact(s, q, d):
    ex = O.sgm_epsilon_lower_mp(s, q, d)  # bisection's lower end: the exact value within ~1e-30
    r = tight.epsilon(_mech(s, q, 1), d)
    assert r.lower <= ex * (1 + 1e-12) + 1e-15 and r.epsilon >= ex, (r.lower, ex, r.epsilon)


@pytest.mark.parametrize("s,T,d", [(0.5, 100, 1e-12), (50.0, 1_000_000, 1e-5), (1.0, 1000, 1e-8)])
def test_full_batch_bracket_contains_exact_gdp(s, T, d):
    ex = O.gdp_epsilon_lower_mp(math.sqrt(T) / s, d)
    r = tight.epsilon(_mech(s, 1.0, T), d)
    assert r.lower <= ex * (1 + 1e-12) and r.epsilon >= ex


def test_tiny_rate_lower_end_on_a_grid_finer_than_q():
    """q = 1e-4: the step's loss is about q wide, so the lower end's grid goes below the upper end's (the lower end
    was 0 with the 2e-5 floor); it stays below dp_accounting's pessimistic PLD."""
    from dp_accounting.pld import privacy_loss_distribution as PLD

    r = tight.epsilon(_mech(1.0, 1e-4, 100_000), 1e-5)
    assert r.details["lower_discretization"] < 2e-5 and 0.97 * r.epsilon <= r.lower <= r.epsilon
    pess = PLD.from_gaussian_mechanism(1.0, sampling_prob=1e-4, value_discretization_interval=1e-5).self_compose(100_000)
    assert r.lower <= pess.get_epsilon_for_delta(1e-5)


@pytest.mark.parametrize("s,q,T,d", [(0.5, 0.01, 1000, 1e-5), (50.0, 0.5, 1_000_000, 1e-12), (2.0, 1e-3, 1_000_000, 1e-5),
                                     (1.0, 0.01, 1000, 1e-12), (0.7, 0.05, 100_000, 1e-8)])
def test_corners_lower_below_upper_and_independent_bounds(s, q, T, d):
    """Corners (sigma 0.5 and 50, T = 1e6, delta 1e-12): lower <= upper, lower below dp_accounting's pessimistic
    PLD (an independent upper bound) and upper above the sum-statistic lower bound."""
    from dp_accounting.pld import privacy_loss_distribution as PLD

    r = tight.epsilon(_mech(s, q, T), d)
    assert 0 <= r.lower <= r.epsilon and math.isfinite(r.epsilon)
    assert r.lower > 0.5 * r.epsilon  # a real lower end, not a placeholder 0 (fallback rows included)
    assert r.epsilon >= O.sum_test_epsilon_lower(s, q, T, d)
    pess = PLD.from_gaussian_mechanism(s, sampling_prob=q, value_discretization_interval=1e-3).self_compose(T)
    assert r.lower <= pess.get_epsilon_for_delta(d)
