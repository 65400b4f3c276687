"""One step of the privacy-loss distribution on a grid: the Poisson-subsampled Gaussian's loss and its
inverse, the pessimistic (and optimistic) connect-the-dots discretisation of one step in both directions
(:class:`DiscretePLD`, :func:`discretize_step` and the fine/coarse pair that shares its CDF values), the
grid range and the FFT sizes.  The method and its guarantees are described in :mod:`.pld`, which
re-exports these names.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
    #: the same estimate per atom (sums to ``roundoff``; each interval's share on the higher of its two atoms, the
    #: constant term on the top atom), or None; :func:`symdp.accountants.pld.compose` may weight it by its effect
    atom_err: np.ndarray | None = None


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


def _remove_range(sigma: float, q: float, tail: float) -> tuple[float, float]:
    """``(lo, hi)`` loss values of one step's remove direction at ``tail``: x ~ P = (1-q) N(0, s^2) + q N(1, s^2),
    loss L(x) increasing.  Above x_hi the P-mass is <= (1-q) tail/2 + q tail/(2q) <= tail; below -z s each
    component has < tail."""
    x_hi = max(sps.upper_quantile(tail / 2) * sigma, 1 + sps.upper_quantile(min(0.5, tail / (2 * q))) * sigma)
    lo_val = math.log1p(-q) if q < 1 else _loss(-sps.upper_quantile(tail) * sigma, sigma, q)
    return lo_val, _loss(x_hi, sigma, q)


def step_loss_range(sigma: float, q: float, tail: float) -> float:
    """Width (nats) of one step's discretised loss range (the remove direction's, the wider one) at ``tail``:
    the grid has about ``width / h`` points.  ``inf`` where it is not finite in floating point.  Cheap (two
    kernel calls): callers check a grid's size with it before building anything."""
    with np.errstate(all="ignore"):
        lo_val, hi_val = _remove_range(sigma, q, tail)
        w = hi_val - lo_val
    return float(w) if math.isfinite(w) else math.inf


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
        rng["remove"] = _grid_range(*_remove_range(sigma, q, tail), h, with_coarse)
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
    ierr = 8 * _U * np.minimum(t0[:-1], 0.5)  # per interval (ell_i, ell_{i+1}]
    roundoff = float(8 * _U * (np.sum(np.minimum(t0[:-1], 0.5)) + 1)) if pessimistic else 0.0  # = sum(ierr) + 8u

    def atom_err(ie: np.ndarray) -> np.ndarray | None:
        if not pessimistic:
            return None
        ae = np.zeros(len(ie) + 1)
        ae[1:] = ie
        ae[-1] += 8 * _U
        return ae

    def build(PP: np.ndarray, QQ: np.ndarray, el: np.ndarray, hh: float, jj0: int, ro: float,
              ae: np.ndarray | None) -> DiscretePLD:
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
        if not (np.all(np.isfinite(pmf)) and math.isfinite(inf_mass)):  # never pass NaN on: it would poison every bound
            raise ConvergenceError(f"tight accountant: the discretisation of a step (q={q!r}, h={hh!r}) is not "
                                   "finite in floating point; a rigorous fallback answers")
        return DiscretePLD(h=hh, j0=jj0, pmf=pmf, inf_mass=float(inf_mass), roundoff=ro, atom_err=ae)

    fine = build(P, Q, ell, h, j0, roundoff, atom_err(ierr))
    coarse = None
    if with_coarse:
        coarse = build(P[0::2] + P[1::2], Q[0::2] + Q[1::2], ell[0::2], 2 * h, j0 // 2, roundoff,
                       atom_err(ierr[0::2] + ierr[1::2]))
    return fine, coarse


def _cell_masses(xb: np.ndarray, sigma: float, q: float, direction: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(P, Q, errP, errQ)`` of the cells cut at the x-boundaries ``xb`` (cell 0 below the first boundary, the last
    one above the last; remove: ``xb`` increasing, add: decreasing), with absolute error bounds of the masses.

    ``t = Phi(-|x|)`` has a relative error of a few ulp; a difference of two of them (tail-appropriate form, as
    :func:`_between`) is off by at most ``8u (t_a + t_b + [signs differ])``; the mixture adds ``2u`` relative."""
    inc = direction == "remove"
    if inc:
        xb = np.maximum.accumulate(xb)  # the inverse kernel is monotone up to rounding: any partition is allowed
        xa = np.concatenate([[-np.inf], xb])
        xz = np.concatenate([xb, [np.inf]])
    else:
        xb = np.minimum.accumulate(xb)
        xa = np.concatenate([xb, [-np.inf]])  # cell j = [xb_j, xb_{j-1})
        xz = np.concatenate([[np.inf], xb])

    def tu(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(invalid="ignore"):
            return np.where(np.isfinite(x), sps.ndtr(-np.abs(np.where(np.isfinite(x), x, 0.0))), 0.0), x > 0

    out = []
    for shift in (0.0, 1.0):
        ta, ua = tu((xa - shift) / sigma)
        tz, uz = tu((xz - shift) / sigma)
        g = _between(ta, ua, tz, uz)
        err = 8 * _U * (ta + tz + (ua != uz))
        out.append((g, err))
    (g0, e0), (g1, e1) = out
    mix, emix = (1 - q) * g0 + q * g1, (1 - q) * e0 + q * e1
    emix = emix + 2 * _U * mix
    return (g0, mix, e0, emix) if not inc else (mix, g0, emix, e0)


def _lower_atoms(P: np.ndarray, Q: np.ndarray, eP: np.ndarray, eQ: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(mass, lstar)``: a lower bound on each cell's P-mass and on its privacy loss ``log(P/Q)`` (``-inf``: no mass)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rP = np.where(P > 0, eP / P, np.inf)
        ok = rP < 0.5
        mass = np.where(ok, P * (1 - rP), 0.0)
        ls = np.where(Q > 0, np.log(mass) - np.log(Q + eQ), np.inf)
        ls = ls - 8 * _U * np.abs(ls) - 128 * _U  # the logs' and the later division's rounding, downwards
        ls = np.where(ok & (mass > 0), ls, -np.inf)
    return mass, ls


def discretize_step_lower(sigma: float, q: float, h: float, direction: str, *, tail: float = 1e-20) -> DiscretePLD:
    r"""A discrete PLD of one DP-SGD step on the grid ``j h`` that is *dominated* by the true pair (a rigorous
    lower bound: every privacy profile computed from it, alone or composed, is below the true one).

    **Cells with their own likelihood ratio.**  The loss axis is cut into cells ``(b_{j-1}, b_j]``, one per grid
    point ``ell_j``; merging every cell into one outcome is a post-processing of the mechanism's output, so the
    merged pair (one atom per cell, at the cell's exact loss ``log(P(cell) / Q(cell))``) is dominated by the true
    one (data processing).  Each atom is then moved *down* to the grid point at or below its loss, which only
    lowers every delta (coupled under P, pointwise).  Any cut points are valid; they are chosen so that each
    cell's loss lands just above its grid point: first the midpoints ``ell_j + h/2``, then shifted by the
    measured offsets so that the rounding costs ``O(h^2)`` per step (as connect-the-dots does on the other
    side), not the ``O(h)`` of rounding every loss down.  The cut points live in x (the Gaussian output): the
    masses are differences of Gaussian CDFs at exactly those x, so the inverse loss kernel's accuracy does not
    enter.  Floating point: each mass is lowered by its error bound and each loss by the bound on its log.
    The lowest cell (the lower tail) and the highest (the upper tail) are merged the same way; an atom below
    the grid is dropped (loss -inf) and one above it is kept at the top point.  ``inf_mass`` is 0.
    """
    if direction not in ("remove", "add"):
        raise ValueError(f"direction={direction!r}")
    rng = _discretize_range(sigma, q, h, direction, tail)
    j0, j1 = rng
    K = j1 - j0 + 1
    ell = np.arange(j0, j1 + 1) * h
    inner = ell[:-1] + h / 2  # cut between ell_j and ell_{j+1}
    sgn = 1.0 if direction == "remove" else -1.0

    def cells(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xb = _xstar(sgn * b, sigma, q)
        P, Q, eP, eQ = _cell_masses(xb, sigma, q, direction)
        return _lower_atoms(P, Q, eP, eQ)

    mass, ls = cells(inner)
    off = ls - ell  # where each cell's loss lands relative to its grid point (O(h^2) for smooth densities)
    fin = np.isfinite(off) & (mass > 0)
    if K > 2 and np.any(fin):
        # move each cell's centre so that its loss lands a little above its grid point: target offset
        # m = max(|off| / 4, 1e-3 h^2); centre shift c = m - off (clipped), cut between j and j+1 = mean of c
        m = np.maximum(np.abs(off) / 4, 1e-3 * h * h)
        c = np.clip(np.where(fin, m - off, 0.0), -h / 4, h / 4)
        cuts = inner + (c[:-1] + c[1:]) / 2
        mass2, ls2 = cells(cuts)
        if np.all(np.isfinite(mass2)):
            mass, ls = mass2, ls2
    with np.errstate(invalid="ignore"):
        idx = np.floor(ls / h) - j0
    idx = np.where(np.isnan(idx), -1.0, idx)
    idx = np.minimum(idx, K - 1)  # above the grid: kept at the top point (moved down)
    keep = (idx >= 0) & (mass > 1e-290)  # dropping a mass (to loss -inf) only lowers delta; subnormals are slow
    pmf = np.bincount(idx[keep].astype(np.int64), weights=mass[keep], minlength=K)
    if not np.all(np.isfinite(pmf)):
        raise ConvergenceError(f"tight accountant: the lower discretisation of a step (q={q!r}, h={h!r}) is not "
                               "finite in floating point")
    return DiscretePLD(h=h, j0=j0, pmf=pmf, inf_mass=0.0, roundoff=0.0)


def _discretize_range(sigma: float, q: float, h: float, direction: str, tail: float) -> tuple[int, int]:
    """``(j0, j1)`` of one direction's grid, the same as :func:`_discretize`'s."""
    if direction == "remove":
        return _grid_range(*_remove_range(sigma, q, tail), h, False)
    z = sps.upper_quantile(tail)
    lo_val = -_loss(z * sigma, sigma, q)
    hi_val = -math.log1p(-q) if q < 1 else -_loss(-z * sigma, sigma, q)
    return _grid_range(lo_val, hi_val, h, False)
