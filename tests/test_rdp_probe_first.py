"""Issue 25, item 2 (session 34): the order search on the series' probes first (rdp._refine_probe_first).

The search visits fractional orders on their probes' rigorous brackets only, evaluates the full series only at the
orders that can still win, and keeps its answer only where every other candidate's lower bound converts above it
(else the configuration goes to the exact search, rdp._refine_exact).  The tests compare its answers, to the bit,
with independent references: the loop over every candidate order (rdp._refine_fractional), the plain minimum over
the whole default grid (no search at all), and mpmath quadrature at the reported orders; and they force the check
to fail (full values raised, still valid upper bounds) so that the fallback runs and must give the reference too.
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import pytest

import symdp.accountants as A
from symdp.accountants import rdp as R
from symdp.accountants import rdp_curves as RC

needs_generated = pytest.mark.skipif(not R._terms_generated(), reason="symdp.generated not importable: no probe")


def _configs(seed: int) -> tuple[np.ndarray, ...]:
    """The bench's band (sigma 0.5..3, q 1e-3..0.1, T 100..5e4), a wider band and corners (q = 1, T = 1 and 1e9,
    sigma 1e-3 and 1e4, delta 1e-300, large epsilon); every (sigma, q) distinct."""
    g = np.random.default_rng(seed)
    n = 240
    s, q = g.uniform(0.5, 3.0, n), g.uniform(1e-3, 0.1, n)
    T = g.integers(100, 50000, n)
    d, e = g.choice([1e-5, 1e-6, 1e-8], n), g.uniform(0.1, 20.0, n)
    w = slice(0, None, 4)
    s[w], q[w], T[w] = g.uniform(0.3, 8.0, n // 4), 10 ** g.uniform(-6, -0.1, n // 4), g.integers(1, 10 ** 6, n // 4)
    c = slice(2, None, 24)
    k = len(s[c])
    s[c] = g.choice([1e-3, 0.05, 30.0, 1e4], k) * (1 + 0.01 * np.arange(k))  # every (sigma, q) distinct: the probes' path
    q[c] = g.choice([1e-9, 1e-4, 0.5, 1.0], k)
    T[c], d[c], e[c] = g.choice([1, 1000, 10 ** 9], k), g.choice([1e-300, 1e-12, 1e-5], k), g.choice([0.01, 50.0, 500.0], k)
    assert len(np.unique(np.stack([s, q], axis=1), axis=0)) == n
    return s, q, T, d, e


def _api(kind: str, s: np.ndarray, q: np.ndarray, T: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    kw: dict[str, Any] = dict(noise_multiplier=s, sample_rate=q, steps=T, accountant="rdp")
    r = A.epsilon(delta=t, **kw) if kind == "epsilon" else A.delta(epsilon=t, **kw)
    return np.asarray(getattr(r, kind), dtype=float), np.asarray(r.details["optimal_order"], dtype=float)


@needs_generated
@pytest.mark.parametrize("kind", ["epsilon", "delta"])
def test_probe_first_equals_the_loop_over_every_candidate(monkeypatch, kind):
    """The accountant's answers and optimal orders equal those of rdp._refine_fractional (every candidate order in
    full, in increasing order), to the bit, with the full series evaluated at fewer orders than the exact
    best-first search (rdp._refine_exact) needs."""
    s, q, T, d, e = _configs(7)
    tgt = d if kind == "epsilon" else e
    full_rows: list[int] = []
    first: list[int] = []
    exact: list[int] = []
    orig_b, orig_f, orig_e = R._frac_series_bounds_skip, R._refine_probe_first, R._refine_exact

    def count_b(sig: Any, qq: Any, a: Any, skip: Any) -> Any:
        out = orig_b(sig, qq, a, skip)
        full_rows.append(int(out[2].sum()))
        return out

    def count_f(*a: Any) -> Any:
        first.append(1)
        return orig_f(*a)

    def count_e(*a: Any) -> None:
        exact.append(int(a[3].any(axis=1).sum()))
        orig_e(*a)

    monkeypatch.setattr(R, "_frac_series_bounds_skip", count_b)
    monkeypatch.setattr(R, "_refine_probe_first", count_f)
    monkeypatch.setattr(R, "_refine_exact", count_e)
    new = _api(kind, s, q, T, tgt)
    n_first = sum(full_rows)
    assert first and n_first > 100
    assert sum(exact) <= len(s) // 20  # the check rarely fails (a full value above its probe's upper end)
    # the exact best-first search alone (no probe-first stage): the same answers, more full series
    monkeypatch.setattr(R, "_refine_probe_first", lambda values, curve, target, cand, *a: np.ones(len(cand), dtype=bool))
    full_rows.clear()
    old = _api(kind, s, q, T, tgt)
    assert sum(full_rows) > 1.3 * n_first
    monkeypatch.setattr(R, "_refine_bnb", lambda values, curve, target, cand, v, o, *rest: R._refine_fractional(
        values, curve, target, cand, v, o))
    ref = _api(kind, s, q, T, tgt)
    for x, y, z in zip(new, old, ref):
        assert np.array_equal(x, z) and np.array_equal(y, z)
    assert np.all(np.isfinite(new[0])) and np.all(new[0] >= 0)


class _Raised:
    """A Poisson curve of rdp_curves whose full fractional values (not the probes' brackets) are raised by a factor:
    still valid upper bounds, but now often above a probe's upper end, which the probe-first check must catch."""

    exact_convex = True

    def __init__(self, curve: Any, f: float, search: bool = True) -> None:
        self.c, self.f = curve, f
        self.probes = curve.probes
        if search:
            self.rows_at_skip, self.rows_at = self._rows_at_skip, self._rows_at

    def __call__(self, orders: np.ndarray, rows: np.ndarray) -> np.ndarray:
        out = np.array(self.c(orders, rows), dtype=float)
        out[:, orders != np.floor(orders)] *= self.f
        return out

    def _rows_at_skip(self, alpha: np.ndarray, rows: np.ndarray, skip: Any = None) -> tuple[np.ndarray, ...]:
        up, lo, done = self.c.rows_at_skip(alpha, rows, skip)
        return np.where(done, up * self.f, up), lo, done

    def _rows_at(self, alpha: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        up, lo, _ = self._rows_at_skip(alpha, rows)
        return up, lo

    def steps(self, rows: np.ndarray) -> np.ndarray:
        return np.asarray(self.c.steps(rows))


@needs_generated
@pytest.mark.parametrize("kind", ["epsilon", "delta"])
def test_failed_checks_go_to_the_exact_search(monkeypatch, kind):
    """Full values raised by 1e-4 (relative): configurations fail the probe-first check, the exact search answers
    them, and every answer equals the loop over every candidate with the same raised values; with the exact
    search disabled, the configurations it was given come out different (the check is what kept them right)."""
    s, q, T, d, e = _configs(8)
    keep = q < 1.0
    arr = np.stack([s[keep], q[keep], T[keep].astype(float)], axis=1)
    tgt = (d if kind == "epsilon" else e)[keep]
    fn = R.epsilon_for_curves if kind == "epsilon" else R.delta_for_curves
    curve = RC._rdp_curve_fn(arr, "poisson")
    assert curve.probes
    sent: list[np.ndarray] = []
    orig_e = R._refine_exact

    def exact(values: Any, c: Any, target: Any, cand: np.ndarray, *a: Any) -> None:
        sent.append(np.nonzero(cand.any(axis=1))[0])
        orig_e(values, c, target, cand, *a)

    monkeypatch.setattr(R, "_refine_exact", exact)
    v, o = fn(_Raised(curve, 1 + 1e-4), tgt, len(arr))
    rows = np.concatenate(sent) if sent else np.array([], dtype=int)
    assert len(rows) >= 5
    rv, ro = fn(_Raised(curve, 1 + 1e-4, search=False), tgt, len(arr))  # no rows_at: rdp._refine_fractional
    assert np.array_equal(v, rv) and np.array_equal(o, ro)
    monkeypatch.setattr(R, "_refine_exact", lambda *a: None)
    bv, _ = fn(_Raised(curve, 1 + 1e-4), tgt, len(arr))
    assert not np.array_equal(bv[rows], rv[rows])
    others = np.setdiff1d(np.arange(len(arr)), rows)
    assert np.array_equal(bv[others], rv[others])


@needs_generated
def test_searched_epsilon_is_the_minimum_over_the_whole_grid_and_mpmath():
    """Bench-band configurations: the searched epsilon equals, to the bit, the minimum over every default order
    evaluated in full (rdp_curves with explicit orders: no search, no pruning), and is at or above the CKS
    conversion of the 30-digit quadrature RDP at the reported order, within 1e-9 relative."""
    from test_batched_speed import _mp_rdp

    g = np.random.default_rng(9)
    n = 150
    s, q, T = g.uniform(0.5, 3.0, n), g.uniform(1e-3, 0.1, n), g.integers(100, 50000, n)
    d = g.choice([1e-5, 1e-6, 1e-8], n)
    eps, order = _api("epsilon", s, q, T, d)
    arr = np.stack([s, q, T.astype(float)], axis=1)
    grid_eps, _ = RC.rdp_epsilons(arr, d, "poisson", R.DEFAULT_ORDERS)
    inside = (order > R.DEFAULT_ORDERS[0]) & (order < R.DEFAULT_ORDERS[-1])  # no LARGE/SMALL extension
    assert inside.sum() > 140 and np.array_equal(eps[inside], np.asarray(grid_eps)[inside])
    assert np.mean(order != np.floor(order)) > 0.5  # mostly fractional orders: the series' answers
    for i in range(0, n, 15):
        a = float(order[i])
        with mpmath.workdps(30):
            rd = mpmath.mpf(int(T[i])) * mpmath.mpf(_mp_rdp(float(s[i]), float(q[i]), a))
            ref = float(rd + mpmath.log1p(-1 / mpmath.mpf(a)) - mpmath.log(a * mpmath.mpf(d[i])) / (a - 1))
        assert ref <= eps[i] <= ref * (1 + 1e-9), (i, eps[i], ref)
