r"""Renyi-DP accounting of DP-SGD, vectorised (numpy) and in torch.

Pure functions with keyword-only arguments; every formula is a library kernel:

* ``accounting.sgm_rdp_log_term`` -- one term of the sampled Gaussian RDP,
  integer order [Mironov, Talwar, Zhang 2019, Sec. 3.3]; the accountant takes
  ``logsumexp`` over ``j = 0..alpha``.
* ``accounting.gaussian_rdp`` -- ``q = 1`` (no subsampling) [Mironov 2017, Prop. 7].
* ``accounting.rdp_to_dp_cks`` / ``accounting.rdp_to_delta_cks`` -- conversion
  [Canonne, Kamath, Steinke 2020, Prop. 12], minimised over orders.
* ``accounting.wor_rdp_term2`` / ``accounting.wor_rdp_termj`` -- fixed-size
  sampling without replacement, replace-one adjacency [Wang, Balle,
  Kasiviswanathan 2019, Thm. 9].

Fractional orders are bounded rigorously from the integer ones:
``alpha -> (alpha - 1) D_alpha(P||Q)`` is convex (it is the log-moment
generating function of the privacy loss), so linear interpolation of
``(alpha - 1) eps_alpha`` between consecutive integer orders (and ``0`` at
``alpha = 1``) is an upper bound.  The exact fractional series of Mironov et
al. (``accounting.sgm_rdp_frac_term1/2``) is available as
:func:`sgm_rdp_fractional_series` and used in tests as the bracket below.

>>> import numpy as np
>>> r = sgm_rdp(noise_multiplier=1.1, sample_rate=256 / 60000, orders=np.array([2.0, 8.0]))
>>> bool(np.all(r > 0))
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.special as sps

from ._kernels import _kernel

#: integer orders evaluated exactly
INT_ORDERS = np.array(list(range(2, 41)) + [44, 48, 52, 56, 60, 64, 80, 96, 128, 192, 256], dtype=float)
#: fractional orders bounded by interpolation between integer orders
FRAC_ORDERS = np.array([1.05, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.75, 1.9] + [k + 0.5 for k in range(2, 20)], dtype=float)
DEFAULT_ORDERS = np.sort(np.concatenate([INT_ORDERS, FRAC_ORDERS]))

#: relative safety margin applied to every computed RDP value (float rounding goes the safe way)
_REL_MARGIN = 1e-11


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


def _sgm_rdp_int(sigma: np.ndarray, q: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """RDP of one Poisson-subsampled Gaussian step at integer orders; shape ``sigma.shape + (len(orders),)``."""
    term = _kernel("accounting.sgm_rdp_log_term", "numpy")
    gauss = _kernel("accounting.gaussian_rdp", "numpy")
    s = sigma[..., None]
    qq = np.minimum(q, np.nextafter(1.0, 0.0))[..., None]  # q = 1 handled below
    out = np.empty(sigma.shape + (len(orders),))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i, a in enumerate(orders):
            jj = np.arange(int(a) + 1, dtype=float)
            t = term(alpha=a, j=jj, q=qq, sigma=s)
            lse = _lse(t)
            out[..., i] = lse / (a - 1)
        full = gauss(alpha=orders, sigma=sigma[..., None])
    out = np.where((q >= 1.0)[..., None], full, out)
    out = np.maximum(out, 0.0)
    return out * (1 + _REL_MARGIN) + 1e-300


def _interpolate(orders: np.ndarray, int_orders: np.ndarray, rdp_int: np.ndarray) -> np.ndarray:
    """Upper bound at ``orders`` from exact values at integer orders by convexity of (alpha-1) eps_alpha."""
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


def sgm_rdp(*, noise_multiplier: Any, sample_rate: Any, orders: Any = None) -> np.ndarray:
    r"""RDP :math:`\epsilon_\alpha` of ONE Poisson-subsampled Gaussian step (add/remove adjacency).

    The sampled Gaussian's RDP of Mironov et al. is for the worse of the two
    directions at integer orders (their Thm 5 shows the remove direction
    dominates), so it covers add/remove adjacency.  Arrays broadcast; the
    result has one more trailing axis (orders).
    """
    orders = DEFAULT_ORDERS if orders is None else np.atleast_1d(np.asarray(orders, dtype=float))
    sigma, q = np.broadcast_arrays(np.asarray(noise_multiplier, dtype=float), np.asarray(sample_rate, dtype=float))
    int_orders = _int_orders_needed(orders)
    r = _sgm_rdp_int(sigma, q, int_orders)
    return _interpolate(orders, int_orders, r)


def wor_rdp(*, noise_multiplier: Any, sample_rate: Any, orders: Any = None) -> np.ndarray:
    r"""RDP of ONE step of fixed-size sampling without replacement (fraction ``gamma = m/n``), replace-one.

    [Wang, Balle, Kasiviswanathan 2019, Thm. 9] with the Gaussian base
    mechanism :math:`\epsilon(j) = j/(2\sigma^2)`, where ``noise_multiplier`` is
    the noise std divided by the *replace-one* L2 sensitivity (for summed
    per-example gradients clipped to C that sensitivity is 2C).  Integer orders
    >= 2; fractional orders by the convexity interpolation.
    """
    orders = DEFAULT_ORDERS if orders is None else np.atleast_1d(np.asarray(orders, dtype=float))
    sigma, g = np.broadcast_arrays(np.asarray(noise_multiplier, dtype=float), np.asarray(sample_rate, dtype=float))
    int_orders = _int_orders_needed(orders)
    t2 = _kernel("accounting.wor_rdp_term2", "numpy")
    tj = _kernel("accounting.wor_rdp_termj", "numpy")
    out = np.empty(sigma.shape + (len(int_orders),))
    with np.errstate(divide="ignore", over="ignore"):
        for i, a in enumerate(int_orders):
            parts = [np.zeros(sigma.shape + (1,)), np.asarray(t2(alpha=a, gamma=g, sigma=sigma))[..., None]]
            if a >= 3:
                jj = np.arange(3, int(a) + 1, dtype=float)
                parts.append(tj(alpha=a, j=jj, gamma=g[..., None], sigma=sigma[..., None]))
            allt = np.concatenate([np.broadcast_to(p, sigma.shape + (p.shape[-1],)) for p in parts], axis=-1)
            out[..., i] = _lse(allt) / (a - 1)
    out = out * (1 + _REL_MARGIN) + 1e-300
    return _interpolate(orders, int_orders, out)


def rdp_to_epsilon(*, rdp: Any, orders: Any, delta: Any) -> tuple[np.ndarray, np.ndarray]:
    """Best (eps, order) over orders from composed RDP values (last axis) and delta (broadcast).

    Uses ``accounting.rdp_to_dp_cks``; eps is clamped at 0.
    """
    conv = _kernel("accounting.rdp_to_dp_cks", "numpy")
    rdp = np.asarray(rdp, dtype=float)
    orders = np.asarray(orders, dtype=float)
    d = np.asarray(delta, dtype=float)[..., None]
    with np.errstate(over="ignore", invalid="ignore"):
        e = conv(epsilon_alpha=rdp, alpha=orders, delta=d)
    e = np.where(np.isnan(e), np.inf, e)
    k = np.argmin(e, axis=-1)
    best = np.take_along_axis(e, k[..., None], axis=-1)[..., 0]
    return np.maximum(best, 0.0), orders[k]


def rdp_to_delta(*, rdp: Any, orders: Any, epsilon: Any) -> tuple[np.ndarray, np.ndarray]:
    """Best (delta, order) over orders for a target epsilon (``accounting.rdp_to_delta_cks``), capped at 1."""
    conv = _kernel("accounting.rdp_to_delta_cks", "numpy")
    rdp = np.asarray(rdp, dtype=float)
    orders = np.asarray(orders, dtype=float)
    e = np.asarray(epsilon, dtype=float)[..., None]
    with np.errstate(over="ignore", invalid="ignore"):
        d = conv(epsilon_alpha=rdp, alpha=orders, epsilon=e)
    d = np.where(np.isnan(d), np.inf, d)
    k = np.argmin(d, axis=-1)
    best = np.take_along_axis(d, k[..., None], axis=-1)[..., 0]
    return np.minimum(best, 1.0), orders[k]


def sgm_rdp_fractional_series(*, noise_multiplier: float, sample_rate: float, alpha: float, terms: int = 2000) -> float:
    """Mironov-Talwar-Zhang fractional-order series (A_1 + A_2), truncated after ``terms`` terms.

    A numerical reference (the truncation is not bounded), used in tests to check that the
    interpolated upper bound of :func:`sgm_rdp` lies above it.
    """
    t1 = _kernel("accounting.sgm_rdp_frac_term1", "numpy")
    t2 = _kernel("accounting.sgm_rdp_frac_term2", "numpy")
    i = np.arange(terms, dtype=float)
    logb = sps.gammaln(alpha + 1) - sps.gammaln(i + 1) - sps.gammaln(alpha - i + 1)
    sign = sps.gammasgn(alpha - i + 1)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        l1 = logb + t1(alpha=alpha, j=i, q=sample_rate, sigma=noise_multiplier)
        l2 = logb + t2(alpha=alpha, j=i, q=sample_rate, sigma=noise_multiplier)
    lt = np.concatenate([l1, l2])
    sg = np.concatenate([sign, sign])
    ok = np.isfinite(lt)
    m = float(np.max(lt[ok]))
    s = float(np.sum(sg[ok] * np.exp(lt[ok] - m)))
    return float((np.log(s) + m) / (alpha - 1))


__all__ = [
    "DEFAULT_ORDERS", "FRAC_ORDERS", "INT_ORDERS", "rdp_to_delta", "rdp_to_epsilon", "sgm_rdp",
    "sgm_rdp_fractional_series", "wor_rdp",
]
