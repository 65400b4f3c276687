r"""Rung 1: SymPy proves an identity (the difference simplifies to 0), the sign of a difference under the symbols'
assumptions, or an asymptotic expansion (the remainder ratio has a finite limit).

A symbolic result is never overridden by a numerical one: a SymPy limit that says the remainder ratio diverges
is confirmed numerically before it refutes, and where the numbers seem to settle against it the entry stays
UNCHECKED (never SUPPORTED).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator
from itertools import pairwise
from typing import Any

import mpmath
import sympy as sp

from ...limits import memory_limit
from ...theorem import Evidence, Theorem, Verdict
from ..compile import compile_expr, elementary, sampling_box
from ..core import Timeout, VerificationResult, cpu_limit

#: points of the numerical probe that runs before SymPy's simplify (see :func:`probe_signs`)
PROBE_POINTS = 32
#: working precisions (bits) of the probe's ball arithmetic: the second only where the first's ball holds 0
PROBE_PREC = (200, 800)


def _probe_value(s: sp.Symbol, rng: random.Random) -> sp.Rational | None:
    """A value satisfying every assumption of ``s`` (positive, integer, real, ...), exact in binary; None when no
    candidate fits (an assumption the probe does not model, e.g. irrational or prime)."""
    facts = s.assumptions0
    for _ in range(8):
        if facts.get("integer"):
            v: sp.Rational = sp.Integer(rng.choice((1, 2, 3, 5, 8, 13, 40, 100, 1000)))
        else:
            v = sp.Rational(rng.randint(1025, 2047), 1024) * sp.Rational(2) ** rng.randint(-10, 10)
        if facts.get("negative") or facts.get("nonpositive"):
            v = -v
        if _fits(v, facts):
            return v
    return None


def _fits(v: sp.Rational, facts: dict[str, bool | None]) -> bool:
    return all(getattr(v, "is_" + k, None) == want for k, want in facts.items())


def satisfies_assumptions(point: dict[sp.Symbol, sp.Rational], symbols: Iterable[sp.Basic]) -> bool:
    """Every one of ``symbols`` has an exact rational value in ``point`` that satisfies all its assumptions (the
    facts SymPy's sign proofs use): a property that fails at such a point has no proof from the assumptions."""
    for s in symbols:
        v = point.get(s) if isinstance(s, sp.Symbol) else None
        if v is None or not isinstance(v, sp.Rational) or not _fits(v, s.assumptions0):
            return False
    return True


class _NoProbe(Exception):
    """A symbol has an assumption the probe does not model: no probe point."""


def _probe_points(syms: list[sp.Symbol], n: int, seed: int) -> Iterator[dict[sp.Symbol, Any]]:
    """Up to ``n`` probe points of ``syms`` (exact rationals that satisfy the symbols' assumptions, as arb balls), drawn
    from ``random.Random(seed)`` one point after another; raises :class:`_NoProbe` where a symbol has no probe value.
    The points of :func:`probe_signs` and :func:`probe_not_real`."""
    from ..interval_arith import _parse_num

    rng = random.Random(seed)
    for _ in range(n):
        vals = [_probe_value(s, rng) for s in syms]
        if any(v is None for v in vals):
            raise _NoProbe
        yield dict(zip(syms, (_parse_num(v) for v in vals)))


def probe_signs(d: sp.Expr, n: int = PROBE_POINTS, seed: int = 0) -> list[int]:
    """Certain signs (+1 / -1) of ``d`` at up to ``n`` points that satisfy the symbols' assumptions (not the
    entry's domain or hypotheses: SymPy's simplify and sign proofs use only the assumptions).  Each value is a
    ball of outward-rounded arb arithmetic (:func:`symdp.verify.interval_arith.enclose`) at the exact rational
    point; a sign is kept only where the finite ball excludes 0, so it is the true sign of ``d`` there, whatever
    the cancellation.  A point where ``d`` is undefined, not real or not resolved gives nothing; the list is empty
    where ``d`` has no interval extension or an assumption the probe does not model.

    Used to skip proofs that cannot exist: a sign means ``d`` is not identically 0 (no simplify can reduce it to
    0), a -1 means ``d >= 0`` does not follow from the assumptions.  It never proves anything."""
    from flint import ctx

    from ..interval_arith import NotEnclosable, enclose

    try:
        e = elementary(d)
        syms = sorted(e.free_symbols, key=lambda s: (s.name, sp.srepr(s)))
    except Exception:  # noqa: BLE001 - no probe: the full SymPy path decides
        return []
    out = []
    old = ctx.prec
    try:
        for env in _probe_points(syms, n, seed):
            for prec in PROBE_PREC:
                ctx.prec = prec
                try:
                    y = enclose(e, env)
                except NotEnclosable:
                    return []
                except Exception:  # noqa: BLE001 - undefined here (a pole, a domain error): no sign at this point
                    break
                if not y.is_finite():
                    break
                if y > 0 or y < 0:
                    out.append(1 if y > 0 else -1)
                    break
    except _NoProbe:
        return []
    finally:
        ctx.prec = old
    return out


def _maybe_not_real(e: sp.Expr) -> bool:
    """``e`` has a node that can leave the reals at real arguments (a log, a non-integer power)."""
    return any(isinstance(a, sp.log) or (isinstance(a, sp.Pow) and not a.exp.is_Integer) for a in sp.preorder_traversal(e))


def _complex_ball(e: sp.Basic, env: dict, memo: dict) -> Any:
    """A complex ball (flint ``acb``) that contains the value of ``e`` on SymPy's principal branches (``sqrt``,
    ``log`` and ``b**x = exp(x log b)``) with the symbols bound to the real balls of ``env``; raises
    :class:`~symdp.verify.interval_arith.NotEnclosable` where it cannot tell.  A node outside the complex
    functions below (Min, Max, ceiling, a library function, ...) is enclosed by the real arithmetic of
    :func:`~symdp.verify.interval_arith.enclose`, which must give a finite real ball (that is a proof that the node
    is real there); a log or a non-integer power of a ball holding 0 is not enclosed."""
    from flint import acb

    from ..interval_arith import NotEnclosable, _arb_const, enclose

    got = memo.get(e)
    if got is not None:
        return got
    if isinstance(e, sp.Symbol):
        if e not in env:
            raise NotEnclosable(f"no value for {e}")
        v = acb(env[e])
    elif e is sp.I:
        v = acb(0, 1)
    elif e.is_Number or e is sp.pi or e is sp.E:
        v = acb(_arb_const(e))
    elif isinstance(e, (sp.Add, sp.Mul)):
        parts = [_complex_ball(a, env, memo) for a in e.args]
        v = parts[0]
        for p in parts[1:]:
            v = v + p if isinstance(e, sp.Add) else v * p
    elif isinstance(e, sp.Pow) and e.exp.is_Integer:
        b, k = _complex_ball(e.base, env, memo), int(e.exp)
        v = b**k if k >= 0 else 1 / b ** (-k)
    elif isinstance(e, sp.Pow) and e.base is sp.E:
        v = _complex_ball(e.exp, env, memo).exp()
    elif isinstance(e, (sp.Pow, sp.log)):
        b = _complex_ball(e.args[0], env, memo)
        if not b.is_finite() or 0 in b:
            raise NotEnclosable("a log or a power of a ball that holds 0")
        if isinstance(e, sp.log):
            v = b.log()
        elif e.exp == sp.Rational(1, 2):
            v = b.sqrt()
        else:
            v = (_complex_ball(e.exp, env, memo) * b.log()).exp()
    elif isinstance(e, (sp.exp, sp.tanh, sp.sinh, sp.cosh, sp.erf, sp.erfc)):
        v = getattr(_complex_ball(e.args[0], env, memo), type(e).__name__)()
    elif isinstance(e, sp.Abs):
        v = acb(abs(_complex_ball(e.args[0], env, memo)))
    else:
        r = enclose(e, env)
        if not r.is_finite():
            raise NotEnclosable(f"{type(e).__name__} not shown real")
        v = acb(r)
    if not v.is_finite():
        raise NotEnclosable("not finite")
    memo[e] = v
    return v


def probe_not_real(d: sp.Expr, n: int = PROBE_POINTS, seed: int = 0) -> bool:
    """True when ``d`` is certainly not a real number at one of the probe's points (:func:`probe_signs`' points,
    which satisfy the symbols' assumptions): the imaginary part of its complex ball excludes 0.  Then no sign of
    ``d`` (``d >= 0``, ``d > 0``) follows from the assumptions, and no simplification reduces ``d`` to 0.  E.g.
    ``sqrt(log(1/deltatilde))`` with ``deltatilde`` only positive: imaginary at ``deltatilde > 1``
    (he2021uai.cmp_cor2_vs_thm4, whose simplify and factor took 2.2 s CPU to fail).  False proves nothing."""
    from flint import ctx

    from ..interval_arith import NotEnclosable

    try:
        e = elementary(d)
        if not _maybe_not_real(e):
            return False
        syms = sorted(e.free_symbols, key=lambda s: (s.name, sp.srepr(s)))
    except Exception:  # noqa: BLE001 - no probe
        return False
    old = ctx.prec
    try:
        for env in _probe_points(syms, n, seed):
            for prec in PROBE_PREC:
                ctx.prec = prec
                try:
                    y = _complex_ball(e, env, {})
                except NotEnclosable:
                    break
                except Exception:  # noqa: BLE001 - undefined here: nothing at this point
                    break
                if y.imag > 0 or y.imag < 0:
                    return True
                if y.imag == 0:  # certainly real here
                    break
    except _NoProbe:
        return False
    finally:
        ctx.prec = old
    return False


def symbolic_identity(lhs: sp.Expr, rhs: sp.Expr, seconds: float = 8.0) -> bool:
    try:
        with cpu_limit(seconds), memory_limit():
            d = elementary(lhs) - elementary(rhs)
            if probe_signs(d):  # not identically 0: no simplification can give 0
                return False
            d = sp.simplify(d)
            if d == 0:
                return True
            d2 = sp.simplify(d.rewrite(sp.exp))
            if d2 == 0:
                return True
            if d.has(sp.erfc, sp.erfinv):  # erfinv(1 - erfc(x)) = x needs erfc written as 1 - erf
                return sp.simplify(d.rewrite(sp.erf)) == 0
            return False
    except Timeout:
        return False
    except Exception:  # noqa: BLE001 - MemoryLimitExceeded (the cap) included: no proof, not an error
        return False


#: CPU seconds of :func:`symbolic_sign` (its simplify and factor).  Calibration (2026-11-27, every library claim
#: that reaches the rung): the sign proofs that need simplify take at most 0.07 s CPU in a warm process and 0.3 s in
#: a fresh one (he2021.cmp_kl_le_dwork_rothblum, cmp_kl_le_dwork2010); the attempts that fail take 0.03-3.1 s, and
#: one (he2021.cmp_delta_vs_dwork_roth, Min/ceiling inside, 9.6 s of simplify unbounded) ran into the former 8 s
#: wall-clock limit, quiet or loaded.  3 s is 10 times the longest proof.
SIGN_SECONDS = 3.0


def symbolic_sign(lhs: sp.Expr, relation: str, rhs: sp.Expr, seconds: float = SIGN_SECONDS) -> bool:
    """SymPy's assumption system proves the sign of the (simplified, factored) difference (within ``seconds`` of
    CPU time)."""
    d = (rhs - lhs) if relation in ("<=", "<") else (lhs - rhs)
    strict = relation in ("<", ">")
    # not real at a point that satisfies the assumptions: no sign proof from them exists.  Outside the CPU budget
    # below, so that the budget of simplify and factor stays what it was
    if probe_not_real(d):
        return False
    try:
        # SymPy's factor of exp(-((x - c)/w)**2) with a small w builds a dense polynomial of degree ~1/w^2
        # (23 GB seen, below the time limit's reach): the block is capped in memory as well as time
        with cpu_limit(seconds), memory_limit():
            r = d.is_positive if strict else d.is_nonnegative
            if r:
                return True
            # the difference is negative where the symbols' assumptions hold: no sign proof from those assumptions
            # exists, skip simplify and factor (seconds each on claims true only on the entry's narrower domain)
            if -1 in probe_signs(d):
                return False
            cand = sp.factor(sp.simplify(d))
            if cand.is_positive if strict else cand.is_nonnegative:
                return True
    except Timeout:
        return False
    except Exception:  # noqa: BLE001 - MemoryLimitExceeded (the cap) included: no proof, not an error
        return False
    return False


def _expansion_ratios(th: Theorem) -> list[tuple[str, mpmath.mpf]] | None:
    """|lhs - rhs| / |remainder| along var -> point (other symbols at their domain's geometric middle)."""
    ex = th.expansion
    assert ex is not None and th.lhs is not None and th.rhs is not None  # an expansion entry
    v = ex.var
    others = (set(th.lhs.free_symbols) | set(th.rhs.free_symbols)) - {v}
    box, _ = sampling_box(th, others)
    base: dict[str, str] = {}
    for nm, (lo, hi) in box.ranges.items():
        mid = math.sqrt(lo * hi) if lo > 0 and hi / lo > 50 else (lo + hi) / 2
        base[nm] = box.fmt(nm, mid)
    p0 = sp.sympify(ex.point)
    if p0 in (sp.oo,):
        seq = [sp.Integer(10) ** k for k in (2, 4, 6, 8, 10, 12, 16, 20, 30)]
        rem = v ** (-ex.order)
    elif p0.is_number:
        seq = [p0 + sp.Integer(10) ** (-k) for k in (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 30)]
        rem = (v - p0) ** ex.order
    else:
        return None
    f = compile_expr(sp.Abs(th.lhs - th.rhs) / sp.Abs(rem))
    out = []
    with mpmath.workdps(150):
        for val in seq:
            pt = {k: mpmath.mpf(x) for k, x in base.items()}
            pt[v.name] = mpmath.mpf(str(sp.N(val, 160)))
            out.append((sp.sstr(val), f(pt)))
    return out


def verify_expansion(th: Theorem, res: VerificationResult) -> None:
    from ...asymptotics import check_expansion

    try:
        with cpu_limit(20):
            ok, lim = check_expansion(th)
    except Timeout:
        ok, lim = None, None
    ex = th.expansion
    assert ex is not None and th.lhs is not None and th.rhs is not None  # an expansion entry
    if ok:
        res.evidence = Evidence(Verdict.PROVED, "symbolic", f"(lhs - rhs)/remainder -> {sp.sstr(lim)} (finite) as {ex.var} -> {ex.point}")
        return
    try:
        ratios = _expansion_ratios(th)
    except Exception as exc:  # noqa: BLE001
        ratios = None
        res.attempts.append(f"numeric expansion check failed: {type(exc).__name__}: {exc}")
    sym_txt = f"SymPy: (lhs - rhs)/remainder -> {sp.sstr(lim)}" if lim is not None else "SymPy limit timed out"
    tab = ", ".join(f"{k}: {mpmath.nstr(r, 4)}" for k, r in ratios) if ratios else ""
    vals = [r for _, r in ratios] if ratios else []
    growing = bool(vals) and all(b > a * 2 for a, b in pairwise(vals)) and vals[-1] > 100 * vals[0]
    if lim is not None and infinite_limit(lim):
        # a symbolic result: decisive, never overridden by the numbers (which may still be pre-asymptotic)
        res.actual = sp.sstr(lim)
        num_txt = (f"; at 150 digits |lhs - rhs|/|remainder| along {ex.var} -> {ex.point} at one point of the other "
                   f"parameters: {tab}" if tab else "")
        agree = ("" if not tab else " (the numbers grow too)" if growing or (vals[-1] > 100 * vals[0]) else
                 " (the sampled sequence has not left the pre-asymptotic regime; the symbolic limit decides, a "
                 "numerical check never overrides it)")
        res.evidence = Evidence(
            Verdict.REFUTED, "symbolic",
            f"{sym_txt} (infinite) as {ex.var} -> {ex.point}: the remainder is not O(order {ex.order}){num_txt}{agree}",
        )
        return
    if ratios:
        res.actual = sp.sstr(lim) if lim is not None else None
        if growing:
            res.evidence = Evidence(
                Verdict.REFUTED, "numerical",
                f"{sym_txt}; at 150 digits |lhs - rhs|/|remainder| grows without bound as {ex.var} -> {ex.point} ({tab}): "
                f"the remainder is not O(order {ex.order})",
            )
            return
        settled = vals[-1] > 0 and abs(vals[-1] - vals[-2]) <= mpmath.mpf("0.05") * abs(vals[-1]) and mpmath.isfinite(vals[-1])
        if settled:
            res.evidence = Evidence(
                Verdict.SUPPORTED, "numerical",
                f"at 150 digits |lhs - rhs|/|remainder| settles as {ex.var} -> {ex.point} ({tab}) at one point of the other "
                f"parameters; {sym_txt}", None, None, len(vals),
            )
            return
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"{sym_txt} (not decided), and the ratio does not clearly diverge numerically ({tab})")
        return
    res.evidence = Evidence(Verdict.UNCHECKED, None, f"{sym_txt}; no numerical confirmation")


def infinite_limit(lim: sp.Basic) -> bool:
    """True when SymPy's limit is definitely infinite (``oo``, ``-oo``, ``zoo``, ``oo*sign(...)`` with a
    nonzero factor)."""
    lim = sp.sympify(lim)
    if lim.is_finite:
        return False
    if lim in (sp.oo, -sp.oo, sp.zoo) or lim.is_infinite:
        return True
    if lim.has(sp.oo, -sp.oo, sp.zoo) and not lim.has(sp.nan, sp.AccumBounds):
        rest = lim.subs({sp.oo: 1, -sp.oo: -1, sp.zoo: 1})
        return bool(rest.is_nonzero) or (isinstance(lim, sp.Mul) and all(
            a.is_nonzero or isinstance(a, sp.sign) or a in (sp.oo, -sp.oo, sp.zoo) for a in lim.args))
    return False


__all__ = ["symbolic_identity", "symbolic_sign", "probe_not_real", "satisfies_assumptions", "verify_expansion", "infinite_limit"]
