"""The Gaussian rules of the stability pass (:mod:`.rewrite`, which lists every rule in ``RULES``):
``erf``/``erfc`` -> ``ndtr`` (and ``1 - Phi(x)`` -> ``Phi(-x)``), ``erfinv`` -> ``ndtri``, differences of
Gaussian CDFs through ``gauss_diff``/``erfcx``, ``log(ndtr)`` -> ``log_ndtr``, ``exp(z^2) erfc(z)`` -> ``erfcx``,
``ndtri(ndtr(z))`` -> ``z`` and ``erfcx(z) - 1 + 2z/sqrt(pi)`` -> ``erfcx_rem``.  Each is an exact rewrite.
"""

from __future__ import annotations

import sympy as sp

from .functions import erfcx, erfcx_rem, gauss_diff, log_ndtr, ndtr, ndtri

_SQRT2 = sp.sqrt(2)


# ---------------------------------------------------------------- erf -> ndtr
def _erf_term(t: sp.Expr):
    """If t == c*erf(z) with numeric c, return (c, z)."""
    c, rest = t.as_coeff_Mul()
    if isinstance(rest, sp.erf):
        return c, rest.args[0]
    return None


def _add_erf_to_ndtr(e: sp.Add) -> sp.Expr:
    const, terms = e.as_coeff_Add()
    terms_l = list(sp.Add.make_args(terms))
    out = []
    for t in terms_l:
        m = _erf_term(t)
        if m is not None and abs(m[0]) == sp.S.Half and const >= sp.S.Half:
            c, z = m
            const -= sp.S.Half
            out.append(ndtr(_SQRT2 * z if c > 0 else -_SQRT2 * z))
        else:
            out.append(t)
    return sp.Add(const, *out)


def _has_erf_add(e: sp.Basic) -> bool:
    if not e.is_Add:
        return False
    const, terms = e.as_coeff_Add()
    return const >= sp.S.Half and any(_erf_term(t) is not None and abs(_erf_term(t)[0]) == sp.S.Half
                                      for t in sp.Add.make_args(terms))


def _one_minus_ndtr(e: sp.Add) -> sp.Expr:
    const, terms = e.as_coeff_Add()
    out = []
    for t in sp.Add.make_args(terms):
        c, rest = t.as_coeff_Mul()
        if isinstance(rest, ndtr) and c == -1 and const >= 1:
            const -= 1
            out.append(ndtr(-rest.args[0]))
        else:
            out.append(t)
    return sp.Add(const, *out)


def _is_one_minus_ndtr(e: sp.Basic) -> bool:
    if not e.is_Add:
        return False
    const, terms = e.as_coeff_Add()
    return const >= 1 and any(t.as_coeff_Mul()[0] == -1 and isinstance(t.as_coeff_Mul()[1], ndtr)
                              for t in sp.Add.make_args(terms))


def _erf_to_ndtr(expr: sp.Basic) -> sp.Basic:
    expr = expr.replace(lambda e: isinstance(e, sp.erfc), lambda e: 2 * ndtr(-_SQRT2 * e.args[0]))
    expr = expr.replace(_has_erf_add, _add_erf_to_ndtr)
    expr = expr.replace(_is_one_minus_ndtr, _one_minus_ndtr)
    return expr


def _erfinv_to_ndtri(expr: sp.Basic) -> sp.Basic:
    """erfinv(z) -> ndtri((1 + z)/2)/sqrt(2); ndtri(1 - x) -> -ndtri(x) (no 1 - tiny rounding)."""
    expr = expr.replace(lambda e: isinstance(e, sp.erfinv), lambda e: ndtri((1 + e.args[0]) / 2) / _SQRT2)

    def is_one_minus(e):
        if not isinstance(e, ndtri) or not e.args[0].is_Add:
            return False
        return e.args[0].as_coeff_Add()[0] == 1

    return expr.replace(is_one_minus, lambda e: -ndtri(1 - e.args[0]))


# ---------------------------------------------------------------- gauss_diff
def _ndtr_factor(t: sp.Expr):
    """t == coeff * exp(c) * ndtr(b) -> (coeff, c, b); c may be 0."""
    factors = sp.Mul.make_args(t)
    nd = [f for f in factors if isinstance(f, ndtr)]
    if len(nd) != 1:
        return None
    rest = [f for f in factors if f is not nd[0]]
    ex = [f for f in rest if isinstance(f, sp.exp)]
    num = [f for f in rest if not isinstance(f, sp.exp)]
    if len(ex) > 1 or not all(f.is_Number for f in num):
        return None
    coeff = sp.Mul(*num)
    return coeff, (ex[0].args[0] if ex else sp.S.Zero), nd[0].args[0]


def _gauss_diff_add(e: sp.Add) -> sp.Expr:
    terms = list(sp.Add.make_args(e))
    parsed = [_ndtr_factor(t) for t in terms]
    for i, pi in enumerate(parsed):
        if pi is None or pi[1] != 0:
            continue
        for j, pj in enumerate(parsed):
            if j == i or pj is None or pj[0] != -pi[0]:
                continue
            a, (c, b) = pi[2], pj[1:]
            d = sp.simplify(sp.expand(c - (b**2 - a**2) / 2))
            rest = [t for k, t in enumerate(terms) if k not in (i, j)]
            return sp.Add(pi[0] * gauss_diff(a, b, d), *rest)
    return e


def _has_gauss_pair(e: sp.Basic) -> bool:
    if not e.is_Add:
        return False
    parsed = [_ndtr_factor(t) for t in sp.Add.make_args(e)]
    plain = [p for p in parsed if p is not None and p[1] == 0]
    return any(p is not None and q[0] == -p[0] and q is not p for p in plain for q in parsed if q is not None)


def _gauss_diff(expr: sp.Basic) -> sp.Basic:
    return expr.replace(_has_gauss_pair, _gauss_diff_add)


# ---------------------------------------------------------------- log(ndtr)
def _log_ndtr(expr: sp.Basic) -> sp.Basic:
    return expr.replace(lambda e: isinstance(e, sp.log) and isinstance(e.args[0], ndtr),
                        lambda e: log_ndtr(e.args[0].args[0]))


# ---------------------------------------------------------------- exp(z^2) erfc(z)
def _erfcx_rule(expr: sp.Basic) -> sp.Basic:
    def match(e):
        if not e.is_Mul:
            return False
        ex = [f for f in e.args if isinstance(f, sp.exp)]
        ec = [f for f in e.args if isinstance(f, sp.erfc)]
        return len(ex) == 1 and len(ec) == 1 and sp.expand(ex[0].args[0] - ec[0].args[0] ** 2) == 0

    def repl(e):
        ex = next(f for f in e.args if isinstance(f, sp.exp))
        ec = next(f for f in e.args if isinstance(f, sp.erfc))
        rest = [f for f in e.args if f is not ex and f is not ec]
        return sp.Mul(*rest) * erfcx(ec.args[0])

    return expr.replace(match, repl)


# ---------------------------------------------------------------- ndtri(ndtr(z)) -> z
def _ndtri_ndtr(expr: sp.Basic) -> sp.Basic:
    """``ndtri(ndtr(z)) -> z`` (Phi^-1 o Phi is the identity on the reals; no round trip through 1 - tiny)."""
    return expr.replace(lambda e: isinstance(e, ndtri) and isinstance(e.args[0], ndtr), lambda e: e.args[0].args[0])


# ---------------------------------------------------------------- erfcx(z) - 1 + 2z/sqrt(pi)
def _erfcx_rem(expr: sp.Basic) -> sp.Basic:
    """``erfcx(z) - 1 + 2 z/sqrt(pi) -> erfcx_rem(z)`` (evaluated without the O(z^2) cancellation)."""
    def find(e):
        if not e.is_Add:
            return None
        const, _ = e.as_coeff_Add()
        if const > -1:
            return None
        terms = list(sp.Add.make_args(e))
        for t in terms:
            if isinstance(t, erfcx):
                z = t.args[0]
                for u in terms:
                    if u is not t and sp.expand(u - 2 * z / sp.sqrt(sp.pi)) == 0:
                        return t, u, z
        return None

    def repl(e):
        t, u, z = find(e)
        rest = [v for v in sp.Add.make_args(e) if v is not t and v is not u]
        return sp.Add(erfcx_rem(z), 1, *rest)

    return expr.replace(lambda e: find(e) is not None, repl)
