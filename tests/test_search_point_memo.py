"""The numerical search evaluates each (point, precision) once (``search._PointMemo``) and the linear-regression
oracle computes its gamma-free grid once: both must give exactly what evaluating afresh gives (issue 25)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from symdp.verify import search as S
from symdp.verify.oracles_examples import linreg_dp_lower


class _NoMemo(S._PointMemo):
    """The search as before the memo: every call evaluates."""

    def __call__(self, pt, dps):
        self.misses += 1
        return S._evaluate(self.f_claim, self.f_true, pt, self.relation, dps, self.rtol)


def _run(monkeypatch, memo_cls, f_claim, f_true, box, **kw):
    calls = []

    def counted(p):
        calls.append((mpmath.mp.dps, tuple(sorted((k, str(v)) for k, v in p.items()))))
        return f_true(p)

    monkeypatch.setattr(S, "_PointMemo", memo_cls)
    res = S.find_counterexample(f_claim, counted, box, **kw)
    return res, calls


def _pole_above(t, at):
    if t > at:
        raise ValueError("pole")
    return t / 4


CASES = [
    # a false claim (violations, pattern search skipped, shrink to round numbers, 60-digit re-confirmation)
    (lambda p: 0.9 * p["epsilon"] * mpmath.tanh(p["epsilon"] / 2), lambda p: p["epsilon"] * mpmath.tanh(p["epsilon"] / 2),
     S.Box({"epsilon": (0.01, 10.0)}), {"n": 40}),
    # a true claim with a tight spot: the pattern search runs and steps back onto points it has seen
    (lambda p: p["x"] ** 2 + p["y"] ** 2 + mpmath.mpf("1e-3"), lambda p: 2 * p["x"] * p["y"],
     S.Box({"x": (0.1, 5.0), "y": (0.1, 5.0)}), {"n": 30, "refine": 25}),
    # undefined on part of the box: errors and unevaluable points are counted the same way
    (lambda p: mpmath.mpf(1), lambda p: _pole_above(p["t"], 3),
     S.Box({"t": (1.0, 5.0)}), {"n": 30, "refine": 10}),
    # integers and an equality claim
    (lambda p: p["k"] * (p["k"] + 1) / 2, lambda p: mpmath.fsum(range(int(p["k"]) + 1)),
     S.Box({"k": (1, 200)}, frozenset({"k"})), {"n": 25, "relation": "=="}),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_point_memo_changes_no_result(monkeypatch, case):
    f_claim, f_true, box, kw = CASES[case]
    with_memo, calls_memo = _run(monkeypatch, S._PointMemo, f_claim, f_true, box, **kw)
    without, calls_plain = _run(monkeypatch, _NoMemo, f_claim, f_true, box, **kw)
    assert with_memo == without  # every field: verdict, witness, values, margins, counts, errors, the point lists
    assert sorted(set(calls_memo)) == sorted(set(calls_plain))  # the same points evaluated
    assert len(calls_memo) == len(set(calls_memo))  # ... each once per precision
    assert with_memo.cases == without.cases  # a repeat still counts as a case, as the evidence text says


def test_point_memo_saves_repeats_in_the_pattern_search(monkeypatch):
    f_claim, f_true, box, kw = CASES[1]
    _, calls_memo = _run(monkeypatch, S._PointMemo, f_claim, f_true, box, **kw)
    _, calls_plain = _run(monkeypatch, _NoMemo, f_claim, f_true, box, **kw)
    assert len(calls_memo) < len(calls_plain)


def test_point_memo_raises_a_stored_error_again():
    def undefined(p):
        raise ZeroDivisionError("pole")

    memo = S._PointMemo(lambda p: 1, undefined, "<=")
    for _ in range(2):
        with pytest.raises(ZeroDivisionError):
            memo({"a": "1"}, 30)
    assert (memo.hits, memo.misses) == (1, 1)


def test_point_memo_keys_on_precision():
    seen = []
    memo = S._PointMemo(lambda p: mpmath.mpf(1) / 3, lambda p: seen.append(mpmath.mp.dps) or mpmath.mpf(0), "<=")
    a, b = memo({"a": "1"}, 30), memo({"a": "1"}, 60)
    assert seen == [30, 60] and a[0] != b[0]  # 1/3 at 30 and at 60 digits differ


def _linreg_grid_reference() -> float:
    best = 0.0
    for y in np.linspace(-1.0, 1.0, 5):
        for x in np.linspace(-2.0, 2.0, 9):
            for y2 in np.linspace(-1.0, 1.0, 5):
                for x2 in np.linspace(-2.0, 2.0, 9):
                    d = [(y2 - x2 * h) ** 2 - (y - x * h) ** 2 for h in np.linspace(-2.0, 2.0, 17)]
                    best = max(best, max(d) - min(d))
    return best


@pytest.mark.parametrize("gamma", ["0.001", "0.37", "1", "12.5", "3.75", "1e6", "0.123456789012345678901234567"])
def test_linreg_grid_computed_once_is_the_same_value(gamma):
    """linreg_dp_lower's gamma-free grid maximum, computed once per process, is the per-point grid's value (32,
    dyadic: exact in float64), to the bit at 30 digits."""
    assert _linreg_grid_reference() == 32.0
    with mpmath.workdps(30):
        g = mpmath.mpf(gamma)
        assert linreg_dp_lower(gamma=g)._mpf_ == (g * mpmath.mpf(_linreg_grid_reference()))._mpf_
    with pytest.raises(ValueError):
        linreg_dp_lower(gamma=-g)


def test_oracle_not_asked_where_the_claim_is_undefined():
    """Where the claim side is None the point is unevaluable whatever the truth is: counted as an error and listed,
    exactly as when the oracle was evaluated there too, and the oracle is not called."""
    asked = []

    def f_claim(p):
        return None if p["x"] > 2 else p["x"]

    def f_true(p):
        asked.append(float(p["x"]))
        if p["x"] > 2:
            raise ValueError("the oracle raised here before; the point counted as an error either way")
        return p["x"] / 2

    res = S.find_counterexample(f_claim, f_true, S.Box({"x": (1.0, 3.0)}), n=40, refine=5)
    undefined = [pt for pt in [{"x": "1.0"}, {"x": "3.0"}] if float(pt["x"]) > 2]
    assert res.errors >= len(undefined) and res.errors + res.cases >= 40
    assert res.unevaluable and all(float(p["x"]) > 2 for p in res.unevaluable)
    assert asked and max(asked) <= 2
    assert res.counterexample is None and res.rel_margin is not None and res.rel_margin > 0


@pytest.mark.parametrize(("lo", "hi", "thr"), [(0.1, 5.0, 2.5), (1e-4, 10.0, 2 ** 0.5 * 1e-2), (1.0, 3.0, math.pi / 2)])
def test_threshold_bisection_stops_once_the_printed_threshold_is_settled(lo, hi, thr):
    """The threshold is printed to 6 significant digits; bisection stops when both ends print the same, which is
    the text 30 halvings gave (every later midpoint lies between the ends), with fewer evaluations."""
    calls = []

    def f_true(p):
        calls.append(1)
        return p["x"]

    res = S.find_counterexample(lambda p: mpmath.mpf(thr), f_true, S.Box({"x": (lo, hi)}), n=60, refine=0)
    assert res.counterexample is not None and res.confirmed
    calls.clear()
    txt = S.threshold_region(res, S.Box({"x": (lo, hi)}), lambda p: mpmath.mpf(thr), f_true)
    assert txt is not None and txt.startswith(f"holds for x <= {thr:.6g} and fails above")
    assert len(calls) < 16 + 30  # the grid, then fewer than the 30 halvings
