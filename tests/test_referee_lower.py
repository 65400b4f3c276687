"""The referee's lower end (the mechanism algebra's optimistic discretisation) is below the exact epsilon.

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


def test_referee_says_what_its_lower_end_is():
    assert "lower bound" in LOWER_KIND and "not interval arithmetic" in LOWER_KIND
