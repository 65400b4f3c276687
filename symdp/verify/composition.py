r"""Composition oracles with entry mappers: He et al.'s composition theorems against the exact optimum.

The exact reference is the optimal composition of Kairouz, Oh and Viswanath
(2017): :func:`~symdp.verify.oracles.optimal_composition` for T identical
(eps, delta)-DP steps, :func:`~symdp.verify.oracles.optimal_composition_hetero`
for heterogeneous steps (exact convolution of the worst-case pairs).  A claim
"A is (eps', delta')-DP" is an upper bound on the composed privacy, so it is
checked as ``delta_opt(eps') <= delta'``.

The oracles here carry a *mapper*: a function ``Theorem -> (f_claim, f_true,
relation, symbols[, ranges])`` that reads the entry's own statement (and, where
the theorem defines eps' or delta' in a sibling entry, that entry's statement,
looked up by id: nothing is re-typed) and returns the two callables the
numerical rung compares.  Where the claim is made only at a point (eps' is
Theorem 4's min{eps'_1, eps'_2, eps'_3}), the mapper evaluates the entry only
where its own formula is that point (``None`` elsewhere: not evaluable).

Theorem 4's delta' is "the maximal value of eq. (7) over {alpha_i} in the
boundary of I = {sum alpha_i = eps', 0 <= alpha_i <= eps_i}".  With
``c_i = delta_i/(1 + e^{eps_i})`` eq. (7) is ``2 - prod(1 - e^{alpha_i} c_i) -
prod(1 - c_i) + delta~``; ``log(1 - c e^a)`` is concave in ``a``, so the
product is minimised (eq. (7) maximised) at a vertex of the polytope I: every
alpha_i at 0 or eps_i except one.  :func:`eq7_max` enumerates the vertices
(homogeneous case: k = floor(eps'/eps) full steps and one partial step).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from itertools import product
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from .oracles import Oracle, _mpf, optimal_composition, optimal_composition_hetero, register
from .oracles_pairs import optimal_composition_float64
from .twins import (
    TIE_RTOL,
    attach,
    combine,
    compile_float64,
    entry_float64,
    hypotheses_float64,
    is_min_term,
    undefined_where,
)

T_HETERO_MAX = 8  # heterogeneous sequences: exact convolution and 2^T vertices


# ---------------------------------------------------------------------------
# eq. (7) of He et al. (UAI 2021, Theorem 4)
# ---------------------------------------------------------------------------


def eq7_value(alphas: Sequence[Any], eps: Sequence[Any], deltas: Sequence[Any], deltatilde: Any) -> mpmath.mpf:
    """Eq. (7): ``2 - prod(1 - e^{alpha_i} delta_i/(1+e^{eps_i})) - prod(1 - delta_i/(1+e^{eps_i})) + delta~``."""
    p1 = mpmath.fprod(1 - mpmath.exp(_mpf(a)) * _mpf(d) / (1 + mpmath.exp(_mpf(e))) for a, e, d in zip(alphas, eps, deltas))
    p2 = mpmath.fprod(1 - _mpf(d) / (1 + mpmath.exp(_mpf(e))) for e, d in zip(eps, deltas))
    return 2 - p1 - p2 + _mpf(deltatilde)


def eq7_vertices(epsprime: Any, eps: Sequence[Any]) -> list[list[mpmath.mpf]]:
    """Vertices of I = {sum alpha_i = eps', 0 <= alpha_i <= eps_i} (empty when eps' > sum eps_i)."""
    ep = _mpf(epsprime)
    T = len(eps)
    out = []
    for j in range(T):
        others = [i for i in range(T) if i != j]
        for bits in product((0, 1), repeat=len(others)):
            a = [mpmath.mpf(0)] * T
            for i, b in zip(others, bits):
                a[i] = _mpf(eps[i]) if b else mpmath.mpf(0)
            rest = ep - mpmath.fsum(a)
            if rest < 0 or rest > _mpf(eps[j]):
                continue
            a[j] = rest
            out.append(a)
    return out


def eq7_max(epsprime: Any, eps: Sequence[Any], deltas: Sequence[Any], deltatilde: Any) -> mpmath.mpf | None:
    """max of eq. (7) over I (at a vertex, see the module docstring); None when I is empty.

    The same numbers as ``max(eq7_value(a, ...) for a in eq7_vertices(...))``, bit for bit: the vertices are
    enumerated in the same order with the same ``rest = eps' - fsum(a)``, and each factor
    ``1 - e^{alpha_i} delta_i / (1 + e^{eps_i})`` is the same operations on the same operands, computed once per step
    for alpha_i = 0 and alpha_i = eps_i instead of once per vertex (and the alpha-free product once)."""
    ep = _mpf(epsprime)
    T = len(eps)
    em = [_mpf(e) for e in eps]
    dm = [_mpf(d) for d in deltas]
    den = [1 + mpmath.exp(e) for e in em]
    zero = mpmath.mpf(0)
    f0 = [1 - mpmath.exp(zero) * d / q for d, q in zip(dm, den)]  # alpha_i = 0
    f1 = [1 - mpmath.exp(e) * d / q for e, d, q in zip(em, dm, den)]  # alpha_i = eps_i
    p2 = mpmath.fprod(1 - d / q for d, q in zip(dm, den))
    dt = _mpf(deltatilde)
    # float64 pre-screen of the vertex test ``0 <= rest <= eps_j`` (it decides nothing itself): the float64 sum
    # is within T 2^-52 (|eps'| + sum eps_i) of the exact one, and the computed ``rest`` (fsum rounded once, then one
    # subtraction, at >= 53 bits) within 2^-51 (|eps'| + sum eps_i) of it, so a float64 rest beyond the margin below
    # (1e-9 of that scale, far above both for any T this enumeration affords) puts the computed one on the same
    # side: such vertices are skipped without their fsum, the others tested exactly as before (same values)
    e64 = [float(e) for e in em]
    ep64 = float(ep)
    margin = 1e-9 * (abs(ep64) + sum(abs(x) for x in e64)) + 1e-300
    screen = all(math.isfinite(x) for x in e64) and math.isfinite(ep64) and math.isfinite(margin)
    vals = []
    for j in range(T):
        others = [i for i in range(T) if i != j]
        for bits in product((0, 1), repeat=len(others)):
            if screen:
                r64 = ep64 - sum(e64[i] for i, b in zip(others, bits) if b)
                if r64 < -margin or r64 > e64[j] + margin:
                    continue
            a = [zero] * T
            for i, b in zip(others, bits):
                if b:
                    a[i] = em[i]
            rest = ep - mpmath.fsum(a)
            if rest < 0 or rest > em[j]:
                continue
            fj = 1 - mpmath.exp(rest) * dm[j] / den[j]
            p1 = mpmath.fprod(fj if i == j else (f1[i] if a[i] is em[i] else f0[i]) for i in range(T))
            vals.append(2 - p1 - p2 + dt)
    if not vals:
        return None
    return max(vals)


def eq7_max_homogeneous(epsprime: Any, epsilon: Any, delta: Any, T: int, deltatilde: Any) -> mpmath.mpf | None:
    """max of eq. (7) for T identical (eps, delta) steps: k = floor(eps'/eps) steps at eps, one at the rest."""
    ep, e, d = _mpf(epsprime), _mpf(epsilon), _mpf(delta)
    T = int(T)
    if ep < 0 or ep > T * e * (1 + mpmath.mpf(10) ** (-mpmath.mp.dps + 5)):
        return None
    c = d / (1 + mpmath.exp(e))
    k = min(int(mpmath.floor(ep / e)), T)
    r = max(ep - k * e, mpmath.mpf(0))
    if k >= T:
        p1 = (1 - mpmath.exp(e) * c) ** T
    else:
        p1 = (1 - mpmath.exp(e) * c) ** k * (1 - mpmath.exp(r) * c) * (1 - c) ** (T - k - 1)
    return 2 - p1 - (1 - c) ** T + _mpf(deltatilde)


def eq7_max_simplex_homogeneous(epsprime: Any, epsilon: Any, delta: Any, T: int, deltatilde: Any) -> mpmath.mpf:
    """He et al. Thm 6's delta': max of eq. (7) over the boundary of I = {sum alpha_i = eps', alpha_i >= 0}
    (no upper bound alpha_i <= eps_i): the product is minimised at a vertex, alpha_j = eps' for one j."""
    ep, e, d = _mpf(epsprime), _mpf(epsilon), _mpf(delta)
    c = d / (1 + mpmath.exp(e))
    return 2 - (1 - mpmath.exp(ep) * c) * (1 - c) ** (int(T) - 1) - (1 - c) ** int(T) + _mpf(deltatilde)


def _f64(*xs: Any) -> list[np.ndarray]:
    return list(np.broadcast_arrays(*[np.asarray(x, dtype=float) for x in xs]))


def eq7_max_homogeneous_float64(epsprime: Any, epsilon: Any, delta: Any, T: Any, deltatilde: Any) -> np.ma.MaskedArray:
    """Float64 twin of :func:`eq7_max_homogeneous` (arrays broadcast), for the audit's plots only
    (:mod:`symdp.verify.twins`): ``1 - prod`` as ``-expm1(sum of log1p)``; masked where I is clearly empty (eps' < 0
    or eps' > T eps), NaN where float64 cannot tell (eps'/eps at an integer, eps' at T eps)."""
    ep, e, d, T, dt = _f64(epsprime, epsilon, delta, T, deltatilde)
    with np.errstate(all="ignore"):
        te = T * e
        out = (ep < -TIE_RTOL * te) | (ep > te * (1 + TIE_RTOL))
        # at eps' = T eps (the theorem's eps' = min{T eps, ...} at its first term) or eps' = 0 float64 cannot tell
        # whether eps' is inside I (mpmath's test has a relative tolerance of 1e-25).  floor(eps'/eps) need not be
        # exact: the value is continuous where eps'/eps crosses an integer
        unsure = ((np.abs(ep) <= TIE_RTOL * te) | (np.abs(ep - te) <= TIE_RTOL * te) | (T != np.round(T))) & ~out
        k = np.minimum(np.floor(ep / e), T)
        r = np.maximum(ep - k * e, 0.0)
        c = d / (1 + np.exp(e))
        l1c = np.log1p(-c)
        lf = np.log1p(-np.exp(e) * c)
        lp1 = np.where(k >= T, T * lf, k * lf + np.log1p(-np.exp(r) * c) + (T - k - 1) * l1c)
        v = -np.expm1(lp1) - np.expm1(T * l1c) + dt
    holds = ~out & ~unsure
    return undefined_where(v, holds, unsure & ~out)


def eq7_max_simplex_homogeneous_float64(epsprime: Any, epsilon: Any, delta: Any, T: Any, deltatilde: Any) -> np.ndarray:
    """Float64 twin of :func:`eq7_max_simplex_homogeneous` (arrays broadcast), for the audit's plots only: ``2 - p1 -
    p2`` as ``(1 - p1) + (1 - p2)``, each without cancellation."""
    ep, e, d, T, dt = _f64(epsprime, epsilon, delta, T, deltatilde)
    with np.errstate(all="ignore"):
        c = d / (1 + np.exp(e))
        x = np.exp(ep) * c
        l1c = np.log1p(-c)
        one_m_p1 = np.where(x < 1, -np.expm1(np.log1p(-x) + (T - 1) * l1c), 1 - (1 - x) * np.exp((T - 1) * l1c))
        v = one_m_p1 - np.expm1(T * l1c) + dt
    return np.where(T == np.round(T), v, np.nan)


# ---------------------------------------------------------------------------
# helpers: compile library expressions, heterogeneous sequences
# ---------------------------------------------------------------------------


def _compile(expr: sp.Basic) -> Callable:
    from .compile import compile_expr

    return compile_expr(expr)


def _lib(id_: str):
    from ..library import get

    return get(id_)


def _close(a: mpmath.mpf, b: mpmath.mpf) -> bool:
    return abs(a - b) <= mpmath.mpf(10) ** (-mpmath.mp.dps + 8) * max(abs(a), abs(b), 1)


_SEQ_R = sp.Symbol("r_spread", positive=True)  # eps_i = epsilon * r^((i-1)/(T-1)): spread of the sequence


def hetero_sequence(epsilon: Any, r: Any, T: int) -> list[mpmath.mpf]:
    """The sampled heterogeneous sequence: geometric from eps_1 = epsilon to eps_T = epsilon * r."""
    e, rr = _mpf(epsilon), _mpf(r)
    if T == 1:
        return [e]
    return [e * rr ** (mpmath.mpf(i) / (T - 1)) for i in range(T)]


@lru_cache(maxsize=256)
def _expanded(expr: sp.Basic, T: int) -> tuple[Callable, tuple[str, ...], int]:
    """An entry's expression with its sums/products over i = 1..T expanded for a concrete T, lambdified.

    Returns (f, scalar names, T): ``f(*scalars, *eps_1..T, *delta_1..T)``.
    """
    Tsym = [s for s in expr.free_symbols if isinstance(s, sp.Symbol) and s.name == "T"]
    if Tsym:
        expr = expr.subs(Tsym[0], T)
    expr = expr.doit()
    eps_syms = [sp.Symbol(f"e_{i}", positive=True) for i in range(1, T + 1)]
    del_syms = [sp.Symbol(f"d_{i}", nonnegative=True) for i in range(1, T + 1)]
    rep = {}
    for ind in expr.atoms(sp.Indexed):
        base, idx = ind.base.label.name, int(ind.indices[0])
        if base == "epsilon_seq":
            rep[ind] = eps_syms[idx - 1]
        elif base == "delta_seq":
            rep[ind] = del_syms[idx - 1]
    expr = expr.xreplace(rep)
    scal = tuple(sorted(s.name for s in expr.free_symbols if s not in eps_syms and s not in del_syms))
    f = sp.lambdify([sp.Symbol(n) for n in scal] + eps_syms + del_syms, expr.xreplace({s: sp.Symbol(s.name) for s in expr.free_symbols if s.name in scal}), modules=["mpmath"])
    return f, scal, T


_EXPANDED_BY_ID: dict[tuple[int, int], tuple[sp.Basic, tuple[Callable, tuple[str, ...], int]]] = {}


def _expanded_fast(expr: sp.Basic, T: int) -> tuple[Callable, tuple[str, ...], int]:
    """:func:`_expanded` looked up by the expression object first: a mapper evaluates the same few expression objects
    at every point, and the LRU cache's lookup compares a different but equal object structurally (SymPy's ``==``:
    about 2 ms for Theorem 4's sums, more than the evaluation).  The same compiled function either way."""
    key = (id(expr), T)
    hit = _EXPANDED_BY_ID.get(key)
    if hit is not None and hit[0] is expr:
        return hit[1]
    got = _expanded(expr, T)
    if len(_EXPANDED_BY_ID) > 4096:
        _EXPANDED_BY_ID.clear()
    _EXPANDED_BY_ID[key] = (expr, got)
    return got


def eval_indexed(expr: sp.Basic, point: dict[str, Any], eps: Sequence[Any], deltas: Sequence[Any]) -> mpmath.mpf:
    """Evaluate a library expression with Sum/Product over ``epsilon_seq[i]``, ``delta_seq[i]``, i = 1..T."""
    T = len(eps)
    f, scal, _ = _expanded_fast(expr, T)
    v = f(*[point[n] for n in scal], *eps, *deltas)
    if isinstance(v, mpmath.mpc):
        return v.real if abs(v.imag) <= 1e-25 * max(1, abs(v.real)) else mpmath.mpf("nan")
    return _mpf(v)


def _hyps_ok(th, pt: dict[str, Any]) -> bool:
    from .compile import hyp_checker as _hyp_checker

    return _hyp_checker(th.hypotheses)({k: mpmath.nstr(v, mpmath.mp.dps) if isinstance(v, mpmath.mpf) else str(v) for k, v in pt.items()})


def _S(name: str, th=None, **assume) -> sp.Symbol:
    if th is not None:
        for s in th.symbols:
            if s.name == name:
                return s
    return sp.Symbol(name, **(assume or {"positive": True}))


# ---------------------------------------------------------------------------
# mappers
# ---------------------------------------------------------------------------

THM4_MIN_IDS = ("he2021.thm4_eps1", "he2021.thm4_eps2", "he2021.thm4_eps3")
THM4_SUM_IDS = ("he2021.thm4_eps1_sum", "he2021.thm4_eps2_sum", "he2021.thm4_eps3_sum")


def map_thm4_homogeneous(th, *, simplex: bool = False):
    """He et al. Thm 4 / Thm 6, identical (eps, delta) steps: A is (eps', max eq.(7) at eps')-DP.

    eps' is the conclusion's first parameter (Thm 4: min{eps'_1, eps'_2, eps'_3}); the entry's own
    rhs is evaluated only where it equals that eps' (where this component is the theorem's eps').
    """
    if th.conclusion is None or th.conclusion.name.upper() != "DP":
        return "no (eps', delta')-DP conclusion"
    at_expr = sp.sympify(th.conclusion.params[0])
    f_at, f_own = _compile(at_expr), _compile(th.rhs)
    syms = set(at_expr.free_symbols) | set(th.rhs.free_symbols) | {_S("delta", th)}

    def f_claim(pt):
        if not _hyps_ok(th, pt):
            return None
        at, own = f_at(pt), f_own(pt)
        if not _close(at, own):
            return None  # this component is not the theorem's eps' here
        fn = eq7_max_simplex_homogeneous if simplex else eq7_max_homogeneous
        return fn(at, pt["epsilon"], pt["delta"], int(pt["T"]), pt["deltatilde"])

    def f_true(pt):
        return optimal_composition(epsilon=pt["epsilon"], delta=pt["delta"], T=int(pt["T"]), at=f_at(pt))

    def twins():
        g_at, hyps, is_min = compile_float64(at_expr), hypotheses_float64(th.hypotheses), is_min_term(at_expr, th.rhs)
        if g_at is None:
            return None
        fn = eq7_max_simplex_homogeneous_float64 if simplex else eq7_max_homogeneous_float64

        def claim(pt):
            v = np.ma.asarray(fn(g_at(pt), pt["epsilon"], pt["delta"], pt["T"], pt["deltatilde"]))
            data, undefined = np.ma.getdata(v), np.ma.getmaskarray(v)
            unknown = np.isnan(data) & ~undefined
            holds, unsure = combine(hyps(pt), is_min(pt), (~undefined & ~unknown, unknown))  # type: ignore[misc]
            return undefined_where(data, holds, unsure)

        def true(pt):
            return optimal_composition_float64(epsilon=pt["epsilon"], delta=pt["delta"], T=pt["T"], at=g_at(pt))

        return (claim if hyps is not None and is_min is not None else None), true

    return f_claim, attach(f_true, twins), "<=", syms


def _hetero_common(th, *, pure: bool):
    T = _S("T", th, positive=True, integer=True)
    eps = _S("epsilon", None)
    syms = {T, eps, _SEQ_R} | ({_S("delta")} if not pure else set())
    ranges = {"epsilon": (1e-3, 2.0), "r_spread": (0.05, 1.0), "delta": (1e-12, 0.01)}
    return syms, ranges


def _seq(pt, pure: bool):
    T = int(pt["T"])
    es = hetero_sequence(pt["epsilon"], pt["r_spread"], T)
    ds = [mpmath.mpf(0) if pure else _mpf(pt["delta"])] * T
    return es, ds


def map_thm4_hetero(th):
    """He et al. Thm 4, heterogeneous (eps_i, delta): eps' = min of the three sum forms, delta' = max eq. (7).

    The step sequence is eps_i = epsilon * r^((i-1)/(T-1)), delta_i = delta (T <= 8); checked where this
    entry's eps'_k is the theorem's eps' (the min)."""
    exprs = [_lib(i).rhs for i in THM4_SUM_IDS]
    syms, ranges = _hetero_common(th, pure=False)
    syms |= {_S("deltatilde", th)}

    def f_claim(pt):
        es, ds = _seq(pt, False)
        vals = [eval_indexed(e, pt, es, ds) for e in exprs]
        own = eval_indexed(th.rhs, pt, es, ds)
        at = min(vals)
        if not _close(at, own):
            return None
        return eq7_max(at, es, ds, pt["deltatilde"])

    def f_true(pt):
        es, ds = _seq(pt, False)
        at = min(eval_indexed(e, pt, es, ds) for e in exprs)
        return optimal_composition_hetero(list(zip(es, ds)), at)

    return f_claim, f_true, "<=", syms, ranges


def map_hetero_at_delta(th):
    """Heterogeneous eps_i-DP steps (premise (eps_i, 0)), eps' = rhs at the free delta': delta_opt(eps') <= delta'."""
    syms, ranges = _hetero_common(th, pure=True)
    syms |= {_S("deltaprime", th)}
    ranges["deltaprime"] = (1e-12, 0.1)

    def f_claim(pt):
        return pt["deltaprime"]

    def f_true(pt):
        es, ds = _seq(pt, True)
        return optimal_composition_hetero(list(zip(es, ds)), eval_indexed(th.rhs, pt, es, ds))

    return f_claim, f_true, "<=", syms, ranges


def map_dwork_roth_hetero(th):
    """Dwork-Roth advanced composition, heterogeneous (eps_i, delta): (eps', delta~ + sum_i delta_i)-DP."""
    syms, ranges = _hetero_common(th, pure=False)
    syms |= {_S("deltatilde", th)}

    def f_claim(pt):
        return _mpf(pt["deltatilde"]) + int(pt["T"]) * _mpf(pt["delta"])

    def f_true(pt):
        es, ds = _seq(pt, False)
        return optimal_composition_hetero(list(zip(es, ds)), eval_indexed(th.rhs, pt, es, ds))

    return f_claim, f_true, "<=", syms, ranges


def map_eq_hypothesis(th):
    """A delta' bound written at eps' fixed by a hypothesis ``Eq(epsilonprime, expr)``: substitute, then
    delta_opt(eps') <= delta'.  Other hypotheses are checked at the substituted point.  A free slack symbol
    inside expr named ``deltatilde_*`` is sampled as delta~."""
    eq = [h for h in th.hypotheses if isinstance(h, sp.Equality) and isinstance(h.lhs, sp.Symbol)]
    if len(eq) != 1:
        return "needs exactly one hypothesis Eq(epsilonprime, ...)"
    target, at_expr = eq[0].lhs, eq[0].rhs
    dt = _S("deltatilde", th)
    ren = {s: dt for s in at_expr.free_symbols if s.name.startswith("deltatilde_")}
    at_expr = at_expr.xreplace(ren)
    f_at, f_d = _compile(at_expr), _compile(th.rhs)
    others = tuple(h for h in th.hypotheses if h is not eq[0])
    syms = (set(at_expr.free_symbols) | set(th.rhs.free_symbols) | {s for h in others for s in h.free_symbols}) - {target}

    def f_claim(pt):
        kw = dict(pt)
        kw[target.name] = f_at(pt)
        if not _hyps_ok(replace(th, hypotheses=others), kw):
            return None
        return f_d(kw)

    def f_true(pt):
        return optimal_composition(epsilon=pt["epsilon"], delta=pt["delta"], T=int(pt["T"]), at=f_at(pt))

    def twins():
        # the hypotheses with eps' replaced by its expression (as the mpmath side evaluates them at eps' = f_at)
        g_at, g_d = compile_float64(at_expr), entry_float64(th.rhs, th.id)
        hyps = hypotheses_float64([sp.sympify(h).xreplace({target: at_expr}) for h in others])
        if g_at is None:
            return None

        def claim(pt):
            kw = dict(pt)
            kw[target.name] = g_at(pt)
            holds, unsure = hyps(pt)  # type: ignore[misc]
            return undefined_where(g_d(kw), holds, unsure)  # type: ignore[misc]

        def true(pt):
            return optimal_composition_float64(epsilon=pt["epsilon"], delta=pt["delta"], T=pt["T"], at=g_at(pt))

        return (claim if g_d is not None and hyps is not None else None), true

    return f_claim, attach(f_true, twins), "<=", syms


IGMM_EPS, IGMM_DELTA, IGMM_DTP = "he2021uai.thm7_eps", "he2021uai.thm7_delta", "he2021uai.thm7_delta_tilde_p"


def map_igmm(th):
    """He et al. (UAI) Thm 7: T IGMM steps, each (eps~, delta)-DP (the premise), compose to (eps', delta')-DP
    with eps' = Thm 7's eps' (he2021uai.thm7_eps), delta' = Thm 7's delta' (he2021uai.thm7_delta) whose
    delta~' is its definition (he2021uai.thm7_delta_tilde_p) at that eps'.  Checked as
    delta_opt(eps') <= delta' for T identical (eps~, delta)-DP steps."""
    e_eps, e_del, e_dtp = _lib(IGMM_EPS), _lib(IGMM_DELTA), _lib(IGMM_DTP)
    f_eps, f_del, f_dtp = _compile(e_eps.rhs), _compile(e_del.rhs), _compile(e_dtp.rhs)
    syms = set(e_eps.rhs.free_symbols) | (set(e_del.rhs.free_symbols) - {_S("epsilonprime", e_del), _S("deltatildeprime", e_del)})
    ranges = {nm: (float(lo), float(hi)) for s, lo, hi in e_del.domain for nm in [s.name]}
    ranges["epsilontilde"] = (0.01, 0.5)
    ranges["T"] = (10, 500)
    ranges["deltatilde"] = (1e-12, 0.01)

    def f_claim(pt):
        kw = dict(pt)
        ep = f_eps(kw)
        if not (ep > 0 and ep < int(pt["T"]) * pt["epsilontilde"]) or not pt["tau"] < pt["N"]:
            return None
        kw["epsilonprime"] = ep
        kw["deltatildeprime"] = f_dtp(kw)
        return f_del(kw)

    def f_true(pt):
        return optimal_composition(epsilon=pt["epsilontilde"], delta=pt["delta"], T=int(pt["T"]), at=f_eps(pt))

    def twins():
        g_eps, g_del, g_dtp = compile_float64(e_eps.rhs), entry_float64(e_del.rhs, IGMM_DELTA), entry_float64(e_dtp.rhs, IGMM_DTP)
        T, et, tau, N = (_S(n) for n in ("T", "epsilontilde", "tau", "N"))
        conds = hypotheses_float64([sp.StrictGreaterThan(e_eps.rhs, 0), sp.StrictLessThan(e_eps.rhs, T * et),
                                    sp.StrictLessThan(tau, N)])
        if g_eps is None:
            return None

        def claim(pt):
            kw = dict(pt)
            kw["epsilonprime"] = g_eps(kw)
            kw["deltatildeprime"] = g_dtp(kw)  # type: ignore[misc]
            holds, unsure = conds(pt)  # type: ignore[misc]
            return undefined_where(g_del(kw), holds, unsure)  # type: ignore[misc]

        def true(pt):
            return optimal_composition_float64(epsilon=pt["epsilontilde"], delta=pt["delta"], T=pt["T"], at=g_eps(pt))

        return (claim if g_del is not None and g_dtp is not None and conds is not None else None), true

    return f_claim, attach(f_true, twins), "<=", syms, ranges


def map_tied_profile(th):
    """The generic (eps', delta')-DP profile check with the conclusion's eps~ read as the premise's eps
    (He et al. long, Thm 8: 'C.2 repeats it with eps (= eps~ of C.1)')."""
    from .registry import ORACLES
    from .rungs.oracle import oracle_functions as _oracle_functions

    et, e = _S("epsilontilde", th), _S("epsilon", th)
    conc = th.conclusion
    if conc is None:
        return "no conclusion"
    conc2 = replace(conc, params=tuple(sp.sympify(p).xreplace({et: e}) for p in conc.params))
    mapped = _oracle_functions(replace(th, conclusion=conc2), ORACLES["optimal_composition"])
    if isinstance(mapped, tuple) and len(conc.params) == 2:
        generic = getattr(mapped[1], "float64_twins", None)

        def twins():
            # the claim's delta' before the tie is an entry of the paper (Thm 8's delta'): its generated kernel, with
            # eps~ := eps, has none of the cancellations of the formula's float64 form
            got = generic() if generic is not None else None
            if got is None:
                return None
            g_d = entry_float64(sp.sympify(conc.params[1]), th.id)
            return ((lambda pt: g_d({**pt, et.name: pt[e.name]})) if g_d is not None else got[0]), got[1]

        attach(mapped[1], twins)
    return mapped


for _name, _fn, _desc in (
    ("composition_eq7", map_thm4_homogeneous, "KOV optimal composition vs He et al. Thm 4/6 (eps', max eq.(7)) for T identical steps"),
    ("composition_eq7_simplex", lambda th: map_thm4_homogeneous(th, simplex=True),
     "KOV optimal composition vs He et al. Thm 6 (eps', max eq.(7) over {sum alpha = eps', alpha >= 0}), identical steps"),
    ("composition_eq7_hetero", map_thm4_hetero, "KOV optimal composition (heterogeneous, exact) vs He et al. Thm 4 sum forms, T <= 8"),
    ("composition_hetero_pure", map_hetero_at_delta, "KOV optimal composition (heterogeneous eps_i-DP, exact) at eps'(delta'), T <= 8"),
    ("composition_hetero_dr", map_dwork_roth_hetero, "KOV optimal composition (heterogeneous, exact) vs (eps', delta~ + sum delta_i), T <= 8"),
    ("composition_at_eq", map_eq_hypothesis, "KOV optimal composition at the eps' fixed by the entry's Eq hypothesis"),
    ("composition_igmm", map_igmm, "KOV optimal composition of T (eps~, delta)-DP IGMM steps vs Thm 7's (eps', delta')"),
    ("composition_tied", map_tied_profile, "KOV optimal composition, conclusion's eps~ read as the premise's eps"),
):
    register(Oracle(_name, lambda **kw: None, "profile", (), _desc, mapper=_fn))


__all__ = ["eq7_value", "eq7_vertices", "eq7_max", "eq7_max_homogeneous", "hetero_sequence", "eval_indexed",
           "map_thm4_homogeneous", "map_thm4_hetero", "map_hetero_at_delta", "map_dwork_roth_hetero",
           "map_eq_hypothesis", "map_igmm", "map_tied_profile"]
