"""Rigorous enclosure of SymPy expressions for the interval rung (:mod:`.interval`): outward-rounded ``arb``
balls (python-flint) of every node (:func:`enclose`), exact rationals of decimal text (:func:`rat`), and
what branch-and-bound needs on a cell: symbolic derivatives, where an expression is smooth, and the goal's
enclosure refined by a mean-value form (:func:`goal_enclosure`).  No search and no certificates here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy as sp
from flint import arb

PREC = 200  # bits


class NotEnclosable(Exception):
    """The expression has a function without an interval extension here."""


def _arb_const(v: sp.Basic) -> arb:
    if v.is_Integer:
        return arb(int(v))
    if v.is_Rational:
        return arb(int(v.p)) / arb(int(v.q))
    if isinstance(v, sp.Float):
        r = sp.Rational(v)
        return arb(int(r.p)) / arb(int(r.q))
    if v is sp.pi:
        return arb.pi()
    if v is sp.E:
        return arb(1).exp()
    raise NotEnclosable(str(v))


def rat(x: Any) -> sp.Rational:
    """Exact rational of a decimal string, int, float or double-precision SymPy Float (its shortest decimal
    repr, the literal it was written as), other SymPy numbers (40 digits) or a SymPy rational."""
    if isinstance(x, sp.Rational):
        return x
    if isinstance(x, str):
        return sp.Rational(x)
    if isinstance(x, float):
        return sp.Rational(repr(x))
    if isinstance(x, sp.Float) and x._prec <= 53:
        return sp.Rational(repr(float(x)))  # a double-precision literal (e.g. a domain bound 1e-12): its decimal
    x = sp.sympify(x)
    if x.is_Rational:
        return x
    return sp.Rational(str(sp.N(x, 40)))


def _parse_num(s: Any) -> arb:
    """An arb ball containing the exact decimal/rational ``s``."""
    r = rat(s)
    return arb(int(r.p)) / arb(int(r.q))


def _hull(lo: arb, hi: arb) -> arb:
    return lo.union(hi)


def _exact(x: arb) -> Fraction:
    """The exact value of an exact arb (its midpoint or radius)."""
    man, ex = x.man_exp()
    m, e = int(man), int(ex)
    return Fraction(m * 2**e) if e >= 0 else Fraction(m, 2 ** (-e))


def _round_ball(x: arb, *, up: bool) -> arb:
    """Sound interval extension of ceiling/floor: ``ceil([a, b]) = [ceil a, ceil b]`` from the exact ball ends."""
    if not x.is_finite():
        raise ValueError("ceiling/floor of a non-finite ball")
    mid, rad = _exact(x.mid()), _exact(x.rad())
    lo, hi = mid - rad, mid + rad
    f = math.ceil if up else math.floor
    a, b = f(lo), f(hi)
    return arb(a) if a == b else arb(a).union(arb(b))


def enclose(e: sp.Basic, env: dict[sp.Symbol, arb], memo: dict | None = None) -> arb:
    """Ball enclosure of ``e`` with symbols bound to balls (raises NotEnclosable).

    ``memo`` caches the enclosures of repeated subexpressions (valid for one ``env``)."""
    if memo is None:
        memo = {}
    hit = memo.get(e)
    if hit is not None:
        return hit
    v = _enclose(e, env, memo)
    memo[e] = v
    return v


def _enclose(e: sp.Basic, env: dict[sp.Symbol, arb], memo: dict) -> arb:
    if isinstance(e, sp.Symbol):
        if e not in env:
            raise NotEnclosable(f"no range for {e}")
        return env[e]
    if e.is_Number or e in (sp.pi, sp.E):
        return _arb_const(e)
    if isinstance(e, sp.Add):
        acc = arb(0)
        for a in e.args:
            acc = acc + enclose(a, env, memo)
        return acc
    if isinstance(e, sp.Mul):
        acc = arb(1)
        for a in e.args:
            acc = acc * enclose(a, env, memo)
        return acc
    if isinstance(e, sp.Pow):
        base, ex = e.args
        if ex.is_Integer:
            b = enclose(base, env, memo)
            k = int(ex)
            if k >= 0:
                return b**k
            return 1 / (b ** (-k))
        if ex == sp.Rational(1, 2):
            return enclose(base, env, memo).sqrt()
        b = enclose(base, env, memo)
        if base is sp.E:
            return enclose(ex, env, memo).exp()
        return (enclose(ex, env, memo) * b.log()).exp()
    if isinstance(e, sp.exp):
        return enclose(e.args[0], env, memo).exp()
    if isinstance(e, sp.log):
        return enclose(e.args[0], env, memo).log()
    if isinstance(e, sp.tanh):
        return enclose(e.args[0], env, memo).tanh()
    if isinstance(e, sp.sinh):
        return enclose(e.args[0], env, memo).sinh()
    if isinstance(e, sp.cosh):
        return enclose(e.args[0], env, memo).cosh()
    if isinstance(e, sp.erf):
        return enclose(e.args[0], env, memo).erf()
    if isinstance(e, sp.erfc):
        return enclose(e.args[0], env, memo).erfc()
    if isinstance(e, sp.erfinv):
        return enclose(e.args[0], env, memo).erfinv()
    if isinstance(e, sp.Abs):
        a = enclose(e.args[0], env, memo)
        return abs(a)
    if isinstance(e, (sp.ceiling, sp.floor)):
        return _round_ball(enclose(e.args[0], env, memo), up=isinstance(e, sp.ceiling))
    if isinstance(e, sp.Max):
        vals = [enclose(a, env, memo) for a in e.args]
        acc = vals[0]
        for v in vals[1:]:
            acc = acc.max(v)
        return acc
    if isinstance(e, sp.Min):
        vals = [enclose(a, env, memo) for a in e.args]
        acc = vals[0]
        for v in vals[1:]:
            acc = acc.min(v)
        return acc
    if isinstance(e, sp.Function):
        # library-defined functions (e.g. Phi): try their elementary / erfc rewrite
        for target in (sp.erfc, sp.exp):
            try:
                r = e.rewrite(target)
            except Exception:  # noqa: BLE001 - sympy rewrite raises assorted errors
                continue
            if r != e:
                return enclose(r, env, memo)
    raise NotEnclosable(f"no interval extension for {type(e).__name__}")


def _ball(lo: sp.Rational, hi: sp.Rational) -> arb:
    if lo == hi:
        return _parse_num(lo)
    return _hull(_parse_num(lo), _parse_num(hi))


# ---------------------------------------------------------------------------
# goal enclosure: natural extension, tightened by the mean-value form
# ---------------------------------------------------------------------------

_NONSMOOTH = (sp.ceiling, sp.floor, sp.Abs, sp.Min, sp.Max, sp.sign, sp.Piecewise, sp.Heaviside)


def derivatives(g: sp.Expr, syms) -> dict[sp.Symbol, sp.Expr] | None:
    """Partial derivatives of ``g`` for the mean-value form, or None when ``g`` has a non-smooth function
    (ceiling, floor, Abs, Min, Max, ...) for which the mean-value theorem does not apply."""
    if g.has(*_NONSMOOTH) or any(isinstance(f, sp.Function) and not isinstance(f, (sp.exp, sp.log, sp.tanh, sp.sinh, sp.cosh, sp.erf, sp.erfc, sp.erfinv))
                                 for f in g.atoms(sp.Function)):
        return None
    return {s: sp.diff(g, s) for s in syms}


def smooth_on(e: sp.Expr, env: dict, memo: dict) -> bool:
    """``e`` is defined and analytic on the whole cell: every log argument and every base of a non-integer
    power is certainly > 0 there, every erfinv argument certainly lies in (-1, 1), and no negative integer power
    has a base that may vanish (exp, tanh, sinh, cosh, erf, erfc, sums and products are analytic everywhere)."""
    for sub in sp.preorder_traversal(e):
        if isinstance(sub, sp.log):
            if not bool(enclose(sub.args[0], env, memo) > 0):
                return False
        elif isinstance(sub, sp.erfinv):
            a = enclose(sub.args[0], env, memo)
            if not (a.is_finite() and bool(a > -1) and bool(a < 1)):
                return False
        elif isinstance(sub, sp.Pow):
            base, ex = sub.args
            if base is sp.E:
                continue
            if ex.is_Integer:
                if int(ex) < 0:
                    b = enclose(base, env, memo)
                    if not (bool(b > 0) or bool(b < 0)):
                        return False
            elif not bool(enclose(base, env, memo) > 0):
                return False
    return True


def goal_enclosure(g: sp.Expr, dg: dict | None, cell: dict, good: Callable[[arb], bool]) -> arb | None:
    """Enclosure of ``g`` on ``cell``: the natural interval extension; where that does not already satisfy
    ``good`` and ``dg`` is given, intersected with the mean-value form
    ``g(c) + sum_i dg_i(cell) * (x_i - c_i)`` (``c`` the cell's midpoint).  The mean-value form is used only
    when :func:`smooth_on` shows ``g`` analytic on the whole cell (log/sqrt/power arguments certainly
    positive), so the mean-value theorem applies on the cell's real hull (integer symbols included: the form
    bounds ``g`` on the real hull of their cell, a superset of its integer points), and every derivative
    enclosure is finite."""
    env = {s: _ball(*cell[s]) for s in cell}
    try:
        v = enclose(g, env)
    except (ValueError, ZeroDivisionError):
        v = None
    if v is not None and v.is_finite() and good(v):
        return v
    if not dg:
        return v
    try:
        mid = {s: (lo + hi) / 2 for s, (lo, hi) in cell.items()}
        acc = enclose(g, {s: _parse_num(m) for s, m in mid.items()})
        memo: dict = {}
        if not smooth_on(g, env, memo):
            return v
        for s, (lo, hi) in cell.items():
            if lo == hi or s not in dg:
                continue
            d = enclose(dg[s], env, memo)
            if not d.is_finite():
                return v
            acc = acc + d * _ball(lo - mid[s], hi - mid[s])
    except (ValueError, ZeroDivisionError, NotEnclosable):
        return v
    if not acc.is_finite():
        return v
    if v is None or not v.is_finite():
        return acc
    w = v.intersection(acc)
    return w if w.is_finite() else acc
