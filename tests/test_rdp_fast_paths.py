"""Issue 25 part 2: the fast paths of the batched RDP accountant give the numbers of the paths they replace.

Each test switches a fast path off (or writes out the reference formula it replaces) and compares to the bit:
a wrong fast path (a term, an order, a row or a block boundary mixed up) changes some value.
"""

from __future__ import annotations

import numpy as np
import pytest

import symdp.accountants as A
from symdp.accountants import rdp as R


def _sigmas_qs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = np.concatenate([10 ** rng.uniform(-13, 4, n), rng.uniform(0.3, 5.0, n)])
    q = np.concatenate([10 ** rng.uniform(-7, 0, n), 10 ** rng.uniform(-4, -0.3, n)])
    q[::7] = 1.0
    return s, q


def test_integer_orders_side_by_side_equal_the_per_order_sums(monkeypatch):
    """rdp._int_log_excess_flat (the terms of several integer orders in one kernel call, each order's logsumexp
    over its own columns) against rdp._sum_terms order by order (the flat path switched off)."""
    s, q = _sigmas_qs(300, 1)
    orders = np.array([2.0, 3.0, 5.0, 8.0, 12.0, 13.0, 20.0, 33.0, 64.0, 72.0, 128.0])
    fast = R._sgm_rdp_int(s, q, orders)
    fast2d = R._sgm_rdp_int(s[:12].reshape(3, 4), q[:12].reshape(3, 4), orders)
    assert len(R._int_log_excess_flat(R._kernel("accounting.sgm_rdp_log_excess_term", "numpy"), s[:, None],
                                      np.minimum(q, 0.5)[:, None], orders)) == 9  # orders <= 64 take the fast path
    monkeypatch.setattr(R, "_FLAT_MAX_ORDER", 0)
    slow = R._sgm_rdp_int(s, q, orders)
    assert np.array_equal(fast, slow, equal_nan=True)
    assert np.array_equal(fast2d, R._sgm_rdp_int(s[:12].reshape(3, 4), q[:12].reshape(3, 4), orders), equal_nan=True)
    monkeypatch.setattr(R, "_FLAT_MAX_ORDER", 64)
    monkeypatch.setattr(R, "_FLAT_ELEMS", 37)  # blocks of one row: the same numbers
    assert np.array_equal(R._sgm_rdp_int(s, q, orders), slow, equal_nan=True)


def test_vectorised_interpolation_is_the_per_order_formula():
    """rdp._interpolate against the per-order convexity formula written out (loop over orders)."""
    rng = np.random.default_rng(2)
    for orders in (R.DEFAULT_ORDERS, R.SMALL_ORDERS, np.array([1.5, 2.0, 2.25, 7.5, 100.0])):
        ints = R._int_orders_needed(orders)
        r = 10 ** rng.uniform(-14, 3, (20, len(ints)))
        r[0, 0], r[1], r[2] = np.inf, np.nan, 0.0
        idx = {float(a): i for i, a in enumerate(ints)}
        ref = np.empty((20, len(orders)))
        with np.errstate(invalid="ignore"):
            for i, a in enumerate(orders):
                if float(a) in idx:
                    ref[:, i] = r[:, idx[float(a)]]
                    continue
                lo, hi = float(np.floor(a)), float(np.ceil(a))
                g_hi = (hi - 1) * r[:, idx[max(hi, 2.0)]]
                g_lo = (lo - 1) * r[:, idx[lo]] if lo >= 2 else 0.0 * g_hi
                th = (a - lo) / (hi - lo)
                ref[:, i] = ((1 - th) * g_lo + th * g_hi) / (a - 1)
        assert np.array_equal(R._interpolate(orders, ints, r), ref * (1 + R._REL_MARGIN), equal_nan=True)
    with pytest.raises(KeyError):
        R._interpolate(np.array([3.5]), np.array([2.0, 3.0]), np.ones((1, 2)))


def test_blocks_of_rows_do_not_change_any_value(monkeypatch):
    """The series (rdp._SERIES_ROWS), the ladder / candidate stage (rdp._DENSE_ROWS) and the search
    (rdp._BNB_CHUNK) in blocks of a few rows: epsilon, delta and the optimal orders equal the one-block run."""
    rng = np.random.default_rng(3)
    n = 150
    s, q = rng.uniform(0.4, 4.0, n), 10 ** rng.uniform(-4, -0.2, n)
    s[:5], q[5:8] = 10 ** rng.uniform(-12, -8, 5), 1.0
    T, d, e = rng.integers(1, 10 ** 7, n), rng.choice([1e-5, 1e-10, 0.1], n), rng.uniform(0.05, 30, n)
    kw = dict(noise_multiplier=s, sample_rate=q, steps=T, accountant="rdp")

    def run() -> list[np.ndarray]:
        re, rd = A.epsilon(delta=d, **kw), A.delta(epsilon=e, **kw)
        return [np.asarray(x) for x in (re.epsilon, re.details["optimal_order"], rd.delta, rd.details["optimal_order"])]

    whole = run()
    monkeypatch.setattr(R, "_SERIES_ROWS", 5)
    monkeypatch.setattr(R, "_DENSE_ROWS", 7)
    monkeypatch.setattr(R, "_BNB_CHUNK", 11)
    for a, b in zip(run(), whole):
        assert np.array_equal(a, b)
    # the series in blocks: each row its own call's numbers
    a = R.FRAC_ORDERS[rng.integers(0, len(R.FRAC_ORDERS), n)]
    up, low = R._frac_series_bounds(s, np.minimum(q, 0.9), a)
    monkeypatch.setattr(R, "_SERIES_ROWS", 10 ** 6)
    up2, low2 = R._frac_series_bounds(s, np.minimum(q, 0.9), a)
    assert np.array_equal(up, up2) and np.array_equal(low, low2)


def test_known_points_give_the_convexity_bounds_of_the_dense_layout():
    """rdp._Known (sorted keys) against the bounds written out on a dense row of known points: the secant
    extensions from both sides, monotonicity, the 1e-12 shave, and the chord."""
    rng = np.random.default_rng(4)
    m = 30
    x = R._BNB_X
    g_int = np.sort(rng.uniform(0, 5, (m, len(R._BNB_INT))), axis=1) * (R._DEFAULT_INTS[R._INT_GROUPS[0]] - 1)
    kn = R._Known(g_int)
    gl, gu = np.zeros((m, len(x))), np.zeros((m, len(x)))
    known = np.zeros((m, len(x)), dtype=bool)
    known[:, 0] = known[:, R._BNB_INT] = True
    gu[:, R._BNB_INT], gl[:, R._BNB_INT] = g_int, g_int / (1 + R._LOWER_SLACK)
    for _ in range(4):  # add one fractional point per row, then compare every unknown cell
        col = np.array([rng.choice(np.nonzero(~known[i])[0]) for i in range(m)])
        ga = rng.uniform(0, 1, m)
        kn.add(np.arange(m), col, ga, ga * 1.001)
        known[np.arange(m), col] = True
        gl[np.arange(m), col], gu[np.arange(m), col] = ga, ga * 1.001
        ri, at = np.nonzero(~known)
        lb, chord = kn.bounds(ri, at)
        for t in range(0, len(ri), 97):
            i, j = ri[t], at[t]
            ks = np.nonzero(known[i])[0]
            p1, n1 = ks[ks < j][-1], ks[ks > j][0]
            p2 = ks[ks < p1][-1] if (ks < p1).any() else None
            n2 = ks[ks > n1][0] if (ks > n1).any() else None
            xa = x[j]
            cands = [0.0, (xa - 1) * gl[i, p1] / (x[p1] - 1) if x[p1] > 1 else 0.0]
            if p2 is not None:
                cands.append(gl[i, p1] + (xa - x[p1]) * max(gl[i, p1] - gu[i, p2], 0.0) / (x[p1] - x[p2]))
            if n2 is not None:
                cands.append(gl[i, n1] - (x[n1] - xa) * (gu[i, n2] - gl[i, n1]) / (x[n2] - x[n1]))
            b = max(cands)
            scale = max(gu[i, n2] if n2 is not None else 0.0, gl[i, n1], b)
            assert lb[t] == max(b - 1e-12 * scale, 0.0)
            assert chord[t] == gu[i, p1] + (xa - x[p1]) * (gu[i, n1] - gu[i, p1]) / (x[n1] - x[p1])
