r"""f-DP / GDP oracles with entry mappers (Bu et al. 2020 and Dong, Roth, Su 2019), the moments accountant,
and the CLT approximation checked along a sequence.

A mechanism is :math:`\mu`-GDP iff its trade-off function satisfies :math:`T(P, Q)(\alpha) \ge G_\mu(\alpha)` for
every alpha (both orders of the neighbouring pair).  The oracles here compute the mechanism's *true*
trade-off numerically, by the Neyman-Pearson test at likelihood-ratio thresholds integrated by adaptive
quadrature (mpmath), never through the closed form the entry claims:

* at a threshold t the Neyman-Pearson test has type-I error :math:`\alpha(t)` and type-II error
  :math:`\beta(t)`; the point lies on :math:`G_m` with
  :math:`m(t) = \Phi^{-1}(1 - \alpha(t)) - \Phi^{-1}(\beta(t))`; the smallest mu with :math:`T \ge G_\mu` is
  :math:`\sup_t m(t)`, bracketed from below by the max over a grid of thresholds (so a refutation
  "true mu > claimed mu" is rigorous up to quadrature error, ~1e-25 at 30 digits);
* T-fold Gaussian compositions (large T) use the duality :math:`\mu`-GDP iff
  :math:`\delta(\varepsilon) \le \delta_{G_\mu}(\varepsilon)` for all eps [Dong, Roth, Su 2019, Cor 2.13] with
  the privacy-loss-distribution (PLD, FFT) bracket of :mod:`symdp.verify.oracles` (lower end to refute);
* the subsampled Gaussian's trade-off in both orders by quadrature.

Limit statements (the CLT, Thm 1 and Thm 2 of Bu et al.) are checked along a sequence
``T = 10^2 .. 10^6`` with ``p sqrt(T) = nu`` fixed; the evidence says so and reports the numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import pairwise
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ..numeric import binomial, golden_section_min
from ..numeric import ncdf_same_bits as _ncdf_same_bits
from ..theorem import Evidence, Verdict
from .oracles import (
    Oracle,
    _compose_pmf,
    _hs_from_pmf,
    _mpf,
    _pmf_losses,
    _subsampled_pld,
    gaussian_profile,
    register,
    subsampled_gaussian_bracket,
)
from .oracles_pairs import _npdf_same_bits


def Phi_inv(u: Any) -> mpmath.mpf:
    """Standard normal quantile (mpmath, via erfinv)."""
    return mpmath.sqrt(2) * mpmath.erfinv(2 * _mpf(u) - 1)


def implied_mu(alpha: Any, beta: Any) -> mpmath.mpf:
    """The m with G_m(alpha) = beta: :math:`\\Phi^{-1}(1-\\alpha) - \\Phi^{-1}(\\beta)`.

    Both quantiles through :func:`_quantile` (guard bits for an argument near 0 or 1): ``Phi_inv`` alone read
    ``2 beta - 1`` as -1 once beta < ~1e-30 at 30 digits (Delta/sigma >~ 12 in :func:`gaussian_mechanism_mu`) and
    returned +inf.  A tiny alpha is taken as ``-Phi^{-1}(alpha)`` (``1 - alpha`` would round to 1 first)."""
    a = _mpf(alpha)
    upper = -_quantile(a) if 0 < a < mpmath.mpf(2) ** -20 else _quantile(1 - a)
    return upper - _quantile(beta)


#: thresholds (in units of the null's standard deviation) at which trade-off points are computed
Z_GRID = ("-2", "-1", "-0.5", "0", "0.5", "1", "1.5", "2", "3")
Z_GRID_2 = ("-1", "0", "1", "2", "3")  # two-step compositions (each point is two 1-D quadratures of a CDF)


# ---------------------------------------------------------------------------
# Gaussian shift and two-step Gaussian composition: trade-off points by quadrature
# ---------------------------------------------------------------------------


def gaussian_shift_points(Delta: Any, sigma: Any) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """Neyman-Pearson (alpha, beta) of N(0, s^2) vs N(Delta, s^2): reject x > t; both errors by quadrature."""
    D, s = _mpf(Delta), _mpf(sigma)
    out = []
    pdf0, pdf_d = _npdf_same_bits(0, s), _npdf_same_bits(D, s)  # mpmath.npdf(x, 0, s), npdf(x, D, s): same bits
    for z in Z_GRID:
        t = _mpf(z) * s
        a = mpmath.quad(pdf0, [t, t + 10 * s, mpmath.inf])
        b = mpmath.quad(pdf_d, [-mpmath.inf, min(t, D) - 10 * s, t])
        out.append((a, b))
    return out


def gaussian_shift_tails(Delta: Any, sigma: Any) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """:func:`gaussian_shift_points` with the two errors as normal tails, ``alpha = P(N(0, s^2) > t) =
    ncdf(-t; 0, s)`` and ``beta = P(N(Delta, s^2) <= t) = ncdf(t; Delta, s)`` (mpmath's ncdf: erfc with guard bits,
    within an ulp or so, so at least as accurate as the quadratures; ~100x faster; the tests compare the two)."""
    D, s = _mpf(Delta), _mpf(sigma)
    out = []
    for z in Z_GRID:
        t = _mpf(z) * s
        out.append((mpmath.ncdf(-t, 0, s), mpmath.ncdf(t, D, s)))
    return out


def gaussian_mechanism_mu(*, Delta: Any = 1, sigma: Any, **_: Any) -> mpmath.mpf:
    """Smallest GDP mu of x -> x + N(0, sigma^2) with sensitivity Delta (sup of the implied mu over a threshold grid;
    the Neyman-Pearson errors from :func:`gaussian_shift_tails`)."""
    return max(implied_mu(a, b) for a, b in gaussian_shift_tails(Delta, sigma))


def composition2_points(mu1: Any, mu2: Any) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """Neyman-Pearson (alpha, beta) of N(0, I_2) vs N((mu1, mu2), I_2): the likelihood ratio increases in
    S = mu1 x1 + mu2 x2; reject S > c.  Each error is a 1-D quadrature over x1 of the x2-tail given x1.

    The coordinates are exchangeable, so the one with the smaller shift is integrated over (the inner CDF's slope
    is then at most 1, not a near-step); each integrand is divided by its value at x1 = mu1 c / (mu1^2 + mu2^2) (the
    first coordinate of the event's most likely point) and the segments are placed around that point, so the
    quadrature's absolute tolerance is a relative one even where an error is 1e-50 (at mu = 10: it had left
    errors of 1e-6 relative there, and an infinite implied mu, which sent the search into shrinking a false
    violation at 7 s per evaluation)."""
    m1, m2 = sorted((_mpf(mu1), _mpf(mu2)))
    sd = mpmath.sqrt(m1 * m1 + m2 * m2)  # only to place the thresholds: any grid of c is a valid test
    out = []
    pdf0, pdf_m1 = _npdf_same_bits(0), _npdf_same_bits(m1)  # mpmath.npdf(x), npdf(x, m1): same bits (and ncdf)
    for z in Z_GRID_2:
        c = _mpf(z) * sd
        xs = m1 * c / (sd * sd)
        segs = [-mpmath.inf, xs - 8, xs - 2, xs, xs + 2, xs + 8, mpmath.inf]

        def fa(x: Any, c: Any = c) -> Any:
            return pdf0(x) * _ncdf_same_bits((m1 * x - c) / m2)

        def fb(x: Any, c: Any = c) -> Any:
            return pdf_m1(x) * _ncdf_same_bits((c - m1 * x) / m2 - m2)

        sa, sb = fa(xs), fb(xs)
        # Gauss-Legendre: both integrands are smooth bumps (half the time of tanh-sinh at the same accuracy, 3e-28)
        a = sa * mpmath.quad(lambda x, s=sa, f=fa: f(x) / s, segs, method="gauss-legendre")
        b = sb * mpmath.quad(lambda x, s=sb, f=fb: f(x) / s, segs, method="gauss-legendre")
        out.append((a, b))
    return out


#: guard bits :func:`_quantile` adds at most; below ``u = 2^-(this - 10)`` the lower-tail quantile is found by
#: Newton's method on ``log Phi`` instead (the guard bits grow as ``-log2 u``: at ``u ~ e^-500000``, as the
#: Gaussian mechanism's errors are at Delta/sigma = 1000, erfinv at 720,000 bits took over a minute a point)
_QUANTILE_MAX_GUARD = 266


def _quantile(u: Any) -> mpmath.mpf:
    """:func:`Phi_inv` with guard bits for an argument near 0 or 1 (``2u - 1`` would cancel u's digits: at u =
    1e-52 and 30 digits it is -1 and the quantile -inf); a lower tail beyond :data:`_QUANTILE_MAX_GUARD` guard bits
    by :func:`_tail_quantile`."""
    u = _mpf(u)
    if 0 < u and -int(mpmath.mag(u)) > _QUANTILE_MAX_GUARD - 10:
        return _tail_quantile(u)
    guard = 10 + max(0, -int(mpmath.mag(u)) if u > 0 else 0, -int(mpmath.mag(1 - u)) if u < 1 else 0)
    with mpmath.workprec(mpmath.mp.prec + guard):
        x = Phi_inv(u)
    return +x


def _tail_quantile(u: Any) -> mpmath.mpf:
    """``Phi^-1(u)`` for a tiny ``u`` (far lower tail): Newton's method on ``log Phi(x) = log u`` from the asymptotic
    ``-sqrt(-2 log u)``, at 20 guard bits (mpmath's ``ncdf`` is accurate relative to its value there, its exponent
    unbounded); ``log Phi`` is concave, so the iterates approach the root monotonically once past it, and the loop
    stops when a step is below the working precision (at most 200 steps; quadratic: ~10 at ``u = e^-500000``)."""
    u = _mpf(u)
    with mpmath.workprec(mpmath.mp.prec + 20):
        lu = mpmath.log(u)
        x = -mpmath.sqrt(-2 * lu)
        tol = mpmath.mpf(2) ** (-(mpmath.mp.prec - 8))
        for _ in range(200):
            c = mpmath.ncdf(x)
            step = (mpmath.log(c) - lu) * c / mpmath.npdf(x)
            x -= step
            if abs(step) <= tol * abs(x):
                break
        else:
            raise ArithmeticError(f"normal quantile at u={mpmath.nstr(u, 5)}: Newton did not converge")
    return +x


#: composition2_mu's values by (precision, rounding, the two shifts sorted): the value depends on the sorted pair
#: only (composition2_points sorts it), so (mu_1, mu_2) and (mu_2, mu_1) share one computation (the search of
#: bu2020.gdp_composition evaluates both corners (0.01, 10) and (10, 0.01): 1/8 of its CPU).  Bounded.
_COMPOSITION2: dict[tuple, mpmath.mpf] = {}


def composition2_mu(*, mu_1: Any, mu_2: Any, **_: Any) -> mpmath.mpf:
    """Smallest GDP mu of the composition of the mu_1- and mu_2-Gaussian shifts (numerical, see module doc)."""
    m1, m2 = _mpf(mu_1), _mpf(mu_2)
    key = (*mpmath.mp._prec_rounding, *sorted((m1._mpf_, m2._mpf_)))
    got = _COMPOSITION2.get(key)
    if got is None:
        if len(_COMPOSITION2) >= 256:
            _COMPOSITION2.clear()
        got = _COMPOSITION2[key] = max(_quantile(1 - a) - _quantile(b) for a, b in composition2_points(m1, m2))
    return got


def min_error_sum(*, mu: Any, **_: Any) -> mpmath.mpf:
    """min over thresholds t of alpha(t) + beta(t) for N(0,1) vs N(mu,1) (golden-section search in t).
    The value is an upper end of the minimum (a search can only overshoot it).

    The errors are the normal tails ``alpha(t) = Phi(-t)``, ``beta(t) = Phi(t - mu)`` by mpmath's ncdf (erfc with
    guard bits: within an ulp or so), at least as accurate as the quadratures of the densities this oracle summed
    until session 33 (:func:`min_error_sum_quadrature`, ~20x the time; the tests compare the two); the minimisation
    over t stays numerical, independent of the closed form 2 Phi(-mu/2) the claim states."""
    m = _mpf(mu)

    def g(t):
        return _ncdf_same_bits(-t) + _ncdf_same_bits(t - m)

    return min(golden_section_min(g, mpmath.mpf(-6), m + 6, int(mpmath.mp.dps * 1.2) + 10))


def min_error_sum_quadrature(*, mu: Any, **_: Any) -> mpmath.mpf:
    """:func:`min_error_sum` with each error a quadrature of its density (the tests' reference for it)."""
    m = _mpf(mu)
    pdf0, pdf_m = _npdf_same_bits(0), _npdf_same_bits(m)

    def g(t):
        a = mpmath.quad(pdf0, [t, t + 12, mpmath.inf])
        b = mpmath.quad(pdf_m, [-mpmath.inf, t - 12, t])
        return a + b

    return min(golden_section_min(g, mpmath.mpf(-6), m + 6, int(mpmath.mp.dps * 1.2) + 10))


# ---------------------------------------------------------------------------
# subsampled Gaussian: both orders; Bu et al.'s C_p
# ---------------------------------------------------------------------------


def sub_tradeoff_PQ(p: Any, mu: Any, alpha: Any) -> mpmath.mpf:
    """T(N(0,1), (1-p)N(0,1) + pN(mu,1))(alpha): reject x > Phi^-1(1-alpha); mixture mass below by quadrature."""
    pp, m, a = _mpf(p), _mpf(mu), _mpf(alpha)
    t = Phi_inv(1 - a)
    return mpmath.quad(lambda x: (1 - pp) * mpmath.npdf(x) + pp * mpmath.npdf(x, m), [-mpmath.inf, min(t, m) - 10, t])


def sub_tradeoff_QP(p: Any, mu: Any, alpha: Any) -> mpmath.mpf:
    """T((1-p)N(0,1) + pN(mu,1), N(0,1))(alpha): the likelihood ratio N(0,1)/mixture decreases in x, so reject x < t
    where the mixture's CDF (1-p)Phi(t) + p Phi(t - mu) equals alpha (t by bisection); type-II error 1 - Phi(t)."""
    pp, m, a = _mpf(p), _mpf(mu), _mpf(alpha)

    def mixcdf(t):
        return (1 - pp) * _ncdf_same_bits(t) + pp * _ncdf_same_bits(t - m)

    lo, hi = mpmath.mpf(-40), m + 40
    for _ in range(int(mpmath.mp.prec) + 10):  # bisection (monotone CDF)
        mid = (lo + hi) / 2
        if mixcdf(mid) < a:
            lo = mid
        else:
            hi = mid
        if hi - lo < mpmath.mpf(2) ** (-mpmath.mp.prec + 8):
            break
    t = (lo + hi) / 2
    return mpmath.ncdf(-t)


def C_p_gaussian(p: Any, mu: Any, alpha: Any) -> mpmath.mpf:
    r"""Bu et al.'s :math:`C_p(G_\mu) = \min\{f_p, f_p^{-1}\}^{**}` at alpha, f_p = p G_mu + (1-p) Id.

    f_p is convex and decreasing with slope -1 exactly at x* = Phi(-mu/2); the greatest convex minorant of
    min{f_p, f_p^{-1}} is f_p on [0, x*], the slope -1 segment on [x*, f_p(x*)], and f_p^{-1} on [f_p(x*), 1]
    [Dong, Roth, Su 2019, Sec. 4.1].  f_p^{-1} by bisection."""
    pp, m, a = _mpf(p), _mpf(mu), _mpf(alpha)

    def G(x):
        return mpmath.ncdf(Phi_inv(1 - x) - m) if 0 < x < 1 else (mpmath.mpf(1) if x <= 0 else mpmath.mpf(0))

    def fp(x):
        return pp * G(x) + (1 - pp) * (1 - x)

    xs = mpmath.ncdf(-m / 2)
    fxs = fp(xs)
    if a <= xs:
        return fp(a)
    if a <= fxs:
        return fxs + xs - a
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)  # f_p^{-1}(a) = the x with f_p(x) = a
    for _ in range(int(mpmath.mp.prec) + 10):
        mid = (lo + hi) / 2
        if fp(mid) > a:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# ---------------------------------------------------------------------------
# mappers (entry -> (f_claim, f_true, relation, symbols, ranges) or Evidence or a reason)
# ---------------------------------------------------------------------------


def _compile(expr):
    from .compile import compile_expr

    return compile_expr(expr)


def _param_rhs(th):
    """The claimed GDP parameter: the entry's rhs (or its conclusion's first parameter)."""
    if th.rhs is not None:
        return th.rhs
    return sp.sympify(th.conclusion.params[0])


def map_gdp(th):
    """mu_M <= claimed mu for a Gaussian mechanism / a composition of two Gaussian mechanisms: the true smallest
    mu from the Neyman-Pearson trade-off points (quadrature)."""
    rhs = _param_rhs(th)
    f_c = _compile(rhs)
    names = {s.name for s in rhs.free_symbols}
    if th.id == "bu2020.noisy_sgd_step_gdp":
        # sum of clipped gradients (sensitivity R) plus N(0, sigma^2 R^2): the pair is a rescaling of R = 1
        return f_c, lambda pt: gaussian_mechanism_mu(Delta=1, sigma=pt["sigma"]), "<=", set(rhs.free_symbols)
    if names == {"Delta", "sigma"}:
        return f_c, lambda pt: gaussian_mechanism_mu(Delta=pt["Delta"], sigma=pt["sigma"]), "<=", set(rhs.free_symbols)
    if names == {"mu_1", "mu_2"}:
        # the worst mu_i-GDP mechanisms are the mu_i Gaussian shifts (every mu-GDP pair is a post-processing of it)
        return f_c, lambda pt: composition2_mu(mu_1=pt["mu_1"], mu_2=pt["mu_2"]), "<=", set(rhs.free_symbols)
    if names == {"T", "mu"}:
        return map_gdp_T(th, rhs)
    return f"no GDP trade-off mapping for claimed parameter {sp.sstr(rhs)}"


_AT = sp.Symbol("epsilon_at", nonnegative=True)


def map_gdp_T(th, rhs):
    """T-fold composition of the mu Gaussian shift: mu_claim-GDP iff delta(eps) <= delta_{G_mu_claim}(eps) for all
    eps (duality); the true delta(eps) of T composed shifts is the PLD bracket (q = 1, sigma = 1/mu), lower end."""
    f_c = _compile(rhs)
    syms = set(rhs.free_symbols) | {_AT}

    def f_claim(pt):
        return gaussian_profile(mu=f_c(pt), at=pt["epsilon_at"])

    def f_true(pt):
        return subsampled_gaussian_bracket(q=1, sigma=1 / _mpf(pt["mu"]), T=int(pt["T"]), at=pt["epsilon_at"])[0]

    return f_claim, f_true, "<=", syms, {"epsilon_at": (0.0, 4.0)}


def map_min_error(th):
    """err_min >= claim: for a mu-GDP M, T >= G_mu pointwise, so min_alpha alpha + T(alpha) >= min_alpha alpha +
    G_mu(alpha), with equality for the Gaussian shift; the latter minimum by golden-section search on quadratures."""
    f_c = _compile(th.rhs)
    return f_c, lambda pt: min_error_sum(mu=pt["mu"]), ">=", set(th.rhs.free_symbols)


_ALPHA = sp.Symbol("alpha", positive=True)
_P = sp.Symbol("p", positive=True)
_MU = sp.Symbol("mu", positive=True)


def map_subsampling(th, *, tol: str = "1e-20"):
    """M o Sample_p is C_p(f)-DP, instantiated at the Gaussian shift M (f = G_mu, tight): C_p(G_mu)(alpha) <=
    min(T(P, Q), T(Q, P))(alpha) for P = N(0,1), Q = (1-p)N(0,1) + pN(mu,1), both by quadrature."""
    t = mpmath.mpf(tol)

    def f_claim(pt):
        return C_p_gaussian(pt["p"], pt["mu"], pt["alpha"])

    def f_true(pt):
        return min(sub_tradeoff_PQ(pt["p"], pt["mu"], pt["alpha"]), sub_tradeoff_QP(pt["p"], pt["mu"], pt["alpha"])) + t

    return f_claim, f_true, ">=", {_ALPHA, _P, _MU}, {"alpha": (0.001, 0.999), "p": (0.001, 1.0), "mu": (0.05, 5.0)}


GDP_MAPPERS: dict[str, Callable] = {}


def map_gdp_tradeoff(th):
    if th.id == "bu2020.min_error_sum_gdp":
        return map_min_error(th)
    if th.id == "bu2020.subsampling_theorem":
        return map_subsampling(th)
    if th.id in GDP_MAPPERS:
        return GDP_MAPPERS[th.id](th)
    return map_gdp(th)


register(Oracle("gdp_tradeoff", lambda **kw: None, "value", (),
                "true GDP parameter / trade-off of Gaussian mechanisms and their compositions (Neyman-Pearson "
                "quadrature; PLD duality for T-fold compositions)", mapper=map_gdp_tradeoff))


# ---------------------------------------------------------------------------
# the moments accountant (Abadi et al. 2016)
# ---------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _log_moments(q: str, sigma: str, lam_max: int) -> tuple[mpmath.mpf, ...]:
    r"""alpha(lambda), lambda = 1..lam_max, of one Poisson-subsampled Gaussian step (sensitivity 1):
    :math:`\log E_{x\sim\mu}[(\mu/\mu_0)^\lambda] = \log\sum_{k=0}^{\lambda+1}\binom{\lambda+1}{k}(1-q)^{\lambda+1-k}q^k
    e^{k(k-1)/(2\sigma^2)}`, mu = (1-q)N(0, s^2) + qN(1, s^2), mu_0 = N(0, s^2) (exact binomial expansion; the
    other direction E_{mu_0}[(mu_0/mu)^lambda] is never larger [Mironov, Talwar, Zhang 2019, Thm 5])."""
    qq, s = mpmath.mpf(q), mpmath.mpf(sigma)
    # the factors that do not depend on lambda, each computed once (the same operations, so the same bits, as
    # computing them in every term: 130 powers and exponentials instead of 8,500 of each at lam_max = 128)
    one_q, two_s2 = 1 - qq, 2 * s * s
    pow_1q = [one_q**j for j in range(lam_max + 2)]
    pow_q = [qq**k for k in range(lam_max + 2)]
    growth = [mpmath.exp(mpmath.mpf(k * (k - 1)) / two_s2) for k in range(lam_max + 2)]
    out = []
    for lam in range(1, lam_max + 1):
        n = lam + 1
        terms = [binomial(n, k) * pow_1q[n - k] * pow_q[k] * growth[k] for k in range(n + 1)]
        out.append(mpmath.log(mpmath.fsum(terms)))
    return tuple(out)


def moments_accountant_delta(*, q: Any, sigma: Any, T: Any, epsilon: Any, lam_max: int = 128, **_: Any) -> mpmath.mpf:
    """delta_MA(eps) = min over integer lambda <= lam_max of exp(T alpha(lambda) - lambda eps), capped at 1."""
    with mpmath.workdps(max(mpmath.mp.dps, 30)):
        lm = _log_moments(mpmath.nstr(_mpf(q), 30), mpmath.nstr(_mpf(sigma), 30), lam_max)
        e, Ti = _mpf(epsilon), int(T)
        best = min(Ti * a - (i + 1) * e for i, a in enumerate(lm))
        return +min(mpmath.mpf(1), mpmath.exp(best))


def f_eps_delta(eps: Any, delta: Any, alpha: Any) -> mpmath.mpf:
    """f_{eps,delta}(alpha) = max(0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha))."""
    e, d, a = _mpf(eps), _mpf(delta), _mpf(alpha)
    return max(mpmath.mpf(0), 1 - d - mpmath.exp(e) * a, mpmath.exp(-e) * (1 - d - a))


def f_ma(*, q: Any, sigma: Any, T: Any, alpha: Any, eps_grid: tuple[float, ...] | None = None) -> mpmath.mpf:
    """sup over eps >= 0 of f_{eps, delta_MA(eps)}(alpha), over a grid of eps (a lower end of the sup)."""
    grid = np.array(eps_grid or tuple(k / 50 for k in range(0, 501)))
    with mpmath.workdps(max(mpmath.mp.dps, 30)):
        lm = np.array([float(a) for a in _log_moments(mpmath.nstr(_mpf(q), 30), mpmath.nstr(_mpf(sigma), 30), 128)])
    lam = np.arange(1, len(lm) + 1)
    logd = np.min(int(T) * lm[None, :] - lam[None, :] * grid[:, None], axis=1)  # float64: delta_MA on the grid
    d = np.minimum(1.0, np.exp(logd))
    a = float(alpha)
    f = np.maximum(0.0, np.maximum(1 - d - np.exp(grid) * a, np.exp(-grid) * (1 - d - a)))
    return mpmath.mpf(float(f.max()))


def delta_clt(T: Any, p: Any, sigma: Any, eps: Any) -> mpmath.mpf:
    mu = mpmath.sqrt(int(T)) * _mpf(p) * mpmath.sqrt(mpmath.exp(1 / _mpf(sigma) ** 2) - 1)
    return gaussian_profile(mu=mu, at=eps)


def G(mu: Any, alpha: Any) -> mpmath.mpf:
    return mpmath.ncdf(Phi_inv(1 - _mpf(alpha)) - _mpf(mu))


SEQ_T = (10**2, 10**3, 10**4, 10**5, 10**6)
MA_SETTINGS = ((0.5, 1.1), (1.0, 1.1), (1.0, 2.0))  # (nu = p sqrt(T), sigma)


def _fmt(x) -> str:
    return mpmath.nstr(x, 3)


def map_moments_accountant(th):
    """Bu et al. Thm 1 / Thm 2 (limits T -> oo with p sqrt(T) = nu): checked along T = 10^2..10^6."""
    if th.id.endswith("thm2_dp_comparison"):
        f_lhs = _compile(th.lhs)
        rows, fails_last = [], []
        for nu, sg in MA_SETTINGS:
            for eps in (0.5, 1.0, 2.0):
                diffs = []
                for T in SEQ_T:
                    p = mpmath.mpf(nu) / mpmath.sqrt(T)
                    dc = f_lhs({"T": mpmath.mpf(T), "p": p, "sigma": mpmath.mpf(sg), "epsilon": mpmath.mpf(eps)})
                    dm = moments_accountant_delta(q=p, sigma=sg, T=T, epsilon=eps)
                    diffs.append((dc, dm))
                last = diffs[-1]
                if not last[0] < last[1]:
                    fails_last.append((nu, sg, eps))
                rows.append(f"nu={nu}, sigma={sg}, eps={eps}: (delta_CLT, delta_MA) = "
                            + ", ".join(f"T=1e{len(str(T)) - 1}: ({_fmt(a)}, {_fmt(b)})" for T, (a, b) in zip(SEQ_T, diffs)))
        return _limit_evidence(fails_last, rows, "delta_CLT(eps) < delta_MA(eps)")
    if th.id.endswith("thm1_fdp_comparison"):
        f_rhs = _compile(th.rhs)
        rows, fails_last = [], []
        for nu, sg in MA_SETTINGS:
            for alpha in (0.01, 0.1, 0.3):
                vals = []
                for T in SEQ_T:
                    p = mpmath.mpf(nu) / mpmath.sqrt(T)
                    g = f_rhs({"T": mpmath.mpf(T), "p": p, "sigma": mpmath.mpf(sg), "alpha": mpmath.mpf(alpha)})
                    fm = f_ma(q=p, sigma=sg, T=T, alpha=alpha)
                    vals.append((fm, g))
                if vals[-1][0] - vals[-1][1] > 0:
                    fails_last.append((nu, sg, alpha))
                rows.append(f"nu={nu}, sigma={sg}, alpha={alpha}: (f_MA, G_muCLT) = "
                            + ", ".join(f"T=1e{len(str(T)) - 1}: ({_fmt(a)}, {_fmt(b)})" for T, (a, b) in zip(SEQ_T, vals)))
        return _limit_evidence(fails_last, rows, "f_MA(alpha) <= G_muCLT(alpha)")
    return "no moments-accountant mapping for this entry"


def _limit_evidence(fails_last, rows, what: str) -> Evidence:
    method = ("moments accountant: log-moments of the Poisson-subsampled Gaussian at integer lambda = 1..128 by exact "
              "binomial expansion (mpmath), delta_MA(eps) = min_lambda exp(T alpha(lambda) - lambda eps); f_MA = sup over "
              "an eps grid (0..10 step 0.02) of f_{eps, delta_MA(eps)}")
    if fails_last:
        return Evidence(Verdict.UNCHECKED, None,
                        f"limit claim (T -> oo, p sqrt(T) = nu) checked along T = 1e2..1e6: {what} fails at T = 1e6 for "
                        f"{fails_last}; a finite sequence cannot refute a limit without a convincing trend: "
                        + "; ".join(rows) + f" ({method})")
    return Evidence(Verdict.SUPPORTED, "numerical",
                    f"limit claim (T -> oo with p sqrt(T) = nu fixed) checked ALONG A SEQUENCE only, T = 1e2..1e6, "
                    f"p = nu/sqrt(T): {what} holds at T = 1e6 in all {len(rows)} settings: " + "; ".join(rows)
                    + f" ({method}); not a proof of the limit", None, None, len(rows) * len(SEQ_T))


register(Oracle("moments_accountant", moments_accountant_delta, "value", ("q", "sigma", "T", "epsilon"),
                "moments accountant delta_MA(eps) of T Poisson-subsampled Gaussian steps (Abadi et al. 2016), exact "
                "log-moments at integer orders; entries are limit claims checked along a sequence",
                aliases={"q": ("p",)}, mapper=map_moments_accountant, mapper_decides=True))


# ---------------------------------------------------------------------------
# the CLT approximation: distance to the exact profile along T with p sqrt(T) fixed
# ---------------------------------------------------------------------------

CLT_T = (8, 32, 128)
CLT_H = 2e-4  # PLD grid width
CLT_SETTINGS = ((0.5, 1.1), (1.0, 2.0))  # (nu, sigma)
CLT_EPS = (0.0, 0.5, 1.0, 2.0)


@lru_cache(maxsize=32)
def exact_profile_bracket(q: float, sigma: float, T: int, eps: tuple[float, ...]) -> tuple[tuple[float, float], ...]:
    """(lower, upper) of the exact delta(eps) of T subsampled-Gaussian steps at each eps (PLD bracket; one FFT per
    direction and rounding shared by all eps)."""
    h = CLT_H
    lows = [[0.0] * len(eps) for _ in range(2)]
    ups = [[0.0] * len(eps) for _ in range(2)]
    for k, direction in enumerate(("remove", "add")):
        up, dn, mass, dropped = _subsampled_pld(q, sigma, h, direction)
        ou, pu = _compose_pmf(up, mass, T)
        od, pd = _compose_pmf(dn, mass, T)
        lu, ld = _pmf_losses(ou, pu, h), _pmf_losses(od, pd, h)  # once per PMF, shared by every eps
        for j, e in enumerate(eps):
            ups[k][j] = _hs_from_pmf(ou, pu, h, e, lu) + 1 - (1 - dropped) ** T + 1e-12 * T
            lows[k][j] = max(0.0, _hs_from_pmf(od, pd, h, e, ld) - 1e-12 * T)
    return tuple((max(lows[0][j], lows[1][j]), max(ups[0][j], ups[1][j])) for j in range(len(eps)))


def _clt_delta_fn(th) -> Callable[[int, Any, Any, Any], mpmath.mpf] | str:
    """delta_CLT(T, p, sigma, eps) from the entry's own formula."""
    if th.id.endswith("delta_clt"):
        f = _compile(th.rhs)
        return lambda T, p, s, e: f({"T": mpmath.mpf(T), "p": _mpf(p), "sigma": _mpf(s), "epsilon": _mpf(e)})
    if th.id.endswith("clt_mu"):
        f = _compile(th.rhs)
        return lambda T, p, s, e: gaussian_profile(mu=f({"T": mpmath.mpf(T), "p": _mpf(p), "sigma": _mpf(s)}), at=e)
    if th.conclusion is not None and th.conclusion.params:
        f = _compile(sp.sympify(th.conclusion.params[0]))
        return lambda T, p, s, e: gaussian_profile(mu=f({"nu": _mpf(p) * mpmath.sqrt(T), "sigma": _mpf(s)}), at=e)
    return "no CLT formula"


def map_clt(th):
    """An APPROXIMATION (exact only as T -> oo, p sqrt(T) -> nu), not a bound: not refuted for under-stating delta at
    finite T.  Checked as a limit: the sup over eps of |delta_exact(eps) - delta_CLT(eps)| must shrink along
    T = 8, 32, 128 with p = nu/sqrt(T) (the distance of the privacy profiles, which determine the symmetrised
    trade-off functions by duality)."""
    fn = _clt_delta_fn(th)
    if isinstance(fn, str):
        return fn
    rows, ok = [], True
    for nu, sg in CLT_SETTINGS:
        dists, widths, under = [], [], 0
        for T in CLT_T:
            p = nu / T**0.5
            br = exact_profile_bracket(p, sg, T, CLT_EPS)
            d = w = 0.0
            for (lo, hi), e in zip(br, CLT_EPS):
                c = float(fn(T, p, sg, e))
                d = max(d, abs(c - (lo + hi) / 2))
                w = max(w, (hi - lo) / 2)
                under += c < lo
            dists.append(d)
            widths.append(w)
        dec = all(b < a for a, b in pairwise(dists))
        ok &= dec and dists[-1] < dists[0] / 2
        rows.append(f"nu={nu}, sigma={sg}: sup_eps |delta_exact - delta_CLT| = "
                    + ", ".join(f"{x:.2e} (T={T}, bracket half-width {w:.1e})" for x, T, w in zip(dists, CLT_T, widths))
                    + (f"; delta_CLT below the exact delta's lower bracket at {under} of {len(CLT_T) * len(CLT_EPS)} points" if under else ""))
    body = ("; ".join(rows) + f" (eps in {list(CLT_EPS)}; exact delta by the PLD/FFT bracket (grid {CLT_H}), both "
            "directions; distance to the bracket midpoint)")
    if ok:
        return Evidence(Verdict.SUPPORTED, "numerical",
                        "an APPROXIMATION (the CLT), checked as a limit along a sequence, not as a bound: the distance to "
                        "the exact privacy profile decreases along T with p sqrt(T) = nu fixed: " + body,
                        None, None, len(CLT_T) * len(CLT_SETTINGS))
    return Evidence(Verdict.UNCHECKED, None,
                    "an APPROXIMATION (the CLT), not a bound; the distance to the exact profile does not clearly shrink "
                    "along the sequence: " + body)


register(Oracle("clt_approximation", lambda **kw: None, "value", (),
                "the CLT approximation of NoisySGD's privacy: distance to the exact profile (PLD bracket) along T with "
                "p sqrt(T) fixed", mapper=map_clt))


__all__ = ["gaussian_shift_tails", "gaussian_mechanism_mu", "composition2_mu", "min_error_sum", "sub_tradeoff_PQ", "sub_tradeoff_QP",
           "C_p_gaussian", "moments_accountant_delta", "f_ma", "f_eps_delta", "exact_profile_bracket", "implied_mu",
           "map_gdp_tradeoff", "map_moments_accountant", "map_clt"]
