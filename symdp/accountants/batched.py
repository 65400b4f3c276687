r"""Batched tight accounting of many DP-SGD configurations, on CPU or GPU (torch ``device``).

:func:`epsilon_batch` computes, for arrays of (noise multiplier, sample rate, steps, delta), the same
certified upper bound as ``symdp.accountants.epsilon(..., accountant="tight")`` in one pass per
configuration: each configuration's two dominating pairs (remove, add) are discretised pessimistically
by :func:`symdp.accountants.pld.discretize_step` on the grid the tight accountant would start from
(``api._initial_h`` from a vectorised RDP guess), the Chernoff window is the one of
:func:`symdp.accountants.pld.compose`, and then *all* configurations' compositions run together: the
wrapped PMFs are stacked per FFT length, transformed by ``torch.fft`` on ``device``, raised to their
step counts by repeated squaring, transformed back, and epsilon is read off every row at once with a
log-space suffix sum (``torch.logcumsumexp``: no overflow for any loss range).

What is added to delta, exactly as in :mod:`.pld`: the composed mass at +inf (per-step truncation), the
Chernoff bound on the mass above the window, the discretisation rounding and an a-posteriori bound on the
FFT rounding.  Mass wrapped around the cyclic window only raises delta.  So every returned epsilon is an
upper bound; what is skipped compared with the single-configuration accountant is the grid refinement
driven by the Richardson estimate, so a value can sit a little higher (measured: within 0.6% on the
benchmark grid, ``bench/accountants.py``).  A configuration the batch cannot place (no atom reaches the
target within its window, q = 1, no steps) is recomputed by ``api.epsilon`` and reported in ``fallbacks``.

>>> import numpy as np
>>> r = epsilon_batch(noise_multiplier=np.array([1.1, 2.0]), sample_rate=0.01, steps=1000, delta=1e-5)
>>> bool(np.all(r.epsilon > 0)) and r.is_upper_bound
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..validation import check_probability
from . import api as _api
from . import pld as _pld
from . import rdp as _rdp

_U = float(np.finfo(float).eps)
_GUESS_ORDERS = np.array([2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256], dtype=float)  # integer: cheap, only sizes the grid
_MAX_ELEMS = 1 << 24  # float64 elements per stacked FFT batch (memory cap)


@dataclass(frozen=True)
class BatchResult:
    """``epsilon`` (array, the broadcast shape of the inputs): certified upper bounds."""

    epsilon: np.ndarray
    delta: np.ndarray
    is_upper_bound: bool = True
    device: str = "cpu"
    fallbacks: int = 0
    details: dict[str, Any] = field(default_factory=dict)


def _guess_h(s: np.ndarray, q: np.ndarray, T: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Start grid of the tight accountant for every configuration (one vectorised RDP evaluation)."""
    curve = np.asarray(_rdp.sgm_rdp(noise_multiplier=s, sample_rate=np.minimum(q, 1 - 1e-12), orders=_GUESS_ORDERS), dtype=float)
    e, _ = _rdp.rdp_to_epsilon(rdp=curve * T[:, None], orders=_GUESS_ORDERS, delta=d)
    e = np.where(np.isfinite(e), e, 1e3)
    return np.array([_api._initial_h([(float(a), float(b), int(c))], float(g)) for a, b, c, g in zip(s, q, T, e)])


@dataclass
class _Job:
    idx: int
    direction: int
    n: int
    s0: int
    h: float
    T: int
    wrapped: np.ndarray
    const: float  # inf mass + upper tail + discretisation rounding (FFT rounding added after the transform)


def _bucket(need: int) -> int:
    """FFT length >= need from {2^k, 3 * 2^(k-1)}: at most a third of padding, few distinct lengths to stack."""
    k = max(math.ceil(math.log2(max(need, 16))), 4)
    n = 1 << k
    return 3 * (n >> 2) if 3 * (n >> 2) >= need else n


def _discretize(direction: str, s: float, q: float, T: int, d: float, h: float) -> tuple[_pld.DiscretePLD, float]:
    """One step's pessimistic discrete PLD (tails as the single accountant spends them) and the window tolerance."""
    budget = max(_api._TAIL_BUDGET * d, 1e-15)
    step_tail = max(budget / (4 * T), 1e-20)
    return _pld.discretize_step(s, q, h, direction, tail=step_tail), budget / 4


def _windows(plds: list[_pld.DiscretePLD], Ts: np.ndarray, tail_tols: np.ndarray, device: Any) -> np.ndarray:
    """``(lo, up, upper_tail)`` per composition, by the Chernoff bound of :func:`symdp.accountants.pld.compose`
    (its lambda grid, moments and formulas), evaluated for all configurations at once on ``device``.

    For ``S`` the sum of ``T`` i.i.d. losses with log-MGF ``m``: ``P[S > up] <= exp(T m(l) - l up)`` for
    every ``l > 0``; ``up`` is chosen so that the bound is ``tail_tol`` at the best ``l`` of the grid.
    """
    import torch

    dev = torch.device(device)
    K = max(len(p.pmf) for p in plds)
    out = np.empty((len(plds), 3))
    lam_grid = torch.as_tensor(_pld._LAM_GRID, dtype=torch.float64, device=dev)
    step = max(1, (1 << 25) // (K * 2 * len(_pld._LAM_GRID)))
    for a in range(0, len(plds), step):
        part = plds[a:a + step]
        P = np.zeros((len(part), K))
        for r, p in enumerate(part):
            P[r, :len(p.pmf)] = p.pmf
        pm = torch.as_tensor(P, dtype=torch.float64, device=dev)
        h = torch.as_tensor([p.h for p in part], dtype=torch.float64, device=dev)
        j0 = torch.as_tensor([p.j0 for p in part], dtype=torch.float64, device=dev)
        T = torch.as_tensor(Ts[a:a + step], dtype=torch.float64, device=dev)
        jj = torch.arange(K, dtype=torch.float64, device=dev)[None, :]
        tot = pm.sum(1).clamp_min(1e-300)
        m1 = (pm * jj).sum(1) / tot
        var = torch.maximum((pm * (jj - m1[:, None]) ** 2).sum(1) / tot * h**2, h**2)
        lam = lam_grid[None, :] / torch.sqrt(T * var)[:, None]  # (B, L)
        lams = torch.cat([lam, -lam], 1)  # (B, 2L)
        ell = (j0[:, None] + jj) * h[:, None]  # (B, K)
        logp = torch.log(pm)  # -inf on empty atoms
        lm = T[:, None] * torch.logsumexp(lams[:, :, None] * ell[:, None, :] + logp[:, None, :], dim=2)  # (B, 2L)
        L = lam.shape[1]
        log_tol = torch.log(torch.as_tensor(tail_tols[a:a + step], dtype=torch.float64, device=dev))
        up = torch.min((lm[:, :L] - log_tol[:, None]) / lam, dim=1).values
        lo = torch.max((log_tol[:, None] - lm[:, L:]) / lam, dim=1).values
        upper_tail = torch.min(torch.exp(torch.clamp(lm[:, :L] - lam * up[:, None], max=0.0)), dim=1).values
        out[a:a + step] = torch.stack([lo, up, upper_tail], 1).cpu().numpy()
    return out


def _finish(i: int, direction: str, p: _pld.DiscretePLD, T: int, window: np.ndarray) -> _Job | None:
    """Place one composition on its FFT window (as :func:`symdp.accountants.pld.compose` does)."""
    h = p.h
    lo, up, upper_tail = (float(v) for v in window)
    s_min = T * p.j0
    s_max = T * (p.j0 + len(p.pmf) - 1)
    if up >= s_max * h:
        upper_tail = 0.0
    s0 = max(math.floor(lo / h), s_min)
    s1 = max(min(math.ceil(up / h), s_max), s0)
    n = _bucket(s1 - s0 + 1)
    if n > (1 << 24) or not math.isfinite(upper_tail):
        return None
    inf_mass = -math.expm1(T * math.log1p(-min(p.inf_mass, 1.0))) if p.inf_mass < 1 else 1.0
    return _Job(i, 0 if direction == "remove" else 1, n, s0, h, T, _pld._wrap(p, n),
                inf_mass + upper_tail + T * p.roundoff)


def _run_group(jobs: list[_Job], deltas: np.ndarray, device: Any) -> np.ndarray:
    """Epsilon (upper bound) for jobs sharing one FFT length; ``inf`` where the window holds no answer."""
    import torch

    n = jobs[0].n
    dev = torch.device(device)
    x = torch.as_tensor(np.stack([j.wrapped for j in jobs]), dtype=torch.float64, device=dev)
    spec = torch.fft.rfft(x, n=n, dim=1)
    T = torch.as_tensor([j.T for j in jobs], dtype=torch.int64, device=dev)
    # spec ** T row-wise as exp(T log spec): for an integer T this is the power exactly (any branch of the
    # log); its relative rounding grows like T u |log spec|, the same order as repeated squaring (T u),
    # which the FFT rounding bound below already carries
    out = torch.log(spec)
    out.mul_(T.to(torch.float64)[:, None])
    out = torch.exp(out)
    abs_sum = out.abs().sum(dim=1)
    c = torch.fft.irfft(out, n=n, dim=1)
    rot = torch.as_tensor([j.s0 % n for j in jobs], device=dev)
    pmf = torch.gather(c, 1, (torch.arange(n, device=dev)[None, :] + rot[:, None]) % n)  # entry k = atom s0 + k
    pmf = pmf.clamp_min(0.0)
    Tf = T.to(torch.float64)
    fft_err = 8 * _U * (Tf + math.log2(n)) * abs_sum  # as pld.compose: total over the window
    hs = torch.as_tensor([j.h for j in jobs], dtype=torch.float64, device=dev)
    s0 = torch.as_tensor([j.s0 for j in jobs], dtype=torch.float64, device=dev)
    const = torch.as_tensor([j.const for j in jobs], dtype=torch.float64, device=dev) + fft_err
    dt = torch.as_tensor(deltas[[j.idx for j in jobs]], dtype=torch.float64, device=dev)
    k = torch.arange(n, dtype=torch.float64, device=dev)[None, :]
    # suffix sums: A_k = sum_{j>=k} p_j, LS_k = log sum_{j>=k} p_j e^{-j h} (log space: no overflow)
    A = torch.flip(torch.cumsum(torch.flip(pmf, [1]), 1), [1])
    with torch.no_grad():
        logp = torch.log(pmf) - k * hs[:, None]
    LS = torch.flip(torch.logcumsumexp(torch.flip(logp, [1]), 1), [1])
    zero = torch.zeros((len(jobs), 1), dtype=torch.float64, device=dev)
    ninf = torch.full((len(jobs), 1), -math.inf, dtype=torch.float64, device=dev)
    A1 = torch.cat([A[:, 1:], zero], 1)
    LS1 = torch.cat([LS[:, 1:], ninf], 1)
    dk = (A1 - torch.exp(k * hs[:, None] + LS1)).clamp_min(0.0) + const[:, None]  # delta at eps = ell_k
    # dk is nonincreasing in k (up to rounding): first k with dk <= target, via a running minimum
    dk = torch.cummin(dk, dim=1).values
    ok = dk <= dt[:, None]
    has = ok.any(dim=1)
    kk = torch.argmax(ok.to(torch.int8), dim=1)
    ell_k = (s0 + kk.to(torch.float64)) * hs
    A_k = torch.gather(A, 1, kk[:, None])[:, 0]
    LS_k = torch.gather(LS, 1, kk[:, None])[:, 0]
    r = A_k + const - dt
    e = torch.where(r > 0, torch.log(r.clamp_min(1e-320)) - LS_k + s0 * hs, torch.full_like(r, -math.inf))
    e = torch.minimum(torch.maximum(e, ell_k - hs), ell_k)
    e = torch.where(kk == 0, ell_k, e)
    e = e + 4 * _U * e.abs() + 1e-15
    e = torch.where(has & (const < dt), e.clamp_min(0.0), torch.full_like(e, math.inf))
    return np.asarray(e.cpu().numpy(), dtype=float)


def epsilon_batch(*, noise_multiplier: Any, sample_rate: Any, steps: Any, delta: Any, device: Any = "cpu") -> BatchResult:
    """Tight epsilon (certified upper bound) for every configuration; arrays broadcast.

    ``device``: a torch device (``"cpu"``, ``"cuda"``, ...) for the Chernoff windows and the stacked FFT
    composition; the per-configuration discretisation runs in numpy.
    """
    s = np.asarray(_api._check_sigma(noise_multiplier), dtype=float)
    q = np.asarray(_api._check_q(sample_rate), dtype=float)
    T = np.asarray(_api._check_steps(steps), dtype=np.int64)
    d = np.asarray(check_probability("delta", delta), dtype=float)
    s, q, T, d = np.broadcast_arrays(s, q, T, d)
    shape = s.shape
    s, q, T, d = (a.ravel() for a in (s, q, T, d))
    m = len(s)
    eps = np.full(m, np.nan)
    easy = (T == 0) | (q >= 1.0)
    eps[T == 0] = 0.0
    todo = np.nonzero(~easy)[0]
    jobs: list[_Job] = []
    failed: set[int] = {int(i) for i in np.nonzero(easy & (T > 0))[0]}
    if len(todo):
        hh = _guess_h(s[todo], q[todo], T[todo], d[todo])
        tasks = [(int(i), direction, float(s[i]), float(q[i]), int(T[i]), float(d[i]), float(h))
                 for i, h in zip(todo, hh) for direction in ("remove", "add")]
        disc = [_discretize(*a[1:]) for a in tasks]
        wins = _windows([p for p, _ in disc], np.array([a[4] for a in tasks], dtype=float),
                        np.array([tt for _, tt in disc]), device)
        for a, (p, _), w in zip(tasks, disc, wins):
            job = _finish(a[0], a[1], p, a[4], w)
            if job is None:
                failed.add(a[0])
            else:
                jobs.append(job)
    best = np.full((m, 2), -np.inf)
    groups: dict[int, list[_Job]] = {}
    for j in jobs:
        if j.idx not in failed:
            groups.setdefault(j.n, []).append(j)
    n_groups = 0
    for n, js in sorted(groups.items()):
        chunk = max(1, _MAX_ELEMS // n)
        for start in range(0, len(js), chunk):
            part = js[start:start + chunk]
            vals = _run_group(part, d, device)
            n_groups += 1
            for j, v in zip(part, vals):
                best[j.idx, j.direction] = v
    res = np.max(best, axis=1)
    bad = [int(i) for i in todo if not np.isfinite(res[i]) or int(i) in failed] + sorted(i for i in failed if i not in set(todo.tolist()))
    for i in todo:
        if np.isfinite(res[i]) and int(i) not in failed:
            eps[i] = res[i]
    for b in sorted(set(bad)):
        eps[b] = float(_api.epsilon(noise_multiplier=float(s[b]), sample_rate=float(q[b]), steps=int(T[b]),
                                    delta=float(d[b]), accountant="tight").epsilon)
    return BatchResult(eps.reshape(shape), d.reshape(shape), True, str(device), len(set(bad)),
                       {"fft_batches": n_groups, "method": "PLD, connect-the-dots (pessimistic), batched FFT composition"})


__all__ = ["BatchResult", "epsilon_batch"]
