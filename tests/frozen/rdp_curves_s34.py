# Frozen verbatim copy of symdp/accountants/rdp_curves.py at main 30996d6 (session 34), the oracle of
# tests/test_rdp_frozen_s34.py; never imported by the package.
"""RDP of DP-SGD configurations (lists of ``(sigma, q, steps)`` segments): the composed Renyi DP curves
(single-segment batches vectorised and deduplicated) and the RDP accountant's epsilon(delta) and
delta(epsilon) of each configuration, as :func:`.api.epsilon` / :func:`.api.delta` report them with
``accountant="rdp"``.  Also the rigorous fallback of the tight accountant (:mod:`.tight`), which is why
it sits below both.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import rdp as _rdp
from .result import Segment

#: configurations: lists of segments, or an (n, 3) float array (sigma, q, steps) of single-segment ones
Configs = list[list[Segment]] | np.ndarray


def _rdp_curve(segs: list[Segment], orders: np.ndarray, sampling: str) -> np.ndarray:
    tot = np.zeros(len(orders))
    fn = _rdp.wor_rdp if sampling == "without_replacement" else _rdp.sgm_rdp
    for s, qq, T in segs:
        if T:
            tot = tot + T * fn(noise_multiplier=s, sample_rate=qq, orders=orders)
    return tot


def _single(cfgs: Configs) -> np.ndarray | None:
    """The (n, 3) float array (sigma, q, steps) of single-segment configs; None if some config has several segments."""
    if isinstance(cfgs, np.ndarray):
        return cfgs
    if all(len(c) == 1 for c in cfgs):
        return np.array([c[0] for c in cfgs], dtype=float).reshape(-1, 3)
    return None


def _rdp_curve_fn(cfgs: Configs, sampling: str) -> Any:
    """``curve(orders, rows)`` for :func:`rdp.epsilon_for_curves`: composed RDP of the configs ``rows`` (deduplicated)."""
    cache: dict[str, Any] = {}
    single = _single(cfgs)

    def curve(orders: np.ndarray, rows: np.ndarray) -> np.ndarray:
        if "arr" in cache and np.isin(orders, cache["ints"]).all():  # per-step integer values met already
            cols = np.searchsorted(cache["ints"], orders)
            return cache["arr"][rows, 2:3] * (cache["per_int"]()[np.ix_(cache["pid"][rows], cols)] * (1 + _rdp._REL_MARGIN))
        if single is not None:  # _rdp_batch deduplicates the (sigma, q) pairs itself
            return _rdp_batch(single[rows], orders, sampling)
        assert not isinstance(cfgs, np.ndarray)
        keys: dict[tuple[Segment, ...], int] = {}
        inv = [keys.setdefault(tuple(cfgs[int(i)]), len(keys)) for i in rows]
        uniq = [list(k) for k in keys]
        return _rdp_batch(uniq, orders, sampling)[np.array(inv, dtype=np.int64)]
    # Poisson sampling: integer values exact (within rdp._LOWER_SLACK), so convexity prunes orders (rdp._ladder)
    curve.exact_convex = sampling != "without_replacement"  # type: ignore[attr-defined]
    if curve.exact_convex and single is not None:  # type: ignore[attr-defined]
        arr = single
        pairs, pid = _rdp._unique_rows(arr[:, :2])
        # the per-step values at the first integer orders (rdp._INT_GROUPS[0]: every configuration needs them, and the
        # order search needs them again at floor/ceil of its fractional orders), computed once per (sigma, q) pair:
        # the numbers of sgm_rdp (rdp._sgm_rdp_int works order by order and row by row; sgm_rdp raises integer
        # orders by rdp._REL_MARGIN)
        def per_int() -> np.ndarray:
            if "vals" not in cache:
                cache["vals"] = _rdp._sgm_rdp_int(pairs[:, 0], pairs[:, 1], cache["ints"])
            return np.asarray(cache["vals"])

        cache.update(arr=arr, pid=pid, ints=_rdp._DEFAULT_INTS[_rdp._INT_GROUPS[0]], per_int=per_int)
        # per-step values met so far, per (sigma, q) pair and grid order (a sweep's configurations share pairs;
        # kept only when they do)
        memo: dict[str, np.ndarray] = {}
        if len(pairs) < len(arr):
            memo = {"up": np.full((len(pairs), len(_rdp.FRAC_ORDERS)), np.nan), "low": np.zeros((len(pairs), len(_rdp.FRAC_ORDERS)))}

        def rows_at_skip(alpha: np.ndarray, rows: np.ndarray,
                         skip: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            """(upper, lower, done) composed RDP of the configs ``rows``, each at its own fractional order ``alpha[i]``;
            the upper values of the rows ``done`` are those of ``curve([alpha[i]], [rows[i]])`` to the bit
            (rdp.sgm_rdp_rows).  ``skip(i, upper, lower) -> excluded`` (``i`` positions in ``rows``, composed bounds
            from the series' probe): the rows it excludes keep those rigorous bounds, ``done`` False
            (rdp._sgm_rdp_rows_skip); used only where every configuration has its own (sigma, q)."""
            alpha = np.asarray(alpha, dtype=float)
            steps = arr[rows, 2]
            if not memo:
                sk = None if skip is None else (lambda i, u, lw: skip(i, steps[i] * u, steps[i] * lw))
                up, low, done = _rdp._sgm_rdp_rows_skip(arr[rows, 0], arr[rows, 1], alpha,
                                                        (cache["ints"], per_int()[pid[rows]]), sk)
                return steps * up, steps * low, done
            col = np.minimum(np.searchsorted(_rdp.FRAC_ORDERS, alpha), len(_rdp.FRAC_ORDERS) - 1)
            on_grid = _rdp.FRAC_ORDERS[col] == alpha
            p = pid[rows]
            need = ~on_grid | np.isnan(memo["up"][p, col])
            up, low = memo["up"][p, col], memo["low"][p, col]
            done = np.ones(len(rows), dtype=bool)
            if need.any():
                k = np.nonzero(need)[0]
                # no probe here: the configurations share (sigma, q), and a full value is memoised for all of them
                # (a probe's bounds are not; measured: the sweep shape 38-45k -> 31-32k/CPU-s with probes)
                u, lw, dn = _rdp._sgm_rdp_rows_skip(pairs[p[k], 0], pairs[p[k], 1], alpha[k],
                                                    (cache["ints"], per_int()[p[k]]), None)
                up[k], low[k], done[k] = u, lw, dn
                g = k[on_grid[k] & dn]  # only values of the full series are kept
                memo["up"][p[g], col[g]], memo["low"][p[g], col[g]] = up[g], low[g]
            return steps * up, steps * low, done

        def rows_at(alpha: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """(upper, lower) composed RDP of the configs ``rows``, each at its own fractional order ``alpha[i]``;
            the upper values are those of ``curve([alpha[i]], [rows[i]])`` to the bit (rdp.sgm_rdp_rows)."""
            up, low, _ = rows_at_skip(alpha, rows)
            return up, low

        curve.rows_at_skip = rows_at_skip  # type: ignore[attr-defined]
        # the order search may go on the series' probes first (rdp._refine_probe_first): every configuration has
        # its own (sigma, q), and the probes are those of the generated kernels
        curve.probes = not memo and _rdp._terms_generated()  # type: ignore[attr-defined]
        curve.rows_at = rows_at  # type: ignore[attr-defined]
        curve.steps = lambda rows: arr[rows, 2]  # type: ignore[attr-defined]
    return curve


def _rdp_batch(cfgs: Configs, orders: np.ndarray, sampling: str) -> np.ndarray:
    """Composed RDP curves (n_configs, n_orders); single-segment configs vectorised with deduplication."""
    arr = _single(cfgs)
    if arr is not None:
        pairs, inv = _rdp._unique_rows(arr[:, :2])
        fn = _rdp.wor_rdp if sampling == "without_replacement" else _rdp.sgm_rdp
        per = fn(noise_multiplier=pairs[:, 0], sample_rate=pairs[:, 1], orders=orders)
        return arr[:, 2:3] * per[inv]
    assert not isinstance(cfgs, np.ndarray)
    return np.stack([_rdp_curve(c, orders, sampling) for c in cfgs])


def rdp_epsilons(rows: Configs, deltas: np.ndarray, sampling: str,
                 orders: np.ndarray | None) -> tuple[np.ndarray, Any]:
    """(epsilon of each config ``rows[i]`` at ``deltas[i]``, the optimal orders); 0 for a config of no steps."""
    e, o = _rdp.epsilon_for_curves(_rdp_curve_fn(rows, sampling), deltas, len(rows), orders)
    eps_out = np.asarray(e, dtype=float).ravel()
    return np.where(_total_steps(rows) == 0, 0.0, eps_out), o


def rdp_deltas(rows: Configs, epsilons: np.ndarray, sampling: str,
               orders: np.ndarray | None) -> tuple[np.ndarray, Any]:
    """(delta of each config ``rows[i]`` at ``epsilons[i]``, the optimal orders); 0 for a config of no steps."""
    dv, o = _rdp.delta_for_curves(_rdp_curve_fn(rows, sampling), epsilons, len(rows), orders)
    return np.where(_total_steps(rows) == 0, 0.0, dv), o


def _total_steps(rows: Configs) -> np.ndarray:
    """The number of steps of each config (one Python pass; single-segment configs without the generator)."""
    if isinstance(rows, np.ndarray):
        return rows[:, 2]
    if all(len(c) == 1 for c in rows):
        return np.array([c[0][2] for c in rows], dtype=float)
    return np.array([sum(T for *_, T in c) for c in rows], dtype=float)
