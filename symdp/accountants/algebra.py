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

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import ConvergenceError, InvalidTypeError, SymdpError, UnsupportedError
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
from .parts import _TAIL as _TAIL
from .parts import _U as _U
from .parts import _best_order as _best_order
from .parts import _discretize as _discretize
from .parts import _pairs as _pairs
from .parts import _part_rdp as _part_rdp

_TARGET_REL = 1e-3  # refine the grid until the Richardson estimate of the discretisation error is below this
_MAX_REFINE = 8  # halvings of the grid at most (past three, or below h = 1e-4, only while the FFT is short)
_CHEAP_FFT = 1 << 17  # a composed window this short may be refined past the usual limits


@dataclass(frozen=True)
class MechanismResult:
    """An accountant's answer for one mechanism.

    ``epsilon`` (or ``delta``) is an upper bound when ``is_upper_bound``; ``lower`` / ``upper`` bracket
    the true value where the method gives a bracket; ``notes`` name what was not tight.

    ``lower`` of the tight accountant comes from a discretisation *dominated* by the true pairs, composed
    exactly like the upper one: for a DP-SGD step, cells of the loss axis merged at their own likelihood ratio
    (a post-processing) and moved down to the grid (:func:`symdp.accountants.pld.discretize_step_lower`,
    second order in ``h``), on a grid fine enough to resolve the step's loss (``h <= q / 32``); other parts
    round every loss down (first order: up to ``T h`` in epsilon).  The round-off bound and the wrapped mass
    are subtracted from delta, so ``E_P[(1 - e^{eps - L})_+]`` and hence delta(eps) (and epsilon(delta)) of the
    composition are bounded from below, up to the floating-point error of the CDF evaluations (about 1e-16
    relative).  Computed for the direction whose upper value is the larger.
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
    gauss: list[tuple[float, int]] = []
    for p, c in out:  # equal parts compose by one power in the FFT
        if isinstance(p, Gaussian):  # Gaussian mechanisms compose exactly: N(mu_tot) with mu_tot^2 = sum c mu^2
            gauss.append((p.sensitivity / p.sigma, c))
            continue
        merged[p] = merged.get(p, 0) + c
    if gauss:
        mu = _pld.composed_mu(gauss)
        if mu > 0:
            merged[Gaussian(mu, 1.0)] = 1
    return list(merged.items())


def _gaussian_only(parts: list[tuple[Mechanism, int]]) -> float | None:
    """``mu`` when the composition is Gaussian mechanisms only (exactly mu-GDP), else None."""
    g, c = parts[0] if len(parts) == 1 else (None, 0)
    if isinstance(g, Gaussian):
        return _pld.composed_mu([(g.sensitivity / g.sigma, c)])
    return None


def _composition_bound(parts: list[tuple[Mechanism, int]]) -> tuple[float, float, float] | None:
    """``(mu, E, D)``: the composition is dominated by ``mu``-GDP composed with an ``(E, D)``-DP mechanism, or None.

    Gaussian parts count exactly; a subsampled Gaussian (any scheme, the pair of its own analysis) and a mixture
    of Gaussians count as the Gaussian of their largest shift (by joint convexity of the hockey-stick divergence
    each of their pairs is dominated by that Gaussian's pair, in both directions); every other part counts by its
    (eps, delta)-DP guarantee (:func:`_max_loss`), composed by basic composition.  None when some part has none
    of these (a discrete Gaussian).
    """
    mus: list[tuple[float, int]] = []
    rest: list[tuple[Mechanism, int]] = []
    for m, c in parts:
        base = m.mechanism if isinstance(m, Subsampled) else m
        if isinstance(base, Gaussian):
            mus.append((base.sensitivity / base.sigma, c))
        elif isinstance(m, MixtureOfGaussians):
            mus.append((max(m.sensitivities) / m.sigma, c))
        else:
            rest.append((m, c))
    E, D = _pure_bound(rest)
    if not math.isfinite(E):
        return None
    return _pld.composed_mu(mus), E, D


def _composition_epsilon(parts: list[tuple[Mechanism, int]], d: float) -> float | None:
    """Epsilon at ``d`` from :func:`_composition_bound` (basic composition: E + eps_GDP(mu, d - D)), or None."""
    b = _composition_bound(parts)
    if b is None or b[2] > d or (b[2] == d and b[0] > 0):
        return None
    mu, E, D = b
    if mu <= 0:
        return E
    try:
        return E + float(_pld.gdp_epsilon(mu, d - D))
    except ConvergenceError:  # mu beyond ~1e150: epsilon ~ mu^2 / 2 beyond the float range
        return math.inf


def _composition_delta(parts: list[tuple[Mechanism, int]], e: float) -> float | None:
    """Delta at ``e`` from :func:`_composition_bound` (D + delta_GDP(mu, e - E)), or None."""
    b = _composition_bound(parts)
    if b is None or e < b[1]:
        return None
    mu, E, D = b
    return min(1.0, D + (float(_pld.gdp_delta(e - E, mu)) if mu > 0 else 0.0))


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


def _lower_extra(c: _pld.ComposedPLD) -> float:
    """``extra`` for :meth:`~symdp.accountants.pld.ComposedPLD.epsilon` / ``delta`` that turns their upper bound
    into a lower one: their allowances (``upper_tail``, ``roundoff``) are taken back, the round-off bound and the
    mass wrapped into the window (``alias``: it can only have raised delta) come off delta; the +inf mass is the
    pairs' own (true) one.  So delta(eps) is computed as (composed tail sums) - roundoff - alias + inf_mass."""
    return -(c.upper_tail + 2 * c.roundoff + c.alias)


def _lower_grids(parts: list[tuple[Mechanism, int]], h: float) -> list[float]:
    """Grid spacing per direction (remove, add) for the lower end.  A DP-SGD step's privacy loss has an atom-like
    spike of most of its mass at its extreme ``log(1 - q)`` (remove; ``-log(1 - q)`` for add), which a lower
    discretisation must round down to the grid: up to ``h`` per step.  A spacing that divides ``a = -log(1 - q)``
    puts a grid point just below the spike (remove: ``h = a (1 + 1e-9) / k``; add: just below the top,
    ``h = a (1 - 1e-9) / k``), so the spike is rounded by about ``1e-9 a``.  Keyed to the first DP-SGD part;
    any spacing gives a rigorous lower end."""
    for m, _ in parts:
        if (isinstance(m, Subsampled) and isinstance(m.mechanism, Gaussian) and m.scheme == "poisson"
                and m.adjacency == "add_remove" and 0 < m.rate < 1):
            a = -math.log1p(-m.rate)
            k = max(1, round(a / h))
            if a / k < h / 4 or not math.isfinite(a):
                break
            return [a * (1 + 1e-9) / k, a * (1 - 1e-9) / k]
    return [h, h]


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

    def _composed(self, parts: list[tuple[Mechanism, int]], h: float, pessimistic: bool, tail_tol: float,
                  only: int | None = None) -> list[_pld.ComposedPLD]:
        """Both directions' composed PLDs (``only``: that direction's alone) on the grid ``h``."""
        dirs: list[list[tuple[_pld.DiscretePLD, int]]] = [[], []]
        total = sum(c for _, c in parts)
        step_tail = min(_TAIL, max(tail_tol / (4 * total), 1e-300))  # composed truncation mass <= tail_tol / 4
        hd = [h, h] if pessimistic else _lower_grids(parts, h)
        for m, c in parts:
            if (isinstance(m, Subsampled) and isinstance(m.mechanism, Gaussian)
                    and m.scheme == "poisson" and m.adjacency == "add_remove" and m.rate < 1):
                # the DP-SGD step: the tight accountant's own discretisation (tail-appropriate CDF forms); the
                # lower end from cells merged at their own likelihood ratio (pld_grid.discretize_step_lower:
                # dominated by the true pair, O(h^2) per step instead of rounding every loss down)
                z = m.mechanism.sigma / m.mechanism.sensitivity
                for i, direction in enumerate(("remove", "add")):
                    if only is not None and i != only:
                        continue
                    if pessimistic:
                        dirs[i].append((_pld.discretize_step(z, m.rate, h, direction, tail=step_tail), c))
                    else:
                        dirs[i].append((_pld.discretize_step_lower(z, m.rate, hd[i], direction, tail=step_tail), c))
                continue
            for i, pair in enumerate(_pairs(m, step_tail)):
                if only is None or i == only:
                    dirs[i].append((_discretize(pair, hd[i], pessimistic), c))
        return [_pld.compose(d, tail_tol=tail_tol, localized_roundoff=pessimistic) for d in dirs if d]

    def _run(self, parts: list[tuple[Mechanism, int]], evaluate: Callable[[_pld.ComposedPLD, bool], float],
             discretization: float | None, tail_tol: float) -> tuple[float, float, dict[str, Any]]:
        total = sum(c for _, c in parts)
        h = float(discretization) if discretization is not None else _pld.default_interval(total) / 2
        adaptive = discretization is None
        best = math.inf
        est = math.inf
        n_last = 0
        for _ in range(8):
            try:
                cs = self._composed(parts, h, True, tail_tol)
                ups = [evaluate(c, True) for c in cs]
                n_last = max(c.n_fft for c in cs)
                fine = max(ups)
                coarse = max(evaluate(c, True) for c in self._composed(parts, 2 * h, True, tail_tol))
                break
            except ConvergenceError:
                h *= 4
        else:  # pragma: no cover
            raise ConvergenceError("tight accountant: could not fit the composed privacy loss on an FFT grid")
        best = min(fine, coarse)
        est = max(coarse - fine, 0.0) / 3.0
        for it in range(_MAX_REFINE if adaptive else 0):
            if not math.isfinite(best) or est <= _TARGET_REL * max(best, 1e-12):
                break
            # three halvings down to h = 1e-4, as long as the composition is large; a small one (a tiny epsilon,
            # e.g. q = 1e-5: eps ~ 3e-3 needs h ~ 2e-6, still a short FFT) is refined on, to _MAX_REFINE halvings
            if (h < 1e-4 or it >= 3) and n_last > _CHEAP_FFT:
                break
            h /= 2
            try:
                cs = self._composed(parts, h, True, tail_tol)
                ups_h = [evaluate(c, True) for c in cs]
                n_last = max(c.n_fft for c in cs)
                v = max(ups_h)
            except ConvergenceError:
                break
            if v <= best:
                ups = ups_h
            est = max(best - v, 0.0) / 3.0 if v <= best else est
            best = min(best, v)
        # the direction with the larger upper value (equal values are ties: either is a lower end for the max)
        only = int(np.argmax(ups)) if len(ups) == 2 and all(u == u for u in ups) else None
        lower, h_low = self._lower(parts, evaluate, h, best, tail_tol, only)
        return best, min(lower, best), {"discretization": h, "error_estimate": est, "parts": len(parts), "steps": total,
                                        "lower_discretization": h_low}

    def _lower(self, parts: list[tuple[Mechanism, int]], evaluate: Callable[[_pld.ComposedPLD, bool], float], h: float,
               best: float, tail_tol: float, only: int | None) -> tuple[float, float]:
        """``(lower end, its grid)``: the dominated (optimistic) discretisation composed for the direction whose
        upper value is the larger (a lower bound for one direction is one for the max over both).  A DP-SGD part's
        grid is made fine enough to resolve the bulk of its per-step loss (about ``q`` wide: ``h <= q / 32``) and
        halved (at most twice) while the bracket is wider than 0.2% and the lower end still moves; every grid's value
        is a rigorous lower end, the largest is kept."""
        q = min((m.rate for m, _ in parts if isinstance(m, Subsampled) and isinstance(m.mechanism, Gaussian)
                 and m.scheme == "poisson" and 0 < m.rate < 1), default=None)
        floor_h = h
        if q is not None:
            # the finest grid allowed: each DP-SGD step's loss range in at most 2^19 points (the FFT window is
            # checked by compose itself)
            total = sum(c for _, c in parts)
            tail = min(_TAIL, max(tail_tol / (4 * total), 1e-300))
            width = max(_pld.step_loss_range(m.mechanism.sigma / m.mechanism.sensitivity, m.rate, tail)
                        for m, _ in parts if isinstance(m, Subsampled) and isinstance(m.mechanism, Gaussian)
                        and m.scheme == "poisson" and 0 < m.rate < 1)
            floor_h = min(h, max(1e-7, width / (1 << 19))) if math.isfinite(width) else h
        h_low = min(h, max(q / 32, floor_h)) if q is not None else h
        lower = -math.inf
        for _ in range(6):
            try:
                v = max(evaluate(c, False) for c in self._composed(parts, h_low, False, tail_tol, only))
            except ConvergenceError:
                if lower > -math.inf or h_low >= h:
                    break
                h_low = min(h_low * 4, h)  # the window was too long on this grid: a coarser one
                continue
            gain = v - lower
            lower = max(lower, v)
            if (not (math.isfinite(best) and best > 0) or best <= lower * (1 + 2e-3) or h_low / 2 < floor_h
                    or gain <= 2e-4 * abs(lower)):  # met, at the finest grid, or no longer moving
                break
            h_low = h_low / 2
        return (lower if lower > -math.inf else 0.0), h_low

    def _run_or_fallback(self, mechanism: Mechanism, parts: list[tuple[Mechanism, int]],
                         evaluate: Callable[[_pld.ComposedPLD, bool], float], discretization: float | None,
                         tail_tol: float, *, delta: float | None = None,
                         epsilon: float | None = None) -> tuple[float, float, dict[str, Any]] | MechanismResult:
        """:meth:`_run`, or :meth:`_fallback`'s labelled result where the PLD cannot answer (a grid past its budget,
        an overflow in a pair); a symdp error other than ConvergenceError propagates."""
        try:
            return self._run(parts, evaluate, discretization, tail_tol)
        except ConvergenceError as exc:
            return self._fallback(mechanism, parts, exc, delta=delta, epsilon=epsilon)
        except SymdpError:
            raise
        except (ArithmeticError, MemoryError, ValueError) as exc:  # an overflow in a pair: the rigorous fallbacks
            return self._fallback(mechanism, parts, exc, delta=delta, epsilon=epsilon)

    def _fallback(self, mechanism: Mechanism, parts: list[tuple[Mechanism, int]], exc: BaseException, *,
                  delta: float | None = None, epsilon: float | None = None) -> MechanismResult:
        """The PLD cannot answer (a loss range beyond the grid budget, e.g. 1e9 Laplace steps or a huge Gaussian
        shift; an overflow): the smaller of the rigorous upper bounds that apply -- the RDP accountant's and the
        composition bound (:func:`_composition_bound`: Gaussian parts exactly, DP parts by basic composition) --
        labelled; a one-line :class:`ConvergenceError` when neither applies."""
        cands: list[tuple[float, str, tuple[str, ...], dict[str, Any]]] = []
        why = f"tight accountant could not run ({type(exc).__name__}: {exc})"
        if not rdp.supports(mechanism):
            try:
                r = rdp.epsilon(mechanism, delta) if delta is not None else rdp.delta(mechanism, float(epsilon or 0.0))
                v = r.epsilon if delta is not None else r.delta
                if v == v:
                    cands.append((v, "rdp", r.notes, {**r.details, "fallback": "rdp"}))
            except (SymdpError, ArithmeticError, ValueError, MemoryError):
                pass
        cb = _composition_epsilon(parts, delta) if delta is not None else _composition_delta(parts, float(epsilon or 0.0))
        if cb is not None and cb == cb:
            cands.append((cb, "composition", _notes(mechanism), {"fallback": "composition"}))
        if not cands:
            raise ConvergenceError(f"{why}; no rigorous fallback covers {mechanism!r} (RDP: "
                                   f"{'; '.join(r for _, r in rdp.supports(mechanism)) or 'no answer'}; the composition "
                                   "bound needs Gaussian or (eps, delta)-DP parts)")
        v, which, notes, det = min(cands, key=lambda t: t[0])
        label = {"rdp": "the RDP accountant's upper bound", "composition": "the composition bound (Gaussian parts "
                 "composed exactly as GDP, the others by basic composition of their (eps, delta) guarantees)"}[which]
        note = f"{why}; {label} is reported"
        eps_v, delta_v = (v, float(delta)) if delta is not None else (float(epsilon or 0.0), v)
        return MechanismResult(eps_v, delta_v, f"tight (fallback: {which})", True, 0.0, v, (*notes, note), det)

    def _exact_gaussian(self, mechanism: Mechanism, parts: list[tuple[Mechanism, int]], *, delta: float | None = None,
                        epsilon: float | None = None) -> MechanismResult | None:
        """Gaussian mechanisms only: exactly mu-GDP (mu^2 = sum of the parts' mu^2), answered by the GDP profile in
        log space (no grid: time and memory independent of mu)."""
        mu = _gaussian_only(parts)
        if mu is None:
            return None
        det: dict[str, Any] = {"method": "exact: Gaussian mechanisms compose to mu-GDP", "mu": mu}
        notes = _notes(mechanism)
        if delta is not None:
            try:
                v = float(_pld.gdp_epsilon(mu, delta))
            except ConvergenceError:  # mu beyond ~1e150: epsilon ~ mu^2/2 is beyond the float range
                v = math.inf
                notes = (*notes, f"mu = {mu:.3g}: the exact epsilon (about mu^2/2) exceeds the float range; "
                                 "inf is reported as its upper bound")
            # the profile is evaluated in log space with its rounding moved to the safe side (a few ulps): the
            # lower end gives that back with a wide margin
            lo = max(0.0, v * (1 - 1e-9) - 1e-15) if math.isfinite(v) else v
            return MechanismResult(v, delta, self.name, True, lo, v, notes, det)
        e = float(epsilon or 0.0)
        v = float(_pld.gdp_delta(e, mu))
        return MechanismResult(e, v, self.name, True, max(0.0, v * (1 - 1e-9)), v, notes, det)

    def epsilon(self, mechanism: Mechanism, delta: float, *, discretization: float | None = None) -> MechanismResult:
        """Upper bound on epsilon at ``delta`` for the (composed) mechanism; ``lower`` is the optimistic estimate."""
        d = float(check_probability("delta", delta))
        if discretization is not None:
            check_real("discretization", discretization, 0.0, 1.0, lo_open=True)
        tail_tol = max(1e-4 * d, 1e-300)

        def ev(c: _pld.ComposedPLD, pess: bool) -> float:
            if pess:
                return float(c.epsilon(d)[0])
            v = float(c.epsilon(d, extra=_lower_extra(c), round_down=True)[0])
            return v - 8 * _U * abs(v) if math.isfinite(v) else v

        parts = _require(mechanism, _tight_reason, self.name)
        exact = self._exact_gaussian(mechanism, parts, delta=d)
        if exact is not None:
            return exact
        run = self._run_or_fallback(mechanism, parts, ev, discretization, tail_tol, delta=d)
        if isinstance(run, MechanismResult):
            return run
        eps, lo, det = run
        notes = _notes(mechanism)
        pure_eps, pure_delta = _pure_bound(parts)
        if pure_delta <= d and pure_eps < eps:  # basic composition of the parts' largest losses is exact here
            det["pure_dp_bound"] = pure_eps
            eps, lo = pure_eps, min(lo, pure_eps)
        inf_p = _inf_probability(parts)
        if not math.isfinite(eps) and inf_p < d:  # not a true infinity: the grid's allowances exceed delta
            fb = self._fallback(mechanism, parts, ConvergenceError(
                f"the discretisation's tail and rounding allowances reach delta={d!r}"), delta=d)
            # the lower end needs no allowance (they come off it): keep it beside the fallback's upper bound
            return dataclasses.replace(fb, lower=max(fb.lower, min(lo, fb.epsilon))) if lo == lo else fb
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
            extra = 0.0 if pess else _lower_extra(c)
            return float(np.asarray(c.delta(e, extra=extra)).reshape(-1)[0])

        parts = _require(mechanism, _tight_reason, self.name)
        exact = self._exact_gaussian(mechanism, parts, epsilon=e)
        if exact is not None:
            return exact
        run = self._run_or_fallback(mechanism, parts, ev, discretization, 1e-18, epsilon=e)
        if isinstance(run, MechanismResult):
            return run
        dl, lo, det = run
        pure_eps, pure_delta = _pure_bound(parts)
        if pure_eps <= e and pure_delta < dl:  # basic composition of the parts' (eps, delta) guarantees: exact here
            det["pure_dp_bound"] = pure_delta
            dl, lo = pure_delta, min(lo, pure_delta)
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
        if e < 700:
            ea = math.log1p(m.rate * math.expm1(e))
        else:  # no overflow
            ea = float(np.logaddexp(math.log(m.rate) + e, math.log1p(-m.rate)))
        return ea * (1 + 8 * _U) + 5e-324, _up(Fraction(m.rate) * Fraction(d))  # rounded up
    return e, d


def _up(x: Fraction) -> float:
    """The smallest float >= x."""
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


def _pure_bound(parts: list[tuple[Mechanism, int]]) -> tuple[float, float]:
    """Basic composition (sum of eps, 1 - prod(1 - delta)) of the parts' (eps, delta) guarantees, each rounded up to
    the next float from its exact value (rational arithmetic on the floats given, while the counts are small), so
    that ``(1, 0.1)`` and ``(2, 0.2)`` compose to exactly ``(3, 0.28)``."""
    eps_parts: list[tuple[float, int]] = []
    del_parts: list[tuple[float, int]] = []
    for m, c in parts:
        e, d = _max_loss(m)
        if not math.isfinite(e):
            return math.inf, 1.0
        eps_parts.append((e, c))
        if d > 0:
            del_parts.append((d, c))
    eps = _up(sum((Fraction(e) * c for e, c in eps_parts), Fraction(0)))
    if not del_parts:
        return eps, 0.0
    if sum(c for _, c in del_parts) <= 64:
        keep = Fraction(1)
        for d, c in del_parts:
            keep *= (1 - Fraction(d)) ** c
        return eps, _up(1 - keep)
    log_keep = sum(c * math.log1p(-d) if d < 1 else -math.inf for d, c in del_parts)
    return eps, min(-math.expm1(log_keep) * (1 + 8 * _U * len(del_parts)) + 5e-324, 1.0)


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
