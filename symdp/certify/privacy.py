r"""The privacy side of a certificate: epsilon from symdp's accountants, and the MIA trade-off curve.

Certify never computes epsilon itself: it asks :func:`symdp.accountants.epsilon` (tight, RDP and
the CLT approximation; all built on generated kernels) and the RDP odometer.  When a requested
accountant is missing from the build, the entry says so (``available: false`` with the reason)
instead of substituting a hand-written formula.

A ledger is a list of ``(noise_multiplier, sample_rate, steps)`` segments (Poisson-subsampled
Gaussian steps with sensitivity 1 after clipping, add/remove adjacency).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..errors import InvalidParameterError, SymdpError, UnsupportedError
from ..validation import check_int, check_probability, check_real

Ledger = Sequence[tuple[float, float, int]]

ACCOUNTANTS = ("tight", "rdp", "clt")
LABELS = {
    "tight": "tight accountant (upper bound)",
    "rdp": "RDP accountant (upper bound)",
    "clt": "GDP central-limit approximation (NOT a guarantee)",
}


def normalize_ledger(ledger: Iterable[Sequence[Any]]) -> list[tuple[float, float, int]]:
    """Validate a ledger and merge consecutive segments with equal (sigma, q)."""
    out: list[tuple[float, float, int]] = []
    for i, seg in enumerate(ledger):
        if len(seg) != 3:
            raise InvalidParameterError(f"ledger[{i}]={seg!r} must be (noise_multiplier, sample_rate, steps)")
        s, q, t = seg
        check_real(f"ledger[{i}].noise_multiplier", s, 0.0, lo_open=True)
        check_probability(f"ledger[{i}].sample_rate", q, open_low=True, open_high=False)
        t = check_int(f"ledger[{i}].steps", t, 0)
        if t == 0:
            continue
        if out and out[-1][0] == float(s) and out[-1][1] == float(q):
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + t)
        else:
            out.append((float(s), float(q), int(t)))
    return out


def _result_fields(res: Any) -> dict:
    get = (lambda k, d=None: res.get(k, d)) if isinstance(res, dict) else (lambda k, d=None: getattr(res, k, d))
    eps = float(np.asarray(get("epsilon"), dtype=float))
    err = get("error_bound")
    err = None if err is None else float(np.asarray(err, dtype=float))
    out: dict[str, Any] = dict(epsilon=eps, is_upper_bound=bool(get("is_upper_bound", False)),
               error_bound=err if err is not None and math.isfinite(err) else None)
    verdicts = get("verdicts")
    if verdicts:
        out["verdicts"] = {str(k): str(v) for k, v in dict(verdicts).items()}
    if get("error_bound_kind"):
        out["error_bound_kind"] = str(get("error_bound_kind"))
    return out


def epsilon_entry(ledger: Ledger, delta: float, accountant: str) -> dict:
    """One accountant's epsilon at ``delta`` for the ledger, as a JSON-ready dict."""
    entry: dict[str, Any] = dict(accountant=accountant, label=LABELS[accountant], delta=delta, available=False,
                                 epsilon=None, is_upper_bound=False, error_bound=None, reason=None)
    if not ledger:
        entry.update(available=True, epsilon=0.0, is_upper_bound=True, reason="no steps: nothing was released")
        return entry
    try:
        from .. import accountants
    except ImportError as exc:  # pragma: no cover - the package always exists
        entry["reason"] = f"symdp.accountants not importable: {exc}"
        return entry
    try:
        if not hasattr(accountants, "epsilon"):
            raise UnsupportedError("symdp.accountants.epsilon is not available in this build")
        if len(ledger) == 1:
            s, q, t = ledger[0]
            kw: dict[str, Any] = dict(noise_multiplier=s, sample_rate=q, steps=t)
        else:  # a run whose noise or rate changed: the accountant composes the segments
            kw = dict(schedule=[tuple(seg) for seg in ledger])
        with warnings.catch_warnings():  # the CLT warning: the entry is labelled an approximation instead
            warnings.simplefilter("ignore", UserWarning)
            res = accountants.epsilon(delta=delta, accountant=accountant, **kw)
    except (SymdpError, NotImplementedError) as exc:
        entry["reason"] = str(exc)
        return entry
    fields = _result_fields(res)
    if not math.isfinite(fields["epsilon"]):  # JSON has no inf/nan; say what happened instead
        entry["reason"] = f"the {accountant} accountant returned epsilon = {fields['epsilon']!r} for this ledger"
        return entry
    entry.update(available=True, **fields)
    if accountant == "clt":
        entry["is_upper_bound"] = False  # an approximation, whatever the back-end says
    return entry


def epsilons(ledger: Ledger, delta: float) -> dict[str, dict]:
    """``{"tight": ..., "rdp": ..., "clt": ...}`` entries (see :func:`epsilon_entry`)."""
    check_probability("delta", delta)
    led = normalize_ledger(ledger)
    return {a: epsilon_entry(led, delta, a) for a in ACCOUNTANTS}


def best_upper_bound(eps: dict[str, dict]) -> tuple[float | None, str | None]:
    """The smallest epsilon among available *upper bounds* (never the CLT approximation)."""
    ups = [(e["epsilon"], k) for k, e in eps.items() if e["available"] and e["is_upper_bound"] and e["epsilon"] is not None]
    if not ups:
        return None, None
    return min(ups)


# --------------------------------------------------------------------------- trade-off curve
TRADEOFF_ID = "bu2020.f_eps_delta"


def tradeoff_tpr(fpr: Any, epsilon: float, delta: float) -> np.ndarray:
    r"""Largest membership-inference TPR at false-positive rate ``fpr`` under (eps, delta)-DP.

    ``TPR = 1 - f_{eps,delta}(FPR)`` with the trade-off function of (eps, delta)-DP from the library
    (``bu2020.f_eps_delta``: Bu et al. 2020, eq. (2.1), quoting Wasserman and Zhou 2010 and Dong,
    Roth and Su 2019), i.e. :math:`\min\{1,\ e^\varepsilon \mathrm{FPR} + \delta,\
    1 - e^{-\varepsilon}(1 - \delta - \mathrm{FPR})\}`.  Evaluated with its generated numpy
    kernel (the library expression in mpmath when no kernel is generated).
    """
    check_real("epsilon", epsilon, 0.0)
    check_probability("delta", delta, open_low=False)
    a = np.clip(np.asarray(fpr, dtype=float), 0.0, 1.0)
    if epsilon > 700:  # exp(eps) overflows: the limit form (TPR = 1 for FPR > e^-700, delta at FPR = 0)
        return np.where(a > 0, 1.0, min(1.0, delta))
    try:
        from ..codegen import kernel

        f = np.asarray(kernel(TRADEOFF_ID, backend="numpy")(alpha=a, delta=delta, epsilon=epsilon), dtype=float)
    except SymdpError:
        from ..library import get

        th = get(TRADEOFF_ID, with_evidence=False)
        f = np.vectorize(lambda x: float(th.evaluate(alpha=float(x), delta=delta, epsilon=epsilon)))(a)
    return np.clip(1.0 - f, 0.0, 1.0)
