r"""Monte Carlo oracles with confidence intervals: the worked examples of [Wang, Lei, Fienberg 2016, Sec. 6].

The simulators live with the library entries (``symdp.library.kl_privacy``:
``laplace_mean_mc``, ``linreg_mc``); they estimate the quantities directly
(generalization gap on fresh samples, KL of the sampled distributions),
independently of the closed forms the entries state.

Decision rule per point, ``z = (claimed - estimate) / standard error``:
an identity passes when ``|z| <= 4.5``; it is refuted when ``|z| > 6`` at two
independent seeds (statistical evidence, stated as such; it cannot be
re-confirmed at 50 digits); in between the point is inconclusive.  For a bound
``<=`` only ``estimate - claimed`` counts.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import mpmath
import sympy as sp

from ..theorem import Evidence, Theorem, Verdict
from .registry import Oracle, register

Z_PASS = 4.5
Z_FAIL = 6.0

#: lhs symbol name -> key of the simulator's result
QUANTITY_KEYS = {"epsilon_okl": "okl", "epsilon_gen": "gen", "epsilon_oklk": "okl"}


def _laplace(**kw: Any) -> dict[str, tuple[float, float]]:
    return dict(_laplace_at(float(kw["gamma"]), float(kw["s_Z"]), int(kw.get("n_mc", 200_000)), int(kw.get("seed", 0))))


def _linreg(**kw: Any) -> dict[str, tuple[float, float]]:
    return dict(_linreg_at(float(kw["gamma"]), int(kw["n"]), int(kw.get("k", 1)), int(kw.get("n_mc", 200_000)),
                           int(kw.get("seed", 0))))


# The simulations are pure functions of their arguments (one seeded stream each) and return both estimates: memoised,
# so the entries that estimate the two quantities of one example at the same points and seeds (wang2016.example_linreg_gen
# and _okl, chained in one audit worker: the same five points, ~0.9 s of CPU each) run each simulation once.  The
# callers above get a copy of the dict (its values are tuples of floats).
@functools.lru_cache(maxsize=64)
def _laplace_at(gamma: float, s_Z: float, n_mc: int, seed: int) -> dict[str, tuple[float, float]]:
    from ..library.kl_privacy import laplace_mean_mc

    return laplace_mean_mc(gamma=gamma, s_Z=s_Z, n_mc=n_mc, seed=seed)


@functools.lru_cache(maxsize=64)
def _linreg_at(gamma: float, n: int, k: int, n_mc: int, seed: int) -> dict[str, tuple[float, float]]:
    from ..library.kl_privacy import linreg_mc

    return linreg_mc(gamma=gamma, n=n, k=k, n_mc=n_mc, seed=seed)


register(Oracle("wang_laplace_mean_mc", _laplace, "mc", ("gamma", "s_Z"), "Monte Carlo of the Laplace mean release (Wang, Lei, Fienberg 2016, Sec. 6)"))
register(Oracle("wang_linreg_mc", _linreg, "mc", ("gamma", "n"), "Monte Carlo of the 1-D linear regression Gibbs sampler (Wang, Lei, Fienberg 2016, Sec. 6)"))


def verify_mc(th: Theorem, orc: Oracle, res, *, deep: bool = False, seed: int = 0) -> None:
    """Compare an entry's closed form with a Monte Carlo oracle at a few points of its box."""
    from .compile import compile_expr, sampling_box
    from .compile import hyp_checker as _hyp_checker
    from .compile import is_quantity as _is_quantity

    if th.lhs is None or th.rhs is None or not isinstance(th.lhs, sp.Symbol) or not _is_quantity(th, th.lhs):
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"oracle {orc.name} estimates a named quantity; this entry's lhs is not one")
        return
    key = QUANTITY_KEYS.get(th.lhs.name)
    if key is None:
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"oracle {orc.name} does not estimate {th.lhs.name} (it estimates {sorted(set(QUANTITY_KEYS))})")
        return
    syms = set(th.rhs.free_symbols)
    names = {s.name for s in syms}
    if not orc.accepts(names) or names - set(orc.params) - {"k"}:
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"oracle {orc.name} takes {orc.params}; the closed form has {sorted(names)}")
        return
    box, _own = sampling_box(th, syms, {"n": 200} if "n" in names else None)
    ok = _hyp_checker(th.hypotheses)
    f = compile_expr(th.rhs)
    rng = random.Random(seed)
    npts = 16 if deep else 5
    n_mc = 1_000_000 if deep else 200_000
    rel = th.relation
    worst = None
    cases = 0
    inconclusive = []
    for _ in range(npts * 5):
        if cases >= npts:
            break
        pt = box.sample(rng)
        if not ok(pt):
            continue
        with mpmath.workdps(30):
            claimed = float(f({k: mpmath.mpf(v) for k, v in pt.items()}))
        kw = {k: float(v) for k, v in pt.items()}
        est, se = orc.fn(**kw, n_mc=n_mc, seed=seed + cases)[key]
        cases += 1
        se = max(se, 1e-12 * abs(est), 1e-300)
        z = (claimed - est) / se
        bad = (abs(z) > Z_FAIL) if rel == "==" else ((-z > Z_FAIL) if rel in ("<=", "<") else (z > Z_FAIL))
        marginal = (abs(z) > Z_PASS) if rel == "==" else ((-z > Z_PASS) if rel in ("<=", "<") else (z > Z_PASS))
        if worst is None or abs(z) > abs(worst[1]):
            worst = (pt, z, claimed, est, se)
        if bad:
            est2, se2 = orc.fn(**kw, n_mc=n_mc, seed=seed + 10_000 + cases)[key]
            se2 = max(se2, 1e-12 * abs(est2), 1e-300)
            z2 = (claimed - est2) / se2
            if abs(z2) > Z_FAIL and (z2 > 0) == (z > 0):
                res.counterexample = pt
                res.claimed, res.actual, res.margin = repr(claimed), f"{est2!r} +/- {se2:.3g}", f"z = {z2:.2f}"
                res.box = box.as_json()
                res.evidence = Evidence(
                    Verdict.REFUTED, "numerical",
                    f"Monte Carlo ({orc.name}, {n_mc} draws): at {pt} the closed form gives {claimed:.6g}, the simulation "
                    f"{est2:.6g} +/- {se2:.2g} (z = {z2:.1f}; |z| > {Z_FAIL} at two independent seeds; statistical evidence)",
                    None, tuple(sorted(pt.items())), cases,
                )
                return
            inconclusive.append(pt)
        elif marginal:
            inconclusive.append(pt)
    res.box = box.as_json()
    if cases == 0:
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"no point of {box.as_json()} satisfies the hypotheses")
        return
    if inconclusive:
        res.evidence = Evidence(Verdict.UNCHECKED, None, f"Monte Carlo inconclusive at {inconclusive} ({Z_PASS} < |z| <= {Z_FAIL})", None, None, cases)
        return
    assert worst is not None  # cases > 0
    pt, z, claimed, est, se = worst
    res.claimed, res.actual, res.margin = repr(claimed), f"{est!r} +/- {se:.3g}", f"z = {z:.2f}"
    res.evidence = Evidence(
        Verdict.SUPPORTED, "numerical",
        f"Monte Carlo ({orc.name}, {n_mc} draws per point): the closed form agrees with the simulation at {cases} points "
        f"of {', '.join(f'{k} in [{a:.3g}, {b:.3g}]' for k, (a, b) in box.ranges.items())} (largest |z| = {abs(z):.2f} <= {Z_PASS})",
        None, None, cases,
    )


__all__ = ["verify_mc", "Z_PASS", "Z_FAIL", "QUANTITY_KEYS"]
