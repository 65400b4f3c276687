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
  step He et al. (long) uses in Thm 7: an (eps~, delta)-DP step run on a tau-of-N
  mini-batch is (2 eps~ tau / N, delta tau / N)-DP.

>>> from symdp.library.implications import implication
>>> implication("bridge.bbg2018_poisson_eps").conclusion
ApproxDP(eps=log(q*(exp(epsilon) - 1) + 1), delta=delta*q, adjacency='add_remove')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import sympy as sp

from .. import properties as P
from ..errors import InvalidParameterError, UnknownTheoremError
from ..theorem import Kind, Property, Theorem

__all__ = ["ADJACENCY", "ADJACENCY_BRIDGES", "BRIDGES_FOR", "Implication", "from_legacy", "implication", "implications",
           "load_theorem_file"]


@dataclass(frozen=True)
class Implication:
    """``premises -> conclusion`` of entry ``id``; ``variables`` are the premise's pattern symbols
    that chaining binds (default: the parameters of every premise that are bare symbols); ``hypotheses`` add
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
        for prem in self.premises:  # every premise's: chaining unifies each with an earlier conclusion
            for e in P.canonical(prem).params().values():
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
    if name == "on-average-generalization" and len(ps) == 1:
        return P.OnAverageGeneralization(ps[0], subj)
    if name == "KL-privacy" and len(ps) == 1:
        return P.KLPrivacy(ps[0], subj)
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
    if name == "Poisson-subsampled-Gaussian-step" and len(ps) == 2:
        return P.Mechanism("subsampled_gaussian", (("rate", ps[0]), ("sigma", ps[1])), subj)
    if name == "Poisson-subsampled-Gaussian" and len(ps) == 3:
        return P.Mechanism("dp_sgd", (("rate", ps[0]), ("sigma", ps[1]), ("steps", ps[2])), subj)
    return P.OtherProperty(name, ps, subj)


def _auto(th: Theorem) -> Implication | None:
    if th.conclusion is None or not th.formula_available:
        return None
    bits = th.id.startswith("dwork2015.")
    prem = tuple(from_legacy(p, bits=bits) for p in th.premises)
    concl = from_legacy(th.conclusion, bits=bits)
    if th.kind is Kind.BOUND and th.relation == "<=" and isinstance(th.lhs, sp.Symbol) and th.rhs is not None:
        # a conclusion written with the bound's own lhs symbol (e.g. CKS's "(eps', delta)-DP") holds at the bound
        concl = concl.xreplace({th.lhs: th.rhs})
    approx = isinstance(concl, P.GDP) and concl.approximate
    return Implication(th.id, prem, concl, approximate=approx,
                       note="max-information converted from bits to nats" if bits else "")


#: neighbouring relation of each entry's (premise, conclusion); unlisted entries hold for any relation
#: (their conclusion inherits the premise's).  He et al. (000/001: "S and S' differ by only one example",
#: fixed sample size N), Dwork et al. 2015 and the generalization results quoting it, and Wang et al.
#: (004, Hamming distance one) use replace-one; Balle-Barthe-Gaboardi's Poisson theorem and 003's NoisySGD
#: ("derived by discarding an individual") use add/remove.
_REPLACE_ONE_PREMISE = (
    "he2021uai.thm1_", "he2021uai.thm3_", "he2021long.thm1", "he2021long.thm3", "he2021long.quote_dwork2015",
    "classical.dwork2015_", "classical.nissim_stemmer2015_", "classical.oneto2017_", "dwork2015.thm19", "dwork2015.thm20",
    "bridge.dwork2015_thm20_nats", "bridge.pac_bayes_dp_prior",
)
ADJACENCY: dict[str, tuple[str, str]] = {
    "bridge.bbg2018_poisson_eps": ("add_remove", "add_remove"),
    "bridge.bbg2018_poisson_delta": ("add_remove", "add_remove"),
    "bridge.bbg2018_wor_eps": ("replace_one", "replace_one"),
    "he2021long.thm7_subsampling": ("replace_one", "replace_one"),
    "bu2020.clt_mu": ("any", "add_remove"),
    "bu2020.clt_convergence": ("any", "add_remove"),
    "bridge.mtz2019_sgm_rdp": ("any", "add_remove"),
    "bridge.group_privacy_dp": ("add_remove", "replace_one"),
    "bridge.group_privacy_gdp": ("add_remove", "replace_one"),
    "bridge.group_privacy_zcdp": ("add_remove", "replace_one"),
    # Wang et al.: neighbours differ in one entry (Hamming distance one, [Z_-1, z])
    "bridge.wang2016_kl_to_on_average_kl": ("replace_one", "any"),
}

#: (property type, have, need) -> the bridges that convert the neighbouring relation, with their cost
ADJACENCY_BRIDGES: dict[tuple[str, str, str], tuple[str, ...]] = {
    ("ApproxDP", "add_remove", "replace_one"): ("bridge.group_privacy_dp",),
    ("GDP", "add_remove", "replace_one"): ("bridge.group_privacy_gdp",),
    ("zCDP", "add_remove", "replace_one"): ("bridge.group_privacy_zcdp",),
}


def _adjacency_of_entry(id: str) -> tuple[str, str]:
    if id in ADJACENCY:
        return ADJACENCY[id]
    if id.startswith(_REPLACE_ONE_PREMISE):
        return ("replace_one", "any")
    return ("any", "any")


def _with_adjacency(imp: Implication) -> Implication:
    from dataclasses import replace

    prem_adj, concl_adj = _adjacency_of_entry(imp.id)
    if (prem_adj, concl_adj) == ("any", "any") or (not imp.premises and concl_adj == "any"):
        return imp
    prems = tuple(P.with_adjacency(p, prem_adj) if i == 0 else p for i, p in enumerate(imp.premises))
    return replace(imp, premises=prems, conclusion=P.with_adjacency(imp.conclusion, concl_adj))


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
        note="central-limit approximation (Bu et al. eq. 3.1): not a guarantee",
    )


def _sgld_subsampling(th: Theorem) -> Implication:
    from ..symbols import N, delta

    eps_t = sp.Symbol("epsilontilde", positive=True)
    tau = sp.Symbol("tau", positive=True, integer=True)
    return Implication(
        th.id, (P.ApproxDP(eps_t, delta, "M_t"),),
        P.ApproxDP(2 * eps_t * tau / N, delta * tau / N, "M_t on a tau-of-N mini-batch"),
        hypotheses=(tau <= N, eps_t <= 1),
        note="He et al. (long) App. C.1 as used in Thm 7: amplification by a tau-of-N mini-batch (Beimel, Kasiviswanathan, "
             "Nissim 2010, Lemma 4.4, which needs eps~ <= 1), linearised; the ledger verdict of this comparison is "
             "the step's verdict",
    )


def _gaussian_rdp(th: Theorem) -> Implication:
    from ..symbols import alpha, sigma

    return Implication(th.id, (P.Mechanism("gaussian", (("sensitivity", sp.Integer(1)), ("sigma", sigma)), "M"),),
                       P.RDP(alpha, th.rhs, "M"), variables=(sigma,),
                       note="the Gaussian mechanism of sensitivity 1 (noise multiplier sigma)")


def _gaussian_gdp(th: Theorem) -> Implication:
    from ..symbols import Delta, sigma

    return Implication(th.id, (P.Mechanism("gaussian", (("sensitivity", Delta), ("sigma", sigma)), "M"),),
                       P.GDP(th.rhs, "M"),
                       note="the statement's premise (theta of sensitivity Delta, noise N(0, sigma^2) added) typed as "
                            "the Gaussian mechanism it describes")


def _kl_of_pure_dp(th: Theorem) -> Implication:
    from ..symbols import eps

    return Implication(th.id, (P.PureDP(eps, "A"),), P.KLPrivacy(th.rhs, "A"),
                       note="He et al. Lemma 2 as an implication: the supremum over neighbours of D_KL(A(S) || A(S')) "
                            "is KL-privacy (Wang et al. Table 1)")


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
    "accounting.gaussian_rdp": _gaussian_rdp,
    "bu2020.gaussian_mechanism_gdp": _gaussian_gdp,
    "he2021.lemma_kl": _kl_of_pure_dp,
    "he2021long.thm7_subsampling": _sgld_subsampling,
    "he2021long.thm7_eps": _thm7_pattern,
    "he2021long.thm7_delta": _thm7_pattern,
    "he2021long.thm8_eps": _thm7_pattern,
    "he2021long.thm8_delta": _thm7_pattern,
}

#: (have, need) -> entry ids that connect them (named in chaining's mismatch errors)
BRIDGES_FOR: dict[tuple[str, str], tuple[str, ...]] = {
    ("GDP", "ApproxDP"): ("bu2020.delta_of_eps_gdp", "bridge.gdp_eps_of_delta"),
    ("RDP", "ApproxDP"): ("accounting.rdp_to_dp_cks", "bridge.mironov2017_rdp_to_dp"),
    ("Mechanism:subsampled_gaussian", "RDP"): ("bridge.mtz2019_sgm_rdp",),
    ("zCDP", "ApproxDP"): ("bridge.bun_steinke2016_zcdp_to_dp",),
    ("Mechanism:gaussian", "ApproxDP"): ("classical.gaussian_mechanism_calibration", "balle2018.gaussian_profile"),
    ("Mechanism:gaussian", "GDP"): ("bu2020.gaussian_mechanism_gdp",),
    ("Mechanism:gaussian", "RDP"): ("bridge.mironov2017_gaussian_rdp",),
    ("Mechanism:gaussian", "zCDP"): ("bridge.bun_steinke2016_gaussian_zcdp",),
    ("Mechanism:dp_sgd", "GDP"): ("bu2020.clt_mu",),
    ("ApproxDP", "MaxInformation"): ("bridge.dwork2015_thm20_nats", "dwork2015.thm20_pure_dp_iid"),
    ("ApproxDP", "Generalization"): ("he2021uai.thm1_small_eps", "he2021long.thm1", "classical.dwork2015_high_prob"),
    ("MaxInformation", "Generalization"): ("bridge.dwork2015_thm13_hoeffding",),
    ("MaxInformation", "Other:PAC-Bayes-kl"): ("pacbayes.data_dependent_prior",),
    ("ApproxDP", "Other:PAC-Bayes-kl"): ("bridge.pac_bayes_dp_prior",),
    ("TradeOff", "ApproxDP"): ("bu2020.duality",),
    ("OnAverageKL", "OnAverageGeneralization"): ("wang2016.thm4_equivalence", "wang2016.remark2_dispersion"),
    ("ApproxDP", "KLPrivacy"): ("he2021.lemma_kl",),
    ("KLPrivacy", "OnAverageKL"): ("bridge.wang2016_kl_to_on_average_kl",),
}


@cache
def _library_implication(id: str) -> Implication | None:
    from . import get

    th = get(id, with_evidence=False)
    imp = _OVERRIDES[id](th) if id in _OVERRIDES else _auto(th)
    return None if imp is None else _with_adjacency(imp)


_USER_IMPLICATIONS: dict[str, Implication] = {}


def load_theorem_file(path: str, *, register_them: bool = True) -> list[Theorem]:
    """Read a TOML theorem file (:mod:`symdp.theorem_file`, parsed, never executed) and register its theorems
    with their typed implications (the one loader of ``--theorems`` and :func:`symdp.calculus.load_theorems`)."""
    from ..theorem_file import load
    from . import register

    parsed = load(path)
    if register_them:
        for pt in parsed:
            register(pt.theorem, replace=True)
            if pt.conclusion is not None:
                register_implication(Implication(pt.theorem.id, tuple(pt.premises), pt.conclusion))
            else:  # a file re-loaded without this theorem's conclusion: no stale implication stays
                unregister_implication(pt.theorem.id)
    return [pt.theorem for pt in parsed]


def register_implication(imp: Implication) -> None:
    """Attach a typed implication to a registered user theorem (used by :func:`symdp.calculus.register`)."""
    _USER_IMPLICATIONS[imp.id] = imp


def unregister_implication(id: str) -> None:
    """Drop a user theorem's typed implication (no-op when absent): :func:`symdp.library.unregister` calls it, so
    an unregistered theorem no longer chains, and re-registering without a conclusion leaves none behind."""
    _USER_IMPLICATIONS.pop(id, None)


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
