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
MTZ series (where its truncation is controlled: the terms decay at least
like ``i^{-2}`` over the last window and the tail and rounding bounds, both
added, are below ``e^-20`` of the sum) and the convexity bound: ``alpha -> (alpha - 1) D_alpha`` is convex,
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
            for i, a in enumerate(orders):
                la = _sum_terms(lambda aa, jj: term(alpha=aa, j=jj, q=qq, sigma=s), float(a), sigma.shape, start=2)
                mag = sps.gammaln(a + 1) + a * (lq + l1q) + a * a / (2 * sigma**2) + 2 * math.log(a + 1) + 1
                err = 16 * _U * mag  # absolute error bound of log(A - 1)
                log_a = np.logaddexp(0.0, la + err)
                out[..., i] = log_a / (a - 1)
        else:
            out[...] = full
    out = np.where(sub[..., None], np.minimum(np.where(np.isnan(out), np.inf, out), full), full)  # both upper bounds
    out = np.maximum(out, 0.0)
    return out * (1 + _REL_MARGIN) + 1e-300


def _interpolate(orders: np.ndarray, int_orders: np.ndarray, rdp_int: np.ndarray) -> np.ndarray:
    """Upper bound at ``orders`` from upper bounds at integer orders by convexity of (alpha-1) eps_alpha."""
    idx = {float(a): i for i, a in enumerate(int_orders)}
    out = np.empty(rdp_int.shape[:-1] + (len(orders),))
    for i, a in enumerate(orders):
        if float(a) in idx:
            out[..., i] = rdp_int[..., idx[float(a)]]
            continue
        lo, hi = float(np.floor(a)), float(np.ceil(a))
        g_hi = (hi - 1) * rdp_int[..., idx[max(hi, 2.0)]]
        g_lo = (lo - 1) * rdp_int[..., idx[lo]] if lo >= 2 else 0.0 * g_hi
        th = (a - lo) / (hi - lo)
        out[..., i] = ((1 - th) * g_lo + th * g_hi) / (a - 1)
    return out * (1 + _REL_MARGIN)


def _frac_series_upper(sigma: float, q: float, alphas: np.ndarray) -> np.ndarray:
    """:func:`_frac_series_rows` for one (sigma, q) at several orders."""
    a = np.asarray(alphas, dtype=float)
    return _frac_series_rows(np.full(len(a), float(sigma)), np.full(len(a), float(q)), a)


#: rows of the fractional series summed together at 512 terms (temporaries of ~128 KiB stay in cache)
_SERIES_ROW_CHUNK = 256


#: log|binom(alpha, i)| and sign(binom(alpha, i)), i < n, per (alpha, n) already met (bounded: cleared when full)
_BINOM_CACHE: dict[tuple[float, int], tuple[np.ndarray, np.ndarray]] = {}
_BINOM_CACHE_MAX = 512


def _binom_rows(ua: np.ndarray, n: int, i: np.ndarray, lgi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log|binom|, sign) rows (len(ua), n) of the distinct orders ``ua``, each row computed by the same
    elementwise operations whether cached or not (so a value never depends on which other orders were met)."""
    miss = [x for x in ua.tolist() if (x, n) not in _BINOM_CACHE]
    if miss:
        if len(_BINOM_CACHE) + len(miss) > _BINOM_CACHE_MAX:
            _BINOM_CACHE.clear()
        ub = np.array(miss)[:, None]
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            lb = sps.gammaln(ub + 1) - lgi - sps.gammaln(ub - i + 1)
            sg = sps.gammasgn(ub - i + 1)
        if len(miss) <= _BINOM_CACHE_MAX:
            for k, x in enumerate(miss):
                _BINOM_CACHE[(x, n)] = (lb[k], sg[k])
        else:
            got = dict(zip(miss, zip(lb, sg)))
            return np.stack([got[x][0] for x in ua.tolist()]), np.stack([got[x][1] for x in ua.tolist()])
    rows = [_BINOM_CACHE[(x, n)] for x in ua.tolist()]
    return np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])


def _frac_series_rows(sigma: np.ndarray, q: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """:func:`_frac_series_bounds` without the lower bounds."""
    return _frac_series_bounds(sigma, q, alphas)[0]


def _frac_series_bounds(sigma: np.ndarray, q: np.ndarray, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Upper bounds on :math:`\epsilon_\alpha` from the MTZ fractional series, one per row ``(sigma, q, alpha)``
    (``inf`` where not controlled).

    ``A_alpha = sum_i binom(alpha, i) (e^{a_i} + e^{b_i})`` with ``a_i``, ``b_i`` the library terms
    ``accounting.sgm_rdp_frac_term1/2``; the signed sum is taken relative to its largest term, and
    the value used is ``log(S + tail + rounding) / (alpha - 1)``: ``tail = 2 (N+1) |t_N|`` (valid
    when the terms decay at least like ``i^{-2}``, checked over the last 64 terms: the
    ``|binom(alpha, i)|`` factor decays like ``i^{-alpha-1}`` and the Gaussian factors do not grow
    there), ``rounding = sum 8u(|log t_i| + log2 N + 4)|t_i|``.  Orders whose tail or rounding is not below ``e^-20``
    of the sum after :data:`_SERIES_MAX_TERMS` terms get ``inf`` (the caller keeps the convexity bound).
    Every row is computed by the same row-wise operations whatever the other rows are (a batch of
    configurations gives each one the value of its own call).

    Also returns lower bounds on the same :math:`\epsilon_\alpha` (``0`` where not controlled): the signed
    sum is at least ``S - tail - rounding``, and the float evaluation of ``log(S - tail - rnd) + m`` is
    shaved by ``8u`` times the magnitude of its parts (used by the order search, :func:`_refine_bnb`).
    """
    t1 = _kernel("accounting.sgm_rdp_frac_term1", "numpy")
    t2 = _kernel("accounting.sgm_rdp_frac_term2", "numpy")
    sigma, q, alphas = (np.asarray(v, dtype=float).ravel() for v in (sigma, q, alphas))
    out = np.full(len(alphas), np.inf)
    low = np.zeros(len(alphas))
    todo = np.arange(len(alphas))
    n = 512
    while len(todo) and n <= _SERIES_MAX_TERMS:
        i = np.arange(n, dtype=float)[None, :]
        lgi = sps.gammaln(i + 1)
        ok_all = np.zeros(len(todo), dtype=bool)
        chunk = max(1, _SERIES_ROW_CHUNK * 512 // n)
        for c0 in range(0, len(todo), chunk):
            rows = todo[c0:c0 + chunk]
            a, ss, qq = alphas[rows][:, None], sigma[rows][:, None], q[rows][:, None]
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
                # log|binom(alpha, i)| and its sign once per distinct order (rows of a batch share them)
                ua, ia = np.unique(a[:, 0], return_inverse=True)
                logb, sign = _binom_rows(ua, n, i, lgi)
                logb, sign = logb[ia.ravel()], sign[ia.ravel()]
                l1 = logb + t1(alpha=a, j=i, q=qq, sigma=ss)
                l2 = logb + t2(alpha=a, j=i, q=qq, sigma=ss)
                lmag = np.logaddexp(l1, l2)  # log |t_i| (both parts carry the same sign)
                lmag = np.where(np.isnan(lmag), -np.inf, lmag)
                m = np.max(lmag, axis=1, keepdims=True)
                w = np.exp(lmag - m)
                s = np.sum(sign * w, axis=1)
                last = lmag[:, -1] - m[:, 0]
                w_len = 64
                i0, i1 = n - 1 - w_len, n - 1
                decay = lmag[:, i1] - lmag[:, i0]
                fast = np.isneginf(lmag[:, i1]) | (decay <= -2.0 * math.log(i1 / i0))
                tail = 2.0 * n * np.exp(last)
                # pairwise summation (log2 n) plus each term's own error (exp of a log with error ~ u |log|)
                rel_err = 8.0 * _U * (np.abs(lmag) + math.log2(n) + 4.0)
                rnd = np.sum(np.where(np.isfinite(lmag), w * rel_err, 0.0), axis=1)
                ok = fast & (s > 0) & np.isfinite(m[:, 0]) & (tail + rnd <= math.exp(_SERIES_LOG_TOL) * np.abs(s))
                val = (np.log(s + tail + rnd) + m[:, 0]) / (a[:, 0] - 1)
                ls = np.log(s - tail - rnd)
                lv = (ls + m[:, 0]) - 8.0 * _U * (1.0 + np.abs(ls) + np.abs(m[:, 0]))
                lv = np.maximum(lv, 0.0) / (a[:, 0] - 1) * (1 - 8.0 * _U)
            out[rows[ok]] = val[ok]
            low[rows[ok]] = lv[ok]
            ok_all[c0:c0 + len(rows)] = ok
        todo = todo[~ok_all]
        n *= 4
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
        pairs, inv = np.unique(np.stack([flat_s, flat_q], 1), axis=0, return_inverse=True)
        inv = inv.ravel()
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


def sgm_rdp_rows(sigma: Any, q: Any, alpha: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""Per-row RDP of one Poisson-subsampled Gaussian step at a fractional order per row: (upper, lower).

    ``upper[i]`` is, to the bit, ``sgm_rdp(noise_multiplier=sigma[i], sample_rate=q[i], orders=[alpha[i]])``
    (the same row-wise operations: integer orders ``floor``/``ceil`` of ``alpha``, their convexity
    interpolation, the MTZ series, the smaller kept), computed for rows of different orders in one
    vectorised pass.  ``lower[i] <= eps_alpha`` is the series' lower bound (``0`` where the series is not
    controlled; the Gaussian's own RDP, shaved, at ``q = 1``).  Orders must be non-integers.
    """
    s, qq, a = (np.asarray(v, dtype=float).ravel() for v in np.broadcast_arrays(sigma, q, alpha))
    if np.any(a == np.floor(a)) or np.any(a <= 1.0):
        raise InvalidParameterError("sgm_rdp_rows takes fractional orders > 1 only")
    up, low = np.empty(len(a)), np.zeros(len(a))
    lo, hi = np.floor(a), np.ceil(a)
    # the convexity interpolation of sgm_rdp (_interpolate over _int_orders_needed([alpha])), per group of rows
    for k in np.unique(lo):
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
    if len(sub):
        pairs, inv = np.unique(np.stack([s[sub], qq[sub], a[sub]], 1), axis=0, return_inverse=True)
        v, lw = _frac_series_bounds(pairs[:, 0], pairs[:, 1], pairs[:, 2])
        inv = inv.ravel()
        vals[sub] = (v * (1 + _REL_MARGIN) + 1e-300)[inv]
        low[sub] = lw[inv]
    return np.minimum(up, vals), low


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
    e = np.where(np.isnan(e), np.inf, e)
    return e + 4 * _U * np.abs(e)  # rounding of the conversion goes the safe way


def _delta_values(rdp: Any, orders: np.ndarray, epsilon: Any) -> np.ndarray:
    """CKS delta at every order (last axis), rounded up; NaN -> inf.  Increasing in ``rdp``."""
    conv = _kernel("accounting.rdp_to_delta_cks", "numpy")
    rdp = np.asarray(rdp, dtype=float)
    e = np.asarray(epsilon, dtype=float)[..., None]
    with np.errstate(over="ignore", invalid="ignore"):
        d = conv(epsilon_alpha=rdp, alpha=orders, epsilon=e)
    d = np.where(np.isnan(d), np.inf, d)
    # exp of a value carrying absolute error ~u*(alpha-1)*(|eps_alpha|+|eps|): relative margin on delta
    return d * (1 + 8 * _U * (orders - 1) * (np.abs(rdp) + np.abs(e) + 1))


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
_FRAC_LO = np.floor(FRAC_ORDERS)
_FRAC_HI = _FRAC_LO + 1
#: integer positions (in _DEFAULT_INTS) of lo - 1 (when >= 2), lo (>= 2), hi and hi + 1 of every fractional order
_FRAC_IDX = {k: np.searchsorted(_DEFAULT_INTS, np.maximum(v, 2.0))
             for k, v in (("lm", _FRAC_LO - 1), ("lo", _FRAC_LO), ("hi", _FRAC_HI), ("hp", _FRAC_HI + 1))}


def _frac_lower(r_int: np.ndarray, exact_convex: bool) -> np.ndarray:
    r"""Lower bounds on the curve at :data:`FRAC_ORDERS` from its values at the integer orders (n, len(_DEFAULT_INTS)).

    Always ``eps_alpha >= eps_floor(alpha)`` (RDP is nondecreasing in the order; 0 below 2).  For an exact
    curve (``exact_convex``: every integer value within :data:`_LOWER_SLACK` of the true RDP, whose
    ``g(alpha) = (alpha - 1) eps_alpha`` is convex with ``g(1) = 0``) also the two tangent bounds: with
    ``lo < alpha < hi = lo + 1``, ``g(alpha) >= g(lo) + (alpha - lo) (g(lo) - g(lo - 1))`` and
    ``g(alpha) >= g(hi) - (hi - alpha) (g(hi + 1) - g(hi))`` (a secant's slope bounds the derivative on
    the far side), each with the integer values rounded the safe way.
    """
    lo_ok = _FRAC_LO >= 2
    low = r_int / (1 + _LOWER_SLACK)  # lower bounds at the integers
    lb = np.where(lo_ok, low[:, _FRAC_IDX["lo"]], 0.0)
    if not exact_convex:
        return lb
    a = FRAC_ORDERS
    gl = lambda k, v: (v - 1) * low[:, _FRAC_IDX[k]]  # noqa: E731
    gu = lambda k, v: (v - 1) * r_int[:, _FRAC_IDX[k]]  # noqa: E731
    g_lo = np.where(lo_ok, gl("lo", _FRAC_LO), 0.0)
    g_lm = np.where(_FRAC_LO >= 3, gu("lm", _FRAC_LO - 1), 0.0)  # g(1) = 0 exactly
    left = g_lo + (a - _FRAC_LO) * np.where(lo_ok, g_lo - g_lm, 0.0)
    g_hi = gl("hi", _FRAC_HI)
    right = g_hi - (_FRAC_HI - a) * (gu("hp", _FRAC_HI + 1) - g_hi)
    with np.errstate(invalid="ignore"):
        g = np.maximum(np.maximum(left, right), 0.0)
        return np.maximum(lb, np.where(np.isfinite(g), g / (a - 1), 0.0))


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
    cand = values(_frac_lower(r_int, exact), FRAC_ORDERS, target) < v[:, None]
    if cand.any():
        if exact and hasattr(curve, "rows_at"):
            for c0 in range(0, n, _BNB_CHUNK):  # bounded memory: ~2 KiB of search state per configuration
                sl = slice(c0, c0 + _BNB_CHUNK)
                _refine_bnb(values, _Shifted(curve, c0), target[sl], cand[sl], v[sl], o[sl], r_int[sl])
        else:
            _refine_fractional(values, curve, target, cand, v, o)
    return _clamp(kind, v), o


def _ladder(values: Callable[..., np.ndarray], curve: CurveFn, target: np.ndarray,
            n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stage 1 of :func:`_default_grid_pruned` for an exact curve: (integer values, NaN where skipped; v; o)."""
    rows = np.arange(n)
    r_int = np.full((n, len(_DEFAULT_INTS)), np.nan)
    g0 = _INT_GROUPS[0]
    r_int[:, g0] = np.asarray(curve(_DEFAULT_INTS[g0], rows), dtype=float).reshape(n, len(g0))
    up = _interpolate(DEFAULT_ORDERS[_FIRST_COLS], _DEFAULT_INTS[g0], r_int[:, g0])
    first_int = np.floor(DEFAULT_ORDERS[_FIRST_COLS]) == DEFAULT_ORDERS[_FIRST_COLS]
    up[:, first_int] = r_int[:, np.searchsorted(_DEFAULT_INTS, DEFAULT_ORDERS[_FIRST_COLS][first_int])]
    vals = values(up, DEFAULT_ORDERS[_FIRST_COLS], target)
    k = np.argmin(vals, axis=-1)
    v = vals[rows, k]
    o = DEFAULT_ORDERS[_FIRST_COLS][k]
    active = rows
    for gi in range(1, len(_INT_GROUPS)):
        done = _INT_GROUPS[gi - 1]
        b, c = done[-1], done[-2] if len(done) > 1 else _INT_GROUPS[gi - 2][-1]
        ab, ac = _DEFAULT_INTS[b], _DEFAULT_INTS[c]
        rest = _DEFAULT_INTS[b + 1:]
        gb = (ab - 1) * r_int[active, b] / (1 + _LOWER_SLACK)
        slope = (gb - (ac - 1) * r_int[active, c]) / (ab - ac)
        with np.errstate(invalid="ignore", over="ignore"):
            g = np.maximum(gb[:, None] + (rest - ab)[None, :] * slope[:, None], (rest - 1)[None, :] * (gb / (ab - 1))[:, None])
            lb = np.where(np.isfinite(g), g / (rest - 1), 0.0)
        keep = np.any(values(lb, rest, target[active]) < v[active, None], axis=1)
        active = active[keep]
        if not len(active):
            break
        grp = _INT_GROUPS[gi]
        r = np.asarray(curve(_DEFAULT_INTS[grp], active), dtype=float).reshape(len(active), len(grp))
        r_int[np.ix_(active, grp)] = r
        vv = values(r, _DEFAULT_INTS[grp], target[active])
        kk = np.argmin(vv, axis=-1)
        best = vv[np.arange(len(active)), kk]
        better = best < v[active]
        v[active[better]], o[active[better]] = best[better], _DEFAULT_INTS[grp][kk[better]]
    return r_int, v, o


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

    def __call__(self, orders: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return np.asarray(self.curve(orders, rows + self.c0))

    def rows_at(self, alpha: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.curve.rows_at(alpha, rows + self.c0)

    def steps(self, rows: np.ndarray) -> np.ndarray:
        return np.asarray(self.curve.steps(rows + self.c0))


#: the orders of the best-first search: 1 (where g = 0 exactly), the fractional orders and the integers up to 12
_BNB_X = np.array(sorted({1.0, *FRAC_ORDERS.tolist(), *_DEFAULT_INTS[_INT_GROUPS[0]].tolist()}))
_BNB_FRAC = np.searchsorted(_BNB_X, FRAC_ORDERS)
_BNB_INT = np.searchsorted(_BNB_X, _DEFAULT_INTS[_INT_GROUPS[0]])


def _convex_lower(x: np.ndarray, gl: np.ndarray, gu: np.ndarray, known: np.ndarray, ri: np.ndarray,
                  at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""(lower bound, chord) of a convex nondecreasing ``g`` (``g(x) = (x - 1) eps_x``) at the cells ``(ri, at)`` of rows of
    known brackets ``gl <= g(x_k) <= gu`` (where ``known``): with ``p2 < p1 < alpha < n1 < n2`` the nearest known
    points, ``g(alpha) >= g(p1) + (alpha - p1) (g(p1) - g(p2)) / (p1 - p2)`` (a secant extended beyond its
    interval lies below a convex function), ``g(alpha) >= g(n1) - (n1 - alpha) (g(n2) - g(n1)) / (n2 - n1)``,
    and ``eps_alpha >= eps_p1`` (RDP is nondecreasing in the order); each rounded the safe way (a relative
    ``1e-12`` of the largest value involved taken off).  The chord of the known upper values through ``p1`` and
    ``n1`` lies above ``g`` (convexity); it only orders the search (:func:`_refine_bnb`)."""
    m, k = known.shape
    idx = np.arange(k)
    # last known column < each column, first known column > each column (-1 / k: none)
    acc = np.maximum.accumulate(np.where(known, idx, -1), axis=1)
    nacc = np.minimum.accumulate(np.where(known, idx, k)[:, ::-1], axis=1)[:, ::-1]
    prv = np.concatenate([np.full((m, 1), -1), acc[:, :-1]], axis=1)
    nxt = np.concatenate([nacc[:, 1:], np.full((m, 1), k)], axis=1)
    prv_p, nxt_p = np.concatenate([prv, np.full((m, 1), -1)], axis=1), np.concatenate([nxt, np.full((m, 1), k)], axis=1)
    p1, n1 = prv[ri, at], nxt[ri, at]
    p2, n2 = prv_p[ri, np.where(p1 < 0, k, p1)], nxt_p[ri, np.where(n1 >= k, k, n1)]
    xp = np.append(x, np.nan)
    glp, gup = np.concatenate([gl, np.full((m, 1), np.nan)], axis=1), np.concatenate([gu, np.full((m, 1), np.nan)], axis=1)
    cl = lambda j: np.where((j < 0) | (j >= k), k, j)  # noqa: E731
    xa = x[at]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        gp1, gp2u, gn1, gn2u = glp[ri, cl(p1)], gup[ri, cl(p2)], glp[ri, cl(n1)], gup[ri, cl(n2)]
        xp1, xp2, xn1, xn2 = xp[cl(p1)], xp[cl(p2)], xp[cl(n1)], xp[cl(n2)]
        left = gp1 + (xa - xp1) * np.maximum(gp1 - gp2u, 0.0) / (xp1 - xp2)
        right = gn1 - (xn1 - xa) * (gn2u - gn1) / (xn2 - xn1)
        mono = np.where(xp1 > 1.0, (xa - 1) * gp1 / (xp1 - 1), 0.0)
        fin = lambda v: np.where(np.isfinite(v), v, 0.0)  # noqa: E731
        b = np.maximum(np.maximum(fin(left), fin(right)), fin(mono))
        scale = np.maximum(np.maximum(fin(gn2u), fin(gn1)), b)
        gp1u, gn1u = gup[ri, cl(p1)], gup[ri, cl(n1)]
        chord = gp1u + (xa - xp1) * (gn1u - gp1u) / (xn1 - xp1)
        return np.maximum(b - 1e-12 * scale, 0.0), chord


def _refine_bnb(values: Callable[..., np.ndarray], curve: Any, target: np.ndarray, cand: np.ndarray,
                v: np.ndarray, o: np.ndarray, r_int: np.ndarray) -> None:
    """Stage 3 of :func:`_default_grid_pruned`, best first (in place): each configuration evaluates the candidate
    fractional order whose lower bound converts lowest, one vectorised ``curve.rows_at`` call per round for all
    configurations (each at its own order); the exact values (upper and lower) join the integer ones as known
    points of the convex ``g(alpha) = (alpha - 1) eps_alpha``, which tightens the lower bounds of the orders
    left (:func:`_convex_lower`), and a configuration stops when no order left converts below its best value.

    The answer is that of :func:`_refine_fractional` (every candidate in increasing order) to the bit: an order
    skipped has a lower bound converting at or above the final value, so its exact value does too; ties go
    to the smallest order, as there.
    """
    steps = np.asarray(curve.steps(np.arange(len(v))), dtype=float)
    act = np.nonzero(cand.any(axis=1))[0]
    m = len(act)
    kx = len(_BNB_X)
    known = np.zeros((m, kx), dtype=bool)
    gl, gu = np.zeros((m, kx)), np.zeros((m, kx))
    known[:, 0] = True  # g(1) = 0
    gi = r_int[act][:, _INT_GROUPS[0]] * (_DEFAULT_INTS[_INT_GROUPS[0]] - 1)
    gu[:, _BNB_INT], gl[:, _BNB_INT], known[:, _BNB_INT] = gi, gi / (1 + _LOWER_SLACK), True
    left = cand[act].copy()
    refined = np.zeros(m, dtype=bool)
    a_all = FRAC_ORDERS
    while m:
        ri, cj = np.nonzero(left)  # the cells still open
        a = a_all[cj]
        rows_c = act[ri]
        lb, chord = _convex_lower(_BNB_X, gl, gu, known, ri, _BNB_FRAC[cj])
        c = values((lb / (a - 1))[:, None], a[:, None], target[rows_c])[:, 0]
        vr, orr = v[rows_c], o[rows_c]
        keep = (c < vr) | ((c == vr) & refined[ri] & (a < orr))
        left[ri[~keep], cj[~keep]] = False
        # the order evaluated next: the lowest estimate 3/4 chord + 1/4 lower bound (converted); 3.0 series rows per
        # configuration on the benchmark's distinct shape, against 4.3 by the lower bound alone
        with np.errstate(invalid="ignore"):
            est = 0.75 * values((chord / (a - 1))[:, None], a[:, None], target[rows_c])[:, 0] + 0.25 * c
        cm = np.full(left.shape, np.inf)
        cm[ri[keep], cj[keep]] = np.where(np.isfinite(est[keep]), est[keep], np.finfo(float).max)
        go = left.any(axis=1)
        if not go.all():
            act, known, gl, gu, left, refined, cm = act[go], known[go], gl[go], gu[go], left[go], refined[go], cm[go]
            m = int(go.sum())
            if not m:
                break
        rows = act
        j = np.argmin(cm, axis=1)
        alpha = a_all[j]
        up, lo = curve.rows_at(alpha, rows)
        vv = values(up[:, None], alpha[:, None], target[rows])[:, 0]
        better = (vv < v[rows]) | ((vv == v[rows]) & refined & (alpha < o[rows]))
        v[rows[better]], o[rows[better]] = vv[better], alpha[better]
        refined |= better
        col = _BNB_FRAC[j]
        r = np.arange(m)
        known[r, col] = True
        gu[r, col] = (alpha - 1) * up
        gl[r, col] = np.maximum((alpha - 1) * lo * (1 - 1e-12) - steps[rows] * _FRAC_G_SLACK, 0.0)
        left[r, j] = False


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
