"""Composition of discretised privacy-loss distributions by FFT (:func:`compose`, :class:`ComposedPLD`):
the window sized by a Chernoff bound on the mass above it, the wrap-around (alias) bound, the FFT's rounding
bound (:func:`_fft_allowance`: the most amplified frequencies recomputed in longdouble), and epsilon(delta) / delta(epsilon) of the composition from scaled suffix sums.  The method is
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
    roundoff: float  # floating-point error on delta: the steps' T * roundoff plus the FFT's (:func:`_fft_allowance`)
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
    fs = []
    for p, T in steps:
        f = np.fft.rfft(_wrap(p, n))
        fs.append(f.copy())
        f = _cpow(f, T, overwrite=True)
        spec = f if spec is None else spec * f
        inf_keep += T * math.log1p(-min(p.inf_mass, 1.0)) if p.inf_mass < 1 else -np.inf
        roundoff += T * p.roundoff
    assert spec is not None
    fft_err = _fft_allowance(steps, n, fs, spec)  # replaces spec's most error-amplifying entries by accurate ones
    c = np.fft.irfft(spec, n)
    r = s0 % n  # entry k of pmf is the atom at s0 + k: c rotated left by r, clipped at 0
    pmf = np.empty(n)
    np.maximum(c[r:], 0.0, out=pmf[:n - r])
    np.maximum(c[:r], 0.0, out=pmf[n - r:])
    inf_mass = -math.expm1(inf_keep)
    return ComposedPLD(
        h=h, s0=s0, pmf=pmf, inf_mass=inf_mass, upper_tail=upper_tail, alias=upper_tail + lower_tail,
        roundoff=roundoff + fft_err, n_fft=n, certified=window is None, window=(lo, up),
        _round_loc=_localized(steps, inf_mass) if localized_roundoff else None,
    )


#: unit roundoff of numpy's longdouble where it is the x87 80-bit format (64-bit significand), else 0: the accurate
#: recomputation of :func:`_fft_allowance` is then skipped and every frequency keeps the float64 bound
_ULD = float(np.finfo(np.longdouble).eps) / 2 if np.finfo(np.longdouble).nmant >= 63 else 0.0
_PI_LD = np.longdouble("3.141592653589793238462643383279502884197")
_ETA_FFT = 20 * _U  # per radix-2 level of pocketfft's transforms (model constant, see _fft_allowance)
_EPS_MUL = 3 * _U  # one complex product: sqrt(2) gamma_2 = 2.83u (Higham (3.10)) plus gradual underflow
_K_MAX = 96  # frequencies recomputed in longdouble at most
_K_REL = 1e-6  # a frequency is recomputed where its bound would drop by more than this fraction of the largest drop
_LD_WORK = 2.5e5  # (frequencies x atoms) of the longdouble direct sums at most


def _fft_rel(n: int) -> float:
    """Relative error (componentwise on sum|input|, or normwise) of one length-``n`` transform: ``1.01 L eta``,
    ``L = ceil(log2 n)`` (``(1 + eta)^L - 1 <= 1.01 L eta`` as ``L eta < 1e-12``)."""
    return 1.01 * math.ceil(math.log2(n)) * _ETA_FFT if n > 1 else 0.0


def _log_up(x: np.ndarray) -> np.ndarray:
    """An upper bound on ``log x`` (x > 0): numpy's log plus 8 ulp of the result."""
    y = np.log(x)
    return y + 8 * _U * np.abs(y)


def _exp_up(z: np.ndarray) -> np.ndarray:
    """An upper bound on ``exp z`` where ``z`` is a computed product ``T * (upper bound on log)`` (one rounding)."""
    with np.errstate(under="ignore", over="ignore"):
        return np.exp(z + 8 * _U * np.abs(z)) * (1 + 8 * _U)


def _power_bounds(af: Sequence[np.ndarray], E: Sequence[float], P: Sequence[float],
                  Ts: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """``(A, B)`` per frequency: ``B >= |prod_s f_s^T_s|`` and ``|prod_s g_s^T_s|``, ``A >= |prod f^T - prod g^T|``
    for any ``f_s, g_s`` with ``|f_s - g_s| <= E_s``, ``|g_s| = af_s`` and ``|f_s| <= P_s`` (see :func:`_fft_allowance`)."""
    lM = []
    for a, e, p in zip(af, E, P):
        M = np.maximum(np.minimum(a + e, p), a)
        lM.append(_log_up(np.maximum(M, 1e-300)))
    LB = sum(T * l for T, l in zip(Ts, lM))
    assert isinstance(LB, np.ndarray)
    A = np.zeros(len(LB))
    for T, e, l in zip(Ts, E, lM):
        A += T * e * _exp_up(LB - l)  # T E M_s^(T-1) prod_{r != s} M_r^T_r
    return A * (1 + 4 * _U * len(Ts)), _exp_up(LB)


def _twiddles(n: int) -> tuple[int, np.ndarray, np.ndarray]:
    """``(B, Hi, Lo)``: ``exp(-2 pi i r / n) ~= Hi[r // B] * Lo[r % B]`` in longdouble, each table entry within
    24 u_ld of the truth in modulus (angle reduced to [-pi, pi]: ``2 pi x / n`` rounded 3 times, <= 3.01 pi u_ld,
    plus cosl/sinl within 4 u_ld absolute each), the product within 64 u_ld."""
    B = math.isqrt(max(n - 1, 0)) + 1

    def tw(x: np.ndarray) -> np.ndarray:
        x = np.where(x > n // 2, x - n, x).astype(np.longdouble)
        th = (2 * _PI_LD) * x / n
        out = np.empty(len(x), dtype=np.clongdouble)
        out.real = np.cos(th)
        out.imag = -np.sin(th)
        return out

    return B, tw((np.arange(n // B + 1, dtype=np.int64) * B) % n), tw(np.arange(B, dtype=np.int64) % n)


_BLOCK = 32  # :func:`_block_sum`'s groups


def _block_sum(x: np.ndarray) -> np.ndarray:
    """Row sums: groups of at most :data:`_BLOCK` consecutive terms summed by numpy (in whatever order: at most
    ``_BLOCK - 1`` additions each, error <= gamma_31 of the group's sum of |terms|, Higham (4.4)), then the group
    sums by a binary tree of depth ``ceil(log2 G)`` (zeros padded to a power of two): in all, each component's
    error <= gamma_d sum |terms| with ``d = _BLOCK - 1 + ceil(log2 ceil(m / _BLOCK))`` (:func:`_sum_depth`)."""
    rows, m = x.shape
    q = m // _BLOCK
    parts = []
    if q:
        parts.append(x[:, :q * _BLOCK].reshape(rows, q, _BLOCK).sum(axis=2))
    if m % _BLOCK:
        parts.append(x[:, q * _BLOCK:].sum(axis=1, keepdims=True))
    y = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
    g = y.shape[1]
    w = 1 << max(g - 1, 0).bit_length()
    if w != g:
        y = np.concatenate([y, np.zeros((rows, w - g), dtype=y.dtype)], axis=1)
    while y.shape[1] > 1:
        h = y.shape[1] // 2
        y = y[:, :h] + y[:, h:]
    return y[:, 0]


def _sum_depth(m: int) -> int:
    """The ``d`` of :func:`_block_sum` for rows of ``m`` terms."""
    g = -(-max(m, 1) // _BLOCK)
    return _BLOCK - 1 + max(g - 1, 0).bit_length()


def _dft_ld(p: DiscretePLD, n: int, K: np.ndarray, tw: tuple[int, np.ndarray, np.ndarray]) -> np.ndarray:
    """``sum_j p_j exp(-2 pi i k (j0 + j) / n)`` for ``k`` in ``K`` in longdouble, by direct sums (the exact DFT of
    :func:`_wrap`'s cyclic PMF, before its additions); error bound in :func:`_fft_allowance`."""
    B, Hi, Lo = tw
    m = len(p.pmf)
    t = (p.j0 + np.arange(m, dtype=np.int64)) % n
    pl = p.pmf.astype(np.longdouble)
    out = np.empty(len(K), dtype=np.clongdouble)
    rows = max(1, int(65536 // max(m, 1)))
    for i in range(0, len(K), rows):
        hi, lo = np.divmod((K[i:i + rows, None] * t[None, :]) % n, B)
        w = Hi[hi]
        w *= Lo[lo]
        w *= pl[None, :]
        out[i:i + rows] = _block_sum(w)
    return out


def _fft_allowance(steps: Sequence[tuple[DiscretePLD, int]], n: int, fs: list[np.ndarray], spec: np.ndarray) -> float:
    r"""Rigorous bound (under the FFT model below) on the total error of ``irfft(spec)`` on the composed PMF, summed
    over the ``n`` entries; ``spec`` (``prod_s rfft(p_s)^T_s`` in float64, ``fs`` the steps' ``rfft``) is updated in
    place: its most error-amplifying entries are replaced by accurate ones.

    Notation: ``u = 2^-53``, ``u_ld = 2^-64``; ``f_s`` the exact DFT of step ``s``'s (float64) PMF on Z/n,
    ``P_s >= sum p_s >= |f_s|``, ``S = prod_s f_s^T_s`` the exact spectrum of the composition.

    1. Delta from the spectrum: delta(eps) reads the PMF ``c`` with weights in [0, 1] (``(1 - e^{eps - ell})^+``),
       and clipping ``c`` at 0 only moves it towards the truth (>= 0), so the error on delta is at most
       ``sum_j |c^_j - c_j| <= sqrt(n) ||c^ - c||_2``.  With ``c~`` the exact inverse DFT of the computed ``S^``:
       ``sqrt(n) ||c~ - c||_2 = ||S^ - S||_2`` (Parseval, the full Hermitian spectrum; its norm^2 is at most twice
       the half spectrum's), and ``sqrt(n) ||c^ - c~||_2 <= eps_F ||S^||_2`` (normwise bound of the inverse
       transform, ``eps_F = 1.01 ceil(log2 n) eta + 2u``, the ``2u`` for the ``1/n`` scaling).
    2. Per frequency, ``|S^_k - S_k| <= A_k + R_k``.  Amplification: for ``|f - g| <= E``,
       ``|f^T - g^T| <= T E M^(T-1)`` with ``M >= max(|f|, |g|)``, and for products
       ``|prod a_s - prod b_s| <= sum_s |a_s - b_s| prod_{r != s} max(|a_r|, |b_r|)`` (telescoping); ``M`` is
       ``max(min(|g| + E, P), |g|)``.  Power rounding: repeated squaring gives ``g^T prod_m (1 + d_m)^{w_m}``, the
       squaring that makes ``g^(2^i)`` weighted ``floor(T / 2^i)`` and each multiplication into the result 1, so
       ``sum w_m <= T + bitlen(T)`` and the relative error is at most ``(1 + eps_mul)^W - 1``,
       ``W = sum_s (T_s + bitlen(T_s)) + #steps`` (the products of the steps included), ``eps_mul = 3u`` for a
       complex product (``sqrt(2) gamma_2``, Higham (3.10), plus < 2^-80 relative from gradual underflow of a
       component while the product's modulus stays above 2^-990).  That holds where the lower bound
       ``sum_s T_s log|g_s| >= -650`` keeps every intermediate normal (``|g| <= 1 + tiny``: the partial powers are
       at least the final one); elsewhere (including the entries :func:`_cpow` sets to 0) the bound is
       ``|S^_k| + B_k``, ``B_k = prod M^T >= |S_k|``.
    3. The float64 forward transform (``g = rfft``): ``|g_k - f_k| <= E = 1.01 ceil(log2 n) eta P`` with
       ``eta = 20u`` per radix-2 level (a MODEL of pocketfft, not a proof: for a radix-2 Cooley-Tukey FFT the
       componentwise error is at most ``((1 + eta_2)^L - 1) |A_L|...|A_1| |p| = ((1 + eta_2)^L - 1) sum|p|``, the
       butterflies' unit-modulus paths from input j to output k being unique, ``eta_2 = mu + gamma_4 (sqrt2 + mu)
       ~ 7u`` as in Higham Thm 24.2; pocketfft's radix-3/4/5 passes are taken at ``eta = 20u`` per factor of 2 in
       ``n``, and ``eps_F`` above uses the same constant normwise), plus ``(ceil(m/n) + 1) u P`` where
       :func:`_wrap` adds overlapping atoms.  The power amplifies it by ``T M^(T-1)``, large only at the lowest
       frequencies, so:
    4. At the frequencies ``K`` where ``A_k + R_k`` is largest (at most :data:`_K_MAX`, those within 1% of the
       largest gain, :data:`_LD_WORK` bounding the work), ``f_s`` is recomputed by direct sums in longdouble
       (x87, ``u_ld = 2^-64``): twiddles ``Hi[r // B] Lo[r % B]`` within ``mu = 64 u_ld`` (:func:`_twiddles`), the
       product with ``p_j`` rounded (``u_ld``), :func:`_block_sum` (``gamma_d`` per component, ``sqrt2 gamma_d``
       in modulus, ``d`` = :func:`_sum_depth` of the longest PMF): ``E_ld = 1.01 (mu + u_ld + 1.42 d u_ld) P``.  The
       powers and products are taken in longdouble (``eps_mul = 3 u_ld``) and the result rounded to complex128
       (``u |S|``).  These values replace ``spec``'s there, with the bound of 2. from ``E_ld``.
    Every bound is computed upwards (``_log_up``/``_exp_up`` and factors ``1 + c u``), the total times 1.001.
    Where longdouble is plain double (:data:`_ULD` = 0) ``K`` is empty and the float64 bound holds everywhere.
    """
    Ts = [int(T) for _, T in steps]
    P = [float(np.abs(p.pmf).sum()) * (1 + (len(p.pmf) + 4) * _U) for p, _ in steps]  # >= sum p >= |f_k|
    rel = _fft_rel(n)
    E = [rel * Ps + ((-(-len(p.pmf) // n) + 1) * _U * Ps if n < len(p.pmf) else 0.0) for (p, _), Ps in zip(steps, P)]
    af = [np.abs(f) * (1 + 2 * _U) for f in fs]
    err = np.abs(spec) * (1 + 2 * _U)
    live = np.ones(len(spec), dtype=bool)
    if min(Ts) >= 2:  # "dead" frequencies: some step has M_s <= e^(-700/T_s), so |S|, B <= Q e^-700 there
        for a, e, Ps, T in zip(af, E, P, Ts):
            live &= np.maximum(np.minimum(a + e, Ps), a) > math.exp(-700.0 / T)
        Q = math.exp(sum(T * max(math.log(Ps), 0.0) for T, Ps in zip(Ts, P)) * (1 + 1e-9) + 1e-9) if all(P) else 1.0
        # B + A <= Q (e^-700 + sum_s T_s E_s e^-350): the dead step's own term has M^(T-1) <= e^(-700 (T-1)/T)
        err += Q * (math.exp(-700.0) + sum(T * e for T, e in zip(Ts, E)) * math.exp(-350.0))
    iv = np.flatnonzero(live)
    A, B = _power_bounds([a[iv] for a in af], E, P, Ts)
    W = sum(T + T.bit_length() for T in Ts) + len(Ts)
    R = B * (math.expm1(W * math.log1p(_EPS_MUL)) * 1.01)
    with np.errstate(divide="ignore"):
        lg = sum(T * np.log(a[iv] * (1 - 4 * _U)) for T, a in zip(Ts, af))
    assert isinstance(lg, np.ndarray)
    normal = lg >= -650.0
    err[iv] = np.where(normal, A + R, err[iv] + B)
    ms = sum(len(p.pmf) for p, _ in steps)
    nk = min(_K_MAX, len(spec), int(_LD_WORK // max(ms, 1)))
    if _ULD > 0 and nk > 0 and n > 1 and len(iv):
        gain = np.where(lg >= -10000.0, err[iv] - 2 * _U * B, 0.0)
        K = np.argpartition(-gain, nk - 1)[:nk] if nk < len(gain) else np.arange(len(gain))
        K = iv[K[gain[K] > max(_K_REL * float(gain[K].max()), 0.0)]] if len(K) else K
        if len(K):
            tw = _twiddles(n)
            d = _sum_depth(max(len(p.pmf) for p, _ in steps))
            fl = [_dft_ld(p, n, K, tw) for p, _ in steps]
            Eld = [1.01 * (64 + 1 + 1.42 * d * 1.01) * _ULD * Ps for Ps in P]
            afl = [np.abs(f).astype(float) * (1 + 4 * _U) for f in fl]
            A2, B2 = _power_bounds(afl, Eld, P, Ts)
            S = _cpow(fl[0], Ts[0])
            for f, T in zip(fl[1:], Ts[1:]):
                S = S * _cpow(f, T)
            with np.errstate(divide="ignore"):
                ok = sum(T * np.log(a * (1 - 4 * _U)) for T, a in zip(Ts, afl)) >= -11000.0  # no longdouble underflow
            assert isinstance(ok, np.ndarray)
            spec[K[ok]] = S[ok].astype(np.complex128)
            err[K[ok]] = (A2 + B2 * (math.expm1(W * math.log1p(3 * _ULD)) * 1.01 + _U * 1.01))[ok]
    e_spec = math.sqrt(2 * float(np.sum(err * err)))
    e_inv = (rel + 2 * _U) * math.sqrt(2 * float(np.sum(spec.real**2 + spec.imag**2)))
    return (e_spec + e_inv) * 1.001


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
    if T > 1 and len(f) > 64 and f.dtype != np.clongdouble:
        small = np.abs(f) <= math.exp(-800.0 / T)
        n_keep = len(f) - int(np.count_nonzero(small))
        if n_keep < len(f) // 2:
            out = np.zeros(len(f), dtype=complex)
            keep = np.flatnonzero(~small)
            out[keep] = _cpow(f[keep], T, overwrite=True)  # a fresh array
            return out
    result: np.ndarray | None = None
    cdt = np.clongdouble if f.dtype == np.clongdouble else np.complex128  # longdouble kept (:func:`_fft_allowance`)
    base = f if overwrite and f.dtype == cdt else np.array(f, dtype=cdt)  # squared in place
    while True:
        if T & 1:
            result = base.copy() if result is None else np.multiply(result, base, out=result)
        T >>= 1
        if not T:
            break
        np.multiply(base, base, out=base)
    assert result is not None
    return result
