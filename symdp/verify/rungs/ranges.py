r"""A bound that leaves the range of its quantity (issue 12 item 5): decided without an oracle.

Some quantities have a range fixed by their definition: a probability lies in ``[0, 1]``; a divergence, a
mutual information, a max-information, a pure-DP level or an absolute value is ``>= 0``.  An upper bound that
drops below the lower end of that range (or a strict one that reaches it) is false wherever that happens,
whatever the mechanism: the quantity is at least the lower end there.  Symmetrically a lower bound above the
upper end of the range is false.  This rung searches the entry's box (scale-aware, log-uniform on wide
ranges, re-confirmed at 60 digits) for such points: REFUTED or PARTIAL with the point, else the entry stays
UNCHECKED with a note of what was searched (the range check cannot prove a bound).

The ranges are keyed by the library's canonical quantity symbols (:data:`QUANTITY_RANGES`); ``Abs(x)`` is
``>= 0``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import mpmath
import sympy as sp

from ...theorem import Evidence, Theorem
from ..compile import compile_expr, fmt_box, hyp_checker, sampling_box
from ..core import BUDGET, REFINE, VerificationResult
from ..search import find_counterexample
from .numerical import fill_from_search

_INF = math.inf
#: range of a quantity, by the name of the library's symbol for it (definitions: probabilities, divergences,
#: information measures, privacy levels, absolute values)
QUANTITY_RANGES: dict[str, tuple[float, float]] = {
    # probabilities
    "P_fail": (0.0, 1.0), "P_succ": (0.0, 1.0), "P_tail": (0.0, 1.0), "P_O": (0.0, 1.0), "b_fed": (0.0, 1.0),
    "Delta_stat": (0.0, 1.0),  # statistical distance
    # nonnegative by definition
    "I_inf_bits": (0.0, _INF), "I_inf_beta_bits": (0.0, _INF), "I_mi": (0.0, _INF), "D_KL": (0.0, _INF),
    "D_KLf": (0.0, _INF), "KL_ind": (0.0, _INF), "epsilon_DP": (0.0, _INF), "epsilon_okl": (0.0, _INF),
    "epsilon_oklk": (0.0, _INF), "EGen_multi": (0.0, _INF), "G_abs": (0.0, _INF), "a_fed": (0.0, _INF),
}


def quantity_range(lhs: sp.Basic | None) -> tuple[float, float] | None:
    """The definitional range of the bounded quantity ``lhs`` (None when unknown)."""
    if isinstance(lhs, sp.Abs) and isinstance(lhs.args[0], sp.Symbol):
        return (0.0, _INF)
    if isinstance(lhs, sp.Symbol):
        return QUANTITY_RANGES.get(lhs.name)
    return None


def verify_range(th: Theorem, res: VerificationResult, deep: bool, seed: int) -> bool:
    """Search for points where the bound leaves the quantity's range.  True when it decided (REFUTED/PARTIAL);
    False leaves ``res`` UNCHECKED with a note of what was searched."""
    rng = quantity_range(th.lhs)
    if th.lhs is None:
        return False
    rel = th.relation
    if rng is None or th.rhs is None or rel not in ("<=", "<", ">=", ">"):
        return False
    upper = rel in ("<=", "<")
    end = rng[0] if upper else rng[1]
    if not math.isfinite(end):
        return False
    syms = set(th.rhs.free_symbols) | {s for h in th.hypotheses for s in sp.sympify(h).free_symbols}
    syms -= set(th.lhs.free_symbols)
    if not syms:
        return False
    box, own = sampling_box(th, syms)
    f_claim = compile_expr(th.rhs)
    edge = mpmath.mpf(end)

    def f_true(pt: Mapping[str, Any]) -> mpmath.mpf:  # the quantity is at least (upper) / at most (lower) this
        return edge

    hc = hyp_checker(th.hypotheses)
    n = BUDGET["default"][1 if deep else 0] * 2
    sr = find_counterexample(f_claim, f_true, box, relation=rel, n=n, seed=seed, constraint=hc,
                             refine=REFINE["default"][1 if deep else 0])
    what = f"the quantity's range end ({'lower' if upper else 'upper'} end {end:g} of [{rng[0]:g}, {rng[1]:g}])"
    if sr.counterexample is not None and sr.confirmed:
        fill_from_search(res, sr, box, what, None, own,
                         extra=f"; {sp.sstr(th.lhs)} lies in [{rng[0]:g}, {rng[1]:g}] by definition, so the bound "
                               f"{rel} {'a value below' if upper else 'a value above'} that range is false there",
                         region_fns=(f_claim, f_true, rel, hc))
        res.evidence = Evidence(res.evidence.verdict, "range", res.evidence.detail, None,
                                res.evidence.counterexample, res.evidence.cases)
        return True
    if not sr.cases:  # no usable sampled point: the range check says nothing
        res.attempts.append(f"range: no sampled point of {fmt_box(box)} both satisfies the hypotheses and is "
                            "evaluable, so the range check was not applied" + ("" if own else " (box partly from defaults)"))
        return False
    res.attempts.append(
        f"range: the bound stays inside [{rng[0]:g}, {rng[1]:g}] at {sr.cases} points of {fmt_box(box)}"
        + ("" if own else " (box partly from defaults)") + " (no proof of the bound itself)")
    return False


__all__ = ["QUANTITY_RANGES", "quantity_range", "verify_range"]
