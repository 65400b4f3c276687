"""Lampert-Zakerinia 2026 (seed 002) and the results it builds on: symdp.library.max_information.

Oracles: values computed by hand with mpmath, exact max-information of randomized response,
an independent mpmath bisection for kl^{-1}, the safe direction of kl^{-1}, numerical integration
of the Gaussian privacy loss (scipy), and Pinsker's inequality.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from symdp.errors import InvalidParameterError
from symdp.library import all_theorems, get
from symdp.library import max_information as mi

OWN = ("dwork2015.", "pacbayes.", "balle2018.", "lampert2026.")
ENTRIES = [t for t in all_theorems(with_evidence=False) if t.id.startswith(OWN)]


def test_coverage():
    ids = {t.id for t in ENTRIES}
    assert {
        "dwork2015.def_max_information", "dwork2015.thm13_max_information_transfer", "dwork2015.thm19_pure_dp",
        "dwork2015.thm20_pure_dp_iid", "pacbayes.kl_bernoulli", "pacbayes.kl_inverse", "pacbayes.seeger_maurer",
        "pacbayes.seeger_maurer_inverted", "pacbayes.pinsker", "pacbayes.data_dependent_prior",
        "pacbayes.data_dependent_prior_inverted", "balle2018.gaussian_profile",
        "lampert2026.thm1_max_information_dpsgd", "lampert2026.prop1_gaussian_mechanism",
        "lampert2026.thm2_pac_bayes_dpsgd_prior", "lampert2026.cor3_dpsgd_generalization",
    } <= ids
    assert "classical.gaussian_mechanism_calibration" not in ids  # owned elsewhere, not duplicated


def test_lampert_own_results_have_no_formula_but_keep_the_text():
    own = [t for t in ENTRIES if t.id.startswith("lampert2026.")]
    assert len(own) >= 4
    for t in own:
        assert not t.formula_available and t.rhs is None and t.statement() is None
        assert "lost" in t.unavailable_reason
        assert t.source.file == "002_249e4cff91a654b7.txt"
        assert "formula unavailable" in t.latex()
    thm1 = get("lampert2026.thm1_max_information_dpsgd")
    assert "linear in the dataset size" in thm1.notes and "fixed-size disjoint batches" in thm1.notes
    assert {s.name for s in thm1.premises[0].params} == {"C", "sigma", "E"}
    assert {s.name for s in thm1.symbols} >= {"beta"}


@pytest.mark.parametrize("th", [t for t in ENTRIES if t.rhs is not None], ids=lambda t: t.id)
def test_every_entry_finite_on_its_domain_grid(th):
    box = th.domain_dict()
    assert all(s in box for s in th.bound_symbols), th.id
    syms = sorted(box, key=lambda s: s.name)
    axes = []
    for s in syms:
        lo, hi = (float(v) for v in box[s])
        mid = math.sqrt(lo * hi) if lo > 0 and hi / lo > 100 else (lo + hi) / 2
        axes.append([round(v) if s.is_integer else v for v in (lo, mid, hi)])
    combos = list(itertools.product(*axes))
    if len(combos) > 24:  # all-low, all-mid, all-high, plus a fixed random sample of the rest
        pick = np.random.default_rng(0).choice(len(combos), 21, replace=False)
        combos = [tuple(a[0] for a in axes), tuple(a[1] for a in axes), tuple(a[2] for a in axes)] + [
            combos[i] for i in pick]
    checked = 0
    for combo in combos:
        point = {s.name: v for s, v in zip(syms, combo)}
        if not th.holds_hypotheses(**point):
            continue
        v = th.evaluate(**point)
        assert mpmath.isfinite(v) and mpmath.im(v) == 0, (th.id, point, v)
        checked += 1
    assert checked > 0


# ------------------------------------------------------------------ Dwork et al. 2015
def test_dwork_thm19_and_thm20_values_by_hand():
    with mpmath.workdps(40):
        e, nn, b = mpmath.mpf("0.1"), mpmath.mpf(1000), mpmath.mpf("0.05")
        thm19 = e * nn * mpmath.log(mpmath.e, 2)
        thm20 = mpmath.log(mpmath.e, 2) * (e**2 * nn / 2 + e * mpmath.sqrt(nn * mpmath.log(2 / b) / 2))
        got19 = get("dwork2015.thm19_pure_dp").evaluate(epsilon=sp.Rational(1, 10), n=1000, dps=40)
        got20 = get("dwork2015.thm20_pure_dp_iid").evaluate(
            epsilon=sp.Rational(1, 10), n=1000, beta=sp.Rational(1, 20), dps=40)
        assert abs(got19 - thm19) < mpmath.mpf(10) ** -35
        assert abs(got20 - thm20) < mpmath.mpf(10) ** -35
    assert math.isclose(float(got19), 144.26950408889634, rel_tol=1e-14)  # 100 / ln 2
    assert math.isclose(float(got20), 13.409409060798372, rel_tol=1e-14)  # (5 + 0.1 sqrt(500 ln 40)) / ln 2


def _rr_max_information_bits(eps: float, p1: float) -> float:
    """I_inf(X; Y) in bits for one randomized-response bit, P[X = 1] = p1: max log2 P(y|x)/P(y)."""
    keep = math.exp(eps) / (1 + math.exp(eps))
    best = -math.inf
    for y in (0, 1):
        py = p1 * (keep if y == 1 else 1 - keep) + (1 - p1) * (keep if y == 0 else 1 - keep)
        for x in (0, 1):
            pyx = keep if x == y else 1 - keep
            best = max(best, math.log2(pyx / py))
    return best


@pytest.mark.parametrize("eps", [0.05, 0.5, 2.0, 5.0])
def test_dwork_thm19_is_valid_and_tight_for_randomized_response(eps):
    """RR is eps-DP; over input distributions its max-information approaches eps log2(e) (n = 1)."""
    bound = float(get("dwork2015.thm19_pure_dp").evaluate(epsilon=eps, n=1))
    vals = [_rr_max_information_bits(eps, p1) for p1 in np.geomspace(1e-9, 0.5, 60)]
    assert max(vals) <= bound * (1 + 1e-12)
    assert max(vals) > 0.999 * bound  # tight: a base-e (nats) encoding would be refuted here
    # n independent RR bits, uniform inputs: n log2(2 e^eps/(1 + e^eps)) <= log2(e) eps n
    for n in (1, 10, 1000):
        exact = n * math.log2(2 * math.exp(eps) / (1 + math.exp(eps)))
        assert exact <= float(get("dwork2015.thm19_pure_dp").evaluate(epsilon=eps, n=n))


def test_dwork_thm13_on_every_event_of_a_discrete_joint():
    eps, p1 = 1.0, 0.2
    keep = math.exp(eps) / (1 + math.exp(eps))
    joint = {(x, y): (p1 if x else 1 - p1) * (keep if x == y else 1 - keep) for x in (0, 1) for y in (0, 1)}
    px = {x: sum(v for (a, _), v in joint.items() if a == x) for x in (0, 1)}
    py = {y: sum(v for (_, b), v in joint.items() if b == y) for y in (0, 1)}
    prod = {(x, y): px[x] * py[y] for x in (0, 1) for y in (0, 1)}
    k_bits = max(math.log2(joint[o] / prod[o]) for o in joint)  # I_inf (beta = 0), bits
    th = get("dwork2015.thm13_max_information_transfer")
    outcomes = list(joint)
    tight = 0.0
    for r in range(1, 5):
        for O in itertools.combinations(outcomes, r):
            pj, pp = sum(joint[o] for o in O), sum(prod[o] for o in O)
            rhs = float(th.evaluate(k=k_bits, P_Oprod=pp, beta=0))
            assert pj <= rhs * (1 + 1e-12)
            tight = max(tight, pj / rhs)
    assert tight > 1 - 1e-12  # attained by the best single outcome
    # the max-information definition entry reproduces k on that outcome
    best = max(outcomes, key=lambda o: joint[o] / prod[o])
    k_def = float(get("dwork2015.def_max_information").evaluate(P_O=joint[best], beta=0, P_Oprod=prod[best]))
    assert math.isclose(k_def, k_bits, rel_tol=1e-13)


# ------------------------------------------------------------------ binary kl and its inversion
def _kl_mp(q, p):
    q, p = mpmath.mpf(q), mpmath.mpf(p)
    t1 = q * mpmath.log(q / p) if q > 0 else 0
    t2 = (1 - q) * mpmath.log((1 - q) / (1 - p)) if q < 1 else 0
    return t1 + t2


def _root_mp(q, c, dps=60):
    """Independent reference: plain mpmath bisection of kl(q||p) = c over [q, 1] (naive kl formula)."""
    with mpmath.workdps(dps):
        q, c = mpmath.mpf(q), mpmath.mpf(c)
        if c == 0:
            return q
        lo, hi = q, mpmath.mpf(1)
        for _ in range(int(dps * 3.4) + 40):
            mid = (lo + hi) / 2
            if mid == 1 or _kl_mp(q, mid) > c:
                hi = mid
            else:
                lo = mid
        return (lo + hi) / 2


def _kl_mp_le_c_plus_tiny(q, got, c):
    """kl(q || got) <= c up to the float resolution of ``got`` (4 ulps times the slope) and 1e-12 relative."""
    with mpmath.workdps(50):
        g = mpmath.mpf(got)
        slope = abs(g - q) / (g * (1 - g))  # d kl(q || p) / dp at p = got
        tiny = slope * 4 * mpmath.mpf(float(np.spacing(got))) + mpmath.mpf(c) * mpmath.mpf("1e-12")
        return _kl_mp(q, g) <= mpmath.mpf(c) + tiny


def test_kl_bernoulli_against_mpmath_including_near_diagonal():
    rng = np.random.default_rng(0)
    q = rng.uniform(0, 1, 300)
    p = np.concatenate([rng.uniform(0, 1, 200), q[200:] * (1 + 10.0 ** rng.uniform(-12, -3, 100))])
    p = np.clip(p, 1e-300, 1 - 1e-16)
    got = mi.kl_bernoulli(q, p)
    with mpmath.workdps(50):
        ref = np.array([float(_kl_mp(a, b)) for a, b in zip(q, p)])
    assert np.all(np.abs(got - ref) <= 1e-13 * ref + 1e-300)
    assert mi.kl_bernoulli(0.0, 0.5) == pytest.approx(math.log(2), rel=1e-15)
    assert mi.kl_bernoulli(1.0, 0.25) == pytest.approx(math.log(4), rel=1e-15)
    assert mi.kl_bernoulli(0.3, 1.0) == math.inf and mi.kl_bernoulli(0.3, 0.0) == math.inf
    # subnormal q: no overflow / NaN, matches mpmath
    with mpmath.workdps(50):
        ref = float(_kl_mp(2.2250738585e-313, 0.7))
    assert mi.kl_bernoulli(2.2250738585e-313, 0.7) == pytest.approx(ref, rel=1e-14)


@pytest.mark.parametrize("q,c", [(0.1, 0.05), (0.0, 0.3), (0.5, 1e-10), (0.02, 3.0), (0.999, 0.01),
                                 (1e-8, 1e-6), (0.3, 40.0), (0.7, 1e-14)])
def test_kl_inverse_against_mpmath_and_safe(q, c):
    root = _root_mp(q, c)
    got = mi.kl_inverse(q, c)
    assert got >= root  # safe (upper) side, checked in exact arithmetic
    assert got - root <= 1e-13 * max(root, 1e-300) + 4 * np.spacing(got)
    if got < 1:
        assert _kl_mp_le_c_plus_tiny(q, got, c)
    # the mpmath evaluator and the SymPy function agree with the reference
    with mpmath.workdps(40):
        assert abs(mi.kl_inverse_mp(q, c, dps=40) - root) <= mpmath.mpf(10) ** -35 * max(root, 1)
        sym = sp.N(mi.KLInverse(sp.Float(q, 30), sp.Float(c, 30)), 30)
        assert abs(mpmath.mpf(str(sym)) - root) < mpmath.mpf(10) ** -25 * max(root, 1)


@settings(max_examples=100, deadline=None)
@given(q=st.floats(0, 1), logc=st.floats(-15, 2.5))
def test_kl_inverse_property_safe_direction(q, logc):
    c = 10.0**logc
    got = mi.kl_inverse(q, c)
    assert q <= got <= 1
    with mpmath.workdps(50):
        if got < 1:
            assert _kl_mp_le_c_plus_tiny(q, got, c)
        # a hair below the answer is still feasible in exact arithmetic, so we did not stop early...
        below = mpmath.mpf(got) * (1 - mpmath.mpf("1e-11")) if got > q else None
        if below is not None and below > q:
            assert _kl_mp(q, below) <= c
        # ...and the exact root is not above the answer
        assert got >= _root_mp(q, c, dps=40) or got == 1.0


def test_kl_inverse_vectorised_and_degenerate_cases():
    q = np.array([0.0, 0.2, 0.2, 1.0, 0.4])
    c = np.array([0.5, 0.0, np.inf, 0.7, 0.1])
    got = mi.kl_inverse(q, c)
    assert got.shape == (5,)
    assert got[0] >= -math.expm1(-0.5) and got[0] - (-math.expm1(-0.5)) < 1e-15
    assert got[1] == 0.2 and got[2] == 1.0 and got[3] == 1.0
    assert got[4] == mi.kl_inverse(0.4, 0.1)
    grid = mi.kl_inverse(np.linspace(0, 1, 11)[:, None], np.array([1e-3, 0.1, 1.0])[None, :])
    assert grid.shape == (11, 3) and np.all(np.diff(grid, axis=1) >= 0) and np.all(np.diff(grid, axis=0) >= 0)
    for bad in ({"q": -0.1, "c": 0.1}, {"q": 1.5, "c": 0.1}, {"q": 0.5, "c": -1.0}, {"q": float("nan"), "c": 1.0}):
        with pytest.raises(InvalidParameterError):
            mi.kl_inverse(**bad)


def test_kl_inverse_sympy_function():
    q, c = mi.L_S, mi.c_kl
    assert mi.KLInverse(q, 0) == q
    assert mi.KLInverse(0, c) == 1 - sp.exp(-c)
    assert mi.KLInverse(1, c) == 1 and mi.KLInverse(q, sp.oo) == 1
    assert "kl}^{-1}" in sp.latex(mi.KLInverse(q, c))
    # implicit derivatives against central finite differences of the numerical inverse
    q0, c0, h = 0.2, 0.3, 1e-6
    p0 = mi.kl_inverse(q0, c0)
    for arg, fd in (
        (c, (mi.kl_inverse(q0, c0 + h) - mi.kl_inverse(q0, c0 - h)) / (2 * h)),
        (q, (mi.kl_inverse(q0 + h, c0) - mi.kl_inverse(q0 - h, c0)) / (2 * h)),
    ):
        d = sp.diff(mi.KLInverse(q, c), arg).subs(mi.KLInverse(q, c), p0).subs({q: q0, c: c0})
        assert math.isclose(float(d), fd, rel_tol=1e-5)


# ------------------------------------------------------------------ PAC-Bayes entries
def test_pac_bayes_entries_chain():
    point = {"L_S": 0.05, "KL_QP": 250.0, "n": 60000, "delta": 0.025}
    c = float(get("pacbayes.seeger_maurer").evaluate(**{k: v for k, v in point.items() if k != "L_S"}))
    assert math.isclose(c, (250 + math.log(2 * math.sqrt(60000) / 0.025)) / 60000, rel_tol=1e-14)
    inv = float(get("pacbayes.seeger_maurer_inverted").evaluate(**point))
    assert math.isclose(inv, mi.kl_inverse(0.05, c), rel_tol=1e-13)
    assert mi.kl_inverse(0.05, c) >= inv  # float64 evaluator is on the safe side of the 30-digit value
    # Pinsker relaxation is looser than the inversion
    assert inv <= 0.05 + math.sqrt(c / 2)
    # data-dependent prior: k_nat = 0 gives the data-free bound; k_nat adds k/n to the budget
    ddp = get("pacbayes.data_dependent_prior").rhs
    assert sp.simplify(ddp.subs(mi.k_nat, 0) - get("pacbayes.seeger_maurer").rhs) == 0
    assert sp.simplify(sp.diff(ddp, mi.k_nat) - 1 / mi.n) == 0
    inv_k = float(get("pacbayes.data_dependent_prior_inverted").evaluate(k_nat=30.0, beta=0.01, **point))
    assert inv_k > inv
    # a Dwork Thm 20 budget (bits) converted to nats feeds the penalty: k_nat = k_bits ln 2
    k_bits = float(get("dwork2015.thm20_pure_dp_iid").evaluate(epsilon=0.01, n=60000, beta=0.01))
    assert math.isclose(k_bits * math.log(2), 0.01**2 * 60000 / 2 + 0.01 * math.sqrt(60000 * math.log(200) / 2),
                        rel_tol=1e-12)


def test_pinsker_holds_on_a_grid():
    th = get("pacbayes.pinsker")
    qs, ps = np.meshgrid(np.linspace(0, 1, 41), np.linspace(0.01, 0.99, 41))
    lhs = mi.kl_bernoulli(qs, ps)
    rhs = 2 * (qs - ps) ** 2
    assert np.all(lhs >= rhs - 1e-15)
    assert float(th.evaluate(L_S=0.1, L_D=0.4)) == pytest.approx(2 * 0.3**2, rel=1e-14)


# ------------------------------------------------------------------ Gaussian privacy profile
def _profile_by_integration(eps: float, Delta: float, sigma: float) -> float:
    """delta(eps) = E_P[(1 - e^{eps - L})_+], P = N(Delta, sigma^2), Q = N(0, sigma^2), L = log dP/dQ."""
    x0 = eps * sigma**2 / Delta + Delta / 2  # L(x) > eps  <=>  x > x0
    f = lambda x: stats.norm.pdf(x, Delta, sigma) - math.exp(eps) * stats.norm.pdf(x, 0, sigma)  # noqa: E731
    val, _err = integrate.quad(f, x0, x0 + 40 * sigma, epsabs=1e-15, epsrel=1e-12, limit=200)
    return val


@pytest.mark.parametrize("eps,Delta,sigma", [(0.5, 1.0, 1.0), (1.0, 1.0, 0.8), (3.0, 2.0, 1.0),
                                             (0.1, 0.5, 2.0), (2.0, 1.0, 3.0)])
def test_gaussian_profile_against_numerical_integration(eps, Delta, sigma):
    th = get("balle2018.gaussian_profile")
    got = float(th.evaluate(epsilon=eps, Delta=Delta, sigma=sigma))
    ref = _profile_by_integration(eps, Delta, sigma)
    assert got == pytest.approx(ref, rel=1e-8, abs=1e-15)
    assert 0 < got < 1


def test_gaussian_profile_depends_on_delta_over_sigma_and_decreases_in_eps():
    rhs = get("balle2018.gaussian_profile").rhs
    from symdp.symbols import Delta, eps, sigma

    r = sp.Symbol("r", positive=True)
    assert sp.simplify(rhs.subs(Delta, r * sigma) - rhs.subs({Delta: r, sigma: 1})) == 0
    f = sp.lambdify((eps, Delta, sigma), rhs, "mpmath")
    vals = [f(e, 1, 1) for e in (0, 0.5, 1, 2, 4)]
    assert all(a > b for a, b in itertools.pairwise(vals))
    # eps = 0: total variation distance 2 Phi(r/2) - 1
    assert abs(f(0, 1, 1) - (2 * mpmath.ncdf(0.5) - 1)) < 1e-25
