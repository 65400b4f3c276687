"""Soundness of the accountants (issue 11): no answer below a rigorous lower bound, no crash, no hang.

Lower bounds (symdp.verify.oracles_accounting, independent of the accountants):

* the sum-statistic threshold test (exact at T = 1 and q = 1, a valid lower bound everywhere);
* the exact mu-GDP profile in mpmath at q = 1 (Dong, Roth, Su 2022, Cor. 2.13) and the exact one-step
  profile of the subsampled Gaussian in mpmath at T = 1;
* slow tier: dp_accounting's optimistic PLD (pessimistic_estimate=False) and prv_accountant's lower bound.

Fast tier (CI): hypothesis with a fixed derandomised seed over sigma 0.01-1e4, q 1e-9-1, T 1-1e9,
delta 1e-300-0.5, epsilon 0-1e4 for the tight and RDP accountants (epsilon and delta), plus the
corners of issue 11 for every query.  Slow tier: the full sweep of bench/soundness.py.
"""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symdp.accountants as A
from symdp.verify import oracles_accounting as O
from symdp.verify.oracles_accounting import Case, run_case

BAD = ("below", "infinite", "crash", "hang", "unlabelled_approximation")

sigmas = st.floats(-2, 4).map(lambda x: float(10**x))
rates = st.one_of(st.just(1.0), st.floats(-9, 0).map(lambda x: float(10**x)))
steps = st.one_of(st.just(1), st.floats(0, 9).map(lambda x: round(10**x)))
deltas = st.one_of(st.floats(-300, math.log10(0.5)), st.floats(-12, -2)).map(lambda x: float(10**x))
epsilons = st.one_of(st.just(0.0), st.floats(-3, 4).map(lambda x: float(10**x)))

FAST = settings(max_examples=10, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def _check(case: Case, seconds: float = 60.0) -> None:
    o = run_case(case, seconds)
    assert o.status not in BAD, (o.status, case, o.value, o.lower, o.message)
    assert o.seconds < seconds


# ------------------------------------------------------------------ the oracles themselves
@pytest.mark.parametrize("s,T,d", [(3.0, 22000, 1e-8), (1.0, 1, 1e-5), (0.5, 100, 1e-300), (1e3, 10**9, 1e-10)])
def test_sum_test_is_exact_at_q1(s, T, d):
    """At q = 1 the sum is sufficient: the test bound equals the exact GDP epsilon (mpmath) to float precision."""
    lb = O.sum_test_epsilon_lower(s, 1.0, T, d)
    ex = O.gdp_epsilon_lower_mp(math.sqrt(T) / s, d)
    assert lb <= ex * (1 + 1e-12)
    assert lb == pytest.approx(ex, rel=1e-6)


@pytest.mark.parametrize("s,q,d", [(0.8, 0.3, 1e-5), (2.0, 0.01, 1e-8), (0.3, 0.5, 1e-3)])
def test_sum_test_is_exact_at_T1(s, q, d):
    """At T = 1 the threshold test is the likelihood-ratio test: the bound equals the exact one-step epsilon."""
    lb = O.sum_test_epsilon_lower(s, q, 1, d)
    ex = O.sgm_epsilon_lower_mp(s, q, d)
    assert lb <= ex * (1 + 1e-9)
    assert lb == pytest.approx(ex, rel=1e-4)


def test_lower_bound_catches_the_old_rdp_fault():
    """Issue 11's first example: a rigorous lower bound of ~19.1 where the old RDP printed 0.0285."""
    assert O.sum_test_epsilon_lower(10.0, 0.99, 1000, 1e-6) > 19.0


# ------------------------------------------------------------------ issue 11's examples
def test_issue11_examples():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = A.epsilon(noise_multiplier=10, sample_rate=0.99, steps=1000, delta=1e-6, accountant="rdp")
        assert r.epsilon >= O.sum_test_epsilon_lower(10, 0.99, 1000, 1e-6)
        r = A.epsilon(noise_multiplier=3, sample_rate=1.0, steps=22000, delta=1e-8)
        ex = O.gdp_epsilon_lower_mp(math.sqrt(22000) / 3, 1e-8)
        assert ex <= r.epsilon <= ex * (1 + 1e-12)  # exact 1498.7, not 709.78
        r = A.delta(noise_multiplier=1.1, sample_rate=1.0, steps=2340, epsilon=1000)
        exd = float(O.gdp_delta_mp(1000, math.sqrt(2340) / 1.1))
        assert exd <= r.delta <= exd * (1 + 1e-9)  # not NaN
        r = A.epsilon(noise_multiplier=33.4, sample_rate=4.8e-5, steps=6732, delta=1e-11)
        assert math.isfinite(r.epsilon) and r.epsilon >= O.sum_test_epsilon_lower(33.4, 4.8e-5, 6732, 1e-11)
        r = A.epsilon(noise_multiplier=0.01, sample_rate=0.004267, steps=2340, delta=1e-5)  # was an OverflowError
        assert math.isfinite(r.epsilon) and r.epsilon >= 1e5  # ~25 sampled steps of loss ~5000 each


def test_fallback_is_reported():
    r = A.epsilon(noise_multiplier=33.4, sample_rate=4.8e-5, steps=6732, delta=1e-13)
    assert math.isfinite(r.epsilon)
    if r.fallback is not None:  # the PLD's floor is above 1e-13: the RDP bound answers and says so
        assert r.fallback.startswith("rdp:")
        rdp = A.epsilon(noise_multiplier=33.4, sample_rate=4.8e-5, steps=6732, delta=1e-13, accountant="rdp").epsilon
        assert r.epsilon == rdp
    assert "fallback" in r.to_dict()


# ------------------------------------------------------------------ calibration on the safe side
@pytest.mark.parametrize("acc", ["tight", "rdp"])
@pytest.mark.parametrize("target", [1e-3, 0.3, 8.0, 1e3])
def test_calibration_safe_and_within_1e7(acc, target):
    q, T, d = 0.01, 1000, 1e-5
    r = A.calibrate_noise(target_epsilon=target, delta=d, sample_rate=q, steps=T, accountant=acc)
    e = A.epsilon(noise_multiplier=r.noise_multiplier, sample_rate=q, steps=T, delta=d, accountant=acc).epsilon
    assert e == r.epsilon <= target
    lower_sigma = r.noise_multiplier * (1 - 1e-7)
    e2 = A.epsilon(noise_multiplier=lower_sigma, sample_rate=q, steps=T, delta=d, accountant=acc).epsilon
    assert e2 > target * (1 - 1e-6)  # precision: a noise 1e-7 lower gives (about) the target or more
    assert O.sum_test_epsilon_lower(r.noise_multiplier, q, T, d) <= target


# ------------------------------------------------------------------ fast randomized tier
@FAST
@given(s=sigmas, q=rates, T=steps, d=deltas)
def test_epsilon_tight_and_rdp_above_lower_bound(s, q, T, d):
    for acc in ("tight", "rdp"):
        _check(Case("epsilon", acc, s, q, T, d), seconds=60)


@FAST
@given(s=sigmas, q=rates, T=steps, e=epsilons)
def test_delta_tight_and_rdp_above_lower_bound(s, q, T, e):
    for acc in ("tight", "rdp"):
        _check(Case("delta", acc, s, q, T, 1e-5, e), seconds=60)


@pytest.mark.parametrize("query,acc", [
    ("epsilon", "clt"), ("max_steps", "tight"), ("max_steps", "rdp"), ("odometer", "rdp"), ("odometer", "tight"),
    ("rdp_odometer", "rdp"), ("opacus", "tight"), ("opacus", "rdp"), ("calibrate_noise", "tight"),
])
@pytest.mark.parametrize("cfg", [(10.0, 0.99, 1000, 1e-6, 20.0), (0.7, 1.0, 50, 1e-300, 100.0)])
def test_every_query_corners(query, acc, cfg):
    s, q, T, d, e = cfg
    _check(Case(query, acc, s, q, T, d, e), seconds=60)


# ------------------------------------------------------------------ slow tier: the sweep and the peers' lower bounds
@pytest.mark.slow
def test_sweep_no_answer_below_a_lower_bound():
    import importlib.util
    import pathlib

    spec = importlib.util.spec_from_file_location("bench_soundness", pathlib.Path(__file__).parents[1] / "bench" / "soundness.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--n", "16", "--seed", "1", "--seconds", "120"]) == 0


@pytest.mark.slow
@settings(max_examples=25, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(s=st.floats(-0.3, 1.3).map(lambda x: float(10**x)), q=st.floats(-4, 0).map(lambda x: float(10**x)),
       T=st.integers(1, 3000), d=st.floats(-10, -3).map(lambda x: float(10**x)))
def test_above_dp_accounting_optimistic_pld(s, q, T, d):
    """dp_accounting's optimistic PLD (pessimistic_estimate=False) is a lower bound (up to its truncation)."""
    from dp_accounting.pld import privacy_loss_distribution as PLD

    pld = PLD.from_gaussian_mechanism(s, sampling_prob=q, pessimistic_estimate=False, value_discretization_interval=1e-3)
    lo = pld.self_compose(T).get_epsilon_for_delta(d)
    if not math.isfinite(lo):  # dp_accounting overflows past eps ~ 709 (its own fault): use the exact lower bound there
        lo = O.lower_epsilon(s, q, T, d)
    for acc in ("tight", "rdp"):
        ours = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant=acc).epsilon
        assert ours >= lo * (1 - 1e-9), (acc, ours, lo)


@pytest.mark.slow
@pytest.mark.parametrize("s,q,T,d", [(1.1, 256 / 60000, 2340, 1e-5), (0.8, 0.02, 5000, 1e-6), (2.0, 0.1, 10000, 1e-8)])
def test_above_prv_lower_bound(s, q, T, d):
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    acc = PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=q)],
                        eps_error=0.01, delta_error=d / 1000, max_self_compositions=[T])
    lo, _est, _hi = acc.compute_epsilon(delta=d, num_self_compositions=[T])
    for a in ("tight", "rdp"):
        assert A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant=a).epsilon >= lo


@pytest.mark.slow
def test_rdp_within_half_percent_of_dp_accounting_rdp():
    """Issue 14 item 3: on a grid, symdp's RDP epsilon is within 0.5% of dp_accounting's RDP (and never far above)."""
    from dp_accounting import dp_event as E
    from dp_accounting.rdp import rdp_privacy_accountant as RA

    worst = 0.0
    for s in (0.6, 0.8, 1.1, 2.0, 5.0):
        for q in (1e-3, 256 / 60000, 0.01, 0.1):
            for T in (100, 1000, 10000):
                for d in (1e-5, 1e-8):
                    acc = RA.RdpAccountant()
                    acc.compose(E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(s)), T))
                    ref = acc.get_epsilon(d)
                    ours = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant="rdp").epsilon
                    worst = max(worst, ours / ref - 1)
    assert worst <= 0.005, worst


# ------------------------------------------------------------------ the verifier's oracles for the accountants' entries
@pytest.mark.parametrize("name,pt", [
    ("sgm_privacy_loss", dict(q=0.3, sigma=0.8, x=1.7)),
    ("sgm_privacy_loss_inverse", dict(ell=2.5, q=0.05, sigma=1.3)),
    ("sgm_rdp_term", dict(alpha=7, j=3, q=0.01, sigma=1.1)),
    ("sgm_rdp_excess_term", dict(alpha=12, j=5, q=0.2, sigma=2.0)),
    ("sgm_rdp_frac_term1", dict(alpha=1.5, j=2, q=0.01, sigma=1.1)),
    ("sgm_rdp_frac_term2", dict(alpha=1.4625475010966202, j=0.29976699686368236, q=0.08677325208120472, sigma=5.649673005879503)),
])
def test_accounting_oracles_closed_forms_match_quadrature(name, pt):
    """Each oracle's SymPy-derived closed form equals its numeric definition (densities, quadrature, bisection)."""
    import mpmath
    import sympy as sp

    from symdp.verify.registry import get_oracle

    orc = get_oracle(name)
    with mpmath.workdps(40):
        num = orc.fn(**{k: mpmath.mpf(repr(v)) for k, v in pt.items()})
        syms = {k: sp.Symbol(k, positive=True) if k not in ("x", "ell") else sp.Symbol(k, real=True) for k in pt}
        ex = orc.exact(**syms)  # derived symbolically, as the verifier does, then evaluated at the point
        val = mpmath.mpf(str(sp.N(ex.subs({syms[k]: sp.Float(repr(v), 50) for k, v in pt.items()}), 40)))
    assert abs(val - num) <= mpmath.mpf("1e-9") * max(1, abs(num)), (name, val, num)  # quadrature: 1e-9


def test_gdp_log_space_profile_against_kernel_and_mpmath():
    """The q = 1 path's log-space delta (pld.gdp_log_delta) is >= the exact profile (mpmath), agrees with the generated
    bu2020.delta_of_eps_gdp kernel where that is finite, and stays finite where e^eps overflows."""
    import mpmath

    from symdp.accountants import pld
    from symdp.accountants._kernels import _kernel

    k = _kernel("bu2020.delta_of_eps_gdp", "numpy")
    for e, mu in [(0.01, 0.1), (1.0, 1.0), (5.0, 2.0), (50.0, 1.0), (1000.0, 44.0), (1498.7, 49.44), (1e4, 3.0)]:
        ld = float(pld.gdp_log_delta(e, mu))
        with mpmath.workdps(60):
            ex = O.gdp_delta_mp(e, mu, 60)
            lex = float(mpmath.log(ex)) if ex > 0 else -math.inf
        assert ld >= lex and ld <= lex + 1e-9 * max(1.0, abs(lex)), (e, mu, ld, lex)
        kv = float(k(epsilon=e, mu=mu))
        if math.isfinite(kv) and kv > 1e-300:
            assert float(pld.gdp_delta(e, mu)) == pytest.approx(kv, rel=1e-8)


@pytest.mark.parametrize("cfg", [(1e-300, 1.0, 1), (1e-300, 0.01, 1), (1e-150, 1.0, 10**9), (1e-150, 0.5, 10**9),
                                 (0.05, 0.5, 1)])
def test_corners_raise_no_numpy_runtime_warnings(cfg):
    """The order search and the grids meet inf - inf and overflows at these corners and handle them; numpy's
    RuntimeWarnings about them reached the user (``symdp account -s 1e-300 ...`` printed 25 'warning: invalid value
    encountered in subtract' lines).  Each call also answers: never NaN (the RDP delta at sigma 1e-300, q = 1 was NaN:
    0 * inf in the conversion's rounding margin), a tight epsilon finite or an inf the result explains."""
    import numpy as np

    s, q, T = cfg
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for acc in ("tight", "rdp"):
            r = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=np.array([1e-300, 1e-5, 0.5]), accountant=acc)
            assert not np.isnan(r.epsilon).any()
            if acc == "tight":  # finite, or an inf the result explains (RDP's inf is its bound: at most loose)
                assert np.isfinite(r.epsilon).all() or "float range" in (r.fallback or ""), r.fallback
            d = A.delta(noise_multiplier=s, sample_rate=q, steps=T, epsilon=np.array([0.0, 1.0, 500.0, 1e300]), accountant=acc)
            assert np.all((d.delta >= 0) & (d.delta <= 1))
        A.max_steps(target_epsilon=1e300, delta=1e-5, noise_multiplier=s, sample_rate=q)
