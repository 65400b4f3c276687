"""Deciding entries the library records without an oracle (issue 12 item 5).

Oracles of :mod:`symdp.verify.oracles_examples` held against independent computations (numerical integration
of the actual posterior densities, brute-force enumeration of randomized response), and the range rung on
planted claims.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import pytest
import sympy as sp

from symdp.theorem import Kind, Property, Source, Verdict, theorem
from symdp.verify import oracles_examples as X
from symdp.verify import verify_theorem

SRC = Source("test", "none", "v1", "Thm 0")


# --- 004 Sec. 6, Laplace mean release --------------------------------------------------------------------------


def test_laplace_mean_dp_is_4_gamma_by_integration() -> None:
    """Normalise the density by quadrature (independently of the oracle's argument) and evaluate the log ratio."""
    g = mpmath.mpf("0.7")
    assert X.laplace_mean_dp(gamma=g) == 4 * g

    def log_density(h: mpmath.mpf, z: mpmath.mpf) -> mpmath.mpf:
        k = mpmath.quad(lambda u: mpmath.exp(-g * abs(z - u)), [-mpmath.inf, z, mpmath.inf])
        return -g * abs(z - h) - mpmath.log(k)

    worst = log_density(mpmath.mpf(-3), mpmath.mpf(-2)) - log_density(mpmath.mpf(-3), mpmath.mpf(2))
    assert abs(worst - 4 * g) < 1e-12
    for z, z2, h in [(0.3, -1.1, 0.2), (2, -2, 5), (-0.5, 1.5, -7)]:
        r = log_density(mpmath.mpf(h), mpmath.mpf(z)) - log_density(mpmath.mpf(h), mpmath.mpf(z2))
        assert r <= 4 * g + 1e-12


def test_laplace_mean_entry_proved() -> None:
    from symdp.library import get

    r = verify_theorem(get("wang2016.example_laplace_mean_dp", with_evidence=False))
    assert r.verdict is Verdict.PROVED, r.evidence
    assert "4*gamma" in r.evidence.detail


# --- 004 Sec. 6, 1-D linear regression ------------------------------------------------------------------------


def test_linreg_lower_bound_is_attained_by_real_data_sets() -> None:
    """A data set whose other m points pin the posterior at h* = 2 (y_j = 1, x_j = 1/2) and the neighbours
    z = (y=-1, x=2), z' = (y=-1, x=-2): the exact log-density ratio at h = -2, by quadrature on H = [-2, 2],
    approaches the oracle's 32 gamma from below and stays under the proved worst case 50 gamma."""
    g = mpmath.mpf(1)
    assert X.linreg_dp_lower(gamma=g) == 32
    m = 4000

    def rest(h: mpmath.mpf) -> mpmath.mpf:
        return m * (1 - h / 2) ** 2

    def log_post(h: mpmath.mpf, y: int, x: int) -> mpmath.mpf:
        k = mpmath.quad(lambda u: mpmath.exp(-g * ((y - x * u) ** 2 + rest(u))), [-2, 1.9, 1.99, 2])
        return -g * ((y - x * h) ** 2 + rest(h)) - mpmath.log(k)

    with mpmath.workdps(30):
        h = mpmath.mpf(-2)
        ratio = log_post(h, -1, 2) - log_post(h, -1, -2)
    assert 31 < ratio <= 32 + 1e-9
    assert X.linreg_dp_lower(gamma=g) <= 50 * g


@pytest.mark.slow
def test_linreg_entry_proved() -> None:
    from symdp.library import get

    r = verify_theorem(get("wang2016.example_linreg_dp", with_evidence=False))
    assert r.verdict is Verdict.PROVED
    assert "50*gamma" in r.evidence.detail


# --- randomized response: max-information by enumeration ------------------------------------------------------


def _rr_joint(n: int, eps: float, p: float):
    r = math.exp(eps) / (1 + math.exp(eps))
    atoms = []
    for s in itertools.product((0, 1), repeat=n):
        ps = math.prod(p if b else 1 - p for b in s)
        for a in itertools.product((0, 1), repeat=n):
            pa_s = math.prod(r if ai == si else 1 - r for ai, si in zip(a, s))
            atoms.append((s, a, ps, pa_s))
    pa: dict = {}
    for _s, a, ps, pas in atoms:
        pa[a] = pa.get(a, 0.0) + ps * pas
    return atoms, pa


def test_rr_pure_max_information_matches_brute_force() -> None:
    n, eps = 3, 0.8
    atoms, pa = _rr_joint(n, eps, float(X.RR_PRIOR_P))
    brute = max(pas / pa[a] for s, a, ps, pas in atoms if ps > 0)
    assert abs(X.rr_pure_max_information_bits(epsilon=eps, n=n) - math.log2(brute)) < 1e-9
    # Dwork et al. Thm 19's bound, attained in the limit
    assert X.rr_pure_max_information_bits(epsilon=eps, n=n) <= n * eps / math.log(2)
    assert X.rr_pure_max_information_bits(epsilon=eps, n=n) > n * eps / math.log(2) * (1 - 1e-9)


@pytest.mark.parametrize("n,eps,beta", [(6, 0.5, 0.05), (5, 1.5, 0.01), (4, 0.2, 0.3)])
def test_rr_approx_max_information_matches_brute_force(n: int, eps: float, beta: float) -> None:
    """Hockey-stick between the joint law and the product of marginals over all 4^n atoms, uniform bits."""
    atoms, pa = _rr_joint(n, eps, 0.5)
    pj = [ps * pas for s, a, ps, pas in atoms]
    pp = [ps * pa[a] for s, a, ps, pas in atoms]

    def excess(t: float) -> float:
        return sum(max(0.0, x - t * y) for x, y in zip(pj, pp))

    lo, hi = 1.0, 2.0 ** (n * 2)
    if excess(lo) <= beta:
        brute = 0.0
    else:
        for _ in range(200):
            mid = math.sqrt(lo * hi)
            lo, hi = (mid, hi) if excess(mid) > beta else (lo, mid)
        brute = math.log2(lo)
    got = float(X.rr_approx_max_information_bits(epsilon=eps, n=n, beta=beta))
    assert got <= brute + 1e-9  # a lower bound
    assert got >= brute - 1e-6


def test_max_information_entries_decided() -> None:
    from symdp.library import get

    r = verify_theorem(get("dwork2015.thm19_pure_dp", with_evidence=False))
    assert r.verdict is Verdict.PROVED and "group privacy" in r.evidence.detail


# --- bounds outside their quantity's range --------------------------------------------------------------------

eps = sp.Symbol("epsilon", positive=True)


def test_upper_bound_on_probability_below_zero_is_refuted() -> None:
    th = theorem("t.neg", "planted", Kind.BOUND, SRC, lhs=sp.Symbol("P_fail"), relation="<", rhs=1 - eps,
                 hypotheses=(eps > 0,), domain={eps: (sp.Rational(1, 10), 3)})
    r = verify_theorem(th)
    assert r.verdict in (Verdict.REFUTED, Verdict.PARTIAL), r.evidence
    assert r.evidence.rung == "range"
    assert float(r.counterexample["epsilon"]) >= 1  # 1 - eps <= 0 there


def test_lower_bound_on_probability_above_one_is_refuted() -> None:
    th = theorem("t.big", "planted", Kind.BOUND, SRC, lhs=sp.Symbol("P_succ"), relation=">=", rhs=sp.Rational(1, 2) + eps,
                 hypotheses=(eps > 0,), domain={eps: (sp.Rational(1, 10), 1)})
    r = verify_theorem(th)
    assert r.verdict in (Verdict.REFUTED, Verdict.PARTIAL), r.evidence
    assert float(r.counterexample["epsilon"]) > 0.5


def test_bound_inside_its_range_stays_unchecked() -> None:
    """The range check cannot prove a bound: a bound that stays in range is left UNCHECKED, never SUPPORTED."""
    th = theorem("t.ok", "planted", Kind.BOUND, SRC, lhs=sp.Symbol("P_fail"), relation="<=", rhs=sp.exp(-eps),
                 hypotheses=(eps > 0,), domain={eps: (sp.Rational(1, 10), 30)})
    r = verify_theorem(th)
    assert r.verdict is Verdict.UNCHECKED
    assert "range" in r.evidence.detail


# --- the coupling lemma by linear programming ----------------------------------------------------------------


@pytest.mark.parametrize("e,d", [(0.5, 1e-3), (2.0, 1e-12), (10.0, 0.01), (0.01, 1e-6)])
def test_coupling_lp_matches_lemma_value(e: float, d: float) -> None:
    """He et al. 2021 Lemma 3's delta/(e^eps + 1) is the LP optimum on the dominating pair (tight)."""
    got = X.coupling_lemma_distance(epsilon=e, delta=d)
    want = mpmath.mpf(d) / (mpmath.exp(e) + 1)
    assert want * (1 - mpmath.mpf("1e-6")) <= got <= want


def test_coupling_lp_kov_pair_dominates_random_pairs() -> None:
    """Every (eps, delta)-DP pair is a post-processing of the KOV pair: its coupling distance is no larger."""
    import random

    from symdp.verify.oracles import is_dp_pair, random_dp_pair

    rng = random.Random(3)
    e, d = 0.7, 0.05
    worst = X.coupling_lemma_distance(epsilon=e, delta=d)
    for _ in range(10):
        P, Q = random_dp_pair(e, d, k=5, rng=rng)
        assert is_dp_pair(P, Q, e, d, tol=mpmath.mpf("1e-12"))
        assert X.coupling_distance(P, Q, e, d) <= worst / (1 - mpmath.mpf("1e-7")) * (1 + mpmath.mpf("1e-6"))


def test_coupling_planted_too_small_claim_refuted() -> None:
    d_ = sp.Symbol("delta", positive=True)
    th = theorem("t.coupling", "planted", Kind.BOUND, SRC, lhs=sp.Symbol("Delta_stat"), relation="<=",
                 rhs=d_ / (sp.exp(eps) + 2), hypotheses=(eps > 0, d_ > 0, d_ < 1), oracle="coupling_lp",
                 domain={eps: (sp.Rational(1, 100), 10), d_: (sp.Rational(1, 10**12), sp.Rational(1, 100))})
    r = verify_theorem(th)
    assert r.verdict in (Verdict.REFUTED, Verdict.PARTIAL), r.evidence


# --- Chernoff terms against the exact tail ------------------------------------------------------------------


@pytest.mark.parametrize("e,T,at", [(0.1, 50, 2.0), (0.5, 200, 60.0), (0.01, 400, 3.0), (1.0, 30, 29.5)])
def test_rr_loss_tail_brute_force_and_below_the_exact_chernoff_minimum(e: float, T: int, at: float) -> None:
    """The binomial tail against an mpmath sum over K, and the correct Chernoff minimum of eq. (36) above it."""
    with mpmath.workdps(50):
        r = mpmath.exp(e) / (1 + mpmath.exp(e))
        brute = mpmath.fsum(mpmath.binomial(T, k) * r**k * (1 - r) ** (T - k) for k in range(T + 1) if e * (2 * k - T) > at)
        chern = min(mpmath.exp(-at * t) * ((mpmath.exp(t * e + e) + mpmath.exp(-t * e)) / (1 + mpmath.exp(e))) ** T
                    for t in [mpmath.mpf(i) / 400 for i in range(1, 4000)])
    got = X.rr_loss_tail(step=e, T=T, at=at)
    assert got <= brute * (1 + mpmath.mpf("1e-12"))
    assert got >= brute * (1 - mpmath.mpf("1e-6"))
    assert brute <= chern


def test_composition_theorem_iii_chernoff_term_refuted() -> None:
    """001 App. B.4 eq. (38): the printed delta'' lies below the exact tail it bounds (Thm 7 of the UAI text)."""
    from symdp.library import get

    r = verify_theorem(get("he2021uai.thm7_delta_tilde_p", with_evidence=False))
    assert r.verdict in (Verdict.REFUTED, Verdict.PARTIAL), r.evidence
    assert float(r.actual) > float(r.claimed)


def test_azuma_rademacher_tail_brute_force() -> None:
    """The Rademacher tail against an mpmath binomial sum, and below Azuma's e^{-t^2/2}."""
    for t in (0.3, 1.0, 1.7, 2.5):
        brute = max(
            mpmath.fsum(mpmath.binomial(n, k) for k in range(n + 1) if 2 * k - n >= t * math.sqrt(n)) / mpmath.mpf(2) ** n
            for n in range(1, 33))
        got = X.azuma_rademacher_tail(t=t)
        assert got >= brute * (1 - mpmath.mpf("1e-6"))
        assert got <= math.exp(-t * t / 2)


def test_assigned_oracles_name_real_entries_and_oracles() -> None:
    """Every verifier-assigned oracle exists and every entry it is assigned to is a library entry naming none."""
    from symdp.library import all_theorems
    from symdp.verify.registry import ENTRY_ORACLES, ORACLES

    by_id = {t.id: t for t in all_theorems(with_evidence=False)}
    assert ENTRY_ORACLES
    for entry, oracle in ENTRY_ORACLES.items():
        assert oracle in ORACLES, oracle
        assert entry in by_id, entry
        assert by_id[entry].oracle in (None, oracle), (entry, by_id[entry].oracle)


def test_finite_instances_independent_numpy_and_can_fail() -> None:
    """Mutual information and KL of a random instance against numpy (independent code); the reversed inequality
    (KL_ind <= I) fails on some instance, so the check can catch a wrong claim."""
    import numpy as np

    for seed in (1, 7, 12345):
        D, A, f = X.finite_instance(seed)
        d = np.array([float(v) for v in D])
        a = np.array([[float(v) for v in row] for row in A])
        marg = d @ a
        mi = float(np.sum(d[:, None] * a * np.log(a / marg[None, :])))
        kl = lambda p, q: float(np.sum(p * np.log(p / q)))  # noqa: E731
        kl_ind = sum(d[i] * d[j] * kl(a[i], a[j]) for i in range(len(d)) for j in range(len(d)))
        got_mi, got_kl = X.mutual_information(seed)
        assert abs(float(got_mi) - mi) < 1e-9 and abs(float(got_kl) - kl_ind) < 1e-9
        assert got_mi <= got_kl
        fm = np.array([[float(v) for v in row] for row in f])
        lhs, rhs = X.post_processing(seed)
        assert abs(float(lhs) - kl(a[0] @ fm, a[1] @ fm)) < 1e-9 and lhs <= rhs
    assert any(X.mutual_information(s)[1] > X.mutual_information(s)[0] * 1.01 for s in range(1, 20))


def test_poisson_subsampling_exact_delta_is_q_delta_and_dominates() -> None:
    """Balle-Barthe-Gaboardi: at eps' = log(1 + q(e^eps - 1)) the worst case delta is exactly q delta; random
    (eps, delta)-DP pairs subsampled alike never exceed it; a claim of q delta / 2 is refuted by the oracle."""
    import random

    from symdp.verify.oracles import hockey_stick, random_dp_pair

    e, d, q = mpmath.mpf("0.8"), mpmath.mpf("0.01"), mpmath.mpf("0.05")
    at = mpmath.log(1 + q * (mpmath.exp(e) - 1))
    worst = X.poisson_subsampled_delta(epsilon=e, delta=d, q=q, at=at)
    assert abs(worst - q * d) <= mpmath.mpf("1e-12") * q * d
    rng = random.Random(5)
    for _ in range(10):
        P, Q = random_dp_pair(e, d, k=5, rng=rng)
        mix = [q * a + (1 - q) * b for a, b in zip(P, Q)]
        assert max(hockey_stick(mix, Q, at), hockey_stick(Q, mix, at)) <= worst * (1 + mpmath.mpf("1e-9"))
    d_, q_ = sp.Symbol("delta", positive=True), sp.Symbol("q", positive=True)
    th = theorem("t.bbg_half", "planted", Kind.BOUND, SRC, lhs=sp.Symbol("delta_sub"), relation="<=", rhs=d_ * q_ / 2,
                 hypotheses=(d_ < 1, q_ <= 1), oracle="poisson_subsampled_kov",
                 conclusion=Property(
                     "DP", (sp.log(q_ * (sp.exp(eps) - 1) + 1), d_ * q_ / 2), "A"),
                 domain={d_: (sp.Rational(1, 10**6), sp.Rational(1, 2)), eps: (sp.Rational(1, 100), 10), q_: (sp.Rational(1, 1000), 1)})
    r = verify_theorem(th)
    assert r.verdict in (Verdict.REFUTED, Verdict.PARTIAL), r.evidence
