r"""A closed-form claim ``lhs rel rhs`` (no oracle) up the ladder: the numerical search (cheap; finds
counterexamples before proofs of false claims are tried), the symbolic sign where it confirmed none (an identity
``==`` is tried symbolically and by Z3 before the search), exact equality for strict claims, Z3, interval."""

from __future__ import annotations

from ...theorem import Evidence, Theorem, Verdict
from ..compile import compile_expr, describe_box, hyp_checker, sampling_box
from ..core import BUDGET, REFINE, VerificationResult
from ..search import find_counterexample
from .interval import interval_rung
from .numerical import (
    StrictEquality,
    exact_sign_check,
    fill_from_search,
    find_strict_equality,
    is_verdict,
    strict_equality,
    unevaluable_note,
)
from .smt import z3_rung
from .symbolic import satisfies_assumptions, symbolic_identity, symbolic_sign


def verify_direct(th: Theorem, res: VerificationResult, deep: bool, seed: int) -> None:
    lhs, rel, rhs = th.lhs, th.relation, th.rhs
    assert lhs is not None and rhs is not None  # the dispatcher checked
    if rel in ("==",):
        if symbolic_identity(lhs, rhs):
            res.evidence = Evidence(Verdict.PROVED, "symbolic", "SymPy: lhs - rhs simplifies to 0")
            return
        res.attempts.append("symbolic: difference did not simplify to 0")
        if z3_rung(th, lhs, "==", rhs, res):
            return
    # numerical search first (cheap, finds counterexamples before trying proofs of false claims)
    syms = set(lhs.free_symbols) | set(rhs.free_symbols) | {s for h in th.hypotheses for s in h.free_symbols}
    failed: Exception | None = None
    try:
        box, own = sampling_box(th, syms)
        n = BUDGET["default"][1 if deep else 0]
        fc, ft, hc = compile_expr(rhs), compile_expr(lhs), hyp_checker(th.hypotheses)
        sr = find_counterexample(fc, ft, box, relation=rel, n=n, seed=seed, constraint=hc, refine=REFINE["default"][1 if deep else 0])
    except Exception as exc:  # noqa: BLE001 - raised again below, after the symbolic rung had its chance (as before)
        failed = exc
    eq: StrictEquality | None = None
    if rel != "==":
        confirmed = failed is None and sr.counterexample is not None and sr.confirmed
        if rel in ("<", ">") and failed is None and not confirmed:
            # the exact boundary test of a strict claim (below, after the search's verdict) run now and kept: where
            # lhs == rhs exactly at a point that satisfies the symbols' assumptions no strict sign proof exists
            # (he2021.cmp_delta_vs_dwork_roth: equal at T = 1, 3 s of simplify that could only fail)
            try:
                eq = find_strict_equality(th, lhs, rhs, box, fc, ft)
            except Exception:  # noqa: BLE001 - as before: the boundary test runs (and may fail) after the search's verdict
                eq = None
        # the sign proof only where the search found no confirmed counterexample (a counterexample re-confirmed at
        # >= 50 digits means the claim has no proof: SymPy's assumptions, simplify and factor spent seconds failing
        # on each refuted comparison claim).  The search leaves ``res`` untouched until fill_from_search below.
        if confirmed:
            res.attempts.append("symbolic: sign not tried (the numerical search re-confirmed a counterexample first)")
        elif (eq is not None and eq.exact is not None
              and satisfies_assumptions(eq.exact, (lhs - rhs).free_symbols)):
            res.attempts.append(f"symbolic: sign not tried (lhs - rhs == 0 exactly at {eq.point}, a point that satisfies "
                                "the symbols' assumptions: no strict sign proof exists)")
        elif symbolic_sign(lhs, rel, rhs):
            detail = f"SymPy: the sign of the difference follows from the symbols' assumptions ({rel})"
            cert = None
            if z3_rung(th, lhs, rel, rhs, res, timeout_s=5.0):  # a replayable certificate as well
                cert = res.evidence.certificate
                detail += "; also " + res.evidence.detail
            res.evidence = Evidence(Verdict.PROVED, "symbolic", detail, cert)
            return
        else:
            res.attempts.append("symbolic: sign not decided")
    if failed is not None:
        raise failed
    fill_from_search(res, sr, box, "lhs", None, own, region_fns=(fc, ft, rel, hc), searched=describe_box(th, box))
    if res.evidence.verdict is not Verdict.SUPPORTED or rel == "==":
        return
    if rel in ("<", ">") and strict_equality(th, lhs, rhs, box, fc, ft, res, found=eq):
        return
    if exact_sign_check(th, lhs, rhs, sr, res):
        return
    supported = res.evidence
    if z3_rung(th, lhs, rel, rhs, res) or interval_rung(th, lhs, rel, rhs, res, time_limit_s=30.0 if deep else 12.0,
                                                        max_leaves=20000 if deep else 3000):
        if sr.errors and is_verdict(res, Verdict.PROVED):  # a proof over the reals says nothing where the claim is undefined: say so, never drop it
            ev = res.evidence
            res.evidence = Evidence(ev.verdict, ev.rung, ev.detail + unevaluable_note(sr).replace(
                "this verdict covers", "the proof covers"), ev.certificate, ev.counterexample, ev.cases)
        return
    res.evidence = supported


__all__ = ["verify_direct"]
