r"""Special functions on numpy alone, for the accounting path (no ``scipy.special`` import).

``import scipy.special`` costs about 0.25 s (it loads scipy's array-API layer); ``scipy.fft`` more.
The accountants need only a handful of functions, vectorised over float64 arrays; they are here,
with the algorithms of the libraries they replace:

* :func:`erf`, :func:`erfc`, :func:`erfcx`, :func:`ndtr`: the rational approximations of Cephes
  (S. L. Moshier, ``ndtr.c``; the coefficients scipy's ``xsf::cephes`` uses) below 16, the asymptotic
  series of erfcx (at most 11 terms there) above, with the factor
  :math:`e^{-x^2}` computed from an exact split of :math:`x^2` (Cephes ``expx2``), so large
  arguments keep full relative accuracy (scipy's ``ndtr`` does not split: up to ~1e-13 relative at
  :math:`|x| \approx 37`);
* :func:`log_ndtr`: scipy's scheme (``log1p(-ndtr(-x))`` above 6, ``log(ndtr(x))`` down to -20,
  the asymptotic series of Mills' ratio below, 12 terms: truncation below 1e-18 relative);
* :func:`ndtri`: Wichura's AS241 (PPND16), the algorithm of :class:`statistics.NormalDist`
  (relative accuracy about 1e-16);
* :func:`gammaln`: log-factorials of the exact integers for positive integers up to 1024, Cephes
  ``lgam`` (recurrence into [2, 3) and its rational approximation) below 13, the Stirling series
  with 7 correction terms above, reflection for negative arguments; :func:`gammasgn`, :func:`xlogy`.

Accuracy against 50-digit mpmath is asserted in ``tests/test_special.py`` (and against scipy where
it is the reference).  Anything else (``gamma``, ``erfinv``, ...) is looked up in ``scipy.special``
on first use (module ``__getattr__``), so code written against ``scipy.special as sc`` keeps working.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["erf", "erfc", "erfcx", "gammaln", "gammasgn", "log_ndtr", "ndtr", "ndtri", "upper_quantile", "xlogy"]

# Cephes ndtr.c coefficients (erfc on [1, 8): P/Q; erf on [0, 1]: T/U); R/S below
_P = (2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
      4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
      9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2)
_Q = (1.0, 1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
      9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3,
      1.65666309194161350182E3, 5.57535340817727675546E2)
_T = (9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
      7.00332514112805075473E3, 5.55923013010394962768E4)
_U = (1.0, 3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
      2.26290000613890934246E4, 4.92673942608635921086E4)

_SQRTH = 0.70710678118654752440  # 1/sqrt(2)
_INV_SQRTPI = 0.56418958354775628695


def _poly(c: tuple[float, ...], x: np.ndarray) -> np.ndarray:
    """Horner, in place: c[0] x^n + ... + c[n]."""
    y = np.empty_like(x)
    y.fill(c[0])
    for a in c[1:]:
        np.multiply(y, x, out=y)
        np.add(y, a, out=y)
    return y


def _f64(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _out(y: np.ndarray, like: Any) -> Any:
    y = y.reshape(np.shape(like))
    return y[()] if y.ndim == 0 else y


def _split_exp(x: np.ndarray, scale: float) -> np.ndarray:
    r""":math:`e^{-s x^2}` (s = 1 or 1/2) without amplifying the rounding of :math:`x^2`: Dekker's exact
    product :math:`x^2 = p + e` (p the rounded square, e its error), then :math:`e^{-sp}(1 - se)`
    (:math:`|se| < 2^{-50}`, so the first-order factor is exact to double precision).  A plain
    ``exp(-s*x*x)`` is off by up to :math:`s x^2 2^{-53}` relative (3.5e-15 at x = 8, 1e-13 at 37)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        c = x * 134217729.0  # 2^27 + 1
        hi = c - (c - x)
        lo = x - hi
        p = x * x
        e = hi * hi - p
        e += 2.0 * hi * lo
        e += lo * lo
        y = np.exp((-scale) * p)
        e *= -scale
        e += 1.0
        y *= e
        bad = ~(np.abs(x) < 1e150)  # the split overflows; e^{-s x^2} is 0 there (NaN stays NaN)
        if bad.any():
            y[bad] = np.where(np.isnan(x[bad]), np.nan, 0.0)
    return y


# Cephes erfc on [8, inf): R/S (used up to 16; the asymptotic series beyond, where it needs <= 11 terms)
_R = (0.0, 5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
      6.16021097993053585195E0, 7.40974269950448939160E0, 2.97886665372100240670E0)
_S = (1.0, 2.26052863220117276590E0, 9.39603524938001434673E0, 1.20489539808096656605E1,
      1.70814450747565897222E1, 9.60896809063285878198E0, 3.36907645100081516050E0)
_PQ = np.array([_P, _Q]).T[:, :, None]  # (9, 2, 1): both Horner recurrences in one pass
_RS = np.array([_R, _S]).T[:, :, None]  # (7, 2, 1)
_ASYMPTOTIC_FROM = 16.0


def _ratio(c: np.ndarray, z: np.ndarray) -> np.ndarray:
    """num(z)/den(z) for stacked Horner coefficients ``c`` (k, 2, 1): both polynomials in one pass."""
    y = np.empty((2, z.size))
    y[...] = c[0]
    for a in c[1:]:
        y *= z
        y += a
    return y[0] / y[1]


def _erfcx_ge1(z: np.ndarray) -> np.ndarray:
    """erfcx on a flat array with z >= 1 (or NaN): Cephes' P/Q rational below 8, R/S below 16, the asymptotic
    series above."""
    lo = z < 8.0
    if lo.all():
        return _ratio(_PQ, z)
    out = np.empty_like(z)
    mid = ~lo & (z < _ASYMPTOTIC_FROM)
    for sel, f in ((lo, lambda v: _ratio(_PQ, v)), (mid, lambda v: _ratio(_RS, v)),
                   (~lo & ~mid, _erfcx_asymptotic)):  # NaN goes to the last
        idx = np.flatnonzero(sel)
        if idx.size:
            out[idx] = f(z[idx])
    return out


def _asymptotic_terms(zmin: float) -> int:
    """Terms of the erfcx series needed at every z >= zmin: the first omitted one is below 2^-60 relative."""
    t = 0.5 / (zmin * zmin)
    term, k = 1.0, 0
    while k < 23:
        nxt = term * t * (2 * k + 1)
        if nxt < 2.0**-60:
            break
        term, k = nxt, k + 1
    return k + 1


def _erfcx_asymptotic(z: np.ndarray) -> np.ndarray:
    r"""erfcx on z >= 8 (used from 16): :math:`\frac{1}{z\sqrt\pi}\sum_{k<K} (-1)^k \frac{(2k-1)!!}{(2z^2)^k}`, K <= 24 terms
    chosen for the smallest z (the first omitted term is below 2^-60 relative; at z = 8, K = 24 leaves
    3e-21, and the terms shrink until k ~ z^2 >= 64); more accurate than Cephes' R/S rational at large
    z (which drifts to ~2e-15 near z = 5e7).  0 at +inf."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        zmin = float(np.min(z)) if z.size else 8.0
        kmax = _asymptotic_terms(max(zmin, 8.0)) if math.isfinite(zmin) else 24
        t = 0.5 / (z * z)
        s = np.ones_like(z)
        term = np.ones_like(z)
        for k in range(1, kmax):
            term *= t
            term *= -(2 * k - 1)
            s += term
        return _INV_SQRTPI / z * s


def _erf_small(x: np.ndarray) -> np.ndarray:
    """erf on |x| <= 1 (Cephes T/U)."""
    z = x * x
    y = _poly(_T, z)
    y *= x
    y /= _poly(_U, z)
    return y


def _erfc_abs(u: np.ndarray) -> np.ndarray:
    """erfc(u) for a flat array u >= 0 (or NaN)."""
    out = np.empty_like(u)
    small = u < 1.0
    i = np.flatnonzero(small)
    j = np.flatnonzero(~small)
    if i.size:
        out[i] = 1.0 - _erf_small(u[i])
    if j.size:
        uj = u[j]
        out[j] = _erfcx_ge1(uj) * _split_exp(uj, 1.0)
    return out


def _phi_lower(u: np.ndarray) -> np.ndarray:
    r""":math:`\Phi(-u)` for a flat array u >= 0 (or NaN): for u/sqrt2 < 1 Cephes' (1 - erf)/2; beyond,
    :math:`\operatorname{erfcx}(u/\sqrt2) e^{-u^2/2} / 2` with the square split on u itself (not on the
    rounded u/sqrt2): full relative accuracy down to the subnormals."""
    z = u * _SQRTH
    small = z < 1.0
    if not small.any():
        out = _erfcx_ge1(z)
        out *= 0.5
        out *= _split_exp(u, 0.5)
        return out
    out = np.empty_like(u)
    i = np.flatnonzero(small)
    j = np.flatnonzero(~small)
    if i.size:
        out[i] = 0.5 - 0.5 * _erf_small(z[i])
    if j.size:
        out[j] = 0.5 * _erfcx_ge1(z[j]) * _split_exp(u[j], 0.5)
    return out


def erfc(x: Any) -> Any:
    """Complementary error function, elementwise."""
    a = _f64(x).ravel()
    v = _erfc_abs(np.abs(a))
    neg = a < 0
    v[neg] = 2.0 - v[neg]
    return _out(v, x)


def erf(x: Any) -> Any:
    """Error function, elementwise."""
    a = _f64(x).ravel()
    u = np.abs(a)
    y = np.empty_like(a)
    small = u <= 1.0
    i = np.flatnonzero(small)
    j = np.flatnonzero(~small)
    if i.size:
        y[i] = _erf_small(a[i])
    if j.size:
        y[j] = np.copysign(1.0 - _erfc_abs(u[j]), a[j])
    return _out(y, x)


def erfcx(x: Any) -> Any:
    r"""Scaled complementary error function :math:`e^{x^2}\operatorname{erfc}(x)`, elementwise."""
    a = _f64(x).ravel()
    y = np.empty_like(a)
    pos = a >= 1.0
    i = np.flatnonzero(pos)
    j = np.flatnonzero(~pos)
    if i.size:
        y[i] = _erfcx_ge1(a[i])
    if j.size:
        aj = a[j]
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            v = _erfc_abs(np.abs(aj))
            v = np.where(aj < 0, 2.0 - v, v)
            y[j] = v / _split_exp(aj, 1.0)  # grows as 2 e^{x^2}: inf below about -26.6, as scipy
    return _out(y, x)


def ndtr(x: Any) -> Any:
    r"""Standard normal CDF :math:`\Phi(x)`, elementwise."""
    a = _f64(x).ravel()
    c = _phi_lower(np.abs(a))
    pos = a > 0
    c[pos] = 1.0 - c[pos]
    return _out(c, x)


def log_ndtr(x: Any) -> Any:
    r""":math:`\log\Phi(x)`, elementwise, accurate in both tails: ``log1p(-Phi(-x))`` for x > 0,
    ``log(Phi(x))`` on [-1, 0], :math:`\log(\operatorname{erfcx}(-x/\sqrt2)/2) - x^2/2` below
    (no underflow).

    Laid out for the common case of the accountants (most arguments below ``-sqrt2``): ``erfcx(z)``, ``z =
    |x|/sqrt2``, by Cephes' P/Q rational on every element and the lower tail's formula on every element (no gather),
    then R/S / the asymptotic series where ``z >= 8``, and the other branches (``x > sqrt2``: ``log1p(-Phi(-x))``;
    ``z < 1``: Cephes' erf) overwrite their own elements.  Every element gets the floating-point operations of
    :func:`erfcx` and :func:`_phi_lower` (the same values to the bit; the asymptotic series, whose length depends
    on the smallest argument it is given, may take more terms, each below 2^-60 of the sum: they leave it
    unchanged)."""
    a = _f64(x).ravel()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        u = np.abs(a)
        z = u * _SQRTH
        e = _ratio(_PQ, z)  # erfcx on [1, 8); the elements below 1 get a value that is not used
        far = np.flatnonzero(~(z < 8.0))  # z >= 8 or NaN
        if far.size:
            zf = z[far]
            ef = np.empty_like(zf)
            mid = zf < _ASYMPTOTIC_FROM
            i = np.flatnonzero(mid)
            j = np.flatnonzero(~mid)  # NaN goes to the last
            if i.size:
                ef[i] = _ratio(_RS, zf[i])
            if j.size:
                ef[j] = _erfcx_asymptotic(zf[j])
            e[far] = ef
        e *= 0.5
        y = np.log(e)  # the lower tail: log(erfcx/2) - x^2/2
        h = 0.5 * a
        h *= a
        y -= h
        small = z < 1.0
        k = np.flatnonzero(~(a < -1.0) & ~small)  # x > sqrt2 (or NaN): log1p(-Phi(-x)), Phi(-x) = erfcx/2 e^{-x^2/2}
        if k.size:
            c = e[k]
            c *= _split_exp(u[k], 0.5)
            y[k] = _log_phi_of(a[k], c)
        sm = np.flatnonzero(small)  # |x| < sqrt2: Cephes' erf
        if sm.size:
            asm, zsm = a[sm], z[sm]
            ef = _erf_small(zsm)
            r = np.empty_like(zsm)
            lo = asm < -1.0
            i = np.flatnonzero(lo)  # erfc(z) / e^{-z^2} (erfcx below 1), halved, logged, minus x^2/2
            j = np.flatnonzero(~lo)  # Phi(-|x|) = (1 - erf(z))/2
            if i.size:
                ai = asm[i]
                v = 1.0 - ef[i]
                v /= _split_exp(zsm[i], 1.0)
                v *= 0.5
                v = np.log(v)
                v -= 0.5 * ai * ai
                r[i] = v
            if j.size:
                r[j] = _log_phi_of(asm[j], 0.5 - 0.5 * ef[j])
            y[sm] = r
        y[np.isneginf(a)] = -np.inf
    return _out(y, x)


def _log_phi_of(a: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``log Phi(a)`` from ``c = Phi(-|a|)``: ``log1p(-c)`` where ``a > 0``, ``log(c)`` elsewhere (each only where
    it is taken)."""
    pos = a > 0
    r = np.empty_like(c)
    np.log1p(np.negative(c, where=pos, out=r), where=pos, out=r)
    np.log(c, where=~pos, out=r)
    return r


def _ndtri_scalar(p: float) -> float:
    """AS241 on a Python float (the same polynomials as :func:`ndtri`; no array overhead)."""
    if not 0.0 <= p <= 1.0:
        return math.nan
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        return q * _horner1(_C_NUM, r) / _horner1(_C_DEN, r)
    r = math.sqrt(-math.log(p if q <= 0.0 else 1.0 - p))
    if r <= 5.0:
        x = _horner1(_T1_NUM, r - 1.6) / _horner1(_T1_DEN, r - 1.6)
    else:
        x = _horner1(_T2_NUM, r - 5.0) / _horner1(_T2_DEN, r - 5.0)
    return -x if q < 0.0 else x


def _horner1(c: tuple[float, ...], x: float) -> float:
    y = c[0]
    for a in c[1:]:
        y = y * x + a
    return y


_C_NUM = (2.5090809287301226727e+3, 3.3430575583588128105e+4, 6.7265770927008700853e+4,
          4.5921953931549871457e+4, 1.3731693765509461125e+4, 1.9715909503065514427e+3,
          1.3314166789178437745e+2, 3.3871328727963666080e+0)
_C_DEN = (5.2264952788528545610e+3, 2.8729085735721942674e+4, 3.9307895800092710610e+4,
          2.1213794301586595867e+4, 5.3941960214247511077e+3, 6.8718700749205790830e+2,
          4.2313330701600911252e+1, 1.0)
_T1_NUM = (7.74545014278341407640e-4, 2.27238449892691845833e-2, 2.41780725177450611770e-1,
           1.27045825245236838258e+0, 3.64784832476320460504e+0, 5.76949722146069140550e+0,
           4.63033784615654529590e+0, 1.42343711074968357734e+0)
_T1_DEN = (1.05075007164441684324e-9, 5.47593808499534494600e-4, 1.51986665636164571966e-2,
           1.48103976427480074590e-1, 6.89767334985100004550e-1, 1.67638483018380384940e+0,
           2.05319162663775882187e+0, 1.0)
_T2_NUM = (2.01033439929228813265e-7, 2.71155556874348757815e-5, 1.24266094738807843860e-3,
           2.65321895265761230930e-2, 2.96560571828504891230e-1, 1.78482653991729133580e+0,
           5.46378491116411436990e+0, 6.65790464350110377720e+0)
_T2_DEN = (2.04426310338993978564e-15, 1.42151175831644588870e-7, 1.84631831751005468180e-5,
           7.86869131145613259100e-4, 1.48753612908506148525e-2, 1.36929880922735805310e-1,
           5.99832206555887937690e-1, 1.0)


def upper_quantile(tail: float) -> float:
    r"""A point z with :math:`\Phi(-z) \le` ``tail`` (and as close as AS241 allows): ``-ndtri(tail)``
    moved up by 16 ulp of max(|z|, 1), which covers AS241's error (about 1e-16 relative), so a range
    cut at z leaves at most ``tail`` outside, never more."""
    z = -_ndtri_scalar(float(tail))
    return z + 16 * 2.0**-52 * max(abs(z), 1.0) if math.isfinite(z) else z


def ndtri(p: Any) -> Any:
    r"""Inverse of :func:`ndtr` (Wichura's AS241), elementwise; 0 -> -inf, 1 -> +inf, NaN outside [0, 1]."""
    if np.ndim(p) == 0:
        return np.float64(_ndtri_scalar(float(p)))
    pp = _f64(p)
    q = pp - 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        central = np.abs(q) <= 0.425
        r = 0.180625 - q * q
        x_c = _poly(_C_NUM, r) * q / _poly(_C_DEN, r)
        rr = np.sqrt(-np.log(np.where(q <= 0.0, pp, 1.0 - pp)))
        r1 = rr - 1.6
        x_1 = _poly(_T1_NUM, r1) / _poly(_T1_DEN, r1)
        r2 = rr - 5.0
        x_2 = _poly(_T2_NUM, r2) / _poly(_T2_DEN, r2)
        x_t = np.where(rr <= 5.0, x_1, x_2)
        x_t = np.where(q < 0.0, -x_t, x_t)
        y = np.where(central, x_c, x_t)
        y = np.where(pp == 0.0, -np.inf, np.where(pp == 1.0, np.inf, y))
        y = np.where((pp < 0.0) | (pp > 1.0) | np.isnan(pp), np.nan, y)
    return _out(y, p)


# ------------------------------------------------------------------ gamma
_NFACT = 1024
_LOGFACT: np.ndarray | None = None  # log((n-1)!) at index n, i.e. lgamma(n), n = 0..1024 (index 0 unused)
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
_HALF_LOG_2PI = 0.91893853320467274178


def _logfact() -> np.ndarray:
    global _LOGFACT
    if _LOGFACT is None:
        t = np.empty(_NFACT + 1)
        t[0] = np.inf
        f = 1
        for n in range(1, _NFACT + 1):  # log of the exact integer (n-1)!: correctly rounded to ~1 ulp
            t[n] = math.log(f)  # (math.lgamma(3) is 3 ulp off log 2)
            f *= n
        _LOGFACT = t
    return _LOGFACT


def _stirling(z: np.ndarray) -> np.ndarray:
    """log Gamma(z) for z >= 13 (series truncated after z^-13: error below 1e-17 relative)."""
    iz = 1.0 / z
    iz2 = iz * iz
    s = np.zeros_like(z)
    for c in reversed(_STIRLING):
        s = s * iz2 + c
    return (z - 0.5) * np.log(z) - z + _HALF_LOG_2PI + s * iz


_LGB = (-1.37825152569120859100E3, -3.88016315134637840924E4, -3.31612992738871184744E5,
        -1.16237097492762307383E6, -1.72173700820839662146E6, -8.53555664245765465627E5)
_LGC = (1.0, -3.51815701436523470549E2, -1.70642106651881159223E4, -2.20528590553854454839E5,
        -1.13933444367982507207E6, -2.53252307177582951285E6, -2.01889141433532773231E6)


def _gammaln_small(x: np.ndarray) -> np.ndarray:
    """log Gamma on 0 < x < 13 (Cephes ``lgam``): shift into u = x + k in [2, 3) by the recurrence, then
    log|product| + t B(t)/C(t), t = u - 2 (relative accuracy kept near the zeros at 1 and 2)."""
    fl = np.floor(x)
    u = x - (fl - 2.0)  # in [2, 3)
    z = np.ones_like(x)
    up = x < 2.0
    for k in range(11):  # x >= 3: z = (x-1)(x-2)...(u), at most 10 factors below 13
        z *= np.where(x - (k + 1) >= u, x - (k + 1), 1.0)
    if up.any():  # x < 2: z = 1 / (x (x+1) ...), at most 2 factors
        z = np.where(up, z / np.where(x < 1.0, x * (x + 1.0), x), z)
    t = u - 2.0
    return np.log(z) + t * _poly(_LGB, t) / _poly(_LGC, t)


def _gammaln_pos(x: np.ndarray) -> np.ndarray:
    """log Gamma on x > 0 (finite)."""
    y = np.empty_like(x)
    n = x.astype(np.int64)
    integer = (x == n) & (x <= _NFACT)
    small = ~integer & (x < 13.0)
    rest = ~integer & ~small
    if integer.any():
        y[integer] = _logfact()[n[integer]]
    if small.any():
        y[small] = _gammaln_small(x[small])
    if rest.any():
        y[rest] = _stirling(x[rest])
    return y


def gammaln(x: Any) -> Any:
    r""":math:`\log|\Gamma(x)|`, elementwise (``+inf`` at the poles 0, -1, -2, ...)."""
    a = np.atleast_1d(_f64(x)).astype(np.float64, copy=True)
    y = np.full_like(a, np.nan)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        fin = np.isfinite(a)
        y[np.isposinf(a)] = np.inf
        y[np.isneginf(a)] = -np.inf  # scipy's convention
        pos = fin & (a > 0)
        if pos.any():
            y[pos] = _gammaln_pos(a[pos])
        neg = fin & (a <= 0)
        if neg.any():
            an = a[neg]
            pole = an == np.round(an)
            r = an - np.round(an)  # exact; |sin(pi x)| = |sin(pi r)|
            refl = np.log(np.pi / np.abs(np.sin(np.pi * r))) - _gammaln_pos(np.where(pole, 1.0, 1.0 - an))
            y[neg] = np.where(pole, np.inf, refl)
    return _out(y.reshape(np.shape(x)), x)


def gammasgn(x: Any) -> Any:
    """Sign of Gamma(x): 1 for x > 0 (and x = 0, as scipy), NaN at negative integers, else (-1)^ceil(-x)."""
    a = _f64(x)
    with np.errstate(invalid="ignore"):
        odd = np.mod(np.floor(a), 2.0) == 1.0
        y = np.where(a >= 0, 1.0, np.where(odd, -1.0, 1.0))
        y = np.where((a < 0) & (a == np.floor(a)), np.nan, y)
        y = np.where(np.isnan(a), np.nan, y)
    return _out(y, x)


def xlogy(x: Any, y: Any) -> Any:
    """x log(y), with 0 where x == 0 (and y is not NaN)."""
    a, b = _f64(x), _f64(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where((a == 0) & ~np.isnan(b), 0.0, a * np.log(b))
    return r[()] if r.ndim == 0 else r


def __getattr__(name: str) -> Any:
    """Anything not implemented here comes from ``scipy.special`` (imported on first use)."""
    if name.startswith("__"):
        raise AttributeError(name)
    import scipy.special as sps

    try:
        return getattr(sps, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
