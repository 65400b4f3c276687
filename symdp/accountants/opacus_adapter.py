r"""Opacus adapter: a symdp accountant that Opacus's ``PrivacyEngine`` accepts.

Opacus is imported here only (lazily, when this module is imported).

>>> from symdp.accountants.opacus_adapter import register  # doctest: +SKIP
>>> register()                                            # doctest: +SKIP
>>> engine = opacus.PrivacyEngine(accountant="symdp")     # doctest: +SKIP

or ``engine = PrivacyEngine(); engine.accountant = SymdpAccountant()``.
History is kept like Opacus's own accountants, ``[(noise_multiplier,
sample_rate, steps), ...]``, and ``get_epsilon(delta)`` runs
:func:`symdp.accountants.epsilon` on it as a schedule (tight by default: a
rigorous upper bound).
"""

from __future__ import annotations

from typing import Any

from opacus.accountants import IAccountant, register_accountant
from opacus.accountants.registry import _ACCOUNTANTS

from ..validation import check_probability, check_real
from . import api as _api


class SymdpAccountant(IAccountant):
    """Opacus ``IAccountant`` backed by a symdp accountant (``accountant="tight"`` or ``"rdp"``)."""

    accountant_name = "tight"

    def __init__(self, accountant: str | None = None) -> None:
        super().__init__()
        name = accountant or self.accountant_name
        _api._resolve(name, "poisson")
        if name not in ("tight", "pld", "rdp"):
            raise ValueError(f"SymdpAccountant supports accountant='tight' or 'rdp' (upper bounds), not {name!r}")
        self.accountant = name

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        check_real("noise_multiplier", noise_multiplier, 0.0, float("inf"), lo_open=True, hi_open=True)
        check_real("sample_rate", sample_rate, 0.0, 1.0, lo_open=True)
        if self.history and self.history[-1][0] == noise_multiplier and self.history[-1][1] == sample_rate:
            s, q, n = self.history[-1]
            self.history[-1] = (s, q, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def get_epsilon(self, delta: float, *args: Any, **kwargs: Any) -> float:
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
        return int(sum(n for _, _, n in self.history))

    @classmethod
    def mechanism(cls) -> str:
        return "symdp" if cls.accountant_name == "tight" else "symdp-rdp"


class SymdpRDPAccountant(SymdpAccountant):
    accountant_name = "rdp"


def register() -> None:
    """Register ``"symdp"`` (tight) and ``"symdp-rdp"`` with Opacus's accountant registry (idempotent)."""
    for cls in (SymdpAccountant, SymdpRDPAccountant):
        if _ACCOUNTANTS.get(cls.mechanism()) is not cls:
            register_accountant(cls.mechanism(), cls, force=True)


__all__ = ["SymdpAccountant", "SymdpRDPAccountant", "register"]
