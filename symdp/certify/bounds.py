r"""Generalization bounds for a DP-SGD run, each resting on a library theorem and carrying its verdict.

Every formula comes from the theorem library (evaluated from its SymPy statement with mpmath, the
same expression the generated kernels compute); this module only fills in the parameters of the
run, checks the hypotheses, and combines results exactly as the sources describe.  A route whose
theorem is missing from the library, or whose hypotheses fail for this run, is reported with
``applies: false`` and the reason; nothing is guessed.

Routes (the bounded loss is the 0-1 classification error, which lies in [0, 1]):

* **He, Wang, Tao (2021), Thm 1** (UAI 4-eps version and long 9-eps version): an (eps, delta)-DP
  algorithm has ``|R(A(S)) - R_S(A(S))| < a`` with probability ``>= 1 - b`` when N satisfies the
  theorem's sample-size condition.  Derived by the calculus (:func:`gap_route`: the entry's typed
  implication, every hypothesis checked at the run's values), as is Dwork et al.'s STOC bound as quoted.

Every route's theorem assumes replace-one neighbours (S and S' differ in one example); DP-SGD with Poisson
sampling is certified under add/remove, so each route starts with group privacy (``bridge.group_privacy_dp``:
(2 eps, (1 + e^eps) delta)-DP under replace-one), a step of its derivation.
* **Dwork et al. (2015), Thm 13 + Thm 20** (max-information): ``P[(S, A(S)) in O] <= 2^k
  P[S x A(S) in O] + beta``; for the event ``O = {|R_S(h) - R(h)| > t}`` and ``h`` independent of
  ``S`` Hoeffding gives ``P <= 2 exp(-2 n t^2)``, so with probability ``>= 1 - b``
  ``|gap| <= sqrt((k ln 2 + ln(2 / (b - beta))) / (2 n))``.  Thm 20 bounds ``k`` for *pure* eps-DP; its
  approximate-DP counterpart (Rogers, Roth, Smith, Thakkar 2016, Thm 3.1) is not encoded (no source we have states
  its constants), so for a DP-SGD run (delta > 0) the route is shown for reference only.
  The route is derived by the calculus (:func:`symdp.calculus.chain` of :data:`MAX_INFORMATION_CHAIN`:
  Thm 20 in nats -> Thm 13 with Hoeffding), bound at the run's values, every hypothesis of both steps
  checked there; nothing of it is typed here.
* **PAC-Bayes-kl with a DP-learned prior** (Seeger 2002, Maurer 2004; a data-dependent prior
  chosen by an algorithm of beta-approximate max-information k costs k nats and beta, Dziugaite and
  Roy 2018): with prior = posterior = the released DP model (a point mass: KL = 0),
  ``R <= kl^{-1}(R_S, (k ln 2 + ln(2 sqrt(n) / delta')) / n)`` with probability ``>= 1 - delta' - beta``.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath

from ..errors import SymdpError

ZERO_ONE = "0-1 classification error (bounded in [0, 1])"


#: the library entries behind each route
HE_UAI = (("he2021uai.thm1_small_eps", "he2021uai.thm1_small_eps_failure"),
          ("he2021uai.thm1_large_eps", "he2021uai.thm1_large_eps_failure"))
HE_UAI_N = ("he2021uai.thm1_n_condition",)
HE_LONG = (("he2021long.thm1", "he2021long.thm1_b"),)
HE_LONG_N = ("he2021long.thm1_n_condition", "he2021long.thm1_n_min")  # the library's name, old and new
DWORK_STOC = (("classical.dwork2015_high_prob", "classical.dwork2015_high_prob_failure"),)
DWORK_13 = "dwork2015.thm13_max_information_transfer"
DWORK_20 = "dwork2015.thm20_pure_dp_iid"
PAC_BAYES = "pacbayes.data_dependent_prior_inverted"
#: the calculus chain behind the max-information route: eps-DP on i.i.d. data -> max-information (nats) ->
#: generalization gap at failure probability b
MAX_INFORMATION_CHAIN = ("bridge.dwork2015_thm20_nats", "bridge.dwork2015_thm13_hoeffding")
#: the bridge from add/remove to replace-one neighbours (every route's theorem assumes replace-one)
GROUP_PRIVACY = "bridge.group_privacy_dp"
ADJACENCIES = ("add_remove", "replace_one")


def _get(i: str):
    from ..library import get

    return get(i)


def _status(ids: list[str]) -> dict[str, str]:
    out = {}
    for i in ids:
        try:
            out[i] = _get(i).status
        except SymdpError:
            out[i] = "MISSING"
    return out


def _entry(name: str, ids: list[str], *, applies: bool, reason: str, confidence: float | None, bound: float | None,
           kind: str = "gap", **extra: Any) -> dict:
    e = dict(name=name, theorem_ids=ids, status=_status(ids) if ids else {}, applies=applies, reason=reason,
             loss=ZERO_ONE, confidence=confidence, bound=bound, bound_kind=kind)
    e.update(extra)
    return e


def _lhs_names(th) -> set[str]:
    return {s.name for s in th.lhs.free_symbols} if th.lhs is not None else set()


def _needed(th) -> set[str]:
    """Symbols of the bound and of the hypotheses that do not involve the bounded quantity."""
    lhs = _lhs_names(th)
    need = {s.name for s in th.bound_symbols}
    for h in th.hypotheses:
        names = {s.name for s in getattr(h, "free_symbols", ())}
        if not names & lhs:
            need |= names
    return need


def _values_for(th, values: dict[str, float], need: set[str] | None = None) -> dict[str, float]:
    """The run's values for the theorem's symbols; raises SymdpError naming any the run cannot supply."""
    need = _needed(th) if need is None else need
    missing = sorted(need - set(values))
    if missing:
        raise SymdpError(f"{th.id} involves {missing}, which this run does not determine")
    return {k: values[k] for k in need}


def evaluate_bound(th, values: dict[str, float]) -> tuple[float, str]:
    """``rhs`` of a library entry at the run's values: the generated numpy kernel when there is one,
    else the entry's SymPy expression in mpmath (30 digits).  Returns (value, how)."""
    vals = {k: values[k] for k in (s.name for s in th.bound_symbols)}
    try:
        from ..codegen import kernel

        f = kernel(th.id, backend="numpy")
    except Exception:  # noqa: BLE001 - no kernel generated for this entry: fall back to the statement itself
        f = None
    if f is not None:
        return float(f(**vals)), "generated numpy kernel"
    return float(th.evaluate(**vals)), "library SymPy expression (mpmath, 30 digits)"


def failing_hypotheses(th, values: dict[str, float]) -> list[str]:
    """Hypotheses of ``th`` (not involving its bounded quantity) that fail at the run's values."""
    import sympy as sp

    lhs = _lhs_names(th)
    bad = []
    for h in th.hypotheses:
        names = {s.name for s in getattr(h, "free_symbols", ())}
        if names & lhs:
            continue
        r = h.subs(th._subs({k: values[k] for k in names})) if names else h
        if isinstance(r, sp.core.relational.Relational):
            r = r.func(sp.N(r.lhs, 30), sp.N(r.rhs, 30))
        if r is not sp.true and r is not True:
            bad.append(sp.sstr(h))
    return bad


def _pure_dp_only(th) -> bool:
    return any(p.name == "DP" and len(p.params) > 1 and p.params[1] == 0 for p in th.premises)


# --------------------------------------------------------------------------- routes
def _first_existing(candidates: tuple[str, ...]) -> str | None:
    from ..library import ids

    have = set(ids())
    return next((c for c in candidates if c in have), None)


def _replace_one_prefix(adjacency: str) -> tuple[str, ...]:
    """The calculus steps that take the run's (eps, delta) to the replace-one neighbours every generalization route
    assumes: none for replace-one, group privacy for add/remove (DP-SGD with Poisson sampling)."""
    if adjacency not in ADJACENCIES:
        raise SymdpError(f"adjacency={adjacency!r} is not allowed; allowed: {', '.join(ADJACENCIES)}")
    return (GROUP_PRIVACY,) if adjacency == "add_remove" else ()


def _adjacency_note(adjacency: str, epsilon: float, delta: float) -> str:
    if adjacency == "replace_one":
        return ""
    return (f"; the run's ({epsilon:.4g}, {delta:.3g})-DP is for add/remove neighbours and the theorem assumes "
            f"replace-one: group privacy ({GROUP_PRIVACY}) gives ({2 * epsilon:.4g}, "
            f"{(1 + math.exp(min(epsilon, 700.0))) * delta:.3g})-DP, which the chain uses")


def gap_route(name: str, pairs, n_condition: tuple[str, ...] | None, values: dict[str, float], dp_delta: float,
              *, adjacency: str = "replace_one") -> dict:
    """A route "(eps, delta)-DP => |gap| <= a with probability >= 1 - b" given as (a entry, b entry) pairs (one
    per regime) and optionally the library entry stating its sample-size condition.  Each regime is derived by
    the calculus: :func:`symdp.calculus.chain` of the a entry's typed implication (preceded by group privacy when
    the run's ``adjacency`` is add/remove), bound at the run's values; every hypothesis of every step (the
    sample-size condition, the regime's eps range, the conclusion's ranges: b in [0, 1]) is evaluated there,
    and one the run cannot evaluate (a symbol it does not determine) makes the regime inapplicable.  The b
    entry is the same failure probability as a standalone entry (its status is reported)."""
    n_id = _first_existing(n_condition) if n_condition else None
    ids = [i for pair in pairs for i in pair] + ([n_id] if n_id else [])
    prefix = _replace_one_prefix(adjacency)
    if prefix:
        ids.append(GROUP_PRIVACY)
    where = f"eps={values['epsilon']:.4g}, delta={dp_delta:.3g}, N={values['N']}"
    reasons = []
    for a_id, b_id in pairs:
        steps = (*prefix, a_id)
        try:
            th_a = _get(a_id)
            _get(b_id)
            got, d = derived(steps, {k: values[k] for k in ("epsilon", "delta", "N")})
        except SymdpError as exc:
            reasons.append(f"{a_id}: {exc}")
            continue
        open_ = [(h, src) for h, src in d.hypotheses if getattr(h, "free_symbols", None)]
        if open_:
            h, src = open_[0]
            syms = ", ".join(sorted(x.name for x in h.free_symbols))
            reasons.append(f"{a_id}: cannot be checked at {where}: a hypothesis of {src} involves {syms}, which this "
                           "run does not determine")
            continue
        if _pure_dp_only(th_a) and dp_delta > 0:
            reasons.append(f"{a_id} needs pure eps-DP")
            continue
        a, b = got["gap"], got["failure"]
        reason = (f"{a_id}: hypotheses hold" + (", including the sample-size condition" if n_condition else
                  " (the entry records no sample-size condition)")
                  + f"; derived by the calculus ({' -> '.join(steps)}, weakest step verdict {d.verdict.value}) and "
                  "evaluated from its closed form (mpmath, 30 digits)"
                  + _adjacency_note(adjacency, values["epsilon"], dp_delta))
        if a >= 1:
            reason += f"; a = {a:.3g} >= 1 is vacuous for a [0, 1] loss"
        return _entry(name, ids, applies=True, reason=reason, confidence=1.0 - b, bound=a, failure_probability=b,
                      derivation=list(steps), adjacency=adjacency)
    return _entry(name, ids, applies=False, reason=" / ".join(reasons), confidence=None, bound=None,
                  adjacency=adjacency)


def he_thm1(epsilon: float, delta: float, n: int, *, adjacency: str = "replace_one") -> list[dict]:
    """He et al. Thm 1, UAI (4 eps) and long (9 eps) versions, for a run (eps, delta)-DP under ``adjacency``."""
    vals = dict(epsilon=epsilon, delta=delta, N=n)
    uai = gap_route("He, Wang, Tao 2021 Thm 1 (UAI version)", HE_UAI, HE_UAI_N, vals, delta, adjacency=adjacency)
    if not uai["applies"] and "c1" in uai["reason"]:
        uai["reason"] = ("the UAI text states the sample-size condition with unspecified positive constants "
                         "c1..c7 (he2021uai.thm1_n_condition), so it cannot be checked for this run; see the long "
                         "version, which gives the constants. Details: " + uai["reason"])
    return [uai, gap_route("He, Wang, Tao 2021 Thm 1 (long version)", HE_LONG, HE_LONG_N, vals, delta,
                           adjacency=adjacency)]


def dwork_stoc(epsilon: float, delta: float, n: int, *, adjacency: str = "replace_one") -> dict:
    """Dwork et al. 2015 (STOC) high-probability bound as quoted in He et al. (UAI), Sec. 3.1.2."""
    return gap_route("Dwork et al. 2015 (STOC) transfer theorem, as quoted by He et al.", DWORK_STOC, None,
                     dict(epsilon=epsilon, delta=delta, N=n, n=n), delta, adjacency=adjacency)


def replace_one_dp(epsilon: float, delta: float, adjacency: str) -> tuple[float, float]:
    """(eps, delta)-DP of the run under replace-one neighbours: itself, or group privacy's (2 eps, (1 + e^eps)
    delta) from add/remove, derived by the calculus (:data:`GROUP_PRIVACY`)."""
    prefix = _replace_one_prefix(adjacency)
    if not prefix:
        return epsilon, delta
    if delta == 0:  # pure DP: the bridge's delta (1 + e^eps) 0 = 0; its hypotheses ask delta > 0
        return 2 * epsilon, 0.0
    got, _ = derived(prefix, dict(epsilon=epsilon, delta=delta))
    return got["eps"], got["delta"]


def max_information_k_bits(epsilon: float, n: int, beta: float) -> tuple[float, Any]:
    """k (bits) of Dwork et al. 2015 Thm 20 at (eps, n, beta), from the library entry."""
    th = _get(DWORK_20)
    k, _ = evaluate_bound(th, dict(epsilon=epsilon, n=n, beta=beta))
    return k, th


#: why no route takes an (eps, delta)-DP run (delta > 0) to max-information: the result that would is not encoded
APPROX_DP_MAX_INFORMATION = ("the approximate-DP counterpart (Rogers, Roth, Smith, Thakkar 2016, Thm 3.1: "
                             "(eps, delta)-DP on product distributions, the result Lampert and Zakerinia cite) is not "
                             "in the library: our sources do not state its constants")


def _pure_dp_reason(delta: float) -> str:
    return (f"Dwork et al. 2015 Thm 20 assumes pure eps-DP (delta = 0); DP-SGD with Gaussian noise is only "
            f"(eps, delta)-DP (here delta = {delta:.3g} > 0), so the value is shown for reference and is NOT a "
            f"guarantee for this run; {APPROX_DP_MAX_INFORMATION}")


def derived(ids: tuple[str, ...], bind: dict[str, float]) -> tuple[dict[str, float], Any]:
    """A route derived by the calculus: :func:`symdp.calculus.chain` of ``ids`` bound at the run's values (every
    hypothesis of every step evaluated there; a violated one raises naming it; values of symbols the chain does
    not involve are ignored).  Returns (the conclusion's
    parameters as floats, the derivation)."""
    from ..calculus import chain

    d0 = chain(ids)
    names = {x.name for x in d0.free_symbols} | {x.name for p in d0.premises for x in p.free_symbols}
    d = chain(ids, bind={k: v for k, v in bind.items() if k in names})
    return {k: float(v) for k, v in d.values().items()}, d


def dwork_max_information(epsilon: float, delta: float, n: int, *, confidence: float = 0.95,
                          adjacency: str = "replace_one") -> dict:
    """Thm 13 + Thm 20 + Hoeffding (see the module docstring), derived by the calculus; beta = half the
    failure budget; an add/remove run's epsilon goes through group privacy first (Thm 20 assumes replace-one)."""
    name = "Dwork et al. 2015 max-information (Thm 13 + Thm 20) + Hoeffding"
    b = 1.0 - confidence
    beta = b / 2
    ids = [DWORK_13, DWORK_20, *MAX_INFORMATION_CHAIN]
    note = _adjacency_note(adjacency, epsilon, delta)
    try:
        epsilon, delta = replace_one_dp(epsilon, delta, adjacency)
        _get(DWORK_13)
        th = _get(DWORK_20)
        bind = dict(epsilon=epsilon, n=n, beta=beta)
        k_nats = derived(MAX_INFORMATION_CHAIN[:1], bind)[0]["k"]
        got, d = derived(MAX_INFORMATION_CHAIN, {**bind, "b": b})
    except SymdpError as exc:
        return _entry(name, ids, applies=False, reason=str(exc), confidence=confidence, bound=None)
    k = k_nats / math.log(2)
    t = got["gap"]
    applies = not (_pure_dp_only(th) and delta > 0)
    reason = ("Thm 20's premise holds" if applies else _pure_dp_reason(delta)) + (
        f"; derived by the calculus ({' -> '.join(MAX_INFORMATION_CHAIN)}, weakest step verdict {d.verdict.value})")
    reason += note
    if t >= 1:
        reason += f"; the bound {t:.3g} >= 1 is vacuous (k = {k:.4g} bits against n = {n})"
    return _entry(name, ids, applies=applies, reason=reason, confidence=confidence, bound=t, k_bits=k, beta=beta,
                  adjacency=adjacency)


def pac_bayes_dp_prior(epsilon: float, delta: float, n: int, train_error: float | None, *,
                       confidence: float = 0.95, adjacency: str = "replace_one") -> dict:
    """PAC-Bayes-kl with the DP-SGD model as data-dependent prior and posterior (KL = 0); k from Thm 20 (an
    add/remove run's epsilon through group privacy first)."""
    name = "PAC-Bayes-kl with a DP-learned prior (prior = posterior = DP-SGD model, KL = 0)"
    b = 1.0 - confidence
    beta, d_pb = b / 2, b / 2
    ids = [PAC_BAYES, DWORK_20]
    note = _adjacency_note(adjacency, epsilon, delta)
    try:
        epsilon, delta = replace_one_dp(epsilon, delta, adjacency)
        th = _get(PAC_BAYES)
        k_bits, th20 = max_information_k_bits(epsilon, n, beta)
    except SymdpError as exc:
        return _entry(name, ids, applies=False, reason=str(exc), confidence=confidence, bound=None, kind="risk")
    if train_error is None:
        return _entry(name, ids, applies=False, reason="needs the training error of the released model (give it in "
                      "hparams mode with --train-error)", confidence=confidence, bound=None, kind="risk", k_bits=k_bits)
    vals = dict(L_S=train_error, KL_QP=0.0, k_nat=k_bits * math.log(2), n=n, delta=d_pb, beta=beta)
    bad = failing_hypotheses(th, vals)
    if bad:
        return _entry(name, ids, applies=False, reason=f"{PAC_BAYES}: fails: {'; '.join(bad)}", confidence=confidence,
                      bound=None, kind="risk", k_bits=k_bits)
    risk, how = evaluate_bound(th, vals)
    applies = not (_pure_dp_only(th20) and delta > 0)
    reason = (f"{'Thm 20 premise holds' if applies else _pure_dp_reason(delta)}; risk bound evaluated with the {how}"
              + note)
    return _entry(name, ids, applies=applies, reason=reason, confidence=confidence, bound=risk, kind="risk",
                  k_bits=k_bits)


def _route(fn, name: str, *args, **kw) -> dict:
    """Run one route; a library that fails to load becomes an unavailable entry, not a crash."""
    try:
        return fn(*args, **kw)
    except SymdpError as exc:
        return _entry(name, [], applies=False, reason=str(exc), confidence=None, bound=None)
    except Exception as exc:  # noqa: BLE001 - a broken library module elsewhere must not take the certificate down
        return _entry(name, [], applies=False, reason=f"library error: {type(exc).__name__}: {exc}",
                      confidence=None, bound=None)


def generalization_bounds(epsilon: float | None, delta: float, n: int, *, train_error: float | None = None,
                          confidence: float = 0.95, adjacency: str = "add_remove") -> list[dict]:
    """Every route for a run certified (epsilon, delta)-DP on n examples under ``adjacency`` (DP-SGD with Poisson
    sampling, what certify's accountants compute: add/remove; every route's theorem assumes replace-one, so
    group privacy is applied first, as a step of each route's derivation)."""
    _replace_one_prefix(adjacency)
    if epsilon is None or not math.isfinite(epsilon):
        return [_entry("all routes", [], applies=False, reason="no certified epsilon upper bound is available",
                       confidence=None, bound=None)]
    with mpmath.workdps(30):
        he = _route(he_thm1, "He, Wang, Tao 2021 Thm 1", epsilon, delta, n, adjacency=adjacency)
        out = he if isinstance(he, list) else [he]
        out.append(_route(dwork_stoc, "Dwork et al. 2015 (STOC)", epsilon, delta, n, adjacency=adjacency))
        out.append(_route(dwork_max_information, "Dwork et al. 2015 max-information", epsilon, delta, n,
                          confidence=confidence, adjacency=adjacency))
        out.append(_route(pac_bayes_dp_prior, "PAC-Bayes-kl with a DP-learned prior", epsilon, delta, n, train_error,
                          confidence=confidence, adjacency=adjacency))
    return out
