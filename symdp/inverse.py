r"""Safe-side inverses of theorem kernels, for library entries and registered user theorems alike.

``invert(th, var, value, **others)`` solves ``rhs(var, others) = value`` for the named variable and
returns the end of the final bracket on the *safe side*: the side where ``rhs <= value``.  For a
bound ``lhs <= rhs`` (a privacy loss, a generalization gap) that is the side where the guarantee
stays within the target; for a requirement ``lhs >= rhs`` (``sigma >= f(eps, delta)``) it is the
side where the requirement is met by ``lhs = value``.  The answer is re-checked with the mpmath
kernel at 50 digits and moved outward by ulps (integers: rounded) until the check passes.

>>> from symdp.inverse import invert
>>> r = invert("he2021.lemma_kl", "epsilon", 0.1, lo=1e-6, hi=10.0)
>>> r.check <= 0.1 and abs(r.value - 0.45097) < 1e-4
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from .errors import ConvergenceError, InvalidParameterError
from .theorem import Theorem

__all__ = ["InverseResult", "invert"]


@dataclass(frozen=True)
class InverseResult:
    """``value``: the safe-side solution; ``check``: rhs at it (mpmath, 50 digits) <= target;
    ``increasing``: the direction of rhs in the variable on the bracket."""

    theorem_id: str
    var: str
    value: float
    target: float
    check: float
    increasing: bool
    side: str
    #: hypotheses of the theorem that are false at the answer (those whose symbols were all given)
    violated: tuple[str, ...] = ()
    #: hypotheses that could not be checked (they involve symbols not given)
    unchecked: tuple[str, ...] = ()


def _theorem(th: Theorem | str) -> Theorem:
    from .library import get

    return get(th, with_evidence=False) if isinstance(th, str) else th


def _kernels(th: Theorem) -> tuple[Any, Any]:
    from .library import user_ids

    if th.id in user_ids() or (th.tags and "user" in th.tags) or th.id.startswith("derived."):
        from .codegen.user import kernel_for

        return kernel_for(th, "numpy"), kernel_for(th, "mpmath")
    from .codegen import kernel

    return kernel(th.id, "numpy"), kernel(th.id, "mpmath")


def _hypotheses_at(t: Theorem, values: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    import sympy as sp

    violated, unchecked = [], []
    for h in t.hypotheses:
        if h is sp.true:
            continue
        names = {s.name for s in h.free_symbols if isinstance(s, sp.Symbol)}
        if not names <= set(values):
            unchecked.append(sp.sstr(h))
            continue
        m = {s: sp.Float(values[s.name], 30) for s in h.free_symbols if isinstance(s, sp.Symbol)}
        r = h.xreplace(m)
        if isinstance(r, sp.core.relational.Relational):
            r = r.func(sp.N(r.lhs, 30), sp.N(r.rhs, 30))
        if r is not sp.true:
            violated.append(sp.sstr(h))
    return tuple(violated), tuple(unchecked)


def invert(th: Theorem | str, var: str, value: Any, *, lo: Any = None, hi: Any = None, side: str = "rhs",
           **others: Any) -> InverseResult:
    """Solve ``rhs(var=x, **others) = value`` for ``x`` in ``[lo, hi]`` (default: the entry's domain
    box for ``var``), returning the safe side (``rhs(x) <= value``)."""
    from .codegen.roots import bisect

    t = _theorem(th)
    if side != "rhs":
        raise InvalidParameterError(f"side={side!r}; allowed: 'rhs'")
    names = [s.name for s in t.bound_symbols]
    if var not in names:
        raise InvalidParameterError(f"var={var!r} is not a symbol of {t.id}; allowed: {', '.join(names)}")
    missing = sorted(set(names) - {var} - set(others))
    if missing:
        raise InvalidParameterError(f"{t.id}: missing values for {missing}; allowed: give every other symbol of rhs")
    extra = sorted(set(others) - set(names))
    if extra:
        raise InvalidParameterError(f"{t.id}: {extra} are not symbols of rhs; allowed: {', '.join(names)}")
    target = float(value)
    if not math.isfinite(target):
        raise InvalidParameterError(f"value={value!r} is not finite; allowed: a finite number")
    sym = next(s for s in t.bound_symbols if s.name == var)
    if lo is None or hi is None:
        box = {s.name: (a, b) for s, a, b in t.domain}
        if var not in box:
            raise InvalidParameterError(f"{t.id}: no domain box for {var!r}; allowed: pass lo= and hi=")
        lo = float(box[var][0]) if lo is None else lo
        hi = float(box[var][1]) if hi is None else hi
    lo_f, hi_f = float(lo), float(hi)
    if not (math.isfinite(lo_f) and math.isfinite(hi_f) and lo_f < hi_f):
        raise InvalidParameterError(f"bracket [lo, hi] = [{lo}, {hi}]; allowed: finite lo < hi")
    f_np, f_mp = _kernels(t)

    def f(x: Any) -> Any:
        return f_np(**{var: x}, **others)

    flo, fhi = float(f(lo_f)), float(f(hi_f))
    if not (math.isfinite(flo) and math.isfinite(fhi)):
        raise InvalidParameterError(f"{t.id}: rhs is not finite at the bracket ends ({flo}, {fhi}); allowed: a "
                                    "bracket where it is")
    if (flo - target) * (fhi - target) > 0:
        raise InvalidParameterError(f"value={target} is not between rhs({var}={lo_f})={flo} and rhs({var}={hi_f})={fhi}")
    increasing = fhi >= flo
    safe = "lower" if increasing else "upper"
    scale = "log" if lo_f > 0 and hi_f / lo_f > 1e3 else "linear"
    res = bisect(f, lo_f, hi_f, target=target, side=safe, scale=scale, max_iter=400)
    x = float(res.root)
    if not math.isfinite(x):
        raise ConvergenceError(f"{t.id}: no solution for {var} in [{lo_f}, {hi_f}]")

    def mp_val(xv: float) -> mpmath.mpf:
        with mpmath.workdps(50):
            args = {k: mpmath.mpf(v) if not isinstance(v, int) else v for k, v in others.items()}
            return f_mp(**{var: (int(xv) if sym.is_integer else mpmath.mpf(xv))}, **args)

    if sym.is_integer:
        x = float(math.floor(x) if increasing else math.ceil(x))
    step_dir = -math.inf if increasing else math.inf
    for _ in range(256):
        v = mp_val(x)
        if v <= target:
            violated, unchecked = _hypotheses_at(t, {var: x, **others})
            return InverseResult(t.id, var, x, target, float(v), increasing,
                                 f"rhs <= target: the {'lower' if increasing else 'upper'} end of the bracket",
                                 violated, unchecked)
        x = x - 1 if (sym.is_integer and increasing) else x + 1 if sym.is_integer else float(np.nextafter(x, step_dir))
    raise ConvergenceError(f"{t.id}: could not reach the safe side of {var} within 256 steps of the bisection root")
