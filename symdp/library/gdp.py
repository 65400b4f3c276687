r"""Bu, Dong, Long, Su: "Deep learning with Gaussian differential privacy" (2020).

Ids ``bu2020.*`` (the seed file is recorded in ``symdp.library._sources``).  The paper builds on
f-DP and Gaussian DP (Dong, Roth, Su 2019): trade-off functions, the
(eps, delta)-DP trade-off :math:`f_{\epsilon,\delta}` (2.1), the Gaussian
trade-off :math:`G_\mu`, the duality :math:`\delta(\epsilon) = 1 + f^*(-e^\epsilon)`
and its closed form (3.2) for :math:`\mu`-GDP, Poisson subsampling
(Prop. A.1, Lemma A.2), composition, the central-limit :math:`\mu_{CLT}` (3.1),
noise recalibration (3.3)-(3.4), and the comparison with the moments
accountant (Thm 1-2).  The tables of the paper lost their numbers in our copy;
the values the text keeps are encoded as printed-value entries.

Besides ``THEOREMS`` the module provides the numeric helpers the entries refer
to (trade-off functions on a grid, the subsampling operator
:math:`C_p(f) = \min\{f_p, f_p^{-1}\}^{**}`, numerical convex conjugates, the
inversion of (3.2)), so that the set-valued and non-closed-form statements can
be evaluated:

>>> round(float(eps_from_delta_gdp(1.5, 1e-5)), 4)
7.0514
>>> import numpy as np
>>> float(np.round(gdp_tradeoff_numeric(1.0, 0.05), 6))
0.740489

The central-limit quantities (:math:`\mu_{CLT}`, :math:`\delta_{CLT}`, the
uniform-subsampling :math:`\mu` of the authors' code) are *approximations*,
not upper bounds; those entries carry ``tags=("approximation", ...)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import mpmath
import numpy as np
import sympy as sp
from scipy import special

from ..errors import ConvergenceError, InvalidParameterError
from ..numeric import golden_section_min
from ..symbols import Delta, E, T, alpha, delta, eps, mu, p, sigma
from ..theorem import Expansion, Kind, Property, theorem
from ..validation import check_int, check_probability, check_real
from ._sources import BU, src

# --------------------------------------------------------------------------
# symbolic helpers
# --------------------------------------------------------------------------


def Phi(x: sp.Expr) -> sp.Expr:
    r"""Standard normal CDF as SymPy: :math:`\Phi(x) = \tfrac12\operatorname{erfc}(-x/\sqrt2)`.

    Built with ``evaluate=False`` so the ``erfc(-x/sqrt(2))/2`` shape survives
    construction (code generation rewrites it to ``ndtr`` / ``log_ndtr``).

    >>> Phi(sp.Integer(0)).evalf(5)
    0.50000
    """
    return sp.erfc(-sp.sympify(x) / sp.sqrt(2), evaluate=False) / 2


def Phi_inv(y: sp.Expr) -> sp.Expr:
    r""":math:`\Phi^{-1}(y) = \sqrt2\,\operatorname{erfinv}(2y - 1)`.

    SymPy 1.14 evaluates ``erfinv`` numerically but not ``erfcinv``, hence this form.
    """
    return sp.sqrt(2) * sp.erfinv(2 * sp.sympify(y) - 1)


def G(mu_: sp.Expr, a: sp.Expr) -> sp.Expr:
    r"""The Gaussian trade-off function :math:`G_\mu(a) = \Phi(\Phi^{-1}(1 - a) - \mu)`."""
    return Phi(Phi_inv(1 - sp.sympify(a)) - mu_)


def f_eps_delta(eps_: sp.Expr, delta_: sp.Expr, a: sp.Expr) -> sp.Expr:
    r"""(2.1): :math:`f_{\epsilon,\delta}(a) = \max\{0, 1 - \delta - e^\epsilon a, e^{-\epsilon}(1 - \delta - a)\}`."""
    return sp.Max(0, 1 - delta_ - sp.exp(eps_) * a, sp.exp(-eps_) * (1 - delta_ - a))


def delta_gdp(eps_: sp.Expr, mu_: sp.Expr) -> sp.Expr:
    r"""(3.2): :math:`\delta(\epsilon;\mu) = \Phi(-\epsilon/\mu + \mu/2) - e^\epsilon\Phi(-\epsilon/\mu - \mu/2)`."""
    return Phi(-eps_ / mu_ + mu_ / 2) - sp.exp(eps_) * Phi(-eps_ / mu_ - mu_ / 2)


def clt_mu_expr(p_: sp.Expr, T_: sp.Expr, sigma_: sp.Expr) -> sp.Expr:
    r"""(3.1): :math:`\mu_{CLT} = p\sqrt{T(e^{1/\sigma^2} - 1)}`."""
    return p_ * sp.sqrt(T_ * (sp.exp(1 / sigma_**2) - 1))


# module-local symbols (canonical ones come from symdp.symbols)
mu1 = sp.Symbol("mu_1", positive=True)
mu2 = sp.Symbol("mu_2", positive=True)
nu = sp.Symbol("nu", positive=True)  # limit of p sqrt(T)
h = sp.Symbol("h", positive=True)  # increment of mu
mu_tilde = sp.Symbol("mutilde", positive=True)
sigma_tilde = sp.Symbol("sigmatilde", positive=True)
delta_MA = sp.Symbol("delta_MA", positive=True)  # moments-accountant delta at eps
f_MA = sp.Symbol("f_MA", nonnegative=True)  # sup_eps f_{eps, delta_MA(eps)}(alpha)
mu_CLT = sp.Symbol("mu_CLT", positive=True)
mu_U = sp.Symbol("mu_U", positive=True)  # uniform-subsampling CLT mu of the authors' code
mu_M = sp.Symbol("mu_M", positive=True)  # GDP parameter achieved by a mechanism
T_sub = sp.Symbol("T_sub", nonnegative=True)  # trade-off value of a subsampled mechanism at alpha
T_mix = sp.Symbol("T_mix", nonnegative=True)  # trade-off value of Lemma A.2's mixture pair at alpha
f_ed = sp.Symbol("f_epsilondelta", nonnegative=True)
G_mu = sp.Symbol("G_mu", nonnegative=True)
f_p = sp.Symbol("f_p", nonnegative=True)
err_min = sp.Symbol("err_min", nonnegative=True)  # min_alpha alpha + f(alpha)

# undefined functions used only inside Property parameters (never in rhs)
_f = sp.Function("f")
_fconj = sp.Function("f_conj")
_Cp = sp.Function("C_p")  # C_p(f) = min{f_p, f_p^-1}**
_tensor = sp.Function("TensorPower")  # f^{(x)T}

#: (3.1) as an expression in (p, T, sigma)
CLT_MU = clt_mu_expr(p, T, sigma)
#: (3.2) as an expression in (eps, mu)
DELTA_GDP = delta_gdp(eps, mu)
#: the uniform-subsampling mu of the authors' TensorFlow Privacy code (seeds/NOTES.md)
UNIFORM_MU = (
    sp.sqrt(2) * p * sp.sqrt(T)
    * sp.sqrt(sp.exp(1 / sigma**2) * Phi(sp.Rational(3, 2) / sigma) + 3 * Phi(-sp.Rational(1, 2) / sigma) - 2)
)

# MNIST setting of Table 1 and Figure 4: n = 60000, batch 256
P_MNIST = sp.Rational(256, 60000)
DELTA_1E5 = sp.Rational(1, 10**5)


def _steps(epochs: int) -> sp.Expr:
    """Steps for ``epochs`` epochs at p = 256/60000 (Table 1 note: epochs = pT)."""
    return epochs / P_MNIST


# --------------------------------------------------------------------------
# numeric helpers (float64 / mpmath); the sympy entries above are the reference
# --------------------------------------------------------------------------


def gdp_tradeoff_numeric(mu_: float, a):
    r""":math:`G_\mu(a) = \Phi(-\Phi^{-1}(a) - \mu)` in float64 (``ndtri`` of ``a`` avoids ``1 - a``)."""
    check_real("mu", mu_, 0.0, None)
    a = np.asarray(check_real("alpha", a, 0.0, 1.0), dtype=float)
    return special.ndtr(-special.ndtri(a) - mu_)


def f_eps_delta_numeric(eps_: float, delta_: float, a):
    r"""(2.1) in float64."""
    check_real("eps", eps_, 0.0, None)
    check_real("delta", delta_, 0.0, 1.0)
    a = np.asarray(check_real("alpha", a, 0.0, 1.0), dtype=float)
    return np.maximum.reduce([np.zeros_like(a), 1 - delta_ - math.exp(eps_) * a, math.exp(-eps_) * (1 - delta_ - a)])


def gdp_delta_numeric(eps_, mu_):
    r"""(3.2) in float64, in log space: :math:`\Phi(a)(1 - e^{\epsilon + \log\Phi(b) - \log\Phi(a)})`.

    >>> float(np.round(gdp_delta_numeric(1.0, 1.0), 8))
    0.12693674
    """
    eps_ = np.asarray(check_real("eps", eps_, 0.0, None), dtype=float)
    mu_ = np.asarray(check_real("mu", mu_, 0.0, None, lo_open=True), dtype=float)
    la = special.log_ndtr(-eps_ / mu_ + mu_ / 2)
    lb = special.log_ndtr(-eps_ / mu_ - mu_ / 2)
    return np.exp(la) * -np.expm1(np.minimum(eps_ + lb - la, 0.0))


def _gdp_delta_mp(eps_, mu_):
    e, m = mpmath.mpf(eps_), mpmath.mpf(mu_)
    return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def eps_from_delta_gdp(mu_: float, delta_: float, *, dps: int = 30, max_iter: int = 400) -> mpmath.mpf:
    r"""Invert (3.2): the smallest :math:`\epsilon \ge 0` with :math:`\delta(\epsilon;\mu) \le \delta`.

    Bisection on :math:`\log\delta` in mpmath at ``dps`` digits (delta(eps; mu) is
    decreasing in eps).  Returns 0 when :math:`\delta(0;\mu) \le \delta`.
    """
    check_real("mu", mu_, 0.0, None, lo_open=True)
    check_probability("delta", delta_)
    with mpmath.workdps(dps):
        target = mpmath.log(mpmath.mpf(delta_))

        def g(e):
            d = _gdp_delta_mp(e, mu_)
            return (mpmath.log(d) if d > 0 else mpmath.mpf("-inf")) - target

        if g(0) <= 0:
            return mpmath.mpf(0)
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while g(hi) > 0:
            lo, hi = hi, 2 * hi
            if hi > 1e6:
                raise ConvergenceError(f"eps_from_delta_gdp: no bracket for mu={mu_!r}, delta={delta_!r}")
        for _ in range(max_iter):
            mid = (lo + hi) / 2
            if g(mid) > 0:
                lo = mid
            else:
                hi = mid
            if hi - lo < mpmath.mpf(10) ** (-dps + 5) * max(1, hi):
                return hi  # the side that satisfies delta(eps) <= delta
        raise ConvergenceError(f"eps_from_delta_gdp: bisection did not converge in {max_iter} steps")


def mu_from_eps_delta_gdp(eps_: float, delta_: float, *, dps: int = 30, max_iter: int = 400) -> mpmath.mpf:
    r"""Solve (3.3): the largest :math:`\mu` with :math:`\delta(\epsilon;\mu) \le \delta` (delta increases in mu)."""
    check_real("eps", eps_, 0.0, None)
    check_probability("delta", delta_)
    with mpmath.workdps(dps):
        target = mpmath.mpf(delta_)
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while _gdp_delta_mp(eps_, hi) < target:
            lo, hi = hi, 2 * hi
            if hi > 1e4:
                raise ConvergenceError(f"mu_from_eps_delta_gdp: no bracket for eps={eps_!r}, delta={delta_!r}")
        for _ in range(max_iter):
            mid = (lo + hi) / 2
            if _gdp_delta_mp(eps_, mid) < target:
                lo = mid
            else:
                hi = mid
            if hi - lo < mpmath.mpf(10) ** (-dps + 5) * hi:
                return lo  # the side with delta(eps; mu) <= delta
        raise ConvergenceError(f"mu_from_eps_delta_gdp: bisection did not converge in {max_iter} steps")


def clt_mu_numeric(p_, T_, sigma_):
    r"""(3.1) in float64 with ``expm1``: :math:`p\sqrt{T\,\mathrm{expm1}(1/\sigma^2)}`.  An approximation."""
    p_ = check_probability("p", p_, open_high=False)
    T_ = check_real("T", T_, 0.0, None)
    sigma_ = check_real("sigma", sigma_, 0.0, None, lo_open=True)
    return np.asarray(p_) * np.sqrt(np.asarray(T_) * np.expm1(1.0 / np.asarray(sigma_, dtype=float) ** 2))


def recalibrated_sigma_numeric(mu_tilde_, p_, T_):
    r"""Solve (3.4) for :math:`\tilde\sigma = 1/\sqrt{\log(1 + \tilde\mu^2/(p^2 T))}`."""
    mu_tilde_ = check_real("mu_tilde", mu_tilde_, 0.0, None, lo_open=True)
    p_ = check_probability("p", p_, open_high=False)
    T_ = check_real("T", T_, 0.0, None, lo_open=True)
    return 1.0 / np.sqrt(np.log1p(np.asarray(mu_tilde_) ** 2 / (np.asarray(p_) ** 2 * np.asarray(T_))))


def subsample_tradeoff(f: Callable[[np.ndarray], np.ndarray], p_: float) -> Callable[[np.ndarray], np.ndarray]:
    r""":math:`f_p = p f + (1-p)\mathrm{Id}` with :math:`\mathrm{Id}(a) = 1 - a` (Section 2.2)."""
    check_probability("p", p_, open_low=False, open_high=False)
    return lambda a: p_ * f(np.asarray(a, dtype=float)) + (1 - p_) * (1 - np.asarray(a, dtype=float))


def inverse_tradeoff(f: Callable[[np.ndarray], np.ndarray], a, *, iters: int = 80) -> np.ndarray:
    r""":math:`f^{-1}(a) = \inf\{t \in [0,1] : f(t) \le a\}` for a non-increasing ``f`` (vectorised bisection)."""
    a = np.asarray(check_real("alpha", a, 0.0, 1.0), dtype=float)
    lo, hi = np.zeros_like(a), np.ones_like(a)
    done = f(lo) <= a  # f(0) <= a: the infimum is 0
    for _ in range(check_int("iters", iters, 1, 10_000)):
        mid = (lo + hi) / 2
        ok = f(mid) <= a
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return np.where(done, 0.0, hi)


def convex_minorant(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    r"""The greatest convex minorant :math:`g^{**}` of the points ``(xs, ys)`` (lower hull), at ``xs``."""
    xs = np.asarray(xs, dtype=float)
    ys = np.asarray(ys, dtype=float)
    if xs.ndim != 1 or xs.shape != ys.shape or xs.size < 2 or np.any(np.diff(xs) <= 0):
        raise InvalidParameterError("convex_minorant: xs must be strictly increasing, same shape as ys, size >= 2")
    hull: list[int] = []
    for i in range(xs.size):
        while len(hull) >= 2:
            i0, i1 = hull[-2], hull[-1]
            # drop i1 if it lies on or above the chord i0 -> i
            cross = (xs[i1] - xs[i0]) * (ys[i] - ys[i0]) - (ys[i1] - ys[i0]) * (xs[i] - xs[i0])
            if cross <= 0:
                hull.pop()
            else:
                break
        hull.append(i)
    return np.interp(xs, xs[hull], ys[hull])


def subsampled_tradeoff_numeric(f: Callable[[np.ndarray], np.ndarray], p_: float, a, *, grid: int = 20001) -> np.ndarray:
    r""":math:`C_p(f)(a) = \min\{f_p, f_p^{-1}\}^{**}(a)` on a uniform grid of ``grid`` points, interpolated at ``a``.

    The subsampling theorem of Section 2.2: if M is f-DP then M o Sample_p is C_p(f)-DP.
    Hull of grid values: the result is within the grid's interpolation error
    of the exact value (a convex function sampled on a grid; its chords lie
    above it, so the value can exceed the exact one by that error).
    """
    fp = subsample_tradeoff(f, p_)
    xs = np.linspace(0.0, 1.0, check_int("grid", grid, 3, 10**7))
    ys = np.minimum(fp(xs), inverse_tradeoff(fp, xs))
    return np.interp(np.asarray(a, dtype=float), xs, convex_minorant(xs, ys))


def subsampled_gdp_tradeoff(mu_: float, p_: float, a, *, grid: int = 20001) -> np.ndarray:
    r""":math:`C_p(G_\mu) = \min\{f_p, f_p^{-1}\}^{**}` with :math:`f_p = pG_\mu + (1-p)\mathrm{Id}`, numerically."""
    check_real("mu", mu_, 0.0, None)
    return subsampled_tradeoff_numeric(lambda x: gdp_tradeoff_numeric(mu_, x), p_, a, grid=grid)


def convex_conjugate(f: Callable[[float], float], y: float, *, grid: int = 4001, iters: int = 120) -> float:
    r""":math:`f^*(y) = \sup_{a \in [0,1]} (y a - f(a))` for a convex ``f``.

    Grid search, then golden-section search on the bracketing cells: ``y a - f(a)``
    is concave, so the search converges to the maximum also at kinks
    (piecewise-linear ``f`` such as :math:`f_{\epsilon,\delta}`).
    """
    xs = np.linspace(0.0, 1.0, check_int("grid", grid, 3, 10**7))
    obj = lambda x: y * x - f(x)  # noqa: E731
    vals = np.asarray([obj(x) for x in xs], dtype=float)
    i = int(np.argmax(vals))
    lo, hi = float(xs[max(i - 1, 0)]), float(xs[min(i + 1, xs.size - 1)])
    best = float(vals[i])
    fc, fd = golden_section_min(lambda x: -obj(x), lo, hi, check_int("iters", iters, 1, 10_000))
    return max(best, -float(fc), -float(fd))


def delta_from_tradeoff(f: Callable[[float], float], eps_: float, **kw) -> float:
    r"""The duality of Section 2.1: f-DP implies :math:`(\epsilon, 1 + f^*(-e^\epsilon))`-DP."""
    check_real("eps", eps_, 0.0, None)
    return 1.0 + convex_conjugate(f, -math.exp(eps_), **kw)


def min_error_sum(f: Callable[[np.ndarray], np.ndarray], *, grid: int = 200001) -> float:
    r""":math:`\min_a (a + f(a))`: the smallest sum of type I and type II errors (grid search)."""
    xs = np.linspace(0.0, 1.0, check_int("grid", grid, 3, 10**8))
    return float(np.min(xs + f(xs)))


# --------------------------------------------------------------------------
# the entries
# --------------------------------------------------------------------------

_A = {alpha: (sp.Rational(1, 1000), sp.Rational(999, 1000))}
_EPS = {eps: (sp.Rational(1, 100), 10)}
_MU = {mu: (sp.Rational(1, 20), 5)}
_P = {p: (sp.Rational(1, 10**4), 1)}
_T = {T: (1, 10**6)}
_SIGMA = {sigma: (sp.Rational(1, 2), 20)}

_APPROX_NOTE = (
    "The CLT gives an APPROXIMATION of the privacy of NoisySGD, exact only in the limit "
    "T -> oo with p sqrt(T) -> nu; it is NOT an upper bound on the privacy loss at finite T "
    "(for small sigma or large p it can under-state the true delta)."
)

THEOREMS = [
    # ---------------- Section 2.1: f-DP, (eps, delta)-DP, GDP ----------------
    theorem(
        "bu2020.def_fdp",
        "f-differential privacy (trade-off function definition)",
        Kind.EQUIVALENCE,
        src(BU, "Def 2.2", "Dong, Roth, Su 2019"),
        quantity="T(M(S), M(S'))(alpha) = inf_phi {1 - E_Q[phi] : E_P[phi] <= alpha}",
        premises=(Property("fDP", (_f(alpha),), "M"),),
        conclusion=Property("trade-off >= f", (_f(alpha),), "T(M(S), M(S'))"),
        notes=(
            "M is f-DP iff T(M(S), M(S')) >= f pointwise on [0,1] for all neighbouring S, S'; "
            "T(P,Q)(alpha) = inf over rejection rules phi of {1 - E_Q[phi] : E_P[phi] <= alpha} "
            "(minimum type II error at level alpha, attained by the likelihood-ratio test). "
            "Neighbours differ by adding/removing one individual."
        ),
        tags=("definition", "f-DP"),
    ),
    theorem(
        "bu2020.f_eps_delta",
        "Trade-off function of (eps, delta)-DP",
        Kind.DEFINITION,
        src(BU, "eq. (2.1)", "Wasserman and Zhou 2010; Dong, Roth, Su 2019"),
        lhs=f_ed,
        rhs=f_eps_delta(eps, delta, alpha),
        hypotheses=[eps >= 0, delta >= 0, delta <= 1, alpha >= 0, alpha <= 1],
        domain={**_EPS, delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)), **_A},
        quantity="f_{eps,delta}(alpha), alpha the type I error",
        tags=("f-DP", "trade-off"),
    ),
    theorem(
        "bu2020.dp_iff_f_eps_delta",
        "(eps, delta)-DP is f_{eps,delta}-DP",
        Kind.EQUIVALENCE,
        src(BU, "Section 2.1 after Def 2.2", "Wasserman and Zhou 2010"),
        premises=(Property("DP", (eps, delta), "M"),),
        conclusion=Property("fDP", (f_eps_delta(eps, delta, alpha),), "M"),
        refs=("bu2020.f_eps_delta",),
        notes="An algorithm is (eps, delta)-DP if and only if it is f_{eps,delta}-DP (both directions).",
        tags=("f-DP", "equivalence"),
    ),
    theorem(
        "bu2020.duality",
        "f-DP implies (eps, 1 + f*(-e^eps))-DP for every eps >= 0",
        Kind.EQUIVALENCE,
        src(BU, "Section 2.1, footnote 3", "Dong, Roth, Su 2019, Prop 2.12"),
        premises=(Property("fDP", (_f(alpha),), "M"),),
        conclusion=Property("DP", (eps, 1 + _fconj(-sp.exp(eps))), "M"),
        hypotheses=[eps >= 0],
        notes=(
            "f* is the convex conjugate f*(y) = sup_alpha (y alpha - f(alpha)). Numeric form: "
            "symdp.library.gdp.delta_from_tradeoff(f, eps). For f = G_mu it gives (3.2) "
            "(entry bu2020.delta_of_eps_gdp)."
        ),
        tags=("f-DP", "duality"),
    ),
    theorem(
        "bu2020.gdp_tradeoff",
        "Gaussian trade-off function G_mu",
        Kind.DEFINITION,
        src(BU, "Section 2.1 before Def 2.3", "Dong, Roth, Su 2019"),
        lhs=G_mu,
        rhs=G(mu, alpha),
        hypotheses=[mu >= 0, alpha >= 0, alpha <= 1],
        domain={**_MU, **_A},
        quantity="G_mu(alpha) = T(N(0,1), N(mu,1))(alpha)",
        oracle="gaussian_profile",
        notes=(
            "G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu); Phi^{-1}(1 - alpha) is written "
            "sqrt(2) erfinv(1 - 2 alpha) (cancels for tiny alpha in float64: use -ndtri(alpha))."
        ),
        tags=("GDP", "trade-off"),
    ),
    theorem(
        "bu2020.def_gdp",
        "mu-Gaussian differential privacy",
        Kind.EQUIVALENCE,
        src(BU, "Def 2.3", "Dong, Roth, Su 2019"),
        premises=(Property("GDP", (mu,), "M"),),
        conclusion=Property("fDP", (G(mu, alpha),), "M"),
        refs=("bu2020.gdp_tradeoff",),
        notes="M is mu-GDP iff T(M(S), M(S')) >= G_mu for all neighbouring S, S' (i.e. G_mu-DP).",
        tags=("GDP", "definition"),
    ),
    theorem(
        "bu2020.gaussian_mechanism_gdp",
        "The Gaussian mechanism is sens/sigma-GDP",
        Kind.BOUND,
        src(BU, "Section 2.1 after Def 2.3", "Dong, Roth, Su 2019"),
        lhs=mu_M,
        rhs=Delta / sigma,
        hypotheses=[Delta > 0, sigma > 0],
        domain={Delta: (sp.Rational(1, 100), 10), sigma: (sp.Rational(1, 100), 100)},
        quantity="smallest mu such that theta(S) + N(0, sigma^2) is mu-GDP, Delta = sens(theta) (L2 for vectors)",
        premises=(Property("sensitivity", (Delta,), "theta"),),
        conclusion=Property("GDP", (Delta / sigma,), "M"),
        oracle="gdp_tradeoff",
        notes="Text: 'gives mu-GDP if sigma = sens(theta)/mu'. Tight: equality for worst-case neighbours.",
        tags=("GDP", "gaussian-mechanism", "flagship"),
    ),
    theorem(
        "bu2020.noisy_sgd_step_gdp",
        "One NoisySGD gradient step (noise sigma R, clipping R) is 1/sigma-GDP",
        Kind.BOUND,
        src(BU, "Section 3.1"),
        lhs=mu_M,
        rhs=1 / sigma,
        hypotheses=[sigma > 0],
        domain=_SIGMA,
        quantity="GDP parameter of the un-subsampled update M (sum of clipped gradients has sensitivity R)",
        premises=(Property("sensitivity", (sp.Symbol("R", positive=True),), "sum of clipped gradients"),),
        conclusion=Property("GDP", (1 / sigma,), "M"),
        refs=("bu2020.gaussian_mechanism_gdp",),
        oracle="gdp_tradeoff",
        tags=("GDP", "noisy-sgd"),
    ),
    # ---------------- duality and its closed form (3.2) ----------------
    theorem(
        "bu2020.delta_of_eps_gdp",
        "mu-GDP implies (eps, delta(eps; mu))-DP",
        Kind.BOUND,
        src(BU, "eq. (3.2)", "Dong, Roth, Su 2019, Cor 2.13"),
        lhs=delta,
        rhs=DELTA_GDP,
        hypotheses=[eps >= 0, mu > 0],
        domain={**_EPS, **_MU},
        quantity="smallest delta such that a mu-GDP mechanism is (eps, delta)-DP",
        premises=(Property("GDP", (mu,), "M"),),
        conclusion=Property("DP", (eps, DELTA_GDP), "M"),
        refs=("bu2020.duality", "bu2020.gdp_tradeoff"),
        oracle="gaussian_profile",
        notes=(
            "delta(eps; mu) = 1 + G*_mu(-e^eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2). "
            "Tight (equality) for N(0,1) vs N(mu,1); the same formula is the exact Gaussian-mechanism "
            "profile of Balle and Wang 2018 with r = mu. Inverse (no closed form): "
            "symdp.library.gdp.eps_from_delta_gdp."
        ),
        tags=("GDP", "duality", "flagship"),
    ),
    theorem(
        "bu2020.delta_of_eps_gdp_conjugate",
        "1 + G_mu*(-e^eps) evaluated at its maximiser equals (3.2)",
        Kind.IDENTITY,
        src(BU, "eq. (3.2), first equality"),
        lhs=1 - sp.exp(eps) * Phi(-eps / mu - mu / 2) - G(mu, Phi(-eps / mu - mu / 2)),
        rhs=DELTA_GDP,
        hypotheses=[eps >= 0, mu > 0],
        domain={**_EPS, **_MU},
        refs=("bu2020.delta_of_eps_gdp", "bu2020.duality"),
        notes=(
            "G*_mu(y) = sup_a (y a - G_mu(a)); for y = -e^eps the supremum is attained where "
            "G_mu'(a) = -e^eps, i.e. Phi^{-1}(1-a) = eps/mu + mu/2, a* = Phi(-eps/mu - mu/2). "
            "The lhs is 1 + (-e^eps a* - G_mu(a*)). (Maximiser derived here; the paper states the result.)"
        ),
        tags=("GDP", "duality", "derived"),
    ),
    theorem(
        "bu2020.delta_increasing_in_mu",
        "delta(eps; mu) increases with mu",
        Kind.COMPARISON,
        src(BU, "Section 3.2, before (3.3)"),
        lhs=DELTA_GDP,
        relation="<",
        rhs=delta_gdp(eps, mu + h),
        hypotheses=[eps >= 0, mu > 0, h > 0],
        domain={**_EPS, **_MU, h: (sp.Rational(1, 100), 2)},
        refs=("bu2020.delta_of_eps_gdp",),
        notes="Text: 'delta(eps; mu) increases as mu increases'. d delta/d mu = phi(eps/mu - mu/2) > 0.",
        tags=("GDP", "monotonicity"),
    ),
    theorem(
        "bu2020.min_error_sum_gdp",
        "Minimum sum of type I and II errors under mu-GDP",
        Kind.BOUND,
        src(BU, "Section 4.1 (Figure 3 discussion)"),
        lhs=err_min,
        relation=">=",
        rhs=2 * Phi(-mu / 2),
        hypotheses=[mu >= 0],
        domain=_MU,
        quantity="min over alpha of alpha + T(M(S), M(S'))(alpha) for a mu-GDP M",
        premises=(Property("GDP", (mu,), "M"),),
        oracle="gdp_tradeoff",
        notes=(
            "Text: 'the minimum sum of type I and type II errors is (at least) 77.6% by the CLT approach, "
            "whereas it is merely (at least) 9.4% by the moments accountant' for the Table 1 model with "
            "96.6% accuracy (Appendix A: sigma = 1.1, mu = 0.57). The closed form 2 Phi(-mu/2) "
            "(attained at alpha = Phi(-mu/2)) is derived here; 2 Phi(-0.285) = 0.7756. For "
            "f_{eps,delta} the minimum is 2(1-delta)/(1+e^eps) (9.4% matches eps = 3.01)."
        ),
        tags=("GDP", "derived", "interpretation"),
    ),
    # ---------------- Section 2.2 and Appendix A: subsampling ----------------
    theorem(
        "bu2020.subsampled_tradeoff",
        "f_p = p f + (1 - p) Id at f = G_mu",
        Kind.DEFINITION,
        src(BU, "Section 2.2 / Thm 3 proof"),
        lhs=f_p,
        rhs=p * G(mu, alpha) + (1 - p) * (1 - alpha),
        hypotheses=[p >= 0, p <= 1, mu >= 0, alpha >= 0, alpha <= 1],
        domain={**_P, **_MU, **_A},
        quantity="f_p(alpha) for f = G_mu (NoisySGD uses mu = 1/sigma)",
        notes="Defined for any trade-off f; encoded at f = G_mu. Id(alpha) = 1 - alpha (perfect privacy). "
        "Numeric: symdp.library.gdp.subsample_tradeoff.",
        tags=("subsampling", "trade-off"),
    ),
    theorem(
        "bu2020.prop_a1",
        "Poisson subsampling of an f-DP mechanism (removal direction)",
        Kind.BOUND,
        src(BU, "Prop A.1 / eq. (2.3)"),
        lhs=T_sub,
        relation=">=",
        rhs=p * G(mu, alpha) + (1 - p) * (1 - alpha),
        hypotheses=[p >= 0, p <= 1, mu >= 0, alpha >= 0, alpha <= 1],
        domain={**_P, **_MU, **_A},
        quantity="T(M o Sample_p(S), M o Sample_p(S'))(alpha) with S' = S u {x0}",
        premises=(Property("GDP", (mu,), "M"), Property("Poisson-subsampling", (p,), "Sample_p")),
        conclusion=Property("trade-off >= f_p", (p * G(mu, alpha) + (1 - p) * (1 - alpha),), "M o Sample_p (S vs S')"),
        refs=("bu2020.subsampled_tradeoff",),
        oracle="subsampled_gaussian_profile",
        notes=(
            "Stated for any trade-off function f; encoded at f = G_mu. The reverse direction is "
            "T(M o Sample_p(S'), M o Sample_p(S)) >= f_p^{-1} (no closed form for G_mu; numeric: "
            "inverse_tradeoff). Tight for the Gaussian pair (N(0,1), (1-p)N(0,1) + pN(mu,1))."
        ),
        tags=("subsampling", "f-DP"),
    ),
    theorem(
        "bu2020.lemma_a2",
        "Trade-off of a mixture pair (Lemma A.2)",
        Kind.BOUND,
        src(BU, "Lemma A.2"),
        lhs=T_mix,
        relation=">=",
        rhs=p * G(mu, alpha) + (1 - p) * (1 - alpha),
        hypotheses=[p >= 0, p <= 1, mu >= 0, alpha >= 0, alpha <= 1],
        domain={**_P, **_MU, **_A},
        quantity="T(sum theta_i P_i, (1-p) sum theta_i P_i + p sum theta_i Q_i)(alpha)",
        premises=(Property("trade-off >= f", (G(mu, alpha),), "(P_i, Q_i) for all i"),),
        refs=("bu2020.prop_a1",),
        oracle="subsampled_gaussian_profile",
        notes=(
            "Stated for a trade-off function f with T(P_i, Q_i) >= f for all i and weights theta_i >= 0 "
            "summing to 1; encoded at f = G_mu. Proof by Jensen (f convex)."
        ),
        tags=("subsampling", "f-DP"),
    ),
    theorem(
        "bu2020.subsampling_theorem",
        "M o Sample_p is min{f_p, f_p^{-1}}**-DP",
        Kind.EQUIVALENCE,
        src(BU, "Section 2.2 (subsampling theorem)"),
        premises=(Property("fDP", (_f(alpha),), "M"), Property("Poisson-subsampling", (p,), "Sample_p")),
        conclusion=Property("fDP", (_Cp(_f(alpha), p),), "M o Sample_p"),
        refs=("bu2020.prop_a1", "bu2020.subsampled_tradeoff"),
        oracle="gdp_tradeoff",
        notes=(
            "C_p(f) = min{f_p, f_p^{-1}}** (greatest convex minorant). Text: 'is larger than f and cannot "
            "be improved in general'. Numeric: symdp.library.gdp.subsampled_tradeoff_numeric / "
            "subsampled_gdp_tradeoff."
        ),
        tags=("subsampling", "f-DP"),
    ),
    theorem(
        "bu2020.subsampling_vs_li2012",
        "C_p(f_{eps,delta}) improves Li et al. 2012 subsampling",
        Kind.COMPARISON,
        src(BU, "Section 2.2, last paragraph", "Li, Qardaji, Su 2012"),
        lhs=f_eps_delta(sp.log(1 - p + p * sp.exp(eps)), p * delta, alpha),
        relation="<=",
        rhs=sp.Max(
            f_eps_delta(sp.log(1 - p + p * sp.exp(eps)), p * delta, alpha),
            (1 + p) * (1 - delta) / (1 + sp.exp(eps)) + (1 - p) * (1 - (1 - delta) / (1 + sp.exp(eps))) - alpha,
        ),
        hypotheses=[eps > 0, delta >= 0, delta < 1, p > 0, p < 1, alpha >= 0, alpha <= 1],
        domain={**_EPS, delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)), p: (sp.Rational(1, 1000), sp.Rational(999, 1000)), **_A},
        refs=("bu2020.subsampling_theorem", "bu2020.f_eps_delta"),
        notes=(
            "Text: 'In the case where the original algorithm M is (eps, delta)-DP, this privacy bound strictly "
            "improves on the subsampling theorem for (eps, delta)-DP by Li et al. (2012)'. lhs: Li et al.'s "
            "(log(1 - p + p e^eps), p delta)-DP as f_{eps',delta'}. rhs: C_p(f_{eps,delta}) in closed form "
            "(derived here, checked against the numerical hull): f_p keeps slope -e^{eps'} up to the fixed "
            "point a1 = (1-delta)/(1+e^eps) of f_{eps,delta}, then the hull is the slope -1 chord "
            "a1 + f_p(a1) - alpha, then f_p^{-1}. Strictness: rhs > lhs for alpha strictly between a1 and "
            "f_p(a1) when delta < 1, eps > 0, 0 < p < 1."
        ),
        tags=("subsampling", "comparison", "derived"),
    ),
    # ---------------- composition ----------------
    theorem(
        "bu2020.composition",
        "Composition of f_t-DP mechanisms is f_1 (x) ... (x) f_T-DP",
        Kind.EQUIVALENCE,
        src(BU, "Section 2.2 (composition theorem)", "Dong, Roth, Su 2019, Thm 4"),
        premises=(Property("fDP", (sp.Function("f_t")(alpha),), "M_t given prior outputs, t = 1..T"),),
        conclusion=Property("fDP", (_tensor(sp.Function("f_t")(alpha), T),), "(M_1, ..., M_T)"),
        notes=(
            "f (x) g = T(P x P', Q x Q') for f = T(P,Q), g = T(P',Q'); commutative and associative. "
            "Text: 'the privacy bound f_1 (x) ... (x) f_T in general cannot be improved'."
        ),
        tags=("composition", "f-DP"),
    ),
    theorem(
        "bu2020.gdp_composition",
        "G_mu1 (x) G_mu2 = G_sqrt(mu1^2 + mu2^2)",
        Kind.BOUND,
        src(BU, "Section 2.2 (composition)", "Dong, Roth, Su 2019, Cor 3.3"),
        lhs=mu_M,
        rhs=sp.sqrt(mu1**2 + mu2**2),
        hypotheses=[mu1 >= 0, mu2 >= 0],
        domain={mu1: (sp.Rational(1, 100), 10), mu2: (sp.Rational(1, 100), 10)},
        quantity="GDP parameter of the composition of a mu1-GDP and a mu2-GDP mechanism",
        premises=(Property("GDP", (mu1,), "M_1"), Property("GDP", (mu2,), "M_2 given M_1")),
        conclusion=Property("GDP", (sp.sqrt(mu1**2 + mu2**2),), "(M_1, M_2)"),
        refs=("bu2020.composition",),
        oracle="gdp_tradeoff",
        notes="Identity of trade-off functions (tight): the privacy losses of the two Gaussian pairs are "
        "N(mu_i^2/2, mu_i^2) and add.",
        tags=("composition", "GDP"),
    ),
    theorem(
        "bu2020.gdp_composition_T",
        "T-fold composition of mu-GDP is sqrt(T) mu-GDP",
        Kind.BOUND,
        src(BU, "Section 2.2 (composition)", "Dong, Roth, Su 2019, Cor 3.3"),
        lhs=mu_M,
        rhs=sp.sqrt(T) * mu,
        hypotheses=[mu >= 0, T >= 1],
        domain={**_MU, **_T},
        quantity="GDP parameter of T adaptively composed mu-GDP mechanisms",
        premises=(Property("GDP", (mu,), "M_t given prior outputs, t = 1..T"),),
        conclusion=Property("GDP", (sp.sqrt(T) * mu,), "(M_1, ..., M_T)"),
        refs=("bu2020.gdp_composition",),
        oracle="gdp_tradeoff",
        notes="E.g. full-batch NoisySGD (p = 1) is sqrt(T)/sigma-GDP exactly, whereas (3.1) at p = 1 "
        "gives sqrt(T (e^{1/sigma^2} - 1)) >= sqrt(T)/sigma (outside the CLT regime).",
        tags=("composition", "GDP", "derived"),
    ),
    # ---------------- Section 3: CLT ----------------
    theorem(
        "bu2020.clt_convergence",
        "(p G_{1/sigma} + (1-p) Id)^{(x)T} -> G_mu as T -> oo, p sqrt(T) -> nu",
        Kind.EQUIVALENCE,
        src(BU, "eq. (2.2) and Section 3.1", "Dong, Roth, Su 2019, Thm 6"),
        premises=(Property("Poisson-subsampled-Gaussian", (p, sigma, T), "NoisySGD"),),
        conclusion=Property("GDP (asymptotically)", (nu * sp.sqrt(sp.exp(1 / sigma**2) - 1),), "NoisySGD"),
        oracle="clt_approximation",
        notes=(
            _APPROX_NOTE + " Text: 'The central limit theorem yields a very accurate approximation in the "
            "settings considered in Section 4' and Figure A.1 ('almost identical at merely epoch one', "
            "sigma = 1.1, T_numeric = 234, p_numeric sqrt(T_numeric) held fixed at mu = 0.57). Also: "
            "min{f, f^-1}** ~ min{G_mu, G_mu^-1}** = G_mu. Measured in that setting (tests, FFT of the "
            "privacy-loss distribution): exact delta(1) = 0.0173 vs delta_CLT(1) = 0.0146, exact delta(2) = "
            "3.4e-4 vs delta_CLT(2) = 8.4e-5 -- close in absolute terms, but the CLT under-states delta."
        ),
        tags=("approximation", "clt", "limit"),
    ),
    theorem(
        "bu2020.clt_mu_limit",
        "CLT limit parameter mu = nu sqrt(e^{1/sigma^2} - 1)",
        Kind.DEFINITION,
        src(BU, "Section 3.1 / Appendix A"),
        lhs=mu,
        rhs=nu * sp.sqrt(sp.exp(1 / sigma**2) - 1),
        hypotheses=[nu > 0, sigma > 0],
        domain={nu: (sp.Rational(1, 100), 10), **_SIGMA},
        quantity="GDP parameter of the CLT limit when p sqrt(T) -> nu",
        refs=("bu2020.clt_convergence",),
        notes=_APPROX_NOTE,
        tags=("approximation", "clt"),
    ),
    theorem(
        "bu2020.clt_mu",
        "CLT privacy parameter of NoisySGD / NoisyAdam",
        Kind.DEFINITION,
        src(BU, "eq. (3.1)"),
        lhs=mu_CLT,
        rhs=CLT_MU,
        hypotheses=[p > 0, p <= 1, T >= 1, sigma > 0],
        domain={**_P, **_T, **_SIGMA},
        quantity="mu_CLT: NoisySGD is approximately mu_CLT-GDP (Poisson sampling rate p, T steps, noise sigma)",
        premises=(Property("Poisson-subsampled-Gaussian", (p, sigma, T), "NoisySGD"),),
        conclusion=Property("GDP (approximately)", (CLT_MU,), "NoisySGD"),
        refs=("bu2020.clt_convergence",),
        oracle="clt_approximation",
        notes=_APPROX_NOTE + " Equals (B/n) sqrt(T (e^{1/sigma^2} - 1)) with batch size B = pn.",
        tags=("approximation", "clt", "flagship"),
    ),
    theorem(
        "bu2020.clt_mu_epochs",
        "mu_CLT in epochs: T = E/p gives sqrt(p E (e^{1/sigma^2} - 1))",
        Kind.IDENTITY,
        src(BU, "Table 1 note (epochs = pT) with eq. (3.1)"),
        lhs=clt_mu_expr(p, E / p, sigma),
        rhs=sp.sqrt(p * E * (sp.exp(1 / sigma**2) - 1)),
        hypotheses=[p > 0, p <= 1, E >= 1, sigma > 0],
        domain={**_P, E: (1, 1000), **_SIGMA},
        refs=("bu2020.clt_mu",),
        notes=_APPROX_NOTE + " (T = E/p need not be an integer, as in the authors' code.)",
        tags=("approximation", "clt", "derived"),
    ),
    theorem(
        "bu2020.clt_mu_large_sigma",
        "mu_CLT ~ p sqrt(T)/sigma as sigma -> oo",
        Kind.EXPANSION,
        src(BU, "eq. (3.1), large-noise regime"),
        lhs=CLT_MU,
        rhs=p * sp.sqrt(T) / sigma,
        expansion=Expansion(sigma, sp.oo, 3),
        domain={**_P, **_T, **_SIGMA},
        refs=("bu2020.clt_mu",),
        notes="mu_CLT = p sqrt(T) (1/sigma + 1/(4 sigma^3) + O(sigma^-5)); the remainder is O(sigma^-3).",
        tags=("approximation", "clt", "asymptotic"),
    ),
    theorem(
        "bu2020.delta_clt",
        "delta_CLT(eps) = delta(eps; mu_CLT)",
        Kind.DEFINITION,
        src(BU, "Section 3.2, after (3.2)"),
        lhs=sp.Symbol("delta_CLT", positive=True),
        rhs=delta_gdp(eps, CLT_MU),
        hypotheses=[eps >= 0, p > 0, p <= 1, T >= 1, sigma > 0],
        domain={**_EPS, p: (sp.Rational(1, 1000), sp.Rational(1, 10)), T: (1, 10**5), sigma: (sp.Rational(1, 2), 5)},
        quantity="the (approximate) delta of NoisySGD at eps by the CLT approach",
        refs=("bu2020.clt_mu", "bu2020.delta_of_eps_gdp"),
        oracle="clt_approximation",
        notes=_APPROX_NOTE,
        tags=("approximation", "clt"),
    ),
    theorem(
        "bu2020.uniform_mu",
        "CLT mu for uniform (fixed-size) subsampling, from the authors' code",
        Kind.DEFINITION,
        src(BU, "TensorFlow Privacy compute_mu_uniform (seeds/NOTES.md)", "Dong, Roth, Su 2019, Section 5"),
        lhs=mu_U,
        rhs=UNIFORM_MU,
        hypotheses=[p > 0, p <= 1, T >= 1, sigma > 0],
        domain={**_P, **_T, **_SIGMA},
        quantity="approximate GDP parameter of NoisySGD with uniform subsampling",
        notes=(
            "Not in the paper's text (which notes that uniform subsampling 'obtain[s] a privacy bound that is "
            "different'); formula from the authors' code as given in seeds/NOTES.md: mu = sqrt(2) p sqrt(T) "
            "sqrt(e^{1/sigma^2} Phi(1.5/sigma) + 3 Phi(-0.5/sigma) - 2). " + _APPROX_NOTE
        ),
        tags=("approximation", "clt"),
    ),
    theorem(
        "bu2020.uniform_mu_large_sigma",
        "Uniform-subsampling mu ~ p sqrt(T)/sigma as sigma -> oo",
        Kind.EXPANSION,
        src(BU, "TensorFlow Privacy compute_mu_uniform, large-noise regime"),
        lhs=UNIFORM_MU,
        rhs=p * sp.sqrt(T) / sigma,
        expansion=Expansion(sigma, sp.oo, 2),
        domain={**_P, **_T, **_SIGMA},
        refs=("bu2020.uniform_mu", "bu2020.clt_mu_large_sigma"),
        notes="Same leading term as Poisson (3.1), but the correction is p sqrt(T)/(sqrt(2 pi) sigma^2), "
        "one order larger than Poisson's p sqrt(T)/(4 sigma^3).",
        tags=("approximation", "clt", "asymptotic", "derived"),
    ),
    # ---------------- Section 3.2: comparison with the moments accountant ----------------
    theorem(
        "bu2020.thm1_fdp_comparison",
        "Thm 1: the moments accountant's trade-off is asymptotically below G_{mu_CLT}",
        Kind.COMPARISON,
        src(BU, "Thm 1"),
        lhs=f_MA,
        relation="<=",
        rhs=G(CLT_MU, alpha),
        hypotheses=[p > 0, p <= 1, T >= 1, sigma > 0, alpha >= 0, alpha <= 1],
        domain={p: (sp.Rational(1, 1000), sp.Rational(1, 10)), T: (1, 10**5), sigma: (sp.Rational(1, 2), 5), **_A},
        quantity="sup_{eps >= 0} f_{eps, delta_MA(eps)}(alpha) for NoisySGD/NoisyAdam",
        refs=("bu2020.clt_mu", "bu2020.gdp_tradeoff", "bu2020.f_eps_delta"),
        oracle="moments_accountant",
        notes=(
            "As stated: limsup_{T -> oo} (sup_{eps>=0} f_{eps,delta_MA(eps)}(alpha) - G_{mu_CLT}(alpha)) <= 0 "
            "for every alpha in [0,1], assuming p sqrt(T) converges to a positive constant. An ASYMPTOTIC "
            "claim: at finite T the inequality need not hold pointwise. " + _APPROX_NOTE
        ),
        tags=("comparison", "asymptotic", "approximation"),
    ),
    theorem(
        "bu2020.thm2_dp_comparison",
        "Thm 2: delta_CLT(eps) < delta_MA(eps) asymptotically",
        Kind.COMPARISON,
        src(BU, "Thm 2"),
        lhs=delta_gdp(eps, CLT_MU),
        relation="<",
        rhs=delta_MA,
        hypotheses=[eps >= 0, p > 0, p <= 1, T >= 1, sigma > 0],
        domain={**_EPS, p: (sp.Rational(1, 1000), sp.Rational(1, 10)), T: (1, 10**5), sigma: (sp.Rational(1, 2), 5),
                delta_MA: (sp.Rational(1, 10**12), sp.Rational(1, 10))},
        quantity="delta at eps: CLT approach vs moments accountant",
        refs=("bu2020.delta_clt", "bu2020.thm1_fdp_comparison"),
        oracle="moments_accountant",
        notes=(
            "As stated: limsup_{T -> oo} (delta_CLT(eps) - delta_MA(eps)) < 0 for all eps >= 0 (under Thm 1's "
            "assumptions); equivalently limsup (eps_CLT(delta) - eps_MA(delta)) < 0. Text: 'the inequality in "
            "this theorem holds for any finite T if delta is derived by directly applying the duality to the "
            "(exact) privacy bound f_1 (x) ... (x) f_T'. delta_MA is the moments accountant's delta (RDP of the "
            "Poisson-subsampled Gaussian, Abadi et al. 2016). " + _APPROX_NOTE
        ),
        tags=("comparison", "asymptotic", "approximation"),
    ),
    theorem(
        "bu2020.recalibration_match",
        "(3.3): mu_tilde matches the moments accountant's delta",
        Kind.DEFINITION,
        src(BU, "eq. (3.3)"),
        lhs=delta_MA,
        rhs=delta_gdp(eps, mu_tilde),
        hypotheses=[eps >= 0, mu_tilde > 0],
        domain={**_EPS, mu_tilde: (sp.Rational(1, 20), 5)},
        quantity="implicit definition of mu_tilde > mu_CLT by delta(eps; mu_tilde) = delta_MA(eps)",
        refs=("bu2020.delta_of_eps_gdp", "bu2020.delta_increasing_in_mu"),
        notes="Solved for mu_tilde numerically: symdp.library.gdp.mu_from_eps_delta_gdp. " + _APPROX_NOTE,
        tags=("recalibration", "approximation"),
    ),
    theorem(
        "bu2020.recalibrated_mu",
        "(3.4): mu_tilde = p sqrt(T (e^{1/sigma_tilde^2} - 1))",
        Kind.DEFINITION,
        src(BU, "eq. (3.4)"),
        lhs=mu_tilde,
        rhs=clt_mu_expr(p, T, sigma_tilde),
        hypotheses=[p > 0, p <= 1, T >= 1, sigma_tilde > 0],
        domain={**_P, **_T, sigma_tilde: (sp.Rational(1, 2), 20)},
        refs=("bu2020.clt_mu", "bu2020.recalibration_match"),
        notes=_APPROX_NOTE,
        tags=("recalibration", "approximation"),
    ),
    theorem(
        "bu2020.recalibrated_sigma",
        "Reduced noise sigma_tilde solved from (3.4)",
        Kind.DEFINITION,
        src(BU, "eq. (3.4) solved for sigma_tilde"),
        lhs=sigma_tilde,
        rhs=1 / sp.sqrt(sp.log(1 + mu_tilde**2 / (p**2 * T))),
        hypotheses=[p > 0, p <= 1, T >= 1, mu_tilde > 0],
        domain={**_P, **_T, mu_tilde: (sp.Rational(1, 20), 5)},
        refs=("bu2020.recalibrated_mu",),
        notes="Closed-form inverse of (3.4) (derived here; the paper says sigma_tilde 'can be solved from "
        "(3.3) and (3.4)'). Text: sigma_tilde < sigma since mu_tilde > mu_CLT. " + _APPROX_NOTE,
        tags=("recalibration", "approximation", "derived"),
    ),
    # ---------------- printed values (Section 4) ----------------
    theorem(
        "bu2020.mnist_mu113_clt_eps",
        "Table 1 row 3: 1.13-GDP gives (5.07, 1e-5)-DP by (3.2)",
        Kind.COMPARISON,
        src(BU, "Section 4.1 text on Table 1 (third row)"),
        lhs=delta_gdp(sp.Rational(507, 100), sp.Rational(113, 100)),
        relation="<=",
        rhs=DELTA_1E5,
        printed=r"\delta_{\mathrm{GDP}}(5.07;\ \mu = 1.13) \le 10^{-5}",
        refs=("bu2020.delta_of_eps_gdp",),
        notes=(
            "Text: e^eps 'equals e^{7.10} = 1212.0 or e^{5.07} = 159.1 depending on which approach is chosen' "
            "for the 1.13-GDP model. Inverting (3.2) at delta = 1e-5: mu = 1.13 gives eps = 5.046; the "
            "unrounded mu_CLT = 1.1339 (sigma = 0.7, 45 epochs, p = 256/60000, the TensorFlow Privacy "
            "setting) gives eps = 5.066 -> 5.07. e^{5.07} = 159.17 (printed 159.1)."
        ),
        tags=("printed-value", "comparison"),
    ),
    theorem(
        "bu2020.mnist_mu113_clt_vs_ma",
        "Table 1 row 3: CLT delta at the moments accountant's eps = 7.10 is below 1e-5",
        Kind.COMPARISON,
        src(BU, "Section 4.1 and Section 5 (1.13-GDP vs (7.10, 1e-5)-DP)"),
        lhs=delta_gdp(sp.Rational(710, 100), sp.Rational(113, 100)),
        relation="<",
        rhs=DELTA_1E5,
        printed=r"\delta_{\mathrm{CLT}}(7.10;\ \mu = 1.13) < 10^{-5} = \delta_{\mathrm{MA}}(7.10)",
        refs=("bu2020.thm2_dp_comparison", "bu2020.mnist_mu113_clt_eps"),
        notes="Instance of Thm 2 at the printed values: delta_MA(7.10) = 1e-5 (printed) vs delta_CLT(7.10).",
        tags=("printed-value", "comparison"),
    ),
    theorem(
        "bu2020.mnist_fig4_top",
        "Figure 4 (top): sigma_tilde = 1.06, 20 epochs gives (1.34, 1e-5)-DP by the CLT",
        Kind.COMPARISON,
        src(BU, "Figure 4 caption and Section 4.2"),
        lhs=delta_gdp(sp.Rational(134, 100), clt_mu_expr(P_MNIST, _steps(20), sp.Rational(106, 100))),
        relation="<=",
        rhs=DELTA_1E5,
        printed=(r"\delta_{\mathrm{CLT}}(1.34;\ \mu_{\mathrm{CLT}}) \le 10^{-5},\quad \mu_{\mathrm{CLT}} = "
                 r"\mu(\tilde\sigma = 1.06,\ p = 256/60000,\ T = 20/p)"),
        refs=("bu2020.delta_clt", "bu2020.recalibrated_mu"),
        notes=(
            "Text: 'sigma = 1.3, sigma_tilde = 1.06, which are both shown to give (1.34, 10^-5)-DP at epoch 20 "
            "using the moments accountant and the CLT approach' (mu_CLT = 0.35), p = 256/60000, T = 20/p. "
            "Computed: mu = 0.34995, eps_CLT = 1.3412 (so delta(1.34) exceeds 1e-5 by a rounding margin). "
            + _APPROX_NOTE
        ),
        tags=("printed-value", "recalibration", "approximation"),
    ),
    theorem(
        "bu2020.mnist_fig4_bottom",
        "Figure 4 (bottom): sigma_tilde = 0.638, 70 epochs gives (8.68, 1e-5)-DP by the CLT",
        Kind.COMPARISON,
        src(BU, "Figure 4 caption"),
        lhs=delta_gdp(sp.Rational(868, 100), clt_mu_expr(P_MNIST, _steps(70), sp.Rational(638, 1000))),
        relation="<=",
        rhs=DELTA_1E5,
        printed=(r"\delta_{\mathrm{CLT}}(8.68;\ \mu_{\mathrm{CLT}}) \le 10^{-5},\quad \mu_{\mathrm{CLT}} = "
                 r"\mu(\tilde\sigma = 0.638,\ p = 256/60000,\ T = 70/p)"),
        refs=("bu2020.delta_clt", "bu2020.recalibrated_mu"),
        notes=(
            "Text: 'sigma = 0.7, sigma_tilde = 0.638 ... Both approaches give (8.68, 10^-5)-DP at epoch 70 "
            "(mu_CLT = 1.78)'. Computed at the printed sigma_tilde = 0.638: mu = 1.7849, eps_CLT = 8.697; "
            "eps = 8.68 needs sigma_tilde = 0.6384, which the text prints rounded as 0.638. " + _APPROX_NOTE
        ),
        tags=("printed-value", "recalibration", "approximation"),
    ),
    # ---------------- Appendix B: Thm 3-4 ----------------
    theorem(
        "bu2020.thm3_noisy_sgd",
        "Thm 3: NoisySGD/NoisyAdam are min{f, f^-1}**-DP, f = (p G_{1/sigma} + (1-p) Id)^{(x)T}",
        Kind.EQUIVALENCE,
        src(BU, "Thm 3 (Appendix B.1)"),
        premises=(
            Property("GDP", (1 / sigma,), "gradient update M"),
            Property("Poisson-subsampling", (p,), "Sample_p"),
        ),
        conclusion=Property(
            "fDP",
            (_Cp(_tensor(p * G(1 / sigma, alpha) + (1 - p) * (1 - alpha), T), 1),),
            "NoisySGD / NoisyAdam",
        ),
        refs=("bu2020.prop_a1", "bu2020.composition", "bu2020.thm4_refined_composition"),
        notes=(
            "Exact (not an approximation) privacy bound; the CLT (3.1) approximates it. The proof composes "
            "the one-directional bound T(M(S), M(S')) >= f_p via the refined composition (Thm 4), then "
            "symmetrises: 'we cannot say M is f_p-DP because T(M(S'), M(S)) is not necessarily lower bounded "
            "by f_p'."
        ),
        tags=("noisy-sgd", "f-DP", "composition", "subsampling"),
    ),
    theorem(
        "bu2020.thm4_refined_composition",
        "Thm 4 (refined composition), one-directional",
        Kind.EQUIVALENCE,
        src(BU, "Thm 4 (Appendix B.1)"),
        premises=(Property("trade-off >= f", (_f(alpha),), "M_1 on S vs S' = S u {x0} (condition 1, garbled)"),),
        formula_available=False,
        unavailable_reason="our copy of the text ends after condition 1 of Thm 4",
        notes=(
            "Quoted: 'Suppose M1: X -> Y, M2: X x Y -> Z satisfy the following conditions for any S, S' such "
            "that S' = S u {x0}: 1. T(M1(S), M(S')) >= f' -- the text then stops. 'M(S')' is presumably "
            "M1(S') (garbled). The intended conclusion (composition of one-directional bounds "
            "T((M1,M2)(S), (M1,M2)(S')) >= f (x) g) is not in our copy."
        ),
        tags=("composition", "garbled"),
    ),
]

# hypotheses implied by the symbols' assumptions (eps >= 0 for a positive eps, T >= 1 for a positive
# integer T) sympify to True; keep only the informative ones
THEOREMS = [replace(t, hypotheses=tuple(hh for hh in t.hypotheses if hh is not sp.true)) for t in THEOREMS]

__all__ = [
    "THEOREMS", "Phi", "Phi_inv", "G", "f_eps_delta", "delta_gdp", "clt_mu_expr", "CLT_MU", "DELTA_GDP",
    "UNIFORM_MU", "gdp_tradeoff_numeric", "f_eps_delta_numeric", "gdp_delta_numeric", "eps_from_delta_gdp",
    "mu_from_eps_delta_gdp", "clt_mu_numeric", "recalibrated_sigma_numeric", "subsample_tradeoff",
    "inverse_tradeoff", "convex_minorant", "subsampled_tradeoff_numeric", "subsampled_gdp_tradeoff",
    "convex_conjugate", "delta_from_tradeoff", "min_error_sum",
]
