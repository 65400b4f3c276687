r"""Rung 4: numerical search against an oracle or the closed form (:mod:`symdp.verify.search`); it can refute,
it can only support.  A strict claim is also tested at boundary points in exact arithmetic."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import mpmath
import sympy as sp

from ...theorem import Evidence, Theorem, Verdict
from ..compile import fmt_box
from ..core import Timeout, VerificationResult, cpu_limit, cx_dict, time_limit
from ..search import Box, SearchResult, threshold_region


def fill_from_search(res: VerificationResult, sr: SearchResult, box: Box, what: str, oracle: str | None, own_box: bool, extra: str = "",
                      region_fns: tuple | None = None, searched: str | None = None) -> None:
    """Record a search result: REFUTED/PARTIAL with the counterexample, else SUPPORTED on the searched box
    (``searched``: what the search covered, see :func:`symdp.verify.compile.describe_box`)."""
    res.box = box.as_json()
    res.claimed, res.actual, res.margin = sr.claimed, sr.actual, sr.margin
    if sr.counterexample is not None and sr.confirmed:
        res.counterexample = sr.counterexample
        try:
            region = threshold_region(sr, box, *region_fns) if region_fns else None
        except Exception:  # noqa: BLE001 - the region is a description; never fail the verdict on it
            region = None
        res.region = region
        verdict = Verdict.PARTIAL if region else Verdict.REFUTED
        res.evidence = Evidence(
            verdict, "numerical",
            f"counterexample {sr.counterexample}: claimed {sr.claimed}, {what} {sr.actual} (slack {sr.margin}), "
            f"re-confirmed at {sr.confirm_dps} digits; {len(sr.violations)} of {sr.cases} sampled points violate"
            + (f"; {region}" if region else "") + extra,
            None, cx_dict(sr.counterexample), sr.cases,
        )
        return
    if sr.cases == 0:
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"no evaluable point in {fmt_box(box)} ({sr.errors} errors)")
        return
    res.evidence = Evidence(
        Verdict.SUPPORTED, "numerical",
        f"{sr.cases} points against {oracle or 'the closed form'} on {fmt_box(box)}"
        + (f" ({searched})" if searched else "" if own_box else " (box partly from defaults/caps)")
        + f"; no violation; smallest relative slack {sr.rel_margin:.3g}" if sr.rel_margin is not None else
        f"{sr.cases} points against {oracle or 'the closed form'} on {fmt_box(box)}; no violation",
        None, None, sr.cases,
    )
    if extra:
        res.evidence = Evidence(res.evidence.verdict, res.evidence.rung, res.evidence.detail + extra, None, None, sr.cases)
    if sr.errors:  # never dropped silently: say which part of the box the verdict does not cover
        res.evidence = Evidence(res.evidence.verdict, res.evidence.rung, res.evidence.detail + unevaluable_note(sr),
                                None, None, sr.cases)


def is_verdict(res: VerificationResult, verdict: Verdict) -> bool:
    """``res``'s current verdict is ``verdict`` (read afresh: a rung called in between may have changed it)."""
    return res.evidence.verdict is verdict


def unevaluable_note(sr: SearchResult) -> str:
    """The sampled points where the claim or the truth could not be evaluated, as a caveat of the verdict."""
    eg = f" (e.g. {sr.unevaluable[0]})" if sr.unevaluable else ""
    return (f"; {sr.errors} sampled points of the box were not evaluable{eg}: the claim or its oracle is undefined, "
            f"not real or out of its range there, and this verdict covers only the evaluable part")


#: a supported claim whose smallest relative slack is below this is re-decided in exact arithmetic
TINY_SLACK = 1e-12


def exact_sign_check(th: Theorem, lhs: sp.Expr, rhs: sp.Expr, sr: SearchResult, res: VerificationResult,
                     seconds: float = 10.0, relation: str | None = None) -> bool:
    """A difference far below the search's tolerance (1e-300 absolute, 1e-30 relative) is decided, not rounded
    away: at the search's tightest point (a rational point inside the hypotheses) SymPy evaluates ``rhs - lhs``
    (for ``<=``) with adaptive precision and ``strict=True`` (it raises rather than guess).  REFUTED when the sign
    is wrong; True when decided so."""
    from sympy.core.evalf import PrecisionExhausted

    rel = relation or th.relation
    if sr.worst_point is None or rel not in ("<=", "<", ">=", ">"):
        return False
    if sr.rel_margin is not None and abs(sr.rel_margin) > TINY_SLACK:
        return False
    syms = {x.name: x for x in (lhs.free_symbols | rhs.free_symbols | {y for h in th.hypotheses for y in sp.sympify(h).free_symbols})}
    pt = {syms[k]: sp.Rational(v) for k, v in sr.worst_point.items() if k in syms}
    g = (rhs - lhs) if rel in ("<=", "<") else (lhs - rhs)
    try:
        with cpu_limit(seconds):
            if not all(sp.sympify(h).xreplace(pt) is sp.true for h in th.hypotheses):
                return False
            v = g.xreplace(pt)
            val = v if v.is_Rational else sp.N(v, 15, maxn=4000, strict=True)
    except (Timeout, PrecisionExhausted, ValueError, TypeError, ZeroDivisionError):
        return False
    except Exception:  # noqa: BLE001 - an extra check must never sink the verdict
        return False
    if not (val.is_number and val.is_real) or not (val < 0 or (rel in ("<", ">") and val == 0)):
        return False
    res.counterexample = dict(sr.worst_point)
    res.region = None
    res.margin = sp.sstr(val if val.is_Rational and abs(val.q) < 10**6 else sp.N(val, 6))
    res.evidence = Evidence(
        Verdict.REFUTED, "exact",
        f"counterexample {sr.worst_point}: the claimed side misses by {res.margin} (SymPy, adaptive precision, strict) at "
        f"this rational point inside the hypotheses; the sampled search's tolerance (relative slack {sr.rel_margin:.3g}) "
        f"could not resolve it",
        None, cx_dict(sr.worst_point), sr.cases,
    )
    return True


def _nice(lo: float, hi: float, log: bool) -> str:
    """A short decimal inside [lo, hi]: the (geometric) middle rounded to one or two significant digits."""
    m = math.sqrt(lo * hi) if log else (lo + hi) / 2
    for digits in (1, 2, 3, 6):
        v = float(f"{m:.{digits}g}")
        if lo <= v <= hi:
            return repr(v)
    return repr(m)


def _boundary_candidates(box: Box, limit: int = 81) -> list[dict[str, str]]:
    """Points where a strict inequality typically degenerates to equality: integer symbols at their lower bound,
    real symbols at either end of their range or at a short decimal in the middle (at most ``limit`` points)."""
    from itertools import product

    names = box.names()
    choices = []
    for nm in names:
        lo, hi = box.ranges[nm]
        if nm in box.integers:
            choices.append([str(math.ceil(lo))])
        else:
            vals = [box.fmt(nm, lo), _nice(lo, hi, box.is_log(nm)), box.fmt(nm, hi)]
            choices.append(list(dict.fromkeys(vals)))
    pts = []
    for combo in product(*choices):
        pts.append(dict(zip(names, combo)))
        if len(pts) >= limit:
            break
    return pts


@dataclass(frozen=True)
class StrictEquality:
    """What :func:`find_strict_equality` found: ``point`` (None when no boundary point is exactly equal), the two
    sides there at 60 digits (``actual`` = lhs, ``claimed`` = rhs) and how many candidates reached the exact test."""

    point: dict[str, str] | None
    actual: mpmath.mpf | None
    claimed: mpmath.mpf | None
    tried: int
    exact: dict[sp.Symbol, sp.Rational] | None = None


def find_strict_equality(th: Theorem, lhs: sp.Expr, rhs: sp.Expr, box: Box, fc, ft, seconds: float = 10.0) -> StrictEquality:
    """The search of :func:`strict_equality` without writing a verdict: the first boundary candidate where
    ``lhs - rhs == 0`` in exact arithmetic (hypotheses checked exactly too), or none."""
    t0 = time.monotonic()
    syms = {s.name: s for s in (lhs.free_symbols | rhs.free_symbols | {x for h in th.hypotheses for x in sp.sympify(h).free_symbols})}
    diff = lhs - rhs
    tried = 0
    for pt in _boundary_candidates(box):
        if time.monotonic() - t0 > seconds:
            break
        try:
            with mpmath.workdps(60):
                mp_pt = {k: mpmath.mpf(v) for k, v in pt.items()}
                a, b = ft(mp_pt), fc(mp_pt)
                if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
                    continue
                if abs(a - b) > mpmath.mpf("1e-30") * max(abs(a), abs(b)):
                    continue  # relative screen (both sides may be tiny and still differ)
        except Exception:  # noqa: BLE001 - not evaluable here
            continue
        exact = {syms[k]: sp.Rational(v) for k, v in pt.items() if k in syms}
        tried += 1
        try:
            with time_limit(max(0.5, seconds - (time.monotonic() - t0))):
                hyps_ok = all(sp.sympify(h).subs(exact) is sp.true for h in th.hypotheses)
                if not hyps_ok:
                    continue
                d = diff.subs(exact)
                zero = d == 0 or sp.simplify(d) == 0
        except Timeout:
            break
        except Exception:  # noqa: BLE001
            continue
        if not zero:
            continue
        return StrictEquality(dict(pt), a, b, tried, exact)
    return StrictEquality(None, None, None, tried)


def strict_equality(th: Theorem, lhs: sp.Expr, rhs: sp.Expr, box: Box, fc, ft, res: VerificationResult,
                    seconds: float = 10.0, found: StrictEquality | None = None) -> bool:
    """A strict claim (``<``/``>``) fails where both sides are exactly equal, which a floating search with a
    tolerance cannot see.  Try the boundary candidates: screen at 60 digits (relative difference < 1e-30), then decide ``lhs - rhs == 0`` by
    SymPy in exact arithmetic at the rational point (hypotheses checked exactly too).  REFUTED on success.
    ``found``: the result of :func:`find_strict_equality` on the same arguments, computed earlier (not repeated)."""
    eq = found if found is not None else find_strict_equality(th, lhs, rhs, box, fc, ft, seconds)
    if eq.point is None:
        if eq.tried:
            res.attempts.append(f"strict claim: {eq.tried} boundary points with lhs ~ rhs to 30 digits, none exactly equal")
        return False
    pt, a, b = eq.point, eq.actual, eq.claimed
    res.counterexample = dict(pt)
    with mpmath.workdps(30):
        res.claimed, res.actual, res.margin = mpmath.nstr(b, 25), mpmath.nstr(a, 25), "0"
    res.region = None
    res.attempts.append(f"strict claim: lhs - rhs == 0 exactly at {pt}")
    res.evidence = Evidence(
        Verdict.REFUTED, "numerical",
        f"counterexample {pt}: lhs = rhs = {mpmath.nstr(a, 20)} exactly (SymPy reduces lhs - rhs to 0 in exact "
        f"arithmetic at this rational point, which satisfies every hypothesis): equality, so the strict "
        f"inequality {th.relation} fails (margin 0); the floating search ({res.evidence.cases} points) sees no "
        f"violation beyond its tolerance",
        None, cx_dict(pt), res.evidence.cases,
    )
    return True

__all__ = ["fill_from_search", "strict_equality", "find_strict_equality", "StrictEquality", "unevaluable_note", "exact_sign_check", "TINY_SLACK", "is_verdict"]
