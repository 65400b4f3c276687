"""Issue 25, item 2 (session 33): the series' probe of the batched RDP accountant.

The order search (rdp._refine_bnb) first sums a short probe of each fractional order it visits (the first
``n + J + 1`` terms, the Euler bracket of the tail with J = rdp._PROBE_J) and evaluates the full series only where
the probe's rigorous lower bound cannot rule the order out.  Each test compares a path with the probe to the path
without it, to the bit (epsilon, delta, the optimal orders, the series' values and lower bounds), on rows that
include the corners (q = 1, sigma 1e-13 and 1e4, T up to 1e9, delta 1e-10 and 0.1, orders near 1 and large), and
checks the probe's bracket against 50-digit quadrature.
"""

from __future__ import annotations

import numpy as np
import pytest

import symdp.accountants as A
from symdp.accountants import rdp as R

#: the probe's rounding bounds are those of the generated kernels; an install whose ``symdp.generated`` does not
#: import serves lambdified kernels, and the search then runs without the probe (the first test checks that too)
needs_generated = pytest.mark.skipif(not R._terms_generated(), reason="symdp.generated not importable: no probe")


def _corner_grid(n: int, seed: int) -> tuple[np.ndarray, ...]:
    g = np.random.default_rng(seed)
    s = 10 ** g.uniform(-13, 4, n)
    q = 10 ** g.uniform(-6, 0, n)
    T = np.round(10 ** g.uniform(0, 9, n)).astype(np.int64)
    d = 10 ** g.uniform(-10, -1, n)
    e = 10 ** g.uniform(-2, 1.5, n)
    q[::11], T[::13], T[::17], s[::19], s[::23], d[::29], d[::31] = 1.0, 10 ** 9, 1, 1e-13, 1e4, 1e-10, 0.1
    mid = slice(1, None, 3)  # the band where the series and the search do most of their work
    s[mid], q[mid] = g.uniform(0.3, 5, len(s[mid])), 10 ** g.uniform(-4, -0.3, len(q[mid]))
    return s, q, T, d, e


def _run(s: np.ndarray, q: np.ndarray, T: np.ndarray, d: np.ndarray, e: np.ndarray) -> list[np.ndarray]:
    kw = dict(noise_multiplier=s, sample_rate=q, steps=T, accountant="rdp")
    re, rd = A.epsilon(delta=d, **kw), A.delta(epsilon=e, **kw)
    return [np.asarray(x) for x in (re.epsilon, re.details["optimal_order"], rd.delta, rd.details["optimal_order"])]


@pytest.mark.parametrize("sweep", [False, True])
def test_search_with_probes_equals_search_without(monkeypatch, sweep):
    """epsilon, delta and the optimal orders with the probe (default) and with no probe (rdp._PROBE_HEADS empty: every
    visited order evaluated in full, the previous search), to the bit; ``sweep``: configurations sharing (sigma, q)
    (the per-pair memo of rdp_curves, where no probe is used)."""
    s, q, T, d, e = _corner_grid(400, 11)
    if sweep:
        s, q = np.repeat(s[:40], 10), np.repeat(q[:40], 10)
    probes = []
    orig = R._frac_series_bounds_skip

    def count(sig, qq, a, skip):
        out = orig(sig, qq, a, skip)
        probes.append(int((~out[2]).sum()))
        return out

    monkeypatch.setattr(R, "_frac_series_bounds_skip", count)
    fast = _run(s, q, T, d, e)
    # the probe ruled orders out; not on the per-pair memo path of a sweep (rdp_curves: full values memoised there)
    assert sum(probes) > 50 if R._terms_generated() and not sweep else sum(probes) == 0
    monkeypatch.setattr(R, "_PROBE_HEADS", ())
    probes.clear()
    slow = _run(s, q, T, d, e)
    assert sum(probes) == 0
    for x, y in zip(fast, slow):
        assert np.array_equal(x, y, equal_nan=True)


def _rows(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    s = np.concatenate([g.uniform(0.3, 5.0, n), 10 ** g.uniform(-12, 3, n)])
    q = np.concatenate([10 ** g.uniform(-4, -0.3, n), 10 ** g.uniform(-9, np.log10(0.999), n)])
    a = np.concatenate([g.choice(R.FRAC_ORDERS, n), g.choice(np.r_[R.FRAC_ORDERS, R.SMALL_ORDERS, 10.99, 11.5], n)])
    return s, q, a


@needs_generated
def test_series_completed_from_the_probe_is_the_series():
    """rdp._frac_series_bounds_skip with a skip that excludes nothing: every row goes on from its probe's terms to
    the full levels, and gives _frac_series_bounds's upper and lower values to the bit (blocks of rows of several
    probe lengths, orders without a probe, rows that need the levels past 32 terms)."""
    s, q, a = _rows(700, 3)
    called = []

    def none(rows, up, low):
        called.append(len(rows))
        return np.zeros(len(rows), dtype=bool)

    up, low, done = R._frac_series_bounds_skip(s, q, a, none)
    assert done.all() and sum(called) == int((R._probe_terms(a) > 0).sum()) > 1000
    ref_up, ref_low = R._frac_series_bounds(s, q, a)
    assert np.array_equal(up, ref_up) and np.array_equal(low, ref_low)


@needs_generated
def test_probe_brackets_the_series_and_rows_skipped_keep_it():
    """A skip that excludes every other row: the rows kept give the series' values to the bit; the rows excluded
    get the probe's pair, lower <= the series' lower end's value and upper >= the series' upper value's truth side
    (probe lower <= series upper, probe upper >= series lower), and done False."""
    s, q, a = _rows(500, 4)

    def half(rows, up, low):
        return rows % 2 == 0

    up, low, done = R._frac_series_bounds_skip(s, q, a, half)
    ref_up, ref_low = R._frac_series_bounds(s, q, a)
    probed = R._probe_terms(a) > 0
    excl = probed & (np.arange(len(a)) % 2 == 0)
    assert np.array_equal(done, ~excl)
    assert np.array_equal(up[done], ref_up[done]) and np.array_equal(low[done], ref_low[done])
    ctl = excl & np.isfinite(ref_up)
    assert ctl.sum() > 200
    assert np.all(low[ctl] <= ref_up[ctl]) and np.all(up[ctl] >= ref_low[ctl])
    assert np.all(low[excl] >= 0) and not np.isnan(up[excl]).any()


@needs_generated
def test_probe_brackets_mpmath_at_50_digits():
    """The probe's (upper, lower) pair (a head of 3, 7 or 11 terms and J = 6 Euler terms, whatever the width)
    brackets eps_alpha from a 50-digit quadrature, and is tight enough to be of use (its lower end within 1e-6
    relative for 70% of the rows where the series is controlled)."""
    from test_rdp_series_soundness import _mp_rdp

    g = np.random.default_rng(5)
    cases = [(float(g.uniform(0.4, 4.0)), float(10 ** g.uniform(-4, -0.5)), float(g.choice(R.FRAC_ORDERS)))
             for _ in range(16)]
    cases += [(0.5, 0.3, 10.9), (3e-12, 0.01, 1.1), (1e3, 1e-6, 6.5), (0.8, 0.999, 1.5)]
    s, q, a = (np.array(v) for v in zip(*cases))
    up, low, done = R._frac_series_bounds_skip(s, q, a, lambda rows, u, lw: np.ones(len(rows), dtype=bool))
    assert not done.any()
    ref = np.array([_mp_rdp(*c) for c in cases])
    assert np.all(low <= ref * (1 + 1e-15) + 1e-300), (low, ref)
    assert np.all(up >= ref), (up - ref)
    full, _ = R._frac_series_bounds(s, q, a)
    ok = np.isfinite(full) & (ref > 1e-200)
    assert ok.sum() >= 12 and np.mean((ref - low)[ok] <= 1e-6 * ref[ok]) >= 0.7


@needs_generated
def test_rows_with_skip_none_are_sgm_rdp_rows():
    """rdp._sgm_rdp_rows_skip without skip is sgm_rdp_rows (to the bit, done everywhere); with a skip, the rows
    done are sgm_rdp_rows's values and a distinct (sigma, q, alpha) is left out only where every row of it is."""
    s, q, a = _rows(300, 6)
    q[::9] = 1.0
    s, q, a = np.r_[s, s[:50]], np.r_[q, q[:50]], np.r_[a, a[:50]]  # repeated triples
    up, low, done = R._sgm_rdp_rows_skip(s, q, a, None, None)
    ref_up, ref_low = R.sgm_rdp_rows(s, q, a)
    assert done.all() and np.array_equal(up, ref_up) and np.array_equal(low, ref_low)
    n = len(a)

    def odd(rows, u, lw):
        assert np.all(u >= lw)
        return rows % 2 == 1

    up, low, done = R._sgm_rdp_rows_skip(s, q, a, None, odd)
    assert np.array_equal(up[done], ref_up[done]) and np.array_equal(low[done], ref_low[done])
    i = np.arange(n)
    rep = i[:50] + n - 50  # row i < 50 and row n - 50 + i are the same triple
    both_odd = (i[:50] % 2 == 1) & (rep % 2 == 1)
    assert np.array_equal(done[:50] & (R._probe_terms(a[:50]) > 0) & (q[:50] < 1), ~both_odd & (R._probe_terms(a[:50]) > 0) & (q[:50] < 1))
    assert done[q >= 1].all()
    assert np.all(low[~done] <= ref_up[~done]) and np.all(up[~done] >= ref_low[~done])


def test_euler_weights_of_the_default_j_are_the_module_constants():
    c, d = R._euler_weights(R._EULER_J)
    assert c is R._EULER_C and d is R._EULER_D
    c6, d6 = R._euler_weights(6)
    assert len(c6) == 6 and len(d6) == 7 and abs(d6.sum() - 1.0) < 1e-15
