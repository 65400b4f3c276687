r"""Accountants over mechanism descriptions: ``tight`` (privacy loss distributions) and ``rdp``.

A mechanism (:mod:`symdp.mechanisms`) says *what ran*; an accountant evaluates it.  Each accountant
has ``supports(mechanism)`` -- a dry run that computes nothing and changes nothing, returning the
list of unsupported sub-mechanisms and why (empty: supported) -- and ``epsilon`` / ``delta``, which
validate everything first and raise :class:`~symdp.errors.UnsupportedError` naming the offending
part before any arithmetic.

>>> from symdp.mechanisms import Laplace, Composed, dp_sgd, RandomizedResponse
>>> m = Composed((Laplace(1.0, 1.0), RandomizedResponse(0.5), dp_sgd(1.1, 0.01, 100)))
>>> tight.supports(m)
[]
>>> r = tight.epsilon(m, delta=1e-5)
>>> r.is_upper_bound and r.lower <= r.epsilon
True

**tight** (pessimistic privacy loss distributions, both directions of add/remove adjacency).
Every base mechanism is given by a dominating pair ``(P, Q)`` through the survival functions of its
privacy loss ``L = log dP/dQ`` under ``P`` and under ``Q``; the pair is discretised on the grid
``ell = j h`` by connect-the-dots (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022; helper of
:mod:`symdp.accountants.pld`), which keeps the P- and Q-mass of every interval and so dominates the
true pair; the upper tail beyond the range goes to ``+inf`` and the lower tail is rounded up.
Parts are composed by :func:`symdp.accountants.pld.compose` (FFT, certified tails); the reported
epsilon is the max over the two directions.  Pairs used:

* Gaussian: ``N(mu, 1)`` vs ``N(0, 1)``, ``mu = sensitivity / sigma`` (exact);
* Laplace: ``Lap(sensitivity, b)`` vs ``Lap(0, b)`` (exact, atoms at ``+-eps``);
* randomized response, discrete Laplace, discrete Gaussian: the exact finite (or enumerated,
  tails to ``+inf``) loss distributions;
* (eps, delta) black box and exponential mechanism: the (eps, delta)-DP dominating pair of Kairouz,
  Oh, Viswanath 2015 (tight for the black box; for the exponential mechanism it uses only that an
  eps-bounded-range mechanism is eps-DP: an upper bound, not tight);
* mixture of Gaussians (user-level DP-SGD): ``sum p_i N(c_i, s^2)`` vs ``N(0, s^2)`` and reverse;
* Poisson subsampling (add/remove): ``(q P + (1-q) Q, Q)`` and ``(Q, q P + (1-q) Q)`` (Zhu, Dong,
  Wang 2022, Thm 10) for symmetric base pairs; replace-one adjacency (Poisson or fixed-size
  sampling without replacement): the same two pairs, where the base mechanism's ``sensitivity`` is
  its replace-one sensitivity (ZDW 2022 Thm 11; Balle, Barthe, Gaboardi 2018);
* zCDP black boxes have no dominating pair: unsupported here, use ``rdp``.

**rdp** (Renyi DP curves, summed over the composition, converted with the CKS bound of
:mod:`symdp.accountants.rdp`): Gaussian ``alpha mu^2 / 2``; Laplace (Mironov 2017, Prop. 6);
randomized response (exact divergence of its pair); pure DP (the eps-DP pair's divergence, the
largest any eps-DP mechanism has); discrete Gaussian ``alpha mu^2 / 2`` (Canonne, Kamath, Steinke
2020, Prop. 3 gives this zCDP bound); exponential mechanism ``min(pure-DP curve, alpha eps^2 / 8)``
(Cesar, Rogers 2021); zCDP ``alpha rho``; Poisson-subsampled Gaussian and fixed-size-sampled
Gaussian through :func:`symdp.accountants.rdp.sgm_rdp` / :func:`~symdp.accountants.rdp.wor_rdp`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _special as sps
from ..errors import ConvergenceError, InvalidTypeError, UnsupportedError
from ..mechanisms import (
    ZCDP,
    ApproxDPBlackBox,
    Composed,
    DiscreteGaussian,
    DiscreteLaplace,
    ExponentialMechanism,
    Gaussian,
    Laplace,
    Mechanism,
    MixtureOfGaussians,
    RandomizedResponse,
    SelfComposed,
    Subsampled,
)
from ..validation import check_probability, check_real
from . import pld as _pld
from . import rdp as _rdp

_U = float(np.finfo(float).eps)
_TAIL = 1e-16  # default per-step P-mass left outside the discretised range (sent to +inf: counted in delta)
_TARGET_REL = 1e-3  # refine the grid until the Richardson estimate of the discretisation error is below this


@dataclass(frozen=True)
class MechanismResult:
    """An accountant's answer for one mechanism.

    ``epsilon`` (or ``delta``) is an upper bound when ``is_upper_bound``; ``lower`` / ``upper`` bracket
    the true value where the method gives a bracket (``lower`` from the optimistic discretisation is an
    estimate from below, not certified); ``notes`` name what was not tight.
    """

    epsilon: float
    delta: float
    accountant: str
    is_upper_bound: bool
    lower: float
    upper: float
    notes: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- flattening and support
def _flatten(m: Mechanism, count: int, out: list[tuple[Mechanism, int]]) -> None:
    if isinstance(m, SelfComposed):
        _flatten(m.mechanism, count * m.steps, out)
    elif isinstance(m, Composed):
        for p in m.parts:
            _flatten(p, count, out)
    else:
        out.append((m, count))


def _parts(m: Mechanism) -> list[tuple[Mechanism, int]]:
    if not isinstance(m, Mechanism):
        raise InvalidTypeError(f"mechanism must be a symdp.mechanisms.Mechanism, got {type(m).__name__}")
    out: list[tuple[Mechanism, int]] = []
    _flatten(m, 1, out)
    merged: dict[Mechanism, int] = {}
    mu2 = 0.0
    for p, c in out:  # equal parts compose by one power in the FFT
        if isinstance(p, Gaussian):  # Gaussian mechanisms compose exactly: N(mu_tot) with mu_tot^2 = sum c mu^2
            mu2 += c * (p.sensitivity / p.sigma) ** 2
            continue
        merged[p] = merged.get(p, 0) + c
    if mu2 > 0:
        merged[Gaussian(math.sqrt(mu2), 1.0)] = 1
    return list(merged.items())


_PAIR_BASES = (Gaussian, Laplace, RandomizedResponse, ApproxDPBlackBox, DiscreteGaussian, DiscreteLaplace, ExponentialMechanism)


def _tight_reason(m: Mechanism) -> str | None:
    if isinstance(m, ZCDP):
        return "a zCDP black box has no dominating pair of distributions (no PLD); use the rdp accountant"
    if isinstance(m, Subsampled):
        if m.scheme == "without_replacement" and m.adjacency == "add_remove":
            return ("fixed-size sampling without replacement is analysed under replace-one adjacency "
                    "(adding or removing a record changes the sampling rate); use adjacency='replace_one'")
        if not isinstance(m.mechanism, _PAIR_BASES):
            return (f"subsampling of {type(m.mechanism).__name__} is not supported by the tight accountant "
                    "(the amplification theorem used needs a symmetric dominating pair of a base mechanism)")
        return None
    if isinstance(m, (*_PAIR_BASES, MixtureOfGaussians)):
        if isinstance(m, DiscreteGaussian) and m.sigma > 1e5:
            return f"sigma={m.sigma!r} is too large to enumerate the discrete Gaussian (allowed: <= 1e5)"
        if isinstance(m, DiscreteLaplace) and m.sensitivity > 10**6:
            return f"sensitivity={m.sensitivity!r} is too large to enumerate (allowed: <= 1e6)"
        if isinstance(m, MixtureOfGaussians) and any(c < 0 for c in m.sensitivities):
            return "negative sensitivities are not supported"
        return None
    return f"{type(m).__name__} is not a mechanism the tight accountant knows"


def _rdp_reason(m: Mechanism) -> str | None:
    if isinstance(m, ApproxDPBlackBox) and m.delta > 0:
        return "an (eps, delta)-DP black box with delta > 0 has no finite Renyi divergence; use the tight accountant"
    if isinstance(m, MixtureOfGaussians):
        return "the mixture of Gaussians is not covered by the RDP accountant; use the tight accountant"
    if isinstance(m, Subsampled):
        if not isinstance(m.mechanism, Gaussian):
            return (f"RDP amplification by subsampling is implemented for the Gaussian mechanism only, "
                    f"not {type(m.mechanism).__name__}; use the tight accountant")
        if m.scheme == "poisson" and m.adjacency != "add_remove":
            return "Poisson-subsampled RDP is implemented for add/remove adjacency (Mironov, Talwar, Zhang 2019)"
        if m.scheme == "without_replacement" and m.adjacency != "replace_one":
            return "fixed-size sampling RDP is for replace-one adjacency (Wang, Balle, Kasiviswanathan 2019)"
        return None
    if isinstance(m, (Gaussian, Laplace, RandomizedResponse, ApproxDPBlackBox, DiscreteGaussian, DiscreteLaplace,
                      ExponentialMechanism, ZCDP)):
        return None
    return f"{type(m).__name__} is not a mechanism the RDP accountant knows"


def _supports(m: Mechanism, reason: Callable[[Mechanism], str | None]) -> list[tuple[Mechanism, str]]:
    return [(p, r) for p, _ in _parts(m) if (r := reason(p)) is not None]


def _require(m: Mechanism, reason: Callable[[Mechanism], str | None], name: str) -> list[tuple[Mechanism, int]]:
    parts = _parts(m)
    bad = [(p, r) for p, _ in parts if (r := reason(p)) is not None]
    if bad:
        p, r = bad[0]
        raise UnsupportedError(f"accountant {name!r} does not support {p!r}: {r}")
    return parts


# ---------------------------------------------------------------- dominating pairs (tight)
@dataclass(frozen=True)
class _Pair:
    """A dominating pair by its privacy loss: ``sp(l) = P(l < L < inf)``, ``sq(l) = Q(L > l)`` for finite l."""

    sp: Callable[[np.ndarray], np.ndarray]
    sq: Callable[[np.ndarray], np.ndarray]
    lo: float  # losses below lo have P-mass <= tail (rounded up to lo)
    hi: float  # losses above hi: P-mass <= tail beyond (handled as in pld.py)
    inf_mass: float = 0.0  # P(L = +inf)


def _gauss_pair(mu: float, tail: float = _TAIL) -> _Pair:
    z = sps.upper_quantile(tail)
    m2 = mu * mu / 2
    return _Pair(
        sp=lambda l: sps.ndtr((m2 - l) / mu),
        sq=lambda l: sps.ndtr((-m2 - l) / mu),
        lo=m2 - z * mu, hi=m2 + z * mu,  # under P, L ~ N(mu^2/2, mu^2): tail below lo rounded up, above to +inf
    )


def _laplace_pair(eps: float) -> _Pair:
    def sp(l: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            mid = 1.0 - 0.5 * np.exp(-(eps - l) / 2)
        return np.where(l >= eps, 0.0, np.where(l < -eps, 1.0, mid))

    def sq(l: np.ndarray) -> np.ndarray:
        mid = 0.5 * np.exp(-(l + eps) / 2)
        return np.where(l >= eps, 0.0, np.where(l < -eps, 1.0, mid))

    return _Pair(sp=sp, sq=sq, lo=-eps, hi=eps)


def _atoms_pair(loss: np.ndarray, pmass: np.ndarray, inf_mass: float = 0.0, qmass: np.ndarray | None = None) -> _Pair:
    """A pair with finitely many finite losses (P-masses ``pmass``, Q-masses ``p e^{-l}`` unless given)."""
    order = np.argsort(loss)
    loss, pmass = loss[order], pmass[order]
    qm = pmass * np.exp(-loss) if qmass is None else qmass[order]
    # suffix sums: accurate small tails
    SP = np.append(np.cumsum(pmass[::-1])[::-1], 0.0)
    SQ = np.append(np.cumsum(qm[::-1])[::-1], 0.0)

    def sp(l: np.ndarray) -> np.ndarray:
        return SP[np.searchsorted(loss, l, side="right")]

    def sq(l: np.ndarray) -> np.ndarray:
        return SQ[np.searchsorted(loss, l, side="right")]

    return _Pair(sp=sp, sq=sq, lo=float(loss[0]), hi=float(loss[-1]), inf_mass=inf_mass)


def _approx_dp_pair(eps: float, delta: float) -> _Pair:
    """Kairouz-Oh-Viswanath dominating pair of (eps, delta)-DP: P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0)."""
    a = (1 - delta) / (1 + math.exp(-eps))  # loss +eps
    b = (1 - delta) / (1 + math.exp(eps))  # loss -eps
    if eps == 0:
        return _atoms_pair(np.array([0.0]), np.array([1 - delta]), delta, np.array([1 - delta]))
    return _atoms_pair(np.array([eps, -eps]), np.array([a, b]), delta, np.array([b, a]))


def _rr_pair(eps: float, k: int) -> _Pair:
    r = 1.0 / (math.exp(eps) + k - 1)
    p = math.exp(eps) * r
    if k == 2:
        return _atoms_pair(np.array([eps, -eps]), np.array([p, r]), 0.0, np.array([r, p]))
    return _atoms_pair(np.array([eps, -eps, 0.0]), np.array([p, r, (k - 2) * r]), 0.0, np.array([r, p, (k - 2) * r]))


def _discrete_laplace_pair(sens: int, scale: float) -> _Pair:
    t = 1.0 / scale
    a = math.exp(-t)
    z = (1 - a) / (1 + a)
    eps = sens * t
    xs = np.arange(1, sens, dtype=float)  # 0 < x < sens: loss (2x - sens) t
    loss = np.concatenate([[eps, -eps], (2 * xs - sens) * t])
    pm = np.concatenate([[1 / (1 + a), a**sens / (1 + a)], z * np.exp(-(sens - xs) * t)])
    qm = np.concatenate([[a**sens / (1 + a), 1 / (1 + a)], z * np.exp(-xs * t)])
    return _atoms_pair(loss, pm, 0.0, qm)


def _discrete_gaussian_pair(sens: int, sigma: float, tail: float = _TAIL) -> _Pair:
    zt = sps.upper_quantile(tail / 4)
    half = math.ceil(zt * sigma + 2) + sens
    xs = np.arange(-half, half + sens + 1, dtype=float)
    s2 = 2 * sigma * sigma
    # normaliser: theta sum over Z, with the terms beyond the enumeration bounded by a Gaussian tail
    kk = np.arange(-half - sens, half + sens + 1, dtype=float)
    norm = float(np.sum(np.exp(-kk * kk / s2)))
    logp = -((xs - sens) ** 2) / s2 - math.log(norm)  # P = DG centred at sens
    logq = -(xs**2) / s2 - math.log(norm)
    pm, qm = np.exp(logp), np.exp(logq)
    loss = (2 * xs * sens - sens * sens) / s2
    missing = max(0.0, 1.0 - float(np.sum(pm)))
    # the P-mass outside the enumeration (both tails) is sent to +inf: an upper bound
    return _atoms_pair(loss, pm, missing + 4 * _U * len(xs), qm)


def _mixture_pairs(sigma: float, cs: tuple[float, ...], ps: tuple[float, ...], tail: float = _TAIL) -> tuple[_Pair, _Pair]:
    """Remove: (sum p_i N(c_i), N(0)); add: (N(0), sum p_i N(c_i)), unit-variance coordinates."""
    c = np.asarray(cs, dtype=float) / sigma
    p = np.asarray(ps, dtype=float)
    keep = p > 0
    c, p = c[keep], p[keep]
    logp = np.log(p)
    cmax = float(c.max())

    off = logp - c * c / 2

    def loss(x: np.ndarray) -> np.ndarray:
        ts = [ci * x + oi for ci, oi in zip(c, off)]  # few components: loop, not a reduction over a short axis
        mx = ts[0]
        for t in ts[1:]:
            mx = np.maximum(mx, t)
        acc = np.zeros_like(mx)
        for t in ts:
            acc += np.exp(t - mx)
        return np.asarray(mx + np.log(acc))

    z = sps.upper_quantile(tail)
    xlo, xhi = -z - cmax - 1, cmax + z + 1

    memo: list[tuple[np.ndarray, np.ndarray]] = []

    def xstar(l: np.ndarray) -> np.ndarray:
        """x with loss(x) = l (loss is nondecreasing in x), by bisection; clipped to [xlo, xhi]."""
        l = np.asarray(l, dtype=float)
        for key, val in memo:
            if key.shape == l.shape and np.array_equal(key, l):
                return val
        res = _bisect(l)
        memo[:] = [(l.copy(), res)]
        return res

    def _bisect(l: np.ndarray) -> np.ndarray:
        a, b = np.full(l.shape, xlo), np.full(l.shape, xhi)
        for _ in range(64):
            m = 0.5 * (a + b)
            up = loss(m) > l
            b, a = np.where(up, m, b), np.where(up, a, m)
        return b

    def p_above(x: np.ndarray) -> np.ndarray:
        return np.sum(p * sps.ndtr(c - x[..., None]), axis=-1)

    if cmax == 0:
        pair = _atoms_pair(np.array([0.0]), np.array([1.0]))
        return pair, pair
    lo_l, hi_l = float(loss(np.array(xlo))), float(loss(np.array(xhi)))
    remove = _Pair(sp=lambda l: p_above(xstar(l)), sq=lambda l: sps.ndtr(-xstar(l)), lo=lo_l, hi=hi_l)
    # add direction: loss -L; P-side N(0): P(-L > l) = P(x < x*(-l))
    add = _Pair(sp=lambda l: sps.ndtr(xstar(-l)), sq=lambda l: 1.0 - p_above(xstar(-l)), lo=-hi_l, hi=-lo_l)
    return remove, add


def _base_pair(m: Mechanism, tail: float = _TAIL) -> _Pair:
    if isinstance(m, Gaussian):
        return _gauss_pair(m.sensitivity / m.sigma, tail)
    if isinstance(m, Laplace):
        return _laplace_pair(m.eps)
    if isinstance(m, RandomizedResponse):
        return _rr_pair(m.eps, m.k)
    if isinstance(m, ApproxDPBlackBox):
        return _approx_dp_pair(m.eps, m.delta)
    if isinstance(m, ExponentialMechanism):
        return _approx_dp_pair(m.eps, 0.0)
    if isinstance(m, DiscreteLaplace):
        return _discrete_laplace_pair(m.sensitivity, m.scale)
    if isinstance(m, DiscreteGaussian):
        return _discrete_gaussian_pair(m.sensitivity, m.sigma, tail)
    raise UnsupportedError(f"no dominating pair for {m!r}")  # pragma: no cover - filtered by supports


def _subsampled_pairs(base: _Pair, q: float) -> tuple[_Pair, _Pair]:
    """Remove pair (qP + (1-q)Q, Q) and add pair (Q, qP + (1-q)Q) of a symmetric base pair (P, Q)."""
    if q >= 1.0:
        return base, base
    lq = math.log(q)
    l1q = math.log1p(-q)
    fin = 1.0 - base.inf_mass

    def g(x: float) -> float:  # base loss -> subsampled loss, log(1 - q + q e^x)
        return float(np.logaddexp(l1q, lq + x))

    def ginv(l: np.ndarray) -> np.ndarray:  # inverse on l > log(1-q); -inf at or below
        l = np.asarray(l, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # log(e^l - (1-q)) - log q, computed as l + log1p(-(1-q) e^{-l}) - log q
            x = l + np.log1p(-np.exp(l1q - l)) - lq
        return np.where(l > l1q, x, -np.inf)

    def base_sp(x: np.ndarray) -> np.ndarray:
        return np.where(np.isneginf(x), fin, base.sp(np.where(np.isneginf(x), 0.0, x)))

    def base_sq(x: np.ndarray) -> np.ndarray:
        return np.where(np.isneginf(x), 1.0, base.sq(np.where(np.isneginf(x), 0.0, x)))

    def r_sp(l: np.ndarray) -> np.ndarray:
        x = ginv(l)
        return q * base_sp(x) + (1 - q) * base_sq(x)

    def r_sq(l: np.ndarray) -> np.ndarray:
        return base_sq(ginv(l))

    def a_sp(l: np.ndarray) -> np.ndarray:
        x = ginv(-np.asarray(l, dtype=float))
        return np.where(np.isneginf(x), 0.0, 1.0 - base_sq(x))

    def a_sq(l: np.ndarray) -> np.ndarray:
        x = ginv(-np.asarray(l, dtype=float))
        return np.where(np.isneginf(x), 0.0, q * (fin - base_sp(x)) + (1 - q) * (1.0 - base_sq(x)))

    lo_r, hi_r = g(base.lo), g(base.hi)
    remove = _Pair(sp=r_sp, sq=r_sq, lo=lo_r, hi=hi_r, inf_mass=q * base.inf_mass)
    add = _Pair(sp=a_sp, sq=a_sq, lo=-hi_r, hi=-l1q, inf_mass=0.0)
    return remove, add


def _pairs(m: Mechanism, tail: float = _TAIL) -> tuple[_Pair, _Pair]:
    if isinstance(m, Subsampled):
        return _subsampled_pairs(_base_pair(m.mechanism, tail), m.rate)
    if isinstance(m, MixtureOfGaussians):
        return _mixture_pairs(m.sigma, m.sensitivities, m.probs, tail)
    p = _base_pair(m, tail)
    return p, p


def _discretize(pair: _Pair, h: float, pessimistic: bool) -> _pld.DiscretePLD:
    """Connect-the-dots discretisation of a pair on ``ell = j h`` (see the module docstring)."""
    j0 = math.floor(pair.lo / h)
    j1 = max(math.ceil(pair.hi / h), j0 + 1)
    ell = np.arange(j0, j1 + 1, dtype=float) * h
    with np.errstate(all="ignore"):
        SP = np.asarray(pair.sp(ell), dtype=float)
        SQ = np.asarray(pair.sq(ell), dtype=float)
    fin = 1.0 - pair.inf_mass
    Pint = np.maximum(SP[:-1] - SP[1:], 0.0)
    Qint = np.maximum(SQ[:-1] - SQ[1:], 0.0)
    pmf = _pld._pmf_from_masses(Pint, Qint, ell, h, pessimistic)
    inf_mass = pair.inf_mass
    if pessimistic:
        pmf[0] += max(fin - SP[0], 0.0)  # lower tail rounded up to ell_0
        top_q = float(SQ[-1]) * math.exp(ell[-1]) if ell[-1] < 700 else float("inf")
        keep = min(top_q, float(SP[-1]))
        pmf[-1] += keep
        inf_mass += float(SP[-1]) - keep
        roundoff = 8 * _U * (len(ell) + 1)
    else:
        pmf[-1] += float(SP[-1])
        roundoff = 0.0
    return _pld.DiscretePLD(h=h, j0=j0, pmf=pmf, inf_mass=min(inf_mass, 1.0), roundoff=roundoff)


# ---------------------------------------------------------------- the accountants
class _Accountant:
    name = ""

    def supports(self, mechanism: Mechanism) -> list[tuple[Mechanism, str]]:
        """Dry run: ``[(sub-mechanism, reason), ...]`` for every unsupported part; ``[]`` when supported."""
        raise NotImplementedError


class TightAccountant(_Accountant):
    """Pessimistic PLD accountant over mechanisms (see the module docstring)."""

    name = "tight"

    def supports(self, mechanism: Mechanism) -> list[tuple[Mechanism, str]]:
        return _supports(mechanism, _tight_reason)

    def _composed(self, parts: list[tuple[Mechanism, int]], h: float, pessimistic: bool, tail_tol: float) -> list[_pld.ComposedPLD]:
        dirs: list[list[tuple[_pld.DiscretePLD, int]]] = [[], []]
        total = sum(c for _, c in parts)
        step_tail = min(_TAIL, max(tail_tol / (4 * total), 1e-300))  # composed truncation mass <= tail_tol / 4
        for m, c in parts:
            if (pessimistic and isinstance(m, Subsampled) and isinstance(m.mechanism, Gaussian)
                    and m.scheme == "poisson" and m.adjacency == "add_remove" and m.rate < 1):
                # the DP-SGD step: the tight accountant's own discretisation (tail-appropriate CDF forms)
                z = m.mechanism.sigma / m.mechanism.sensitivity
                for i, direction in enumerate(("remove", "add")):
                    dirs[i].append((_pld.discretize_step(z, m.rate, h, direction, tail=step_tail), c))
                continue
            for i, pair in enumerate(_pairs(m, step_tail)):
                dirs[i].append((_discretize(pair, h, pessimistic), c))
        return [_pld.compose(d, tail_tol=tail_tol) for d in dirs]

    def _run(self, mechanism: Mechanism, evaluate: Callable[[_pld.ComposedPLD, bool], float],
             discretization: float | None, tail_tol: float) -> tuple[float, float, dict[str, Any]]:
        parts = _require(mechanism, _tight_reason, self.name)
        total = sum(c for _, c in parts)
        h = float(discretization) if discretization is not None else _pld.default_interval(total) / 2
        adaptive = discretization is None
        best = math.inf
        est = math.inf
        for _ in range(8):
            try:
                fine = max(evaluate(c, True) for c in self._composed(parts, h, True, tail_tol))
                coarse = max(evaluate(c, True) for c in self._composed(parts, 2 * h, True, tail_tol))
                break
            except ConvergenceError:
                h *= 4
        else:  # pragma: no cover
            raise ConvergenceError("tight accountant: could not fit the composed privacy loss on an FFT grid")
        best = min(fine, coarse)
        est = max(coarse - fine, 0.0) / 3.0
        for _ in range(3 if adaptive else 0):
            if not math.isfinite(best) or est <= _TARGET_REL * max(best, 1e-12) or h < 1e-4:
                break
            h /= 2
            try:
                v = max(evaluate(c, True) for c in self._composed(parts, h, True, tail_tol))
            except ConvergenceError:
                break
            est = max(best - v, 0.0) / 3.0 if v <= best else est
            best = min(best, v)
        lower = max(evaluate(c, False) for c in self._composed(parts, h, False, tail_tol))
        return best, min(lower, best), {"discretization": h, "error_estimate": est, "parts": len(parts), "steps": total}

    def _fallback(self, mechanism: Mechanism, exc: ConvergenceError, *, delta: float | None = None,
                  epsilon: float | None = None) -> MechanismResult:
        """The composed loss does not fit an FFT grid (e.g. 1e9 Laplace steps): the RDP upper bound, labelled."""
        if rdp.supports(mechanism):
            raise exc
        r = rdp.epsilon(mechanism, delta) if delta is not None else rdp.delta(mechanism, float(epsilon or 0.0))
        note = f"tight accountant could not run ({exc}); the RDP accountant's upper bound is reported"
        return MechanismResult(r.epsilon, r.delta, "tight (fallback: rdp)", True, 0.0, r.upper, (*r.notes, note),
                               {**r.details, "fallback": "rdp"})

    def epsilon(self, mechanism: Mechanism, delta: float, *, discretization: float | None = None) -> MechanismResult:
        """Upper bound on epsilon at ``delta`` for the (composed) mechanism; ``lower`` is the optimistic estimate."""
        d = float(check_probability("delta", delta))
        if discretization is not None:
            check_real("discretization", discretization, 0.0, 1.0, lo_open=True)
        tail_tol = max(1e-4 * d, 1e-300)

        def ev(c: _pld.ComposedPLD, pess: bool) -> float:
            # optimistic: drop the tail and rounding allowances; its +inf mass is the pairs' own (true) one
            extra = 0.0 if pess else -(c.upper_tail + c.roundoff)
            return float(c.epsilon(d, extra=extra)[0])

        try:
            eps, lo, det = self._run(mechanism, ev, discretization, tail_tol)
        except ConvergenceError as exc:
            return self._fallback(mechanism, exc, delta=d)
        notes = _notes(mechanism)
        pure_eps, pure_delta = _pure_bound(_parts(mechanism))
        if pure_delta <= d and pure_eps < eps:  # basic composition of the parts' largest losses is exact here
            det["pure_dp_bound"] = pure_eps
            eps, lo = pure_eps, min(lo, pure_eps)
        inf_p = _inf_probability(_parts(mechanism))
        if not math.isfinite(eps) and inf_p < d:  # not a true infinity: the grid's allowances exceed delta
            return self._fallback(mechanism, ConvergenceError(
                f"the discretisation's tail and rounding allowances reach delta={d!r}"), delta=d)
        if inf_p >= d:
            notes = (*notes, f"no finite epsilon: delta={d!r} is below the probability {inf_p:.3g} of an infinite "
                             "privacy loss that the composition's (eps, delta) black boxes allow")
        return MechanismResult(eps, d, self.name, True, lo, eps, notes, det)

    def delta(self, mechanism: Mechanism, epsilon: float, *, discretization: float | None = None) -> MechanismResult:
        """Upper bound on delta at ``epsilon``."""
        e = float(check_real("epsilon", epsilon, 0.0, math.inf, hi_open=True))
        if discretization is not None:
            check_real("discretization", discretization, 0.0, 1.0, lo_open=True)

        def ev(c: _pld.ComposedPLD, pess: bool) -> float:
            extra = 0.0 if pess else -(c.upper_tail + c.roundoff)
            return float(np.asarray(c.delta(e, extra=extra)).reshape(-1)[0])

        try:
            dl, lo, det = self._run(mechanism, ev, discretization, 1e-18)
        except ConvergenceError as exc:
            return self._fallback(mechanism, exc, epsilon=e)
        return MechanismResult(e, dl, self.name, True, max(lo, 0.0), dl, _notes(mechanism), det)


def _max_loss(m: Mechanism) -> tuple[float, float]:
    """(largest finite privacy loss, P-mass at +inf) of a part's pairs; ``(inf, 0)`` when unbounded."""
    base = m.mechanism if isinstance(m, Subsampled) else m
    if isinstance(base, (Laplace, DiscreteLaplace, RandomizedResponse, ExponentialMechanism)):
        e, d = base.eps, 0.0
    elif isinstance(base, ApproxDPBlackBox):
        e, d = base.eps, base.delta
    else:
        return math.inf, 0.0
    if isinstance(m, Subsampled):  # amplification of an (eps, delta) pair: log(1 + q (e^eps - 1)), q delta
        return math.log1p(m.rate * math.expm1(e)), m.rate * d
    return e, d


def _pure_bound(parts: list[tuple[Mechanism, int]]) -> tuple[float, float]:
    """Basic composition (sum of eps, 1 - prod(1 - delta)) of the parts' (eps, delta) guarantees, rounded up."""
    eps = 0.0
    log_keep = 0.0
    for m, c in parts:
        e, d = _max_loss(m)
        if not math.isfinite(e):
            return math.inf, 1.0
        eps += c * e
        log_keep += c * math.log1p(-d) if d < 1 else -math.inf
    return eps * (1 + 4 * _U) + 4 * _U, -math.expm1(log_keep) * (1 + 4 * _U)


def _inf_probability(parts: list[tuple[Mechanism, int]]) -> float:
    """Probability of an infinite privacy loss in the composition (from (eps, delta) black boxes), rounded down."""
    log_keep = 0.0
    for m, c in parts:
        base = m.mechanism if isinstance(m, Subsampled) else m
        if isinstance(base, ApproxDPBlackBox) and base.delta > 0:
            dd = base.delta * (m.rate if isinstance(m, Subsampled) else 1.0)
            log_keep += c * math.log1p(-dd)
    return -math.expm1(log_keep) * (1 - 4 * _U)


def _notes(m: Mechanism) -> tuple[str, ...]:
    notes = []
    for p, _ in _parts(m):
        base = p.mechanism if isinstance(p, Subsampled) else p
        if isinstance(base, ExponentialMechanism):
            notes.append("exponential mechanism accounted as eps-DP (bounded range not exploited): an upper bound, not tight")
        if isinstance(p, Subsampled) and p.adjacency == "replace_one":
            notes.append("replace-one subsampling: pair (qP+(1-q)Q, Q) with the base's replace-one sensitivity")
    return tuple(dict.fromkeys(notes))


# ---------------------------------------------------------------- RDP
def _pure_dp_rdp(eps: float, orders: np.ndarray) -> np.ndarray:
    """D_alpha of the eps-DP pair (binary randomized response): the largest RDP of any eps-DP mechanism."""
    return _rr_rdp(eps, 2, orders)


def _rr_rdp(eps: float, k: int, orders: np.ndarray) -> np.ndarray:
    a = orders
    lr = -math.log(math.exp(eps) + k - 1)
    lp = eps + lr
    terms = [a * lp + (1 - a) * lr, a * lr + (1 - a) * lp]
    if k > 2:
        terms.append(np.full_like(a, math.log(k - 2) + lr))
    return np.asarray(np.logaddexp.reduce(np.stack(terms), axis=0) / (a - 1))


def _laplace_rdp(eps: float, orders: np.ndarray) -> np.ndarray:
    """Mironov 2017, Prop. 6: (1/(a-1)) log( a/(2a-1) e^{(a-1) eps} + (a-1)/(2a-1) e^{-a eps} )."""
    a = orders
    t1 = np.log(a / (2 * a - 1)) + (a - 1) * eps
    t2 = np.log((a - 1) / (2 * a - 1)) - a * eps
    return np.asarray(np.logaddexp(t1, t2) / (a - 1))


def _part_rdp(m: Mechanism, orders: np.ndarray) -> np.ndarray:
    if isinstance(m, Gaussian):
        return orders * (m.sensitivity / m.sigma) ** 2 / 2
    if isinstance(m, DiscreteGaussian):
        return orders * (m.sensitivity / m.sigma) ** 2 / 2
    if isinstance(m, Laplace):
        return _laplace_rdp(m.eps, orders)
    if isinstance(m, RandomizedResponse):
        return _rr_rdp(m.eps, m.k, orders)
    if isinstance(m, ApproxDPBlackBox):
        return _pure_dp_rdp(m.eps, orders) if m.eps > 0 else np.zeros_like(orders)
    if isinstance(m, DiscreteLaplace):
        return _pure_dp_rdp(m.eps, orders)
    if isinstance(m, ExponentialMechanism):
        return np.minimum(_pure_dp_rdp(m.eps, orders), orders * m.eps**2 / 8)
    if isinstance(m, ZCDP):
        return orders * m.rho
    if isinstance(m, Subsampled) and isinstance(m.mechanism, Gaussian):
        z = m.mechanism.sigma / m.mechanism.sensitivity
        if m.scheme == "poisson":
            return np.asarray(_rdp.sgm_rdp(noise_multiplier=z, sample_rate=m.rate, orders=orders), dtype=float)
        return np.asarray(_rdp.wor_rdp(noise_multiplier=z, sample_rate=m.rate, orders=orders), dtype=float)
    raise UnsupportedError(f"no RDP curve for {m!r}")  # pragma: no cover - filtered by supports


def _best_order(curve: Callable[[np.ndarray], np.ndarray], conv: Callable[..., tuple[np.ndarray, np.ndarray]],
                key: str, target: float, orders: np.ndarray | None) -> tuple[float, float]:
    """Best (value, order) over the default grid, extended at an edge when the best order sits there."""
    grids = [orders] if orders is not None else [_rdp.DEFAULT_ORDERS]
    v, o = conv(rdp=curve(grids[0]), orders=grids[0], **{key: target})
    val, order = float(np.asarray(v).reshape(-1)[0]), float(np.asarray(o).reshape(-1)[0])
    if orders is None:
        for edge, extra in ((_rdp.DEFAULT_ORDERS[-1], _rdp.LARGE_ORDERS), (_rdp.DEFAULT_ORDERS[0], _rdp.SMALL_ORDERS)):
            if order == edge:
                v2, o2 = conv(rdp=curve(extra), orders=extra, **{key: target})
                if float(np.asarray(v2).reshape(-1)[0]) < val:
                    val, order = float(np.asarray(v2).reshape(-1)[0]), float(np.asarray(o2).reshape(-1)[0])
    return val, order


class RDPAccountant(_Accountant):
    """RDP accountant over mechanisms (curves summed, CKS conversion; see the module docstring)."""

    name = "rdp"

    def supports(self, mechanism: Mechanism) -> list[tuple[Mechanism, str]]:
        return _supports(mechanism, _rdp_reason)

    def rdp(self, mechanism: Mechanism, orders: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """``(orders, composed RDP curve)``: per-order Renyi DP of the whole mechanism (upper bounds)."""
        parts = _require(mechanism, _rdp_reason, self.name)
        o = _rdp.DEFAULT_ORDERS if orders is None else np.asarray(orders, dtype=float)
        check_real("orders", o, 1.0, None, lo_open=True)
        return o, self._curve(parts)(o)

    @staticmethod
    def _curve(parts: list[tuple[Mechanism, int]]) -> Callable[[np.ndarray], np.ndarray]:
        def curve(o: np.ndarray) -> np.ndarray:
            tot = np.zeros(len(o))
            for m, c in parts:
                tot = tot + c * np.asarray(_part_rdp(m, o), dtype=float)
            return tot

        return curve

    def epsilon(self, mechanism: Mechanism, delta: float, *, orders: Any = None) -> MechanismResult:
        d = float(check_probability("delta", delta))
        parts = _require(mechanism, _rdp_reason, self.name)
        o = None if orders is None else np.asarray(orders, dtype=float)
        eps, best = _best_order(self._curve(parts), _rdp.rdp_to_epsilon, "delta", d, o)
        return MechanismResult(eps, d, self.name, True, 0.0, eps, _notes(mechanism), {"order": best})

    def delta(self, mechanism: Mechanism, epsilon: float, *, orders: Any = None) -> MechanismResult:
        e = float(check_real("epsilon", epsilon, 0.0, math.inf, hi_open=True))
        parts = _require(mechanism, _rdp_reason, self.name)
        o = None if orders is None else np.asarray(orders, dtype=float)
        dv, best = _best_order(self._curve(parts), _rdp.rdp_to_delta, "epsilon", e, o)
        return MechanismResult(e, dv, self.name, True, 0.0, dv, _notes(mechanism), {"order": best})


tight = TightAccountant()
rdp = RDPAccountant()

__all__ = ["MechanismResult", "RDPAccountant", "TightAccountant", "rdp", "tight"]
