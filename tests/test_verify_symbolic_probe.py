"""The symbolic rung's cheap numerical probe (issue 25): it may only skip proofs that cannot exist, never prove,
and the rung's budget is CPU time (a verdict must not depend on the machine's load)."""

from __future__ import annotations

import time

import pytest
import sympy as sp

from symdp.limits import TimeLimitExceeded, cpu_time_limit
from symdp.verify.rungs import symbolic as S

x, y = sp.symbols("x y", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
r = sp.Symbol("r", real=True)
m = sp.Symbol("m", negative=True)


def test_probe_points_respect_the_assumptions():
    assert S.probe_signs(m + 0) == [-1] * S.PROBE_POINTS
    assert S.probe_signs(n - 1 + sp.Rational(1, 2)) == [1] * S.PROBE_POINTS  # n >= 1
    assert S.probe_signs(x + 0) == [1] * S.PROBE_POINTS
    rng = __import__("random").Random(1)
    vals = [S._probe_value(n, rng) for _ in range(50)]
    assert all(v.is_Integer and v >= 1 for v in vals)


def test_probe_never_reports_a_true_identity_as_nonzero():
    # identically 0 but not term by term: at x up to ~2000 the terms reach e^(8e5) and any fixed precision
    # cancels to noise (mpmath at 50 and 90 digits agreed on a wrong 1.0 there); balls hold 0 instead
    d = (sp.exp(200 * x) + 1) * (sp.exp(200 * x) - 1) - sp.exp(400 * x) + 1
    assert d != 0
    assert S.probe_signs(d) == []
    assert S.symbolic_identity((sp.exp(200 * x) + 1) * (sp.exp(200 * x) - 1), sp.exp(400 * x) - 1)
    assert S.probe_signs(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1) == []


def test_planted_false_identity_is_not_proved_and_a_true_one_is():
    assert not S.symbolic_identity(sp.log(x * y), sp.log(x) + sp.log(y) + sp.Rational(1, 10**40) * x)
    assert not S.symbolic_identity(sp.sqrt(x**2 + 1), x + 1)
    assert S.symbolic_identity(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1))
    assert S.symbolic_identity((x**2 - 1) / (x - 1), x + 1)
    assert S.symbolic_identity(sp.log(x * y), sp.log(x) + sp.log(y))


def test_planted_false_sign_is_not_proved_and_a_true_one_is():
    # true on (0, 1.25] (the kind of domain an entry states) but false for large x: no proof from x > 0 alone
    assert not S.symbolic_sign(sp.exp(x), "<=", 1 + 2 * x)
    assert not S.symbolic_sign(x * (1 - x), ">=", sp.Integer(0))
    # true, and proved only after simplify (the unsimplified difference's sign is not known to SymPy)
    d = (x**2 + 2 * x * y + y**2) / (x + y) - x
    assert d.is_nonnegative is None
    assert S.symbolic_sign((x**2 + 2 * x * y + y**2) / (x + y), ">=", x)
    assert S.symbolic_sign((x**2 + 2 * x * y + y**2) / (x + y), ">", x)


def test_a_sign_refuted_by_the_probe_skips_simplify(monkeypatch):
    calls = []

    def counting(e, *a, **k):
        calls.append(e)
        return sp.simplify(e, *a, **k)

    monkeypatch.setattr(S.sp, "simplify", counting, raising=True)
    try:
        assert not S.symbolic_sign(sp.exp(x) * (x + y), "<=", 1 + 2 * x * y + 3 * x)
        assert calls == []
        assert not S.symbolic_identity(sp.exp(x) + y, sp.exp(x) + y + x / 10**30)
        assert calls == []
    finally:
        monkeypatch.undo()


def test_probe_ignores_complex_and_undefined_points():
    # log of a negative value (not real): no sign there
    assert S.probe_signs(sp.log(m) - 1) == []
    # an assumption the probe does not model: no points, the full path decides
    p = sp.Symbol("p", prime=True)
    assert S.probe_signs(p + 1) == []


def test_cpu_time_limit_counts_cpu_not_waiting():
    t0 = time.monotonic()
    with cpu_time_limit(0.3):
        time.sleep(0.6)  # sleeping uses no CPU: no limit reached
    assert time.monotonic() - t0 >= 0.6
    c0 = time.process_time()
    with pytest.raises(TimeLimitExceeded), cpu_time_limit(0.3):
        while True:
            sum(range(1000))
    assert 0.25 <= time.process_time() - c0 < 3.0
    # nested: the inner (earlier) deadline fires, the outer block goes on afterwards
    with cpu_time_limit(5.0):
        with pytest.raises(TimeLimitExceeded), cpu_time_limit(0.2):
            while True:
                sum(range(1000))
        sum(range(1000))


def test_a_fired_cpu_budget_is_not_counted_as_a_load_dependent_limit():
    from symdp import limits

    n0 = limits.FIRED["time"]
    with pytest.raises(TimeLimitExceeded), cpu_time_limit(0.05):
        while True:
            sum(range(1000))
    assert limits.FIRED["time"] == n0


def test_order_zero_expansion_still_decides_both_ways():
    """check_expansion with order 0 (remainder 1) skips the second simplify: a bounded difference holds, a growing one
    does not, and the limit is the one of the difference itself."""
    from symdp import Expansion, Kind, Source, theorem
    from symdp.asymptotics import check_expansion

    N = sp.Symbol("N", positive=True)
    src = Source("test", "", "test", "n/a")
    good = theorem("t.o0good", "o0", Kind.EXPANSION, src, lhs=N * (sp.exp(1 / N) - 1), rhs=sp.Integer(0),
                   expansion=Expansion(N, sp.oo, 0))
    bad = theorem("t.o0bad", "o0", Kind.EXPANSION, src, lhs=sp.sqrt(N) * sp.log(1 + N), rhs=sp.Integer(1),
                  expansion=Expansion(N, sp.oo, 0))
    ok, lim = check_expansion(good)
    assert ok is True and lim == 1
    ok, lim = check_expansion(bad)
    assert ok is False and lim == sp.oo
