r"""Series, leading terms, rates, limits of ratios and tri-state O-comparisons, with time limits.

Limit first: the growth order of ``f`` as ``var -> oo`` is read off limits
(``lim log|f| / log var`` for the power, then a log power, then an
exponential rate) before any series is tried, because a limit answers in a
fraction of a second where SymPy's series machinery can run for minutes.  A
point ``0`` is mapped to ``oo`` by ``var -> 1/var``.  Every SymPy call runs
under a time limit (``SIGALRM`` in the main thread, a subprocess elsewhere):
what does not finish is answered ``None`` ("unknown"), never a guess; in
particular :func:`is_big_o` is tri-state and never says False for "don't know".


The rates live in :mod:`symdp.rates`, the time-limited SymPy calls (points, limits, series) in
:mod:`symdp.sympy_limits`; this module owns leading terms, O-comparisons, expansions checks and
``derive``, and re-exports the public names of both.

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

from typing import Any

import sympy as sp

from .errors import InvalidParameterError
from .rates import Rate as Rate
from .rates import _Budget
from .rates import limit_region as limit_region
from .rates import opaque_functions as opaque_functions
from .rates import rate as rate
from .sympy_limits import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from .sympy_limits import MAX_ORDER as MAX_ORDER
from .sympy_limits import AsymptoticsTimeout as AsymptoticsTimeout
from .sympy_limits import _check_order, _expr, _lim, _point, _var
from .sympy_limits import limited as limited
from .sympy_limits import parse_point as parse_point
from .sympy_limits import series as series
from .sympy_limits import time_limit as time_limit
from .theorem import Kind, Theorem

__all__ = [
    "limit_region", "opaque_functions",
    "AsymptoticsTimeout", "Rate", "DEFAULT_TIMEOUT", "MAX_ORDER", "parse_point", "time_limit", "limited",
    "series", "leading_term", "rate", "ratio_limit", "is_big_o", "compare", "check_expansion", "derive",
]


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
    # order 0: the remainder is 1 and diff is simplify's own output already; simplifying it again returned the
    # same expression (srepr-equal) on every order-0 entry of the library and cost 0.1-0.8 s CPU each
    ratio = diff if remainder == 1 else sp.simplify(diff / remainder)
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
