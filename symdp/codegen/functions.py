r"""Numerically motivated SymPy functions used by the stability pass.

Each is a full symbolic function (derivative, rewrite to elementary/erfc form,
numerical evaluation), in the style of :mod:`sympy.codegen.cfunctions`, so a
rewritten expression can still be differentiated, compared and evaluated.

* :class:`ndtr` -- the standard normal CDF :math:`\Phi(x) = \tfrac12\operatorname{erfc}(-x/\sqrt2)`.
* :class:`log_ndtr` -- :math:`\log\Phi(x)`, accurate far into the lower tail.
* :class:`gauss_diff` -- :math:`\Phi(a) - e^{d + (b^2 - a^2)/2}\,\Phi(b)`, the
  cancellation-prone difference of the Gaussian privacy profile
  [Balle and Wang 2018, Thm 8], evaluated through the scaled complementary error
  function so that the common factor :math:`e^{-a^2/2}` is taken out exactly.
"""

from __future__ import annotations

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p
from sympy.codegen.numpy_nodes import logaddexp

__all__ = ["ndtr", "ndtri", "log_ndtr", "gauss_diff", "erfcx", "erfcx_rem", "log1mexp", "log1p_mix", "log_ratio", "xlogx",
           "log1p", "expm1", "logaddexp", "to_elementary"]

_SQRT2 = sp.sqrt(2)


def _phi(x: sp.Expr) -> sp.Expr:
    return sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)


class ndtr(sp.Function):
    r"""Standard normal CDF :math:`\Phi(x)`.

    >>> from sympy import Symbol, erfc, sqrt
    >>> x = Symbol("x")
    >>> ndtr(x).rewrite(erfc)
    1 - erfc(sqrt(2)*x/2)/2
    """

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x is sp.S.Zero:
            return sp.S.Half
        if x is sp.S.Infinity:
            return sp.S.One
        if x is sp.S.NegativeInfinity:
            return sp.S.Zero
        return None

    def fdiff(self, argindex=1):
        return _phi(self.args[0])

    def _eval_rewrite_as_erfc(self, x, **kwargs):
        return sp.erfc(-x / _SQRT2) / 2

    def _eval_evalf(self, prec):
        return self.rewrite(sp.erfc)._eval_evalf(prec)

    def _eval_is_positive(self):
        return self.args[0].is_extended_real


class ndtri(sp.Function):
    r"""Inverse of the standard normal CDF, :math:`\Phi^{-1}(x) = \sqrt2\operatorname{erfinv}(2x - 1)`."""

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x == sp.S.Half:
            return sp.S.Zero
        return None

    def fdiff(self, argindex=1):
        return 1 / _phi(self)

    def _eval_rewrite_as_erfinv(self, x, **kwargs):
        return _SQRT2 * sp.erfinv(2 * x - 1)

    def _eval_evalf(self, prec):
        return self.rewrite(sp.erfinv)._eval_evalf(prec)


class log_ndtr(sp.Function):
    r""":math:`\log\Phi(x)`."""

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x is sp.S.Infinity:
            return sp.S.Zero
        if x is sp.S.NegativeInfinity:
            return sp.S.NegativeInfinity
        return None

    def fdiff(self, argindex=1):
        x = self.args[0]
        return _phi(x) / ndtr(x)

    def _eval_rewrite_as_erfc(self, x, **kwargs):
        return sp.log(sp.erfc(-x / _SQRT2) / 2)

    def _eval_evalf(self, prec):
        return self.rewrite(sp.erfc)._eval_evalf(prec)


class gauss_diff(sp.Function):
    r""":math:`G(a, b, d) = \Phi(a) - e^{d + (b^2 - a^2)/2}\,\Phi(b)`.

    With :math:`\Phi(x) = \tfrac12 e^{-x^2/2}\operatorname{erfcx}(-x/\sqrt2)` both
    terms share the factor :math:`e^{-a^2/2}` exactly, so
    :math:`G = \tfrac12 e^{-a^2/2}[\operatorname{erfcx}(-a/\sqrt2) - e^{d}\operatorname{erfcx}(-b/\sqrt2)]`
    with no overflow of :math:`e^{\epsilon}` and no underflow of either tail.
    For the Gaussian privacy profile, :math:`d = 0` identically.
    """

    nargs = 3

    def _expanded(self):
        a, b, d = self.args
        return ndtr(a) - sp.exp(d + (b**2 - a**2) / 2) * ndtr(b)

    def fdiff(self, argindex=1):
        dummies = sp.symbols("_ga _gb _gd", real=True)
        a, b, d = dummies
        e = ndtr(a) - sp.exp(d + (b**2 - a**2) / 2) * ndtr(b)
        return sp.diff(e, dummies[argindex - 1]).subs(dict(zip(dummies, self.args)), simultaneous=True)

    def _eval_rewrite_as_erfc(self, a, b, d, **kwargs):
        return (ndtr(a) - sp.exp(d + (b**2 - a**2) / 2) * ndtr(b)).rewrite(sp.erfc)

    def _eval_evalf(self, prec):
        return self.rewrite(sp.erfc)._eval_evalf(prec)


class erfcx(sp.Function):
    r"""Scaled complementary error function :math:`e^{x^2}\operatorname{erfc}(x)` (no overflow of :math:`e^{x^2}`)."""

    nargs = 1

    def fdiff(self, argindex=1):
        x = self.args[0]
        return 2 * x * erfcx(x) - 2 / sp.sqrt(sp.pi)

    def _eval_rewrite_as_erfc(self, x, **kwargs):
        return sp.exp(x**2) * sp.erfc(x)

    def _eval_evalf(self, prec):
        return self.rewrite(sp.erfc)._eval_evalf(prec)


class log1mexp(sp.Function):
    r""":math:`\log(1 - e^{x})` for :math:`x < 0` [Maechler 2012: ``log(-expm1(x))`` near 0, ``log1p(-exp(x))`` below :math:`-\log 2`]."""

    nargs = 1

    def fdiff(self, argindex=1):
        x = self.args[0]
        return -sp.exp(x) / (1 - sp.exp(x))

    def _eval_rewrite_as_exp(self, x, **kwargs):
        return sp.log(1 - sp.exp(x))

    def _eval_evalf(self, prec):
        return sp.log(1 - sp.exp(self.args[0]))._eval_evalf(prec)


class erfcx_rem(sp.Function):
    r""":math:`\operatorname{erfcx}(x) - 1 + 2x/\sqrt\pi`, erfcx less its degree-1 Taylor polynomial.

    It is :math:`O(x^2)` at 0, where the three-term sum cancels; the run-time kernels sum the
    (alternating, for x > 0) Taylor series :math:`\sum_{n\ge2} (-x)^n/\Gamma(n/2 + 1)` for
    :math:`|x| < 1/2` and the direct formula elsewhere.
    """

    nargs = 1

    def fdiff(self, argindex=1):
        x = self.args[0]
        return 2 * x * erfcx(x)

    def _eval_rewrite_as_erfc(self, x, **kwargs):
        return sp.exp(x**2) * sp.erfc(x) - 1 + 2 * x / sp.sqrt(sp.pi)

    def _eval_evalf(self, prec):
        return self.rewrite(sp.erfc)._eval_evalf(prec)


class log1p_mix(sp.Function):
    r""":math:`\log(1 - q + q e^{a}) = \log1p(q\operatorname{expm1}(a))` (log-MGF of a q-mixture).

    The kernels use ``log1p(q expm1(a))`` where :math:`q\operatorname{expm1}(a) \ge -1/2` (log1p is
    well conditioned there) and ``logaddexp(log1p(-q), log(q) + a)`` below, for :math:`0 \le q \le 1`
    (no rounding of :math:`1 - q + q e^a` to 0 as q -> 1 and a << 0).
    """

    nargs = 2

    def fdiff(self, argindex=1):
        q, a = self.args
        den = 1 - q + q * sp.exp(a)
        return (sp.exp(a) - 1) / den if argindex == 1 else q * sp.exp(a) / den

    def _eval_rewrite_as_exp(self, q, a, **kwargs):
        return sp.log(1 - q + q * sp.exp(a))

    def _eval_evalf(self, prec):
        return self.rewrite(sp.exp)._eval_evalf(prec)


class log_ratio(sp.Function):
    r""":math:`\log(a/b)` for :math:`a, b > 0`; the kernels use ``log1p((a - b)/b)`` for
    :math:`b/2 \le a \le 2b` (``a - b`` exact by Sterbenz's lemma) and ``log(a/b)`` elsewhere."""

    nargs = 2

    def fdiff(self, argindex=1):
        a, b = self.args
        return 1 / a if argindex == 1 else -1 / b

    def _eval_rewrite_as_log(self, a, b, **kwargs):
        return sp.log(a / b)

    def _eval_evalf(self, prec):
        return self.rewrite(sp.log)._eval_evalf(prec)


class xlogx(sp.Function):
    r""":math:`x\log x`, continued by its limit 0 at :math:`x = 0` (``scipy.special.xlogy(x, x)``)."""

    nargs = 1

    def fdiff(self, argindex=1):
        return sp.log(self.args[0]) + 1

    def _eval_rewrite_as_log(self, x, **kwargs):
        return x * sp.log(x)

    def _eval_evalf(self, prec):
        return self.rewrite(sp.log)._eval_evalf(prec)


def to_elementary(expr: sp.Basic) -> sp.Basic:
    """Rewrite every symdp/cfunctions node back to exp/log/erfc (for equality checks)."""
    rep = {
        ndtr: lambda x: sp.erfc(-x / _SQRT2) / 2,
        log_ndtr: lambda x: sp.log(sp.erfc(-x / _SQRT2) / 2),
        gauss_diff: lambda a, b, d: sp.erfc(-a / _SQRT2) / 2 - sp.exp(d + (b**2 - a**2) / 2) * sp.erfc(-b / _SQRT2) / 2,
        erfcx: lambda x: sp.exp(x**2) * sp.erfc(x),
        log1mexp: lambda x: sp.log(1 - sp.exp(x)),
        ndtri: lambda x: _SQRT2 * sp.erfinv(2 * x - 1),
        log1p: lambda x: sp.log(1 + x),
        expm1: lambda x: sp.exp(x) - 1,
        logaddexp: lambda a, b: sp.log(sp.exp(a) + sp.exp(b)),
        erfcx_rem: lambda x: sp.exp(x**2) * sp.erfc(x) - 1 + 2 * x / sp.sqrt(sp.pi),
        log1p_mix: lambda q, a: sp.log(1 - q + q * sp.exp(a)),
        log_ratio: lambda a, b: sp.log(a / b),
        xlogx: lambda x: x * sp.log(x),
    }
    out = expr
    for f, g in rep.items():
        out = out.replace(lambda e, f=f: isinstance(e, f), lambda e, g=g: g(*e.args))
    return out
