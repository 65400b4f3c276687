r"""Typed premise -> conclusion form of library entries, keyed by entry id.

The library's statements stay exactly as printed in the sources; this module
only *reads* each entry's free-form ``premises`` / ``conclusion``
(:class:`symdp.theorem.Property`) and types them with :mod:`symdp.properties`
so that :func:`symdp.calculus.chain` can unify one entry's conclusion with the
next entry's premise.  A few entries need more than a reading:

* ``classical.gaussian_mechanism_calibration`` is printed as
  ``sigma >= Delta sqrt(2 ln(1.25/delta)) / eps``; its implication is
  "Gaussian(Delta, sigma) is (eps_G, delta)-DP" with ``eps_G`` the solution of
  the printed bound for ``eps`` (computed from the entry by SymPy, not
  retyped), and the entry's ``eps < 1`` becomes ``eps_G < 1``: a condition on
  sigma that every chain through it keeps.
* ``bu2020.clt_mu`` concludes GDP only *approximately* (central limit
  theorem): the chain result is labelled an approximation.
* Dwork et al. 2015's max-information entries are in bits; their typed
  conclusion is in nats.
* ``he2021long.thm7_subsampling`` (a comparison as printed) is typed as the
  step 001 uses in Thm 7: an (eps~, delta)-DP step run on a tau-of-N
  mini-batch is (2 eps~ tau / N, delta tau / N)-DP.

>>> from symdp.library.implications import implication
>>> implication("bridge.bbg2018_poisson_eps").conclusion
ApproxDP(eps=log(q*(exp(epsilon) - 1) + 1), delta=delta*q)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import sympy as sp

from .. import properties as P
from ..errors import InvalidParameterError, UnknownTheoremError
from ..theorem import Property, Theorem

__all__ = ["Implication", "implication", "implications", "from_legacy", "BRIDGES_FOR"]


@dataclass(frozen=True)
class Implication:
    """``premises -> conclusion`` of entry ``id``; ``variables`` are the premise's pattern symbols
    that chaining binds (default: the premise parameters that are bare symbols); ``hypotheses`` add
    to the entry's own; ``approximate`` marks a conclusion that holds only approximately."""

    id: str
    premises: tuple[P.Prop, ...]
    conclusion: P.Prop
    variables: tuple[sp.Symbol, ...] = ()
    hypotheses: tuple[sp.Basic, ...] = ()
    approximate: bool = False
    note: str = ""
    subject: str = ""  # how the subject changes, e.g. "{} o Sample_q"; "" keeps the conclusion's
    #: True when ``hypotheses`` are the entry's own rewritten for this typed form (they replace them)
    replaces_hypotheses: bool = False
    extra: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    def pattern_variables(self) -> tuple[sp.Symbol, ...]:
        if self.variables:
            return self.variables
        if not self.premises:
            return ()
        out: list[sp.Symbol] = []
        for e in P.canonical(self.premises[0]).params().values():
            if isinstance(e, sp.Symbol) and e not in out:
                out.append(e)
        return tuple(out)


def from_legacy(p: Property, *, bits: bool = False) -> P.Prop:
    """Type a free-form :class:`symdp.theorem.Property` of the library."""
    name, ps, subj = p.name, tuple(p.params), p.subject
    if name == "DP" and len(ps) == 2:
        if ps[1] == 0:
            return P.PureDP(ps[0], subj)
        return P.ApproxDP(ps[0], ps[1], subj)
    if name.startswith("GDP") and len(ps) == 1:
        return P.GDP(ps[0], subj, approximate=name != "GDP")
    if name == "generalization" and len(ps) == 2:
        return P.Generalization(ps[0], ps[1], subj)
    if name == "max-information" and len(ps) == 2:
        k = ps[0] * sp.log(2) if bits else ps[0]
        return P.MaxInformation(sp.simplify(k) if bits else k, ps[1], subj)
    if name == "On-Average-KL-privacy" and len(ps) == 1:
        return P.OnAverageKL(ps[0], subj)
    if name == "RDP" and len(ps) == 2:
        return P.RDP(ps[0], ps[1], subj)
    if name == "zCDP" and len(ps) == 1:
        return P.ZCDP(ps[0], subj)
    if name == "fDP" and len(ps) == 1:
        return P.TradeOff(ps[0], subject=subj)
    if name in ("Gaussian", "Gaussian mechanism") and len(ps) == 2:
        return P.Mechanism("gaussian", (("sensitivity", ps[0]), ("sigma", ps[1])), subj)
    if name == "Poisson-subsampled-Gaussian" and len(ps) == 3:
        return P.Mechanism("dp_sgd", (("rate", ps[0]), ("sigma", ps[1]), ("steps", ps[2])), subj)
    return P.OtherProperty(name, ps, subj)


def _auto(th: Theorem) -> Implication | None:
    if th.conclusion is None or not th.formula_available:
        return None
    bits = th.id.startswith("dwork2015.")
    prem = tuple(from_legacy(p, bits=bits) for p in th.premises)
    concl = from_legacy(th.conclusion, bits=bits)
    approx = isinstance(concl, P.GDP) and concl.approximate
    return Implication(th.id, prem, concl, approximate=approx,
                       note="max-information converted from bits to nats" if bits else "")


def _gaussian_calibration(th: Theorem) -> Implication:
    from ..symbols import Delta, delta, eps, sigma

    sols = [s for s in sp.solve(sp.Eq(th.rhs, sigma), eps) if s.is_positive is not False]
    if len(sols) != 1:  # pragma: no cover - the printed bound is monotone in eps
        raise InvalidParameterError(f"{th.id}: cannot solve the calibration for epsilon ({sols})")
    eps_g = sols[0]
    hyps = tuple(h.xreplace({eps: eps_g}) for h in th.hypotheses)
    return Implication(
        th.id, (P.Mechanism("gaussian", (("sensitivity", Delta), ("sigma", sigma)), "M"),),
        P.ApproxDP(eps_g, delta, "M"), hypotheses=hyps, replaces_hypotheses=True,
        note="eps solved from the printed calibration sigma >= Delta sqrt(2 ln(1.25/delta))/eps; its eps < 1 is "
             "kept as a condition on sigma",
    )


def _clt(th: Theorem) -> Implication:
    from ..symbols import T, p, sigma

    return Implication(
        th.id, (P.Mechanism("dp_sgd", (("rate", p), ("sigma", sigma), ("steps", T)), "NoisySGD"),),
        P.GDP(th.rhs, "NoisySGD", approximate=True), approximate=True,
        note="central-limit approximation (003 eq. 3.1): not a guarantee",
    )


def _sgld_subsampling(th: Theorem) -> Implication:
    from ..symbols import N, delta

    eps_t = sp.Symbol("epsilontilde", positive=True)
    tau = sp.Symbol("tau", positive=True, integer=True)
    return Implication(
        th.id, (P.ApproxDP(eps_t, delta, "M_t"),),
        P.ApproxDP(2 * eps_t * tau / N, delta * tau / N, "M_t on a tau-of-N mini-batch"),
        hypotheses=(tau <= N,),
        note="001 App. C.1 as used in Thm 7: amplification by a tau-of-N mini-batch, linearised; the ledger "
             "verdict of this comparison is the step's verdict",
    )


def _thm7_pattern(th: Theorem) -> Implication:
    base = _auto(th)
    assert base is not None
    eps_t = sp.Symbol("epsilontilde", positive=True)
    from ..symbols import delta

    return Implication(th.id, base.premises, base.conclusion, variables=(eps_t, delta),
                       note="premise pattern (2 eps~ tau/N, delta tau/N): chaining solves it for eps~ and delta")


_OVERRIDES = {
    "classical.gaussian_mechanism_calibration": _gaussian_calibration,
    "bu2020.clt_mu": _clt,
    "he2021long.thm7_subsampling": _sgld_subsampling,
    "he2021long.thm7_eps": _thm7_pattern,
    "he2021long.thm7_delta": _thm7_pattern,
    "he2021long.thm8_eps": _thm7_pattern,
    "he2021long.thm8_delta": _thm7_pattern,
}

#: (have, need) -> entry ids that connect them (named in chaining's mismatch errors)
BRIDGES_FOR: dict[tuple[str, str], tuple[str, ...]] = {
    ("GDP", "ApproxDP"): ("bu2020.delta_of_eps_gdp", "bridge.gdp_eps_of_delta"),
    ("RDP", "ApproxDP"): ("bridge.mironov2017_rdp_to_dp",),
    ("zCDP", "ApproxDP"): ("bridge.bun_steinke2016_zcdp_to_dp",),
    ("Mechanism:gaussian", "ApproxDP"): ("classical.gaussian_mechanism_calibration", "balle2018.gaussian_profile"),
    ("Mechanism:gaussian", "GDP"): ("bu2020.gaussian_mechanism_gdp",),
    ("Mechanism:gaussian", "RDP"): ("bridge.mironov2017_gaussian_rdp",),
    ("Mechanism:gaussian", "zCDP"): ("bridge.bun_steinke2016_gaussian_zcdp",),
    ("Mechanism:dp_sgd", "GDP"): ("bu2020.clt_mu",),
    ("ApproxDP", "MaxInformation"): ("bridge.dwork2015_thm20_nats", "dwork2015.thm20_pure_dp_iid"),
    ("ApproxDP", "Generalization"): ("he2021uai.thm1_small_eps", "he2021long.thm1", "classical.dwork2015_high_prob"),
    ("MaxInformation", "Other:PAC-Bayes-kl"): ("pacbayes.data_dependent_prior",),
    ("ApproxDP", "Other:PAC-Bayes-kl"): ("bridge.pac_bayes_dp_prior",),
    ("TradeOff", "ApproxDP"): ("bu2020.duality",),
    ("OnAverageKL", "Other:on-average-generalization"): ("wang2016.thm4_equivalence",),
}


@cache
def _library_implication(id: str) -> Implication | None:
    from . import get

    th = get(id, with_evidence=False)
    if id in _OVERRIDES:
        return _OVERRIDES[id](th)
    return _auto(th)


_USER_IMPLICATIONS: dict[str, Implication] = {}


def register_implication(imp: Implication) -> None:
    """Attach a typed implication to a registered user theorem (used by :func:`symdp.calculus.register`)."""
    _USER_IMPLICATIONS[imp.id] = imp


def implication(id: str) -> Implication:
    """The typed implication of entry ``id``; an entry that is no implication raises with the reason."""
    if id in _USER_IMPLICATIONS:
        return _USER_IMPLICATIONS[id]
    from . import get, user_ids

    if id in user_ids():
        raise InvalidParameterError(f"theorem id={id!r} was registered without premises/conclusion; "
                                    "allowed: a theorem with a typed conclusion (register(..., conclusion=...))")
    try:
        imp = _library_implication(id)
    except UnknownTheoremError:
        raise
    if imp is None:
        th = get(id, with_evidence=False)
        raise InvalidParameterError(f"theorem id={id!r} ({th.kind.value}) states no premise -> conclusion; "
                                    "allowed: an entry with a conclusion (see `symdp show ID`)")
    return imp


def implications() -> dict[str, Implication]:
    """Every library entry that is an implication, by id."""
    from . import ids

    out: dict[str, Implication] = {}
    for i in ids():
        try:
            out[i] = implication(i)
        except (InvalidParameterError, UnknownTheoremError):
            continue
    return out
