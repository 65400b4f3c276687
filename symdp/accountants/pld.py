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
length ``N``), raised elementwise to their step counts (repeated squaring,
``2 log2 T`` complex products), multiplied and transformed back.  The cyclic result on the window ``[Lo, Lo + N h)`` equals
the true composed PMF there *plus* the non-negative mass that wraps around, so
it over-estimates every delta; the mass of the composed distribution above the
window is bounded by a Chernoff bound computed from the discrete PMFs' moment
generating functions and added to delta.  ``Lo``/``N`` are chosen by the same
bound so that the wrapped mass is below ``tail_tol``.

**Tail budget.**  The truncation points are parameters, not approximations:
``discretize_step(tail=...)`` cuts each step's loss range where the Gaussian
components have less than ``tail`` mass beyond it (lower cut rounded up, upper
excess to ``+inf``, whose composed mass is added to delta), and
``compose(tail_tol=...)`` sizes the window so that the Chernoff bound on the
mass above it (added to delta) is below ``tail_tol``.  The accountant spends
``1e-3 * delta`` on these (``api._TAIL_BUDGET``), which keeps the grids short
for every delta without giving up the upper bound.

**Evaluation.**  ``delta(eps) = sum_{ell > eps} p(ell) (1 - e^{eps - ell})``
is evaluated from suffix sums scaled relative to the atom at hand, so
losses beyond ``log(DBL_MAX) ~ 709`` (epsilon in the hundreds) neither
overflow nor lose the upper bound.

**What is bounded and what is estimated.**  ``delta`` returned is an upper
bound for the composed mechanism up to floating-point rounding of the Gaussian
CDF differences and of the FFT; the latter is estimated a posteriori
(``roundoff``) and added.  The accountant's ``error_bound`` is a Richardson
estimate of the discretisation error (grids ``h`` and ``2h``, the latter built
from the same CDF values by :func:`discretize_step_pair`): an estimate of how
far the upper bound is above the true value, not a proof.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .. import _special as sps
from ..errors import ConvergenceError
from ._kernels import _kernel

_SMOOTH_MAX = 1 << 31
_SMOOTH: list[int] = []  # every 2^a 3^b 5^c <= _SMOOTH_MAX, ascending (built on first use)


def _next_fast_len(n: int) -> int:
    """Smallest 2^a 3^b 5^c >= n (a length pocketfft transforms fast; scipy.fft.next_fast_len(n, real=True)).

    Looked up in a sorted table of those numbers (about 1,000 below 2^31); the search below serves
    longer lengths.
    """
    if n <= _SMOOTH_MAX:
        import bisect

        if not _SMOOTH:
            _SMOOTH.extend(sorted(2**a * 3**b * 5**c for a in range(32) for b in range(20) for c in range(14)
                                  if 2**a * 3**b * 5**c <= _SMOOTH_MAX))
        return _SMOOTH[bisect.bisect_left(_SMOOTH, max(n, 1))]
    best = 1 << (n - 1).bit_length()
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            m = p35
            while m < n:
                m *= 2
            best = min(best, m)
            p35 *= 3
        p5 *= 5
    return best

_U = np.finfo(float).eps


def _between(ta: np.ndarray, ua: np.ndarray, tb: np.ndarray, ub: np.ndarray) -> np.ndarray:
    """Phi(b) - Phi(a) (a <= b) from ``t = Phi(-|x|)`` and ``u = x > 0`` at both ends (no cancellation in the tails)."""
    r = np.where(ua, ta - tb, np.where(ub, 1.0 - ta - tb, tb - ta))
    return np.maximum(r, 0.0)


def _xstar(ell: np.ndarray, sigma: float, q: float) -> np.ndarray:
    """x_star(ell) from the library; -inf where exp(ell) <= 1 - q (every x has loss > ell)."""
    k = _kernel("accounting.sgm_loss_remove_inverse", "numpy")
    with np.errstate(divide="ignore", invalid="ignore"):
        xs = k(ell=ell, q=q, sigma=sigma)
    below = ell <= math.log1p(-q) if q < 1 else np.zeros(np.shape(ell), dtype=bool)
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
        # NaN and +inf (exp(ell) overflowed) -> 0, negative -> 0, at most P
        left = np.minimum(np.where(left < np.inf, np.fmax(left, 0.0), 0.0), P)
        right = P - left  # preserves the P-mass exactly
        out[:-1] += left
        out[1:] += right
    else:
        out[:-1] += P
    return out


def discretize_step(sigma: float, q: float, h: float, direction: str, *, tail: float = 1e-20, pessimistic: bool = True) -> DiscretePLD:
    """Discrete PLD of one DP-SGD step for ``direction`` in {"remove", "add"}.

    ``tail``: the loss range is cut where less than ``tail`` of the P-mass lies beyond it; the lower
    cut is rounded up (pessimistic), the upper one goes to ``ell_hi`` / ``+inf`` as described in the
    module docstring, so the result is an upper bound for every ``tail``.
    """
    return _discretize(sigma, q, h, (direction,), tail, pessimistic, False)[direction][0]


def discretize_step_pair(sigma: float, q: float, h: float, direction: str, *, tail: float = 1e-20) -> tuple[DiscretePLD, DiscretePLD]:
    """Pessimistic discretisations of one step on the grids ``h`` and ``2h`` (the same Gaussian CDF values).

    The ``2h`` grid's boundaries are every other ``h`` boundary, so its interval masses are sums of
    two ``h``-interval masses; both results are rigorous upper bounds (the ``2h`` one is used for the
    Richardson error estimate).
    """
    fine, coarse = _discretize(sigma, q, h, (direction,), tail, True, True)[direction]
    assert coarse is not None
    return fine, coarse


def discretize_step_pairs(sigma: float, q: float, h: float, *, tail: float = 1e-20) -> dict[str, tuple[DiscretePLD, DiscretePLD]]:
    """:func:`discretize_step_pair` for both directions (``"remove"``, ``"add"``), the same values, at the
    cost of about one: the Gaussian CDFs at the interval boundaries are evaluated once for both."""
    out: dict[str, tuple[DiscretePLD, DiscretePLD]] = {}
    for d, (fine, coarse) in _discretize(sigma, q, h, ("remove", "add"), tail, True, True).items():
        assert coarse is not None
        out[d] = (fine, coarse)
    return out


#: the most grid points a discretised step or a composed window (FFT length) may have: checked before anything of
#: that size is allocated (a composed window costs about 12 arrays of this length across both directions and grids,
#: 2^22 points about 400 MB); past it :class:`ConvergenceError` is raised and the callers fall back (coarser grid, RDP)
MAX_POINTS = 1 << 22


def _grid_range(lo_val: float, hi_val: float, h: float, with_coarse: bool) -> tuple[int, int]:
    """``(j0, j1)`` of the grid ``j h`` covering ``[lo_val, hi_val]``; ConvergenceError when the range is not finite
    or needs more than :data:`MAX_POINTS` points (checked before any array is allocated)."""
    if not (math.isfinite(lo_val) and math.isfinite(hi_val) and math.isfinite(h) and h > 0):
        raise ConvergenceError(f"tight accountant: the loss range [{lo_val:.3g}, {hi_val:.3g}] is not finite "
                               "in floating point; a rigorous fallback answers")
    if (hi_val - lo_val) / h + 4 > MAX_POINTS:
        raise ConvergenceError(f"tight accountant: the loss range [{lo_val:.3g}, {hi_val:.3g}] needs more than "
                               f"{MAX_POINTS} grid points at h={h:.3g}")
    if with_coarse:  # even end points: the 2h grid is every other point of the h grid
        j0 = 2 * math.floor(lo_val / (2 * h))
        return j0, max(2 * math.ceil(hi_val / (2 * h)), j0 + 2)
    j0 = math.floor(lo_val / h)
    return j0, max(math.ceil(hi_val / h), j0 + 1)


def _discretize(sigma: float, q: float, h: float, directions: Sequence[str], tail: float, pessimistic: bool,
                with_coarse: bool) -> dict[str, tuple[DiscretePLD, DiscretePLD | None]]:
    """Discrete PLD(s) of one step for each of ``directions``, the Gaussian CDFs evaluated once for all.

    Both directions' interval boundaries are ``x*(m h)`` for integers ``m`` (``m = j`` for remove,
    ``m = -j`` for add: ``-(j h) == (-j) h`` exactly), so one evaluation on the union of the two index
    ranges serves both, each value the same as a separate call's.
    """
    bad = [d for d in directions if d not in ("remove", "add")]
    if bad:
        raise ValueError(f"direction={bad[0]!r}")
    z = sps.upper_quantile(tail)  # Phi(-z) <= tail
    rng: dict[str, tuple[int, int]] = {}
    if "remove" in directions:
        # x ~ P = (1-q) N(0, s^2) + q N(1, s^2); loss L(x) increasing.  Above x_hi the P-mass is
        # <= (1-q) tail/2 + q tail/(2q) <= tail; below -z s each component has < tail.
        z_half = sps.upper_quantile(tail / 2)
        z_q = sps.upper_quantile(min(0.5, tail / (2 * q)))
        x_hi = max(z_half * sigma, 1 + z_q * sigma)
        lo_val = math.log1p(-q) if q < 1 else _loss(-z * sigma, sigma, q)
        hi_val = _loss(x_hi, sigma, q)
        rng["remove"] = _grid_range(lo_val, hi_val, h, with_coarse)
    if "add" in directions:
        # x ~ P' = N(0, s^2); loss -L(x) decreasing in x; P'(x > z s) = tail (rounded up to the lowest atom)
        lo_val = -_loss(z * sigma, sigma, q)
        hi_val = -math.log1p(-q) if q < 1 else -_loss(-z * sigma, sigma, q)
        rng["add"] = _grid_range(lo_val, hi_val, h, with_coarse)
    # boundaries in x of the intervals (ell_i, ell_{i+1}]: x*(ell_i) (remove: L > ell <=> x > x*(ell));
    # mirrored (add): loss' = -L(x) in (ell_i, ell_{i+1}] <=> L(x) in [-ell_{i+1}, -ell_i) <=> x in [x*(-ell_{i+1}), x*(-ell_i))
    m0 = min(j0 if d == "remove" else -j1 for d, (j0, j1) in rng.items())
    m1 = max(j1 if d == "remove" else -j0 for d, (j0, j1) in rng.items())
    xb = _xstar(np.arange(m0, m1 + 1) * h, sigma, q)  # x*(m h), increasing in m
    xs = xb / sigma
    x1 = (xb - 1) / sigma
    t0, u0 = sps.ndtr(-np.abs(xs)), xs > 0  # Phi(-|x|): one CDF evaluation per boundary and component
    t1, u1 = sps.ndtr(-np.abs(x1)), x1 > 0
    out: dict[str, tuple[DiscretePLD, DiscretePLD | None]] = {}
    for d, (j0, j1) in rng.items():
        if d == "remove":
            sel: slice | np.ndarray = slice(j0 - m0, j1 - m0 + 1)
        else:  # m = -j for j = j0..j1: decreasing in the index (a contiguous copy)
            sel = -(j0 + np.arange(j1 - j0 + 1)) - m0
        out[d] = _build_dir(d, t0[sel], u0[sel], t1[sel], u1[sel], q, h, j0, j1, pessimistic, with_coarse)
    return out


def _build_dir(direction: str, t0: np.ndarray, u0: np.ndarray, t1: np.ndarray, u1: np.ndarray, q: float, h: float,
               j0: int, j1: int, pessimistic: bool, with_coarse: bool) -> tuple[DiscretePLD, DiscretePLD | None]:
    """One direction's discrete PLD(s) from ``Phi(-|x|)`` (``t``) and ``x > 0`` (``u``) at its boundaries."""
    ell = np.arange(j0, j1 + 1) * h

    def cdf(t: np.ndarray, u: np.ndarray, i: int) -> float:  # Phi(x_i)
        return float(1.0 - t[i]) if u[i] else float(t[i])

    def sf(t: np.ndarray, u: np.ndarray, i: int) -> float:  # Phi(-x_i), no cancellation in the upper tail
        return float(t[i]) if u[i] else float(1.0 - t[i])

    if direction == "remove":
        g0 = _between(t0[:-1], u0[:-1], t0[1:], u0[1:])  # N(0) mass of (ell_i, ell_{i+1}]
        g1 = _between(t1[:-1], u1[:-1], t1[1:], u1[1:])
        P = (1 - q) * g0 + q * g1
        Q = g0
        P_low = (1 - q) * cdf(t0, u0, 0) + q * cdf(t1, u1, 0)
        P_top = (1 - q) * sf(t0, u0, -1) + q * sf(t1, u1, -1)
        Q_top = sf(t0, u0, -1)
    else:
        g0 = _between(t0[1:], u0[1:], t0[:-1], u0[:-1])
        g1 = _between(t1[1:], u1[1:], t1[:-1], u1[:-1])
        P = g0
        Q = (1 - q) * g0 + q * g1
        P_low = sf(t0, u0, 0)  # loss' <= ell_0  <=>  x >= x*(-ell_0)
        P_top = cdf(t0, u0, -1)  # loss' > ell_K  <=>  x < x*(-ell_K)
        Q_top = (1 - q) * cdf(t0, u0, -1) + q * cdf(t1, u1, -1)
    # floating point: each interval mass is a difference of CDF values <= 1/2 (tail-appropriate form);
    # the split divides by expm1(h): estimated error per atom ~ 8u * |interval mass scale|
    roundoff = float(8 * _U * (np.sum(np.minimum(t0[:-1], 0.5)) + 1)) if pessimistic else 0.0

    def build(PP: np.ndarray, QQ: np.ndarray, el: np.ndarray, hh: float, jj0: int, ro: float) -> DiscretePLD:
        pmf = _pmf_from_masses(PP, QQ, el, hh, pessimistic)
        pmf[0] += P_low
        if pessimistic:
            keep = 0.0
            if np.isfinite(el[-1]) and Q_top > 0 and P_top > 0:  # min(e^ell_hi Q_top, P_top) in log space (no overflow)
                lk = float(el[-1]) + math.log(Q_top)
                keep = P_top if lk >= math.log(P_top) else math.exp(lk)
            pmf[-1] += keep
            inf_mass = max(P_top - keep, 0.0)
        else:
            pmf[-1] += P_top
            inf_mass = 0.0
        return DiscretePLD(h=hh, j0=jj0, pmf=pmf, inf_mass=float(inf_mass), roundoff=ro)

    fine = build(P, Q, ell, h, j0, roundoff)
    coarse = None
    if with_coarse:
        coarse = build(P[0::2] + P[1::2], Q[0::2] + Q[1::2], ell[0::2], 2 * h, j0 // 2, roundoff)
    return fine, coarse


def _log_mgf(pld: DiscretePLD, lam: np.ndarray) -> np.ndarray:
    """log sum_j p_j exp(lam * ell_j) for each lam (finite atoms only)."""
    nz = np.flatnonzero(pld.pmf > 0)
    ell = (pld.j0 + nz) * pld.h
    lp = np.log(pld.pmf[nz])
    x = np.multiply.outer(np.asarray(lam, dtype=float), ell)
    x += lp[None, :]
    m = x.max(axis=1, keepdims=True)
    np.subtract(x, m, out=x)
    np.exp(x, out=x)
    return np.log(x.sum(axis=1)) + m[:, 0]


def _moments(pld: DiscretePLD) -> tuple[float, float]:
    j = np.arange(len(pld.pmf), dtype=float)
    tot = max(float(pld.pmf.sum()), 1e-300)
    m1 = float(pld.pmf @ j) / tot
    v = float(pld.pmf @ (j - m1) ** 2) / tot * pld.h**2
    return (pld.j0 + m1) * pld.h, max(v, pld.h**2)


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
    _suffix: tuple[int, np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def _suffix_sums(self) -> tuple[int, np.ndarray, np.ndarray]:
        """``(k0, A, S)`` over the atoms ``k >= k0`` with ``ell_k >= 0`` (only those matter for eps >= 0):
        ``A[k - k0] = sum_{j>=k} p_j`` and the scaled ``S[k - k0] = sum_{j>=k} p_j exp(-(ell_j - ell_k))`` (<= A).

        Scaled so that nothing overflows for any loss range (``exp(ell)`` overflows past 709): blocks of
        ``300/h`` atoms share a reference point; terms more than 740 nats above it underflow and are
        dropped, which only lowers S and so only raises delta (safe side).
        """
        if self._suffix is None:
            k0, pmf, A = self._mass_suffix()
            self._suffix = (k0, A, np.minimum(_scaled_suffix(pmf, self.h), A))
        return self._suffix

    def _mass_suffix(self) -> tuple[int, np.ndarray, np.ndarray]:
        """``(k0, pmf[k0:], A)``: the atoms with ``ell_k >= 0`` and ``A[k - k0] = sum_{j>=k} p_j``."""
        k0 = min(max(-self.s0, 0), len(self.pmf))
        pmf = self.pmf[k0:]
        return k0, pmf, np.cumsum(pmf[::-1])[::-1]

    def delta(self, eps: np.ndarray | float, *, extra: float = 0.0) -> np.ndarray:
        """Upper bound on delta(eps) (eps >= 0)."""
        eps = np.asarray(eps, dtype=float)
        k0, A, S = self._suffix_sums()
        n = len(A)
        # first atom strictly above eps: delta(eps) = A[k] - e^{eps - ell_k} S[k]
        idx = np.floor(eps / self.h).astype(np.int64) - self.s0 + 1 - k0
        idx = np.clip(idx, 0, n)
        Ap = np.append(A, 0.0)[idx]
        Sp = np.append(S, 0.0)[idx]
        ell_k = (self.s0 + k0 + idx) * self.h
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            d = Ap - np.exp(np.minimum(eps - ell_k, 0.0)) * Sp
        d = np.maximum(np.nan_to_num(d, nan=0.0), 0.0)
        return np.minimum(d + self.inf_mass + self.upper_tail + self.roundoff + extra, 1.0)

    def epsilon(self, delta: np.ndarray | float, *, extra: float = 0.0) -> np.ndarray:
        """Smallest eps >= 0 with delta(eps) <= delta, exactly for this discrete distribution (rounded up).

        Only the atoms from ``kb`` on are scanned: below it ``(1 - e^{-h}) A[k+1]`` (a lower bound on
        ``delta(ell_k)`` minus ``const``, as ``S <= A``) exceeds every asked delta (with a 0.1% margin),
        so no answer lies there.  Any atom the scan returns has ``delta(ell_k) <= delta``, so the result
        stays an upper bound whatever ``kb`` is.
        """
        delta = np.atleast_1d(np.asarray(delta, dtype=float))
        h = self.h
        const = self.inf_mass + self.upper_tail + self.roundoff + extra
        out = np.empty(delta.shape)
        if self._suffix is not None:
            k0, A, S = self._suffix
            kb = 0
        else:
            k0, pmf, A = self._mass_suffix()
            kb = 0
            dmax = float(np.max(delta))
            if len(A) > 1 and dmax > const:
                thr = (dmax - const) / -math.expm1(-h) * 1.001
                kb = max(len(A) - 1 - int(np.searchsorted(A[:0:-1], thr, side="right")) - 1, 0)  # #{k: A[k+1] > thr} - 1
            S = np.minimum(_scaled_suffix(pmf[kb:], h), A[kb:])
        n = len(A)
        if n == 0:  # every atom below 0: delta(0) = const
            out[...] = np.where(const >= delta, np.inf, 0.0)
            return out
        s_base = self.s0 + k0
        # delta at eps = ell_k (atoms strictly above ell_k): A[k+1] - e^{-h} S[k+1], for k >= kb
        ns = n - kb
        dk = np.empty(ns)
        dk[-1] = 0.0
        np.multiply(S[1:], -math.exp(-h), out=dk[:-1])
        dk[:-1] += A[kb + 1:]
        np.maximum(dk, 0.0, out=dk)
        dk += const  # nonincreasing in k
        for i, dt in enumerate(delta.flat):
            if const >= dt:
                out.flat[i] = np.inf
                continue
            # first k with dk[k] <= dt
            kl = int(np.searchsorted(-dk, -dt, side="left"))
            if kl >= ns:
                out.flat[i] = np.inf
                continue
            k = kb + kl
            ell_k = (s_base + k) * h
            # on (ell_{k-1}, ell_k]: delta(eps) = A[k] - e^{eps - ell_k} S[k] + const
            if k == 0 or S[kl] <= 0:
                e = ell_k
            else:
                r = A[k] + const - dt
                e = ell_k + math.log(r / S[kl]) if r > 0 else -np.inf
                e = min(max(e, (s_base + k - 1) * h), ell_k)
            out.flat[i] = max(np.nextafter(e, np.inf) + 4 * _U * abs(e), 0.0) if np.isfinite(e) else max(e, 0.0)
        return out


def _scaled_suffix(pmf: np.ndarray, h: float) -> np.ndarray:
    """``S[k] = sum_{j>=k} p_j exp(-(j - k) h)`` without overflow (see :meth:`ComposedPLD._suffix_sums`).

    Blocks of ``300/h`` atoms share a reference point; terms more than 740 nats above it underflow and
    are dropped, which only lowers S (so only raises delta).
    """
    n = len(pmf)
    S = np.empty(n)
    L = max(1, int(300.0 / h))
    M = max(1, int(740.0 / h))
    g = np.exp(-h * np.arange(min(n, L + M)))  # exp(-(ell_j - ell_b)) for j - b < L + M
    for b in range(0, n, L):
        e = min(n, b + L + M)
        with np.errstate(under="ignore"):
            w = pmf[b:e] * g[: e - b]
        C = np.cumsum(w[::-1])[::-1]
        top = min(n, b + L)
        with np.errstate(over="ignore", under="ignore"):
            S[b:top] = C[: top - b] / g[: top - b]
    return S


_LAM_GRID = np.geomspace(1e-2, 30.0, 12)
_LAM_BOTH = np.concatenate([_LAM_GRID, -_LAM_GRID])


def _window(steps: Sequence[tuple[DiscretePLD, int]], tail_tol: float) -> tuple[float, float, float, float]:
    """Certified window [lo, up] (loss units) with P[S > up], P[S < lo] <= tail_tol (Chernoff, min over a lambda grid)."""
    mom = [(_moments(p), T) for p, T in steps]
    V = sum(T * m[1] for m, T in mom)
    lam_both = _LAM_BOTH / math.sqrt(V)  # (lam, -lam): both signs at once
    k = len(_LAM_GRID)
    lam = lam_both[:k]
    if len(steps) == 1:
        lm = steps[0][1] * _log_mgf(steps[0][0], lam_both)
    else:
        lm = np.sum([T * _log_mgf(p, lam_both) for p, T in steps], axis=0)
    lm_pos, lm_neg = lm[:k], lm[k:]
    log_tol = math.log(tail_tol)
    up = float(((lm_pos - log_tol) / lam).min())
    lo = float(((log_tol - lm_neg) / lam).max())
    return lo, up, float(np.exp(np.minimum(lm_pos - lam * up, 0.0)).min()), float(np.exp(np.minimum(lm_neg + lam * lo, 0.0)).min())


def compose(steps: Sequence[tuple[DiscretePLD, int]], *, tail_tol: float = 1e-15, max_fft: int = MAX_POINTS,
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
    if not (math.isfinite(lo) and math.isfinite(up)):
        raise ConvergenceError(f"tight accountant: the composed loss window [{lo:.3g}, {up:.3g}] is not finite")
    if min(up / h, s_max) - max(lo / h, s_min) > max_fft:  # checked before any allocation
        raise ConvergenceError(f"tight accountant: the composed loss range needs an FFT longer than {max_fft}; "
                               "use a coarser grid (discretization=...) or the RDP accountant")
    s0 = max(math.floor(lo / h), s_min)
    s1 = min(math.ceil(up / h), s_max)
    s1 = max(s1, s0)
    n = _next_fast_len(s1 - s0 + 1)
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
        f = np.fft.rfft(_wrap(p, n))
        f = _cpow(f, T, overwrite=True)
        spec = f if spec is None else spec * f
        inf_keep += T * math.log1p(-min(p.inf_mass, 1.0)) if p.inf_mass < 1 else -np.inf
        roundoff += T * p.roundoff
    assert spec is not None
    c = np.fft.irfft(spec, n)
    T_total = sum(T for _, T in steps)
    # FFT rounding model: per-entry error <= u (T + log2 n) * mean |spectrum| (Higham-style bound on the transforms)
    fft_err = 4 * _U * (T_total + math.log2(n)) * float(np.abs(spec).sum() * 2 / n)
    r = s0 % n  # entry k of pmf is the atom at s0 + k: c rotated left by r, clipped at 0
    pmf = np.empty(n)
    np.maximum(c[r:], 0.0, out=pmf[:n - r])
    np.maximum(c[:r], 0.0, out=pmf[n - r:])
    inf_mass = -math.expm1(inf_keep)
    return ComposedPLD(
        h=h, s0=s0, pmf=pmf, inf_mass=inf_mass, upper_tail=upper_tail, alias=upper_tail + lower_tail,
        roundoff=roundoff + fft_err * n, n_fft=n, certified=window is None, window=(lo, up),
    )


def _wrap(p: DiscretePLD, n: int) -> np.ndarray:
    """The PMF placed cyclically on Z/n (atom j0 + k at (j0 + k) mod n; overlapping atoms add)."""
    K = len(p.pmf)
    if n < K:
        return np.bincount((p.j0 + np.arange(K)) % n, weights=p.pmf, minlength=n)
    a = np.zeros(n)
    st = p.j0 % n
    first = min(K, n - st)
    a[st:st + first] = p.pmf[:first]
    a[:K - first] = p.pmf[first:]
    return a


def _cpow(f: np.ndarray, T: int, *, overwrite: bool = False) -> np.ndarray:
    """``f ** T`` for a complex array and an integer ``T >= 1`` by repeated squaring (2 log2 T products).

    Much cheaper than ``numpy.power`` on complex arrays (a complex log and exp per entry); the relative
    rounding error grows like ``T u`` in both cases (the a-posteriori FFT error model uses ``T``).
    ``overwrite``: ``f`` (complex128) may be squared in place instead of copied.

    Entries with ``|f| <= exp(-800/T)`` are set to 0 without the products: their T-th power is below
    ``e^-800``, far under the smallest subnormal (``4.9e-324``), so the products give 0 there as well
    (at most a subnormal, which moves no normal output of the inverse transform).  For a composed
    distribution of many steps only the lowest frequencies survive the power (about 100 of the
    ``n/2`` entries for T in the thousands), so this skips most of the work; NaN entries are kept.
    """
    if T > 1 and len(f) > 64:
        small = np.abs(f) <= math.exp(-800.0 / T)
        n_keep = len(f) - int(np.count_nonzero(small))
        if n_keep < len(f) // 2:
            out = np.zeros(len(f), dtype=complex)
            keep = np.flatnonzero(~small)
            out[keep] = _cpow(f[keep], T, overwrite=True)  # a fresh array
            return out
    result: np.ndarray | None = None
    base = f if overwrite and f.dtype == np.complex128 else np.array(f, dtype=complex)  # squared in place
    while True:
        if T & 1:
            result = base.copy() if result is None else np.multiply(result, base, out=result)
        T >>= 1
        if not T:
            break
        np.multiply(base, base, out=base)
    assert result is not None
    return result


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


def default_interval(total_steps: int, delta: float = 1e-5) -> float:
    """Grid spacing for a run of ``total_steps`` steps: the connect-the-dots error per step is O(h^2)."""
    return float(min(2e-2, max(2e-4, 0.05 / math.sqrt(total_steps))))


__all__ = ["ComposedPLD", "DiscretePLD", "MAX_POINTS", "compose", "default_interval", "discretize_step", "discretize_step_pair",
           "discretize_step_pairs", "gdp_delta", "gdp_epsilon", "gdp_log_delta", "inclusion_count_delta",
           "inclusion_count_epsilon"]
