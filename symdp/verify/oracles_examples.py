r"""Oracles that decide entries the library records without one (issue 12 item 5).

- **Wang et al.'s worked examples** [Wang, Lei, Fienberg 2016, Sec. 6]: the exact pure-DP level of a posterior
  sampler is the supremum of the log-density ratio over neighbouring data sets.
  *Laplace mean release* (``h ~ exp(-gamma |Z - h|)`` on ``h in R``, one data point ``Z in [-2, 2]``): the
  normaliser ``2/gamma`` does not depend on ``Z`` and ``|Z' - h| - |Z - h| <= |Z - Z'| <= 4`` with equality
  for ``Z = 2, Z' = -2, h <= -2``: ``eps_DP = 4 gamma`` exactly.
  *1-D linear regression* (``h ~ exp(-gamma sum_i (y_i - x_i h)^2)`` on ``H = [-2, 2]``, ``Z = Y x X =
  [-1, 1] x [-2, 2]`` as printed): with ``Delta(h) = l(h, z') - l(h, z)`` the log-density ratio is
  ``gamma Delta(h) + log E_{h ~ p(.|Z)} exp(-gamma Delta(h))``, which lies in ``[gamma (Delta(h) - max Delta),
  gamma (Delta(h) - min Delta)]``; the upper end is approached when the other ``n - 1`` points concentrate the
  posterior at ``argmin Delta``.  So ``eps_DP = gamma sup_{z, z', h, h*} (Delta(h) - Delta(h*))``.  The oracle
  evaluates that supremum on a grid (a *lower* bound: it can refute); its worst case ``50 gamma`` follows from
  ``0 <= l <= (1 + 2*2)^2 = 25`` (``32 gamma`` under the other reading ``Y x X = [-2, 2] x [-1, 1]``, where
  ``l <= 16``), which proves any claim above it.
- **The coupling lemma** [He et al. 2021, Lemma 3] on finite distributions, by a linear programme (see
  :func:`coupling_distance`).
- **Chernoff terms** (the delta'' of He et al.'s Composition Theorem III, He et al. (long) App. B.4 eq. (38)) against the
  exact binomial tail of the privacy loss they bound (:func:`rr_loss_tail`).
- **Azuma-Hoeffding** (He et al. (long) Lemma 3 as quoted) against the exact tail of the Rademacher walk.
- **Max-information of randomized response** [Dwork et al. 2015b, Thms 19-20], by enumeration: ``n`` bits, each
  released through eps-randomized response (an eps-DP algorithm on ``n`` samples).  Pure max-information with a
  product prior of bit probability ``p``: ``n log2(r / (p r + (1 - p)(1 - r)))``, ``r = e^eps/(1 + e^eps)``,
  which tends to ``n eps log2 e`` as ``p -> 0`` (the bound of Thm 19 is attained in the limit).  beta-approximate
  max-information for i.i.d. uniform bits: the smallest ``t`` with ``sup_O P_joint(O) - t P_prod(O) <= beta``
  (a hockey-stick divergence between two binomial laws of the number of agreements), ``log2 t`` bits.  Both are
  *lower* bounds on the worst case over eps-DP algorithms and data distributions: they refute, never prove; the
  proof of Thm 19 is the group-privacy reduction recorded with the oracle.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from .registry import Oracle, assign, register


def _mpf(x: Any) -> mpmath.mpf:
    return mpmath.mpf(x) if not isinstance(x, mpmath.mpf) else x


# ---------------------------------------------------------------------------
# 004 Sec. 6: exact suprema of log-density ratios
# ---------------------------------------------------------------------------


def laplace_mean_dp(*, gamma: Any, **_: Any) -> mpmath.mpf:
    """Exact pure-DP level of ``h ~ (gamma/2) exp(-gamma |Z - h|)``, ``Z in [-2, 2]``: the supremum of
    ``gamma (|Z' - h| - |Z - h|)`` (normalisers equal) over a grid that contains the maximisers."""
    g = _mpf(gamma)
    if not g > 0:
        raise ValueError(f"gamma={gamma}: must be > 0")
    zs = [k / 2 for k in range(-4, 5)]  # Z, Z' in [-2, 2] (the ends included); dyadic: exact in float64
    hs = [k / 4 for k in range(-24, 25)]  # h in [-6, 6]
    best = max(abs(z2 - h) - abs(z - h) for z in zs for z2 in zs for h in hs)
    return g * mpmath.mpf(best)


def linreg_dp_lower(*, gamma: Any, **_: Any) -> mpmath.mpf:
    """A lower bound on the pure-DP level of the 1-D linear-regression posterior sampler of Wang et al. Sec. 6 (as
    printed: ``y in [-1, 1]``, ``x in [-2, 2]``, ``h in [-2, 2]``): ``gamma max (Delta(h) - Delta(h*))`` on a grid."""
    g = _mpf(gamma)
    if not g > 0:
        raise ValueError(f"gamma={gamma}: must be > 0")
    return g * mpmath.mpf(_linreg_grid_sup())  # grid values are dyadic: exact in float64


@functools.cache
def _linreg_grid_sup() -> float:
    """``max (Delta(h) - Delta(h*))`` over the grid of :func:`linreg_dp_lower`: it does not depend on gamma, so it
    is computed once per process (it was computed at every point of the search: 2,025 numpy reductions each)."""
    ys = np.linspace(-1.0, 1.0, 5)
    xs = np.linspace(-2.0, 2.0, 9)
    hs = np.linspace(-2.0, 2.0, 17)
    best = 0.0
    for y in ys:
        for x in xs:
            lz = (y - x * hs) ** 2
            for y2 in ys:
                for x2 in xs:
                    d = (y2 - x2 * hs) ** 2 - lz
                    best = max(best, float(d.max() - d.min()))
    return best


register(Oracle(
    "wang_laplace_mean_dp", laplace_mean_dp, "value", ("gamma",),
    "exact pure-DP level of the Laplace mean release of Wang, Lei, Fienberg 2016, Sec. 6 (sup of the log-density ratio)",
    exact=lambda *, gamma, **_: 4 * gamma,
    exact_note="the normaliser 2/gamma does not depend on Z; |Z' - h| - |Z - h| <= |Z - Z'| <= 4 (triangle "
               "inequality), with equality at Z = 2, Z' = -2, h <= -2: eps_DP = 4 gamma",
))
register(Oracle(
    "wang_linreg_dp", linreg_dp_lower, "value", ("gamma",),
    "pure-DP level of the 1-D linear-regression posterior sampler of Wang, Lei, Fienberg 2016, Sec. 6: a grid lower bound of "
    "gamma sup (Delta(h) - Delta(h*)) (refutes); worst case 50 gamma (proves)",
    closed_form="50*gamma",
    reduction="eps_DP = gamma sup_{z,z',h,h*} (Delta(h) - Delta(h*)) with Delta = l(h, z') - l(h, z) (the "
              "log-normaliser ratio is log E_{p(.|Z)} exp(-gamma Delta) in [-gamma max Delta, -gamma min Delta]); "
              "0 <= l = (y - x h)^2 <= (1 + 2*2)^2 = 25 on Y x X x H = [-1,1] x [-2,2] x [-2,2], so "
              "eps_DP <= gamma (25 - (-25)) = 50 gamma (<= 32 gamma under the reading Y x X = [-2,2] x [-1,1])",
))
assign("wang_laplace_mean_dp", "wang2016.example_laplace_mean_dp")
assign("wang_linreg_dp", "wang2016.example_linreg_dp")


# ---------------------------------------------------------------------------
# max-information of randomized response (Dwork et al. 2015b, Thms 19-20), by enumeration
# ---------------------------------------------------------------------------

#: the bit probability of the product prior for the pure max-information (the supremum is the limit p -> 0)
RR_PRIOR_P = mpmath.mpf("1e-12")


def rr_pure_max_information_bits(*, epsilon: Any, n: Any, **_: Any) -> mpmath.mpf:
    """Pure max-information (bits) of ``n`` bits through eps-randomized response, product prior of bit
    probability :data:`RR_PRIOR_P`: ``n log2 max_{s, a} P(a|s)/P(a)`` (a lower bound of ``I_inf(A, n)``)."""
    e, nn = _mpf(epsilon), _mpf(n)
    if not (e > 0 and nn >= 1):
        raise ValueError(f"epsilon={epsilon}, n={n}: need epsilon > 0 and n >= 1")
    r = mpmath.exp(e) / (1 + mpmath.exp(e))
    p = RR_PRIOR_P
    per_bit = max(r / (p * r + (1 - p) * (1 - r)),  # s_i = a_i = the rare value
                  r / ((1 - p) * r + p * (1 - r)))  # s_i = a_i = the common value
    return nn * mpmath.log(per_bit, 2)


def rr_approx_max_information_bits(*, epsilon: Any, n: Any, beta: Any, **_: Any) -> mpmath.mpf:
    """beta-approximate max-information (bits) of ``n`` i.i.d. uniform bits through eps-randomized response: the
    smallest ``log2 t`` with ``sum_k max(0, P_joint(k) - t P_prod(k)) <= beta`` over the number ``k`` of
    agreements (``Bin(n, r)`` under the joint law, ``Bin(n, 1/2)`` under the product); the lower end of the
    bisection bracket, less 1e-9 relative (a lower bound: it refutes only)."""
    from scipy.stats import binom

    e, b = float(epsilon), float(beta)
    nn = round(float(n))
    if not (e > 0 and nn >= 1 and 0 < b < 1):
        raise ValueError(f"epsilon={epsilon}, n={n}, beta={beta}: need epsilon > 0, n >= 1, 0 < beta < 1")
    r = math.exp(-math.log1p(math.exp(-e)))  # e^eps/(1 + e^eps)
    k = np.arange(nn + 1)
    log_ratio = k * math.log(2 * r) + (nn - k) * math.log(2 * (1 - r))  # increasing in k
    tails: dict[int, tuple[float, float]] = {}

    def logsf(idx: int) -> tuple[float, float]:
        """(log P_joint(K >= idx), log P_prod(K >= idx)), computed only at the thresholds the bisection visits
        (a few dozen of the n + 1; the same scipy values as the whole arrays)."""
        got = tails.get(idx)
        if got is None:
            got = tails[idx] = (float(binom.logsf(idx - 1, nn, r)), float(binom.logsf(idx - 1, nn, 0.5)))
        return got

    def excess(log_t: float) -> float:
        """sup_O P_joint(O) - t P_prod(O) (O = {K >= k0}, k0 the first k with ratio > t)."""
        idx = int(np.searchsorted(log_ratio, log_t, side="right"))
        if idx > nn:
            return 0.0
        lj, lp = logsf(idx)
        a = math.exp(lj)
        lt = log_t + lp
        return a - (math.exp(lt) if lt < 700 else math.inf)

    lo, hi = 0.0, max(float(log_ratio[-1]), 0.0)
    if excess(lo) <= b:
        return mpmath.mpf(0)
    for _it in range(200):
        mid = 0.5 * (lo + hi)
        if excess(mid) > b:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * max(1.0, hi):
            break
    return mpmath.mpf(lo / math.log(2)) * (1 - mpmath.mpf("1e-9"))


register(Oracle(
    "rr_max_information", rr_pure_max_information_bits, "value", ("epsilon", "n"),
    "pure max-information (bits) of n bits through eps-randomized response, product prior (a lower bound of "
    "I_inf(A, n) over eps-DP A; tends to n eps log2 e)",
    closed_form="epsilon*n/log(2)",
    reduction="group privacy: for eps-DP A and s, s' in Z^n, P(a|s) <= e^{n eps} P(a|s'), so P(a|s)/P(a) = "
              "P(a|s)/sum_{s'} P(s') P(a|s') <= e^{n eps} and I_inf(A, n) <= n eps log2 e",
))
register(Oracle(
    "rr_approx_max_information", rr_approx_max_information_bits, "value", ("epsilon", "n", "beta"),
    "beta-approximate max-information (bits) of n i.i.d. uniform bits through eps-randomized response, by "
    "enumeration of the binomial laws (a lower bound of the worst case over eps-DP A and i.i.d. D)",
))
assign("rr_max_information", "dwork2015.thm19_pure_dp")
assign("rr_approx_max_information", "dwork2015.thm20_pure_dp_iid")


# ---------------------------------------------------------------------------
# finite distributions decided by a linear programme: the coupling lemma (He et al. 2021, Lemma 3)
# ---------------------------------------------------------------------------


def coupling_distance(P: list[Any], Q: list[Any], epsilon: Any, scale: Any) -> mpmath.mpf:
    r"""``min t`` over distributions ``P', Q'`` with ``TV(P, P') <= t``, ``TV(Q, Q') <= t`` and
    ``D_inf(P'||Q'), D_inf(Q'||P') <= eps``: a linear programme (scipy HiGHS) in the deviations
    ``(P' - P)/scale`` (well scaled for tiny delta; the constants are formed in mpmath).  Returns the optimum
    less 1e-7 relative (a lower bound: it refutes only)."""
    from scipy.optimize import linprog

    ee = mpmath.exp(_mpf(epsilon))
    sc = _mpf(scale)
    k = len(P)
    E = float(ee)
    nv = 4 * k + 1  # dP, dQ, uP, uQ, s
    A: list[list[float]] = []
    b: list[float] = []

    def row() -> list[float]:
        return [0.0] * nv

    for i in range(k):
        r = row(); r[i] = 1.0; r[k + i] = -E; A.append(r); b.append(float(-(_mpf(P[i]) - ee * _mpf(Q[i])) / sc))  # noqa: E702
        r = row(); r[k + i] = 1.0; r[i] = -E; A.append(r); b.append(float(-(_mpf(Q[i]) - ee * _mpf(P[i])) / sc))  # noqa: E702
        for off, u in ((0, 2 * k), (k, 3 * k)):
            r = row(); r[off + i] = 1.0; r[u + i] = -1.0; A.append(r); b.append(0.0)  # noqa: E702
            r = row(); r[off + i] = -1.0; r[u + i] = -1.0; A.append(r); b.append(0.0)  # noqa: E702
    for u in (2 * k, 3 * k):
        r = row()
        for i in range(k):
            r[u + i] = 0.5
        r[-1] = -1.0
        A.append(r)
        b.append(0.0)
    a_eq = [[1.0] * k + [0.0] * (3 * k + 1), [0.0] * k + [1.0] * k + [0.0] * (2 * k + 1)]
    bounds = ([(float(-_mpf(x) / sc), None) for x in P] + [(float(-_mpf(x) / sc), None) for x in Q]
              + [(0.0, None)] * (2 * k + 1))
    cost = [0.0] * (4 * k) + [1.0]
    res = linprog(cost, A_ub=A, b_ub=b, A_eq=a_eq, b_eq=[0.0, 0.0], bounds=bounds, method="highs")
    if res.status != 0:
        raise ArithmeticError(f"coupling LP did not solve: {res.message}")
    return sc * mpmath.mpf(float(res.fun)) * (1 - mpmath.mpf("1e-7"))


def coupling_lemma_distance(*, epsilon: Any, delta: Any, **_: Any) -> mpmath.mpf:
    """The smallest coupling distance over all (eps, delta)-DP pairs: the LP on the Kairouz-Oh-Viswanath pair,
    which dominates (every (eps, delta)-DP pair is a post-processing of it, and TV distance and max-divergence
    both contract under post-processing)."""
    from .oracles import kov_pair

    P, Q = kov_pair(epsilon, delta)
    return coupling_distance(P, Q, epsilon, delta)


register(Oracle(
    "coupling_lp", coupling_lemma_distance, "value", ("epsilon", "delta"),
    "smallest t such that every (eps, delta)-DP pair is t-close in TV to an eps-max-divergence pair: a linear "
    "programme on the dominating KOV pair (a lower bound, 1e-7 relative below the LP optimum)",
))
assign("coupling_lp", "he2021.lemma3_coupling")


# ---------------------------------------------------------------------------
# Chernoff terms against the exact tail (He et al., Composition Theorem III: the delta'' of eq. (38))
# ---------------------------------------------------------------------------

#: entry id -> per-step epsilon of the T-fold composition whose privacy-loss tail the entry's Chernoff term
#: bounds (by the names of the entry's symbols)
CHERNOFF_STEP: dict[str, str] = {
    "he2021uai.cor2_delta_pp": "epsilon",
    "he2021uai.thm7_delta_tilde_p": "epsilontilde",
    "he2021long.thm7_delta_tilde": "epsilontilde*tau/N",
    "he2021long.thm8_delta_tilde": "epsilontilde*tau/N",
}


def rr_loss_tail(*, step: Any, T: Any, at: Any) -> mpmath.mpf:
    r"""``P(S > eps')`` for ``S`` the sum of ``T`` privacy losses ``+step`` (probability ``e^step/(1 + e^step)``)
    or ``-step`` (the model whose moment generating function eq. (36) of He et al. (long) App. B.4 displays): ``K ~ Bin(T, r)``
    agreements, ``S = step (2K - T)``.  scipy's binomial log-survival function, less 1e-9 relative (a lower
    bound)."""
    from scipy.stats import binom

    e, tt, a = float(step), round(float(T)), float(at)
    if not (e > 0 and tt >= 1):
        raise ValueError(f"step={step}, T={T}: need step > 0 and T >= 1")
    r = math.exp(-math.log1p(math.exp(-e)))
    kmin = math.floor((tt + a / e) / 2) + 1  # S > eps'  <=>  K > (T + eps'/step)/2
    if kmin > tt:
        return mpmath.mpf(0)
    if kmin <= 0:
        return mpmath.mpf(1) * (1 - mpmath.mpf("1e-9"))
    return mpmath.exp(mpmath.mpf(float(binom.logsf(kmin - 1, tt, r)))) * (1 - mpmath.mpf("1e-9"))


def _map_chernoff(th: Any) -> Any:
    """``Chernoff term >= the exact tail it bounds`` for the entries of :data:`CHERNOFF_STEP`."""
    from .compile import compile_expr

    if th.id not in CHERNOFF_STEP or th.rhs is None:
        return f"no Chernoff model for {th.id}"
    syms = {x.name: x for x in th.rhs.free_symbols}
    step = sp.sympify(CHERNOFF_STEP[th.id], locals=syms)  # internal constant text, not user input
    if "T" not in syms or "epsilonprime" not in syms or not step.free_symbols <= set(syms.values()):
        return f"{th.id}: the Chernoff model needs T, epsilonprime and {CHERNOFF_STEP[th.id]}"
    f_rhs = compile_expr(th.rhs)
    f_step = compile_expr(step)
    lo_hi = {x.name: (lo, hi) for x, lo, hi in th.domain}
    ep_lo, ep_hi = (float(v) for v in lo_hi.get("epsilonprime", (0, math.inf)))
    u = sp.Symbol("u_epsilonprime", positive=True)

    def point(pt: dict[str, mpmath.mpf]) -> dict[str, mpmath.mpf] | None:
        # sampled only where the derivation applies: eps' in [T tanh(e/2), T e) (App. B.4 states eps' >= T (e^e - 1)/
        # (e^e + 1) before eq. (38); below it the minimising t of eq. (37) is negative), as eps' = lo + u (hi - lo)
        e = f_step(pt)
        lo, hi = max(pt["T"] * mpmath.tanh(e / 2), ep_lo), min(pt["T"] * e, ep_hi)
        if not lo < hi:
            return None
        q = dict(pt)
        q["epsilonprime"] = lo + pt[u.name] * (hi - lo)
        return q

    def f_claim(pt: dict[str, mpmath.mpf]) -> mpmath.mpf | None:
        q = point(pt)
        return None if q is None else f_rhs(q)

    def f_true(pt: dict[str, mpmath.mpf]) -> mpmath.mpf | None:
        q = point(pt)
        return None if q is None else rr_loss_tail(step=f_step(q), T=q["T"], at=q["epsilonprime"])

    searched = (set(th.rhs.free_symbols) - {syms["epsilonprime"]}) | {u}
    return f_claim, f_true, "<=", searched, {u.name: (0.0, 1.0)}


register(Oracle(
    "chernoff_rr_tail", lambda **kw: rr_loss_tail(**kw), "value", ("step", "T", "at"),
    "exact tail P(S > eps') of the T-fold privacy loss of eps-randomized response (binomial), which a Chernoff "
    "term claims to bound from above (He et al. 2021, long version, App. B.4, eqs. (36)-(38)); checked only where eps' >= T tanh(eps/2), the "
    "condition the derivation states",
    mapper=_map_chernoff,
))
assign("chernoff_rr_tail", *CHERNOFF_STEP)


# ---------------------------------------------------------------------------
# Azuma-Hoeffding (He et al. long, Lemma 3 as quoted): the Rademacher walk, exactly
# ---------------------------------------------------------------------------

AZUMA_T = (*range(1, 33), 64, 128, 1000, 10_000, 100_000)


def azuma_rademacher_tail(*, t: Any, **_: Any) -> mpmath.mpf:
    r"""``max_T P(S_T >= t sqrt(T))`` for the Rademacher walk (``Y_i = +-1``, ``a_i = 1``, ``C_i = 0``): exact
    binomial tails over :data:`AZUMA_T` (a lower bound of the worst case over the lemma's martingales), less 1e-9
    relative."""
    from scipy.stats import binom

    tt = float(t)
    if not tt > 0:
        raise ValueError(f"t={t}: must be > 0")
    best = -math.inf
    for n in AZUMA_T:
        kmin = math.ceil((n + tt * math.sqrt(n)) / 2 - 1e-12)  # S_T = 2K - T >= t sqrt(T)
        if kmin > n:
            continue
        best = max(best, float(binom.logsf(kmin - 1, n, 0.5)))
    if best == -math.inf:
        return mpmath.mpf(0)
    return mpmath.exp(mpmath.mpf(best)) * (1 - mpmath.mpf("1e-9"))


register(Oracle(
    "azuma_rademacher", azuma_rademacher_tail, "value", ("t",),
    "exact tail of the Rademacher walk, max over T in {1..32, 64, ..., 1e5} (a lower bound of the Azuma tail: refutes)",
))
assign("azuma_rademacher", "he2021long.azuma")


# ---------------------------------------------------------------------------
# bridge theorems of the calculus (symdp.library.bridges) with existing or derived oracles
# ---------------------------------------------------------------------------


def gaussian_zcdp(*, sigma: Any, Delta: Any = 1, **_: Any) -> mpmath.mpf:
    r"""zCDP parameter of the Gaussian mechanism, ``sup_alpha D_alpha / alpha``, with ``D_alpha`` by quadrature
    (:func:`symdp.verify.oracles.gaussian_rdp`) at alpha in {2, 8} (the ratio is constant in alpha)."""
    from .oracles import gaussian_rdp

    return max(gaussian_rdp(alpha=a, sigma=sigma, Delta=Delta) / a for a in (2, 8))


def rr_approx_max_information_nats(*, epsilon: Any, n: Any, beta: Any, **_: Any) -> mpmath.mpf:
    """:func:`rr_approx_max_information_bits` in nats."""
    return rr_approx_max_information_bits(epsilon=epsilon, n=n, beta=beta) * mpmath.log(2)


register(Oracle(
    "gaussian_zcdp", gaussian_zcdp, "value", ("sigma",),
    "zCDP parameter of the Gaussian mechanism: sup_alpha D_alpha/alpha, Renyi divergences by quadrature",
    rtol="1e-12",
    exact=lambda *, sigma, Delta=1, **_: sp.sympify(Delta) ** 2 / (2 * sp.sympify(sigma) ** 2),
    exact_note="D_alpha(N(Delta, s^2) || N(0, s^2)) = alpha Delta^2/(2 s^2) for every alpha > 1, so "
               "sup_alpha D_alpha/alpha = Delta^2/(2 s^2)",
))
register(Oracle(
    "rr_approx_max_information_nats", rr_approx_max_information_nats, "value", ("epsilon", "n", "beta"),
    "beta-approximate max-information (nats) of n i.i.d. uniform bits through eps-randomized response (a lower "
    "bound of the worst case)",
))
assign("gaussian_rdp", "bridge.mironov2017_gaussian_rdp")
assign("gaussian_zcdp", "bridge.bun_steinke2016_gaussian_zcdp")
assign("rr_approx_max_information_nats", "bridge.dwork2015_thm20_nats")
assign("optimal_composition", "bridge.dwork_roth_basic_composition_eps")


# ---------------------------------------------------------------------------
# information inequalities of 004 on random finite instances (exact arithmetic at 30 digits)
# ---------------------------------------------------------------------------


def finite_instance(seed: int) -> tuple[list[mpmath.mpf], list[list[mpmath.mpf]], list[list[mpmath.mpf]]]:
    """A random finite instance: a prior ``D`` on ``k <= 6`` inputs, a channel ``A`` (rows: P(h | z)) to ``m <= 6``
    outputs and a post-processing kernel ``f`` (rows: P(y | h)), sparse Dirichlet draws (reproducible by seed)."""
    import random

    rng = random.Random(seed)
    k, m = rng.randint(2, 6), rng.randint(2, 6)

    def simplex(n: int) -> list[mpmath.mpf]:
        w = [mpmath.mpf(rng.expovariate(1.0)) if rng.random() > 0.3 else mpmath.mpf(0) for _ in range(n)]
        w = [x + mpmath.mpf("1e-6") for x in w]  # full support: every KL finite
        tot = mpmath.fsum(w)
        return [x / tot for x in w]

    r = rng.randint(2, 6)
    return simplex(k), [simplex(m) for _ in range(k)], [simplex(r) for _ in range(m)]


def _kl(p: list[mpmath.mpf], q: list[mpmath.mpf]) -> mpmath.mpf:
    return mpmath.fsum(a * mpmath.log(a / b) for a, b in zip(p, q, strict=True) if a > 0)


def _push(p: list[mpmath.mpf], kernel: list[list[mpmath.mpf]]) -> list[mpmath.mpf]:
    return [mpmath.fsum(p[i] * kernel[i][j] for i in range(len(p))) for j in range(len(kernel[0]))]


def mutual_information(seed: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``(I(A(Z); Z), E_{Z, Z'} KL(A(Z) || A(Z')))`` for :func:`finite_instance` (``Z, Z'`` independent)."""
    D, A, _f = finite_instance(seed)
    marg = _push(D, A)
    mi = mpmath.fsum(D[i] * _kl(A[i], marg) for i in range(len(D)))
    kl_ind = mpmath.fsum(D[i] * D[j] * _kl(A[i], A[j]) for i in range(len(D)) for j in range(len(D)))
    return mi, kl_ind


def post_processing(seed: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``(KL(f(A(z1)) || f(A(z2))), KL(A(z1) || A(z2)))`` for the first two inputs of :func:`finite_instance`."""
    _D, A, f = finite_instance(seed)
    return _kl(_push(A[0], f), _push(A[1], f)), _kl(A[0], A[1])


#: entry id -> (instance function, which of its two values is the claimed bound)
FINITE_CHECKS: dict[str, Any] = {
    "wang2016.lemma14_mi_le_kl": mutual_information,
    "wang2016.lemma5_post_processing": post_processing,
}


def _map_finite(th: Any) -> Any:
    """``lhs <= rhs`` of an information inequality on random finite instances: the sampled parameter is the
    instance's seed; ``f_true`` is the bounded quantity, ``f_claim`` the bound, both of the same instance."""
    fn = FINITE_CHECKS.get(th.id)
    if fn is None:
        return f"no finite-instance model for {th.id}"
    seed = sp.Symbol("instance_seed", positive=True, integer=True)

    def f_claim(pt: Any) -> mpmath.mpf:
        return fn(int(pt[seed.name]))[1]

    def f_true(pt: Any) -> mpmath.mpf:
        return fn(int(pt[seed.name]))[0]

    return f_claim, f_true, "<=", {seed}, {seed.name: (1.0, 1e6)}


register(Oracle(
    "finite_instances", lambda **_: mpmath.mpf("nan"), "value", (),
    "an information inequality checked exactly (30 digits) on random finite instances (priors, channels and "
    "post-processing kernels with <= 6 atoms, sparse Dirichlet); the point is the instance's seed "
    "(symdp.verify.oracles_examples.finite_instance)",
    mapper=_map_finite,
))
assign("finite_instances", *FINITE_CHECKS)


# ---------------------------------------------------------------------------
# amplification by Poisson subsampling (Balle, Barthe, Gaboardi 2018), exactly on the dominating pair
# ---------------------------------------------------------------------------


def poisson_subsampled_delta(*, epsilon: Any, delta: Any, q: Any, at: Any) -> mpmath.mpf:
    r"""Exact ``delta(at)`` of an (eps, delta)-DP mechanism run on a Poisson q-subsample, neighbouring by adding or
    removing one record, worst case over mechanisms: ``P`` (with the record) and ``Q`` (without) are the KOV pair
    (every (eps, delta)-DP pair is a post-processing of it, applied to both mixtures alike), the subsampled pair is
    ``(q P + (1 - q) Q, Q)``; the larger hockey-stick divergence of the two directions at ``e^at``."""
    from .oracles import hockey_stick, kov_pair

    qq = _mpf(q)
    P, Q = kov_pair(epsilon, delta)
    mix = [qq * a + (1 - qq) * b for a, b in zip(P, Q, strict=True)]
    return max(hockey_stick(mix, Q, at), hockey_stick(Q, mix, at))


def _map_poisson(th: Any) -> Any:
    """The pair claim ``M o Sample_q is (eps_sub, delta_sub)-DP`` of the conclusion: exact delta at eps_sub <= delta_sub."""
    from .compile import compile_expr

    conc = th.conclusion
    if conc is None or conc.name.upper() not in ("DP", "ADP") or len(conc.params) != 2:
        return "no (eps, delta)-DP conclusion"
    at_e, d_e = (sp.sympify(x) for x in conc.params)
    f_at, f_d = compile_expr(at_e), compile_expr(d_e)

    def f_true(pt: Any) -> mpmath.mpf:
        return poisson_subsampled_delta(epsilon=pt["epsilon"], delta=pt["delta"], q=pt["q"], at=f_at(pt))

    syms = at_e.free_symbols | d_e.free_symbols
    return f_d, f_true, "<=", syms


register(Oracle(
    "poisson_subsampled_kov", lambda **kw: poisson_subsampled_delta(**kw), "profile", ("epsilon", "delta", "q", "at"),
    "exact delta(eps') of an (eps, delta)-DP mechanism on a Poisson q-subsample (add/remove), worst case over "
    "mechanisms (the subsampled KOV pair, both directions)",
    mapper=_map_poisson,
))
assign("poisson_subsampled_kov", "bridge.bbg2018_poisson_eps", "bridge.bbg2018_poisson_delta")


__all__ = ["laplace_mean_dp", "linreg_dp_lower", "coupling_distance", "coupling_lemma_distance", "rr_loss_tail", "azuma_rademacher_tail",
           "gaussian_zcdp", "rr_approx_max_information_nats",
           "finite_instance", "mutual_information", "post_processing", "poisson_subsampled_delta",
           "CHERNOFF_STEP", "rr_pure_max_information_bits", "rr_approx_max_information_bits",
           "RR_PRIOR_P"]
