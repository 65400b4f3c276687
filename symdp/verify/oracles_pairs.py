"""Oracles of eps-DP pairs: the KL supremum over eps-DP pairs (randomized response), KL and hockey-stick
divergences of finite pairs, the Kairouz-Oh-Viswanath dominating pair and random DP pairs, and the optimal
composition of (eps, delta)-DP steps (Kairouz, Oh, Viswanath 2017, Thm 3.3).  Also the shared mpmath/SymPy
helpers of the oracle modules.  Registered in :mod:`.registry`; :mod:`.oracles` re-exports them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ..errors import InvalidParameterError
from .registry import Oracle, register

mp = mpmath.mp


mp = mpmath.mp


def _mpf(x: Any) -> mpmath.mpf:
    return mpmath.mpf(x) if not isinstance(x, mpmath.mpf) else x


def _pick(kw: dict[str, Any], *names: str, default: Any = None) -> Any:
    for n in names:
        if n in kw and kw[n] is not None:
            return kw[n]
    return default


def Phi(x: Any) -> sp.Expr:
    """Standard normal CDF as a SymPy expression, via erfc (so intervals and SymPy can handle it)."""
    return sp.erfc(-sp.sympify(x) / sp.sqrt(2)) / 2


def Phi_inv(u: Any) -> sp.Expr:
    """Standard normal quantile as a SymPy expression: :math:`\\sqrt2\\,\\mathrm{erfinv}(2u - 1)`."""
    return sp.sqrt(2) * sp.erfinv(2 * sp.sympify(u) - 1)


def _sym_pick(kw: dict[str, Any], *names: str, default: Any = None) -> Any:
    for n in names:
        if n in kw and kw[n] is not None:
            return sp.sympify(kw[n])
    return default



# ---------------------------------------------------------------------------
# KL divergence of eps-DP pairs
# ---------------------------------------------------------------------------


def kl_eps_dp(*, epsilon: Any, delta: Any = 0, **_: Any) -> mpmath.mpf:
    r"""Supremum of :math:`D_{KL}(P\|Q)` over pure eps-DP pairs: :math:`\varepsilon\tanh(\varepsilon/2)`.

    Attained by randomized response.  For ``delta > 0`` the supremum is
    infinite (a delta-mass where Q vanishes), returned as ``mpmath.inf``.
    """
    e = _mpf(epsilon)
    if e < 0:
        raise InvalidParameterError(f"epsilon={epsilon!r} is outside the allowed range [0, inf)")
    if _mpf(delta) > 0:
        return mpmath.inf
    return e * mpmath.tanh(e / 2)


def kl(P: Sequence[Any], Q: Sequence[Any]) -> mpmath.mpf:
    """:math:`D_{KL}(P\\|Q)` of two discrete distributions (natural log); inf if P is not << Q."""
    s = mpmath.mpf(0)
    for p, q in zip(P, Q):
        if p == 0:
            continue
        if q == 0:
            return mpmath.inf
        s += p * mpmath.log(p / q)
    return s


def hockey_stick(P: Sequence[Any], Q: Sequence[Any], epsilon: Any) -> mpmath.mpf:
    r""":math:`\sup_S P(S) - e^\varepsilon Q(S) = \sum_i (p_i - e^\varepsilon q_i)_+`."""
    ee = mpmath.exp(_mpf(epsilon))
    return mpmath.fsum(max(mpmath.mpf(0), p - ee * q) for p, q in zip(P, Q))


def is_dp_pair(P: Sequence[Any], Q: Sequence[Any], epsilon: Any, delta: Any = 0, *, tol: Any = 0) -> bool:
    """Whether (P, Q) satisfies (eps, delta)-DP in both directions (up to ``tol``)."""
    d = _mpf(delta) + _mpf(tol)
    return hockey_stick(P, Q, epsilon) <= d and hockey_stick(Q, P, epsilon) <= d


def kov_pair(epsilon: Any, delta: Any = 0) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    """The worst-case (eps, delta)-DP pair of Kairouz, Oh and Viswanath (2017), 4 atoms."""
    e, d = _mpf(epsilon), _mpf(delta)
    ee = mpmath.exp(e)
    a = (1 - d) * ee / (1 + ee)
    c = (1 - d) / (1 + ee)
    return [d, a, c, mpmath.mpf(0)], [mpmath.mpf(0), c, a, d]


def random_dp_pair(
    epsilon: Any, delta: Any = 0, *, k: int = 4, rng: random.Random | None = None, sparsity: float = 0.5
) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    """A random discrete (eps, delta)-DP pair on ``k`` atoms.

    Every (eps, delta)-DP pair is a post-processing of :func:`kov_pair` and
    every post-processing is (eps, delta)-DP, so a random Markov kernel
    (rows drawn from a sparse Dirichlet, to reach the extremes) applied to the
    KOV pair samples the whole class.
    """
    rng = rng or random.Random(0)
    P0, Q0 = kov_pair(epsilon, delta)
    rows = []
    for _ in range(4):
        w = [mpmath.mpf(rng.expovariate(1.0)) if rng.random() > sparsity else mpmath.mpf(0) for _ in range(k)]
        if sum(w) == 0:
            w[rng.randrange(k)] = mpmath.mpf(1)
        s = mpmath.fsum(w)
        rows.append([x / s for x in w])
    P = [mpmath.fsum(P0[i] * rows[i][j] for i in range(4)) for j in range(k)]
    Q = [mpmath.fsum(Q0[i] * rows[i][j] for i in range(4)) for j in range(k)]
    return P, Q


KL_REDUCTION = (
    "For an eps-DP pair with y = dP/dQ in [e^-eps, e^eps] and E_Q[y] = 1, "
    "D_KL(P||Q) = E_Q[y log y] <= E_Q[chord(y)] = chord(1), where chord is the secant of the convex "
    "function y log y between y = e^-eps and y = e^eps (convexity: (y log y)'' = 1/y > 0). "
    "chord(1) = eps (e^eps - 1)/(e^eps + 1) = eps tanh(eps/2), attained by randomized response."
)

register(
    Oracle(
        "kl_eps_dp",
        kl_eps_dp,
        "value",
        ("epsilon",),
        "sup of D_KL(P||Q) over eps-DP pairs (randomized response); inf for delta > 0",
        closed_form="epsilon*tanh(epsilon/2)",
        reduction=KL_REDUCTION,
    )
)


# ---------------------------------------------------------------------------
# Optimal composition (Kairouz, Oh, Viswanath 2017)
# ---------------------------------------------------------------------------


def optimal_composition(*, epsilon: Any, delta: Any, T: Any, at: Any, **_: Any) -> mpmath.mpf:
    r"""Smallest :math:`\delta'` such that the T-fold composition of (eps, delta)-DP is (at, delta')-DP.

    .. math:: \delta_T(\varepsilon') = 1 - (1-\delta)^T + (1-\delta)^T \sum_{l=0}^T \binom{T}{l}
       p^{T-l}(1-p)^l [1 - e^{\varepsilon' - (T-2l)\varepsilon}]_+,\quad p = e^\varepsilon/(1+e^\varepsilon).

    Evaluated in log space at the ambient mpmath precision (every term is
    non-negative: no cancellation).
    """
    e, d, ep = _mpf(epsilon), _mpf(delta), _mpf(at)
    Ti = int(T)
    if Ti != T or Ti < 1:
        raise InvalidParameterError(f"T={T!r} must be a positive integer")
    if not (0 <= d <= 1):
        raise InvalidParameterError(f"delta={delta!r} is outside the allowed range [0, 1]")
    if e < 0:
        raise InvalidParameterError(f"epsilon={epsilon!r} is outside the allowed range [0, inf)")
    logp = e - mpmath.log1p(mpmath.exp(e))  # log p
    log1mp = -mpmath.log1p(mpmath.exp(e))  # log (1 - p)
    terms = []
    # losses (T - 2l) eps > eps' only contribute: l < (T - eps'/eps)/2
    lmax = Ti if e == 0 else min(Ti, int(mpmath.ceil((Ti - ep / e) / 2)) + 1)
    logc = mpmath.mpf(0)  # log C(T, l), updated incrementally
    for l in range(0, max(lmax, 0) + 1):
        if l > 0:
            logc += mpmath.log(mpmath.mpf(Ti - l + 1) / l)
        loss = (Ti - 2 * l) * e
        if loss <= ep:
            continue
        lt = logc + (Ti - l) * logp + l * log1mp
        terms.append(mpmath.exp(lt) * -mpmath.expm1(ep - loss))
    s = mpmath.fsum(terms)
    # 1 - (1 - delta)^T without cancellation (at 53 bits, 1 - (1 - 1.19e-7) lost 9 of its 16 digits)
    log_keep = Ti * mpmath.log1p(-d) if d < 1 else mpmath.ninf
    keep = mpmath.exp(log_keep)
    return -mpmath.expm1(log_keep) + keep * s


def optimal_composition_hetero(steps: Sequence[tuple[Any, Any]], at: Any) -> mpmath.mpf:
    """Optimal delta'(at) for the composition of heterogeneous (eps_i, delta_i)-DP steps.

    Convolves the KOV worst-case pairs exactly (finite supports); cost grows
    with the number of distinct losses, fine for a few dozen steps.
    """
    dist: dict[mpmath.mpf, mpmath.mpf] = {mpmath.mpf(0): mpmath.mpf(1)}  # loss -> P-mass (finite part)
    log_keep = mpmath.mpf(0)
    for e, d in steps:
        e, d = _mpf(e), _mpf(d)
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        log_keep += mpmath.log1p(-d) if d < 1 else mpmath.ninf
        new: dict[mpmath.mpf, mpmath.mpf] = {}
        for loss, m in dist.items():
            for l2, w in ((loss + e, p), (loss - e, 1 - p)):
                key = mpmath.mpf(mpmath.nstr(l2, mp.dps))  # merge equal losses up to round-off
                new[key] = new.get(key, mpmath.mpf(0)) + m * w
        dist = new
    inf_mass = -mpmath.expm1(log_keep)  # 1 - prod(1 - delta_i) without cancellation
    keep = mpmath.exp(log_keep)
    ep = _mpf(at)
    s = mpmath.fsum(m * -mpmath.expm1(ep - loss) for loss, m in dist.items() if loss > ep)
    return inf_mass + keep * s


def _optimal_composition_f64(*, epsilon: float, delta: float, T: float, at: float) -> float:
    """:func:`optimal_composition` at one point in float64 (same sum, in log space: log C(T, l) by ``gammaln``); NaN
    where float64 cannot give it to a relative 1e-10: invalid parameters, terms in the subnormal range that matter, or
    where the rounding of the losses ``(T - 2l) eps`` next to eps' (each term's factor ``1 - e^{eps' - loss}`` is known to an
    absolute ``4.4e-16 max(eps', loss)``; a loss equal to eps' up to that rounding may or may not count) could move
    the sum by more."""
    import math

    from scipy.special import gammaln

    e, d, ep = epsilon, delta, at
    if not (math.isfinite(e) and math.isfinite(d) and math.isfinite(ep) and math.isfinite(T)):
        return math.nan
    Ti = int(T)
    if Ti != T or Ti < 1 or not 0 <= d <= 1 or e < 0:
        return math.nan
    lmax = Ti if e == 0 else min(Ti, math.ceil((Ti - ep / e) / 2) + 1)
    s = bound = 0.0
    if lmax >= 0:
        ls = np.arange(0, lmax + 1, dtype=float)
        loss = (Ti - 2 * ls) * e
        ulp = 4.4e-16 * np.maximum(abs(ep), np.abs(loss))
        near = loss > ep - ulp  # the terms that count, and those that may
        if near.any():
            ls, loss, ulp = ls[near], loss[near], ulp[near]
            lt = (gammaln(Ti + 1.0) - gammaln(ls + 1.0) - gammaln(Ti - ls + 1.0)
                  - (Ti - ls) * np.logaddexp(0.0, -e) - ls * np.logaddexp(0.0, e))
            w = np.exp(lt)
            keep = loss > ep
            s = float(np.sum(w[keep] * -np.expm1(ep - loss[keep])))
            bound = float(np.sum(w * ulp)) + 1e-300 * float(np.sum(lt < -690.0))  # + terms lost to underflow
    log_keep = Ti * math.log1p(-d) if d < 1 else -math.inf
    v = -math.expm1(log_keep) + math.exp(log_keep) * s
    if math.exp(log_keep) * bound > 1e-10 * v:
        return math.nan
    return v if v == 0.0 or v > 1e-290 else math.nan


def optimal_composition_float64(*, epsilon: Any, delta: Any, T: Any, at: Any, **_: Any) -> np.ndarray:
    """Float64 twin of :func:`optimal_composition` (arrays broadcast; NaN where float64 cannot give it), for the
    audit's plots only (:mod:`symdp.verify.twins`)."""
    from .twins import per_point

    return per_point(_optimal_composition_f64, epsilon=epsilon, delta=delta, T=T, at=at)


register(
    Oracle(
        "optimal_composition",
        optimal_composition,
        "profile",
        ("epsilon", "delta", "T", "at"),
        "exact optimal delta'(eps') of T identical (eps, delta)-DP steps [Kairouz, Oh, Viswanath 2017]",
        aliases={"at": ("epsilonprime",)},
        float64=optimal_composition_float64,
    )
)


def optimal_composition_enum(*, epsilon: Any, delta: Any, T: Any, at: Any, **_: Any) -> mpmath.mpf:
    """:func:`optimal_composition` by an independent method: the T-fold product of the KOV worst-case pair
    enumerated (equal privacy losses merged; exact convolution) and its hockey-stick divergence at ``at``."""
    Ti = int(T)
    if Ti != T or Ti < 1:
        raise InvalidParameterError(f"T={T!r} must be a positive integer")
    return optimal_composition_hetero([(epsilon, delta)] * Ti, at)


register(
    Oracle(
        "optimal_composition_enum",
        optimal_composition_enum,
        "profile",
        ("epsilon", "delta", "T", "at"),
        "optimal delta'(eps') of T identical (eps, delta)-DP steps by enumerating the product of KOV worst-case pairs",
        aliases={"at": ("epsilonprime",)},
    )
)


def _npdf_same_bits(mu: Any, sigma: Any = 1) -> Callable[[Any], Any]:
    """``x -> mpmath.npdf(x, mu, sigma)`` with the same bits: npdf's own steps (10 guard bits, ``(x - mu)**2``
    negated over ``2 sigma**2``, exp, over ``sigma sqrt(2 pi)``, rounded back) on mpmath's low-level mpf functions,
    the point-free factors computed once per precision: the wrapped npdf spent most of :func:`min_error_sum`'s
    and :func:`gaussian_shift_points`' quadratures in object and precision bookkeeping.  A non-mpf node (or a mu or
    sigma neither int nor mpf) goes to npdf itself."""
    from mpmath.libmp import from_int, mpf_div, mpf_exp, mpf_neg, mpf_pos, mpf_pow_int, mpf_sub

    ctx = mpmath.mp
    # npdf converts its arguments at the caller's precision: an int or an mpf is exact, anything else goes to npdf
    muv = from_int(mu) if isinstance(mu, int) else mu._mpf_ if type(mu) is ctx.mpf else None
    sig_ok = isinstance(sigma, int) or type(sigma) is ctx.mpf
    consts: dict[int, tuple[Any, Any]] = {}

    def g(x: Any) -> Any:
        if type(x) is not ctx.mpf or muv is None or not sig_ok:
            return mpmath.npdf(x, mu, sigma)
        prec, rnd = ctx._prec_rounding
        p2 = prec + 10
        k = consts.get(p2)
        if k is None:  # exactly npdf's 2*sigma**2 and sigma*sqrt(2*pi), at npdf's working precision
            with mpmath.workprec(p2):
                sg = ctx.convert(sigma)
                k = consts[p2] = ((2 * sg**2)._mpf_, (sg * mpmath.sqrt(2 * mpmath.pi))._mpf_)
        two_s2, den = k
        e = mpf_div(mpf_neg(mpf_pow_int(mpf_sub(x._mpf_, muv, p2, rnd), 2, p2, rnd), p2, rnd), two_s2, p2, rnd)
        return ctx.make_mpf(mpf_pos(mpf_div(mpf_exp(e, p2, rnd), den, p2, rnd), prec, rnd))

    return g
