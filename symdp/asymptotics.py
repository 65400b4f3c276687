r"""Series, leading-order terms, limits of ratios and O-comparisons.

>>> import sympy as sp
>>> from symdp.symbols import eps
>>> leading_term(eps * sp.tanh(eps / 2), eps, 0)
epsilon**2/2
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from .errors import InvalidParameterError
from .theorem import Kind, Theorem


def _point(point: Any) -> sp.Expr:
    if isinstance(point, str):
        point = point.strip()
        if point in ("oo", "inf", "+oo", "infinity"):
            return sp.oo
        if point in ("-oo", "-inf"):
            return -sp.oo
    return sp.sympify(point)


def _var(expr: sp.Expr, var: sp.Symbol | str) -> sp.Symbol:
    """``var`` as a symbol of ``expr``: a name resolves to the free symbol of that name (with its
    assumptions), so does a symbol of the same name with other assumptions; a *name* that ``expr``
    does not contain is an error, not a silent constant."""
    name = var if isinstance(var, str) else var.name
    for s in sp.sympify(expr).free_symbols:
        if s.name == name:
            return s
    if not isinstance(var, str):
        return var
    have = ", ".join(sorted(s.name for s in expr.free_symbols)) or "none"
    raise InvalidParameterError(f"var={name!r} is not a symbol of the expression (its symbols: {have})")


def series(expr: sp.Expr, var: sp.Symbol | str, point: Any = 0, order: int = 3) -> sp.Expr:
    """Series of ``expr`` in ``var`` at ``point`` up to (excluding) ``order``, with its O-term.

    Hyperbolic functions are rewritten with ``exp`` when SymPy has no asymptotic
    expansion for them (e.g. ``tanh`` at infinity).
    """
    p0 = _point(point)
    var = _var(expr, var)
    try:
        return sp.series(expr, var, p0, order)
    except (sp.PoleError, ValueError, NotImplementedError):
        return sp.series(expr.rewrite(sp.exp), var, p0, order)


def leading_term(expr: sp.Expr, var: sp.Symbol, point: Any = 0) -> sp.Expr:
    """The leading-order term of ``expr`` as ``var -> point``.

    At infinity the power is found as ``lim log|f| / log var`` and the
    coefficient as ``lim f / var**p`` (works where SymPy's series at infinity
    does not, e.g. for ``tanh``); at a finite point SymPy's leading term of
    the expression (rewritten with ``exp`` if needed) is used.
    """
    p0 = _point(point)
    var = _var(expr, var)
    if p0 in (sp.oo, -sp.oo):
        v = var if p0 is sp.oo else -var
        power = sp.limit(sp.log(sp.Abs(expr)) / sp.log(sp.Abs(var)), var, p0)
        if power.is_finite:
            power = sp.nsimplify(power)
            coeff = sp.limit(sp.simplify(expr / v**power), var, p0)
            if coeff.is_finite and coeff != 0:
                return sp.simplify(coeff * v**power)
        raise InvalidParameterError(f"no power-law leading term of {expr} as {var} -> {p0} (growth exponent {power})")
    shifted = expr.subs(var, var + p0) if p0 != 0 else expr
    try:
        lt = shifted.as_leading_term(var)
    except (sp.PoleError, ValueError, NotImplementedError):
        lt = shifted.rewrite(sp.exp).as_leading_term(var)
    return sp.simplify(lt.subs(var, var - p0) if p0 != 0 else lt)


def ratio_limit(a: sp.Expr, b: sp.Expr, var: sp.Symbol, point: Any = 0) -> sp.Expr:
    """``lim a/b`` as ``var -> point`` (from above at finite points)."""
    p0 = _point(point)
    direction = "+" if p0 not in (sp.oo, -sp.oo) else None
    if direction:
        return sp.limit(sp.simplify(a / b), var, p0, dir=direction)
    return sp.limit(sp.simplify(a / b), var, p0)


def is_big_o(a: sp.Expr, b: sp.Expr, var: sp.Symbol, point: Any = 0) -> bool:
    """True when ``a = O(b)`` as ``var -> point`` (the ratio has a finite limit)."""
    lim = ratio_limit(a, b, var, point)
    return bool(lim.is_finite)


def check_expansion(th: Theorem) -> tuple[bool, sp.Expr]:
    """Check an expansion entry: ``lhs - rhs = O(remainder)``.  Returns (holds, lhs - rhs series)."""
    if th.kind is not Kind.EXPANSION or th.expansion is None:
        raise InvalidParameterError(f"theorem {th.id} is a {th.kind.value}, not an expansion")
    ex = th.expansion
    v, p0 = ex.var, _point(ex.point)
    diff = sp.simplify(th.lhs - th.rhs)
    if p0 in (sp.oo, -sp.oo):
        remainder = v ** (-ex.order)
    else:
        remainder = (v - p0) ** ex.order
    if diff == 0:
        return True, sp.Integer(0)
    lim = ratio_limit(diff, remainder, v, p0)
    ok = bool(lim.is_finite)
    return ok, lim


def derive(th: Theorem, var: str | None = None, point: Any = "0", order: int = 3, side: str = "rhs") -> dict[str, str]:
    """What ``symdp derive`` prints: simplified form, and (with ``var``) series and leading term."""
    expr = th.rhs if side == "rhs" else th.lhs
    if expr is None or not th.formula_available:
        raise InvalidParameterError(f"theorem {th.id} has no {side} formula to derive from")
    out: dict[str, str] = {"id": th.id, "expression": sp.sstr(expr), "simplified": sp.sstr(sp.simplify(expr))}
    if var is not None:
        syms = {s.name: s for s in expr.free_symbols if isinstance(s, sp.Symbol)}
        if var not in syms:
            raise InvalidParameterError(f"var={var!r} is not a symbol of {th.id}; allowed: {sorted(syms)}")
        v = syms[var]
        out["series"] = sp.sstr(series(expr, v, point, order))
        out["leading_term"] = sp.sstr(leading_term(expr, v, point))
    if th.kind is Kind.EXPANSION:
        ok, lim = check_expansion(th)
        out["expansion_holds"] = str(ok)
    return out


__all__ = ["series", "leading_term", "ratio_limit", "is_big_o", "check_expansion", "derive"]
