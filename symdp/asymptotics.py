r"""Series, leading terms, rates, limits of ratios and tri-state O-comparisons, with time limits.

Limit first: the growth order of ``f`` as ``var -> oo`` is read off limits
(``lim log|f| / log var`` for the power, then a log power, then an
exponential rate) before any series is tried, because a limit answers in a
fraction of a second where SymPy's series machinery can run for minutes.  A
point ``0`` is mapped to ``oo`` by ``var -> 1/var``.  Every SymPy call runs
under a time limit (``SIGALRM`` in the main thread, a subprocess elsewhere):
what does not finish is answered ``None`` ("unknown"), never a guess; in
particular :func:`is_big_o` is tri-state and never says False for "don't know".

>>> import sympy as sp
>>> from symdp.symbols import eps
>>> leading_term(eps * sp.tanh(eps / 2), eps, 0)
epsilon**2/2
>>> rate(eps * sp.tanh(eps / 2), eps, "oo").describe()
'epsilon**1 (constant 1)'
>>> is_big_o(eps**3, eps**2, eps, 0), is_big_o(eps, eps**2, eps, 0)
(True, False)
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

import sympy as sp

from . import limits as _limits
from .errors import InvalidParameterError
from .limits import TimeLimitExceeded
from .theorem import Kind, Theorem

__all__ = [
    "AsymptoticsTimeout", "Rate", "DEFAULT_TIMEOUT", "MAX_ORDER", "parse_point", "time_limit", "limited",
    "series", "leading_term", "rate", "ratio_limit", "is_big_o", "compare", "check_expansion", "derive",
]

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


# ---------------------------------------------------------------------------------------------- rates
@dataclass(frozen=True)
class Rate:
    r"""``f ~ constant * var**power * log(var)**log_power * exp(exp_rate * var)`` as ``var -> at``.

    At ``at = 0`` the variable of the form is ``var`` itself and ``log(var)`` reads ``log(1/var)``.
    A field that could not be decided within the time limit is ``None`` ("unknown")."""

    var: sp.Symbol
    at: sp.Expr
    power: sp.Expr | None
    log_power: sp.Expr | None = sp.S.Zero
    exp_rate: sp.Expr | None = sp.S.Zero
    constant: sp.Expr | None = None
    method: str = "symbolic limits"

    @property
    def known(self) -> bool:
        return self.power is not None and self.log_power is not None and self.exp_rate is not None

    def term(self) -> sp.Expr | None:
        """The leading term as an expression (None when any part is unknown)."""
        if not self.known or self.constant is None:
            return None
        v = self.var
        lg = sp.log(v) if self.at is not sp.S.Zero else sp.log(1 / v)
        out = self.constant * v**self.power * lg**self.log_power
        if self.exp_rate != 0:
            out = out * sp.exp(self.exp_rate * (v if self.at is not sp.S.Zero else 1 / v))
        return out

    def describe(self) -> str:
        if not self.known:
            return "unknown"
        parts = []
        if self.exp_rate != 0:
            parts.append(f"exp({sp.sstr(self.exp_rate)}*{self.var if self.at is not sp.S.Zero else '1/' + str(self.var)})")
        parts.append(f"{self.var}**{sp.sstr(self.power)}")
        if self.log_power != 0:
            parts.append(f"log({self.var if self.at is not sp.S.Zero else '1/' + str(self.var)})**{sp.sstr(self.log_power)}")
        c = "unknown" if self.constant is None else sp.sstr(self.constant)
        return " * ".join(parts) + f" (constant {c})"

    def to_json(self) -> dict[str, Any]:
        def s(x: sp.Expr | None) -> str | None:
            return None if x is None else sp.sstr(x)

        return {"var": self.var.name, "at": sp.sstr(self.at), "power": s(self.power), "log_power": s(self.log_power),
                "exp_rate": s(self.exp_rate), "constant": s(self.constant), "term": s(self.term()),
                "describe": self.describe(), "method": self.method}


def _finite(x: sp.Expr | None) -> bool:
    return x is not None and x.is_finite is True


class _Budget:
    """A deadline shared by the limits of one computation."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return self.end - time.monotonic()


def _blim(e: sp.Expr, v: sp.Symbol, budget: _Budget) -> sp.Expr | None:
    left = budget.left()
    if left <= 0.05:
        return None
    return _lim(e, v, sp.oo, left)


Exps = tuple[sp.Expr | None, sp.Expr | None, sp.Expr | None, sp.Expr | None]


def _rate_at_oo(f: sp.Expr, v: sp.Symbol, budget: _Budget) -> Exps:
    """(power, log power, exponential rate, constant) of ``f`` as ``v -> oo`` (None: unknown).

    ``log f`` rather than ``log |f|``: for f < 0 the imaginary part ``i pi`` vanishes in every ratio
    taken here, and SymPy's limits are much faster without ``Abs``."""
    lf = sp.log(f)
    c_exp = _blim(lf / v, v, budget)
    if c_exp is None:
        return None, None, None, None
    c_exp = sp.re(c_exp) if c_exp.is_finite else c_exp
    if _finite(c_exp) and c_exp != 0:
        g = f * sp.exp(-c_exp * v)
        a = _blim(sp.log(g) / sp.log(v), v, budget)
        if not _finite(a):
            return None, None, c_exp, None
        a = sp.nsimplify(sp.re(a))
        const = _blim(g / v**a, v, budget)
        return a, sp.Integer(0), c_exp, const if _finite(const) and const != 0 else None
    if c_exp in (sp.oo, -sp.oo):
        return None, None, c_exp, None  # faster than any exponential: no rate of this form
    a = _blim(lf / sp.log(v), v, budget)
    if not _finite(a):
        return None, None, sp.Integer(0), None
    a = sp.nsimplify(sp.re(a))
    g = f / v**a
    const = _blim(g, v, budget)
    if _finite(const) and const != 0:
        return a, sp.Integer(0), sp.Integer(0), const
    b = _blim(sp.log(g) / sp.log(sp.log(v)), v, budget)
    if not _finite(b):
        return a, None, sp.Integer(0), None
    b = sp.nsimplify(sp.re(b))
    const = _blim(g / sp.log(v) ** b, v, budget)
    return a, b, sp.Integer(0), const if _finite(const) and const != 0 else None


#: generic values for the *other* symbols when the symbolic rate is unknown (two different points)
_GENERIC = ((sp.Rational(3, 7), sp.Rational(5, 11), 7, 3), (sp.Rational(2, 13), sp.Rational(9, 17), 11, 5))


def _generic_point(f: sp.Expr, v: sp.Symbol, which: int) -> dict[sp.Symbol, sp.Expr]:
    out: dict[sp.Symbol, sp.Expr] = {}
    r1, r2, i1, i2 = _GENERIC[which]
    for j, s in enumerate(sorted((s for s in f.free_symbols if s != v), key=lambda s: s.name)):
        if s.is_integer:
            out[s] = sp.Integer(i1 + j * i2)
        else:
            out[s] = (r1 + j * r2) / (1 + j * r2)  # in (0, 1)
    return out


def rate(expr: sp.Expr, var: sp.Symbol | str, at: Any = "oo", *, seconds: float = DEFAULT_TIMEOUT) -> Rate:
    """The order of ``expr`` as ``var -> at`` (``oo`` or ``0``), see :func:`_rate_impl`; the whole
    computation runs under one hard time limit and answers "unknown" past it."""
    expr = _expr(expr, 'expr')
    p0 = _point(at)
    v = _var(expr, var)
    if p0 not in (sp.oo, sp.S.Zero):
        raise InvalidParameterError(f"at={sp.sstr(p0)} is not supported by rate(); allowed: oo, 0")
    if _limits.in_limited_child():
        return _rate_impl(expr, v, p0, seconds)
    try:
        return limited(_rate_impl, expr, v, p0, seconds, seconds=seconds + 2.0)
    except AsymptoticsTimeout:
        return Rate(v, p0, None, None, None, None, "unknown within the time limit")


def _rate_impl(expr: sp.Expr, var: sp.Symbol | str, at: Any = "oo", seconds: float = DEFAULT_TIMEOUT) -> Rate:
    """The order of ``expr`` as ``var -> at`` (``oo`` or ``0``): powers, logs, exponentials, and the
    constant in front; unknown parts are None (never a guess).

    First symbolically (all parameters kept).  When that does not finish in half the time, the
    exponents are found with the other parameters at two generic points in (0, 1) (integers for
    integer symbols); they are reported only when both points agree, with ``method`` saying so,
    and the constant is then sought symbolically for those exponents."""
    p0 = _point(at)
    v = _var(expr, var)
    if p0 is sp.oo:
        f, x = expr, v
    elif p0 == 0:
        x = sp.Dummy("x", positive=True)
        f = expr.xreplace({v: 1 / x})
    else:
        raise InvalidParameterError(f"at={sp.sstr(p0)} is not supported by rate(); allowed: oo, 0")
    budget = _Budget(seconds)
    if f.has(sp.Min, sp.Max):
        a, b, c, k, method = _rate_structured(f, x, budget)
        if p0 == 0 and a is not None:
            a = -a
        return Rate(v, sp.oo if p0 is sp.oo else sp.Integer(0), a, b, c, k, method)
    a, b, c, k, method = _rate_plain(f, x, budget)
    if p0 == 0 and a is not None:
        a = -a
    return Rate(v, sp.oo if p0 is sp.oo else sp.Integer(0), a, b, c, k, method)


R5 = tuple[sp.Expr | None, sp.Expr | None, sp.Expr | None, sp.Expr | None, str]


def _rate_structured(f: sp.Expr, x: sp.Symbol, budget: _Budget) -> R5:
    """Rates through products and Min/Max of positive functions: the rate of a product is the
    product of the rates; Min (Max) of functions picks the slowest (fastest) order, and on a tie the
    Min (Max) of the constants.  Anything undecided is unknown."""
    unknown: R5 = (None, None, None, None, "unknown within the time limit")
    if x not in f.free_symbols:
        return (sp.Integer(0), sp.Integer(0), sp.Integer(0), f, "constant") if f != 0 else unknown
    if not f.has(sp.Min, sp.Max):
        return _rate_plain(f, x, budget)
    if f.is_Mul or (f.is_Pow and f.exp.is_number):
        parts = list(f.args) if f.is_Mul else [f]
        a, b, c, k = sp.Integer(0), sp.Integer(0), sp.Integer(0), sp.Integer(1)
        for fac in parts:
            if f.is_Pow:
                ra = _rate_structured(fac.base, x, budget)
                e = fac.exp
                if any(t is None for t in ra[:4]):
                    return unknown
                a, b, c, k = a + e * ra[0], b + e * ra[1], c + e * ra[2], k * ra[3] ** e
                continue
            ra = _rate_structured(fac, x, budget)
            if any(t is None for t in ra[:4]):
                return unknown
            a, b, c, k = a + ra[0], b + ra[1], c + ra[2], k * ra[3]
        return a, b, c, k, "product of rates"
    if isinstance(f, (sp.Min, sp.Max)):
        rates = [_rate_structured(arg, x, budget) for arg in f.args]
        if any(any(t is None for t in r[:4]) for r in rates):
            return unknown
        if any(r[3].is_positive is False for r in rates):  # type: ignore[union-attr]
            return unknown  # the ordering argument needs positive functions (bounds are, under their hypotheses)
        want_small = isinstance(f, sp.Min)
        best = [rates[0]]
        for r in rates[1:]:
            cmp = _cmp_keys(r, best[0])
            if cmp is None:
                return unknown
            if cmp == 0:
                best.append(r)
            elif (cmp < 0) == want_small:
                best = [r]
        const = (sp.Min if want_small else sp.Max)(*(r[3] for r in best))
        return best[0][0], best[0][1], best[0][2], const, "Min/Max of rates (arguments taken positive, as bounds are)"
    return _rate_plain(f, x, budget)


def _cmp_keys(r1: R5, r2: R5) -> int | None:
    """-1 / 0 / 1 as the order of r1 is below / equal / above r2's (as x -> oo); None: undecided."""
    for i in (2, 0, 1):  # exponential rate, then power, then log power
        d = sp.simplify(r1[i] - r2[i])  # type: ignore[operator]
        if d == 0:
            continue
        if d.is_negative:
            return -1
        if d.is_positive:
            return 1
        return None
    return 0


def _rate_plain(f: sp.Expr, x: sp.Symbol, budget: _Budget) -> R5:
    half = _Budget(max(budget.left(), 0.0) / 2)
    a, b, c, k = _rate_at_oo(f, x, half)
    method = "symbolic limits"
    if a is None or b is None or c is None:
        found = []
        for which in (0, 1):
            pt = _generic_point(f, x, which)
            sub = _Budget(max(budget.left() / (2 - which) * 0.8, 0.1))
            found.append(_rate_at_oo(f.xreplace(pt), x, sub)[:3])
        if found[0] == found[1] and all(e is not None for e in found[0]) and all(
                e is not None and e.is_number for e in found[0]):
            a, b, c = found[0]
            method = "exponents at two generic parameter points (agreeing); constant symbolic"
            g = f / (x**a * sp.log(x) ** b * sp.exp(c * x))
            k = _blim(g, x, budget)
            k = k if _finite(k) and k != 0 else None
        else:
            method = "unknown within the time limit"
    return a, b, c, k, method


def leading_term(expr: sp.Expr, var: sp.Symbol | str, point: Any = 0, *, seconds: float = DEFAULT_TIMEOUT) -> sp.Expr:
    """The leading-order term of ``expr`` as ``var -> point``, limit first.

    At ``oo`` and ``0`` the rate (:func:`rate`) gives ``C var**a log(var)**b exp(c var)``; at
    other finite points, or when the rate is unknown, SymPy's leading term of the series is tried
    under the time limit.  Raises :class:`InvalidParameterError` (with the reason) when neither
    answers.
    """
    expr = _expr(expr, 'expr')
    p0 = _point(point)
    var = _var(expr, var)
    budget = _Budget(seconds)
    if p0 in (sp.oo, sp.S.Zero):
        r = rate(expr, var, p0, seconds=seconds * 0.6)
        t = r.term()
        if t is not None:
            try:
                return limited(sp.simplify, t, seconds=max(min(budget.left(), seconds * 0.2), 0.2))
            except AsymptoticsTimeout:
                return t
    if p0 in (sp.oo, -sp.oo):
        raise InvalidParameterError(f"no leading term of {sp.sstr(expr)[:200]} as {var} -> {p0} found within "
                                    f"{seconds:g} s (growth order unknown)")
    shifted = expr.subs(var, var + p0) if p0 != 0 else expr

    def run() -> sp.Expr:
        try:
            lt = shifted.as_leading_term(var)
        except (sp.PoleError, ValueError, NotImplementedError):
            lt = shifted.rewrite(sp.exp).as_leading_term(var)
        return sp.simplify(lt.subs(var, var - p0) if p0 != 0 else lt)

    try:
        left = budget.left()
        if left < 0.2:
            raise AsymptoticsTimeout("time limit reached")
        return limited(run, seconds=left)
    except (AsymptoticsTimeout, sp.PoleError, ValueError, NotImplementedError) as exc:
        raise InvalidParameterError(f"no leading term of {sp.sstr(expr)[:200]} as {var} -> {p0}: "
                                    f"{type(exc).__name__}") from None


def ratio_limit(a: sp.Expr, b: sp.Expr, var: sp.Symbol | str, point: Any = 0, *,
                seconds: float = DEFAULT_TIMEOUT) -> sp.Expr | None:
    """``lim a/b`` as ``var -> point`` (from above at finite points); None when unknown in time."""
    a = _expr(a, 'a')
    b = _expr(b, 'b')
    p0 = _point(point)
    v = _var(a / b, var) if not isinstance(var, sp.Symbol) else var
    return _lim(a / b, v, p0, seconds)


def is_big_o(a: sp.Expr, b: sp.Expr, var: sp.Symbol | str, point: Any = 0, *,
             seconds: float = DEFAULT_TIMEOUT) -> bool | None:
    """Tri-state ``a = O(b)`` as ``var -> point``: True, False, or None ("unknown"; never False for
    that).  Decided by the limit of ``|a/b|`` (finite: True; infinite: False), then by the rates."""
    a = _expr(a, 'a')
    b = _expr(b, 'b')
    p0 = _point(point)
    v = _var(a / b, var) if not isinstance(var, sp.Symbol) else var
    lim = _lim(sp.Abs(a / b), v, p0, seconds)
    if lim is not None:
        if isinstance(lim, sp.AccumBounds):
            return True if lim.max.is_finite else None
        if lim.is_finite:
            return True
        if lim in (sp.oo, -sp.oo, sp.zoo):
            return False
        return None
    if p0 in (sp.oo, sp.S.Zero):
        ra, rb = rate(a, v, p0, seconds=seconds), rate(b, v, p0, seconds=seconds)
        if ra.known and rb.known:
            sign = 1 if p0 is sp.oo else -1
            assert ra.power is not None and rb.power is not None  # known
            key_a = (ra.exp_rate, sign * ra.power, ra.log_power)
            key_b = (rb.exp_rate, sign * rb.power, rb.log_power)
            for x, y in zip(key_a, key_b):
                d = sp.simplify(x - y)
                if d.is_negative:
                    return True
                if d.is_positive:
                    return False
                if d != 0:
                    return None
            return True if ra.constant is not None and rb.constant is not None else None
    return None


def compare(a: sp.Expr, b: sp.Expr, var: sp.Symbol | str, point: Any = "oo", *,
            seconds: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """"Bound A is O(bound B)" and the reverse, with the ratio's limit (each None when unknown)."""
    a = _expr(a, 'a')
    b = _expr(b, 'b')
    p0 = _point(point)
    lim = ratio_limit(a, b, var, p0, seconds=seconds)
    return {"a_is_O_b": is_big_o(a, b, var, p0, seconds=seconds), "b_is_O_a": is_big_o(b, a, var, p0, seconds=seconds),
            "ratio_limit": None if lim is None else sp.sstr(lim)}


def check_expansion(th: Theorem) -> tuple[bool, sp.Expr]:
    """Check an expansion entry: ``lhs - rhs = O(remainder)``.  Returns (holds, lhs - rhs series)."""
    if th.kind is not Kind.EXPANSION or th.expansion is None:
        raise InvalidParameterError(f"theorem {th.id} is a {th.kind.value}, not an expansion")
    ex = th.expansion
    v, p0 = ex.var, _point(ex.point)
    if th.lhs is None or th.rhs is None:
        raise InvalidParameterError(f"theorem {th.id} has no formula to check")
    diff = sp.simplify(th.lhs - th.rhs)
    if p0 in (sp.oo, -sp.oo):
        remainder = v ** (-ex.order)
    else:
        remainder = (v - p0) ** ex.order
    if diff == 0:
        return True, sp.Integer(0)
    direction = "+" if p0 not in (sp.oo, -sp.oo) else None
    ratio = sp.simplify(diff / remainder)
    lim = sp.limit(ratio, v, p0, dir=direction) if direction else sp.limit(ratio, v, p0)
    ok = bool(lim.is_finite)
    return ok, lim


def derive(th: Theorem, var: str | None = None, point: Any = "0", order: int = 3, side: str = "rhs", *,
           rate_var: str | None = None, seconds: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """What ``symdp derive`` prints: the expression, its simplified form, and with ``var`` its series
    and leading term, with ``rate_var`` its rate; each part answers "unknown" past its time limit."""
    expr = th.rhs if side == "rhs" else th.lhs
    if expr is None or not th.formula_available:
        raise InvalidParameterError(f"theorem {th.id} has no {side} formula to derive from")
    _check_order(order)
    syms = {s.name: s for s in expr.free_symbols if isinstance(s, sp.Symbol)}
    for name in (var, rate_var):
        if name is not None and name not in syms:
            raise InvalidParameterError(f"var={name!r} is not a symbol of {th.id}; allowed: {sorted(syms)}")
    p0 = parse_point(point)
    if rate_var is not None and p0 not in (sp.oo, sp.S.Zero):
        raise InvalidParameterError(f"at={point!r} is not supported with --rate; allowed: oo, 0")
    out: dict[str, Any] = {"id": th.id, "expression": sp.sstr(expr)}
    # one deadline for the whole answer: each part gets a share, whatever is left goes on
    budget = _Budget(seconds)
    parts = 1 + (2 if var is not None else 0) + (2 if rate_var is not None else 0) + (th.kind is Kind.EXPANSION)

    def share(weight: int = 1) -> float | None:
        left = budget.left()
        return None if left < 0.3 else min(left, seconds * weight / parts)

    sec = share()
    try:
        out["simplified"] = sp.sstr(limited(sp.simplify, expr, seconds=sec)) if sec else "unknown (time limit)"
    except AsymptoticsTimeout:
        out["simplified"] = "unknown (time limit)"
    if var is not None:
        v = syms[var]
        sec = share()
        try:
            out["series"] = sp.sstr(series(expr, v, p0, order, seconds=sec)) if sec else "unknown (time limit)"
        except AsymptoticsTimeout:
            out["series"] = "unknown (time limit)"
        except (sp.PoleError, ValueError, NotImplementedError, TypeError, AttributeError) as exc:
            out["series"] = f"unknown ({type(exc).__name__})"
        sec = share()
        try:
            out["leading_term"] = sp.sstr(leading_term(expr, v, p0, seconds=sec)) if sec else "unknown (time limit)"
        except InvalidParameterError:
            out["leading_term"] = "unknown"
    if rate_var is not None:
        sec = share(2)
        out["rate"] = (rate(expr, syms[rate_var], p0, seconds=sec).to_json() if sec
                       else {"describe": "unknown", "method": "unknown within the time limit"})
    if th.kind is Kind.EXPANSION:
        sec = share()
        try:
            ok, _ = limited(check_expansion, th, seconds=sec) if sec else (None, None)
            out["expansion_holds"] = "unknown" if ok is None else str(ok)
        except (AsymptoticsTimeout, NotImplementedError, ValueError, sp.PoleError):
            out["expansion_holds"] = "unknown"
    return out
