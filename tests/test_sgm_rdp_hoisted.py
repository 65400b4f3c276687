"""The exact subsampled-Gaussian RDP sums (SGMRDP's evalf in the library, the gaussian_value_witness oracle's
epsilon_alpha) compute log1p(-q), log q and 2 sigma^2 once per point instead of once per term (issue 25, session 33):
the same bits as the per-term formulas they replaced (kept here as the reference)."""

import random

import mpmath
import pytest
import sympy as sp

from symdp.library.bridges import SGMRDP
from symdp.numeric import log_binomial
from symdp.verify.oracles_conversion import _witness_value


def _library_ref(q, s, alpha, prec):
    q_e, s_e, a_e = (sp.Float(x, 60).evalf(prec + 30) for x in (q, s, alpha))
    with mpmath.workprec(prec + 40):
        qq, ss, aa = mpmath.mpf(str(q_e)), mpmath.mpf(str(s_e)), mpmath.mpf(str(a_e))
        a = max(int(mpmath.ceil(aa)), 2)
        terms = [log_binomial(a, k) + (a - k) * (mpmath.log1p(-qq) if qq < 1 else 0)
                 + k * mpmath.log(qq) + (k * k - k) / (2 * ss * ss)
                 for k in range(a + 1) if qq < 1 or k == a]
        top = max(terms)
        val = (top + mpmath.log(mpmath.fsum(mpmath.exp(t - top) for t in terms))) / (a - 1)
        return sp.Float(max(val, mpmath.mpf(0)) * (1 + mpmath.mpf(2) ** (10 - prec)), precision=prec)


def _oracle_ref(q, s, alpha):
    a = int(mpmath.floor(mpmath.mpf(alpha)))
    qq, sg = mpmath.mpf(q), mpmath.mpf(s)
    terms = [log_binomial(a, k) + ((a - k) * mpmath.log1p(-qq) if a > k else 0) + k * mpmath.log(qq)
             + k * (k - 1) / (2 * sg**2) for k in range(a + 1) if not (qq == 1 and k < a)]
    top = max(terms)
    return (top + mpmath.log(mpmath.fsum(mpmath.exp(t - top) for t in terms))) / (a - 1)


def _points():
    rng = random.Random(19)
    pts = [("1", "2", "3"), ("1", "0.5", "64"), ("0.001", "0.7", "2"), ("0.5", "10", "255.5")]
    pts += [(repr(10 ** rng.uniform(-4, -0.01)), repr(10 ** rng.uniform(-0.5, 1.5)), repr(rng.uniform(2, 120)))
            for _ in range(10)]
    return pts


@pytest.mark.parametrize("q,s,alpha", _points())
def test_same_bits_as_the_per_term_formulas(q, s, alpha):
    from symdp.library import get

    for prec in (70, 120):
        got = SGMRDP(sp.Float(q, 60), sp.Float(s, 60), sp.Float(alpha, 60), evaluate=False)._eval_evalf(prec)
        ref = _library_ref(q, s, alpha, prec)
        assert got is not None and got._mpf_ == ref._mpf_
    th = get("bridge.mtz2019_sgm_rdp", with_evidence=False)
    got_w = _witness_value(th)
    if isinstance(got_w, str):
        pytest.skip(got_w)
    f_true, _ = got_w
    for dps in (30, 60):
        with mpmath.workdps(dps):
            pt = {"q": mpmath.mpf(q), "sigma": mpmath.mpf(s), "alpha": mpmath.mpf(alpha)}
            assert f_true(pt)._mpf_ == _oracle_ref(q, s, alpha)._mpf_


def test_log_binomial_is_the_log_of_the_exact_integer_and_no_less_accurate():
    import math

    from symdp.numeric import EXACT_BINOMIAL_MAX

    worse = 0
    for prec in (103, 143):
        with mpmath.workprec(prec):
            ulp = mpmath.ldexp(1, -prec)
            for n in list(range(0, 130)) + [500, EXACT_BINOMIAL_MAX]:
                for k in range(0, n + 1, 1 if n < 130 else 37):
                    got = log_binomial(n, k)
                    with mpmath.workprec(prec + 300):
                        exact = mpmath.log(math.comb(n, k))
                    with mpmath.workprec(prec):
                        old = mpmath.log(mpmath.binomial(n, k))
                    with mpmath.workprec(prec + 300):
                        e_new, e_old = abs(got - exact), abs(old - exact)
                        scale = max(abs(exact), 1)
                        assert e_new <= 2 * ulp * scale  # a couple of ulps of the true log
                        worse += e_new > e_old + ulp * scale
    assert worse == 0
    with mpmath.workprec(103):  # above the exact range: mpmath's binomial, as before
        assert log_binomial(EXACT_BINOMIAL_MAX + 1, 7) == mpmath.log(mpmath.binomial(EXACT_BINOMIAL_MAX + 1, 7))
