r"""Oracles: the TRUE value of a bounded quantity at concrete parameters (mpmath).

An entry names its oracle in ``Theorem.oracle``; the verifier compares the
entry's claimed value with the oracle's.  Every oracle is a function of
keyword arguments named like the canonical symbols (``epsilon``, ``delta``,
``T``, ``mu``, ``sigma``, ``q``, ``Delta``, ``b``, ``epsilonprime``, ...);
extra arguments are ignored.

Two shapes:

* ``"value"`` oracles return the true value of the bounded quantity (e.g. the
  supremum of the KL divergence over eps-DP pairs).
* ``"profile"`` oracles return the (optimal) privacy profile
  :math:`\delta(\varepsilon')` of a mechanism, evaluated at ``at``; an entry
  whose conclusion is ``(eps', delta')``-DP is checked as
  ``profile(at=eps') <= delta'``.

Oracles whose value has a closed form carry it as ``Oracle.exact`` (a SymPy
expression in the same keyword arguments): the engine proves claims against
it (SymPy identity for a claim that equals it, z3 or an interval certificate
for a strict or loose bound), after re-checking it against the numeric oracle
at sample points; the tests compare each with its oracle at random points.

References (checked here by independent computations, see the tests):

* randomized response KL :math:`\varepsilon\tanh(\varepsilon/2)`; it is the
  supremum over eps-DP pairs (chord bound on :math:`y\log y`, see
  :func:`kl_reduction_smt`).
* [Kairouz, Oh, Viswanath 2017, Thm 3.3] optimal composition.
* [Balle and Wang 2018, Thm 8] Gaussian privacy profile.
* Laplace profile :math:`1 - e^{(\varepsilon - \Delta/b)/2}`.

>>> from symdp.verify.oracles import get_oracle
>>> float(get_oracle("kl_eps_dp")(epsilon=1))  # doctest: +ELLIPSIS
0.46211715726...
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ..errors import InvalidParameterError, UnsupportedError
from .registry import ORACLES, TRADEOFF_COMPANION, Oracle, get_oracle, register

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
    keep = (1 - d) ** Ti
    return (1 - keep) + keep * s


def optimal_composition_hetero(steps: Sequence[tuple[Any, Any]], at: Any) -> mpmath.mpf:
    """Optimal delta'(at) for the composition of heterogeneous (eps_i, delta_i)-DP steps.

    Convolves the KOV worst-case pairs exactly (finite supports); cost grows
    with the number of distinct losses, fine for a few dozen steps.
    """
    dist: dict[mpmath.mpf, mpmath.mpf] = {mpmath.mpf(0): mpmath.mpf(1)}  # loss -> P-mass (finite part)
    inf_mass = mpmath.mpf(0)
    keep = mpmath.mpf(1)
    for e, d in steps:
        e, d = _mpf(e), _mpf(d)
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        keep *= 1 - d
        new: dict[mpmath.mpf, mpmath.mpf] = {}
        for loss, m in dist.items():
            for l2, w in ((loss + e, p), (loss - e, 1 - p)):
                key = mpmath.mpf(mpmath.nstr(l2, mp.dps))  # merge equal losses up to round-off
                new[key] = new.get(key, mpmath.mpf(0)) + m * w
        dist = new
    inf_mass = 1 - keep
    ep = _mpf(at)
    s = mpmath.fsum(m * -mpmath.expm1(ep - loss) for loss, m in dist.items() if loss > ep)
    return inf_mass + keep * s


register(
    Oracle(
        "optimal_composition",
        optimal_composition,
        "profile",
        ("epsilon", "delta", "T", "at"),
        "exact optimal delta'(eps') of T identical (eps, delta)-DP steps [Kairouz, Oh, Viswanath 2017]",
        aliases={"at": ("epsilonprime",)},
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


# ---------------------------------------------------------------------------
# Gaussian and Laplace mechanisms
# ---------------------------------------------------------------------------


def _gauss_mu(kw: dict[str, Any]) -> mpmath.mpf:
    mu = _pick(kw, "mu", "r")
    if mu is not None:
        return _mpf(mu)
    sigma = _pick(kw, "sigma")
    if sigma is None:
        raise InvalidParameterError("gaussian_profile needs mu, or sigma (and optionally Delta)")
    return _mpf(_pick(kw, "Delta", "C", default=1)) / _mpf(sigma)


def gaussian_profile(*, at: Any, **kw: Any) -> mpmath.mpf:
    r"""Exact privacy profile of the Gaussian mechanism (mu = Delta/sigma) [Balle and Wang 2018, Thm 8].

    :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon\Phi(-\varepsilon/\mu - \mu/2)`.
    """
    mu = _gauss_mu(kw)
    e = _mpf(at)
    return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)


def _gauss_mu_sym(kw: dict[str, Any]) -> sp.Expr | None:
    mu = _sym_pick(kw, "mu", "r")
    if mu is not None:
        return mu
    sigma = _sym_pick(kw, "sigma")
    if sigma is None:
        return None
    return _sym_pick(kw, "Delta", "C", default=sp.Integer(1)) / sigma


def gaussian_profile_exact(*, at: Any, **kw: Any) -> sp.Expr | None:
    """:func:`gaussian_profile` in closed form: ``Phi(-at/mu + mu/2) - exp(at) Phi(-at/mu - mu/2)`` (SymPy)."""
    mu = _gauss_mu_sym(kw)
    if mu is None:
        return None
    e = sp.sympify(at)
    return Phi(-e / mu + mu / 2) - sp.exp(e) * Phi(-e / mu - mu / 2)


def laplace_profile_exact(*, at: Any, **kw: Any) -> sp.Expr | None:
    """:func:`laplace_profile` in closed form: ``Max(0, 1 - exp((at - Delta/b)/2))`` (SymPy)."""
    b = _sym_pick(kw, "b")
    if b is None:
        return None
    r = _sym_pick(kw, "Delta", default=sp.Integer(1)) / b
    return sp.Max(0, 1 - sp.exp((sp.sympify(at) - r) / 2))


def laplace_profile(*, at: Any, **kw: Any) -> mpmath.mpf:
    r"""Exact privacy profile of the Laplace mechanism: :math:`1 - e^{(\varepsilon - \Delta/b)/2}` for
    :math:`\varepsilon \le \Delta/b`, else 0."""
    b = _pick(kw, "b")
    if b is None:
        raise InvalidParameterError("laplace_profile needs the scale b")
    r = _mpf(_pick(kw, "Delta", default=1)) / _mpf(b)
    e = _mpf(at)
    if e >= r:
        return mpmath.mpf(0)
    return -mpmath.expm1((e - r) / 2)


register(
    Oracle(
        "gaussian_profile",
        gaussian_profile,
        "profile",
        ("mu", "at"),
        "exact delta(eps) of the Gaussian mechanism, mu = Delta/sigma [Balle and Wang 2018, Thm 8]",
        aliases={"mu": ("sigma",), "at": ("epsilon", "epsilonprime")},
        exact=gaussian_profile_exact,
        exact_note="Gaussian privacy profile delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), "
        "mu = Delta/sigma [Balle and Wang 2018, Thm 8], Phi(x) = erfc(-x/sqrt(2))/2",
    )
)
register(
    Oracle(
        "laplace_profile",
        laplace_profile,
        "profile",
        ("b", "at"),
        "exact delta(eps) of the Laplace mechanism with sensitivity Delta and scale b",
        aliases={"at": ("epsilon", "epsilonprime")},
        exact=laplace_profile_exact,
        exact_note="Laplace privacy profile delta(eps) = max(0, 1 - e^((eps - Delta/b)/2))",
    )
)


# ---------------------------------------------------------------------------
# Poisson-subsampled Gaussian, T-fold (privacy loss distribution with a bracket)
# ---------------------------------------------------------------------------


def _subsampled_pld(q: float, sigma: float, h: float, direction: str, tail: float = 1e-14):
    """Per-step privacy-loss PMFs on the grid h*Z (rounded up and down) and the dropped P-tail mass.

    ``direction="remove"``: P = (1-q)N(0,s^2) + qN(1,s^2), Q = N(0,s^2);
    ``"add"``: the reverse.  The loss is monotone in x, so each grid cell of
    the loss maps to an x-interval whose P-mass is a difference of normal CDFs.
    """
    from scipy.special import ndtr, ndtri

    s2 = sigma * sigma
    lo_x = min(ndtri(tail / 2) * sigma, 1 + ndtri(tail / 2) * sigma)
    hi_x = max(-ndtri(tail / 2) * sigma, 1 - ndtri(tail / 2) * sigma)
    xs = np.linspace(lo_x, hi_x, 200001)

    def loss(x):
        z = (2 * x - 1) / (2 * s2)
        return np.logaddexp(np.log1p(-q), np.log(q) + z) if q < 1 else z

    def pcdf(x):
        if direction == "remove":
            return (1 - q) * ndtr(x / sigma) + q * ndtr((x - 1) / sigma)
        return ndtr(x / sigma)

    Lx = loss(xs) if direction == "remove" else -loss(xs)
    cdf = pcdf(xs)
    mass = np.diff(cdf)
    dropped = float(cdf[0] + (1 - cdf[-1]))
    # each x-cell [x_i, x_{i+1}] has loss between its endpoint losses (monotone)
    l_hi = np.maximum(Lx[:-1], Lx[1:])
    l_lo = np.minimum(Lx[:-1], Lx[1:])
    up = np.ceil(l_hi / h).astype(np.int64)
    dn = np.floor(l_lo / h).astype(np.int64)
    return up, dn, mass, dropped


def _compose_pmf(idx: np.ndarray, mass: np.ndarray, T: int) -> tuple[int, np.ndarray]:
    lo = int(idx.min())
    pmf = np.bincount(idx - lo, weights=mass)
    n = (len(pmf) - 1) * T + 1
    size = 1 << (n - 1).bit_length()
    f = np.fft.rfft(pmf, size)
    out = np.fft.irfft(f**T, size)[:n]
    return lo * T, np.clip(out, 0.0, None)


def _hs_from_pmf(offset: int, pmf: np.ndarray, h: float, eps: float) -> float:
    losses = (offset + np.arange(len(pmf))) * h
    sel = losses > eps
    return float(np.sum(pmf[sel] * -np.expm1(eps - losses[sel])))


def subsampled_gaussian_bracket(*, q: Any = None, sigma: Any, T: Any, at: Any, h: float | None = None, **kw: Any):
    r"""Rigorous-up-to-float64 bracket ``(lower, upper)`` of the optimal delta(at) of T Poisson-subsampled
    Gaussian steps (sensitivity 1), worse of the add and remove directions.

    Losses are rounded up (upper) / down (lower) to a grid of width ``h`` —
    pointwise monotone, so the hockey-stick functional is bracketed — and the
    dropped normal tails are charged in full to the upper bound.  FFT round-off
    (~1e-13 relative) is charged to both ends.
    """
    if q is None:
        q = kw.get("p")  # the alias p (Bu et al.'s sampling rate) of q
    if q is None:
        raise InvalidParameterError("subsampled_gaussian_bracket needs the sampling rate q (or p)")
    qf, sf, Ti, e = float(q), float(sigma), int(T), float(at)
    if not (0 < qf <= 1):
        raise InvalidParameterError(f"q={q!r} is outside the allowed range (0, 1]")
    if Ti < 1 or Ti > 20000:
        raise UnsupportedError(f"T={T!r}: the subsampled-Gaussian bracket supports 1 <= T <= 20000")
    h = h or min(1e-3, 0.05 / math.sqrt(Ti))
    lows, ups = [], []
    for direction in ("remove", "add"):
        up, dn, mass, dropped = _subsampled_pld(qf, sf, h, direction)
        ou, pu = _compose_pmf(up, mass, Ti)
        od, pd = _compose_pmf(dn, mass, Ti)
        slack = 1e-12 * Ti
        ups.append(_hs_from_pmf(ou, pu, h, e) + 1 - (1 - dropped) ** Ti + slack)
        lows.append(max(0.0, _hs_from_pmf(od, pd, h, e) - slack))
    return mpmath.mpf(max(lows)), mpmath.mpf(max(ups))


def subsampled_gaussian_profile(**kw: Any) -> mpmath.mpf:
    """Upper end of :func:`subsampled_gaussian_bracket` (the pessimistic value)."""
    return subsampled_gaussian_bracket(**kw)[1]


register(
    Oracle(
        "subsampled_gaussian_profile",
        subsampled_gaussian_profile,
        "profile",
        ("q", "sigma", "T", "at"),
        "delta(eps) of T Poisson-subsampled Gaussian steps, both directions, PLD bracket",
        bracket=subsampled_gaussian_bracket,
        aliases={"at": ("epsilonprime", "epsilon"), "q": ("p",)},
    )
)


# ---------------------------------------------------------------------------
# f-DP trade-off functions
# ---------------------------------------------------------------------------


def tradeoff_of_pair(P: Sequence[Any], Q: Sequence[Any], alpha: Any) -> mpmath.mpf:
    r"""Trade-off function :math:`T(P, Q)(\alpha)`: the smallest type-II error of a (randomised)
    test of P vs Q with type-I error at most alpha (Neyman-Pearson: reject where Q/P is largest)."""
    a = _mpf(alpha)
    atoms = sorted(zip(P, Q), key=lambda pq: -(mpmath.inf if pq[0] == 0 else pq[1] / pq[0]))
    budget = a
    power = mpmath.mpf(0)
    for p, qq in atoms:
        if p <= budget:
            budget -= p
            power += qq
        else:
            power += qq * budget / p
            budget = mpmath.mpf(0)
            break
    return max(mpmath.mpf(0), 1 - power)


def compose_pairs(pairs: Sequence[tuple[Sequence[Any], Sequence[Any]]]):
    """Product distributions of independent discrete pairs (support sizes multiply)."""
    P, Q = [mpmath.mpf(1)], [mpmath.mpf(1)]
    for p2, q2 in pairs:
        P = [a * b for a in P for b in p2]
        Q = [a * b for a in Q for b in q2]
    return P, Q


def tradeoff_dp_composition(*, epsilon: Any, delta: Any = 0, T: Any = 1, alpha: Any, **_: Any) -> mpmath.mpf:
    r"""Trade-off function of the T-fold composition of :math:`f_{\varepsilon,\delta}` at alpha,
    computed from the product of KOV pairs (exact, small T)."""
    Ti = int(T)
    if Ti > 12:
        raise UnsupportedError(f"T={T!r}: tradeoff_dp_composition enumerates 4^T atoms; T <= 12")
    P, Q = compose_pairs([kov_pair(epsilon, delta)] * Ti)
    return tradeoff_of_pair(P, Q, alpha)


def gaussian_tradeoff(*, mu: Any, alpha: Any, **_: Any) -> mpmath.mpf:
    r""":math:`G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)`."""
    a = _mpf(alpha)
    if a <= 0:
        return mpmath.mpf(1)
    if a >= 1:
        return mpmath.mpf(0)
    z = -mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)  # Phi^{-1}(1 - a)
    return mpmath.ncdf(z - _mpf(mu))


register(
    Oracle(
        "tradeoff_dp_composition",
        tradeoff_dp_composition,
        "value",
        ("epsilon", "alpha"),
        "trade-off function of T composed f_{eps,delta} (exact, product of KOV pairs, T <= 12)",
    )
)
def gaussian_tradeoff_exact(*, mu: Any, alpha: Any, **_: Any) -> sp.Expr:
    """:func:`gaussian_tradeoff` in closed form (SymPy), for 0 < alpha < 1."""
    return Phi(Phi_inv(1 - sp.sympify(alpha)) - sp.sympify(mu))


register(Oracle("gaussian_tradeoff", gaussian_tradeoff, "value", ("mu", "alpha"), "G_mu(alpha) = Phi(Phi^-1(1-alpha) - mu)",
                exact=gaussian_tradeoff_exact,
                exact_note="G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu) (0 < alpha < 1), Phi^-1(u) = sqrt(2) erfinv(2u - 1)"))




# ---------------------------------------------------------------------------
# one subsampled-Gaussian step: hockey-stick by quadrature; subsampled trade-off
# ---------------------------------------------------------------------------


def sgm_hockey_stick(*, q: Any, sigma: Any, epsilon: Any, direction: str = "remove", **_: Any) -> mpmath.mpf:
    r"""Hockey-stick divergence :math:`\int (p - e^\varepsilon q)_+` of one Poisson-subsampled Gaussian
    step (sensitivity 1) by adaptive quadrature, split at the root of the privacy loss (found numerically).

    ``direction="remove"``: P = (1-q)N(0,s^2) + qN(1,s^2), Q = N(0,s^2); ``"add"``: the reverse.
    """
    qq, s, e = _mpf(q), _mpf(sigma), _mpf(epsilon)
    ee = mpmath.exp(e)

    def npdf(x, m):
        return mpmath.npdf(x, m, s)

    def mix(x):
        return (1 - qq) * npdf(x, 0) + qq * npdf(x, 1)

    if direction == "remove":
        P, Q = mix, (lambda x: npdf(x, 0))
    elif direction == "add":
        P, Q = (lambda x: npdf(x, 0)), mix
    else:
        raise InvalidParameterError(f"direction={direction!r} must be 'add' or 'remove'")

    def g(x):
        return P(x) - ee * Q(x)

    # g changes sign once (the loss is monotone in x): bracket the root on a wide grid
    grid = [mpmath.mpf(k) / 4 * s + mpmath.mpf(1) / 2 for k in range(-400, 401)]
    signs = [g(x) > 0 for x in grid]
    root = None
    for a, b, sa, sb in zip(grid, grid[1:], signs, signs[1:]):
        if sa != sb:
            root = mpmath.findroot(g, (a, b), solver="anderson")
            break
    if root is None:
        if all(signs):
            return mpmath.quad(g, [-mpmath.inf, mpmath.inf])
        return mpmath.mpf(0)
    if direction == "remove":
        return mpmath.quad(g, [root, root + 20 * s, mpmath.inf])
    return mpmath.quad(g, [-mpmath.inf, root - 20 * s, root])


def sgm_hockey_stick_exact(*, q: Any, sigma: Any, epsilon: Any, direction: str = "remove", **_: Any) -> sp.Expr | None:
    r"""Closed form of :func:`sgm_hockey_stick` for ``direction="remove"`` (SymPy): the loss exceeds eps exactly
    for :math:`x > x_0 = \sigma^2\log((e^arepsilon - 1 + q)/q) + 1/2`, so the hockey-stick is
    :math:`(1-q)\Phi(-x_0/\sigma) + q\Phi((1 - x_0)/\sigma) - e^arepsilon\Phi(-x_0/\sigma)`.  None for "add"."""
    if direction != "remove":
        return None
    qq, s, e = (sp.sympify(v) for v in (q, sigma, epsilon))
    x0 = s**2 * sp.log((sp.exp(e) - 1 + qq) / qq) + sp.Rational(1, 2)
    return (1 - qq) * Phi(-x0 / s) + qq * Phi((1 - x0) / s) - sp.exp(e) * Phi(-x0 / s)


def sgm_pld_exact(*, _lhs: str = "", **kw: Any) -> sp.Expr | None:
    direction = "add" if "add" in _lhs.lower() else "remove"
    return sgm_hockey_stick_exact(direction=direction, **kw)


def sgm_pld(*, _lhs: str = "", **kw: Any) -> mpmath.mpf:
    """Value oracle of one subsampled-Gaussian step's hockey-stick; the direction comes from the
    quantity's name (``..._add`` / ``..._remove``)."""
    direction = "add" if "add" in _lhs.lower() else "remove"
    return sgm_hockey_stick(direction=direction, **kw)


register(
    Oracle(
        "sgm_pld",
        sgm_pld,
        "value",
        ("q", "sigma", "epsilon"),
        "hockey-stick divergence of one Poisson-subsampled Gaussian step (quadrature), add or remove",
        rtol="1e-12",
        exact=sgm_pld_exact,
        exact_note="remove direction: the privacy loss is increasing in x and exceeds eps for x > x0 = "
        "sigma^2 log((e^eps - 1 + q)/q) + 1/2, so H = (1-q) Phi(-x0/sigma) + q Phi((1-x0)/sigma) - e^eps Phi(-x0/sigma)",
    )
)


def subsampled_gaussian_tradeoff(*, p: Any, mu: Any, alpha: Any, **_: Any) -> mpmath.mpf:
    r"""Trade-off :math:`T(N(0,1), (1-p)N(0,1) + pN(\mu,1))(\alpha)` by quadrature: the Neyman-Pearson
    test rejects for :math:`x > t`, :math:`t = \Phi^{-1}(1 - \alpha)`; type-II error is the mixture's
    mass below t (integrated numerically, not via the closed form)."""
    a, pp, m = _mpf(alpha), _mpf(p), _mpf(mu)
    t = -mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)
    f = lambda x: (1 - pp) * mpmath.npdf(x) + pp * mpmath.npdf(x, m)  # noqa: E731
    return mpmath.quad(f, [-mpmath.inf, min(t, m) - 1, t])


def subsampled_gaussian_tradeoff_exact(*, p: Any, mu: Any, alpha: Any, **_: Any) -> sp.Expr:
    """:func:`subsampled_gaussian_tradeoff` in closed form (SymPy): the mixture's mass below the
    Neyman-Pearson threshold ``t = Phi^-1(1 - alpha)``, ``(1 - p) Phi(t) + p Phi(t - mu)``."""
    t = Phi_inv(1 - sp.sympify(alpha))
    pp = sp.sympify(p)
    return (1 - pp) * Phi(t) + pp * Phi(t - sp.sympify(mu))


register(
    Oracle(
        "subsampled_gaussian_tradeoff",
        subsampled_gaussian_tradeoff,
        "value",
        ("p", "mu", "alpha"),
        "trade-off function of one Poisson-subsampled Gaussian (mu) step, quadrature",
        rtol="1e-12",
        exact=subsampled_gaussian_tradeoff_exact,
        exact_note="the likelihood ratio of (1-p)N(0,1) + pN(mu,1) to N(0,1) increases in x, so the Neyman-Pearson test "
        "at level alpha rejects for x > t = Phi^-1(1 - alpha); its type-II error is the mixture's mass below t, "
        "(1 - p) Phi(t) + p Phi(t - mu)",
    )
)

# ---------------------------------------------------------------------------
# Renyi divergence of the Gaussian mechanism (quadrature)
# ---------------------------------------------------------------------------


def gaussian_rdp(*, alpha: Any, sigma: Any, Delta: Any = 1, **_: Any) -> mpmath.mpf:
    r""":math:`D_\alpha(N(\Delta, \sigma^2) \| N(0, \sigma^2)) = \frac{1}{\alpha - 1}\log\int p^\alpha q^{1-\alpha}`
    by adaptive quadrature of the integrand itself (no completed square), split around its peak
    :math:`x = \alpha\Delta`."""
    a, s, m = _mpf(alpha), _mpf(sigma), _mpf(Delta)
    if a <= 1:
        raise InvalidParameterError(f"alpha={alpha!r} must be > 1")
    if s <= 0:
        raise InvalidParameterError(f"sigma={sigma!r} must be > 0")
    lp = lambda x: -((x - m) ** 2) / (2 * s * s)  # noqa: E731  (log densities up to the common constant)
    lq = lambda x: -(x * x) / (2 * s * s)  # noqa: E731
    c = a * m  # the integrand's peak
    shift = a * lp(c) + (1 - a) * lq(c)  # factor out the peak value (exp of a large number)
    f = lambda x: mpmath.exp(a * lp(x) + (1 - a) * lq(x) - shift) / (mpmath.sqrt(2 * mpmath.pi) * s)  # noqa: E731
    pts = [c + k * s for k in (-40, -8, -2, 0, 2, 8, 40)]
    integral = mpmath.quad(f, [-mpmath.inf, *pts, mpmath.inf])
    return (mpmath.log(integral) + shift) / (a - 1)


register(
    Oracle(
        "gaussian_rdp",
        gaussian_rdp,
        "value",
        ("alpha", "sigma"),
        "Renyi divergence D_alpha(N(Delta, s^2) || N(0, s^2)) by quadrature",
        rtol="1e-15",
        exact=lambda *, alpha, sigma, Delta=1, **_: sp.sympify(alpha) * sp.sympify(Delta) ** 2 / (2 * sp.sympify(sigma) ** 2),
        exact_note="D_alpha(N(Delta, s^2) || N(0, s^2)) = alpha Delta^2/(2 s^2) (complete the square in the integrand)",
    )
)



__all__ = [
    "Oracle", "ORACLES", "register", "get_oracle", "kl_eps_dp", "kl", "hockey_stick", "is_dp_pair", "kov_pair",
    "random_dp_pair", "optimal_composition", "optimal_composition_hetero", "gaussian_profile", "laplace_profile",
    "subsampled_gaussian_bracket", "subsampled_gaussian_profile", "tradeoff_of_pair", "compose_pairs",
    "tradeoff_dp_composition", "gaussian_tradeoff", "sgm_hockey_stick", "sgm_pld",
    "subsampled_gaussian_tradeoff", "TRADEOFF_COMPANION", "gaussian_rdp", "Phi", "Phi_inv", "gaussian_profile_exact",
    "laplace_profile_exact", "gaussian_tradeoff_exact", "subsampled_gaussian_tradeoff_exact", "sgm_hockey_stick_exact",
]
