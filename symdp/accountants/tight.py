"""The tight DP-SGD accountant: privacy-loss distributions of the Poisson-subsampled Gaussian, pessimistic
connect-the-dots discretisation composed by FFT (:mod:`.pld`), for epsilon(delta) or delta(epsilon).

Owns the grid sizing (a cheap RDP guess), the adaptive refinement with its Richardson error estimate,
the RDP fallback where the PLD cannot answer (:func:`_tight_checked`: never a silent inf/NaN), and the
spreading of a batch of configurations over forked worker processes (:func:`_tight_map`, bit-identical
to the serial loop).  The public entry points are :func:`.api.epsilon` and :func:`.api.delta`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ConvergenceError, InvalidParameterError
from ..validation import check_int
from . import pld as _pld
from . import rdp as _rdp
from ._kernels import _kernel
from .rdp_curves import rdp_deltas, rdp_epsilons
from .result import Segment

# ---------------------------------------------------------------- tight
_TARGET_REL = 3e-3  # refine the grid until the estimated discretisation error is below this (relative)


#: most grid points of one step's loss range: the composed window is several times wider and is built for two
#: directions on two grids, so this keeps every FFT of the attempt well inside pld.MAX_POINTS (and the answer in
#: about a second); beyond it (sigma below ~5e-3 for short runs) the fallbacks answer, where the inclusion-count
#: bound is within a fraction of a percent of the PLD
_STEP_POINTS = _pld.MAX_POINTS // 8


#: the smallest grid step (nats) of the tight accountant's PLD: the initial guess's floor and its refinement's
_H_FLOOR = 2e-5


def _initial_h(segs: list[Segment], eps_guess: float) -> float:
    active = [(s, qq, T) for s, qq, T in segs if T > 0]
    T = sum(t for _, _, t in active)
    with np.errstate(over="ignore"):
        s1 = min(qq * math.sqrt(math.expm1(700.0 if s * s * 700.0 <= 1.0 else 1.0 / (s * s))) for s, qq, _ in active)
    h = math.sqrt(_TARGET_REL * max(eps_guess, 0.05) * max(s1, 1e-12) / (0.005 * T))
    # empirical correction of the O(T h^2) model for short runs (checked by the Richardson estimate)
    h *= 0.35 if T < 1000 else (0.6 if T < 8000 else 0.9)
    return float(min(max(h, _H_FLOOR), 2e-2))


_DIRS = ("remove", "add")
#: fraction of the smallest target delta spent on tails: per-step truncation (inf mass), the Chernoff bound
#: on the composed mass above the FFT window (each BUDGET/4); both are added to delta, so eps stays an upper bound
_TAIL_BUDGET = 1e-3


def _discretize_dirs(segs: list[Segment], h: float, step_tail: float) -> tuple[list[list[tuple[_pld.DiscretePLD, int]]], list[list[tuple[_pld.DiscretePLD, int]]]]:
    """Per direction, the (fine h, coarse 2h) discrete PLDs of every active segment."""
    fine: list[list[tuple[_pld.DiscretePLD, int]]] = [[] for _ in _DIRS]
    coarse: list[list[tuple[_pld.DiscretePLD, int]]] = [[] for _ in _DIRS]
    for s, qq, T in segs:
        if T > 0:
            both = _pld.discretize_step_pairs(s, qq, h, tail=step_tail)  # one CDF evaluation for both directions
            for i, d in enumerate(_DIRS):
                fine[i].append((both[d][0], T))
                coarse[i].append((both[d][1], T))
    return fine, coarse


def _guess_step_rdp(sigma: np.ndarray, q: np.ndarray) -> np.ndarray:
    """RDP of one Poisson-subsampled Gaussian step at :data:`_GUESS_INT_ORDERS`, one row per (sigma, q):
    the library's log terms, summed in log space (one vectorised kernel call)."""
    term = _kernel("accounting.sgm_rdp_log_term", "numpy")
    orders = _GUESS_INT_ORDERS
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = term(alpha=_GUESS_ALPHA, j=_GUESS_J, q=np.minimum(q, 1 - 1e-12)[:, None], sigma=sigma[:, None])
        m = np.maximum.reduceat(t, _GUESS_START, axis=1)
        m = np.where(np.isfinite(m), m, 0.0)
        lse = np.log(np.add.reduceat(np.exp(t - np.repeat(m, orders.astype(np.int64) + 1, axis=1)), _GUESS_START, axis=1)) + m
        return np.maximum(lse / (orders - 1), 0.0)


def _guess_epsilon(tot: np.ndarray, delta: Any) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        e = np.asarray(_rdp.rdp_to_epsilon(rdp=tot, orders=_GUESS_INT_ORDERS, delta=delta)[0], dtype=float)
    return np.where(np.isfinite(e), e, 50.0)


def _rdp_guess(segs: list[Segment], delta: float) -> float:
    """RDP epsilon at a few integer orders: only to size the grid."""
    tot = np.zeros(len(_GUESS_INT_ORDERS))
    for s, qq, T in segs:
        if T > 0:
            tot += T * _guess_step_rdp(np.array([s], dtype=float), np.array([qq], dtype=float))[0]
    return float(_guess_epsilon(tot, delta))


_GUESS_INT_ORDERS = np.array([2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64], dtype=float)
_GUESS_ALPHA = np.repeat(_GUESS_INT_ORDERS, _GUESS_INT_ORDERS.astype(np.int64) + 1)
_GUESS_J = np.concatenate([np.arange(int(a) + 1, dtype=float) for a in _GUESS_INT_ORDERS])
_GUESS_START = np.concatenate([[0], np.cumsum(_GUESS_INT_ORDERS.astype(np.int64) + 1)[:-1]])


def _gauss_exact(segs: list[Segment]) -> float | None:
    """mu of T full-batch Gaussian steps (exact), or None when some segment subsamples."""
    if all(qq == 1.0 for _, qq, T in segs if T > 0):
        return _pld.composed_mu([(1.0 / s, T) for s, _, T in segs if T > 0])  # scaled: no overflow of 1/sigma^2
    return None


def _tight_one(segs: list[Segment], deltas: np.ndarray | None, epsilons: np.ndarray | None, h: float | None,
               guess: float | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """(values, error estimates, details) for one config: eps at ``deltas`` or delta at ``epsilons``.

    ``guess``: :func:`_rdp_guess` of this config when the caller computed it already (batches).
    """
    if sum(T for *_, T in segs) == 0:
        n = len(deltas) if deltas is not None else len(epsilons)  # type: ignore[arg-type]
        return np.zeros(n), np.zeros(n), {"method": "no steps"}
    mu = _gauss_exact(segs)
    if mu is not None:
        # T Gaussian steps are exactly sqrt(sum T/sigma^2)-GDP: the exact profile, in log space
        if deltas is not None:
            vals = np.asarray(_pld.gdp_epsilon(mu, deltas), dtype=float)
        else:
            assert epsilons is not None
            vals = np.asarray(_pld.gdp_delta(epsilons, mu), dtype=float)
        return vals, np.zeros_like(vals), {"method": "exact Gaussian profile (q = 1), log space", "mu": mu}
    T_tot = sum(T for *_, T in segs if T > 0)
    if deltas is not None:
        budget = max(_TAIL_BUDGET * float(np.min(deltas)), 1e-15)
        step_tail = max(budget / (4 * T_tot), 1e-20)  # composed inf mass <= T_tot * step_tail
        tail_tol = budget / 4
    else:  # delta at given epsilons: no target to scale by; fixed tiny tails
        step_tail, tail_tol = 1e-20, 1e-15
    # initial grid from the RDP epsilon (cheap)
    if h is None:
        dg = float(np.min(deltas)) if deltas is not None else 1e-5
        h_cur = _initial_h(segs, _rdp_guess(segs, dg) if guess is None else guess)
        adaptive = True
    else:
        h_cur = float(h)
        adaptive = False
    # the budget, checked before any grid is built: one step's loss range over h (a tiny sigma makes it
    # ~1/sigma^2 nats wide); past it the PLD does not run (its coarser-grid retries would each build grids
    # of that size) and _tight_checked answers with the rigorous fallbacks
    width = max(_pld.step_loss_range(s, qq, step_tail) for s, qq, T in segs if T > 0)
    if not width / h_cur <= _STEP_POINTS:
        raise ConvergenceError(f"one step's privacy loss spans {width:.3g} nats: {width / h_cur:.3g} grid points at "
                               f"h={h_cur:.3g}, more than {_STEP_POINTS}")

    def values(c: _pld.ComposedPLD) -> np.ndarray:
        if deltas is not None:
            return c.epsilon(deltas)
        assert epsilons is not None
        return c.delta(epsilons)

    def evaluate(hh: float) -> tuple[np.ndarray, np.ndarray, list[_pld.ComposedPLD]]:
        """(value, Richardson estimate, composed PLDs) on the grid hh.

        Both directions are composed (certified) on the 2hh grid first; the fine grid is composed for
        the direction with the larger coarse value, and for the other one only when its coarse upper
        bound does not already lie below the result.  Every value used is an upper bound for its
        direction, so the max over directions is one.
        """
        fine, coarse = _discretize_dirs(segs, hh, step_tail)
        if deltas is not None:  # the per-step round-off alone already exceeds every target: composing cannot help
            # per-step round-off plus the FFT's share (8u T sum|spectrum| >= 8u T, see pld.compose).  Only when it is
            # above the largest asked delta: a delta below the floor reads eps = inf from the composed PLD and falls
            # back on its own (_tight_checked), the others keep this grid's PLD answer
            floor = min(sum(T * p.roundoff for p, T in parts) for parts in coarse) + 8 * _pld._U * T_tot
            if floor >= float(np.max(deltas)):
                raise ConvergenceError(f"tight accountant: the per-step round-off floor {floor:.3g} is above every "
                                       f"asked delta (largest {float(np.max(deltas)):.3g})")
        cc = [_pld.compose(parts, tail_tol=tail_tol) for parts in coarse]
        cv = np.stack([values(c) for c in cc])
        fv = np.full(cv.shape, np.inf)
        comps = list(cc)
        done = np.zeros(len(cc), dtype=bool)
        order = np.argsort(-np.max(cv, axis=1), kind="stable")
        for rank, i in enumerate(order):
            if rank > 0 and np.all(cv[i] <= np.max(np.minimum(fv, cv), axis=0)):
                continue  # this direction's coarse upper bound is already below the result
            c = _pld.compose(fine[i], tail_tol=tail_tol)
            comps.append(c)
            fv[i] = values(c)
            done[i] = True
        best = np.minimum(fv, cv)  # two upper bounds per direction: keep the smaller
        v = np.max(best, axis=0)
        with np.errstate(invalid="ignore"):
            # O(h^2) error: e(2h) - e(h) ~ 3 e(h), over the directions composed on both grids
            e = np.maximum(np.max(cv[done], axis=0) - np.max(fv[done], axis=0), 0.0) / 3.0
        return v, np.nan_to_num(e, nan=0.0, posinf=np.inf), comps

    last: ConvergenceError | None = None
    for _attempt in range(6):
        try:
            vals, est, comps = evaluate(h_cur)
            break
        except ConvergenceError as exc:
            last = exc
            h_cur *= 4  # the composed range is huge (or the round-off floor high): a coarser grid, still an upper bound
    else:
        raise ConvergenceError(f"tight accountant: no grid up to h={h_cur / 4:.3g} answers ({last})")
    for _refine in range(2 if adaptive else 0):
        rel = est / np.maximum(np.abs(vals), 1e-300)
        if not np.any(rel > 2 * _TARGET_REL) or h_cur <= 2.5e-5:
            break
        if max(c.n_fft for c in comps) > (1 << 22):  # a finer grid would cost seconds per FFT: keep this upper bound
            break
        worst = float(np.nanmax(rel))
        h_new = max(h_cur * math.sqrt(_TARGET_REL / worst) * 0.8, h_cur / 8, _H_FLOOR)
        try:
            v2, est, c2 = evaluate(h_new)
        except ConvergenceError:
            break
        # both are upper bounds: keep the smaller
        vals, comps, h_cur = np.minimum(vals, v2), c2, h_new
    details = {
        "method": "PLD, connect-the-dots (pessimistic), FFT composition",
        "discretization": h_cur,
        "fft_length": max(c.n_fft for c in comps),
        "tail_mass_added": max(c.upper_tail + c.inf_mass for c in comps),
        "alias_bound": max(c.alias for c in comps),
        "roundoff_added": max(c.roundoff for c in comps),
    }
    return vals, est, details


def _tight_checked(segs: list[Segment], deltas: np.ndarray | None, epsilons: np.ndarray | None,
                   h: float | None, guess: float | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any], str | None]:
    """:func:`_tight_one`, with rigorous fallbacks where the PLD cannot answer (never a silent inf/NaN/traceback).

    Where the PLD's round-off/tail floor is above the asked delta (its epsilon is then infinite),
    where its loss range does not fit an FFT grid (ConvergenceError) or overflows, the RDP
    accountant's bound (rigorous as well) is returned for those values and the reason is returned
    as the fourth element (``AccountingResult.fallback``); so is the inclusion-count bound of
    :func:`.pld.inclusion_count_epsilon` (near-exact for a tiny sigma, where RDP overflows), the smaller of
    the two is kept.  For delta queries the RDP delta also replaces a PLD delta that it undercuts (both are
    upper bounds; the smaller is kept).  ``inf`` is returned only where the true epsilon exceeds the float range.
    """
    reason = None
    try:
        vals, est, det = _tight_one(segs, deltas, epsilons, h, guess)
    except (ConvergenceError, OverflowError, FloatingPointError, MemoryError) as exc:
        n = len(deltas) if deltas is not None else len(epsilons)  # type: ignore[arg-type]
        vals, est, det = np.full(n, np.inf), np.full(n, np.nan), {"method": "PLD failed"}
        reason = f"the tight PLD accountant could not answer ({type(exc).__name__}: {exc})"
    vals = np.asarray(vals, dtype=float)
    bad = ~np.isfinite(vals) | np.isnan(vals)
    loose_note = None
    if deltas is not None:
        vals, est, det, loose_note = _rdp_where_loose(segs, deltas, vals, est, det, ~bad)
        if not bad.any():
            return vals, est, det, loose_note
        if reason is None and "mu" in det:
            reason = f"the exact Gaussian profile (mu = {det['mu']:.3g}) gives an epsilon beyond the float range"
        if reason is None:
            floor = det.get("roundoff_added", 0.0) + det.get("tail_mass_added", 0.0)
            reason = (f"the tight PLD accountant's round-off/tail floor ({floor:.3g}) is not below the asked delta "
                      f"({float(np.min(deltas[bad])):.3g})")
        db = deltas[bad]
        r_eps, _ = rdp_epsilons([segs] * len(db), db, "poisson", None)  # the RDP accountant's answer
        c_eps = np.array([_pld.inclusion_count_epsilon(float(d), segs) for d in db])
        fb = np.fmin(np.asarray(r_eps, dtype=float).ravel(), c_eps)  # both upper bounds: the smaller (NaN: not one)
        fb = np.where(np.isnan(fb), np.inf, fb)
        vals = vals.copy()
        vals[bad] = fb
    else:
        assert epsilons is not None
        dr, _ = rdp_deltas([segs] * len(epsilons), epsilons, "poisson", None)  # the RDP accountant's answer
        dr = np.asarray(dr, dtype=float).ravel()
        dc = np.array([_pld.inclusion_count_delta(float(e), segs) for e in epsilons]) if bad.any() else dr
        dr = np.fmin(dr, dc)
        dr = np.where(np.isnan(dr), 1.0, dr)  # no bound at all: the trivial delta <= 1
        use = bad | (dr < vals)
        if not use.any():
            return vals, est, det, None
        if reason is None:
            reason = "the RDP bound on delta is below the tight PLD's (its round-off/tail floor dominates)"
        vals = np.where(use, dr, vals)
    est = np.where(bad, np.nan, est)
    det = dict(det, fallback="rdp")
    note = "" if np.all(np.isfinite(vals)) else "; epsilon inf: the true epsilon exceeds the float range (about 1.8e308)"
    if deltas is not None and not bad.all():  # say which values are the fallback's: the others are the PLD's
        reason += (f" (for {int(bad.sum())} of the {bad.size} asked deltas, those <= {float(np.max(deltas[bad])):.3g}; "
                   "the other values are the PLD's" + (", or the RDP bound's where the PLD is loose, see below)" if loose_note else ")"))
    msg = (f"rdp: {reason}; the smaller of two rigorous upper bounds is returned: the RDP accountant's "
           f"and the inclusion-count bound (each inclusion pattern of the Poisson sampling is an exact "
           f"Gaussian composition, pld.inclusion_count_delta){note}")
    return vals, est, det, msg if not loose_note else f"{msg}; {loose_note}"


#: a PLD epsilon whose Richardson estimate is above this fraction of it missed the refinement's target
#: (twice :data:`_TARGET_REL`): the grid could not be refined enough (its floor h = 2e-5 is coarser than one
#: step's loss spread at a huge sigma, or the FFT would be too long), and the RDP bound is computed beside it
_LOOSE_REL = 2 * _TARGET_REL


def _rdp_where_loose(segs: list[Segment], deltas: np.ndarray, vals: np.ndarray, est: np.ndarray,
                     det: dict[str, Any], ok: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, Any], str | None]:
    """The PLD epsilons ``vals`` at ``deltas`` (those under ``ok``: finite), replaced by the RDP accountant's where the PLD's own error
    estimate shows it is loose (``est > _LOOSE_REL * vals`` or no estimate) and the RDP bound is smaller.

    Both are rigorous upper bounds, so their minimum is one.  The PLD is loose where its grid step h cannot
    be refined below one step's loss spread (sigma 1e4, q 0.01, T 1e9: h = 2e-5 against a spread of about
    q / sigma = 1e-6 nats; the connect-the-dots split then inflates the composed variance and the PLD said
    0.719 where RDP says 0.108).  The reason is returned as the fallback text; ``det['served_by']`` names the
    method of each asked delta.
    """
    with np.errstate(invalid="ignore"):
        loose = ok & ~(est <= _LOOSE_REL * np.abs(vals))  # NaN estimate: loose
    if "mu" in det or not loose.any():
        return vals, est, det, None
    r_eps, _ = rdp_epsilons([segs] * int(loose.sum()), deltas[loose], "poisson", None)
    r_eps = np.asarray(r_eps, dtype=float).ravel()
    use = np.zeros(vals.shape, dtype=bool)
    use[loose] = r_eps < vals[loose]  # NaN (no RDP bound): keep the PLD's
    if not use.any():
        return vals, est, det, None
    det = dict(det, fallback="rdp", served_by=["rdp" if u else ("pld" if k else "fallback") for u, k in zip(use.tolist(), ok.tolist())],
               pld_epsilon=vals.copy(), pld_error_estimate=np.asarray(est, dtype=float).copy())
    vals = vals.copy()
    vals[use] = r_eps[use[loose]]
    est = np.where(use, np.nan, est)  # the RDP conversion's gap to the optimum is not bounded
    which = ("every asked delta" if use.all() else f"{int(use.sum())} of the {use.size} asked deltas")
    return vals, est, det, (f"rdp: the tight PLD's own discretisation-error estimate is above {_LOOSE_REL:g} of its "
                            f"epsilon (its grid, h = {det.get('discretization', float('nan')):.3g}, could not be "
                            f"refined further) and the RDP accountant's bound is smaller, for {which}; the smaller of "
                            f"two rigorous upper bounds is returned")


# ---------------------------------------------------------------- batches over processes
#: a batch of at least this many distinct configurations is spread over worker processes
_PARALLEL_MIN = 32
_MAX_WORKERS = 8
_IN_WORKER = False  # set in the pool's processes: they never start pools of their own

#: (segments, deltas, epsilons): one configuration's query
TightJob = tuple[list[Segment], "np.ndarray | None", "np.ndarray | None"]
TightOut = tuple[np.ndarray, np.ndarray, dict[str, Any], "str | None"]


def _n_workers(workers: int | None) -> int:
    """``workers=`` resolved: the argument, else ``$SYMDP_WORKERS``, else the usable cores (at most 8)."""
    import os

    if workers is None:
        env = os.environ.get("SYMDP_WORKERS", "").strip()
        if env:
            try:
                workers = int(env)
            except ValueError:
                raise InvalidParameterError(f"SYMDP_WORKERS={env!r} must be an integer >= 1") from None
        else:
            cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
            workers = min(cores, _MAX_WORKERS)
    w = check_int("workers", workers, 1)
    return int(w)


def _worker_init() -> None:
    global _IN_WORKER
    _IN_WORKER = True


def _tight_chunk(jobs: list[tuple[TightJob, float | None]], h: float | None) -> list[TightOut]:
    return [_tight_checked(segs, ds, es, h, g) for (segs, ds, es), g in jobs]


def _rdp_guesses(jobs: list[TightJob]) -> list[float | None]:
    """:func:`_rdp_guess` of every single-segment job, :func:`_guess_step_rdp` called once for all distinct
    (sigma, q) (a sweep shares them): the same row-wise operations, so bit-identical to one call each."""
    rows = [i for i, (segs, _d, _e) in enumerate(jobs) if len(segs) == 1 and segs[0][2] > 0]
    out: list[float | None] = [None] * len(jobs)
    if len(rows) < 2:
        return out
    sq = np.array([jobs[i][0][0][:2] for i in rows], dtype=float)
    pairs, inv = np.unique(sq, axis=0, return_inverse=True)
    T = np.array([jobs[i][0][0][2] for i in rows], dtype=float)
    dg = np.array([float(np.min(d)) if (d := jobs[i][1]) is not None else 1e-5 for i in rows])
    tot = np.zeros((len(rows), len(_GUESS_INT_ORDERS)))
    tot += T[:, None] * _guess_step_rdp(pairs[:, 0], pairs[:, 1])[inv.ravel()]
    for i, v in zip(rows, _guess_epsilon(tot, dg).tolist()):
        out[i] = v
    return out


def _tight_map(jobs: list[TightJob], h: float | None, workers: int) -> list[TightOut]:
    """:func:`_tight_checked` of every job, in order; shared by this process and ``workers - 1`` forked ones.

    Every job is computed by the same function on the same inputs in whichever process runs it, so the
    results are bit-identical to the serial ones.  The batch is cut into small chunks queued for the
    pool; this process takes chunks from the far end of the queue itself (those no worker has picked
    up), so a busy machine, where the workers get little CPU, is no slower than the serial loop.
    Processes are used only on Linux (``fork``) and when the caller runs a single Python thread
    (forking a threaded process can deadlock); the pool is shut down (its processes joined) before
    returning, and a pool that cannot start or breaks leaves its chunks to this process.  The
    grid-sizing RDP guesses are computed here for the whole batch first (:func:`_rdp_guesses`).
    """
    todo = list(zip(jobs, _rdp_guesses(jobs) if h is None else [None] * len(jobs)))
    w = min(workers, len(jobs) // 4)
    if w < 2 or len(jobs) < _PARALLEL_MIN or _IN_WORKER:
        return _tight_chunk(todo, h)
    import multiprocessing
    import sys
    import threading

    # fork only on Linux (macOS lists it, but system libraries are not fork-safe there)
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return _tight_chunk(todo, h)
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # small chunks (at most 4 configurations, about 16 per process for small batches) balance configurations of
    # very different cost and leave little for this process to wait for at the end
    size = max(1, min(4, -(-len(todo) // (16 * w))))
    chunks = [todo[a:a + size] for a in range(0, len(todo), size)]
    out: list[list[TightOut] | None] = [None] * len(chunks)
    try:
        ex = ProcessPoolExecutor(max_workers=w - 1, mp_context=multiprocessing.get_context("fork"),
                                 initializer=_worker_init)
        try:
            futs = [ex.submit(_tight_chunk, c, h) for c in chunks]
            for i in range(len(chunks) - 1, -1, -1):  # from the end: chunks no worker has started
                if not futs[i].cancel():
                    break
                out[i] = _tight_chunk(chunks[i], h)
            for i, f in enumerate(futs):
                if out[i] is None:
                    out[i] = f.result()
        finally:  # on an error or an interrupt the queued chunks are dropped, not computed; workers joined
            ex.shutdown(wait=True, cancel_futures=True)
    except (BrokenProcessPool, OSError, AssertionError):  # no processes (daemon parent, limits) or one died
        pass
    res: list[TightOut] = []
    for i, c in enumerate(chunks):
        r = out[i]
        res.extend(r if r is not None else _tight_chunk(c, h))
    return res


# ---------------------------------------------------------------- one step (composition theorems, user theorems)
def _step_eps(s: float, qq: float, d0: np.ndarray) -> np.ndarray:
    """Per-step epsilon at delta0 (one step, both directions; an upper bound: the tight PLD, RDP where it cannot answer)."""
    key = (s, qq, tuple(np.asarray(d0, dtype=float).ravel().tolist()))
    if key not in _STEP_EPS_CACHE:
        if len(_STEP_EPS_CACHE) > 4096:
            _STEP_EPS_CACHE.clear()
        vals, _, _, _ = _tight_checked([(s, qq, 1)], np.asarray(d0, dtype=float), None, None)
        _STEP_EPS_CACHE[key] = vals
    return _STEP_EPS_CACHE[key]


_STEP_EPS_CACHE: dict[tuple[float, float, tuple[float, ...]], np.ndarray] = {}
