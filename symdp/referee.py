"""The exact mechanism as referee of a chain (issue 22): :func:`referee` derives the chain's (eps, delta) at a
bind and compares it with the rigorous bracket [lower, upper] of the exact epsilon that the mechanism algebra
gives for the mechanism the chain describes (Gaussian, Laplace, Poisson subsampling, composition, conversions;
:data:`MECHANISM_STEPS`).  Split from :mod:`symdp.calculus` (pure move);
it builds on :func:`symdp.calculus.chain` and :mod:`symdp.accountants`, and nothing below it imports it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from . import properties as P
from .calculus import chain
from .errors import InvalidParameterError, UnsupportedError
from .library.implications import implication

# ---------------------------------------------------------------------------------------- the referee
#: what the referee's lower end is where it can refute (reported with every verdict)
LOWER_KIND = ("rigorous lower end of the mechanism algebra's bracket (symdp.accountants.algebra.tight): the exact "
              "mu-GDP profile for Gaussian compositions; otherwise a discretisation dominated by the true privacy "
              "loss pair (DP-SGD steps: cells merged at their own likelihood ratio, a post-processing; other parts: "
              "every loss rounded down), composed with its round-off and wrapped mass taken off delta")
#: what it is where the algebra has no rigorous lower end (a fallback answer, or a pair that only dominates)
FALLBACK_KIND = ("no rigorous lower end (fallback): {why}; the algebra's lower number is shown as an estimate, not "
                 "certified, and cannot refute the chain (a derived epsilon below it is UNDECIDED)")
#: how each step changes the mechanism the chain's privacy conclusion describes (for the exact accountant):
#: "base:<name>" starts from the premise mechanism, "poisson" subsamples it at rate q, "compose" runs it T
#: times, "same" converts the property of the same mechanism (RDP -> DP, GDP -> DP, ...)
MECHANISM_STEPS: dict[str, str] = {
    "classical.gaussian_mechanism_calibration": "base:gaussian", "bridge.mironov2017_gaussian_rdp": "base:gaussian",
    "bridge.bun_steinke2016_gaussian_zcdp": "base:gaussian", "accounting.gaussian_rdp": "base:gaussian1",
    "bridge.mtz2019_sgm_rdp": "base:sgm",
    "bridge.bbg2018_poisson_eps": "poisson", "bridge.bbg2018_poisson_delta": "poisson",
    "classical.dwork_roth_advanced_composition_eps": "compose", "classical.dwork_roth_advanced_composition_delta": "compose",
    "classical.kairouz2017_eps1": "compose", "classical.kairouz2017_eps2": "compose", "classical.kairouz2017_eps3": "compose",
    "classical.kairouz2017_delta": "compose", "he2021.cor1_delta_at_thm4_eps": "compose",
    "bridge.dwork_roth_basic_composition_eps": "compose", "bridge.mironov2017_rdp_composition": "compose",
    "bridge.bun_steinke2016_zcdp_composition": "compose",
    "accounting.rdp_to_dp_cks": "same", "bridge.mironov2017_rdp_to_dp": "same", "bridge.bun_steinke2016_zcdp_to_dp": "same",
    "bu2020.delta_of_eps_gdp": "same", "bridge.gdp_eps_of_delta": "same",
    # Wang et al.'s Laplace mean release: h ~ exp(-gamma |Z - h|), Z in [-2, 2]: Laplace noise of scale 1/gamma on a
    # statistic of sensitivity 4
    "wang2016.example_laplace_mean_dp": "base:laplace_mean",
    # 001's SGLD (Thm 7): Gaussian noise sigma on a mini-batch gradient of replace-one sensitivity 2 L / tau, the batch
    # tau of N drawn without replacement (Beimel, Kasiviswanathan, Nissim Lemma 4.4), T steps; the algebra's pair for
    # fixed-size replace-one sampling only dominates, so this chain gets slack against an upper end, never a refutation
    "he2021long.thm7_eps_tilde": "base:sgld_gaussian", "he2021long.thm7_subsampling": "batch_without_replacement",
    "he2021long.thm7_eps": "compose",
    # group privacy, add/remove -> replace-one (issue 22): the same mechanism under replace-one adjacency
    # (:func:`_replace_one`); the bridge's cost (2 eps, (1 + e^eps) delta; 2 mu; 4 rho) is the chain's, the referee
    # compares its conclusion with the mechanism's own replace-one epsilon
    "bridge.group_privacy_dp": "replace_one", "bridge.group_privacy_gdp": "replace_one",
    "bridge.group_privacy_zcdp": "replace_one",
    # Bu et al.'s NoisySGD (Poisson rate p, noise multiplier sigma, T steps, add/remove); its CLT step concludes GDP
    # only approximately: such a chain is refereed as an approximation (``approximate`` in the result)
    "bu2020.clt_mu": "base:noisysgd",
}

#: what the referee's ends are for a conclusion under replace-one adjacency about a mechanism whose Poisson
#: subsampling the algebra models exactly only under add/remove (a group-privacy bridge in the chain)
REPLACE_ONE_KIND = (
    "replace-one adjacency: upper end from the algebra's replace-one dominating pair (Poisson subsampling: "
    "(q P + (1 - q) Q, Q) with the base's replace-one sensitivity 2 Delta, Zhu, Dong, Wang 2022; rigorous, it only "
    "dominates); RIGOROUS lower end the larger of (a) the same mechanism under add/remove adjacency (a record that "
    "contributes nothing to the query makes replace-one neighbours add/remove neighbours) and (b) for T Poisson-"
    "subsampled Gaussian steps, the pair two neighbouring datasets realise, (1 - q) N(0) + q N(Delta) vs "
    "(1 - q) N(0) + q N(-Delta) (dp_accounting's REPLACE_ONE pair), on a dominated grid; ``tight_estimate`` is that "
    "pair's pessimistic value (the exact replace-one epsilon if it is the worst pair, as dp_accounting assumes; "
    "not used as a bound)")


def _replace_one(m: Any, *, lower: bool) -> Any:
    """``m`` (an add/remove description, :mod:`symdp.mechanisms`) under replace-one adjacency, for the algebra.

    A Gaussian or Laplace part's replace-one sensitivity is twice its add/remove one, and the worst query of
    add/remove sensitivity Delta attains it (a sum of terms of norm Delta: replace c by -c), so the doubled
    mechanism is exact (both ends rigorous).  A Poisson-subsampled part has the replace-one pair
    ``(1 - q) N(0) + q N(Delta)`` vs ``(1 - q) N(0) + q N(-Delta)`` (dp_accounting's ``REPLACE_ONE``), which the
    algebra does not model: with ``lower`` False it is replaced by the algebra's replace-one dominating pair
    (``Subsampled(..., adjacency="replace_one")`` on the doubled base: an upper end), with ``lower`` True it is
    kept under add/remove (a record that contributes 0 to the query makes a replace-one neighbour an add/remove
    one: a lower end).  Anything else is not modelled under replace-one: :class:`UnsupportedError` says so."""
    from . import mechanisms as M

    if isinstance(m, M.Gaussian):
        return M.Gaussian(sensitivity=2 * m.sensitivity, sigma=m.sigma)
    if isinstance(m, M.Laplace):
        return M.Laplace(sensitivity=2 * m.sensitivity, scale=m.scale)
    if (isinstance(m, M.Subsampled) and m.scheme == "poisson" and m.adjacency == "add_remove"
            and isinstance(m.mechanism, (M.Gaussian, M.Laplace))):
        if lower:
            return m
        return M.Subsampled(_replace_one(m.mechanism, lower=False), m.rate, "poisson", "replace_one")
    if isinstance(m, M.SelfComposed):
        return M.SelfComposed(_replace_one(m.mechanism, lower=lower), m.steps)
    if isinstance(m, M.Composed):
        return M.Composed(tuple(_replace_one(p, lower=lower) for p in m.parts))
    raise UnsupportedError(f"the mechanism algebra does not model {m!r} under replace-one adjacency (only Gaussian "
                           "and Laplace noise, their Poisson subsampling under add/remove, and compositions of them)")


def _mechanism_of(ids: Sequence[str], values: Mapping[str, float], table: Mapping[str, str], *,
                  lower: bool = False) -> Any:
    """The runtime mechanism (:mod:`symdp.mechanisms`) whose privacy the chain ``ids`` concludes: add/remove
    until a ``"replace_one"`` step (a group-privacy bridge), then that mechanism under replace-one adjacency
    (:func:`_replace_one`; ``lower`` picks the description that bounds its epsilon from below)."""
    from . import mechanisms as M

    def need(name: str) -> float:
        if name not in values:
            raise InvalidParameterError(f"referee: bind {name}; allowed: every parameter of the mechanism")
        return float(values[name])

    m: Any = None
    for i in ids:
        how = table[i]
        if how == "base:gaussian":
            m = M.Gaussian(sensitivity=need("Delta"), sigma=need("sigma"))
        elif how == "base:gaussian1":
            m = M.Gaussian(sensitivity=1.0, sigma=need("sigma"))
        elif how == "base:sgm":
            m = M.Subsampled(M.Gaussian(1.0, need("sigma")), need("q"))
        elif how == "base:noisysgd":
            m = M.dp_sgd(noise_multiplier=need("sigma"), sample_rate=need("p"), steps=round(need("T")))
        elif how == "base:laplace_mean":
            m = M.Laplace(sensitivity=4.0, scale=1.0 / need("gamma"))
        elif how == "base:sgld_gaussian":
            m = M.Gaussian(sensitivity=2 * need("L") / need("tau"), sigma=need("sigma"))
        elif how == "poisson":
            m = M.Subsampled(m, need("q"))
        elif how == "batch_without_replacement":
            m = M.Subsampled(m, need("tau") / need("N"), scheme="without_replacement", adjacency="replace_one")
        elif how == "compose":
            m = M.SelfComposed(m, round(need("T")))
        elif how == "replace_one":
            m = _replace_one(m, lower=lower)
    return m


def _no_rigorous_lower(mech: Any, r: Any | None) -> str | None:
    """Why the algebra's lower end ``r.lower`` for ``mech`` is not a rigorous lower bound on its exact epsilon;
    ``None`` when it is.  It is rigorous when the tight accountant answered itself (not a labelled fallback, whose
    lower end is 0) and every part's privacy loss pair is the mechanism's own (realised by two neighbouring
    datasets): Gaussian, Laplace, randomized response, and their Poisson subsampling under add/remove adjacency
    (Zhu, Dong, Wang 2022, Thm 10).  A pair that only dominates (replace-one or fixed-size subsampling, an (eps,
    delta) black box standing for a mechanism) bounds the mechanism from above, and its lower end does not."""
    from . import mechanisms as M
    from .accountants.algebra import _parts

    if r is not None and r.accountant != "tight":
        return f"the tight accountant answered with {r.accountant!r}, whose lower end is 0"
    exact_pairs = (M.Gaussian, M.Laplace, M.RandomizedResponse)
    for m, _ in _parts(mech):
        if isinstance(m, exact_pairs):
            continue
        if (isinstance(m, M.Subsampled) and isinstance(m.mechanism, exact_pairs) and m.scheme == "poisson"
                and m.adjacency == "add_remove"):
            continue
        return f"the privacy loss pair of {type(m).__name__} ({m!r}) only dominates the mechanism"
    return None


def _pure_epsilon(mech: Any) -> tuple[float, float]:
    """[lower, upper] of the exact pure-DP epsilon (delta = 0) of a mechanism whose parts have exact pairs
    (:func:`_no_rigorous_lower` is None): the sum of the parts' largest privacy losses, which the composition
    attains on a set of positive probability (Laplace and randomized response: atoms of the loss at +eps;
    Poisson-subsampled: at log(1 + q (e^eps - 1)) in the remove direction); ``inf`` for a Gaussian part (its
    loss is unbounded: no finite pure epsilon).  The algebra's basic composition rounds the sum up by an ulp or
    so; the lower end gives 1e-12 back."""
    from .accountants.algebra import _parts, _pure_bound

    up, _ = _pure_bound(_parts(mech))
    return (up * (1 - 1e-12) if math.isfinite(up) else up), up


def _stop_reason(ids: Sequence[str], k: int) -> str:
    """Where and why the referee's mechanism prefix ``ids[:k]`` ends (for a chain it cannot referee)."""
    if k >= len(ids):
        return ""
    stop = ids[k].lstrip("+").strip()  # a branch ('+ID') stops the prefix like any other step
    imp = implication(stop)
    why = ("an approximate step that is not one of the referee's mechanism steps (symdp.referee.MECHANISM_STEPS)"
           if imp.approximate else
           "a step that is not one of the referee's mechanism steps (symdp.referee.MECHANISM_STEPS)")
    return f"; it stops at step {k + 1}, {stop}: {why}"


def _ends(mech: Any, low: Any, delta: float) -> tuple[float, float, float | None, str | None]:
    """``(lower, upper, estimate, why)`` of the exact epsilon of ``mech`` at ``delta`` (0: pure DP): ``upper`` from
    ``mech`` (the mechanism, or a pair that dominates it), ``lower`` from ``low`` (the same as ``mech``, or a
    mechanism whose epsilon is below it: :func:`_replace_one`), ``estimate`` the lower number of ``mech`` where
    ``low`` is another mechanism (uncertified: ``mech`` may only dominate), ``why`` None when ``lower`` is
    rigorous (:func:`_no_rigorous_lower` of ``low``), else why not.  :class:`UnsupportedError` from the algebra
    propagates."""
    from .accountants.algebra import _parts, _pure_bound, tight

    if delta == 0:
        why = _no_rigorous_lower(low, None)
        lo, up = _pure_epsilon(low) if why is None else (0.0, math.inf)
        if low != mech:
            up = _pure_bound(_parts(mech))[0]
        return lo, up, None, why
    r = tight.epsilon(mech, delta)
    if low == mech:
        return float(r.lower), float(r.epsilon), None, _no_rigorous_lower(mech, r)
    r_lo = tight.epsilon(low, delta)
    why = _no_rigorous_lower(low, r_lo)
    realised = _realised_replace_one(low, delta)
    if realised is None:
        return float(r_lo.lower), float(r.epsilon), None, why
    lo_pair, est = realised
    up = float(r.epsilon)
    # the estimate is shown where it is meaningful: inside the rigorous bracket (a coarse grid can put it above)
    return max(float(r_lo.lower), lo_pair), up, (est if lo_pair <= est <= up else None), why


#: grids of the realised replace-one pair's lower end, as fractions of min(1e-4, a step's loss range / 1024) (each
#: value is rigorous; the largest is kept), and the longest composed FFT spent on one
_REALISED_GRIDS = (1.0, 0.25)
_REALISED_FFT = 1 << 19


def _realised_replace_one(low: Any, delta: float) -> tuple[float, float] | None:
    """``(lower, estimate)`` for ``T`` Poisson-subsampled Gaussian steps under replace-one, from the pair two
    neighbouring datasets realise (:func:`symdp.accountants.parts._replace_one_poisson_gauss_pair`: the record
    contributes +Delta in one, -Delta in the other): ``lower`` its dominated (optimistic) discretisation composed
    (rigorous: every loss rounded down, round-off and wrapped mass off delta, as the algebra's lower end), the
    largest over :data:`_REALISED_GRIDS`; ``estimate`` its pessimistic value on the first grid, the exact
    replace-one epsilon if that pair is the worst case (dp_accounting's ``REPLACE_ONE`` assumes so; not used as a
    bound).  ``low`` is the add/remove description (:func:`_replace_one` with ``lower``); None for anything but
    ``SelfComposed(Subsampled(Gaussian, q))`` or a grid that does not fit."""
    from . import mechanisms as M
    from .accountants import parts as PT
    from .accountants import pld as PLD
    from .accountants.algebra import _lower_extra
    from .errors import ConvergenceError

    steps, m = (low.steps, low.mechanism) if isinstance(low, M.SelfComposed) else (1, low)
    if not (isinstance(m, M.Subsampled) and isinstance(m.mechanism, M.Gaussian) and m.scheme == "poisson"
            and m.adjacency == "add_remove"):
        return None
    tail_tol = max(1e-4 * delta, 1e-300)  # as the tight accountant's
    pair = PT._replace_one_poisson_gauss_pair(m.mechanism.sensitivity / m.mechanism.sigma, m.rate,
                                              min(PT._TAIL, max(tail_tol / (4 * steps), 1e-300)))
    lower, est = -math.inf, math.nan
    h0 = min(1e-4, (pair.hi - pair.lo) / 1024)
    n_fft = 0
    for k, f in enumerate(_REALISED_GRIDS):
        if n_fft / f > _REALISED_FFT or (lower > 0 and est == est and lower >= est * (1 - 2e-3)):
            break  # the finer grid's FFT would be too long (skipped before discretising it), or the lower end is met
        h = f * h0
        try:
            c = PLD.compose([(PT._discretize(pair, h, False), steps)], tail_tol=tail_tol, max_fft=_REALISED_FFT)
            n_fft = c.n_fft
            v = float(c.epsilon(delta, extra=_lower_extra(c), round_down=True)[0])
            if k == 0:
                cu = PLD.compose([(PT._discretize(pair, h, True), steps)], tail_tol=tail_tol, max_fft=_REALISED_FFT,
                                 localized_roundoff=True)
                est = float(cu.epsilon(delta)[0])
        except ConvergenceError:
            continue
        if math.isfinite(v):
            lower = max(lower, v - 8 * math.ulp(1.0) * abs(v))
    return (max(lower, 0.0), est) if lower > -math.inf else None


#: the fields of the add/remove referee result kept beside a replace-one one (``before_bridge``)
_BEFORE_FIELDS = ("prefix", "verdict", "epsilon", "delta", "adjacency", "tight_lower", "tight_upper", "rigorous",
                  "slack", "slack_max", "lower_vacuous", "reason")


def _before_bridge(prefix: Sequence[str], vals: Mapping[str, Any], table: Mapping[str, str],
                   steps: Mapping[str, str] | None) -> dict[str, Any] | None:
    """The referee of the chain's last (eps, delta)-DP conclusion before its first group-privacy bridge (add/remove,
    where the algebra's bracket is tight for Poisson subsampling), or None where the prefix has no bridge or no
    such conclusion before it."""
    k = next((j for j, i in enumerate(prefix) if table[i] == "replace_one"), None)
    if k is None:
        return None
    head = list(prefix[:k])
    while head and not isinstance(P.canonical(implication(head[-1]).conclusion), P.ApproxDP):
        head.pop()
    if not head:
        return None
    r = referee(head, vals, steps=steps)
    return {f: r[f] for f in _BEFORE_FIELDS if f in r}


def referee(ids: Sequence[str], bind: Mapping[str, Any], *, steps: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The exact mechanism as referee of a chain's privacy conclusion.

    The longest prefix of ``ids`` whose steps describe a mechanism the accountants model
    (:data:`MECHANISM_STEPS`: Gaussian, Poisson subsampling, composition, conversions, group privacy) and which
    concludes (eps, delta)-DP is derived at ``bind`` (every symbol of the prefix bound; names it does not use are
    ignored) and compared with the mechanism algebra's rigorous bracket ``[tight_lower, tight_upper]`` of its
    exact epsilon at the derived delta (:mod:`symdp.accountants.algebra`; :data:`LOWER_KIND`): a derived eps
    below the rigorous lower end refutes the derivation at that point (``REFUTED``, with ``at``); otherwise it
    is ``CONSISTENT`` and its slack is reported against both rigorous ends: the closed form is between
    ``slack`` = eps / tight_upper and ``slack_max`` = eps / tight_lower times the exact epsilon ("this closed
    form is 9.7x the tight epsilon here").  Where the algebra has no rigorous lower end
    (:func:`_no_rigorous_lower`: a fallback answer, a pair that only dominates) the result says so
    (``lower_kind`` = :data:`FALLBACK_KIND`, ``rigorous`` False), its lower number is an uncertified estimate,
    and a derived eps below it is ``UNDECIDED``, never refuted.

    A group-privacy bridge (add/remove -> replace-one) is followed: the conclusion is compared with the
    mechanism under replace-one adjacency (:func:`_replace_one`).  Gaussian and Laplace noise are exact there
    (sensitivity doubled); a Poisson-subsampled part is bounded above by the algebra's replace-one dominating
    pair and below, rigorously, by the same mechanism under add/remove and, for DP-SGD, by the pair two
    neighbouring datasets realise (:func:`_realised_replace_one`, :data:`REPLACE_ONE_KIND`; its pessimistic value
    is shown as ``tight_estimate``, not a bound).  The dominating pair is loose for small noise (sigma = 1.1,
    q = 0.01, T = 1000: about 4x dp_accounting's REPLACE_ONE epsilon), so the bracket is wide there.  A mechanism the algebra does not model under replace-one is said so
    (``applies`` False).  A chain with an approximate step (Bu et al.'s CLT) is refereed as an approximation
    (``approximate`` True): below the rigorous lower end it is ``REFUTED`` as a bound of the mechanism.  The
    chain's last (eps, delta)-DP conclusion before the bridge is refereed too (``before_bridge``, under
    add/remove, where the bracket is tight); refuted there, the chain is refuted.

    A pure-DP conclusion (delta = 0) is compared with the exact pure epsilon (:func:`_pure_epsilon`); a rigorous
    lower end of 0 (the algebra did not resolve the setting) is reported as vacuous (``lower_vacuous``).
    ``steps`` declares what user theorems do to the mechanism (e.g. ``{"user.my_composition": "compose"}``):
    a composition theorem is then refereed against the exact composition."""
    table = {**MECHANISM_STEPS, **(steps or {})}
    prefix: list[str] = []
    for i in ids:
        if i not in table or (not prefix and not table[i].startswith("base:")):
            break
        prefix.append(i)
    stop = len(prefix)
    while prefix and not isinstance(P.canonical(implication(prefix[-1]).conclusion), P.ApproxDP):
        prefix.pop()
    if not prefix:
        return {"applies": False, "reason": "no prefix of the chain concludes (eps, delta)-DP of a mechanism the "
                                            "accountants model (Gaussian, Poisson subsampling, composition, "
                                            "conversions, group privacy)" + _stop_reason(ids, stop)}
    # every symbol bound: the chain is evaluated step by step (no closed form is built); names it does not use dropped
    d = chain(prefix, bind=bind, ignore_extra=True)
    used = {k for k, _ in d.bound}
    vals = {k: v for k, v in (bind or {}).items() if k in used}
    got = d.values()
    if set(got) == {"eps"} and d.conclusion.kind == "PureDP":  # pure DP: (eps, 0)-DP
        got = {**got, "delta": 0}
    if set(got) != {"eps", "delta"}:
        raise InvalidParameterError(f"referee: bind every symbol of {','.join(prefix)}; unbound: "
                                    f"{', '.join(sorted(s.name for s in d.free_symbols))}")
    eps_d, delta_d = float(got["eps"]), float(got["delta"])
    approx = [i for i in prefix if implication(i).approximate]
    fvals = {k: float(v) for k, v in vals.items()}
    out: dict[str, Any] = {"applies": True, "prefix": list(prefix), "at": dict(vals), "epsilon": eps_d,
                           "delta": delta_d, "adjacency": P.adjacency_of(d.conclusion), "approximate": bool(approx)}
    try:
        mech = _mechanism_of(prefix, fvals, table)
        low = _mechanism_of(prefix, fvals, table, lower=True)
    except UnsupportedError as exc:
        return {**out, "applies": False, "verdict": None, "reason": f"not refereed: {exc}"}
    out["mechanism"] = mech.to_dict()
    if low != mech:
        out["lower_mechanism"] = low.to_dict()
    before = _before_bridge(prefix, vals, table, steps)
    if before is not None:
        out["before_bridge"] = before
    if not (delta_d == 0 or 0 < delta_d < 1):
        return {**out, "verdict": "UNDECIDED", "reason": f"derived delta={delta_d!r} is not in (0, 1)"}
    try:
        lo, up, est, why = _ends(mech, low, delta_d)
    except UnsupportedError as exc:
        return {**out, "applies": False, "verdict": None, "reason": f"the tight accountant cannot referee it: {exc}"}
    if delta_d == 0 and why is not None:
        return {**out, "verdict": "UNDECIDED", "reason": f"derived delta=0 (pure DP) and {why}"}
    kind = (FALLBACK_KIND.format(why=why) if why is not None else REPLACE_ONE_KIND if low != mech else LOWER_KIND)
    out.update(tight_epsilon=up, tight_upper=up, tight_lower=lo, rigorous=why is None, lower_kind=kind,
               upper_kind=("rigorous upper end: the algebra's replace-one dominating pair (it only dominates)"
                           if low != mech else "rigorous upper end of the mechanism algebra's bracket"))
    if est is not None:
        out["tight_estimate"] = est
    slack = eps_d / up if up > 0 else math.inf
    slack_max = eps_d / lo if lo > 0 else math.inf
    out.update(slack=slack, slack_max=slack_max)
    where = ", ".join(f"{k}={v:g}" for k, v in vals.items())
    if before is not None and before.get("verdict") == "REFUTED" and not eps_d < lo * (1 - 1e-9):
        # an intermediate conclusion of the chain is no bound: the derivation is refuted there
        return {**out, "verdict": "REFUTED",
                "reason": f"its add/remove conclusion before the group-privacy bridge ({before['prefix'][-1]}) is "
                          f"refuted: {before['reason']}"}
    tag = (f"the chain is an approximation ({', '.join(approx)}), not a guarantee, and here it is not even a bound: "
           if approx else "")
    if eps_d < lo * (1 - 1e-9):
        if why is None:
            return {**out, "verdict": "REFUTED",
                    "reason": f"{tag}derived eps={eps_d:.6g} is below the exact mechanism's rigorous lower bound "
                              f"{lo:.6g} at delta={delta_d:.3g} ({where})"}
        return {**out, "verdict": "UNDECIDED",
                "reason": f"derived eps={eps_d:.6g} is below the algebra's uncertified estimate {lo:.6g} at "
                          f"delta={delta_d:.3g} ({where}); not refuted: {why}"}
    approx_note = f" (an approximation: {', '.join(approx)})" if approx else ""
    if not lo > 0:  # a lower end of 0 says nothing: only the upper end's slack is meaningful
        why_lo = ("its rigorous lower end is 0 here (the algebra's dominated discretisation did not resolve this "
                  "setting), so nothing below it could be refuted" if why is None else
                  f"no rigorous lower end: {why}")
        out.update(verdict="CONSISTENT", lower_vacuous=True,
                   reason=f"this closed form{approx_note} is at least {slack:.3g}x the tight epsilon here (against the "
                          f"upper end {up:.6g}; {why_lo})")
        return out
    span = f"{slack:.3g}x" if f"{slack:.3g}" == f"{slack_max:.3g}" else f"{slack:.3g}x to {slack_max:.3g}x"
    if slack < 1:  # inside the bracket, below its upper end: neither refuted nor shown to bound the exact epsilon
        span += " (below the upper end: whether it bounds the exact epsilon is not decided here)"
    ends = ("its upper end (no rigorous lower end)" if why is not None else
            "its rigorous bracket (upper: the replace-one dominating pair; lower: the mechanism under add/remove "
            "adjacency or the realised replace-one pair)" if low != mech else "its rigorous bracket")
    tail = (f"; it is {eps_d / est:.3g}x the realised replace-one pair's estimate {est:.6g} (not a bound)"
            if est is not None else "")
    out.update(verdict="CONSISTENT", lower_vacuous=False,
               reason=f"this closed form{approx_note} is {span} the tight epsilon here (against {ends} "
                      f"[{lo:.6g}, {up:.6g}]){tail}")
    return out


# ---------------------------------------------------------------------------------------- user theorems
#: the symbols a composition theorem's conclusion may use (each step's epsilon and delta, the number of steps)
_COMPOSITION_SYMBOLS = ("epsilon", "delta", "T")


def _grid(lo: float, hi: float, k: int, *, integer: bool, log: bool) -> list[float]:
    import numpy as np

    if log and lo > 0:
        xs = np.geomspace(lo, hi, k)
    else:
        xs = np.linspace(lo, hi, k)
    out = sorted({float(round(x)) if integer else float(x) for x in xs})
    return [x for x in out if lo <= x <= hi]


def optimal_composition_epsilon(eps0: float, delta0: float, T: int, delta: float) -> float:
    """The exact epsilon at ``delta`` of ``T`` compositions of the worst (eps0, delta0)-DP mechanism.

    Its dominating pair (Kairouz, Oh, Viswanath 2017) is a delta0 atom of infinite privacy loss and,
    with probability 1 - delta0, randomized response with loss +-eps0; so ``delta(eps) = 1 - (1 - delta0)^T
    + (1 - delta0)^T E[(1 - e^{eps - L})_+]`` with ``L = (2K - T) eps0``, ``K ~ Binomial(T, e^eps0/(1 + e^eps0))``
    (a finite sum, evaluated in log space), inverted by bisection; returns the lower end of the final
    bracket (never above the exact value beyond the float64 rounding of the sum).  ``inf`` when ``delta`` is
    below the infinite-loss mass ``1 - (1 - delta0)^T``, ``nan`` when it equals it to 1e-9 relative (undecided).  Independent of the privacy-loss-distribution grid of the tight accountant."""
    import numpy as np
    from scipy.special import gammaln

    T = int(T)
    log_keep = T * math.log1p(-delta0)
    inf_mass = -math.expm1(log_keep)
    rem = (delta - inf_mass) / math.exp(log_keep)
    if abs(delta - inf_mass) <= 1e-9 * delta:  # delta is the infinite-loss mass to float precision: undecided
        return math.nan
    if rem < 0:
        return math.inf
    k = np.arange(T + 1, dtype=float)
    p = math.exp(eps0) / (1 + math.exp(eps0))
    logpmf = gammaln(T + 1) - gammaln(k + 1) - gammaln(T - k + 1) + k * math.log(p) + (T - k) * math.log1p(-p)
    loss = (2 * k - T) * eps0

    def d_of(e: float) -> float:
        m = loss > e
        return float(np.sum(np.exp(logpmf[m]) * -np.expm1(e - loss[m])))

    lo, hi = 0.0, T * eps0
    if d_of(lo) <= rem:
        return 0.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d_of(mid) > rem else (lo, mid)
        if hi - lo <= 1e-13 * hi:
            break
    return lo


def referee_theorem(id: str, *, points: int = 4) -> dict[str, Any]:
    """The exact mechanism as referee of a typed composition theorem (a user's or the library's).

    The theorem must state ``ApproxDP(epsilon, delta) -> ApproxDP(E, D)`` with ``E``, ``D`` in ``epsilon``,
    ``delta`` and ``T``: a ``T``-fold composition theorem, which must hold for every (epsilon, delta)-DP
    mechanism, the worst one included.  On a grid of its domain (``points`` per symbol, inside every
    hypothesis) ``E`` is compared with the epsilon of ``T`` compositions of the worst-case (epsilon, delta)-DP mechanism at delta = ``D``, computed exactly
    (:func:`optimal_composition_epsilon`; not the tight accountant, whose lower end was found above the exact
    value for this mechanism at large T): ``E`` below it (by more than 1e-6 relative) refutes the theorem at
    that point; otherwise the smallest and largest slack are reported."""
    import sympy as sp

    from .accountants.user_theorem import _violated
    from .calculus_eval import evaluate
    from .library import get

    th = get(id)
    try:
        imp = implication(id)
    except InvalidParameterError as exc:
        return {"applies": False, "reason": str(exc)}
    prem = P.canonical(imp.premises[0]) if imp.premises else None
    concl = P.canonical(imp.conclusion)
    if not (isinstance(prem, P.ApproxDP) and isinstance(concl, P.ApproxDP) and len(imp.premises) == 1):
        return {"applies": False, "reason": "not a composition theorem ApproxDP(epsilon, delta) -> ApproxDP(E, D); "
                                            "the referee models no other user theorem"}
    pe, pd = prem.params()["eps"], prem.params()["delta"]
    if not (isinstance(pe, sp.Symbol) and isinstance(pd, sp.Symbol)):
        return {"applies": False, "reason": "the premise's epsilon and delta must be plain symbols"}
    syms = {x.name: x for x in concl.free_symbols}
    dom = {x.name: (float(lo), float(hi)) for x, lo, hi in th.domain}
    extra = sorted(set(syms) - {pe.name, pd.name, "T"})
    undeclared = [x for x in extra if x not in dom]
    if undeclared or len(extra) > 2:
        return {"applies": False, "reason": f"the conclusion involves {', '.join(undeclared or extra)}; allowed: the "
                                            f"premise's {pe.name}, {pd.name}, T and at most two more symbols with a "
                                            "declared range (a slack such as deltatilde)"}
    axes: dict[str, list[float]] = {}
    for name, default in ((pe.name, (0.01, 1.0)), (pd.name, (1e-9, 1e-3)), ("T", (1.0, 1000.0)),
                          *((x, dom[x]) for x in extra)):
        lo, hi = dom.get(name, default)
        if name == "T":
            lo, hi = max(lo, 1.0), min(hi, 1e5)
        axes[name] = _grid(lo, hi, points, integer=name == "T", log=True)
    e_expr, d_expr = concl.params()["eps"], concl.params()["delta"]
    checked = skipped = 0
    worst: dict[str, Any] | None = None
    best: dict[str, Any] | None = None
    names = list(axes)
    for combo in itertools.product(*(axes[k] for k in names)):
        at = dict(zip(names, combo))
        ev, dv, tv = at[pe.name], at[pd.name], at["T"]
        if _violated(tuple(th.hypotheses), at) is not None:
            skipped += 1
            continue
        m = {x: sp.Float(at[x.name], 30) for x in (pe, pd, *syms.values()) if x.name in at}
        try:
            e_val, d_val = float(evaluate(e_expr, m)), float(evaluate(d_expr, m))
        except (TypeError, ValueError):
            skipped += 1
            continue
        if not (0 < d_val < 1) or e_val != e_val:
            skipped += 1
            continue
        exact = optimal_composition_epsilon(ev, dv, round(tv), d_val)
        if exact != exact:  # D is the infinite-loss mass to float precision: this point decides nothing
            skipped += 1
            continue
        checked += 1
        point = {**at, "E": e_val, "D": d_val, "optimal_epsilon": exact}
        if e_val < exact * (1 - 1e-6):
            where = ", ".join(f"{k}={v:g}" for k, v in at.items())
            return {"applies": True, "verdict": "REFUTED", "at": point, "checked": checked,
                    "reason": f"{id}: E = {e_val:.6g} at {where} is below the optimal composition's "
                              f"{exact:.6g} at delta = {d_val:.3g} (no bound: the worst (epsilon, delta)-DP "
                              f"mechanism composed T times exceeds it)"}
        if not exact > 1e-12:  # the optimal composition needs ~no epsilon at this D: no slack
            continue
        slack = e_val / exact
        point["slack"] = slack
        if worst is None or slack < worst["slack"]:
            worst = point
        if best is None or slack > best["slack"]:
            best = point
    if not checked or worst is None or best is None:
        return {"applies": False, "reason": f"no point of the domain grid is inside the hypotheses with D in (0, 1) "
                                            f"({skipped} skipped)"}
    return {"applies": True, "verdict": "CONSISTENT", "checked": checked, "skipped": skipped, "tightest": worst,
            "loosest": best, "oracle": "exact optimal composition (Kairouz, Oh, Viswanath 2017 pair; binomial sum)",
            "reason": f"E is {worst['slack']:.3g}x to {best['slack']:.3g}x the optimal composition's epsilon at "
                      f"{checked} points of the domain"}


def verify_theorem_file(path: str, out: str, ids: Sequence[str] = (), *, seed: int = 0,
                        deep: bool = False) -> list[dict[str, Any]]:
    """``symdp verify --theorems FILE --out DIR``: the file's theorems through the verifier (without writing
    ``proofs/``) and the referee (:func:`referee_theorem`); the results go to ``DIR/ledger.json`` and
    ``DIR/LEDGER.md`` only.  ``ids`` restricts to those of the file's theorems."""
    import json
    from pathlib import Path

    from ._io import atomic_write_text
    from .calculus import load_theorems
    from .verify import run

    ths = load_theorems(path)
    have = [t.id for t in ths]
    unknown = sorted(set(ids) - set(have))
    if unknown:
        raise InvalidParameterError(f"ids {', '.join(unknown)} are not theorems of {path}; allowed: {', '.join(have)}")
    todo = list(ids) or have
    results = run(todo, deep=deep, write=False, progress=False, seed=seed, workers=1)
    rows: list[dict[str, Any]] = []
    for r in results:
        row = r.ledger_entry()
        row["referee"] = referee_theorem(r.id)
        if row["referee"].get("verdict") == "REFUTED":  # a counterexample decides it, whatever the ladder said
            row["evidence"] = f"referee: {row['referee']['reason']}; verifier ({row['verdict']}): {row['evidence']}"
            row["verdict"] = "REFUTED"
        rows.append(row)
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    atomic_write_text(d / "ledger.json", json.dumps({"version": 1, "theorem_file": str(path), "entries": rows},
                                                   indent=1, default=str))
    lines = [f"# symdp verify of {Path(path).name}", "", "| id | verdict | referee | evidence |", "|---|---|---|---|"]
    for row in rows:
        ref = row["referee"]
        rv = ref.get("verdict") or "not refereed"
        text = str(row["evidence"]).replace("|", "\\|")[:300]
        lines.append(f"| {row['id']} | {row['verdict']} | {rv}: {str(ref.get('reason', '')).replace('|', '/')[:200]} "
                     f"| {text} |")
    atomic_write_text(d / "LEDGER.md", "\n".join(lines) + "\n")
    return rows


# ---------------------------------------------------------------------------------------- --theorems drivers
def verify_file_cmd(theorem_file: str | None, out_dir: str | None, ids: Sequence[str], *, seed: int, deep: bool,
                    as_json: bool) -> None:
    """``symdp verify --theorems FILE --out DIR [IDS]``."""
    import json

    import click

    from .errors import SymdpError
    from .theorems_option import fail, load_or_exit

    if theorem_file is None or out_dir is None:
        fail("--theorems FILE and --out DIR go together; allowed: `symdp verify --theorems FILE --out DIR` "
              "(the results of a theorem file are written only to DIR, never to proofs/)")
    assert theorem_file is not None and out_dir is not None
    load_or_exit(theorem_file)

    try:
        rows = verify_theorem_file(theorem_file, out_dir, ids, seed=seed, deep=deep)
    except SymdpError as exc:
        fail(str(exc))
        return
    if as_json:
        click.echo(json.dumps({"version": 1, "entries": rows}, indent=1, default=str))
        return
    for row in rows:
        ref: dict[str, Any] = row["referee"]
        click.echo(f"{row['id']}: {row['verdict']}; referee: {ref.get('verdict') or 'not refereed'} -- "
                   f"{str(ref.get('reason', ''))[:200]}")
    click.echo(f"results written to {out_dir}/ledger.json and {out_dir}/LEDGER.md")


def audit_setup(theorem_file: str, ids: Sequence[str], workers: int | None,
                scheduler: str | None) -> tuple[tuple[str, ...], int, None]:
    """``symdp audit --theorems FILE [IDS]``: register the file's theorems and audit them as claims (all of
    them, or the given ``IDS`` among them) in this process (one worker, no scheduler: the registration is
    this process's)."""
    from .theorems_option import fail, load_or_exit

    have = [t.id for t in load_or_exit(theorem_file)]
    unknown = sorted(set(ids) - set(have))
    if unknown:
        fail(f"ids {', '.join(unknown)} are not theorems of {theorem_file}; allowed: {', '.join(have)}")
    if scheduler is not None:
        fail("--scheduler with --theorems: the file's theorems are registered in this process only; allowed: "
              "--theorems without --scheduler")
    return tuple(ids) or tuple(have), 1, None


def apply_referee(results: list[Any]) -> None:
    """The exact-mechanism referee (:func:`symdp.referee.referee_theorem`) on audited user theorems: a typed
    composition theorem below the optimal composition somewhere FAILS with that point; otherwise the
    referee's slack is recorded beside the verdict (``extra["referee"]``)."""
    for r in results:
        ref = referee_theorem(r.id)
        r.extra["referee"] = ref
        if ref.get("verdict") == "CONSISTENT":  # grid points are no proof: the verdict stays, the slack is shown
            r.detail = (f"{r.detail}; " if r.detail else "") + f"referee: consistent, {ref['reason']}"
        if ref.get("verdict") == "REFUTED":
            at = ref["at"]
            r.verdict = "FAILS"
            r.detail = f"referee: {ref['reason']}" + (f"; verifier: {r.detail}" if r.detail else "")
            r.counterexample = {k: repr(v) for k, v in at.items() if k not in ("E", "optimal_epsilon")}
            r.claimed, r.actual = f"{at['E']:.6g}", f"{at['optimal_epsilon']:.6g}"


__all__ = ["FALLBACK_KIND", "LOWER_KIND", "MECHANISM_STEPS", "REPLACE_ONE_KIND", "apply_referee", "audit_setup", "optimal_composition_epsilon", "referee",
           "referee_theorem", "verify_file_cmd", "verify_theorem_file"]
