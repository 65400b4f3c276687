"""Issue 25, item 2 (session 35): the batched RDP accountant's values against a frozen verbatim copy of the code it
replaces (``tests/frozen/rdp_s34.py`` and ``rdp_curves_s34.py``: main at 30996d6), run in this process on this
machine (so the comparison does not depend on the platform's libm), to the bit: epsilon(delta), delta(epsilon)
and the optimal orders on the bench's 10,000 configurations (every (sigma, q) distinct), a sweep (pairs shared)
and corner grids (q = 1, sigma 1e-13 .. 1e4, T 1 .. 1e9, delta 1e-300 .. 0.1, epsilon 0.01 .. 500)."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
from typing import Any

import numpy as np
import pytest

from symdp.accountants import rdp_curves as RC

FROZEN = pathlib.Path(__file__).parent / "frozen"


def _load(name: str, file: str) -> Any:
    # a sibling of symdp.accountants.rdp (its relative imports resolve there), under its own name
    full = f"symdp.accountants._frozen_{name}"
    if full in sys.modules:
        return sys.modules[full]
    spec = importlib.util.spec_from_file_location(full, FROZEN / file)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[full] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def frozen() -> Any:
    rdp = _load("rdp_s34", "rdp_s34.py")
    curves = _load("rdp_curves_s34", "rdp_curves_s34.py")
    curves._rdp = rdp  # the frozen curves on the frozen accountant
    return curves


def _bench(n: int = 10000) -> tuple[np.ndarray, ...]:
    """bench/accountants.py's rdp_rates set (the same generator calls), with epsilon targets for delta(epsilon)."""
    rng = np.random.default_rng(0)
    sig, qq = rng.uniform(0.5, 3.0, n), rng.uniform(1e-3, 0.1, n)
    TT, dd = rng.integers(100, 50000, n), rng.choice([1e-5, 1e-6, 1e-8], n)
    ee = np.random.default_rng(1).uniform(0.1, 20.0, n)
    return sig, qq, TT, dd, ee


def _corners(n: int, seed: int) -> tuple[np.ndarray, ...]:
    g = np.random.default_rng(seed)
    s, q = 10 ** g.uniform(-13, 4, n), 10 ** g.uniform(-6, 0, n)
    T = np.round(10 ** g.uniform(0, 9, n)).astype(np.int64)
    d, e = 10 ** g.uniform(-12, -1, n), 10 ** g.uniform(-2, 2.7, n)
    q[::11], T[::13], T[::17], s[::19], s[::23], s[::37] = 1.0, 10 ** 9, 1, 1e-3, 1e4, 1e-13
    d[::29], d[::31], d[::41], e[::43] = 1e-300, 0.1, 1e-12, 500.0
    mid = slice(1, None, 3)  # the band where the series and the search do most of their work
    s[mid], q[mid] = g.uniform(0.3, 5, len(s[mid])), 10 ** g.uniform(-4, -0.3, len(q[mid]))
    return s, q, T, d, e


def _both(curves: Any, s: np.ndarray, q: np.ndarray, T: np.ndarray, d: np.ndarray, e: np.ndarray) -> list[np.ndarray]:
    rows = np.stack([s, q, np.asarray(T, dtype=float)], axis=1)
    ev, eo = curves.rdp_epsilons(rows, np.asarray(d, dtype=float), "poisson", None)
    dv, do = curves.rdp_deltas(rows, np.asarray(e, dtype=float), "poisson", None)
    return [np.asarray(x, dtype=float) for x in (ev, eo, dv, do)]


def _same(x: np.ndarray, y: np.ndarray) -> bool:
    return x.shape == y.shape and bool(np.array_equal(x.view(np.int64), y.view(np.int64)))


@pytest.mark.parametrize("case", ["bench", "sweep", "corners", "corners_distinct_band"])
def test_values_are_the_frozen_s34_values_to_the_bit(frozen, case):
    if case == "bench":
        data = _bench()
    elif case == "sweep":
        s, q, T, d, e = _bench(2000)
        data = (np.repeat(s[:20], 100), np.repeat(q[:20], 100), T, d, e)
    elif case == "corners":
        data = _corners(120, 5)
    else:
        s, q, T, d, e = _corners(120, 6)
        data = (s * (1 + 1e-9 * np.arange(len(s))), q, T, d, e)  # every (sigma, q) distinct: the probes' path
    new, old = _both(RC, *data), _both(frozen, *data)
    for name, x, y in zip(("epsilon", "eps order", "delta", "delta order"), new, old):
        assert _same(x, y), (case, name, int(np.sum(x.view(np.int64) != y.view(np.int64))))
    # the data reach the corners: finite and infinite answers, fractional and integer optimal orders, q = 1
    assert np.isfinite(new[0]).any() and (np.floor(new[1]) != new[1]).any() and (np.floor(new[1]) == new[1]).any()


def test_the_oracle_catches_a_changed_value(frozen, monkeypatch):
    """The comparison can fail: the live accountant with its fractional series' upper values raised by one ulp
    differs from the frozen one."""
    from symdp.accountants import rdp as R

    orig = R._frac_series_bounds_skip

    def bumped(sig: Any, qq: Any, a: Any, skip: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        up, low, done = orig(sig, qq, a, skip)
        return np.where(done, np.nextafter(up, np.inf), up), low, done

    monkeypatch.setattr(R, "_frac_series_bounds_skip", bumped)
    s, q, T, d, e = _bench(300)
    new, old = _both(RC, s, q, T, d, e), _both(frozen, s, q, T, d, e)
    assert not _same(new[0], old[0])
