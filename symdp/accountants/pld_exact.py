"""Privacy profiles that need no grid: the Gaussian (mu-GDP) profile delta(eps) in log space and its
inverse (:func:`gdp_epsilon`; T full-batch Gaussian steps are exactly sqrt(sum T / sigma^2)-GDP), and the
bound from the number of times an example is included (:func:`inclusion_count_delta`).  :mod:`.pld`
re-exports these names.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import _special as sps
from ..errors import ConvergenceError
from .pld_grid import _U


def composed_mu(mus: Sequence[tuple[float, int]]) -> float:
    """``mu`` of the composition of ``count`` runs of each ``mu``-GDP Gaussian: ``sqrt(sum count mu^2)`` (Gaussian
    mechanisms compose exactly), scaled by the largest ``mu`` so that no square underflows (mu = 1e-300) or
    overflows (mu = 1e200); inf when the result itself is beyond the float range, 0 for an empty list."""
    top = max((m for m, _ in mus), default=0.0)
    if top <= 0:
        return 0.0
    if math.isinf(top):
        return math.inf
    with np.errstate(over="ignore"):
        return float(np.float64(top) * np.float64(math.sqrt(sum(c * (m / top) ** 2 for m, c in mus))))


def gdp_log_delta(epsilon: np.ndarray | float, mu: np.ndarray | float) -> np.ndarray:
    r"""Upper bound on :math:`\log\delta_\mu(\epsilon)` of :math:`\mu`-GDP, in log space (any epsilon, any mu).

    :math:`\delta_\mu(\epsilon) = \Phi(-\epsilon/\mu + \mu/2) - e^{\epsilon}\Phi(-\epsilon/\mu - \mu/2)`
    (``bu2020.delta_of_eps_gdp``; Dong, Roth, Su 2022, Cor. 2.13) evaluated as
    :math:`\log\Phi(a) + \log(-\operatorname{expm1}(r))` with
    :math:`r = \epsilon + \log\Phi(b) - \log\Phi(a)` (``log_ndtr``): no overflow of :math:`e^\epsilon`
    and no underflow of :math:`\delta` (down to ``exp(-1e300)``).  The rounding of ``r`` (bounded by
    ``8u(|log Phi(a)| + |log Phi(b)| + eps + 1)``) is moved to the safe side; where it could flip
    the sign of ``r`` the bound :math:`\delta \le \Phi(a)` is used.  This log-space form is written
    here by hand (SymPy folds ``exp(eps + log Phi(b))`` back into ``e^eps Phi(b)``, so codegen cannot keep
    it); it is tested against the generated ``bu2020.delta_of_eps_gdp`` kernel and mpmath.
    """
    e = np.asarray(epsilon, dtype=float)
    m = np.asarray(mu, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = -e / m + m / 2
        b = -e / m - m / 2
        la = sps.log_ndtr(a)
        lb = sps.log_ndtr(b)
        r = e + lb - la
        err = 8 * _U * (np.abs(la) + np.abs(lb) + np.abs(e) + 1)
        rr = np.minimum(r - err, 0.0)
        out = la + 4 * _U * np.abs(la) + np.log(-np.expm1(rr))
        out = np.where(rr < 0, np.minimum(out, la + 4 * _U * np.abs(la)), la + 4 * _U * np.abs(la))
        # huge epsilon/mu: Phi(a) itself underflows the log (delta <= Phi(a), far below the smallest float);
        # any other NaN (overflowed intermediate) is answered by the trivial bound delta <= 1
        out = np.where(np.isneginf(la), -np.inf, np.where(np.isnan(out), 0.0, out))
    return np.minimum(out, 0.0)


def gdp_delta(epsilon: np.ndarray | float, mu: np.ndarray | float) -> np.ndarray:
    r"""Upper bound on :math:`\delta_\mu(\epsilon)` (``exp`` of :func:`gdp_log_delta`, rounded up; never 0 unless exact)."""
    ld = gdp_log_delta(epsilon, mu)
    with np.errstate(under="ignore"):
        d = np.exp(ld)
    d = np.where(np.isfinite(ld), np.nextafter(d * (1 + 4 * _U), np.inf), 0.0)
    return np.minimum(d, 1.0)


def gdp_epsilon(mu: np.ndarray | float, delta: np.ndarray | float, *, max_iter: int = 200) -> np.ndarray:
    r"""Smallest safe :math:`\epsilon \ge 0` with the :func:`gdp_log_delta` upper bound :math:`\le \log\delta`.

    Bisection on :math:`\log\delta` (monotone), returning the upper end of the final bracket
    (relative width ``<= 4u``); the initial upper end :math:`\mu(\mu/2 + \sqrt{2\log(1/\delta)}) + 1`
    is doubled until it is safe.  Works for ``mu`` up to ~1e150 and ``delta`` down to 1e-300.
    """
    mu_b, d_b = np.broadcast_arrays(np.asarray(mu, dtype=float), np.asarray(delta, dtype=float))
    mu_f, ld = mu_b.ravel(), np.log(d_b.ravel())
    hi = mu_f * (mu_f / 2 + np.sqrt(-2.0 * ld)) + 1.0
    for _ in range(64):
        bad = gdp_log_delta(hi, mu_f) > ld
        if not bad.any():
            break
        hi = np.where(bad, 2 * hi, hi)
    else:  # pragma: no cover - needs mu ~ 1e300
        raise ConvergenceError(f"gdp_epsilon: no safe upper end found for mu={mu_f.max()}, delta={np.exp(ld.min())}")
    lo = np.zeros_like(hi)
    zero = gdp_log_delta(lo, mu_f) <= ld
    for _ in range(max_iter):
        mid = 0.5 * (lo + hi)
        ok = gdp_log_delta(mid, mu_f) <= ld
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
        if np.all(hi - lo <= 4 * _U * hi):
            break
    out = np.where(zero, 0.0, np.nextafter(hi, np.inf))
    return out.reshape(mu_b.shape)


#: the most inclusion counts :func:`inclusion_count_delta` sums one by one (beyond, every count up to the Chernoff
#: quantile is rounded up to that quantile: still an upper bound, cost bounded)
MAX_COUNT_TERMS = 4096


def _binom_log_sf(k: int, n: int, q: float) -> float:
    """Upper bound on ``log P(Bin(n, q) >= k)``: the Chernoff bound ``-n KL(k/n || q)`` for ``k > nq`` (0 below)."""
    if k <= n * q:
        return 0.0
    if k > n:
        return -math.inf
    a = k / n
    with np.errstate(divide="ignore"):
        kl = a * math.log(a / q) + ((1 - a) * (math.log1p(-a) - math.log1p(-q)) if a < 1 else -math.log1p(-q) * 0.0)
    v = -n * kl
    return v + 8 * _U * abs(v) if math.isfinite(v) else v  # rounded up


def _inclusion_counts(segs: Sequence[tuple[float, float, int]], tail: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """``(k, log w_k, sigma_min, tail_bound)``: counts ``k`` of included steps with weights ``w_k`` (rounded up) of
    ``Bin(N, q_max)`` on ``0..k1`` and a bound ``tail_bound <= tail`` on ``P(K > k1)`` (Chernoff).  Past
    :data:`MAX_COUNT_TERMS` counts the whole mass up to ``k1`` sits at ``k1`` (weight 1)."""
    act = [(float(sg), float(qq), int(T)) for sg, qq, T in segs if T > 0]
    n = sum(T for *_, T in act)
    q = max(qq for _, qq, _ in act)
    s = min(sg for sg, _, _ in act)
    if q >= 1.0:
        return np.array([float(n)]), np.array([0.0]), s, 0.0
    log_tail = math.log(tail)
    lo, hi = math.floor(n * q), n  # smallest k1 in [lo, hi] with P(K >= k1 + 1) <= tail
    while lo < hi:
        mid = (lo + hi) // 2
        if _binom_log_sf(mid + 1, n, q) <= log_tail:
            hi = mid
        else:
            lo = mid + 1
    k1 = lo
    tb = min(math.exp(_binom_log_sf(k1 + 1, n, q)), 1.0) if k1 < n else 0.0
    if k1 + 1 > MAX_COUNT_TERMS:
        return np.array([float(k1)]), np.array([0.0]), s, tb
    k = np.arange(k1 + 1, dtype=float)
    lq, l1q = math.log(q), math.log1p(-q)
    lg_n = math.lgamma(n + 1)
    lg = np.array([lg_n - math.lgamma(kk + 1) - math.lgamma(n - kk + 1) for kk in range(k1 + 1)])
    logw = lg + k * lq + (n - k) * l1q
    err = 16 * _U * (abs(lg_n) + 2 * np.abs(lg) + k * abs(lq) + (n - k) * abs(l1q) + 1)
    return k, logw + err, s, tb


def _count_delta(eps: float, k: np.ndarray, logw: np.ndarray, s: float, tb: float) -> float:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        mu = np.sqrt(k) / s
        ld = np.where(k > 0, gdp_log_delta(eps, np.where(k > 0, mu, 1.0)), -np.inf)
        terms = np.exp(ld + logw)
    terms = np.where(np.isnan(terms), 1.0, terms)
    tot = float(np.sum(terms)) * (1 + 4 * _U * (len(k) + 2)) + tb
    return min(tot, 1.0)


def inclusion_count_delta(epsilon: float, segs: Sequence[tuple[float, float, int]], *, tail: float = 1e-300) -> float:
    r"""Upper bound on delta(epsilon) of Poisson-subsampled Gaussian steps ``segs = [(sigma, q, T), ...]`` (add/remove).

    Conditioned on which steps include the record, the composition is a Gaussian mechanism, exactly
    ``mu_S``-GDP with ``mu_S^2 = sum_{i in S} 1/sigma_i^2 <= |S| / sigma_min^2``; the hockey-stick divergence is
    jointly convex, so (both directions) ``delta(eps) <= E[delta_{GDP(sqrt(K)/sigma_min)}(eps)]`` over the
    number ``K`` of inclusions, and ``K`` (Poisson-binomial, rates ``<= q_max``) is stochastically below
    ``Bin(N, q_max)`` while the GDP profile grows with ``mu``.  Exact at ``q = 1``, tight as sigma -> 0 (where
    the loss of each inclusion dominates), computed in log space for any sigma > 0 and any T (at most
    :data:`MAX_COUNT_TERMS` terms).
    """
    k, logw, s, tb = _inclusion_counts(segs, max(tail, 1e-300))
    return _count_delta(float(epsilon), k, logw, s, tb)


def inclusion_count_epsilon(delta: float, segs: Sequence[tuple[float, float, int]]) -> float:
    """Smallest safe epsilon with :func:`inclusion_count_delta` ``<= delta`` (bisection, upper end returned);
    ``inf`` when even the largest float is not enough (the true epsilon then exceeds the float range)."""
    d = float(delta)
    k, logw, s, tb = _inclusion_counts(segs, d / 2)
    big = float(np.finfo(float).max)
    if _count_delta(0.0, k, logw, s, tb) <= d:
        return 0.0
    if _count_delta(big, k, logw, s, tb) > d:
        return math.inf
    lo, hi = 0.0, big
    # geometric bisection first (the answer may lie anywhere in [0, 1.8e308]), then plain
    for _ in range(64):  # log2(log2(1.8e308 / 1e-300)) < 11: converges long before
        if hi <= 4 * max(lo, 1e-300):
            break
        mid = math.exp(0.5 * (math.log(hi) + math.log(max(lo, 1e-300))))
        if _count_delta(mid, k, logw, s, tb) <= d:
            hi = mid
        else:
            lo = mid
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if _count_delta(mid, k, logw, s, tb) <= d:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 4 * _U * hi:
            break
    return float(np.nextafter(hi, np.inf)) if hi < big else big
