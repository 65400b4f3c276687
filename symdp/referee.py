"""The exact mechanism as referee of a chain (issue 22): :func:`referee` derives the chain's (eps, delta) at a
bind and compares it with the tight accountant of the mechanism the chain describes (Gaussian, Poisson
subsampling, composition, conversions; :data:`MECHANISM_STEPS`).  Split from :mod:`symdp.calculus` (pure move);
it builds on :func:`symdp.calculus.chain` and :mod:`symdp.accountants`, and nothing below it imports it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from . import properties as P
from .calculus import chain
from .errors import InvalidParameterError, UnsupportedError
from .library.implications import implication

# ---------------------------------------------------------------------------------------- the referee
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
}


def _mechanism_of(ids: Sequence[str], values: Mapping[str, float], table: Mapping[str, str]) -> Any:
    """The runtime mechanism (:mod:`symdp.mechanisms`, add/remove) whose privacy the chain ``ids`` concludes."""
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
        elif how == "poisson":
            m = M.Subsampled(m, need("q"))
        elif how == "compose":
            m = M.SelfComposed(m, round(need("T")))
    return m


def referee(ids: Sequence[str], bind: Mapping[str, Any], *, steps: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The exact mechanism as referee of a chain's privacy conclusion.

    The longest prefix of ``ids`` whose steps describe a mechanism the accountants model
    (:data:`MECHANISM_STEPS`: Gaussian, Poisson subsampling, composition, conversions) and which concludes
    (eps, delta)-DP is derived at ``bind`` (every symbol bound) and compared with the tight accountant
    (:mod:`symdp.accountants.algebra`) at the derived delta: a derived eps below the accountant's lower
    estimate refutes the derivation at that point; otherwise ``slack`` = derived eps / tight eps ("this
    closed form is 9.7x the tight epsilon here").  The lower estimate is the optimistic discretisation
    of the privacy loss distribution (Doroshenko et al. 2022), not a certified bound (labelled).
    ``steps`` declares what user theorems do to the mechanism (e.g. ``{"user.my_composition": "compose"}``):
    a composition theorem is then refereed against the exact composition."""
    from .accountants.algebra import tight

    table = {**MECHANISM_STEPS, **(steps or {})}
    prefix: list[str] = []
    for i in ids:
        if i not in table or (not prefix and not table[i].startswith("base:")):
            break
        prefix.append(i)
    while prefix and not isinstance(P.canonical(implication(prefix[-1]).conclusion), P.ApproxDP):
        prefix.pop()
    if not prefix:
        return {"applies": False, "reason": "no prefix of the chain is a privacy property of a mechanism the "
                                            "accountants model (Gaussian, Poisson subsampling, composition)"}
    d = chain(prefix)
    names = {s.name for s in d.free_symbols} | {s.name for p in d.premises for s in p.free_symbols}
    vals = {k: v for k, v in (bind or {}).items() if k in names}
    d = chain(prefix, bind=vals)
    got = d.values()
    if set(got) != {"eps", "delta"}:
        raise InvalidParameterError(f"referee: bind every symbol of {','.join(prefix)}; unbound: "
                                    f"{', '.join(sorted(s.name for s in d.free_symbols))}")
    eps_d, delta_d = float(got["eps"]), float(got["delta"])
    mech = _mechanism_of(prefix, {k: float(v) for k, v in vals.items()}, table)
    out: dict[str, Any] = {"applies": True, "prefix": list(prefix), "mechanism": mech.to_dict(), "at": dict(vals),
                           "epsilon": eps_d, "delta": delta_d}
    if not 0 < delta_d < 1:
        return {**out, "verdict": "UNDECIDED", "reason": f"derived delta={delta_d!r} is not in (0, 1)"}
    try:
        r = tight.epsilon(mech, delta_d)
    except UnsupportedError as exc:
        return {**out, "applies": False, "verdict": None, "reason": f"the tight accountant cannot referee it: {exc}"}
    out.update(tight_epsilon=float(r.epsilon), tight_lower=float(r.lower),
               lower_kind="optimistic discretisation (an estimate from below, not certified)")
    if eps_d < float(r.lower) * (1 - 1e-9):
        out.update(verdict="REFUTED", slack=eps_d / float(r.epsilon),
                   reason=f"derived eps={eps_d:.6g} is below the exact mechanism's {float(r.lower):.6g} at delta={delta_d:.3g}")
    else:
        out.update(verdict="CONSISTENT", slack=eps_d / float(r.epsilon) if r.epsilon > 0 else math.inf,
                   reason=f"this closed form is {eps_d / float(r.epsilon):.3g}x the tight epsilon here")
    return out


__all__ = ["MECHANISM_STEPS", "referee"]
