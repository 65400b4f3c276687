"""Rates: the order ``C var**a log(var)**b exp(c var)`` of an expression as ``var -> oo`` or ``0``, read off
time-limited limits before any series (:func:`rate`, :class:`Rate`; "unknown" past the time limit, never a
guess), and the comparison of two rates.  :mod:`symdp.asymptotics` re-exports the public names.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from . import limits as _limits
from .errors import InvalidParameterError
from .sympy_limits import DEFAULT_TIMEOUT, AsymptoticsTimeout, _expr, _lim, _point, _var, limited


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


def opaque_functions(expr: sp.Basic, var: sp.Symbol | None = None) -> list[sp.Basic]:
    """Applications of functions SymPy cannot take limits of (the library's implicit inverses such as
    ``GDPEpsilon``, ``SGMRDP``, ``KLInverse``; undefined functions), those depending on ``var`` if given."""
    out = []
    for f in expr.atoms(sp.Function):
        if type(f).__module__.startswith("sympy") and not isinstance(f, AppliedUndef):
            continue
        if var is None or var in f.free_symbols:
            out.append(f)
    return sorted(out, key=sp.default_sort_key)


def limit_region(hypotheses: Any, var: sp.Symbol, at: Any = "oo", *, seconds: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """Whether the limit ``var -> at`` stays inside the hypotheses ``[(h, where), ...]``: each hypothesis
    ``a REL b`` involving ``var`` is judged by the sign of ``limit(a - b)`` (the other symbols kept
    symbolic): "fails" when the limit violates it (a rate then describes a point no theorem of the
    chain covers), "holds" when it is strictly satisfied, "unknown" otherwise (a boundary limit, an
    opaque function, SymPy out of time).  Returns {"region": "leaves" | "inside" | "unknown",
    "fails": [...], "unknown": [...]}."""
    p0 = _point(at)
    todo = [(h, w) for h, w in hypotheses if isinstance(h, sp.core.relational.Relational) and var in h.free_symbols]
    fails: list[str] = []
    unknown: list[str] = []
    each = max(seconds / max(len(todo), 1), 1.0)
    for h, where in todo:
        label = f"{sp.sstr(h)[:160]} ({where})"
        d = h.lhs - h.rhs
        if opaque_functions(d, var):
            unknown.append(label)
            continue
        lim = _lim(d, var, p0, each)
        if lim is None:
            unknown.append(label)
            continue
        sign = 1 if (lim.is_positive or lim is sp.oo) else -1 if (lim.is_negative or lim is -sp.oo) else 0
        want = -1 if h.rel_op in ("<", "<=") else 1 if h.rel_op in (">", ">=") else 0
        if sign == 0 or want == 0:
            unknown.append(label)
        elif sign != want:
            fails.append(label)
    region = "leaves" if fails else ("unknown" if unknown else "inside")
    return {"region": region, "fails": fails, "unknown": unknown}


def rate(expr: sp.Expr, var: sp.Symbol | str, at: Any = "oo", *, seconds: float = DEFAULT_TIMEOUT) -> Rate:
    """The order of ``expr`` as ``var -> at`` (``oo`` or ``0``), see :func:`_rate_impl`; the whole
    computation runs under one hard time limit and answers "unknown" past it.  An opaque function of
    ``var`` (:func:`opaque_functions`: an implicit inverse, a numerically evaluated sum) makes the rate
    unknown: SymPy would otherwise treat it as a constant (the GDP inverse's ``T**0`` of issue 22)."""
    expr = _expr(expr, 'expr')
    p0 = _point(at)
    v = _var(expr, var)
    if p0 not in (sp.oo, sp.S.Zero):
        raise InvalidParameterError(f"at={sp.sstr(p0)} is not supported by rate(); allowed: oo, 0")
    opaque = opaque_functions(expr, v)
    if opaque:
        names = ", ".join(sorted({type(f).__name__ for f in opaque}))
        return Rate(v, p0, None, None, None, None,
                    f"unknown: the opaque function {names} depends on {v.name} (its growth is not symbolic; "
                    "never treated as a constant)")
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
