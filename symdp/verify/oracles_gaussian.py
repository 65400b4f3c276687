"""Oracles of the Gaussian and Laplace mechanisms: their exact privacy profiles (Balle and Wang 2018,
Thm 8; the Laplace profile) with closed forms, and the T-fold Poisson-subsampled Gaussian's profile as a
rigorous bracket from its privacy-loss distribution.  Registered in :mod:`.registry`; :mod:`.oracles`
re-exports them.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ..errors import InvalidParameterError, UnsupportedError
from ..numeric import ncdf_same_bits
from .oracles_pairs import Phi, _mpf, _pick, _sym_pick
from .registry import Oracle, register

# ---------------------------------------------------------------------------
# Gaussian and Laplace mechanisms
# ---------------------------------------------------------------------------


def _gauss_mu(kw: dict[str, Any]) -> mpmath.mpf:
    mu = _pick(kw, "mu", "r")
    if mu is not None:
        return _mpf(mu)
    sigma = _pick(kw, "sigma")
    if sigma is None:
        raise InvalidParameterError("gaussian_profile needs mu, or sigma (and optionally Delta)")
    return _mpf(_pick(kw, "Delta", "C", default=1)) / _mpf(sigma)


def gaussian_profile(*, at: Any, **kw: Any) -> mpmath.mpf:
    r"""Exact privacy profile of the Gaussian mechanism (mu = Delta/sigma) [Balle and Wang 2018, Thm 8].

    :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon\Phi(-\varepsilon/\mu - \mu/2)`.
    """
    mu = _gauss_mu(kw)
    e = _mpf(at)
    # ncdf_same_bits: mpmath.ncdf's bits without its wrapper (symdp.numeric)
    return ncdf_same_bits(-e / mu + mu / 2) - mpmath.exp(e) * ncdf_same_bits(-e / mu - mu / 2)


def gaussian_profile_float64(*, at: Any, **kw: Any) -> np.ndarray:
    """Float64 twin of :func:`gaussian_profile` (arrays broadcast), for the audit's plots only
    (:mod:`symdp.verify.twins`): ``Phi(a) - e^eps Phi(b) = Phi(a) (1 - e^{eps + log Phi(b) - log Phi(a)})`` with
    ``log_ndtr`` and ``expm1`` (no cancellation between the two terms); NaN where mu <= 0 or the value is subnormal."""
    from scipy.special import log_ndtr

    mu = _pick(kw, "mu", "r")
    if mu is None:
        sigma = _pick(kw, "sigma")
        if sigma is None:
            raise InvalidParameterError("gaussian_profile needs mu, or sigma (and optionally Delta)")
        mu = np.asarray(_pick(kw, "Delta", "C", default=1), dtype=float) / np.asarray(sigma, dtype=float)
    mu, e = np.broadcast_arrays(np.asarray(mu, dtype=float), np.asarray(at, dtype=float))
    with np.errstate(all="ignore"):
        la = log_ndtr(-e / mu + mu / 2)
        lb = e + log_ndtr(-e / mu - mu / 2)
        v = np.exp(la) * -np.expm1(lb - la)
    return np.where((mu > 0) & (v > 1e-290) & np.isfinite(v), v, np.nan)


def _gauss_mu_sym(kw: dict[str, Any]) -> sp.Expr | None:
    mu = _sym_pick(kw, "mu", "r")
    if mu is not None:
        return mu
    sigma = _sym_pick(kw, "sigma")
    if sigma is None:
        return None
    return _sym_pick(kw, "Delta", "C", default=sp.Integer(1)) / sigma


def gaussian_profile_exact(*, at: Any, **kw: Any) -> sp.Expr | None:
    """:func:`gaussian_profile` in closed form: ``Phi(-at/mu + mu/2) - exp(at) Phi(-at/mu - mu/2)`` (SymPy)."""
    mu = _gauss_mu_sym(kw)
    if mu is None:
        return None
    e = sp.sympify(at)
    return Phi(-e / mu + mu / 2) - sp.exp(e) * Phi(-e / mu - mu / 2)


def laplace_profile_exact(*, at: Any, **kw: Any) -> sp.Expr | None:
    """:func:`laplace_profile` in closed form: ``Max(0, 1 - exp((at - Delta/b)/2))`` (SymPy)."""
    b = _sym_pick(kw, "b")
    if b is None:
        return None
    r = _sym_pick(kw, "Delta", default=sp.Integer(1)) / b
    return sp.Max(0, 1 - sp.exp((sp.sympify(at) - r) / 2))


def laplace_profile(*, at: Any, **kw: Any) -> mpmath.mpf:
    r"""Exact privacy profile of the Laplace mechanism: :math:`1 - e^{(\varepsilon - \Delta/b)/2}` for
    :math:`\varepsilon \le \Delta/b`, else 0."""
    b = _pick(kw, "b")
    if b is None:
        raise InvalidParameterError("laplace_profile needs the scale b")
    r = _mpf(_pick(kw, "Delta", default=1)) / _mpf(b)
    e = _mpf(at)
    if e >= r:
        return mpmath.mpf(0)
    return -mpmath.expm1((e - r) / 2)


register(
    Oracle(
        "gaussian_profile",
        gaussian_profile,
        "profile",
        ("mu", "at"),
        "exact delta(eps) of the Gaussian mechanism, mu = Delta/sigma [Balle and Wang 2018, Thm 8]",
        aliases={"mu": ("sigma",), "at": ("epsilon", "epsilonprime")},
        exact=gaussian_profile_exact,
        float64=gaussian_profile_float64,
        exact_note="Gaussian privacy profile delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), "
        "mu = Delta/sigma [Balle and Wang 2018, Thm 8], Phi(x) = erfc(-x/sqrt(2))/2",
    )
)
register(
    Oracle(
        "laplace_profile",
        laplace_profile,
        "profile",
        ("b", "at"),
        "exact delta(eps) of the Laplace mechanism with sensitivity Delta and scale b",
        aliases={"at": ("epsilon", "epsilonprime")},
        exact=laplace_profile_exact,
        exact_note="Laplace privacy profile delta(eps) = max(0, 1 - e^((eps - Delta/b)/2))",
    )
)


# ---------------------------------------------------------------------------
# Poisson-subsampled Gaussian, T-fold (privacy loss distribution with a bracket)
# ---------------------------------------------------------------------------


def _subsampled_pld(q: float, sigma: float, h: float, direction: str, tail: float = 1e-14):
    """Per-step privacy-loss PMFs on the grid h*Z (rounded up and down) and the dropped P-tail mass.

    ``direction="remove"``: P = (1-q)N(0,s^2) + qN(1,s^2), Q = N(0,s^2);
    ``"add"``: the reverse.  The loss is monotone in x, so each grid cell of
    the loss maps to an x-interval whose P-mass is a difference of normal CDFs.
    """
    from scipy.special import ndtr, ndtri

    s2 = sigma * sigma
    lo_x = min(ndtri(tail / 2) * sigma, 1 + ndtri(tail / 2) * sigma)
    hi_x = max(-ndtri(tail / 2) * sigma, 1 - ndtri(tail / 2) * sigma)
    xs = np.linspace(lo_x, hi_x, 200001)

    def loss(x):
        z = (2 * x - 1) / (2 * s2)
        return np.logaddexp(np.log1p(-q), np.log(q) + z) if q < 1 else z

    def pcdf(x):
        if direction == "remove":
            return (1 - q) * ndtr(x / sigma) + q * ndtr((x - 1) / sigma)
        return ndtr(x / sigma)

    Lx = loss(xs) if direction == "remove" else -loss(xs)
    cdf = pcdf(xs)
    mass = np.diff(cdf)
    dropped = float(cdf[0] + (1 - cdf[-1]))
    # each x-cell [x_i, x_{i+1}] has loss between its endpoint losses (monotone)
    l_hi = np.maximum(Lx[:-1], Lx[1:])
    l_lo = np.minimum(Lx[:-1], Lx[1:])
    up = np.ceil(l_hi / h).astype(np.int64)
    dn = np.floor(l_lo / h).astype(np.int64)
    return up, dn, mass, dropped


def _compose_pmf(idx: np.ndarray, mass: np.ndarray, T: int) -> tuple[int, np.ndarray]:
    lo = int(idx.min())
    pmf = np.bincount(idx - lo, weights=mass)
    n = (len(pmf) - 1) * T + 1
    size = 1 << (n - 1).bit_length()
    f = np.fft.rfft(pmf, size)
    out = np.fft.irfft(f**T, size)[:n]
    return lo * T, np.clip(out, 0.0, None)


def _pmf_losses(offset: int, pmf: np.ndarray, h: float) -> np.ndarray:
    """The privacy loss of each atom of a PMF on the grid ``h * (offset + k)`` (nondecreasing in k)."""
    return (offset + np.arange(len(pmf))) * h


def _hs_from_pmf(offset: int, pmf: np.ndarray, h: float, eps: float, losses: np.ndarray | None = None) -> float:
    """The hockey-stick divergence ``sum over losses > eps of pmf (1 - e^(eps - loss))``.  ``losses``:
    :func:`_pmf_losses` of the PMF when the caller evaluates several eps (computed here otherwise).  The losses are
    nondecreasing, so the atoms above eps are a suffix: the sum runs over that slice, the same values in the same
    order as the boolean selection ``losses > eps`` (the same bits; tests/test_hs_from_pmf.py)."""
    if losses is None:
        losses = _pmf_losses(offset, pmf, h)
    k = int(np.searchsorted(losses, eps, side="right"))  # first loss > eps
    return float(np.sum(pmf[k:] * -np.expm1(eps - losses[k:])))


def subsampled_gaussian_bracket(*, q: Any = None, sigma: Any, T: Any, at: Any, h: float | None = None, **kw: Any):
    r"""Rigorous-up-to-float64 bracket ``(lower, upper)`` of the optimal delta(at) of T Poisson-subsampled
    Gaussian steps (sensitivity 1), worse of the add and remove directions.

    Losses are rounded up (upper) / down (lower) to a grid of width ``h`` —
    pointwise monotone, so the hockey-stick functional is bracketed — and the
    dropped normal tails are charged in full to the upper bound.  FFT round-off
    (~1e-13 relative) is charged to both ends.
    """
    if q is None:
        q = kw.get("p")  # the alias p (Bu et al.'s sampling rate) of q
    if q is None:
        raise InvalidParameterError("subsampled_gaussian_bracket needs the sampling rate q (or p)")
    qf, sf, Ti, e = float(q), float(sigma), int(T), float(at)
    if not (0 < qf <= 1):
        raise InvalidParameterError(f"q={q!r} is outside the allowed range (0, 1]")
    if Ti < 1 or Ti > 20000:
        raise UnsupportedError(f"T={T!r}: the subsampled-Gaussian bracket supports 1 <= T <= 20000")
    h = h or min(1e-3, 0.05 / math.sqrt(Ti))
    lows, ups = [], []
    for direction in ("remove", "add"):
        up, dn, mass, dropped = _subsampled_pld(qf, sf, h, direction)
        ou, pu = _compose_pmf(up, mass, Ti)
        od, pd = _compose_pmf(dn, mass, Ti)
        slack = 1e-12 * Ti
        ups.append(_hs_from_pmf(ou, pu, h, e) + 1 - (1 - dropped) ** Ti + slack)
        lows.append(max(0.0, _hs_from_pmf(od, pd, h, e) - slack))
    return mpmath.mpf(max(lows)), mpmath.mpf(max(ups))


def subsampled_gaussian_profile(**kw: Any) -> mpmath.mpf:
    """Upper end of :func:`subsampled_gaussian_bracket` (the pessimistic value)."""
    return subsampled_gaussian_bracket(**kw)[1]


register(
    Oracle(
        "subsampled_gaussian_profile",
        subsampled_gaussian_profile,
        "profile",
        ("q", "sigma", "T", "at"),
        "delta(eps) of T Poisson-subsampled Gaussian steps, both directions, PLD bracket",
        bracket=subsampled_gaussian_bracket,
        aliases={"at": ("epsilonprime", "epsilon"), "q": ("p",)},
    )
)
