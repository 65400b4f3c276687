r"""Shared by every rung: the result type, the search budgets and the time limits.

Imports nothing from the rungs, the oracles or the dispatcher (see :mod:`symdp.verify.engine`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from .. import limits as _limits
from ..theorem import Evidence, Theorem, Verdict

#: sampling ranges for symbols the entry gives no domain for (by canonical name)
DEFAULT_RANGES: dict[str, tuple[float, float]] = {
    "epsilon": (1e-3, 10.0),
    "epsilonprime": (1e-3, 20.0),
    "delta": (1e-10, 0.5),
    "deltaprime": (1e-10, 0.5),
    "deltatilde": (1e-10, 0.5),
    "T": (1, 1000),
    "E": (1, 100),
    "n": (1, 10**6),
    "N": (1, 10**6),
    "m": (1, 1000),
    "sigma": (0.3, 20.0),
    "q": (1e-4, 1.0),
    "p": (1e-4, 1.0),
    "mu": (0.01, 10.0),
    "beta": (1e-10, 0.5),
    "alpha": (1e-6, 1.0),
    "k": (0.01, 100.0),
    "C": (0.01, 100.0),
    "Delta": (0.01, 100.0),
    "b": (0.01, 100.0),
}
#: largest value per oracle parameter that the oracle evaluates in reasonable time
ORACLE_CAPS: dict[str, dict[str, float]] = {
    "optimal_composition": {"T": 500},
    "subsampled_gaussian_profile": {"T": 200},
    "tradeoff_dp_composition": {"T": 6},
    "composition_eq7": {"T": 500}, "composition_tied": {"T": 500}, "composition_eq7_simplex": {"T": 500}, "composition_at_eq": {"T": 500}, "composition_igmm": {"T": 500},
    "composition_eq7_hetero": {"T": 8}, "composition_hetero_pure": {"T": 8}, "composition_hetero_dr": {"T": 8},
    "gdp_tradeoff": {"T": 16}, "optimal_composition_enum": {"T": 100},
}
#: ``--deep`` caps
DEEP_CAPS: dict[str, dict[str, float]] = {
    "optimal_composition": {"T": 5000},
    "subsampled_gaussian_profile": {"T": 2000},
    "tradeoff_dp_composition": {"T": 8},
    "composition_eq7": {"T": 5000}, "composition_tied": {"T": 5000}, "composition_eq7_simplex": {"T": 5000}, "composition_at_eq": {"T": 5000}, "composition_igmm": {"T": 5000},
    "composition_eq7_hetero": {"T": 10}, "composition_hetero_pure": {"T": 10}, "composition_hetero_dr": {"T": 10},
    "gdp_tradeoff": {"T": 200}, "optimal_composition_enum": {"T": 100},
}
#: local-search iterations after the random stage (default, deep)
REFINE = {"default": (25, 80), "gaussian_zcdp": (2, 10), "rr_approx_max_information": (5, 30),
          "rr_approx_max_information_nats": (5, 30), "azuma_rademacher": (5, 30), "optimal_composition": (5, 30), "subsampled_gaussian_profile": (0, 0), "sgm_pld": (0, 5),
          "subsampled_gaussian_tradeoff": (3, 20), "gaussian_rdp": (3, 20), "composition_eq7": (5, 30), "composition_tied": (5, 30), "composition_eq7_simplex": (5, 30), "composition_at_eq": (5, 30),
          "composition_igmm": (5, 30), "composition_eq7_hetero": (3, 20), "composition_hetero_pure": (3, 20),
          "composition_hetero_dr": (3, 20), "gdp_tradeoff": (0, 3), "optimal_composition_enum": (3, 20)}
#: random cases per entry (default, deep); expensive oracles use fewer
BUDGET = {"default": (150, 2000), "optimal_composition": (40, 600), "subsampled_gaussian_profile": (4, 24),
          "tradeoff_dp_composition": (40, 300), "sgm_pld": (12, 100), "subsampled_gaussian_tradeoff": (30, 300),
          "gaussian_rdp": (60, 400), "composition_eq7": (80, 600), "composition_tied": (40, 600), "composition_eq7_simplex": (80, 600), "composition_at_eq": (60, 600), "composition_igmm": (80, 600),
          "composition_eq7_hetero": (60, 400), "composition_hetero_pure": (60, 400), "composition_hetero_dr": (60, 400),
          "gdp_tradeoff": (4, 40), "optimal_composition_enum": (30, 300),
          "gaussian_zcdp": (20, 150), "rr_approx_max_information": (60, 400), "rr_approx_max_information_nats": (60, 400),
          "chernoff_rr_tail": (150, 2000), "coupling_lp": (100, 600), "azuma_rademacher": (80, 600)}


@dataclass
class VerificationResult:
    """What the ladder established about one entry (one ledger row)."""

    id: str
    evidence: Evidence
    hash: str
    claimed: str | None = None
    actual: str | None = None
    margin: str | None = None
    counterexample: dict[str, str] | None = None
    region: str | None = None
    box: dict[str, list[str]] | None = None
    oracle: str | None = None
    seconds: float = 0.0
    attempts: list[str] = field(default_factory=list)
    artifacts: dict[str, str] = field(default_factory=dict)  # path under proofs/ -> text

    @property
    def verdict(self) -> Verdict:
        return self.evidence.verdict

    def ledger_entry(self) -> dict[str, Any]:
        ev = self.evidence
        return {
            "id": self.id,
            "verdict": ev.verdict.value,
            "rung": ev.rung,
            "evidence": ev.detail,
            "hash": self.hash,
            "certificate": ev.certificate,
            "counterexample": self.counterexample,
            "claimed": self.claimed,
            "actual": self.actual,
            "margin": self.margin,
            "cases": ev.cases,
            "box": self.box,
            "region": self.region,
            "oracle": self.oracle,
            "attempts": self.attempts,
            "seconds": round(self.seconds, 3),
        }

class Timeout(BaseException):  # not an Exception: generic handlers must not swallow it
    pass


def time_limit(seconds: float) -> AbstractContextManager[None]:
    """SIGALRM-based wall-clock limit raising :class:`Timeout` (main thread only; elsewhere no limit).

    Nests: an inner block fires at the earlier of its own and the outer deadline, and restores the
    outer timer on exit (the one time-limit module, :func:`symdp.limits.time_limit`).
    """
    return _limits.time_limit(seconds, error=Timeout)


def cpu_limit(seconds: float) -> AbstractContextManager[None]:
    """Like :func:`time_limit` but on this process's CPU time (:func:`symdp.limits.cpu_time_limit`): the budget of
    a rung whose verdict must not depend on how loaded the machine is."""
    return _limits.cpu_time_limit(seconds, error=Timeout)


#: wall-clock budget per entry in seconds (default, deep)
ENTRY_BUDGET = (90.0, 600.0)


def cx_dict(pt: dict[str, str] | None) -> tuple[tuple[str, str], ...] | None:
    """A counterexample point as the sorted tuple :class:`~symdp.theorem.Evidence` stores."""
    return tuple(sorted(pt.items())) if pt else None


def cert_name(th: Theorem) -> str:
    """File stem of an entry's certificates under ``proofs/``."""
    return th.id.replace("/", "_")


_Timeout = Timeout  # backward-compatible name

__all__ = ["VerificationResult", "Timeout", "time_limit", "cpu_limit", "ENTRY_BUDGET", "DEFAULT_RANGES", "ORACLE_CAPS", "DEEP_CAPS",
           "REFINE", "BUDGET", "cx_dict", "cert_name", "Evidence", "Verdict"]
