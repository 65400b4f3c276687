r"""Rung 2: Z3 on a polynomial over-approximation of the claim (:mod:`symdp.verify.smt`); only ``unsat`` of
the negated claim proves; the SMT-LIB2 text is saved as the certificate."""

from __future__ import annotations

import sympy as sp

from ...theorem import Evidence, Theorem, Verdict
from .. import smt
from ..compile import num
from ..core import VerificationResult, cert_name


def z3_rung(th: Theorem, lhs, relation, rhs, res: VerificationResult, *, header_extra: str = "", timeout_s: float = 10.0) -> bool:
    dom = {s: (lo, hi) for s, lo, hi in th.domain if num(lo) is not None and num(hi) is not None}
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
            path = f"smt/{cert_name(th)}.smt2"
            res.artifacts[path] = r.text
            where = "on the stated box " + ", ".join(f"{s} in [{lo}, {hi}]" for s, (lo, hi) in dom.items()) if use_box else "for all points satisfying the hypotheses"
            res.evidence = Evidence(Verdict.PROVED, "z3", f"z3: negated claim unsat {where} (polynomial over-approximation)", path)
            if use_box:
                res.box = {s.name: [str(lo), str(hi)] for s, (lo, hi) in dom.items()}
            return True
        if r.status == "error" and "cannot encode" in r.output:
            break
    return False


__all__ = ["z3_rung"]
