r"""Accountants for DP-SGD built on the generated kernels of the theorem library.

>>> from symdp.accountants import epsilon
>>> r = epsilon(noise_multiplier=1.1, sample_rate=256 / 60000, steps=2340, delta=1e-5, accountant="rdp")
>>> r.is_upper_bound
True

* :func:`epsilon`, :func:`delta` -- tight (PLD), RDP, CLT (approximation), composition theorems;
  arrays broadcast; ``schedule=[(sigma, q, steps), ...]`` for changing noise / rate.
* :func:`calibrate_noise`, :func:`max_steps` -- safe-side calibration.
* :func:`odometer` -- epsilon after every step of a run, one vectorised call.
* :class:`RDPOdometer` -- device-resident torch odometer for training loops.
* :mod:`.algebra` -- ``algebra.tight`` / ``algebra.rdp`` evaluate any :mod:`symdp.mechanisms` description
  (Laplace, randomized response, (eps, delta) black boxes, discrete and mixture mechanisms, subsampling,
  heterogeneous composition); ``supports(mechanism)`` is a dry run.
* :class:`symdp.accountants.opacus_adapter.SymdpAccountant` -- Opacus ``IAccountant`` (imported lazily).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .api import ACCOUNTANTS, CLT_WARNING, SHUFFLE_MESSAGE, AccountingResult, delta, epsilon
from .odometer import RDPOdometer, rdp_torch
from .timeline import odometer  # after .odometer: the name is the function, not the submodule

if TYPE_CHECKING:  # loaded on first use below (import time is part of the cold start)
    from . import algebra
    from .algebra import MechanismResult, RDPAccountant, TightAccountant
    from .calibrate import CalibrationResult, MaxStepsResult, calibrate_noise, max_steps
    from .opacus_adapter import SymdpAccountant as SymdpAccountant

#: public name -> submodule that defines it (imported on first access: PEP 562)
_LAZY = {
    "algebra": "algebra", "MechanismResult": "algebra", "RDPAccountant": "algebra", "TightAccountant": "algebra",
    "CalibrationResult": "calibrate", "MaxStepsResult": "calibrate", "calibrate_noise": "calibrate",
    "max_steps": "calibrate", "SymdpAccountant": "opacus_adapter",
}

__all__ = [
    "ACCOUNTANTS", "AccountingResult", "MechanismResult", "RDPAccountant", "TightAccountant", "algebra", "CLT_WARNING", "CalibrationResult", "MaxStepsResult", "RDPOdometer",
    "SHUFFLE_MESSAGE", "calibrate_noise", "delta", "epsilon", "max_steps", "odometer", "rdp_torch",
]


def __getattr__(name: str) -> Any:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    m = import_module(f".{mod}", __name__)
    value = m if name == mod == "algebra" else getattr(m, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
