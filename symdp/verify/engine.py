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

import time
from dataclasses import replace

from ..theorem import Evidence, Kind, Theorem, Verdict
from .compile import is_quantity
from .consistency import consult_ledger
from .core import ENTRY_BUDGET, Timeout, VerificationResult, time_limit
from .registry import oracle_for
from .rungs.direct import verify_direct
from .rungs.oracle import verify_with_oracle
from .rungs.ranges import verify_range
from .rungs.symbolic import verify_expansion

#: why an entry without an oracle stays undecided (said with every such verdict)
NEEDS_PROOF = ("undecided: the statement quantifies over every algorithm with the premise (and every data distribution); "
               "no finite computation gives that worst case and symdp's oracles are exact values of concrete mechanisms, "
               "so deciding it needs a proof symdp cannot do")


def verify_theorem(th: Theorem, *, deep: bool = False, seed: int = 0, ledger: bool = True) -> VerificationResult:
    """Run the ladder on one entry; never raises on an entry it cannot handle (UNCHECKED with the reason).

    ``ledger``: then apply the consistency rule against the ledger's verdicts of the entry's special cases
    (:func:`~symdp.verify.consistency.consult_ledger`); :func:`symdp.verify.run` passes False and applies the
    rule to its whole run instead (its own special cases first)."""
    t0 = time.monotonic()
    try:
        h = th.expr_hash()
    except Exception:  # noqa: BLE001
        h = ""
    res = VerificationResult(th.id, Evidence(Verdict.UNCHECKED, None, "not examined"), h, oracle=th.oracle)
    try:
        with time_limit(ENTRY_BUDGET[1 if deep else 0]):
            _dispatch(th, res, deep, seed)
    except Timeout:
        done = res.evidence
        if done.verdict in (Verdict.REFUTED, Verdict.PROVED, Verdict.PARTIAL, Verdict.SUPPORTED) and done.detail:
            res.attempts.append(f"entry budget of {ENTRY_BUDGET[1 if deep else 0]:.0f}s reached after the verdict; later rungs skipped")
        else:
            res.evidence = Evidence(Verdict.UNCHECKED, None, f"verification exceeded the {ENTRY_BUDGET[1 if deep else 0]:.0f}s budget per entry (use --deep for more)")
    except Exception as exc:  # noqa: BLE001 - a library entry must never crash the run
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"verifier error: {type(exc).__name__}: {str(exc)[:200]}")
    if ledger:
        try:
            consult_ledger(res, th)
        except Exception as exc:  # noqa: BLE001 - no ledger or an unreadable one: the ladder's verdict stands
            res.attempts.append(f"consistency with the ledger not checked: {type(exc).__name__}: {str(exc)[:120]}")
    res.seconds = time.monotonic() - t0
    return res


def _dispatch(th: Theorem, res: VerificationResult, deep: bool, seed: int) -> None:
    if not th.formula_available:
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"formula unavailable: {th.unavailable_reason}")
        return
    if th.kind is Kind.EXPANSION:
        verify_expansion(th, res)
        return
    name = oracle_for(th.id, th.oracle)
    if name:
        if name != th.oracle:  # an oracle the verifier assigns to an entry that names none
            res.attempts.append(f"oracle {name} assigned by the verifier (the entry names none)")
            th = replace(th, oracle=name)
        verify_with_oracle(th, res, deep, seed)
        return
    if th.kind is Kind.EQUIVALENCE:
        res.evidence = Evidence(Verdict.UNCHECKED, None, "a statement between properties with no oracle: nothing numeric to check "
                                f"({NEEDS_PROOF})")
        return
    if th.lhs is None or th.rhs is None:
        res.evidence = Evidence(Verdict.UNCHECKED, None, "no lhs/rhs formula")
        return
    if th.kind is Kind.DEFINITION:
        res.evidence = Evidence(Verdict.UNCHECKED, None, "a definition with no oracle: true by definition, nothing to check")
        return
    if is_quantity(th, th.lhs) or th.lhs.free_symbols - (th.rhs.free_symbols | {s for s, _, _ in th.domain} | {s for h in th.hypotheses for s in h.free_symbols}):
        q = th.lhs if is_quantity(th, th.lhs) else sorted(th.lhs.free_symbols - th.rhs.free_symbols, key=str)
        if verify_range(th, res, deep, seed):  # a bound outside its quantity's range is false, oracle or not
            return
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"bounds the quantity {q} ({th.quantity or 'unnamed'}) and names no oracle"
                                + (f"; {res.attempts[-1]}" if res.attempts and res.attempts[-1].startswith("range:") else "")
                                + f" ({NEEDS_PROOF})")
        return
    if th.relation not in ("<=", ">=", "<", ">", "=="):
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"relation {th.relation!r} not checkable")
        return
    verify_direct(th, res, deep, seed)


# --- backward-compatible names (the engine was one module until the split into rungs) -------------------------
from . import compile as _compile  # noqa: E402
from . import core as _core  # noqa: E402
from .rungs import interval as _r_interval  # noqa: E402
from .rungs import numerical as _r_numerical  # noqa: E402
from .rungs import oracle as _r_oracle  # noqa: E402
from .rungs import smt as _r_smt  # noqa: E402
from .rungs import symbolic as _r_symbolic  # noqa: E402

compile_expr = _compile.compile_expr
sampling_box = _compile.sampling_box
_elementary = _compile.elementary
_hyp_checker = _compile.hyp_checker
_is_quantity = _compile.is_quantity
_num = _compile.num
_premise_bindings = _compile.premise_bindings
_premise_exprs = _compile.premise_exprs
BUDGET, DEEP_CAPS, DEFAULT_RANGES, ORACLE_CAPS, REFINE = (_core.BUDGET, _core.DEEP_CAPS, _core.DEFAULT_RANGES,
                                                          _core.ORACLE_CAPS, _core.REFINE)
_Timeout = _core.Timeout
INTERVAL_DEFAULT_BOX = _r_interval.INTERVAL_DEFAULT_BOX
_interval_rung = _r_interval.interval_rung
_fill_from_search = _r_numerical.fill_from_search
_strict_equality = _r_numerical.strict_equality
comp_name = _r_oracle.comp_name
_oracle_exact = _r_oracle.oracle_exact
_oracle_functions = _r_oracle.oracle_functions
_z3_rung = _r_smt.z3_rung
_symbolic_identity = _r_symbolic.symbolic_identity
_symbolic_sign = _r_symbolic.symbolic_sign
_verify_direct = verify_direct
_verify_with_oracle = verify_with_oracle
_verify_expansion = verify_expansion

__all__ = ["VerificationResult", "verify_theorem", "compile_expr", "sampling_box", "DEFAULT_RANGES", "time_limit"]
