"""Issue 23, third review (the defects D1-D10 of the expert's re-review): each with an oracle that catches it.

The oracles are independent re-derivations in mpmath (the reviewer's numbers, and values of our own), not the
library's expressions.
"""

from __future__ import annotations

import mpmath as mp
import pytest
import sympy as sp

from symdp.audit.root_causes import ENTRY_CLASSES, ROOT_CAUSES
from symdp.library import get

# ---- D2: Remarks 1-2 need delta' = O(N^{-3/2}/ln N), not O(1/N) ------------------------------------------


def _ref_rate_b(n: mp.mpf, dp: mp.mpf, t=1, et=1, tau=1, dt="0.1") -> mp.mpf:
    """b(N) sqrt(N)/T with b = e^{-eps'} delta'/eps' ln(2/eps'), eps' of Thm 7 (He et al. (long)), by hand."""
    dt = mp.mpf(dt)
    x = 2 * mp.mpf(tau) * et / n
    ep = mp.sqrt(8 * mp.log(1 / dt) * (mp.mpf(tau) ** 2 / n**2) * t * et**2) + t * x * mp.tanh(x / 2)
    return mp.exp(-ep) * dp / ep * mp.log(2 / ep) * mp.sqrt(n) / t


def _lib_rate_b(n: int, dp_of_n) -> mp.mpf:
    th = get("he2021long.remark1_rate_b")
    syms = {s.name: s for s in th.lhs.free_symbols}
    e = th.lhs.subs({syms["deltaprime"]: dp_of_n(syms["N"])}).subs(
        {syms["N"]: n, syms["T"]: 1, syms["epsilontilde"]: 1, syms["tau"]: 1, syms["deltatilde"]: sp.Rational(1, 10)})
    return mp.mpf(str(sp.N(e, 30)))


@pytest.mark.parametrize(("j", "want"), [(4, 196.71), (8, 41140.0), (16, 8.406e8)])
def test_remark1_rate_fails_with_delta_prime_one_over_n(j, want):
    with mp.workdps(40):
        n = mp.mpf(10) ** j
        assert _ref_rate_b(n, 1 / n) == pytest.approx(want, rel=1e-4)
        assert _lib_rate_b(10**j, lambda N: 1 / N) == pytest.approx(float(_ref_rate_b(n, 1 / n)), rel=1e-12)


def test_remark1_rate_holds_with_delta_prime_n_to_minus_three_halves():
    with mp.workdps(40):
        vals = [_lib_rate_b(10**j, lambda N: N ** sp.Rational(-3, 2) / sp.log(N)) for j in (4, 8, 16, 30, 60)]
    assert all(0.2 < v < 0.25 for v in vals), vals  # bounded: O(T/sqrt(N)) at this delta'


def test_remark_texts_state_the_true_requirement():
    texts = [ROOT_CAUSES["he2021long.remark_fixed_delta"].note, ROOT_CAUSES["he2021long.remark_fixed_delta"].title,
             ENTRY_CLASSES["he2021long.remark1_rate_b"].why, ENTRY_CLASSES["he2021long.remark2_rate_b"].why]
    for t in texts:
        assert "O(1/N) suffices" not in t and "= O(1/N) (which" not in t
        assert "N^{-3/2}/ln N" in t


# ---- D3: the Chernoff error is the only cause of He et al. (UAI) Thm 7's failure -------------------------


def _igmm_eps_prime(t, e, dt):
    return mp.sqrt(2 * t * mp.log(1 / dt)) * e + t * e * mp.tanh(e / 2)


def _chernoff(t, e, ep):
    """The correct Chernoff tail exp(-T KL(a || p)) of T worst-case e-DP steps at eps'."""
    a, p = (t * e + ep) / (2 * t * e), mp.exp(e) / (1 + mp.exp(e))
    return mp.exp(-t * (a * mp.log(a / p) + (1 - a) * mp.log((1 - a) / (1 - p))))


def _optimal_pure(t, e, ep):
    """Kairouz-Oh-Viswanath: the hockey-stick divergence of T binary randomized-response steps at eps'."""
    p = mp.exp(e) / (1 + mp.exp(e))
    q = 1 - p
    return mp.fsum(max(0, mp.binomial(t, k) * (p ** (t - k) * q**k - mp.exp(ep) * q ** (t - k) * p**k))
                   for k in range(t + 1))


@pytest.mark.parametrize(("e", "chern", "opt"), [(1, 0.00198358, 1.86058e-4), ("0.1", 0.00953953, 4.49411e-4)])
def test_thm7_with_the_correct_chernoff_tail_would_be_valid(e, chern, opt):
    # at the audit's two witnesses (T = 500, delta~ = 0.01, delta = 1e-12): carrying delta~' is no second cause
    with mp.workdps(40):
        e = mp.mpf(e)
        ep = _igmm_eps_prime(500, e, mp.mpf("0.01"))
        c, o = _chernoff(500, e, ep), _optimal_pure(500, e, ep)
        assert c == pytest.approx(chern, rel=1e-5) and o == pytest.approx(opt, rel=1e-5)
        assert c >= o + (1 - (1 - mp.mpf("1e-12")) ** 500)  # the pair with the correct tail is valid


def test_chernoff_texts_name_one_cause():
    note = ROOT_CAUSES["he2021.composition_III_chernoff"].note
    why = ENTRY_CLASSES["he2021uai.thm7_eps"].why
    assert "carries delta~' instead of the delta~" not in note
    assert "no defect" in note and "only cause" in note
    assert "carries delta~' (the Chernoff term) where eps' spends" not in why
    assert "e^{-(T eps~ + eps')}" in why


# ---- D5: the Kairouz comparison's witness is informative; both comparisons filed under their own notes --------


def _cor1_vs_kairouz(t, d, dt, e):
    """Corollary 1's delta' at eps' = min{eps'_1, eps'_2, eps'_3} and Kairouz et al.'s, by hand (mpmath)."""
    th = mp.tanh(e / 2)
    ep = min(t * e, t * e * th + mp.sqrt(2 * t * e**2 * mp.log(mp.e + mp.sqrt(t * e**2) / dt)),
             t * e * th + mp.sqrt(2 * mp.log(1 / dt) * t * e**2))
    k, c = int(mp.ceil(ep / e)), d / (1 + mp.exp(e))
    cor1 = 2 - (1 - mp.exp(e) * c) ** k * (1 - c) ** (t - k) - (1 - c) ** t + dt
    return cor1, 1 - (1 - d) ** t * (1 - dt)


@pytest.mark.parametrize(("pt", "want"), [((1000, "4e-4", "0.01", "0.1"), (0.35853497, 0.33643626)),
                                          ((40, "0.01", "0.01", "1"), (0.35951285, 0.33771796))])
def test_kairouz_comparison_fails_at_informative_points(pt, want):
    t, d, dt, e = pt
    with mp.workdps(40):
        cor1, kai = _cor1_vs_kairouz(t, mp.mpf(d), mp.mpf(dt), mp.mpf(e))
    assert (float(cor1), float(kai)) == pytest.approx(want, rel=1e-7)
    assert kai < cor1 < 1
    th = get("he2021.cmp_delta_vs_kairouz")
    sub = dict(T=t, delta=sp.Rational(d), deltatilde=sp.Rational(dt), epsilon=sp.Rational(e))
    syms = {s.name: s for s in th.lhs.free_symbols | th.rhs.free_symbols}
    vals = {syms[k]: v for k, v in sub.items()}
    assert float(sp.N(th.lhs.subs(vals), 30)) == pytest.approx(float(cor1), rel=1e-12)
    assert float(sp.N(th.rhs.subs(vals), 30)) == pytest.approx(float(kai), rel=1e-12)
    # the entry compares only informative bounds: its hypotheses hold here, and fail at the old vacuous witness
    assert all(bool(h.subs(vals)) for h in th.hypotheses)
    old = {syms["T"]: 10**4, syms["delta"]: sp.Rational(1, 100), syms["deltatilde"]: sp.Rational(1, 100),
           syms["epsilon"]: 1}
    assert not all(bool(h.subs(old)) for h in th.hypotheses)


@pytest.mark.slow
def test_kairouz_comparison_witness_is_informative():
    from symdp.verify import verify_theorem

    th = get("he2021.cmp_delta_vs_kairouz")
    ev = verify_theorem(th, ledger=False).evidence
    assert ev.verdict.value == "REFUTED" and ev.counterexample
    syms = {s.name: s for s in th.lhs.free_symbols | th.rhs.free_symbols}
    at = {syms[k]: sp.Rational(v) for k, v in ev.counterexample}
    lhs, rhs = float(sp.N(th.lhs.subs(at), 30)), float(sp.N(th.rhs.subs(at), 30))
    assert rhs < lhs < 1  # violated, and both composed delta' informative


def test_comparisons_not_filed_under_the_composition_deficit():
    for rid, rc in (("he2021.cmp_delta_vs_kairouz", "he2021.cmp_kairouz_first_order"),
                    ("he2021.cmp_delta_vs_dwork_roth", "he2021.cmp_dwork_roth_boundary")):
        c = ENTRY_CLASSES[rid]
        assert c.root_cause == rc and c.severity == "minor"
        assert ROOT_CAUSES[rc].note


# ---- D7: witnesses name every free parameter, print tiny values, and every group says why -------------------


def _res(rid, **kw):
    from symdp.audit.finding import AuditResult

    base = dict(id=rid, kind="valid bound", title="t", source="s", statement="", verdict="FAILS")
    base.update(kw)
    return AuditResult(**base)


def test_short_keeps_values_beyond_the_float_range():
    from symdp.audit.finding import _short

    assert _short("2.142449588818311788772491e-350") == "2.142e-350"
    assert _short("1.5e+400") == "1.5e+400"
    assert _short("0") == "0" and _short("0.0001860576") == "0.0001861"


@pytest.mark.parametrize(("rid", "cx", "dt", "want"), [
    ("he2021.cor1_delta", {"T": "100", "delta": "0.0006", "deltatilde": "0.002", "epsilon": "1"}, "0.002", "81.47"),
    ("he2021uai.cor2_delta", {"T": "100", "delta": "1e-12", "deltatilde": "0.5", "epsilon": "0.5"}, "0.5", "18.13")])
def test_witness_states_the_eps_prime_fixed_by_the_statement(rid, cx, dt, want):
    from symdp.audit.result import describe

    r = _res(rid, counterexample=cx, claimed="0.05", actual="0.06")
    _, compared = describe(r, get(rid, with_evidence=False))
    assert f"eps' = {want}" in compared
    # the oracle: Theorem 4's eps' = min{T eps, eps'_2, eps'_3} by hand
    t, e, d_t = int(cx["T"]), mp.mpf(cx["epsilon"]), mp.mpf(dt)
    th = mp.tanh(e / 2)
    ep = min(t * e, t * e * th + mp.sqrt(2 * t * e**2 * mp.log(mp.e + mp.sqrt(t * e**2) / d_t)),
             t * e * th + mp.sqrt(2 * mp.log(1 / d_t) * t * e**2))
    assert float(want) == pytest.approx(float(ep), rel=1e-3)


def test_tiny_claimed_value_is_printed_not_zero():
    from symdp.audit.result import describe

    cx = {"T": "500", "deltatilde": "0.01", "epsilon": "1.0"}
    r = _res("he2021long.cor3_delta_pure", counterexample=cx, claimed="2.142449588818311788772491e-350",
             actual="0.0001860576266665269073043821")
    _, compared = describe(r, get("he2021long.cor3_delta_pure", with_evidence=False))
    assert "claimed 2.142e-350" in compared and "claimed 0," not in compared


def test_mechanism_findings_print_their_bracket():
    from symdp.audit.result import describe

    r = _res("algo.x", kind="algorithm", counterexample={"N": "1000"}, claimed="1.6e-5", actual="0.0768170291614",
             detail="has delta(eps') in [0.0768170291614, 0.07681715393794501] (exact from the pair)")
    _, compared = describe(r, None)
    assert "[0.07682, 0.07682]" in compared and "verifier log" not in compared


def test_groups_without_root_cause_say_why():
    from symdp.audit.severity import distinct_errors

    r = _res("p.check", extra={"severity": "minor", "origin": "symdp", "severity_why": "a typo in a proof step"})
    (g,) = distinct_errors([r])
    assert not g.is_error and g.note == "A typo in a proof step."


# ---- D8: a general entry inherits the refutation of its algo.* special case -------------------------------


@pytest.mark.parametrize(("verdict", "strength", "want"), [("UNDECIDED", "", "FAILS"), ("HOLDS", "supported", "FAILS"),
                                                           ("HOLDS", "proved", "HOLDS"), ("FAILS", "", "FAILS")])
def test_general_entry_inherits_its_mechanism_refutation(verdict, strength, want):
    from symdp.audit.severity import inherit_refutation

    g = _res("p.general", verdict=verdict, strength=strength, detail="names no oracle")
    s = _res("algo.p.general", kind="algorithm", counterexample={"eta": "0.81"}, claimed="1e-10", actual="1.0",
             detail="delta(eps') in [1.0, 1.0]", extra={"reading": "any step size"})
    changed = inherit_refutation(g, s)
    assert g.verdict == want and changed == (verdict != want)
    if changed:
        assert g.rung == "consistency" and g.counterexample == {"eta": "0.81"} and "algo.p.general" in g.detail
    # a special case that holds passes nothing on
    g2 = _res("p.g2", verdict="UNDECIDED")
    assert not inherit_refutation(g2, _res("algo.p.g2", kind="algorithm", verdict="HOLDS")) and g2.verdict == "UNDECIDED"
    # a second reading is an alternative, not a special case
    g3 = _res("p.g3", verdict="HOLDS", strength="supported")
    assert not inherit_refutation(g3, _res("reading.p.g3")) and g3.verdict == "HOLDS"


@pytest.mark.slow
def test_wang2015_privacy_for_free_fails_with_its_mechanism():
    from symdp.audit.engine import audit_algorithms_for
    from symdp.audit.finding import AuditResult

    rid = "classical.wang2015_sgld_privacy_for_free"
    p = AuditResult(id=rid, kind="valid bound", title="t", source="s", statement="", verdict="UNDECIDED")
    (a,) = audit_algorithms_for([rid], [p])
    assert a.verdict == "FAILS" and p.verdict == "FAILS"
    assert p.extra["root_cause"] == a.extra["root_cause"] == "he2021long.wang2015_quote"
    assert p.extra["severity"] == "minor" and float(p.actual) == pytest.approx(1.0)


# ---- D6: symdp's own checks are labelled as such wherever a finding is listed --------------------------------


def test_symdp_checks_are_labelled_not_claims_of_the_paper():
    from symdp.audit.finding import finding_fields
    from symdp.audit.render import _badge, _md_badge
    from symdp.audit.severity import annotate

    r = annotate(get("he2021long.consistency_thm1_n", with_evidence=False),
                 _res("he2021long.consistency_thm1_n", kind="consistency", claimed="1.76e5", actual="6.93e8"), recheck=False)
    assert r.extra["origin"] == "symdp" and r.extra["severity"] == "minor"
    assert "not a finding of the paper" in r.extra["severity_why"]
    assert "not a claim of the paper" in _md_badge(r) and "not a claim of the paper" in _badge(r)
    origin = next(f for f in finding_fields(r) if f.label == "origin")
    assert "not a claim of the paper" in origin.text
    # a paper's own finding carries no such label
    p = annotate(get("he2021.thm4_eps3", with_evidence=False), _res("he2021.thm4_eps3"), recheck=False)
    assert _md_badge(p) == "[major] "


# ---- D9: a PARTIAL decided by the range check alone does not claim the rest holds -----------------------------


def test_range_only_partial_says_what_was_checked():
    from symdp.audit.finding import _how, finding_fields

    r = _res("he2021long.thm1_b", verdict="PARTIAL", rung="range", region="holds for epsilon <= 2 and fails above")
    for text in (_how(r), next(f.text for f in finding_fields(r) if f.label == "region")):
        assert "holds for epsilon <= 2" in text and "undecided there" in text
    # a PARTIAL with a real oracle keeps its region as is
    r2 = _res("x", verdict="PARTIAL", rung="numerical", region="holds for epsilon >= 0.029764")
    assert _how(r2) == "holds for epsilon >= 0.029764"
    assert "undecided there" in ENTRY_CLASSES["he2021long.thm1_b"].why


# ---- D10: HOLDS and UNDECIDED say what was searched, and whose failure an unevaluable point is --------------


@pytest.mark.parametrize(("oracle", "box", "want", "absent"), [
    ("finite_instances", "instance_seed in [1, 1e+06]", "on random finite instances", "over instance_seed"),
    ("gdp_tradeoff", "alpha in [0.001, 0.999], mu in [0.05, 5], p in [0.001, 1]", "supported on Gaussian trade-off", None),
    ("rr_approx_max_information", "beta in [1e-09, 0.5]", "supported on randomized response", None),
    ("gaussian_witness", "delta in [1e-12, 0.5], rho in [0.0001, 100]", "supported on the Gaussian mechanism", None),
    ("composition_eq7", "T in [1, 500]", "over T in [1, 500]", "supported on")])
def test_holds_says_over_which_family(oracle, box, want, absent):
    from symdp.audit.finding import _how

    r = _res("x", verdict="HOLDS", strength="supported", rung="numerical", cases=12,
             detail=f"12 points against {oracle} on {box} (sampled log-uniform); no violation")
    s = _how(r)
    assert want in s and (absent is None or absent not in s), s


def test_unevaluable_points_blame_neither_side_alone():
    from types import SimpleNamespace

    from symdp.audit.finding import _how
    from symdp.verify.rungs.numerical import unevaluable_note

    note = unevaluable_note(SimpleNamespace(errors=39, unevaluable=["T = 500"]))  # type: ignore[arg-type]
    assert "claim or its oracle" in note and "the claim is undefined or not real" not in note
    r = _res("x", verdict="HOLDS", strength="supported", rung="numerical", detail="x; 3 sampled points were not evaluable")
    assert "by the claim or by its oracle" in _how(r)


def test_range_check_at_no_point_says_it_was_not_applied():
    """The range rung on an entry none of whose sampled points satisfies its hypotheses (he2021uai.lemma1_small_eps;
    the verifier now gives that entry its own undecided reason before this rung, so the rung is called directly)."""
    from symdp.verify.core import Evidence, Verdict, VerificationResult
    from symdp.verify.rungs.ranges import verify_range

    res = VerificationResult("he2021uai.lemma1_small_eps", Evidence(Verdict.UNCHECKED, None, ""), "")
    assert verify_range(get("he2021uai.lemma1_small_eps"), res, False, 0) is False
    text = " ".join(res.attempts)
    assert "at 0 points" not in text and "range check was not applied" in text


def test_symdp_check_witness_does_not_say_the_paper_claims():
    from symdp.audit.result import describe

    r = _res("he2021long.consistency_thm1_n", kind="consistency", counterexample={"delta": "0.5", "epsilon": "0.0001"},
             claimed="176000", actual="693200000")
    _, compared = describe(r, get("he2021long.consistency_thm1_n", with_evidence=False))
    assert "symdp's check says" in compared and "the paper claims" not in compared
    r2 = _res("he2021uai.cmp_thm2_vs_nissim_stemmer", kind="tighter-than", counterexample={"epsilon": "5"},
              claimed="10.01", actual="73.7")
    assert "the paper claims" in describe(r2, get("he2021uai.cmp_thm2_vs_nissim_stemmer", with_evidence=False))[1]
