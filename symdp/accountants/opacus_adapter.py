r"""Opacus adapter: a symdp accountant that Opacus's ``PrivacyEngine`` accepts, by name or as an instance.

Opacus is imported here only (lazily, when this module is imported).

>>> from opacus import PrivacyEngine                                   # doctest: +SKIP
>>> from symdp.accountants.opacus_adapter import SymdpAccountant      # doctest: +SKIP
>>> engine = PrivacyEngine(accountant=SymdpAccountant())             # doctest: +SKIP
>>> engine = PrivacyEngine(accountant="symdp")                        # doctest: +SKIP

Importing this module registers the names ``"symdp"`` (tight, a rigorous upper bound) and
``"symdp-rdp"`` with Opacus's accountant registry; every :class:`SymdpAccountant` *instance* is
registered too (as its own key, returning itself), which is how ``PrivacyEngine(accountant=instance)``
works with Opacus's ``create_accountant``.  History and ``len`` are Opacus's: ``history`` is
``[(noise_multiplier, sample_rate, steps), ...]`` (consecutive equal steps merged) and ``len`` is the
number of history entries, as in Opacus's RDP, GDP and PRV accountants; :attr:`steps` is the number of
optimisation steps.

``make_private_with_epsilon``: Opacus bisects the noise multiplier only to ``epsilon_tolerance=0.01``;
:func:`register` (called on import) wraps ``get_noise_multiplier`` in ``opacus.privacy_engine`` and
``opacus.accountants.utils`` (names bound by an earlier ``from ... import`` keep Opacus's) so that for the
symdp mechanisms -- and only for them -- the noise comes from :func:`symdp.accountants.calibrate_noise`
(relative tolerance :data:`CALIBRATION_RTOL`, always on the safe side: the final epsilon is at most the
target and within Opacus's ``places=2`` of it).  Other accountants go to Opacus's function unchanged.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from typing import Any

import opacus.accountants.utils as _opacus_utils
import opacus.privacy_engine as _opacus_engine
from opacus.accountants import IAccountant, register_accountant
from opacus.accountants.registry import _ACCOUNTANTS

from ..errors import ConvergenceError, InvalidParameterError
from ..validation import check_probability, check_real
from . import api as _api

#: relative tolerance of the noise calibration behind ``make_private_with_epsilon`` (safe side)
CALIBRATION_RTOL = 1e-5

_NAMES = {"symdp": "tight", "symdp-rdp": "rdp"}


class _InstanceFactory:
    """Registry value for an accountant instance: ``create_accountant(instance)`` returns the instance."""

    def __init__(self, acc: SymdpAccountant) -> None:
        self._ref = weakref.ref(acc)

    def __call__(self) -> SymdpAccountant:
        acc = self._ref()
        if acc is None:  # pragma: no cover - a key that was collected cannot be looked up
            raise ValueError("the SymdpAccountant instance was garbage-collected")
        return acc


class SymdpAccountant(IAccountant):
    """Opacus ``IAccountant`` backed by a symdp accountant (``accountant="tight"`` or ``"rdp"``)."""

    accountant_name = "tight"

    def __init__(self, accountant: str | None = None) -> None:
        super().__init__()
        name = accountant or self.accountant_name
        if name not in ("tight", "pld", "rdp"):
            raise InvalidParameterError(
                f"accountant={name!r} is not supported by SymdpAccountant; allowed: 'tight', 'rdp' (upper bounds)"
            )
        _api._resolve(name, "poisson")
        self.accountant = "tight" if name == "pld" else name
        if self.accountant != self.accountant_name:  # an rdp-configured instance reports the rdp mechanism
            self.mechanism = (lambda: "symdp-rdp") if self.accountant == "rdp" else (lambda: "symdp")  # type: ignore[method-assign]
        # PrivacyEngine(accountant=<this instance>): Opacus looks the instance up in its registry
        # (the key is a stand-in equal to the instance, so the registry holds no strong reference to it)
        _ACCOUNTANTS[_KeyRef(id(self))] = _InstanceFactory(self)
        weakref.finalize(self, _ACCOUNTANTS.pop, _KeyRef(id(self)), None)

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one step (validated first: a bad step leaves the history unchanged)."""
        check_real("noise_multiplier", noise_multiplier, 0.0, float("inf"), lo_open=True, hi_open=True)
        check_real("sample_rate", sample_rate, 0.0, 1.0, lo_open=True)
        if self.history and self.history[-1][0] == noise_multiplier and self.history[-1][1] == sample_rate:
            s, q, n = self.history[-1]
            self.history[-1] = (s, q, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    @property
    def steps(self) -> int:
        """Optimisation steps recorded (``len`` counts history entries, as Opacus does)."""
        return int(sum(n for _, _, n in self.history))

    def get_epsilon(self, delta: float, *args: Any, **kwargs: Any) -> float:
        """Upper bound on epsilon at ``delta`` for the recorded history (a schedule)."""
        check_probability("delta", delta)
        if not self.history:
            return 0.0
        r = _api.epsilon(schedule=[(float(s), float(q), int(n)) for s, q, n in self.history], delta=delta,
                         accountant=self.accountant)
        return float(r.epsilon)

    def get_privacy_spent(self, *, delta: float) -> tuple[float, float]:
        """``(epsilon, delta)`` like Opacus's GDP/PRV accountants."""
        return self.get_epsilon(delta), float(delta)

    def __len__(self) -> int:
        return len(self.history)

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _KeyRef):
            return other.key == id(self)
        return self is other

    @classmethod
    def mechanism(cls) -> str:
        return "symdp" if cls.accountant_name == "tight" else "symdp-rdp"


class _KeyRef:
    """Stands for a collected instance's registry key (same hash, equal to it) so it can be removed."""

    def __init__(self, key: int) -> None:
        self.key = key

    def __hash__(self) -> int:
        return self.key

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, _KeyRef) and other.key == self.key) or (
            isinstance(other, SymdpAccountant) and id(other) == self.key
        )


class SymdpRDPAccountant(SymdpAccountant):
    accountant_name = "rdp"


def _symdp_noise(target_epsilon: float, target_delta: float, sample_rate: float, steps: int, accountant: str) -> float:
    from .calibrate import calibrate_noise

    r = calibrate_noise(target_epsilon=target_epsilon, delta=target_delta, sample_rate=sample_rate, steps=steps,
                        accountant=accountant, rtol=CALIBRATION_RTOL)
    sigma = float(r.noise_multiplier)
    # the accountant reports ``epsilon`` (its own adaptive grid) for this history: make sure that value, the one
    # Opacus will show, is within the target too (both are upper bounds, possibly on different grids)
    for _ in range(60):
        e = float(_api.epsilon(noise_multiplier=sigma, sample_rate=sample_rate, steps=steps, delta=target_delta,
                               accountant=accountant).epsilon)
        if e <= target_epsilon:
            return sigma
        sigma *= 1.0 + max(CALIBRATION_RTOL, 0.5 * (e / target_epsilon - 1.0))
    raise ConvergenceError(
        f"could not find a noise multiplier with epsilon <= target_epsilon={target_epsilon!r} "
        f"(last epsilon {e!r} at noise_multiplier={sigma!r})"
    )


def _steps_for_epochs(epochs: Any, sample_rate: float) -> int:
    """Steps that ``epochs`` epochs at ``sample_rate`` run: ``epochs * len(data_loader)`` when
    ``sample_rate = 1 / len(data_loader)`` (Opacus's ``make_private_with_epsilon``).

    Opacus takes ``int(epochs / sample_rate)``, which truncates a quotient that rounding left just below
    the integer (``3 / (1 / 75) = 224.99999999999997``): one step fewer than training runs, and a final
    epsilon above the target.  Rounded up here (a quotient within ``1e-9`` relative of an integer is
    that integer), so the calibrated run never has more steps than accounted for.
    """
    x = check_real("epochs", epochs, 0.0, float("inf"), lo_open=True, hi_open=True) / sample_rate
    if not x < 2**62:
        raise InvalidParameterError(f"epochs={epochs!r} / sample_rate={sample_rate!r} steps is too many; allowed: < 2**62")
    return max(1, math.ceil(x * (1 - 1e-9)))


def _wrap_get_noise_multiplier(orig: Callable[..., float]) -> Callable[..., float]:
    if getattr(orig, "_symdp_wrapped", False):
        return orig

    def get_noise_multiplier(*, target_epsilon: float, target_delta: float, sample_rate: float,
                             epochs: int | None = None, steps: int | None = None, accountant: Any = "rdp",
                             epsilon_tolerance: float = 0.01, **kwargs: Any) -> float:
        name = accountant.mechanism() if isinstance(accountant, SymdpAccountant) else accountant
        if not isinstance(name, str) or name not in _NAMES:
            return orig(target_epsilon=target_epsilon, target_delta=target_delta, sample_rate=sample_rate,
                        epochs=epochs, steps=steps, accountant=accountant, epsilon_tolerance=epsilon_tolerance, **kwargs)
        if (steps is None) == (epochs is None):
            raise ValueError("get_noise_multiplier takes as input EITHER a number of steps or a number of epochs")
        if steps is None:
            steps = _steps_for_epochs(epochs, sample_rate)
        return _symdp_noise(target_epsilon, target_delta, sample_rate, steps, _NAMES[name])

    get_noise_multiplier._symdp_wrapped = True  # type: ignore[attr-defined]
    get_noise_multiplier.__wrapped__ = orig  # type: ignore[attr-defined]
    get_noise_multiplier.__doc__ = orig.__doc__
    return get_noise_multiplier


def register() -> None:
    """Register ``"symdp"`` (tight) and ``"symdp-rdp"`` with Opacus's registry and route their noise
    calibration (``make_private_with_epsilon``) to symdp's safe-side calibration (idempotent)."""
    for cls in (SymdpAccountant, SymdpRDPAccountant):
        if _ACCOUNTANTS.get(cls.mechanism()) is not cls:
            register_accountant(cls.mechanism(), cls, force=True)
    _opacus_engine.get_noise_multiplier = _wrap_get_noise_multiplier(_opacus_engine.get_noise_multiplier)
    _opacus_utils.get_noise_multiplier = _wrap_get_noise_multiplier(_opacus_utils.get_noise_multiplier)


register()

__all__ = ["CALIBRATION_RTOL", "SymdpAccountant", "SymdpRDPAccountant", "register"]
