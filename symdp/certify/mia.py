r"""Empirical privacy audit: a loss-threshold membership-inference attack on inserted canaries.

An (eps, delta)-DP training algorithm bounds every membership test on one example:
``TPR <= e^eps FPR + delta`` (Kairouz, Oh, Viswanath 2015; used for auditing by Jagielski,
Ullman, Oprea 2020 and Nasr et al. 2021), hence

.. math:: \varepsilon \ge \log\frac{\mathrm{TPR} - \delta}{\mathrm{FPR}}.

With ``m`` canaries each included independently with probability 1/2 (Steinke, Nasr, Jagielski
2023 audit one run this way), the attack guesses "member" when the canary's loss is at most a
threshold ``tau``.  The threshold is *chosen on one half of the canaries and evaluated on the
other half*, so the evaluation counts are honest binomial draws; one-sided Clopper-Pearson bounds
(each at level ``alpha/2``, so jointly ``1 - alpha``) give ``TPR_lower`` and ``FPR_upper`` and the
high-confidence lower bound ``log((TPR_lower - delta) / FPR_upper)`` (0 when that is not positive).

Caveat (reported in the certificate): treating the canaries' membership outcomes as independent
trials is the standard approximation of one-run audits; the rigorous one-run analysis of Steinke
et al. 2023 gives a somewhat smaller lower bound.

>>> round(clopper_pearson(0, 10, 0.05, "upper"), 4)
0.2589
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

from ..errors import InvalidParameterError
from ..validation import check_int, check_probability


def clopper_pearson(k: int, n: int, alpha: float, side: str) -> float:
    """One-sided exact (Clopper-Pearson) confidence bound at level ``1 - alpha`` for a binomial rate."""
    check_int("n", n, 0)
    check_int("k", k, 0, n)
    check_probability("alpha", alpha)
    if side == "lower":
        return 0.0 if k == 0 else float(stats.beta.ppf(alpha, k, n - k + 1))
    if side == "upper":
        return 1.0 if k == n else float(stats.beta.ppf(1 - alpha, k + 1, n - k))
    raise InvalidParameterError(f"side={side!r} must be 'lower' or 'upper'")


def epsilon_lower_bound(tp: int, positives: int, fp: int, negatives: int, *, delta: float, alpha: float = 0.05) -> dict:
    """High-confidence lower bound on epsilon from attack counts (jointly at level ``1 - alpha``)."""
    check_probability("delta", delta, open_low=False)
    tpr_lo = clopper_pearson(tp, positives, alpha / 2, "lower") if positives else 0.0
    fpr_up = clopper_pearson(fp, negatives, alpha / 2, "upper") if negatives else 1.0
    num = tpr_lo - delta
    eps = math.log(num / fpr_up) if num > 0 and fpr_up > 0 else 0.0
    return dict(tpr=tp / positives if positives else float("nan"), fpr=fp / negatives if negatives else float("nan"),
                tpr_lower=tpr_lo, fpr_upper=fpr_up, epsilon_lower=max(0.0, eps))


@dataclass(frozen=True)
class AuditResult:
    num_canaries: int
    members: int
    threshold: float
    selection_canaries: int
    evaluation_canaries: int
    tp: int
    positives: int
    fp: int
    negatives: int
    tpr: float
    fpr: float
    tpr_lower: float
    fpr_upper: float
    epsilon_lower: float
    alpha: float
    delta: float
    method: str = ("loss-threshold membership inference on mislabeled canaries (each in the training set with "
                   "probability 1/2); threshold chosen on half the canaries, counts from the other half; "
                   "one-sided Clopper-Pearson bounds, joint confidence 1 - alpha")

    def to_dict(self) -> dict:
        return asdict(self)


def _counts(losses: np.ndarray, member: np.ndarray, tau: float) -> tuple[int, int, int, int]:
    guess = losses <= tau
    return int((guess & member).sum()), int(member.sum()), int((guess & ~member).sum()), int((~member).sum())


def _select_threshold(losses: np.ndarray, member: np.ndarray, *, delta: float, alpha: float, grid: int) -> float:
    """The candidate threshold (``grid`` loss quantiles) with the largest lower bound on this half;
    the no-evidence case falls back to the largest point estimate ``TPR - FPR``."""
    cands = np.unique(np.quantile(losses, np.linspace(0.0, 1.0, grid + 1)[1:]))
    guess = losses[None, :] <= cands[:, None]
    p, ng = int(member.sum()), int((~member).sum())
    if p == 0 or ng == 0:
        return float(np.median(losses))
    tp = (guess & member).sum(1)
    fp = (guess & ~member).sum(1)
    tpr_lo = np.where(tp > 0, stats.beta.ppf(alpha / 2, np.maximum(tp, 1), p - tp + 1), 0.0)
    fpr_up = np.where(fp < ng, stats.beta.ppf(1 - alpha / 2, fp + 1, np.maximum(ng - fp, 1)), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(tpr_lo - delta > 0, np.log((tpr_lo - delta) / fpr_up), -np.inf)
    # no threshold certifies anything: prefer the largest point estimate TPR - FPR (kept below any eps > 0)
    score = np.where(eps > 0, eps, tp / p - fp / ng - 2.0)
    return float(cands[int(np.argmax(score))])


def loss_threshold_audit(
    losses: np.ndarray, member: np.ndarray, *, delta: float, alpha: float = 0.05, seed: int = 0, grid: int = 64
) -> AuditResult:
    """Run the audit on per-canary losses and ground-truth membership (see the module docstring)."""
    losses = np.asarray(losses, dtype=float)
    member = np.asarray(member, dtype=bool)
    if losses.shape != member.shape or losses.ndim != 1:
        raise InvalidParameterError(f"losses and member must be 1-D of equal length, got {losses.shape} and {member.shape}")
    m = len(losses)
    check_int("number of canaries", m, 4)
    check_probability("alpha", alpha)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(m)
    sel, ev = perm[: m // 2], perm[m // 2:]
    best_tau = _select_threshold(losses[sel], member[sel], delta=delta, alpha=alpha, grid=grid)
    tp, p, fp, ng = _counts(losses[ev], member[ev], best_tau)
    lb = epsilon_lower_bound(tp, p, fp, ng, delta=delta, alpha=alpha)
    return AuditResult(
        num_canaries=m, members=int(member.sum()), threshold=best_tau, selection_canaries=len(sel),
        evaluation_canaries=len(ev), tp=tp, positives=p, fp=fp, negatives=ng, alpha=alpha, delta=delta, **lb,
    )
