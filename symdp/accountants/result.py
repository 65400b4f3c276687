"""What every DP-SGD accountant takes and gives: the accountant and sampling names, the input checks
(one-line errors naming parameter, value and range), :class:`AccountingResult`, and the library entries
each accountant rests on (:data:`IDS`, their verdicts).

Split out of :mod:`.api` (which re-exports these names); no numerics here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InvalidParameterError, UnsupportedError
from ..validation import check_int, check_real
from ._kernels import verdict

ACCOUNTANTS = ("tight", "pld", "rdp", "clt", "advanced", "he2021")
SAMPLINGS = ("poisson", "without_replacement", "shuffle")

SHUFFLE_MESSAGE = (
    "sampling='shuffle' is not supported: the Poisson-subsampling analyses (PLD, RDP, CLT) assume each example "
    "joins each batch independently with probability q, and fixed-size sampling without replacement needs a fresh "
    "random batch every step; shuffling once per epoch and walking disjoint batches is a different mechanism "
    "(each example is used exactly once per epoch), for which these amplification bounds do not hold. "
    "Use sampling='poisson' (and train with Poisson sampling) or account for the run without amplification."
)

CLT_WARNING = (
    "the CLT accountant is an APPROXIMATION (Bu et al. 2020, eq. 3.1): it is not an upper bound and can "
    "under-report epsilon; use accountant='tight' or 'rdp' for a guarantee"
)

#: library entries each accountant rests on
IDS = {
    "tight": ("accounting.sgm_loss_remove", "accounting.sgm_loss_remove_inverse", "bu2020.delta_of_eps_gdp"),
    "rdp": ("accounting.sgm_rdp_log_excess_term", "accounting.sgm_rdp_frac_term1", "accounting.sgm_rdp_frac_term2",
            "accounting.gaussian_rdp", "accounting.rdp_to_dp_cks", "accounting.rdp_to_delta_cks"),
    "rdp_wor": ("accounting.wor_rdp_term2", "accounting.wor_rdp_termj", "accounting.rdp_to_dp_cks", "accounting.rdp_to_delta_cks"),
    "clt": ("bu2020.clt_mu", "bu2020.delta_of_eps_gdp"),
    "advanced": ("classical.dwork_roth_advanced_composition_eps", "classical.dwork_roth_advanced_composition_delta"),
    "he2021": ("he2021.thm4_eps_prime", "he2021.cor1_delta"),
}



@dataclass(frozen=True)
class AccountingResult:
    """What an accountant reports.  Arrays when the inputs were arrays (broadcast shape)."""

    epsilon: Any
    delta: Any
    accountant: str
    is_upper_bound: bool
    error_bound: Any = None
    error_bound_kind: str = ""
    verdicts: Mapping[str, str] = field(default_factory=dict)
    approximation: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    #: None, or which rigorous method answered instead of the requested one and why (e.g. the tight
    #: accountant's round-off floor above the asked delta: the RDP bound is returned)
    fallback: str | None = None

    def to_dict(self) -> dict[str, Any]:
        def conv(v: Any) -> Any:
            if isinstance(v, np.ndarray):
                return [conv(x) for x in v.tolist()] if v.ndim else conv(v.item())
            if isinstance(v, list):
                return [conv(x) for x in v]
            if isinstance(v, (np.floating, np.integer)):
                v = v.item()
            if isinstance(v, float) and v != v:
                return None  # NaN: "not available" (JSON has no NaN)
            return v

        return {
            "epsilon": conv(self.epsilon),
            "delta": conv(self.delta),
            "accountant": self.accountant,
            "is_upper_bound": self.is_upper_bound,
            "error_bound": conv(self.error_bound),
            "error_bound_kind": self.error_bound_kind,
            "verdicts": dict(self.verdicts),
            "approximation": self.approximation,
            "details": {k: conv(v) for k, v in self.details.items()},
            "fallback": self.fallback,
        }


# ---------------------------------------------------------------- validation
Segment = tuple[float, float, int]


def _check_sigma(v: Any) -> Any:
    return check_real("noise_multiplier", v, 0.0, math.inf, lo_open=True, hi_open=True)


def _check_q(v: Any) -> Any:
    return check_real("sample_rate", v, 0.0, 1.0, lo_open=True)


def _check_steps(v: Any) -> Any:
    return check_int("steps", v, 0)


def _check_schedule(schedule: Sequence[Any]) -> list[Segment]:
    segs: list[Segment] = []
    if len(schedule) == 0:
        raise InvalidParameterError("schedule=[] must hold at least one (noise_multiplier, sample_rate, steps) segment")
    for i, seg in enumerate(schedule):
        try:
            s, qq, T = seg
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"schedule[{i}]={seg!r} must be a (noise_multiplier, sample_rate, steps) triple") from exc
        _check_sigma(s)
        _check_q(qq)
        T = _check_steps(T)
        segs.append((float(s), float(qq), int(T)))
    return segs


def _resolve(accountant: str, sampling: str) -> str:
    if sampling not in SAMPLINGS:
        raise InvalidParameterError(f"sampling={sampling!r} is not one of {SAMPLINGS}")
    if sampling == "shuffle":
        raise UnsupportedError(SHUFFLE_MESSAGE)
    if accountant not in ACCOUNTANTS:
        raise InvalidParameterError(f"accountant={accountant!r} is not one of {ACCOUNTANTS}")
    acc = "tight" if accountant == "pld" else accountant
    if sampling == "without_replacement" and acc != "rdp":
        raise UnsupportedError(
            f"sampling='without_replacement' (replace-one adjacency) is covered by the RDP accountant only "
            f"(Wang, Balle, Kasiviswanathan 2019); accountant={accountant!r} assumes Poisson sampling"
        )
    return acc


def _configs(noise_multiplier: Any, sample_rate: Any, steps: Any, schedule: Any) -> tuple[tuple[int, ...], list[list[Segment]]]:
    """Validate everything; return (broadcast shape, list of configs as segment lists)."""
    if schedule is not None:
        if noise_multiplier is not None or sample_rate is not None or steps is not None:
            raise InvalidParameterError("give either schedule=[(noise_multiplier, sample_rate, steps), ...] or the three scalars/arrays, not both")
        return (), [_check_schedule(schedule)]
    s, qq, T = _config_arrays(noise_multiplier, sample_rate, steps)
    cfgs = [[(float(a), float(b), int(c))] for a, b, c in zip(s.ravel(), qq.ravel(), T.ravel())]
    return s.shape, cfgs


def _config_arrays(noise_multiplier: Any, sample_rate: Any, steps: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The checks of :func:`_configs` (no schedule); the broadcast (sigma, q, steps) arrays, without a Python list."""
    if noise_multiplier is None or sample_rate is None or steps is None:
        raise InvalidParameterError("noise_multiplier, sample_rate and steps are required (or schedule=...)")
    s = np.asarray(_check_sigma(noise_multiplier), dtype=float)
    qq = np.asarray(_check_q(sample_rate), dtype=float)
    T = np.asarray(_check_steps(steps), dtype=np.int64)
    s, qq, T = np.broadcast_arrays(s, qq, T)
    return s, qq, T


def _verdicts(acc: str) -> dict[str, str]:
    return {i: verdict(i) for i in IDS[acc]}


