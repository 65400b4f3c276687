"""DP-SGD accountants: cross-checks with dp_accounting / Opacus / prv_accountant, brackets, safe-side properties."""

from __future__ import annotations

import json
import math
import warnings

import mpmath
import numpy as np
import pytest
import torch
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symdp.accountants as A
from symdp.accountants import pld as P
from symdp.accountants import rdp as R
from symdp.accountants._kernels import KERNEL_SOURCE, _kernel
from symdp.cli import main
from symdp.errors import InvalidParameterError, UnsupportedError
from symdp.library import get

MNIST_Q = 256 / 60000


def _dpacc_pld(s, q, T, d):
    from dp_accounting import dp_event as E
    from dp_accounting.pld import pld_privacy_accountant as PLD

    acc = PLD.PLDAccountant()
    acc.compose(E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(s)), T))
    return acc.get_epsilon(d)


def _dpacc_rdp(s, q, T, d, orders):
    from dp_accounting import dp_event as E
    from dp_accounting.rdp import rdp_privacy_accountant as RA

    acc = RA.RdpAccountant(orders=list(orders))
    acc.compose(E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(s)), T))
    return acc.get_epsilon(d)


# ------------------------------------------------------------------ kernels come from the library
def test_kernels_are_generated_code():
    A.epsilon(noise_multiplier=1.0, sample_rate=0.01, steps=10, delta=1e-5, accountant="rdp")
    A.epsilon(noise_multiplier=1.0, sample_rate=0.01, steps=10, delta=1e-5)
    used = {k: v for k, v in KERNEL_SOURCE.items() if k[0].startswith("accounting.")}
    assert used and all(v == "codegen" for v in used.values()), used


def test_loss_inverse_kernel_inverts_loss():
    L = _kernel("accounting.sgm_loss_remove")
    X = _kernel("accounting.sgm_loss_remove_inverse")
    x = np.linspace(-2, 3, 11)
    for s, q in [(0.8, 0.01), (2.0, 0.3), (1.0, 1.0)]:
        ell = L(x=x, q=q, sigma=s)
        np.testing.assert_allclose(X(ell=ell, q=q, sigma=s), x, rtol=1e-9, atol=1e-9)


# ------------------------------------------------------------------ RDP
@pytest.mark.parametrize("s,q,T,d", [(1.1, MNIST_Q, 2340, 1e-5), (0.7, 0.05, 500, 1e-6), (2.0, 0.1, 2000, 1e-8), (1.0, 1.0, 10, 1e-5)])
def test_rdp_matches_dp_accounting_at_integer_orders(s, q, T, d):
    ours = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant="rdp", orders=R.INT_ORDERS).epsilon
    ref = _dpacc_rdp(s, q, T, d, R.INT_ORDERS)
    assert ours >= ref * (1 - 1e-12)
    assert ours == pytest.approx(ref, rel=1e-8)


def test_rdp_default_orders_close_to_dp_accounting_defaults():
    ours = A.epsilon(noise_multiplier=1.1, sample_rate=MNIST_Q, steps=23400, delta=1e-5, accountant="rdp").epsilon
    from dp_accounting import dp_event as E
    from dp_accounting.rdp import rdp_privacy_accountant as RA

    acc = RA.RdpAccountant()
    acc.compose(E.SelfComposedDpEvent(E.PoissonSampledDpEvent(MNIST_Q, E.GaussianDpEvent(1.1)), 23400))
    ref = acc.get_epsilon(1e-5)
    assert ref * 0.995 <= ours <= ref * 1.01


def _mp_rdp(s: float, q: float, a: float) -> float:
    """Exact RDP of the sampled Gaussian (remove direction) by mpmath quadrature, 40 digits."""
    with mpmath.workdps(40):
        s_, q_, a_ = mpmath.mpf(s), mpmath.mpf(q), mpmath.mpf(a)
        f = lambda x: mpmath.npdf(x, 0, s_) * (1 - q_ + q_ * mpmath.exp((2 * x - 1) / (2 * s_ * s_))) ** a_  # noqa: E731
        v = mpmath.quad(f, [-mpmath.inf, -10 * s_, 0, mpmath.mpf(1) / 2, 1, 10 * s_ + 1, mpmath.inf])
        return float(mpmath.log(v) / (a_ - 1))


@pytest.mark.parametrize("s,q", [(1.1, 0.004), (0.7, 0.05), (2.0, 0.1), (5.0, 0.9)])
def test_fractional_orders_exact_series(s, q):
    """Fractional orders: the MTZ series (Mironov, Talwar, Zhang 2019, Sec. 3.3) agrees with Opacus's copy of it and
    with mpmath quadrature, and the value used is never below the quadrature (safe side)."""
    from opacus.accountants.analysis.rdp import compute_rdp

    orders = [1.05, 1.5, 2.5, 6.7, 10.5]
    ours = R.sgm_rdp(noise_multiplier=s, sample_rate=q, orders=orders)
    peer = compute_rdp(q=q, noise_multiplier=s, steps=1, orders=orders)
    exact = np.array([_mp_rdp(s, q, a) for a in orders])
    assert np.all(ours >= exact * (1 - 1e-12))
    np.testing.assert_allclose(ours, exact, rtol=1e-6)  # the added rounding bound is ~1e-8 relative
    np.testing.assert_allclose(ours, peer, rtol=2e-3)


def test_integer_orders_above_171_exact():
    """Log-binomials: orders far above 171 (where gamma overflows) against mpmath's exact binomial sum."""
    s, q = 10.0, 0.99
    orders = np.array([200.0, 512.0, 1024.0])
    ours = R.sgm_rdp(noise_multiplier=s, sample_rate=q, orders=orders)
    for a, v in zip(orders, ours):
        with mpmath.workdps(50):
            A_ = mpmath.fsum(mpmath.binomial(int(a), k) * mpmath.mpf(q) ** k * (1 - mpmath.mpf(q)) ** (int(a) - k)
                            * mpmath.exp(mpmath.mpf(k * k - k) / (2 * s * s)) for k in range(int(a) + 1))
            ex = float(mpmath.log(A_) / (a - 1))
        assert ex * (1 - 1e-12) <= v <= ex * (1 + 1e-9)


def test_rdp_batched_shapes_and_values():
    s = np.array([0.8, 1.1, 2.0])
    T = np.array([[100], [1000]])
    r = A.epsilon(noise_multiplier=s, sample_rate=0.01, steps=T, delta=1e-5, accountant="rdp")
    assert r.epsilon.shape == (2, 3)
    for i in range(2):
        for k in range(3):
            one = A.epsilon(noise_multiplier=s[k], sample_rate=0.01, steps=int(T[i, 0]), delta=1e-5, accountant="rdp").epsilon
            assert r.epsilon[i, k] == pytest.approx(one, rel=1e-12)
    assert np.all(np.diff(r.epsilon, axis=1) < 0) and np.all(r.epsilon[1] > r.epsilon[0])


def test_rdp_torch_batch_equals_numpy():
    s = np.array([0.6, 1.0, 3.0])
    q = np.array([0.001, 0.05, 1.0])
    t = A.rdp_torch(noise_multiplier=s, sample_rate=q, device="cpu")
    np.testing.assert_allclose(t.numpy(), R.sgm_rdp(noise_multiplier=s, sample_rate=q), rtol=1e-12)


def test_without_replacement_rdp_and_refusals():
    r = A.epsilon(noise_multiplier=2.0, sample_rate=0.01, steps=1000, delta=1e-5, accountant="rdp", sampling="without_replacement")
    assert r.is_upper_bound and 0 < r.epsilon < 50
    assert "accounting.wor_rdp_term2" in r.verdicts
    # replace-one with gamma = 1 and sigma: no amplification -> at least the plain Gaussian's RDP at order 2 in its own units
    w = R.wor_rdp(noise_multiplier=2.0, sample_rate=1.0, orders=[2.0])
    assert w[0] >= 2.0 / (2 * 4.0) * (1 - 1e-12)
    with pytest.raises(UnsupportedError, match="RDP accountant only"):
        A.epsilon(noise_multiplier=2.0, sample_rate=0.01, steps=10, delta=1e-5, accountant="tight", sampling="without_replacement")
    with pytest.raises(UnsupportedError, match="shuffl"):
        A.epsilon(noise_multiplier=2.0, sample_rate=0.01, steps=10, delta=1e-5, sampling="shuffle")


# ------------------------------------------------------------------ tight accountant
@pytest.mark.parametrize(
    "s,q,T,d",
    [(1.1, MNIST_Q, 2340, 1e-5), (0.5, MNIST_Q, 2340, 1e-5), (2.0, MNIST_Q, 23400, 1e-8), (0.8, 0.05, 2000, 1e-6), (3.0, 0.02, 500, 1e-6)],
)
def test_tight_within_one_percent_of_dp_accounting_pld(s, q, T, d):
    r = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d)
    ref = _dpacc_pld(s, q, T, d)
    assert r.is_upper_bound
    assert abs(r.epsilon / ref - 1) < 0.01, (r.epsilon, ref)
    assert r.error_bound is not None and r.error_bound < 0.01 * r.epsilon


def test_tight_epsilon_beyond_exp_overflow():
    # e^eps overflows for eps > 709.78: the profile must still be evaluated (it used to stop at 709.8, below the truth)
    s, q, T, d = 0.5, 0.3, 2000, 1e-5
    r = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d)
    ref = _dpacc_pld(s, q, T, d)
    assert r.epsilon > 800 and abs(r.epsilon / ref - 1) < 0.01, (r.epsilon, ref)
    assert 0 < r.error_bound < 0.01 * r.epsilon


@pytest.mark.parametrize("s,q,T,d", [(1.1, MNIST_Q, 2340, 1e-5), (0.8, 0.05, 1000, 1e-6)])
def test_tight_above_prv_lower_bound(s, q, T, d):
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

    acc = PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=q)],
                        max_self_compositions=[T], eps_error=0.05, delta_error=d / 100)
    lo, _est, hi = acc.compute_epsilon(delta=d, num_self_compositions=[T])
    ours = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d).epsilon
    assert ours >= lo
    assert ours <= hi * 1.01


def _exact_delta_one_step(eps, s, q):
    """max over both directions of the exact one-step profile (library closed forms, mpmath)."""
    rem = get("accounting.sgm_hockey_remove").evaluate(epsilon=eps, q=q, sigma=s, dps=40)
    if eps < -math.log1p(-q):
        add = get("accounting.sgm_hockey_add").evaluate(epsilon=eps, q=q, sigma=s, dps=40)
    else:
        add = mpmath.mpf(0)
    return max(rem, add)


@pytest.mark.parametrize("s,q", [(1.0, 0.1), (0.7, 0.3), (2.0, 0.05)])
def test_tight_bracket_single_step_exact(s, q):
    eps = np.array([0.05, 0.2, 0.5, 1.0])
    ours = A.delta(noise_multiplier=s, sample_rate=q, steps=1, epsilon=eps).delta
    for e, d in zip(eps, ours):
        ex = float(_exact_delta_one_step(float(e), s, q))
        assert d >= ex * (1 - 1e-9) - 1e-15
        assert d <= ex * 1.05 + 1e-12


def _exact_delta_two_steps(eps, s, q):
    """delta of two composed steps, remove direction: E_{x~P}[H_1(eps - L(x))] by mpmath quadrature."""
    with mpmath.workdps(30):  # local: other modules' mpmath references read the global precision
        return _exact_delta_two_steps_30(eps, s, q)


def _exact_delta_two_steps_30(eps, s, q):
    s, q, eps = mpmath.mpf(s), mpmath.mpf(q), mpmath.mpf(eps)

    def L(x):
        return mpmath.log(1 - q + q * mpmath.exp((2 * x - 1) / (2 * s**2)))

    def H1(e):  # one-step remove-direction profile at any real e
        if mpmath.exp(e) <= 1 - q:
            return 1 - mpmath.exp(e)
        xs = s**2 * mpmath.log((mpmath.exp(e) - (1 - q)) / q) + mpmath.mpf(1) / 2
        Pt = (1 - q) * mpmath.ncdf(-xs / s) + q * mpmath.ncdf((1 - xs) / s)
        Qt = mpmath.ncdf(-xs / s)
        return Pt - mpmath.exp(e) * Qt

    def dens(x):
        return (1 - q) * mpmath.npdf(x, 0, s) + q * mpmath.npdf(x, 1, s)

    return mpmath.quad(lambda x: dens(x) * H1(eps - L(x)), [-12 * s, 0, 1, 1 + 12 * s])


def test_tight_bracket_two_steps_remove_direction():
    s, q = 1.0, 0.2
    parts = [(P.discretize_step(s, q, 1e-3, "remove"), 2)]
    comp = P.compose(parts)
    for e in (0.1, 0.4, 0.8):
        ex = float(_exact_delta_two_steps(e, s, q))
        d = float(comp.delta(e))
        assert ex * (1 - 1e-9) <= d <= ex * 1.02 + 1e-12, (e, ex, d)


def test_tight_delta_epsilon_consistent_and_monotone():
    r = A.epsilon(noise_multiplier=1.0, sample_rate=0.02, steps=500, delta=1e-5)
    back = A.delta(noise_multiplier=1.0, sample_rate=0.02, steps=500, epsilon=r.epsilon).delta
    assert back <= 1e-5 * (1 + 1e-6)
    e = A.epsilon(noise_multiplier=1.0, sample_rate=0.02, steps=[100, 200, 400], delta=1e-5).epsilon
    assert np.all(np.diff(e) > 0)


def test_tight_never_above_rdp_and_clt_labelled():
    s, q, T, d = 1.0, 0.01, 3000, 1e-5
    t = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d)
    r = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant="rdp")
    assert t.epsilon <= r.epsilon
    with pytest.warns(UserWarning, match="not an upper bound"):
        c = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant="clt")
    assert c.is_upper_bound is False and "APPROXIMATION" in c.approximation
    assert c.to_dict()["is_upper_bound"] is False
    assert set(c.verdicts) == {"bu2020.clt_mu", "bu2020.delta_of_eps_gdp"}


def test_schedule_split_equals_homogeneous():
    a = A.epsilon(noise_multiplier=1.2, sample_rate=0.02, steps=600, delta=1e-5, discretization=1e-3).epsilon
    b = A.epsilon(schedule=[(1.2, 0.02, 200), (1.2, 0.02, 400)], delta=1e-5, discretization=1e-3).epsilon
    assert b == pytest.approx(a, rel=1e-9)
    # a noisier second phase costs less than continuing with the first noise
    c = A.epsilon(schedule=[(1.2, 0.02, 200), (3.0, 0.02, 400)], delta=[1e-5, 1e-6]).epsilon
    assert c.shape == (2,) and c[0] < a and c[1] > c[0]
    rr = A.epsilon(schedule=[(1.2, 0.02, 200), (3.0, 0.02, 400)], delta=1e-5, accountant="rdp").epsilon
    assert c[0] <= rr


def test_full_batch_is_exact_gaussian():
    r = A.epsilon(noise_multiplier=2.0, sample_rate=1.0, steps=16, delta=1e-5)
    mu = 4 / 2.0
    d = get("bu2020.delta_of_eps_gdp").evaluate(epsilon=r.epsilon, mu=mu)
    assert float(d) <= 1e-5 * (1 + 1e-9)
    assert float(get("bu2020.delta_of_eps_gdp").evaluate(epsilon=r.epsilon * 0.999, mu=mu)) > 1e-5


def test_degenerate_cases():
    assert A.epsilon(noise_multiplier=1.0, sample_rate=0.1, steps=0, delta=1e-5).epsilon == 0.0
    assert A.epsilon(noise_multiplier=1.0, sample_rate=0.1, steps=0, delta=1e-5, accountant="rdp").epsilon == 0.0
    assert A.delta(noise_multiplier=1.0, sample_rate=0.1, steps=0, epsilon=0.5).delta == 0.0
    big = A.epsilon(noise_multiplier=1e3, sample_rate=0.01, steps=100, delta=1e-5)
    assert 0 <= big.epsilon < 1e-3
    small = A.epsilon(noise_multiplier=0.3, sample_rate=0.5, steps=10, delta=1e-5)
    assert math.isfinite(small.epsilon) and small.epsilon > 10


@pytest.mark.parametrize("acc", ["tight", "rdp"])
def test_delta_that_underflows_is_not_reported_as_zero(acc):
    """DP-SGD's privacy loss is unbounded, so delta(eps) > 0 at every eps: at eps = 500 the rigorous bounds
    underflow, and 0.0 would be below the truth; the smallest positive double is above it. Exact zeros (no
    sampled step) stay 0, in scalar, array and schedule calls."""
    tiny = np.nextafter(0.0, 1.0)
    with mpmath.workdps(60):  # e.g. one Gaussian step (q = 1, mu = 1): delta(500) > 0 but below every double
        g = mpmath.ncdf(-500 + mpmath.mpf(1) / 2) - mpmath.exp(500) * mpmath.ncdf(-500 - mpmath.mpf(1) / 2)
        assert 0 < g < mpmath.mpf(float(tiny)) / 2
    assert A.delta(noise_multiplier=1.0, sample_rate=1.0, steps=1, epsilon=500, accountant=acc).delta == tiny
    assert A.delta(noise_multiplier=1.0, sample_rate=0.01, steps=1000, epsilon=500, accountant=acc).delta == tiny
    arr = A.delta(noise_multiplier=[1.0, 2.0], sample_rate=[0.01, 0.5], steps=[1000, 0], epsilon=[500.0, 50.0],
                  accountant=acc).delta
    assert arr[0] == tiny and arr[1] == 0.0
    sch = A.delta(schedule=[(1.0, 0.01, 10), (2.0, 0.02, 10)], epsilon=[1.0, 900.0], accountant=acc).delta
    assert sch[0] > 1e-9 and sch[1] == tiny
    assert A.delta(noise_multiplier=1.0, sample_rate=0.1, steps=0, epsilon=0.5, accountant=acc).delta == 0.0


# ------------------------------------------------------------------ composition theorems
def test_composition_theorem_accountants_carry_verdicts():
    for acc in ("advanced", "he2021"):
        r = A.epsilon(noise_multiplier=2.0, sample_rate=0.05, steps=100, delta=1e-5, accountant=acc)
        ids = A.api.IDS[acc]
        assert set(r.verdicts) == set(ids)
        assert all(v == get(i).status for i, v in r.verdicts.items())
        tight = A.epsilon(noise_multiplier=2.0, sample_rate=0.05, steps=100, delta=1e-5).epsilon
        if r.is_upper_bound:
            assert r.epsilon >= tight * (1 - 1e-9)


# ------------------------------------------------------------------ calibration (safe side)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    eps=st.floats(0.3, 10.0),
    q=st.floats(1e-3, 0.2),
    T=st.integers(10, 5000),
    d=st.sampled_from([1e-5, 1e-6, 1e-8]),
)
def test_calibrate_rdp_safe_side(eps, q, T, d):
    r = A.calibrate_noise(target_epsilon=eps, delta=d, sample_rate=q, steps=T, accountant="rdp")
    e = A.epsilon(noise_multiplier=r.noise_multiplier, sample_rate=q, steps=T, delta=d, accountant="rdp").epsilon
    assert e <= eps and r.epsilon <= eps
    worse = A.epsilon(noise_multiplier=r.noise_multiplier * (1 - 3e-3), sample_rate=q, steps=T, delta=d, accountant="rdp").epsilon
    assert worse > eps * (1 - 1e-2)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eps=st.floats(0.5, 8.0), q=st.floats(2e-3, 0.1), T=st.integers(50, 3000))
def test_calibrate_tight_safe_side(eps, q, T):
    r = A.calibrate_noise(target_epsilon=eps, delta=1e-5, sample_rate=q, steps=T)
    assert r.epsilon <= eps and r.is_upper_bound
    # an independent evaluation on a finer grid is still an upper bound and below the target
    e = A.epsilon(noise_multiplier=r.noise_multiplier, sample_rate=q, steps=T, delta=1e-5, discretization=2e-4).epsilon
    assert e <= eps * (1 + 2e-3)


def test_max_steps_safe_and_maximal():
    for acc in ("rdp", "tight"):
        m = A.max_steps(target_epsilon=2.0, delta=1e-5, noise_multiplier=1.0, sample_rate=0.01, accountant=acc)
        e = A.epsilon(noise_multiplier=1.0, sample_rate=0.01, steps=m.steps, delta=1e-5, accountant=acc).epsilon
        e1 = A.epsilon(noise_multiplier=1.0, sample_rate=0.01, steps=m.steps + 1, delta=1e-5, accountant=acc).epsilon
        assert e <= 2.0 < e1 * (1 + 1e-3)


# ------------------------------------------------------------------ odometers
def test_rdp_odometer_equals_accountant_every_step():
    odo = A.RDPOdometer(device="cpu")
    one_call = A.odometer(noise_multiplier=1.1, sample_rate=0.01, steps=60, delta=1e-5)
    batch = A.epsilon(noise_multiplier=1.1, sample_rate=0.01, steps=np.arange(1, 61), delta=1e-5, accountant="rdp").epsilon
    for t in range(60):
        odo.step(1.1, 0.01)
        # host numbers: the accountant's own per-step values, so the same epsilon
        assert float(odo.epsilon(1e-5)) == pytest.approx(batch[t], rel=1e-10)
    np.testing.assert_allclose(one_call, batch, rtol=1e-12)
    assert odo.steps == 60 and isinstance(odo.epsilon(1e-5), torch.Tensor)


def test_rdp_odometer_schedule_tensors_and_state():
    odo = A.RDPOdometer(device="cpu")
    odo.step(torch.tensor(1.0, dtype=torch.float64), torch.tensor(0.02, dtype=torch.float64), steps=30)
    odo.step(2.0, 0.05, steps=20)
    ref = A.epsilon(schedule=[(1.0, 0.02, 30), (2.0, 0.05, 20)], delta=1e-6, accountant="rdp").epsilon
    # a tensor step is evaluated on the device, fractional orders by convexity: safe side, within a few percent
    assert ref * (1 - 1e-12) <= float(odo.epsilon(1e-6)) <= ref * 1.05
    tl = A.odometer(schedule=[(1.0, 0.02, 30), (2.0, 0.05, 20)], delta=1e-6)
    assert tl[-1] == pytest.approx(ref, rel=1e-10) and np.all(np.diff(tl) >= 0)
    before = odo.state_dict()
    for bad in [(0.0, 0.1), (-1.0, 0.1), (1.0, 0.0), (1.0, 1.5), (float("nan"), 0.1), (float("inf"), 0.1), (torch.tensor(-1.0), 0.1)]:
        with pytest.raises(InvalidParameterError):
            odo.step(*bad)
    after = odo.state_dict()
    assert torch.equal(before["rdp"], after["rdp"]) and before["steps"] == after["steps"]
    fresh = A.RDPOdometer(device="cpu")
    fresh.load_state_dict(after)
    assert float(fresh.epsilon(1e-6)) == float(odo.epsilon(1e-6))


def test_tight_odometer_matches_accountant():
    e = A.odometer(noise_multiplier=1.0, sample_rate=0.02, steps=400, delta=1e-5, accountant="tight", at=[100, 400])
    ref = A.epsilon(noise_multiplier=1.0, sample_rate=0.02, steps=[100, 400], delta=1e-5).epsilon
    np.testing.assert_allclose(e, ref, rtol=1e-12)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(noise_multiplier=0.0), "noise_multiplier"),
        (dict(noise_multiplier=-1.0), "noise_multiplier"),
        (dict(noise_multiplier=float("inf")), "noise_multiplier"),
        (dict(sample_rate=0.0), "sample_rate"),
        (dict(sample_rate=1.5), "sample_rate"),
        (dict(steps=10.5), "steps"),
        (dict(steps=-1), "steps"),
        (dict(delta=0.0), "delta"),
        (dict(delta=1.0), "delta"),
        (dict(delta=float("nan")), "delta"),
        (dict(noise_multiplier=[1.0, -2.0]), "noise_multiplier"),
    ],
)
@pytest.mark.parametrize("acc", ["tight", "rdp", "clt"])
def test_bad_inputs_name_the_parameter(kw, match, acc):
    args = dict(noise_multiplier=1.0, sample_rate=0.01, steps=100, delta=1e-5, accountant=acc)
    args.update(kw)
    with pytest.raises(InvalidParameterError, match=match):
        A.epsilon(**args)


def test_bad_inputs_other_entry_points():
    with pytest.raises(InvalidParameterError, match="epsilon"):
        A.delta(noise_multiplier=1.0, sample_rate=0.01, steps=10, epsilon=-1.0)
    with pytest.raises(InvalidParameterError, match="target_epsilon"):
        A.calibrate_noise(target_epsilon=0.0, delta=1e-5, sample_rate=0.01, steps=10)
    with pytest.raises(InvalidParameterError, match="schedule"):
        A.epsilon(schedule=[(1.0, 0.01)], delta=1e-5)
    with pytest.raises(InvalidParameterError, match="accountant"):
        A.epsilon(noise_multiplier=1.0, sample_rate=0.01, steps=10, delta=1e-5, accountant="magic")
    with pytest.raises(InvalidParameterError, match="steps"):
        A.odometer(noise_multiplier=1.0, sample_rate=0.01, steps=-3, delta=1e-5)


# ------------------------------------------------------------------ CLI
def test_cli_account_and_calibrate_json():
    runner = CliRunner()
    res = runner.invoke(main, ["account", "--noise-multiplier", "1.1", "--sample-rate", "0.01", "--steps", "1000", "--delta", "1e-5", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert {"epsilon", "delta", "accountant", "is_upper_bound"} <= set(d) and d["is_upper_bound"] is True
    assert d["epsilon"] == pytest.approx(A.epsilon(noise_multiplier=1.1, sample_rate=0.01, steps=1000, delta=1e-5).epsilon)
    res = runner.invoke(main, ["account", "-s", "1.1", "-q", "0.01", "-T", "1000", "-d", "1e-5", "-a", "clt"])
    assert res.exit_code == 0 and "is_upper_bound: False" in res.output
    res = runner.invoke(main, ["calibrate", "--target-epsilon", "2", "--delta", "1e-5", "--sample-rate", "0.01", "--steps", "1000", "--json"])
    assert res.exit_code == 0, res.output
    c = json.loads(res.output)
    assert c["epsilon"] <= 2.0 and c["noise_multiplier"] > 0
    res = runner.invoke(main, ["account", "-s", "1.1", "-q", "0", "-T", "10", "-d", "1e-5"])
    assert res.exit_code == 2 and "--sample-rate" in res.output
    res = runner.invoke(main, ["account", "-s", "1.1", "-q", "0.1", "-T", "10", "-d", "1e-5", "--sampling", "shuffle"])
    assert res.exit_code == 2 and "shuffl" in res.output


# ------------------------------------------------------------------ Opacus adapter
def test_opacus_adapter_in_privacy_engine():
    from opacus import PrivacyEngine

    from symdp.accountants.opacus_adapter import SymdpAccountant, register

    register()
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
    loader = torch.utils.data.DataLoader(data, batch_size=16)
    engine = PrivacyEngine(accountant="symdp")
    assert isinstance(engine.accountant, SymdpAccountant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, opt, loader = engine.make_private(module=model, optimizer=opt, data_loader=loader, noise_multiplier=1.3, max_grad_norm=1.0)
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    n = sum(int(h[2]) for h in engine.accountant.history)  # optimisation steps (len() counts history entries, as Opacus)
    assert n >= 1
    eps = engine.get_epsilon(1e-5)
    ref = A.epsilon(noise_multiplier=1.3, sample_rate=16 / 64, steps=n, delta=1e-5).epsilon
    assert eps == pytest.approx(ref, rel=1e-12)
    sd = engine.accountant.state_dict()
    acc2 = SymdpAccountant()
    acc2.load_state_dict(sd)
    assert acc2.get_epsilon(1e-5) == eps
    with pytest.raises(InvalidParameterError):
        engine.accountant.step(noise_multiplier=-1.0, sample_rate=0.1)
    assert sum(int(h[2]) for h in engine.accountant.history) == n  # an invalid step leaves the history unchanged


def test_rdp_pruned_order_grid_equals_the_full_grid():
    """Exact fractional orders are evaluated only where their lower bound can win; the answer must be the
    full grid's minimum, to the bit, in both directions (epsilon at delta, delta at epsilon)."""
    def full(kind, curve, target, n):
        conv = R.rdp_to_epsilon if kind == "epsilon" else R.rdp_to_delta
        key = "delta" if kind == "epsilon" else "epsilon"
        v, o = conv(rdp=curve(R.DEFAULT_ORDERS, np.arange(n)), orders=R.DEFAULT_ORDERS, **{key: target})
        return np.array(v, dtype=float), np.array(o, dtype=float)

    rng = np.random.default_rng(11)
    n = 60
    s, q = rng.uniform(0.3, 5.0, n), 10 ** rng.uniform(-4, 0, n)
    T, d, e = rng.integers(1, 100000, n), rng.choice([1e-3, 1e-5, 1e-8, 1e-12], n), rng.uniform(0.05, 30, n)
    q[:4] = 1.0
    # corners where the CKS conversion goes negative (the answer is clamped at 0; soundness sweep cases)
    s[4:7], q[4:7], T[4:7], d[4:7], e[4:7] = [1e4, 66.34, 3.0], [1e-9, 2.3e-9, 1e-6], [1, 1, 10], [0.5, 1.3e-3, 0.9], [1e-3, 127.8, 50.0]
    kw = dict(noise_multiplier=s, sample_rate=q, steps=T, accountant="rdp")
    new_e, new_d = A.epsilon(delta=d, **kw).epsilon, A.delta(epsilon=e, **kw).delta
    orig = R._default_grid_pruned
    R._default_grid_pruned = full
    try:
        old_e, old_d = A.epsilon(delta=d, **kw).epsilon, A.delta(epsilon=e, **kw).delta
    finally:
        R._default_grid_pruned = orig
    assert np.array_equal(new_e, old_e)
    assert np.array_equal(new_d, old_d)
    assert np.all(new_e >= 0) and np.all((new_d >= 0) & (new_d <= 1))
