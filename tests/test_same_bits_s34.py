"""Same-bits fast paths of session 34 (issue 25, the cold audit): each against the loop it replaced.

* :func:`symdp.numeric.iterate` (a deterministic iteration that revisits a state is periodic from there) against
  the plain loop: on integer maps with a pre-period and a cycle, on Wang et al. Thm 9's exponentiated-gradient
  descent (:func:`symdp.verify.oracles_posterior.map_thm9`) and on Bu et al.'s duality golden-section search
  (:func:`symdp.verify.oracles_conversion.map_duality`), bit for bit;
* :func:`symdp.verify.oracles_gaussian._hs_from_pmf` over the suffix of atoms above eps against the boolean
  selection it replaced, bit for bit, with and without shared losses;
* ``GDPEpsilon``'s bisection-Newton with the shared ``e^eps Phi(-eps/mu - mu/2)`` against the two-function form it
  replaced, bit for bit, and against a 60-digit root of the profile.
"""

from __future__ import annotations

import random

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdp.numeric import iterate


def _loop(step, state, n):
    for _ in range(n):
        state = step(state)
    return state


@pytest.mark.parametrize("mod", [7, 97, 1000])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 13, 50, 999, 1000, 4001])
def test_iterate_equals_the_loop_on_integer_maps(mod: int, n: int) -> None:
    for a in range(3):
        step = lambda x, a=a: (x * x + a + 1) % mod  # noqa: E731 - pre-period, then a cycle of some length
        for x0 in (0, 1, 5, 11):
            assert iterate(step, x0, n, lambda x: x) == _loop(step, x0, n)


def test_iterate_stops_early_on_a_cycle() -> None:
    calls = []

    def step(x):
        calls.append(x)
        return (x + 1) % 5

    assert iterate(step, 0, 10**6, lambda x: x) == 10**6 % 5
    assert len(calls) == 5


def _eg_loop(q, Lsum, g, n):
    """map_thm9's loop as it was written before session 34."""
    eta = g / 2
    for _ in range(n):
        grad = [(mpmath.log(x) + 1) / g + y for x, y in zip(q, Lsum)]
        w = [x * mpmath.exp(-eta * d) for x, d in zip(q, grad)]
        s = mpmath.fsum(w)
        q = [x / s for x in w]
    return q


def test_thm9_exponentiated_gradient_same_bits() -> None:
    from symdp.verify.oracles_posterior import EG_STEPS, _eg_step, _mpf_key

    rng = random.Random(11)
    with mpmath.workdps(30):
        for _ in range(3):
            nh = rng.choice((2, 3, 4, 6))
            Lsum = [mpmath.mpf(rng.uniform(0, 10)) for _ in range(nh)]
            g = mpmath.mpf(10) ** mpmath.mpf(rng.uniform(-1, 0.5))
            q0 = [mpmath.mpf(1) / nh] * nh
            for n in (7, 150, EG_STEPS):
                fast = iterate(lambda q, L=Lsum, g=g: _eg_step(q, L, g), q0, n, _mpf_key)
                assert _mpf_key(fast) == _mpf_key(_eg_loop(q0, Lsum, g, n))


def _golden_loop(mu, e):
    """map_duality's search as it was written before session 34."""
    from symdp.verify.oracles_tradeoff import gaussian_tradeoff

    m_, y = mpmath.mpf(mu), -mpmath.exp(mpmath.mpf(e))
    g = lambda a: y * a - gaussian_tradeoff(mu=m_, alpha=a)  # noqa: E731
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    for _ in range(160):
        a1, a2 = lo + (hi - lo) * mpmath.mpf("0.381966011250105151795"), hi - (hi - lo) * mpmath.mpf("0.381966011250105151795")
        if g(a1) < g(a2):
            lo = a1
        else:
            hi = a2
    return lo, hi, 1 + g((lo + hi) / 2)


@pytest.mark.parametrize(("mu", "e"), [("0.3", "0"), ("2.5", "4"), ("1", "0.5")])
def test_duality_golden_section_same_bits(mu: str, e: str) -> None:
    from symdp.verify.oracles_conversion import _bracket_key, _conjugate_objective, _golden_bracket_step
    from symdp.verify.oracles_gaussian import gaussian_profile

    with mpmath.workdps(30):
        g = _conjugate_objective(-mpmath.exp(mpmath.mpf(e)), mpmath.mpf(mu))
        lo, hi = iterate(lambda b: _golden_bracket_step(g, b), (mpmath.mpf(0), mpmath.mpf(1)), 160, _bracket_key)
        dual = 1 + g((lo + hi) / 2)
        rlo, rhi, rdual = _golden_loop(mu, e)
        assert (lo._mpf_, hi._mpf_, dual._mpf_) == (rlo._mpf_, rhi._mpf_, rdual._mpf_)
        # and the value is the profile it is compared with (the claim is true)
        assert abs(dual - gaussian_profile(mu=mpmath.mpf(mu), at=mpmath.mpf(e))) < mpmath.mpf(10) ** -20


def _hs_mask(offset, pmf, h, eps):
    """_hs_from_pmf as it was written before session 34."""
    losses = (offset + np.arange(len(pmf))) * h
    sel = losses > eps
    return float(np.sum(pmf[sel] * -np.expm1(eps - losses[sel])))


def test_hs_from_pmf_suffix_same_bits() -> None:
    from symdp.verify.oracles_gaussian import _hs_from_pmf, _pmf_losses

    rng = np.random.default_rng(5)
    for n, offset, h in ((1, 0, 0.1), (17, -5, 0.37), (5000, -2400, 2e-4), (200_001, -90_000, 1e-3)):
        pmf = rng.random(n) * 1e-3
        losses = _pmf_losses(offset, pmf, h)
        grid = [losses[0] - 1, losses[0], losses[-1], losses[-1] + 1, 0.0, -0.0]
        grid += list(losses[rng.integers(0, n, 5)]) + list(rng.uniform(losses[0], losses[-1], 5))
        for eps in grid:
            want = _hs_mask(offset, pmf, h, float(eps))
            assert _hs_from_pmf(offset, pmf, h, float(eps)) == want
            assert _hs_from_pmf(offset, pmf, h, float(eps), losses) == want


def _gdp_eps_reference(mu, delta, prec):
    """GDPEpsilon._eval_evalf as it was written before session 34 (prof and slope as two functions)."""
    with mpmath.workprec(prec + 40):
        m, d = mpmath.mpf(mu), mpmath.mpf(delta)

        def prof(e):
            return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)

        def slope(e):
            return -mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)

        if prof(mpmath.mpf(0)) <= d:
            return sp.Float(0, dps=max(prec // 3, 15))
        lo, hi = mpmath.mpf(0), m * m / 2 + m * mpmath.sqrt(2 * mpmath.log(1 / d)) + 1
        while prof(hi) > d:
            lo, hi = hi, 2 * hi
        tiny = mpmath.mpf(2) ** (-prec - 20)
        x, width, ld = (lo + hi) / 2, hi - lo, mpmath.log(d)
        for it in range(prec + 60):
            if hi - lo <= tiny * hi:
                break
            px = prof(x)
            if px > d:
                lo = x
            else:
                hi = x
            nx = None
            if px > 0:
                step = (mpmath.log(px) - ld) * px / slope(x)
                if abs(step) <= 64 * tiny * abs(x):
                    c = x - step
                    w = 2 * abs(step) + tiny * abs(c)
                    if lo < c - w < hi and prof(c - w) > d:
                        lo = c - w
                    if lo < c + w < hi and prof(c + w) <= d:
                        hi = c + w
                    if hi - lo <= 256 * tiny * hi:
                        break
                if lo < x - step < hi:
                    nx = x - step
            if nx is None or (it % 4 == 3 and hi - lo > width / 2):
                nx = (lo + hi) / 2
            if it % 4 == 3:
                width = hi - lo
            x = nx
        return sp.Float(hi * (1 + mpmath.mpf(2) ** (10 - prec)), precision=prec)


@pytest.mark.parametrize(("mu", "delta"), [("1", "1e-5"), ("0.05", "1e-12"), ("3.7", "0.3"), ("12", "1e-9"), ("0.5", "0.9")])
def test_gdp_epsilon_same_bits_and_60_digit_root(mu: str, delta: str) -> None:
    from symdp.library.bridges import GDPEpsilon

    args = (sp.Rational(mu), sp.Rational(delta))
    for prec in (53, 103, 120):
        got = GDPEpsilon(*args)._eval_evalf(prec)
        ref = _gdp_eps_reference(*(str(a.evalf(prec + 30)) for a in args), prec)
        assert got._mpf_ == ref._mpf_
    with mpmath.workdps(60):  # the root itself: delta(eps) = delta at the returned eps (0 when delta(0) <= delta)
        m, d = mpmath.mpf(mu), mpmath.mpf(delta)

        def prof(e):
            return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)

        e = mpmath.mpf(str(got))
        if e == 0:
            assert prof(0) <= d
        else:
            root = mpmath.findroot(lambda t: prof(t) - d, e)
            assert root <= e <= root * (1 + mpmath.mpf(10) ** -25)


def test_binom_pmf_table_same_bits() -> None:
    """_binom_pmf with the shared lgamma table against the per-call list it replaced, for N in any order (the table
    grows, later calls read a prefix)."""
    import math

    from symdp.verify import oracles_learners as OL

    def old(N, p):
        c = np.arange(N + 1, dtype=float)
        lg = np.array([math.lgamma(x + 1) for x in range(N + 1)])
        logpmf = lg[N] - lg - lg[::-1] + c * math.log(p) + (N - c) * math.log1p(-p)
        return np.exp(logpmf)

    OL._LGAMMA1.clear()
    rng = random.Random(3)
    for N in (5, 1, 0, 2000, 17, 1999, 2001, 100_000, 3):
        p = rng.uniform(0.01, 0.99)
        assert np.array_equal(OL._binom_pmf(N, p), old(N, p))
    assert len(OL._LGAMMA1) == 100_001


def _eq7_max_old(epsprime, eps, deltas, deltatilde):
    """composition.eq7_max before the float64 pre-screen (session 34), verbatim."""
    from itertools import product

    from symdp.verify.oracles import _mpf

    ep = _mpf(epsprime)
    T = len(eps)
    em = [_mpf(e) for e in eps]
    dm = [_mpf(d) for d in deltas]
    den = [1 + mpmath.exp(e) for e in em]
    zero = mpmath.mpf(0)
    f0 = [1 - mpmath.exp(zero) * d / q for d, q in zip(dm, den)]
    f1 = [1 - mpmath.exp(e) * d / q for e, d, q in zip(em, dm, den)]
    p2 = mpmath.fprod(1 - d / q for d, q in zip(dm, den))
    dt = _mpf(deltatilde)
    vals = []
    for j in range(T):
        others = [i for i in range(T) if i != j]
        for bits in product((0, 1), repeat=len(others)):
            a = [zero] * T
            for i, b in zip(others, bits):
                if b:
                    a[i] = em[i]
            rest = ep - mpmath.fsum(a)
            if rest < 0 or rest > em[j]:
                continue
            fj = 1 - mpmath.exp(rest) * dm[j] / den[j]
            p1 = mpmath.fprod(fj if i == j else (f1[i] if a[i] is em[i] else f0[i]) for i in range(T))
            vals.append(2 - p1 - p2 + dt)
    if not vals:
        return None
    return max(vals)


@pytest.mark.parametrize("dps", [15, 30, 60])
def test_eq7_max_prescreen_same_bits(dps: int) -> None:
    """eq7_max with the float64 pre-screen against the previous code, bit for bit, including eps' on the vertex
    test's boundaries (rest exactly 0 or exactly eps_j: sums of subsets of dyadic eps), eps' outside [0, sum eps],
    equal eps, tiny and large eps."""
    from symdp.verify.composition import eq7_max

    rng = random.Random(dps)
    n = 0
    with mpmath.workdps(dps):
        for _ in range(60):
            T = rng.choice((1, 2, 3, 5, 8))
            kind = rng.random()
            if kind < 0.3:  # dyadic eps: subset sums exact, boundaries hit exactly
                eps = [mpmath.mpf(rng.randint(1, 16)) / 8 for _ in range(T)]
            elif kind < 0.4:
                eps = [mpmath.mpf("0.25")] * T
            elif kind < 0.5:
                eps = [mpmath.mpf(10) ** rng.uniform(-12, 2) for _ in range(T)]
            else:
                eps = [mpmath.mpf(rng.uniform(0.01, 2)) for _ in range(T)]
            deltas = [mpmath.mpf(rng.uniform(0, 1e-3)) for _ in range(T)]
            tot = mpmath.fsum(eps)
            subset = mpmath.fsum(e for e in eps if rng.random() < 0.5)
            for ep in (subset, subset + eps[0], tot * mpmath.mpf(rng.uniform(0, 1)), tot, mpmath.mpf(0), -tot, 2 * tot + 1,
                       tot * (1 - mpmath.mpf(10) ** (-dps + 2))):
                new, old = eq7_max(ep, eps, deltas, mpmath.mpf("1e-6")), _eq7_max_old(ep, eps, deltas, mpmath.mpf("1e-6"))
                assert (new is None and old is None) or new._mpf_ == old._mpf_, (T, eps, ep)
                n += 1
    assert n == 480


def _sgm_hockey_old(q, sigma, epsilon, direction):
    """sgm_hockey_stick before session 34 (N(0, s^2)'s density computed on each side), verbatim."""
    from symdp.verify.oracles_pairs import _npdf_same_bits
    from symdp.verify.oracles_tradeoff import _first_sign_change

    qq, s, e = mpmath.mpf(q), mpmath.mpf(sigma), mpmath.mpf(epsilon)
    ee = mpmath.exp(e)
    pdfs = {0: _npdf_same_bits(0, s), 1: _npdf_same_bits(1, s)}

    def npdf(x, m):
        return pdfs[m](x)

    def mix(x):
        return (1 - qq) * npdf(x, 0) + qq * npdf(x, 1)

    if direction == "remove":
        P, Q = mix, (lambda x: npdf(x, 0))
    else:
        P, Q = (lambda x: npdf(x, 0)), mix

    def g(x):
        return P(x) - ee * Q(x)

    a, b = _first_sign_change(lambda k: g(mpmath.mpf(k) / 4 * s + mpmath.mpf(1) / 2), -400, 400)
    if b is None:
        if a:
            return mpmath.quad(g, [-mpmath.inf, mpmath.inf])
        return mpmath.mpf(0)
    root = mpmath.findroot(g, (mpmath.mpf(a) / 4 * s + mpmath.mpf(1) / 2, mpmath.mpf(b) / 4 * s + mpmath.mpf(1) / 2),
                           solver="anderson")
    if direction == "remove":
        return mpmath.quad(g, [root, root + 20 * s, mpmath.inf])
    return mpmath.quad(g, [-mpmath.inf, root - 20 * s, root])


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_sgm_hockey_stick_shared_density_same_bits(direction: str) -> None:
    from symdp.verify.oracles_tradeoff import sgm_hockey_stick

    with mpmath.workdps(30):
        for q, sigma, eps in (("0.01", "1.1", "0.5"), ("1", "2", "1"), ("0.3", "0.7", "0.05"), ("1e-4", "5", "0"),
                              ("0.5", "1", "3")):
            new = sgm_hockey_stick(q=mpmath.mpf(q), sigma=mpmath.mpf(sigma), epsilon=mpmath.mpf(eps), direction=direction)
            assert new._mpf_ == _sgm_hockey_old(q, sigma, eps, direction)._mpf_, (q, sigma, eps)
