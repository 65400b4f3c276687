"""click parameter types: the CLI's one copy of the range checks (kept out of :mod:`symdp.validation`,
so the library path never imports click)."""

from __future__ import annotations

import math
from typing import Any

import click

from .validation import _fmt_range

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
