"""Composition of discretised privacy-loss distributions by FFT (:func:`compose`, :class:`ComposedPLD`):
the window sized by a Chernoff bound on the mass above it, the wrap-around (alias) bound, the round-off
estimate, and epsilon(delta) / delta(epsilon) of the composition from scaled suffix sums.  The method is
described in :mod:`.pld`, which re-exports these names.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import ConvergenceError
from .pld_grid import _U, MAX_POINTS, DiscretePLD, _next_fast_len


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
    # elementwise sums, not ``@``: a BLAS dot product of one vector starts OpenBLAS's threads, which on a busy
    # machine cost 40 ms per call for 6e4 atoms (measured under load 8 on 2 cores) against 0.2 ms this way
    j = np.arange(len(pld.pmf), dtype=float)
    tot = max(float(pld.pmf.sum()), 1e-300)
    m1 = float((pld.pmf * j).sum()) / tot
    v = float((pld.pmf * (j - m1) ** 2).sum()) / tot * pld.h**2
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
    #: the steps' rounding allowance weighted by its effect (:func:`_localized`): ``(part of roundoff it replaces,
    #: lambda grid, [(atom losses, atom errors, count, log-MGF bound of the other steps)], +inf mass)``
    _round_loc: tuple[float, np.ndarray, list[tuple[np.ndarray, np.ndarray, int, np.ndarray]], float] | None = field(
        default=None, repr=False)

    def step_round_allowance(self, eps: float) -> float:
        """The steps' rounding allowance on delta at ``eps`` (``roundoff`` less the FFT part without localisation).

        An error ``d_j`` in one step's atom at loss ``ell_j`` changes the composed delta(eps) by at most
        ``|d_j| H(eps - ell_j)``, ``H`` the hockey-stick divergence of the other steps' composition (exact or
        rounded PMFs, the telescoping identity ``p'^T - p^T = sum_k p^k (p' - p) p'^(T-1-k)`` holds exactly), and
        ``H(x) <= P[L > x] <= min(1, inf mass + min_lambda exp(log M(lambda) - lambda x))`` (Chernoff), with
        ``M`` the product of the other steps' moment-generating functions bounded with their atoms raised by
        their error bounds.  Nonincreasing in ``eps``.
        """
        if self._round_loc is None:
            return self.roundoff
        sr, lam, steps, inf = self._round_loc
        tot = 0.0
        for ell, err, T, lm_other in steps:
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                x = np.multiply.outer(lam, eps - ell)  # (L, K)
                np.subtract(lm_other[:, None], x, out=x)
                w = np.exp(np.minimum(x.min(axis=0), 0.0)) + inf
            tot += T * float(np.sum(err * np.minimum(np.nan_to_num(w, nan=1.0), 1.0)))
        return min(sr, tot * (1 + 1e-9) + 1e-300)

    def _loc_extra(self, eps: float) -> float:
        """``extra`` that replaces the steps' flat rounding allowance by :meth:`step_round_allowance` at ``eps``."""
        if self._round_loc is None:
            return 0.0
        return self.step_round_allowance(eps) - self._round_loc[0]

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
        if self._round_loc is not None:  # the rounding allowance weighted at each eps (only lowers it)
            d = d + np.vectorize(self._loc_extra, otypes=[float])(np.maximum(eps, 0.0))
        return np.minimum(d + self.inf_mass + self.upper_tail + self.roundoff + extra, 1.0)

    def epsilon(self, delta: np.ndarray | float, *, extra: float = 0.0, round_down: bool = False) -> np.ndarray:
        """Smallest eps >= 0 with delta(eps) <= delta (see :meth:`_epsilon`).  With a localised rounding allowance
        (upper readout only): read first without the steps' allowance (``eps0``, a lower bound on the answer),
        then with the allowance weighted at ``eps0``, which is at least its value at the answer (nonincreasing)."""
        if self._round_loc is None or round_down:
            return self._epsilon(delta, extra=extra, round_down=round_down)
        delta = np.atleast_1d(np.asarray(delta, dtype=float))
        sr = self._round_loc[0]
        e0 = self._epsilon(delta, extra=extra - sr)
        out = np.empty(delta.shape)
        for i, (dt, ee) in enumerate(zip(delta.flat, e0.flat)):
            x = self._loc_extra(float(ee)) if math.isfinite(ee) else 0.0
            out.flat[i] = self._epsilon(np.array([dt]), extra=extra + x)[0]
        return out

    def _epsilon(self, delta: np.ndarray | float, *, extra: float = 0.0, round_down: bool = False) -> np.ndarray:
        """Smallest eps >= 0 with delta(eps) <= delta, exactly for this discrete distribution (rounded up; with
        ``round_down``, rounded down and solved below the first atom too: the readout of a lower bound).

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
            if S[kl] <= 0:  # no atom at or above ell_k: delta is const <= dt on (ell_{k-1}, ell_k]
                e = ell_k if not round_down else ((s_base + k - 1) * h if k > 0 else -np.inf)
            elif k == 0 and not round_down:
                e = ell_k
            else:
                # below the first atom (k == 0) the same form holds on all of (-inf, ell_0]
                r = A[k] + const - dt
                e = ell_k + math.log(r / S[kl]) if r > 0 else -np.inf
                e = min(max(e, (s_base + k - 1) * h), ell_k) if k > 0 else min(e, ell_k)
            if not np.isfinite(e):
                out.flat[i] = max(e, 0.0)
            elif round_down:
                out.flat[i] = max(np.nextafter(e, -np.inf) - 4 * _U * abs(e), 0.0)
            else:
                out.flat[i] = max(np.nextafter(e, np.inf) + 4 * _U * abs(e), 0.0)
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
    if V != V or V == math.inf:
        raise ConvergenceError("tight accountant: the discretised privacy loss has no finite variance (NaN or "
                               "overflow in the discretisation)")
    if V <= 0 or any(not np.any(p.pmf > 0) for p, _ in steps):
        # a point mass per step, or a step with no finite mass at all: the exact support, no tails
        h = steps[0][0].h
        return (sum(T * p.j0 for p, T in steps) * h, sum(T * (p.j0 + len(p.pmf) - 1) for p, T in steps) * h, 0.0, 0.0)
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


def _localized(steps: Sequence[tuple[DiscretePLD, int]], inf_mass: float) -> tuple[float, np.ndarray, list[tuple[np.ndarray, np.ndarray, int, np.ndarray]], float] | None:
    """The data of :meth:`ComposedPLD.step_round_allowance`, or None (a step without per-atom errors)."""
    if any(p.atom_err is None or len(p.atom_err) != len(p.pmf) for p, _ in steps):
        return None
    V = sum(T * _moments(p)[1] for p, T in steps)
    if not (V > 0 and math.isfinite(V)):
        return None
    lam = np.geomspace(0.03, 60.0, 16) / math.sqrt(V)
    lms = []
    blocks = []
    for p, _ in steps:
        # blocks of 32 atoms: their errors summed onto the block's highest loss (H is nondecreasing in the loss)
        K = len(p.pmf)
        starts = np.arange(0, K, 32)
        assert p.atom_err is not None
        err_b = np.add.reduceat(p.atom_err, starts)
        top = np.minimum(starts + 31, K - 1)
        blocks.append(((p.j0 + top) * p.h, err_b))
        # log M(lambda) of the atoms raised by their errors: M(pmf) + M(errors), the latter on the blocks' tops
        lm_p = _log_mgf(p, lam)
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.multiply.outer(lam, (p.j0 + top) * p.h) + np.log(err_b)[None, :]
            amax = np.max(a, axis=1, keepdims=True)
            amax = np.where(np.isfinite(amax), amax, 0.0)
            lm_e = np.log(np.exp(a - amax).sum(axis=1)) + amax[:, 0]
        lm = np.logaddexp(lm_p, lm_e)
        lms.append(lm + 1e-12 * (1 + np.abs(lm)))
    tot = sum(T * lm for (_, T), lm in zip(steps, lms))
    out = []
    for (_p, T), lm, (ell_b, err_b) in zip(steps, lms, blocks):
        other = tot - lm  # the other T_total - 1 steps
        nz = err_b > 0
        out.append((ell_b[nz], err_b[nz], T, np.where(np.isfinite(other), other, np.inf)))
    sr = sum(T * p.roundoff for p, T in steps)
    return sr, lam, out, min(1.0, inf_mass * (1 + 1e-9))


def compose(steps: Sequence[tuple[DiscretePLD, int]], *, tail_tol: float = 1e-15, max_fft: int = MAX_POINTS,
            window: tuple[float, float] | None = None, localized_roundoff: bool = False) -> ComposedPLD:
    """Compose discrete PLDs (each with a step count) on a common grid by one FFT.

    ``window=(lo, up)`` reuses a window found for another grid: the result is then NOT certified
    (no tail bound is added; ``upper_tail`` is NaN) and serves only as an error estimate.
    ``localized_roundoff``: the steps' rounding allowance (``T * roundoff`` per step, each atom's share counted
    at full weight) is weighted by each atom's effect on delta (:meth:`ComposedPLD.step_round_allowance`): an
    error in an atom far below eps moves delta(eps) by at most its size times the chance that the other steps
    carry the loss past eps.  Steps whose discretisation gives no per-atom errors keep the flat allowance.
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
        _round_loc=_localized(steps, inf_mass) if localized_roundoff else None,
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
