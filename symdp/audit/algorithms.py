r"""Mechanism-level audit of the algorithm theorems: the claim against the *real* mechanism.

The library keeps each algorithm theorem of He et al. (IGMM, He et al. (UAI) Thm 7; SGLD, He et al. (long) Thm 7; federated
learning, He et al. (long) Thm 8) in its *generic* reading: "T steps, each (eps~, delta)-DP, compose to
(eps', delta')".  A counterexample to that reading is a pair of abstract (eps~, delta)-DP
mechanisms, not the algorithm.  Here each theorem is encoded with the mechanism it is about (issue
12, item 1): every step releases the mini-batch mean of a statistic plus Gaussian noise, the batch
of ``tau`` of ``N`` examples is drawn without replacement afresh each step, ``T`` steps are
composed, and the guarantee is for neighbouring datasets that differ in one example (replace-one).

The oracle is a rigorous **lower** bound on the real mechanism's delta at the claimed eps'.  One
concrete neighbouring pair suffices: give every example the statistic ``0`` except the replaced
one, which moves to ``Delta`` along one axis (for IGMM ``Delta = D`` (the update diameter), for
SGLD a linear loss with gradient ``+-L``, for federated learning client updates ``+-L``).  Then
step ``t`` outputs ``x_t ~ N(0, s^2)`` on ``S`` and ``(1 - q) N(0, s^2) + q N(Delta/tau, s^2)`` on
``S'`` (``q = tau/N``: the replaced example is in the batch with probability ``q``, independently
across steps), and any event ``A`` gives ``delta(eps) >= P_{S'}(A) - e^eps P_S(A)``.  We use the
optimal test on the sufficient-for-``q = 1`` statistic ``sum_t x_t``: under ``S`` it is
``N(0, T s^2)``, under ``S'`` a binomial mixture of ``N(k Delta/tau, T s^2)``, both computed
exactly in mpmath; the threshold solves the likelihood-ratio equation.  The bound is *exact* for
``T = 1`` (the likelihood ratio is monotone in ``x``) and for ``q = 1`` (then it is the Gaussian
profile with ``mu = sqrt(T) Delta / (tau s)``, Balle and Wang 2018), and a valid lower bound
everywhere.  Beside it we report the tight PLD accountant's **upper** bound for the same pair
(:func:`symdp.accountants.delta`, Poisson add/remove, which is this pair), so the true value of the
pair lies in ``[lower, upper]``.

A FAILS comes with the algorithm's own hyperparameters (N, tau, T, sigma, D or L, delta, delta~)
and the bracket.  Without a counterexample on the grid the verdict is UNDECIDED: the upper bound
of one pair is not an upper bound over all replace-one pairs, so no HOLDS is claimed.

>>> r = audit_algorithm(ALGORITHM_CLAIMS["algo.he2021uai.thm7_igmm"])
>>> r.verdict, r.extra["mechanism"]["kind"]
('FAILS', 'self_composed')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import mpmath
import numpy as np

from ..mechanisms import Gaussian, SelfComposed, Subsampled
from ..theorem import Source
from .pair_oracle import PairDelta as PairDelta
from .pair_oracle import _log_lr as _log_lr
from .pair_oracle import _pair_delta_float as _pair_delta_float
from .pair_oracle import _threshold as _threshold
from .pair_oracle import pair_delta_lower as pair_delta_lower
from .pair_oracle import pair_delta_upper as pair_delta_upper
from .report import AuditResult

Hyper = dict[str, float]
# ---------------------------------------------------------------------------
# the claims
# ---------------------------------------------------------------------------
def _rhs(theorem_id: str, backend: str) -> tuple[Callable[..., Any], tuple[str, ...]]:
    """The library entry's rhs compiled for ``backend`` with its argument names (never re-typed)."""
    import sympy as sp

    from ..library import get

    th = get(theorem_id, with_evidence=False)
    assert th.rhs is not None, theorem_id
    syms = tuple(sorted(th.rhs.free_symbols, key=lambda s: s.name))
    return sp.lambdify(syms, th.rhs, modules=backend), tuple(s.name for s in syms)


_COMPILED: dict[tuple[str, str], tuple[Callable[..., Any], tuple[str, ...]]] = {}


def _call(theorem_id: str, backend: str, values: Mapping[str, Any]) -> Any:
    key = (theorem_id, backend)
    if key not in _COMPILED:
        _COMPILED[key] = _rhs(theorem_id, backend)
    fn, names = _COMPILED[key]
    return fn(*(values[n] for n in names))


ClaimFn = Callable[[Hyper, str], "tuple[Any, Any] | None"]


@dataclass(frozen=True)
class AlgorithmClaim:
    """An algorithm theorem as the claim "this mechanism, run with these hyperparameters, is (eps', delta')-DP"."""

    id: str
    title: str
    source: Source
    quote: str
    refines: tuple[str, ...]  # the library entries holding the generic reading
    reading: str
    pair: str  # the neighbouring pair of the lower bound, in words
    sensitivity: Callable[[Hyper], float]  # Delta / tau: L2 sensitivity of the noisy batch mean
    noise_std: Callable[[Hyper], float]
    claim: ClaimFn  # (eps', delta') at the hyperparameters, backend "mpmath" or "numpy"; None outside the domain
    grid: Callable[[], Iterable[Hyper]]
    notes: str = ""
    tags: tuple[str, ...] = field(default=())
    grid_text: str = ""  # the grid in words when it is not the common one

    def mechanism(self, h: Hyper) -> SelfComposed:
        """The mechanism that runs (symdp.mechanisms types)."""
        step = Subsampled(Gaussian(sensitivity=self.sensitivity(h), sigma=self.noise_std(h)),
                          rate=h["tau"] / h["N"], scheme="without_replacement", adjacency="replace_one")
        return SelfComposed(step, int(h["T"]))


def _ok(eps_p: Any, delta_p: Any) -> bool:
    try:
        e, d = complex(eps_p), complex(delta_p)
    except (TypeError, ValueError):
        return False
    return (abs(e.imag) < 1e-300 and abs(d.imag) < 1e-300 and math.isfinite(e.real) and math.isfinite(d.real)
            and e.real > 0 and 0 < d.real < 1)


def _igmm_claim(h: Hyper, backend: str) -> tuple[Any, Any] | None:
    """He et al. (UAI) Thm 7 at hyperparameters h: eps~ -> eps' -> delta~' -> delta' (library rhs, in that order)."""
    v: dict[str, Any] = {"N": h["N"], "tau": h["tau"], "D": h["D"], "sigma": h["sigma"], "delta": h["delta"],
                         "deltatilde": h["deltatilde"], "T": h["T"]}
    if backend == "mpmath":
        v = {k_: mpmath.mpf(x) for k_, x in v.items()}
    et = _call("he2021uai.thm7_eps_tilde", backend, v)
    v["epsilontilde"] = et
    ep = _call("he2021uai.thm7_eps", backend, v)
    if not ep < v["T"] * et:  # the theorem's delta~' needs eps' < T eps~ (hypothesis of the entry)
        return None
    v["epsilonprime"] = ep
    v["deltatildeprime"] = _call("he2021uai.thm7_delta_tilde_p", backend, v)
    dp = _call("he2021uai.thm7_delta", backend, v)
    return (ep, dp) if _ok(ep, dp) else None


def _igmm_step_claim(reading: str) -> ClaimFn:
    """He et al. (UAI) Thm 7's per-step guarantee: one IGMM step (T = 1) is (eps~, delta)-DP, eps~ in one of the two readings of
    the garbled display: ``"A"`` the library's (the whole numerator over 2 sigma^2), ``"B"`` only D^2/tau^2 over
    2 sigma^2 (the first term sqrt2 D sigma sqrt(log 1/delta)/tau outside the fraction, as the plain text runs)."""

    def claim(h: Hyper, backend: str) -> tuple[Any, Any] | None:
        if int(h["T"]) != 1:
            return None
        v: dict[str, Any] = {k_: h[k_] for k_ in ("N", "tau", "D", "sigma", "delta")}
        if backend == "mpmath":
            v = {k_: mpmath.mpf(x) for k_, x in v.items()}
        if reading == "A":
            et = _call("he2021uai.thm7_eps_tilde", backend, v)
        else:
            lib = mpmath if backend == "mpmath" else np
            inner = (lib.sqrt(2) * v["D"] * v["sigma"] / v["tau"] * lib.sqrt(lib.log(1 / v["delta"]))
                     + v["D"] ** 2 / (2 * v["sigma"] ** 2 * v["tau"] ** 2))
            et = lib.log((v["N"] - v["tau"]) / v["N"] + v["tau"] / v["N"] * lib.exp(inner))
        return (et, v["delta"]) if _ok(et, v["delta"]) else None

    return claim


def _one_step(scale: str) -> Callable[[], Iterable[Hyper]]:
    def gen() -> Iterable[Hyper]:
        for h in _grid(scale)():
            if h["T"] == 1 and h["deltatilde"] == GRID_DELTATILDE[0]:
                yield h

    return gen


def _privacy_for_free_claim(h: Hyper, backend: str) -> tuple[Any, Any] | None:
    """He et al.'s (long) quote of Wang et al. (2015): SGLD is (eps, delta)-DP if T > eps^2 N/(32 tau log(2/delta)) (library
    entry classical.wang2015_sgld_privacy_for_free); the claim at hyperparameters that satisfy the quoted condition."""
    v = {k_: h[k_] for k_ in ("N", "tau", "T", "delta", "epsilon")}
    if not v["T"] > v["epsilon"] ** 2 * v["N"] / (32 * v["tau"] * math.log(2 / v["delta"])):
        return None
    if backend == "mpmath":
        return mpmath.mpf(v["epsilon"]), mpmath.mpf(v["delta"])
    return v["epsilon"], v["delta"]


def _sgld_step_size_grid() -> Iterable[Hyper]:
    """SGLD theta <- theta - (eta/2)(N/tau) sum_batch grad l + N(0, eta I): per-step ratio r = sqrt(eta) N L/tau; eta set
    from r on the grid (the quote states no step-size condition)."""
    for tau, r, T, d, e in product(GRID_TAU, GRID_R, GRID_T, GRID_DELTA, (0.1, 1.0, 5.0)):
        yield {"N": GRID_N, "tau": tau, "T": T, "delta": d, "epsilon": e, "L": 1.0, "eta": (r * tau / GRID_N) ** 2}


def _sgld_claim(h: Hyper, backend: str) -> tuple[Any, Any] | None:
    """He et al. (long) Thm 7 (reading: delta~ a free parameter in (0, 1), as Composition Theorem I uses it)."""
    v: dict[str, Any] = {"N": h["N"], "tau": h["tau"], "L": h["L"], "sigma": h["sigma"], "delta": h["delta"],
                         "deltatilde": h["deltatilde"], "T": h["T"]}
    if backend == "mpmath":
        v = {k_: mpmath.mpf(x) for k_, x in v.items()}
    v["epsilontilde"] = _call("he2021long.thm7_eps_tilde", backend, v)
    ep = _call("he2021long.thm7_eps", backend, v)
    dp = _call("he2021long.thm7_delta", backend, v)
    return (ep, dp) if _ok(ep, dp) else None


def _fl_claim(h: Hyper, backend: str) -> tuple[Any, Any] | None:
    """He et al. (long) Thm 8 (reading: the eps of eq. (15) is the theorem's eps~, as in Thm 7 and C.2)."""
    v: dict[str, Any] = {"N": h["N"], "tau": h["tau"], "sigma": h["sigma"], "delta": h["delta"],
                         "deltatilde": h["deltatilde"], "T": h["T"]}
    if backend == "mpmath":
        v = {k_: mpmath.mpf(x) for k_, x in v.items()}
    et = _call("he2021long.thm8_eps_tilde", backend, v)
    v["epsilontilde"] = et
    v["epsilon"] = et
    ep = _call("he2021long.thm8_eps", backend, v)
    dp = _call("he2021long.thm8_delta", backend, v)
    return (ep, dp) if _ok(ep, dp) else None


def _split(free_claim: ClaimFn, eps_id: str, dt_id: str, per_step: Callable[[Hyper, str], dict[str, Any]]) -> ClaimFn:
    """He et al. (long) Thm 7/8 read as He et al. (UAI) Thm 7 is printed: eps' spends a free delta~ (log(1/delta~)), while the additive term of
    delta' is the theorem's *defined* delta~ (a function of eps'; He et al.'s (UAI) delta~').  He et al. (long) writes both with one symbol,
    which makes the definition circular; this reading separates them.  delta' = delta'_free - delta~ + delta~_def(eps').
    """

    def claim(h: Hyper, backend: str) -> tuple[Any, Any] | None:
        free = free_claim(h, backend)
        if free is None:
            return None
        ep, dp = free
        v = per_step(h, backend)
        if not ep < v["T"] * v["tau"] / v["N"] * v["epsilontilde"]:  # the definition's hypothesis
            return None
        dt_def = _call(dt_id, backend, {**v, "epsilonprime": ep})
        dt = mpmath.mpf(h["deltatilde"]) if backend == "mpmath" else h["deltatilde"]
        out = dp - dt + dt_def
        return (ep, out) if _ok(ep, out) else None

    return claim


def _sgld_step(h: Hyper, backend: str) -> dict[str, Any]:
    v: dict[str, Any] = {k_: h[k_] for k_ in ("N", "tau", "L", "sigma", "delta", "T")}
    if backend == "mpmath":
        v = {k_: mpmath.mpf(x) for k_, x in v.items()}
    v["epsilontilde"] = _call("he2021long.thm7_eps_tilde", backend, v)
    return v


def _fl_step(h: Hyper, backend: str) -> dict[str, Any]:
    v: dict[str, Any] = {k_: h[k_] for k_ in ("N", "tau", "sigma", "delta", "T")}
    if backend == "mpmath":
        v = {k_: mpmath.mpf(x) for k_, x in v.items()}
    v["epsilontilde"] = _call("he2021long.thm8_eps_tilde", backend, v)
    v["epsilon"] = v["epsilontilde"]
    return v


#: the hyperparameter grid: N = 1000, batch tau, noise set from the per-step ratio r = (Delta/tau)/std
GRID_N = 1000
GRID_TAU = (10, 100, 500, 900)
GRID_R = (0.02, 0.05, 0.2, 1.0, 4.0, 10.0)
GRID_T = (1, 10, 100, 1000)
GRID_DELTA = (1e-5, 1e-10)
GRID_DELTATILDE = (1e-5, 0.1, 0.9, 0.99)
GRID_TEXT = (f"N = {GRID_N}, tau in {GRID_TAU}, per-step r = sensitivity/std in {GRID_R} (sigma set from r), "
             f"T in {GRID_T}, delta in {GRID_DELTA}, delta~ in {GRID_DELTATILDE}")


def _grid(scale: str) -> Callable[[], Iterable[Hyper]]:
    """Grid over the algorithm's hyperparameters; ``scale`` names how sigma follows from r."""

    def gen() -> Iterable[Hyper]:
        for tau, r, T, d, dt in product(GRID_TAU, GRID_R, GRID_T, GRID_DELTA, GRID_DELTATILDE):
            h: Hyper = {"N": GRID_N, "tau": tau, "T": T, "delta": d, "deltatilde": dt}
            if scale == "D":  # IGMM: sensitivity D/tau, noise std sigma
                h["D"] = 1.0
                h["sigma"] = 1.0 / (tau * r)
            elif scale == "L":  # SGLD: sensitivity 2L/tau, noise std sigma
                h["L"] = 1.0
                h["sigma"] = 2.0 / (tau * r)
            else:  # FL: sensitivity 2L/tau, noise std L sigma
                h["L"] = 1.0
                h["sigma"] = 2.0 / (tau * r)
            yield h

    return gen


def _src(paper: str, locator: str) -> Source:
    from ..library._sources import src

    return src(paper, locator)


ALGORITHM_CLAIMS: dict[str, AlgorithmClaim] = {
    c.id: c
    for c in (
        *(AlgorithmClaim(
            id=f"algo.he2021uai.thm7_igmm_step_reading_{rd.lower()}",
            title=f"One IGMM step is (eps~, delta)-DP, eps~ of He et al. (UAI) Thm 7 in reading {rd}: audited on the real mechanism",
            source=_src("he2021-uai", "Theorem 7, Algorithm 1"),
            quote=("He et al. (UAI) Thm 7: 'eps~ = log[(N - tau)/N + tau/N exp( sqrt2 D sigma (1/tau) sqrt(log 1/delta) + (1/tau^2) D^2 / "
                   "(2 sigma^2) )]' (plain text; the fraction bars are lost) and 'each iteration ... is (eps~, delta)-DP' "
                   "(the premise of the composition)"),
            refines=("he2021uai.thm7_eps",),
            reading=("A: the whole numerator over 2 sigma^2 (the library's he2021uai.thm7_eps_tilde; dimensionally "
                     "consistent, He et al.'s (long) eps~ with D = 2L)") if rd == "A" else (
                     "B: only D^2/tau^2 over 2 sigma^2, the first term sqrt2 D sigma sqrt(log 1/delta)/tau outside "
                     "the fraction (as the plain text runs; not dimensionally consistent: it grows with sigma)"),
            pair="g(z, W) = 0 for every example of S; the replaced example has g = D e_1 (diameter D)",
            sensitivity=lambda h: h["D"] / h["tau"],
            noise_std=lambda h: h["sigma"],
            claim=_igmm_step_claim(rd),
            grid=_one_step("D"),
            notes="T = 1: the pair's lower bound is the exact delta of the pair (the likelihood ratio is monotone).",
        ) for rd in ("A", "B")),
        AlgorithmClaim(
            id="algo.wang2015.sgld_privacy_for_free_as_quoted",
            title="SGLD is (eps, delta)-DP if T > eps^2 N/(32 tau log(2/delta)), as He et al. (long) quotes Wang et al. (2015): on the "
                  "real mechanism",
            source=_src("he2021-long", "Sec. 5 (related work), quoting Wang, Fienberg, Smola 2015"),
            quote=("He et al. (long): 'Wang et al. [68] proved that SGLD has privacy for free without injecting noise. Specifically, the "
                   "authors proved that SGLD is (eps, delta)-differentially private if T > eps^2 N/(32 tau log(2/delta))'"),
            refines=("classical.wang2015_sgld_privacy_for_free",),
            reading="SGLD as Welling and Teh define it (step eta: drift (eta/2)(N/tau) sum of batch gradients, noise N(0, "
                    "eta I)), any step size (the quote states no condition on it), linear losses with ||grad l|| = L",
            pair="linear losses l(z, theta) = -L theta_1 on S, the replaced example +L theta_1 (||grad l|| = L)",
            sensitivity=lambda h: h["eta"] * h["N"] * h["L"] / h["tau"],
            noise_std=lambda h: math.sqrt(h["eta"]),
            claim=_privacy_for_free_claim,
            grid=_sgld_step_size_grid,
            grid_text=(f"N = {GRID_N}, tau in {GRID_TAU}, per-step r = sqrt(eta) N L/tau in {GRID_R} (eta set from r), "
                       f"T in {GRID_T}, delta in {GRID_DELTA}, eps in (0.1, 1.0, 5.0), only points with T above the quoted bound"),
            notes="Wang et al.'s theorem also bounds the step size; the quoted condition alone (a lower bound on T) "
                  "cannot make SGLD private, since a larger step size moves the drift faster than the noise grows.",
        ),
        AlgorithmClaim(
            id="algo.he2021uai.thm7_igmm",
            title="IGMM (Algorithm 1) is (eps', delta')-DP: audited on the real mechanism",
            source=_src("he2021-uai", "Theorem 7, Algorithm 1"),
            quote=("'Theorem 7. IGMM described as Algorithm 1 is (eps', delta')-differentially private, where eps' = "
                   "sqrt(2T log(1/delta~) eps~^2) + T eps~ (e^eps~ - 1)/(e^eps~ + 1), delta' = 2 - (1 - delta/(1 + "
                   "e^eps~))^T + delta~' - ...'; Algorithm 1: 'Uniformly sample a mini-batch B_t of size tau from S "
                   "without replacement; Sample g_t from sigma N(0, I); W_t <- W_{t-1} - eta_t [1/tau sum g(z, W) + g_t]'"),
            refines=("he2021uai.thm7_eps", "he2021uai.thm7_delta"),
            reading="eps~, delta~', delta' as printed (library entries he2021uai.thm7_*); delta~ in (0, 1) free in eps'",
            pair="g(z, W) = 0 for every example of S; the replaced example has g = D e_1 (diameter D)",
            sensitivity=lambda h: h["D"] / h["tau"],
            noise_std=lambda h: h["sigma"],
            claim=_igmm_claim,
            grid=_grid("D"),
            notes="delta' carries delta~' but not delta~, although eps' spends sqrt(2 T log(1/delta~)) eps~.",
        ),
        AlgorithmClaim(
            id="algo.he2021long.thm7_sgld",
            title="SGLD (Algorithm 1 of He et al. (long)) is (eps', delta')-DP: audited on the real mechanism",
            source=_src("he2021-long", "Theorem 7, Algorithm 1, Appendix C.1"),
            quote=("'Theorem 7. SGLD is (eps', delta')-differentially private. eps' = sqrt(8 log(1/delta~) (tau^2/N^2 T "
                   "eps~^2)) + 2T (tau/N) eps~ ...'; Algorithm 1: 'Randomly sample a mini-batch B of size tau; Sample "
                   "g_t from N(0, sigma^2 I); theta_t <- theta_{t-1} - eta_t [1/tau grad r + 1/tau sum grad l(z) + g_t]'"),
            refines=("he2021long.thm7_eps", "he2021long.thm7_delta"),
            reading="delta~ a free parameter in (0, 1) (its printed definition is circular in eps')",
            pair="linear losses l(z, theta) = -L theta_1 on S, the replaced example +L theta_1 (||grad l|| = L)",
            sensitivity=lambda h: 2 * h["L"] / h["tau"],
            noise_std=lambda h: h["sigma"],
            claim=_sgld_claim,
            grid=_grid("L"),
        ),
        AlgorithmClaim(
            id="algo.he2021long.thm8_fl",
            title="DP federated learning (Algorithm 2 of He et al. (long)) is (eps', delta')-DP: audited on the real mechanism",
            source=_src("he2021-long", "Theorem 8, eq. (15), Algorithm 2"),
            quote=("'Theorem 8 ... Agnostic federated learning is (eps', delta')-differentially private. eps' = "
                   "sqrt(8 log(1/delta~) (tau^2/N^2 T eps^2)) + 2T (tau/N) eps ... (15)'; Algorithm 2: 'Randomly sample "
                   "a mini-batch of clients of size tau; sample b_t from N(0, L^2 sigma^2 I); theta <- theta + (1/B sum "
                   "ClientUpdate/max(1, ||h||/L) + b_t)'"),
            refines=("he2021long.thm8_eps", "he2021long.thm8_delta"),
            reading="the eps of eq. (15) read as the theorem's eps~ (C.2: 'All other reasoning is the same'); "
                    "delta~ a free parameter in (0, 1)",
            pair="client updates -L e_1 on S, the replaced client +L e_1 (clipped norm L)",
            sensitivity=lambda h: 2 * h["L"] / h["tau"],
            noise_std=lambda h: h["L"] * h["sigma"],
            claim=_fl_claim,
            grid=_grid("FL"),
        ),
        AlgorithmClaim(
            id="algo.he2021long.thm7_sgld_split_delta_tilde",
            title="SGLD (He et al. (long) Thm 7), delta' with the theorem's defined delta~ (He et al.'s (UAI) delta~'): on the real mechanism",
            source=_src("he2021-long", "Theorem 7, Algorithm 1, Appendix C.1"),
            quote=("'... + delta~, where eps~ = ... and delta~ = e^{-(eps' + (tau/N) T eps~)/2} (1/(1 + e^{(tau/N) eps~}) "
                   "(2 (tau/N) T eps~/((tau/N) T eps~ - eps')))^T ((tau/N) eps~ T + eps')/((tau/N) T eps~ - "
                   "eps'))^{-(N eps' + tau T eps~)/(2 tau eps~)}' (He et al. (long) Thm 7)"),
            refines=("he2021long.thm7_eps", "he2021long.thm7_delta"),
            reading="two symbols merged in He et al. (long): eps' uses a free delta~, delta' adds the printed definition of delta~ "
                    "at eps' (as He et al. (UAI) Thm 7 separates delta~ and delta~'); a fixed point of the circular definition "
                    "does not exist on the grid (the definition is far below delta~). Other reading: "
                    "algo.he2021long.thm7_sgld (delta~ free in both)",
            pair="linear losses l(z, theta) = -L theta_1 on S, the replaced example +L theta_1 (||grad l|| = L)",
            sensitivity=lambda h: 2 * h["L"] / h["tau"],
            noise_std=lambda h: h["sigma"],
            claim=_split(_sgld_claim, "he2021long.thm7_eps", "he2021long.thm7_delta_tilde", _sgld_step),
            grid=_grid("L"),
        ),
        AlgorithmClaim(
            id="algo.he2021long.thm8_fl_split_delta_tilde",
            title="DP federated learning (He et al. (long) Thm 8), delta' with the defined delta~: on the real mechanism",
            source=_src("he2021-long", "Theorem 8, eq. (15), Algorithm 2"),
            quote="'... + delta~, where eps~ = ... and delta~ = e^{-(eps' + (tau/N) T eps~)/2} ...' (He et al. (long) Thm 8, as Thm 7)",
            refines=("he2021long.thm8_eps", "he2021long.thm8_delta"),
            reading="eps of eq. (15) = eps~; eps' uses a free delta~, delta' adds the printed definition of delta~ at "
                    "eps' (as He et al. (UAI) Thm 7). Other reading: algo.he2021long.thm8_fl (delta~ free in both)",
            pair="client updates -L e_1 on S, the replaced client +L e_1 (clipped norm L)",
            sensitivity=lambda h: 2 * h["L"] / h["tau"],
            noise_std=lambda h: h["L"] * h["sigma"],
            claim=_split(_fl_claim, "he2021long.thm8_eps", "he2021long.thm8_delta_tilde", _fl_step),
            grid=_grid("FL"),
        ),
    )
}


def _fmt(x: Any) -> str:
    return mpmath.nstr(mpmath.mpf(x), 12) if not isinstance(x, str) else x


def audit_algorithm(ac: AlgorithmClaim, *, confirm: int = 6, grid: Iterable[Hyper] | None = None) -> AuditResult:
    """Search the grid for hyperparameters where the real mechanism's delta(eps') exceeds the claimed delta'.

    Every grid point is screened in float; the ``confirm`` most violating ones are re-evaluated in
    mpmath (claim and lower bound at 30 digits) and the worst confirmed one is reported with the
    tight-PLD upper bound of the same pair.
    """
    screened: list[tuple[float, Hyper]] = []
    n_in_domain = 0
    pts = list(grid if grid is not None else ac.grid())
    with np.errstate(all="ignore"):
        for h in pts:
            try:
                cl = ac.claim(h, "numpy")
            except (ZeroDivisionError, OverflowError, ValueError):
                cl = None
            if cl is None:
                continue
            n_in_domain += 1
            ep, dp = float(np.real(cl[0])), float(np.real(cl[1]))
            q, r = h["tau"] / h["N"], ac.sensitivity(h) / ac.noise_std(h)
            lo = _pair_delta_float(q, r, int(h["T"]), ep)
            screened.append((lo / dp, h))
    screened.sort(key=lambda t: -t[0])
    confirmed: list[tuple[mpmath.mpf, Hyper, Any, Any, PairDelta]] = []
    for ratio, h in screened[:confirm]:
        if ratio <= 0.5:
            break
        with mpmath.workdps(30):
            cl = ac.claim(h, "mpmath")
            if cl is None:
                continue
            ep, dp = cl
            q, r = h["tau"] / h["N"], ac.sensitivity(h) / ac.noise_std(h)
            pdl = pair_delta_lower(q, r, int(h["T"]), ep)
            if pdl.lower > dp:
                confirmed.append((pdl.lower / dp, h, ep, dp, pdl))
    n_screen_viol = sum(1 for ratio, _ in screened if ratio > 1)
    # where on the grid the (float-screened) violations live, parameter by parameter
    where: dict[str, list[float]] = {}
    for ratio, h in screened:
        if ratio > 1:
            derived = {"q = tau/N": h["tau"] / h["N"], "r = sensitivity/std": round(ac.sensitivity(h) / ac.noise_std(h), 12)}
            for k_, v in {**h, **derived}.items():
                where.setdefault(k_, [])
                if v not in where[k_]:
                    where[k_].append(v)
    where = {k_: sorted(v) for k_, v in where.items()}
    region = violation_region(where, [h for _, h in screened], ac)
    base: dict[str, Any] = dict(id=ac.id, kind="algorithm", title=ac.title, source=ac.source.cite(),
                statement=f"{ac.title.split(':')[0]} is (eps', delta')-DP with eps', delta' of {', '.join(ac.refines)}")
    extra: dict[str, Any] = {
        "origin": "paper", "reading": ac.reading, "quote": ac.quote, "refines": list(ac.refines),
        "grid": (ac.grid_text or GRID_TEXT) if grid is None else f"{len(pts)} given points",
        "points": len(pts), "points_in_domain": n_in_domain, "points_violating_screen": n_screen_viol,
        "lower_bound_pair": ac.pair, "violations_where": where, "violations_region": region,
    }
    if confirmed:
        confirmed.sort(key=lambda t: -t[0])
        ratio, h, ep, dp, pdl = confirmed[0]
        mech = ac.mechanism(h)
        q, r = h["tau"] / h["N"], ac.sensitivity(h) / ac.noise_std(h)
        up = pair_delta_upper(q, r, int(h["T"]), float(ep))
        extra.update({
            "mechanism": mech.to_dict(), "eps_prime": _fmt(ep), "delta_claimed": _fmt(dp),
            "delta_lower": _fmt(pdl.lower), "delta_upper_tight_pld": None if up is None else repr(up),
            "lower_is_exact": pdl.exact, "test": f"sum of the T outputs, {pdl.direction}, threshold {pdl.threshold:.6g}",
            "ratio": mpmath.nstr(ratio, 6), "confirmed_violations": len(confirmed),
        })
        bracket = f"[{_fmt(pdl.lower)}, {up!r}]" if up is not None else f">= {_fmt(pdl.lower)}"
        detail = (f"at the algorithm's hyperparameters {_hyper_text(h)} the claim gives eps' = {_fmt(ep)}, "
                  f"delta' = {_fmt(dp)}; the real mechanism ({_mech_text(ac, h)}) has delta(eps') in {bracket} "
                  f"({'exact' if pdl.exact else 'rigorous lower bound'} from the pair: {ac.pair}; upper end: tight PLD) "
                  f"= {mpmath.nstr(ratio, 4)} x the claim. {len(confirmed)} of the {min(confirm, len(screened))} "
                  f"worst screened points confirmed at 30 digits; {n_screen_viol} of {n_in_domain} grid points in "
                  f"the theorem's domain violate in the float screen, {region}. Grid: {extra['grid']}.")
        return AuditResult(**base, verdict="FAILS", rung="mechanism", detail=detail, region=region,
                           counterexample={k_: repr(v) for k_, v in h.items()}, claimed=_fmt(dp),
                           actual=_fmt(pdl.lower), margin=_fmt(dp - pdl.lower), cases=len(pts), extra=extra)
    detail = (f"no hyperparameters on the grid ({extra['grid']}; {n_in_domain} points in the theorem's domain) "
              f"where the pair's rigorous lower bound exceeds the claimed delta'. Not a proof: the pair is one "
              f"replace-one pair, so no upper bound over all pairs is claimed.")
    return AuditResult(**base, verdict="UNDECIDED", rung="mechanism", detail=detail, cases=len(pts), extra=extra)


_NAMES = {"deltatilde": "delta~", "r = sensitivity/std": "per-step noise ratio r = sensitivity/std", "q = tau/N": "q = tau/N"}


def violation_region(where: Mapping[str, list[float]], points: Iterable[Hyper], ac: AlgorithmClaim | None = None) -> str:
    """Where on the grid the violations are, in words: for each parameter whose violating values are a strict
    subset of the values the grid takes in the theorem's domain, ``name >= v`` (an upper tail), ``name <= v``
    (a lower tail) or ``name in {...}``; parameters along which violations occur at every value are not named.

    >>> violation_region({"deltatilde": [0.9, 0.99], "T": [1, 10]}, [{"deltatilde": d, "T": t} for d in (1e-5, 0.9, 0.99)
    ...                  for t in (1, 10)])
    'violations only at delta~ >= 0.9'
    """
    if not where:
        return "no violations on the grid"
    allv: dict[str, set[float]] = {}
    for h in points:
        vals = dict(h)
        if ac is not None:
            vals["q = tau/N"] = h["tau"] / h["N"]
            vals["r = sensitivity/std"] = round(ac.sensitivity(h) / ac.noise_std(h), 12)
        for k_, v in vals.items():
            allv.setdefault(k_, set()).add(v)
    parts = []
    for k_, viol in where.items():
        if k_ == "sigma" and ac is not None:
            continue  # set from r and tau on the grid: r names the regime
        full = sorted(allv.get(k_, set()))
        vs = sorted(set(viol))
        if not full or len(vs) >= len(full):
            continue
        name = _NAMES.get(k_, k_)
        if vs == full[-len(vs):]:
            parts.append(f"{name} >= {vs[0]:g}")
        elif vs == full[:len(vs)]:
            parts.append(f"{name} <= {vs[-1]:g}")
        else:
            parts.append(f"{name} in {{{', '.join(f'{v:g}' for v in vs)}}}")
    if not parts:
        return "violations occur at every grid value of each parameter (no parameter confines them)"
    return "violations only at " + ", ".join(parts)


def _hyper_text(h: Hyper) -> str:
    return ", ".join(f"{k_} = {v:.6g}" if isinstance(v, float) else f"{k_} = {v}" for k_, v in h.items())


def _mech_text(ac: AlgorithmClaim, h: Hyper) -> str:
    return (f"T = {int(h['T'])} steps, batch mean of sensitivity {ac.sensitivity(h):.6g} plus N(0, "
            f"{ac.noise_std(h):.6g}^2), batch of {int(h['tau'])} of {int(h['N'])} without replacement")


def algorithm_claims_for(theorem_ids: Iterable[str]) -> list[AlgorithmClaim]:
    """The mechanism-level claims refining any of these library entries (each once, in library order)."""
    ids = set(theorem_ids)
    return [ac for ac in ALGORITHM_CLAIMS.values() if ids & set(ac.refines)]


__all__ = ["ALGORITHM_CLAIMS", "AlgorithmClaim", "PairDelta", "algorithm_claims_for", "audit_algorithm",
           "pair_delta_lower", "pair_delta_upper", "violation_region"]
