"""Input validation: the one copy of every range check (messages name parameter, value, range)."""

from __future__ import annotations

import math
import numbers
from typing import Any

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

