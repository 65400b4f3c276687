"""The referee's lower end (the mechanism algebra's dominated discretisation) is below the exact epsilon.

Oracle: T-fold randomized response, whose privacy loss is (2k - T) eps0 with k ~ Binomial(T, p): its exact
delta(eps) is a finite sum, inverted by bisection in mpmath (independent of the accountant's grid); and the
Gaussian's exact mu-GDP profile.  A refutation by the referee is sound only if this holds."""

from __future__ import annotations

import mpmath
import pytest

from symdp import mechanisms as M
from symdp.accountants.algebra import tight
from symdp.referee import LOWER_KIND


def _rr_delta(eps0: mpmath.mpf, T: int, eps: mpmath.mpf) -> mpmath.mpf:
    p = mpmath.exp(eps0) / (1 + mpmath.exp(eps0))
    s = mpmath.mpf(0)
    for k in range(T + 1):
        loss = (2 * k - T) * eps0
        if loss > eps:
            s += mpmath.binomial(T, k) * p**k * (1 - p) ** (T - k) * (1 - mpmath.exp(eps - loss))
    return s


def _exact_eps(delta_of, hi: float, delta: float) -> mpmath.mpf:
    lo, up = mpmath.mpf(0), mpmath.mpf(hi)
    if delta_of(lo) <= delta:
        return lo
    for _ in range(120):
        mid = (lo + up) / 2
        lo, up = (mid, up) if delta_of(mid) > delta else (lo, mid)
    return lo  # the lower end of the bracket: conservative for this check


@pytest.mark.parametrize("eps0, T, delta", [(0.1, 50, 1e-5), (0.5, 20, 1e-6), (1.0, 200, 1e-8), (0.05, 1000, 1e-5)])
def test_lower_end_is_below_the_exact_randomized_response_composition(eps0, T, delta):
    r = tight.epsilon(M.SelfComposed(M.RandomizedResponse(eps0), T), delta)
    with mpmath.workdps(30):
        e0 = mpmath.mpf(eps0)
        exact = _exact_eps(lambda e: _rr_delta(e0, T, e), T * eps0, delta)
    assert r.lower <= float(exact) <= r.epsilon * (1 + 1e-12)
    assert r.lower > 0.9 * float(exact)  # and it is informative, not a trivial 0


@pytest.mark.parametrize("sigma, T, delta", [(1.0, 10, 1e-5), (4.0, 1000, 1e-6)])
def test_lower_end_is_below_the_exact_gaussian_composition(sigma, T, delta):
    r = tight.epsilon(M.SelfComposed(M.Gaussian(1.0, sigma), T), delta)
    mu = mpmath.sqrt(T) / sigma
    with mpmath.workdps(30):
        exact = _exact_eps(lambda e: mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2),
                           50 * float(mu) + 50, delta)
    assert r.lower <= float(exact) <= r.epsilon * (1 + 1e-12)


def test_referee_says_its_lower_end_is_rigorous_and_labels_the_fallback():
    from symdp.referee import FALLBACK_KIND

    assert LOWER_KIND.startswith("rigorous lower end") and "not certified" not in LOWER_KIND
    assert "not certified" in FALLBACK_KIND and "cannot refute" in FALLBACK_KIND


def test_exact_optimal_composition_oracle():
    """optimal_composition_epsilon against an mpmath evaluation of the same binomial sum (T = 200) and the
    known cases: T = 1 gives eps0 at delta = delta0 + tiny; delta below the infinite-loss mass gives inf."""
    from symdp.referee import optimal_composition_epsilon

    eps0, d0, T, delta = 0.3, 1e-9, 200, 1e-5
    got = optimal_composition_epsilon(eps0, d0, T, delta)
    with mpmath.workdps(30):
        e0 = mpmath.mpf(eps0)
        keep = (1 - mpmath.mpf(d0)) ** T
        rem = (mpmath.mpf(delta) - (1 - keep)) / keep
        ref = _exact_eps(lambda e: _rr_delta(e0, T, e), T * eps0, rem)
    assert got == pytest.approx(float(ref), rel=1e-10)
    assert optimal_composition_epsilon(0.5, 1e-6, 1, 1e-6 * (1 + 1e-6)) == pytest.approx(0.5, rel=1e-6)
    assert optimal_composition_epsilon(0.5, 1e-6, 1, 1e-6) != optimal_composition_epsilon(0.5, 1e-6, 1, 1e-6)  # nan
    assert optimal_composition_epsilon(0.5, 1e-6, 100, 1e-5) == float("inf")  # 1 - (1 - 1e-6)^100 ~ 1e-4 > 1e-5



@pytest.mark.parametrize("eps0, d0, T, delta", [(0.001, 1e-9, 20000, 1e-4), (0.001, 1e-9, 20000, 2.0001e-5),
                                                (0.01, 1e-7, 2000, 1e-3)])
def test_black_box_composition_bracket_holds_the_exact_value(eps0, d0, T, delta):
    """T-fold (eps0, delta0)-DP black boxes: the algebra's lower end was the upper end (above the exact value) when
    the optimistic grid lost the -eps0 atom (it sat on the grid's first point) and the readout returned the first
    atom instead of solving below it; the exact value is Kairouz et al.'s optimal composition."""
    from symdp.referee import optimal_composition_epsilon

    r = tight.epsilon(M.SelfComposed(M.ApproxDPBlackBox(eps0, d0), T), delta)
    exact = optimal_composition_epsilon(eps0, d0, T, delta)
    assert r.lower <= exact <= r.epsilon


def test_lower_readout_solves_below_the_first_atom():
    from symdp.accountants import pld

    d = pld.DiscretePLD(h=0.1, j0=5, pmf=__import__("numpy").array([0.5, 0.5]), inf_mass=0.0, roundoff=0.0)
    c = pld.compose([(d, 1)], tail_tol=1e-12)
    # delta(eps) = 0.5 (1 - e^{eps - 0.5}) + 0.5 (1 - e^{eps - 0.6}) for eps <= 0.5
    target = 0.5 * (1 - mpmath.exp(0.2 - 0.5)) + 0.5 * (1 - mpmath.exp(0.2 - 0.6))
    lo = float(c.epsilon(float(target), extra=-(c.upper_tail + 2 * c.roundoff + c.alias), round_down=True)[0])
    up = float(c.epsilon(float(target))[0])
    assert lo <= 0.2 <= up and lo == pytest.approx(0.2, abs=1e-12)
