"""Finite-instance oracles for generalization statements (issue 23, item 3): exact values checked by hand or by an
independent formula, planted false claims refuted, and every remaining UNDECIDED with its reason."""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import replace

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdp.library import get
from symdp.theorem import Property, Verdict
from symdp.verify import oracles_finite as fin
from symdp.verify import oracles_learners as ol
from symdp.verify import oracles_posterior as op
from symdp.verify import oracles_proofs as pr
from symdp.verify import verify_theorem
from symdp.verify.oracles_undecided import REASONS


def _v(th):
    return verify_theorem(th, ledger=False).evidence


# --- exact values -------------------------------------------------------------------------------------------------
def test_multi_stats_one_set_one_example_by_hand():
    """k = 1, N = 1, hypotheses 'predict 0' / 'predict 1' under the 0-1 loss: the mean gap by hand."""
    p, eps, L = 0.3, 0.8, [(0.0, 1.0), (1.0, 0.0)]
    R = [p, 1 - p]
    want = 0.0
    for z, pz in ((0, 1 - p), (1, p)):
        emp = [L[h][z] for h in range(2)]
        w = [math.exp(eps / 2 * e) for e in emp]  # score sign +1, N = 1
        want += pz * sum(wi / sum(w) * (emp[h] - R[h]) for h, wi in enumerate(w))
    mean, succ = ol.multi_stats(1, 1, p, L, eps, 0.0, 1, a=0.0)
    assert mean == pytest.approx(want, rel=1e-12)
    assert mean > 0  # the +1 score prefers over-estimated risk
    # P(g <= 0) by hand
    s = sum(pz * sum(wi / sum(w) for h, wi in enumerate(w) if L[h][z] - R[h] <= 0)
            for z, pz in ((0, 1 - p), (1, p)) for w in [[math.exp(eps / 2 * L[h][z]) for h in range(2)]])
    assert succ == pytest.approx(s, rel=1e-12)


def test_learner_is_eps_delta_dp():
    """The mixed learner's hockey-stick divergence between neighbouring counts is <= delta at e^eps."""
    rng = random.Random(3)
    for _ in range(20):
        _p, L = ol._instance(rng)
        N, eps, delta = rng.choice((1, 3, 10)), rng.uniform(0.05, 3), rng.choice((0.0, 1e-3, 0.1))
        for s in (1, -1):
            P = ol._learner(N, L, eps, delta, s)
            for c in range(N):
                for a, b in ((P[c], P[c + 1]), (P[c + 1], P[c])):
                    assert np.maximum(a - math.exp(eps) * b, 0).sum() <= delta + 1e-12


def test_event_probability_float_and_mpmath_agree():
    rng = random.Random(5)
    p, L = ol._instance(rng)
    N, eps, delta, a = 40, 0.5, 0.01, 0.05
    P = ol._learner(N, L, eps, delta, 1)
    prob = float(np.sum(ol._binom_pmf(N, p)[:, None] * P * (np.abs(ol._gaps(N, p, L)) > a)))
    with mpmath.workdps(40):
        exact = ol._event_prob_mp(N, p, L, eps, delta, 1, lambda g, e, c: abs(g) > a)
    assert prob == pytest.approx(float(exact), rel=1e-10)
    assert 0 < prob < 1


def test_info_terms_against_an_independent_mutual_information():
    """I(A(Z); Z) from the joint distribution directly (H(h) - H(h | Z)) agrees with info_terms, and Lemma 14 holds."""
    rng = random.Random(11)
    with mpmath.workdps(30):
        n, D, L, g = fin.instance(rng)
        t = op.info_terms(n, D, L, g)
        sets = [(Z, mpmath.fprod(D[z] for z in Z)) for Z in itertools.product(range(len(D)), repeat=n)]
        posts = [fin._posterior(Z, L, g) for Z, _ in sets]
        ph = [mpmath.fsum(w * q[h] for (_, w), q in zip(sets, posts)) for h in range(len(L[0]))]
        H = -mpmath.fsum(x * mpmath.log(x) for x in ph)
        Hc = -mpmath.fsum(w * mpmath.fsum(x * mpmath.log(x) for x in q) for (_, w), q in zip(sets, posts))
        assert abs(t["I"] - (H - Hc)) < mpmath.mpf(10) ** -25
        assert abs(t["I"] - (t["KL_ind"] + t["J_gap"])) < mpmath.mpf(10) ** -25
        assert t["J_gap"] < 0  # Jensen
        # Thm 4's equality needs the sampler's own loss scale: gamma l, not l
        e = fin.okl(n, 1, D, L, g)
        assert abs(e - t["eps_gen"]) < mpmath.mpf(10) ** -25
        assert abs(e - t["eps_gen"] / g) > mpmath.mpf(10) ** -6


def test_beta_max_information_at_beta_zero_is_the_pointwise_ratio():
    joint = [[mpmath.mpf("0.1"), mpmath.mpf("0.3")], [mpmath.mpf("0.4"), mpmath.mpf("0.2")]]
    want = max(mpmath.log(joint[i][j] / (sum(joint[i]) * (joint[0][j] + joint[1][j])), 2) for i in range(2) for j in range(2))
    assert abs(fin.beta_max_information_bits(joint, mpmath.mpf(0)) - want) < mpmath.mpf(10) ** -12
    assert fin.beta_max_information_bits(joint, mpmath.mpf("0.3")) < want


# --- the library entries are decided -----------------------------------------------------------------------------
DECIDED = [*ol.HIGH_PROB, *ol.MULTI, *ol.PAC_BAYES, "wang2016.lemma14_mi_identity", "wang2016.cor15_lower",
           "wang2016.cor15_upper_subgaussian", "wang2016.cor15_upper_subexponential", "wang2016.cor15_mi_cap",
           "wang2016.thm4_equivalence", "wang2016.remark1_structural_loss", "wang2016.remark2_dispersion",
           "wang2016.cor12_max_information_generalization", "wang2016.thm9_max_entropy", "he2021long.lemma1_dr",
           "dwork2015.thm13_max_information_transfer"]


@pytest.mark.parametrize("eid", ["he2021uai.thm1_small_eps_failure", "he2021long.thm1", "he2021.thm2", "he2021long.thm3",
                                 "pacbayes.seeger_maurer_inverted", "bridge.pac_bayes_dp_prior", "wang2016.cor15_lower",
                                 "dwork2015.thm13_max_information_transfer", "he2021long.lemma1_dr"])
def test_entries_supported_on_their_family(eid):
    ev = _v(get(eid, with_evidence=False))
    assert ev.verdict is Verdict.SUPPORTED, ev.detail
    assert ev.rung == "finite-instances" and "holds on" in ev.detail


# --- planted false claims are refuted ----------------------------------------------------------------------------
def test_planted_high_probability_claim_refuted():
    th = get("classical.oneto2017_empirical_risk_failure", with_evidence=False)
    _a, b = th.conclusion.params
    eps = sp.Symbol("epsilon", positive=True)
    bad = replace(th, id="test.oneto_small_a", rhs=b * sp.Rational(1, 10**6),
                  conclusion=Property(th.conclusion.name, (sp.Float("0.001") * eps, b * sp.Rational(1, 10**6)), "A"))
    ol.HIGH_PROB["test.oneto_small_a"] = "abs"
    try:
        ev = ol.map_high_probability(bad)
    finally:
        del ol.HIGH_PROB["test.oneto_small_a"]
    assert ev.verdict is Verdict.REFUTED and "re-computed at 40 digits" in ev.detail


def test_planted_multi_claim_refuted():
    th = get("he2021.thm2", with_evidence=False)
    ev = ol.map_multi(replace(th, rhs=th.rhs / 1000))
    assert ev.verdict is Verdict.REFUTED, ev.detail


def test_planted_pac_bayes_claim_refuted():
    th = get("pacbayes.seeger_maurer", with_evidence=False)
    c, fail = th.conclusion.params
    ev = ol.map_pac_bayes(replace(th, conclusion=Property(th.conclusion.name, (c / 50, fail), "A")))
    assert ev.verdict is Verdict.REFUTED, ev.detail


def test_planted_lemma14_without_jgap_refuted():
    th = get("wang2016.lemma14_mi_identity", with_evidence=False)
    kl_ind = next(s for s in th.rhs.free_symbols if s.name == "KL_ind")
    assert op.map_lemma14(replace(th, rhs=kl_ind)).verdict is Verdict.REFUTED


def test_planted_transfer_with_half_the_bits_refuted():
    th = get("dwork2015.thm13_max_information_transfer", with_evidence=False)
    k = next(s for s in th.rhs.free_symbols if s.name == "k")
    assert fin.map_max_information_transfer(replace(th, rhs=th.rhs.xreplace({k: k / 2}))).verdict is Verdict.REFUTED


def test_planted_cor15_upper_refuted():
    th = get("wang2016.cor15_upper_subgaussian", with_evidence=False)
    assert op._cor15("upper")(replace(th, rhs=th.rhs / 100)).verdict is Verdict.REFUTED


# --- assumptions are not claims; what stays undecided says why ------------------------------------------------------
def test_sample_size_conditions_are_assumptions_not_claims():
    from symdp.audit.engine import library_claims

    ids = {t.id for t in library_claims()}
    for eid in ("he2021uai.thm1_n_condition", "he2021uai.lemma1_n_condition", "he2021long.thm1_n_condition"):
        assert eid not in ids and "assumption" in get(eid, with_evidence=False).tags
    assert "he2021long.remark1_n_condition" in ids  # a remark's claim about N stays a claim


def test_remaining_undecided_say_why():
    for eid, reason in REASONS.items():
        ev = _v(get(eid, with_evidence=False))
        assert ev.verdict is Verdict.UNCHECKED and ev.detail == reason and reason.startswith("undecided: ")


def test_quoted_bounds_fail_at_n_one_as_the_reason_says():
    """The reason given for the quoted Dwork et al. / Nissim-Stemmer bounds: an eps-DP learner with N = 1 violates them."""
    for eid, how in (("classical.dwork2015_high_prob_failure", "over"), ("classical.nissim_stemmer2015_high_prob_failure", "abs")):
        th = get(eid, with_evidence=False)
        a, b = (sp.lambdify(sorted(e.free_symbols, key=str), e) for e in th.conclusion.params)
        eps, delta, p, L = 0.01, 1e-6, 0.5, [(0.0, 1.0), (1.0, 0.0)]
        args = {"epsilon": eps, "delta": delta}
        av = a(*[args[s.name] for s in sorted(th.conclusion.params[0].free_symbols, key=str)])
        bv = b(*[args[s.name] for s in sorted(th.conclusion.params[1].free_symbols, key=str)])
        g = ol._gaps(1, p, L)
        ev = (np.abs(g) > av) if how == "abs" else (-g >= av)
        prob = max(float(np.sum(ol._binom_pmf(1, p)[:, None] * ol._learner(1, L, eps, 0.0, s) * ev)) for s in (1, -1))
        assert prob > 0.4 > bv


# --- proofs of the lemmas the issue names --------------------------------------------------------------------------
@pytest.mark.parametrize("eid", ["he2021long.lemma6", "wang2016.remark3_dp_of_bounded_loss", "wang2016.lemma6_group_privacy",
                                 "wang2016.lemma11_max_information_to_okl"])
def test_named_lemmas_proved(eid):
    ev = _v(get(eid, with_evidence=False))
    assert ev.verdict is Verdict.PROVED and ev.detail.startswith("proof: ") and "SymPy" in ev.detail
    assert "finite instances agree" in ev.detail


def test_proof_mappers_still_refute_a_wrong_statement():
    from symdp.verify import oracles_proofs as pr

    th = get("wang2016.remark3_dp_of_bounded_loss", with_evidence=False)
    assert pr.map_wang_remark3(replace(th, rhs=th.rhs / 2)).verdict is Verdict.REFUTED  # the family reaches 4 B gamma
    th = get("wang2016.lemma6_group_privacy", with_evidence=False)
    k = next(s for s in th.rhs.free_symbols if s.name == "k")
    assert pr.map_wang_lemma6(replace(th, rhs=th.rhs.xreplace({k: k + 1}))).verdict is Verdict.REFUTED


# --- the calculus's two new bridges (KL -> On-Average KL; Thm 13 + Hoeffding) -----------------------------------
def test_kl_to_okl_bridge_proved_and_a_planted_half_refuted():
    th = get("bridge.wang2016_kl_to_on_average_kl", with_evidence=False)
    assert pr.map_kl_to_okl(th).verdict is Verdict.PROVED
    # the finite family: KL-privacy level enumerated independently, on-average KL exact; eps / 4 is below it somewhere
    assert pr.map_kl_to_okl(replace(th, rhs=th.rhs / 4)).verdict is Verdict.REFUTED


def test_kl_privacy_level_is_a_maximum_over_neighbours():
    """Two data points, two hypotheses, n = 1: the level is the larger of the two KLs of the posteriors, by hand."""
    L = [[mpmath.mpf(0), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(0)]]
    g = mpmath.mpf(2)
    a = 1 / (1 + mpmath.e ** -2)  # p_Z(h_1) for Z = (0,): exp(0) / (exp(0) + exp(-2))
    p, q = [a, 1 - a], [1 - a, a]
    want = max(sum(x * mpmath.log(x / y) for x, y in zip(p, q)), sum(y * mpmath.log(y / x) for x, y in zip(p, q)))
    assert pr.kl_privacy_level(1, 2, L, g) == pytest.approx(float(want), rel=1e-12)


def test_thm13_hoeffding_bridge_proved_only_for_the_solving_gap():
    th = get("bridge.dwork2015_thm13_hoeffding", with_evidence=False)
    assert pr.map_thm13_hoeffding(th).verdict is Verdict.PROVED
    k = next(s for s in th.rhs.free_symbols if s.name == "k_MI")
    assert pr.map_thm13_hoeffding(replace(th, rhs=th.rhs.xreplace({k: k / 2}))).verdict is not Verdict.PROVED
