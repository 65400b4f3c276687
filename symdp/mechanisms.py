r"""Mechanisms as data: frozen, validated descriptions of *what ran*.

One set of mechanism types serves the accountants (``symdp.accountants.algebra``), the calculus
and the audit.  A mechanism never changes meaning; evaluators (accountants) say "unsupported"
instead of guessing.  This module imports numpy only (through :mod:`symdp.validation`), never
SymPy, so the runtime accounting path stays light.

Conventions (the same as Google's dp_accounting ``dp_event.py``):

* ``sensitivity`` is the largest change of the query between *neighbouring* datasets under the
  adjacency of the analysis (add/remove one record unless a :class:`Subsampled` wrapper says
  ``adjacency="replace_one"``; for a sum of terms clipped to norm ``C`` that is ``C`` under
  add/remove and ``2C`` under replace-one).
* ``Gaussian(sensitivity=1, sigma=z)`` is the DP-SGD step with noise multiplier ``z``.

>>> from symdp.mechanisms import Gaussian, Subsampled, SelfComposed
>>> step = Subsampled(Gaussian(sensitivity=1.0, sigma=1.1), rate=256 / 60000)
>>> run = SelfComposed(step, 2340)
>>> run == dp_sgd(noise_multiplier=1.1, sample_rate=256 / 60000, steps=2340)
True
>>> mechanism_from_dict(run.to_dict()) == run
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal

from .errors import InvalidParameterError, InvalidTypeError
from .validation import check_int, check_probability, check_real

Scheme = Literal["poisson", "without_replacement"]
Adjacency = Literal["add_remove", "replace_one"]
SCHEMES: tuple[str, ...] = ("poisson", "without_replacement")
ADJACENCIES: tuple[str, ...] = ("add_remove", "replace_one")


def _pos(name: str, value: Any, *, allow_inf: bool = False) -> float:
    check_real(name, value, 0.0, None if allow_inf else math.inf, lo_open=True, hi_open=not allow_inf)
    return float(value)


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


@dataclass(frozen=True)
class Mechanism:
    """Base class of every mechanism description (frozen, hashable, comparable)."""

    kind: ClassVar[str] = "mechanism"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description; :func:`mechanism_from_dict` inverts it."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Mechanism):
                out[f.name] = v.to_dict()
            elif isinstance(v, tuple) and v and isinstance(v[0], Mechanism):
                out[f.name] = [p.to_dict() for p in v]
            elif isinstance(v, tuple):
                out[f.name] = list(v)
            else:
                out[f.name] = v
        return out

    def compose(self, steps: int) -> SelfComposed:
        """``steps``-fold self composition."""
        return SelfComposed(self, steps)

    def subsample(
        self, rate: float, scheme: Scheme = "poisson", adjacency: Adjacency = "add_remove"
    ) -> Subsampled:
        """This mechanism run on a random subsample."""
        return Subsampled(self, rate, scheme, adjacency)


@dataclass(frozen=True)
class Gaussian(Mechanism):
    r"""Additive Gaussian noise :math:`N(0, \sigma^2 I)` on a query of L2 ``sensitivity``."""

    sensitivity: float
    sigma: float
    kind: ClassVar[str] = "gaussian"

    def __post_init__(self) -> None:
        _set(self, "sensitivity", _pos("sensitivity", self.sensitivity))
        _set(self, "sigma", _pos("sigma", self.sigma))

    @property
    def noise_multiplier(self) -> float:
        """``sigma / sensitivity``: all that matters for privacy."""
        return self.sigma / self.sensitivity


@dataclass(frozen=True)
class Laplace(Mechanism):
    """Additive Laplace noise of ``scale`` b on a query of L1 ``sensitivity``: pure (sensitivity/b)-DP."""

    sensitivity: float
    scale: float
    kind: ClassVar[str] = "laplace"

    def __post_init__(self) -> None:
        _set(self, "sensitivity", _pos("sensitivity", self.sensitivity))
        _set(self, "scale", _pos("scale", self.scale))

    @property
    def eps(self) -> float:
        return self.sensitivity / self.scale


@dataclass(frozen=True)
class RandomizedResponse(Mechanism):
    r"""k-ary randomized response: report the true value w.p. :math:`e^\varepsilon/(e^\varepsilon+k-1)`,
    otherwise one of the other ``k - 1`` values uniformly.  Pure ``eps``-DP under replace-one
    adjacency (the local-DP setting); :meth:`from_noise_parameter` takes dp_accounting's
    ``RandomizedResponseDpEvent(noise_parameter, num_buckets)`` parametrisation.
    """

    eps: float
    k: int = 2
    kind: ClassVar[str] = "randomized_response"

    def __post_init__(self) -> None:
        _set(self, "eps", _pos("eps", self.eps))
        _set(self, "k", check_int("k", self.k, 2, None))

    @classmethod
    def from_noise_parameter(cls, noise_parameter: float, k: int = 2) -> RandomizedResponse:
        """With probability ``noise_parameter`` output a uniform value among all ``k``, else the truth."""
        p = float(check_probability("noise_parameter", noise_parameter, open_low=True, open_high=False))
        k = check_int("k", k, 2, None)
        # P(true) = 1 - p + p/k, P(other) = p/k  =>  eps = log(1 + k (1-p) / p)
        return cls(math.log1p(k * (1.0 - p) / p), k)

    @property
    def p_true(self) -> float:
        return 1.0 / (1.0 + (self.k - 1) * math.exp(-self.eps))


@dataclass(frozen=True)
class ApproxDPBlackBox(Mechanism):
    """Any mechanism known only to be (eps, delta)-DP (delta = 0: pure DP)."""

    eps: float
    delta: float = 0.0
    kind: ClassVar[str] = "approx_dp"

    def __post_init__(self) -> None:
        check_real("eps", self.eps, 0.0, math.inf, hi_open=True)
        _set(self, "eps", float(self.eps))
        _set(self, "delta", float(check_real("delta", self.delta, 0.0, 1.0, hi_open=True)))


@dataclass(frozen=True)
class DiscreteGaussian(Mechanism):
    r"""Discrete Gaussian noise on :math:`\mathbb Z` (Canonne, Kamath, Steinke 2020), P(x) ∝ exp(-x²/2σ²),
    on an integer query of ``sensitivity``."""

    sensitivity: int
    sigma: float
    kind: ClassVar[str] = "discrete_gaussian"

    def __post_init__(self) -> None:
        _set(self, "sensitivity", check_int("sensitivity", self.sensitivity, 1, None))
        _set(self, "sigma", _pos("sigma", self.sigma))


@dataclass(frozen=True)
class DiscreteLaplace(Mechanism):
    """Discrete Laplace (two-sided geometric) noise, P(x) ∝ exp(-|x|/scale), on an integer query."""

    sensitivity: int
    scale: float
    kind: ClassVar[str] = "discrete_laplace"

    def __post_init__(self) -> None:
        _set(self, "sensitivity", check_int("sensitivity", self.sensitivity, 1, None))
        _set(self, "scale", _pos("scale", self.scale))

    @property
    def eps(self) -> float:
        return self.sensitivity / self.scale


@dataclass(frozen=True)
class ExponentialMechanism(Mechanism):
    r"""Exponential mechanism, described by its bounded range ``eps`` (Durfee & Rogers 2019):
    for neighbours, :math:`\log\frac{P(y)}{P'(y)} - \log\frac{P(y')}{P'(y')} \le \varepsilon`.
    With utility sensitivity :math:`\Delta u` and temperature :math:`\varepsilon_0/(2\Delta u)`
    it is :math:`\varepsilon_0`-BR (:meth:`from_utility`)."""

    eps: float
    kind: ClassVar[str] = "exponential"

    def __post_init__(self) -> None:
        _set(self, "eps", _pos("eps", self.eps))

    @classmethod
    def from_utility(cls, eps0: float) -> ExponentialMechanism:
        """The textbook ``exp(eps0 u / (2 Δu))`` mechanism: eps0-bounded range."""
        return cls(_pos("eps0", eps0))


@dataclass(frozen=True)
class MixtureOfGaussians(Mechanism):
    r"""User-level DP-SGD step: the user contributes ``sensitivities[i]`` with probability
    ``probs[i]``; the output is :math:`\sum_i p_i N(c_i, \sigma^2)` versus :math:`N(0, \sigma^2)`
    (dp_accounting's ``MixtureOfGaussiansDpEvent``)."""

    sigma: float
    sensitivities: tuple[float, ...]
    probs: tuple[float, ...]
    kind: ClassVar[str] = "mixture_of_gaussians"

    def __post_init__(self) -> None:
        _set(self, "sigma", _pos("sigma", self.sigma))
        sens = tuple(float(check_real("sensitivities", s, 0.0, math.inf, hi_open=True)) for s in self.sensitivities)
        probs = tuple(float(check_probability("probs", p, open_low=False, open_high=False)) for p in self.probs)
        if not sens or len(sens) != len(probs):
            raise InvalidParameterError(
                f"sensitivities (length {len(sens)}) and probs (length {len(probs)}) must be non-empty and of equal length"
            )
        total = math.fsum(probs)
        if abs(total - 1.0) > 1e-9:
            raise InvalidParameterError(f"probs sum to {total!r}; allowed: 1 (within 1e-9)")
        _set(self, "sensitivities", sens)
        _set(self, "probs", probs)


@dataclass(frozen=True)
class ZCDP(Mechanism):
    r"""A mechanism known only to be ``rho``-zCDP (Bun & Steinke 2016)."""

    rho: float
    kind: ClassVar[str] = "zcdp"

    def __post_init__(self) -> None:
        _set(self, "rho", _pos("rho", self.rho))


@dataclass(frozen=True)
class Subsampled(Mechanism):
    """``mechanism`` run on a random subsample: ``scheme="poisson"`` (each record kept w.p. ``rate``)
    or ``"without_replacement"`` (a fixed-size batch, ``rate`` = batch size / dataset size);
    ``adjacency`` is the neighbouring relation of the guarantee."""

    mechanism: Mechanism
    rate: float
    scheme: str = "poisson"
    adjacency: str = "add_remove"
    kind: ClassVar[str] = "subsampled"

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise InvalidTypeError(f"mechanism must be a symdp.mechanisms.Mechanism, got {type(self.mechanism).__name__}")
        _set(self, "rate", float(check_probability("rate", self.rate, open_low=True, open_high=False)))
        if self.scheme not in SCHEMES:
            raise InvalidParameterError(f"scheme={self.scheme!r} is not allowed; allowed: {', '.join(SCHEMES)}")
        if self.adjacency not in ADJACENCIES:
            raise InvalidParameterError(f"adjacency={self.adjacency!r} is not allowed; allowed: {', '.join(ADJACENCIES)}")


@dataclass(frozen=True)
class SelfComposed(Mechanism):
    """``steps``-fold adaptive composition of ``mechanism`` with itself."""

    mechanism: Mechanism
    steps: int
    kind: ClassVar[str] = "self_composed"

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise InvalidTypeError(f"mechanism must be a symdp.mechanisms.Mechanism, got {type(self.mechanism).__name__}")
        _set(self, "steps", check_int("steps", self.steps, 1, None))


@dataclass(frozen=True)
class Composed(Mechanism):
    """Adaptive composition of different mechanisms (heterogeneous composition)."""

    parts: tuple[Mechanism, ...]
    kind: ClassVar[str] = "composed"

    def __post_init__(self) -> None:
        parts = tuple(self.parts)
        if not parts:
            raise InvalidParameterError("parts=() is empty; allowed: at least one mechanism")
        for i, p in enumerate(parts):
            if not isinstance(p, Mechanism):
                raise InvalidTypeError(f"parts[{i}] must be a symdp.mechanisms.Mechanism, got {type(p).__name__}")
        _set(self, "parts", parts)


def dp_sgd(noise_multiplier: float, sample_rate: float, steps: int) -> SelfComposed:
    """The DP-SGD run of the accountants' shortcuts: Poisson-subsampled Gaussian, ``steps`` times."""
    return SelfComposed(Subsampled(Gaussian(1.0, noise_multiplier), sample_rate), steps)


KINDS: dict[str, type[Mechanism]] = {
    c.kind: c
    for c in (
        Gaussian, Laplace, RandomizedResponse, ApproxDPBlackBox, DiscreteGaussian, DiscreteLaplace,
        ExponentialMechanism, MixtureOfGaussians, ZCDP, Subsampled, SelfComposed, Composed,
    )
}


def mechanism_from_dict(data: Any) -> Mechanism:
    """Rebuild a mechanism from :meth:`Mechanism.to_dict` output (parsed data, never executed)."""
    if not isinstance(data, dict):
        raise InvalidTypeError(f"a mechanism description must be a mapping, got {type(data).__name__}")
    kind = data.get("kind")
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InvalidParameterError(f"kind={kind!r} is not a mechanism; allowed: {', '.join(sorted(KINDS))}")
    names = {f.name for f in fields(cls)}
    extra = sorted(set(data) - names - {"kind"})
    if extra:
        raise InvalidParameterError(f"unknown field(s) {extra} for kind={kind!r}; allowed: {sorted(names)}")
    kwargs: dict[str, Any] = {}
    for name in names & set(data):
        v = data[name]
        if name == "mechanism":
            v = mechanism_from_dict(v)
        elif name == "parts":
            if not isinstance(v, list):
                raise InvalidTypeError(f"parts must be a list, got {type(v).__name__}")
            v = tuple(mechanism_from_dict(p) for p in v)
        elif name in ("sensitivities", "probs"):
            if not isinstance(v, list):
                raise InvalidTypeError(f"{name} must be a list, got {type(v).__name__}")
            v = tuple(v)
        kwargs[name] = v
    try:
        return cls(**kwargs)
    except TypeError as exc:  # a missing required field
        raise InvalidParameterError(f"kind={kind!r}: {exc}") from exc


__all__ = [
    "ADJACENCIES",
    "KINDS",
    "SCHEMES",
    "ZCDP",
    "ApproxDPBlackBox",
    "Composed",
    "DiscreteGaussian",
    "DiscreteLaplace",
    "ExponentialMechanism",
    "Gaussian",
    "Laplace",
    "Mechanism",
    "MixtureOfGaussians",
    "RandomizedResponse",
    "SelfComposed",
    "Subsampled",
    "dp_sgd",
    "mechanism_from_dict",
]
