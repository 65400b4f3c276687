"""Input validation: the one copy of every range check (messages name parameter, value, range)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import click
import numpy as np

from .errors import InvalidParameterError, InvalidTypeError


def _fmt_range(lo: float | None, hi: float | None, lo_open: bool, hi_open: bool) -> str:
    left = "(" if lo_open or lo is None else "["
    right = ")" if hi_open or hi is None else "]"
    lo_s = "-inf" if lo is None else repr(lo)
    hi_s = "inf" if hi is None else repr(hi)
    return f"{left}{lo_s}, {hi_s}{right}"


def check_real(
    name: str,
    value: Any,
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> Any:
    """Check a real scalar or array lies in the interval; return it unchanged (arrays as np.ndarray).

    Raises InvalidParameterError naming the parameter, the offending value and the allowed range.
    NaN is always rejected.
    """
    if isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be a real number, got bool {value!r}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(f"{name} must be a real number or array of reals, got {value!r}") from exc
    rng = _fmt_range(lo, hi, lo_open, hi_open)
    bad = np.isnan(arr)
    if lo is not None:
        bad |= (arr <= lo) if lo_open else (arr < lo)
    if hi is not None:
        bad |= (arr >= hi) if hi_open else (arr > hi)
    if np.any(bad):
        offending = arr[bad].flat[0] if arr.ndim else float(arr)
        raise InvalidParameterError(f"{name}={offending!r} is outside the allowed range {rng}")
    return value if arr.ndim == 0 and isinstance(value, numbers.Real) else arr


def check_int(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> Any:
    """Check an integer scalar or integer-valued array lies in [lo, hi]."""
    if isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be an integer, got bool {value!r}")
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        try:
            farr = arr.astype(float)
        except (TypeError, ValueError) as exc:
            raise InvalidTypeError(f"{name} must be an integer, got {value!r}") from exc
        nonint = ~np.isfinite(farr) | (farr != np.floor(farr))
        if np.any(nonint):
            offending = farr[nonint].flat[0] if farr.ndim else float(farr)
            raise InvalidParameterError(f"{name}={offending!r} must be an integer")
        arr = farr.astype(np.int64)
    rng = f"[{lo if lo is not None else '-inf'}, {hi if hi is not None else 'inf'}] (integers)"
    bad = np.zeros(arr.shape, dtype=bool)
    if lo is not None:
        bad |= arr < lo
    if hi is not None:
        bad |= arr > hi
    if np.any(bad):
        offending = arr[bad].flat[0] if arr.ndim else int(arr)
        raise InvalidParameterError(f"{name}={offending!r} is outside the allowed range {rng}")
    return int(arr) if arr.ndim == 0 else arr


def check_probability(name: str, value: Any, *, open_low: bool = True, open_high: bool = True) -> Any:
    """A probability in (0, 1) by default; endpoints allowed on request."""
    return check_real(name, value, 0.0, 1.0, lo_open=open_low, hi_open=open_high)


def is_finite_scalar(x: Any) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


# ---- click parameter types: the CLI's one copy of the range checks ----------------------------------------
#
# Each type refuses NaN, infinities (unless allowed), text, empty strings and out-of-range values with
# ``click.BadParameter``; the ``symdp`` group prints that as one line naming the option, the value and the
# allowed range, and exits with code 2.


def _parse_real(text: str) -> float | None:
    s = text.strip()
    if not s or len(s) > 64:
        return None
    try:
        return float(s)
    except ValueError:
        return None


class RealParam(click.ParamType):
    """A real number in an interval (endpoints open or closed); NaN always refused, inf only if ``allow_inf``.

    >>> RealParam(0, 1, lo_open=True).convert("0.5", None, None)
    0.5
    """

    name = "real"

    def __init__(self, lo: float | None = None, hi: float | None = None, *, lo_open: bool = False,
                 hi_open: bool = False, allow_inf: bool = False) -> None:
        self.lo, self.hi, self.lo_open, self.hi_open, self.allow_inf = lo, hi, lo_open, hi_open, allow_inf

    @property
    def range(self) -> str:
        return _fmt_range(self.lo, self.hi, self.lo_open, self.hi_open or (self.hi is None and not self.allow_inf))

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "REAL"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float) and not isinstance(value, bool):
            v: float | None = value
        elif isinstance(value, int) and not isinstance(value, bool):
            v = float(value)
        else:
            v = _parse_real(str(value))
        shown = _shown(value)
        if v is None:
            self.fail(f"{shown} is not a real number; allowed range {self.range}", param, ctx)
        assert v is not None
        if math.isnan(v) or (math.isinf(v) and not self.allow_inf):
            self.fail(f"{shown} is not a finite real number; allowed range {self.range}", param, ctx)
        bad = (self.lo is not None and (v <= self.lo if self.lo_open else v < self.lo)) or (
            self.hi is not None and (v >= self.hi if self.hi_open else v > self.hi))
        if bad:
            self.fail(f"{shown} is outside the allowed range {self.range}", param, ctx)
        return v


class IntParam(click.ParamType):
    """An integer in [lo, hi]; ``1e6`` and ``1000.0`` are accepted when they are exact integers."""

    name = "integer"

    def __init__(self, lo: int | None = None, hi: int | None = None) -> None:
        self.lo, self.hi = lo, hi

    @property
    def range(self) -> str:
        return f"[{self.lo if self.lo is not None else '-inf'}, {self.hi if self.hi is not None else 'inf'}] (integers)"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "INTEGER"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        shown = _shown(value)
        if isinstance(value, int) and not isinstance(value, bool):
            v: int | None = value
        else:
            s = str(value).strip().replace("_", "")
            v = None
            if s and len(s) <= 64:
                try:
                    v = int(s)
                except ValueError:
                    f = _parse_real(s)
                    if f is not None and math.isfinite(f) and f == math.floor(f) and abs(f) < 2**63:
                        v = int(f)
        if v is None:
            self.fail(f"{shown} is not an integer; allowed range {self.range}", param, ctx)
        assert v is not None
        if (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
            self.fail(f"{shown} is outside the allowed range {self.range}", param, ctx)
        return v


def _shown(value: Any) -> str:
    """The offending value for a message: repr (control characters escaped), cut to 40 characters."""
    s = repr(value)
    return s if len(s) <= 40 else s[:37] + "..."


#: shared CLI types (use these in every command's options)
POSITIVE = RealParam(0, None, lo_open=True)  # (0, inf), finite
NONNEGATIVE = RealParam(0, None)  # [0, inf), finite
PROBABILITY_OPEN = RealParam(0, 1, lo_open=True, hi_open=True)  # (0, 1): delta, confidence
RATE = RealParam(0, 1, lo_open=True)  # (0, 1]: sampling rate
UNIT_CLOSED = RealParam(0, 1)  # [0, 1]: error rates
STEPS = IntParam(0, 10**12)
COUNT = IntParam(1, 10**12)
SEED = IntParam(0, 2**32 - 1)
