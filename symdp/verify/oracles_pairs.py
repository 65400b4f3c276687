"""Oracles of eps-DP pairs: the KL supremum over eps-DP pairs (randomized response), KL and hockey-stick
divergences of finite pairs, the Kairouz-Oh-Viswanath dominating pair and random DP pairs, and the optimal
composition of (eps, delta)-DP steps (Kairouz, Oh, Viswanath 2017, Thm 3.3).  Also the shared mpmath/SymPy
helpers of the oracle modules.  Registered in :mod:`.registry`; :mod:`.oracles` re-exports them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from mpmath.libmp import (
    fone,
    from_float,
    from_int,
    from_str,
    fzero,
    mpf_add,
    mpf_div,
    mpf_exp,
    mpf_gt,
    mpf_le,
    mpf_log,
    mpf_mul,
    mpf_mul_int,
    mpf_neg,
    mpf_pos,
    mpf_pow_int,
    mpf_sub,
    mpf_sum,
    to_float,
    to_str,
)

from ..errors import InvalidParameterError
from .registry import Oracle, register

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
    # losses (T - 2l) eps > eps' only contribute: l < (T - eps'/eps)/2
    lmax = Ti if e == 0 else min(Ti, int(mpmath.ceil((Ti - ep / e) / 2)) + 1)
    if max(lmax, 0) + 1 <= SAME_BITS_MAX_TERMS:
        s = _kov_sum_same_bits(e, ep, Ti, max(lmax, 0), logp, log1mp)
    else:
        s = _kov_sum_window(e, ep, Ti)
    # 1 - (1 - delta)^T without cancellation (at 53 bits, 1 - (1 - 1.19e-7) lost 9 of its 16 digits)
    log_keep = Ti * mpmath.log1p(-d) if d < 1 else mpmath.ninf
    keep = mpmath.exp(log_keep)
    return -mpmath.expm1(log_keep) + keep * s


#: :func:`optimal_composition` sums its terms l = 0..lmax with the reference loop's own operations (the same bits,
#: :func:`_kov_sum_same_bits`) up to this many terms: every point of the capped searches (T <= 500,
#: symdp.verify.core.ORACLE_CAPS) has at most 252; above, the rigorously windowed sum :func:`_kov_sum_window`
#: (equal at the working precision, not bit-identical: the reference loop's log C(T, l) chain and (T - l) log p
#: themselves lose about log2(T |log p|) bits there, e.g. 14 bits at T = 2000)
SAME_BITS_MAX_TERMS = 300


def _kov_sum_reference(e: mpmath.mpf, ep: mpmath.mpf, Ti: int, lmax: int, logp: mpmath.mpf,
                       log1mp: mpmath.mpf) -> mpmath.mpf:
    """The sum of :func:`optimal_composition` as it was written first, term by term on mpf objects (the reference
    that :func:`_kov_sum_same_bits` reproduces bit for bit; tests compare the two)."""
    terms = []
    logc = mpmath.mpf(0)  # log C(T, l), updated incrementally
    for l in range(0, lmax + 1):
        if l > 0:
            logc += mpmath.log(mpmath.mpf(Ti - l + 1) / l)
        loss = (Ti - 2 * l) * e
        if loss <= ep:
            continue
        lt = logc + (Ti - l) * logp + l * log1mp
        terms.append(mpmath.exp(lt) * -mpmath.expm1(ep - loss))
    return mpmath.fsum(terms)


def _neg_expm1_same_bits(x: tuple, prec: int, rnd: str) -> tuple:
    """``(-mpmath.expm1(x))._mpf_`` for an mpf ``x < 0`` at ``prec``, with expm1's own steps on mpmath's low-level
    functions: 10 guard bits (its wrapper), ``x + x**2/2`` below 2^-prec, else ``sum_accurately`` of
    ``[exp(x), -1]`` (5 + 10 extra bits, raised by the measured cancellation until it is below the extra bits),
    rounded back, negated.  Where ``exp(x) < 2^-(prec + 40)`` that sum rounds to -1 at any of its precisions (at
    most half an ulp of 1 away), so the result is 1 without computing exp."""
    sign, man, exp_, bc = x
    if not man:  # expm1(0) = 0 (zero or a special value: mpmath itself)
        return (-mpmath.expm1(mpmath.mp.make_mpf(x)))._mpf_
    P = prec + 10
    mag = exp_ + bc
    if sign and mag > 5 and to_float(x) < -0.7 * (prec + 40):  # e^-0.7 < 1/2
        return fone
    if mag < -P:
        r = mpf_add(x, mpf_mul(mpf_pow_int(x, 2, P, rnd), from_float(0.5), P, rnd), P, rnd)
    else:
        m_one = from_int(-1)
        extraprec = 10
        while True:
            wp = P + extraprec + 5
            ex = mpf_exp(x, wp, rnd)
            s = mpf_add(ex, m_one, wp, rnd)  # 0 + exp(x) is exp(x) itself (already at wp)
            max_mag = max(ex[2] + ex[3] if ex[1] else -math.inf, 1)
            sum_mag = s[2] + s[3] if s[1] else -math.inf
            cancellation = max_mag - sum_mag
            if cancellation < extraprec:
                break
            extraprec += int(min(wp, cancellation))
        r = s
    return mpf_neg(mpf_pos(r, prec, rnd), prec, rnd)


def _kov_sum_same_bits(e: mpmath.mpf, ep: mpmath.mpf, Ti: int, lmax: int, logp: mpmath.mpf,
                       log1mp: mpmath.mpf) -> mpmath.mpf:
    """:func:`_kov_sum_reference` with the same operations in the same order at the same precision and rounding
    (so the same bits) on mpmath's low-level mpf functions: the mpf objects, the precision bookkeeping of
    ``mpmath.expm1`` (about half of the reference's time) and its exp where ``-expm1`` is 1 at this precision
    (see :func:`_neg_expm1_same_bits`) are gone."""
    ctx = mpmath.mp
    prec, rnd = ctx._prec_rounding
    ev, epv, lpv, l1v = e._mpf_, ep._mpf_, logp._mpf_, log1mp._mpf_
    logcs = _kov_logc_chain(Ti, lmax, prec, rnd)
    weights = _kov_weights(ev, lpv, l1v, Ti, prec, rnd)
    terms = []
    for l in range(0, lmax + 1):
        loss = mpf_mul_int(ev, Ti - 2 * l, prec, rnd)
        if mpf_le(loss, epv):
            continue
        w = weights.get(l)
        if w is None:
            lt = mpf_add(mpf_add(logcs[l], mpf_mul_int(lpv, Ti - l, prec, rnd), prec, rnd), mpf_mul_int(l1v, l, prec, rnd),
                         prec, rnd)
            w = weights[l] = mpf_exp(lt, prec, rnd)
        f = _neg_expm1_same_bits(mpf_sub(epv, loss, prec, rnd), prec, rnd)
        terms.append(mpf_mul(w, f, prec, rnd))
    return ctx.make_mpf(mpf_sum(terms, prec, rnd))


#: the parts of :func:`_kov_sum_same_bits` that do not depend on eps' (the search moves eps' and delta at fixed eps
#: and T, and T repeats across points): ``log C(T, l)`` by the loop's own incremental chain, per (T, precision,
#: rounding), and the binomial weights ``exp(log C(T, l) + (T - l) log p + l log(1 - p))``, per (eps, T, precision,
#: rounding), each entry computed by the same operations on the same inputs as the loop (so the same bits) the first
#: time a sum needs it.  Bounded: each dict starts again empty past KOV_CACHE_MAX keys (at most ~300 weights of
#: ~200 bytes per key: tens of MB at worst).
_KOV_LOGC: dict[tuple[int, int, str], list[tuple]] = {}
_KOV_W: dict[tuple[tuple, tuple, tuple, int, int, str], dict[int, tuple]] = {}
KOV_CACHE_MAX = 512


def _kov_logc_chain(Ti: int, lmax: int, prec: int, rnd: str) -> list[tuple]:
    """``[log C(T, 0), ..., log C(T, lmax)]`` (at least) as the loop computes them: ``logc_l = logc_{l-1} +
    log((T - l + 1)/l)``, each step rounded at ``prec``."""
    key = (Ti, prec, rnd)
    chain = _KOV_LOGC.get(key)
    if chain is None:
        if len(_KOV_LOGC) >= KOV_CACHE_MAX:
            _KOV_LOGC.clear()
        chain = _KOV_LOGC[key] = [fzero]
    logc = chain[-1]
    for l in range(len(chain), lmax + 1):
        logc = mpf_add(logc, mpf_log(mpf_div(from_int(Ti - l + 1), from_int(l), prec, rnd), prec, rnd), prec, rnd)
        chain.append(logc)
    return chain


def _kov_weights(ev: tuple, lpv: tuple, l1v: tuple, Ti: int, prec: int, rnd: str) -> dict[int, tuple]:
    """The binomial weights of (eps, T) computed so far, ``l -> exp(lt_l)`` (filled by :func:`_kov_sum_same_bits`;
    keyed by the exact ``log p`` and ``log(1 - p)`` the sum is given as well as eps)."""
    key = (ev, lpv, l1v, Ti, prec, rnd)
    got = _KOV_W.get(key)
    if got is None:
        if len(_KOV_W) >= KOV_CACHE_MAX:
            _KOV_W.clear()
        got = _KOV_W[key] = {}
    return got


def _kov_sum_window(e: mpmath.mpf, ep: mpmath.mpf, Ti: int) -> mpmath.mpf:
    r"""The sum of :func:`optimal_composition`, :math:`S = \sum_{l:\,(T-2l)\varepsilon > \varepsilon'} b_l f_l` with
    :math:`b_l = \binom{T}{l} p^{T-l}(1-p)^l` and :math:`f_l = 1 - e^{\varepsilon' - (T-2l)\varepsilon}`, equal at the
    working precision (within an ulp; not bit-identical to the term-by-term loop) at a cost of
    O(sqrt(T) * precision) terms instead of O(T).

    Terms are computed only on a window around the largest one: :math:`b_l` from one anchor :math:`\log b_{l_0}`
    (loggamma at ``prec + 2 bitlen(T) + 40`` bits) by the ratio :math:`b_{l+1}/b_l = (T-l)e^{-\varepsilon}/(l+1)` at
    ``prec + bitlen(T) + 30`` bits (at most 3 roundings per step, at most T steps: relative error below
    2^-(prec+28)), :math:`f_l` to ``prec + 30`` bits.  The terms outside the window are bounded rigorously: :math:`b_l`
    (binomial) and :math:`f_l` (:math:`\log(1 - e^{-u})` is concave in u, u affine in l) are log-concave in l, so
    the ratio of consecutive terms is non-increasing and each skipped tail is at most its edge term times
    :math:`R/(1-R)`, R the ratio of the two outermost computed terms on that side.  The window is widened until
    both tail bounds together are below 2^-(prec+10) of the window's sum (the whole range, at worst)."""
    ctx = mpmath.mp
    prec, rnd = ctx._prec_rounding
    nb = Ti.bit_length()
    wp, wp2 = prec + nb + 30, prec + 2 * nb + 40
    ev, epv = e._mpf_, ep._mpf_

    def x_of(l: int) -> tuple:  # eps' - (T - 2l) eps, exactly
        return mpf_sub(epv, mpf_mul(ev, from_int(Ti - 2 * l)))

    def on(l: int) -> bool:  # the term is in the sum: (T - 2l) eps > eps'
        return mpf_gt(mpf_mul(ev, from_int(Ti - 2 * l)), epv)

    # l_end: the last l with a term (the loss decreases in l)
    if not e:
        l_end = Ti if on(0) else -1
    else:
        with mpmath.workprec(wp2):
            c = int(mpmath.floor((Ti - ep / e) / 2))
        l_end = min(Ti, max(c + 2, -1))
        while l_end >= 0 and not on(l_end):
            l_end -= 1
        while 0 <= l_end < Ti and on(l_end + 1):  # (c is within one of the exact bound: never taken in practice)
            l_end += 1
    if l_end < 0:
        return mpmath.mpf(0)
    # a float model of log t_l, to place the window (rigour comes from the tail bounds below)
    ef, epf = float(e), float(ep)
    lpf = -math.log1p(math.exp(-ef))  # log p
    l1f = lpf - ef  # log (1 - p)
    lgT = math.lgamma(Ti + 1)

    def g(l: int) -> float:
        u = (Ti - 2 * l) * ef - epf
        lf = math.log(-math.expm1(-u)) if u > 1e-300 else -700.0
        return lgT - math.lgamma(l + 1) - math.lgamma(Ti - l + 1) + (Ti - l) * lpf + l * l1f + lf

    lo, hi = 0, l_end  # the peak: the last l whose step g(l) - g(l-1) is positive (the steps do not increase)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if g(mid) - g(mid - 1) > 0:
            lo = mid
        else:
            hi = mid - 1
    peak = lo
    gp = g(peak)
    cut = gp - ((prec + 20) * math.log(2) + math.log(Ti + 1) + 5)

    lo, hi = 0, peak  # the window: g >= cut (g does not decrease up to the peak, nor increase after it)
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if g(mid) >= cut else (mid + 1, hi)
    l_lo = lo
    lo, hi = peak, l_end
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if g(mid) >= cut else (lo, mid - 1)
    l_hi = lo
    # the anchor and the ratios, at high precision
    with mpmath.workprec(wp2):
        e2 = mpmath.mpf(e)
        log1mp = -mpmath.log1p(mpmath.exp(e2))
        logb0 = (mpmath.loggamma(Ti + 1) - mpmath.loggamma(peak + 1) - mpmath.loggamma(Ti - peak + 1)
                 + (Ti - peak) * (e2 + log1mp) + peak * log1mp)
        b0 = mpmath.exp(logb0)._mpf_
        q, qinv = mpmath.exp(-e2)._mpf_, mpmath.exp(e2)._mpf_
    fcut = -0.7 * (wp + 10)  # e^x < 2^-(wp+10) below: f = 1

    def f_of(l: int) -> tuple:
        x = x_of(l)
        if to_float(x) < fcut:
            return fone
        if x[2] + x[3] >= -4:  # |x| >= 1/16: 1 - e^x >= 0.06, so 8 guard bits on e^x suffice
            return mpf_sub(fone, mpf_exp(x, wp + 8, rnd), wp, rnd)
        with mpmath.workprec(wp):
            return (-mpmath.expm1(ctx.make_mpf(x)))._mpf_

    margin = 2
    b: dict[int, tuple] = {peak: b0}
    t: dict[int, tuple] = {}
    while True:
        a_, c_ = max(0, l_lo - margin), min(l_end, l_hi + margin)
        for l in range(peak + 1, c_ + 1):
            if l not in b:
                b[l] = mpf_div(mpf_mul_int(mpf_mul(b[l - 1], q, wp, rnd), Ti - l + 1, wp, rnd), from_int(l), wp, rnd)
        for l in range(peak - 1, a_ - 1, -1):
            if l not in b:
                b[l] = mpf_mul(mpf_div(mpf_mul_int(b[l + 1], l + 1, wp, rnd), from_int(Ti - l), wp, rnd), qinv, wp, rnd)
        for l in range(a_, c_ + 1):
            if l not in t:
                t[l] = mpf_mul(b[l], f_of(l), wp, rnd)
        terms = [t[l] for l in range(a_, c_ + 1)]
        s_w = mpmath.mpf(mpf_sum(terms, wp, rnd))
        with mpmath.workprec(53):
            bound = mpmath.mpf(0)
            for inner, outer, more in ((a_ + 1, a_, a_ > 0), (c_ - 1, c_, c_ < l_end)):
                if not more:
                    continue
                if inner < a_ or inner > c_:  # one term only: no ratio yet
                    bound = mpmath.inf
                    break
                r = mpmath.mpf(t[outer]) / mpmath.mpf(t[inner]) if t[inner][1] else mpmath.inf
                # the factor 2 covers the rounding of the terms (2^-(prec+20)) and of r (1 - r >= 1e-9 >> 2^-53)
                bound += 2 * mpmath.mpf(t[outer]) * r / (1 - r) if r < 1 - 1e-9 else mpmath.inf
            if bound <= s_w * mpmath.ldexp(1, -(prec + 10)):
                return ctx.make_mpf(mpf_sum(terms, prec, rnd))
        if a_ == 0 and c_ == l_end:  # the whole range: no tail
            return ctx.make_mpf(mpf_sum(terms, prec, rnd))
        margin = 2 * margin + 16


def optimal_composition_hetero(steps: Sequence[tuple[Any, Any]], at: Any) -> mpmath.mpf:
    """Optimal delta'(at) for the composition of heterogeneous (eps_i, delta_i)-DP steps.

    Convolves the KOV worst-case pairs exactly (finite supports); cost grows
    with the number of distinct losses, fine for a few dozen steps.  Equal losses are merged up to round-off (a
    loss is keyed by its value printed to ``mp.dps`` digits and read back).  The inner loops run on mpmath's
    low-level mpf functions with the same operations in the same order as the mpf-object version they replaced
    (the same bits; tests compare the two): that version spent its time in object and precision bookkeeping.
    """
    ctx = mpmath.mp
    prec, rnd = ctx._prec_rounding
    dps = ctx.dps
    dist: dict[tuple, tuple] = {fzero: fone}  # loss -> P-mass (finite part), as mpf values
    log_keep = mpmath.mpf(0)
    for e, d in steps:
        e, d = _mpf(e), _mpf(d)
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        log_keep += mpmath.log1p(-d) if d < 1 else mpmath.ninf
        ev, pv, qv = e._mpf_, p._mpf_, (1 - p)._mpf_
        new: dict[tuple, tuple] = {}
        for loss, m in dist.items():
            for l2, w in ((mpf_add(loss, ev, prec, rnd), pv), (mpf_sub(loss, ev, prec, rnd), qv)):
                key = mpf_pos(from_str(to_str(l2, dps), prec, rnd), prec, rnd)  # mpf(nstr(l2, dps))
                new[key] = mpf_add(new.get(key, fzero), mpf_mul(m, w, prec, rnd), prec, rnd)
        dist = new
    inf_mass = -mpmath.expm1(log_keep)  # 1 - prod(1 - delta_i) without cancellation
    keep = mpmath.exp(log_keep)
    epv = _mpf(at)._mpf_
    terms = [mpf_mul(m, _neg_expm1_same_bits(mpf_sub(epv, loss, prec, rnd), prec, rnd), prec, rnd)
             for loss, m in dist.items() if mpf_gt(loss, epv)]
    s = ctx.make_mpf(mpf_sum(terms, prec, rnd))
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

