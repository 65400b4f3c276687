r"""Float64 (numpy) twins of the two sides an entry is compared on, for the audit's plots only.

A plot draws the claim's side and the other side at 60 points; in mpmath an oracle's side (the optimal composition
of T steps, eq. (7), a Gaussian profile) costs milliseconds per point.  A *twin* computes the same quantity in
float64 on a whole grid at once.  Twins never decide anything: :func:`symdp.audit.plots.sweep` checks them against
mpmath at the first points, uses them only where the two sides are clearly apart, and evaluates in mpmath near a
crossing.  A twin's value is

* a float: the quantity (to float64 accuracy; log-space sums, ``log1p``/``expm1`` where a formula would cancel),
* NaN: not known here in float64 (an overflow, a tie that float64 cannot break): mpmath decides,
* masked (a ``numpy.ma`` array): the side is undefined here for sure (its mpmath twin returns None, e.g. a
  hypothesis that clearly fails), so nothing is drawn there.

An oracle's mapping (:func:`symdp.verify.rungs.oracle.oracle_functions`, the mappers of
:mod:`symdp.verify.composition`) attaches a lazy builder of the twins to the other side's function with
:func:`attach`; :func:`twins_of` builds them (None where there are none).  Building costs a few lambdify calls,
so the verifier, which never plots, never pays it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from .compile import _memo, elementary

#: a float64 twin: float64 arrays (or floats) by parameter name in, a float64 array (possibly masked) out
VecFn = Callable[[Mapping[str, Any]], Any]
#: a builder of the twins (claim side, other side); either may be None, or the whole answer (no twins)
TwinBuilder = Callable[[], "tuple[VecFn | None, VecFn | None] | None"]

#: relative gap under which a float64 comparison (a hypothesis, a tie between the terms of a min) is not trusted:
#: the point is left to mpmath (NaN)
TIE_RTOL = 1e-9


def attach(f: Callable, build: TwinBuilder) -> Callable:
    """Record ``build`` (a function returning the twins ``(claim side, other side)``) on the mapping's function
    ``f`` (a closure the mapping created) and return ``f``; the function itself is unchanged."""
    f.float64_twins = build  # type: ignore[attr-defined]
    return f


def twins_of(f: Callable) -> tuple[VecFn | None, VecFn | None] | None:
    """The twins recorded on ``f`` by :func:`attach`, built now; None when there are none (or building fails)."""
    build = getattr(f, "float64_twins", None)
    if build is None:
        return None
    try:
        got = build()
    except Exception:  # noqa: BLE001 - no twins: mpmath at every point
        return None
    if got is None or (got[0] is None and got[1] is None):
        return None
    return got


def compile_float64(expr: Any) -> VecFn | None:
    """``point -> float64 array`` for a SymPy expression (numpy and scipy.special functions), or None where it has
    no float64 form (a Sum, Product or Integral; a function lambdify cannot print).  The inputs are broadcast to one
    shape first (``Min`` of an array and a scalar)."""
    expr = sp.sympify(expr)

    def build() -> tuple[Callable | None, list[str]]:
        e = elementary(expr)
        if e.atoms(sp.Sum, sp.Product, sp.Integral):
            return None, []
        syms = sorted(e.free_symbols, key=lambda s: s.name)
        try:
            f = sp.lambdify(syms, e, modules=["scipy", "numpy"])
        except Exception:  # noqa: BLE001 - no twin: mpmath at every point
            return None, []
        return f, [s.name for s in syms]

    f, names = _memo(("float64", expr), build)
    if f is None:
        return None
    return _by_name(f, names)


def _by_name(f: Callable, names: list[str]) -> VecFn:
    """``f`` (positional float64 arguments ``names``) called on a point: its values as broadcast float arrays."""

    def call(pt: Mapping[str, Any]) -> Any:
        args = [np.asarray(pt[nm], dtype=float) for nm in names]
        if args:
            args = list(np.broadcast_arrays(*args))
        with np.errstate(all="ignore"):
            return f(*args)

    return call


def _kernel_for(expr: sp.Basic, near: str) -> tuple[str, Callable] | None:
    """(id, generated numpy kernel) of the library entry of the same paper as ``near`` whose rhs is ``expr``, or
    None.  The kernels come from the stability pass of ``symdp codegen`` (``1 - (1 - c)^T`` as
    ``-expm1(T log1p(-c))``, products in log space): where the paper's formula cancels in float64, its kernel does
    not."""
    from ..library import get, ids

    prefix = near.split(".")[0] + "."
    for tid in ids():
        if not tid.startswith(prefix):
            continue
        try:
            th = get(tid, with_evidence=False)
            if th.rhs is None or th.rhs != expr:
                continue
            from ..codegen import kernel

            return tid, kernel(tid, "numpy", "rhs")
        except Exception:  # noqa: BLE001 - no kernel (not generated, stale): lambdify instead
            continue
    return None


def entry_float64(expr: Any, near: str) -> VecFn | None:
    """Like :func:`compile_float64`, but through the generated numpy kernel when ``expr`` is the rhs of a library entry
    of the paper of entry ``near`` (:func:`_kernel_for`): the same quantity, without the cancellations of the
    paper's form."""
    import inspect

    expr = sp.sympify(expr)
    got = _memo(("float64-kernel", expr, near.split(".")[0]), lambda: _kernel_for(expr, near))
    if got is None:
        return compile_float64(expr)
    k = got[1]
    return _by_name(k, list(inspect.signature(k).parameters))


def _shape(pt: Mapping[str, Any]) -> tuple[int, ...]:
    vals = [np.asarray(v) for v in pt.values()]
    return np.broadcast_shapes(*[v.shape for v in vals]) if vals else ()


def hypotheses_float64(hyps: Sequence[Any]) -> Callable[[Mapping[str, Any]], tuple[np.ndarray, np.ndarray]] | None:
    """``point -> (holds, unsure)`` for the hypotheses (relations ``<, <=, >, >=``): ``holds`` where every one clearly
    holds, ``unsure`` where one is within :data:`TIE_RTOL` of its boundary (mpmath decides there).  None when a
    hypothesis is not such a relation (an ``Eq``, a boolean combination) or has no float64 form."""
    parts = []
    for h in hyps:
        h = sp.sympify(h)
        if h is sp.true:
            continue
        if not isinstance(h, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
            return None
        lo, hi = (h.lhs, h.rhs) if isinstance(h, (sp.StrictLessThan, sp.LessThan)) else (h.rhs, h.lhs)
        f_lo, f_hi = compile_float64(lo), compile_float64(hi)
        if f_lo is None or f_hi is None:
            return None
        parts.append((f_lo, f_hi))

    def check(pt: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        shape = _shape(pt)
        holds, unsure = np.ones(shape, dtype=bool), np.zeros(shape, dtype=bool)
        with np.errstate(all="ignore"):
            for f_lo, f_hi in parts:
                a, b = np.broadcast_to(np.asarray(f_lo(pt), dtype=float), shape), np.broadcast_to(np.asarray(f_hi(pt), dtype=float), shape)
                tie = ~(np.abs(b - a) > TIE_RTOL * np.maximum(np.abs(a), np.abs(b)))  # NaN: unsure too
                unsure |= tie
                holds &= ~tie & (a < b)
        return holds, unsure

    return check


def is_min_term(at_expr: Any, own_expr: Any) -> Callable[[Mapping[str, Any]], tuple[np.ndarray, np.ndarray]] | None:
    """``point -> (holds, unsure)`` for "``own_expr`` is the value of ``at_expr``" (``at_expr`` a ``Min`` whose terms
    include ``own_expr``, as in He et al.'s eps' = min{eps'_1, eps'_2, eps'_3}): holds where ``own`` is the smallest
    term by more than :data:`TIE_RTOL`, fails where it exceeds the smallest by more, unsure at a near tie.  None when
    it has no float64 form."""
    at_expr, own_expr = sp.sympify(at_expr), sp.sympify(own_expr)
    if at_expr == own_expr:  # the entry's own value is the point itself
        return lambda pt: (np.ones(_shape(pt), dtype=bool), np.zeros(_shape(pt), dtype=bool))
    terms = list(at_expr.args) if isinstance(at_expr, sp.Min) else [at_expr]
    f_own = compile_float64(own_expr)
    f_terms = [compile_float64(t) for t in terms]
    if f_own is None or any(f is None for f in f_terms):
        return None

    def check(pt: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        shape = _shape(pt)
        with np.errstate(all="ignore"):
            own = np.broadcast_to(np.asarray(f_own(pt), dtype=float), shape)
            vals = np.stack([np.broadcast_to(np.asarray(f(pt), dtype=np.float64), shape) for f in f_terms if f is not None])
            tol = TIE_RTOL * np.maximum(np.abs(own), np.abs(vals).max(axis=0))
            near = np.abs(vals - own) <= tol  # the term own is, and any term tied with it
            below = (vals < own - tol).any(axis=0)
            ok = np.isfinite(own) & np.isfinite(vals).all(axis=0)
        holds = ok & ~below & (near.sum(axis=0) == 1)
        fails = ok & below
        return holds, ~holds & ~fails

    return check


def combine(*conds: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(holds, unsure)`` of a conjunction: fails where one clearly fails, else unsure where one is unsure."""
    fails = np.zeros(np.broadcast_shapes(*[h.shape for h, _ in conds]), dtype=bool)
    unsure = np.zeros_like(fails)
    for h, u in conds:
        fails |= ~h & ~u
        unsure |= u
    unsure &= ~fails
    return ~fails & ~unsure, unsure


def undefined_where(values: Any, holds: np.ndarray, unsure: np.ndarray) -> np.ma.MaskedArray:
    """``values`` masked where a condition clearly fails, NaN where it is unsure (mpmath decides)."""
    v = np.array(np.broadcast_to(np.asarray(values, dtype=float), holds.shape), dtype=float)
    v[unsure] = np.nan
    return np.ma.masked_array(v, mask=~holds & ~unsure)


def profile_twins(at_expr: Any, d_expr: Any, lhs_sub: tuple[str, Any] | None, binds: Sequence[tuple[str, Any]],
                  fn64: Callable[..., Any] | None, near: str) -> tuple[VecFn | None, VecFn | None]:
    """Twins of the generic "(at, delta)-DP" profile mapping: the claim side ``d_expr`` and the oracle's
    ``fn64(at=at_expr, **premise bindings)``, with the mechanism parameter ``lhs_sub[0]`` set to its boundary
    ``lhs_sub[1]`` first (all SymPy expressions; the same steps as the mpmath functions of the mapping).  ``near``:
    the entry's id (a formula that is an entry of the same paper is evaluated by its kernel, :func:`entry_float64`)."""
    f_at, f_d = compile_float64(at_expr), entry_float64(d_expr, near)
    f_sub = compile_float64(lhs_sub[1]) if lhs_sub is not None else None
    f_binds = [(name, compile_float64(e)) for name, e in binds]
    if lhs_sub is not None and f_sub is None:
        return None, None

    def with_sub(pt: Mapping[str, Any]) -> dict[str, Any]:
        kw = dict(pt)
        if lhs_sub is not None and f_sub is not None:
            kw[lhs_sub[0]] = f_sub(pt)
        return kw

    claim = None if f_d is None else (lambda pt: f_d(with_sub(pt)))
    if fn64 is None or f_at is None or any(f is None for _, f in f_binds):
        return claim, None

    def true(pt: Mapping[str, Any]) -> Any:
        kw = with_sub(pt)
        at = f_at(kw)
        vals = {name: f(kw) for name, f in f_binds}  # type: ignore[misc]
        kw.update(vals)
        kw["at"] = at
        return fn64(**kw)

    return claim, true


def per_point(fn: Callable[..., float], **arrays: Any) -> np.ndarray:
    """``fn`` (scalar floats in, a float out) at every point of the broadcast arrays."""
    keys = list(arrays)
    vals = np.broadcast_arrays(*[np.asarray(arrays[k], dtype=float) for k in keys])
    out = np.empty(vals[0].shape if vals else (), dtype=float)
    for idx in np.ndindex(out.shape):
        out[idx] = fn(**{k: float(v[idx]) for k, v in zip(keys, vals)})
    return out


__all__ = ["VecFn", "attach", "twins_of", "compile_float64", "entry_float64", "hypotheses_float64", "is_min_term", "combine",
           "undefined_where", "profile_twins",
           "per_point", "TIE_RTOL"]
