"""Prior work quoted by the He et al. texts (symdp.library.classical).

Oracles: values by hand with mpmath, an independent brute-force enumeration of the worst-case
(eps, delta) pair for the optimal-composition formula, the exact Gaussian privacy profile
(Balle-Wang 2018) for the calibration, and symbolic identities.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import pytest
import sympy as sp
from scipy.stats import norm

from symdp.library import all_theorems, get
from symdp.library import classical as cl
from symdp.symbols import T, delta, delta_t, eps
from symdp.theorem import Kind

MINE = [t for t in all_theorems(with_evidence=False) if t.id.startswith("classical.")]


def ev(expr, **vals):
    syms = {s.name: s for s in expr.free_symbols if isinstance(s, sp.Symbol)}
    subs = {syms[k]: sp.nsimplify(v) if isinstance(v, float) else v for k, v in vals.items() if k in syms}
    return mp.mpf(sp.N(expr.subs(subs), 30))


def test_ids_and_provenance():
    ids = {t.id for t in MINE}
    assert "classical.gaussian_mechanism_calibration" in ids
    assert len(MINE) >= 15
    for t in MINE:
        assert t.source.paper == "classical"
        assert t.source.cites, t.id
        if "quoted in 000" in t.source.locator:
            assert t.source.file.startswith("000_")
        if "quoted in 001" in t.source.locator:
            assert t.source.file.startswith("001_")


@pytest.mark.parametrize("th", [t for t in MINE if t.rhs is not None and t.kind is not Kind.EQUIVALENCE], ids=lambda t: t.id)
def test_entries_evaluate_finite_on_box_corners(th):
    box = th.domain_dict()
    syms = th.bound_symbols
    if not all(s in box for s in syms):
        pytest.skip("indexed (heterogeneous) form")
    for frac in (0.1, 0.9):
        vals = {}
        for s in syms:
            lo, hi = (float(v) for v in box[s])
            v = math.exp(math.log(lo) + frac * (math.log(hi) - math.log(lo))) if lo > 0 and hi / lo > 100 else lo + frac * (hi - lo)
            vals[s.name] = max(1, round(v)) if s.is_integer else sp.Float(v, 30)
        assert mp.isfinite(th.evaluate(**vals)), (th.id, vals)


def test_generalization_bounds_pinned():
    e, d = mp.mpf("0.05"), mp.mpf("1e-6")
    pt = dict(epsilon=sp.Rational(1, 20), delta=sp.Rational(1, 10**6))
    assert ev(cl.NS2015_A, **pt) == pytest.approx(0.65)
    assert ev(cl.NS2015_B, **pt) == pytest.approx(float(2 * d / e * mp.log(2 / e)), rel=1e-12)
    assert ev(cl.DWORK2015_B, **pt) == pytest.approx(float(8 * d * e), rel=1e-12)
    assert get("classical.nissim_stemmer2015_high_prob").holds_hypotheses(epsilon=0.05, delta=1e-6)
    assert not get("classical.nissim_stemmer2015_high_prob").holds_hypotheses(epsilon=0.2, delta=1e-6)
    # Oneto et al. at eps = 0.05, N = 10^4, Rhat = 0.1, Vhat = 0.09
    n, r, v = 10**4, mp.mpf("0.1"), mp.mpf("0.09")
    eh = e + mp.sqrt(1 / mp.mpf(n))
    assert ev(cl.ONETO2017_A_RISK, epsilon=sp.Rational(1, 20), N=n, Rhat=sp.Rational(1, 10)) == pytest.approx(
        float(mp.sqrt(6 * r * eh) + 6 * e**2 + 6 / mp.mpf(n)), rel=1e-12
    )
    assert ev(cl.ONETO2017_A_VAR, epsilon=sp.Rational(1, 20), N=n, Vhat=sp.Rational(9, 100)) == pytest.approx(
        float(mp.sqrt(4 * v * eh) + 5 * n / mp.mpf(n - 1) * (e**2 + 1 / mp.mpf(n))), rel=1e-12
    )
    assert ev(cl.ONETO2017_B, epsilon=sp.Rational(1, 20), N=n) == pytest.approx(float(3 * mp.e ** (-n * e**2)), rel=1e-12)


def test_kl_bounds_relation():
    assert sp.simplify(cl.DWORK2010_KL - 2 * cl.DWORK_ROTHBLUM2016_KL) == 0


def test_randomized_response_kl_identity():
    th = get("classical.randomized_response_kl")
    assert sp.simplify((th.lhs - th.rhs).rewrite(sp.exp)) == 0
    for e in ("0.01", "1", "7"):
        with mp.workdps(30):
            ee = mp.mpf(e)
            p = mp.e**ee / (1 + mp.e**ee)
            kl = p * mp.log(p / (1 - p)) + (1 - p) * mp.log((1 - p) / p)
            assert kl == pytest.approx(float(ee * mp.tanh(ee / 2)), rel=1e-12)


def test_composition_eps_ordering():
    """Kairouz et al.'s eps'_3 is below advanced composition's: e tanh(e/2) <= e (e^e - 1)."""
    d = sp.simplify(cl.DR_ADV_EPS - cl.KAIROUZ_EPS3)
    for e in (sp.Rational(1, 100), sp.Rational(1, 2), 2):
        assert sp.N(d.subs({eps: e, T: 100, delta_t: sp.Rational(1, 10**6)})) > 0
    assert sp.simplify(cl.DR_ADV_EPS - cl.KAIROUZ_EPS3 - T * eps * ((sp.exp(eps) - 1) - (sp.exp(eps) - 1) / (sp.exp(eps) + 1))) == 0


def _kov_by_enumeration(e, d, TT, ep):
    """Privacy profile of TT copies of the worst-case pair, by enumerating the 4^TT outcomes."""
    with mp.workdps(40):
        e, d, ep = mp.mpf(e), mp.mpf(d), mp.mpf(ep)
        a = mp.e**e / (1 + mp.e**e)
        P = [d, (1 - d) * a, (1 - d) * (1 - a), mp.mpf(0)]
        Q = [mp.mpf(0), (1 - d) * (1 - a), (1 - d) * a, d]
        tot = mp.mpf(0)
        for o in itertools.product(range(4), repeat=TT):
            po = mp.fprod(P[i] for i in o)
            qo = mp.fprod(Q[i] for i in o)
            tot += max(mp.mpf(0), po - mp.e**ep * qo)
        return tot


@pytest.mark.parametrize(
    "e,d,TT,ep",
    [("0.5", "0", 1, "0"), ("0.5", "1e-3", 3, "0.7"), ("1", "1e-2", 4, "1.5"), ("0.3", "1e-4", 5, "0.1"), ("2", "1e-3", 2, "5")],
)
def test_kov_formula_matches_enumeration(e, d, TT, ep):
    th = get("classical.kov2017_optimal_composition")
    got = th.evaluate(epsilon=sp.Rational(e), delta=sp.Rational(d), T=TT, epsilonprime=sp.Rational(ep))
    assert got == pytest.approx(float(_kov_by_enumeration(e, d, TT, ep)), rel=1e-12, abs=1e-30)


def test_kov_single_pure_step_is_tanh():
    th = get("classical.kov2017_optimal_composition")
    assert th.evaluate(epsilon=1, delta=0, T=1, epsilonprime=0) == pytest.approx(math.tanh(0.5), rel=1e-12)


def test_kairouz_and_dwork_roth_delta_are_valid_at_their_eps():
    """Bracket: the optimal delta at eps' <= each quoted delta' (these published results are theorems)."""
    opt = get("classical.kov2017_optimal_composition")
    for e, d, TT, dt in ((sp.Rational(1, 2), sp.Rational(1, 10**3), 10, sp.Rational(1, 10**6)), (sp.Rational(1, 10), sp.Rational(1, 10**5), 50, sp.Rational(1, 10**5))):
        pt = {eps: e, delta: d, T: TT, delta_t: dt}
        ep_k = sp.N(cl.KAIROUZ_EPS_PRIME.subs(pt), 30)
        ep_dr = sp.N(cl.DR_ADV_EPS.subs(pt), 30)
        o_k = opt.evaluate(epsilon=e, delta=d, T=TT, epsilonprime=ep_k)
        o_dr = opt.evaluate(epsilon=e, delta=d, T=TT, epsilonprime=ep_dr)
        assert o_k <= ev(cl.KAIROUZ_DELTA, epsilon=e, delta=d, T=TT, deltatilde=dt)
        assert o_dr <= ev(cl.DR_ADV_DELTA, epsilon=e, delta=d, T=TT, deltatilde=dt)


def _gauss_delta(e, r):
    return norm.cdf(-e / r + r / 2) - math.exp(e) * norm.cdf(-e / r - r / 2)


@pytest.mark.parametrize("e,d,sens", [(0.1, 1e-5, 1.0), (0.5, 1e-6, 2.0), (0.9, 1e-3, 0.5), (0.99, 1e-10, 3.0)])
def test_gaussian_calibration_is_sufficient(e, d, sens):
    """The exact profile at the calibrated sigma is at most delta (Dwork-Roth Thm A.1, eps < 1)."""
    th = get("classical.gaussian_mechanism_calibration")
    s = float(th.evaluate(epsilon=e, delta=d, Delta=sens))
    assert s == pytest.approx(sens * math.sqrt(2 * math.log(1.25 / d)) / e, rel=1e-12)
    assert _gauss_delta(e, sens / s) <= d
    # and it is not wildly loose: half the noise breaks (eps, delta)
    assert _gauss_delta(e, 2 * sens / s) > d


def test_gaussian_calibration_hypotheses():
    th = get("classical.gaussian_mechanism_calibration")
    assert th.holds_hypotheses(epsilon=0.5, delta=1e-5, Delta=1, sigma=10)
    assert not th.holds_hypotheses(epsilon=1.5, delta=1e-5, Delta=1, sigma=10)
    assert th.oracle == "gaussian_profile" and th.relation == ">="


def test_wang_sgld_condition_value():
    th = get("classical.wang2015_sgld_privacy_for_free")
    got = th.evaluate(epsilon=1, delta=sp.Rational(1, 10**5), N=60000, tau=128)
    assert got == pytest.approx(60000 / (32 * 128 * math.log(2e5)), rel=1e-12)
