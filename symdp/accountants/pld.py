r"""Tight accountant: privacy loss distributions, connect-the-dots discretisation, FFT composition.

For one DP-SGD step (Poisson rate ``q``, noise multiplier ``sigma``, add/remove
adjacency) the two dominating pairs are

* remove: ``P = (1-q) N(0, s^2) + q N(1, s^2)`` vs ``Q = N(0, s^2)``, loss
  ``L(x)`` = ``accounting.sgm_loss_remove``;
* add: ``P' = N(0, s^2)`` vs ``Q' = P``, loss ``-L(x)``.

Both losses are monotone in ``x``; the interval ``{ell_j < L <= ell_{j+1}}``
is an interval in ``x`` whose end points are ``accounting.sgm_loss_remove_inverse``
(``x_star``), so its P- and Q-masses are differences of Gaussian CDFs.

**Discretisation (pessimistic, rigorous).**  Losses live on the grid
``ell_j = j h``.  Each interval's P-mass is split between its two end points so
that both its P-mass and its Q-mass are preserved ("connect the dots",
Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022): the discrete pair's privacy
profile ``delta(e^eps)`` is the piecewise-linear interpolation (in ``e^eps``)
of the exact, convex profile at the grid points, hence >= it everywhere.  The
lower tail ``L <= ell_lo`` is rounded up to ``ell_lo``; beyond ``ell_hi`` the
pair keeps ``e^{ell_hi} Q(L > ell_hi)`` at ``ell_hi`` and puts
``H(ell_hi) = P(L > ell_hi) - e^{ell_hi} Q(L > ell_hi)`` at ``+inf``.  So the
discrete pair dominates the true one (as trade-off functions), and dominance
survives composition.

**Composition.**  All steps' discrete PMFs are transformed once (rFFT of
length ``N``), raised elementwise to their step counts, multiplied and
transformed back.  The cyclic result on the window ``[Lo, Lo + N h)`` equals
the true composed PMF there *plus* the non-negative mass that wraps around, so
it over-estimates every delta; the mass of the composed distribution above the
window is bounded by a Chernoff bound computed from the discrete PMFs' moment
generating functions and added to delta.  ``Lo``/``N`` are chosen by the same
bound so that the wrapped mass is below ``tail_tol``.

**What is bounded and what is estimated.**  ``delta`` returned is an upper
bound for the composed mechanism up to floating-point rounding of the Gaussian
CDF differences and of the FFT; the latter is estimated a posteriori
(``roundoff``) and added.  ``error_bound`` reports the gap to a lower bound
computed from the optimistic discretisation (all interval mass at its left
end) on the same grid: the true value lies in ``[lower, upper]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import scipy.fft as sfft
import scipy.special as sps

from ..errors import ConvergenceError
from ._kernels import _kernel

_U = np.finfo(float).eps


def _gauss_interval(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Phi(b) - Phi(a) for a <= b (standard normal), using the tail in which both lie."""
    upper = a > 0
    with np.errstate(invalid="ignore"):
        r = np.where(upper, sps.ndtr(-a) - sps.ndtr(-b), sps.ndtr(b) - sps.ndtr(a))
    return np.maximum(r, 0.0)


def _xstar(ell: np.ndarray, sigma: float, q: float) -> np.ndarray:
    """x_star(ell) from the library; -inf where exp(ell) <= 1 - q (every x has loss > ell)."""
    k = _kernel("accounting.sgm_loss_remove_inverse", "numpy")
    with np.errstate(divide="ignore", invalid="ignore"):
        xs = k(ell=ell, q=q, sigma=sigma)
    below = np.expm1(ell) <= -q
    return np.where(below, -np.inf, xs)


def _loss(x: float, sigma: float, q: float) -> float:
    k = _kernel("accounting.sgm_loss_remove", "numpy")
    with np.errstate(divide="ignore"):
        return float(k(x=x, q=q, sigma=sigma))


@dataclass
class DiscretePLD:
    """A discrete privacy-loss distribution on the grid ``ell = j h`` (j in ``[j0, j0 + len(pmf))``) plus mass at +inf."""

    h: float
    j0: int
    pmf: np.ndarray
    inf_mass: float
    roundoff: float = 0.0  # estimated absolute error of the masses (sum over atoms)


def _pmf_from_masses(P: np.ndarray, Q: np.ndarray, ell: np.ndarray, h: float, pessimistic: bool) -> np.ndarray:
    """Atoms on ``ell`` (length K+1) from interval masses P[i], Q[i] of (ell_i, ell_{i+1}], i < K."""
    K = len(ell) - 1
    out = np.zeros(K + 1)
    if pessimistic:
        em1 = math.expm1(h)
        with np.errstate(over="ignore", invalid="ignore"):
            x_lo = np.exp(ell[:-1])
            left = (np.exp(h) * x_lo * Q - P) / em1
            right = math.exp(h) * (P - x_lo * Q) / em1
        left = np.minimum(np.maximum(np.nan_to_num(left, nan=0.0, posinf=0.0), 0.0), P)
        right = P - left  # preserves the P-mass exactly
        out[:-1] += left
        out[1:] += right
    else:
        out[:-1] += P
    return out


def discretize_step(sigma: float, q: float, h: float, direction: str, *, tail: float = 1e-20, pessimistic: bool = True) -> DiscretePLD:
    """Discrete PLD of one DP-SGD step for ``direction`` in {"remove", "add"}."""
    z = -sps.ndtri(tail)  # Phi(-z) = tail
    if direction == "remove":
        # x ~ mixture; loss L(x) increasing; x beyond [-(z s), 1 + z s] carries < tail mass under both components
        lo_val = math.log1p(-q) if q < 1 else _loss(-z * sigma, sigma, q)
        hi_val = _loss(1 + z * sigma, sigma, q)
    elif direction == "add":
        # x ~ N(0, s^2); loss -L(x) decreasing in x
        lo_val = -_loss(z * sigma + 1, sigma, q)
        hi_val = -math.log1p(-q) if q < 1 else -_loss(-z * sigma, sigma, q)
    else:
        raise ValueError(f"direction={direction!r}")
    j0 = math.floor(lo_val / h)
    j1 = max(math.ceil(hi_val / h), j0 + 1)
    jj = np.arange(j0, j1 + 1)
    ell = jj * h
    # boundaries in x of the intervals (ell_i, ell_{i+1}] (remove) / mirrored (add)
    if direction == "remove":
        xb = _xstar(ell, sigma, q)  # L > ell  <=>  x > xb
        xs = xb / sigma
        x1 = (xb - 1) / sigma
        g0 = _gauss_interval(xs[:-1], xs[1:])  # N(0) mass of (ell_i, ell_{i+1}]
        g1 = _gauss_interval(x1[:-1], x1[1:])
        P = (1 - q) * g0 + q * g1
        Q = g0
        P_low = (1 - q) * sps.ndtr(xs[0]) + q * sps.ndtr(x1[0])
        P_top = (1 - q) * sps.ndtr(-xs[-1]) + q * sps.ndtr(-x1[-1])
        Q_top = sps.ndtr(-xs[-1])
    else:
        # loss' = -L(x) in (ell_i, ell_{i+1}]  <=>  L(x) in [-ell_{i+1}, -ell_i)  <=>  x in [x*(-ell_{i+1}), x*(-ell_i))
        xb = _xstar(-ell, sigma, q)  # decreasing in ell
        xs = xb / sigma
        x1 = (xb - 1) / sigma
        g0 = _gauss_interval(xs[1:], xs[:-1])
        g1 = _gauss_interval(x1[1:], x1[:-1])
        P = g0
        Q = (1 - q) * g0 + q * g1
        P_low = sps.ndtr(-xs[0])  # loss' <= ell_0  <=>  x >= x*(-ell_0)
        P_top = sps.ndtr(xs[-1])  # loss' > ell_K  <=>  x < x*(-ell_K)
        Q_top = (1 - q) * sps.ndtr(xs[-1]) + q * sps.ndtr(x1[-1])
    pmf = _pmf_from_masses(P, Q, ell, h, pessimistic)
    pmf[0] += P_low
    if pessimistic:
        keep = min(math.exp(ell[-1]) * Q_top, P_top) if np.isfinite(ell[-1]) else 0.0
        pmf[-1] += keep
        inf_mass = max(P_top - keep, 0.0)
    else:
        pmf[-1] += P_top
        inf_mass = 0.0
    # floating point: each interval mass is a difference of CDF values <= 1/2 (tail-appropriate form);
    # the split divides by expm1(h): estimated error per atom ~ 4u * min(1, 1/h) * |interval mass scale|
    roundoff = float(8 * _U * (np.sum(np.minimum(sps.ndtr(-np.abs(xs[:-1])), 0.5)) + 1) / max(h, 1e-300) * max(h, 0.0)) if pessimistic else 0.0
    return DiscretePLD(h=h, j0=j0, pmf=pmf, inf_mass=float(inf_mass), roundoff=roundoff)


def _log_mgf(pld: DiscretePLD, lam: np.ndarray) -> np.ndarray:
    """log sum_j p_j exp(lam * ell_j) for each lam (finite atoms only)."""
    nz = pld.pmf > 0
    ell = (pld.j0 + np.nonzero(nz)[0]) * pld.h
    lp = np.log(pld.pmf[nz])
    x = np.multiply.outer(np.asarray(lam, dtype=float), ell)
    x += lp[None, :]
    m = x.max(axis=1, keepdims=True)
    np.subtract(x, m, out=x)
    np.exp(x, out=x)
    return np.log(x.sum(axis=1)) + m[:, 0]


def _moments(pld: DiscretePLD) -> tuple[float, float]:
    ell = (pld.j0 + np.arange(len(pld.pmf))) * pld.h
    w = pld.pmf / max(pld.pmf.sum(), 1e-300)
    m = float(np.sum(w * ell))
    v = float(np.sum(w * (ell - m) ** 2))
    return m, max(v, pld.h**2)


_LAM_FACTORS = np.concatenate([np.geomspace(1e-4, 0.1, 7), [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0]])


def _tail_bound(steps: Sequence[tuple[DiscretePLD, int]], t: float, sign: int, lam0: float) -> float:
    """Chernoff bound on P[S >= t] (sign=+1) or P[S <= t] (sign=-1) for the composed discrete PLD."""
    lams = sign * lam0 * _LAM_FACTORS
    lm = sum(T * _log_mgf(p, lams) for p, T in steps)
    return float(np.min(np.exp(np.minimum(lm - lams * t, 0.0))))


_LAMS = np.geomspace(1e-2, 1e3, 28)


@dataclass
class ComposedPLD:
    """Composed discrete PLD on the window ``ell = s h``, ``s in [s0, s0 + len(pmf))``."""

    h: float
    s0: int
    pmf: np.ndarray
    inf_mass: float
    upper_tail: float  # Chernoff bound on the mass above the window (added to delta)
    alias: float  # bound on the mass wrapped into the window (only over-estimates)
    roundoff: float  # estimated floating-point error on delta
    n_fft: int = 0
    certified: bool = True  # False: computed on a borrowed window, tails not bounded (error estimates only)
    window: tuple[float, float] = (0.0, 0.0)
    _suffix: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def _suffix_sums(self) -> tuple[np.ndarray, np.ndarray]:
        if self._suffix is None:
            ell = (self.s0 + np.arange(len(self.pmf))) * self.h
            # only atoms with ell > 0 matter for eps >= 0; e^{-ell} <= 1 there
            A = np.cumsum(self.pmf[::-1])[::-1]
            with np.errstate(over="ignore"):
                w = self.pmf * np.exp(-np.maximum(ell, 0.0))
            B = np.cumsum(w[::-1])[::-1]
            self._suffix = (A, B)
        return self._suffix

    def delta(self, eps: np.ndarray | float, *, extra: float = 0.0) -> np.ndarray:
        """Upper bound on delta(eps) (eps >= 0)."""
        eps = np.asarray(eps, dtype=float)
        A, B = self._suffix_sums()
        n = len(self.pmf)
        # first atom strictly above eps
        idx = np.floor(eps / self.h).astype(np.int64) - self.s0 + 1
        idx = np.clip(idx, 0, n)
        Ap = np.append(A, 0.0)[idx]
        Bp = np.append(B, 0.0)[idx]
        with np.errstate(over="ignore", invalid="ignore"):
            d = Ap - np.exp(eps) * Bp
        d = np.maximum(np.nan_to_num(d, nan=0.0), 0.0)
        return np.minimum(d + self.inf_mass + self.upper_tail + self.roundoff + extra, 1.0)

    def epsilon(self, delta: np.ndarray | float, *, extra: float = 0.0) -> np.ndarray:
        """Smallest eps >= 0 with delta(eps) <= delta, exactly for this discrete distribution (rounded up)."""
        delta = np.atleast_1d(np.asarray(delta, dtype=float))
        A, B = self._suffix_sums()
        n = len(self.pmf)
        const = self.inf_mass + self.upper_tail + self.roundoff + extra
        ell = (self.s0 + np.arange(n)) * self.h
        # delta at eps = ell_k (atoms strictly above ell_k): A[k+1] - e^{ell_k} B[k+1]
        A1 = np.append(A[1:], 0.0)
        B1 = np.append(B[1:], 0.0)
        with np.errstate(over="ignore", invalid="ignore"):
            dk = np.maximum(A1 - np.exp(ell) * B1, 0.0) + const  # nonincreasing in k
        out = np.empty(delta.shape)
        for i, dt in enumerate(delta.flat):
            if const >= dt:
                out.flat[i] = np.inf
                continue
            # first k with dk[k] <= dt
            k = int(np.searchsorted(-dk, -dt, side="left"))
            if k >= n:
                out.flat[i] = np.inf
                continue
            # on (ell_{k-1}, ell_k]: delta(eps) = A[k] - e^eps B[k] + const
            if k == 0 or B[k] <= 0:
                e = ell[k] if k < n else np.inf
            else:
                e = math.log(max(A[k] + const - dt, 0.0) / B[k]) if A[k] + const - dt > 0 else -np.inf
                e = min(max(e, ell[k - 1]), ell[k])
            out.flat[i] = max(np.nextafter(e, np.inf) + 4 * _U * abs(e), 0.0) if np.isfinite(e) else max(e, 0.0)
        return out


_LAM_GRID = np.geomspace(1e-3, 30.0, 16)


def _window(steps: Sequence[tuple[DiscretePLD, int]], tail_tol: float) -> tuple[float, float, float, float]:
    """Certified window [lo, up] (loss units) with P[S > up], P[S < lo] <= tail_tol (Chernoff, min over a lambda grid)."""
    mom = [(_moments(p), T) for p, T in steps]
    V = sum(T * m[1] for m, T in mom)
    lam = _LAM_GRID / math.sqrt(V)
    lm_pos = sum(T * _log_mgf(p, lam) for p, T in steps)
    lm_neg = sum(T * _log_mgf(p, -lam) for p, T in steps)
    log_tol = math.log(tail_tol)
    up = float(np.min((lm_pos - log_tol) / lam))
    lo = float(np.max((log_tol - lm_neg) / lam))
    return lo, up, float(np.min(np.exp(np.minimum(lm_pos - lam * up, 0.0)))), float(np.min(np.exp(np.minimum(lm_neg + lam * lo, 0.0))))


def compose(steps: Sequence[tuple[DiscretePLD, int]], *, tail_tol: float = 1e-15, max_fft: int = 1 << 24,
            window: tuple[float, float] | None = None) -> ComposedPLD:
    """Compose discrete PLDs (each with a step count) on a common grid by one FFT.

    ``window=(lo, up)`` reuses a window found for another grid: the result is then NOT certified
    (no tail bound is added; ``upper_tail`` is NaN) and serves only as an error estimate.
    """
    h = steps[0][0].h
    s_min = sum(T * p.j0 for p, T in steps)
    s_max = sum(T * (p.j0 + len(p.pmf) - 1) for p, T in steps)
    if window is None:
        lo, up, upper_tail, lower_tail = _window(steps, tail_tol)
        if up >= s_max * h:
            upper_tail = 0.0
        if lo <= s_min * h:
            lower_tail = 0.0
    else:
        lo, up = window
        upper_tail = lower_tail = 0.0
    s0 = max(math.floor(lo / h), s_min)
    s1 = min(math.ceil(up / h), s_max)
    s1 = max(s1, s0)
    n = sfft.next_fast_len(s1 - s0 + 1, real=True)
    if n > max_fft:
        raise ConvergenceError(
            f"tight accountant: the composed loss range needs an FFT of length {n} > {max_fft}; "
            "use a coarser grid (discretization=...) or the RDP accountant"
        )
    # the window [s0, s0 + n) contains [lo, up]; mass at s >= s0 + n is >= up and bounded by upper_tail
    spec = None
    inf_keep = 0.0
    roundoff = 0.0
    for p, T in steps:
        a = np.bincount((p.j0 + np.arange(len(p.pmf))) % n, weights=p.pmf, minlength=n)
        f = sfft.rfft(a)
        f = f**T
        spec = f if spec is None else spec * f
        inf_keep += T * math.log1p(-min(p.inf_mass, 1.0)) if p.inf_mass < 1 else -np.inf
        roundoff += T * p.roundoff
    c = sfft.irfft(spec, n)
    T_total = sum(T for _, T in steps)
    # FFT rounding model: per-entry error <= u (T + log2 n) * mean |spectrum| (Higham-style bound on the transforms)
    fft_err = 4 * _U * (T_total + math.log2(n)) * float(np.abs(spec).sum() * 2 / n)
    idx = (s0 + np.arange(n)) % n
    pmf = c[idx]
    neg = pmf < 0
    pmf = np.where(neg, 0.0, pmf)
    inf_mass = -math.expm1(inf_keep)
    return ComposedPLD(
        h=h, s0=s0, pmf=pmf, inf_mass=inf_mass, upper_tail=upper_tail, alias=upper_tail + lower_tail,
        roundoff=roundoff + fft_err * n, n_fft=n, certified=window is None, window=(lo, up),
    )


def default_interval(total_steps: int, delta: float = 1e-5) -> float:
    """Grid spacing for a run of ``total_steps`` steps: the connect-the-dots error per step is O(h^2)."""
    return float(min(2e-2, max(2e-4, 0.05 / math.sqrt(total_steps))))


__all__ = ["ComposedPLD", "DiscretePLD", "compose", "default_interval", "discretize_step"]
