"""Wang, Lei, Fienberg 2016 (seed 004): the ``wang2016.*`` entries of symdp.library.kl_privacy.

Oracles: Monte Carlo of the Section 6 examples with confidence intervals (independent of the closed
forms), scipy's truncated normal, numerical mutual information (quadrature), a numerical solution of
the max-entropy program on a finite hypothesis space, and SymPy's own Integral evaluation.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import integrate, optimize, special, stats

from symdp.library import all_theorems, get
from symdp.library import kl_privacy as kp
from symdp.theorem import Kind

Z_CI = 4.5  # half-width of the Monte Carlo acceptance band, in standard errors

EXPECTED_IDS = {
    "wang2016.def_dp", "wang2016.def_on_average_kl_privacy", "wang2016.def_on_average_generalization",
    "wang2016.thm4_equivalence", "wang2016.remark1_structural_loss", "wang2016.remark2_dispersion",
    "wang2016.remark3_dp_of_bounded_loss", "wang2016.lemma5_post_processing", "wang2016.lemma6_group_privacy",
    "wang2016.lemma7_adaptive_composition", "wang2016.thm9_max_entropy", "wang2016.def10_max_information",
    "wang2016.lemma11_max_information_to_okl", "wang2016.cor12_max_information_generalization",
    "wang2016.def13_mutual_information", "wang2016.lemma14_mi_identity", "wang2016.lemma14_mi_le_kl",
    "wang2016.cor15_lower", "wang2016.cor15_upper_subgaussian", "wang2016.cor15_upper_subexponential",
    "wang2016.cor15_mi_cap", "wang2016.example_laplace_mean_dp", "wang2016.example_laplace_mean_data_variance",
    "wang2016.example_laplace_mean_okl", "wang2016.example_laplace_mean_gen", "wang2016.example_linreg_dp",
    "wang2016.example_linreg_gen", "wang2016.example_linreg_okl",
}

WANG = [t for t in all_theorems(with_evidence=False) if t.id.startswith("wang2016.")]


def test_coverage_and_provenance():
    assert {t.id for t in WANG} == EXPECTED_IDS
    for t in WANG:
        assert t.source.paper == "wang2016" and t.source.file == "004_a3b6829b52f5b5b4.txt"
        assert t.quantity, t.id
        assert t.formula_available
    assert get("wang2016.thm4_equivalence").kind is Kind.EQUIVALENCE


def _corners_and_mid(th):
    box = th.domain_dict()
    missing = [s for s in th.bound_symbols if s not in box]
    assert not missing, f"{th.id}: no domain for {missing}"
    syms = sorted(box, key=lambda s: s.name)
    axes = []
    for s in syms:
        lo, hi = (float(v) for v in box[s])
        mid = math.sqrt(lo * hi) if lo > 0 and hi / lo > 100 else (lo + hi) / 2
        pts = [lo, mid, hi]
        axes.append([round(v) if s.is_integer else v for v in pts])
    combos = list(itertools.product(*axes))
    if len(combos) > 24:  # all-low, all-mid, all-high, plus a fixed random sample of the rest
        pick = np.random.default_rng(0).choice(len(combos), 21, replace=False)
        combos = [tuple(a[0] for a in axes), tuple(a[1] for a in axes), tuple(a[2] for a in axes)] + [
            combos[i] for i in pick]
    for combo in combos:
        yield {s.name: v for s, v in zip(syms, combo)}


@pytest.mark.parametrize("th", [t for t in WANG if t.rhs is not None], ids=lambda t: t.id)
def test_every_entry_finite_on_its_domain_grid(th):
    for point in _corners_and_mid(th):
        if not th.holds_hypotheses(**dict(point.items())):
            continue
        v = th.evaluate(**point)
        assert mpmath.isfinite(v) and mpmath.im(v) == 0, (th.id, point, v)


# ------------------------------------------------------------------ the Laplace mean example
@pytest.mark.parametrize("gamma,s", [(1.0, 0.5), (10.0, 0.0880), (0.3, 1.0), (50.0, 0.02)])
def test_laplace_mean_closed_forms_match_monte_carlo(gamma, s):
    okl = float(get("wang2016.example_laplace_mean_okl").evaluate(gamma=gamma, s_Z=s))
    gen = float(get("wang2016.example_laplace_mean_gen").evaluate(gamma=gamma, s_Z=s))
    mc = kp.laplace_mean_mc(gamma=gamma, s_Z=s, n_mc=200_000, seed=1)
    assert abs(mc["okl"][0] - okl) < Z_CI * mc["okl"][1]
    assert abs(mc["gen"][0] - gen) < Z_CI * mc["gen"][1]
    # Thm 4 / Remark 2: OAKL of the sampler = gamma x generalization of the unscaled loss
    assert math.isclose(okl, gamma * gen, rel_tol=1e-12)


def test_laplace_mean_paper_setup_truncated_normal_mean():
    """The paper's data point (mean of 100 N(0,1) truncated to [-2, 2]): closed form = CLT approximation."""
    var = float(get("wang2016.example_laplace_mean_data_variance").evaluate(m_avg=100))
    assert math.isclose(var, stats.truncnorm.var(-2, 2) / 100, rel_tol=1e-12)
    gamma = 3.0
    okl = float(get("wang2016.example_laplace_mean_okl").evaluate(gamma=gamma, s_Z=math.sqrt(var)))
    mc = kp.laplace_mean_mc(gamma=gamma, data="truncnorm_mean", m=100, n_mc=50_000, seed=2)
    # the sampler really draws from the truncated normal (mean 0, the variance above)
    draws = kp._truncnorm_pm2(np.random.default_rng(0), 400_000)
    assert np.abs(draws).max() <= 2 and abs(draws.var() - 100 * var) < 0.01
    assert abs(mc["okl"][0] - okl) < Z_CI * mc["okl"][1] + 0.01 * okl
    assert abs(mc["gen"][0] - okl / gamma) < Z_CI * mc["gen"][1] + 0.01 * okl / gamma
    # every data point lies in [-2, 2], so the Laplace sampler is 4 gamma-DP: check the claim's value
    assert float(get("wang2016.example_laplace_mean_dp").evaluate(gamma=gamma)) == 4 * gamma


def test_laplace_mean_monte_carlo_detects_a_wrong_formula():
    """The oracle has power: a closed form off by 5% is rejected at this sample size."""
    mc = kp.laplace_mean_mc(gamma=1.0, s_Z=0.5, n_mc=200_000, seed=3)
    okl = float(get("wang2016.example_laplace_mean_okl").evaluate(gamma=1.0, s_Z=0.5))
    assert abs(mc["okl"][0] - 1.05 * okl) > Z_CI * mc["okl"][1]


def _laplace_gauss_mutual_information(gamma: float, s: float) -> float:
    """I(h; Z) for h = Z + Laplace(1/gamma), Z ~ N(0, s^2), by quadrature: h(h) - h(h | Z)."""

    def logp(x):
        a = math.log(gamma / 2) + gamma**2 * s**2 / 2
        t1 = a - gamma * x + special.log_ndtr((x - gamma * s**2) / s)
        t2 = a + gamma * x + special.log_ndtr(-(x + gamma * s**2) / s)
        return np.logaddexp(t1, t2)

    # the closed-form density agrees with a direct convolution at a point
    x0 = 0.37
    conv = integrate.quad(lambda z: stats.norm.pdf(z, 0, s) * gamma / 2 * math.exp(-gamma * abs(x0 - z)),
                          -14 * s, 14 * s, points=[x0], epsabs=0, epsrel=1e-11, limit=200)[0]
    assert math.isclose(math.exp(logp(x0)), conv, rel_tol=1e-7)
    width = 12 * s + 40 / gamma
    h_out = integrate.quad(lambda x: -math.exp(logp(x)) * logp(x), -width, width, points=[0.0], limit=400)[0]
    return h_out - (1 + math.log(2 / gamma))


@pytest.mark.parametrize("gamma,s", [(1.0, 0.5), (5.0, 0.3), (0.5, 1.0)])
def test_lemma14_and_cor15_on_the_laplace_example(gamma, s):
    mi = _laplace_gauss_mutual_information(gamma, s)
    assert mi > 0
    okl = float(get("wang2016.example_laplace_mean_okl").evaluate(gamma=gamma, s_Z=s))
    gen = okl / gamma  # |E[L(h, Z) - R(h)]| for the unscaled loss |Z - h|
    # Lemma 14: I <= E_{Z,Z'} D_KL(A(Z) || A(Z'))  (= OAKL for n = 1)
    assert mi <= float(get("wang2016.lemma14_mi_le_kl").evaluate(KL_ind=okl))
    # Cor 15 lower bound: I / gamma <= |gen|
    assert gen >= float(get("wang2016.cor15_lower").evaluate(I_mi=mi, gamma=gamma))
    # |Z - h| - E|Z' - h| is s^2-subgaussian (1-Lipschitz in Gaussian Z): Cor 15 upper bound and its cap
    assert gen <= float(get("wang2016.cor15_upper_subgaussian").evaluate(I_mi=mi, sigma_sg=s))
    assert mi <= float(get("wang2016.cor15_mi_cap").evaluate(gamma=gamma, sigma_sg=s))


# ------------------------------------------------------------------ the 1-D regression example
@pytest.mark.slow
def test_inv_sum_sq_fast_evalf_matches_sympy_integral():
    """SymPy's own (slow) evaluation of the Integral rewrite vs the fast evalf, to 25 digits."""
    J = kp.InvSumSqUniform
    for nv in (3, 10):
        assert abs(sp.N(J(nv), 30) - sp.N(J(nv).rewrite(sp.Integral), 30)) < sp.Float("1e-25")


def test_inv_sum_sq_three_evaluators_agree():
    J = kp.InvSumSqUniform
    assert J(kp.n).rewrite(sp.Integral).has(sp.erf)
    for nv in (3, 5, 10, 57, 400):
        fast = float(sp.N(J(nv), 20))
        assert math.isclose(fast, kp.inv_sum_sq_uniform(nv), rel_tol=1e-9)
        assert fast > 3 / nv  # Jensen: E[1/S] > 1/E[S] = 3/n
    assert J(1) is sp.oo and J(2) is sp.oo and kp.inv_sum_sq_uniform(2) == math.inf
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (200_000, 10))
    inv = 1 / np.einsum("ij,ij->i", x, x)
    assert abs(inv.mean() - float(sp.N(J(10)))) < Z_CI * inv.std() / math.sqrt(inv.size)


@pytest.mark.parametrize("gamma,n", [(1.0, 10), (20.0, 12), (0.1, 25)])
def test_linreg_closed_forms_match_monte_carlo(gamma, n):
    gen = float(get("wang2016.example_linreg_gen").evaluate(gamma=gamma, n=n))
    okl = float(get("wang2016.example_linreg_okl").evaluate(gamma=gamma, n=n))
    mc = kp.linreg_mc(gamma=gamma, n=n, n_mc=200_000, seed=5)
    assert abs(mc["gen"][0] - gen) < Z_CI * mc["gen"][1]
    assert abs(mc["okl"][0] - okl) < Z_CI * mc["okl"][1]
    assert math.isclose(okl, gamma * gen, rel_tol=1e-12)  # Thm 4 on the scaled loss


def test_lemma6_group_privacy_on_linreg():
    th = get("wang2016.lemma6_group_privacy")
    okl1 = float(get("wang2016.example_linreg_okl").evaluate(gamma=2.0, n=12))
    for k in (2, 5):
        mc = kp.linreg_mc(gamma=2.0, n=12, k=k, n_mc=200_000, seed=7)
        claimed = float(th.evaluate(k=k, epsilon_okl=okl1))
        assert abs(mc["okl"][0] - claimed) < Z_CI * mc["okl"][1]


def test_linreg_gamma_free_part_identity():
    """(1/2) E[S'/S - 1 - ln(S'/S)] = E[1/S]/6 - 1/(2n): the constant term of the OAKL closed form."""
    n = 15
    rng = np.random.default_rng(11)
    x = rng.uniform(-1, 1, (400_000, n))
    S = np.einsum("ij,ij->i", x, x)
    S2 = S - x[:, 0] ** 2 + rng.uniform(-1, 1, x.shape[0]) ** 2
    r = S2 / S
    vals = 0.5 * (r - 1 - np.log(r))
    const = float(sp.N(get("wang2016.example_linreg_okl").rhs.subs({kp.gamma: 0, kp.n: n})))
    assert abs(vals.mean() - const) < Z_CI * vals.std() / math.sqrt(vals.size)


def test_linreg_is_infinite_below_three_points():
    assert get("wang2016.example_linreg_gen").rhs.subs({kp.n: 2, kp.gamma: 1}) is sp.oo
    assert not get("wang2016.example_linreg_okl").holds_hypotheses(gamma=1, n=2)


def test_linreg_64_gamma_dp_claim_against_brute_force():
    """sup log-density ratio of the Gibbs sampler on H = [-2, 2] over a grid of neighbouring data <= 64 gamma."""
    gamma = 0.7
    hs = np.linspace(-2, 2, 401)
    grid = np.linspace(-1, 1, 5)
    base_x = np.array([0.3, -0.8, 0.5])
    base_y = np.array([0.1, 1.2, -1.5])
    worst = 0.0
    for x1, y1, x2, y2 in itertools.product(grid, 2 * grid, grid, 2 * grid):
        def logdens(x0, y0):
            e = -gamma * ((base_y[:, None] - base_x[:, None] * hs) ** 2).sum(0) - gamma * (y0 - x0 * hs) ** 2
            return e - special.logsumexp(e) - math.log(hs[1] - hs[0])
        worst = max(worst, float(np.max(logdens(x1, y1) - logdens(x2, y2))))
    bound = float(get("wang2016.example_linreg_dp").evaluate(gamma=gamma))
    assert 0 < worst <= bound
    assert worst > bound / 4  # the brute force is not trivially small


# ------------------------------------------------------------------ Thm 9 (max entropy)
def test_thm9_gibbs_solves_the_max_entropy_program_on_a_finite_space():
    rng = np.random.default_rng(4)
    L = rng.uniform(0, 3, 6)  # sum_i l_i(h, z_i) for six hypotheses h
    gamma = 1.7

    def objective(logits):
        p = special.softmax(logits)
        return -(1 / gamma) * special.entr(p).sum() + p @ L

    res = optimize.minimize(objective, np.zeros(6), method="BFGS", options={"gtol": 1e-12})
    p_num = special.softmax(res.x)
    K = float(np.exp(-gamma * L).sum())
    th = get("wang2016.thm9_max_entropy")
    p_claim = np.array([float(th.evaluate(gamma=gamma, L_sum=l, K_part=K)) for l in L])
    assert np.allclose(p_claim, p_num, atol=1e-6)
    assert math.isclose(p_claim.sum(), 1.0, rel_tol=1e-12)


# ------------------------------------------------------------------ symbolic relations between entries
def test_symbolic_relations():
    g = kp.gamma
    laplace_okl = get("wang2016.example_laplace_mean_okl").rhs
    assert sp.simplify(get("wang2016.example_laplace_mean_gen").rhs * g - laplace_okl) == 0
    assert sp.simplify(get("wang2016.example_linreg_okl").rhs - g * get("wang2016.example_linreg_gen").rhs) == 0
    # small-gamma behaviour of the Laplace OAKL: gamma^2 s^2 + O(gamma^3)
    ser = sp.series(laplace_okl, g, 0, 3).removeO()
    assert sp.simplify(ser - g**2 * kp.s_Z**2) == 0
    # Cor 15 lower and upper bounds imply the cap I <= 2 gamma^2 sigma^2 (equality at the crossing point)
    I = kp.I_mi
    cross = sp.solve(sp.Eq(I / g, kp.sigma_sg * sp.sqrt(2 * I)), I)
    assert get("wang2016.cor15_mi_cap").rhs in cross
    assert sp.simplify(get("wang2016.remark3_dp_of_bounded_loss").rhs.subs(kp.B, 16)
                       - get("wang2016.example_linreg_dp").rhs) == 0


def test_mc_input_validation():
    from symdp.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="gamma"):
        kp.laplace_mean_mc(gamma=-1.0, s_Z=1.0)
    with pytest.raises(InvalidParameterError, match="k"):
        kp.linreg_mc(gamma=1.0, n=5, k=6)
    with pytest.raises(ValueError, match="data"):
        kp.laplace_mean_mc(gamma=1.0, data="bogus")
