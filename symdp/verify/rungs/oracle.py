r"""An entry against its oracle: the numerical search first; where the oracle's value has an exact closed form
(``Oracle.exact``) or a closed-form worst case (``Oracle.closed_form``) rungs 1-3 then prove the claim against it.

Oracles come from :mod:`symdp.verify.registry` (filled by the oracle modules, which the package imports)."""

from __future__ import annotations

import math
from typing import Any

import mpmath
import sympy as sp

from ...theorem import Evidence, Kind, Theorem, Verdict
from .. import smt
from ..compile import (
    compile_expr,
    describe_box,
    hyp_checker,
    is_quantity,
    premise_bindings,
    premise_exprs,
    sampling_box,
)
from ..core import BUDGET, DEEP_CAPS, ORACLE_CAPS, REFINE, VerificationResult, cert_name
from ..registry import ORACLES, TRADEOFF_COMPANION, Oracle
from ..search import Box, find_counterexample
from ..twins import attach, profile_twins
from .direct import verify_direct
from .interval import interval_rung
from .numerical import exact_sign_check, fill_from_search, is_verdict
from .smt import z3_rung
from .symbolic import symbolic_identity

#: oracle values computed in this process, keyed by the oracle's name, the end called (its value or its bracket),
#: its exact keyword arguments (an mpf by its binary value) and the working precision: the claims that compare
#: with the same oracle sample the same points (same box, same seed), so each value is computed once per worker
#: (the parallel audit runs the claims of one oracle in one task, see symdp.audit.parallel).  Only plain values
#: are keys (mpf, int, float, str, bool, None); anything else is computed every time.  Errors are not stored.
_MEMO: dict[tuple[Any, ...], Any] = {}
#: most values kept (then the memo starts again empty)
MEMO_MAX = 50_000
#: hits and misses since the process started (tests and the benchmark read them)
MEMO_STATS = {"hits": 0, "misses": 0}
_MISS = object()


def _key_part(v: Any) -> tuple[str, Any] | None:
    if isinstance(v, mpmath.mpf):
        return ("mpf", v._mpf_)
    if v is None or isinstance(v, (bool, int, float, str)):
        return (type(v).__name__, v)
    return None


def memo_call(name: str, which: str, fn: Any, kw: dict[str, Any]) -> Any:
    """``fn(**kw)``, computed once per process for the same oracle ``name``, end ``which``, exact arguments and
    working precision (see :data:`_MEMO`)."""
    parts = []
    for k in sorted(kw):
        p = _key_part(kw[k])
        if p is None:
            return fn(**kw)
        parts.append((k, p))
    key = (name, which, mpmath.mp.prec, tuple(parts))
    got = _MEMO.get(key, _MISS)
    if got is not _MISS:
        MEMO_STATS["hits"] += 1
        return got
    MEMO_STATS["misses"] += 1
    val = fn(**kw)
    if len(_MEMO) >= MEMO_MAX:
        _MEMO.clear()
    _MEMO[key] = val
    return val


def bind_premises(pt: dict[str, Any], binds) -> dict[str, Any]:
    """``pt`` with the oracle parameters the premises fix: every binding is evaluated at the claim's own point
    (none sees another's value), then all are set at once."""
    vals = {name: f(pt) for name, f in binds}
    out = dict(pt)
    out.update(vals)
    return out


def oracle_functions(th: Theorem, orc: Oracle):
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
        binds, psyms = premise_bindings(th)
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
                # the claimed eps' is the claim's: evaluate it at the claim's point, before the premise
                # binds the oracle's parameters (epsilon := 2 eps tau/N would otherwise leak into eps')
                at_v = f_at(kw)
                kw = bind_premises(kw, binds)
                kw["at"] = at_v
                if bracket is not None:
                    return memo_call(orc.name, "bracket", bracket, kw)[0]  # lower end: a refutation must be rigorous
                return memo_call(orc.name, "fn", orc.fn, kw)

            def f_claim(pt):
                kw = dict(pt)
                if lhs_sub:
                    kw[lhs_sub[0]] = lhs_sub[1](pt)
                return f_d(kw)

            lhs_expr = (lhs_sub[0], th.rhs) if lhs_sub else None
            attach(f_true, lambda: profile_twins(at_expr, d_expr, lhs_expr, premise_exprs(th)[0],
                                                 orc.float64 if bracket is None else None, th.id))
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
                kw = bind_premises(dict(pt), binds)
                kw["at"] = pt[at]
                if bracket is not None:
                    lo, hi = memo_call(orc.name, "bracket", bracket, kw)
                    return lo if th.relation in ("<=", "<") else hi
                return memo_call(orc.name, "fn", orc.fn, kw)

            rel = th.relation if th.relation in ("<=", ">=", "<", ">") else "=="
            return f_c, f_true, rel, syms
        return f"cannot map profile oracle {orc.name} onto the entry (no (eps, delta)-DP conclusion, lhs not a delta)"
    # value oracle: the true value of lhs
    if th.rhs is None or th.lhs is None:
        return "no lhs/rhs"
    if not is_quantity(th, th.lhs):
        return f"lhs {sp.sstr(th.lhs)} is not a bare quantity symbol: the oracle {orc.name} cannot evaluate it"
    binds, psyms = premise_bindings(th)
    f_c = compile_expr(th.rhs)
    syms = set(th.rhs.free_symbols) | {s for h in th.hypotheses for s in h.free_symbols} | psyms
    syms = {s for s in syms if not is_quantity(th, s)}
    names = {s.name for s in syms} | {b for b, _ in binds}
    if not orc.accepts(names):
        return f"oracle {orc.name} needs {orc.params}; entry has {sorted(names)}"
    rel = th.relation if th.relation in ("<=", ">=", "<", ">") else "=="
    lhs_name = th.lhs.name

    def f_value(pt):
        return memo_call(orc.name, "fn", orc.fn, {"_lhs": lhs_name, **bind_premises(dict(pt), binds)})

    return f_c, f_value, rel, syms


def oracle_exact(th: Theorem, orc: Oracle, syms) -> tuple[sp.Expr, sp.Expr, str, Oracle, str] | str:
    """The symbolic mirror of :func:`oracle_functions` for an oracle with an ``exact`` closed form:
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
    binds, _ = premise_exprs(th)
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


def prove_with_exact(th: Theorem, orc: Oracle, res: VerificationResult, syms, box: Box, f_true, seed: int, deep: bool) -> bool:
    """After the numerical search: prove ``true rel claim`` with the oracle's closed form (symbolic identity for a
    claim that equals it, else z3 / interval on ``closed form rel claim``).  True when PROVED."""
    got = oracle_exact(th, orc, syms)
    if isinstance(got, str):
        res.attempts.append(f"closed form: {got}")
        return False
    true, claim, rel, used, mapping_note = got
    true = sp.sympify(true)
    hc = hyp_checker(th.hypotheses)
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
    if rel in ("==", "<=", ">=") and symbolic_identity(true, claim):
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
    if not (true.has(sp.erf, sp.erfc, sp.erfinv) or claim.has(sp.erf, sp.erfc, sp.erfinv)) and z3_rung(
            th, true, rel, claim, res, header_extra=f"true value: {note}\n"):
            res.evidence = Evidence(res.evidence.verdict, res.evidence.rung,
                                    f"{res.evidence.detail}; applied to {cf_txt}; numerically {supported.cases} points agree",
                                    res.evidence.certificate, None, supported.cases)
            return True
    if interval_rung(th, true, rel, claim, res, note=note, time_limit_s=30.0 if deep else 12.0, max_leaves=20000 if deep else 4000):
        if is_verdict(res, Verdict.REFUTED):
            return True
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


def oracle_search_box(th: Theorem, orc: Oracle, mapped: tuple, deep: bool = False) -> tuple[Box, bool, dict[str, float] | None,
                                                                                     dict[str, tuple[float, float]] | None]:
    """(box, all ranges the entry's own, caps, default ranges) of the search :func:`verify_with_oracle` runs for
    ``mapped`` (what :func:`oracle_functions` returned): the entry's domain, the mapper's default ranges where the
    entry gives none, and the oracle's caps (e.g. T <= 8 for the heterogeneous compositions, whose exact
    convolution and 2^T vertices are affordable only there).  The audit's plots draw inside the same box."""
    caps, defaults = (DEEP_CAPS if deep else ORACLE_CAPS).get(orc.name), mapped[4] if len(mapped) > 4 else None
    box, own = sampling_box(th, mapped[3], caps, defaults)
    return box, own, caps, defaults


def verify_with_oracle(th: Theorem, res: VerificationResult, deep: bool, seed: int) -> None:
    orc = ORACLES.get(th.oracle or "")
    res.oracle = th.oracle
    if orc is None:
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"oracle {th.oracle!r} is not implemented (known: {', '.join(sorted(ORACLES))})")
        return
    if orc.shape == "mc":
        from ..montecarlo import verify_mc

        verify_mc(th, orc, res, deep=deep, seed=seed)
        return
    mapped = oracle_functions(th, orc)
    if isinstance(mapped, Evidence):  # the mapper decided itself (e.g. a limit claim checked along a sequence)
        res.evidence = mapped
        return
    if isinstance(mapped, str):
        if (th.lhs is not None and th.rhs is not None and not is_quantity(th, th.lhs)
                and th.kind in (Kind.IDENTITY, Kind.COMPARISON, Kind.BOUND) and th.relation in ("<=", ">=", "<", ">", "==")
                and not (th.lhs.free_symbols - th.rhs.free_symbols - {s for s, _, _ in th.domain})):
            # both sides are closed forms: check the statement itself
            res.attempts.append(f"oracle not applicable ({mapped}); checked lhs against rhs directly")
            verify_direct(th, res, deep, seed)
            return
        res.evidence = Evidence(Verdict.UNCHECKED, None, mapped)
        return
    f_claim, f_true, rel, syms = mapped[:4]
    box, own, caps, defaults = oracle_search_box(th, orc, mapped, deep)
    n = BUDGET.get(orc.name, BUDGET["default"])[1 if deep else 0]
    refine = REFINE.get(orc.name, REFINE["default"])[1 if deep else 0]
    used = ORACLES.get(comp_name(th, orc), orc)
    sr = find_counterexample(f_claim, f_true, box, relation=rel, n=n, seed=seed, constraint=hyp_checker(th.hypotheses),
                             refine=refine, rtol=used.rtol)
    extra = ""
    if used.bracket is not None:
        extra = "; oracle is a float64 PLD bracket (lower end used to refute)"
    fill_from_search(res, sr, box, f"oracle {used.name}", used.name, own, extra,
                      region_fns=(f_claim, f_true, rel, hyp_checker(th.hypotheses), 30, 1e-12, used.rtol) if used.name not in ("subsampled_gaussian_profile",) else None,
                      searched=describe_box(th, box, caps, defaults))
    if res.evidence.verdict is not Verdict.SUPPORTED:
        return
    if caps and not _beyond_caps(th, res, box, caps, orc.name, f_claim, f_true, rel, hyp_checker(th.hypotheses), used,
                                 deep, seed):
        return  # a violation above the cap
    # a slack below the search's tolerance: decide its sign exactly against the oracle's closed form
    if used.exact is not None or orc.exact is not None:
        got = oracle_exact(th, orc, syms)
        if not isinstance(got, str) and exact_sign_check(th, got[0], got[1], sr, res, relation=got[2]):
            return
    # the oracle's value has an exact closed form: prove the claim against it
    if (used.exact is not None or orc.exact is not None) and prove_with_exact(th, orc, res, syms, box, f_true, seed, deep):
            return
    # a value oracle with a closed-form worst case: prove closed_form rel rhs
    if orc.closed_form and orc.shape == "value" and th.rhs is not None and rel in ("<=", ">=", "<", ">"):
        names = {s.name: s for s in syms}
        cf = sp.sympify(orc.closed_form, locals=names)
        if exact_sign_check(th, cf, th.rhs, sr, res, relation=rel):  # the worst case is attained: a tiny miss refutes
            return
        supported = res.evidence
        header = f"reduction (oracle {orc.name}): {orc.reduction}\n" if orc.reduction else ""
        # the bound equals the worst case (tight): SymPy proves it when no certificate rung does
        tight = rel in ("<=", ">=") and symbolic_identity(cf, th.rhs)
        if z3_rung(th, cf, rel, th.rhs, res, header_extra=header):
            _attach_reduction(th, orc, res, supported)
            return
        if interval_rung(th, cf, rel, th.rhs, res, note=orc.reduction or ""):
            if is_verdict(res, Verdict.REFUTED):  # the branch-and-bound met a counterexample
                return
            _attach_reduction(th, orc, res, supported)
            return
        if tight:
            res.evidence = Evidence(Verdict.PROVED, "symbolic",
                                    f"SymPy: the bound equals the worst case {orc.closed_form} (the difference "
                                    f"simplifies to 0): tight", None, None, supported.cases)
            _attach_reduction(th, orc, res, supported)
            return
        res.evidence = supported


#: oracles whose cost grows linearly in the capped parameter: above the cap, a sparse log-uniform search up to
#: this value (default, deep) so that the whole stated domain is searched, if thinly
EXTEND_ABOVE_CAP: dict[str, dict[str, tuple[float, float]]] = {
    name: {"T": (10_000, 100_000)} for name in (
        "optimal_composition", "composition_eq7", "composition_tied", "composition_eq7_simplex", "composition_at_eq",
        "composition_igmm")
}
EXTEND_POINTS = (12, 60)


def _beyond_caps(th: Theorem, res: VerificationResult, box: Box, caps: dict[str, float], oracle: str, f_claim: Any,
                 f_true: Any, rel: str, constraint: Any, used: Oracle, deep: bool, seed: int) -> bool:
    """Search above the caps, thinly, where the entry's own range goes on (see :data:`EXTEND_ABOVE_CAP`).
    Records what was searched in the evidence; False when a violation was found there (``res`` then holds it)."""
    dom = {s.name: hi for s, _, hi in th.domain}
    ext = EXTEND_ABOVE_CAP.get(oracle, {})
    ranges = dict(box.ranges)
    grown = []
    unsearched = []
    for nm, cap in caps.items():
        if nm not in ranges or ranges[nm][1] < cap:
            continue
        hi_entry = dom.get(nm)
        try:
            hi_val = float(hi_entry) if hi_entry is not None else math.inf
        except (TypeError, ValueError):
            hi_val = math.inf
        if hi_val <= cap:
            continue
        lim = ext.get(nm, (None, None))[1 if deep else 0]
        if lim is None:
            unsearched.append(f"{nm} > {cap:g}")
            continue
        top = min(hi_val, lim)
        ranges[nm] = (float(cap), float(top))
        grown.append(f"{nm} in [{cap:g}, {top:g}]" + ("" if top >= hi_val else f" (the entry allows up to {hi_val:g}: not searched above {top:g})"))
    if not grown:
        return True
    ext_box = Box(ranges, box.integers)
    sr = find_counterexample(f_claim, f_true, ext_box, relation=rel, n=EXTEND_POINTS[1 if deep else 0], seed=seed + 1,
                             constraint=constraint, refine=0, rtol=used.rtol)
    if sr.counterexample is not None and sr.confirmed:
        fill_from_search(res, sr, ext_box, f"oracle {used.name}", used.name, False,
                         f"; found by the sparse search above the cap ({', '.join(grown)})")
        return False
    ev = res.evidence
    res.evidence = Evidence(ev.verdict, ev.rung, ev.detail + f"; above the cap, {sr.cases} more points log-uniform with "
                            f"{', '.join(grown)}: no violation" + (f"; not searched: {', '.join(unsearched)}" if unsearched else ""),
                            ev.certificate, ev.counterexample, (ev.cases or 0) + sr.cases)
    return True


def _attach_reduction(th: Theorem, orc: Oracle, res: VerificationResult, supported: Evidence) -> None:
    """Record the reduction and its machine-checked algebra (e.g. the KL chord identity) next to the proof."""
    extra_ok = True
    if orc.name == "kl_eps_dp":
        from ..proofs_kl import kl_reduction_smt

        for name, text in kl_reduction_smt().items():
            status, _ = smt.run_z3(text, 20)
            res.attempts.append(f"reduction {name}: {status}")
            if status != "unsat":
                extra_ok = False
            res.artifacts[f"smt/{cert_name(th)}.{name}.smt2"] = text
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


__all__ = ["memo_call", "oracle_functions", "oracle_search_box", "oracle_exact", "prove_with_exact", "comp_name", "verify_with_oracle"]
