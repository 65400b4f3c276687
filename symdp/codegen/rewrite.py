r"""The stability pass: exact rewrites applied before printing, as rule objects (the Gaussian rules live in
:mod:`.rewrite_gauss`; ``RULES`` here lists them all).

Rules follow :mod:`sympy.codegen.rewriting` (:class:`~sympy.codegen.rewriting.Optimization`
subclasses with a priority; a ``cost_function`` may pick the cheaper of old and new).
Every rule here is **exact** (the rewritten expression equals the original
wherever the original is defined on the theorem's domain); ``tests/test_codegen.py``
checks each one symbolically or at many mpmath points.  There are no lossy
rewrites, so no bound direction can be changed by this pass.

Rules (highest priority first):

``erf_to_ndtr``
    ``1/2 +- erf(z)/2 -> ndtr(+-sqrt(2) z)``, ``erfc(z) -> 2 ndtr(-sqrt(2) z)``,
    ``1 - ndtr(x) -> ndtr(-x)`` (no ``1 - tiny`` cancellation in Gaussian tails).
``erfinv_to_ndtri``
    ``erfinv(z) -> ndtri((1 + z)/2)/sqrt(2)`` and ``ndtri(1 - x) -> -ndtri(x)``
    (quantiles of tiny probabilities without rounding ``1 - 2 alpha``).
``gauss_diff``
    ``ndtr(a) - exp(c) ndtr(b) -> gauss_diff(a, b, c - (b^2 - a^2)/2)`` with the
    exponent difference simplified symbolically (0 for the Gaussian privacy
    profile), evaluated through ``erfcx`` (cancellation-free difference).
``log_ndtr``
    ``log(ndtr(x)) -> log_ndtr(x)``.
``log_gamma``
    ``log(gamma(x)) -> loggamma(x)`` when SymPy proves ``x > 0`` (no overflow of gamma).
``pow_log1p``
    ``(1 + x)**k -> exp(k log1p(x))`` for a symbolic exponent (exact where
    ``1 + x > 0``, which the hypotheses of every entry with such a term state).
``one_minus_prod``
    ``1 - prod(1 - a_i) -> -expm1(sum log1p(-a_i))``.
``logspace_product``
    ``prod b_i**e_i * exp(a) -> exp(sum e_i log b_i + a)`` for symbolic exponents
    (no intermediate overflow/underflow; exact where the bases are positive).
``one_minus_exp`` / ``factor_expm1``
    ``k - exp(s) -> (k-1) - expm1(s)``; ``c exp(A) - c -> c expm1(A)``.
``tanh_half``
    ``expm1(x)/(exp(x) + 1) -> tanh(x/2)``.
``erfcx`` / ``log1mexp``
    ``exp(z^2) erfc(z) -> erfcx(z)``; ``log(1 - e^x) -> log1mexp(x)``.
``expm1`` / ``log1p`` / ``logaddexp``
    SymPy's ``expm1_opt`` and ``logaddexp_opt``; symdp's own ``log1p`` (SymPy's
    ``log1p_opt`` expands ``log(a/b)`` into ``log a - log b``, which cancels).
``ceil_simplify``
    positive factors distributed into ``Min``/``Max`` under ``ceiling``/``floor``
    (the guarded ceil: ``T eps / eps`` stays exactly ``T``).
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp
from sympy.codegen.rewriting import Optimization, expm1_opt, logaddexp_opt

from .functions import (
    expm1,
    log1mexp,
    log1p,
    log1p_mix,
    log_ratio,
    xlogx,
)
from .rewrite_gauss import (
    _erf_to_ndtr,
    _erfcx_rem,
    _erfcx_rule,
    _erfinv_to_ndtri,
    _gauss_diff,
    _log_ndtr,
    _ndtri_ndtr,
)

__all__ = ["Rule", "RULES", "stabilize", "rules_applied"]

class Rule(Optimization):
    """A named rewrite rule: ``rule(expr)`` returns the rewritten expression.

    ``exact`` is True for every rule shipped (see module docstring); ``where``
    states the condition under which equality holds.
    """

    def __init__(self, name: str, fn: Callable[[sp.Basic], sp.Basic], *, priority: int, exact: bool = True,
                 where: str = "everywhere", doc: str = ""):
        super().__init__(priority=priority)
        self.name = name
        self.fn = fn
        self.exact = exact
        self.where = where
        self.doc = doc

    def __call__(self, expr: sp.Basic) -> sp.Basic:
        return self.fn(expr)

    def __repr__(self) -> str:
        return f"Rule({self.name!r}, priority={self.priority}, exact={self.exact})"


# ---------------------------------------------------------------- log(gamma(x))
def _log_gamma(expr: sp.Basic) -> sp.Basic:
    return expr.replace(lambda e: isinstance(e, sp.log) and isinstance(e.args[0], sp.gamma)
                        and e.args[0].args[0].is_positive is True,
                        lambda e: sp.loggamma(e.args[0].args[0]))


# ---------------------------------------------------------------- (1 + x)**k
def _is_pow_1px(e: sp.Basic) -> bool:
    if not e.is_Pow or not e.base.is_Add or not e.exp.free_symbols:
        return False
    const, _ = e.base.as_coeff_Add()
    return const == 1


def _pow_log1p(expr: sp.Basic) -> sp.Basic:
    return expr.replace(_is_pow_1px, lambda e: sp.exp(e.exp * log1p(e.base - 1)))


# ---------------------------------------------------------------- 1 - prod(1 - a_i)
def _is_one_minus_prod(e: sp.Basic) -> bool:
    if not e.is_Add:
        return False
    const, terms = e.as_coeff_Add()
    if const != 1 or terms.is_Add:
        return False
    c, m = terms.as_coeff_Mul()
    if c != -1 or not m.is_Mul:
        return False
    return all(f.is_Add and f.as_coeff_Add()[0] == 1 for f in m.args)


def _one_minus_prod(e: sp.Add) -> sp.Expr:
    _, terms = e.as_coeff_Add()
    _, m = terms.as_coeff_Mul()
    return -expm1(sp.Add(*[log1p(f - 1) for f in m.args]))


def _one_minus_prod_rule(expr: sp.Basic) -> sp.Basic:
    return expr.replace(_is_one_minus_prod, _one_minus_prod)


# ---------------------------------------------------------------- c e^A - c -> c expm1(A)
def _exp_factor(t: sp.Expr):
    """t == R * exp(A) with exactly one exp factor -> (R, A)."""
    fs = sp.Mul.make_args(t)
    ex = [f for f in fs if isinstance(f, sp.exp)]
    if len(ex) != 1:
        return None
    return sp.Mul(*[f for f in fs if f is not ex[0]]), ex[0].args[0]


def _factor_expm1_add(e: sp.Add) -> sp.Expr:
    terms = list(sp.Add.make_args(e))
    used: set[int] = set()
    combined = []
    for i, t in enumerate(terms):
        m = _exp_factor(t)
        if i in used or m is None:
            continue
        r, a = m
        for j, u in enumerate(terms):
            if j != i and j not in used and sp.expand(u + r) == 0:
                used |= {i, j}
                combined.append(r * expm1(a))
                break
    return sp.Add(*combined, *[t for k, t in enumerate(terms) if k not in used])


def _has_expm1_pair(e: sp.Basic) -> bool:
    if not e.is_Add:
        return False
    terms = list(sp.Add.make_args(e))
    for i, t in enumerate(terms):
        m = _exp_factor(t)
        if m is not None and any(j != i and sp.expand(u + m[0]) == 0 for j, u in enumerate(terms)):
            return True
    return False


def _expand_mul(e: sp.Expr) -> sp.Expr:
    """Distribute products over sums only (no exp(a+b) -> exp(a)exp(b), no log expansion)."""
    return sp.expand(e, power_exp=False, power_base=False, log=False, multinomial=False, basic=False)


def _factor_expm1(expr: sp.Basic) -> sp.Basic:
    # inside log(...), expand the argument first so (N - tau)/N + tau e^A / N exposes 1 + tau/N (e^A - 1)
    expr = expr.replace(lambda e: isinstance(e, sp.log) and e.args[0].is_Add and e.args[0].has(sp.exp)
                        and _has_expm1_pair(_expand_mul(e.args[0])),
                        lambda e: sp.log(_factor_expm1_add(_expand_mul(e.args[0])), evaluate=False))
    return expr.replace(_has_expm1_pair, _factor_expm1_add)


# ---------------------------------------------------------------- products of powers in log space
def _is_logspace_factor(f: sp.Expr) -> bool:
    return isinstance(f, sp.exp) or (f.is_Pow and bool(f.exp.free_symbols) and f.base is not sp.E)


def _logspace_product(expr: sp.Basic) -> sp.Basic:
    def match(e):
        return e.is_Mul and sum(1 for f in e.args if _is_logspace_factor(f)) >= 2

    def repl(e):
        logs, rest = [], []
        for f in e.args:
            if isinstance(f, sp.exp):
                logs.append(f.args[0])
            elif _is_logspace_factor(f):
                logs.append(f.exp * sp.log(f.base))
            else:
                rest.append(f)
        return sp.Mul(*rest) * sp.exp(sp.Add(*logs), evaluate=False)

    return expr.replace(match, repl)


# ---------------------------------------------------------------- k - exp(s) - ... -> (k-1) - expm1(s) - ...
def _is_const_minus_exp(e: sp.Basic) -> bool:
    if not e.is_Add:
        return False
    const, terms = e.as_coeff_Add()
    return const >= 1 and any(t.as_coeff_Mul()[0] == -1 and isinstance(t.as_coeff_Mul()[1], sp.exp)
                              for t in sp.Add.make_args(terms))


def _const_minus_exp(e: sp.Add) -> sp.Expr:
    const, terms = e.as_coeff_Add()
    out = []
    for t in sp.Add.make_args(terms):
        c, r = t.as_coeff_Mul()
        if c == -1 and isinstance(r, sp.exp) and const >= 1:
            const -= 1
            out.append(-expm1(r.args[0]))
        else:
            out.append(t)
    return sp.Add(const, *out)


def _one_minus_exp(expr: sp.Basic) -> sp.Basic:
    return expr.replace(_is_const_minus_exp, _const_minus_exp)


# ---------------------------------------------------------------- log(1 + x) -> log1p(x)
def _log1p(expr: sp.Basic) -> sp.Basic:
    """log(1 + x) -> log1p(x) when the argument's constant term is exactly 1 (no log expansion)."""
    def match(e):
        return isinstance(e, sp.log) and e.args[0].is_Add and e.args[0].as_coeff_Add()[0] == 1

    return expr.replace(match, lambda e: log1p(e.args[0].as_coeff_Add()[1]))


# ---------------------------------------------------------------- ceiling(c * Min(...)) -> ceiling(Min(c * ...))
def _ceil_simplify(expr: sp.Basic) -> sp.Basic:
    """Distribute a positive factor into Min/Max inside ceiling/floor so exact integers stay exact.

    E.g. ``ceiling(Min(T eps, X) / eps) -> ceiling(Min(T, X / eps))``: ``T*eps/eps`` rounded in
    float64 can exceed ``T`` by one ulp and bump the ceiling by 1; symbolically it is ``T``.
    """
    def distribute(arg):
        if not arg.is_Mul:
            return arg
        mm = [f for f in arg.args if isinstance(f, (sp.Min, sp.Max))]
        if len(mm) != 1:
            return arg
        c = sp.Mul(*[f for f in arg.args if f is not mm[0]])
        if c.is_positive is not True:
            return arg
        return type(mm[0])(*[sp.expand(c * a, deep=False, power_exp=False, log=False) for a in mm[0].args])

    return expr.replace(lambda e: isinstance(e, (sp.ceiling, sp.floor)) and e.args[0].is_Mul,
                        lambda e: e.func(distribute(e.args[0])))


# ---------------------------------------------------------------- log(1 - e^x)
def _log1mexp(expr: sp.Basic) -> sp.Basic:
    def neg_exp_arg(a):
        c, r = a.as_coeff_Mul()
        return r.args[0] if c == -1 and isinstance(r, sp.exp) else None

    def neg_expm1_arg(a):
        c, r = a.as_coeff_Mul()
        return r.args[0] if c == -1 and isinstance(r, expm1) else None

    expr = expr.replace(lambda e: isinstance(e, log1p) and neg_exp_arg(e.args[0]) is not None,
                        lambda e: log1mexp(neg_exp_arg(e.args[0])))
    return expr.replace(lambda e: isinstance(e, sp.log) and neg_expm1_arg(e.args[0]) is not None,
                        lambda e: log1mexp(neg_expm1_arg(e.args[0])))


# ---------------------------------------------------------------- expm1(x)/(exp(x)+1) -> tanh(x/2)
def _tanh_half(expr: sp.Basic) -> sp.Basic:
    """``expm1(x) / (exp(x) + 1) -> tanh(x / 2)`` (one transcendental call, no overflow of e^x)."""
    def match(e):
        if not e.is_Mul:
            return False
        em = [f for f in e.args if isinstance(f, expm1)]
        dn = [f for f in e.args if f.is_Pow and f.exp == -1 and f.base.is_Add]
        return any(sp.expand(f.base - sp.exp(g.args[0]) - 1) == 0 for g in em for f in dn)

    def repl(e):
        for g in (f for f in e.args if isinstance(f, expm1)):
            for f in (f for f in e.args if f.is_Pow and f.exp == -1 and f.base.is_Add):
                if sp.expand(f.base - sp.exp(g.args[0]) - 1) == 0:
                    rest = [h for h in e.args if h is not g and h is not f]
                    return sp.Mul(*rest) * sp.tanh(g.args[0] / 2)
        return e

    return expr.replace(match, repl)


# ---------------------------------------------------------------- c + k N/D -> (c D + k N)/D
def _one_minus_frac(expr: sp.Basic) -> sp.Basic:
    """``c + k N/D -> (c D + k N)/D`` when ``c D + k N`` expands to a nonzero number
    (``1 - e^x/(e^x + 1) -> 1/(e^x + 1)``: no cancellation, no overflow of e^x)."""
    def parts(e):
        if not e.is_Add or len(e.args) != 2:
            return None
        const, t = e.as_coeff_Add()
        if const == 0 or t.is_Add:
            return None
        num, den = sp.fraction(t)
        if not den.is_Add:
            return None
        top = sp.expand(const * den + num)
        return (top, den) if top.is_Number and top != 0 else None

    return expr.replace(lambda e: parts(e) is not None, lambda e: parts(e)[0] / parts(e)[1])


# ---------------------------------------------------------------- log1p(q expm1(a)) -> log1p_mix(q, a)
def _log1p_mix(expr: sp.Basic) -> sp.Basic:
    """``log1p(q expm1(a)) -> log1p_mix(q, a)`` for ``q >= 0`` (proved from the assumptions)."""
    def split(e):
        if not isinstance(e, log1p) or not e.args[0].is_Mul:
            return None
        fs = sp.Mul.make_args(e.args[0])
        em = [f for f in fs if isinstance(f, expm1)]
        if len(em) != 1:
            return None
        qq = sp.Mul(*[f for f in fs if f is not em[0]])
        return (qq, em[0].args[0]) if qq.free_symbols and qq.is_nonnegative is True else None

    return expr.replace(lambda e: split(e) is not None, lambda e: log1p_mix(*split(e)))


# ---------------------------------------------------------------- log(a/b) near a ~ b
def _log_ratio(expr: sp.Basic) -> sp.Basic:
    """``log(a/b)``: ``-> log1p(d/b)`` when ``d = a - b`` expands to one term of provable sign >= 0 and
    ``a > 0`` (so ``d/b >= 0``), or ``-> -log1p(-d/a)`` for the mirror case; ``-> log_ratio(a, b)`` for
    two positive symbols (``log1p((a - b)/b)`` near 1 with ``a - b`` exact, in the kernel)."""
    def target(e):
        if not isinstance(e, sp.log) or not e.args[0].is_Mul:
            return None
        a, b = sp.fraction(e.args[0])
        if not a.free_symbols or not b.free_symbols or b == 1:
            return None
        if isinstance(a, sp.Symbol) and isinstance(b, sp.Symbol) and a.is_positive and b.is_positive:
            return log_ratio(a, b)
        if not (a.is_Add or b.is_Add):
            return None
        d = sp.expand(a - b)
        if d.is_Add or d == 0:
            return None
        if d.is_nonnegative and a.is_positive:
            return log1p(d / b)
        if d.is_nonpositive and b.is_positive:
            return -log1p(-d / a)
        return None

    return expr.replace(lambda e: target(e) is not None, target)


# ---------------------------------------------------------------- removable x log x singularities
def _xlogx_collect(expr: sp.Basic) -> sp.Basic:
    """In a sum of ``c_i log(f_i)`` terms, split the logs into logs of factors and collect their
    coefficients; when a factor ``g``'s total coefficient is ``k g`` (the ``T log g`` and
    ``(T/2 + ...) log g`` of a log-space product cancel to ``O(g)``), write ``k xlogx(g)``.

    Exact where every log factor is positive (the hypotheses of each entry where it fires state it,
    e.g. ``T eps > eps'``).  Fires only when such a factor exists; the sum is returned unchanged
    otherwise.  At ``g = 0`` after rounding (``T eps == eps'`` in float64), ``xlogx(0) = 0`` is the
    limit instead of ``inf - inf``.
    """
    def logterm(t):
        fs = sp.Mul.make_args(t)
        lg = [f for f in fs if isinstance(f, sp.log)]
        if len(lg) != 1:
            return None
        return sp.Mul(*[f for f in fs if f is not lg[0]]), lg[0].args[0]

    def mult(arg, g):
        num, den = sp.fraction(sp.factor_terms(arg))
        m = 0
        for part, sgn in ((num, 1), (den, -1)):
            for f in sp.Mul.make_args(part):
                base, k = (f.base, f.exp) if f.is_Pow and f.exp.is_Integer else (f, sp.S.One)
                if sp.expand(base - g) == 0:
                    m += sgn * k
        return m

    def collect(e):
        if not e.is_Add:
            return None
        parsed = [logterm(t) for t in e.args]
        idx = [i for i, p in enumerate(parsed) if p is not None]
        if len(idx) < 2:
            return None
        cands = set()
        for i in idx:
            num, den = sp.fraction(sp.factor_terms(parsed[i][1]))
            cands |= {f for part in (num, den) for f in sp.Mul.make_args(part) if f.is_Add}
        for g in sorted(cands, key=sp.default_sort_key):
            ms = {i: mult(parsed[i][1], g) for i in idx}
            hits = [i for i in idx if ms[i] != 0]
            if len(hits) != 2:
                continue
            (ci, ai), (cj, aj) = parsed[hits[0]], parsed[hits[1]]
            mi, mj = ms[hits[0]], ms[hits[1]]
            k = sp.cancel(sp.together((ci * mi + cj * mj) / g))   # total coefficient of log g is k g
            r = sp.cancel(sp.together((ci + cj) / g))             # ci + cj = r g
            if any(sp.fraction(v)[1].has(*g.free_symbols) and sp.gcd(sp.fraction(v)[1], g) != 1 for v in (k, r)):
                continue
            if mi != mj or sp.count_ops(k) > 6 or sp.count_ops(r) > 6:
                continue
            bi, bj = ai * g ** (-mi), aj * g ** (-mj)
            # ci log bi + cj log bj + k g log g == ci log(bi/bj) + r g log bj + k xlogx(g)
            rest = [t for n, t in enumerate(e.args) if n not in hits]
            return sp.Add(*rest, ci * sp.log(bi / bj), r * g * sp.log(bj), k * xlogx(g))
        return None

    return expr.replace(lambda e: isinstance(e, sp.exp) and collect(e.args[0]) is not None,
                        lambda e: sp.exp(collect(e.args[0]), evaluate=False))


RULES: tuple[Rule, ...] = (
    Rule("ceil_simplify", _ceil_simplify, priority=120, doc="exact integers stay exact inside ceiling/floor"),
    Rule("erfcx", _erfcx_rule, priority=110, doc="exp(z**2) erfc(z) -> erfcx(z)"),
    Rule("erf_to_ndtr", _erf_to_ndtr, priority=100, doc="Gaussian CDF via ndtr; 1 - Phi(x) -> Phi(-x)"),
    Rule("erfinv_to_ndtri", _erfinv_to_ndtri, priority=95, doc="erfinv via ndtri; ndtri(1 - x) -> -ndtri(x)"),
    Rule("ndtri_ndtr", _ndtri_ndtr, priority=93, doc="ndtri(ndtr(z)) -> z"),
    Rule("one_minus_frac", _one_minus_frac, priority=92, where="D != 0",
         doc="c + k N/D -> (c D + k N)/D when c D + k N is a number"),
    Rule("gauss_diff", _gauss_diff, priority=90, doc="Phi(a) - e^c Phi(b) through erfcx, exponents simplified"),
    Rule("log_ndtr", _log_ndtr, priority=80, doc="log(Phi(x)) -> log_ndtr(x)"),
    Rule("log_gamma", _log_gamma, priority=78, where="x > 0 (proved from the symbols' assumptions)",
         doc="log(gamma(x)) -> loggamma(x)"),
    Rule("one_minus_prod", _one_minus_prod_rule, priority=75, doc="1 - prod(1 - a_i) -> -expm1(sum log1p(-a_i))"),
    Rule("pow_log1p", _pow_log1p, priority=70, where="1 + x > 0 (stated by the hypotheses)",
         doc="(1 + x)**k -> exp(k log1p(x))"),
    Rule("logspace_product", _logspace_product, priority=68, where="bases > 0 (stated by the hypotheses)",
         doc="prod b_i**e_i * exp(a) -> exp(sum e_i log b_i + a)"),
    Rule("xlogx_collect", _xlogx_collect, priority=67, where="log factors > 0 (stated by the hypotheses)",
         doc="sum c_i log f_i collected by factor; k g log g -> k xlogx(g)"),
    Rule("one_minus_exp", _one_minus_exp, priority=66, doc="k - exp(s) -> (k - 1) - expm1(s)"),
    Rule("factor_expm1", _factor_expm1, priority=64, doc="c exp(A) - c -> c expm1(A) (log arguments expanded first)"),
    Rule("expm1", expm1_opt, priority=60, doc="exp(x) - 1 -> expm1(x)"),
    Rule("erfcx_rem", _erfcx_rem, priority=58, doc="erfcx(z) - 1 + 2z/sqrt(pi) -> erfcx_rem(z)"),
    Rule("tanh_half", _tanh_half, priority=55, doc="expm1(x)/(exp(x) + 1) -> tanh(x/2)"),
    Rule("log_ratio", _log_ratio, priority=52, where="a/b > 0",
         doc="log(a/b) -> log1p((a - b)/b) when a - b is one term of known sign; log_ratio(a, b) for symbols"),
    Rule("log1p", _log1p, priority=50, doc="log(1 + x) -> log1p(x)"),
    Rule("log1mexp", _log1mexp, priority=45, doc="log1p(-exp(x)), log(-expm1(x)) -> log1mexp(x)"),
    Rule("log1p_mix", _log1p_mix, priority=42, where="q >= 0 (proved from the assumptions)",
         doc="log1p(q expm1(a)) -> log1p_mix(q, a) (logaddexp branch as q -> 1, a << 0)"),
    Rule("logaddexp", logaddexp_opt, priority=40, doc="log(exp(a) + exp(b)) -> logaddexp(a, b)"),
)


def rules_applied(expr: sp.Basic, rules: tuple[Rule, ...] = RULES) -> tuple[sp.Basic, list[str]]:
    """Apply ``rules`` in priority order; return the result and the names of the rules that changed it."""
    names = []
    for rule in sorted(rules, key=lambda r: r.priority, reverse=True):
        new = rule(expr)
        if new != expr:
            names.append(rule.name)
            expr = new
    return expr, names


def stabilize(expr: sp.Basic, rules: tuple[Rule, ...] = RULES) -> sp.Basic:
    """The stability pass: ``expr`` rewritten by every rule (exact rewrites only)."""
    return rules_applied(expr, rules)[0]
