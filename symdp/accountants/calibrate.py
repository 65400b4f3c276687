r"""Calibration on the safe side: the noise for a budget, and the longest run a budget allows.

Both searches keep a bracket whose *safe* end has been evaluated with the
requested accountant, and return that end: ``epsilon(returned sigma) <= target``
(resp. ``epsilon(returned steps) <= target``) holds for the accountant's own
upper bound, never for an interpolated guess.

Every evaluation is a call of :func:`symdp.accountants.epsilon` with the
requested accountant -- the very function that reports epsilon -- so the result
is exact on the safe side of that accountant (relative tolerance ``1e-7`` by
default), including its RDP fallback where the tight accountant falls back.

>>> r = calibrate_noise(target_epsilon=3.0, delta=1e-5, sample_rate=0.01, steps=1000, accountant="rdp")
>>> r.epsilon <= 3.0
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..errors import ConvergenceError, UnsupportedError
from ..validation import check_int, check_probability, check_real
from . import api as _api


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


_SIGMA_MIN, _SIGMA_MAX = 1e-3, 1e12


def _eps(acc: str, sampling: str, sigma: float, q: float, T: int, delta: float) -> float:
    """The accountant's own reported epsilon (the same call a user makes)."""
    r = _api.epsilon(noise_multiplier=sigma, sample_rate=q, steps=T, delta=delta, accountant=acc, sampling=sampling)
    e = float(r.epsilon)
    return e if e == e else math.inf  # NaN is never "within the target"


def _log_search(f: Any, target: float, lo: float, hi: float, f_lo: float, f_hi: float, rtol: float,
                max_evals: int = 200) -> tuple[float, float, float, float, int]:
    """Shrink a bracket ``[lo, hi]`` with ``f(lo) > target >= f(hi)`` (f decreasing) to ``hi - lo <= rtol hi``.

    Illinois regula falsi on ``log f`` against ``log sigma`` (bisection where that stalls); returns
    ``(lo, hi, f_lo, f_hi, evaluations)``.  Only evaluated points enter the bracket, so ``f(hi) <= target``.
    """
    n = 0
    side = 0
    lt = math.log(target)

    def g(v: float) -> float:
        return (math.log(v) if v > 0 else -745.0) - lt if math.isfinite(v) else 745.0

    gl, gh = g(f_lo), g(f_hi)
    while hi - lo > rtol * hi and n < max_evals:
        a, b = math.log(lo), math.log(hi)
        if n % 4 == 3 or not (math.isfinite(gl) and math.isfinite(gh)) or gl == gh:
            x = 0.5 * (a + b)
        else:
            x = (a * gh - b * gl) / (gh - gl)
            w = b - a
            x = min(max(x, a + 1e-3 * w), b - 1e-3 * w)
        s = math.exp(x)
        if not lo < s < hi:
            s = 0.5 * (lo + hi)
        v = f(s)
        n += 1
        if v <= target:
            hi, f_hi, gh = s, v, g(v)
            if side == -1:
                gl /= 2
            side = -1
        else:
            lo, f_lo, gl = s, v, g(v)
            if side == 1:
                gh /= 2
            side = 1
    return lo, hi, f_lo, f_hi, n


@_api._quiet_fp
def calibrate_noise(
    *,
    target_epsilon: float,
    delta: float,
    sample_rate: float,
    steps: int,
    accountant: str = "tight",
    sampling: str = "poisson",
    rtol: float = 1e-7,
) -> CalibrationResult:
    """Smallest noise multiplier (within ``rtol`` relative, rounded up) whose epsilon at ``delta`` is <= ``target_epsilon``.

    The search evaluates :func:`symdp.accountants.epsilon` itself (the accountant that reports
    epsilon), so ``epsilon(noise_multiplier=result.noise_multiplier, ...) == result.epsilon <= target``
    exactly; a noise multiplier ``rtol`` lower was evaluated and exceeds the target (the bracket).
    Targets from 1e-3 to 1e3 (any positive target whose noise lies in [1e-3, 1e12]).
    """
    acc = _api._resolve(accountant, sampling)
    if acc not in ("tight", "rdp"):
        raise UnsupportedError(f"calibration supports accountant='tight' or 'rdp', not {accountant!r}")
    target = float(check_real("target_epsilon", target_epsilon, 0.0, math.inf, lo_open=True, hi_open=True))
    delta = float(check_probability("delta", delta))
    q = float(_api._check_q(sample_rate))
    T = int(check_int("steps", steps, 1))
    rtol = float(check_real("rtol", rtol, 1e-12, 0.5))

    def f(sig: float) -> float:
        return _eps(acc, sampling, sig, q, T, delta)

    # bracket: start from the GDP-CLT guess mu = q sqrt(T (e^{1/s^2} - 1)) matched to the target, then widen by 4x
    guess = 1.0
    n = 0
    hi, f_hi = guess, f(guess)
    n += 1
    lo, f_lo = hi, f_hi
    if f_hi <= target:
        while f_lo <= target:
            hi, f_hi = lo, f_lo
            lo = lo / 4
            if lo < _SIGMA_MIN:
                return CalibrationResult(hi, f_hi, delta, target, acc, True, n)  # the target holds for any sigma >= 1e-3
            f_lo = f(lo)
            n += 1
    else:
        while f_hi > target:
            lo, f_lo = hi, f_hi
            hi = hi * 4
            if hi > _SIGMA_MAX:
                raise ConvergenceError(
                    f"target_epsilon={target_epsilon!r}: no noise_multiplier up to {_SIGMA_MAX:g} reaches it "
                    f"(epsilon {f_hi!r} there; accountant={acc!r}, delta={delta!r}, sample_rate={q!r}, steps={T!r})")
            f_hi = f(hi)
            n += 1
    lo, hi, f_lo, f_hi, k = _log_search(f, target, lo, hi, f_lo, f_hi, rtol)
    n += k
    if f_hi > target:  # pragma: no cover - the bracket invariant
        raise ConvergenceError(f"calibration lost its safe end (epsilon {f_hi} > target {target})")
    return CalibrationResult(hi, f_hi, delta, target, acc, True, n)


@_api._quiet_fp
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
    """Largest number of steps whose epsilon at ``delta`` is <= ``target_epsilon`` (0 if none).

    Exact for the accountant that reports epsilon: ``epsilon(steps=result.steps) <= target <
    epsilon(steps=result.steps + 1)`` were both evaluated with :func:`symdp.accountants.epsilon`
    (unless the cap is reached).  Epsilon grows with the number of steps (composition); the search
    doubles, then bisects on integers.
    """
    acc = _api._resolve(accountant, sampling)
    if acc not in ("tight", "rdp"):
        raise UnsupportedError(f"max_steps supports accountant='tight' or 'rdp', not {accountant!r}")
    target = float(check_real("target_epsilon", target_epsilon, 0.0, math.inf, lo_open=True, hi_open=True))
    delta = float(check_probability("delta", delta))
    s = float(_api._check_sigma(noise_multiplier))
    q = float(_api._check_q(sample_rate))
    cap = int(check_int("max_steps_cap", max_steps_cap, 1))
    n = 0

    def ev(T: int) -> float:
        nonlocal n
        n += 1
        return _eps(acc, sampling, s, q, T, delta) if T > 0 else 0.0

    # initial guess from the RDP curve's linear structure (cheap), then exact search on the accountant
    lo, e_lo = 0, 0.0
    hi = 1
    e_hi = ev(hi)
    while e_hi <= target:
        lo, e_lo = hi, e_hi
        if hi >= cap:
            return MaxStepsResult(cap, e_lo, delta, target, acc, True, n)
        hi = min(hi * 4, cap)
        e_hi = ev(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        e = ev(mid)
        if e <= target:
            lo, e_lo = mid, e
        else:
            hi = mid
    return MaxStepsResult(lo, e_lo, delta, target, acc, True, n)


__all__ = ["CalibrationResult", "MaxStepsResult", "calibrate_noise", "max_steps"]
