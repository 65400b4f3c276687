"""Sign proofs skipped because they cannot exist (issue 25): a difference that is not real at a point satisfying the
symbols' assumptions (:func:`symdp.verify.rungs.symbolic.probe_not_real`), and a strict claim whose sides are
exactly equal at such a point (:func:`symdp.verify.rungs.numerical.find_strict_equality`, run before the sign
proof).  Each skip is checked against the full SymPy path on the library claims it applies to: that path fails
there too, and the verification's result is the same with and without the skip."""

from __future__ import annotations

import sympy as sp

from symdp.library import get
from symdp.verify import verify_theorem
from symdp.verify.rungs import direct as D
from symdp.verify.rungs import symbolic as S

x = sp.Symbol("x", positive=True)
m = sp.Symbol("m", negative=True)
n = sp.Symbol("n", integer=True, positive=True)


def _diff(th):
    return (th.rhs - th.lhs) if th.relation in ("<=", "<") else (th.lhs - th.rhs)


def test_probe_not_real_on_planted_expressions():
    assert S.probe_not_real(sp.sqrt(sp.log(1 / x)))  # imaginary at x > 1
    assert S.probe_not_real(m ** sp.Rational(1, 3) + 1)  # principal cube root of a negative number
    assert S.probe_not_real(sp.log(m) + x)
    assert S.probe_not_real((1 - x) ** (x / 3) - 2)
    # real everywhere the assumptions hold: never reported
    assert not S.probe_not_real(sp.sqrt(x) - 1)
    assert not S.probe_not_real(sp.sqrt(sp.log(1 + x)) - x)
    assert not S.probe_not_real(sp.log(x) ** 2 - sp.sqrt(n))
    assert not S.probe_not_real(x + n)  # no log, no fractional power: not even probed
    # not real term by term but real in sum (the imaginary parts cancel): the ball's imaginary part holds 0
    r = sp.sqrt(sp.log(1 / x))
    assert not S.probe_not_real((r + 1) ** 2 - sp.log(1 / x) - 2 * r + x)
    assert S.probe_not_real(r - r * (1 + sp.Rational(1, 10**40)) + x)  # -1e-40 sqrt(log(1/x)): not real
    assert not S.probe_not_real(sp.sqrt(1 - x) * sp.sqrt(1 - x) - 1 + x)
    # Min of a non-real argument: undefined, not reported (no conclusion)
    assert not S.probe_not_real(sp.Min(x, sp.sqrt(sp.log(1 / x))) + 1)


def test_not_real_claims_fail_the_full_sign_path_too(monkeypatch):
    """The library claims the probe skips: the sign proof without the probe (the path before the skip) fails."""
    skipped = []
    for cid in ("he2021uai.cmp_cor2_vs_thm4", "he2021long.b5_tightness", "pacbayes.pinsker"):
        th = get(cid, with_evidence=False)
        assert S.probe_not_real(_diff(th)), cid
        skipped.append(th)
    assert not S.symbolic_sign(skipped[0].lhs, skipped[0].relation, skipped[0].rhs)
    monkeypatch.setattr(S, "probe_not_real", lambda d, *a, **k: False)
    for th in skipped:
        assert not S.symbolic_sign(th.lhs, th.relation, th.rhs), th.id


def test_real_claims_proved_by_sign_are_not_probed_away():
    for cid in ("he2021.cmp_kl_le_dwork_rothblum", "he2021.cmp_kl_le_dwork2010", "bu2020.mnist_mu113_clt_vs_ma"):
        th = get(cid, with_evidence=False)
        assert not S.probe_not_real(_diff(th)), cid
        assert S.symbolic_sign(th.lhs, th.relation, th.rhs), cid


def _fields(vr):
    ev = vr.evidence
    return (ev.verdict, ev.rung, ev.detail, ev.certificate, ev.counterexample, ev.cases, vr.counterexample, vr.claimed,
            vr.actual, vr.margin, vr.region)


def test_strict_equality_first_gives_the_same_result(monkeypatch):
    """he2021.cmp_delta_vs_dwork_roth (``<``) is exactly equal at T = 1: the sign proof is skipped, and the result is
    the one of the path that tries it first (3 s of simplify that fails) and then finds the equality."""
    th = get("he2021.cmp_delta_vs_dwork_roth", with_evidence=False)
    calls = []
    real_sign = D.symbolic_sign

    def counting(*a, **k):
        calls.append(a)
        return real_sign(*a, **k)

    monkeypatch.setattr(D, "symbolic_sign", counting)
    fast = verify_theorem(th, ledger=False)
    assert calls == []  # skipped
    assert any("sign not tried (lhs - rhs == 0 exactly" in a for a in fast.attempts)

    def early_fails(*a, **k):  # the early call raises: the path before the change (sign first, equality after)
        monkeypatch.setattr(D, "find_strict_equality", real_find)
        raise RuntimeError("not now")

    real_find = D.find_strict_equality
    monkeypatch.setattr(D, "find_strict_equality", early_fails)
    slow = verify_theorem(th, ledger=False)
    assert len(calls) == 1  # the sign proof ran, and failed
    assert "symbolic: sign not decided" in slow.attempts
    assert _fields(fast) == _fields(slow)
    assert fast.evidence.verdict.value == "REFUTED"


def test_complex_balls_follow_sympys_principal_branches():
    """The complex ball of an expression at a point agrees with SymPy's own complex value there (30 digits): the
    branches of sqrt, log, x**(p/q) and b**x are SymPy's, so a ball off the real line means SymPy's value is too."""
    from flint import arb, ctx

    pts = {x: sp.Rational(7, 3), m: sp.Rational(-5, 4), n: sp.Integer(3)}
    exprs = [
        sp.sqrt(sp.log(1 / x)),
        m ** sp.Rational(1, 3),
        m ** sp.Rational(-5, 2) + x ** sp.Rational(3, 2),
        (1 - x) ** (x / 3),
        sp.log(m * x) - sp.log(x),
        sp.exp(sp.sqrt(m)) * sp.erfc(sp.sqrt(m - x)),
        sp.tanh(sp.sqrt(m)) + sp.Abs(sp.sqrt(m) + 1),
        (m + sp.sqrt(m)) ** n / (x - sp.log(m)),
        sp.Min(x, n) * sp.sqrt(m),
    ]
    old = ctx.prec
    try:
        ctx.prec = 200
        env = {s: arb(str(v.p)) / arb(str(v.q)) for s, v in pts.items()}
        for e in exprs:
            ball = S._complex_ball(e, env, {})
            ref = complex(sp.N(e.subs(pts), 40))
            got = complex(float(ball.real.mid()), float(ball.imag.mid()))
            assert abs(got - ref) <= 1e-12 * max(1.0, abs(ref)), (e, got, ref)
            assert (ref.imag != 0) == (ball.imag > 0 or ball.imag < 0), e
    finally:
        ctx.prec = old
