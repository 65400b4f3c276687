"""Oracles of symdp.verify: each cross-checked against an independent computation."""

from __future__ import annotations

import random

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from symdp.verify import oracles as O


def test_kl_oracle_is_randomized_response():
    for e in ("0.01", "0.5", "1", "3", "10"):
        e = mpmath.mpf(e)
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        rr = O.kl([p, 1 - p], [1 - p, p])
        assert mpmath.almosteq(O.kl_eps_dp(epsilon=e), rr, rel_eps=mpmath.mpf(10) ** -12)
    assert O.kl_eps_dp(epsilon=1, delta="0.01") == mpmath.inf


@settings(max_examples=60, deadline=None)
@given(st.floats(0.01, 8.0), st.integers(2, 7), st.integers(0, 10**6))
def test_random_pure_dp_pairs_respect_the_kl_lemma(e, k, seed):
    with mpmath.workdps(40):
        P, Q = O.random_dp_pair(e, 0, k=k, rng=random.Random(seed))
        assert mpmath.almosteq(mpmath.fsum(P), 1) and mpmath.almosteq(mpmath.fsum(Q), 1)
        assert O.is_dp_pair(P, Q, e, 0, tol=mpmath.mpf(10) ** -30)
        assert O.kl(P, Q) <= O.kl_eps_dp(epsilon=e) * (1 + mpmath.mpf(10) ** -25)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.01, 3.0), st.floats(1e-6, 0.2), st.integers(2, 6), st.integers(0, 10**6))
def test_random_approx_dp_pairs_are_dp(e, d, k, seed):
    P, Q = O.random_dp_pair(e, d, k=k, rng=random.Random(seed))
    assert O.is_dp_pair(P, Q, e, d, tol=mpmath.mpf(10) ** -12)
    # and the KOV pair itself is tight: its hockey-stick at eps is exactly delta
    P0, Q0 = O.kov_pair(e, d)
    assert mpmath.almosteq(O.hockey_stick(P0, Q0, e), d, rel_eps=mpmath.mpf(10) ** -15)


@pytest.mark.parametrize("e,d,T,at", [("0.5", "0.01", 3, "0.7"), ("0.1", "0.001", 5, "0.05"), ("1", "0", 4, "2"), ("0.3", "1e-5", 6, "0")])
def test_optimal_composition_three_ways(e, d, T, at):
    closed = O.optimal_composition(epsilon=e, delta=d, T=T, at=at)
    conv = O.optimal_composition_hetero([(e, d)] * T, at)
    P, Q = O.compose_pairs([O.kov_pair(e, d)] * T)
    hs = O.hockey_stick(P, Q, at)
    assert mpmath.almosteq(closed, conv, rel_eps=mpmath.mpf(10) ** -12, abs_eps=mpmath.mpf(10) ** -25)
    assert mpmath.almosteq(closed, hs, rel_eps=mpmath.mpf(10) ** -12, abs_eps=mpmath.mpf(10) ** -25)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 1.5), st.floats(0.0, 0.05), st.integers(1, 3), st.floats(0.0, 3.0), st.integers(0, 10**6))
@example(1.0, 1.192092896e-07, 1, 1.0, 1)  # 1 - (1 - delta)^T at 53 bits lost 9 digits (CI, 2026-11-25)
@example(1.0, 0.0, 1, 1.0, 5)  # an exact tie p = e^eps q rounded to 1.1e-16 at 53 bits (2026-11-26)
def test_optimal_composition_dominates_any_composition(e, d, T, at, seed):
    # at 40 digits: the random pair's atoms where p = e^eps q exactly round to p - e^eps q ~ 1e-16 at mpmath's
    # default 53 bits (e=1, d=0, T=1, at=1 gave 1.1e-16 against an optimum of 0), far above the 1e-20 slack
    with mpmath.workdps(40):
        rng = random.Random(seed)
        pairs = [O.random_dp_pair(e, d, k=3, rng=rng) for _ in range(T)]
        P, Q = O.compose_pairs(pairs)
        assert O.hockey_stick(P, Q, at) <= (O.optimal_composition(epsilon=e, delta=d, T=T, at=at)
                                            * (1 + mpmath.mpf(10) ** -12) + mpmath.mpf(10) ** -20)


@pytest.mark.parametrize("mu,e", [("0.5", "0.1"), ("1", "1"), ("2", "0.5"), ("3", "4")])
def test_gaussian_profile_matches_quadrature(mu, e):
    mu, e = mpmath.mpf(mu), mpmath.mpf(e)
    x0 = e / mu + mu / 2  # loss of N(mu,1) vs N(0,1) exceeds e where x > x0
    q = mpmath.quad(lambda x: mpmath.npdf(x, mu, 1) - mpmath.exp(e) * mpmath.npdf(x), [x0, mpmath.inf])
    assert mpmath.almosteq(O.gaussian_profile(mu=mu, at=e), q, rel_eps=mpmath.mpf(10) ** -10)
    assert O.gaussian_profile(sigma=2 / mu, Delta=2, at=e) == O.gaussian_profile(mu=mu, at=e)


@pytest.mark.parametrize("b,e", [("1", "0.3"), ("0.5", "1"), ("2", "0"), ("1", "1.5")])
def test_laplace_profile_matches_quadrature(b, e):
    b, e = mpmath.mpf(b), mpmath.mpf(e)
    lap = lambda x, m: mpmath.exp(-abs(x - m) / b) / (2 * b)  # noqa: E731
    g = lambda x: max(mpmath.mpf(0), lap(x, 0) - mpmath.exp(e) * lap(x, 1))  # noqa: E731
    kink = min(max((1 - e * b) / 2, mpmath.mpf(0)), mpmath.mpf(1))  # where the loss equals e
    q = mpmath.quad(g, [-mpmath.inf] + sorted({mpmath.mpf(0), kink, mpmath.mpf(1)}) + [mpmath.inf])
    assert mpmath.almosteq(O.laplace_profile(b=b, Delta=1, at=e), q, rel_eps=mpmath.mpf(10) ** -8, abs_eps=mpmath.mpf(10) ** -12)


def test_subsampled_gaussian_bracket():
    # q = 1: the T-fold Gaussian with sigma has mu = sqrt(T)/sigma
    lo, hi = O.subsampled_gaussian_bracket(q=1, sigma=2, T=4, at="0.5")
    exact = O.gaussian_profile(mu=1, at="0.5")
    assert lo <= exact <= hi and hi - lo < 2e-3
    # T = 1: matches the single-step quadrature, worse direction
    lo, hi = O.subsampled_gaussian_bracket(q="0.2", sigma="1.5", T=1, at="0.3")
    one = max(O.sgm_hockey_stick(q="0.2", sigma="1.5", epsilon="0.3"), O.sgm_hockey_stick(q="0.2", sigma="1.5", epsilon="0.3", direction="add"))
    assert lo <= one <= hi


def test_tradeoffs():
    # one (eps, delta) step: f(alpha) = max(0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha))
    e, d = mpmath.mpf("0.7"), mpmath.mpf("0.05")
    for a in ("0.01", "0.2", "0.5", "0.9"):
        a = mpmath.mpf(a)
        want = max(0, 1 - d - mpmath.exp(e) * a, mpmath.exp(-e) * (1 - d - a))
        assert mpmath.almosteq(O.tradeoff_dp_composition(epsilon=e, delta=d, T=1, alpha=a), want, abs_eps=mpmath.mpf(10) ** -12)
    # subsampled Gaussian trade-off (quadrature) = p G_mu + (1 - p)(1 - alpha)
    for p, mu, a in (("0.3", "1", "0.2"), ("0.05", "2", "0.01"), ("1", "0.5", "0.5")):
        want = mpmath.mpf(p) * O.gaussian_tradeoff(mu=mu, alpha=a) + (1 - mpmath.mpf(p)) * (1 - mpmath.mpf(a))
        assert mpmath.almosteq(O.subsampled_gaussian_tradeoff(p=p, mu=mu, alpha=a), want, rel_eps=mpmath.mpf(10) ** -12)


def test_oracle_registry_and_errors():
    assert {"kl_eps_dp", "optimal_composition", "gaussian_profile", "laplace_profile", "subsampled_gaussian_profile",
            "wang_laplace_mean_mc", "wang_linreg_mc", "sgm_pld"} <= set(O.ORACLES)
    with pytest.raises(Exception, match="no oracle"):
        O.get_oracle("nope")
    with pytest.raises(ValueError, match="T="):
        O.optimal_composition(epsilon=1, delta=0, T=0, at=1)


# ---------------------------------------------------------------------------
# Renyi divergence of the Gaussian; composition mappers (symdp.verify.composition)
# ---------------------------------------------------------------------------


def test_gaussian_rdp_closed_form_and_plain_quadrature():
    # closed form alpha Delta^2 / (2 sigma^2)
    for a, s, D in (("2", "1", "1"), ("256", "0.3", "1"), ("1.1", "20", "1"), ("7.5", "2", "0.6")):
        a, s, D = mpmath.mpf(a), mpmath.mpf(s), mpmath.mpf(D)
        assert mpmath.almosteq(O.gaussian_rdp(alpha=a, sigma=s, Delta=D), a * D**2 / (2 * s**2), rel_eps=mpmath.mpf(10) ** -12)
    # a second method: the integral of p^a q^(1-a) with no peak shift, at moderate parameters
    a, s, D = mpmath.mpf(3), mpmath.mpf("1.5"), mpmath.mpf("0.7")
    f = lambda x: mpmath.npdf(x, D, s) ** a * mpmath.npdf(x, 0, s) ** (1 - a)  # noqa: E731
    plain = mpmath.log(mpmath.quad(f, [-mpmath.inf, 0, a * D, mpmath.inf])) / (a - 1)
    assert mpmath.almosteq(O.gaussian_rdp(alpha=a, sigma=s, Delta=D), plain, rel_eps=mpmath.mpf(10) ** -10)


def test_gaussian_rdp_fast_integrand_gives_the_same_bits_as_the_plain_one():
    # the low-level integrand must be the plain lambda's arithmetic, bit for bit, at every working precision
    # (quad evaluates at prec + 20) and at nodes far in both tails, where exp underflows towards zero
    from symdp.verify.oracles_tradeoff import _same_bits_integrand

    rng = random.Random(11)
    for dps in (15, 30, 53):
        with mpmath.workdps(dps):
            for _ in range(6):
                a, s, m = (mpmath.mpf(1 + 10 ** rng.uniform(-2, 2.5)), mpmath.mpf(10 ** rng.uniform(-1.5, 2)),
                           mpmath.mpf(rng.choice([1, rng.uniform(0.01, 5)])))
                lp = lambda x: -((x - m) ** 2) / (2 * s * s)  # noqa: E731
                lq = lambda x: -(x * x) / (2 * s * s)  # noqa: E731
                c = a * m
                shift = a * lp(c) + (1 - a) * lq(c)
                f = lambda x: mpmath.exp(a * lp(x) + (1 - a) * lq(x) - shift) / (mpmath.sqrt(2 * mpmath.pi) * s)  # noqa: E731
                g = _same_bits_integrand(f, a, s, m, shift)
                for prec in (mpmath.mp.prec, mpmath.mp.prec + 20):
                    with mpmath.workprec(prec):
                        for k in (-1e6, -400, -40, -3.3, 0, 0.7, 2, 8, 40, 1e5):
                            x = c + mpmath.mpf(k) * s * mpmath.mpf(rng.uniform(0.5, 1.5))
                            assert g(x)._mpf_ == f(x)._mpf_, (dps, prec, a, s, m, k)


def test_group_dp_gaussian_witness_solves_the_premise_and_stops_at_the_bisection_fixed_point():
    # f_true: mu solving delta_mu(eps) = delta (premise_mu: a fixed point of the geometric bisection, reached
    # after Newton steps), then the replace-one delta_{2 mu} at the conclusion's epsilon; the solved mu against all
    # 200 steps of the plain bisection and against mpmath.findroot on the exact profile
    # (tests/test_oracle_group_dp_mu.py compares premise_mu with the plain bisection at more points)
    import sympy as sp

    from symdp.library import get
    from symdp.verify.oracles_conversion import _conclusion, map_group_dp, premise_mu
    from symdp.verify.oracles_gaussian import gaussian_profile

    th = get("bridge.group_privacy_dp", with_evidence=False)
    _, f_true, _, _ = map_group_dp(th)
    at_expr, _ = _conclusion(th)
    rng = random.Random(4)
    with mpmath.workdps(30):
        for _ in range(3):
            eps, delta = mpmath.mpf(rng.uniform(0.05, 2)), mpmath.mpf(10 ** rng.uniform(-9, -2))
            lo, hi = mpmath.mpf("1e-6"), mpmath.mpf(60)
            for _ in range(200):  # every step, no early stop
                mid = mpmath.sqrt(lo * hi)
                lo, hi = (mid, hi) if gaussian_profile(mu=mid, at=eps) < delta else (lo, mid)
            root = mpmath.findroot(lambda m: gaussian_profile(mu=m, at=eps) - delta, lo)
            assert mpmath.almosteq(lo, root, rel_eps=mpmath.mpf(10) ** -25)
            mu = premise_mu(eps, delta)
            assert gaussian_profile(mu=mu, at=eps) < delta
            assert mpmath.almosteq(mu, lo, rel_eps=mpmath.mpf(10) ** -26)
            bind = {x: sp.Float(mpmath.nstr(eps, 40), 40) for x in at_expr.free_symbols if x.name == "epsilon"}
            assert set(bind) == at_expr.free_symbols
            at = mpmath.mpf(str(sp.N(at_expr.xreplace(bind), 40)))
            pt = {"epsilon": eps, "delta": delta}
            assert f_true(pt)._mpf_ == gaussian_profile(mu=2 * mu, at=at)._mpf_


def test_eq7_matches_the_library_objective_and_its_maximum_is_at_a_vertex():
    import sympy as sp

    from symdp.library import get
    from symdp.verify import composition as C

    rng = random.Random(3)
    expr = get("he2021uai.thm4_delta").rhs
    T = 3
    eps, dels = [mpmath.mpf("0.4"), mpmath.mpf("0.9"), mpmath.mpf("0.2")], [mpmath.mpf("0.01"), mpmath.mpf("0.003"), mpmath.mpf("0.02")]
    alphas, dt = [mpmath.mpf("0.1"), mpmath.mpf("0.9"), mpmath.mpf("0")], mpmath.mpf("1e-4")
    e2 = expr.subs(sp.Symbol("T", positive=True, integer=True), T).doit()
    vals = {}
    for ind in e2.atoms(sp.Indexed):
        nm, k = ind.base.label.name, int(ind.indices[0]) - 1
        vals[ind] = sp.Float(str({"epsilon_seq": eps, "delta_seq": dels, "alpha_seq": alphas}[nm][k]), 40)
    for s in e2.free_symbols:
        if getattr(s, "name", "") == "deltatilde":
            vals[s] = sp.Float("1e-4", 40)
    lib = mpmath.mpf(str(sp.N(e2.xreplace(vals), 40)))
    assert mpmath.almosteq(C.eq7_value(alphas, eps, dels, dt), lib, rel_eps=mpmath.mpf(10) ** -12)
    # the vertex maximum dominates random points of I = {sum alpha = eps', 0 <= alpha_i <= eps_i}
    ep = mpmath.mpf("1.1")
    best = C.eq7_max(ep, eps, dels, dt)
    for _ in range(300):
        w = [mpmath.mpf(rng.random()) for _ in range(T)]
        a = [min(e, ep * x / sum(w)) for e, x in zip(eps, w)]
        if abs(sum(a) - ep) > 1e-20:
            continue
        assert C.eq7_value(a, eps, dels, dt) <= best + mpmath.mpf(10) ** -12
    # homogeneous closed form = vertex enumeration
    for T, e, d, ep in ((5, "0.3", "0.01", "0.7"), (4, "1", "0.05", "4"), (6, "0.2", "0.001", "0.05")):
        es, ds = [mpmath.mpf(e)] * T, [mpmath.mpf(d)] * T
        assert mpmath.almosteq(C.eq7_max(ep, es, ds, dt), C.eq7_max_homogeneous(ep, e, d, T, dt), rel_eps=mpmath.mpf(10) ** -12)


def test_eq7_max_bit_identical_to_the_vertex_enumeration():
    # eq7_max computes each step's factors once; the numbers must be those of eq7_value at every vertex (bit for bit)
    from symdp.verify import composition as C

    def reference(ep, eps, dels, dt):
        vs = C.eq7_vertices(ep, eps)
        return max(C.eq7_value(a, eps, dels, dt) for a in vs) if vs else None

    rng = random.Random(11)
    n_some = 0
    for dps in (15, 30, 50):
        with mpmath.workdps(dps):
            for _ in range(40):
                T = rng.randint(1, 6)
                eps = C.hetero_sequence(mpmath.mpf(10) ** rng.uniform(-3, 0.3), mpmath.mpf(rng.uniform(0.05, 1)), T)
                dels = [mpmath.mpf(10) ** rng.uniform(-12, -2)] * T if rng.random() < 0.5 else \
                    [mpmath.mpf(10) ** rng.uniform(-12, -2) for _ in range(T)]
                dt = mpmath.mpf(10) ** rng.uniform(-10, -1)
                ep = mpmath.fsum(eps) * mpmath.mpf(rng.uniform(0, 1.1))
                want, got = reference(ep, eps, dels, dt), C.eq7_max(ep, eps, dels, dt)
                if want is None:
                    assert got is None
                    continue
                n_some += 1
                assert got == want and got._mpf_ == want._mpf_, (dps, T, ep, eps, dels, dt)
            # a vertex at an end: eps' = sum of all steps, eps' = 0
            eps = [mpmath.mpf("0.3"), mpmath.mpf("0.7"), mpmath.mpf("0.1")]
            dels = [mpmath.mpf("1e-5")] * 3
            for ep in (mpmath.fsum(eps), mpmath.mpf(0), eps[0], eps[0] + eps[1]):
                got, want = C.eq7_max(ep, eps, dels, dt), reference(ep, eps, dels, dt)
                assert (got is None and want is None) or got._mpf_ == want._mpf_
    assert n_some > 60


def test_hetero_composition_against_product_of_kov_pairs():
    # optimal_composition_hetero (convolution of losses) vs the explicit product distribution's hockey stick
    steps = [(mpmath.mpf("0.5"), mpmath.mpf("0.01")), (mpmath.mpf("0.2"), mpmath.mpf("0")), (mpmath.mpf("1.1"), mpmath.mpf("0.003"))]
    P, Q = O.compose_pairs([O.kov_pair(e, d) for e, d in steps])
    for at in ("0", "0.3", "1.0", "1.7"):
        assert mpmath.almosteq(O.optimal_composition_hetero(steps, at), O.hockey_stick(P, Q, at), abs_eps=mpmath.mpf(10) ** -12)


def test_indexed_expansion_matches_a_hand_sum():
    from symdp.library import get
    from symdp.verify import composition as C

    th = get("classical.dwork_roth_advanced_composition_eps_sum")
    es = C.hetero_sequence("0.8", "0.25", 5)
    assert mpmath.almosteq(es[0], mpmath.mpf("0.8")) and mpmath.almosteq(es[-1], mpmath.mpf("0.2"))
    dt = mpmath.mpf("1e-6")
    want = mpmath.sqrt(2 * mpmath.log(1 / dt) * sum(e * e for e in es)) + sum(e * mpmath.expm1(e) for e in es)
    got = C.eval_indexed(th.rhs, {"deltatilde": dt, "T": 5}, es, [0] * 5)
    assert mpmath.almosteq(got, want, rel_eps=mpmath.mpf(10) ** -12)


def _halve_delta(th):
    from dataclasses import replace

    conc = th.conclusion
    return replace(th, rhs=th.rhs / 2, conclusion=replace(conc, params=(conc.params[0], conc.params[1] / 2)) if conc else None)


def test_planted_wrong_composition_bounds_are_refuted():
    from dataclasses import replace

    from symdp.library import get
    from symdp.theorem import Verdict
    from symdp.verify.engine import verify_theorem

    # KOV's own delta' (SUPPORTED as stated) with delta' halved
    good = get("classical.kairouz2017_delta")
    bad = _halve_delta(good)
    r = verify_theorem(bad)
    assert r.verdict is Verdict.REFUTED and "re-confirmed at 60 digits" in r.evidence.detail
    # heterogeneous mapper: the Dwork-Roth eps' halved is not (eps', delta~ + sum delta_i)-DP
    dr = get("classical.dwork_roth_advanced_composition_eps_sum")
    assert verify_theorem(dr).verdict is Verdict.SUPPORTED
    r = verify_theorem(replace(dr, rhs=dr.rhs / 4))
    assert r.verdict in (Verdict.REFUTED, Verdict.PARTIAL) and r.counterexample


def test_composition_mappers_reach_the_thm4_claims():
    from symdp.library import get
    from symdp.theorem import Verdict
    from symdp.verify.engine import verify_theorem

    # eps'_1 = T eps with max eq.(7): true (convexity of (1 - x)^T); eps'_3: delta' below 1 - (1 - delta)^T
    assert verify_theorem(get("he2021.thm4_eps1")).verdict is Verdict.SUPPORTED
    r = verify_theorem(get("he2021.thm4_eps3"))
    assert r.verdict is Verdict.REFUTED
    cx = {k: mpmath.mpf(v) for k, v in r.counterexample.items()}
    floor = 1 - (1 - cx["delta"]) ** int(cx["T"])  # delta_opt(eps') >= P(some step's delta-mass)
    assert mpmath.mpf(r.claimed) < floor <= mpmath.mpf(r.actual)


# ---------------------------------------------------------------------------
# exact closed forms (Oracle.exact): each equals its numeric oracle
# ---------------------------------------------------------------------------


def _exact_value(expr) -> mpmath.mpf:
    import sympy as sp

    return mpmath.mpf(str(sp.N(expr, 50)))


def _f(x: float):
    import sympy as sp

    return sp.Rational(x)  # the float's exact binary value: the same input the numeric oracle sees


def _close(a, b, rel="1e-20", abs_="1e-40") -> bool:
    return abs(a - b) <= mpmath.mpf(rel) * max(abs(a), abs(b)) + mpmath.mpf(abs_)


@pytest.mark.parametrize("seed", range(3))
def test_exact_closed_forms_equal_the_numeric_oracles(seed):
    rng = random.Random(seed)
    with mpmath.workdps(40):
        for _ in range(4):
            mu, e, al = rng.uniform(0.05, 5), rng.uniform(0.01, 10), rng.uniform(0.001, 0.999)
            p, b, e2 = rng.uniform(1e-4, 1), rng.uniform(0.2, 3), rng.uniform(0.0, 3)
            assert _close(O.gaussian_profile(mu=mu, at=e), _exact_value(O.gaussian_profile_exact(mu=_f(mu), at=_f(e))))
            s, D = rng.uniform(0.1, 10), rng.uniform(0.1, 10)
            assert _close(O.gaussian_profile(sigma=s, Delta=D, at=e),
                          _exact_value(O.ORACLES["gaussian_profile"].exact(sigma=_f(s), Delta=_f(D), at=_f(e))))
            assert _close(O.laplace_profile(b=b, Delta=1, at=e2), _exact_value(O.laplace_profile_exact(b=_f(b), Delta=1, at=_f(e2))))
            assert _close(O.gaussian_tradeoff(mu=mu, alpha=al), _exact_value(O.gaussian_tradeoff_exact(mu=_f(mu), alpha=_f(al))))
            # quadrature oracles: agree to their own tolerance
            assert _close(O.subsampled_gaussian_tradeoff(p=p, mu=mu, alpha=al),
                          _exact_value(O.subsampled_gaussian_tradeoff_exact(p=_f(p), mu=_f(mu), alpha=_f(al))), rel="1e-12")
            a2, s2 = rng.uniform(1.1, 64), rng.uniform(0.3, 20)
            assert _close(O.gaussian_rdp(alpha=a2, sigma=s2), _exact_value(O.ORACLES["gaussian_rdp"].exact(alpha=_f(a2), sigma=_f(s2))), rel="1e-12")
            q, sg, e3 = rng.uniform(0.01, 1), rng.uniform(0.3, 3), rng.uniform(0.01, 2)
            num = O.sgm_hockey_stick(q=q, sigma=sg, epsilon=e3)
            if num > mpmath.mpf("1e-20"):  # the quadrature loses relative accuracy far in the tail
                assert _close(num, _exact_value(O.sgm_pld_exact(_lhs="H_remove", q=_f(q), sigma=_f(sg), epsilon=_f(e3))), rel="1e-10")
    assert O.sgm_pld_exact(_lhs="H_add", q=_f(0.5), sigma=_f(1.0), epsilon=_f(0.1)) is None  # no closed form claimed


def test_laplace_exact_is_zero_past_the_ratio():
    import sympy as sp

    assert O.laplace_profile_exact(b=sp.Integer(1), Delta=1, at=sp.Integer(2)) == 0
    assert O.laplace_profile(b=1, Delta=1, at=2) == 0


# ---------------------------------------------------------------------------
# f-DP / GDP trade-off oracles, the moments accountant, KOV by enumeration (symdp.verify.fdp)
# ---------------------------------------------------------------------------


def _verdict(id_, **changes):
    from dataclasses import replace

    from symdp.library import get
    from symdp.verify.engine import verify_theorem

    th = get(id_)
    return verify_theorem(replace(th, **changes) if changes else th).evidence


def test_gaussian_mechanism_mu_by_quadrature_matches_delta_over_sigma():
    mpmath.mp.dps = 30
    try:
        _test_gaussian_mechanism_mu_by_quadrature_matches_delta_over_sigma()
    finally:
        mpmath.mp.dps = 15


def _test_gaussian_mechanism_mu_by_quadrature_matches_delta_over_sigma():
    from symdp.verify import fdp

    for D, s in (("1", "1"), ("0.3", "2.5"), ("4", "0.7")):
        mu = fdp.gaussian_mechanism_mu(Delta=D, sigma=s)
        assert mpmath.almosteq(mu, mpmath.mpf(D) / mpmath.mpf(s), rel_eps=mpmath.mpf(10) ** -20)


def test_two_step_composition_mu_by_quadrature_is_root_sum_of_squares():
    mpmath.mp.dps = 30
    try:
        _test_two_step_composition_mu_by_quadrature_is_root_sum_of_squares()
    finally:
        mpmath.mp.dps = 15


def _test_two_step_composition_mu_by_quadrature_is_root_sum_of_squares():
    from symdp.verify import fdp

    mu = fdp.composition2_mu(mu_1="0.7", mu_2="1.9")
    assert mpmath.almosteq(mu, mpmath.sqrt(mpmath.mpf("0.49") + mpmath.mpf("3.61")), rel_eps=mpmath.mpf(10) ** -18)


def test_min_error_sum_by_search_is_two_phi():
    mpmath.mp.dps = 30
    try:
        _test_min_error_sum_by_search_is_two_phi()
    finally:
        mpmath.mp.dps = 15


def _test_min_error_sum_by_search_is_two_phi():
    from symdp.verify import fdp

    for m in ("0.2", "0.57", "3"):
        assert mpmath.almosteq(fdp.min_error_sum(mu=m), 2 * mpmath.ncdf(-mpmath.mpf(m) / 2), rel_eps=mpmath.mpf(10) ** -14)


def test_fast_npdf_gives_the_same_bits_as_mpmath_npdf():
    # the quadratures' integrand must be mpmath.npdf(x, mu) bit for bit, at the working precision and at quad's
    # raised one, for mu an int and an mpf (a string goes to npdf itself), and far in the tails
    from symdp.verify.fdp import _npdf_same_bits

    rng = random.Random(7)
    for dps in (15, 30, 60):
        with mpmath.workdps(dps):
            for mu in (0, mpmath.mpf("0.37"), "0.1", mpmath.mpf(rng.uniform(0.01, 10))):
                # sigma: the default 1, an int, mpfs (gaussian_shift_points' sigma, down to 0.05 and up to 50), a string
                for sigma in (1, 3, mpmath.mpf("0.7"), mpmath.mpf(10 ** rng.uniform(-1.3, 1.7)), "2.5"):
                    g = _npdf_same_bits(mu) if sigma == 1 else _npdf_same_bits(mu, sigma)
                    for prec in (mpmath.mp.prec, mpmath.mp.prec + 20):
                        with mpmath.workprec(prec):
                            for _ in range(12):
                                x = rng.choice([1, -1]) * mpmath.mpf(10 ** rng.uniform(-6, 3)) * (1 + mpmath.mpf(rng.random()) / 3)
                                assert g(x)._mpf_ == mpmath.npdf(x, mu, sigma)._mpf_, (dps, prec, mu, sigma, x)


def test_gaussian_shift_points_same_bits_as_the_npdf_quadratures():
    # gaussian_shift_points integrates the same-bits npdf: its (alpha, beta) are those of mpmath.npdf's quadratures
    from symdp.verify import fdp

    for dps, D, s in ((15, "1", "0.8"), (30, "0.3", "7.5")):
        with mpmath.workdps(dps):
            D, s = mpmath.mpf(D), mpmath.mpf(s)
            want = []
            for z in fdp.Z_GRID:
                t = mpmath.mpf(z) * s
                want.append((mpmath.quad(lambda x: mpmath.npdf(x, 0, s), [t, t + 10 * s, mpmath.inf])._mpf_,
                             mpmath.quad(lambda x: mpmath.npdf(x, D, s), [-mpmath.inf, min(t, D) - 10 * s, t])._mpf_))
            assert [(a._mpf_, b._mpf_) for a, b in fdp.gaussian_shift_points(D, s)] == want


def test_memoized_binomials_give_mpmaths_bits_at_each_precision():
    # symdp.numeric.binomial / log_binomial are mpmath.binomial and its log, bit for bit, and a value memoized at one
    # precision is never handed out at another (asked at 15 digits, then 60, then 15 again)
    from symdp.numeric import binomial, log_binomial

    for dps in (15, 60, 15, 33):
        with mpmath.workdps(dps):
            for n in (2, 3, 17, 64, 255, 256, 1000):
                for k in {0, 1, n // 3, n // 2, n - 1, n}:
                    assert binomial(n, k)._mpf_ == mpmath.binomial(n, k)._mpf_, (dps, n, k)
                    assert log_binomial(n, k)._mpf_ == mpmath.log(mpmath.binomial(n, k))._mpf_, (dps, n, k)
    with mpmath.workprec(300):
        assert binomial(200, 100) == 90548514656103281165404177077484163874504589675413336841320  # exact at 300 bits


def test_C_p_is_below_both_true_tradeoffs_and_planted_C_p_is_not():
    mpmath.mp.dps = 30
    try:
        _test_C_p_is_below_both_true_tradeoffs_and_planted_C_p_is_not()
    finally:
        mpmath.mp.dps = 15


def _test_C_p_is_below_both_true_tradeoffs_and_planted_C_p_is_not():
    from symdp.verify import fdp

    below_wrong = False
    for a in ("0.01", "0.1", "0.3", "0.5", "0.8"):
        for p, m in (("0.1", "1"), ("0.5", "2"), ("1", "0.5")):
            true = min(fdp.sub_tradeoff_PQ(p, m, a), fdp.sub_tradeoff_QP(p, m, a))
            assert fdp.C_p_gaussian(p, m, a) <= true + mpmath.mpf(10) ** -20
            # planted: C_p of G_{0.9 mu} claims more privacy than the mechanism has
            below_wrong |= fdp.C_p_gaussian(p, mpmath.mpf(m) * mpmath.mpf("0.9"), a) > true + mpmath.mpf(10) ** -10
    assert below_wrong
    # the two orders are inverse trade-off functions of each other: T(Q,P)(T(P,Q)(a)) = a
    b = fdp.sub_tradeoff_PQ("0.3", "1.5", "0.2")
    assert mpmath.almosteq(fdp.sub_tradeoff_QP("0.3", "1.5", b), mpmath.mpf("0.2"), rel_eps=mpmath.mpf(10) ** -15)


def test_moments_accountant_log_moment_against_quadrature_and_exact_delta():
    mpmath.mp.dps = 30
    try:
        _test_moments_accountant_log_moment_against_quadrature_and_exact_delta()
    finally:
        mpmath.mp.dps = 15


def _test_moments_accountant_log_moment_against_quadrature_and_exact_delta():
    from symdp.verify import fdp

    q, s = mpmath.mpf("0.05"), mpmath.mpf("1.1")
    lm = fdp._log_moments(mpmath.nstr(q, 30), mpmath.nstr(s, 30), 4)
    for lam in (1, 2, 3, 4):
        mix = lambda x: (1 - q) * mpmath.npdf(x, 0, s) + q * mpmath.npdf(x, 1, s)  # noqa: E731
        quad = mpmath.quad(lambda x: mix(x) ** (lam + 1) / mpmath.npdf(x, 0, s) ** lam, [-mpmath.inf, 0, 1, mpmath.inf])
        assert mpmath.almosteq(lm[lam - 1], mpmath.log(quad), rel_eps=mpmath.mpf(10) ** -12)
    # the accountant is an upper bound on the exact delta (PLD bracket, upper end)
    for e in ("0.5", "1", "2"):
        exact_hi = O.subsampled_gaussian_bracket(q="0.05", sigma="1.1", T=50, at=e)[1]
        assert O.subsampled_gaussian_bracket(q="0.05", sigma="1.1", T=50, at=e)[0] <= fdp.moments_accountant_delta(q=q, sigma=s, T=50, epsilon=e)
        assert exact_hi < 1


def test_optimal_composition_enum_matches_closed_form():
    mpmath.mp.dps = 30
    try:
        _test_optimal_composition_enum_matches_closed_form()
    finally:
        mpmath.mp.dps = 15


def _test_optimal_composition_enum_matches_closed_form():
    for e, d, T, at in (("0.3", "1e-6", 9, "1"), ("1", "0", 5, "0.5"), ("0.05", "0.001", 40, "0.3")):
        assert mpmath.almosteq(O.optimal_composition_enum(epsilon=e, delta=d, T=T, at=at),
                               O.optimal_composition(epsilon=e, delta=d, T=T, at=at), rel_eps=mpmath.mpf(10) ** -20, abs_eps=mpmath.mpf(10) ** -28)


def test_compile_expr_sum_with_symbolic_limit():
    import sympy as sp

    from symdp.verify.engine import compile_expr

    T, l, x = sp.symbols("T l x", positive=True, integer=True)
    f = compile_expr(sp.Sum(x**l, (l, 0, T)))
    assert f({"T": mpmath.mpf(5), "x": mpmath.mpf(2)}) == 63
    with pytest.raises(ValueError):
        f({"T": mpmath.mpf("2.5"), "x": mpmath.mpf(2)})


@pytest.mark.parametrize("id_,name", [("bu2020.noisy_sgd_step_gdp", "1/sigma"), ("bu2020.gdp_composition_T", "sqrt(T) mu")])
def test_gdp_entries_supported_and_planted_small_mu_refuted(id_, name):
    from symdp.library import get
    from symdp.theorem import Verdict

    assert _verdict(id_).verdict is Verdict.SUPPORTED
    th = get(id_)
    bad = _verdict(id_, rhs=th.rhs * sp_rational(9, 10))
    assert bad.verdict is Verdict.REFUTED, (name, bad.detail)


def sp_rational(a, b):
    import sympy as sp

    return sp.Rational(a, b)


def test_subsampling_theorem_entry_supported():
    from symdp.theorem import Verdict

    assert _verdict("bu2020.subsampling_theorem").verdict is Verdict.SUPPORTED


@pytest.mark.parametrize("d,T", [("1.192092896e-7", 1), ("1e-12", 3), ("1e-300", 2)])
def test_optimal_composition_keeps_tiny_delta_exact(d, T):
    # at eps' = T eps nothing but the delta mass counts: delta' = 1 - (1 - delta)^T, to the last digit
    with mpmath.workdps(60):
        exact = 1 - (1 - mpmath.mpf(d)) ** T
    got = O.optimal_composition(epsilon=1, delta=d, T=T, at=T)
    assert mpmath.almosteq(got, exact, rel_eps=mpmath.mpf(10) ** -14)
    assert mpmath.almosteq(O.optimal_composition_hetero([(1, d)] * T, T), exact, rel_eps=mpmath.mpf(10) ** -14)
