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
        # implied_mu's quantiles carry guard bits (session 34): finite at D/s = 20 too (it was +inf past D/s ~ 12)
        assert not mpmath.isinf(mu)
        assert abs(mu - D / s) <= mpmath.mpf("1e-20") * (D / s)
        assert abs(mu - D / s) <= abs(old - D / s) + mpmath.mpf("1e-25") * (D / s)


def test_a_wrong_tail_would_be_caught():
    with mpmath.workdps(30):
        D, s = mpmath.mpf(1), mpmath.mpf("0.8")
        wrong = max(fdp.implied_mu(a, b * mpmath.mpf("1.001")) for a, b in fdp.gaussian_shift_tails(D, s))
        assert abs(wrong - fdp.gaussian_mechanism_mu(Delta=D, sigma=s)) > mpmath.mpf("1e-5")


def _implied_mu_reference(alpha, beta, dps=200):
    """Phi^-1(1 - alpha) - Phi^-1(beta) by the plain erfinv formula at 200 digits (2u - 1 keeps u's digits there)."""
    with mpmath.workdps(dps):
        a, b = mpmath.mpf(alpha), mpmath.mpf(beta)
        return mpmath.sqrt(2) * (mpmath.erfinv(1 - 2 * a) - mpmath.erfinv(2 * b - 1))


@pytest.mark.parametrize("ratio", ["12", "13", "20", "40", "100"])
def test_implied_mu_finite_and_exact_far_in_the_tail(ratio):
    """Delta/sigma >~ 12: beta < 1e-30 at the grid's thresholds; implied_mu said +inf there (session 33 note)."""
    with mpmath.workdps(30):
        D, s = mpmath.mpf(ratio), mpmath.mpf(1)
        for a, b in fdp.gaussian_shift_tails(D, s):
            got = fdp.implied_mu(a, b)
            ref = _implied_mu_reference(a, b)
            assert mpmath.isfinite(got) and abs(got - ref) <= mpmath.mpf("1e-26") * abs(ref), (ratio, b, got, ref)
        mu = fdp.gaussian_mechanism_mu(Delta=D, sigma=s)
        assert abs(mu - D) <= mpmath.mpf("1e-25") * D  # the Gaussian mechanism is exactly Delta/sigma-GDP


def test_implied_mu_tiny_alpha_and_beta():
    with mpmath.workdps(30):
        for a, b in (("1e-60", "1e-50"), ("1e-40", "0.3"), ("0.2", "1e-300"), ("1e-7", "1e-7")):
            got = fdp.implied_mu(mpmath.mpf(a), mpmath.mpf(b))
            ref = _implied_mu_reference(mpmath.mpf(a), mpmath.mpf(b), dps=700)
            assert abs(got - ref) <= mpmath.mpf("1e-26") * abs(ref), (a, b, got, ref)


def test_far_tail_quantile_by_newton_matches_erfinv_and_solves_the_tail_equation():
    """Below 2^-256 the lower-tail quantile is Newton's root of log Phi(x) = log u (erfinv's guard bits would grow
    as -log2 u: at u = 1e-5000 a point took 130 s, and bu2020.gaussian_mechanism_gdp ran past its verify budget at
    Delta/sigma = 1000).  Against the guarded erfinv at 1e-80 and 1e-300 (to 1e-27), and at u = e^-500000 (no
    erfinv reference in reach) the root satisfies log Phi(x) = log u to 1e-25 relative at 60 digits; the Gaussian
    mechanism at Delta/sigma = 1000 is 1000-GDP to 1e-25."""
    with mpmath.workdps(30):
        for e in (-80, -300):
            u = mpmath.mpf(10) ** e
            got = fdp._quantile(u)
            with mpmath.workprec(mpmath.mp.prec + 10 - int(mpmath.mag(u))):
                ref = fdp.Phi_inv(u)
            assert abs(got - ref) <= mpmath.mpf("1e-27") * abs(ref), (e, got, ref)
        u = mpmath.exp(-500000)
        x = fdp._quantile(u)
        with mpmath.workdps(60):
            assert abs(mpmath.log(mpmath.ncdf(x)) + 500000) <= mpmath.mpf("1e-25") * 500000
        mu = fdp.gaussian_mechanism_mu(Delta=mpmath.mpf(10), sigma=mpmath.mpf("0.01"))
        assert abs(mu - 1000) <= mpmath.mpf("1e-25") * 1000
