"""He, Wang, Tao (000, UAI version): library entries, pinned values, identities and expansions.

Oracles: values computed by hand with mpmath from the printed formulas, symbolic identities,
independent re-derivations (series with the ceiling replaced by a free integer), and the exact
optimal composition (Kairouz-Oh-Viswanath) evaluated directly.
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest
import sympy as sp

from symdp.asymptotics import check_expansion
from symdp.library import all_theorems, get
from symdp.library import classical as cl
from symdp.library import he_tao as h
from symdp.symbols import T, delta, delta_p, delta_t, eps, eps_p
from symdp.theorem import Kind

MINE = [t for t in all_theorems(with_evidence=False) if t.id.startswith(("he2021.", "he2021uai."))]


def ev(expr, dps=40, **vals):
    """Evaluate a SymPy expression at named values with mpmath precision (exact rationals in)."""
    syms = {s.name: s for s in expr.free_symbols if isinstance(s, sp.Symbol)}
    subs = {syms[k]: sp.nsimplify(v) if isinstance(v, float) else v for k, v in vals.items() if k in syms}
    with mp.workdps(dps):
        return mp.mpf(sp.N(expr.subs(subs), dps))


def kov_delta(e, d, TT, ep):
    """Optimal composed delta of TT identical (e, d)-DP steps at eps' = ep (Kairouz-Oh-Viswanath), direct mpmath sum."""
    with mp.workdps(50):
        e, d, ep = mp.mpf(e), mp.mpf(d), mp.mpf(ep)
        p = mp.e**e / (1 + mp.e**e)
        s = mp.fsum(
            mp.binomial(TT, l) * p ** (TT - l) * (1 - p) ** l * max(0, 1 - mp.e ** (ep - (TT - 2 * l) * e))
            for l in range(TT + 1)
        )
        return 1 - (1 - d) ** TT + (1 - d) ** TT * s


# ---- structure -----------------------------------------------------------------


def test_entry_count_and_ids():
    ids = {t.id for t in MINE}
    assert len(MINE) >= 55
    for need in (
        "he2021.lemma_kl", "he2021uai.thm1_small_eps", "he2021uai.thm1_large_eps", "he2021uai.thm1_n_condition",
        "he2021.thm2", "he2021uai.thm3_small_eps", "he2021uai.lemma1_small_eps", "he2021.thm4_eps3",
        "he2021.cor1_delta", "he2021uai.cor2_delta", "he2021uai.thm5_eps", "he2021uai.thm6_delta",
        "he2021.lemma3_coupling", "he2021uai.thm7_eps_tilde", "he2021uai.cor3_gap_rate",
    ):
        assert need in ids


def test_lemma_kl_entry_unchanged():
    th = get("he2021.lemma_kl", with_evidence=False)
    assert th.rhs == eps * (sp.exp(eps) - 1) / (sp.exp(eps) + 1)
    assert th.oracle == "kl_eps_dp" and th.source.locator == "Lemma 2"


def test_comparisons_name_existing_entries():
    ids = {t.id for t in all_theorems(with_evidence=False)}
    cmps = [t for t in MINE if t.kind is Kind.COMPARISON]
    assert len(cmps) >= 10
    for t in MINE:
        for r in t.refs:
            assert r in ids, (t.id, r)
    assert all(t.refs for t in cmps)


@pytest.mark.parametrize("th", [t for t in MINE if t.kind is not Kind.EQUIVALENCE], ids=lambda t: t.id)
def test_every_entry_evaluates_finite_at_domain_points(th):
    """Evaluate rhs at the box's lower corner, midpoint and upper corner (where the hypotheses allow)."""
    box = th.domain_dict()
    syms = th.bound_symbols
    if not syms or not all(s in box for s in syms):
        pytest.skip("indexed (heterogeneous) form: checked in test_sum_forms_reduce_to_homogeneous")
    for frac in (0.25, 0.5, 0.75):
        vals = {}
        for s in syms:
            lo, hi = (float(v) for v in box[s])
            v = math.exp(math.log(lo) + frac * (math.log(hi) - math.log(lo))) if lo > 0 and hi / lo > 100 else lo + frac * (hi - lo)
            vals[s.name] = max(1, round(v)) if s.is_integer else sp.Float(v, 30)
        val = th.evaluate(**vals)
        assert mp.isfinite(val), (th.id, vals, val)


# ---- Theorem 1 -------------------------------------------------------------------


def test_thm1_constants_pinned():
    e, d = mp.mpf("0.1"), mp.mpf("1e-5")
    assert ev(h.THM1_UAI_A_SMALL, epsilon=sp.Rational(1, 10)) == pytest.approx(0.4)
    b = 2 * mp.e ** (-mp.mpf("1.7") * e) * d / e * mp.log(2 / e)
    assert ev(h.THM1_UAI_B_SMALL, epsilon=sp.Rational(1, 10), delta=sp.Rational(1, 10**5)) == pytest.approx(float(b), rel=1e-12)
    e = mp.mpf(2)
    a = mp.mpf("1.2") * (1 - mp.mpf("0.9") * mp.e**-e)
    b = 18 * mp.e**-e * d / (1 - mp.mpf("0.9") * mp.e**-e) * mp.log(220 / (1 - mp.mpf("0.9") * mp.e**-e))
    assert ev(h.THM1_UAI_A_LARGE, epsilon=2) == pytest.approx(float(a), rel=1e-12)
    assert ev(h.THM1_UAI_B_LARGE, epsilon=2, delta=sp.Rational(1, 10**5)) == pytest.approx(float(b), rel=1e-12)
    assert get("he2021uai.thm1_small_eps").conclusion.params == (h.THM1_UAI_A_SMALL, h.THM1_UAI_B_SMALL)
    assert get("he2021uai.thm1_large_eps_failure").rhs == h.THM1_UAI_B_LARGE


def test_thm1_regimes_and_n_condition_are_hypotheses():
    small, large = get("he2021uai.thm1_small_eps"), get("he2021uai.thm1_large_eps")
    c = {f"c{i}": 1 for i in range(1, 8)}
    assert small.holds_hypotheses(epsilon=0.1, delta=1e-5, N=10**9, **c)
    assert not small.holds_hypotheses(epsilon=0.3, delta=1e-5, N=10**9, **c)
    assert large.holds_hypotheses(epsilon=0.3, delta=1e-5, N=10**9, **c)
    assert not small.holds_hypotheses(epsilon=0.1, delta=1e-5, N=10, **c)  # N-condition: 100 ln(e^0.1 1e5) ~ 1161
    assert {s.name for s in h.THM1_UAI_N_CONDITION.free_symbols} == {"c1", "c2", "c3", "c4", "c5", "c6", "c7", "epsilon", "delta"}
    assert all(s.is_positive for s in (h.c1, h.c7))


def test_lemma1_n_condition_is_thm1_with_explicit_constants():
    inst = h.THM1_UAI_N_CONDITION.subs(h.LEMMA1_UAI_CONSTANTS)
    for a, b in zip(inst.args and sorted(inst.args, key=sp.default_sort_key), sorted(h.LEMMA1_UAI_N_CONDITION.args, key=sp.default_sort_key)):
        assert sp.simplify(a - b) == 0
    # value at eps = 0.1, delta = 1e-5 by hand
    e, d = mp.mpf("0.1"), mp.mpf("1e-5")
    t1 = 2 / (mp.mpf("0.077") * e**2) * mp.log(43 / (254 * mp.e ** (-mp.mpf("1.7") * e) * d))
    t2 = 200 / (mp.log(mp.mpf("0.9")) * (1 - mp.mpf("0.9") * mp.e**-e)) * mp.log(9 * mp.e**-e * d / 48180)
    got = ev(h.LEMMA1_UAI_N_CONDITION, epsilon=sp.Rational(1, 10), delta=sp.Rational(1, 10**5))
    assert got == pytest.approx(float(max(t1, t2)), rel=1e-12)
    assert t2 > t1 > 0  # both logs negative in the second term: it is positive and dominates here


def test_lemma1_k_makes_threshold_below_4eps():
    """With k = eps/(e^{-1.7 eps} delta), Lemma 1's threshold is eps + 2.89 eps = 3.89 eps."""
    a = h.LEMMA1_UAI_A_SMALL.subs(h.k_sets, h.LEMMA1_UAI_K_SMALL)
    assert sp.simplify(a - sp.Rational(389, 100) * eps) == 0


# ---- KL lemma and the factor (1 + e^eps)/2 -----------------------------------------


def test_kl_factor_vs_dwork_rothblum_is_exact():
    th = get("he2021.cmp_kl_vs_dwork_rothblum")
    assert th.relation == "=="
    assert sp.simplify(th.lhs - th.rhs) == 0
    assert sp.simplify(th.lhs - (1 + sp.exp(eps)) / 2) == 0


@pytest.mark.parametrize("e", ["1e-6", "0.1", "1", "10", "40"])
def test_kl_bounds_ordered(e):
    e = mp.mpf(e)
    ours = e * (mp.e**e - 1) / (mp.e**e + 1)
    assert ev(h.KL_BOUND, epsilon=sp.Float(e, 30)) == pytest.approx(float(e * mp.tanh(e / 2)), rel=1e-12)
    assert ours <= e * (mp.e**e - 1) / 2 <= e * (mp.e**e - 1)
    assert ev(get("he2021.cmp_kl_le_dwork2010").rhs, epsilon=sp.Float(e, 30)) == pytest.approx(float(e * (mp.e**e - 1)), rel=1e-12)


# ---- Theorem 2 vs Nissim-Stemmer -----------------------------------------------------


def test_thm2_factor_claim_holds_and_fails_where_expected():
    """'tighter by a factor e^eps/2': true when k delta dominates, false at eps = 3 with tiny k delta."""
    th = get("he2021uai.cmp_thm2_vs_nissim_stemmer")
    ok = dict(epsilon=sp.Rational(1, 2), delta=sp.Rational(1, 10**10), k=1)
    assert ev(th.lhs, **ok) <= ev(th.rhs, **ok)
    bad = dict(epsilon=3, delta=sp.Rational(1, 10**10), k=1)
    # e^3/2 (e^-3 k delta + 1 - e^-3) = (k delta + e^3 - 1)/2 ~ 9.54 > k delta + 6
    assert ev(th.lhs, **bad) == pytest.approx(float((mp.e**3 - 1 + mp.mpf("1e-10")) / 2), rel=1e-12)
    assert ev(th.lhs, **bad) > ev(th.rhs, **bad)


def test_thm1_comparisons_vs_nissim_stemmer():
    a = get("he2021uai.cmp_thm1_a_vs_nissim_stemmer")
    assert sp.simplify(a.rhs - a.lhs) == 9 * eps
    b = get("he2021uai.cmp_thm1_b_vs_nissim_stemmer")
    assert sp.simplify(b.lhs / b.rhs - sp.exp(-sp.Rational(17, 10) * eps)) == 0


def test_thm1_b_vs_dwork2015_uses_dworks_fraction_and_fails_only_below_0_02976():
    # Dwork et al.'s b is 8 delta/eps (000 prints '8 delta eps', 001 '8 delta^eps': conversion damage); the
    # misencoding 8 delta eps made the comparison fail at every eps (e.g. 5.06e-4 > 8e-6 at eps = 0.1)
    th = get("he2021uai.cmp_thm1_b_vs_dwork2015")
    assert sp.simplify(th.rhs - 8 * delta / eps) == 0
    d = sp.Rational(1, 10**5)
    # holds at eps = 0.1: 2 e^{-0.17} (1e-5/0.1) ln 20 = 5.054e-4 <= 8e-4
    assert ev(th.lhs, epsilon=sp.Rational(1, 10), delta=d) == pytest.approx(5.0547878e-4, rel=1e-7)
    assert ev(th.lhs, epsilon=sp.Rational(1, 10), delta=d) < ev(th.rhs, epsilon=sp.Rational(1, 10), delta=d)
    # the crossover e^{-1.7 eps} ln(2/eps) = 4, by mpmath's root finder, independent of the library
    x = mp.findroot(lambda e: mp.exp(-mp.mpf("1.7") * e) * mp.log(2 / e) - 4, (mp.mpf("0.02"), mp.mpf("0.04")),
                    solver="anderson")
    assert float(x) == pytest.approx(0.029764, abs=5e-6)
    lo, hi = sp.Rational(297, 10**4), sp.Rational(298, 10**4)
    assert ev(th.lhs, epsilon=lo, delta=d) > ev(th.rhs, epsilon=lo, delta=d)
    assert ev(th.lhs, epsilon=hi, delta=d) < ev(th.rhs, epsilon=hi, delta=d)


# ---- Composition Theorem I and its corollaries ---------------------------------------


def test_eps3_by_hand():
    e, d_t, TT = mp.mpf("0.1"), mp.mpf("1e-5"), 1000
    want = TT * e * mp.tanh(e / 2) + mp.sqrt(2 * mp.log(1 / d_t) * TT * e**2)
    got = ev(h.THM4_EPS3, epsilon=sp.Rational(1, 10), deltatilde=sp.Rational(1, 10**5), T=1000)
    assert got == pytest.approx(float(want), rel=1e-12)
    assert float(want) == pytest.approx(100 * math.tanh(0.05) + math.sqrt(2 * math.log(1e5) * 10), rel=1e-12)
    e2 = TT * e * mp.tanh(e / 2) + mp.sqrt(2 * TT * e**2 * mp.log(mp.e + mp.sqrt(TT * e**2) / d_t))
    assert ev(h.THM4_EPS2, epsilon=sp.Rational(1, 10), deltatilde=sp.Rational(1, 10**5), T=1000) == pytest.approx(float(e2), rel=1e-12)
    assert ev(h.THM4_EPS_PRIME, epsilon=sp.Rational(1, 10), deltatilde=sp.Rational(1, 10**5), T=1000) == pytest.approx(
        float(min(TT * e, e2, want)), rel=1e-12
    )


def test_eps_prime_same_as_kairouz_symbolically():
    for ours, theirs in ((h.THM4_EPS1, cl.KAIROUZ_EPS1), (h.THM4_EPS2, cl.KAIROUZ_EPS2), (h.THM4_EPS3, cl.KAIROUZ_EPS3)):
        assert sp.simplify(ours - theirs) == 0


def _seq_subs(expr, TT, eps_vals, delta_vals=None, alpha_vals=None):
    expr = expr.subs(T, TT).doit()
    subs = {h.eps_seq[i + 1]: v for i, v in enumerate(eps_vals)}
    if delta_vals:
        subs |= {h.delta_seq[i + 1]: v for i, v in enumerate(delta_vals)}
    if alpha_vals:
        subs |= {h.alpha_seq[i + 1]: v for i, v in enumerate(alpha_vals)}
    return expr.subs(subs)


def test_sum_forms_reduce_to_homogeneous():
    e, dt, TT = sp.Rational(3, 10), sp.Rational(1, 1000), 7
    for hom, het in ((h.THM4_EPS1, h.THM4_EPS1_SUM), (h.THM4_EPS2, h.THM4_EPS2_SUM), (h.THM4_EPS3, h.THM4_EPS3_SUM), (h.THM5_EPS, h.THM5_EPS_SUM)):
        a = sp.N(_seq_subs(het, TT, [e] * TT).subs({delta_t: dt, delta_p: dt}), 30)
        b = sp.N(hom.subs({eps: e, T: TT, delta_t: dt, delta_p: dt}), 30)
        assert abs(a - b) < 1e-25
    # heterogeneous value by hand
    vals = [sp.Rational(1, 10), sp.Rational(1, 2), 1]
    got = sp.N(_seq_subs(h.THM4_EPS3_SUM, 3, vals).subs(delta_t, dt), 30)
    with mp.workdps(30):
        want = mp.fsum(mp.mpf(v) * mp.tanh(mp.mpf(v) / 2) for v in (0.1, 0.5, 1)) + mp.sqrt(2 * mp.log(1000) * mp.mpf("1.26"))
    assert float(got) == pytest.approx(float(want), rel=1e-12)
    dr = sp.N(_seq_subs(cl.DR_ADV_EPS_SUM, 3, vals).subs(delta_t, dt), 30)
    assert dr > got


def test_eq7_objective_at_boundary_point_is_cor1():
    """m alphas equal to eps and the rest 0 (the maximiser of Cor 1) turns eq. (7) into Cor 1's delta'."""
    e, d, dt, TT, m = sp.Rational(1, 5), sp.Rational(1, 100), sp.Rational(1, 10**6), 6, 2
    obj = _seq_subs(h.THM4_DELTA_OBJECTIVE, TT, [e] * TT, [d] * TT, [e] * m + [0] * (TT - m)).subs(delta_t, dt)
    cor1 = h.COR1_DELTA.subs({eps: e, delta: d, delta_t: dt, T: TT, eps_p: m * e})
    assert sp.simplify(obj - cor1) == 0


def test_cor1_first_order_is_series_of_exact_form():
    th = get("he2021.cor1_delta_first_order")
    ok, _ = check_expansion(th)
    assert ok
    # independent: replace ceil(eps'/eps) by a free integer m and take the series in delta
    m = sp.Symbol("m", positive=True, integer=True)
    exact = h.COR1_DELTA.subs(h.CEIL_M, m)
    first = h.COR1_DELTA_FIRST_ORDER.subs(h.CEIL_M, m)
    ser = sp.series(exact, delta, 0, 2).removeO()
    assert sp.simplify(ser - first) == 0
    # and the remainder really is second order: the delta^2 coefficient is non-zero in general
    assert sp.simplify(sp.series(exact, delta, 0, 3).removeO() - ser) != 0


def test_cor1_at_thm4_eps_below_optimal_composition_for_large_T():
    """Hand check of the instantiated claim against the exact optimal delta (a refutation the verifier should find).

    eps = 0.1, delta = 1e-5, T = 100, delta~ = 1e-5: eps' = eps'_3 ~ 5.298, and Cor 1 gives
    delta' ~ 9.863e-4, while every T-fold composition must allow at least 1 - (1 - delta)^T ~ 9.995e-4.
    """
    th = get("he2021.cor1_delta_at_thm4_eps")
    pt = dict(epsilon=sp.Rational(1, 10), delta=sp.Rational(1, 10**5), T=100, deltatilde=sp.Rational(1, 10**5))
    ep = ev(h.THM4_EPS_PRIME, **pt)
    assert ep == pytest.approx(5.298, abs=1e-3)
    claimed = th.evaluate(**pt)
    optimal = kov_delta("0.1", "1e-5", 100, ep)
    assert optimal >= 1 - (1 - mp.mpf("1e-5")) ** 100
    assert claimed < optimal
    # the Kairouz et al. delta' is valid there
    assert ev(cl.KAIROUZ_DELTA, **pt) >= optimal


def test_cor1_vs_kairouz_claim_fails_for_single_step():
    """T = 1: eps' = eps'_1 = eps, Cor 1 gives delta + delta~, Kairouz et al. delta + delta~ - delta delta~."""
    th = get("he2021.cmp_delta_vs_kairouz")
    pt = dict(epsilon=sp.Rational(1, 2), delta=sp.Rational(1, 10**3), T=1, deltatilde=sp.Rational(1, 10**6))
    d, dt = mp.mpf("1e-3"), mp.mpf("1e-6")
    assert ev(th.lhs, **pt) == pytest.approx(float(d + dt), rel=1e-12)
    assert ev(th.rhs, **pt) == pytest.approx(float(d + dt - d * dt), rel=1e-12)
    assert ev(th.lhs, **pt) > ev(th.rhs, **pt)


@pytest.mark.parametrize("pt", [(sp.Rational(1, 10), sp.Rational(1, 10**5), 100, sp.Rational(1, 10**5)),
                                (sp.Rational(1, 2), sp.Rational(1, 10**3), 10, sp.Rational(1, 10**6)),
                                (1, sp.Rational(1, 100), 5, sp.Rational(1, 1000))])
def test_cor1_below_dwork_roth(pt):
    """Cor 1 <= delta~ + T delta holds by the union bound: m e^eps x + (T - m) x + T x <= T (1 + e^eps) x."""
    th = get("he2021.cmp_delta_vs_dwork_roth")
    vals = dict(zip(("epsilon", "delta", "T", "deltatilde"), pt))
    assert ev(th.lhs, **vals) < ev(th.rhs, **vals)


def test_cor2_vs_thm4_reduces_to_delta_pp_below_delta_tilde():
    th = get("he2021uai.cmp_cor2_vs_thm4")
    diff = sp.simplify(th.lhs - th.rhs - (h.COR2_DELTA_PP.subs(eps_p, h.THM4_EPS3) - delta_t))
    assert diff == 0
    pt = dict(epsilon=sp.Rational(1, 10), delta=sp.Rational(1, 10**5), T=2000, deltatilde=sp.Rational(1, 10**5))
    assert ev(th.lhs, **pt) < ev(th.rhs, **pt)


def test_delta_pp_forms_agree():
    """Thm 7's delta-tilde' is Cor 2's delta'' with eps -> eps-tilde."""
    assert sp.simplify(h.THM7_UAI_DELTA_TILDE_P - h.COR2_DELTA_PP.subs(eps, h.eps_tl)) == 0
    pt = dict(epsilon=sp.Rational(1, 10), T=2000, epsilonprime=sp.Rational(30))
    e, TT, ep = mp.mpf("0.1"), 2000, mp.mpf(30)
    want = mp.e ** (-(ep + TT * e) / 2) * (2 * TT * e / ((1 + mp.e**e) * (TT * e - ep))) ** TT * ((TT * e + ep) / (TT * e - ep)) ** (-(ep + TT * e) / (2 * e))
    assert ev(h.COR2_DELTA_PP, **pt) == pytest.approx(float(want), rel=1e-12)


# ---- Theorem 7 (IGMM) ---------------------------------------------------------------------


def test_thm7_eps_tilde_by_hand():
    vals = dict(N=60000, tau=256, D=2, sigma=4, delta=sp.Rational(1, 10**5))
    n, t, d, s, dl = 60000, 256, mp.mpf(2), mp.mpf(4), mp.mpf("1e-5")
    want = mp.log((n - t) / mp.mpf(n) + mp.mpf(t) / n * mp.e ** ((mp.sqrt(2) * d * s / t * mp.sqrt(mp.log(1 / dl)) + d**2 / t**2) / (2 * s**2)))
    assert ev(h.THM7_UAI_EPS_TILDE, **vals) == pytest.approx(float(want), rel=1e-12)
    assert 0 < want < mp.mpf(t) / n  # amplified below the sampling rate here


def test_thm7_eps_is_thm4_eps3_form():
    assert sp.simplify(h.THM7_UAI_EPS - h.THM4_EPS3.subs(eps, h.eps_tl)) == 0


# ---- expansions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "id", ["he2021.lemma_kl_small_eps", "he2021.thm4_eps3_small_eps", "he2021.thm4_eps3_large_T", "he2021.cor1_delta_first_order"]
)
def test_expansion_entries_hold(id):
    ok, _ = check_expansion(get(id))
    assert ok


def test_kl_expansion_next_term():
    ok, lim = check_expansion(get("he2021.lemma_kl_small_eps"))
    assert ok and lim == sp.Rational(-1, 24)


def test_large_T_expansion_remainder_is_sqrt_T():
    ok, lim = check_expansion(get("he2021.thm4_eps3_large_T"))
    assert ok and sp.simplify(lim - eps * sp.sqrt(2 * sp.log(1 / delta_t))) == 0
    assert "O" in get("he2021.thm4_eps3_large_T").latex()


def test_kairouz_gap_expansion_fails_as_stated_and_holds_when_delta_tilde_is_second_order():
    """The text's 'approximately' misses the -T delta delta~ term: the stated O(delta^2) expansion fails at
    fixed delta~ (kept as stated, REFUTED for the verifier), and holds once delta~ = O(delta^2)."""
    th = get("he2021.cmp_delta_vs_kairouz_gap")
    ok, _ = check_expansion(th)
    assert not ok
    m = sp.Symbol("m", positive=True, integer=True)
    diff = (th.lhs - th.rhs).subs(h.CEIL_M, m)
    ser = sp.series(diff, delta, 0, 2).removeO()
    assert sp.simplify(ser + T * delta * delta_t) == 0
    assert sp.simplify(sp.series(diff.subs(delta_t, delta**2), delta, 0, 2).removeO()) == 0


def test_cor3_rates():
    a, b = get("he2021uai.cor3_gap_rate"), get("he2021uai.cor3_failure_rate")
    c = h.C_clients
    assert sp.limit(a.rhs * sp.sqrt(c), c, sp.oo) == 1
    assert sp.limit(b.rhs * c ** sp.Rational(3, 2), c, sp.oo) == 1
    assert "asymptotic" in a.tags and "O~" in a.notes


# ---- the reduction to absurdity (Lemma 1 vs Theorem 3) -----------------------------------------


def test_lemma1_small_conflicts_with_thm3():
    th = get("he2021uai.cmp_lemma1_small_conflicts_thm3")
    # (i) thresholds: k e^{-2.89 eps} delta + 2.89 eps <= k e^{-1.7 eps} delta + 2.89 eps, k delta = eps e^{1.7 eps}
    diff = sp.simplify(th.rhs - th.lhs)
    assert sp.simplify(diff - eps * (1 - sp.exp(-sp.Rational(119, 100) * eps))) == 0
    # (ii) probabilities, (iii) branch, (iv) k condition of Theorem 3 at eps_B = 1.7 eps
    eps_b = sp.Rational(17, 10) * eps
    assert sp.simplify(h.THM3_UAI_P_SMALL.subs(eps, eps_b) - h.THM3_UAI_P_SMALL) == sp.Rational(85 * 7, 1270) * eps
    assert get("he2021uai.thm3_small_eps").holds_hypotheses(epsilon=1.7 * 0.19, delta=1e-6, k=1)
    k_max = eps_b / (sp.Rational(17, 10) * sp.exp(-sp.Rational(17, 10) * eps_b) * delta)
    assert sp.simplify(k_max / h.LEMMA1_UAI_K_SMALL - sp.exp(sp.Rational(119, 100) * eps)) == 0


def test_lemma1_large_branch_gap():
    """eq. (6) equals Theorem 3's large branch at eps_B = eps + ln(10/9); that branch needs eps > 0.2346."""
    eps_b = eps - sp.log(sp.Rational(9, 10))
    assert sp.simplify(h.THM3_UAI_A_LARGE.subs(eps, eps_b) - h.LEMMA1_UAI_A_LARGE) == 0
    assert sp.simplify(h.THM3_UAI_P_LARGE.subs(eps, eps_b) - get("he2021uai.lemma1_large_eps").rhs) == 0
    k_max = (1 - sp.exp(-eps_b)) / (10 * sp.exp(-eps_b) * delta)
    assert sp.simplify(k_max - h.LEMMA1_UAI_K_LARGE) == 0
    th = get("he2021uai.cmp_lemma1_large_in_thm3_branch")
    assert float(ev(th.rhs, epsilon=sp.Rational(1, 5))) < 17 / 50 < float(ev(th.rhs, epsilon=sp.Rational(1, 4)))
    assert float(sp.Rational(17, 50) - sp.log(sp.Rational(10, 9))) == pytest.approx(0.23464, abs=1e-5)
