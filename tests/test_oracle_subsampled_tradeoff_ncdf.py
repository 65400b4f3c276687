"""subsampled_gaussian_tradeoff takes the mixture's mass below the Neyman-Pearson threshold from normal CDFs instead
of a quadrature of its density (issue 25, session 33): within ~1e-28 of a 60-digit reference, never farther from it
than the quadrature, at random and extreme (p, mu, alpha); a wrong mass (a planted shift) would be caught."""

import random

import mpmath
import pytest

from symdp.verify.oracles_tradeoff import subsampled_gaussian_tradeoff, subsampled_gaussian_tradeoff_quadrature


def _cases():
    rng = random.Random(12)
    out = [("1", "1", "0.5"), ("0.001", "5", "1e-6"), ("0.5", "0.1", "0.999999"), ("1", "8", "1e-12"), ("0.2", "3", "0.05")]
    out += [(repr(10 ** rng.uniform(-3, 0)), repr(10 ** rng.uniform(-1, 0.9)), repr(10 ** rng.uniform(-8, -0.01)))
            for _ in range(10)]
    return out


@pytest.mark.parametrize("p,mu,alpha", _cases())
def test_against_the_quadrature_and_a_60_digit_reference(p, mu, alpha):
    with mpmath.workdps(30):
        pp, m, a = mpmath.mpf(p), mpmath.mpf(mu), mpmath.mpf(alpha)
        fast, quad = subsampled_gaussian_tradeoff(p=pp, mu=m, alpha=a), subsampled_gaussian_tradeoff_quadrature(p=pp, mu=m, alpha=a)
        assert abs(fast - quad) <= mpmath.mpf("1e-20") * quad
        t = -mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)  # both take the threshold at 30 digits: the same t
        with mpmath.workdps(60):
            ref = (1 - pp) * mpmath.ncdf(t) + pp * mpmath.ncdf(t - m)
            assert abs(fast - ref) <= mpmath.mpf("1e-27") * ref
            assert abs(fast - ref) <= abs(quad - ref) + mpmath.mpf("1e-28") * ref


def test_a_wrong_mass_would_be_caught():
    with mpmath.workdps(30):
        pp, m, a = mpmath.mpf("0.3"), mpmath.mpf(2), mpmath.mpf("0.1")
        t = -mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)
        wrong = (1 - pp) * mpmath.ncdf(t) + pp * mpmath.ncdf(t + m)  # the shift's sign flipped
        assert abs(wrong - subsampled_gaussian_tradeoff(p=pp, mu=m, alpha=a)) > mpmath.mpf("1e-2")
