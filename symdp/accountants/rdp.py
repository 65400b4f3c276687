r"""Renyi-DP accounting of DP-SGD, vectorised (numpy).

Pure functions with keyword-only arguments; every formula is a library kernel:

* ``accounting.sgm_rdp_log_term`` -- one term of the sampled Gaussian RDP,
  integer order [Mironov, Talwar, Zhang 2019, Sec. 3.3]; the accountant takes
  ``logsumexp`` over ``j = 0..alpha`` (log-binomials through ``gammaln``, so
  orders far above 171 are exact too).
* ``accounting.sgm_rdp_frac_term1/2`` -- the fractional-order series
  ``A_alpha = A_1 + A_2`` of the same paper (Sec. 3.3), the method of
  dp_accounting's ``_compute_log_a_frac``, with a bound on the truncated tail
  and on the floating-point error of the signed sum added (safe side).
* ``accounting.gaussian_rdp`` -- ``q = 1`` (no subsampling) [Mironov 2017, Prop. 7].
* ``accounting.rdp_to_dp_cks`` / ``accounting.rdp_to_delta_cks`` -- conversion
  [Canonne, Kamath, Steinke 2020, Prop. 12], minimised over orders.
* ``accounting.wor_rdp_term2`` / ``accounting.wor_rdp_termj`` -- fixed-size
  sampling without replacement, replace-one adjacency [Wang, Balle,
  Kasiviswanathan 2019, Thm. 9] (integer orders).

Fractional orders: the value used is the smaller of two upper bounds, the
MTZ series (where its truncation is controlled: past ``alpha`` its terms
alternate with completely monotone magnitudes, so the Euler transform of the
tail brackets it; the bracket and the rounding bound are added, see
:func:`_frac_series_bounds`) and the convexity bound: ``alpha -> (alpha - 1) D_alpha`` is convex,
so linear interpolation of ``(alpha - 1) eps_alpha`` between consecutive
integer orders (``0`` at ``alpha = 1``) lies above it.  The without-replacement
bound is interpolated the same way (it bounds a convex function at the
integers).

Order grid (:data:`DEFAULT_ORDERS`): dp_accounting's default grid (1.1 to 10.9
by 0.1, 11 to 63, 128, 256, 512, 1024) plus orders near 1 (for very large
epsilon) and intermediate large orders.  The accountants extend it with
:data:`LARGE_ORDERS` (up to ``2^20``) / :data:`SMALL_ORDERS` when the best
order lies at an end of the grid (:func:`epsilon_for_curves`).

>>> import numpy as np
>>> r = sgm_rdp(noise_multiplier=1.1, sample_rate=256 / 60000, orders=np.array([2.0, 8.0]))
>>> bool(np.all(r > 0))
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _special as sps
from ..errors import InvalidParameterError
from ..validation import check_real
from ._kernels import _kernel

_DPA_ORDERS = [1 + x / 10.0 for x in range(1, 100)] + list(range(11, 64)) + [128, 256, 512, 1024]
_NEAR_ONE = [1.001, 1.002, 1.003, 1.005, 1.007, 1.01, 1.015, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.08, 1.09]
_MID = [64, 72, 80, 88, 96, 112, 144, 160, 192, 224, 320, 384, 448, 640, 768, 896]
#: default order grid: dp_accounting's, plus orders near 1 and intermediate large orders
DEFAULT_ORDERS = np.array(sorted({float(a) for a in _DPA_ORDERS + _NEAR_ONE + _MID}), dtype=float)
INT_ORDERS = DEFAULT_ORDERS[np.floor(DEFAULT_ORDERS) == DEFAULT_ORDERS]
FRAC_ORDERS = DEFAULT_ORDERS[np.floor(DEFAULT_ORDERS) != DEFAULT_ORDERS]
#: added when the best order is the largest default one (tiny epsilon targets)
LARGE_ORDERS = np.array(sorted({float(round(1024 * 2 ** (k / 3))) for k in range(1, 31)}))
#: added when the best order is the smallest default one (huge epsilon)
SMALL_ORDERS = np.array([1 + 10.0 ** -k for k in (8, 7, 6, 5, 4)] + [1.0002, 1.0005])

#: relative safety margin applied to every computed RDP value (float rounding goes the safe way)
_REL_MARGIN = 1e-11
_U = float(np.finfo(float).eps)
_SERIES_MAX_TERMS = 1 << 13
_SERIES_LOG_TOL = -20.0  # tail and rounding bounds (both added) must be below e^-20 of the sum


def _lse(t: np.ndarray) -> np.ndarray:
    """logsumexp over the last axis (-inf entries allowed; all -inf gives -inf)."""
    m = np.max(t, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.sum(np.exp(t - m), axis=-1)) + m[..., 0]


def _int_orders_needed(orders: np.ndarray) -> np.ndarray:
    """Integer orders whose values are needed to bound every order in ``orders``."""
    need = set()
    for a in orders:
        if a == np.floor(a):
            need.add(int(a))
        else:
            lo, hi = int(np.floor(a)), int(np.ceil(a))
            if lo >= 2:
                need.add(lo)
            need.add(max(hi, 2))
    return np.array(sorted(need), dtype=float)


def _sum_terms(fn: Callable[[float, np.ndarray], np.ndarray], a: float, shape: tuple[int, ...], start: int = 0) -> np.ndarray:
    """logsumexp over ``j = start..a`` of ``fn(a, j)`` (broadcast to ``shape + (n_j,)``), in chunks of j."""
    n = int(a) + 1
    chunk = max(1, min(n, 4_000_000 // max(1, int(np.prod(shape)))))
    acc = np.full(shape, -np.inf)
    for s in range(start, n, chunk):
        jj = np.arange(s, min(n, s + chunk), dtype=float)
        t = np.broadcast_to(fn(a, jj), shape + (len(jj),))
        acc = np.logaddexp(acc, _lse(t))
    return acc


#: orders up to this are summed by :func:`_int_log_excess_flat` (their terms side by side, one kernel call)
_FLAT_MAX_ORDER = 64
#: elements (rows x terms) of one kernel evaluation there
_FLAT_ELEMS = 1 << 15


def _int_log_excess_flat(term: Callable[..., Any], s: np.ndarray, qq: np.ndarray, orders: np.ndarray) -> dict[int, np.ndarray]:
    """``{i: log(A_alpha - 1)}`` (rows of ``s``, ``qq``: (rows, 1)) for the orders ``alpha = orders[i]`` up to
    :data:`_FLAT_MAX_ORDER` that :func:`_sum_terms` takes in one chunk: the terms ``j = 2..alpha`` of all of them
    side by side in one kernel call (per block of rows), then each order's logsumexp over its own slice of columns,
    the same elementwise terms and the same reduction as ``_sum_terms`` (so the same numbers)."""
    rows = len(s)
    pick = [i for i, a in enumerate(orders)
            if 2 <= a <= _FLAT_MAX_ORDER and 2 + max(1, min(int(a) + 1, 4_000_000 // max(1, rows))) >= int(a) + 1]
    if not pick or not rows:
        return {}
    sizes = [int(orders[i]) - 1 for i in pick]
    alpha = np.concatenate([np.full(k, float(orders[i])) for i, k in zip(pick, sizes)])
    jj = np.concatenate([np.arange(2, k + 2, dtype=float) for k in sizes])
    cuts = np.cumsum([0, *sizes])
    res = np.empty((rows, len(pick)))
    step = max(1, _FLAT_ELEMS // len(alpha))
    starts = cuts[:-1]
    for r0 in range(0, rows, step):
        sl = slice(r0, r0 + step)
        t = np.asarray(term(alpha=alpha, j=jj, q=qq[sl], sigma=s[sl]), dtype=float)
        if not (t.flags.owndata and t.flags.writeable):  # overwritten below
            t = t.copy()
        # _lse of every order's columns at once: the same maxima (np.max of each slice), subtractions and exps, each
        # slice's exps summed by np.sum over its own contiguous block (the summation order of _lse), one log
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            m = np.maximum.reduceat(t, starts, axis=1)
            m[~np.isfinite(m)] = 0.0
            t -= np.repeat(m, sizes, axis=1)
            np.exp(t, out=t)
            tot = np.empty_like(m)
            for k in range(len(pick)):
                tot[:, k] = np.sum(np.ascontiguousarray(t[:, cuts[k]:cuts[k + 1]]), axis=-1)
            np.log(tot, out=tot)
            tot += m
            res[sl] = np.logaddexp(-np.inf, tot)
    return {i: np.ascontiguousarray(res[:, k]) for k, i in enumerate(pick)}


def _sgm_rdp_int(sigma: np.ndarray, q: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """RDP of one Poisson-subsampled Gaussian step at integer orders; shape ``sigma.shape + (len(orders),)``.

    ``log A_alpha = log1p(A_alpha - 1)`` with ``log(A_alpha - 1)`` the logsumexp of the library terms
    ``accounting.sgm_rdp_log_excess_term`` (j >= 2, all non-negative): relative precision even where
    ``eps_alpha`` is tiny.  The floating-point error of each term (``~u`` times the magnitude of its
    parts) is bounded and added.
    """
    term = _kernel("accounting.sgm_rdp_log_excess_term", "numpy")
    gauss = _kernel("accounting.gaussian_rdp", "numpy")
    s = sigma[..., None]
    qq = np.minimum(q, np.nextafter(1.0, 0.0))[..., None]  # q = 1 handled below
    out = np.empty(sigma.shape + (len(orders),))
    sub = q < 1.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        full = gauss(alpha=orders, sigma=sigma[..., None]) * np.ones(out.shape)
        if np.any(sub):
            lq, l1q = np.abs(np.log(qq[..., 0])), np.abs(np.log1p(-qq[..., 0]))
            flat = _int_log_excess_flat(term, s.reshape(-1, 1), qq.reshape(-1, 1), orders)
            ga = sps.gammaln(np.asarray(orders, dtype=float) + 1)  # elementwise: each order's gammaln(a + 1)
            for i, a in enumerate(orders):
                if i in flat:
                    la = flat[i].reshape(sigma.shape)
                else:
                    la = _sum_terms(lambda aa, jj: term(alpha=aa, j=jj, q=qq, sigma=s), float(a), sigma.shape, start=2)
                mag = ga[i] + a * (lq + l1q) + a * a / (2 * sigma**2) + 2 * math.log(a + 1) + 1
                err = 16 * _U * mag  # absolute error bound of log(A - 1)
                log_a = np.logaddexp(0.0, la + err)
                out[..., i] = log_a / (a - 1)
        else:
            out[...] = full
    out = np.where(sub[..., None], np.minimum(np.where(np.isnan(out), np.inf, out), full), full)  # both upper bounds
    out = np.maximum(out, 0.0)
    return out * (1 + _REL_MARGIN) + 1e-300


def _interpolate(orders: np.ndarray, int_orders: np.ndarray, rdp_int: np.ndarray) -> np.ndarray:
    """Upper bound at ``orders`` from upper bounds at integer orders by convexity of (alpha-1) eps_alpha.

    Vectorised over the orders; each element is the same float expression as the per-order formula
    ``((1 - th) (lo - 1) r_lo + th (hi - 1) r_hi) / (alpha - 1)`` (``0 * (hi - 1) r_hi`` for ``lo < 2``)."""
    orders = np.asarray(orders, dtype=float)
    lo, hi = np.floor(orders), np.ceil(orders)
    pos = np.minimum(np.searchsorted(int_orders, orders), len(int_orders) - 1)
    member = int_orders[pos] == orders
    i_hi = np.minimum(np.searchsorted(int_orders, np.maximum(hi, 2.0)), len(int_orders) - 1)
    i_lo = np.minimum(np.searchsorted(int_orders, lo), len(int_orders) - 1)
    low2 = lo >= 2
    if not (np.array_equal(int_orders[i_hi[~member]], np.maximum(hi, 2.0)[~member])
            and np.array_equal(int_orders[i_lo[~member & low2]], lo[~member & low2])):
        raise KeyError("_interpolate: the integer orders around every order are needed")
    # in place, the same operations on the same operands as ((1 - th) g_lo + th g_hi) / (alpha - 1) (1 + margin), g_hi =
    # (hi - 1) r_hi, g_lo = (lo - 1) r_lo where lo >= 2, else 0 g_hi (products commute exactly in floats)
    with np.errstate(invalid="ignore", over="ignore"):
        g_hi = rdp_int[..., i_hi]  # a fresh gather
        g_hi *= hi - 1
        g_lo = rdp_int[..., i_lo]
        g_lo *= lo - 1
        if not low2.all():
            g_lo[..., ~low2] = 0.0 * g_hi[..., ~low2]
        th = (orders - lo) / (hi - lo)
        g_lo *= 1 - th
        g_hi *= th
        g_lo += g_hi
        out = g_lo
        out /= orders - 1
    out[..., member] = rdp_int[..., pos[member]]
    out *= 1 + _REL_MARGIN
    return out


def _frac_series_upper(sigma: float, q: float, alphas: np.ndarray) -> np.ndarray:
    """:func:`_frac_series_rows` for one (sigma, q) at several orders."""
    a = np.asarray(alphas, dtype=float)
    return _frac_series_rows(np.full(len(a), float(sigma)), np.full(len(a), float(q)), a)


#: terms of the fractional series at its first level; each further level doubles them, up to _SERIES_MAX_TERMS
_SERIES_FIRST_TERMS = 32
#: elements of one kernel evaluation (temporaries of ~1 MiB stay in cache)
_SERIES_BLOCK = 1 << 17
#: the terms of the rows left are kept (a level only computes its new terms) while rows x terms stays below this
_SERIES_KEEP = 1 << 22
#: rows of the series summed together (:func:`_frac_series_bounds`): its (rows x terms) temporaries stay ~256 KiB,
#: which the allocator reuses; on 9,500 rows at once (2.4 MB arrays) the page faults of fresh memory cost about as
#: much CPU as the arithmetic (16,000 minor faults a call, 0 in blocks of 1,024)
_SERIES_ROWS = 1024


#: log|binom(alpha, i)| and sign(binom(alpha, i)), n0 <= i < n1, per (alpha, n0, n1) already met (bounded: cleared
#: when full)
_BINOM_CACHE: dict[tuple[float, int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
_BINOM_CACHE_MAX = 2048


def _binom_rows(ua: np.ndarray, n0: int, n1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(log|binom|, sign, error bound of log|binom| (:func:`_binom_log_err`)) rows (len(ua), n1 - n0) of the distinct orders ``ua`` at ``i = n0..n1-1``, each element
    computed by the same elementwise operations whether cached or not and whatever the block (so a value never
    depends on which other orders were met or on the levels the series went through)."""
    miss = [x for x in ua.tolist() if (x, n0, n1) not in _BINOM_CACHE]
    if miss:
        if len(_BINOM_CACHE) + len(miss) > _BINOM_CACHE_MAX:
            _BINOM_CACHE.clear()
        ub = np.array(miss)[:, None]
        i = np.arange(n0, n1, dtype=float)[None, :]
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            ga, gi = sps.gammaln(ub + 1), sps.gammaln(i + 1)
            lb = ga - gi - sps.gammaln(ub - i + 1)
            sg = sps.gammasgn(ub - i + 1)
            eb = _binom_log_err(np, ub, i, lb, np.abs(ga), gi)
        if len(miss) <= _BINOM_CACHE_MAX:
            for k, x in enumerate(miss):
                _BINOM_CACHE[(x, n0, n1)] = (lb[k], sg[k], eb[k])
        else:
            got = dict(zip(miss, zip(lb, sg, eb)))
            return tuple(np.stack([got[x][j] for x in ua.tolist()]) for j in range(3))  # type: ignore[return-value]
    rows = [_BINOM_CACHE[(x, n0, n1)] for x in ua.tolist()]
    return np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows]), np.stack([r[2] for r in rows])


def _frac_series_rows(sigma: np.ndarray, q: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """:func:`_frac_series_bounds` without the lower bounds."""
    return _frac_series_bounds(sigma, q, alphas)[0]


def _unique_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(x, axis=0, return_inverse=True)`` of a 2-d float ``x`` (the inverse flat), the same arrays: the
    distinct rows in lexicographic order.  A lexsort of the columns instead of numpy's sort of the rows as
    structured records (~4x faster on 10^4 rows); NaN or no rows: numpy's."""
    x = np.asarray(x, dtype=float)
    if not len(x) or np.isnan(x).any():
        u, inv = np.unique(x, axis=0, return_inverse=True)
        return u, inv.ravel()
    order = np.lexsort(x.T[::-1])  # column 0 the primary key
    xs = x[order]
    new = np.empty(len(x), dtype=bool)
    new[0] = True
    np.any(xs[1:] != xs[:-1], axis=1, out=new[1:])
    inv = np.empty(len(x), dtype=np.intp)
    inv[order] = np.cumsum(new) - 1
    return xs[new], inv


def _unique_inverse(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(x, return_inverse=True)`` of a 1-d ``x``; without a sort where every value is one of
    :data:`FRAC_ORDERS` (the order search's case)."""
    pos = np.minimum(np.searchsorted(FRAC_ORDERS, x), len(FRAC_ORDERS) - 1)
    if np.array_equal(FRAC_ORDERS[pos], x):  # NaN or any other value: the sort
        present = np.zeros(len(FRAC_ORDERS), dtype=bool)
        present[pos] = True
        return FRAC_ORDERS[present], (np.cumsum(present) - 1)[pos]
    return np.unique(x, return_inverse=True)


def _series_terms(a: np.ndarray, s: np.ndarray, q: np.ndarray, n0: int, n1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(log|t_i|, sign t_i, relative error bound of |t_i|) of the MTZ series, ``i = n0..n1-1``, for the rows
    ``(s, q, a)`` (1-d): the library terms ``accounting.sgm_rdp_frac_term1/2`` times ``binom(a, i)``, evaluated in
    blocks of :data:`_SERIES_BLOCK`; the third array bounds ``|exact - e^{l1} - e^{l2}| / (e^{l1} + e^{l2})`` from
    :func:`_term_log_err` (``inf`` where a term is not finite), before the rounding of ``logaddexp``."""
    t1 = _kernel("accounting.sgm_rdp_frac_term1", "numpy")
    t2 = _kernel("accounting.sgm_rdp_frac_term2", "numpy")
    k = n1 - n0
    i = np.arange(n0, n1, dtype=float)[None, :]
    chunk = max(1, _SERIES_BLOCK // k)
    parts = []
    # each temporary below is written in place (augmented assignments, ``out=``): the same elementwise operations, in
    # the same order, as the expressions in the comments (so the same numbers), with a few (rows x terms) arrays
    # fewer to allocate and fill
    for r0 in range(0, len(a), chunk):
        sl = slice(r0, r0 + chunk)
        aa, ss, qq = a[sl, None], s[sl, None], q[sl, None]
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            # log|binom(alpha, i)| and its sign once per distinct order (rows of a batch share them)
            ua, ia = _unique_inverse(aa[:, 0])
            ia = ia.ravel()
            logb, sg, eb = _binom_rows(ua, n0, n1)
            logb, eb = logb[ia], eb[ia]
            l1, l2 = _plus(logb, t1(alpha=aa, j=i, q=qq, sigma=ss)), _plus(logb, t2(alpha=aa, j=i, q=qq, sigma=ss))
            lm = np.logaddexp(l1, l2)
            e1, e2 = _kernel_log_err(np, _relu, aa, i, ss, qq)
            e1 += eb
            e2 += eb
            # the linear relative error of e^{l1} + e^{l2}: err of the larger + e^{-|l1 - l2|} err of the smaller (the
            # larger part's exponential bounds the sum from below), each err e as expm1(e) <= e (1 + e) for e <= 1:
            # r = (eb_ (1 + eb_) + e^{-|l1 - l2|} (es_ (1 + es_))) (1 + 4u)
            big = l1 >= l2
            eb_, es_ = np.where(big, e1, e2), np.where(big, e2, e1)
            d = np.subtract(l1, l2, out=l1)
            np.abs(d, out=d)
            np.negative(d, out=d)
            np.exp(d, out=d)
            x = np.add(es_, 1.0, out=e1)
            x *= es_
            d *= x
            r = np.add(eb_, 1.0, out=e2)
            r *= eb_
            r += d
            r *= 1 + 4 * _U
            bad_err = eb_ > 1.0
            bad_err |= ~(es_ <= 1.0)
            r[bad_err] = np.inf
            bad = ~np.isfinite(lm)
            bad |= np.isnan(r)
            lm[bad] = -np.inf  # both parts carry the sign of the binomial
            r[bad] = np.inf
        parts.append((lm, sg[ia], r))
    if len(parts) == 1:
        return parts[0]
    lmag, sign, err = (np.concatenate([p[j] for p in parts]) for j in range(3))
    return lmag, sign, err


def _plus(x: np.ndarray, y: Any) -> np.ndarray:
    """``x + y`` (x: (rows, terms) float64; y: a kernel's fresh result of that shape, written in place when it is)."""
    if type(y) is np.ndarray and y.dtype == np.float64 and y.shape == x.shape and y.flags.writeable and y.flags.owndata:
        y += x
        return y
    return x + y


def _relu(v: np.ndarray) -> np.ndarray:
    return np.maximum(v, 0.0)


def _kernel_log_err(xp: Any, relu: Callable[[Any], Any], a: Any, i: Any, s: Any, q: Any) -> tuple[Any, Any]:
    r"""Bounds ``(e1, e2)`` on the float64 errors of the library terms ``accounting.sgm_rdp_frac_term1/2`` as
    computed by the generated kernels; elementwise over broadcast ``a`` (order, rows x 1), ``i`` (term index, exact
    integers, 1 x terms), ``s`` (sigma) and ``q`` (rows x 1); ``xp``: numpy or torch (elementwise functions of both),
    ``relu(v) = max(v, 0)``.

    An error bound must scale with the magnitudes of the parts a term is computed from, not with the term: at
    ``sigma = 2e-12``, ``alpha = 1 + 1e-8``, ``i = 0`` the second part's ``((alpha - i)^2 - (alpha - i)) / (2 sigma^2)``
    is ``1.25e15`` but is computed from ``alpha^2 / (2 sigma^2) ~ 1.25e23`` (error ~``u`` of that, ``~1e7``); a bound
    proportional to ``|log t_i|`` let session 29's series return ``eps_alpha`` below its rigorous lower bound
    ``alpha/(2 sigma^2) + alpha log(q)/(alpha - 1)`` (reverted).  Here, with ``L = log(1/q - 1)``,
    ``x1 = (1/2 - i + L s^2)/s`` and ``x2 = (a - i - 1/2 - L s^2)/s`` the arguments of ``log Phi``: each part's own
    float error is within ``8u`` times the sum of the magnitudes of its parts, ``(i^2 + i)/(2 s^2) + i |log q| +
    |a - i| |log(1 - q)|`` (part 1), ``((a - i)^2 + |a - i|)/(2 s^2) + |a - i| |log q| + i |log(1 - q)|`` (part 2) and
    ``|log Phi(x)| <= x_-^2/2 + x_- + 2`` (``x_- = max(-x, 0)``); the kernel's ``x`` is within ``dx = 4u D`` of the
    exact one, ``D = (i + |a - i| + 1)/s + s (1/(1 - q) + 1 + 2|L|)`` (including the error of ``1/q - 1``), and so
    is the ``x`` recomputed here, so ``dx`` times ``|d log Phi/dx| <= (x - 2 dx)_- + 1/(1 + (x - 2 dx)_+^2/2)``
    (``|x| + 1`` below 0; ``2 phi(x) <= 0.8 e^{-x^2/2}`` above) is added.
    """
    u = _U
    lq, l1q = xp.abs(xp.log(q)), xp.abs(xp.log1p(-q))
    ls = xp.log(1.0 / q - 1.0)
    inv_s = 1.0 / s
    c_row = s * (1.0 / (1.0 - q) + 1.0 + 2.0 * xp.abs(ls))
    half_inv = 0.5 * inv_s * inv_s
    c1 = (0.5 + ls * s * s) * inv_s
    c2 = (a - 0.5 - ls * s * s) * inv_s
    ami = xp.abs(a - i)
    i_s = i * inv_s
    # the (rows x terms) temporaries are updated in place (augmented assignments: numpy and torch alike), each the
    # same operations in the same order as the expression in its comment (the same numbers)
    dx = i + ami  # dx = 4u ((i + ami + 1) / s + c_row)
    dx += 1.0
    dx *= inv_s
    dx += c_row
    dx *= 4.0 * u
    two_dx = 2.0 * dx

    def part(x: Any, quad: Any, lin: Any) -> Any:
        # (8u) (quad/(2 s^2) + lin + (neg/2 + 1) neg + 2) + dx (neg + 1/(1 + pos^2/2)), lo = x - 2 dx, neg = (-lo)_+,
        # pos = lo_+ (lin: a fresh array of the full shape, overwritten; a + b = b + a exactly in floats)
        lo = x - two_dx
        neg, pos = relu(-lo), relu(lo)
        t = lin
        t += quad * half_inv
        w = 0.5 * neg
        w += 1.0
        w *= neg
        t += w
        t += 2.0
        t *= 8.0 * u
        p = 0.5 * pos
        p *= pos
        p += 1.0
        p = 1.0 / p
        p += neg
        p *= dx
        t += p
        return t

    lin1 = ami * l1q  # i |log q| + ami |log(1 - q)| (sigma and q may be scalars: the full shape comes from ami)
    lin1 += i * lq
    e1 = part(c1 - i_s, i * i + i, lin1)
    quad2 = ami + 1.0  # (ami + 1) ami
    quad2 *= ami
    lin2 = ami * lq  # ami |log q| + i |log(1 - q)|
    lin2 += i * l1q
    e2 = part(c2 - i_s, quad2, lin2)
    return e1, e2


def _binom_log_err(xp: Any, a: Any, i: Any, logb: Any, ga: Any, gi: Any) -> Any:
    r"""Bound on the float64 error of ``log|binom(a, i)| = gammaln(a + 1) - gammaln(i + 1) - gammaln(a - i + 1)``
    (``logb``, as computed; ``ga = |gammaln(a + 1)|``, ``gi = gammaln(i + 1)``; elementwise, numpy or torch): each
    ``gammaln`` within ``8u(|value| + 1)`` (``symdp._special.gammaln`` against 40-digit mpmath on 5,000 points of
    [-900, 1100], near-poles included: at most ``2.3u(|value| + 1)``), the two subtractions ``u`` of the parts, plus
    the arguments' rounding (``a + 1``: ``u(a + 1)/2``; ``a - i + 1``: ``u(|a - i| + 1)``) times ``|psi|`` (``<= log(|x|
    + 2) + 1`` for ``x >= 1``; below 1, by reflection, plus ``4/d``, ``d = dist(a, Z)``, while the argument's error is
    below ``d/2``; beyond it the sign may flip: a huge bound).  At ``i = 0`` the computation is exact: ``a - 0 + 1``
    rounds as ``a + 1`` does, so ``logb = ga - 0 - ga = 0 = log binom(a, 0)``."""
    u = _U
    x = a - i + 1.0
    d = xp.abs(a - xp.round(a)) + 1e-300
    dxb = 1.01 * u * (xp.abs(a - i) + 1.0)
    psi = xp.log(xp.abs(x) + 2.0) + 1.0 + (i > a) * (4.0 / d)
    gx = xp.abs(logb) + ga + gi  # >= |gammaln(a - i + 1)|
    e = u * (9.0 * (ga + gi + gx) + 24.0 + 0.51 * (a + 1.0) * (xp.log(a + 2.0) + 1.0)) + dxb * psi
    huge = dxb * 0.0 + 1e300  # float64 in numpy and torch (a bool tensor times a Python float is float32 in torch)
    return (e + (dxb >= 0.5 * d) * huge) * (i > 0)


#: terms of the Euler transform of the alternating tail (see :func:`_frac_series_bounds`)
_EULER_J = 12
#: its weights: ``c_k = sum_{j=k}^{J-1} binom(j, k) / 2^{j+1}`` (k < J) and ``d_k = binom(J, k) / 2^J`` (k <= J)
_EULER_C = np.array([sum(math.comb(j, k) / 2.0 ** (j + 1) for j in range(k, _EULER_J)) for k in range(_EULER_J)])
_EULER_D = np.array([math.comb(_EULER_J, k) / 2.0 ** _EULER_J for k in range(_EULER_J + 1)])
#: a level is accepted when the tail's bracket is this narrow relative to the sum (the rounding allowance is ~100u)
_SERIES_TIGHT = 16.0 * _U


def _euler_weights(J: int) -> tuple[np.ndarray, np.ndarray]:
    """(c, d) of the Euler transform of ``J`` tail terms (:data:`_EULER_C`, :data:`_EULER_D` for ``J`` = 12)."""
    if J == _EULER_J:
        return _EULER_C, _EULER_D
    return (np.array([sum(math.comb(j, k) / 2.0 ** (j + 1) for j in range(k, J)) for k in range(J)]),
            np.array([math.comb(J, k) / 2.0 ** J for k in range(J + 1)]))


def _series_level(lmag: np.ndarray, sign: np.ndarray, err: np.ndarray, a: np.ndarray,
                  last: bool, J: int = _EULER_J) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(controlled, upper, lower, hopeless) bounds on eps_alpha from the first ``lmag.shape[1]`` terms (see
    :func:`_frac_series_bounds`); ``err``: the terms' relative error bounds (:func:`_series_terms`); ``last``: the last level
    (accepted at the looser ``e^-20``); ``hopeless``: the head's rounding alone is above ``e^-20`` of the sum."""
    euler_c, euler_d = _euler_weights(J)
    n = lmag.shape[1] - J - 1  # the head: terms 0..n-1; the tail from n on by its Euler transform (terms n..n+J)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        m = np.max(lmag, axis=1)
        w = np.subtract(lmag, m[:, None])
        np.exp(w, out=w)
        # w_i = exp(lmag_i - m) is (1 + rho_i) e^{+-et} times the exact |t_i| / e^m, rho_i = err (the parts' errors),
        # et the rounding of logaddexp (4u(|lmag| + 1)), of the subtraction and of the exp; so |w_i - exact| <=
        # w_i (rho_i + (1 + rho_i) expm1(et)).  A term that underflowed to 0 is below e^{-744} of the largest where
        # rho_i < 1 (covered by the 1e-300 below), and unbounded otherwise.  In place, the same operations as
        # et = u (5 |lmag| + |m| + 6), werr = w (err + (1 + err) expm1(et)) (1 + 4u) where w > 0
        et = np.abs(lmag)
        et *= 5.0
        et += np.abs(m)[:, None]
        et += 6.0
        et *= _U
        np.expm1(et, out=et)
        werr = np.add(err, 1.0)
        werr *= et
        werr += err
        werr *= w
        werr *= 1 + 4 * _U
        under = ~(w > 0)
        if under.any():
            werr[under] = np.where(err[under] < 1.0, 0.0, np.inf)
        sw = sign * w
        s = np.sum(sw[:, :n], axis=1)
        # the head's sum in any order: (n + 1)u of the sum of magnitudes
        rnd = np.sum(werr[:, :n], axis=1) + (n + 1) * _U * np.sum(w[:, :n], axis=1) + 1e-300
        tw, terr = sw[:, n:], werr[:, n:] + w[:, n:] * (4.0 * (J + 2) * _U)
        e = np.sum(tw[:, :J] * euler_c, axis=1)
        b = np.sum(tw * euler_d, axis=1)
        terr_c = np.sum(terr[:, :J] * euler_c, axis=1) + np.sum(terr * euler_d, axis=1)
        terr_c = terr_c + 4.0 * _U * (np.abs(s) + np.abs(e) + np.abs(b) + rnd)  # the additions below
        up = s + e + np.maximum(b, 0.0) + rnd + terr_c
        down = s + e + np.minimum(b, 0.0) - rnd - terr_c
        width = np.abs(b) + terr_c
        loose = math.exp(_SERIES_LOG_TOL) * np.abs(s)
        tol = np.where(last, loose - rnd, _SERIES_TIGHT * np.abs(s))
        ok = (n > a) & (s > 0) & np.isfinite(m) & (width <= tol) & (rnd <= loose)
        hopeless = ~ok & ~(rnd <= loose)
        lu = np.log(up)
        # the float evaluation of log(up) + m, rounded up (near A = 1 the two nearly cancel)
        val = ((lu + m) + 4.0 * _U * (1.0 + np.abs(lu) + np.abs(m))) / (a - 1) * (1 + 2 * _U)
        ls = np.log(down)
        lv = (ls + m) - 8.0 * _U * (1.0 + np.abs(ls) + np.abs(m))
        lv = np.maximum(lv, 0.0) / (a - 1) * (1 - 8.0 * _U)
    return ok, val, lv, hopeless


def _frac_series_bounds(sigma: np.ndarray, q: np.ndarray, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Upper bounds on :math:`\epsilon_\alpha` from the MTZ fractional series, one per row ``(sigma, q, alpha)``
    (``inf`` where not controlled).

    ``A_alpha = sum_i t_i``, ``t_i = binom(alpha, i) (e^{a_i} + e^{b_i})`` with ``a_i``, ``b_i`` the library terms
    ``accounting.sgm_rdp_frac_term1/2``.  Each row computes its first ``N = 32, 64, ...,`` :data:`_SERIES_MAX_TERMS`
    terms (a level computes only its new terms), sums the first ``n = N - J - 1`` and brackets the rest of the
    series from the last ``J + 1``, and stops at the first level where the bracket below is accepted; orders never controlled get ``inf`` (the caller keeps the convexity bound).

    The tail.  With ``z_0 = 1/2 + sigma^2 log(1/q - 1)`` and ``C_0 = (1 - q)^alpha e^{-z_0^2 / (2 sigma^2)}``, the
    exponents of both parts complete to a square: ``e^{a_i} = C_0 g((i - z_0)/sigma)`` and ``e^{b_i} = C_0 g((i + z_0
    - alpha)/sigma)`` with ``g(x) = e^{x^2/2} Phi(-x)`` = Mills' ratio over ``sqrt(2 pi)``, decreasing on the whole
    line and completely monotone (a Laplace-type transform).  For ``i > alpha`` the sign of ``binom(alpha, i)``
    alternates and ``|binom(alpha, i)|`` is completely monotone in ``i`` (a Beta integral), so from ``i = n > alpha``
    on the terms alternate with completely monotone magnitudes, and the Euler transform of the tail brackets it
    (:func:`_series_level`; ``J`` = :data:`_EULER_J`): with the signed terms ``t_n, ..., t_{n+J}``, ``E = sum_{k<J}
    c_k t_{n+k}`` (the first ``J`` transformed terms) and ``B = sum_{k<=J} d_k t_{n+k}`` (``Delta^J`` of the tail's
    first term over ``2^J``, weights :data:`_EULER_C`, :data:`_EULER_D`), ``A_alpha`` lies in ``[S_n + E + min(B, 0),
    S_n + E + max(B, 0)]`` (``S_n`` the sum of the first ``n`` terms).  A level is accepted where ``n > alpha`` and
    the bracket's width is below ``16u`` of the sum (``e^-20`` at the last level) and the head's rounding is below
    ``e^-20`` of it (a row whose head's rounding is above it stops: ``inf``).  The signed sum is taken relative to its
    largest term; each term's rounding is bounded from the magnitudes of the parts it is computed from
    (:func:`_kernel_log_err`, :func:`_binom_log_err`; NOT from ``|log t_i|``: at tiny sigma the parts are ~1e23
    while ``log t_i`` is ~1e15), plus ``logaddexp``, the subtraction of the largest and the ``exp``; the head's sum
    adds ``(n + 1)u`` of its magnitudes (any summation order), the tail's terms ``4u(J + 2)`` through the transform,
    and ``4u`` of the parts for the final additions; all widen the bracket on both sides.
    Every row is computed by the same row-wise operations whatever the other rows are (a batch of
    configurations gives each one the value of its own call).

    Also returns lower bounds on the same :math:`\epsilon_\alpha` (``0`` where not controlled): the float evaluation
    of ``log(lower end) + m`` shaved by ``8u`` times the magnitude of its parts (used by the order search,
    :func:`_refine_bnb`).
    """
    out, low, _ = _frac_series_bounds_skip(sigma, q, alphas, None)
    return out, low


#: a probe (:func:`_frac_series_bounds_skip`): a head of 3, 7 or 11 terms (the first of these above alpha) and the
#: Euler bracket of :data:`_PROBE_J` tail terms; orders from 11 on are not probed
_PROBE_HEADS = (3, 7, 11)
_PROBE_J = 6

#: ``skip(rows, upper, lower) -> excluded``: given rows of a series call and rigorous (upper, lower) bounds on their
#: eps_alpha from a probe, which of them the caller does not need evaluated further
SkipFn = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _terms_generated() -> bool:
    """The fractional series' terms come from the generated kernels, whose float operations :func:`_kernel_log_err`
    bounds (a kernel lambdified from the library, the fallback of an install without ``generated/``, is another
    expression: the probe is not used with it)."""
    return all(str(getattr(_kernel(k, "numpy"), "__module__", "")).startswith("symdp.generated.")
               for k in ("accounting.sgm_rdp_frac_term1", "accounting.sgm_rdp_frac_term2"))


def _probe_terms(a: np.ndarray) -> np.ndarray:
    """Terms of each row's probe (0: none): ``n + J + 1`` (``J`` = :data:`_PROBE_J`) with ``n`` the first of
    :data:`_PROBE_HEADS` above ``a``."""
    k = np.zeros(len(a), dtype=np.int64)
    for n in reversed(_PROBE_HEADS):
        k[a < n] = n + _PROBE_J + 1
    return k


class _TermStore:
    """The probes' terms (``lmag, sign, err`` of ``i = 0..K-1``, :func:`_series_terms`) of the (sigma, q, alpha) a
    probe-first search left at their probe (:func:`_refine_probe_first`), kept so that the full series of those it
    completes later starts from them instead of computing them again (the terms are elementwise: the same numbers).
    A skip carries its store as the attribute ``terms`` (:func:`_carry`); a lookup matches the three floats exactly
    (a hash of their bits, then equality), and a row not found is computed afresh.  Memory: the terms of ~2.4 probes
    a configuration on the bench's set, ~12 terms each, three float64 arrays (~0.7 KiB a configuration)."""

    _MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9))

    def __init__(self) -> None:
        self.parts: dict[int, list[tuple[np.ndarray, ...]]] = {}
        self.index: dict[int, tuple[np.ndarray, ...]] = {}

    @classmethod
    def _hash(cls, s: np.ndarray, q: np.ndarray, a: np.ndarray) -> np.ndarray:
        h = np.ascontiguousarray(s, dtype=float).view(np.uint64) * cls._MIX[0]
        h ^= np.ascontiguousarray(q, dtype=float).view(np.uint64) * cls._MIX[1]
        h ^= np.ascontiguousarray(a, dtype=float).view(np.uint64) * cls._MIX[2]
        return h

    def put(self, s: np.ndarray, q: np.ndarray, a: np.ndarray, lmag: np.ndarray, sign: np.ndarray, err: np.ndarray) -> None:
        if len(a):
            k = lmag.shape[1]
            self.parts.setdefault(k, []).append((s, q, a, lmag, sign, err))
            self.index.pop(k, None)

    def take(self, k: int, s: np.ndarray, q: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """(found: a mask of the rows, the stored (lmag, sign, err) of the rows found, in their order)."""
        if k not in self.parts:
            return np.zeros(len(a), dtype=bool), ()
        if k not in self.index:
            cols = [np.concatenate([p[c] for p in self.parts[k]]) for c in range(6)]
            h = self._hash(cols[0], cols[1], cols[2])
            order = np.argsort(h, kind="stable")
            self.index[k] = (h[order], order, *cols)
        hs, order, ss, qs, as_, lmag, sign, err = self.index[k]
        hq = self._hash(s, q, a)
        pos = np.minimum(np.searchsorted(hs, hq), len(hs) - 1)
        at = order[pos]
        hit = (hs[pos] == hq) & (ss[at] == s) & (qs[at] == q) & (as_[at] == a)
        at = at[hit]
        return hit, (lmag[at], sign[at], err[at])


def _carry(fn: SkipFn, store: _TermStore | None) -> SkipFn:
    """``fn`` carrying ``store`` (as its attribute ``terms``, see :class:`_TermStore`)."""
    if store is not None:
        fn.terms = store  # type: ignore[attr-defined]
    return fn


def _like(fn: SkipFn, skip: Any) -> SkipFn:
    """``fn`` (a skip wrapping ``skip``) carrying ``skip``'s store and its ``complete`` mark, if any."""
    _carry(fn, getattr(skip, "terms", None))
    if getattr(skip, "complete", False):
        fn.complete = True  # type: ignore[attr-defined]
    return fn


def _completing(store: _TermStore) -> SkipFn:
    """A skip that excludes nothing (every row evaluated in full, as without skip) and starts the rows whose probe's
    terms ``store`` holds from those terms (:func:`_frac_series_bounds_skip`)."""
    def complete(rows: np.ndarray, _up: np.ndarray, _lo: np.ndarray) -> np.ndarray:
        return np.zeros(len(rows), dtype=bool)
    complete.complete = True  # type: ignore[attr-defined]
    return _carry(complete, store)


def _frac_series_bounds_skip(sigma: np.ndarray, q: np.ndarray, alphas: np.ndarray,
                             skip: SkipFn | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""(upper, lower, done): :func:`_frac_series_bounds` for the rows ``done``.

    With ``skip``, each row of order below 11 first sums a probe: its first ``K = n + J + 1`` terms (``n`` = 3, 7 or
    11, the first above alpha; ``J`` = :data:`_PROBE_J`), the head of ``n`` and the Euler bracket of the tail from
    its last ``J + 1`` (:func:`_series_level`, valid for any ``J`` past alpha), whatever the bracket's width: a
    rigorous (upper, lower) pair on eps_alpha (``inf`` / ``0`` where not finite).  The rows ``skip`` excludes keep
    that pair (``done`` False); the others go on to the levels of :func:`_frac_series_bounds` (:func:`_series_levels`)
    with the probe's terms as the first ``K`` of their first level (the terms are elementwise: the same numbers as
    one call for ``0..31``).  Probes in blocks of ``_SERIES_ROWS * 32 / K`` rows, the levels in blocks of
    :data:`_SERIES_ROWS`; every value is row-wise.

    A skip carrying a :class:`_TermStore` (``skip.terms``, :func:`_carry`) keeps there the probe's terms of the rows
    it excludes; one made by :func:`_completing` excludes nothing and takes the rows whose terms the store holds
    straight to the levels from those terms (no probe: the same numbers)."""
    sigma, q, alphas = (np.asarray(v, dtype=float).ravel() for v in (sigma, q, alphas))
    m = len(alphas)
    out, low, done = np.full(m, np.inf), np.zeros(m), np.ones(m, dtype=bool)
    kk = _probe_terms(alphas) if skip is not None and _terms_generated() else np.zeros(m, dtype=np.int64)
    store: _TermStore | None = getattr(skip, "terms", None)
    completing = store is not None and bool(getattr(skip, "complete", False))

    def levels(rows: np.ndarray, first: tuple[np.ndarray, ...] | None, blk: int) -> None:
        a, ss, qq = alphas[rows], sigma[rows], q[rows]
        for c0 in range(0, len(rows), blk):
            c = slice(c0, c0 + blk)
            out[rows[c]], low[rows[c]] = _series_levels(
                ss[c], qq[c], a[c], None if first is None else (first[0][c], first[1][c], first[2][c]))

    for k in np.unique(kk).tolist():
        rows_k = np.nonzero(kk == k)[0]
        if k and completing:
            assert store is not None
            hit, got = store.take(k, sigma[rows_k], q[rows_k], alphas[rows_k])
            if hit.any():
                levels(rows_k[hit], got, _SERIES_ROWS)
                rows_k = rows_k[~hit]
        # probes in blocks of about _SERIES_ROWS x 32 terms, of equal sizes (a block of 65,536 terms, twice that, took
        # 27 ms where two of half its size took 17 ms: the temporaries no longer fit the 512 KiB L2 cache)
        step = _SERIES_ROWS * _SERIES_FIRST_TERMS // k if k else _SERIES_ROWS
        step = max(1, -(-len(rows_k) // max(1, -(-len(rows_k) // step))))
        for r0 in range(0, len(rows_k), step):
            rows = rows_k[r0:r0 + step]
            first = None
            if k:
                assert skip is not None
                a, ss, qq = alphas[rows], sigma[rows], q[rows]
                lmag, sign, err = _series_terms(a, ss, qq, 0, k)
                _, val, lv, _ = _series_level(lmag, sign, err, a, False, _PROBE_J)
                up_p = np.where(np.isfinite(val), val, np.inf)
                lo_p = np.where(np.isfinite(lv), lv, 0.0)
                ex = np.asarray(skip(rows, up_p, lo_p), dtype=bool)
                out[rows[ex]], low[rows[ex]], done[rows[ex]] = up_p[ex], lo_p[ex], False
                if store is not None and ex.any():
                    store.put(ss[ex], qq[ex], a[ex], lmag[ex], sign[ex], err[ex])
                keep = ~ex
                rows = rows[keep]
                first = (lmag[keep], sign[keep], err[keep])
            levels(rows, first, 2 * _SERIES_ROWS if k else _SERIES_ROWS)
    return out, low, done


def _series_levels(sigma: np.ndarray, q: np.ndarray, alphas: np.ndarray,
                   first: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
    """The levels of :func:`_frac_series_bounds` for one block of rows; ``first``: the terms ``0..K-1`` of every
    row, already computed (``K <= 32``), or None."""
    out = np.full(len(alphas), np.inf)
    low = np.zeros(len(alphas))
    todo = np.arange(len(alphas))
    n0, n = 0, _SERIES_FIRST_TERMS
    lmag: np.ndarray | None = None
    sign: np.ndarray | None = None
    err: np.ndarray | None = None
    if first is not None and len(todo) * n <= _SERIES_KEEP:
        lmag, sign, err = first
        n0 = lmag.shape[1]
    while len(todo) and n <= _SERIES_MAX_TERMS:
        a, ss, qq = alphas[todo], sigma[todo], q[todo]
        last = 2 * n > _SERIES_MAX_TERMS
        if len(todo) * n > _SERIES_KEEP:  # too many to keep: every term afresh, in slices of rows
            step = max(1, _SERIES_KEEP // n)
            parts = [_series_level(*_series_terms(a[r:r + step], ss[r:r + step], qq[r:r + step], 0, n), a[r:r + step], last)
                     for r in range(0, len(todo), step)]
            ok, val, lv, gone = (np.concatenate(p) for p in zip(*parts))
            lmag = sign = err = None
        else:
            if lmag is None or sign is None or err is None:
                lmag, sign, err = _series_terms(a, ss, qq, 0, n)
            else:
                nl, ns, ne = _series_terms(a, ss, qq, n0, n)
                lmag, sign, err = (np.concatenate([x, y], axis=1) for x, y in ((lmag, nl), (sign, ns), (err, ne)))
            ok, val, lv, gone = _series_level(lmag, sign, err, a, last)
        out[todo[ok]] = val[ok]
        low[todo[ok]] = lv[ok]
        keep = ~ok & ~gone  # rows whose head's rounding is already too large stop (inf: not controlled)
        todo = todo[keep]
        n0, n = n, 2 * n
        if lmag is not None and sign is not None and err is not None and len(todo) * n <= _SERIES_KEEP:
            lmag, sign, err = lmag[keep], sign[keep], err[keep]
        else:
            lmag = sign = err = None
    return out, low


#: the largest Renyi order evaluated (an integer order sums order + 1 terms); LARGE_ORDERS end at 2^20
MAX_ORDER = float(1 << 24)


def _check_orders(orders: Any) -> np.ndarray:
    """``orders`` as a 1-d float array in (1, MAX_ORDER]; InvalidParameterError (one line) otherwise."""
    o = np.asarray(check_real("orders", orders, 1.0, MAX_ORDER, lo_open=True), dtype=float)
    if o.size == 0:
        raise InvalidParameterError(f"orders must be a non-empty list of Renyi orders in (1, {MAX_ORDER:g}]")
    return np.atleast_1d(o)


def sgm_rdp(*, noise_multiplier: Any, sample_rate: Any, orders: Any = None) -> np.ndarray:
    r"""RDP :math:`\epsilon_\alpha` of ONE Poisson-subsampled Gaussian step (add/remove adjacency), an upper bound.

    The sampled Gaussian's RDP of Mironov et al. is for the worse of the two
    directions (their Thm 5 shows the remove direction dominates), so it covers
    add/remove adjacency.  Integer orders: the exact binomial sum; fractional
    orders: the smaller of the MTZ series bound and the convexity bound.  Arrays
    broadcast; the result has one more trailing axis (orders).
    """
    orders = DEFAULT_ORDERS if orders is None else _check_orders(orders)
    sigma, q = np.broadcast_arrays(np.asarray(noise_multiplier, dtype=float), np.asarray(sample_rate, dtype=float))
    int_orders = _int_orders_needed(orders)
    r = _sgm_rdp_int(sigma, q, int_orders)
    out = _interpolate(orders, int_orders, r)
    frac = np.nonzero(orders != np.floor(orders))[0]
    if len(frac):
        gauss = _kernel("accounting.gaussian_rdp", "numpy")
        flat_s, flat_q = sigma.ravel(), q.ravel()
        flat_out = out.reshape(-1, len(orders))
        pairs, inv = _unique_rows(np.stack([flat_s, flat_q], 1))
        fo = orders[frac]
        vals = np.empty((len(pairs), len(fo)))
        full = pairs[:, 1] >= 1.0
        if full.any():
            vals[full] = np.asarray(gauss(alpha=fo[None, :], sigma=pairs[full, 0][:, None]), dtype=float) * (1 + _REL_MARGIN) + 1e-300
        sub = np.nonzero(~full)[0]
        if len(sub):  # one row per (pair, order): the series vectorised over every configuration at once
            ps, pq = np.repeat(pairs[sub, 0], len(fo)), np.repeat(pairs[sub, 1], len(fo))
            vals[sub] = _frac_series_rows(ps, pq, np.tile(fo, len(sub))).reshape(len(sub), len(fo)) * (1 + _REL_MARGIN) + 1e-300
        flat_out[:, frac] = np.minimum(flat_out[:, frac], vals[inv])
        out = flat_out.reshape(out.shape)
    return out


def sgm_rdp_rows(sigma: Any, q: Any, alpha: Any, int_rdp: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Per-row RDP of one Poisson-subsampled Gaussian step at a fractional order per row: (upper, lower).

    ``upper[i]`` is, to the bit, ``sgm_rdp(noise_multiplier=sigma[i], sample_rate=q[i], orders=[alpha[i]])``
    (the same row-wise operations: integer orders ``floor``/``ceil`` of ``alpha``, their convexity
    interpolation, the MTZ series, the smaller kept), computed for rows of different orders in one
    vectorised pass.  ``lower[i] <= eps_alpha`` is the series' lower bound (``0`` where the series is not
    controlled; the Gaussian's own RDP, shaved, at ``q = 1``).  Orders must be non-integers.

    ``int_rdp = (orders, values)``: the rows' values of :func:`_sgm_rdp_int` at integer ``orders`` (``values[i, k]``
    for row ``i``, containing ``floor``/``ceil`` of every ``alpha``), already computed; used instead of computing
    them again (the same numbers: that function works order by order and row by row).
    """
    up, low, _ = _sgm_rdp_rows_skip(sigma, q, alpha, int_rdp, None)
    return up, low


def _sgm_rdp_rows_skip(sigma: Any, q: Any, alpha: Any, int_rdp: tuple[np.ndarray, np.ndarray] | None,
                       skip: SkipFn | None, distinct: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(upper, lower, done): :func:`sgm_rdp_rows` for the rows ``done`` (to the bit); with ``skip`` (rows, upper,
    lower -> excluded), the series' probe (:func:`_frac_series_bounds_skip`) is offered to ``skip`` as rigorous
    per-step bounds (the upper one the smaller of the convexity bound and the probe's, as for the series), and a
    distinct (sigma, q, alpha) whose every row ``skip`` excludes keeps those bounds (``done`` False).
    ``distinct``: the caller knows the rows' (sigma, q, alpha) to be distinct (they are not deduplicated again; the
    series' values are row-wise, so the same numbers in any order)."""
    s, qq, a = (np.asarray(v, dtype=float).ravel() for v in np.broadcast_arrays(sigma, q, alpha))
    if np.any(a == np.floor(a)) or np.any(a <= 1.0):
        raise InvalidParameterError("sgm_rdp_rows takes fractional orders > 1 only")
    up, low = np.empty(len(a)), np.zeros(len(a))
    lo, hi = np.floor(a), np.ceil(a)
    # the convexity interpolation of sgm_rdp (_interpolate over _int_orders_needed([alpha])): with the integer values
    # given, every row at once (each row's own floor/ceil columns gathered); else per group of rows
    if int_rdp is not None:
        rows_i = np.arange(len(a))
        low2 = lo >= 2
        r_hi = int_rdp[1][rows_i, np.searchsorted(int_rdp[0], hi)]  # hi >= 2: a > 1 is not an integer
        r_lo = int_rdp[1][rows_i, np.searchsorted(int_rdp[0], np.where(low2, lo, hi))]
        g_hi = (hi - 1) * r_hi
        with np.errstate(invalid="ignore"):
            g_lo = np.where(low2, (lo - 1) * r_lo, 0.0 * g_hi)
        th = (a - lo) / (hi - lo)
        up[:] = (((1 - th) * g_lo + th * g_hi) / (a - 1)) * (1 + _REL_MARGIN)
    for k in (np.unique(lo) if int_rdp is None else ()):
        sel = np.nonzero(lo == k)[0]
        ints = np.array([k, k + 1.0]) if k >= 2 else np.array([2.0])
        r = _sgm_rdp_int(s[sel], qq[sel], ints)
        g_hi = (hi[sel] - 1) * r[:, -1]
        g_lo = (lo[sel] - 1) * r[:, 0] if k >= 2 else 0.0 * g_hi
        th = (a[sel] - lo[sel]) / (hi[sel] - lo[sel])
        up[sel] = (((1 - th) * g_lo + th * g_hi) / (a[sel] - 1)) * (1 + _REL_MARGIN)
    gauss = _kernel("accounting.gaussian_rdp", "numpy")
    full = qq >= 1.0
    vals = np.empty(len(a))
    if full.any():
        gv = np.asarray(gauss(alpha=a[full], sigma=s[full]), dtype=float)
        vals[full] = gv * (1 + _REL_MARGIN) + 1e-300
        low[full] = gv * (1 - 8.0 * _U)
    sub = np.nonzero(~full)[0]
    done = np.ones(len(a), dtype=bool)
    if len(sub):
        trip = np.stack([s[sub], qq[sub], a[sub]], 1)
        pairs, inv = (trip, np.arange(len(sub))) if distinct else _unique_rows(trip)
        uskip: SkipFn | None = None
        if skip is not None:
            sk = skip

            def uskip(idx: np.ndarray, u_p: np.ndarray, l_p: np.ndarray) -> np.ndarray:
                pos = np.full(len(pairs), -1)
                pos[idx] = np.arange(len(idx))
                at = pos[inv]
                mine = np.nonzero(at >= 0)[0]  # the rows (of sub) of these distinct triples
                rs, k = sub[mine], at[mine]
                ex = np.asarray(sk(rs, np.minimum(up[rs], (u_p * (1 + _REL_MARGIN) + 1e-300)[k]), l_p[k]), dtype=bool)
                n_all = np.bincount(k, minlength=len(idx))
                n_ex = np.bincount(k[ex], minlength=len(idx))
                return n_ex == n_all  # a triple is left out only where every row of it is

            uskip = _like(uskip, skip)
        v, lw, dn = _frac_series_bounds_skip(pairs[:, 0], pairs[:, 1], pairs[:, 2], uskip)
        vals[sub] = (v * (1 + _REL_MARGIN) + 1e-300)[inv]
        low[sub] = lw[inv]
        done[sub] = dn[inv]
    return np.minimum(up, vals), low, done


def wor_rdp(*, noise_multiplier: Any, sample_rate: Any, orders: Any = None) -> np.ndarray:
    r"""RDP of ONE step of fixed-size sampling without replacement (fraction ``gamma = m/n``), replace-one.

    [Wang, Balle, Kasiviswanathan 2019, Thm. 9] with the Gaussian base
    mechanism :math:`\epsilon(j) = j/(2\sigma^2)`, where ``noise_multiplier`` is
    the noise std divided by the *replace-one* L2 sensitivity (for summed
    per-example gradients clipped to C that sensitivity is 2C).  Integer orders
    >= 2 (log-binomials: any order); fractional orders by the convexity interpolation.
    The Gaussian's own RDP ``alpha / (2 sigma^2)`` (no amplification) also holds; the smaller is kept.
    """
    orders = DEFAULT_ORDERS if orders is None else _check_orders(orders)
    sigma, g = np.broadcast_arrays(np.asarray(noise_multiplier, dtype=float), np.asarray(sample_rate, dtype=float))
    int_orders = _int_orders_needed(orders)
    t2 = _kernel("accounting.wor_rdp_term2", "numpy")
    tj = _kernel("accounting.wor_rdp_termj", "numpy")
    gauss = _kernel("accounting.gaussian_rdp", "numpy")
    out = np.empty(sigma.shape + (len(int_orders),))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        for i, a in enumerate(int_orders):
            head = np.logaddexp(np.zeros(sigma.shape), np.broadcast_to(np.asarray(t2(alpha=a, gamma=g, sigma=sigma), dtype=float), sigma.shape))
            if a >= 3:
                rest = _sum_terms(lambda aa, jj: tj(alpha=aa, j=jj, gamma=g[..., None], sigma=sigma[..., None]),
                                  float(a), sigma.shape, start=3)
                head = np.logaddexp(head, rest)
            out[..., i] = head / (a - 1)
        full = gauss(alpha=int_orders, sigma=sigma[..., None])
    out = np.minimum(np.where(np.isnan(out), np.inf, out), full)
    out = out * (1 + _REL_MARGIN) + 1e-300
    return _interpolate(orders, int_orders, out)


def _eps_values(rdp: Any, orders: np.ndarray, delta: Any) -> np.ndarray:
    """CKS epsilon at every order (last axis), rounded up; NaN -> inf.  Increasing in ``rdp``."""
    conv = _kernel("accounting.rdp_to_dp_cks", "numpy")
    rdp = np.asarray(rdp, dtype=float)
    d = np.asarray(delta, dtype=float)[..., None]
    with np.errstate(over="ignore", invalid="ignore"):
        e = conv(epsilon_alpha=rdp, alpha=orders, delta=d)
    e = np.asarray(e, dtype=float)
    if not (e.flags.owndata and e.flags.writeable):  # written in place below: never a view of an input
        e = e.copy()
    e[np.isnan(e)] = np.inf
    t = np.abs(e)
    t *= 4 * _U
    e += t  # rounding of the conversion goes the safe way
    return e


def _delta_values(rdp: Any, orders: np.ndarray, epsilon: Any) -> np.ndarray:
    """CKS delta at every order (last axis), rounded up; NaN -> inf.  Increasing in ``rdp``."""
    conv = _kernel("accounting.rdp_to_delta_cks", "numpy")
    rdp = np.asarray(rdp, dtype=float)
    e = np.asarray(epsilon, dtype=float)[..., None]
    with np.errstate(over="ignore", invalid="ignore"):
        d = conv(epsilon_alpha=rdp, alpha=orders, epsilon=e)
    # exp of a value carrying absolute error ~u*(alpha-1)*(|eps_alpha|+|eps|): relative margin on delta.  NaN -> inf
    # after the margin too: an infinite RDP value made it inf, and 0 * inf (a delta that underflowed) NaN, which
    # argmin picked and the cap at 1 kept (delta NaN at sigma 1e-300, q = 1)
    with np.errstate(invalid="ignore"):
        d = d * (1 + 8 * _U * (orders - 1) * (np.abs(rdp) + np.abs(e) + 1))
    return np.where(np.isnan(d), np.inf, d)


def rdp_to_epsilon(*, rdp: Any, orders: Any, delta: Any) -> tuple[np.ndarray, np.ndarray]:
    """Best (eps, order) over orders from composed RDP values (last axis) and delta (broadcast).

    Uses ``accounting.rdp_to_dp_cks``; eps is clamped at 0.
    """
    orders = np.asarray(orders, dtype=float)
    e = _eps_values(rdp, orders, delta)
    k = np.argmin(e, axis=-1)
    return _clamp("epsilon", np.take_along_axis(e, k[..., None], axis=-1)[..., 0]), orders[k]


def rdp_to_delta(*, rdp: Any, orders: Any, epsilon: Any) -> tuple[np.ndarray, np.ndarray]:
    """Best (delta, order) over orders for a target epsilon (``accounting.rdp_to_delta_cks``), capped at 1."""
    orders = np.asarray(orders, dtype=float)
    d = _delta_values(rdp, orders, epsilon)
    k = np.argmin(d, axis=-1)
    return _clamp("delta", np.take_along_axis(d, k[..., None], axis=-1)[..., 0]), orders[k]


def _clamp(kind: str, v: np.ndarray) -> np.ndarray:
    """The range of an answer: epsilon >= 0 (the CKS conversion can go negative), delta <= 1."""
    return np.maximum(v, 0.0) if kind == "epsilon" else np.minimum(v, 1.0)


CurveFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _best_over_grid(kind: str, curve: CurveFn, target: np.ndarray, n: int,
                    orders: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    conv = rdp_to_epsilon if kind == "epsilon" else rdp_to_delta
    key = "delta" if kind == "epsilon" else "epsilon"
    rows = np.arange(n)
    if orders is not None:
        return conv(rdp=curve(orders, rows), orders=orders, **{key: target})
    v, o = _default_grid_pruned(kind, curve, target, n)
    for edge, extra in ((DEFAULT_ORDERS[-1], LARGE_ORDERS), (DEFAULT_ORDERS[0], SMALL_ORDERS)):
        sel = np.nonzero(o == edge)[0]
        if len(sel):
            t = np.broadcast_to(target, (n,))[sel]
            v2, o2 = conv(rdp=curve(extra, sel), orders=extra, **{key: t})
            better = v2 < v[sel]
            v[sel[better]], o[sel[better]] = v2[better], o2[better]
    return v, o


_DEFAULT_INTS = _int_orders_needed(DEFAULT_ORDERS)
_DEFAULT_INT_COLS = np.nonzero(np.floor(DEFAULT_ORDERS) == DEFAULT_ORDERS)[0]
_DEFAULT_INT_SRC = np.searchsorted(_DEFAULT_INTS, DEFAULT_ORDERS[_DEFAULT_INT_COLS])
#: an RDP value at an integer order is an upper bound within this relative distance of the true value
#: (float rounding ~1e-15 plus the 1e-11 safety margin); dividing by it gives a lower bound
_LOWER_SLACK = 1e-9


#: integer orders of the default grid computed together; after each group, a configuration goes on to the
#: next only while some higher order's lower bound (convexity) can still beat its best value so far
_INT_GROUPS = [g for g in np.split(np.arange(len(_DEFAULT_INTS)), np.searchsorted(
    _DEFAULT_INTS, [13, 21, 33, 49, 65, 129, 257, 513], side="left")) if len(g)]
_FIRST_COLS = np.nonzero(DEFAULT_ORDERS < 12.5)[0]  # every fractional order and the integers of the first group
_FIRST_X = DEFAULT_ORDERS[_FIRST_COLS]
_FIRST_INT = np.nonzero(np.floor(_FIRST_X) == _FIRST_X)[0]
_FIRST_INT_SRC = np.searchsorted(_DEFAULT_INTS, _FIRST_X[_FIRST_INT])
#: rows (configurations) of the dense (rows x orders) stages of the order search computed together: temporaries of
#: ~1 MiB, which the allocator reuses (fresh memory's page faults cost as much as the arithmetic on 10^4 rows at once)
_DENSE_ROWS = 1024


def _row_blocks(n: int) -> list[slice]:
    return [slice(r, min(n, r + _DENSE_ROWS)) for r in range(0, n, _DENSE_ROWS)]
_FRAC_LO = np.floor(FRAC_ORDERS)
_FRAC_HI = _FRAC_LO + 1
#: integer positions (in _DEFAULT_INTS) of lo - 1 (when >= 2), lo (>= 2), hi and hi + 1 of every fractional order
_FRAC_IDX = {k: np.searchsorted(_DEFAULT_INTS, np.maximum(v, 2.0))
             for k, v in (("lm", _FRAC_LO - 1), ("lo", _FRAC_LO), ("hi", _FRAC_HI), ("hp", _FRAC_HI + 1))}


#: :func:`_frac_lower`'s (orders, configurations) layout: rows are the integers 0..12, fractional orders' columns
_FL_ROWS = 13
_FL_W = np.array([0.0, *range(0, _FL_ROWS - 1)])[:, None]  # k - 1 (0 for k = 0)
_FL_LO = _FRAC_LO.astype(np.intp)
_FL_HI = _FL_LO + 1
_FL_ALO = (FRAC_ORDERS - _FRAC_LO)[:, None]
_FL_AHI = (_FRAC_HI - FRAC_ORDERS)[:, None]
_FL_AM1 = (FRAC_ORDERS - 1)[:, None]
assert np.array_equal(_DEFAULT_INTS[:_FL_ROWS - 2], np.arange(2.0, _FL_ROWS)) and _FL_HI.max() + 1 < _FL_ROWS


def _frac_lower(r_int: np.ndarray, exact_convex: bool) -> np.ndarray:
    r"""Lower bounds on the curve at :data:`FRAC_ORDERS` from its values at the integer orders (n, len(_DEFAULT_INTS)).

    Always ``eps_alpha >= eps_floor(alpha)`` (RDP is nondecreasing in the order; 0 below 2).  For an exact
    curve (``exact_convex``: every integer value within :data:`_LOWER_SLACK` of the true RDP, whose
    ``g(alpha) = (alpha - 1) eps_alpha`` is convex with ``g(1) = 0``) also the two tangent bounds: with
    ``lo < alpha < hi = lo + 1``, ``g(alpha) >= g(lo) + (alpha - lo) (g(lo) - g(lo - 1))`` and
    ``g(alpha) >= g(hi) - (hi - alpha) (g(hi + 1) - g(hi))`` (a secant's slope bounds the derivative on
    the far side), each with the integer values rounded the safe way.
    """
    # computed in (orders, configurations) layout: every per-integer quantity once per integer order (13 rows:
    # integers 0..12, rows 0 and 1 zero), then gathered by whole rows; each value is the same float expression as
    # the per-fractional-order formula above, so the bounds are the same to the bit
    n = r_int.shape[0]
    low = np.zeros((_FL_ROWS, n))
    np.divide(r_int[:, :_FL_ROWS - 2].T, 1 + _LOWER_SLACK, out=low[2:])  # lower bounds at the integers
    lb = low[_FL_LO]
    if not exact_convex:
        return lb.T
    gl = low * _FL_W  # g(k) lower, g(0) = g(1) = 0
    gu = np.zeros((_FL_ROWS, n))
    np.multiply(r_int[:, :_FL_ROWS - 2].T, _FL_W[2:], out=gu[2:])  # g(k) upper
    d = gl[1:] - gu[:-1]  # row k - 1: g(k) - g(k - 1), the secant slope left of k
    e = gu[1:] - gl[:-1]  # row k: g(k + 1) - g(k), right of k
    left = _FL_ALO * d[_FL_LO - 1]
    left += gl[_FL_LO]
    right = _FL_AHI * e[_FL_HI]
    np.subtract(gl[_FL_HI], right, out=right)
    with np.errstate(invalid="ignore"):
        g = np.maximum(left, right, out=left)
        np.maximum(g, 0.0, out=g)
        fin = np.isfinite(g)
        np.divide(g, _FL_AM1, out=g)
        g[~fin] = 0.0
        return np.maximum(lb, g, out=lb).T


def _default_grid_pruned(kind: str, curve: CurveFn, target: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Best (value, order) over :data:`DEFAULT_ORDERS`, evaluating orders only where they can win.

    1. the composed curve at the integer orders (exact sums) and, at fractional orders, its convexity
       upper bound (``(alpha-1) eps_alpha`` is convex for every step, so for their sum): upper bounds
       everywhere, so their best conversion ``v`` is a valid answer.  For an exact curve
       (``curve.exact_convex``, e.g. the Poisson-subsampled Gaussian) the integer orders come in
       groups (:data:`_INT_GROUPS`); a configuration skips the higher groups once the convexity lower
       bound ``g(a) >= g(b) + (a - b) (g(b) - g(c))`` (``c < b`` its last two orders) converts above
       ``v`` at every higher order;
    2. a lower bound at each fractional order (:func:`_frac_lower`); the conversion increases with the
       RDP value;
    3. the exact curve (e.g. the MTZ fractional series) only at the fractional orders whose lower bound
       converts below ``v``; the others provably cannot give a smaller bound.
    The result equals the minimum over the full grid (never above it: the same upper bounds are
    compared; never below: every value used is an upper bound).
    """
    values = _eps_values if kind == "epsilon" else _delta_values
    exact = bool(getattr(curve, "exact_convex", False))
    rows = np.arange(n)
    if not exact:
        r_int = np.asarray(curve(_DEFAULT_INTS, rows), dtype=float).reshape(n, len(_DEFAULT_INTS))
        up = _interpolate(DEFAULT_ORDERS, _DEFAULT_INTS, r_int)
        up[:, _DEFAULT_INT_COLS] = r_int[:, _DEFAULT_INT_SRC]  # integer orders as computed (no second margin)
        vals = values(up, DEFAULT_ORDERS, target)
        k = np.argmin(vals, axis=-1)
        v = vals[rows, k]
        o = DEFAULT_ORDERS[k]
    else:
        r_int, v, o = _ladder(values, curve, target, n)
    # the candidates (configuration, fractional order): their lower bound converts below v; with those lower
    # conversions as a list in np.nonzero(cand)'s order (row by row, orders increasing)
    cand = np.empty((n, len(FRAC_ORDERS)), dtype=bool)
    lows = []
    for sl in _row_blocks(n):
        lc = values(_frac_lower(r_int[sl], exact), FRAC_ORDERS, target[sl])
        cand[sl] = lc < v[sl, None]
        lows.append(lc[cand[sl]])
    if cand.any():
        if exact and hasattr(curve, "rows_at"):
            low_cells = np.concatenate(lows)
            first = np.r_[0, np.cumsum(np.count_nonzero(cand, axis=1))]  # each row's first cell in low_cells
            for c0 in range(0, n, _BNB_CHUNK):  # bounded memory: ~2 KiB of search state per configuration
                sl = slice(c0, c0 + _BNB_CHUNK)
                c1 = min(n, c0 + _BNB_CHUNK)
                _refine_bnb(values, _Shifted(curve, c0), target[sl], cand[sl], v[sl], o[sl], r_int[sl],
                            low_cells[first[c0]:first[c1]])
        else:
            _refine_fractional(values, curve, target, cand, v, o)
    return _clamp(kind, v), o


def _ladder(values: Callable[..., np.ndarray], curve: CurveFn, target: np.ndarray,
            n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stage 1 of :func:`_default_grid_pruned` for an exact curve: (values at the first group's integer orders; v; o).

    The curve is called on every row (configuration) still active at once; the (rows x orders) arithmetic
    around it goes in blocks of :data:`_DENSE_ROWS` rows (row-wise: the same numbers)."""
    rows = np.arange(n)
    g0 = _INT_GROUPS[0]
    r0 = np.asarray(curve(_DEFAULT_INTS[g0], rows), dtype=float).reshape(n, len(g0))
    v, o = np.empty(n), np.empty(n)
    for sl in _row_blocks(n):
        up = _interpolate(_FIRST_X, _DEFAULT_INTS[g0], r0[sl])
        up[:, _FIRST_INT] = r0[sl][:, _FIRST_INT_SRC]
        vals = values(up, _FIRST_X, target[sl])
        k = np.argmin(vals, axis=-1)
        v[sl] = vals[np.arange(len(k)), k]
        o[sl] = _FIRST_X[k]
    done = [(rows, g0, r0)]  # per group computed: its rows, its columns (indices in _DEFAULT_INTS), the values

    def at(col: int, act: np.ndarray) -> np.ndarray:  # values of the rows ``act`` (all computed it) at column col
        for rws, grp, r in done:
            if grp[0] <= col <= grp[-1]:
                return r[np.searchsorted(rws, act), col - grp[0]]
        raise AssertionError(col)

    active = rows
    for gi in range(1, len(_INT_GROUPS)):
        prev = _INT_GROUPS[gi - 1]
        b, c = prev[-1], prev[-2] if len(prev) > 1 else _INT_GROUPS[gi - 2][-1]
        ab, ac = _DEFAULT_INTS[b], _DEFAULT_INTS[c]
        rest = _DEFAULT_INTS[b + 1:]
        rb, rc = at(b, active), at(c, active)
        keep = np.empty(len(active), dtype=bool)
        for sl in _row_blocks(len(active)):
            gb = (ab - 1) * rb[sl] / (1 + _LOWER_SLACK)
            slope = (gb - (ac - 1) * rc[sl]) / (ab - ac)
            with np.errstate(invalid="ignore", over="ignore"):
                g = np.maximum(gb[:, None] + (rest - ab)[None, :] * slope[:, None], (rest - 1)[None, :] * (gb / (ab - 1))[:, None])
                lb = np.where(np.isfinite(g), g / (rest - 1), 0.0)
            keep[sl] = np.any(values(lb, rest, target[active[sl]]) < v[active[sl], None], axis=1)
        active = active[keep]
        if not len(active):
            break
        grp = _INT_GROUPS[gi]
        r = np.asarray(curve(_DEFAULT_INTS[grp], active), dtype=float).reshape(len(active), len(grp))
        done.append((active, grp, r))
        for sl in _row_blocks(len(active)):
            vv = values(r[sl], _DEFAULT_INTS[grp], target[active[sl]])
            kk = np.argmin(vv, axis=-1)
            best = vv[np.arange(len(kk)), kk]
            ra = active[sl]
            better = best < v[ra]
            v[ra[better]], o[ra[better]] = best[better], _DEFAULT_INTS[grp][kk[better]]
    return r0, v, o


def _refine_fractional(values: Callable[..., np.ndarray], curve: CurveFn, target: np.ndarray, cand: np.ndarray,
                       v: np.ndarray, o: np.ndarray) -> None:
    """Stage 3 of :func:`_default_grid_pruned`: exact curve values at the candidate fractional orders (in place),
    one curve call per fractional order (for the configurations where it is a candidate), in increasing order."""
    for j in np.nonzero(cand.any(axis=0))[0]:
        sel = np.nonzero(cand[:, j])[0]
        a = FRAC_ORDERS[j:j + 1]
        vv = values(np.asarray(curve(a, sel), dtype=float).reshape(len(sel), 1), a, target[sel])[:, 0]
        better = vv < v[sel]
        v[sel[better]], o[sel[better]] = vv[better], a[0]


#: configurations searched together by :func:`_refine_bnb`
_BNB_CHUNK = 32768


class _Shifted:
    """A curve's ``rows_at`` / ``steps`` seen from row ``c0`` on (a chunk of the configurations)."""

    def __init__(self, curve: Any, c0: int) -> None:
        self.curve, self.c0 = curve, c0
        self.probes = bool(getattr(curve, "probes", False))

    def __call__(self, orders: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return np.asarray(self.curve(orders, rows + self.c0))

    def rows_at(self, alpha: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.curve.rows_at(alpha, rows + self.c0)

    def rows_at_skip(self, alpha: np.ndarray, rows: np.ndarray,
                     skip: SkipFn | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The curve's ``rows_at_skip`` where it has one; else ``rows_at`` (every row done)."""
        f = getattr(self.curve, "rows_at_skip", None)
        if f is None:
            up, low = self.curve.rows_at(alpha, rows + self.c0)
            return up, low, np.ones(len(rows), dtype=bool)
        return f(alpha, rows + self.c0, skip)

    def steps(self, rows: np.ndarray) -> np.ndarray:
        return np.asarray(self.curve.steps(rows + self.c0))


#: the orders of the best-first search: 1 (where g = 0 exactly), the fractional orders and the integers up to 12
_BNB_X = np.array(sorted({1.0, *FRAC_ORDERS.tolist(), *_DEFAULT_INTS[_INT_GROUPS[0]].tolist()}))
_BNB_FRAC = np.searchsorted(_BNB_X, FRAC_ORDERS)
_BNB_INT = np.searchsorted(_BNB_X, _DEFAULT_INTS[_INT_GROUPS[0]])
_BNB_XP = np.append(_BNB_X, np.nan)  # x of a column; index -1 and len(_BNB_X) (no column): NaN


class _Known:
    r"""Known brackets ``gl <= g(x_k) <= gu`` of the convex nondecreasing ``g(x) = (x - 1) eps_x`` at columns of
    :data:`_BNB_X` for ``m`` rows (configurations): ``x = 1`` (``g = 0``) and the integers 2..12 from the start, the
    fractional orders as the search evaluates them (:meth:`add`).  Stored as one sorted list of keys
    ``row * k + column`` with the brackets alongside (a dozen points a row, not a dense rows x 117 matrix): a cell's
    nearest known points are its neighbours in that list (``x = 1`` and ``x = 12`` are known in every row, so the
    first ones are always in its own row)."""

    def __init__(self, g_int: np.ndarray) -> None:
        m, k = g_int.shape[0], len(_BNB_X)
        self.k = k
        cols = np.r_[0, _BNB_INT]
        self.keys = (np.arange(m)[:, None] * k + cols[None, :]).ravel()
        z = np.zeros((m, 1))
        self.gu = np.hstack([z, g_int]).ravel()
        self.gl = np.hstack([z, g_int / (1 + _LOWER_SLACK)]).ravel()

    def add(self, r: np.ndarray, c: np.ndarray, gl: np.ndarray, gu: np.ndarray) -> None:
        """Columns ``c`` (unknown until now, one per row) of the increasing rows ``r`` become known."""
        nk = r * self.k + c
        pos = np.searchsorted(self.keys, nk)
        # np.insert(x, pos, new) for the three arrays (pos nondecreasing: nk increases), the slots computed once
        m = len(self.keys) + len(nk)
        at = pos + np.arange(len(nk))
        old = np.ones(m, dtype=bool)
        old[at] = False
        for name, v in (("keys", nk), ("gl", gl), ("gu", gu)):
            x = getattr(self, name)
            y = np.empty(m, dtype=x.dtype)
            y[old] = x
            y[at] = v
            setattr(self, name, y)

    def bounds(self, ri: np.ndarray, at: np.ndarray, lower: bool = True) -> tuple[np.ndarray | None, np.ndarray]:
        r"""(lower bound, chord) of ``g`` at the unknown cells ``(ri, at)``: with ``p2 < p1 < alpha < n1 < n2`` the nearest
        known points, ``g(alpha) >= g(p1) + (alpha - p1) (g(p1) - g(p2)) / (p1 - p2)`` (a secant extended beyond its
        interval lies below a convex function), ``g(alpha) >= g(n1) - (n1 - alpha) (g(n2) - g(n1)) / (n2 - n1)``, and
        ``eps_alpha >= eps_p1`` (RDP is nondecreasing in the order); each rounded the safe way (a relative ``1e-12``
        of the largest value involved taken off).  The chord of the known upper values through ``p1`` and ``n1`` lies
        above ``g`` (convexity); it only orders the search (:func:`_refine_bnb`).  ``lower=False``: the chord only."""
        k, keys = self.k, self.keys
        base = ri * k
        n1 = np.searchsorted(keys, base + at)  # the first known point after the cell (its row's x = 12 at the latest)
        p1 = n1 - 1
        xa, xp1, xn1 = _BNB_X[at], _BNB_X[keys[p1] - base], _BNB_X[keys[n1] - base]
        gp1u, gn1u = self.gu[p1], self.gu[n1]
        # the temporaries are written in place: the same operations on the same operands as the expressions in the
        # comments (xa - xp1 computed once for both)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            dxa = xa - xp1
            chord = gn1u - gp1u  # gp1u + (xa - xp1) (gn1u - gp1u) / (xn1 - xp1)
            chord *= dxa
            chord /= xn1 - xp1
            np.add(gp1u, chord, out=chord)
            if not lower:
                return None, chord
            # p2 / n2: the known points before p1 / after n1 if in the same row (else none: NaN)
            p2 = np.maximum(p1 - 1, 0)
            n2 = np.minimum(n1 + 1, len(keys) - 1)
            c2, d2 = keys[p2] - base, keys[n2] - base
            p2ok = (p1 >= 1) & (c2 >= 0)
            n2ok = (n1 + 1 < len(keys)) & (d2 < k)
            gp1, gn1 = self.gl[p1], self.gl[n1]
            gp2u, gn2u = self.gu[p2], self.gu[n2]
            gp2u[~p2ok] = np.nan
            gn2u[~n2ok] = np.nan
            xp2, xn2 = _BNB_XP[np.where(p2ok, c2, -1)], _BNB_XP[np.where(n2ok, d2, k)]
            left = np.subtract(gp1, gp2u, out=gp2u)  # gp1 + (xa - xp1) max(gp1 - gp2u, 0) / (xp1 - xp2)
            np.maximum(left, 0.0, out=left)
            left *= dxa
            left /= xp1 - xp2
            np.add(gp1, left, out=left)
            right = gn2u - gn1  # gn1 - (xn1 - xa) (gn2u - gn1) / (xn2 - xn1)
            right *= xn1 - xa
            right /= xn2 - xn1
            np.subtract(gn1, right, out=right)
            mono = np.where(xp1 > 1.0, (xa - 1) * gp1 / (xp1 - 1), 0.0)
            for v in (left, right, mono, gn2u, gn1):  # non-finite -> 0 (fresh arrays)
                v[~np.isfinite(v)] = 0.0
            b = np.maximum(left, right, out=left)  # max(max(left, right), mono)
            np.maximum(b, mono, out=b)
            scale = np.maximum(gn2u, gn1, out=gn2u)  # max(max(gn2u, gn1), b)
            np.maximum(scale, b, out=scale)
            scale *= 1e-12  # max(b - 1e-12 scale, 0)
            np.subtract(b, scale, out=scale)
            return np.maximum(scale, 0.0, out=scale), chord


def _refine_bnb(values: Callable[..., np.ndarray], curve: Any, target: np.ndarray, cand: np.ndarray,
                v: np.ndarray, o: np.ndarray, r_int: np.ndarray, low_conv: np.ndarray | None = None) -> None:
    """Stage 3 of :func:`_default_grid_pruned` (in place): :func:`_refine_probe_first` where the curve offers the
    series' probes (``curve.probes``), then :func:`_refine_exact` on the configurations it leaves; else
    :func:`_refine_exact` on all.  The same answers to the bit either way (those of :func:`_refine_fractional`)."""
    if not getattr(curve, "probes", False):
        _refine_exact(values, curve, target, cand, v, o, r_int, low_conv)
        return
    left = _refine_probe_first(values, curve, target, cand, v, o, r_int, low_conv)
    if left.any():
        sub = cand & left[:, None]
        lc = None if low_conv is None else np.asarray(low_conv, dtype=float)[left[np.nonzero(cand)[0]]]
        _refine_exact(values, curve, target, sub, v, o, r_int, lc)


def _g_low(alpha: np.ndarray, lo: np.ndarray, st: np.ndarray) -> np.ndarray:
    """A known point's lower ``g = (alpha - 1) RDP``, shaved (relative 1e-12, absolute ``steps`` x
    :data:`_FRAC_G_SLACK`): the lower bound both order searches keep for an order they visited."""
    return np.maximum((alpha - 1) * lo * (1 - 1e-12) - st * _FRAC_G_SLACK, 0.0)


def _row_picks(ri: np.ndarray, est: np.ndarray) -> np.ndarray:
    """Per row, the index of the open cell of lowest estimate ``est`` (non-finite last; ties: the first, i.e. the
    smallest order), for cells listed row by row with orders increasing (``ri``: their rows)."""
    ek = np.where(np.isfinite(est), est, np.finfo(float).max)
    starts = np.flatnonzero(np.r_[True, ri[1:] != ri[:-1]])
    at_min = np.flatnonzero(ek == np.repeat(np.minimum.reduceat(ek, starts), np.diff(np.r_[starts, len(ri)])))
    return at_min[np.r_[True, ri[at_min[1:]] != ri[at_min[:-1]]]]


def _refine_exact(values: Callable[..., np.ndarray], curve: Any, target: np.ndarray, cand: np.ndarray,
                  v: np.ndarray, o: np.ndarray, r_int: np.ndarray, low_conv: np.ndarray | None = None) -> None:
    """Stage 3 of :func:`_default_grid_pruned`, best first (in place): each configuration evaluates the candidate
    fractional order of lowest estimate, one vectorised ``curve.rows_at`` call per round for all configurations
    (each at its own order); the exact values (upper and lower) join the integer ones as known points of the
    convex ``g(alpha) = (alpha - 1) eps_alpha`` (:class:`_Known`), which tightens the lower bounds of the orders left,
    and a configuration stops when no order left converts below its best value.  ``low_conv``: lower bounds on the
    converted values of the candidates already known (those of :func:`_frac_lower`), in ``np.nonzero(cand)``'s order.

    The candidates (configuration, order) left are kept as a list with the best converted lower bound met so far
    (every bound met stays valid, and the best value only decreases): after each round a candidate is first
    dropped by that bound, and the convexity bounds are computed again only for the candidates it leaves.

    The answer is that of :func:`_refine_fractional` (every candidate in increasing order) to the bit: an order
    skipped has a lower bound converting at or above the final value, so its exact value does too; ties go
    to the smallest order, as there.
    """
    act = np.nonzero(cand.any(axis=1))[0]
    if not len(act):
        return
    steps = np.asarray(curve.steps(act), dtype=float)
    tg, vl, ol = target[act], v[act].copy(), o[act].copy()
    ri, cj = np.nonzero(cand[act])  # the open cells, row by row, orders increasing
    cb = np.full(len(ri), -np.inf) if low_conv is None else np.asarray(low_conv, dtype=float)
    assert len(cb) == len(ri)
    kn = _Known(r_int[act][:, _INT_GROUPS[0]] * (_DEFAULT_INTS[_INT_GROUPS[0]] - 1))
    refined = np.zeros(len(act), dtype=bool)
    a = FRAC_ORDERS[cj]
    _, chord = kn.bounds(ri, _BNB_FRAC[cj], lower=False)

    def conv(g: np.ndarray) -> np.ndarray:
        return values((g / (a - 1))[:, None], a[:, None], tg[ri])[:, 0]

    with np.errstate(invalid="ignore"):
        est = 0.75 * conv(chord) + 0.25 * cb

    def _picks_skip(r: np.ndarray, alpha: np.ndarray) -> SkipFn:
        def skip(i: np.ndarray, up_p: np.ndarray, lo_p: np.ndarray) -> np.ndarray:
            # the probe's lower bound, shaved as a known point's: a cell is dropped where it would be dropped as a
            # candidate (the keep rule below), so that its exact value could not have been better
            ri_, a_ = r[i], alpha[i]
            c = values((_g_low(a_, lo_p, steps[ri_]) / (a_ - 1))[:, None], a_[:, None], tg[ri_])[:, 0]
            return ~((c < vl[ri_]) | ((c == vl[ri_]) & refined[ri_] & (a_ < ol[ri_])) | np.isnan(c))
        return skip

    rows_at = curve.rows_at_skip if hasattr(curve, "rows_at_skip") else (
        lambda al, rw, _sk: (*curve.rows_at(al, rw), np.ones(len(rw), dtype=bool)))
    while len(ri):
        # per row, the open cell of lowest estimate 3/4 chord + 1/4 lower bound (converted; ties: the smallest order):
        # the cells come row by row, orders increasing, so the first cell equal to its row's minimum
        pick = _row_picks(ri, est)
        r, j = ri[pick], cj[pick]
        alpha = FRAC_ORDERS[j]
        up, lo, done = rows_at(alpha, act[r], _picks_skip(r, alpha))
        vv = values(up[:, None], alpha[:, None], tg[r])[:, 0]
        better = ((vv < vl[r]) | ((vv == vl[r]) & refined[r] & (alpha < ol[r]))) & done
        vl[r[better]], ol[r[better]] = vv[better], alpha[better]
        refined[r] |= better
        kn.add(r, _BNB_FRAC[j], _g_low(alpha, lo, steps[r]), (alpha - 1) * up)
        # drop the evaluated cells, then those whose best lower bound so far converts at or above the best value
        keep = np.ones(len(ri), dtype=bool)
        keep[pick] = False
        keep &= (cb < vl[ri]) | ((cb == vl[ri]) & refined[ri] & (a < ol[ri]))
        ri, cj, cb, a = ri[keep], cj[keep], cb[keep], a[keep]
        if not len(ri):
            break
        lb, chord = kn.bounds(ri, _BNB_FRAC[cj])
        assert lb is not None
        cb = np.maximum(cb, conv(lb))
        keep = (cb < vl[ri]) | ((cb == vl[ri]) & refined[ri] & (a < ol[ri]))
        ri, cj, cb, a, chord = ri[keep], cj[keep], cb[keep], a[keep], chord[keep]
        with np.errstate(invalid="ignore"):
            est = 0.75 * conv(chord) + 0.25 * cb
    v[act], o[act] = vl, ol


def _refine_probe_first(values: Callable[..., np.ndarray], curve: Any, target: np.ndarray, cand: np.ndarray,
                        v: np.ndarray, o: np.ndarray, r_int: np.ndarray,
                        low_conv: np.ndarray | None = None) -> np.ndarray:
    """Stage 3 of :func:`_default_grid_pruned` on the series' probes first (in place); returns the configurations
    (a mask of ``cand``'s rows) it leaves to :func:`_refine_exact`, their ``v`` and ``o`` untouched.

    1. The best-first search of :func:`_refine_exact` (the same picks, known points and convexity bounds), but each
       order visited gets only its probe's rigorous bracket (``curve.rows_at_skip`` with a skip that excludes every
       row; an order without a probe comes back in full): a configuration's best upper bound ``ub`` is the smallest
       converted upper value met (its ``v`` at first), and a candidate is left out once its converted lower bound is
       at or above ``ub``.
    2. The full series (``curve.rows_at_skip`` without skip: the values of :func:`_refine_exact` to the bit) only at
       the probed orders whose lower bound is not above ``ub``: usually one per configuration, where the
       exact search evaluates about two.
    3. The answer from the orders evaluated in full, by :func:`_refine_fractional`'s rule (the smallest converted
       value; the ladder's ``v`` on a tie, else the smallest order), kept only where every other candidate's lower
       bound (kept from the search: the last one met, or its probe's) converts above it, or equal to it and losing
       the tie.  Then no candidate left out can change the answer (its exact value converts at or above its lower
       bound), which is therefore that of :func:`_refine_fractional` to the bit; a configuration where a check
       fails (e.g. a full value above its probe's upper one) goes to :func:`_refine_exact`.
    """
    left = np.zeros(cand.shape[0], dtype=bool)
    act = np.nonzero(cand.any(axis=1))[0]
    if not len(act):
        return left
    steps = np.asarray(curve.steps(act), dtype=float)
    tg, ub = target[act], v[act].copy()
    ri, cj = np.nonzero(cand[act])  # the open cells, row by row, orders increasing
    cb = np.full(len(ri), -np.inf) if low_conv is None else np.array(low_conv, dtype=float)
    assert len(cb) == len(ri)
    kn = _Known(r_int[act][:, _INT_GROUPS[0]] * (_DEFAULT_INTS[_INT_GROUPS[0]] - 1))
    a = FRAC_ORDERS[cj]

    def conv(g: np.ndarray, al: np.ndarray, rr: np.ndarray) -> np.ndarray:
        return values((g / (al - 1))[:, None], al[:, None], tg[rr])[:, 0]

    _, chord = kn.bounds(ri, _BNB_FRAC[cj], lower=False)
    with np.errstate(invalid="ignore"):
        est = 0.75 * conv(chord, a, ri) + 0.25 * cb
    # cells (row, column of FRAC_ORDERS, value): left out with a lower bound; evaluated in full; probed (lower bound)
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    full: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    probed: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def every(i: np.ndarray, _u: np.ndarray, _lw: np.ndarray) -> np.ndarray:
        return np.ones(len(i), dtype=bool)

    store = _TermStore()  # the probes' terms, for the full series at the end (which starts from them)
    _carry(every, store)

    while len(ri):
        # per row, the open cell of lowest estimate (ties: the smallest order), as in _refine_exact; when few cells are
        # left, every one at once (one round instead of several of a few rows each, whose fixed costs dominate), then on
        # to the full series where a probe's lower bound is not above ub
        every_cell = len(ri) <= _PROBE_ALL_CELLS
        pick = np.arange(len(ri)) if every_cell else _row_picks(ri, est)
        r, j = ri[pick], cj[pick]
        alpha = a[pick]
        up, lo, done = curve.rows_at_skip(alpha, act[r], every)
        vv = values(up[:, None], alpha[:, None], tg[r])[:, 0]
        gl = _g_low(alpha, lo, steps[r])
        np.minimum.at(ub, r, vv)  # one cell per row, or every cell of a row
        full.append((r[done], j[done], vv[done]))
        nd = ~done
        probed.append((r[nd], j[nd], np.maximum(cb[pick][nd], conv(gl[nd], alpha[nd], r[nd]))))
        if every_cell:
            break
        kn.add(r, _BNB_FRAC[j], gl, (alpha - 1) * up)
        keep = np.ones(len(ri), dtype=bool)
        keep[pick] = False
        for it in range(2):
            if it:
                lb, chord = kn.bounds(ri, _BNB_FRAC[cj])
                assert lb is not None
                cb = np.maximum(cb, conv(lb, a, ri))
                keep = np.ones(len(ri), dtype=bool)
            drop = keep & (cb >= ub[ri])
            out.append((ri[drop], cj[drop], cb[drop]))
            keep &= ~drop
            ri, cj, cb, a = ri[keep], cj[keep], cb[keep], a[keep]
            if it:
                chord = chord[keep]
            if not len(ri):
                break
        if not len(ri):
            break
        with np.errstate(invalid="ignore"):
            est = 0.75 * conv(chord, a, ri) + 0.25 * cb

    def cat(x: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (np.concatenate([t[0] for t in x]).astype(np.intp), np.concatenate([t[1] for t in x]).astype(np.intp),
                np.concatenate([t[2] for t in x]).astype(float))

    pr_r, pr_j, pr_b = cat(probed)
    need = ~(pr_b > ub[pr_r])  # could be the answer (NaN: evaluated)
    out.append((pr_r[~need], pr_j[~need], pr_b[~need]))
    if need.any():
        r, j = pr_r[need], pr_j[need]
        alpha = FRAC_ORDERS[j]
        up, _, done = curve.rows_at_skip(alpha, act[r], _completing(store))  # excludes nothing: the full series
        vv = values(up[:, None], alpha[:, None], tg[r])[:, 0]
        full.append((r[done], j[done], vv[done]))
        left[act[r[~done]]] = True  # not evaluated in full after all (not expected): the exact search
    vl, ol = v[act].copy(), o[act].copy()
    refined = np.zeros(len(act), dtype=bool)
    fr, fj, fv = cat(full)
    if len(fr):
        srt = np.lexsort((fj, fr))  # row by row, orders increasing
        fr, fj, fv = fr[srt], fj[srt], fv[srt]
        best = np.full(len(act), np.inf)
        np.minimum.at(best, fr, fv)
        hit = np.flatnonzero(fv == best[fr])
        first = hit[np.r_[True, fr[hit[1:]] != fr[hit[:-1]]]] if len(hit) else hit  # each row's smallest order at its minimum
        rr = fr[first]
        better = fv[first] < vl[rr]
        vl[rr[better]], ol[rr[better]] = fv[first][better], FRAC_ORDERS[fj[first][better]]
        refined[rr[better]] = True
    xr, xj, xb = cat(out)
    # a cell left out is settled where its lower bound converts above the answer, or equal to it and losing the tie
    ok = (xb > vl[xr]) | ((xb == vl[xr]) & ~(refined[xr] & (FRAC_ORDERS[xj] < ol[xr])))
    left[act[xr[~ok]]] = True
    mine = ~left[act]
    v[act[mine]], o[act[mine]] = vl[mine], ol[mine]
    return left


#: :func:`_refine_probe_first` probes every open cell at once when this many or fewer are left (measured on the bench's
#: 10,000 configurations: the rounds of 1,212, 290, 57 and 13 open cells cost 8, 5, 3 and 3 ms, mostly fixed costs)
_PROBE_ALL_CELLS = 2048

#: absolute slack per step on a fractional order's lower bound ``g = (alpha - 1) eps_alpha`` (the series' lower
#: value is already rigorous; this covers the composition's rounding)
_FRAC_G_SLACK = 1e-15


def epsilon_for_curves(curve: CurveFn, delta: Any, n: int, orders: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Best (eps, order) for ``n`` configs from ``curve(orders, rows) -> composed RDP (len(rows), len(orders))``.

    With the default grid, rows whose best order is the largest (smallest) default order are
    re-evaluated on :data:`LARGE_ORDERS` (:data:`SMALL_ORDERS`); the smaller upper bound is kept.
    """
    return _best_over_grid("epsilon", curve, np.broadcast_to(np.asarray(delta, dtype=float), (n,)), n, orders)


def delta_for_curves(curve: CurveFn, epsilon: Any, n: int, orders: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Best (delta, order) like :func:`epsilon_for_curves`."""
    return _best_over_grid("delta", curve, np.broadcast_to(np.asarray(epsilon, dtype=float), (n,)), n, orders)


def sgm_rdp_fractional_series(*, noise_multiplier: float, sample_rate: float, alpha: float, terms: int = 2000) -> float:
    """The MTZ fractional-order series bound at one order (``inf`` where its truncation is not controlled).

    ``terms`` is kept for compatibility; the series is summed adaptively (see :func:`_frac_series_upper`).
    """
    return float(_frac_series_upper(float(noise_multiplier), float(sample_rate), np.array([float(alpha)]))[0])


__all__ = [
    "DEFAULT_ORDERS", "FRAC_ORDERS", "INT_ORDERS", "LARGE_ORDERS", "SMALL_ORDERS", "delta_for_curves",
    "epsilon_for_curves", "rdp_to_delta", "rdp_to_epsilon", "sgm_rdp", "sgm_rdp_fractional_series", "wor_rdp",
]
