r"""Calibration on the safe side: the noise for a budget, and the longest run a budget allows.

Both searches keep a bracket whose *safe* end has been evaluated with the
requested accountant, and return that end: ``epsilon(returned sigma) <= target``
(resp. ``epsilon(returned steps) <= target``) holds for the accountant's own
upper bound, never for an interpolated guess.

The RDP accountant brackets the tight one from the safe side (its epsilon is an
upper bound too), so the tight search starts from the RDP answer and needs a
handful of tight evaluations on one fixed grid.

>>> r = calibrate_noise(target_epsilon=3.0, delta=1e-5, sample_rate=0.01, steps=1000, accountant="rdp")
>>> r.epsilon <= 3.0
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConvergenceError, InvalidParameterError, UnsupportedError
from ..validation import check_int, check_probability, check_real
from . import api as _api
from . import rdp as _rdp


@dataclass(frozen=True)
class CalibrationResult:
    noise_multiplier: float
    epsilon: float  # the accountant's epsilon at the returned noise multiplier (<= target)
    delta: float
    target_epsilon: float
    accountant: str
    is_upper_bound: bool
    evaluations: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class MaxStepsResult:
    steps: int
    epsilon: float  # epsilon after ``steps`` steps (<= target)
    delta: float
    target_epsilon: float
    accountant: str
    is_upper_bound: bool
    evaluations: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _rdp_eps_sigma(sigmas: np.ndarray, q: float, T: int, delta: float, sampling: str) -> np.ndarray:
    fn = _rdp.wor_rdp if sampling == "without_replacement" else _rdp.sgm_rdp
    r = fn(noise_multiplier=sigmas, sample_rate=q, orders=_rdp.DEFAULT_ORDERS)
    e, _ = _rdp.rdp_to_epsilon(rdp=T * r, orders=_rdp.DEFAULT_ORDERS, delta=delta)
    return e


def _rdp_sigma(target: float, q: float, T: int, delta: float, sampling: str, rtol: float) -> tuple[float, float, int]:
    """Smallest sigma (up to rtol, rounded up) with RDP epsilon <= target: (sigma, eps, evaluations)."""
    grid = np.geomspace(1e-2, 1e4, 121)
    e = _rdp_eps_sigma(grid, q, T, delta, sampling)
    ok = np.nonzero(e <= target)[0]
    if len(ok) == 0:
        raise ConvergenceError(f"no noise multiplier up to 1e4 reaches target_epsilon={target} (RDP accountant)")
    k = int(ok[0])
    hi, e_hi = float(grid[k]), float(e[k])
    lo = float(grid[k - 1]) if k > 0 else 0.0
    n = 1
    while hi - lo > rtol * hi:
        cand = np.linspace(lo, hi, 34)[1:-1]
        ec = _rdp_eps_sigma(cand, q, T, delta, sampling)
        n += 1
        good = np.nonzero(ec <= target)[0]
        if len(good):
            i = int(good[0])
            hi, e_hi = float(cand[i]), float(ec[i])
            lo = float(cand[i - 1]) if i > 0 else lo
        else:
            lo = float(cand[-1])
    return hi, e_hi, n


def calibrate_noise(
    *,
    target_epsilon: float,
    delta: float,
    sample_rate: float,
    steps: int,
    accountant: str = "tight",
    sampling: str = "poisson",
    rtol: float = 1e-3,
) -> CalibrationResult:
    """Smallest noise multiplier (within ``rtol``, rounded up) whose epsilon at ``delta`` is <= ``target_epsilon``."""
    acc = _api._resolve(accountant, sampling)
    if acc not in ("tight", "rdp"):
        raise UnsupportedError(f"calibration supports accountant='tight' or 'rdp', not {accountant!r}")
    target = float(check_real("target_epsilon", target_epsilon, 0.0, lo_open=True))
    delta = float(check_probability("delta", delta))
    q = float(_api._check_q(sample_rate))
    T = int(check_int("steps", steps, 1))
    rtol = float(check_real("rtol", rtol, 0.0, 0.5, lo_open=True))
    s_rdp, e_rdp, n = _rdp_sigma(target, q, T, delta, sampling, rtol)
    if acc == "rdp":
        return CalibrationResult(s_rdp, e_rdp, delta, target, "rdp", True, n)
    # tight: evaluate at the RDP answer with an adaptive grid, then bisect on that grid
    d = np.array([delta])
    v, _, det = _api._tight_one([(s_rdp, q, T)], d, None, None)
    h = float(det.get("discretization", 1e-3))
    n += 1
    hi, e_hi = s_rdp, float(v[0])
    if e_hi > target:  # cannot happen mathematically (tight <= RDP) unless the grid is too coarse: refine
        raise ConvergenceError(f"tight epsilon {e_hi} at the RDP-calibrated sigma {s_rdp} exceeds the target {target}")

    def ev(s: float) -> float:
        vv, _, _ = _api._tight_one([(s, q, T)], d, None, h if "discretization" in det else None)
        return float(vv[0])

    # lower end: shrink until epsilon exceeds the target
    lo = hi
    for _ in range(40):
        lo = lo * 0.85
        e_lo = ev(lo)
        n += 1
        if e_lo > target:
            break
        hi, e_hi = lo, e_lo
    else:
        raise ConvergenceError("could not bracket the noise multiplier from below")
    # regula falsi (Illinois) on log(eps) vs log(sigma), keeping the safe end
    fl, fh = math.log(e_lo) - math.log(target), math.log(max(e_hi, 1e-300)) - math.log(target)
    side = 0
    for _ in range(60):
        if hi - lo <= rtol * hi:
            break
        x = math.exp((math.log(lo) * fh - math.log(hi) * fl) / (fh - fl)) if fh != fl else math.sqrt(lo * hi)
        x = min(max(x, lo + 0.02 * (hi - lo)), hi - 0.02 * (hi - lo))
        e = ev(x)
        n += 1
        f = math.log(max(e, 1e-300)) - math.log(target)
        if e <= target:
            hi, e_hi, fh = x, e, f
            if side == -1:
                fl /= 2
            side = -1
        else:
            lo, fl = x, f
            if side == 1:
                fh /= 2
            side = 1
    return CalibrationResult(hi, e_hi, delta, target, "tight", True, n)


def max_steps(
    *,
    target_epsilon: float,
    delta: float,
    noise_multiplier: float,
    sample_rate: float,
    accountant: str = "tight",
    sampling: str = "poisson",
    max_steps_cap: int = 10**9,
) -> MaxStepsResult:
    """Largest number of steps whose epsilon at ``delta`` is <= ``target_epsilon`` (0 if none)."""
    acc = _api._resolve(accountant, sampling)
    if acc not in ("tight", "rdp"):
        raise UnsupportedError(f"max_steps supports accountant='tight' or 'rdp', not {accountant!r}")
    target = float(check_real("target_epsilon", target_epsilon, 0.0, lo_open=True))
    delta = float(check_probability("delta", delta))
    s = float(_api._check_sigma(noise_multiplier))
    q = float(_api._check_q(sample_rate))
    fn = _rdp.wor_rdp if sampling == "without_replacement" else _rdp.sgm_rdp
    r = fn(noise_multiplier=s, sample_rate=q, orders=_rdp.DEFAULT_ORDERS)
    # eps(T) = min_a T r_a + c_a  ->  T_max = max_a floor((target - c_a) / r_a)
    c, _ = (None, None)
    conv = _rdp.rdp_to_epsilon
    zero_c = np.array([float(conv(rdp=np.where(np.arange(len(r)) == i, 0.0, np.inf), orders=_rdp.DEFAULT_ORDERS, delta=delta)[0]) for i in range(len(r))])
    with np.errstate(divide="ignore", invalid="ignore"):
        cand = np.floor((target - zero_c) / r)
    T_rdp = int(min(max(np.nanmax(cand), 0), max_steps_cap))
    # the closed form may be off by one through rounding: step back until verified
    def eps_rdp(T: int) -> float:
        return float(conv(rdp=T * r, orders=_rdp.DEFAULT_ORDERS, delta=delta)[0]) if T > 0 else 0.0

    while T_rdp > 0 and eps_rdp(T_rdp) > target:
        T_rdp -= 1
    n = 1
    if acc == "rdp":
        return MaxStepsResult(T_rdp, eps_rdp(T_rdp), delta, target, "rdp", True, n)
    d = np.array([delta])

    def ev(T: int) -> float:
        if T == 0:
            return 0.0
        v, _, _ = _api._tight_one([(s, q, T)], d, None, None)
        return float(v[0])

    lo = T_rdp
    e_lo = ev(lo)
    n += 1
    if e_lo > target:
        raise ConvergenceError(f"tight epsilon {e_lo} after the RDP-safe {lo} steps exceeds the target {target}")
    hi = max(2 * lo, 1)
    while True:
        if hi > max_steps_cap:
            return MaxStepsResult(max_steps_cap, ev(max_steps_cap), delta, target, "tight", True, n + 1)
        e_hi = ev(hi)
        n += 1
        if e_hi > target:
            break
        lo, e_lo, hi = hi, e_hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        e = ev(mid)
        n += 1
        if e <= target:
            lo, e_lo = mid, e
        else:
            hi = mid
    return MaxStepsResult(lo, e_lo, delta, target, "tight", True, n)


__all__ = ["CalibrationResult", "MaxStepsResult", "calibrate_noise", "max_steps"]
