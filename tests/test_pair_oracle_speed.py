"""The pair oracle of the mechanism-level audit, made cheaper (issue 25): the binomial weights below 1e-45 left out
of the 30-digit sums with a rigorous bound on their total, the float screen memoised.  Oracles: the full sums over
all T + 1 weights (the previous code, written out here), and the left-out mass summed at 60 digits."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from symdp.audit import pair_oracle as po


def _full(q: float, r: float, T: int, eps: float, dps: int = 30) -> mpmath.mpf:
    """pair_delta_lower with every binomial weight in both sums (the code before the weights were cut)."""
    k = np.arange(T + 1, dtype=float)
    logb = stats.binom.logpmf(k, T, q)
    vals = [mpmath.mpf(0)]
    with mpmath.workdps(dps):
        E, sT, qq, rr = mpmath.exp(mpmath.mpf(eps)), mpmath.sqrt(T), mpmath.mpf(q), mpmath.mpf(r)
        w = [mpmath.binomial(T, j) * qq**j * (1 - qq) ** (T - j) for j in range(T + 1)]
        slack = mpmath.mpf(10) ** (5 - dps) * (1 + E)
        c = po._threshold(eps, logb, k, r, T)
        if c is not None:
            cm = mpmath.mpf(c)
            vals.append(mpmath.fsum(x * mpmath.ncdf((j * rr - cm) / sT) for j, x in enumerate(w))
                        - E * mpmath.ncdf(-cm / sT) - slack)
        c = po._threshold(-eps, logb, k, r, T)
        if c is not None:
            cm = mpmath.mpf(c)
            vals.append(mpmath.ncdf(cm / sT) - E * mpmath.fsum(x * mpmath.ncdf((cm - j * rr) / sT) for j, x in enumerate(w))
                        - slack)
    return max(vals)


@pytest.mark.parametrize("q,r,T,eps", [(0.5, 0.05, 1000, 0.4), (0.9, 0.02, 1000, 0.1), (0.1, 0.2, 1000, 1.0),
                                        (0.01, 1.0, 1000, 0.05), (0.05, 0.3, 100, 0.3), (0.1, 1.0, 100, 0.5)])
def test_cut_weights_give_the_full_sum(q: float, r: float, T: int, eps: float) -> None:
    a, w, _tail = po._weights(T, q, 30)
    assert a > 0 or a + len(w) - 1 < T  # the cut is exercised
    got = po.pair_delta_lower(q, r, T, eps)
    ref = _full(q, r, T, eps)
    assert got.lower > 0
    with mpmath.workdps(60):
        assert got.lower <= ref + mpmath.mpf(10) ** -40  # never above the full sum: still a lower bound
        assert ref - got.lower <= mpmath.mpf(10) ** -35  # and the same number at every printed digit


@pytest.mark.parametrize("q,T", [(0.5, 1000), (0.01, 1000), (0.9, 1000), (0.1, 100), (0.001, 1000)])
def test_tail_bound_covers_the_weights_left_out(q: float, T: int) -> None:
    a, w, tail = po._weights(T, q, 30)
    b = a + len(w) - 1
    with mpmath.workdps(60):
        qq = mpmath.mpf(q)
        out = mpmath.fsum(mpmath.binomial(T, j) * qq**j * (1 - qq) ** (T - j) for j in range(T + 1) if not a <= j <= b)
        kept = mpmath.fsum(mpmath.binomial(T, j) * qq**j * (1 - qq) ** (T - j) for j in range(a, b + 1))
    assert out <= tail <= mpmath.mpf(10) ** -40
    assert abs(kept + out - 1) < mpmath.mpf(10) ** -50
    with mpmath.workdps(30):  # the kept weights are the previous code's numbers
        qq = mpmath.mpf(q)
        assert all(x == mpmath.binomial(T, j) * qq**j * (1 - qq) ** (T - j) for j, x in enumerate(w, a))


def test_nothing_cut_for_few_steps_or_q1() -> None:
    for T, q in ((1, 0.01), (7, 0.3), (100, 1.0)):
        a, w, tail = po._weights(T, q, 30)
        assert a == 0 and len(w) == T + 1 and tail == 0


@pytest.mark.parametrize("q,r,T,eps", [(0.1, 0.5, 100, 0.7), (0.9, 4.0, 10, 2.0), (1.0, 0.3, 10, 1.0)])
def test_float_screen_memo_is_the_uncached_value(q: float, r: float, T: int, eps: float) -> None:
    first = po._pair_delta_float(q, r, T, eps)
    assert po._pair_delta_float(q, r, T, eps) == first == po._pair_delta_float.__wrapped__(q, r, T, eps)
    # and the float screen is close to the rigorous 30-digit value
    assert math.isclose(first, float(po.pair_delta_lower(q, r, T, eps).lower), rel_tol=1e-8, abs_tol=1e-12)


def test_threshold_search_is_the_previous_one_bit_for_bit() -> None:
    # the c-independent parts of the log-LR array are computed once per search: the same operations, the same bits
    from scipy import optimize

    def old(target: float, logb: np.ndarray, k: np.ndarray, r: float, T: int) -> float | None:
        sT = math.sqrt(T)
        lo, hi = -40.0 * sT - 1.0, T * r + 40.0 * sT + 1.0
        f = lambda c: po._logsumexp(logb + k * r * c / T - (k * r) ** 2 / (2 * T)) - target  # noqa: E731
        flo, fhi = f(lo), f(hi)
        if not (math.isfinite(flo) and math.isfinite(fhi)) or flo > 0 or fhi < 0:
            return None
        return float(optimize.brentq(f, lo, hi, xtol=1e-12, maxiter=200))

    rng = np.random.default_rng(3)
    for _ in range(300):
        T = int(rng.choice([1, 10, 100, 1000]))
        q, r, e = float(10 ** rng.uniform(-3, 0)), float(10 ** rng.uniform(-2, 1)), float(rng.uniform(-6, 6))
        k = np.arange(T + 1, dtype=float)
        logb = po._logpmf(T, q)
        assert po._threshold(e, logb, k, r, T) == old(e, logb, k, r, T)
