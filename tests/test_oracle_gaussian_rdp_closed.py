"""The gaussian_rdp oracle is the closed form alpha Delta^2/(2 sigma^2) (issue 25, session 33): the completed square
it rests on is checked symbolically, and the value against the quadrature of the definition it replaced, at random
and extreme parameters; a wrong closed form (a planted one) would fail both."""

import random

import mpmath
import pytest
import sympy as sp

from symdp.errors import InvalidParameterError
from symdp.verify.oracles import gaussian_rdp
from symdp.verify.oracles_examples import gaussian_zcdp
from symdp.verify.oracles_tradeoff import gaussian_rdp_quadrature


def test_completed_square_is_a_polynomial_identity():
    x, a, s, m = sp.symbols("x alpha sigma Delta", positive=True)
    lp, lq = -(x - m) ** 2 / (2 * s**2), -(x**2) / (2 * s**2)
    # alpha log p + (1 - alpha) log q = -(x - alpha Delta)^2/(2 s^2) + alpha (alpha - 1) Delta^2/(2 s^2)
    assert sp.expand(a * lp + (1 - a) * lq - (-(x - a * m) ** 2 / (2 * s**2) + a * (a - 1) * m**2 / (2 * s**2))) == 0
    # so the Renyi divergence (1/(alpha - 1)) log of the integral of a unit Gaussian density times that factor is
    assert sp.simplify(sp.log(sp.exp(a * (a - 1) * m**2 / (2 * s**2))) / (a - 1) - a * m**2 / (2 * s**2)) == 0


def _points():
    rng = random.Random(33)
    pts = [("2", "1", "1"), ("1.01", "0.05", "1"), ("256", "100", "1"), ("1.0001", "3", "0.01"), ("64", "0.3", "2.5"),
           ("1000", "7", "1"), ("1.5", "1e-3", "1e-3")]
    for _ in range(12):
        pts.append((repr(1 + 10 ** rng.uniform(-3, 2.5)), repr(10 ** rng.uniform(-2, 2)), repr(10 ** rng.uniform(-2, 1))))
    return pts


@pytest.mark.parametrize("alpha,sigma,Delta", _points())
def test_closed_form_against_the_quadrature_of_the_definition(alpha, sigma, Delta):
    with mpmath.workdps(30):
        a, s, m = mpmath.mpf(alpha), mpmath.mpf(sigma), mpmath.mpf(Delta)
        fast = gaussian_rdp(alpha=a, sigma=s, Delta=m)
        quad = gaussian_rdp_quadrature(alpha=a, sigma=s, Delta=m)
        # the oracle's equality tolerance is 1e-15: both agree far inside it
        assert abs(fast - quad) <= mpmath.mpf("1e-24") * abs(quad), (alpha, sigma, Delta, fast, quad)
        with mpmath.workdps(60):  # and the closed form is the more accurate one: exact rational arithmetic at 60 digits
            exact = mpmath.mpf(a) * mpmath.mpf(m) ** 2 / (2 * mpmath.mpf(s) ** 2)
            assert abs(fast - exact) <= mpmath.mpf(2) ** -98 * exact
            assert abs(fast - exact) <= abs(quad - exact) + mpmath.mpf(2) ** -98 * exact


def test_a_wrong_closed_form_would_be_caught():
    with mpmath.workdps(30):
        a, s, m = mpmath.mpf(3), mpmath.mpf("1.5"), mpmath.mpf("0.7")
        quad = gaussian_rdp_quadrature(alpha=a, sigma=s, Delta=m)
        wrong = (a - 1) * m * m / (2 * s * s)  # e.g. alpha - 1 for alpha
        assert abs(wrong - quad) > mpmath.mpf("1e-3") * quad
        assert abs(gaussian_rdp(alpha=a, sigma=s, Delta=m) - quad) < mpmath.mpf("1e-25") * quad


def test_domain_errors_and_zcdp():
    with pytest.raises(InvalidParameterError):
        gaussian_rdp(alpha=1, sigma=1)
    with pytest.raises(InvalidParameterError):
        gaussian_rdp(alpha=2, sigma=0)
    with pytest.raises(InvalidParameterError):
        gaussian_rdp_quadrature(alpha="0.5", sigma=1)
    with mpmath.workdps(30):
        s, m = mpmath.mpf("0.8"), mpmath.mpf("1.3")
        assert abs(gaussian_zcdp(sigma=s, Delta=m) - m * m / (2 * s * s)) <= mpmath.mpf("1e-29") * m * m / (2 * s * s)
