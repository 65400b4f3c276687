"""symdp._special (numpy-only special functions of the accounting path) against 40-digit mpmath and scipy."""

from __future__ import annotations

import math
import subprocess
import sys

import mpmath as mp
import numpy as np
import pytest

from symdp import _special as S

RNG = np.random.default_rng(20261123)


def _rel(ours: np.ndarray, ref: np.ndarray) -> np.ndarray:
    ours, ref = np.asarray(ours, float), np.asarray(ref, float)
    with np.errstate(all="ignore"):
        r = np.abs(ours - ref) / np.abs(ref)
    r[ours == ref] = 0.0
    return r


@pytest.fixture(autouse=True)
def _digits():
    with mp.workdps(40):  # local: other test modules read mpmath's global precision
        yield


def _ref(f, xs):
    return np.array([float(f(mp.mpf(float(v)))) for v in xs])


XS = np.concatenate([RNG.uniform(-40, 40, 1500), RNG.uniform(-3, 3, 800), np.linspace(-38.4, 38.4, 385),
                     [0.0, 1.0, -1.0, 0.5, -0.5, 1 / math.sqrt(2), -1 / math.sqrt(2), 8.0, -8.0, 1.4142135623730951,
                      -1.4142135623730951, 11.313708498984761, -11.313708498984761]])

CASES = {
    "ndtr": mp.ncdf,
    "erfc": mp.erfc,
    "erf": mp.erf,
    "erfcx": lambda v: mp.exp(v * v) * mp.erfc(v),
    "log_ndtr": lambda v: mp.log(mp.ncdf(v)) if v < 0 else mp.log1p(-mp.ncdf(-v)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_mpmath(name):
    ref = _ref(CASES[name], XS)
    ours = getattr(S, name)(XS)
    ok = np.isfinite(ref) & (np.abs(ref) > 1e-300)  # below: subnormal results, compared separately
    assert ok.sum() > 2000
    r = _rel(ours[ok], ref[ok])
    assert r.max() < 4e-15, (name, float(r.max()), float(XS[ok][np.argmax(r)]))


def test_far_tails():
    x = np.concatenate([-np.logspace(0.5, 150, 150), [-1e5, -20.5, -25.0, -50.0, -19.9, -20.0, -20.1]])
    ref = _ref(lambda v: mp.log(mp.ncdf(v)), x)
    assert _rel(S.log_ndtr(x), ref).max() < 2e-15
    z = np.concatenate([np.logspace(0, 150, 150), RNG.uniform(1, 1e9, 50), np.linspace(7.9, 8.1, 41)])

    def erfcx_ref(v):
        if v < 1e4:
            return mp.exp(v * v) * mp.erfc(v)
        # asymptotic series: 12 terms leave < 1e-90 relative here (mpmath's erfc loses digits this far out)
        t, s, term = 1 / (2 * v * v), mp.mpf(1), mp.mpf(1)
        for k in range(1, 12):
            term *= -(2 * k - 1) * t
            s += term
        return s / (v * mp.sqrt(mp.pi))

    ref = _ref(erfcx_ref, z)
    assert _rel(S.erfcx(z), ref).max() < 4e-15


def test_ndtr_relative_accuracy_better_than_the_unsplit_square():
    # scipy's ndtr rounds a/sqrt(2) before squaring: ~1e-13 relative at a = -37; the split keeps a few ulp
    a = np.linspace(-38, -30, 200)
    ref = _ref(mp.ncdf, a)
    assert _rel(S.ndtr(a), ref).max() < 4e-15


def test_ndtri_and_upper_quantile():
    p = np.concatenate([RNG.uniform(0, 1, 600), np.logspace(-300, -1, 150), 1 - np.logspace(-15, -1, 40)])

    def inv(v):
        v = float(v)
        target = mp.mpf(v) if v < 0.5 else -(1 - mp.mpf(v))
        return mp.findroot(lambda t: (mp.ncdf(t) if v < 0.5 else -mp.ncdf(-t)) - target, float(S.ndtri(v)))

    ref = np.array([float(inv(v)) for v in p])
    assert _rel(S.ndtri(p), ref).max() < 2e-15
    scal = np.array([S.ndtri(float(v)) for v in p])
    assert np.array_equal(scal, S.ndtri(p))  # scalar and array paths are one algorithm
    for t in [1e-300, 1e-30, 1e-12, 1e-7, 0.01, 0.3, 0.5, 0.7]:
        z = S.upper_quantile(t)
        assert mp.ncdf(-mp.mpf(z)) <= t  # the safe side: never more than t beyond z
    assert S.ndtri(0.0) == -np.inf and S.ndtri(1.0) == np.inf
    assert np.isnan(S.ndtri(-0.1)) and np.isnan(S.ndtri(1.5)) and np.isnan(S.ndtri(np.nan))


def test_gammaln_gammasgn_xlogy():
    g = np.concatenate([RNG.uniform(-30, 30, 1200), RNG.uniform(0, 3, 400), np.arange(1, 300.0),
                        RNG.uniform(0, 1e6, 100), [1e-300, 1e-10, 0.5, 1.5, 2.5, 1024.0, 1025.0, 1024.5]])
    ref = np.array([float(mp.log(abs(mp.gamma(mp.mpf(float(v)))))) for v in g])
    err = np.abs(S.gammaln(g) - ref) / np.maximum(1.0, np.abs(ref))
    assert err.max() < 1e-14
    ints = np.arange(1, 1025.0)
    assert np.array_equal(S.gammaln(ints), np.array([math.log(math.factorial(int(v) - 1)) for v in ints]))
    assert S.gammaln(3.0) == math.log(2.0)
    assert np.all(np.isposinf(S.gammaln(np.array([0.0, -1.0, -7.0, np.inf]))))
    x = np.array([-0.5, -1.5, -2.5, 0.5, 3.0, -1.0, 0.0])
    assert np.array_equal(S.gammasgn(x), np.array([-1.0, 1.0, -1.0, 1.0, 1.0, np.nan, 1.0]), equal_nan=True)
    assert S.xlogy(0.0, 0.0) == 0.0 and math.isnan(S.xlogy(0.0, np.nan)) and S.xlogy(2.0, 3.0) == 2 * math.log(3.0)


def test_special_values_and_shapes():
    assert np.array_equal(S.ndtr(np.array([np.inf, -np.inf])), [1.0, 0.0])
    assert np.isnan(S.ndtr(np.nan)) and np.isnan(S.log_ndtr(np.nan)) and np.isnan(S.erfc(np.nan))
    assert np.array_equal(S.erfc(np.array([np.inf, -np.inf])), [0.0, 2.0])
    assert np.array_equal(S.erf(np.array([np.inf, -np.inf])), [1.0, -1.0])
    assert S.log_ndtr(-np.inf) == -np.inf and S.log_ndtr(np.inf) == 0.0
    assert S.erfcx(np.inf) == 0.0 and S.erfcx(-np.inf) == np.inf and S.erfcx(-30.0) == np.inf
    for f in (S.ndtr, S.log_ndtr, S.erfc, S.erf, S.erfcx, S.gammaln, S.ndtri):
        assert np.ndim(f(0.3)) == 0
        assert f(np.full((2, 3), 0.3)).shape == (2, 3)
        assert f(np.array([])).shape == (0,)


def test_agrees_with_scipy_where_scipy_is_accurate():
    sc = pytest.importorskip("scipy.special")
    x = RNG.uniform(-8, 8, 5000)
    for name in ("ndtr", "erfc", "erf", "log_ndtr", "erfcx"):
        assert _rel(getattr(S, name)(x), getattr(sc, name)(x)).max() < 1e-13, name
    assert S.gamma is sc.gamma  # names not implemented here come from scipy.special, lazily


def test_epsilon_imports_neither_scipy_nor_sympy():
    code = ("import sys\nfrom symdp.accountants import epsilon, delta\n"
            "epsilon(noise_multiplier=1.1, sample_rate=0.01, steps=1000, delta=1e-5)\n"
            "epsilon(noise_multiplier=1.1, sample_rate=0.01, steps=1000, delta=1e-5, accountant='rdp')\n"
            "delta(noise_multiplier=1.1, sample_rate=0.01, steps=1000, epsilon=1.0)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'sympy'))\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]", out.stdout
