r"""The verification ladder for one library entry.

:func:`verify_theorem` is pure: it returns a :class:`VerificationResult` whose
``artifacts`` hold the certificate texts (paths relative to ``proofs/``);
:func:`symdp.verify.run` writes them.  Rungs, strongest first:

1. ``symbolic``: SymPy proves the identity (the difference simplifies to 0) or
   the sign of the difference under the symbols' assumptions; expansions via
   :func:`symdp.asymptotics.check_expansion`.
2. ``z3``: polynomial over-approximation (:mod:`symdp.verify.smt`), ``unsat``
   only; the ``.smt2`` text is the certificate.
3. ``interval``: arb branch-and-bound over the entry's stated domain box
   (:mod:`symdp.verify.interval`), JSON certificate.
4. ``numerical``: counterexample search against the oracle (or the closed
   form), re-confirmed at >= 50 digits; can refute, can only support.  A
   strict claim (``<``, ``>``) is also tested at boundary points in exact
   arithmetic: equality there refutes it.

For an oracle entry the search runs first; where the oracle's value has a
closed form (``Oracle.exact``) the rungs 1-3 then prove the claim against
that closed form.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable

import mpmath
import sympy as sp

from ..theorem import Evidence, Kind, Theorem, Verdict
from . import interval as iv
from . import smt
from .oracles import ORACLES, TRADEOFF_COMPANION, Oracle
from .search import Box, SearchResult, find_counterexample, threshold_region

#: sampling ranges for symbols the entry gives no domain for (by canonical name)
DEFAULT_RANGES: dict[str, tuple[float, float]] = {
    "epsilon": (1e-3, 10.0),
    "epsilonprime": (1e-3, 20.0),
    "delta": (1e-10, 0.5),
    "deltaprime": (1e-10, 0.5),
    "deltatilde": (1e-10, 0.5),
    "T": (1, 1000),
    "E": (1, 100),
    "n": (1, 10**6),
    "N": (1, 10**6),
    "m": (1, 1000),
    "sigma": (0.3, 20.0),
    "q": (1e-4, 1.0),
    "p": (1e-4, 1.0),
    "mu": (0.01, 10.0),
    "beta": (1e-10, 0.5),
    "alpha": (1e-6, 1.0),
    "k": (0.01, 100.0),
    "C": (0.01, 100.0),
    "Delta": (0.01, 100.0),
    "b": (0.01, 100.0),
}
#: largest value per oracle parameter that the oracle evaluates in reasonable time
ORACLE_CAPS: dict[str, dict[str, float]] = {
    "optimal_composition": {"T": 500},
    "subsampled_gaussian_profile": {"T": 200},
    "tradeoff_dp_composition": {"T": 6},
    "composition_eq7": {"T": 500}, "composition_tied": {"T": 500}, "composition_eq7_simplex": {"T": 500}, "composition_at_eq": {"T": 500}, "composition_igmm": {"T": 500},
    "composition_eq7_hetero": {"T": 8}, "composition_hetero_pure": {"T": 8}, "composition_hetero_dr": {"T": 8},
    "gdp_tradeoff": {"T": 16}, "optimal_composition_enum": {"T": 100},
}
#: ``--deep`` caps
DEEP_CAPS: dict[str, dict[str, float]] = {
    "optimal_composition": {"T": 5000},
    "subsampled_gaussian_profile": {"T": 2000},
    "tradeoff_dp_composition": {"T": 8},
    "composition_eq7": {"T": 5000}, "composition_tied": {"T": 5000}, "composition_eq7_simplex": {"T": 5000}, "composition_at_eq": {"T": 5000}, "composition_igmm": {"T": 5000},
    "composition_eq7_hetero": {"T": 10}, "composition_hetero_pure": {"T": 10}, "composition_hetero_dr": {"T": 10},
    "gdp_tradeoff": {"T": 200}, "optimal_composition_enum": {"T": 100},
}
#: local-search iterations after the random stage (default, deep)
REFINE = {"default": (25, 80), "optimal_composition": (5, 30), "subsampled_gaussian_profile": (0, 0), "sgm_pld": (0, 5),
          "subsampled_gaussian_tradeoff": (3, 20), "gaussian_rdp": (3, 20), "composition_eq7": (5, 30), "composition_tied": (5, 30), "composition_eq7_simplex": (5, 30), "composition_at_eq": (5, 30),
          "composition_igmm": (5, 30), "composition_eq7_hetero": (3, 20), "composition_hetero_pure": (3, 20),
          "composition_hetero_dr": (3, 20), "gdp_tradeoff": (0, 3), "optimal_composition_enum": (3, 20)}
#: random cases per entry (default, deep); expensive oracles use fewer
BUDGET = {"default": (150, 2000), "optimal_composition": (40, 600), "subsampled_gaussian_profile": (4, 24),
          "tradeoff_dp_composition": (40, 300), "sgm_pld": (12, 100), "subsampled_gaussian_tradeoff": (30, 300),
          "gaussian_rdp": (60, 400), "composition_eq7": (80, 600), "composition_tied": (40, 600), "composition_eq7_simplex": (80, 600), "composition_at_eq": (60, 600), "composition_igmm": (80, 600),
          "composition_eq7_hetero": (60, 400), "composition_hetero_pure": (60, 400), "composition_hetero_dr": (60, 400),
          "gdp_tradeoff": (4, 40), "optimal_composition_enum": (30, 300)}


@dataclass
class VerificationResult:
    """What the ladder established about one entry (one ledger row)."""

    id: str
    evidence: Evidence
    hash: str
    claimed: str | None = None
    actual: str | None = None
    margin: str | None = None
    counterexample: dict[str, str] | None = None
    region: str | None = None
    box: dict[str, list[str]] | None = None
    oracle: str | None = None
    seconds: float = 0.0
    attempts: list[str] = field(default_factory=list)
    artifacts: dict[str, str] = field(default_factory=dict)  # path under proofs/ -> text

    @property
    def verdict(self) -> Verdict:
        return self.evidence.verdict

    def ledger_entry(self) -> dict[str, Any]:
        ev = self.evidence
        return {
            "id": self.id,
            "verdict": ev.verdict.value,
            "rung": ev.rung,
            "evidence": ev.detail,
            "hash": self.hash,
            "certificate": ev.certificate,
            "counterexample": self.counterexample,
            "claimed": self.claimed,
            "actual": self.actual,
            "margin": self.margin,
            "cases": ev.cases,
            "box": self.box,
            "region": self.region,
            "oracle": self.oracle,
            "attempts": self.attempts,
            "seconds": round(self.seconds, 3),
        }


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


class _Timeout(BaseException):  # not an Exception: generic handlers must not swallow it
    pass


_DEADLINES: list[float] = []  # absolute monotonic deadlines of the active time_limit blocks (nested)


@contextmanager
def time_limit(seconds: float):
    """SIGALRM-based wall-clock limit (main thread only; elsewhere no limit).

    Nests: an inner block fires at the earlier of its own and the outer
    deadline, and restores the outer timer on exit.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return
    now = time.monotonic()
    deadline = min([now + seconds] + _DEADLINES)

    def handler(signum, frame):
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, handler)
    _DEADLINES.append(deadline)
    signal.setitimer(signal.ITIMER_REAL, max(deadline - now, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _DEADLINES.pop()
        signal.signal(signal.SIGALRM, old)
        if _DEADLINES:
            signal.setitimer(signal.ITIMER_REAL, max(_DEADLINES[-1] - time.monotonic(), 1e-3))


#: wall-clock budget per entry in seconds (default, deep)
ENTRY_BUDGET = (90.0, 600.0)


def _elementary(expr: sp.Basic) -> sp.Basic:
    try:
        from ..codegen.functions import to_elementary

        return to_elementary(expr)
    except Exception:  # noqa: BLE001 - codegen may not be importable while it is being written
        return expr


def compile_expr(expr: sp.Basic) -> Callable[[dict[str, mpmath.mpf]], mpmath.mpf]:
    """Callable ``point -> mpf`` (mpmath at the ambient precision); falls back to evalf for unknown functions."""
    expr = _elementary(sp.sympify(expr))
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    names = [s.name for s in syms]
    limit_syms = sorted({s for S in expr.atoms(sp.Sum, sp.Product) for lim in S.limits for b in lim[1:] for s in sp.sympify(b).free_symbols},
                        key=lambda s: s.name)
    if limit_syms:
        # a Sum/Product whose limits are symbols (e.g. sum_{l=0}^{T}): lambdify once per integer value of the
        # limit symbols (finite Python sums evaluated in mpmath) instead of SymPy's slow evalf
        return _compile_with_symbolic_limits(expr, syms, limit_syms)
    try:
        f = sp.lambdify(syms, expr, modules=["mpmath"])
    except Exception:  # noqa: BLE001
        f = None

    def slow(pt):
        v = expr.subs({s: sp.Float(str(pt[s.name]), mpmath.mp.dps + 5) for s in syms}).evalf(mpmath.mp.dps)
        return mpmath.mpf(str(v)) if v.is_real else mpmath.mpf("nan")

    state = {"fast": f is not None}

    def call(pt):
        if state["fast"]:
            try:
                v = f(*[pt[nm] for nm in names])
                if isinstance(v, mpmath.mpc):
                    return v.real if abs(v.imag) <= 1e-25 * max(1, abs(v.real)) else mpmath.mpf("nan")
                return mpmath.mpf(v)
            except (NameError, TypeError, AttributeError):
                state["fast"] = False
        return slow(pt)

    return call


def _compile_with_symbolic_limits(expr: sp.Basic, syms, limit_syms) -> Callable[[dict[str, mpmath.mpf]], mpmath.mpf]:
    """:func:`compile_expr` for expressions with Sum/Product limits depending on symbols: at each point the limit
    symbols must be integers; the expression with those integers substituted is lambdified (cached per value)."""
    cache: dict[tuple[int, ...], tuple[Callable | None, list[str], sp.Basic]] = {}

    def call(pt):
        key = []
        for s in limit_syms:
            v = mpmath.mpf(pt[s.name])
            if v != mpmath.floor(v):
                raise ValueError(f"{s.name}={v} must be an integer (a summation limit)")
            key.append(int(v))
        key_t = tuple(key)
        if key_t not in cache:
            e = expr.xreplace({s: sp.Integer(k) for s, k in zip(limit_syms, key_t)})
            rest = sorted(e.free_symbols, key=lambda s: s.name)
            try:
                f = sp.lambdify(rest, e, modules=["mpmath"])
            except Exception:  # noqa: BLE001
                f = None
            cache[key_t] = (f, [s.name for s in rest], e)
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


def _hyp_checker(hyps: tuple[sp.Basic, ...]) -> Callable[[dict[str, str]], bool]:
    checks = []
    for h in hyps:
        h = sp.sympify(h)
        if h is sp.true:
            continue
        syms = sorted(h.free_symbols, key=lambda s: s.name)
        try:
            f = sp.lambdify(syms, h, modules=["mpmath"])
        except Exception:  # noqa: BLE001
            f = None
        checks.append((h, syms, f))

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


def _num(v: sp.Basic) -> float | None:
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
            lo, hi = _num(dom[s.name][0]), _num(dom[s.name][1])
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


def _is_quantity(th: Theorem, e: sp.Basic | None) -> bool:
    """True when ``e`` is a bare symbol naming the bounded quantity (not a parameter)."""
    if not isinstance(e, sp.Symbol):
        return False
    params = set()
    for x in (th.rhs, *th.hypotheses):
        if x is not None:
            params |= x.free_symbols
    dom = {s for s, _, _ in th.domain}
    return e not in params and e not in dom


def _cx_dict(pt: dict[str, str] | None) -> tuple[tuple[str, str], ...] | None:
    return tuple(sorted(pt.items())) if pt else None


def _fmt_box(box: Box) -> str:
    return ", ".join(f"{k} in [{lo:.3g}, {hi:.3g}]" for k, (lo, hi) in sorted(box.ranges.items()))


def _cert_name(th: Theorem) -> str:
    return th.id.replace("/", "_")


# ---------------------------------------------------------------------------
# rungs
# ---------------------------------------------------------------------------


def _symbolic_identity(lhs: sp.Expr, rhs: sp.Expr, seconds: float = 8.0) -> bool:
    try:
        with time_limit(seconds):
            d = sp.simplify(_elementary(lhs) - _elementary(rhs))
            if d == 0:
                return True
            d2 = sp.simplify(d.rewrite(sp.exp))
            if d2 == 0:
                return True
            if d.has(sp.erfc, sp.erfinv):  # erfinv(1 - erfc(x)) = x needs erfc written as 1 - erf
                return sp.simplify(d.rewrite(sp.erf)) == 0
            return False
    except _Timeout:
        return False
    except Exception:  # noqa: BLE001
        return False


def _symbolic_sign(lhs: sp.Expr, relation: str, rhs: sp.Expr, seconds: float = 8.0) -> bool:
    """SymPy's assumption system proves the sign of the (simplified, factored) difference."""
    d = (rhs - lhs) if relation in ("<=", "<") else (lhs - rhs)
    strict = relation in ("<", ">")
    try:
        with time_limit(seconds):
            for cand in (d, sp.factor(sp.simplify(d))):
                r = cand.is_positive if strict else cand.is_nonnegative
                if r:
                    return True
    except _Timeout:
        return False
    except Exception:  # noqa: BLE001
        return False
    return False


def _z3_rung(th: Theorem, lhs, relation, rhs, res: VerificationResult, *, header_extra: str = "", timeout_s: float = 10.0) -> bool:
    dom = {s: (lo, hi) for s, lo, hi in th.domain if _num(lo) is not None and _num(hi) is not None}
    header = (
        f"symdp certificate for {th.id} (statement hash {th.expr_hash()})\n"
        f"claim: {sp.sstr(lhs)} {relation} {sp.sstr(rhs)}\n"
        f"hypotheses: {', '.join(sp.sstr(h) for h in th.hypotheses) or 'none'}\n"
    )
    for use_box in (False, True):
        if use_box and not dom:
            break
        box = dom if use_box else None
        h = header + (f"box: {', '.join(f'{s} in [{lo}, {hi}]' for s, (lo, hi) in dom.items())}\n" if use_box else "box: none (all points satisfying the hypotheses)\n")
        h += header_extra
        h += "expected result: unsat (the negated claim has no model)"
        r = smt.prove(lhs, relation, rhs, th.hypotheses, box, header=h, timeout_s=timeout_s)
        res.attempts.append(f"z3{' (box)' if use_box else ''}: {r.status}" + (f" ({r.output[:80]})" if r.status == "error" else ""))
        if r.status == "unsat":
            path = f"smt/{_cert_name(th)}.smt2"
            res.artifacts[path] = r.text
            where = "on the stated box " + ", ".join(f"{s} in [{lo}, {hi}]" for s, (lo, hi) in dom.items()) if use_box else "for all points satisfying the hypotheses"
            res.evidence = Evidence(Verdict.PROVED, "z3", f"z3: negated claim unsat {where} (polynomial over-approximation)", path)
            if use_box:
                res.box = {s.name: [str(lo), str(hi)] for s, (lo, hi) in dom.items()}
            return True
        if r.status == "error" and "cannot encode" in r.output:
            break
    return False


#: finite box the interval rung uses for a symbol the entry gives no finite range for (by canonical name;
#: otherwise ``[1e-6, 1e3]`` for positive symbols, ``[-1e3, 1e3]`` else).  A proof on it is stated as
#: "PROVED on box ...": nothing is claimed outside the box.
INTERVAL_DEFAULT_BOX: dict[str, tuple[str, str]] = {
    "epsilon": ("1/1000000", "50"),
    "epsilonprime": ("1/1000000", "50"),
    "delta": ("1e-12", "1/2"),
    "deltaprime": ("1e-12", "1/2"),
    "deltatilde": ("1e-12", "1/2"),
    "T": ("1", "1000000"),
    "k": ("1", "1000000"),
    "N": ("1", "1000000"),
    "n": ("1", "1000000"),
    "sigma": ("1/100", "100"),
    "mu": ("1/100", "10"),
    "q": ("1e-6", "1"),
    "p": ("1e-6", "1"),
}


def _interval_box(th: Theorem, syms) -> tuple[dict, list[str]] | None:
    """Finite box for the interval rung: the entry's domain where finite, else :data:`INTERVAL_DEFAULT_BOX`
    (names of the defaulted symbols returned too); None when a symbol has neither."""
    dom = {s: (lo, hi) for s, lo, hi in th.domain}
    box: dict = {}
    defaulted: list[str] = []
    for s in sorted(syms, key=lambda s: s.name):
        lo = hi = None
        if s in dom:
            lo = dom[s][0] if _num(dom[s][0]) is not None else None
            hi = dom[s][1] if _num(dom[s][1]) is not None else None
        if lo is None or hi is None:
            d = INTERVAL_DEFAULT_BOX.get(s.name)
            if d is None:
                if s.is_positive or s.is_nonnegative:
                    d = ("1e-6", "1000")
                elif s.is_real:
                    d = ("-1000", "1000")
                else:
                    return None
            lo = d[0] if lo is None else lo
            hi = d[1] if hi is None else hi
            defaulted.append(s.name)
        if s.is_positive and iv.rat(lo) <= 0:
            return None  # the stated range reaches outside the symbol's own domain: no box to state
        box[s] = (lo, hi)
    return box, defaulted


def _interval_rung(th: Theorem, lhs, relation, rhs, res: VerificationResult, *, note: str = "", time_limit_s: float = 15.0, max_leaves: int = 3000) -> bool:
    g = (rhs - lhs) if relation in ("<=", "<") else (lhs - rhs)
    g = _elementary(g)
    syms = g.free_symbols
    got = _interval_box(th, syms) if syms else None
    if got is None:
        res.attempts.append("interval: skipped (no finite box for every symbol)")
        return False
    box, defaulted = got
    strict = relation in ("<", ">")
    hyps = [_elementary(sp.sympify(h)) for h in th.hypotheses]
    r = iv.certify(g, box, hyps=hyps, strict=strict, time_limit=time_limit_s, max_leaves=max_leaves)
    res.attempts.append(f"interval: {'certified' if r.ok else r.reason} ({r.leaves} leaves, {r.outside} outside the hypotheses, {r.seconds:.1f}s)")
    if not r.ok:
        return False
    claim = f"{sp.sstr(lhs)} {relation} {sp.sstr(rhs)}"
    cert = iv.certificate(th.id, th.expr_hash(), g, r, strict=strict, claim=claim, note=note)
    path = f"intervals/{_cert_name(th)}.json"
    res.artifacts[path] = iv.dump(cert)
    res.box = r.box
    box_txt = ", ".join(f"{k} in [{a}, {b}]" + (" (integers)" if k in r.integers else "") for k, (a, b) in r.box.items())
    res.evidence = Evidence(
        Verdict.PROVED, "interval",
        f"PROVED on box {box_txt}"
        + (f" (range of {', '.join(defaulted)} from the verifier's default box, not the entry)" if defaulted else "")
        + f": arb branch-and-bound, {r.leaves - r.outside} boxes enclose {'g > 0' if strict else 'g >= 0'}"
        + (f", {r.outside} boxes lie outside the hypotheses" if r.outside else "")
        + (f" (hypotheses used: {'; '.join(h.text for h in r.hyps)})" if r.hyps else "")
        + (f"; hypotheses not used (claim certified without them): {'; '.join(r.dropped)}" if r.dropped else "")
        + "; nothing is claimed outside this box",
        path,
    )
    return True


# ---------------------------------------------------------------------------
# the ladder
# ---------------------------------------------------------------------------


def _fill_from_search(res: VerificationResult, sr: SearchResult, box: Box, what: str, oracle: str | None, own_box: bool, extra: str = "",
                      region_fns: tuple | None = None) -> None:
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
            None, _cx_dict(sr.counterexample), sr.cases,
        )
        return
    if sr.cases == 0:
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"no evaluable point in {_fmt_box(box)} ({sr.errors} errors)")
        return
    res.evidence = Evidence(
        Verdict.SUPPORTED, "numerical",
        f"{sr.cases} points against {oracle or 'the closed form'} on {_fmt_box(box)}"
        + ("" if own_box else " (box partly from defaults/caps)")
        + f"; no violation; smallest relative slack {sr.rel_margin:.3g}" if sr.rel_margin is not None else
        f"{sr.cases} points against {oracle or 'the closed form'} on {_fmt_box(box)}; no violation",
        None, None, sr.cases,
    )
    if extra:
        res.evidence = Evidence(res.evidence.verdict, res.evidence.rung, res.evidence.detail + extra, None, None, sr.cases)


def _premise_exprs(th: Theorem) -> tuple[list[tuple[str, sp.Expr]], set]:
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


def _premise_bindings(th: Theorem) -> tuple[list[tuple[str, Callable]], set]:
    """:func:`_premise_exprs` compiled: ([(name, f(point))], symbols)."""
    binds, syms = _premise_exprs(th)
    return [(name, compile_expr(e)) for name, e in binds], syms


def _oracle_functions(th: Theorem, orc: Oracle):
    """(f_claim, f_true, relation, symbols) comparing the entry with its oracle, or a reason string."""
    if orc.mapper is not None:  # the oracle maps the entry itself (symdp.verify.composition)
        return orc.mapper(th)
    conc = th.conclusion
    dom_syms = {s for s, _, _ in th.domain}
    all_syms = set(th.rhs.free_symbols if th.rhs is not None else ()) | {s for h in th.hypotheses for s in h.free_symbols} | dom_syms
    comp = TRADEOFF_COMPANION.get(orc.name)
    if orc.shape == "profile" and comp and any(s.name == "alpha" for s in all_syms):
        orc = ORACLES[comp]  # a statement about the trade-off function of the same mechanism
    if orc.shape == "profile":
        binds, psyms = _premise_bindings(th)
        bound_names = {b for b, _ in binds}
        if conc is not None and conc.name.upper() in ("DP", "ADP") and len(conc.params) == 2:
            at_expr, d_expr = (sp.sympify(x) for x in conc.params)
            if isinstance(d_expr, sp.Symbol) and d_expr not in dom_syms:
                return f"the conclusion's delta is the free symbol {d_expr} (no formula or range in this entry)"
            f_at, f_d = compile_expr(at_expr), compile_expr(d_expr)
            syms = at_expr.free_symbols | d_expr.free_symbols | psyms | {s for h in th.hypotheses for s in h.free_symbols}
            lhs_sub = None
            if isinstance(th.lhs, sp.Symbol) and th.lhs not in dom_syms and th.rhs is not None and th.lhs not in (at_expr.free_symbols | d_expr.free_symbols):
                # a bound on a mechanism parameter (e.g. sigma >= ...): check its boundary value
                lhs_sub = (th.lhs.name, compile_expr(th.rhs))
                syms |= th.rhs.free_symbols
            syms = {s for s in syms if not (lhs_sub and s.name == lhs_sub[0])}
            names = {s.name for s in syms} | bound_names | ({lhs_sub[0]} if lhs_sub else set())
            if not orc.accepts(names | {"at"}):
                return f"oracle {orc.name} needs {orc.params}; the entry provides {sorted(names)}"
            bracket = orc.bracket

            def f_true(pt):
                kw = dict(pt)
                if lhs_sub:
                    kw[lhs_sub[0]] = lhs_sub[1](pt)
                for name, f in binds:
                    kw[name] = f(kw)
                kw["at"] = f_at(kw)
                if bracket is not None:
                    return bracket(**kw)[0]  # lower end: a refutation must be rigorous
                return orc.fn(**kw)

            def f_claim(pt):
                kw = dict(pt)
                if lhs_sub:
                    kw[lhs_sub[0]] = lhs_sub[1](pt)
                return f_d(kw)

            return f_claim, f_true, "<=", syms
        if th.lhs is not None and isinstance(th.lhs, sp.Symbol) and th.rhs is not None and th.lhs.name.startswith("delta") and th.lhs not in th.rhs.free_symbols:
            f_c = compile_expr(th.rhs)
            syms = set(th.rhs.free_symbols) | psyms | {s for h in th.hypotheses for s in h.free_symbols}
            names = {s.name for s in syms} | bound_names
            at_names = [a for a in orc.aliases.get("at", ()) if a in names]
            if not at_names or not orc.accepts(names | {"at"}):
                return f"oracle {orc.name} needs {orc.params}; entry has {sorted(names)}"
            at = at_names[0]
            bracket = orc.bracket

            def f_true(pt):
                kw = dict(pt)
                for name, f in binds:
                    kw[name] = f(kw)
                kw["at"] = pt[at]
                if bracket is not None:
                    lo, hi = bracket(**kw)
                    return lo if th.relation in ("<=", "<") else hi
                return orc.fn(**kw)

            rel = th.relation if th.relation in ("<=", ">=", "<", ">") else "=="
            return f_c, f_true, rel, syms
        return f"cannot map profile oracle {orc.name} onto the entry (no (eps, delta)-DP conclusion, lhs not a delta)"
    # value oracle: the true value of lhs
    if th.rhs is None or th.lhs is None:
        return "no lhs/rhs"
    if not _is_quantity(th, th.lhs):
        return f"lhs {sp.sstr(th.lhs)} is not a bare quantity symbol: the oracle {orc.name} cannot evaluate it"
    binds, psyms = _premise_bindings(th)
    f_c = compile_expr(th.rhs)
    syms = set(th.rhs.free_symbols) | {s for h in th.hypotheses for s in h.free_symbols} | psyms
    syms = {s for s in syms if not _is_quantity(th, s)}
    names = {s.name for s in syms} | {b for b, _ in binds}
    if not orc.accepts(names):
        return f"oracle {orc.name} needs {orc.params}; entry has {sorted(names)}"
    rel = th.relation if th.relation in ("<=", ">=", "<", ">") else "=="
    lhs_name = th.lhs.name

    def f_true(pt):
        kw = dict(pt)
        for name, f in binds:
            kw[name] = f(kw)
        return orc.fn(_lhs=lhs_name, **kw)

    return f_c, f_true, rel, syms


def _oracle_exact(th: Theorem, orc: Oracle, syms) -> tuple[sp.Expr, sp.Expr, str, Oracle, str] | str:
    """The symbolic mirror of :func:`_oracle_functions` for an oracle with an ``exact`` closed form:
    ``(true, claim, relation, oracle used, note)`` with ``true relation claim`` the entry's claim at every point
    (``syms``: the symbols of the numerical comparison; ``note``: a reduction step the mapping relies on), or a
    reason string."""
    if orc.mapper is not None:
        return f"oracle {orc.name} maps entries itself (no closed form)"
    dom_syms = {s for s, _, _ in th.domain}
    all_syms = set(th.rhs.free_symbols if th.rhs is not None else ()) | {s for h in th.hypotheses for s in h.free_symbols} | dom_syms
    comp = TRADEOFF_COMPANION.get(orc.name)
    if orc.shape == "profile" and comp and any(s.name == "alpha" for s in all_syms):
        orc = ORACLES[comp]
    if orc.exact is None:
        return f"oracle {orc.name} has no closed form"
    binds, _ = _premise_exprs(th)
    kw0: dict[str, Any] = {s.name: s for s in syms}
    conc = th.conclusion
    rel = th.relation if th.relation in ("<=", ">=", "<", ">") else "=="
    if orc.shape == "profile":
        if conc is not None and conc.name.upper() in ("DP", "ADP") and len(conc.params) == 2:
            at_expr, d_expr = (sp.sympify(x) for x in conc.params)
            sub = {}
            if isinstance(th.lhs, sp.Symbol) and th.lhs not in dom_syms and th.rhs is not None and th.lhs not in (at_expr.free_symbols | d_expr.free_symbols):
                sub = {th.lhs: th.rhs}  # a bound on a mechanism parameter: its boundary value
                kw0[th.lhs.name] = th.rhs
            kw = dict(kw0)
            for name, e in binds:
                kw[name] = e.subs(sub)
            kw["at"] = at_expr.subs(sub)
            true = orc.exact(**kw)
            note = ""
            if sub:
                note = (f"checked at the boundary {th.lhs} = {sp.sstr(th.rhs)} of the premise {th.lhs} {th.relation} ...; "
                        f"the mapping assumes the mechanism's profile is monotone in {th.lhs} (for the Gaussian mechanism "
                        f"delta(eps) increases with mu = Delta/sigma, see bu2020.delta_increasing_in_mu)")
            return (true, d_expr.subs(sub), "<=", orc, note) if true is not None else f"no closed form of {orc.name} here"
        if isinstance(th.lhs, sp.Symbol) and th.rhs is not None and th.lhs.name.startswith("delta") and th.lhs not in th.rhs.free_symbols:
            at_names = [a for a in orc.aliases.get("at", ()) if a in kw0]
            if not at_names:
                return "no argument for the profile"
            kw = dict(kw0)
            for name, e in binds:
                kw[name] = e
            kw["at"] = kw0[at_names[0]]
            true = orc.exact(**kw)
            return (true, th.rhs, rel, orc, "") if true is not None else f"no closed form of {orc.name} here"
        return "cannot map the profile oracle"
    if th.rhs is None or not isinstance(th.lhs, sp.Symbol):
        return "no lhs/rhs"
    kw = dict(kw0)
    for name, e in binds:
        kw[name] = e
    true = orc.exact(_lhs=th.lhs.name, **kw)
    return (true, th.rhs, rel, orc, "") if true is not None else f"no closed form of {orc.name} here"


def _exact_agrees(f_exact, f_true, box: Box, constraint, seed: int, rtol: str | None, n: int = 8) -> tuple[int, str | None]:
    """Compare the compiled closed form with the numeric oracle at sample points: (points agreeing, first
    disagreement or None)."""
    import random

    rng = random.Random(seed + 7)
    tol = max(mpmath.mpf(rtol) * 10 if rtol else mpmath.mpf(0), mpmath.mpf("1e-15"))
    ok = 0
    tries = 0
    with mpmath.workdps(40):
        while ok < n and tries < 4 * n:
            tries += 1
            pt = box.sample(rng)
            if not constraint(pt):
                continue
            mp_pt = {k: mpmath.mpf(v) for k, v in pt.items()}
            try:
                a, b = f_exact(mp_pt), f_true(mp_pt)
            except Exception:  # noqa: BLE001 - an oracle may not evaluate everywhere
                continue
            if a is None or b is None or not (mpmath.isfinite(a) and mpmath.isfinite(b)):
                continue
            if abs(a - b) > tol * max(abs(a), abs(b)) + mpmath.mpf("1e-40"):
                return ok, f"at {pt}: closed form {mpmath.nstr(a, 12)}, oracle {mpmath.nstr(b, 12)}"
            ok += 1
    return ok, None


def _prove_with_exact(th: Theorem, orc: Oracle, res: VerificationResult, syms, box: Box, f_true, seed: int, deep: bool) -> bool:
    """After the numerical search: prove ``true rel claim`` with the oracle's closed form (symbolic identity for a
    claim that equals it, else z3 / interval on ``closed form rel claim``).  True when PROVED."""
    got = _oracle_exact(th, orc, syms)
    if isinstance(got, str):
        res.attempts.append(f"closed form: {got}")
        return False
    true, claim, rel, used, mapping_note = got
    true = sp.sympify(true)
    hc = _hyp_checker(th.hypotheses)
    try:
        agree, bad = _exact_agrees(compile_expr(true), f_true, box, hc, seed, used.rtol)
    except Exception as exc:  # noqa: BLE001
        agree, bad = 0, f"{type(exc).__name__}: {exc}"
    if bad or agree < 3:
        res.attempts.append(f"closed form of {used.name} not used: " + (f"disagrees with the oracle {bad}" if bad else f"only {agree} comparable points"))
        return False
    supported = res.evidence
    cf_txt = (f"the oracle {used.name}'s exact closed form {sp.sstr(true)} ({used.exact_note or 'closed form'}; agrees with "
              f"the numeric oracle at {agree} sample points)" + (f" ({mapping_note})" if mapping_note else ""))
    if rel in ("==", "<=", ">=") and _symbolic_identity(true, claim):
        res.attempts.append("closed form: the claim equals it (SymPy)")
        what = "the claim equals" if "==" in (rel, th.relation) else f"the bound ({rel}) holds with equality: the claimed value is"
        res.evidence = Evidence(Verdict.PROVED, "symbolic",
                                f"SymPy: {what} {cf_txt} (the difference simplifies to 0); numerically {supported.cases} points agree",
                                None, None, supported.cases)
        return True
    if rel == "==":
        res.attempts.append("closed form: SymPy did not reduce the difference to 0")
        return False
    note = f"lhs is {cf_txt}"
    if not (true.has(sp.erf, sp.erfc, sp.erfinv) or claim.has(sp.erf, sp.erfc, sp.erfinv)):
        if _z3_rung(th, true, rel, claim, res, header_extra=f"true value: {note}\n"):
            res.evidence = Evidence(res.evidence.verdict, res.evidence.rung,
                                    f"{res.evidence.detail}; applied to {cf_txt}; numerically {supported.cases} points agree",
                                    res.evidence.certificate, None, supported.cases)
            return True
    if _interval_rung(th, true, rel, claim, res, note=note, time_limit_s=30.0 if deep else 12.0, max_leaves=20000 if deep else 4000):
        res.evidence = Evidence(res.evidence.verdict, res.evidence.rung,
                                f"{res.evidence.detail}; the true value is {cf_txt}; numerically {supported.cases} points agree",
                                res.evidence.certificate, None, supported.cases)
        return True
    res.evidence = supported
    return False


def comp_name(th: Theorem, orc: Oracle) -> str:
    """Name of the oracle actually used (a profile oracle's trade-off companion for statements in alpha)."""
    comp = TRADEOFF_COMPANION.get(orc.name)
    syms = set(th.rhs.free_symbols if th.rhs is not None else ()) | {s for h in th.hypotheses for s in h.free_symbols} | {s for s, _, _ in th.domain}
    return comp if comp and any(s.name == "alpha" for s in syms) else orc.name


def _verify_with_oracle(th: Theorem, res: VerificationResult, deep: bool, seed: int) -> None:
    orc = ORACLES.get(th.oracle or "")
    res.oracle = th.oracle
    if orc is None:
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"oracle {th.oracle!r} is not implemented (known: {', '.join(sorted(ORACLES))})")
        return
    if orc.shape == "mc":
        from .montecarlo import verify_mc

        verify_mc(th, orc, res, deep=deep, seed=seed)
        return
    mapped = _oracle_functions(th, orc)
    if isinstance(mapped, Evidence):  # the mapper decided itself (e.g. a limit claim checked along a sequence)
        res.evidence = mapped
        return
    if isinstance(mapped, str):
        if (th.lhs is not None and th.rhs is not None and not _is_quantity(th, th.lhs)
                and th.kind in (Kind.IDENTITY, Kind.COMPARISON, Kind.BOUND) and th.relation in ("<=", ">=", "<", ">", "==")
                and not (th.lhs.free_symbols - th.rhs.free_symbols - {s for s, _, _ in th.domain})):
            # both sides are closed forms: check the statement itself
            res.attempts.append(f"oracle not applicable ({mapped}); checked lhs against rhs directly")
            _verify_direct(th, res, deep, seed)
            return
        res.evidence = Evidence(Verdict.UNCHECKED, None, mapped)
        return
    f_claim, f_true, rel, syms = mapped[:4]
    box, own = sampling_box(th, syms, (DEEP_CAPS if deep else ORACLE_CAPS).get(orc.name), mapped[4] if len(mapped) > 4 else None)
    n = BUDGET.get(orc.name, BUDGET["default"])[1 if deep else 0]
    refine = REFINE.get(orc.name, REFINE["default"])[1 if deep else 0]
    used = ORACLES.get(comp_name(th, orc), orc)
    sr = find_counterexample(f_claim, f_true, box, relation=rel, n=n, seed=seed, constraint=_hyp_checker(th.hypotheses),
                             refine=refine, rtol=used.rtol)
    extra = ""
    if used.bracket is not None:
        extra = "; oracle is a float64 PLD bracket (lower end used to refute)"
    _fill_from_search(res, sr, box, f"oracle {used.name}", used.name, own, extra,
                      region_fns=(f_claim, f_true, rel, _hyp_checker(th.hypotheses), 30, 1e-12, used.rtol) if used.name not in ("subsampled_gaussian_profile",) else None)
    if res.evidence.verdict is not Verdict.SUPPORTED:
        return
    if used.exact is not None or orc.exact is not None:
        # the oracle's value has an exact closed form: prove the claim against it
        if _prove_with_exact(th, orc, res, syms, box, f_true, seed, deep):
            return
    # a value oracle with a closed-form worst case: prove closed_form rel rhs
    if orc.closed_form and orc.shape == "value" and th.rhs is not None and rel in ("<=", ">=", "<", ">"):
        names = {s.name: s for s in syms}
        cf = sp.sympify(orc.closed_form, locals=names)
        supported = res.evidence
        header = f"reduction (oracle {orc.name}): {orc.reduction}\n" if orc.reduction else ""
        if _symbolic_identity(cf, th.rhs) and rel in ("<=", ">="):
            # the bound equals the worst case: tight; still leave a z3 certificate of cf rel rhs
            pass
        if _z3_rung(th, cf, rel, th.rhs, res, header_extra=header):
            _attach_reduction(th, orc, res, supported)
            return
        if _interval_rung(th, cf, rel, th.rhs, res, note=orc.reduction or ""):
            _attach_reduction(th, orc, res, supported)
            return
        res.evidence = supported


def _attach_reduction(th: Theorem, orc: Oracle, res: VerificationResult, supported: Evidence) -> None:
    """Record the reduction and its machine-checked algebra (e.g. the KL chord identity) next to the proof."""
    extra_ok = True
    if orc.name == "kl_eps_dp":
        from .proofs_kl import kl_reduction_smt

        for name, text in kl_reduction_smt().items():
            status, _ = smt.run_z3(text, 20)
            res.attempts.append(f"reduction {name}: {status}")
            if status != "unsat":
                extra_ok = False
            res.artifacts[f"smt/{_cert_name(th)}.{name}.smt2"] = text
    ev = res.evidence
    if not extra_ok:
        res.evidence = supported
        res.attempts.append("reduction step not machine-checked: kept SUPPORTED")
        return
    res.evidence = Evidence(
        ev.verdict, ev.rung,
        f"{ev.detail}; applied to the oracle's worst case {orc.closed_form} (reduction: {orc.reduction}); "
        f"numerically {supported.cases} points agree",
        ev.certificate, None, supported.cases,
    )


def _verify_direct(th: Theorem, res: VerificationResult, deep: bool, seed: int) -> None:
    lhs, rel, rhs = th.lhs, th.relation, th.rhs
    if rel in ("==",):
        if _symbolic_identity(lhs, rhs):
            res.evidence = Evidence(Verdict.PROVED, "symbolic", "SymPy: lhs - rhs simplifies to 0")
            return
        res.attempts.append("symbolic: difference did not simplify to 0")
        if _z3_rung(th, lhs, "==", rhs, res):
            return
    else:
        if _symbolic_sign(lhs, rel, rhs):
            detail = f"SymPy: the sign of the difference follows from the symbols' assumptions ({rel})"
            cert = None
            if _z3_rung(th, lhs, rel, rhs, res, timeout_s=5.0):  # a replayable certificate as well
                cert = res.evidence.certificate
                detail += "; also " + res.evidence.detail
            res.evidence = Evidence(Verdict.PROVED, "symbolic", detail, cert)
            return
        res.attempts.append("symbolic: sign not decided")
    # numerical search first (cheap, finds counterexamples before trying proofs of false claims)
    syms = set(lhs.free_symbols) | set(rhs.free_symbols) | {s for h in th.hypotheses for s in h.free_symbols}
    box, own = sampling_box(th, syms)
    n = BUDGET["default"][1 if deep else 0]
    fc, ft, hc = compile_expr(rhs), compile_expr(lhs), _hyp_checker(th.hypotheses)
    sr = find_counterexample(fc, ft, box, relation=rel, n=n, seed=seed, constraint=hc, refine=REFINE["default"][1 if deep else 0])
    _fill_from_search(res, sr, box, "lhs", None, own, region_fns=(fc, ft, rel, hc))
    if res.evidence.verdict is not Verdict.SUPPORTED or rel == "==":
        return
    if rel in ("<", ">") and _strict_equality(th, lhs, rhs, box, fc, ft, res):
        return
    supported = res.evidence
    if _z3_rung(th, lhs, rel, rhs, res):
        return
    if _interval_rung(th, lhs, rel, rhs, res, time_limit_s=30.0 if deep else 12.0, max_leaves=20000 if deep else 3000):
        return
    res.evidence = supported


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


def _strict_equality(th: Theorem, lhs: sp.Expr, rhs: sp.Expr, box: Box, fc, ft, res: VerificationResult,
                     seconds: float = 10.0) -> bool:
    """A strict claim (``<``/``>``) fails where both sides are exactly equal, which a floating search with a
    tolerance cannot see.  Try the boundary candidates: screen at 60 digits (relative difference < 1e-30), then decide ``lhs - rhs == 0`` by
    SymPy in exact arithmetic at the rational point (hypotheses checked exactly too).  REFUTED on success."""
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
        except _Timeout:
            break
        except Exception:  # noqa: BLE001
            continue
        if not zero:
            continue
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
            None, _cx_dict(pt), res.evidence.cases,
        )
        return True
    if tried:
        res.attempts.append(f"strict claim: {tried} boundary points with lhs ~ rhs to 30 digits, none exactly equal")
    return False


def _expansion_ratios(th: Theorem) -> list[tuple[str, mpmath.mpf]] | None:
    """|lhs - rhs| / |remainder| along var -> point (other symbols at their domain's geometric middle)."""
    ex = th.expansion
    v = ex.var
    others = (set(th.lhs.free_symbols) | set(th.rhs.free_symbols)) - {v}
    box, _ = sampling_box(th, others)
    base: dict[str, str] = {}
    for nm, (lo, hi) in box.ranges.items():
        mid = math.sqrt(lo * hi) if lo > 0 and hi / lo > 50 else (lo + hi) / 2
        base[nm] = box.fmt(nm, mid)
    p0 = sp.sympify(ex.point)
    if p0 in (sp.oo,):
        seq = [sp.Integer(10) ** k for k in (2, 4, 6, 8, 10, 12)]
        rem = v ** (-ex.order)
    elif p0.is_number:
        seq = [p0 + sp.Integer(10) ** (-k) for k in (1, 2, 3, 4, 5, 6)]
        rem = (v - p0) ** ex.order
    else:
        return None
    f = compile_expr(sp.Abs(th.lhs - th.rhs) / sp.Abs(rem))
    out = []
    with mpmath.workdps(80):
        for val in seq:
            pt = {k: mpmath.mpf(x) for k, x in base.items()}
            pt[v.name] = mpmath.mpf(str(sp.N(val, 90)))
            out.append((sp.sstr(val), f(pt)))
    return out


def _verify_expansion(th: Theorem, res: VerificationResult) -> None:
    from ..asymptotics import check_expansion

    try:
        with time_limit(20):
            ok, lim = check_expansion(th)
    except _Timeout:
        ok, lim = None, None
    ex = th.expansion
    if ok:
        res.evidence = Evidence(Verdict.PROVED, "symbolic", f"(lhs - rhs)/remainder -> {sp.sstr(lim)} (finite) as {ex.var} -> {ex.point}")
        return
    # SymPy says the ratio is not finite (or could not decide): confirm numerically before refuting
    try:
        ratios = _expansion_ratios(th)
    except Exception as exc:  # noqa: BLE001
        ratios = None
        res.attempts.append(f"numeric expansion check failed: {type(exc).__name__}: {exc}")
    sym_txt = f"SymPy: (lhs - rhs)/remainder -> {sp.sstr(lim)}" if lim is not None else "SymPy limit timed out"
    if ratios:
        vals = [r for _, r in ratios]
        growing = all(b > a * 2 for a, b in zip(vals, vals[1:])) and vals[-1] > 100 * vals[0]
        tab = ", ".join(f"{k}: {mpmath.nstr(r, 4)}" for k, r in ratios)
        res.actual = sp.sstr(lim) if lim is not None else None
        if growing and (lim is None or not lim.is_finite):
            res.evidence = Evidence(
                Verdict.REFUTED, "numerical",
                f"{sym_txt}; at 80 digits |lhs - rhs|/|remainder| grows without bound as {ex.var} -> {ex.point} ({tab}): "
                f"the remainder is not O(order {ex.order})",
            )
            return
        settled = vals[-1] > 0 and abs(vals[-1] - vals[-2]) <= mpmath.mpf("0.05") * abs(vals[-1]) and mpmath.isfinite(vals[-1])
        if settled:
            res.evidence = Evidence(
                Verdict.SUPPORTED, "numerical",
                f"at 80 digits |lhs - rhs|/|remainder| settles as {ex.var} -> {ex.point} ({tab}) at one point of the other "
                f"parameters; {sym_txt} disagrees (SymPy's limit is not trusted to refute)", None, None, len(vals),
            )
            return
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"{sym_txt}, but the ratio does not clearly diverge numerically ({tab})")
        return
    res.evidence = Evidence(Verdict.UNCHECKED, None, f"{sym_txt}; no numerical confirmation")


def verify_theorem(th: Theorem, *, deep: bool = False, seed: int = 0) -> VerificationResult:
    """Run the ladder on one entry; never raises on an entry it cannot handle (UNCHECKED with the reason)."""
    t0 = time.monotonic()
    try:
        h = th.expr_hash()
    except Exception:  # noqa: BLE001
        h = ""
    res = VerificationResult(th.id, Evidence(Verdict.UNCHECKED, None, "not examined"), h, oracle=th.oracle)
    try:
        with time_limit(ENTRY_BUDGET[1 if deep else 0]):
            _dispatch(th, res, deep, seed)
    except _Timeout:
        done = res.evidence
        if done.verdict in (Verdict.REFUTED, Verdict.PROVED, Verdict.PARTIAL, Verdict.SUPPORTED) and done.detail:
            res.attempts.append(f"entry budget of {ENTRY_BUDGET[1 if deep else 0]:.0f}s reached after the verdict; later rungs skipped")
        else:
            res.evidence = Evidence(Verdict.UNCHECKED, None, f"verification exceeded the {ENTRY_BUDGET[1 if deep else 0]:.0f}s budget per entry (use --deep for more)")
    except Exception as exc:  # noqa: BLE001 - a library entry must never crash the run
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"verifier error: {type(exc).__name__}: {str(exc)[:200]}")
    res.seconds = time.monotonic() - t0
    return res


def _dispatch(th: Theorem, res: VerificationResult, deep: bool, seed: int) -> None:
    if not th.formula_available:
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"formula unavailable: {th.unavailable_reason}")
        return
    if th.kind is Kind.EXPANSION:
        _verify_expansion(th, res)
        return
    if th.oracle:
        _verify_with_oracle(th, res, deep, seed)
        return
    if th.kind is Kind.EQUIVALENCE:
        res.evidence = Evidence(Verdict.UNCHECKED, None, "a statement between properties with no oracle: nothing numeric to check")
        return
    if th.lhs is None or th.rhs is None:
        res.evidence = Evidence(Verdict.UNCHECKED, None, "no lhs/rhs formula")
        return
    if th.kind is Kind.DEFINITION:
        res.evidence = Evidence(Verdict.UNCHECKED, None, "a definition with no oracle: true by definition, nothing to check")
        return
    if _is_quantity(th, th.lhs) or th.lhs.free_symbols - (th.rhs.free_symbols | {s for s, _, _ in th.domain} | {s for h in th.hypotheses for s in h.free_symbols}):
        q = th.lhs if _is_quantity(th, th.lhs) else sorted(th.lhs.free_symbols - th.rhs.free_symbols, key=str)
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"bounds the quantity {q} ({th.quantity or 'unnamed'}) and names no oracle")
        return
    if th.relation not in ("<=", ">=", "<", ">", "=="):
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"relation {th.relation!r} not checkable")
        return
    _verify_direct(th, res, deep, seed)


__all__ = ["VerificationResult", "verify_theorem", "compile_expr", "sampling_box", "DEFAULT_RANGES", "time_limit"]
