"""The shared costs of the ladder (issue 25): compiled callables memoised per expression, and the symbolic sign
proof of an inequality skipped where the numerical search re-confirmed a counterexample."""

from __future__ import annotations

import mpmath
import sympy as sp

from symdp.symbols import eps
from symdp.theorem import Kind, Source, Verdict, theorem
from symdp.verify import compile as vc
from symdp.verify import verify_theorem

SRC = Source("test", "", "planted", "test")


def test_compile_memo_hits_and_reads_the_working_precision():
    x = sp.Symbol("x_memo_test", positive=True)
    e = sp.log(1 + x) / x + sp.Rational(1, 3)
    h0 = vc.COMPILED_STATS["hits"]
    f1 = vc.compile_expr(e)
    f2 = vc.compile_expr(sp.log(1 + x) / x + sp.Rational(1, 3))  # a structurally equal expression: a hit
    assert vc.COMPILED_STATS["hits"] == h0 + 1
    for dps in (15, 30, 60):
        with mpmath.workdps(dps):
            pt = {"x_memo_test": mpmath.mpf(1) / 7}
            ref = mpmath.log(1 + pt["x_memo_test"]) / pt["x_memo_test"] + mpmath.mpf(1) / 3
            # the memoised callable computes at the ambient precision (a frozen precision would miss at 60 digits)
            assert abs(f2(pt) - ref) <= abs(ref) * mpmath.mpf(10) ** (-dps + 2)
            assert f1(pt) == f2(pt)
    # a symbol with other assumptions is another expression: no false hit
    y = sp.Symbol("x_memo_test")
    g = vc.compile_expr(sp.Abs(y) - y)
    with mpmath.workdps(30):
        assert g({"x_memo_test": mpmath.mpf(-2)}) == 4


def test_hyp_checker_memo():
    x = sp.Symbol("x_hyp_test", positive=True)
    hyps = (x < 2, x**2 > sp.Rational(1, 4))
    c1 = vc.hyp_checker(hyps)
    h0 = vc.COMPILED_STATS["hits"]
    c2 = vc.hyp_checker(tuple(hyps))
    assert vc.COMPILED_STATS["hits"] == h0 + 1
    for c in (c1, c2):
        assert c({"x_hyp_test": "1"}) and not c({"x_hyp_test": "3"}) and not c({"x_hyp_test": "0.25"})


def test_refuted_inequality_skips_the_sign_proof_and_a_true_one_keeps_it():
    kw = dict(hypotheses=[eps > 0], domain={eps: (sp.Rational(1, 100), 20)})
    tight = eps * sp.tanh(eps / 2)
    false = theorem("planted.cmp_false_order", "e-1 <= tanh", Kind.COMPARISON, SRC, lhs=eps * (sp.exp(eps) - 1),
                    rhs=tight, **kw)
    f = verify_theorem(false, ledger=False)
    assert f.verdict is Verdict.REFUTED and f.counterexample
    assert any("sign not tried" in a for a in f.attempts)
    assert not any("sign not decided" in a for a in f.attempts)
    # a claim SymPy's assumptions prove: PROVED by the symbolic rung, with no search fields filled in
    true = theorem("planted.cmp_sign", "eps <= eps + 1", Kind.COMPARISON, SRC, lhs=eps, rhs=eps + 1, **kw)
    r = verify_theorem(true, ledger=False)
    assert r.verdict is Verdict.PROVED and r.evidence.rung == "symbolic"
    assert r.box is None and r.claimed is None and r.counterexample is None
