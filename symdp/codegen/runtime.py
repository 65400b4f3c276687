r"""Run-time helpers imported by the generated numpy and mpmath kernels (``_rt``).

Only what a printed expression cannot say inline lives here: argument
coercion and the cancellation-free Gaussian difference
:math:`G(a, b, d) = \Phi(a) - e^{d + (b^2 - a^2)/2}\Phi(b)` (see
:class:`symdp.codegen.functions.gauss_diff`).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import scipy.special as sc

__all__ = ["np_arg", "mp_arg", "np_gauss_diff", "mp_gauss_diff", "mp_logaddexp", "mp_ndtri"]

_INV_SQRT2 = 1.0 / math.sqrt(2.0)


def np_arg(x):
    """A float64 ndarray view of ``x`` (no copy when it already is one)."""
    return np.asarray(x, dtype=np.float64)


def mp_arg(x):
    """``x`` as an mpmath number (mpf for reals)."""
    return mp.mpmathify(x)


def np_gauss_diff(a, b, d):
    r""":math:`\Phi(a) - e^{d + (b^2-a^2)/2}\Phi(b)`, vectorised.

    For :math:`a \le 0` both terms carry the exact common factor :math:`e^{-a^2/2}`:
    :math:`\tfrac12 e^{-a^2/2}[\operatorname{erfcx}(-a/\sqrt2) - \operatorname{erfcx}(-b/\sqrt2)
    - \operatorname{expm1}(d)\operatorname{erfcx}(-b/\sqrt2)]`; for :math:`a > 0` the direct
    formula has no tail to lose.  Each branch only sees inputs valid for it.
    """
    a, b, d = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                                  np.asarray(d, dtype=np.float64))
    tail = a <= 0.0
    at = np.where(tail, a, 0.0)
    bt = np.where(tail, b, 0.0)
    dt = np.where(tail, d, 0.0)
    ea = sc.erfcx(-at * _INV_SQRT2)
    eb = sc.erfcx(-bt * _INV_SQRT2)
    t_val = 0.5 * np.exp(-0.5 * at * at) * ((ea - eb) - np.expm1(dt) * eb)
    ad = np.where(tail, 1.0, a)
    bd = np.where(tail, 1.0, b)
    dd = np.where(tail, 0.0, d)
    d_val = sc.ndtr(ad) - np.exp(dd + 0.5 * (bd - ad) * (bd + ad)) * sc.ndtr(bd)
    out = np.where(tail, t_val, d_val)
    return out if out.ndim else out[()]


def mp_gauss_diff(a, b, d):
    r""":math:`\Phi(a) - e^{d + (b^2-a^2)/2}\Phi(b)` with 30 guard digits (the difference cancels)."""
    with mp.extradps(30):
        a, b, d = mp.mpf(a), mp.mpf(b), mp.mpf(d)
        r = mp.ncdf(a) - mp.exp(d + (b * b - a * a) / 2) * mp.ncdf(b)
    return +r


def mp_logaddexp(a, b):
    r""":math:`\log(e^a + e^b)`."""
    a, b = mp.mpf(a), mp.mpf(b)
    if mp.isinf(a) and a < 0:
        return b
    if mp.isinf(b) and b < 0:
        return a
    m = max(a, b)
    return m + mp.log1p(mp.exp(-abs(a - b)))


def mp_ndtri(x):
    r""":math:`\Phi^{-1}(x) = \sqrt2\operatorname{erfinv}(2x - 1)`, with enough guard digits that
    ``2x - 1`` keeps every digit of a tiny ``x`` (or of ``1 - x``)."""
    x = mp.mpf(x)
    if x <= 0 or x >= 1:
        return mp.mpf("-inf") if x == 0 else (mp.mpf("inf") if x == 1 else mp.nan)
    small = min(x, 1 - x)
    extra = int(max(0, -mp.log10(small))) + 20
    with mp.extradps(extra):
        r = mp.sqrt(2) * mp.erfinv(2 * x - 1)
    return +r
