"""Session 35: the Gaussian privacy profile, the Gaussian trade-off function and GDPEpsilon (the implicit eps_mu(delta)
of bridge.gdp_eps_of_delta) call symdp.numeric.ncdf_same_bits, mpmath.ncdf's bits without its wrapper.  Each is
compared here, bit for bit, with the same function on mpmath.ncdf (the code before), over the ranges the audit
samples (mu = Delta/sigma from 1e-2 to 10, eps from 1e-6 to 50, delta from 1e-12 to 0.5) at 15, 30 and 50 digits."""

from __future__ import annotations

import itertools

import mpmath
import pytest
import sympy as sp

import symdp.numeric as num
from symdp.library.bridges import GDPEpsilon
from symdp.verify.oracles_gaussian import gaussian_profile
from symdp.verify.oracles_tradeoff import gaussian_tradeoff

MUS = ("0.01", "0.1", "0.35", "1", "1.78", "3", "10")
EPS = ("1e-6", "0.01", "0.5", "1", "2.5", "8.68", "50")


@pytest.mark.parametrize("dps", [15, 30, 50])
def test_gaussian_profile_and_tradeoff_are_the_ncdf_values(dps: int, monkeypatch) -> None:
    import symdp.verify.oracles_gaussian as og
    import symdp.verify.oracles_tradeoff as ot

    with mpmath.workdps(dps):
        new = [gaussian_profile(mu=mpmath.mpf(m), at=mpmath.mpf(e))._mpf_ for m, e in itertools.product(MUS, EPS)]
        new_t = [gaussian_tradeoff(mu=mpmath.mpf(m), alpha=mpmath.mpf(a))._mpf_
                 for m, a in itertools.product(MUS, ("1e-9", "0.01", "0.3", "0.5", "0.9", "0.999999"))]
        monkeypatch.setattr(og, "ncdf_same_bits", mpmath.ncdf)
        monkeypatch.setattr(ot, "ncdf_same_bits", mpmath.ncdf)
        old = [gaussian_profile(mu=mpmath.mpf(m), at=mpmath.mpf(e))._mpf_ for m, e in itertools.product(MUS, EPS)]
        old_t = [gaussian_tradeoff(mu=mpmath.mpf(m), alpha=mpmath.mpf(a))._mpf_
                 for m, a in itertools.product(MUS, ("1e-9", "0.01", "0.3", "0.5", "0.9", "0.999999"))]
    assert new == old and new_t == old_t
    assert any(v != mpmath.mpf(0)._mpf_ for v in new)


@pytest.mark.parametrize("digits", [15, 30])
def test_gdp_epsilon_is_the_ncdf_value(digits: int, monkeypatch) -> None:
    pts = list(itertools.product(("0.05", "0.5", "1", "2", "6"), ("1e-12", "1e-5", "0.01", "0.3")))
    new = [GDPEpsilon(sp.Float(m, 30), sp.Float(d, 30)).evalf(digits) for m, d in pts]
    monkeypatch.setattr(num, "ncdf_same_bits", mpmath.ncdf)  # the method imports it from symdp.numeric at each call
    old = [GDPEpsilon(sp.Float(m, 30), sp.Float(d, 30)).evalf(digits) for m, d in pts]
    def key(x):
        return (x._mpf_, x._prec) if isinstance(x, sp.Float) else repr(x)

    assert [key(x) for x in new] == [key(x) for x in old]
    assert sum(bool(x > 0) for x in new) >= 10
