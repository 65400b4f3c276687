"""Rigorous enclosure of SymPy expressions for the interval rung (:mod:`.interval`): outward-rounded ``arb``
balls (python-flint) of every node (:func:`enclose`), exact rationals of decimal text (:func:`rat`), and
what branch-and-bound needs on a cell: symbolic derivatives, where an expression is smooth, and the goal's
enclosure refined by a mean-value form (:func:`goal_enclosure`).  No search and no certificates here.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy as sp
from flint import arb, ctx

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

    ``memo`` caches the enclosures of repeated subexpressions (valid for one ``env``).  Each expression is
    turned once into a tree of closures (:func:`_compiled`) that does the arb operations of the node-by-node
    walk in the same order, so the enclosure is the same ball; only the SymPy dispatch is paid once, not on
    every cell of a branch-and-bound."""
    return _compiled(e)(env, {} if memo is None else memo)


_Node = Callable[[dict, dict], arb]
#: expression -> its compiled enclosure (bounded: cleared when it grows past _NODES_MAX)
_NODES: dict[sp.Basic, _Node] = {}
_NODES_MAX = 200_000


#: the memo key of the next compiled node: an int per distinct expression (an int hashes in C; a SymPy key cost a
#: Python ``__hash__`` per lookup, and a structural ``__eq__`` where equal subexpressions are distinct objects)
_NODE_IDS = itertools.count()


def _compiled(e: sp.Basic) -> _Node:
    f = _NODES.get(e)
    if f is None:
        if len(_NODES) >= _NODES_MAX:
            _NODES.clear()
        body = _build(e)

        def f(env: dict, memo: dict, _k: int = next(_NODE_IDS), _body: Callable[[dict, dict], arb] = body) -> arb:
            hit = memo.get(_k)
            if hit is not None:
                return hit
            v = _body(env, memo)
            memo[_k] = v
            return v

        _NODES[e] = f
    return f


def _unary(e: sp.Basic, method: str) -> Callable[[dict, dict], arb]:
    a = _compiled(e.args[0])
    return lambda env, memo: getattr(a(env, memo), method)()


def _build(e: sp.Basic) -> Callable[[dict, dict], arb]:
    """The enclosure of ``e`` as a closure over its children's (the cases and the arb operations of
    :func:`_enclose`, in its order)."""
    if isinstance(e, sp.Symbol):
        def sym(env: dict, memo: dict) -> arb:
            if e not in env:
                raise NotEnclosable(f"no range for {e}")
            return env[e]
        return sym
    if e.is_Number or e is sp.pi or e is sp.E:
        consts: dict[int, arb] = {}

        def const(env: dict, memo: dict) -> arb:
            p = ctx.prec
            v = consts.get(p)
            if v is None:
                v = consts[p] = _arb_const(e)  # raises NotEnclosable for oo, nan, ...
            return v
        return const
    if isinstance(e, (sp.Add, sp.Mul)):
        parts = [_compiled(a) for a in e.args]
        add = isinstance(e, sp.Add)

        def assoc(env: dict, memo: dict) -> arb:
            if add:
                acc = arb(0)
                for p in parts:
                    acc = acc + p(env, memo)
            else:
                acc = arb(1)
                for p in parts:
                    acc = acc * p(env, memo)
            return acc
        return assoc
    if isinstance(e, sp.Pow):
        base, ex = e.args
        b = _compiled(base)
        if ex.is_Integer:
            k = int(ex)
            if k >= 0:
                return lambda env, memo: b(env, memo) ** k
            return lambda env, memo: 1 / (b(env, memo) ** (-k))
        if ex == sp.Rational(1, 2):
            return lambda env, memo: b(env, memo).sqrt()
        x = _compiled(ex)
        if base is sp.E:
            def epow(env: dict, memo: dict) -> arb:
                b(env, memo)
                return x(env, memo).exp()
            return epow

        def gpow(env: dict, memo: dict) -> arb:
            bv = b(env, memo)
            return (x(env, memo) * bv.log()).exp()
        return gpow
    for kind, method in ((sp.exp, "exp"), (sp.log, "log"), (sp.tanh, "tanh"), (sp.sinh, "sinh"), (sp.cosh, "cosh"),
                         (sp.erf, "erf"), (sp.erfc, "erfc"), (sp.erfinv, "erfinv")):
        if isinstance(e, kind):
            return _unary(e, method)
    if isinstance(e, sp.Abs):
        a = _compiled(e.args[0])
        return lambda env, memo: abs(a(env, memo))
    if isinstance(e, (sp.ceiling, sp.floor)):
        a, up = _compiled(e.args[0]), isinstance(e, sp.ceiling)
        return lambda env, memo: _round_ball(a(env, memo), up=up)
    if isinstance(e, (sp.Max, sp.Min)):
        parts = [_compiled(a) for a in e.args]
        top = isinstance(e, sp.Max)

        def extreme(env: dict, memo: dict) -> arb:
            vals = [p(env, memo) for p in parts]
            acc = vals[0]
            for v in vals[1:]:
                acc = acc.max(v) if top else acc.min(v)
            return acc
        return extreme
    if isinstance(e, sp.Function):
        # library-defined functions (e.g. Phi): their elementary / erfc rewrite
        for target in (sp.erfc, sp.exp):
            try:
                r = e.rewrite(target)
            except Exception:  # noqa: BLE001 - sympy rewrite raises assorted errors
                continue
            if r != e:
                return _compiled(r)
    msg = f"no interval extension for {type(e).__name__}"

    def fail(env: dict, memo: dict) -> arb:
        raise NotEnclosable(msg)
    return fail


def _enclose(e: sp.Basic, env: dict[sp.Symbol, arb], memo: dict) -> arb:
    """The enclosure of one node of ``e`` (not memoised itself; its children are), as :func:`enclose`."""
    return _build(e)(env, memo)


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
    for kind, sub in _smooth_checks(e):
        if kind == "pos":
            if not bool(enclose(sub, env, memo) > 0):
                return False
        elif kind == "open1":
            a = enclose(sub, env, memo)
            if not (a.is_finite() and bool(a > -1) and bool(a < 1)):
                return False
        else:  # "nonzero"
            b = enclose(sub, env, memo)
            if not (bool(b > 0) or bool(b < 0)):
                return False
    return True


_CHECKS: dict[sp.Basic, tuple[tuple[str, sp.Expr], ...]] = {}


def _smooth_checks(e: sp.Expr) -> tuple[tuple[str, sp.Expr], ...]:
    """What :func:`smooth_on` checks on ``e``, in the order of a preorder traversal (each check once): ``("pos",
    x)`` x > 0 (log arguments, bases of non-integer powers), ``("open1", x)`` -1 < x < 1 (erfinv arguments),
    ``("nonzero", x)`` x != 0 (bases of negative integer powers)."""
    got = _CHECKS.get(e)
    if got is None:
        out: list[tuple[str, sp.Expr]] = []
        for sub in sp.preorder_traversal(e):
            if isinstance(sub, sp.log):
                out.append(("pos", sub.args[0]))
            elif isinstance(sub, sp.erfinv):
                out.append(("open1", sub.args[0]))
            elif isinstance(sub, sp.Pow):
                base, ex = sub.args
                if base is sp.E:
                    continue
                if ex.is_Integer:
                    if int(ex) < 0:
                        out.append(("nonzero", base))
                else:
                    out.append(("pos", base))
        got = tuple(dict.fromkeys(out))
        if len(_CHECKS) >= 10_000:
            _CHECKS.clear()
        _CHECKS[e] = got
    return got


def goal_enclosure(g: sp.Expr, dg: dict | None, cell: dict, good: Callable[[arb], bool],
                   memo: dict | None = None) -> arb | None:
    """Enclosure of ``g`` on ``cell``: the natural interval extension; where that does not already satisfy
    ``good`` and ``dg`` is given, intersected with the mean-value form
    ``g(c) + sum_i dg_i(cell) * (x_i - c_i)`` (``c`` the cell's midpoint).  The mean-value form is used only
    when :func:`smooth_on` shows ``g`` analytic on the whole cell (log/sqrt/power arguments certainly
    positive), so the mean-value theorem applies on the cell's real hull (integer symbols included: the form
    bounds ``g`` on the real hull of their cell, a superset of its integer points), and every derivative
    enclosure is finite.

    ``memo``: the enclosures on this cell's balls (``{s: _ball(*cell[s])}``) already computed, filled here: the
    natural extension's subexpressions are reused by :func:`smooth_on` and the derivatives (the same balls of the
    same subexpressions on the same cell, so the same bits; a caller may pass it on to the hypotheses)."""
    env = {s: _ball(*cell[s]) for s in cell}
    if memo is None:
        memo = {}
    try:
        v = enclose(g, env, memo)
    except (ValueError, ZeroDivisionError):
        v = None
    if v is not None and v.is_finite() and good(v):
        return v
    if not dg:
        return v
    try:
        mid = {s: (lo + hi) / 2 for s, (lo, hi) in cell.items()}
        acc = enclose(g, {s: _parse_num(m) for s, m in mid.items()})
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
