r"""symdp's own expression printers for the numpy, torch and mpmath back-ends.

SymPy 1.14's ``TorchPrinter`` cannot print ``log1p``, ``expm1`` or
``logaddexp``, and none of SymPy's printers knows symdp's :mod:`.functions`;
this printer is small, total on the supported node set and raises
:class:`UnsupportedExpression` (with the offending node) on anything else, so
the generator can record a reason instead of crashing.

Conventions of the printed code:

* numpy: ``np`` is numpy, ``sc`` is :mod:`symdp._special` (scipy.special's names, numpy-only), ``_rt`` is
  :mod:`symdp.codegen.runtime`; constants are folded to float64 literals
  (``repr`` round-trips exactly).
* torch: ``torch``; constants are Python float literals, so the tensors'
  dtype and device are kept and nothing is moved to the host.
* mpmath: ``mp`` is mpmath; constants stay exact (``mp.mpf(p)/q``,
  ``mp.sqrt(2)``, ``mp.pi``) so the kernel is as precise as ``mp.dps``.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p
from sympy.codegen.numpy_nodes import logaddexp
from sympy.core.function import AppliedUndef

from .functions import erfcx, erfcx_rem, gauss_diff, log1mexp, log1p_mix, log_ndtr, log_ratio, ndtr, ndtri, xlogx

__all__ = ["UnsupportedExpression", "print_expr", "print_block", "cse_parts", "BACKENDS", "check_supported"]

BACKENDS = ("numpy", "torch", "mpmath")


class UnsupportedExpression(Exception):
    """The expression contains a node the printers do not support (message names it)."""


# function class -> backend -> format string over the printed args
_FUNCS: dict[type, dict[str, str]] = {
    sp.exp: {"numpy": "np.exp({0})", "torch": "torch.exp({0})", "mpmath": "mp.exp({0})"},
    sp.log: {"numpy": "np.log({0})", "torch": "torch.log({0})", "mpmath": "mp.log({0})"},
    log1p: {"numpy": "np.log1p({0})", "torch": "torch.log1p({0})", "mpmath": "mp.log1p({0})"},
    expm1: {"numpy": "np.expm1({0})", "torch": "_rt.torch_expm1({0})", "mpmath": "mp.expm1({0})"},
    logaddexp: {"numpy": "np.logaddexp({0}, {1})", "torch": "torch.logaddexp({0}, {1})",
                "mpmath": "_rt.mp_logaddexp({0}, {1})"},
    sp.Abs: {"numpy": "np.abs({0})", "torch": "torch.abs({0})", "mpmath": "mp.fabs({0})"},
    sp.sin: {"numpy": "np.sin({0})", "torch": "torch.sin({0})", "mpmath": "mp.sin({0})"},
    sp.cos: {"numpy": "np.cos({0})", "torch": "torch.cos({0})", "mpmath": "mp.cos({0})"},
    sp.tanh: {"numpy": "np.tanh({0})", "torch": "torch.tanh({0})", "mpmath": "mp.tanh({0})"},
    sp.sinh: {"numpy": "np.sinh({0})", "torch": "torch.sinh({0})", "mpmath": "mp.sinh({0})"},
    sp.cosh: {"numpy": "np.cosh({0})", "torch": "torch.cosh({0})", "mpmath": "mp.cosh({0})"},
    sp.atanh: {"numpy": "np.arctanh({0})", "torch": "torch.atanh({0})", "mpmath": "mp.atanh({0})"},
    sp.asinh: {"numpy": "np.arcsinh({0})", "torch": "torch.asinh({0})", "mpmath": "mp.asinh({0})"},
    sp.atan: {"numpy": "np.arctan({0})", "torch": "torch.atan({0})", "mpmath": "mp.atan({0})"},
    sp.erf: {"numpy": "sc.erf({0})", "torch": "torch.special.erf({0})", "mpmath": "mp.erf({0})"},
    sp.erfc: {"numpy": "sc.erfc({0})", "torch": "torch.special.erfc({0})", "mpmath": "mp.erfc({0})"},
    # torch.special.ndtr is 0.5 * (1 + erf(x / sqrt 2)): wrong in the lower tail; use erfc
    ndtr: {"numpy": "sc.ndtr({0})", "torch": "_rt.torch_ndtr({0})", "mpmath": "mp.ncdf({0})"},
    erfcx: {"numpy": "sc.erfcx({0})", "torch": "torch.special.erfcx({0})", "mpmath": "_rt.mp_erfcx({0})"},
    log1mexp: {"numpy": "_rt.np_log1mexp({0})", "torch": "_rt.torch_log1mexp({0})", "mpmath": "mp.log(-mp.expm1({0}))"},
    ndtri: {"numpy": "sc.ndtri({0})", "torch": "torch.special.ndtri({0})", "mpmath": "_rt.mp_ndtri({0})"},
    sp.erfinv: {"numpy": "sc.erfinv({0})", "torch": "torch.special.erfinv({0})", "mpmath": "mp.erfinv({0})"},
    log_ndtr: {"numpy": "sc.log_ndtr({0})", "torch": "torch.special.log_ndtr({0})",
               "mpmath": "mp.log(mp.ncdf({0}))"},
    gauss_diff: {"numpy": "_rt.np_gauss_diff({0}, {1}, {2})", "torch": "_rt.torch_gauss_diff({0}, {1}, {2})",
                 "mpmath": "_rt.mp_gauss_diff({0}, {1}, {2})"},
    erfcx_rem: {"numpy": "_rt.np_erfcx_rem({0})", "torch": "_rt.torch_erfcx_rem({0})", "mpmath": "_rt.mp_erfcx_rem({0})"},
    log1p_mix: {"numpy": "_rt.np_log1p_mix({0}, {1})", "torch": "_rt.torch_log1p_mix({0}, {1})",
                "mpmath": "_rt.mp_log1p_mix({0}, {1})"},
    log_ratio: {"numpy": "_rt.np_log_ratio({0}, {1})", "torch": "_rt.torch_log_ratio({0}, {1})",
                "mpmath": "mp.log(_rt.mp_div({0}, {1}))"},
    xlogx: {"numpy": "sc.xlogy({0}, {0})", "torch": "torch.special.xlogy({0}, {0})", "mpmath": "_rt.mp_xlogx({0})"},
    sp.gamma: {"numpy": "sc.gamma({0})", "torch": "_rt.torch_gamma({0})", "mpmath": "mp.gamma({0})"},
    sp.loggamma: {"numpy": "sc.gammaln({0})", "torch": "torch.lgamma({0})", "mpmath": "mp.loggamma({0})"},
    sp.floor: {"numpy": "np.floor({0})", "torch": "torch.floor({0})", "mpmath": "mp.floor({0})"},
    sp.ceiling: {"numpy": "np.ceil({0})", "torch": "torch.ceil({0})", "mpmath": "mp.ceil({0})"},
    sp.sign: {"numpy": "np.sign({0})", "torch": "torch.sign({0})", "mpmath": "mp.sign({0})"},
}

#: numpy / scipy.special unary ufuncs (they accept ``out=``)
_NP_UFUNCS = {"np.exp", "np.log", "np.log1p", "np.expm1", "np.abs", "np.sin", "np.cos", "np.tanh", "np.sinh",
              "np.cosh", "np.arctanh", "np.arcsinh", "np.arctan", "np.sqrt", "np.floor", "np.ceil", "np.sign",
              "sc.erf", "sc.erfc", "sc.ndtr", "sc.erfcx", "sc.ndtri", "sc.erfinv", "sc.log_ndtr", "sc.gamma",
              "sc.gammaln"}


def _is_temporary(e: sp.Basic) -> bool:
    """The printed ``e`` evaluates to a fresh array (never a kernel argument or a CSE temporary)."""
    return bool(e.free_symbols) and not e.is_Atom and (e.is_Add or e.is_Mul or e.is_Pow or isinstance(e, sp.Function))


_MAXMIN = {
    sp.Max: {"numpy": "np.maximum", "torch": "torch.maximum", "mpmath": "max"},
    sp.Min: {"numpy": "np.minimum", "torch": "torch.minimum", "mpmath": "min"},
}

_REL = {sp.StrictLessThan: "<", sp.LessThan: "<=", sp.StrictGreaterThan: ">", sp.GreaterThan: ">=",
        sp.Equality: "==", sp.Unequality: "!="}


def _float_lit(value: sp.Expr) -> str:
    f = float(sp.N(value, 30))
    if f != f or f in (float("inf"), float("-inf")):
        raise UnsupportedExpression(f"constant {value} is not a finite real number")
    return repr(f)


class _Printer:
    def __init__(self, backend: str, symbol_names: dict[sp.Symbol, str]):
        if backend not in BACKENDS:
            raise ValueError(f"backend={backend!r} not in {BACKENDS}")
        self.b = backend
        self.names = symbol_names

    # -- numbers -------------------------------------------------------
    def const(self, e: sp.Expr) -> str:
        if self.b != "mpmath":
            if e.is_Integer:
                return f"{int(e)}.0" if abs(int(e)) < 2**53 else _float_lit(e)
            return _float_lit(e)
        if e.is_Integer:
            return f"mp.mpf({int(e)})"
        if e.is_Rational:
            return f"(mp.mpf({int(e.p)}) / {int(e.q)})"
        if e.is_Float:
            return f"mp.mpf('{sp.sstr(e, full_prec=True)}')"
        if e is sp.pi:
            return "mp.pi"
        if e is sp.E:
            return "mp.e"
        if e is sp.EulerGamma:
            return "mp.euler"
        return self.p(e, fold=False)

    # -- generic -----------------------------------------------------------
    def p(self, e: sp.Basic, fold: bool = True) -> str:
        if isinstance(e, sp.Symbol):
            if e not in self.names:
                raise UnsupportedExpression(f"symbol {e} is not a kernel argument")
            return self.names[e]
        if fold and isinstance(e, sp.Expr) and not e.free_symbols and (
            e.is_Number or e.is_NumberSymbol or (e.is_real is not False)
        ):
            return self.const(e)
        if e is sp.S.Infinity or e is sp.S.NegativeInfinity or e is sp.zoo or e is sp.nan:
            raise UnsupportedExpression(f"non-finite constant {e}")
        if isinstance(e, AppliedUndef):
            raise UnsupportedExpression(f"undefined function {e.func}")
        if e.is_Add:
            return self.add(e)
        if e.is_Mul:
            return self.mul(e)
        if e.is_Pow:
            return self.pow(e)
        if isinstance(e, sp.Piecewise):
            return self.piecewise(e)
        if type(e) in _MAXMIN:
            return self.maxmin(e)
        if type(e) in _REL:
            return f"({self.p(e.lhs)} {_REL[type(e)]} {self.p(e.rhs)})"
        if isinstance(e, (sp.And, sp.Or)):
            args = sorted(e.args, key=sp.default_sort_key)
            if self.b == "mpmath":
                op = " and " if isinstance(e, sp.And) else " or "
            else:
                op = " & " if isinstance(e, sp.And) else " | "
            return "(" + op.join(self.p(a) for a in args) + ")"
        if isinstance(e, sp.Function) and type(e) in _FUNCS:
            return self.call(_FUNCS[type(e)][self.b], e.args)
        if isinstance(e, sp.Function):
            raise UnsupportedExpression(f"function {type(e).__name__} has no printer")
        if e.is_Number or e.is_NumberSymbol:
            return self.const(e)
        raise UnsupportedExpression(f"node {type(e).__name__} ({sp.sstr(e)[:60]}) has no printer")

    def call(self, fmt: str, args) -> str:
        """``fmt`` applied to the printed ``args``; for numpy, a unary ufunc of a freshly computed
        temporary writes into that temporary (``_rt.ip``: no new 8 MB array per call on 10^6 elements)."""
        printed = [self.p(a) for a in args]
        if self.b == "numpy" and len(args) == 1 and fmt.endswith("({0})") and fmt[:-5] in _NP_UFUNCS \
                and _is_temporary(args[0]):
            return f"_rt.ip({fmt[:-5]}, {printed[0]})"
        return fmt.format(*printed)

    def maxmin(self, e: sp.Basic) -> str:
        fn = _MAXMIN[type(e)][self.b]
        args = sorted(e.args, key=sp.default_sort_key)
        consts = [a for a in args if not a.free_symbols]
        rest = [a for a in args if a.free_symbols]
        if self.b == "mpmath" or not rest:
            return fn + "(" + ", ".join(self.p(a) for a in args) + ")" if len(args) > 1 else self.p(args[0])
        out = self.p(rest[0])
        for a in rest[1:]:
            out = f"{fn}({out}, {self.p(a)})"
        if consts:  # a constant bound: clamp (torch.maximum needs two tensors; no scalar tensor is made)
            c = type(e)(*consts)
            kw = "min" if type(e) is sp.Max else "max"
            out = f"torch.clamp({out}, {kw}={self.p(c)})" if self.b == "torch" else f"{fn}({out}, {self.p(c)})"
        return out

    def add(self, e: sp.Add) -> str:
        terms = sorted(e.args, key=sp.default_sort_key)
        parts: list[str] = []
        for t in terms:
            c = t.as_coeff_Mul()[0]
            if c.is_Number and c < 0 and parts:
                parts.append(" - " + self.p(-t))
            else:
                parts.append((" + " if parts else "") + self.p(t))
        return "(" + "".join(parts) + ")"

    def mul(self, e: sp.Mul) -> str:
        c, rest = e.as_coeff_Mul()
        factors = sorted(sp.Mul.make_args(rest), key=sp.default_sort_key)
        if self.b != "mpmath":
            # constant folding: 0.5 * x / log(2) * sqrt(2) -> one correctly rounded literal times x
            consts = [f for f in factors if not f.free_symbols and f.is_real is not False]
            if consts and len(consts) < len(factors):
                c = sp.Mul(c, *consts)
                factors = [f for f in factors if f.free_symbols or f.is_real is False]
                if not c.is_Number:
                    c = sp.Float(sp.N(c, 30), 30)
        num: list[sp.Expr] = []
        den: list[sp.Expr] = []
        for f in factors:
            if f.is_Pow and f.exp.is_Number and f.exp < 0:
                den.append(sp.Pow(f.base, -f.exp))
            else:
                num.append(f)
        if self.b == "numpy":
            # temporaries first, bare names and the constant last: numpy then multiplies into the first
            # temporary's buffer (temporary elision) instead of allocating for ``0.5 * x``
            num.sort(key=lambda f: bool(f.is_Atom))
            if num and not num[0].is_Atom and abs(float(c)) != 1.0:
                grouped = "(" + " * ".join(self.p(f) for f in num) + " * " + self.const(c)
                if den:
                    grouped += " / " + " / ".join(self.p(f) for f in den)
                return grouped + ")"
        out = " * ".join(self.p(f) for f in num) if num else None
        if c == -1 or (c.is_Float and float(c) == -1.0):
            out = "-" + out if out else self.const(sp.Integer(-1))
            out = "(" + out + ")"
        elif c != 1 and not (c.is_Float and float(c) == 1.0):
            out = self.const(c) + (" * " + out if out else "")
        if out is None:
            out = self.const(sp.Integer(1))
        if den and self.b == "mpmath":
            for f in den:
                out = f"_rt.mp_div({out}, {self.p(f)})"
        elif den:
            out = "(" + out + " / " + (" / ".join(self.p(f) for f in den)) + ")"
        elif abs(float(c)) != 1.0 or len(num) > 1:
            out = "(" + out + ")"
        return out

    def pow(self, e: sp.Pow) -> str:
        base, ex = e.base, e.exp
        if base is sp.E:
            return self.call(_FUNCS[sp.exp][self.b], (ex,))
        sqrt = {"numpy": "np.sqrt({0})", "torch": "torch.sqrt({0})", "mpmath": "mp.sqrt({0})"}[self.b]
        if ex == sp.S.Half:
            return self.call(sqrt, (base,))
        if ex == -sp.S.Half:
            if self.b == "mpmath":
                return f"_rt.mp_div({self.const(sp.Integer(1))}, {sqrt.format(self.p(base))})"
            return "(" + self.const(sp.Integer(1)) + " / " + sqrt.format(self.p(base)) + ")"
        if ex.is_Integer:
            if ex < 0:
                if self.b == "mpmath":
                    return f"_rt.mp_div({self.const(sp.Integer(1))}, {self.pow(sp.Pow(base, -ex, evaluate=False))})"
                return "(" + self.const(sp.Integer(1)) + " / " + self.pow(sp.Pow(base, -ex, evaluate=False)) + ")"
            if ex == 1:
                return self.p(base)
            if self.b != "mpmath" and 2 <= ex <= 4 and isinstance(base, sp.Symbol):
                # x**k as multiplications (numpy's power is a libm pow call except for k = 2)
                return "(" + " * ".join([self.p(base)] * int(ex)) + ")"
            return f"({self.p(base)} ** {int(ex)})"
        return f"({self.p(base)} ** {self.p(ex)})"

    def piecewise(self, e: sp.Piecewise) -> str:
        pieces = list(e.args)
        if pieces[-1].cond is not sp.true:
            raise UnsupportedExpression("Piecewise without an otherwise branch")
        out = self.p(pieces[-1].expr)
        for expr, cond in reversed(pieces[:-1]):
            if self.b == "mpmath":
                out = f"({self.p(expr)} if {self.p(cond)} else {out})"
            elif self.b == "numpy":
                out = f"np.where({self.p(cond)}, {self.p(expr)}, {out})"
            else:
                out = f"torch.where({self.p(cond)}, {self.p(expr)}, {out})"
        return out


#: prefix of the local temporaries of common subexpressions (kernel arguments never start with "_")
CSE_PREFIX = "_t"


def _cheap(e: sp.Basic) -> bool:
    """Not worth a temporary: a constant, or a bare symbol (possibly negated)."""
    if not e.free_symbols:
        return True
    c, r = e.as_coeff_Mul()
    return isinstance(r, sp.Symbol) and c.is_Number


def cse_parts(expr: sp.Basic, backend: str) -> tuple[list[tuple[sp.Symbol, sp.Expr]], sp.Basic]:
    """Common subexpressions of ``expr`` as ``([(temp, subexpr), ...], reduced)``.

    ``sympy.cse`` without its reassociating optimizations, then:

    * constant-only and bare-symbol temporaries are put back (they are literals / names already);
    * a reciprocal temporary ``t = 1/X`` becomes ``t = X`` with every use ``y * t`` printed as ``y / t``
      (a division, not a multiplication by a rounded reciprocal: no extra rounding);
    * mpmath prints ``Piecewise`` as a lazy ``a if c else b``: a subexpression of an unselected branch
      must not be evaluated there (it may raise), so an expression with a Piecewise is not split.
    """
    if backend == "mpmath" and expr.has(sp.Piecewise):
        return [], expr
    return _cse_cached(expr)


@lru_cache(maxsize=4096)
def _cse_cached(expr: sp.Basic) -> tuple[list[tuple[sp.Symbol, sp.Expr]], sp.Basic]:
    taken = {s.name for s in expr.free_symbols if isinstance(s, sp.Symbol)}
    # Piecewise nodes (degenerate guards) are built with evaluate=False: rebuilding one would evaluate
    # Eq(eps, 0) to False for a positive eps and drop the guard.  Their branch values take part in the
    # CSE; their conditions (comparisons of arguments with constants) are kept as they are; the
    # Piecewise itself is rebuilt unevaluated after every substitution.
    pws = [e for e in sp.preorder_traversal(expr) if isinstance(e, sp.Piecewise)]
    if any(pc.expr.has(sp.Piecewise) or pc.cond.has(sp.Piecewise) for pw in pws for pc in pw.args):
        return [], expr  # nested Piecewise: not split
    pws = list(dict.fromkeys(pws))
    holders = [sp.Dummy(f"pw{i}") for i in range(len(pws))]
    top = expr.xreplace(dict(zip(pws, holders))) if pws else expr
    branch_exprs = [pc.expr for pw in pws for pc in pw.args]
    names = (sp.Symbol(f"{CSE_PREFIX}{i}") for i in range(10**6) if f"{CSE_PREFIX}{i}" not in taken)
    repl, reduced = sp.cse([top, *branch_exprs], symbols=names, optimizations=None, order="canonical")
    red, red_branches = reduced[0], reduced[1:]
    sub: dict[sp.Symbol, sp.Expr] = {}
    out: list[tuple[sp.Symbol, sp.Expr]] = []
    for t, v in repl:
        v = v.xreplace(sub)
        if _cheap(v):
            sub[t] = v
            continue
        if v.is_Pow and v.exp.is_Number and v.exp < 0:
            inv = sp.Pow(v.base, -v.exp)
            if _cheap(inv):
                sub[t] = v
                continue
            sub[t] = sp.Pow(t, -1)
            out.append((t, inv))
            continue
        out.append((t, v))
    # renumber the temporaries that survived: _t0, _t1, ... in order
    ren = {}
    for i, (t, _) in enumerate(out):
        name = f"{CSE_PREFIX}{i}"
        ren[t] = t if t.name == name or name in taken else sp.Symbol(name)
    out = [(ren[t], v.xreplace(ren)) for t, v in out]
    red = red.xreplace(sub).xreplace(ren)
    rebuilt, k = {}, 0
    for h, pw in zip(holders, pws):
        pieces = []
        for pc in pw.args:
            pieces.append((red_branches[k].xreplace(sub).xreplace(ren), pc.cond))
            k += 1
        rebuilt[h] = sp.Piecewise(*pieces, evaluate=False)
    return out, (red.xreplace(rebuilt) if rebuilt else red)


def print_block(expr: sp.Basic, backend: str, symbol_names: dict[sp.Symbol, str]) -> tuple[list[str], str]:
    """``(["_t0 = ...", ...], result)``: ``expr`` printed with its common subexpressions in local temporaries."""
    parts, red = cse_parts(expr, backend)
    names = dict(symbol_names)
    pr = _Printer(backend, names)
    lines = []
    for t, v in parts:
        lines.append(f"{t.name} = {pr.p(v)}")
        names[t] = t.name
    return lines, pr.p(red)


def print_expr(expr: sp.Basic, backend: str, symbol_names: dict[sp.Symbol, str]) -> str:
    """Python source of ``expr`` for ``backend``; raises UnsupportedExpression on unknown nodes."""
    return _Printer(backend, symbol_names).p(expr)


def check_supported(expr: sp.Basic) -> str | None:
    """None when every back-end can print ``expr``, else the reason."""
    names = {s: s.name for s in expr.free_symbols if isinstance(s, sp.Symbol)}
    try:
        for b in BACKENDS:
            print_expr(expr, b, names)
    except UnsupportedExpression as exc:
        return str(exc)
    return None
