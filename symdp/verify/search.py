r"""Numerical rung: counterexample search against an exact oracle, and shrinking.

Generic over callables so that user claims (the audit) reuse it:

>>> import mpmath
>>> from symdp.verify.search import Box, find_counterexample
>>> box = Box({"epsilon": (0.01, 10.0)})
>>> r = find_counterexample(lambda p: 0.9 * p["epsilon"] * mpmath.tanh(p["epsilon"] / 2),
...                         lambda p: p["epsilon"] * mpmath.tanh(p["epsilon"] / 2), box, n=50)
>>> r.counterexample is not None and r.confirmed
True

Points are dicts ``name -> decimal string``; callables receive
``name -> mpmath.mpf`` at the ambient precision.  The *slack* of a claim at a
point is ``claimed - actual`` for ``"<="`` (actual must not exceed the claim),
``actual - claimed`` for ``">="`` and ``-|claimed - actual|`` (within a
relative tolerance) for ``"=="``: negative slack is a violation.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath

Point = dict[str, str]
Fn = Callable[[Mapping[str, mpmath.mpf]], Any]

#: relative tolerance of an equality claim (``"=="``) at screening precision
EQ_RTOL = mpmath.mpf("1e-20")


@dataclass
class Box:
    """Parameter box: name -> (lo, hi); ``integers`` are sampled as integers; wide positive ranges log-uniformly."""

    ranges: dict[str, tuple[float, float]]
    integers: frozenset[str] = frozenset()

    def names(self) -> list[str]:
        return sorted(self.ranges)

    def is_log(self, name: str) -> bool:
        lo, hi = self.ranges[name]
        return lo > 0 and hi / lo > 50

    def fmt(self, name: str, v: float) -> str:
        lo, hi = self.ranges[name]
        v = min(max(v, lo), hi)
        if name in self.integers:
            iv = round(v)
            iv = min(max(iv, math.ceil(lo)), math.floor(hi))
            return str(iv)
        s = repr(float(v))
        # keep within the box after decimal round-trip
        if float(s) < lo or float(s) > hi:
            s = repr(float(lo if float(s) < lo else hi))
        return s

    def sample(self, rng: random.Random) -> Point:
        out = {}
        for nm in self.names():
            lo, hi = self.ranges[nm]
            if self.is_log(nm):
                v = math.exp(rng.uniform(math.log(lo), math.log(hi)))
            else:
                v = rng.uniform(lo, hi)
            out[nm] = self.fmt(nm, v)
        return out

    def corners(self, limit: int = 64) -> list[Point]:
        names = self.names()
        pts: list[Point] = []
        for mask in range(min(2 ** len(names), limit)):
            pts.append({nm: self.fmt(nm, self.ranges[nm][(mask >> i) & 1]) for i, nm in enumerate(names)})
        return pts

    def as_json(self) -> dict[str, list[str]]:
        return {nm: [repr(lo), repr(hi)] + (["integer"] if nm in self.integers else []) for nm, (lo, hi) in sorted(self.ranges.items())}


@dataclass
class SearchResult:
    counterexample: Point | None
    claimed: str | None = None
    actual: str | None = None
    margin: str | None = None  # slack at the counterexample (negative) or the smallest slack seen
    rel_margin: float | None = None
    cases: int = 0
    confirmed: bool = False  # re-confirmed at >= 50 digits
    confirm_dps: int = 0
    worst_point: Point | None = None
    violations: list[Point] = field(default_factory=list)
    passes: list[Point] = field(default_factory=list)
    errors: int = 0
    unevaluable: list[Point] = field(default_factory=list)  # sampled points where a side could not be evaluated


def _mp_point(pt: Point) -> dict[str, mpmath.mpf]:
    return {k: mpmath.mpf(v) for k, v in pt.items()}


def slack(claimed: Any, actual: Any, relation: str, rtol: Any = None) -> mpmath.mpf:
    c, a = mpmath.mpf(claimed), mpmath.mpf(actual)
    if relation in ("<=", "<"):
        if c == mpmath.inf:
            return mpmath.inf
        if a == mpmath.inf:
            return -mpmath.inf
        return c - a
    if relation in (">=", ">"):
        if a == mpmath.inf:
            return mpmath.inf
        return a - c
    if relation == "==":
        scale = max(abs(c), abs(a), mpmath.mpf(1e-300))
        d = abs(c - a)
        return (EQ_RTOL if rtol is None else mpmath.mpf(rtol)) * scale - d
    raise ValueError(f"relation={relation!r} must be one of <=, >=, <, >, ==")


def _rel(s: mpmath.mpf, claimed: Any, actual: Any) -> float:
    scale = max(abs(mpmath.mpf(claimed)), abs(mpmath.mpf(actual)), mpmath.mpf(1e-300))
    if scale == mpmath.inf:
        return float("-inf") if s < 0 else float("inf")
    return float(s / scale)


def _evaluate(f_claim: Fn, f_true: Fn, pt: Point, relation: str, dps: int, rtol: Any = None):
    with mpmath.workdps(dps):
        mp = _mp_point(pt)
        c = f_claim(mp)
        if c is None:  # the claim says nothing here (e.g. a mapper's component that is not the theorem's eps'): the
            return None  # point is not evaluable whatever the truth is, so the oracle (the costly side) is not asked
        a = f_true(mp)
        if a is None:
            return None
        c, a = mpmath.mpf(c), mpmath.mpf(a)
        if mpmath.isnan(c) or mpmath.isnan(a):
            return None
        s = slack(c, a, relation, rtol)
        return c, a, s


class _PointMemo:
    """:func:`_evaluate` of one search, once per (point, precision): the pattern search steps back onto points it
    has evaluated (a move ``v * (1 + s)`` then ``v / (1 + s)``), the worst point is evaluated again for its
    margin, and :func:`shrink` tries roundings the search has seen.  The two sides are pure functions of the point
    at a given precision (the oracles' own memo, :func:`symdp.verify.rungs.oracle.memo_call`, relies on the same),
    so a hit is what the evaluation would return; an exception is stored and raised again.  Only the number of
    evaluations changes, never a value, a count (``SearchResult.cases`` counts every evaluation as before) or the
    order in which new points are evaluated."""

    __slots__ = ("_vals", "f_claim", "f_true", "hits", "misses", "relation", "rtol")

    def __init__(self, f_claim: Fn, f_true: Fn, relation: str, rtol: Any = None) -> None:
        self.f_claim, self.f_true, self.relation, self.rtol = f_claim, f_true, relation, rtol
        self._vals: dict[tuple[Any, ...], Any] = {}
        self.hits = self.misses = 0

    def __call__(self, pt: Point, dps: int):
        key = (tuple(sorted(pt.items())), dps)
        got = self._vals.get(key, _MISS)
        if got is _MISS:
            self.misses += 1
            try:
                got = _evaluate(self.f_claim, self.f_true, pt, self.relation, dps, self.rtol)
            except Exception as exc:  # stored and raised again: the callers decide what they catch
                self._vals[key] = _Raised(exc)
                raise
            self._vals[key] = got
            return got
        self.hits += 1
        if isinstance(got, _Raised):
            raise got.exc
        return got


class _Raised:
    __slots__ = ("exc",)

    def __init__(self, exc: Exception) -> None:
        self.exc = exc


_MISS = object()
#: evaluations a search's point memo saved and made, since the process started (tests read them)
MEMO_STATS = {"hits": 0, "misses": 0}


def _is_cx(f_claim: Fn, f_true: Fn, pt: Point, relation: str, dps: int, strict_tol: float, rtol: Any = None,
           memo: _PointMemo | None = None) -> bool:
    try:
        r = memo(pt, dps) if memo is not None else _evaluate(f_claim, f_true, pt, relation, dps, rtol)
    except (ValueError, ZeroDivisionError, ArithmeticError, TypeError):
        return False
    if r is None:
        return False
    c, a, s = r
    if relation == "==":
        return s < 0
    return _rel(s, c, a) < -strict_tol


def find_counterexample(
    f_claim: Fn,
    f_true: Fn,
    box: Box | Mapping[str, tuple[float, float]],
    *,
    relation: str = "<=",
    n: int = 200,
    seed: int = 0,
    constraint: Callable[[Point], bool] | None = None,
    dps: int = 30,
    confirm_dps: int = 60,
    strict_tol: float = 1e-12,
    refine: int = 40,
    shrink_cx: bool = True,
    rtol: Any = None,
) -> SearchResult:
    """Search ``box`` for a point where ``f_true relation f_claim`` fails.

    Random (log-uniform on wide positive ranges) points plus the corners, then
    a local pattern search from the worst points, then :func:`shrink`.  A
    violation counts only when its relative size exceeds ``strict_tol`` at
    ``dps`` digits and it is re-confirmed at ``confirm_dps`` (>= 50) digits.
    ``rtol`` is the relative tolerance of ``"=="`` (default :data:`EQ_RTOL`; an
    oracle computed by quadrature passes its own).
    """
    if not isinstance(box, Box):
        box = Box(dict(box))
    rng = random.Random(seed)
    res = SearchResult(None)
    ev = _PointMemo(f_claim, f_true, relation, rtol)
    try:
        return _search(ev, box, res, rng, relation, n, constraint, dps, confirm_dps, strict_tol, refine, shrink_cx, rtol)
    finally:
        MEMO_STATS["hits"] += ev.hits
        MEMO_STATS["misses"] += ev.misses


def _search(ev: _PointMemo, box: Box, res: SearchResult, rng: random.Random, relation: str, n: int,
            constraint: Callable[[Point], bool] | None, dps: int, confirm_dps: int, strict_tol: float, refine: int,
            shrink_cx: bool, rtol: Any) -> SearchResult:
    f_claim, f_true = ev.f_claim, ev.f_true
    scored: list[tuple[float, Point, Any]] = []
    cands = box.corners() + [box.sample(rng) for _ in range(n)]
    for pt in cands:
        if constraint is not None and not constraint(pt):
            continue
        try:
            r = ev(pt, dps)
        except (ValueError, ZeroDivisionError, ArithmeticError, TypeError, OverflowError):
            res.errors += 1
            if len(res.unevaluable) < 3:
                res.unevaluable.append(pt)
            continue
        if r is None:
            res.errors += 1
            if len(res.unevaluable) < 3:
                res.unevaluable.append(pt)
            continue
        res.cases += 1
        c, a, s = r
        rs = _rel(s, c, a) if relation != "==" else (-1.0 if s < 0 else 1.0)
        scored.append((rs, pt, r))
        if (relation == "==" and s < 0) or (relation != "==" and rs < -strict_tol):
            res.violations.append(pt)
        else:
            res.passes.append(pt)
    if not scored:
        return res
    scored.sort(key=lambda t: t[0])
    # local pattern search from the three worst points (maximise the violation)
    if not res.violations and refine > 0:
        for rs0, pt0, _ in scored[:3]:
            cur, cur_s = dict(pt0), rs0
            step = 0.5
            for _ in range(refine):
                improved = False
                for nm in box.names():
                    lo, hi = box.ranges[nm]
                    v = float(cur[nm])
                    if nm in box.integers:
                        moves = [v + 1, v - 1, v * 2, max(lo, v // 2)]
                    elif box.is_log(nm) or v > 0:
                        moves = [v * (1 + step), v / (1 + step)]
                    else:
                        moves = [v + step * (hi - lo) / 4, v - step * (hi - lo) / 4]
                    for mv in moves:
                        if not (lo <= mv <= hi):
                            continue
                        cand = dict(cur)
                        cand[nm] = box.fmt(nm, mv)
                        if constraint is not None and not constraint(cand):
                            continue
                        try:
                            r = ev(cand, dps)
                        except (ValueError, ZeroDivisionError, ArithmeticError, TypeError, OverflowError):
                            continue
                        if r is None:
                            continue
                        res.cases += 1
                        c, a, s = r
                        rs = _rel(s, c, a) if relation != "==" else (-1.0 if s < 0 else 1.0)
                        if rs < cur_s:
                            cur, cur_s, improved = cand, rs, True
                if not improved:
                    step /= 2
                    if step < 1e-4:
                        break
            if cur_s < -strict_tol:
                res.violations.append(cur)
                scored.insert(0, (cur_s, cur, None))
                break
    scored.sort(key=lambda t: t[0])
    worst = scored[0][1]
    res.worst_point = worst
    if not res.violations:
        r = ev(worst, dps)
        if r is not None:
            res.claimed, res.actual, res.margin = (mpmath.nstr(v, 20) for v in r)
            res.rel_margin = _rel(r[2], r[0], r[1]) if relation != "==" else None
        return res
    cx = worst
    if shrink_cx:
        cx = shrink(cx, lambda p: (constraint is None or constraint(p)) and _is_cx(f_claim, f_true, p, relation, dps, strict_tol, rtol, ev), box)
    # re-confirm at high precision
    cdps = max(confirm_dps, 50)
    r = ev(cx, cdps)
    res.counterexample = cx
    res.confirm_dps = cdps
    if r is not None:
        c, a, s = r
        res.claimed, res.actual, res.margin = mpmath.nstr(c, 25), mpmath.nstr(a, 25), mpmath.nstr(s, 25)
        res.rel_margin = _rel(s, c, a) if relation != "==" else None
        res.confirmed = bool(s < 0) and (relation == "==" or _rel(s, c, a) < -strict_tol)
    return res


def _round_candidates(v: float, lo: float, hi: float, integer: bool) -> list[str]:
    out: list[str] = []
    if integer:
        iv = round(v)
        for c in sorted({1, 2, 5, 10, 20, 50, 100, 1000, 10**4, 10**5, 10**6}, key=lambda c: abs(c - iv)):
            if lo <= c <= hi and abs(c - iv) <= 0.5 * abs(iv):
                out.append(str(c))
        for digits in (1, 2):
            r = float(f"{iv:.{digits}g}")
            if lo <= r <= hi:
                out.append(str(int(r)))
        return out
    # globally simple numbers first (anywhere in the box), then roundings of v itself
    for frac in (Fraction(1), Fraction(2), Fraction(1, 2), Fraction(10), Fraction(5), Fraction(1, 10), Fraction(0), Fraction(100), Fraction(1, 100)):
        f = float(frac)
        if lo <= f <= hi:
            out.append(str(f) if f != int(f) else str(int(f)))
    for digits in (1, 2, 3, 4):
        r = float(f"{v:.{digits}g}")
        if lo <= r <= hi:
            s = repr(r)
            out.append(s[:-2] if s.endswith(".0") else s)
    return out


def _simplicity(s: str) -> tuple[int, float]:
    """Fewer significant digits first, then closer to 1 in log scale."""
    try:
        v = abs(float(s))
    except ValueError:
        return (99, 0.0)
    digits = len(f"{v:.15g}".replace(".", "").replace("-", "").split("e")[0].strip("0")) if v else 0
    return (digits, abs(math.log10(v)) if v else 0.0)


def shrink(pt: Point, is_cx: Callable[[Point], bool], box: Box, rounds: int = 3) -> Point:
    """Move a counterexample toward round numbers (coordinate-wise) while it stays a counterexample."""
    cur = dict(pt)
    for _ in range(rounds):
        changed = False
        for nm in box.names():
            if nm not in cur:
                continue
            lo, hi = box.ranges[nm]
            v = float(cur[nm])
            for cand in _round_candidates(v, lo, hi, nm in box.integers):
                if cand == cur[nm] or _simplicity(cand) >= _simplicity(cur[nm]):
                    continue
                trial = dict(cur)
                trial[nm] = cand
                if is_cx(trial):
                    cur = trial
                    changed = True
                    break
        if not changed:
            break
    return cur


def threshold_region(
    res: SearchResult,
    box: Box,
    f_claim: Fn | None = None,
    f_true: Fn | None = None,
    relation: str = "<=",
    constraint: Callable[[Point], bool] | None = None,
    dps: int = 30,
    strict_tol: float = 1e-12,
    rtol: Any = None,
) -> str | None:
    """Where the claim holds, as a threshold in one parameter, or None.

    A parameter qualifies when it separates the violating from the passing
    samples (at least two of each).  With the callables, the threshold is then
    located by bisection along that parameter through the counterexample (the
    other parameters fixed), and must be a single sign change.
    """
    if len(res.violations) < 2 or len(res.passes) < 2 or res.counterexample is None:
        return None
    for nm in box.names():
        bad = [float(p[nm]) for p in res.violations]
        good = [float(p[nm]) for p in res.passes]
        if max(good) < min(bad):
            side = "<="
        elif min(good) > max(bad):
            side = ">="
        else:
            continue
        if f_claim is None or f_true is None:
            return f"holds for {nm} {side} ~{(max(good) if side == '<=' else min(good)):.4g} on the sampled box"
        lo, hi = box.ranges[nm]
        cx = dict(res.counterexample)

        def viol(v: float, cx: dict[str, str] = cx, nm: str = nm) -> bool | None:
            pt = dict(cx)
            pt[nm] = box.fmt(nm, v)
            if constraint is not None and not constraint(pt):
                return None
            return _is_cx(f_claim, f_true, pt, relation, dps, strict_tol, rtol)

        if box.is_log(nm):
            grid = [math.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * i / 15) for i in range(16)]
        else:
            grid = [lo + (hi - lo) * i / 15 for i in range(16)]
        states = [(v, viol(v)) for v in grid]
        states = [(v, st) for v, st in states if st is not None]
        changes = [i for i in range(1, len(states)) if states[i][1] != states[i - 1][1]]
        if len(changes) != 1:
            continue
        a, b = states[changes[0] - 1][0], states[changes[0]][0]
        va = states[changes[0] - 1][1]
        for _ in range(30):
            if f"{a:.6g}" == f"{b:.6g}":  # every later midpoint lies in [a, b] and prints the same (correct rounding
                break  # is monotone): the threshold text is settled, further bisection steps cannot change it
            m = math.sqrt(a * b) if box.is_log(nm) else (a + b) / 2
            vm = viol(m)
            if vm is None:
                break
            if vm == va:
                a = m
            else:
                b = m
        thr = (a + b) / 2
        holds_below = not va
        others = ", ".join(f"{k}={v}" for k, v in sorted(cx.items()) if k != nm)
        return (f"holds for {nm} {'<=' if holds_below else '>='} {thr:.6g} and fails {'above' if holds_below else 'below'}, along {nm} through the "
                f"counterexample ({others or 'no other parameters'}); the {res.cases} samples split the same way")
    return None


__all__ = ["Box", "SearchResult", "find_counterexample", "shrink", "slack", "threshold_region", "EQ_RTOL"]
