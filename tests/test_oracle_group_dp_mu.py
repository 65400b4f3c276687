"""premise_mu (the group_dp_gaussian oracle's witness, issue 25 session 33) starts the geometric bisection from a
bracket that a float64 root and Newton steps have shrunk: the result must meet the plain bisection's two conditions
(its profile below delta; a fixed point, tight) and agree with the plain bisection from [1e-6, 60] to ~30 digits, at
random points and at the corners (root below 1e-6 or above 60, eps = 0, tiny and near-1 delta)."""

import random

import mpmath
import pytest

from symdp.verify.oracles_conversion import MU_HI, MU_LO, _mu_float_guess, premise_mu
from symdp.verify.oracles_gaussian import gaussian_profile


def _plain(eps, delta):
    lo, hi = mpmath.mpf(MU_LO), mpmath.mpf(MU_HI)
    for _ in range(400):
        mid = mpmath.sqrt(lo * hi)
        was = (lo, hi)
        if gaussian_profile(mu=mid, at=eps) < delta:
            lo = mid
        else:
            hi = mid
        if (lo, hi) == was:
            break
    return lo


def _cases():
    rng = random.Random(25)
    out = [(repr(10 ** rng.uniform(-3, 1.3)), repr(10 ** rng.uniform(-15, -0.1))) for _ in range(40)]
    out += [("0", "1e-5"), ("20", "0.5"), ("1e-3", "1e-300"), ("50", "1e-10"), ("0.1", "0.999"), ("1", "1e-12"),
            ("8", "0.9999999")]
    return out


@pytest.mark.parametrize("eps,delta", _cases())
def test_same_conditions_as_the_plain_bisection(eps, delta):
    with mpmath.workdps(30):
        e, d = mpmath.mpf(eps), mpmath.mpf(delta)
        mu, ref = premise_mu(e, d), _plain(e, d)
        assert mpmath.mpf(MU_LO) <= mu < mpmath.mpf(MU_HI)
        if mu > mpmath.mpf(MU_LO):  # the premise holds for the witness (computed profile below delta) ...
            assert gaussian_profile(mu=mu, at=e) < d
        # ... and it is tight: a step of 2^-(prec-12) up crosses delta (unless the bracket's top is reached)
        up = mu * (1 + mpmath.ldexp(1, -mpmath.mp.prec + 12))
        if up < mpmath.mpf(MU_HI) and ref > mpmath.mpf(MU_LO):
            assert gaussian_profile(mu=up, at=e) >= d
        assert abs(mu - ref) <= mpmath.mpf("1e-26") * ref


def test_float_guess_is_only_a_start_and_none_where_float64_cannot_tell(monkeypatch):
    assert _mu_float_guess(0.5, 1e-5, 1e-6, 60.0) == pytest.approx(0.14221055866926122, rel=1e-12)
    assert _mu_float_guess(0.5, 0.0, 1e-6, 60.0) is None
    assert _mu_float_guess(0.5, 1e-5, 1e-6, 1e-3) is None  # no sign change in the bracket
    import symdp.verify.oracles_conversion as C

    with mpmath.workdps(30):  # a wrong start cannot move the result: the bracket and the bisection decide
        e, d = mpmath.mpf("0.5"), mpmath.mpf("1e-5")
        ref = _plain(e, d)
        for bad in (30.0, 1e-5, 0.1422105586692):
            monkeypatch.setattr(C, "_mu_float_guess", lambda *a, bad=bad: bad)
            mu = premise_mu(e, d)
            assert gaussian_profile(mu=mu, at=e) < d
            assert abs(mu - ref) <= mpmath.mpf("1e-26") * ref
