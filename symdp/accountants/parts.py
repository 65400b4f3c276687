"""What each base mechanism contributes to the mechanism accountants of :mod:`.algebra`: its dominating
pair ``(P, Q)`` by the survival functions of its privacy loss (exact for Gaussian, Laplace, randomized
response, the discrete mechanisms and Gaussian mixtures; Kairouz-Oh-Viswanath for (eps, delta) black
boxes), the Poisson-subsampled pairs, their pessimistic discretisation for :mod:`.pld`, and each part's
Renyi DP curve.  Which pair and which curve are used, and their sources, is documented in
:mod:`.algebra`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import _special as sps
from ..errors import ConvergenceError, UnsupportedError
from ..mechanisms import (
    ZCDP,
    ApproxDPBlackBox,
    DiscreteGaussian,
    DiscreteLaplace,
    ExponentialMechanism,
    Gaussian,
    Laplace,
    Mechanism,
    MixtureOfGaussians,
    RandomizedResponse,
    Subsampled,
)
from . import pld as _pld
from . import rdp as _rdp

_U = float(np.finfo(float).eps)
_TAIL = 1e-16  # default per-step P-mass left outside the discretised range (sent to +inf: counted in delta)


# ---------------------------------------------------------------- dominating pairs (tight)
@dataclass(frozen=True)
class _Pair:
    """A dominating pair by its privacy loss: ``sp(l) = P(l < L < inf)``, ``sq(l) = Q(L > l)`` for finite l."""

    sp: Callable[[np.ndarray], np.ndarray]
    sq: Callable[[np.ndarray], np.ndarray]
    lo: float  # losses below lo have P-mass <= tail (rounded up to lo)
    hi: float  # losses above hi: P-mass <= tail beyond (handled as in pld.py)
    inf_mass: float = 0.0  # P(L = +inf)
    #: ``P(l <= L < inf)`` (left-closed), given where the finite losses are atoms: the optimistic discretisation
    #: then keeps an atom that sits on a grid point there instead of moving it down by one step
    sp_ge: Callable[[np.ndarray], np.ndarray] | None = None


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

    def sp_ge(l: np.ndarray) -> np.ndarray:
        return SP[np.searchsorted(loss, l, side="left")]

    return _Pair(sp=sp, sq=sq, lo=float(loss[0]), hi=float(loss[-1]), inf_mass=inf_mass, sp_ge=sp_ge)


def _approx_dp_pair(eps: float, delta: float) -> _Pair:
    """Kairouz-Oh-Viswanath dominating pair of (eps, delta)-DP: P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0)."""
    em = math.exp(-eps)  # no overflow for any eps (e^-eps underflows to 0 past 745: b is then 0)
    a = (1 - delta) / (1 + em)  # loss +eps
    b = (1 - delta) * em / (1 + em)  # loss -eps
    if eps == 0:
        return _atoms_pair(np.array([0.0]), np.array([1 - delta]), delta, np.array([1 - delta]))
    return _atoms_pair(np.array([eps, -eps]), np.array([a, b]), delta, np.array([b, a]))


def _rr_pair(eps: float, k: int) -> _Pair:
    em = math.exp(-eps)  # e^eps / (e^eps + k - 1) without overflow for any eps
    p = 1.0 / (1.0 + (k - 1) * em)
    r = em * p
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


def _monotone_inverse(loss: Callable[[np.ndarray], np.ndarray], xlo: float,
                      xhi: float) -> Callable[[np.ndarray], np.ndarray]:
    """``x*(l)``: the x with ``loss(x) = l`` for a nondecreasing ``loss``, by bisection on [xlo, xhi] (the upper end
    of the final bracket; clipped to [xlo, xhi]); the last call's answer is memoised (sp and sq ask at the same l)."""
    memo: list[tuple[np.ndarray, np.ndarray]] = []

    def xstar(l: np.ndarray) -> np.ndarray:
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

    return xstar


def _replace_one_poisson_gauss_pair(c: float, q: float, tail: float = _TAIL) -> _Pair:
    """The pair ``P = (1 - q) N(0) + q N(c)``, ``Q = (1 - q) N(0) + q N(-c)`` (unit variance): a Poisson(q)-subsampled
    Gaussian sum whose record contributes ``+c`` in one dataset and ``-c`` in its replace-one neighbour
    (dp_accounting's ``REPLACE_ONE`` pair).  Two neighbouring datasets realise it, so it is dominated by the
    mechanism's replace-one pair: a lower end (symmetric under x -> -x: one direction)."""
    if q >= 1.0:
        return _gauss_pair(2 * c, tail)
    l1q, lq, c2 = math.log1p(-q), math.log(q), c * c / 2

    def loss(x: np.ndarray) -> np.ndarray:  # increasing in x
        return np.asarray(np.logaddexp(l1q, lq + c * x - c2) - np.logaddexp(l1q, lq - c * x - c2))

    z = sps.upper_quantile(tail)
    xlo, xhi = -z - c - 1, c + z + 1
    xstar = _monotone_inverse(loss, xlo, xhi)

    def sp(l: np.ndarray) -> np.ndarray:
        x = xstar(l)
        return (1 - q) * sps.ndtr(-x) + q * sps.ndtr(c - x)

    def sq(l: np.ndarray) -> np.ndarray:
        x = xstar(l)
        return (1 - q) * sps.ndtr(-x) + q * sps.ndtr(-c - x)

    return _Pair(sp=sp, sq=sq, lo=float(loss(np.array(xlo))), hi=float(loss(np.array(xhi))))


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
    xstar = _monotone_inverse(loss, xlo, xhi)

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
    if not (math.isfinite(pair.lo) and math.isfinite(pair.hi)) or (pair.hi - pair.lo) / h + 4 > _pld.MAX_POINTS:
        raise ConvergenceError(f"tight accountant: a part's loss range [{pair.lo:.3g}, {pair.hi:.3g}] needs more "
                               f"than {_pld.MAX_POINTS} grid points at h={h:.3g} (checked before allocating)")
    j0 = math.floor(pair.lo / h)
    j1 = max(math.ceil(pair.hi / h), j0 + 1)
    ell = np.arange(j0, j1 + 1, dtype=float) * h
    inf_mass = pair.inf_mass
    roundoff = 0.0
    if not pessimistic and pair.sp_ge is not None:
        # atoms: the P-mass of [ell_i, ell_{i+1}) at ell_i (every loss rounded down to the grid, an atom on a grid
        # point kept where it is; ell_0 <= lo, so nothing lies below the grid) -- dominated by the pair
        with np.errstate(all="ignore"):
            G = np.asarray(pair.sp_ge(ell), dtype=float)
        pmf = np.append(np.maximum(G[:-1] - G[1:], 0.0), G[-1])
    else:
        with np.errstate(all="ignore"):
            SP = np.asarray(pair.sp(ell), dtype=float)
            SQ = np.asarray(pair.sq(ell), dtype=float)
        Pint = np.maximum(SP[:-1] - SP[1:], 0.0)
        Qint = np.maximum(SQ[:-1] - SQ[1:], 0.0)
        pmf = _pld._pmf_from_masses(Pint, Qint, ell, h, pessimistic)
        if pessimistic:
            pmf[0] += max(1.0 - pair.inf_mass - SP[0], 0.0)  # lower tail rounded up to ell_0
            top_q = float(SQ[-1]) * math.exp(ell[-1]) if ell[-1] < 700 else float("inf")
            keep = min(top_q, float(SP[-1]))
            pmf[-1] += keep
            inf_mass += float(SP[-1]) - keep
            roundoff = 8 * _U * (len(ell) + 1)
        else:
            pmf[-1] += float(SP[-1])
    if not (np.all(np.isfinite(pmf)) and math.isfinite(inf_mass)):  # NaN would poison every bound: fall back instead
        raise ConvergenceError("tight accountant: a part's discretisation is not finite in floating point")
    return _pld.DiscretePLD(h=h, j0=j0, pmf=pmf, inf_mass=min(inf_mass, 1.0), roundoff=roundoff)


# ---------------------------------------------------------------- RDP
def _pure_dp_rdp(eps: float, orders: np.ndarray) -> np.ndarray:
    """D_alpha of the eps-DP pair (binary randomized response): the largest RDP of any eps-DP mechanism."""
    return _rr_rdp(eps, 2, orders)


def _rr_rdp(eps: float, k: int, orders: np.ndarray) -> np.ndarray:
    a = orders
    lr = -(eps + math.log1p((k - 1) * math.exp(-eps)))  # -log(e^eps + k - 1), no overflow
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


