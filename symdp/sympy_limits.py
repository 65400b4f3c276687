"""SymPy calls under time limits, for :mod:`symdp.asymptotics` and :mod:`symdp.rates`: the asymptotics'
timeout exception and limits (through the one time-limit module, :mod:`symdp.limits`), expansion points
read from text by a whitelist (:func:`parse_point`, never ``sympify``), the argument checks, the
time-limited one-sided limit every rate is read from, and series.  :mod:`symdp.asymptotics` re-exports
the public names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

import sympy as sp

from . import limits as _limits
from .errors import InvalidParameterError
from .limits import TimeLimitExceeded

R = TypeVar("R")

#: seconds allowed to one SymPy computation (series, limit, simplify) by default
DEFAULT_TIMEOUT = 10.0
#: the largest series order ``derive`` accepts
MAX_ORDER = 20


class AsymptoticsTimeout(TimeLimitExceeded):
    """A SymPy computation ran past its time limit (the answer is "unknown")."""


# ---------------------------------------------------------------------------------------------- limits
# the one time-limit module (symdp.limits) with this module's exception
def time_limit(seconds: float) -> AbstractContextManager[None]:
    """Raise :class:`AsymptoticsTimeout` after ``seconds`` (main thread: ``SIGALRM``; elsewhere
    no signal is available and :func:`limited` runs the work in a subprocess instead)."""
    return _limits.time_limit(seconds, error=AsymptoticsTimeout)


def limited(fn: Callable[..., R], *args: Any, seconds: float = DEFAULT_TIMEOUT) -> R:
    """``fn(*args)`` within ``seconds``, or raise :class:`AsymptoticsTimeout`.

    The call runs in a forked child process that is killed at the limit (:func:`symdp.limits.run_limited`):
    a ``SIGALRM`` alone cannot stop SymPy inside a long C-level big-number operation (seen: minutes in
    ``erfc`` of a huge argument).  Inside that child, nested calls use ``SIGALRM`` only.  Where ``fork``
    is not available the call runs in this process under ``SIGALRM`` (main thread) or unguarded."""
    return _limits.run_limited(fn, *args, seconds=seconds, error=AsymptoticsTimeout)


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_point(point: Any, symbols: dict[str, sp.Symbol] | None = None) -> sp.Expr:
    """An expansion point from text by a whitelist (never ``sympify``): ``oo``/``inf``, ``-oo``,
    a decimal number, or the name of a symbol of the expression."""
    if isinstance(point, sp.Basic):
        return point
    if isinstance(point, bool):
        raise InvalidParameterError(f"at={point!r} is not a point; allowed: oo, -oo, a number or a symbol name")
    if isinstance(point, int):
        return sp.Integer(point)
    if isinstance(point, float):
        if point != point:
            raise InvalidParameterError("at=nan is not a point; allowed: oo, -oo, a number or a symbol name")
        if point in (float("inf"), float("-inf")):
            return sp.oo if point > 0 else -sp.oo
        return sp.nsimplify(point, rational=True)
    if not isinstance(point, str):
        raise InvalidParameterError(f"at={point!r} is not a point; allowed: oo, -oo, a number or a symbol name")
    s = point.strip()
    if s in ("oo", "+oo", "inf", "+inf", "infinity", "Infinity"):
        return sp.oo
    if s in ("-oo", "-inf", "-infinity"):
        return -sp.oo
    if len(s) <= 40 and _NUMBER.match(s):
        f = float(s)
        if not math.isfinite(f) or (f == 0 and any(c in "123456789" for c in s.lower().split("e")[0])):
            raise InvalidParameterError(f"at={point!r} is outside the float range (about 1e-308 to 1.8e308 in "
                                        "magnitude); write oo or -oo for an infinite point")
        return sp.Rational(s) if ("e" not in s.lower()) else sp.nsimplify(f, rational=True)
    if symbols and _NAME.match(s) and s in symbols:
        return symbols[s]
    raise InvalidParameterError(f"at={point!r} is not a point; allowed: oo, -oo, a decimal number"
                                + (f" or a symbol name ({', '.join(sorted(symbols))})" if symbols else ""))


def _point(point: Any) -> sp.Expr:
    return parse_point(point)


def _expr(expr: Any, name: str = "expr") -> sp.Expr:
    """``expr`` as a SymPy expression; text is refused (``sympify`` of a string runs it), numbers are
    converted exactly (``sympify(..., strict=True)`` accepts no string)."""
    if isinstance(expr, sp.Basic):
        return expr
    if isinstance(expr, (bool, str, bytes)) or not isinstance(expr, (int, float)):
        raise InvalidParameterError(
            f"{name}={str(expr)[:60]!r} ({type(expr).__name__}) is not a SymPy expression; text is never evaluated: "
            "parse it with symdp.audit.parse_expression(text, symbols) first")
    return sp.sympify(expr, strict=True)


def _var(expr: sp.Expr, var: sp.Symbol | str) -> sp.Symbol:
    """``var`` as a symbol of ``expr``: a name resolves to the free symbol of that name (with its
    assumptions), so does a symbol of the same name with other assumptions; a *name* that ``expr``
    does not contain is an error, not a silent constant."""
    if not isinstance(var, (str, sp.Symbol)):
        raise InvalidParameterError(f"var={var!r} is not a symbol or a symbol name")
    name = var if isinstance(var, str) else var.name
    for s in _expr(expr).free_symbols:
        if isinstance(s, sp.Symbol) and s.name == name:
            return s
    if not isinstance(var, str):
        return var
    have = ", ".join(sorted(s.name for s in expr.free_symbols if isinstance(s, sp.Symbol))) or "none"
    raise InvalidParameterError(f"var={name!r} is not a symbol of the expression (its symbols: {have})")


def _lim(e: sp.Expr, v: sp.Symbol, p0: sp.Expr, seconds: float) -> sp.Expr | None:
    """``limit(e, v, p0)`` (from above at finite points) or None when SymPy cannot tell in time."""
    def run() -> sp.Expr:
        if p0 in (sp.oo, -sp.oo):
            return sp.limit(e, v, p0)
        return sp.limit(e, v, p0, dir="+")

    try:
        out = limited(run, seconds=seconds)
    except (AsymptoticsTimeout, NotImplementedError, ValueError, TypeError, sp.PoleError, AttributeError,
            ZeroDivisionError, RecursionError):
        return None
    if out is None or out.has(sp.Limit) or out is sp.nan or out.has(sp.nan):
        return None
    return out


# -------------------------------------------------------------------------------------------- series
def series(expr: sp.Expr, var: sp.Symbol | str, point: Any = 0, order: int = 3, *,
           seconds: float = DEFAULT_TIMEOUT) -> sp.Expr:
    """Series of ``expr`` in ``var`` at ``point`` up to (excluding) ``order``, with its O-term.

    Hyperbolic functions are rewritten with ``exp`` when SymPy has no asymptotic expansion for
    them (e.g. ``tanh`` at infinity).  Raises :class:`AsymptoticsTimeout` past ``seconds``.
    """
    _check_order(order)
    expr = _expr(expr, 'expr')
    p0 = _point(point)
    var = _var(expr, var)

    def run() -> sp.Expr:
        try:
            return sp.series(expr, var, p0, order)
        except (sp.PoleError, ValueError, NotImplementedError):
            return sp.series(expr.rewrite(sp.exp), var, p0, order)

    return limited(run, seconds=seconds)


def _check_order(order: Any) -> int:
    if isinstance(order, bool) or not isinstance(order, int):
        raise InvalidParameterError(f"order={order!r} is not an integer; allowed: 1..{MAX_ORDER}")
    if not 1 <= order <= MAX_ORDER:
        raise InvalidParameterError(f"order={order} is out of range; allowed: 1..{MAX_ORDER}")
    return order
