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
from typing import Any, Iterable, Sequence

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
    eps = float(get("epsilon"))
    err = get("error_bound")
    return dict(epsilon=eps, is_upper_bound=bool(get("is_upper_bound", False)),
                error_bound=None if err is None else float(err))


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
        if len(ledger) == 1:
            s, q, t = ledger[0]
            if not hasattr(accountants, "epsilon"):
                raise UnsupportedError("symdp.accountants.epsilon is not available in this build")
            res = accountants.epsilon(noise_multiplier=s, sample_rate=q, steps=t, delta=delta, accountant=accountant)
        elif accountant == "rdp":
            return _odometer_entry(ledger, delta, entry)
        elif hasattr(accountants, "epsilon_ledger"):
            res = accountants.epsilon_ledger(ledger, delta=delta, accountant=accountant)
        else:
            raise UnsupportedError(f"the {accountant} accountant has no heterogeneous-ledger interface in this build")
    except (SymdpError, NotImplementedError) as exc:
        entry["reason"] = str(exc)
        return entry
    entry.update(available=True, **_result_fields(res))
    if accountant == "clt":
        entry["is_upper_bound"] = False  # an approximation, whatever the back-end says
    return entry


def _odometer_entry(ledger: Ledger, delta: float, entry: dict) -> dict:
    from .trainer import make_odometer, odometer_epsilon

    odo = make_odometer("cpu")
    for s, q, t in ledger:
        for _ in range(t):
            odo.step(s, q)
    entry.update(available=True, epsilon=odometer_epsilon(odo, delta), is_upper_bound=True,
                 reason="RDP odometer stepped through the ledger")
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
def tradeoff_tpr(fpr: Any, epsilon: float, delta: float) -> np.ndarray:
    r"""Largest membership-inference TPR at false-positive rate ``fpr`` under (eps, delta)-DP.

    :math:`\mathrm{TPR} \le \min\{1,\ e^\varepsilon \mathrm{FPR} + \delta,\
    1 - e^{-\varepsilon}(1 - \delta - \mathrm{FPR})\}`: the trade-off function
    :math:`f_{\varepsilon,\delta}` of Dong, Roth and Su (2019; Bu et al. 2020, eq. for
    :math:`f_{\varepsilon,\delta}`) read as ``TPR = 1 - f(FPR)`` (Kairouz, Oh, Viswanath 2015).
    """
    check_real("epsilon", epsilon, 0.0)
    check_probability("delta", delta, open_low=False)
    a = np.clip(np.asarray(fpr, dtype=float), 0.0, 1.0)
    if math.isinf(epsilon):
        return np.ones_like(a)
    t1 = np.exp(epsilon) * a + delta
    t2 = 1.0 - np.exp(-epsilon) * (1.0 - delta - a)
    return np.minimum(1.0, np.minimum(t1, t2))
