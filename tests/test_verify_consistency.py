"""Consistency of verdicts (issue 12 item 3).

- a general entry whose special case fails is not SUPPORTED / HOLDS (sub-box rule, equal-steps rule, declared);
- a PROVED entry is never downgraded by a numerical refutation of a special case (flagged instead);
- a symbolic refutation (SymPy's limit is infinite) is not overridden by numbers that seem to settle.
"""

from __future__ import annotations

import pytest
import sympy as sp

from symdp.theorem import Evidence, Expansion, Kind, Source, Verdict, theorem
from symdp.verify import VerificationResult, apply_consistency, special_cases, verify_theorem

SRC = Source("test", "none", "v1", "Thm 0")
x = sp.Symbol("x", positive=True)

# fails only in a window of width ~1e-4 around x = 0.7317 (the bump reaches 1 > 1/2 there)
BUMP = sp.exp(-(x - sp.Rational(7317, 10000)) ** 2 * 10**9)


def _pair() -> tuple:
    general = theorem("t.general", "bump below 1/2 on [1e-3, 1e3]", Kind.COMPARISON, SRC, lhs=BUMP, relation="<=",
                      rhs=sp.Rational(1, 2), hypotheses=(x > 0,), domain={x: (sp.Rational(1, 1000), 1000)})
    special = theorem("t.special", "bump below 1/2 near its peak", Kind.COMPARISON, SRC, lhs=BUMP, relation="<=",
                      rhs=sp.Rational(1, 2), hypotheses=(x > 0,),
                      domain={x: (sp.Rational(7310, 10000), sp.Rational(7325, 10000))})
    return general, special


def test_sub_box_special_case_is_detected() -> None:
    g, s = _pair()
    pairs = special_cases([g, s])
    assert [(p.general, p.special) for p in pairs] == [("t.general", "t.special")]


def test_general_entry_whose_special_case_fails_is_refuted_fast() -> None:
    """The special case verified for real; the general entry's result stands for a search that missed the window."""
    g, s = _pair()
    rs = verify_theorem(s)
    assert rs.verdict in (Verdict.REFUTED, Verdict.PARTIAL), rs.evidence
    rg = VerificationResult("t.general", Evidence(Verdict.SUPPORTED, "numerical", "150 points, no violation"), "h")
    apply_consistency([rg, rs], [g, s])
    assert rg.verdict is Verdict.REFUTED and rg.evidence.rung == "consistency"
    assert float(BUMP.subs(x, sp.Rational(rg.counterexample["x"]))) > 0.5


@pytest.mark.slow
def test_general_entry_whose_special_case_fails_is_refuted() -> None:
    g, s = _pair()
    rg, rs = verify_theorem(g), verify_theorem(s)
    assert rs.verdict in (Verdict.REFUTED, Verdict.PARTIAL), rs.evidence
    # the general entry's own search may miss the narrow failure (the situation the rule exists for) or, since the
    # interval rung bisects the box, find it itself: then its counterexample must be real, and a SUPPORTED result of
    # a search that missed it stands in for the rule's case
    assert rg.verdict in (Verdict.SUPPORTED, Verdict.REFUTED), rg.evidence
    if rg.verdict is Verdict.REFUTED:
        assert float(BUMP.subs(x, sp.Rational(rg.counterexample["x"]))) > 0.5, rg.counterexample
        rg = VerificationResult("t.general", Evidence(Verdict.SUPPORTED, "numerical", "150 points, no violation"), "h")
    notes = apply_consistency([rg, rs], [g, s])
    assert rg.verdict is Verdict.REFUTED
    assert rg.evidence.rung == "consistency"
    assert "t.special" in rg.evidence.detail and notes
    # the counterexample really violates the general claim
    pt = {k: sp.Rational(v) for k, v in rg.counterexample.items()}
    assert float(BUMP.subs(x, pt["x"])) > 0.5


def test_proved_entry_is_flagged_not_downgraded() -> None:
    g, s = _pair()
    rg = VerificationResult("t.general", Evidence(Verdict.PROVED, "symbolic", "pretend proof"), "h")
    rs = VerificationResult("t.special", Evidence(Verdict.REFUTED, "numerical", "cx", None, (("x", "0.7317"),)), "h",
                            counterexample={"x": "0.7317"})
    notes = apply_consistency([rg, rs], [g, s])
    assert rg.verdict is Verdict.PROVED
    assert any("consistency" in a for a in rg.attempts) and notes


def test_heterogeneous_entries_have_their_equal_steps_case() -> None:
    from symdp.library import all_theorems

    pairs = {(p.general, p.special) for p in special_cases(all_theorems(with_evidence=False))}
    assert ("he2021.thm4_eps2_sum", "he2021.thm4_eps2") in pairs
    assert ("he2021.thm4_eps3_sum", "he2021.thm4_eps3") in pairs


def test_equal_steps_refutation_carries_over_from_the_ledger() -> None:
    """The heterogeneous Thm 4 (eq. 2) reading, searched only for T <= 8, cannot stay SUPPORTED when the equal-steps
    reading is refuted (T = 270 in the ledger)."""
    from symdp.library import all_theorems

    ths = all_theorems(with_evidence=False)
    g = VerificationResult("he2021.thm4_eps2_sum", Evidence(Verdict.SUPPORTED, "numerical", "T in [1, 8]"), "h")
    row = {"verdict": "REFUTED", "counterexample": {"T": "270", "delta": "0.0002", "deltatilde": "5e-09", "epsilon": "0.06"},
           "rung": "numerical", "claimed": "0.0523", "actual": "0.0526"}
    apply_consistency([g], ths, recorded={"he2021.thm4_eps2": row})
    assert g.verdict is Verdict.REFUTED
    assert g.counterexample == {**row["counterexample"], "r_spread": "1"}


def test_symbolic_refutation_not_overridden_by_numerics() -> None:
    """(lhs - rhs)/x^2 = 1 + 1e-40/x -> oo as x -> 0: SymPy's limit refutes the O(x^2) remainder although the
    ratio looks settled (~1) at every x >= 1e-30 the numerical check samples."""
    th = theorem("t.expansion", "planted expansion", Kind.EXPANSION, SRC, lhs=x + x**2 + x / sp.Integer(10) ** 40,
                 rhs=x, hypotheses=(x > 0,), expansion=Expansion(x, sp.Integer(0), 2))
    r = verify_theorem(th)
    assert r.verdict is Verdict.REFUTED, r.evidence
    assert r.evidence.rung == "symbolic"
    assert "numerical check never overrides" in r.evidence.detail


def test_finite_limit_still_proves() -> None:
    th = theorem("t.expansion_ok", "sin x = x + O(x^3)", Kind.EXPANSION, SRC, lhs=sp.sin(x), rhs=x,
                 hypotheses=(x > 0,), expansion=Expansion(x, sp.Integer(0), 3))
    assert verify_theorem(th).verdict is Verdict.PROVED


def test_search_goes_above_the_cap_where_the_entry_allows() -> None:
    """An oracle capped at T = 500 (cost) still searches, thinly, the entry's stated T up to 1e4: a violation that
    lives only at T > 600 is found there (the situation of the heterogeneous Thm 4 entries, capped at T = 8)."""
    from symdp.verify.registry import ORACLES
    from symdp.verify.rungs.oracle import _beyond_caps
    from symdp.verify.search import Box

    T = sp.Symbol("T", positive=True, integer=True)
    th = theorem("t.cap", "planted", Kind.BOUND, SRC, lhs=sp.Symbol("Q"), relation="<=", rhs=sp.Integer(600),
                 hypotheses=(T >= 1,), domain={T: (1, 10**4)})
    res = VerificationResult("t.cap", Evidence(Verdict.SUPPORTED, "numerical", "main search"), "h")
    box = Box({"T": (1.0, 500.0)}, frozenset({"T"}))
    ok = _beyond_caps(th, res, box, {"T": 500}, "optimal_composition", lambda p: sp.Float(600), lambda p: p["T"], "<=",
                      lambda p: True, ORACLES["optimal_composition"], False, 0)
    assert not ok
    assert res.verdict in (Verdict.REFUTED, Verdict.PARTIAL)
    assert int(res.counterexample["T"]) > 600
    # and where nothing fails, the evidence says what was searched above the cap
    res2 = VerificationResult("t.cap", Evidence(Verdict.SUPPORTED, "numerical", "main search"), "h")
    ok2 = _beyond_caps(th, res2, box, {"T": 500}, "optimal_composition", lambda p: sp.Float(10**5), lambda p: p["T"],
                       "<=", lambda p: True, ORACLES["optimal_composition"], False, 0)
    assert ok2 and "above the cap" in res2.evidence.detail and "T in [500, 10000]" in res2.evidence.detail


def test_extra_hypothesis_special_case_is_detected() -> None:
    g, _ = _pair()
    s2 = theorem("t.restricted", "bump below 1/2 for x < 1", Kind.COMPARISON, SRC, lhs=BUMP, relation="<=",
                 rhs=sp.Rational(1, 2), hypotheses=(x > 0, x < 1), domain={x: (sp.Rational(1, 1000), 1000)})
    pairs = {(p.general, p.special) for p in special_cases([g, s2])}
    assert pairs == {("t.general", "t.restricted")}


def test_verify_theorem_consults_the_ledger_for_its_special_cases() -> None:
    """One consistency rule (issue 21): verify_theorem itself applies the ledger's verdict of an entry's special
    case (the equal-steps Thm 4 reading, REFUTED at T = 270 in the ledger); with ledger=False (how run() calls it,
    applying the rule to the whole run afterwards) the entry keeps its own search's verdict."""
    from symdp.library import get
    from symdp.verify import special_case_rows, verify_theorem

    th = get("he2021.thm4_eps2_sum", with_evidence=False)
    rows = special_case_rows(th)
    assert rows.get("he2021.thm4_eps2", {}).get("verdict") == "REFUTED"
    own = verify_theorem(th, ledger=False)
    assert own.evidence.rung != "consistency"
    r = verify_theorem(th)
    assert r.verdict is Verdict.REFUTED and r.evidence.rung == "consistency"
    assert r.counterexample is not None and r.counterexample.get("r_spread") == "1"
