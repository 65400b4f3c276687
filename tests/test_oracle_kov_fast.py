"""The fast paths of ``optimal_composition`` (Kairouz-Oh-Viswanath) against the code they replace and an
independent rigorous evaluation.

* up to ``SAME_BITS_MAX_TERMS`` terms: the low-level loop must give the SAME BITS as the mpf-object loop it
  replaced (a verbatim copy of the previous ``optimal_composition`` below), at 30 and 60 digits, at many points
  (T from 1 to a few thousand, eps 0 / tiny / 50, eps' negative / 0 / near the top loss, delta 0 / tiny);
* above it: the windowed sum must equal, within one ulp of the working precision, a ball-arithmetic (python-flint
  ``arb``, outward rounded) evaluation of EVERY term of the binomial sum at twice the precision, for T up to
  1e5 + 1.  That reference is independent of the window, of its tail bound and of mpmath.
"""

from __future__ import annotations

import random

import mpmath
import pytest
from flint import arb, ctx

from symdp.numeric import ncdf_same_bits
from symdp.verify import oracles_pairs as OP


def _old_optimal_composition(*, epsilon, delta, T, at):
    """The previous implementation, verbatim (term by term on mpf objects)."""
    e, d, ep = OP._mpf(epsilon), OP._mpf(delta), OP._mpf(at)
    Ti = int(T)
    logp = e - mpmath.log1p(mpmath.exp(e))
    log1mp = -mpmath.log1p(mpmath.exp(e))
    terms = []
    lmax = Ti if e == 0 else min(Ti, int(mpmath.ceil((Ti - ep / e) / 2)) + 1)
    logc = mpmath.mpf(0)
    for l in range(0, max(lmax, 0) + 1):
        if l > 0:
            logc += mpmath.log(mpmath.mpf(Ti - l + 1) / l)
        loss = (Ti - 2 * l) * e
        if loss <= ep:
            continue
        lt = logc + (Ti - l) * logp + l * log1mp
        terms.append(mpmath.exp(lt) * -mpmath.expm1(ep - loss))
    s = mpmath.fsum(terms)
    log_keep = Ti * mpmath.log1p(-d) if d < 1 else mpmath.ninf
    keep = mpmath.exp(log_keep)
    return -mpmath.expm1(log_keep) + keep * s


def _nterms(e, ep, T):
    e, ep = mpmath.mpf(e), mpmath.mpf(ep)
    lmax = T if e == 0 else min(T, int(mpmath.ceil((T - ep / e) / 2)) + 1)
    return max(lmax, 0) + 1


def _points(seed: int, n: int, Ts):
    rng = random.Random(seed)
    for _ in range(n):
        T = rng.choice(Ts)
        e = rng.choice([0.0, 1e-9, 1e-4, 0.01, 0.1, 0.5, 1.0, 3.0, 50.0, rng.uniform(0, 2), rng.uniform(0, 0.05)])
        top = e * T
        ep = rng.choice([0.0, -1.0, 1e-30, rng.uniform(0, 5), rng.uniform(0, top + 1), top * rng.uniform(0.9, 1.0),
                         max(top - 1e-12, 0.0), e * T**0.5 * rng.uniform(0, 4)])
        d = rng.choice([0.0, 0.0, 1e-300, 1e-12, 1e-6, rng.uniform(0, 0.1)])
        yield T, e, ep, d


@pytest.mark.parametrize("dps", [30, 60])
def test_same_bits_path_equals_the_previous_code(dps):
    n_same = 0
    with mpmath.workdps(dps):
        for T, e, ep, d in _points(dps, 160, [1, 2, 3, 7, 50, 199, 500, 501, 598]):
            new = OP.optimal_composition(epsilon=e, delta=d, T=T, at=ep)
            if _nterms(e, ep, T) > OP.SAME_BITS_MAX_TERMS:
                continue  # the windowed path (tested below)
            n_same += 1
            old = _old_optimal_composition(epsilon=e, delta=d, T=T, at=ep)
            assert new._mpf_ == old._mpf_, (dps, T, e, ep, d, new, old)
    assert n_same > 100


def test_same_bits_expm1_against_mpmath():
    """The -expm1 replica bit for bit against mpmath.expm1 (every branch: tiny |x|, cancellation, 1 exactly)."""
    rng = random.Random(5)
    xs = [-(10.0 ** -k) for k in range(0, 340, 7)] + [-rng.uniform(0, 100) for _ in range(200)]
    xs += [-2.0 ** -k * (1 + rng.random()) for k in range(0, 400, 3)] + [-1e6, -50.0, -72.0, -75.0, -150.0]
    for dps in (15, 30, 60):
        with mpmath.workdps(dps):
            prec, rnd = mpmath.mp._prec_rounding
            for x in xs:
                x = mpmath.mpf(x)
                assert OP._neg_expm1_same_bits(x._mpf_, prec, rnd) == (-mpmath.expm1(x))._mpf_, (dps, x)


def _to_arb(x: mpmath.mpf) -> arb:
    sign, man, exp, _ = x._mpf_
    if not man:
        return arb(0)
    return (-1 if sign else 1) * arb(man) * arb(2) ** exp


def _arb_kov(e: float, ep: float, d: float, T: int, prec: int) -> arb:
    """delta_T(eps') of Kairouz et al. with every term, in ball arithmetic (rigorous enclosure)."""
    old = ctx.prec
    ctx.prec = prec
    try:
        E, EP, D = _to_arb(mpmath.mpf(e)), _to_arb(mpmath.mpf(ep)), _to_arb(mpmath.mpf(d))
        p = 1 / (1 + (-E).exp())
        q = 1 - p
        ev, epv = mpmath.mpf(e), mpmath.mpf(ep)
        with mpmath.workprec(4 * prec + 64):  # exact: (T - 2l) eps has at most 53 + 40 bits
            lo, hi = 0, T + 1  # n_on: the first l whose loss (T - 2l) eps is not above eps' (the loss decreases)
            while lo < hi:
                mid = (lo + hi) // 2
                lo, hi = (mid + 1, hi) if (T - 2 * mid) * ev > epv else (lo, mid)
            n_on = lo
        b = p**T  # l = 0
        s = arb(0)
        for l in range(0, n_on):
            if l > 0:
                b = b * (T - l + 1) / l * q / p
            s += b * (-(EP - (T - 2 * l) * E).expm1())
        lk = T * (-D).log1p()
        return -lk.expm1() + lk.exp() * s
    finally:
        ctx.prec = old


@pytest.mark.parametrize("dps", [30, 60])
def test_windowed_path_against_ball_arithmetic(dps):
    cases = [(2600, 0.1, 3.0, 0.0), (5000, 0.05, 2.0, 1e-12), (10**4, 0.01, 0.5, 0.0), (10**5, 0.01, 5.0, 0.0),
             (10**5 + 1, 0.003, 1.0, 1e-9), (10**5, 50.0, 10.0, 0.0), (10**5, 1e-4, 1e-30, 0.0),
             (10**5, 0.02, 1500.0, 0.0), (20000, 0.0, -1.0, 0.0), (10**5, 1e-8, 5e-4, 1e-300)]
    checked = 0
    with mpmath.workdps(dps):
        prec = mpmath.mp.prec
        for T, e, ep, d in cases:
            assert _nterms(e, ep, T) > OP.SAME_BITS_MAX_TERMS or e == 0
            got = OP.optimal_composition(epsilon=e, delta=d, T=T, at=ep)
            ball = _arb_kov(e, ep, d, T, 2 * prec + 40)
            old = ctx.prec
            ctx.prec = 2 * prec + 40
            try:
                assert ball.rad() < abs(ball.mid()) * arb(2) ** -(prec + 20)
                ulp = abs(_to_arb(got)) * arb(2) ** (1 - prec)
                assert abs(_to_arb(got) - ball.mid()) <= ulp + ball.rad(), (T, e, ep, d, got, ball.str(40))
            finally:
                ctx.prec = old
            checked += 1
    assert checked == len(cases)


def test_windowed_path_against_the_previous_code_at_higher_precision():
    """Just above the switch the previous loop is still affordable: at 60 more bits it agrees with the window to
    within one ulp of the working precision (at the working precision the old loop itself loses ~log2(T |log p|)
    bits, which is why the window is not bit-identical to it)."""
    rng = random.Random(11)
    for T, e, ep, d in _points(3, 16, [601, 1000, 2500]):
        if _nterms(e, ep, T) <= OP.SAME_BITS_MAX_TERMS:
            continue
        with mpmath.workdps(30):
            got = OP.optimal_composition(epsilon=e, delta=d, T=T, at=ep)
            prec = mpmath.mp.prec
        with mpmath.workprec(prec + 60):
            ref = _old_optimal_composition(epsilon=e, delta=d, T=T, at=ep)
        assert abs(got - ref) <= abs(ref) * mpmath.ldexp(1, 1 - prec), (T, e, ep, d, got, ref)
    assert rng  # the points come from _points


def test_window_is_fast_at_large_T():
    import time

    with mpmath.workdps(30):
        c = time.process_time()
        v = OP.optimal_composition(epsilon=0.01, delta=1e-9, T=10**5, at=5.0)
        assert time.process_time() - c < 5  # the term-by-term loop took about 5 s here (5e4 terms)
        assert 0 < v < 1
        # T = 1e7: a window of ~4e4 terms out of 5e6 (T = 1e9 works too, ~4e5 terms, tens of seconds)
        c = time.process_time()
        v = OP.optimal_composition(epsilon=1e-3, delta=0, T=10**7, at=1.0)
        assert time.process_time() - c < 20
        assert 0 < v < 1


def _old_optimal_composition_hetero(steps, at):
    """The previous heterogeneous composition, verbatim (mpf objects)."""
    mp = mpmath.mp
    dist = {mpmath.mpf(0): mpmath.mpf(1)}
    log_keep = mpmath.mpf(0)
    for e, d in steps:
        e, d = OP._mpf(e), OP._mpf(d)
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        log_keep += mpmath.log1p(-d) if d < 1 else mpmath.ninf
        new = {}
        for loss, m in dist.items():
            for l2, w in ((loss + e, p), (loss - e, 1 - p)):
                key = mpmath.mpf(mpmath.nstr(l2, mp.dps))
                new[key] = new.get(key, mpmath.mpf(0)) + m * w
        dist = new
    inf_mass = -mpmath.expm1(log_keep)
    keep = mpmath.exp(log_keep)
    ep = OP._mpf(at)
    s = mpmath.fsum(m * -mpmath.expm1(ep - loss) for loss, m in dist.items() if loss > ep)
    return inf_mass + keep * s


@pytest.mark.parametrize("dps", [30, 60])
def test_hetero_same_bits_as_the_previous_code(dps):
    rng = random.Random(dps + 1)
    with mpmath.workdps(dps):
        for _ in range(60):
            T = rng.randint(1, 9)
            base = rng.choice([1e-6, 0.01, 0.3, 1.0, 50.0, rng.uniform(0, 2)])
            r = rng.choice([1.0, 0.5, rng.uniform(0.05, 1)])
            es = [mpmath.mpf(base) * mpmath.mpf(r) ** (mpmath.mpf(i) / max(T - 1, 1)) for i in range(T)]
            ds = [rng.choice([0.0, 1e-300, 1e-12, rng.uniform(0, 0.01)])] * T
            top = float(sum(es))
            at = rng.choice([0.0, -1.0, rng.uniform(0, top), top * 0.999, top / 3, 1e-30])
            steps = list(zip(es, ds))
            new = OP.optimal_composition_hetero(steps, at)
            old = _old_optimal_composition_hetero(steps, at)
            assert new._mpf_ == old._mpf_, (T, base, r, ds[0], at, new, old)
            if len(set(es)) == 1:  # identical steps: the binomial formula (the merged losses are rounded to dps
                # digits, so eps' near a loss loses digits in 1 - e^(eps' - loss): a loose cross-check)
                hom = OP.optimal_composition(epsilon=es[0], delta=ds[0], T=T, at=at)
                assert abs(hom - new) <= abs(hom) * mpmath.ldexp(1, 40 - mpmath.mp.prec) + mpmath.ldexp(1, -mpmath.mp.prec)


def test_ncdf_same_bits_against_mpmath():
    rng = random.Random(7)
    xs = [0.0, 1e-300, -1e-300, 40.0, -40.0, -200.0, 200.0, 1e10, -1e10]
    xs += [rng.uniform(-12, 12) for _ in range(300)] + [rng.gauss(0, 1) * 10.0 ** rng.randint(-30, 3) for _ in range(100)]
    for dps in (15, 30, 60):
        with mpmath.workdps(dps):
            for x in xs:
                x = mpmath.mpf(x)
                assert ncdf_same_bits(x)._mpf_ == mpmath.ncdf(x)._mpf_, (dps, x)
    assert ncdf_same_bits(0.5) == mpmath.ncdf(0.5)  # a non-mpf argument goes to ncdf


def test_composition2_points_same_bits_as_with_mpmath_ncdf(monkeypatch):
    """fdp.composition2_points with the same-bits ncdf against the same function with mpmath.ncdf itself."""
    from symdp.verify import fdp

    with mpmath.workdps(30):
        for m1, m2 in ((0.5, 1.0), (1.3, 0.4)):
            new = fdp.composition2_points(m1, m2)
            with monkeypatch.context() as mp_:
                mp_.setattr(fdp, "_ncdf_same_bits", mpmath.ncdf)
                old = fdp.composition2_points(m1, m2)
            assert [(a._mpf_, b._mpf_) for a, b in new] == [(a._mpf_, b._mpf_) for a, b in old]
        new = fdp.sub_tradeoff_QP(0.2, 1.5, 0.05)
        with monkeypatch.context() as mp_:
            mp_.setattr(fdp, "_ncdf_same_bits", mpmath.ncdf)
            assert fdp.sub_tradeoff_QP(0.2, 1.5, 0.05)._mpf_ == new._mpf_


@pytest.mark.parametrize("dps", [30, 60])
def test_cached_chain_and_weights_give_the_previous_bits(dps):
    """The log C(T, l) chain and the binomial weights cached across calls (session 34): calls that share eps and T
    with other eps' and delta, in orders that first fill a short chain and then extend it (eps' from the top loss
    down to below 0) and the reverse, against the previous code bit for bit; also after the caches were cleared
    mid-way and at a second precision sharing the same (eps, T)."""
    OP._KOV_LOGC.clear()
    OP._KOV_W.clear()
    rng = random.Random(dps + 34)
    n = 0
    with mpmath.workdps(dps):
        for T in (1, 2, 9, 50, 199, 500):
            for e in (0.0, 1e-4, 0.1, 1.0, rng.uniform(0, 2)):
                top = e * T
                eps_list = [top * f for f in (0.99, 0.7, 0.4, 0.1)] + [0.0, -1.0, rng.uniform(0, top + 1)]
                for order in (eps_list, eps_list[::-1]):
                    for ep in order:
                        if _nterms(e, ep, T) > OP.SAME_BITS_MAX_TERMS:
                            continue
                        d = rng.choice([0.0, 1e-12, rng.uniform(0, 0.1)])
                        new = OP.optimal_composition(epsilon=e, delta=d, T=T, at=ep)
                        old = _old_optimal_composition(epsilon=e, delta=d, T=T, at=ep)
                        assert new._mpf_ == old._mpf_, (dps, T, e, ep, d)
                        n += 1
                if T == 199:
                    OP._KOV_LOGC.clear()
                    OP._KOV_W.clear()
        with mpmath.workdps(dps + 7):  # the same (eps, T) at another precision: other cache entries
            for ep in (0.5, 0.05):
                new = OP.optimal_composition(epsilon=0.1, delta=1e-9, T=50, at=ep)
                assert new._mpf_ == _old_optimal_composition(epsilon=0.1, delta=1e-9, T=50, at=ep)._mpf_
    assert n > 300 and OP._KOV_W and OP._KOV_LOGC
