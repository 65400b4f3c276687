r"""Conversions between privacy notions, checked on a mechanism that has the premise (issue 23, item 4).

A conversion theorem ("rho-zCDP implies (2 sqrt(rho log(1/delta)) + rho, delta)-DP", "RDP at order alpha
implies ...", "mu-GDP implies (eps(delta; mu), delta)-DP", amplification by sampling without
replacement) holds for *every* mechanism with the premise.  The mechanism algebra models mechanisms that
have it exactly, and their privacy profile is exact:

* rho-zCDP, (alpha, eps_alpha)-RDP, mu-GDP: the Gaussian mechanism with mu = sqrt(2 rho),
  mu = sqrt(2 eps_alpha / alpha), mu, whose RDP curve is alpha mu^2/2 at every order (so it has the
  premise) and whose profile is delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
  (Balle and Wang 2018, Thm 8);
* (eps, delta)-DP then sampling q of n without replacement (replace-one): the Kairouz-Oh-Viswanath
  pair (P, Q) of (eps, delta)-DP, mixed as (1 - q) Q + q P against Q (the example that differs is in the
  batch with probability q; the other examples give Q either way), an exact finite pair whose
  hockey-stick divergence is computed in mpmath.

The claim fails for the mechanism when the mechanism's delta at the claimed epsilon exceeds the claimed
delta: that is a rigorous refutation of the conversion (a mechanism with the premise violates the
conclusion).  Without a violation the verdict is SUPPORTED on that mechanism, never PROVED: another
mechanism with the same premise could be worse (for RDP at one order, for instance).

>>> from symdp.library import get
>>> from symdp.verify import verify_theorem
>>> verify_theorem(get("bridge.bun_steinke2016_zcdp_to_dp", with_evidence=False)).verdict.value
'SUPPORTED'
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import mpmath
import sympy as sp

from ..numeric import iterate, log_binomial
from .oracles_gaussian import gaussian_profile
from .oracles_pairs import _mpf, hockey_stick, kov_pair
from .registry import Oracle, assign, register


def _compile(expr: sp.Basic) -> Callable:
    from .compile import compile_expr

    return compile_expr(expr)


def _conclusion(th) -> tuple[sp.Expr, sp.Expr] | str:
    """The conclusion's (eps, delta) with a bare lhs symbol replaced by the entry's rhs (the claimed value)."""
    conc = th.conclusion
    if conc is None or conc.name.upper() not in ("DP", "ADP") or len(conc.params) != 2:
        return "no (eps, delta)-DP conclusion"
    at_expr, d_expr = (sp.sympify(p) for p in conc.params)
    if isinstance(th.lhs, sp.Symbol) and th.rhs is not None:
        sub = {s: th.rhs for s in (at_expr.free_symbols | d_expr.free_symbols) if s.name == th.lhs.name}
        at_expr, d_expr = at_expr.xreplace(sub), d_expr.xreplace(sub)
    return at_expr, d_expr


def _gaussian_mu(th) -> tuple[sp.Expr, str] | str:
    """mu of the Gaussian mechanism that has the entry's premise, and the premise in words."""
    for pr in th.premises:
        nm = pr.name.lower()
        ps = [sp.sympify(x) for x in pr.params]
        if nm == "zcdp" and len(ps) == 1:
            return sp.sqrt(2 * ps[0]), f"{sp.sstr(ps[0])}-zCDP"
        if nm == "rdp" and len(ps) == 2:
            return sp.sqrt(2 * ps[1] / ps[0]), f"({sp.sstr(ps[0])}, {sp.sstr(ps[1])})-RDP"
        if nm == "gdp" and len(ps) == 1:
            return ps[0], f"{sp.sstr(ps[0])}-GDP"
    return "no zCDP, RDP or GDP premise"


def map_gaussian_witness(th):
    """The conclusion checked on the Gaussian mechanism that has the premise: delta_G(eps_claimed) <= delta."""
    conc = _conclusion(th)
    if isinstance(conc, str):
        return conc
    got = _gaussian_mu(th)
    if isinstance(got, str):
        return got
    mu_expr, _words = got
    at_expr, d_expr = conc
    f_mu, f_at, f_d = _compile(mu_expr), _compile(at_expr), _compile(d_expr)
    syms = mu_expr.free_symbols | at_expr.free_symbols | d_expr.free_symbols

    def f_claim(pt: dict[str, Any]) -> Any:
        return f_d(pt)

    def f_true(pt: dict[str, Any]) -> Any:
        at = f_at(pt)
        if not mpmath.isfinite(at):
            return None  # not evaluable (reported by the search, never dropped silently)
        return gaussian_profile(mu=f_mu(pt), at=at)

    return f_claim, f_true, "<=", syms


def wor_mixture_delta(*, epsilon: Any, delta: Any, q: Any, at: Any, **_: Any) -> mpmath.mpf:
    """delta at ``at`` of the KOV (eps, delta)-DP pair after sampling a q-fraction without replacement
    (replace-one): max over both directions of the hockey-stick divergence of (1 - q) Q + q P against Q.
    A rigorous lower bound of the sup over all (eps, delta)-DP mechanisms."""
    P, Q = kov_pair(epsilon, delta)
    qq = _mpf(q)
    out = mpmath.mpf(0)
    for A, B in ((P, Q), (Q, P)):
        mix = [(1 - qq) * b + qq * a for a, b in zip(A, B)]
        out = max(out, hockey_stick(mix, B, at), hockey_stick(B, mix, at))
    return out


def map_wor(th):
    """Amplification by sampling without replacement checked on the KOV pair (exact finite pair)."""
    conc = _conclusion(th)
    if isinstance(conc, str):
        return conc
    at_expr, d_expr = conc
    dp = next((p for p in th.premises if p.name.upper() in ("DP", "ADP") and len(p.params) == 2), None)
    sub = next((p for p in th.premises if "subsampling" in p.name.lower() and len(p.params) == 1), None)
    if dp is None or sub is None:
        return "needs an (eps, delta)-DP premise and a subsampling premise"
    e_expr, dl_expr, q_expr = (sp.sympify(x) for x in (*dp.params, sub.params[0]))
    f_at, f_d, f_e, f_dl, f_q = (_compile(x) for x in (at_expr, d_expr, e_expr, dl_expr, q_expr))
    syms = at_expr.free_symbols | d_expr.free_symbols | e_expr.free_symbols | dl_expr.free_symbols | q_expr.free_symbols

    def f_true(pt: dict[str, Any]) -> Any:
        return wor_mixture_delta(epsilon=f_e(pt), delta=f_dl(pt), q=f_q(pt), at=f_at(pt))

    return (lambda pt: f_d(pt)), f_true, "<=", syms


def _mech_evidence(th, checks: list[tuple[bool, Any, str]], what: str) -> Any:
    from ..theorem import Evidence, Verdict

    for ok, _margin, desc in checks:
        if not ok:
            return Evidence(Verdict.REFUTED, "mechanism", f"fails: {desc}", None, None, len(checks))
    worst = min(checks, key=lambda t: t[1])
    return Evidence(Verdict.SUPPORTED, "mechanism", f"holds on {len(checks)} cases ({what}); closest: {worst[2]}",
                    None, None, len(checks))


def _conjugate_objective(y: mpmath.mpf, mu: mpmath.mpf) -> Callable[[mpmath.mpf], mpmath.mpf]:
    """``a -> y a - G_mu(a)``, each value computed once per argument (its exact bits; the golden-section steps of
    :func:`map_duality` probe the same point again once the bracket is a few ulps wide)."""
    from .oracles_tradeoff import gaussian_tradeoff

    vals: dict[tuple, mpmath.mpf] = {}

    def g(a: mpmath.mpf) -> mpmath.mpf:
        k = (a._mpf_, mpmath.mp.prec)
        v = vals.get(k)
        if v is None:
            v = vals[k] = y * a - gaussian_tradeoff(mu=mu, alpha=a)
        return v

    return g


_GOLDEN_C = "0.381966011250105151795"


def _golden_step(g: Callable[[mpmath.mpf], mpmath.mpf], lo: mpmath.mpf, hi: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """One step of :func:`map_duality`'s golden-section search for the maximum of a concave ``g`` on ``[lo, hi]``."""
    a1, a2 = lo + (hi - lo) * mpmath.mpf(_GOLDEN_C), hi - (hi - lo) * mpmath.mpf(_GOLDEN_C)
    if g(a1) < g(a2):
        return a1, hi
    return lo, a2


def _golden_bracket_step(g: Callable[[mpmath.mpf], mpmath.mpf], b: tuple[mpmath.mpf, mpmath.mpf]) -> tuple[mpmath.mpf, mpmath.mpf]:
    return _golden_step(g, *b)


def _bracket_key(b: tuple[mpmath.mpf, mpmath.mpf]) -> tuple:
    return (b[0]._mpf_, b[1]._mpf_)


def map_duality(th):
    """Bu et al.'s duality delta(eps) = 1 + f*(-e^eps), checked for f = G_mu: the conjugate sup_a (-e^eps a - G_mu(a)) by
    golden-section search at 30 digits (concave in a), against the exact Gaussian profile (Balle and Wang 2018)."""
    checks = []
    with mpmath.workdps(30):
        for mu in ("0.3", "1", "2.5"):
            for e in ("0", "0.5", "2", "4"):
                m_, y = mpmath.mpf(mu), -mpmath.exp(mpmath.mpf(e))
                g = _conjugate_objective(y, m_)
                lo, hi = iterate(functools.partial(_golden_bracket_step, g), (mpmath.mpf(0), mpmath.mpf(1)), 160,
                                 _bracket_key)  # 160 golden-section steps (concave g)
                dual = 1 + g((lo + hi) / 2)
                exact = gaussian_profile(mu=m_, at=mpmath.mpf(e))
                diff = abs(dual - exact)
                checks.append((diff <= mpmath.mpf(10) ** -20 * max(exact, mpmath.mpf(10) ** -10), -diff,
                               f"mu = {mu}, eps = {e}: 1 + f*(-e^eps) = {mpmath.nstr(dual, 15)}, profile {mpmath.nstr(exact, 15)}"))
    return _mech_evidence(th, checks, "f = G_mu for mu in {0.3, 1, 2.5}, eps in {0, 0.5, 2, 4}: the conjugate by golden-section "
                          "search at 30 digits against the exact Gaussian profile")


def map_dp_iff(th):
    """Bu et al.'s 'M is (eps, delta)-DP iff M is f_{eps,delta}-DP', checked on the Kairouz-Oh-Viswanath pair (the (eps, delta)-DP
    pair whose trade-off is exactly f_{eps,delta}) and on random (eps, delta)-DP pairs (their trade-off is >= f_{eps,delta})."""
    import random

    from .compile import compile_expr
    from .oracles_pairs import random_dp_pair
    from .oracles_tradeoff import tradeoff_of_pair

    conc = th.conclusion
    if conc is None or not conc.params:
        return "no f-DP conclusion"
    f = compile_expr(sp.sympify(conc.params[0]))
    rng = random.Random(7)
    checks = []
    with mpmath.workdps(30):
        for e in ("0.1", "1", "3"):
            for d in ("0", "1e-6", "0.05"):
                P, Q = kov_pair(e, d)
                for a in ("0", "0.001", "0.2", "0.5", "0.9"):
                    pt = {"epsilon": mpmath.mpf(e), "delta": mpmath.mpf(d), "alpha": mpmath.mpf(a)}
                    t, fv = tradeoff_of_pair(P, Q, pt["alpha"]), f(pt)
                    checks.append((abs(t - fv) <= mpmath.mpf(10) ** -25, -abs(t - fv),
                                   f"KOV pair eps = {e}, delta = {d}, alpha = {a}: T = {mpmath.nstr(t, 12)}, f = {mpmath.nstr(fv, 12)}"))
                for _ in range(4):
                    P2, Q2 = random_dp_pair(e, d, k=5, rng=rng)
                    a = mpmath.mpf(rng.random())
                    t, fv = tradeoff_of_pair(P2, Q2, a), f({"epsilon": mpmath.mpf(e), "delta": mpmath.mpf(d), "alpha": a})
                    checks.append((t >= fv - mpmath.mpf(10) ** -25, t - fv,
                                   f"random pair eps = {e}, delta = {d}, alpha = {mpmath.nstr(a, 6)}: T = {mpmath.nstr(t, 12)} >= f = {mpmath.nstr(fv, 12)}"))
    return _mech_evidence(th, checks, "the KOV pair (trade-off equal to f_{eps,delta}) and random 5-atom (eps, delta)-DP pairs "
                          "(trade-off at least f_{eps,delta}), exact at 30 digits")


def _witness_value(th) -> tuple[Callable, set] | str:
    """The quantity an entry bounds, computed for the Gaussian witness of its premise (exact):

    * replace-one from add/remove (group of two): a sum of values in [-c, c] with Gaussian noise has add/remove
      sensitivity c and replace-one sensitivity 2c, so mu-GDP becomes (2 mu)-GDP and rho-zCDP (4 rho)-zCDP exactly;
    * T-fold composition: T Gaussian steps with (alpha, eps_alpha)-RDP (mu^2 = 2 eps_alpha/alpha) have RDP alpha T
      mu^2/2 at order alpha; T rho-zCDP Gaussian steps are (T rho)-zCDP (sum of the mu_i^2/2);
    * one Poisson-subsampled Gaussian step: its exact Renyi divergence (remove direction) at the integer orders
      floor(alpha) <= alpha (RDP is nondecreasing in the order, so this is a lower bound of the truth at alpha),
      sum_k C(a, k) (1 - q)^(a - k) q^k exp(k (k - 1)/(2 sigma^2)) (Mironov, Talwar, Zhang 2019)."""
    q = th.lhs.name if isinstance(th.lhs, sp.Symbol) else ""
    names = {s.name: s for s in th.symbols}

    def need(*ns: str) -> bool:
        return all(n in names for n in ns)

    if q == "mu_group" and need("mu"):
        return (lambda pt: 2 * _mpf(pt["mu"])), {names["mu"]}
    if q == "rho_group" and need("rho"):
        return (lambda pt: 4 * _mpf(pt["rho"])), {names["rho"]}
    if q == "epsilon_alpha_T" and need("alpha", "epsilon_alpha", "T"):
        def rdp_T(pt: dict[str, Any]) -> Any:
            mu2 = 2 * _mpf(pt["epsilon_alpha"]) / _mpf(pt["alpha"])
            return _mpf(pt["alpha"]) * int(pt["T"]) * mu2 / 2
        return rdp_T, {names["alpha"], names["epsilon_alpha"], names["T"]}
    if q == "rho_T" and need("rho", "T"):
        return (lambda pt: int(pt["T"]) * _mpf(pt["rho"])), {names["rho"], names["T"]}
    if q == "epsilon_alpha" and need("q", "sigma", "alpha"):
        def sgm(pt: dict[str, Any]) -> Any:
            a = int(mpmath.floor(_mpf(pt["alpha"])))
            if a < 2:
                return None
            qq, sg = _mpf(pt["q"]), _mpf(pt["sigma"])
            # the point-free factors once (the same values each term computed itself: the same bits); log1p(-q) is
            # used only for k < a, which q = 1 leaves out
            l1q = mpmath.log1p(-qq) if qq != 1 else mpmath.mpf(0)
            lq, s2 = mpmath.log(qq), 2 * sg**2
            terms = [log_binomial(a, k) + ((a - k) * l1q if a > k else 0) + k * lq
                     + k * (k - 1) / s2 for k in range(a + 1) if not (qq == 1 and k < a)]
            top = max(terms)
            return (top + mpmath.log(mpmath.fsum(mpmath.exp(t - top) for t in terms))) / (a - 1)
        return sgm, {names["q"], names["sigma"], names["alpha"]}
    return f"no Gaussian witness for the quantity {q!r}"


def map_value_witness(th):
    """The entry's bound on a privacy parameter checked against the same parameter of the Gaussian witness."""
    got = _witness_value(th)
    if isinstance(got, str):
        return got
    f_true, syms = got
    f_claim = _compile(th.rhs)
    return f_claim, f_true, th.relation if th.relation in ("<=", "<") else "<=", syms | set(th.rhs.free_symbols)


#: the bracket of :func:`premise_mu`'s bisection
MU_LO, MU_HI = "1e-6", "60"


def premise_mu(eps: Any, delta: Any) -> Any:
    """The largest Gaussian mu whose (computed) profile at ``eps`` is below ``delta``, to the working precision: the
    lower end ``lo`` of a bracket ``[lo, hi]`` of [1e-6, 60] with ``delta_lo(eps) < delta <= delta_hi(eps)`` (each
    end's profile computed at the working precision) at which the geometric bisection stands still (``sqrt(lo hi)``
    rounds to ``lo`` or ``hi``).  So ``lo`` is a mechanism with the premise ``delta_lo(eps) <= delta``.

    The bisection from [1e-6, 60] alone takes ~108 profile evaluations at 30 digits; here a float64 root
    (:func:`gaussian_profile_float64`, Brent) and Newton steps at the working precision (``d delta_mu/d mu =
    phi(-eps/mu + mu/2)``, since ``e^eps phi(b) = phi(a)``) shrink the bracket first, every evaluated point
    moving the end on its side by the same test, and the same bisection ends it (~10-20 evaluations).  The result
    meets the same two conditions; it may differ from the plain bisection's in the last bits, where the computed
    profile is flat to rounding (tests/test_oracle_group_dp_mu.py compares them)."""
    lo, hi = mpmath.mpf(MU_LO), mpmath.mpf(MU_HI)

    def below(m: Any) -> bool:
        return bool(gaussian_profile(mu=m, at=eps) < delta)

    x = _mu_float_guess(float(eps), float(delta), float(lo), float(hi))
    if x is not None:
        x = mpmath.mpf(x)
        tiny = mpmath.ldexp(1, -mpmath.mp.prec + 6)
        for _ in range(8):  # Newton, safeguarded by the bracket
            if not lo < x < hi:
                x = mpmath.sqrt(lo * hi)
            p = gaussian_profile(mu=x, at=eps)
            if p < delta:
                lo = x
            else:
                hi = x
            d = mpmath.npdf(-eps / x + x / 2)
            if not d > 0:
                break
            step = (p - delta) / d
            x = x - step
            if abs(step) <= tiny * x:
                break
        # the root is within a few ulps of x: test the two points beside it, so the bisection starts a few steps
        # from its fixed point
        for y in (x * (1 - tiny), x * (1 + tiny)):
            if lo < y < hi:
                if below(y):
                    lo = y
                else:
                    hi = y
    for _ in range(400):
        mid = mpmath.sqrt(lo * hi)
        was = (lo, hi)
        if below(mid):
            lo = mid
        else:
            hi = mid
        if (lo, hi) == was:  # a fixed point (mid is lo or hi at this precision): the remaining steps change nothing
            break
    return lo  # delta_lo(eps) <= delta: a mechanism with the premise


def _mu_float_guess(eps: float, delta: float, lo: float, hi: float) -> float | None:
    """A float64 root of ``delta_mu(eps) = delta`` in ``(lo, hi)`` (Brent on ``log delta_mu(eps)`` in ``log mu``, with
    ``log_ndtr`` and ``expm1``), or None where float64 cannot tell (no finite sign change): only a starting point."""
    import math

    import numpy as np
    from scipy.optimize import brentq
    from scipy.special import log_ndtr

    if not (math.isfinite(eps) and eps >= 0 and 0 < delta < 1):
        return None
    ld = math.log(delta)

    def g(u: float) -> float:
        m = math.exp(u)
        la = float(log_ndtr(-eps / m + m / 2))
        lb = eps + float(log_ndtr(-eps / m - m / 2))
        with np.errstate(all="ignore"):
            return la + float(np.log(-np.expm1(lb - la))) - ld

    try:  # a finite sign change on a grid in log mu (far below the root the float64 profile cancels to -inf)
        us = [math.log(lo) + (math.log(hi) - math.log(lo)) * i / 24 for i in range(25)]
        gs = [g(u) for u in us]
        j = next((i for i, v in enumerate(gs) if v > 0), None)
        if j is None or j == 0 or not (math.isfinite(gs[j]) and math.isfinite(gs[j - 1]) and gs[j - 1] < 0):
            return None
        r = math.exp(brentq(g, us[j - 1], us[j], xtol=1e-15, rtol=1e-15, maxiter=200))
    except (ValueError, RuntimeError, ArithmeticError):
        return None
    return r if math.isfinite(r) and lo < r < hi else None


def map_group_dp(th):
    """Replace-one from add/remove (eps, delta)-DP, checked on the Gaussian witness: mu solves delta_mu(eps) = delta (the
    add/remove premise, exactly), the replace-one mechanism is the Gaussian with 2 mu; its delta at the claimed epsilon
    must be at most the claimed delta."""
    conc = _conclusion(th)
    if isinstance(conc, str):
        return conc
    at_expr, d_expr = conc
    f_at, f_d = _compile(at_expr), _compile(d_expr)
    syms = at_expr.free_symbols | d_expr.free_symbols

    def f_true(pt: dict[str, Any]) -> Any:
        mu = premise_mu(_mpf(pt["epsilon"]), _mpf(pt["delta"]))
        return gaussian_profile(mu=2 * mu, at=f_at(pt))

    return (lambda pt: f_d(pt)), f_true, "<=", syms


for _name, _fn, _desc in (
    ("gaussian_value_witness", map_value_witness,
     "the privacy parameter of the Gaussian witness of the premise (group of two, T-fold composition, one "
     "Poisson-subsampled Gaussian step's exact RDP at integer orders)"),
    ("group_dp_gaussian", map_group_dp, "replace-one (eps, delta) of the Gaussian with the add/remove premise"),
    ("gdp_duality_gaussian", map_duality, "Bu et al.'s duality for f = G_mu against the exact Gaussian profile"),
    ("f_eps_delta_pairs", map_dp_iff, "f_{eps,delta} against the trade-offs of the KOV pair and random (eps, delta)-DP pairs"),
    ("gaussian_witness", map_gaussian_witness,
     "the Gaussian mechanism that has the premise (zCDP: mu = sqrt(2 rho); RDP at alpha: mu = sqrt(2 eps_alpha/alpha); "
     "GDP: mu), exact profile (Balle and Wang 2018): a conversion's conclusion must hold for it"),
    ("wor_kov_mixture", map_wor,
     "the Kairouz-Oh-Viswanath (eps, delta)-DP pair sampled without replacement (replace-one), exact hockey-stick "
     "divergence: an amplification bound must hold for it"),
):
    register(Oracle(_name, lambda **kw: None, "profile", (), _desc, mapper=_fn))

assign("gaussian_witness", "bridge.bun_steinke2016_zcdp_to_dp", "bridge.mironov2017_rdp_to_dp", "accounting.rdp_to_dp_cks",
       "accounting.rdp_to_delta_cks", "bridge.gdp_eps_of_delta")
assign("wor_kov_mixture", "bridge.bbg2018_wor_eps")
assign("gdp_duality_gaussian", "bu2020.duality")
assign("gaussian_value_witness", "bridge.group_privacy_gdp", "bridge.group_privacy_zcdp", "bridge.mironov2017_rdp_composition",
       "bridge.bun_steinke2016_zcdp_composition", "bridge.mtz2019_sgm_rdp")
assign("group_dp_gaussian", "bridge.group_privacy_dp")
assign("f_eps_delta_pairs", "bu2020.dp_iff_f_eps_delta")

__all__ = ["map_gaussian_witness", "map_wor", "wor_mixture_delta"]
