r"""A composition theorem (a registered user theorem or a library entry) used as the accountant.

``symdp.accountants.epsilon(..., accountant="theorem:ID")`` (or ``accountant=theorem``) lands here.
The theorem must be typed (:mod:`symdp.library.implications`): premise ``ApproxDP(epsilon, delta)``
of each step, conclusion ``ApproxDP(E, D)`` of the ``T``-fold composition, with ``E`` and ``D``
expressions in ``epsilon``, ``delta``, ``T`` and optionally a slack ``deltatilde``.  Each DP-SGD
step's ``(epsilon0, delta0)`` is the tight accountant's rigorous upper bound for one step; the
total ``delta`` is split between ``T delta0`` and the slack over a few fractions, the theorem's own
``D`` is checked ``<= delta`` (the split shrinks until it is) and the smallest ``E`` is returned.
Kernels are generated from the theorem (never retyped); the result carries the theorem's verdict
and is an upper bound only when that verdict is PROVED.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy as sp

from ..errors import InvalidParameterError, InvalidTypeError, UnsupportedError

__all__ = ["epsilon_from_theorem"]


def _resolve(accountant: Any) -> Any:
    from ..library import get
    from ..theorem import Theorem

    if isinstance(accountant, Theorem):
        return accountant
    if isinstance(accountant, str) and accountant.startswith("theorem:"):
        return get(accountant[len("theorem:"):])
    raise InvalidTypeError(f"accountant={accountant!r}: expected a name, 'theorem:ID' or a symdp.Theorem")


def _violated(hyps: tuple[sp.Basic, ...], values: dict[str, float]) -> str | None:
    """The first hypothesis that fails (or cannot be decided) at ``values`` (by symbol name), shown with its
    sides' values; None when all hold.  Evaluated in mpmath at 30 digits."""
    import mpmath

    for h in hyps:
        if h is sp.true or h is True:
            continue
        if not isinstance(h, sp.core.relational.Relational):
            return f"{sp.sstr(h)} (not a comparison)"
        syms = sorted((x for x in h.free_symbols if isinstance(x, sp.Symbol)), key=lambda x: x.name)
        missing = [x.name for x in syms if x.name not in values]
        if missing:
            return f"{sp.sstr(h)} (involves {', '.join(missing)}, which DP-SGD accounting does not set)"
        f = sp.lambdify(syms, sp.Tuple(h.lhs, h.rhs), modules="mpmath")
        with mpmath.workdps(30):
            a, b = f(*(mpmath.mpf(values[x.name]) for x in syms))
            if isinstance(a, mpmath.mpc) or isinstance(b, mpmath.mpc):
                return f"{sp.sstr(h)} (not real there)"
            ok = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[h.rel_op]
            if not ok:
                return f"{sp.sstr(h)} ({mpmath.nstr(a, 6)} vs {mpmath.nstr(b, 6)})"
    return None


def epsilon_from_theorem(accountant: Any, *, noise_multiplier: Any, sample_rate: Any, steps: Any,
                         delta: Any) -> Any:
    """Epsilon of DP-SGD at ``delta`` by the composition theorem ``accountant`` (scalars)."""
    from .. import properties as P
    from ..codegen.user import kernel_for
    from ..library.implications import implication
    from ..theorem import Kind, Theorem, Verdict
    from ..validation import check_int, check_probability, check_real
    from .result import AccountingResult
    from .tight import _step_eps

    th = _resolve(accountant)
    imp = implication(th.id)
    if not imp.premises or not isinstance(P.canonical(imp.premises[0]), P.ApproxDP) or not isinstance(
            P.canonical(imp.conclusion), P.ApproxDP):
        raise UnsupportedError(f"accountant=theorem:{th.id}: needs premise ApproxDP(epsilon, delta) of each step "
                               f"and conclusion ApproxDP of the composition; it states {imp.premises} -> {imp.conclusion}")
    if P.adjacency_of(P.canonical(imp.premises[0])) not in (None, P.ANY_ADJACENCY, "add_remove"):
        raise UnsupportedError(f"accountant=theorem:{th.id}: its premise is stated for "
                               f"{P.ADJACENCY_TEXT[P.adjacency_of(P.canonical(imp.premises[0])) or 'any']} adjacency; "
                               "DP-SGD's Poisson steps are add/remove")
    hyps = tuple(imp.hypotheses) if imp.replaces_hypotheses else (*th.hypotheses, *imp.hypotheses)
    s = float(check_real("noise_multiplier", noise_multiplier, 0.0, lo_open=True))
    qq = float(check_probability("sample_rate", sample_rate, open_low=True, open_high=False))
    T = int(check_int("steps", steps, 1, None))
    target = float(check_probability("delta", delta))
    prem = P.canonical(imp.premises[0]).params()
    e_var, d_var = prem["eps"], prem["delta"]
    if not (isinstance(e_var, sp.Symbol) and isinstance(d_var, sp.Symbol)):
        raise UnsupportedError(f"accountant=theorem:{th.id}: the premise parameters must be symbols")
    concl = P.canonical(imp.conclusion).params()
    allowed = {e_var.name, d_var.name, "T", "deltatilde"}
    kernels = {}
    for name in ("eps", "delta"):
        expr = concl[name]
        bad = sorted(x.name for x in expr.free_symbols if x.name not in allowed)
        if bad:
            raise UnsupportedError(f"accountant=theorem:{th.id}: conclusion {name} has symbols {bad}; allowed: "
                                   f"{sorted(allowed)}")
        syn = Theorem(f"{th.id}.__{name}", f"{th.id} conclusion {name}", Kind.BOUND, th.source,
                      lhs=sp.Symbol(f"conclusion_{name}"), relation="<=", rhs=expr, tags=("user",))
        kernels[name] = (kernel_for(syn, "numpy"), [x.name for x in syn.bound_symbols])

    def call(name: str, values: dict[str, float]) -> float:
        fn, args = kernels[name]
        if not args:
            return float(fn())
        return float(fn(**{a: values[a] for a in args}))

    best, best_split = math.inf, None
    violated: str | None = None
    for frac in (0.1, 0.25, 0.5, 0.75, 0.9):
        dt, d0 = frac * target, (1 - frac) * target / T
        for _shrink in range(8):
            check_probability("delta", d0)  # as the tight accountant's own entry point checks it
            e0 = float(_step_eps(s, qq, np.array([d0]))[0])  # one step, tight (RDP where the PLD cannot answer)
            vals = {e_var.name: max(e0, 1e-300), d_var.name: d0, "T": float(T), "deltatilde": dt}
            e = call("eps", vals)
            dp = call("delta", vals)
            if math.isfinite(dp) and dp <= target:
                break
            if not math.isfinite(dp) or dp <= 0:
                e = math.inf
                break
            scale = 0.999 * target / dp
            dt, d0 = dt * scale, d0 * scale
        else:
            continue
        broken = _violated(hyps, vals)
        if broken is not None:  # the theorem says nothing at this split: not a candidate
            violated = violated or broken
            continue
        if math.isfinite(e) and e < best:
            best, best_split = e, frac
    if not math.isfinite(best) and violated is not None:
        raise InvalidParameterError(
            f"accountant=theorem:{th.id}: at noise_multiplier={s!r}, sample_rate={qq!r}, steps={T}, delta={target!r} "
            f"every split of delta violates the theorem's hypothesis {violated}; allowed: parameters inside its "
            "hypotheses")
    if not math.isfinite(best):
        raise InvalidParameterError(f"accountant=theorem:{th.id}: no split of delta={target} satisfies the theorem's "
                                    "composed delta; allowed: a larger delta")
    verdict = th.evidence.verdict
    return AccountingResult(
        epsilon=np.float64(best * (1 + 1e-12)), delta=np.float64(target), accountant=f"theorem:{th.id}",
        is_upper_bound=verdict is Verdict.PROVED,
        verdicts={th.id: verdict.value},
        approximation=None if verdict is Verdict.PROVED else (
            f"rests on {th.id} whose verdict is {verdict.value}: an upper bound only if that theorem holds"),
        details={"delta_split_slack_fraction": best_split, "per_step": "tight accountant, one step"},
    )
