r"""Compilation of entries for the numerical rungs: SymPy expressions -> mpmath callables, hypothesis
checks, sampling boxes over the entry's stated domain, and the oracle arguments fixed by typed premises."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import sympy as sp

from ..theorem import Theorem
from .core import DEFAULT_RANGES
from .search import Box


def elementary(expr: sp.Basic) -> sp.Basic:
    try:
        from ..codegen.functions import to_elementary

        return to_elementary(expr)
    except Exception:  # noqa: BLE001 - codegen may not be importable while it is being written
        return expr


#: lambdified callables per expression, shared by every claim of this process (a worker audits many claims; several
#: compile the same expression, and a mapper may compile the same hypotheses at every point).  A key is the SymPy
#: expression itself (structural equality, symbol assumptions included); a value is pure (the generated code reads
#: the working precision at each call), so a hit returns exactly what a fresh lambdify would compute.
_COMPILED: dict[Any, Any] = {}
#: entries kept (then the memo starts again empty)
COMPILED_MAX = 4096
#: hits and misses since the process started (tests read them)
COMPILED_STATS = {"hits": 0, "misses": 0}


def _memo(key: Any, build: Callable[[], Any]) -> Any:
    """``build()``, once per ``key`` in this process (see :data:`_COMPILED`); an unhashable key is built every time."""
    try:
        got = _COMPILED.get(key, _MISS)
    except TypeError:
        return build()
    if got is not _MISS:
        COMPILED_STATS["hits"] += 1
        return got
    COMPILED_STATS["misses"] += 1
    val = build()
    if len(_COMPILED) >= COMPILED_MAX:
        _COMPILED.clear()
    _COMPILED[key] = val
    return val


_MISS = object()


def _lambdify(syms: Any, expr: sp.Basic) -> Callable | None:
    try:
        return sp.lambdify(syms, expr, modules=["mpmath"])
    except Exception:  # noqa: BLE001
        return None


def _compiled_parts(expr: sp.Basic) -> tuple[sp.Basic, list, list[str], list, Callable | None, dict]:
    """(elementary form, symbols, their names, summation-limit symbols, lambdified callable or None, cache of the
    per-limit-value callables): what :func:`compile_expr` builds for ``expr``, memoised per expression."""

    def build() -> tuple[sp.Basic, list, list[str], list, Callable | None, dict]:
        e = elementary(sp.sympify(expr))
        syms = sorted(e.free_symbols, key=lambda s: s.name)
        limit_syms = sorted({s for S in e.atoms(sp.Sum, sp.Product) for lim in S.limits for b in lim[1:]
                             for s in sp.sympify(b).free_symbols}, key=lambda s: s.name)
        f = None if limit_syms else _lambdify(syms, e)
        return e, syms, [s.name for s in syms], limit_syms, f, {}

    return _memo(("expr", expr), build)


def compile_expr(expr: sp.Basic) -> Callable[[Mapping[str, Any]], Any]:
    """Callable ``point -> mpf`` (mpmath at the ambient precision); falls back to evalf for unknown functions."""
    expr, syms, names, limit_syms, f, per_limit = _compiled_parts(expr)
    if limit_syms:
        # a Sum/Product whose limits are symbols (e.g. sum_{l=0}^{T}): lambdify once per integer value of the
        # limit symbols (finite Python sums evaluated in mpmath) instead of SymPy's slow evalf
        return _compile_with_symbolic_limits(expr, syms, limit_syms, per_limit)

    def slow(pt):
        v = expr.subs({s: sp.Float(str(pt[s.name]), mpmath.mp.dps + 5) for s in syms}).evalf(mpmath.mp.dps)
        return mpmath.mpf(str(v)) if v.is_real else mpmath.mpf("nan")

    state = {"fast": f is not None}

    def call(pt):
        if state["fast"] and f is not None:
            try:
                v = f(*[pt[nm] for nm in names])
                if isinstance(v, mpmath.mpc):
                    return v.real if abs(v.imag) <= 1e-25 * max(1, abs(v.real)) else mpmath.mpf("nan")
                return mpmath.mpf(v)
            except (NameError, TypeError, AttributeError):
                state["fast"] = False
        return slow(pt)

    return call


def _compile_with_symbolic_limits(expr: sp.Basic, syms, limit_syms, cache: dict | None = None) -> Callable[[Mapping[str, Any]], Any]:
    """:func:`compile_expr` for expressions with Sum/Product limits depending on symbols: at each point the limit
    symbols must be integers; the expression with those integers substituted is lambdified (cached per value, in
    ``cache``: the memoised one of ``expr`` when given)."""
    if cache is None:
        cache = {}

    def call(pt):
        key = []
        for s in limit_syms:
            v = mpmath.mpf(pt[s.name])
            if v != mpmath.floor(v):
                raise ValueError(f"{s.name}={v} must be an integer (a summation limit)")
            key.append(int(v))
        key_t = tuple(key)
        if key_t not in cache:
            if len(cache) >= COMPILED_MAX:  # shared by the claims of the process: bounded like the memo itself
                cache.clear()
            e = expr.xreplace({s: sp.Integer(k) for s, k in zip(limit_syms, key_t)})
            rest = sorted(e.free_symbols, key=lambda s: s.name)
            cache[key_t] = (_lambdify(rest, e), [s.name for s in rest], e)
        f, nms, e = cache[key_t]
        if f is not None:
            try:
                v = f(*[pt[nm] for nm in nms])
                if isinstance(v, mpmath.mpc):
                    return v.real if abs(v.imag) <= 1e-25 * max(1, abs(v.real)) else mpmath.mpf("nan")
                return mpmath.mpf(v)
            except (NameError, TypeError, AttributeError):
                pass
        v = e.subs({sp.Symbol(nm): sp.Float(str(pt[nm]), mpmath.mp.dps + 5) for nm in nms}).evalf(mpmath.mp.dps)
        v = v.xreplace({s: sp.Float(str(pt[s.name]), mpmath.mp.dps + 5) for s in v.free_symbols}).evalf(mpmath.mp.dps) if v.free_symbols else v
        return mpmath.mpf(str(v)) if v.is_real else mpmath.mpf("nan")

    return call


def _hyp_checks(hyps: tuple[sp.Basic, ...]) -> list[tuple[sp.Basic, list, Callable | None]]:
    """(hypothesis, its symbols, lambdified test or None) per hypothesis that is not ``True``, memoised per tuple."""

    def build() -> list[tuple[sp.Basic, list, Callable | None]]:
        checks = []
        for h in hyps:
            h = sp.sympify(h)
            if h is sp.true:
                continue
            syms = sorted(h.free_symbols, key=lambda s: s.name)
            checks.append((h, syms, _lambdify(syms, h)))
        return checks

    return _memo(("hyps", tuple(hyps)), build)


def hyp_checker(hyps: tuple[sp.Basic, ...]) -> Callable[[dict[str, str]], bool]:
    checks = _hyp_checks(hyps)

    def ok(pt: dict[str, str]) -> bool:
        with mpmath.workdps(40):
            for h, syms, f in checks:
                try:
                    if any(s.name not in pt for s in syms):
                        continue
                    vals = [mpmath.mpf(pt[s.name]) for s in syms]
                    r = f(*vals) if f is not None else h.subs({s: sp.Rational(pt[s.name]) for s in syms})
                    if not bool(r):
                        return False
                except Exception:  # noqa: BLE001
                    return False
        return True

    return ok


def num(v: sp.Basic) -> float | None:
    try:
        f = float(v)
        return f if math.isfinite(f) else None
    except (TypeError, ValueError):
        return None


def sampling_box(th: Theorem, symbols, caps: dict[str, float] | None = None,
                 defaults: dict[str, tuple[float, float]] | None = None) -> tuple[Box, bool]:
    """Box over ``symbols``: the entry's domain where given, else defaults; second value: all from the entry."""
    dom = {s.name: (lo, hi) for s, lo, hi in th.domain}
    ranges: dict[str, tuple[float, float]] = {}
    ints = set()
    own = True
    for s in sorted(symbols, key=lambda s: s.name):
        lo = hi = None
        if s.name in dom:
            lo, hi = num(dom[s.name][0]), num(dom[s.name][1])
        d = (defaults or {}).get(s.name) or DEFAULT_RANGES.get(s.name, (1e-3, 1e3) if s.is_positive else (-10.0, 10.0))
        if lo is None or hi is None:
            own = own and s.name in dom and lo is not None and hi is not None
            lo = d[0] if lo is None else lo
            hi = d[1] if hi is None else hi
        if s.is_positive and lo <= 0:
            lo = min(1e-12, hi / 1e6)
        if caps and s.name in caps and hi > caps[s.name]:
            hi = max(lo, caps[s.name])
            own = False
        if s.is_integer:
            ints.add(s.name)
            lo = max(lo, 1 if s.is_positive else lo)
        ranges[s.name] = (float(lo), float(hi))
    return Box(ranges, frozenset(ints)), own


def describe_box(th: Theorem, box: Box, caps: dict[str, float] | None = None,
                 defaults: dict[str, tuple[float, float]] | None = None) -> str:
    """What a search over ``box`` covered, for the evidence: the sampling law per symbol and every range that
    is not the entry's own (a default where the entry states none, a cap below the entry's upper end)."""
    dom = {s.name: (num(lo), num(hi)) for s, lo, hi in th.domain}
    logs = [nm for nm in box.names() if box.is_log(nm)]
    lins = [nm for nm in box.names() if not box.is_log(nm)]
    parts = []
    if logs:
        parts.append(f"log-uniform in {', '.join(logs)}")
    if lins:
        parts.append(f"uniform in {', '.join(lins)}")
    notes = []
    for nm in box.names():
        lo, hi = dom.get(nm, (None, None))
        if caps and nm in caps and (hi is None or hi > caps[nm]):
            notes.append(f"{nm} capped at {caps[nm]:g} in this search (the entry allows {nm} up to "
                         f"{'oo' if hi is None else f'{hi:g}'})")
        elif lo is None or hi is None:
            src = "the oracle's default range" if defaults and nm in defaults else "the verifier's default range"
            notes.append(f"{nm} from {src} (the entry states {'no range' if nm not in dom else 'an unbounded range'})")
    return "sampled " + "; ".join(parts) + (" plus the box corners and a local search" if parts else "") + (
        "; " + "; ".join(notes) if notes else "; every range is the entry's own")


def is_quantity(th: Theorem, e: sp.Basic | None) -> bool:
    """True when ``e`` is a bare symbol naming the bounded quantity (not a parameter)."""
    if not isinstance(e, sp.Symbol):
        return False
    params = set()
    for x in (th.rhs, *th.hypotheses):
        if x is not None:
            params |= x.free_symbols
    dom = {s for s, _, _ in th.domain}
    return e not in params and e not in dom



def fmt_box(box: Box) -> str:
    return ", ".join(f"{k} in [{lo:.3g}, {hi:.3g}]" for k, (lo, hi) in sorted(box.ranges.items()))



def premise_exprs(th: Theorem) -> tuple[list[tuple[str, sp.Expr]], set]:
    """Oracle arguments fixed by typed premises, as SymPy expressions: DP (epsilon, delta) of each step,
    Gaussian (sensitivity, sigma) -> mu, GDP (mu), Laplace (Delta, b).  Returns ([(name, expr)], symbols)."""
    binds: list[tuple[str, sp.Expr]] = []
    syms: set = set()
    for pr in th.premises:
        nm = pr.name.lower()
        ps = [sp.sympify(x) for x in pr.params]
        for x in ps:
            syms |= x.free_symbols
        if nm in ("dp", "adp") and len(ps) == 2:
            binds += [("epsilon", ps[0]), ("delta", ps[1])]
        elif nm in ("dp", "pure-dp") and len(ps) == 1:
            binds += [("epsilon", ps[0]), ("delta", sp.Integer(0))]
        elif nm == "gaussian" and len(ps) == 2:
            binds.append(("mu", ps[0] / ps[1]))
        elif nm == "gdp" and len(ps) == 1:
            binds.append(("mu", ps[0]))
        elif nm == "laplace" and len(ps) == 2:
            binds += [("Delta", ps[0]), ("b", ps[1])]
    return binds, syms


def premise_bindings(th: Theorem) -> tuple[list[tuple[str, Callable]], set]:
    """:func:`premise_exprs` compiled: ([(name, f(point))], symbols)."""
    binds, syms = premise_exprs(th)
    return [(name, compile_expr(e)) for name, e in binds], syms



__all__ = ["elementary", "compile_expr", "hyp_checker", "num", "sampling_box", "is_quantity", "fmt_box",
           "premise_exprs", "premise_bindings", "describe_box"]
