"""gaussian_mechanism_mu (the f-DP oracle of the Gaussian-mechanism GDP claims) takes the Neyman-Pearson errors as
normal tails instead of quadratures of the densities (issue 25, session 33): within ~1e-28 of a 60-digit reference
(the quadratures were off by up to 0.4% in the far tail at sigma = 0.05), never farther from it than the
quadratures, and the implied mu is Delta/sigma; a wrong tail (a planted shift) would be caught."""

import mpmath
import pytest

from symdp.verify import fdp


@pytest.mark.parametrize("Delta,sigma", [("1", "1"), ("1", "0.05"), ("1", "50"), ("2.5", "0.7"), ("0.3", "3"),
                                         ("1", "0.2"), ("7", "1.3")])
def test_tails_against_the_quadratures_and_a_60_digit_reference(Delta, sigma):
    with mpmath.workdps(30):
        D, s = mpmath.mpf(Delta), mpmath.mpf(sigma)
        fast, quad = fdp.gaussian_shift_tails(D, s), fdp.gaussian_shift_points(D, s)
        for z, (a, b), (qa, qb) in zip(fdp.Z_GRID, fast, quad):
            for x, y in ((a, qa), (b, qb)):  # the quadrature is off by up to 0.4% in the far tail at sigma = 0.05
                assert abs(x - y) <= mpmath.mpf("1e-2") * y, (Delta, sigma, z)
            with mpmath.workdps(60):
                t = mpmath.mpf(z) * s
                ra, rb = mpmath.ncdf(-t, 0, s), mpmath.ncdf(t, D, s)
                for x, y, r in ((a, qa, ra), (b, qb, rb)):
                    assert abs(x - r) <= mpmath.mpf("1e-28") * r  # the tail to ~30 digits
                    assert abs(x - r) <= abs(y - r) + mpmath.mpf("1e-29") * r  # no farther than the quadrature
        mu = fdp.gaussian_mechanism_mu(Delta=D, sigma=s)
        old = max(fdp.implied_mu(a, b) for a, b in quad)
        # implied_mu's Phi_inv(beta) is -inf once 2 beta - 1 rounds to -1 (beta < ~1e-30, D/s >~ 12): both then say +inf
        assert mpmath.isinf(mu) == mpmath.isinf(old)
        if not mpmath.isinf(mu):
            assert abs(mu - D / s) <= mpmath.mpf("1e-20") * (D / s)
            assert abs(mu - D / s) <= abs(old - D / s) + mpmath.mpf("1e-25") * (D / s)


def test_a_wrong_tail_would_be_caught():
    with mpmath.workdps(30):
        D, s = mpmath.mpf(1), mpmath.mpf("0.8")
        wrong = max(fdp.implied_mu(a, b * mpmath.mpf("1.001")) for a, b in fdp.gaussian_shift_tails(D, s))
        assert abs(wrong - fdp.gaussian_mechanism_mu(Delta=D, sigma=s)) > mpmath.mpf("1e-5")
