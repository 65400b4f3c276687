"""Numbers at a bind (split from :mod:`symdp.calculus`, pure move): a chain's closed forms and hypotheses
evaluated in mpmath at :data:`EVAL_DIGITS` digits with the library's opaque functions (GDPEpsilon, SGMRDP, ...)
by their own ``evalf`` (:func:`evaluate`), and a hypothesis decided at a point with ties within rounding left
undecided on strict comparisons (:func:`decide`).  SymPy and mpmath only; :mod:`symdp.calculus` re-exports both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from .errors import InvalidParameterError
from .rendering import clip

#: digits of the numbers bound into a chain (floats, not exact rationals: ``(1 - delta)**T`` at T = 1e4 with a
#: rational delta is a 10^4-digit exact number, the cause of the SGLD chain's 8 minutes and 17 GB)
BIND_DIGITS = 60
#: digits a hypothesis and a conclusion value are evaluated with
EVAL_DIGITS = 40


def _numeric(v: sp.Expr) -> sp.Expr:
    if v.is_Integer or not v.is_number:
        return v
    return sp.Float(v, BIND_DIGITS)


def _opaque_functions(e: sp.Basic) -> dict[str, Any]:
    """mpmath stand-ins for the library's opaque functions in ``e`` (GDPEpsilon, SGMRDP, ...): their own
    ``evalf`` at :data:`EVAL_DIGITS` digits."""
    import mpmath

    out: dict[str, Any] = {}
    for f in e.atoms(sp.Function):
        cls = type(f)
        if cls.__module__.startswith("sympy") or cls.__name__ in out:
            continue

        def call(*args: Any, cls: Any = cls) -> Any:
            v = cls(*(sp.Float(mpmath.nstr(a, EVAL_DIGITS + 5), EVAL_DIGITS + 5) for a in args)).evalf(EVAL_DIGITS)
            if not v.is_Number:
                raise InvalidParameterError(f"{cls.__name__}{tuple(float(a) for a in args)} cannot be evaluated; "
                                            "allowed: arguments inside its domain")
            return mpmath.mpf(str(v))

        out[cls.__name__] = call
    return out


def evaluate(e: sp.Expr, env: Mapping[sp.Symbol, sp.Expr], digits: int = EVAL_DIGITS) -> Any:
    """``e`` at ``env`` (every free symbol bound) in mpmath at ``digits`` (default :data:`EVAL_DIGITS`) digits
    (lambdify: SymPy never auto-evaluates a large tree of numbers); an mpc when the value is not real."""
    import mpmath

    syms = sorted((x for x in e.free_symbols if isinstance(x, sp.Symbol)), key=lambda x: x.name)
    f = sp.lambdify(syms, e, modules=[_opaque_functions(e), "mpmath"])
    with mpmath.workdps(digits):
        args = [mpmath.mpf(str(sp.Float(env[x], digits + 5))) if not sp.sympify(env[x]).is_Integer
                else mpmath.mpf(int(env[x])) for x in syms]
        try:
            return f(*args)
        except (ZeroDivisionError, ValueError, OverflowError) as exc:
            return mpmath.mpc(mpmath.nan, mpmath.nan) if str(exc) else mpmath.nan


def _exact_tie(h: sp.core.relational.Relational, exact: Mapping[sp.Symbol, sp.Expr]) -> bool | None:
    """``h`` decided in exact rational arithmetic at ``exact`` (rational values): only for sides that are rational
    functions of the symbols (cheap and exact); None otherwise."""
    if not all(isinstance(exact.get(x), sp.Rational) for x in h.free_symbols):
        return None
    syms = tuple(h.free_symbols)
    if not (h.lhs.is_rational_function(*syms) and h.rhs.is_rational_function(*syms)):
        return None
    a, b = h.lhs.xreplace(dict(exact)), h.rhs.xreplace(dict(exact))
    if not (a.is_Rational and b.is_Rational):
        return None
    r = h.func(a, b)
    return bool(r) if isinstance(r, sp.logic.boolalg.BooleanAtom) else None


def decide(h: sp.Basic, env: Mapping[sp.Symbol, sp.Expr] | None = None,
           exact: Mapping[sp.Symbol, sp.Expr] | None = None) -> tuple[bool | None, str]:
    """Whether hypothesis ``h`` holds at ``env`` (every free symbol bound), evaluated in mpmath at
    :data:`EVAL_DIGITS` digits, and the values of its sides; None when a symbol is unbound, a side is not
    real, or the sides tie within rounding on a strict comparison.  A tie within rounding is decided exactly
    where it can be: at ``exact`` (the bound values as given, rational) when both sides are rational functions
    (``T**2 * delta < 1`` at T = 1000, delta = 1e-6 is violated, not undecided; a ``<=`` violated by less than
    the rounding is refused)."""
    import mpmath

    if h is True or isinstance(h, sp.logic.boolalg.BooleanTrue):
        return True, ""
    if h is sp.false or h is False:
        return False, ""
    env = env or {}
    if not isinstance(h, sp.core.relational.Relational) or not h.free_symbols <= set(env):
        return None, ""
    a, b = evaluate(h.lhs, env), evaluate(h.rhs, env)
    with mpmath.workdps(EVAL_DIGITS):
        shown = f"{clip(sp.sstr(h.lhs), 80)} = {mpmath.nstr(a, 8)}, {clip(sp.sstr(h.rhs), 80)} = {mpmath.nstr(b, 8)}"
        if any(isinstance(x, mpmath.mpc) or not mpmath.isfinite(x) for x in (a, b)):
            return None, shown + " (not a real number)"
        diff = a - b
        tol = mpmath.mpf(10) ** (8 - EVAL_DIGITS) * max(abs(a), abs(b), mpmath.mpf(10) ** -300)
        if abs(diff) <= tol:  # a tie within rounding: exact where it can be; else holds for <=, >=, undecided for <, >
            ex = _exact_tie(h, exact) if exact else None
            if ex is not None:
                return ex, shown + " (decided in exact arithmetic)"
            return (None if h.rel_op in ("<", ">") else True), shown
        holds = {"<": diff < 0, "<=": diff < 0, ">": diff > 0, ">=": diff > 0, "==": False, "!=": True}[h.rel_op]
        return bool(holds), shown


__all__ = ["BIND_DIGITS", "EVAL_DIGITS", "decide", "evaluate"]
