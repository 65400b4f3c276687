"""Batched root finding (numpy, torch) and the generated inverses of the mu-GDP privacy profile."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
import torch

from symdp.codegen import kernel
from symdp.codegen.roots import bisect, gdp_delta, gdp_eps_for_delta, gdp_mu_for, invert
from symdp.errors import InvalidParameterError


def _gdp_ref(eps, mu):
    with mp.workdps(60):
        e, m = mp.mpf(eps), mp.mpf(mu)
        return mp.ncdf(-e / m + m / 2) - mp.exp(e) * mp.ncdf(-e / m - m / 2)


def test_bisect_batched_safe_sides_and_invalid_brackets():
    tgt = np.array([2.0, 3.0, 50.0])
    up = bisect(lambda x: x**2, np.zeros(3), np.full(3, 4.0), target=tgt, side="upper")
    lo = bisect(lambda x: x**2, np.zeros(3), np.full(3, 4.0), target=tgt, side="lower")
    assert list(up.converged) == [True, True, False]
    assert np.isnan(up.root[2]) and np.isnan(lo.root[2])  # no root in [0, 4]: NaN, never a guess
    assert np.all(up.root[:2] ** 2 >= tgt[:2]) and np.all(lo.root[:2] ** 2 <= tgt[:2])
    np.testing.assert_allclose(up.root[:2], np.sqrt(tgt[:2]), rtol=1e-15)
    # decreasing function, log-scale bracket over many decades
    r = bisect(lambda x: 1.0 / x, 1e-300, 1e300, target=1e-200, side="upper", scale="log")
    assert r.converged and 1.0 / r.root <= 1e-200 and math.isclose(r.root, 1e200, rel_tol=1e-14)


def test_bisect_torch_matches_numpy_and_keeps_device_dtype():
    x_hi = torch.tensor([2.0, 3.0, 1.0], dtype=torch.float64)
    r = bisect(lambda x: x**2, torch.zeros(3, dtype=torch.float64), x_hi, target=2.0, side="upper", max_iter=80)
    n = bisect(lambda x: x**2, np.zeros(3), x_hi.numpy(), target=2.0, side="upper", max_iter=80)
    assert r.root.dtype == torch.float64 and r.root.device == x_hi.device
    assert r.converged.tolist() == [True, True, False]
    np.testing.assert_array_equal(r.root.numpy()[:2], n.root[:2])


def test_bisect_rejects_bad_options():
    with pytest.raises(InvalidParameterError, match="side"):
        bisect(lambda x: x, 0.0, 1.0, side="middle")
    with pytest.raises(InvalidParameterError, match="max_iter"):
        bisect(lambda x: x, 0.0, 1.0, max_iter=0)
    with pytest.raises(InvalidParameterError, match="scale"):
        bisect(lambda x: x, 0.0, 1.0, scale="cubic")


def test_gdp_delta_is_the_library_kernel_and_accurate():
    eps = np.array([0.01, 1.0, 5.0, 10.0])
    mu = np.array([0.05, 1.0, 2.0, 5.0])
    got = gdp_delta(eps, mu)
    np.testing.assert_array_equal(got, kernel("bu2020.delta_of_eps_gdp")(epsilon=eps, mu=mu))
    for e, m, g in zip(eps, mu, got):
        r = _gdp_ref(e, m)
        assert abs(g - r) <= 1e-12 * abs(r)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_gdp_eps_for_delta_is_safe_and_tight(backend):
    mu = np.array([0.1, 0.5, 1.0, 1.13, 3.0])
    delta = np.array([1e-5, 1e-10, 1e-5, 1e-5, 1e-300])
    if backend == "torch":
        res = gdp_eps_for_delta(torch.tensor(mu), torch.tensor(delta), backend="torch")
        root, conv = res.root.numpy(), res.converged.numpy()
    else:
        res = gdp_eps_for_delta(mu, delta)
        root, conv = res.root, res.converged
    assert conv.all()
    for e, m, d in zip(root, mu, delta):
        assert _gdp_ref(e, m) <= d * (1 + 1e-9)  # safe: delta at the returned eps is within the target
        assert _gdp_ref(e * (1 - 1e-9), m) > d  # tight: a slightly smaller eps is not
    # Bu et al. 2020 (003, Sec. 5): mu = 1.13 gives eps 5.07 at delta = 1e-5 (CLT); the exact inverse is
    # 5.0456, so the paper's (rounded) 5.07 is safe but 0.024 loose (delta(5.07) = 9.1e-6)
    assert 5.04 < root[3] < 5.07


def test_gdp_eps_degenerate_zero():
    # delta(0) = 2 Phi(mu/2) - 1 <= target: eps = 0 exactly, converged
    res = gdp_eps_for_delta(np.array([0.01]), np.array([0.5]))
    assert res.root[0] == 0.0 and res.converged[0]


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_gdp_mu_for_target_is_safe(backend):
    eps = np.array([0.5, 1.0, 5.07, 8.0])
    delta = np.array([1e-5, 1e-6, 1e-5, 1e-12])
    if backend == "torch":
        res = gdp_mu_for(torch.tensor(eps), torch.tensor(delta), backend="torch")
        root, conv = res.root.numpy(), res.converged.numpy()
    else:
        res = gdp_mu_for(eps, delta)
        root, conv = res.root, res.converged
    assert conv.all()
    for m, e, d in zip(root, eps, delta):
        assert _gdp_ref(e, m) <= d * (1 + 1e-9)
        assert _gdp_ref(e, m * (1 + 1e-9)) > d
    assert abs(root[2] - 1.13) < 0.01


def test_invert_validates_symbol_and_parameters():
    with pytest.raises(InvalidParameterError, match="solve_for"):
        invert("bu2020.delta_of_eps_gdp", "sigma", 1e-5, 0.0, 1.0, side="upper", mu=1.0)
    with pytest.raises(InvalidParameterError, match="missing"):
        invert("bu2020.delta_of_eps_gdp", "epsilon", 1e-5, 0.0, 10.0, side="upper")
    with pytest.raises(InvalidParameterError, match="delta"):
        gdp_eps_for_delta(1.0, 1.5)
