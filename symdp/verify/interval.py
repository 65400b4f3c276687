r"""Interval rung: branch-and-bound with outward rounding (python-flint ``arb``), replayable certificates.

To prove ``g(x) >= 0`` (or ``> 0``) on a box, evaluate ``g`` on the box in
ball arithmetic; where the enclosure's lower end is not >= 0, bisect (in log
scale for wide positive ranges) and recurse.  The certificate is the bisection
tree with the enclosure of every leaf; :func:`replay` re-splits the box the
same way (so the leaves cover it by construction) and re-evaluates each leaf.

Integer parameters are relaxed to real intervals (sound: a claim proved for
all reals in the box holds for the integers in it).

>>> import sympy as sp
>>> from symdp.verify.interval import certify
>>> e = sp.Symbol("epsilon", positive=True)
>>> certify(e * (sp.exp(e) - 1) - e * sp.tanh(e / 2), {e: ("0.5", "10")}).ok
True
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

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
    """Exact rational of a decimal string, int, float (its exact binary value) or SymPy rational."""
    if isinstance(x, sp.Rational):
        return x
    if isinstance(x, str):
        return sp.Rational(x)
    if isinstance(x, float):
        return sp.Rational(repr(x))
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


def enclose(e: sp.Basic, env: dict[sp.Symbol, arb]) -> arb:
    """Ball enclosure of ``e`` with symbols bound to balls (raises NotEnclosable)."""
    if isinstance(e, sp.Symbol):
        if e not in env:
            raise NotEnclosable(f"no range for {e}")
        return env[e]
    if e.is_Number or e in (sp.pi, sp.E):
        return _arb_const(e)
    if isinstance(e, sp.Add):
        acc = arb(0)
        for a in e.args:
            acc = acc + enclose(a, env)
        return acc
    if isinstance(e, sp.Mul):
        acc = arb(1)
        for a in e.args:
            acc = acc * enclose(a, env)
        return acc
    if isinstance(e, sp.Pow):
        base, ex = e.args
        if ex.is_Integer:
            b = enclose(base, env)
            k = int(ex)
            if k >= 0:
                return b**k
            return 1 / (b ** (-k))
        if ex == sp.Rational(1, 2):
            return enclose(base, env).sqrt()
        b = enclose(base, env)
        if base is sp.E:
            return enclose(ex, env).exp()
        return (enclose(ex, env) * b.log()).exp()
    if isinstance(e, sp.exp):
        return enclose(e.args[0], env).exp()
    if isinstance(e, sp.log):
        return enclose(e.args[0], env).log()
    if isinstance(e, sp.tanh):
        return enclose(e.args[0], env).tanh()
    if isinstance(e, sp.sinh):
        return enclose(e.args[0], env).sinh()
    if isinstance(e, sp.cosh):
        return enclose(e.args[0], env).cosh()
    if isinstance(e, sp.erf):
        return enclose(e.args[0], env).erf()
    if isinstance(e, sp.erfc):
        return enclose(e.args[0], env).erfc()
    if isinstance(e, sp.Abs):
        a = enclose(e.args[0], env)
        return abs(a)
    if isinstance(e, sp.Max):
        vals = [enclose(a, env) for a in e.args]
        acc = vals[0]
        for v in vals[1:]:
            acc = acc.max(v)
        return acc
    if isinstance(e, sp.Min):
        vals = [enclose(a, env) for a in e.args]
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
                return enclose(r, env)
    raise NotEnclosable(f"no interval extension for {type(e).__name__}")


def _ball(lo: sp.Rational, hi: sp.Rational) -> arb:
    return _hull(_parse_num(lo), _parse_num(hi))


@dataclass
class IntervalResult:
    ok: bool
    reason: str = ""
    tree: Any = None
    leaves: int = 0
    counterexample: dict[str, str] | None = None
    seconds: float = 0.0
    box: dict[str, list[str]] = field(default_factory=dict)


def _split(lo: sp.Rational, hi: sp.Rational) -> sp.Rational:
    """Split point: geometric mean (rounded to a short rational) for wide positive ranges, else the midpoint."""
    if lo > 0 and hi / lo > 4:
        m = math.sqrt(float(lo) * float(hi))
        r = sp.Rational(f"{m:.6g}")
        if lo < r < hi:
            return r
    return (lo + hi) / 2


def certify(
    g: sp.Expr,
    box: dict[sp.Symbol, tuple[Any, Any]],
    *,
    strict: bool = False,
    max_leaves: int = 4000,
    time_limit: float = 20.0,
    prec: int = PREC,
    min_width: float = 1e-12,
) -> IntervalResult:
    """Certify ``g >= 0`` (``> 0`` when strict) on the box by bisection in ball arithmetic."""
    syms = sorted(box, key=lambda s: s.name)
    rbox = {s: (rat(box[s][0]), rat(box[s][1])) for s in syms}
    t0 = time.monotonic()
    leaves = 0
    old = ctx.prec
    ctx.prec = prec
    try:
        def good(v: arb) -> bool:
            return (v > 0) if strict else (v >= 0)

        def bad_point(cell) -> dict[str, str] | None:
            mid = {s: (lo + hi) / 2 for s, (lo, hi) in cell.items()}
            env = {s: _parse_num(v) for s, v in mid.items()}
            try:
                v = enclose(g, env)
            except (NotEnclosable, ValueError, ZeroDivisionError):
                return None
            if (v < 0) or (strict and v <= 0 and v.is_exact()):
                return {s.name: str(mid[s]) for s in syms}
            return None

        def rec(cell, depth):
            nonlocal leaves
            if time.monotonic() - t0 > time_limit or leaves > max_leaves:
                raise _Budget()
            env = {s: _ball(*cell[s]) for s in syms}
            try:
                v = enclose(g, env)
            except (ValueError, ZeroDivisionError):
                v = None
            if v is not None and v.is_finite() and good(v):
                leaves += 1
                return {"enc": [v.lower().str(20, radius=False), v.upper().str(20, radius=False)]}
            cx = bad_point(cell)
            if cx is not None:
                raise _Counter(cx)
            # split the relatively widest dimension
            def width(s):
                lo, hi = cell[s]
                if lo > 0 and hi / lo > 4:
                    return math.log(float(hi / lo))
                return float(hi - lo) / max(float(abs(hi) + abs(lo)), 1e-300) * 2
            s = max(syms, key=width)
            lo, hi = cell[s]
            if float(hi - lo) < min_width * max(1.0, float(abs(hi))):
                raise _Budget()
            m = _split(lo, hi)
            left = dict(cell)
            left[s] = (lo, m)
            right = dict(cell)
            right[s] = (m, hi)
            return {"split": [s.name, str(m)], "children": [rec(left, depth + 1), rec(right, depth + 1)]}

        try:
            tree = rec(rbox, 0)
        except _Budget:
            return IntervalResult(False, f"budget exhausted after {leaves} leaves", leaves=leaves, seconds=time.monotonic() - t0)
        except _Counter as c:
            return IntervalResult(False, "a point violates the claim", leaves=leaves, counterexample=c.point, seconds=time.monotonic() - t0)
        except NotEnclosable as exc:
            return IntervalResult(False, str(exc))
        return IntervalResult(
            True, "certified", tree=tree, leaves=leaves, seconds=time.monotonic() - t0,
            box={s.name: [str(rbox[s][0]), str(rbox[s][1])] for s in syms},
        )
    finally:
        ctx.prec = old


class _Budget(Exception):
    pass


class _Counter(Exception):
    def __init__(self, point):
        self.point = point


def certificate(id: str, hash_: str, g: sp.Expr, res: IntervalResult, *, strict: bool, claim: str, note: str = "") -> dict:
    """JSON-ready certificate of a successful :func:`certify`."""
    syms = sorted(g.free_symbols, key=lambda s: s.name)
    return {
        "format": "symdp-interval-1",
        "id": id,
        "hash": hash_,
        "claim": claim,
        "note": note,
        "g": sp.srepr(g),
        "g_text": sp.sstr(g),
        "symbols": {s.name: {k: v for k, v in s.assumptions0.items() if k in ("positive", "integer", "real", "nonnegative")} for s in syms},
        "requires": "g >= 0" if not strict else "g > 0",
        "strict": strict,
        "prec_bits": PREC,
        "box": res.box,
        "leaves": res.leaves,
        "tree": res.tree,
    }


def replay(cert: dict) -> tuple[bool, str]:
    """Re-check a certificate: rebuild the leaves from the split tree and re-enclose ``g`` on each."""
    g = eval(cert["g"], sp.__dict__.copy())  # noqa: S307 - srepr of our own certificate (proofs/ is ours)
    syms = {s.name: s for s in g.free_symbols}
    box = {syms[k]: (sp.Rational(v[0]), sp.Rational(v[1])) for k, v in cert["box"].items() if k in syms}
    missing = [s for s in syms.values() if s not in box]
    if missing:
        return False, f"no range for {missing}"
    strict = cert.get("strict", False)
    old = ctx.prec
    ctx.prec = int(cert.get("prec_bits", PREC))
    count = 0
    try:
        stack = [(cert["tree"], box)]
        while stack:
            node, cell = stack.pop()
            if "split" in node:
                name, at = node["split"]
                s = syms[name]
                m = sp.Rational(at)
                lo, hi = cell[s]
                if not (lo < m < hi):
                    return False, f"split {name}={at} outside its cell"
                left, right = dict(cell), dict(cell)
                left[s] = (lo, m)
                right[s] = (m, hi)
                stack.append((node["children"][0], left))
                stack.append((node["children"][1], right))
                continue
            env = {s: _ball(*cell[s]) for s in box}
            v = enclose(g, env)
            ok = (v > 0) if strict else (v >= 0)
            if not (v.is_finite() and ok):
                return False, f"leaf {({k.name: [str(a), str(b)] for k, (a, b) in cell.items()})} encloses {v}"
            count += 1
    finally:
        ctx.prec = old
    if count != cert.get("leaves", count):
        return False, f"leaf count {count} != recorded {cert['leaves']}"
    return True, f"{count} leaves re-enclosed"


def dump(cert: dict) -> str:
    return json.dumps(cert, indent=0, sort_keys=False)


__all__ = ["enclose", "certify", "certificate", "replay", "IntervalResult", "NotEnclosable", "dump"]
