r"""Generalization bounds for a DP-SGD run, each resting on a library theorem and carrying its verdict.

Every formula comes from the theorem library (evaluated from its SymPy statement with mpmath, the
same expression the generated kernels compute); this module only fills in the parameters of the
run, checks the hypotheses, and combines results exactly as the sources describe.  A route whose
theorem is missing from the library, or whose hypotheses fail for this run, is reported with
``applies: false`` and the reason; nothing is guessed.

Routes (the bounded loss is the 0-1 classification error, which lies in [0, 1]):

* **He, Wang, Tao (2021), Thm 1** (UAI 4-eps version and long 9-eps version): an (eps, delta)-DP
  algorithm has ``|R(A(S)) - R_S(A(S))| < a`` with probability ``>= 1 - b`` when N satisfies the
  theorem's sample-size condition.
* **Dwork et al. (2015), Thm 13 + Thm 20** (max-information): ``P[(S, A(S)) in O] <= 2^k
  P[S x A(S) in O] + beta``; for the event ``O = {|R_S(h) - R(h)| > t}`` and ``h`` independent of
  ``S`` Hoeffding gives ``P <= 2 exp(-2 n t^2)``, so with probability ``>= 1 - b``
  ``|gap| <= sqrt((k ln 2 + ln(2 / (b - beta))) / (2 n))``.  Thm 20 bounds ``k`` for *pure* eps-DP.
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


def _library_ids() -> list[str]:
    from ..library import ids

    return ids()


def _find(prefixes: tuple[str, ...], *keywords: str) -> list[str]:
    """Library ids starting with one of ``prefixes`` whose id/title/locator mention all ``keywords``."""
    from ..library import get

    out = []
    for i in _library_ids():
        if not i.startswith(prefixes):
            continue
        th = get(i, with_evidence=False)
        text = f"{th.id} {th.title} {th.source.locator}".lower().replace(" ", "")
        if all(k.lower().replace(" ", "") in text for k in keywords):
            out.append(i)
    return out


def _status(ids: list[str]) -> dict[str, str]:
    from ..library import get

    return {i: get(i).status for i in ids}


def _entry(name: str, ids: list[str], *, applies: bool, reason: str, confidence: float | None, bound: float | None,
           kind: str = "gap", **extra: Any) -> dict:
    e = dict(name=name, theorem_ids=ids, status=_status(ids) if ids else {}, applies=applies, reason=reason,
             loss=ZERO_ONE, confidence=confidence, bound=bound, bound_kind=kind)
    e.update(extra)
    return e


def _values_for(th, values: dict[str, float]) -> dict[str, float]:
    """The run's values for the theorem's symbols; raises SymdpError naming any the run cannot supply."""
    need = {s.name for s in th.symbols}
    missing = sorted(need - set(values))
    if missing:
        raise SymdpError(f"{th.id} has symbols {missing} that a DP-SGD run does not determine")
    return {k: values[k] for k in need}


def _eval(th, values: dict[str, float], side: str = "rhs", expr=None) -> float:
    if expr is None:
        return float(th.evaluate(side=side, **_values_for(th, values)))
    subs = th._subs(_values_for(th, values))
    import sympy as sp

    return float(sp.N(expr.subs(subs), 30))


def _failing_hypotheses(th, values: dict[str, float]) -> list[str]:
    import sympy as sp

    bad = []
    subs = th._subs(_values_for(th, values))
    for h in th.hypotheses:
        r = h.subs(subs)
        if isinstance(r, sp.core.relational.Relational):
            r = r.func(sp.N(r.lhs, 30), sp.N(r.rhs, 30))
        if r is not sp.true and r is not True:
            bad.append(sp.sstr(h))
    return bad


# --------------------------------------------------------------------------- routes
def he_thm1(epsilon: float, delta: float, n: int) -> list[dict]:
    """He et al. Thm 1, UAI and long versions (each regime is a separate library entry)."""
    from ..library import get

    out = []
    for version, prefix in (("UAI", "he2021uai."), ("long", "he2021long.")):
        ids = _find((prefix,), "thm1")
        name = f"He, Wang, Tao 2021 Thm 1 ({version} version)"
        if not ids:
            out.append(_entry(name, [], applies=False, reason=f"no {prefix}thm1* entry in the theorem library yet",
                              confidence=None, bound=None))
            continue
        vals = dict(epsilon=epsilon, delta=delta, N=n, n=n)
        reasons = []
        chosen = None
        for i in ids:
            th = get(i, with_evidence=False)
            try:
                bad = _failing_hypotheses(th, vals)
            except SymdpError as exc:
                reasons.append(str(exc))
                continue
            if bad:
                reasons.append(f"{i}: hypotheses fail at eps={epsilon:.4g}, delta={delta:.3g}, N={n}: {'; '.join(bad)}")
                continue
            chosen = th
            break
        if chosen is None:
            out.append(_entry(name, ids, applies=False, reason=" | ".join(reasons), confidence=None, bound=None))
            continue
        a = _eval(chosen, vals)
        b = _failure_probability(chosen, vals)
        conf = None if b is None else 1.0 - b
        reason = f"{chosen.id}: hypotheses hold (sample-size condition included)"
        if b is None:
            reason += "; its failure probability b is not recorded in the entry"
        elif b >= 1:
            reason += f"; but b = {b:.3g} >= 1, so the statement is vacuous"
        if a >= 1:
            reason += f"; a = {a:.3g} >= 1 is vacuous for a [0, 1] loss"
        out.append(_entry(name, ids, applies=True, reason=reason, confidence=conf, bound=a, failure_probability=b))
    return out


def _failure_probability(th, vals: dict[str, float]) -> float | None:
    """The ``b`` of a generalization statement (error <= a with probability >= 1 - b), from the
    entry's conclusion property ``generalization(a, b)``."""
    c = th.conclusion
    if c is None or c.name != "generalization" or len(c.params) < 2:
        return None
    return _eval(th, vals, expr=c.params[1])


def _dwork_thm20() -> list[str]:
    return _find(("dwork2015.",), "20")


def max_information_k_bits(epsilon: float, n: int, beta: float) -> tuple[float, Any]:
    """k (bits) of Dwork et al. 2015 Thm 20 at (eps, n, beta), from the library entry."""
    from ..library import get

    ids = _dwork_thm20()
    if not ids:
        raise SymdpError("no dwork2015 Thm 20 entry in the theorem library yet")
    th = get(ids[0], with_evidence=False)
    return _eval(th, dict(epsilon=epsilon, n=n, N=n, beta=beta)), th


def _pure_dp_reason(delta: float) -> str:
    return (f"Dwork et al. 2015 Thm 20 assumes pure eps-DP (delta = 0); DP-SGD with Gaussian noise is only "
            f"(eps, delta)-DP (here delta = {delta:.3g} > 0), so the value is shown for reference and is NOT a "
            f"guarantee for this run")


def dwork_max_information(epsilon: float, delta: float, n: int, *, confidence: float = 0.95) -> dict:
    """Thm 13 + Thm 20 + Hoeffding (see the module docstring); beta = half the failure budget."""
    name = "Dwork et al. 2015 max-information (Thm 13 + Thm 20) + Hoeffding"
    b = 1.0 - confidence
    beta = b / 2
    ids13 = _find(("dwork2015.",), "13")
    try:
        k, th = max_information_k_bits(epsilon, n, beta)
    except SymdpError as exc:
        return _entry(name, ids13, applies=False, reason=str(exc), confidence=confidence, bound=None)
    ids = ids13 + [th.id]
    t = math.sqrt((k * math.log(2) + math.log(2 / (b - beta))) / (2 * n))
    applies = delta == 0
    reason = "pure eps-DP: Thm 20 applies" if applies else _pure_dp_reason(delta)
    if t >= 1:
        reason += f"; the bound {t:.3g} >= 1 is vacuous (k = {k:.4g} bits against n = {n})"
    return _entry(name, ids, applies=applies, reason=reason, confidence=confidence, bound=t, k_bits=k, beta=beta)


def pac_bayes_dp_prior(epsilon: float, delta: float, n: int, train_error: float | None, *,
                       confidence: float = 0.95) -> dict:
    """PAC-Bayes-kl with the DP-SGD model as data-dependent prior and posterior (KL = 0)."""
    name = "PAC-Bayes-kl with a DP-learned prior (prior = posterior = DP-SGD model)"
    b = 1.0 - confidence
    beta, d_pb = b / 2, b / 2
    ids = _find(("pacbayes.",), "kl")
    kinv = _kl_inverse()
    if kinv is None:
        return _entry(name, ids, applies=False, reason="kl_inverse is not in symdp.library.max_information yet",
                      confidence=confidence, bound=None, kind="risk")
    try:
        k_bits, th20 = max_information_k_bits(epsilon, n, beta)
    except SymdpError as exc:
        return _entry(name, ids, applies=False, reason=str(exc), confidence=confidence, bound=None, kind="risk")
    ids = ids + [th20.id]
    if train_error is None:
        return _entry(name, ids, applies=False, reason="needs the training error of the released model (hparams mode)",
                      confidence=confidence, bound=None, kind="risk", k_bits=k_bits)
    c = (k_bits * math.log(2) + math.log(2 * math.sqrt(n) / d_pb)) / n
    risk = float(kinv(train_error, c))
    applies = delta == 0
    reason = "pure eps-DP prior: applies" if applies else _pure_dp_reason(delta)
    return _entry(name, ids, applies=applies, reason=reason, confidence=confidence, bound=risk, kind="risk",
                  k_bits=k_bits, kl_budget=c)


def _kl_inverse():
    try:
        from ..library.max_information import kl_inverse  # type: ignore[attr-defined]
    except ImportError:
        return None
    return kl_inverse


def generalization_bounds(epsilon: float | None, delta: float, n: int, *, train_error: float | None = None,
                          confidence: float = 0.95) -> list[dict]:
    """Every route for a run certified (epsilon, delta)-DP on n examples."""
    if epsilon is None or not math.isfinite(epsilon):
        return [_entry("all routes", [], applies=False, reason="no certified epsilon upper bound is available",
                       confidence=None, bound=None)]
    with mpmath.workdps(30):
        out = he_thm1(epsilon, delta, n)
        out.append(dwork_max_information(epsilon, delta, n, confidence=confidence))
        out.append(pac_bayes_dp_prior(epsilon, delta, n, train_error, confidence=confidence))
    return out
