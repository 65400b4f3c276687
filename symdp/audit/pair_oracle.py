"""The exact test pair of an algorithm claim (:mod:`.algorithms`): delta(eps) of the T-fold pair
``N(0, 1)`` vs ``(1 - q) N(0, 1) + q N(r, 1)`` as a rigorous lower bound from the optimal test on
``sum_t x_t`` (exact for ``T = 1`` and ``q = 1``; :func:`pair_delta_lower`), and the tight accountant's
upper bound for the same pair (:func:`pair_delta_upper`).  :mod:`.algorithms` re-exports these names.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
from scipy import special


@dataclass(frozen=True)
class PairDelta:
    """delta(eps) of the T-fold test pair N(0, 1) vs (1 - q) N(0, 1) + q N(r, 1): rigorous lower bound."""

    lower: mpmath.mpf
    direction: str  # "S' vs S" or "S vs S'"
    threshold: float
    exact: bool  # True when the lower bound is the exact value of the pair (T = 1 or q = 1)


def _logsumexp(a: np.ndarray) -> float:
    """``scipy.special.logsumexp(a)`` for a 1-d float64 array, bit for bit: the same NumPy operations in the same
    order (the largest terms taken out of the sum and counted, ``log1p(s / m) + log(m) + max``, the direct
    ``log(sum(exp(a)))`` where that is not finite) without SciPy's array-API dispatch, which was most of the
    cost of a threshold search (brentq calls it ~50 times per threshold)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # SciPy's steps on 1-element arrays done on NumPy scalars (the same ufuncs, the same bits; half the cost)
        a_max = np.max(a)
        mask = a == a_max
        m = np.float64(np.count_nonzero(mask))  # SciPy sums the mask as floats: the same integer
        e = np.exp(np.where(mask, -np.inf, a) - a_max)
        s = np.sum(e, dtype=e.dtype)
        if s != 0:
            s = s / m
        sgn = np.sign(s + 1) * np.sign(m)
        if s < -1:
            s = -s - 2
        out = np.log1p(s) + np.log(np.abs(m)) + a_max
        if sgn < 0:
            out = np.float64(np.nan)
        if not np.isfinite(out):
            out = np.log(np.sum(np.exp(a)))
    return float(out)


def _log_lr(c: float, logb: np.ndarray, k: np.ndarray, r: float, T: int) -> float:
    """log of the likelihood ratio (S' over S) of the statistic sum_t x_t at value c (unit noise)."""
    return _logsumexp(logb + k * r * c / T - (k * r) ** 2 / (2 * T))


def _threshold(target: float, logb: np.ndarray, k: np.ndarray, r: float, T: int) -> float | None:
    """c with log LR(c) = target (the LR is increasing in c), or None when the target is out of range."""
    sT = math.sqrt(T)
    lo, hi = -40.0 * sT - 1.0, T * r + 40.0 * sT + 1.0
    kr = k * r
    sq = kr**2 / (2 * T)  # the parts of _log_lr's array that do not depend on c, computed once (the same operations)
    f = lambda c: _logsumexp(logb + kr * c / T - sq) - target  # noqa: E731
    flo, fhi = f(lo), f(hi)
    if not (math.isfinite(flo) and math.isfinite(fhi)) or flo > 0 or fhi < 0:
        return None
    from scipy import optimize  # here, not at import: the audit's parent lists the algorithm claims without it

    return float(optimize.brentq(f, lo, hi, xtol=1e-12, maxiter=200))


@functools.lru_cache(maxsize=256)
def _logpmf(T: int, q: float) -> np.ndarray:
    """``stats.binom.logpmf(k, T, q)``, ``k = 0..T``, for ``0 < q <= 1`` (read-only; computed once per ``(T, q)``: the
    grid's points share it)."""
    from scipy import stats  # here, not at import (~0.5 s): the audit's parent lists the algorithm claims without it

    k = np.arange(T + 1, dtype=float)
    out = stats.binom.logpmf(k, T, q)
    out.flags.writeable = False
    return out


#: binomial weights below ``10**-(dps + _CUT_DIGITS)`` are left out of the 30-digit sums (their total is bounded
#: rigorously and put back where leaving them out would raise the lower bound)
_CUT_DIGITS = 15


@functools.lru_cache(maxsize=64)
def _weights(T: int, q: float, dps: int) -> tuple[int, list[mpmath.mpf], mpmath.mpf]:
    """``(a, [w_a, ..., w_b], tail)``: the binomial(T, q) weights ``w_j = C(T, j) q^j (1 - q)^(T - j)`` at ``dps``
    digits (each computed as before, so the kept terms are the same numbers) for the ``j`` in ``[a, b]``, the range
    where the float log-pmf is above ``10**-(dps + 15)``, and ``tail``, a rigorous upper bound on the total weight
    outside it (Chernoff: ``P(X <= k) <= exp(-T KL(k/T || q))`` below the mean, the same above; 0 when nothing is
    left out).  For T = 1000 the range is about a third of ``0..T``: the two sums of ncdf terms cost that much."""
    with mpmath.workdps(dps):
        qq = mpmath.mpf(q)
        if q == 1 or T < 8:
            return 0, [mpmath.binomial(T, j) * qq**j * (1 - qq) ** (T - j) for j in range(T + 1)], mpmath.mpf(0)
        keep = np.nonzero(_logpmf(T, q) >= -(dps + _CUT_DIGITS) * math.log(10))[0]
        a, b = int(keep[0]), int(keep[-1])  # the mode is kept (its weight is at least 1/(T + 1))

        def kl(k: int) -> mpmath.mpf:  # KL(k/T || q), 0 log 0 = 0
            x = mpmath.mpf(k) / T
            t1 = x * mpmath.log(x / qq) if k > 0 else mpmath.mpf(0)
            t2 = (1 - x) * mpmath.log((1 - x) / (1 - qq)) if k < T else mpmath.mpf(0)
            return t1 + t2

        tail = mpmath.mpf(0)
        if a > 0:  # P(X <= a - 1), a - 1 < T q
            tail += mpmath.exp(-T * kl(a - 1))
        if b < T:  # P(X >= b + 1), b + 1 > T q
            tail += mpmath.exp(-T * kl(b + 1))
        tail *= 1 + mpmath.mpf(10) ** (-dps // 2)  # the rounding of the bound itself, upwards
        w = [mpmath.binomial(T, j) * qq**j * (1 - qq) ** (T - j) for j in range(a, b + 1)]
        return a, w, tail


def pair_delta_lower(q: float, r: float, T: int, eps: Any, *, dps: int = 30) -> PairDelta:
    r"""Rigorous lower bound on delta(eps) of T steps of the pair N(0,1) vs (1-q)N(0,1) + q N(r,1).

    Exact for T = 1 or q = 1.  The threshold is found in float arithmetic (any threshold gives a
    valid bound); the bound at that threshold is evaluated in mpmath at ``dps`` digits and reduced by
    a rounding allowance of ``10**(5 - dps) (1 + e^eps)``.  Binomial weights below ``10**-(dps + 15)``
    (:func:`_weights`) are left out: from the first test's mixture mass (which only lowers it) and, with a
    rigorous bound on their total put in their place, from the second's (a change far below the allowance).

    >>> v = pair_delta_lower(1.0, 1.0, 1, 0.5)  # q = 1: the exact Gaussian profile, mu = 1
    >>> float(v.lower) > 0.12 and v.exact
    True
    """
    if not (0 < q <= 1) or not (r > 0) or T < 1:
        raise ValueError(f"pair_delta_lower: need 0 < q <= 1, r > 0, T >= 1; got q={q}, r={r}, T={T}")
    k = np.arange(T + 1, dtype=float)
    logb = _logpmf(T, q) if q < 1 else np.where(k == T, 0.0, -np.inf)
    e = float(eps)
    best = PairDelta(mpmath.mpf(0), "none", float("nan"), T == 1 or q == 1)
    a, weights, tail = _weights(T, q, dps)
    with mpmath.workdps(dps):
        E = mpmath.exp(mpmath.mpf(eps))
        sT = mpmath.sqrt(T)
        rr = mpmath.mpf(r)
        slack = mpmath.mpf(10) ** (5 - dps) * (1 + E)
        # S' vs S: A = {sum > c}, optimal where LR(c) = e^eps (the weights left out only lower the bound)
        c = _threshold(e, logb, k, r, T)
        if c is not None:
            cm = mpmath.mpf(c)
            qa = mpmath.fsum(w * mpmath.ncdf((j * rr - cm) / sT) for j, w in enumerate(weights, a))
            val = qa - E * mpmath.ncdf(-cm / sT) - slack
            if val > best.lower:
                best = PairDelta(val, "S' vs S", c, best.exact)
        # S vs S': A = {sum < c}, optimal where LR(c) = e^-eps (the weights left out count as ncdf = 1)
        c = _threshold(-e, logb, k, r, T)
        if c is not None:
            cm = mpmath.mpf(c)
            qa = mpmath.fsum(w * mpmath.ncdf((cm - j * rr) / sT) for j, w in enumerate(weights, a))
            val = mpmath.ncdf(cm / sT) - E * (qa + tail if tail else qa) - slack
            if val > best.lower:
                best = PairDelta(val, "S vs S'", c, best.exact)
    return best


@functools.lru_cache(maxsize=1 << 16)
def _pair_delta_float(q: float, r: float, T: int, eps: float) -> float:
    """The same bound in float arithmetic (for screening a grid only; never reported).  Memoised: points of a grid
    that differ only in what the pair does not see (delta, a claim's other reading) share it."""
    if not 0 <= eps < 700:
        return 0.0  # e^eps overflows float64; such points are screened out (a float screen only)
    k = np.arange(T + 1, dtype=float)
    logb = _logpmf(T, q)
    b = np.exp(logb)
    sT = math.sqrt(T)
    out = 0.0
    c = _threshold(eps, logb, k, r, T)
    if c is not None:
        out = max(out, float(np.sum(b * special.ndtr((k * r - c) / sT)) - math.exp(eps) * special.ndtr(-c / sT)))
    c = _threshold(-eps, logb, k, r, T)
    if c is not None:
        out = max(out, float(special.ndtr(c / sT) - math.exp(eps) * np.sum(b * special.ndtr((c - k * r) / sT))))
    return out


def pair_delta_upper(q: float, r: float, T: int, eps: float) -> float | None:
    """Tight-PLD upper bound on delta(eps) of the same pair (Poisson add/remove is this pair); None on error."""
    from ..accountants import delta as _delta

    try:
        res = _delta(noise_multiplier=1.0 / r, sample_rate=q, steps=T, epsilon=eps, accountant="tight")
    except Exception:  # noqa: BLE001 - the bracket's upper end is informative only; say it is missing
        return None
    if not res.is_upper_bound:
        return None
    return float(np.asarray(res.delta, dtype=float).ravel()[0])
