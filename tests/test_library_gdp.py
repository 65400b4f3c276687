"""Tests of the Bu, Dong, Long, Su (2020) library entries (symdp/library/gdp.py).

Oracles: values printed in 003_066a862b3a3a386a.txt (cited per test), mpmath
references at high precision, and independent methods (Neyman-Pearson on
discrete pairs, 2-D quadrature of product Gaussians, numerical convex
conjugates and convex hulls, the Dong-Roth-Su piecewise form of C_p(G_mu),
integer-order RDP).
"""

from __future__ import annotations

import math
import zlib

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import special
from scipy.special import gammaln, logsumexp

from symdp.asymptotics import check_expansion, ratio_limit
from symdp.errors import InvalidParameterError
from symdp.library import all_theorems, gdp, get
from symdp.symbols import T, alpha, delta, eps, mu, p, sigma
from symdp.theorem import Kind

BU = all_theorems("bu2020", with_evidence=False)
P_MNIST = 256 / 60000


def _mp_delta(e, m):
    e, m = mpmath.mpf(e), mpmath.mpf(m)
    return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def _clt_mu(p_, epochs, s):
    """(3.1) with T = epochs / p (Table 1 note), mpmath."""
    p_, s = mpmath.mpf(p_), mpmath.mpf(s)
    return p_ * mpmath.sqrt(epochs / p_ * mpmath.expm1(1 / s**2))


# ----------------------------------------------------------------- registry


def test_registry_ids_and_coverage():
    ids = {t.id for t in BU}
    assert len(BU) >= 25
    assert all(i.startswith("bu2020.") for i in ids)
    for needed in ("bu2020.delta_of_eps_gdp", "bu2020.clt_mu", "bu2020.gdp_tradeoff", "bu2020.f_eps_delta",
                   "bu2020.prop_a1", "bu2020.lemma_a2", "bu2020.thm3_noisy_sgd", "bu2020.thm4_refined_composition",
                   "bu2020.uniform_mu", "bu2020.recalibrated_mu", "bu2020.thm1_fdp_comparison",
                   "bu2020.thm2_dp_comparison", "bu2020.gdp_composition"):
        assert needed in ids
    assert all(t.source.file == "003_066a862b3a3a386a.txt" for t in BU)


def test_contract_ids_others_rely_on():
    d = get("bu2020.delta_of_eps_gdp", with_evidence=False)
    assert d.kind is Kind.BOUND and d.lhs == delta
    assert set(d.bound_symbols) == {eps, mu}
    assert d.oracle == "gaussian_profile"
    assert d.premises[0].name == "GDP" and d.conclusion.name == "DP"
    c = get("bu2020.clt_mu", with_evidence=False)
    assert set(c.bound_symbols) == {p, T, sigma}
    assert "approximation" in c.tags
    assert sp.simplify(c.rhs - p * sp.sqrt(T * (sp.exp(1 / sigma**2) - 1))) == 0


def test_clt_entries_are_labelled_approximations():
    for i in ("bu2020.clt_mu", "bu2020.clt_mu_limit", "bu2020.delta_clt", "bu2020.uniform_mu",
              "bu2020.clt_convergence", "bu2020.thm1_fdp_comparison", "bu2020.thm2_dp_comparison"):
        th = get(i, with_evidence=False)
        assert "approximation" in th.tags, i
        assert "NOT an upper bound" in th.notes, i


def test_thm4_is_recorded_as_unavailable_with_quote():
    th = get("bu2020.thm4_refined_composition", with_evidence=False)
    assert not th.formula_available and th.unavailable_reason
    assert "T(M1(S), M(S'))" in th.notes
    assert th.latex().startswith(r"\text{(formula unavailable")


@pytest.mark.parametrize("th", [t for t in BU if t.rhs is not None and t.domain], ids=lambda t: t.id)
def test_finite_on_domain_sample(th):
    """rhs is finite and real at the domain corners and at random points of the box."""
    box = th.domain_dict()
    syms = th.bound_symbols
    assert all(s in box for s in syms), f"{th.id}: no domain for {[s for s in syms if s not in box]}"
    rng = np.random.default_rng(zlib.crc32(th.id.encode()))
    points = []
    for corner in (0, 1):
        points.append({s: float(box[s][corner]) for s in syms})
    for _ in range(3):
        pt = {}
        for s in syms:
            lo, hi = (float(v) for v in box[s])
            v = math.exp(rng.uniform(math.log(lo), math.log(hi))) if lo > 0 and hi / lo > 100 else rng.uniform(lo, hi)
            pt[s] = v
        points.append(pt)
    for pt in points:
        vals = {s.name: (round(v) if s.is_integer else v) for s, v in pt.items()}
        v = th.evaluate(**vals)
        assert isinstance(v, mpmath.mpf) and mpmath.isfinite(v), (th.id, vals, v)


# ----------------------------------------------------------------- (2.1), G_mu


def _np_tradeoff(P, Q, a):
    """Trade-off T(P, Q)(a) of discrete P, Q by the Neyman-Pearson lemma (randomised LR tests)."""
    P, Q = np.asarray(P, float), np.asarray(Q, float)
    lr = np.where(P > 0, Q / np.where(P > 0, P, 1), np.inf)
    order = np.argsort(-lr, kind="stable")  # reject the largest Q/P first
    xs = np.concatenate([[0.0], np.cumsum(P[order])])
    ys = np.concatenate([[1.0], 1 - np.cumsum(Q[order])])
    # outcomes with P = 0 come first (x stays 0); take the lower envelope at equal x
    return np.interp(a, xs, ys, left=1.0) if np.all(np.diff(xs) > 0) else _interp_lower(xs, ys, a)


def _interp_lower(xs, ys, a):
    ux = np.unique(xs)
    uy = np.array([ys[xs == x].min() for x in ux])
    return np.interp(a, ux, uy)


@pytest.mark.parametrize("e,d", [(0.5, 0.0), (1.0, 1e-3), (2.5, 0.05), (0.1, 0.3)])
def test_f_eps_delta_is_the_tradeoff_of_the_kairouz_pair(e, d):
    """(2.1) equals T(P~, Q~) of the worst-case (eps, delta) pair (Kairouz, Oh, Viswanath 2017)."""
    ee = math.exp(e)
    P = [d, (1 - d) * ee / (1 + ee), (1 - d) / (1 + ee), 0.0]
    Q = [0.0, (1 - d) / (1 + ee), (1 - d) * ee / (1 + ee), d]
    a = np.linspace(0, 1, 1001)
    want = _np_tradeoff(Q, P, a)  # T(P, Q) with the roles as in the definition: type I under the first
    got_np = gdp.f_eps_delta_numeric(e, d, a)
    np.testing.assert_allclose(got_np, want, atol=1e-12)
    th = get("bu2020.f_eps_delta", with_evidence=False)
    for ai in (0.0, 0.013, 0.2, 0.5, 0.97):
        assert float(th.evaluate(epsilon=e, delta=d, alpha=ai)) == pytest.approx(float(gdp.f_eps_delta_numeric(e, d, ai)), abs=1e-14)


def test_gdp_tradeoff_matches_neyman_pearson_quadrature():
    """G_mu(a): the NP test rejects N(0,1) for x > t, P(x > t) = a; type II by mpmath quadrature."""
    th = get("bu2020.gdp_tradeoff", with_evidence=False)
    with mpmath.workdps(30):
        for m in (0.1, 0.57, 1.0, 3.0):
            for a in (1e-6, 0.01, 0.3, 0.5, 0.9):
                t = mpmath.findroot(lambda x: mpmath.ncdf(-x) - a, 0)
                typ2 = mpmath.quad(lambda x: mpmath.npdf(x, m, 1), [-mpmath.inf, t])
                assert float(th.evaluate(mu=m, alpha=a)) == pytest.approx(float(typ2), rel=1e-12)
                assert float(gdp.gdp_tradeoff_numeric(m, a)) == pytest.approx(float(typ2), rel=1e-12)


def test_gdp_tradeoff_symmetric_and_fixed_point():
    m = 0.8
    a = np.linspace(0, 1, 201)
    g = lambda x: gdp.gdp_tradeoff_numeric(m, x)  # noqa: E731
    np.testing.assert_allclose(gdp.inverse_tradeoff(g, a), g(a), atol=1e-12)
    x = special.ndtr(-m / 2)
    assert float(g(x)) == pytest.approx(x, rel=1e-13)


# ----------------------------------------------------------------- duality and (3.2)


def test_delta_of_eps_gdp_against_quadrature_of_the_profile():
    """(3.2) equals sup_S Q(S) - e^eps P(S) = int (q - e^eps p)_+ for P = N(0,1), Q = N(mu,1)."""
    th = get("bu2020.delta_of_eps_gdp", with_evidence=False)
    with mpmath.workdps(40):
        for e, m in [(0.0, 0.5), (0.5, 1.0), (1.0, 0.3), (3.0, 2.0), (5.0, 1.13), (0.1, 4.0)]:
            f = lambda x: max(mpmath.mpf(0), mpmath.npdf(x, m, 1) - mpmath.exp(e) * mpmath.npdf(x, 0, 1))  # noqa: E731
            x0 = mpmath.mpf(e) / m + mpmath.mpf(m) / 2
            ref = mpmath.quad(f, [-mpmath.inf, x0 - 5, x0, x0 + 5, mpmath.inf])
            assert float(th.evaluate(epsilon=e, mu=m)) == pytest.approx(float(ref), rel=1e-10)


def test_delta_numeric_log_space_matches_mpmath_in_the_tail():
    for e, m in [(1.0, 1.0), (20.0, 1.0), (60.0, 2.0), (8.0, 0.5), (0.0, 0.01)]:
        ref = _mp_delta(e, m)
        got = float(gdp.gdp_delta_numeric(e, m))
        assert got == pytest.approx(float(ref), rel=1e-9), (e, m)
        assert got > 0


@pytest.mark.parametrize("e,m", [(0.0, 1.0), (0.5, 0.5), (1.0, 1.0), (2.0, 2.0), (3.0, 1.5), (0.3, 3.0)])
def test_duality_numerical_conjugate_equals_closed_form(e, m):
    """delta(eps) = 1 + G_mu*(-e^eps) with the conjugate computed numerically."""
    g = lambda x: float(gdp.gdp_tradeoff_numeric(m, x))  # noqa: E731
    num = gdp.delta_from_tradeoff(g, e)
    assert num == pytest.approx(float(_mp_delta(e, m)), abs=1e-9)


def test_duality_for_f_eps_delta_returns_its_profile():
    """1 + f_{e0,d0}*(-e^eps): d0 at eps >= e0, 1 - (1-d0)(1+e^eps)/(1+e^e0) below (the KOV profile)."""
    e0, d0 = 1.2, 0.01
    f = lambda x: float(gdp.f_eps_delta_numeric(e0, d0, x))  # noqa: E731
    for e in (0.0, 0.4, 1.0, 1.2, 2.0):
        want = d0 if e >= e0 else 1 - (1 - d0) * (1 + math.exp(e)) / (1 + math.exp(e0))
        assert gdp.delta_from_tradeoff(f, e) == pytest.approx(want, abs=1e-9)


def test_conjugate_identity_entry():
    th = get("bu2020.delta_of_eps_gdp_conjugate", with_evidence=False)
    with mpmath.workdps(50):
        for e, m in [(0.0, 1.0), (1.0, 0.5), (4.0, 2.0), (2.5, 0.2)]:
            assert th.evaluate("lhs", dps=50, epsilon=e, mu=m) == pytest.approx(th.evaluate(dps=50, epsilon=e, mu=m), abs=1e-40)


def test_delta_increases_in_mu_with_derivative_phi():
    th = get("bu2020.delta_increasing_in_mu", with_evidence=False)
    dd = sp.diff(gdp.DELTA_GDP, mu)
    phi = sp.exp(-(eps / mu - mu / 2) ** 2 / 2) / sp.sqrt(2 * sp.pi)
    for e, m in [(0.5, 0.3), (1.0, 1.0), (5.0, 2.0), (0.1, 4.0)]:
        assert float(dd.subs({eps: e, mu: m}).evalf(30)) == pytest.approx(float(phi.subs({eps: e, mu: m}).evalf(30)), rel=1e-20)
        assert th.evaluate("lhs", epsilon=e, mu=m, h=0.01) < th.evaluate(epsilon=e, mu=m, h=0.01)


def test_eps_and_mu_inversions_roundtrip():
    target = mpmath.mpf("1e-6")
    for m in (0.2, 1.0, 3.0):
        with mpmath.workdps(30):
            e = gdp.eps_from_delta_gdp(m, target)
            assert _mp_delta(e, m) <= target  # the safe side, at the working precision
            assert _mp_delta(e * (1 - mpmath.mpf(10) ** -20), m) > target  # and tight
            m2 = gdp.mu_from_eps_delta_gdp(e, target)
            assert float(m2) == pytest.approx(m, rel=1e-20)
            assert _mp_delta(e, m2) <= target
    assert gdp.eps_from_delta_gdp(0.01, 0.5) == 0  # delta(0; 0.01) < 0.5 already


# ----------------------------------------------------------------- subsampling (Section 2.2, Appendix A)


@pytest.mark.parametrize("m,pp", [(1.0, 0.1), (2.0, 0.5), (0.5, 0.9)])
def test_prop_a1_equals_exact_tradeoff_of_subsampled_gaussian(m, pp):
    """T(N(0,1), (1-p)N(0,1) + pN(mu,1)) by an NP test with mpmath quadrature equals p G_mu + (1-p) Id."""
    th = get("bu2020.prop_a1", with_evidence=False)
    with mpmath.workdps(25):
        for a in (0.01, 0.2, 0.6):
            t = mpmath.findroot(lambda x: mpmath.ncdf(-x) - a, 0)  # LR of the mixture is increasing in x
            typ2 = mpmath.quad(lambda x: (1 - pp) * mpmath.npdf(x) + pp * mpmath.npdf(x, m, 1), [-mpmath.inf, t])
            assert float(th.evaluate(mu=m, p=pp, alpha=a)) == pytest.approx(float(typ2), rel=1e-10)


def _hull_of_min(curves, xs):
    return gdp.convex_minorant(xs, np.min(np.vstack(curves), axis=0))


@pytest.mark.parametrize("seed", range(6))
def test_lemma_a2_on_random_discrete_mixtures(seed):
    """Lemma A.2 with random discrete P_i, Q_i; f = convex minorant of min_i T(P_i, Q_i)."""
    rng = np.random.default_rng(seed)
    k, n = 3, 6
    Ps = rng.dirichlet(np.ones(n), size=k)
    Qs = rng.dirichlet(np.ones(n), size=k)
    th_w = rng.dirichlet(np.ones(k))
    pp = rng.uniform(0.05, 0.95)
    xs = np.linspace(0, 1, 2001)
    f = _hull_of_min([_np_tradeoff(Ps[i], Qs[i], xs) for i in range(k)], xs)
    P = th_w @ Ps
    Q = (1 - pp) * P + pp * (th_w @ Qs)
    lhs = _np_tradeoff(P, Q, xs)
    rhs = pp * f + (1 - pp) * (1 - xs)
    assert np.all(lhs >= rhs - 1e-9)
    # negative control: the same check with p understated (p/3) fails, so this test can fail
    q3 = pp / 3
    assert np.any(lhs < q3 * f + (1 - q3) * (1 - xs) - 1e-6)
    assert np.all(lhs <= 1 - xs + 1e-12)


def _drs_cp_gdp(m, pp, a):
    """Dong-Roth-Su piecewise form of C_p(G_mu): f_p on [0, x*], chord of slope -1, f_p^{-1}; x* = Phi(-mu/2)."""
    fp = lambda x: pp * gdp.gdp_tradeoff_numeric(m, x) + (1 - pp) * (1 - np.asarray(x))  # noqa: E731
    xstar = special.ndtr(-m / 2)
    y = float(fp(xstar))
    a = np.asarray(a, float)
    out = np.where(a <= xstar, fp(np.clip(a, 0, 1)), xstar + y - a)
    inv = gdp.inverse_tradeoff(fp, np.clip(a, 0, 1))
    return np.where(a >= y, inv, out)


@pytest.mark.parametrize("m,pp", [(1.0, 0.1), (3.0, 0.3), (0.5, 0.8), (2.0, 1.0)])
def test_subsampled_gdp_hull_matches_piecewise_form(m, pp):
    a = np.linspace(0, 1, 401)
    num = gdp.subsampled_gdp_tradeoff(m, pp, a)
    np.testing.assert_allclose(num, _drs_cp_gdp(m, pp, a), atol=2e-5)
    g = gdp.gdp_tradeoff_numeric(m, a)
    assert np.all(num >= g - 2e-5)  # 'larger than f'
    fp = pp * g + (1 - pp) * (1 - a)
    assert np.all(num <= fp + 2e-5)  # a minorant of min{f_p, f_p^-1}


@pytest.mark.parametrize("e,d,pp", [(1.0, 0.0, 0.2), (2.0, 1e-3, 0.5), (0.5, 0.05, 0.9), (3.0, 0.0, 0.01)])
def test_subsampling_vs_li2012(e, d, pp):
    """C_p(f_{eps,delta}) (numerical hull) equals the entry's closed form rhs, which beats Li et al. (lhs)."""
    th = get("bu2020.subsampling_vs_li2012", with_evidence=False)
    f_r = sp.lambdify([alpha], th.rhs.subs({eps: e, delta: d, p: pp}), "numpy")
    f_l = sp.lambdify([alpha], th.lhs.subs({eps: e, delta: d, p: pp}), "numpy")
    a = np.linspace(0, 1, 501)
    num = gdp.subsampled_tradeoff_numeric(lambda x: gdp.f_eps_delta_numeric(e, d, x), pp, a, grid=200001)
    # grid hull: within (slope jump) x (grid step) of the exact hull, and never below it
    np.testing.assert_allclose(num, f_r(a), atol=2e-5)
    assert np.all(num >= f_r(a) - 1e-12)
    assert np.all(f_l(a) <= f_r(a) + 1e-12)
    a1 = (1 - d) / (1 + math.exp(e))
    fp_a1 = pp * a1 + (1 - pp) * (1 - a1)
    mid = (a1 + fp_a1) / 2
    assert f_r(mid) > f_l(mid) + 1e-6  # strictly better somewhere


# ----------------------------------------------------------------- composition


@pytest.mark.parametrize("m1,m2", [(0.5, 1.0), (1.0, 1.0), (0.3, 2.0)])
def test_gdp_composition_by_2d_quadrature(m1, m2):
    """Profile of (N(0,1)^2 vs N(mu1,1) x N(mu2,1)) on a 2-D grid equals (3.2) at sqrt(mu1^2 + mu2^2)."""
    th = get("bu2020.gdp_composition", with_evidence=False)
    mc = float(th.evaluate(mu_1=m1, mu_2=m2))
    x = np.linspace(-9, 9 + max(m1, m2), 1601)
    X, Y = np.meshgrid(x, x, indexing="ij")
    dx = x[1] - x[0]
    log_p = -(X**2 + Y**2) / 2
    log_q = -((X - m1) ** 2 + (Y - m2) ** 2) / 2
    for e in (0.0, 0.5, 1.5):
        dens = np.maximum(np.exp(log_q) - np.exp(e + log_p), 0.0) / (2 * np.pi)
        prof = float(dens.sum() * dx * dx)
        assert prof == pytest.approx(float(_mp_delta(e, mc)), abs=2e-5)  # Riemann sum across the kink
        # and NOT the profile of mu1 + mu2 (the test can fail)
        assert abs(prof - float(_mp_delta(e, m1 + m2))) > 1e-3


def test_gdp_composition_T_is_iterated_pairwise():
    two = get("bu2020.gdp_composition", with_evidence=False).rhs
    m1, m2 = gdp.mu1, gdp.mu2
    three = two.subs({m1: two.subs({m1: mu, m2: mu}), m2: mu})
    assert sp.simplify(three - get("bu2020.gdp_composition_T", with_evidence=False).rhs.subs(T, 3)) == 0


# ----------------------------------------------------------------- CLT and printed values


def test_clt_mu_numeric_matches_sympy():
    th = get("bu2020.clt_mu", with_evidence=False)
    for pp, t, s in [(0.01, 1000, 1.0), (P_MNIST, 14062.5, 1.1), (1e-4, 1e6, 20.0), (1.0, 1, 0.5)]:
        assert float(gdp.clt_mu_numeric(pp, t, s)) == pytest.approx(float(th.evaluate(p=pp, T=t, sigma=s)), rel=1e-13)


def test_clt_mu_epochs_identity():
    th = get("bu2020.clt_mu_epochs", with_evidence=False)
    assert sp.simplify(th.lhs - th.rhs) == 0


@pytest.mark.parametrize(
    "s,epochs,mu_printed",
    [
        (1.1, 60, 0.57),  # Appendix A: second line of Table 1, sigma = 1.1, mu = 0.57, 60 epochs
        (1.06, 20, 0.35),  # Figure 4 caption: sigma_tilde = 1.06, epoch 20, mu_CLT = 0.35
        (0.638, 70, 1.78),  # Figure 4 caption: sigma_tilde = 0.638, epoch 70, mu_CLT = 1.78
        (0.7, 45, 1.13),  # Table 1 row 3 (TensorFlow Privacy setting sigma = 0.7, 45 epochs): 1.13-GDP
    ],
)
def test_printed_mu_clt(s, epochs, mu_printed):
    assert round(float(_clt_mu(P_MNIST, epochs, s)), 2) == mu_printed
    th = get("bu2020.clt_mu", with_evidence=False)
    assert float(th.evaluate(p=P_MNIST, T=epochs / P_MNIST, sigma=s)) == pytest.approx(float(_clt_mu(P_MNIST, epochs, s)), rel=1e-20)


def test_printed_eps_for_mu_113():
    """Section 4.1: 1.13-GDP <-> eps = 5.07 at delta = 1e-5 (CLT), vs 7.10 (moments accountant)."""
    mu_exact = _clt_mu(P_MNIST, 45, 0.7)  # 1.1339...
    assert round(float(gdp.eps_from_delta_gdp(float(mu_exact), 1e-5)), 2) == 5.07
    # at the rounded mu = 1.13 the inversion of (3.2) gives 5.05: the printed 5.07 used the unrounded mu
    assert round(float(gdp.eps_from_delta_gdp(1.13, 1e-5)), 2) == 5.05
    # the encoded claims hold at the printed numbers
    assert get("bu2020.mnist_mu113_clt_eps", with_evidence=False).evaluate("lhs") <= 1e-5
    assert get("bu2020.mnist_mu113_clt_vs_ma", with_evidence=False).evaluate("lhs") < 1e-5
    # 'e^{7.10} = 1212.0 or e^{5.07} = 159.1'
    assert round(math.exp(7.10), 1) == 1212.0
    assert abs(math.exp(5.07) - 159.1) < 0.1 and round(math.exp(5.07), 1) == 159.2


def test_printed_eps_figure4():
    """Figure 4: (1.34, 1e-5) at mu_CLT(1.06, 20 epochs); (8.68, 1e-5) claimed at sigma_tilde = 0.638, 70 epochs."""
    e_top = gdp.eps_from_delta_gdp(float(_clt_mu(P_MNIST, 20, 1.06)), 1e-5)
    assert round(float(e_top), 2) == 1.34
    e_bot = gdp.eps_from_delta_gdp(float(_clt_mu(P_MNIST, 70, 0.638)), 1e-5)
    assert round(float(e_bot), 2) == 8.70  # not 8.68: sigma_tilde was printed rounded
    s_needed = gdp.recalibrated_sigma_numeric(float(gdp.mu_from_eps_delta_gdp(8.68, 1e-5)), P_MNIST, 70 / P_MNIST)
    assert round(float(s_needed), 4) == 0.6384 and round(float(s_needed), 3) == 0.638  # printed, rounded
    # the printed-value entries evaluate to what the verifier will see
    top = get("bu2020.mnist_fig4_top", with_evidence=False).evaluate("lhs")
    bot = get("bu2020.mnist_fig4_bottom", with_evidence=False).evaluate("lhs")
    assert 1e-5 < top < 1.02e-5  # eps_CLT = 1.3412: over 1e-5 by a rounding margin only
    assert 1.04e-5 < bot < 1.05e-5  # eps_CLT = 8.697 at the printed sigma_tilde: delta(8.68) is 4% over


def _rdp_eps_integer_orders(q, s, steps, d, orders=range(2, 256)):
    """Integer-order RDP of the Poisson-subsampled Gaussian (Mironov, Talwar, Zhang 2019), old TF conversion."""
    best = math.inf
    for a in orders:
        k = np.arange(a + 1)
        lc = gammaln(a + 1) - gammaln(k + 1) - gammaln(a - k + 1)
        rdp = logsumexp(lc + (a - k) * np.log1p(-q) + k * np.log(q) + (k * k - k) / (2 * s * s)) / (a - 1)
        best = min(best, steps * rdp - math.log(d) / (a - 1))
    return best


def test_printed_min_error_sums():
    """Section 4.1: minimum type I + II error 77.6% (CLT, mu = 0.57) vs 9.4% (moments accountant)."""
    th = get("bu2020.min_error_sum_gdp", with_evidence=False)
    m = float(_clt_mu(P_MNIST, 60, 1.1))
    assert round(float(th.evaluate(mu=0.57)), 3) == 0.776
    assert round(float(th.evaluate(mu=m)), 3) == 0.774  # unrounded mu: 77.4%, the text used mu = 0.57
    assert gdp.min_error_sum(lambda x: gdp.gdp_tradeoff_numeric(0.57, x)) == pytest.approx(float(th.evaluate(mu=0.57)), abs=1e-8)
    e_ma = _rdp_eps_integer_orders(P_MNIST, 1.1, 60 / P_MNIST, 1e-5)
    assert round(e_ma, 2) == 3.01
    fe = lambda x: gdp.f_eps_delta_numeric(e_ma, 1e-5, x)  # noqa: E731
    assert round(gdp.min_error_sum(fe), 3) == 0.094
    # CLT eps at the same setting is smaller (Thm 2 direction)
    assert float(gdp.eps_from_delta_gdp(m, 1e-5)) < e_ma


def _pld_profile_subsampled_gaussian(s, steps, pp, es, h=2e-4):
    """Exact delta(eps) of T-fold Poisson-subsampled Gaussian (pair Q = (1-p)N(0,s^2) + pN(1,s^2) vs
    P = N(0,s^2)) by FFT of the privacy-loss distribution discretised to a grid of width h."""
    x = np.linspace(-12 * s, 1 + 12 * s, 400001)
    dxs = x[1] - x[0]
    L = np.log1p(pp * np.expm1((2 * x - 1) / (2 * s * s)))  # log dQ/dP
    qd = ((1 - pp) * np.exp(-x**2 / (2 * s * s)) + pp * np.exp(-((x - 1) ** 2) / (2 * s * s))) / (s * math.sqrt(2 * math.pi))
    lo = -1.0
    nb = int(np.ceil((L.max() - lo) / h)) + 1
    pmf = np.bincount(np.clip(np.round((L - lo) / h).astype(int), 0, nb - 1), weights=qd * dxs, minlength=nb)
    size = 1 << int(np.ceil(np.log2(nb * steps)))
    comp = np.clip(np.fft.irfft(np.fft.rfft(pmf, size) ** steps, size)[: nb * steps], 0, None)
    grid = steps * lo + h * np.arange(comp.size)
    return [float(np.sum(comp * -np.expm1(np.minimum(e - grid, 0)))) for e in es]


def test_clt_close_to_exact_but_not_an_upper_bound_figure_a1():
    """Figure A.1 (sigma = 1.1, one epoch T = 234, p sqrt(T) fixed so mu = 0.57).

    The exact composed profile is close to delta(eps; mu_CLT) in absolute terms ('almost identical'
    trade-off curves), but the CLT delta is SMALLER than the exact one at eps = 1, 2: the CLT is an
    approximation, not a privacy guarantee.
    """
    s, steps, m = 1.1, 234, 0.57
    pp = m / math.sqrt(steps * math.expm1(1 / s**2))
    # the PLD method itself, one step, against quadrature of sup_S Q(S) - e^eps P(S)
    one = _pld_profile_subsampled_gaussian(s, 1, 0.3, [0.3])[0]
    f = lambda x: max(0, 0.7 * mpmath.npdf(x, 0, s) + 0.3 * mpmath.npdf(x, 1, s) - mpmath.exp(0.3) * mpmath.npdf(x, 0, s))  # noqa: E731
    assert one == pytest.approx(float(mpmath.quad(f, [-20, 0, 1, 2, 20])), abs=2e-6)
    exact = _pld_profile_subsampled_gaussian(s, steps, pp, [0.5, 1.0, 2.0])
    clt = [float(_mp_delta(e, m)) for e in (0.5, 1.0, 2.0)]
    for ex, c in zip(exact, clt):
        assert abs(ex - c) < 5e-3
    assert clt[1] < 0.9 * exact[1] and clt[2] < 0.5 * exact[2]  # exact ~ 3.4e-4 vs CLT ~ 8.4e-5 at eps = 2


# ----------------------------------------------------------------- expansions


def test_clt_mu_large_sigma_expansion():
    th = get("bu2020.clt_mu_large_sigma", with_evidence=False)
    ok, _ = check_expansion(th)
    assert ok
    # the next coefficient in the notes: p sqrt(T) / (4 sigma^3)
    lim = ratio_limit(th.lhs - th.rhs, sigma**-3, sigma, sp.oo)
    assert sp.simplify(lim - p * sp.sqrt(T) / 4) == 0
    # a wrong leading term is rejected (the check can fail)
    bad = th.__class__(**{**th.__dict__, "rhs": 2 * p * sp.sqrt(T) / sigma})
    assert not check_expansion(bad)[0]


def test_uniform_mu_large_sigma_expansion():
    th = get("bu2020.uniform_mu_large_sigma", with_evidence=False)
    ok, _ = check_expansion(th)
    assert ok
    lim = ratio_limit(th.lhs - th.rhs, sigma**-2, sigma, sp.oo)
    assert sp.simplify(lim - p * sp.sqrt(T) / sp.sqrt(2 * sp.pi)) == 0
    # numeric: the uniform mu from the authors' code against an mpmath evaluation
    u = get("bu2020.uniform_mu", with_evidence=False)
    with mpmath.workdps(30):
        pp, t, s = 0.01, 1000, 2.0
        ref = mpmath.sqrt(2) * pp * mpmath.sqrt(t) * mpmath.sqrt(
            mpmath.exp(1 / mpmath.mpf(s) ** 2) * mpmath.ncdf(1.5 / mpmath.mpf(s)) + 3 * mpmath.ncdf(-0.5 / mpmath.mpf(s)) - 2
        )
        assert u.evaluate(p=pp, T=t, sigma=s) == pytest.approx(ref, rel=1e-25)


def test_clt_mu_at_p_one_exceeds_exact_full_batch_mu():
    """(3.1) at p = 1 is sqrt(T (e^{1/s^2} - 1)) >= sqrt(T)/s, the exact GDP of full-batch NoisySGD."""
    clt = get("bu2020.clt_mu", with_evidence=False).rhs.subs(p, 1)
    exact = get("bu2020.gdp_composition_T", with_evidence=False).rhs.subs(mu, 1 / sigma)
    for s in (0.5, 1.0, 3.0):
        assert float((clt - exact).subs({T: 100, sigma: s})) > 0


# ----------------------------------------------------------------- recalibration


def test_recalibrated_sigma_inverts_3_4():
    mu_t = get("bu2020.recalibrated_mu", with_evidence=False).rhs
    s_t = get("bu2020.recalibrated_sigma", with_evidence=False).rhs
    back = mu_t.subs(gdp.sigma_tilde, s_t)
    assert sp.simplify(back - gdp.mu_tilde) == 0
    for m, pp, t in [(0.35, P_MNIST, 20 / P_MNIST), (2.0, 0.01, 1e4)]:
        s = float(gdp.recalibrated_sigma_numeric(m, pp, t))
        assert float(gdp.clt_mu_numeric(pp, t, s)) == pytest.approx(m, rel=1e-12)


def test_recalibration_reduces_noise():
    """(3.3)-(3.4): mu_tilde > mu_CLT gives sigma_tilde < sigma (Figure 1)."""
    pp, t, s = P_MNIST, 20 / P_MNIST, 1.3
    m = float(gdp.clt_mu_numeric(pp, t, s))
    delta_ma = float(_mp_delta(1.34, 0.35))  # a delta_MA larger than delta_CLT(1.34)
    m_t = float(gdp.mu_from_eps_delta_gdp(1.34, delta_ma))
    assert m_t > m
    assert float(gdp.recalibrated_sigma_numeric(m_t, pp, t)) < s
    match = get("bu2020.recalibration_match", with_evidence=False)
    assert float(match.evaluate(epsilon=1.34, mutilde=m_t)) == pytest.approx(delta_ma, rel=1e-12)


# ----------------------------------------------------------------- input validation


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: gdp.gdp_tradeoff_numeric(1.0, 1.5), "alpha"),
        (lambda: gdp.gdp_delta_numeric(-1.0, 1.0), "eps"),
        (lambda: gdp.gdp_delta_numeric(1.0, 0.0), "mu"),
        (lambda: gdp.eps_from_delta_gdp(1.0, 0.0), "delta"),
        (lambda: gdp.clt_mu_numeric(0.0, 10, 1.0), "p"),
        (lambda: gdp.clt_mu_numeric(0.1, 10, 0.0), "sigma"),
        (lambda: gdp.subsample_tradeoff(lambda a: 1 - a, 1.5), "p"),
        (lambda: gdp.recalibrated_sigma_numeric(1.0, 0.1, 0), "T"),
    ],
)
def test_bad_input_names_parameter(call, name):
    with pytest.raises(InvalidParameterError, match=name):
        call()


def test_phi_helper_shape_and_value():
    x = sp.Symbol("x", real=True)
    assert gdp.Phi(x) == sp.erfc(-x / sp.sqrt(2), evaluate=False) / 2
    assert float(gdp.Phi(sp.Float(-1.5)).evalf(30)) == pytest.approx(float(mpmath.ncdf(-1.5)), rel=1e-15)
    assert float(gdp.Phi_inv(sp.Float(0.975)).evalf(30)) == pytest.approx(1.959963984540054, rel=1e-14)
