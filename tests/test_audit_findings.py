"""Issue 23: findings an expert signs.

* the oracle evaluates the claimed side at the point it reports (binding order of premise parameters);
* findings grouped into distinct errors of the papers; severity rules; witnesses with their region;
* decided claims (mechanism algebra brackets, proofs, interval branch-and-bound).
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from symdp.library import all_theorems, get
from symdp.library._sources import src
from symdp.theorem import Kind, Property, theorem
from symdp.verify import ORACLES, load_ledger, verify_theorem
from symdp.verify.compile import premise_exprs
from symdp.verify.rungs.oracle import oracle_functions

E, D, N, TAU, T = (sp.Symbol(n, positive=True) for n in ("epsilon", "delta", "N", "tau", "T"))
EP = sp.Symbol("epsilonprime", positive=True)
DP = sp.Symbol("deltaprime", positive=True)


# ---- 1. the claimed side at the reported point ------------------------------------------------------------

def _planted(eps_prime_expr, delta_expr):
    """T steps, each (2 eps tau/N, delta tau/N)-DP, claimed to compose to (eps'(eps), delta')-DP."""
    Ti = sp.Symbol("T", positive=True, integer=True)
    return theorem(
        "test.binding_order", "planted: premise parameter named like the claim's symbol", Kind.BOUND,
        src("he2021-long", "Thm 8"), lhs=DP, rhs=delta_expr,
        hypotheses=[E > 0, D > 0, D < 1, TAU >= 1, N >= TAU],
        domain={E: (sp.Rational(1, 10), 2), D: (sp.Rational(1, 10**8), sp.Rational(1, 100)), TAU: (1, 10),
                N: (100, 1000), Ti: (1, 50)},
        premises=(Property("DP", (2 * E * TAU / N, D * TAU / N), "M_t"),),
        conclusion=Property("DP", (eps_prime_expr.subs(T, Ti), delta_expr.subs(T, Ti))),
        oracle="optimal_composition",
    )


@pytest.mark.parametrize("pt", [
    {"epsilon": "1.3", "delta": "1e-6", "tau": 7, "N": 300, "T": 20},
    {"epsilon": "0.4", "delta": "1e-3", "tau": 2, "N": 150, "T": 9},
])
def test_oracle_takes_the_truth_at_the_claims_own_eps_prime(pt):
    # eps' = 3 eps tau sqrt(T)/N (in the claim's eps, NOT the per-step 2 eps tau/N): the oracle's composition
    # must be evaluated at that eps', with per-step (2 eps tau/N, delta tau/N)
    th = _planted(3 * E * TAU * sp.sqrt(T) / N, sp.Integer(0) + D)
    f_c, f_t, _rel, _syms = oracle_functions(th, ORACLES["optimal_composition"])[:4]
    p = {k: (mpmath.mpf(v) if isinstance(v, str) else v) for k, v in pt.items()}
    e, d, tau, n, t = p["epsilon"], p["delta"], p["tau"], p["N"], p["T"]
    with mpmath.workdps(30):
        want = ORACLES["optimal_composition"].fn(epsilon=2 * e * tau / n, delta=d * tau / n, T=t, at=3 * e * tau * mpmath.sqrt(t) / n)
        got = f_t(dict(p))
        assert mpmath.almosteq(got, want, rel_eps=mpmath.mpf("1e-20"))
        # the buggy order (premise bound first) evaluates eps' at the per-step epsilon: a different number
        wrong = ORACLES["optimal_composition"].fn(epsilon=2 * e * tau / n, delta=d * tau / n, T=t, at=3 * (2 * e * tau / n) * tau * mpmath.sqrt(t) / n)
        assert not mpmath.almosteq(got, wrong, rel_eps=mpmath.mpf("1e-6"))
        assert f_c(dict(p)) == d


def _num(v):
    return sp.Rational(v) if isinstance(v, str) and "e" not in v.lower() else sp.Float(v, 40)


def _independent_profile(th, cx):
    """The claim and the truth at the reported point, computed from the entry's text alone (SymPy substitution,
    then the oracle's function): the witness the report prints must be these numbers."""
    orc = ORACLES[th.oracle]

    def at(expr):  # substitute by name: the same letter may carry different assumptions in different places
        e = sp.sympify(expr)
        return mpmath.mpf(str(sp.N(e.xreplace({s: _num(cx[s.name]) for s in e.free_symbols if s.name in cx}), 40)))

    at_expr, d_expr = (sp.sympify(x) for x in th.conclusion.params)
    binds, _ = premise_exprs(th)
    kw = {k: mpmath.mpf(str(_num(v))) for k, v in cx.items()}
    kw.update({name: at(e) for name, e in binds})
    kw["at"] = at(at_expr)
    if "T" in kw:
        kw["T"] = int(kw["T"])
    truth = orc.bracket(**kw)[0] if orc.bracket is not None else orc.fn(**kw)
    return at(d_expr), truth


def _profile_refutations():
    led = load_ledger()
    out = []
    for th in all_theorems(None, with_evidence=False):
        row = led.get(th.id)
        if not row or row.get("verdict") != "REFUTED" or not row.get("counterexample") or row.get("claimed") is None:
            continue
        orc = ORACLES.get(th.oracle or "")
        if orc is None or orc.mapper is not None or orc.shape != "profile" or th.conclusion is None:
            continue
        if th.conclusion.name.upper() not in ("DP", "ADP") or len(th.conclusion.params) != 2:
            continue
        if any(s.name == "alpha" for s in th.symbols):
            continue
        out.append((th.id, row))
    return out


@pytest.mark.parametrize("tid,row", _profile_refutations(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_reported_profile_witness_is_the_claim_at_its_point(tid, row):
    th = get(tid, with_evidence=False)
    if row.get("hash") != th.expr_hash():
        pytest.skip("ledger row stale")
    with mpmath.workdps(40):
        claimed, truth = _independent_profile(th, row["counterexample"])
        assert mpmath.almosteq(mpmath.mpf(str(claimed)), mpmath.mpf(row["claimed"]), rel_eps=mpmath.mpf("1e-12"))
        assert mpmath.almosteq(truth, mpmath.mpf(row["actual"]), rel_eps=mpmath.mpf("1e-6"))
        assert truth > mpmath.mpf(str(claimed))  # the witness is a violation


def test_profile_refutation_list_covers_the_binding_entries():
    ids = {i for i, _ in _profile_refutations()}
    assert "he2021long.thm8_delta" in ids and "he2021long.thm7_delta" in ids


def test_thm8_witness_is_a_true_violation():
    vr = verify_theorem(get("he2021long.thm8_eps", with_evidence=False))
    th = get("he2021long.thm8_eps", with_evidence=False)
    # composition_tied maps eps~ onto eps: evaluate the claimed delta' and the KOV truth from the text
    from dataclasses import replace

    def tie(p):  # composition_tied reads the conclusion's eps~ as the premise's eps
        p = sp.sympify(p)
        return p.xreplace({s: E for s in p.free_symbols if s.name == "epsilontilde"})

    conc = replace(th.conclusion, params=tuple(tie(p) for p in th.conclusion.params))
    th2 = replace(th, conclusion=conc, oracle="optimal_composition")
    with mpmath.workdps(40):
        claimed, truth = _independent_profile(th2, vr.counterexample)
        assert mpmath.almosteq(mpmath.mpf(str(claimed)), mpmath.mpf(vr.claimed), rel_eps=mpmath.mpf("1e-12"))
        assert mpmath.almosteq(truth, mpmath.mpf(vr.actual), rel_eps=mpmath.mpf("1e-6"))
        assert truth > mpmath.mpf(str(claimed))
