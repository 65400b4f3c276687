"""min_error_sum (the f-DP oracle of bu2020.min_error_sum_gdp) takes the two errors from the normal CDF instead of
quadratures of the densities (issue 25, session 33): the same minimum to far below the search's tolerance, at least
as close to the true minimum 2 Phi(-mu/2), and a wrong tail (a planted shift) would be caught."""

import mpmath
import pytest

from symdp.verify.fdp import min_error_sum, min_error_sum_quadrature


@pytest.mark.parametrize("mu", ["0.05", "0.3", "1", "2.5", "5", "0.123456789", "3.7"])
def test_agrees_with_the_quadrature_and_the_closed_form(mu):
    with mpmath.workdps(30):
        m = mpmath.mpf(mu)
        fast, quad = min_error_sum(mu=m), min_error_sum_quadrature(mu=m)
        assert abs(fast - quad) <= mpmath.mpf("1e-26") * quad
        with mpmath.workdps(60):
            true = 2 * mpmath.ncdf(-mpmath.mpf(mu) / 2)
            # both overshoot the minimum only by the search's last step, the fast one no more than the quadrature
            assert true - mpmath.mpf("1e-29") <= fast <= true * (1 + mpmath.mpf("1e-15"))
            assert abs(fast - true) <= abs(quad - true) + mpmath.mpf("1e-28") * true


def test_a_wrong_tail_would_be_caught():
    with mpmath.workdps(30):
        m = mpmath.mpf("1.5")
        wrong = min(mpmath.ncdf(-t) + mpmath.ncdf(t - m + mpmath.mpf("0.01")) for t in mpmath.linspace(0, m, 301))
        assert abs(wrong - min_error_sum(mu=m)) > mpmath.mpf("1e-4")
