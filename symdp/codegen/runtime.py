r"""Run-time helpers imported by the generated numpy and mpmath kernels (``_rt``).

Only what a printed expression cannot say inline lives here: argument
coercion and the cancellation-free Gaussian difference
:math:`G(a, b, d) = \Phi(a) - e^{d + (b^2 - a^2)/2}\Phi(b)` (see
:class:`symdp.codegen.functions.gauss_diff`).
"""

from __future__ import annotations

import math

import numpy as np

from symdp import _special as sc  # numpy-only special functions (no scipy import on the accounting path)


class _LazyMpmath:
    """mpmath, imported on first use: the numpy kernels (the accountants' runtime path) never need it."""

    def __getattr__(self, name: str):
        import mpmath

        globals()["mp"] = mpmath
        return getattr(mpmath, name)


mp = _LazyMpmath()

__all__ = ["ip", "np_arg", "mp_arg", "np_gauss_diff", "mp_gauss_diff", "mp_logaddexp", "mp_ndtri", "mp_erfcx", "np_log1mexp", "mp_div",
           "np_erfcx_rem", "mp_erfcx_rem", "np_log1p_mix", "mp_log1p_mix", "np_log_ratio", "mp_xlogx"]

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
#: below this ``a`` the erfcx form is used (Phi(a) < 3e-7: tails, underflow, overflow of e^c);
#: above it the direct difference is as well conditioned and cheaper
_TAIL = -5.0


def ip(uf, x):
    """``uf(x)`` written into ``x`` when ``x`` is a float64 array temporary, else ``uf(x)``.

    The printer passes only freshly computed subexpressions (never an argument or a CSE temporary),
    so overwriting is safe; on 10^6 elements it saves allocating (and page-faulting) a new array.
    """
    if isinstance(uf, np.ufunc) and type(x) is np.ndarray and x.ndim and x.dtype == np.float64 and x.flags.writeable:
        return uf(x, out=x)
    return uf(x)


def np_arg(x):
    """A float64 ndarray view of ``x`` (no copy when it already is one)."""
    return np.asarray(x, dtype=np.float64)


def mp_arg(x):
    """``x`` as an mpmath number (mpf for reals)."""
    return mp.mpmathify(x)


def np_gauss_diff(a, b, d):
    r""":math:`\Phi(a) - e^{d + (b^2-a^2)/2}\Phi(b)`, vectorised.

    For :math:`a \le -5` both terms carry the exact common factor :math:`e^{-a^2/2}`:
    :math:`\tfrac12 e^{-a^2/2}[\operatorname{erfcx}(-a/\sqrt2) - \operatorname{erfcx}(-b/\sqrt2)
    - \operatorname{expm1}(d)\operatorname{erfcx}(-b/\sqrt2)]`; for :math:`a > -5` the direct
    formula has no tail to lose (same conditioning, no erfcx cost: on unsorted inputs scipy's erfcx
    costs ~2 ndtr, its Chebyshev table dispatch mispredicts).

    The direct formula is evaluated on every element (no gather/scatter of the bulk; its inf/NaN on
    tail elements is discarded), then only the tail elements are gathered and overwritten.
    """
    d_zero = np.ndim(d) == 0 and float(d) == 0.0
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if not d_zero:
        d = np.asarray(d, dtype=np.float64)
    scalar = a.ndim == 0 and b.ndim == 0 and np.ndim(d) == 0
    if scalar:
        a, b = a.reshape(1), b.reshape(1)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        c = 0.5 * (b - a) * (b + a)
        if not d_zero:
            c = c + d
        out = sc.ndtr(a) - np.exp(c) * sc.ndtr(b)
    tail = a <= _TAIL
    if not tail.any():
        return out[0] if scalar else out
    if tail.shape != out.shape or not out.flags.writeable:
        tail = np.broadcast_to(tail, out.shape)
        out = np.array(out, dtype=np.float64)
    idx = np.nonzero(tail)
    bt = np.broadcast_to(b, out.shape)[idx]
    at = np.broadcast_to(a, out.shape)[idx]
    dt = None if d_zero else np.broadcast_to(d, out.shape)[idx]
    out[idx] = _np_gauss_tail(at, bt, dt)
    return out[0] if scalar else out


def _np_gauss_tail(a, b, d):
    eb = sc.erfcx(b * -_INV_SQRT2)
    diff = sc.erfcx(a * -_INV_SQRT2) - eb
    if d is not None:
        diff = diff - np.expm1(d) * eb
    return 0.5 * np.exp(-0.5 * a * a) * diff


def mp_gauss_diff(a, b, d):
    r""":math:`\Phi(a) - e^{d + (b^2-a^2)/2}\Phi(b)` with 30 guard digits (the difference cancels).

    At :math:`a = -\infty` it is 0, the limit of the erfcx form the float kernels use
    (e.g. the mu-GDP profile at mu = 0).
    """
    with mp.extradps(30):
        a, b, d = mp.mpf(a), mp.mpf(b), mp.mpf(d)
        if mp.isinf(a) and a < 0:
            return mp.mpf(0)
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


def mp_erfcx(x):
    r""":math:`e^{x^2}\operatorname{erfc}(x)` (mpmath has the exponent range for both factors)."""
    x = mp.mpf(x)
    with mp.extradps(10):
        r = mp.exp(x * x) * mp.erfc(x)
    return +r


_LN2 = math.log(2.0)


def np_log1mexp(x):
    r""":math:`\log(1 - e^x)`, :math:`x \le 0` [Maechler 2012]."""
    x = np.asarray(x, dtype=np.float64)
    near = x > -_LN2
    if x.ndim == 0:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(-np.expm1(x)) if near else np.log1p(-np.exp(x))
    # each branch only on its own elements (gathered contiguous, as np.where's operand was): the same values
    out = np.empty(x.shape)
    far = ~near
    with np.errstate(divide="ignore", invalid="ignore"):
        if near.any():
            xn = x[near]
            out[near] = np.log(np.negative(np.expm1(xn, out=xn), out=xn), out=xn)
        if far.any():
            xf = x[far]
            out[far] = np.log1p(np.negative(np.exp(xf, out=xf), out=xf), out=xf)
    return out


def mp_div(a, b):
    """``a / b`` with IEEE-754 semantics at ``b == 0`` (+-inf, or nan for 0/0), as numpy and torch do,
    so degenerate parameters (mu = 0, q = 0, ...) give the same answer in every back-end."""
    if b == 0:
        if a == 0 or mp.isnan(a):
            return mp.nan
        return mp.inf if (a > 0) == (not str(b).startswith("-")) else -mp.inf
    return a / b


#: |x| below which :func:`np_erfcx_rem` sums the Taylor series of erfcx (terms n = 2..26)
ERFCX_REM_SERIES = 0.5
#: c_k = (-1)^n / Gamma(n/2 + 1) for n = k + 2, k = 0..24: erfcx(x) - 1 + 2x/sqrt(pi) = x^2 sum_k c_k x^k.
#: For |x| < 1/2 the first omitted term (n = 27) is < 2.2e-18 of the sum (alternating for x > 0, where
#: the sum is >= 0.62 x^2; positive terms for x < 0, where it is >= x^2).
ERFCX_REM_COEFFS = tuple(float((-1) ** n / math.gamma(n / 2 + 1)) for n in range(2, 27))
_TWO_OVER_SQRTPI = 2.0 / math.sqrt(math.pi)


def np_erfcx_rem(x):
    r""":math:`\operatorname{erfcx}(x) - 1 + 2x/\sqrt\pi`: Taylor series for :math:`|x| < 1/2`
    (the direct sum cancels to :math:`O(x^2)` there), the direct formula elsewhere."""
    x = np.asarray(x, dtype=np.float64)
    small = np.abs(x) < ERFCX_REM_SERIES
    xs = np.where(small, x, 0.0)
    acc = np.full_like(xs, ERFCX_REM_COEFFS[-1])
    for c in ERFCX_REM_COEFFS[-2::-1]:
        acc = acc * xs + c
    with np.errstate(over="ignore", invalid="ignore"):
        direct = (sc.erfcx(x) - 1.0) + _TWO_OVER_SQRTPI * x
    out = np.where(small, xs * xs * acc, direct)
    return out if out.ndim else out[()]


def mp_erfcx_rem(x):
    r""":math:`\operatorname{erfcx}(x) - 1 + 2x/\sqrt\pi` with guard digits for the :math:`O(x^2)` cancellation."""
    x = mp.mpf(x)
    if x == 0:
        return mp.mpf(0)
    extra = 20 + 2 * int(max(0, -mp.log10(abs(x))))
    with mp.extradps(extra):
        r = mp.exp(x * x) * mp.erfc(x) - 1 + 2 * x / mp.sqrt(mp.pi)
    return +r


def np_log1p_mix(q, a):
    r""":math:`\log(1 - q + q e^a)`: ``log1p(q expm1(a))`` where :math:`q\operatorname{expm1}(a) \ge -1/2`,
    ``logaddexp(log1p(-q), log(q) + a)`` where it is below (or overflows) and :math:`0 \le q \le 1`."""
    q = np.asarray(q, dtype=np.float64)
    a = np.asarray(a, dtype=np.float64)
    q, a = np.broadcast_arrays(q, a)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        u = q * np.expm1(a)
        out = np.log1p(u)
        lo = (q >= 0) & (q <= 1) & ((u < -0.5) | np.isinf(u))
        if lo.any():
            out = np.array(out, dtype=np.float64, ndmin=1)
            idx = np.nonzero(lo.reshape(out.shape))
            ql, al = q.reshape(out.shape)[idx], a.reshape(out.shape)[idx]
            out[idx] = np.logaddexp(np.log1p(-ql), np.log(ql) + al)
            out = out.reshape(u.shape)
    return out if out.ndim else out[()]


def mp_log1p_mix(q, a):
    r""":math:`\log(1 - q + q e^a)`, the same two branches as :func:`np_log1p_mix`."""
    q, a = mp.mpf(q), mp.mpf(a)
    u = q * mp.expm1(a)
    if 0 <= q <= 1 and (u < -0.5 or mp.isinf(u)):
        return mp_logaddexp(mp.log1p(-q) if q < 1 else mp.mpf("-inf"), mp.log(q) + a if q > 0 else mp.mpf("-inf"))
    return mp.log1p(u)


def np_log_ratio(a, b):
    r""":math:`\log(a/b)`: ``log1p((a - b)/b)`` for :math:`b/2 \le a \le 2b` (``a - b`` exact by
    Sterbenz's lemma; no 1-ulp rounding of the ratio near 1), ``log(a/b)`` elsewhere."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = (a >= 0.5 * b) & (a <= 2.0 * b)
        out = np.where(near, np.log1p((a - b) / b), np.log(a / b))
    return out if out.ndim else out[()]


def mp_xlogx(x):
    r""":math:`x \log x` with its limit 0 at :math:`x = 0`."""
    x = mp.mpf(x)
    return mp.mpf(0) if x == 0 else x * mp.log(x)
