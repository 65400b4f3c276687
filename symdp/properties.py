r"""Typed privacy and generalization properties with named SymPy parameters.

These are the vocabulary of the theorem calculus (:mod:`symdp.calculus`): a
library entry that is an implication states ``premise(s) -> conclusion`` over
them (see :mod:`symdp.library.implications`), and chaining unifies one
theorem's conclusion with the next theorem's premise parameter by parameter.

Every property is a frozen dataclass whose fields are SymPy expressions; its
``subject`` names what has the property ("M", "A", "Poisson(q) o M", ...).

>>> from symdp.symbols import eps, delta
>>> ApproxDP(eps, delta)
ApproxDP(eps=epsilon, delta=delta)
>>> PureDP(eps).as_approx()
ApproxDP(eps=epsilon, delta=0)

Sources of the definitions: (eps, delta)-DP [Dwork and Roth 2014, Def. 2.4];
privacy profile [Balle, Barthe, Gaboardi 2018, Sec. 2]; GDP and trade-off
functions [Dong, Roth, Su 2019; Bu et al. Def. 2.2-2.3]; RDP [Mironov 2017, Def. 3];
zCDP [Bun and Steinke 2016, Def. 1.1]; KL-privacy [Barber and Duchi 2014, as Wang et al. Sec. 3
state it]; on-average KL-privacy [Wang et al. Def. 2];
max-information [Dwork et al. 2015, eq. (3)] (in nats here: the library's
entries in bits are converted by their implication); generalization
(gap a, failure probability b) [He et al. (UAI) Thm 1]; on-average generalization [Wang et al. Def. 3].
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

import sympy as sp

from .errors import InvalidParameterError

__all__ = [
    "ADJACENCIES", "ADJACENCY_TEXT", "ANY_ADJACENCY", "PROPERTY_TYPES", "ApproxDP", "GDP", "Generalization", "KLPrivacy", "MaxInformation", "Mechanism",
    "OnAverageGeneralization", "OnAverageKL", "OtherProperty", "PrivacyProfile", "Prop", "PureDP", "RDP", "TradeOff", "ZCDP",
    "adjacency_of", "canonical", "property_type", "with_adjacency",
]


#: the neighbouring relations a privacy property can be stated for (those :mod:`symdp.mechanisms` and the
#: accountants model); ``"any"`` marks a statement that holds for whichever relation its premise (or the
#: sensitivity of its mechanism) is measured in, and inherits that relation when chained
ADJACENCIES: tuple[str, ...] = ("add_remove", "replace_one")
ANY_ADJACENCY = "any"
ADJACENCY_TEXT = {"add_remove": "add/remove", "replace_one": "replace-one", ANY_ADJACENCY: "any neighbouring relation"}

_EPS = sp.Symbol("epsilon", positive=True)
_ALPHA = sp.Symbol("alpha", positive=True)


def _expr(v: Any) -> sp.Expr:
    if isinstance(v, sp.Basic):
        return v
    if isinstance(v, bool):
        raise TypeError(f"property parameter={v!r}: expected a number or a SymPy expression")
    if isinstance(v, int):
        return sp.Integer(v)
    if isinstance(v, float):
        return sp.Float(v)
    raise TypeError(f"property parameter={v!r}: expected a number or a SymPy expression, got {type(v).__name__}")


@dataclass(frozen=True)
class Prop:
    """Base of every property: ``params()`` maps parameter names to expressions."""

    #: the display / matching name of the property type
    kind: ClassVar[str] = "property"
    #: parameter field names, in order
    param_names: ClassVar[tuple[str, ...]] = ()

    def params(self) -> dict[str, sp.Expr]:
        return {name: getattr(self, name) for name in self.param_names}

    def subject_of(self) -> str:
        return str(getattr(self, "subject", "A"))

    def xreplace(self, mapping: Mapping[sp.Basic, sp.Basic]) -> Prop:
        """The same property with ``mapping`` applied to every parameter (simultaneously)."""
        new = {n: _expr(e).xreplace(dict(mapping)) for n, e in self.params().items()}
        return replace(self, **new)

    @property
    def free_symbols(self) -> set[sp.Symbol]:
        out: set[sp.Symbol] = set()
        for e in self.params().values():
            out |= {s for s in _expr(e).free_symbols if isinstance(s, sp.Symbol)}
        return out

    def __repr__(self) -> str:
        ps = ", ".join(f"{n}={sp.sstr(e)}" for n, e in self.params().items())
        adj = adjacency_of(self)
        if adj not in (None, ANY_ADJACENCY):
            ps += f", adjacency={adj!r}"
        return f"{type(self).__name__}({ps})"

    def __str__(self) -> str:
        ps = ", ".join(f"{n}={sp.sstr(e)}" for n, e in self.params().items())
        adj = adjacency_of(self)
        tail = f" under {ADJACENCY_TEXT[adj]} adjacency" if adj not in (None, ANY_ADJACENCY) else ""
        return f"{self.subject_of()} is {self.kind}({ps}){tail}"

    def latex(self) -> str:
        ps = ", ".join(sp.latex(e) for e in self.params().values())
        return rf"\text{{{self.subject_of()} is }}\left({ps}\right)\text{{-{self.kind}}}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "property": self.kind,
            "subject": self.subject_of(),
            "params": {n: sp.sstr(e) for n, e in self.params().items()},
        }
        adj = adjacency_of(self)
        if adj is not None:
            out["adjacency"] = adj
        return out


def _init_exprs(obj: Prop) -> None:
    for f in fields(obj):
        if f.name in obj.param_names:
            object.__setattr__(obj, f.name, _expr(getattr(obj, f.name)))
    adj = getattr(obj, "adjacency", None)
    if adj is not None and adj not in (*ADJACENCIES, ANY_ADJACENCY):
        raise InvalidParameterError(f"adjacency={adj!r} is not allowed; allowed: {', '.join((*ADJACENCIES, ANY_ADJACENCY))}")


@dataclass(frozen=True, repr=False)
class PureDP(Prop):
    """eps-DP [Dwork and Roth 2014, Def. 2.4 with delta = 0]."""

    eps: Any
    subject: str = "A"
    adjacency: str = ANY_ADJACENCY
    kind: ClassVar[str] = "PureDP"
    param_names: ClassVar[tuple[str, ...]] = ("eps",)

    def __post_init__(self) -> None:
        _init_exprs(self)

    def as_approx(self) -> ApproxDP:
        return ApproxDP(self.eps, sp.Integer(0), self.subject, self.adjacency)


@dataclass(frozen=True, repr=False)
class ApproxDP(Prop):
    """(eps, delta)-DP [Dwork and Roth 2014, Def. 2.4]."""

    eps: Any
    delta: Any
    subject: str = "A"
    adjacency: str = ANY_ADJACENCY
    kind: ClassVar[str] = "ApproxDP"
    param_names: ClassVar[tuple[str, ...]] = ("eps", "delta")

    def __post_init__(self) -> None:
        _init_exprs(self)


@dataclass(frozen=True, repr=False)
class PrivacyProfile(Prop):
    """A privacy profile ``delta(eps)``: (eps, delta(eps))-DP for every eps >= 0 [BBG 2018, Sec. 2].

    ``delta_of_eps`` is an expression in the free symbol ``eps``."""

    delta_of_eps: Any
    eps: Any = _EPS
    subject: str = "A"
    adjacency: str = ANY_ADJACENCY
    kind: ClassVar[str] = "PrivacyProfile"
    param_names: ClassVar[tuple[str, ...]] = ("delta_of_eps",)

    def __post_init__(self) -> None:
        _init_exprs(self)
        object.__setattr__(self, "eps", _expr(self.eps))

    def as_approx(self) -> ApproxDP:
        return ApproxDP(self.eps, self.delta_of_eps, self.subject, self.adjacency)


@dataclass(frozen=True, repr=False)
class GDP(Prop):
    """mu-GDP [Dong, Roth, Su 2019; Bu et al. Def. 2.3]."""

    mu: Any
    subject: str = "A"
    approximate: bool = False
    adjacency: str = ANY_ADJACENCY
    kind: ClassVar[str] = "GDP"
    param_names: ClassVar[tuple[str, ...]] = ("mu",)

    def __post_init__(self) -> None:
        _init_exprs(self)


@dataclass(frozen=True, repr=False)
class TradeOff(Prop):
    """f-DP with trade-off function ``f`` in the argument ``alpha`` [Bu et al. Def. 2.2]."""

    f: Any
    alpha: Any = _ALPHA
    subject: str = "A"
    adjacency: str = ANY_ADJACENCY
    kind: ClassVar[str] = "TradeOff"
    param_names: ClassVar[tuple[str, ...]] = ("f",)

    def __post_init__(self) -> None:
        _init_exprs(self)


@dataclass(frozen=True, repr=False)
class RDP(Prop):
    """(alpha, eps_alpha)-RDP [Mironov 2017, Def. 3]; ``eps_alpha`` may be a curve in ``alpha``."""

    alpha: Any
    eps_alpha: Any
    subject: str = "A"
    adjacency: str = ANY_ADJACENCY
    kind: ClassVar[str] = "RDP"
    param_names: ClassVar[tuple[str, ...]] = ("alpha", "eps_alpha")

    def __post_init__(self) -> None:
        _init_exprs(self)


@dataclass(frozen=True, repr=False)
class ZCDP(Prop):
    """rho-zCDP [Bun and Steinke 2016, Def. 1.1]."""

    rho: Any
    subject: str = "A"
    adjacency: str = ANY_ADJACENCY
    kind: ClassVar[str] = "zCDP"
    param_names: ClassVar[tuple[str, ...]] = ("rho",)

    def __post_init__(self) -> None:
        _init_exprs(self)


@dataclass(frozen=True, repr=False)
class KLPrivacy(Prop):
    """eps KL-privacy: sup over neighbouring data sets of D_KL(A(Z) || A(Z')) <= eps [Barber and Duchi 2014, as
    Wang et al. Sec. 3 and Table 1 state it: pure DP with the supremum over outputs replaced by an expectation]."""

    eps: Any
    subject: str = "A"
    adjacency: str = ANY_ADJACENCY
    kind: ClassVar[str] = "KLPrivacy"
    param_names: ClassVar[tuple[str, ...]] = ("eps",)

    def __post_init__(self) -> None:
        _init_exprs(self)


@dataclass(frozen=True, repr=False)
class OnAverageKL(Prop):
    """eps On-Average KL-privacy [Wang et al. Def. 2]."""

    eps: Any
    subject: str = "A"
    kind: ClassVar[str] = "OnAverageKL"
    param_names: ClassVar[tuple[str, ...]] = ("eps",)

    def __post_init__(self) -> None:
        _init_exprs(self)


@dataclass(frozen=True, repr=False)
class MaxInformation(Prop):
    """beta-approximate max-information at most ``k`` nats [Dwork et al. 2015, eq. (3), in nats]."""

    k: Any
    beta: Any
    subject: str = "A"
    kind: ClassVar[str] = "MaxInformation"
    param_names: ClassVar[tuple[str, ...]] = ("k", "beta")

    def __post_init__(self) -> None:
        _init_exprs(self)


@dataclass(frozen=True, repr=False)
class Generalization(Prop):
    """|generalization error| <= gap with probability >= 1 - failure [He et al. (UAI) Thm 1's (a, b)]."""

    gap: Any
    failure: Any
    subject: str = "A"
    kind: ClassVar[str] = "Generalization"
    param_names: ClassVar[tuple[str, ...]] = ("gap", "failure")

    def __post_init__(self) -> None:
        _init_exprs(self)


@dataclass(frozen=True, repr=False)
class OnAverageGeneralization(Prop):
    """|E R(A(Z)) - E R_emp(A(Z), Z)| <= gap [Wang et al. Def. 3]: generalization in expectation, no failure
    probability (unlike :class:`Generalization`)."""

    gap: Any
    subject: str = "A"
    kind: ClassVar[str] = "OnAverageGeneralization"
    param_names: ClassVar[tuple[str, ...]] = ("gap",)

    def __post_init__(self) -> None:
        _init_exprs(self)


@dataclass(frozen=True, repr=False)
class Mechanism(Prop):
    """What ran, symbolically: ``name`` is a :mod:`symdp.mechanisms` type name (``"Gaussian"``,
    ``"NoisySGD"``, ``"Subsampled"``, ...) and ``args`` its named symbolic parameters.

    The numeric, SymPy-free descriptions the accountants consume live in :mod:`symdp.mechanisms`;
    this is the premise form the calculus unifies on (e.g. ``Gaussian(sensitivity=Delta, sigma=sigma)``).
    """

    name: str
    args: tuple[tuple[str, Any], ...] = ()
    subject: str = "M"
    kind: ClassVar[str] = "Mechanism"

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple((n, _expr(v)) for n, v in self.args))

    def params(self) -> dict[str, sp.Expr]:
        return dict(self.args)

    def xreplace(self, mapping: Mapping[sp.Basic, sp.Basic]) -> Prop:
        return replace(self, args=tuple((n, e.xreplace(dict(mapping))) for n, e in self.args))

    def __str__(self) -> str:
        ps = ", ".join(f"{n}={sp.sstr(e)}" for n, e in self.args)
        return f"{self.subject} is {self.name}({ps})"

    def __repr__(self) -> str:
        ps = ", ".join(f"{n}={sp.sstr(e)}" for n, e in self.args)
        return f"Mechanism.{self.name}({ps})"

    def to_mechanism(self, **values: float) -> Any:
        """The runtime description (:mod:`symdp.mechanisms`, SymPy-free) at numeric ``values`` of the
        free symbols (by name), e.g. for the accountants or the audit."""
        from . import mechanisms as M

        ps = {n: float(e.xreplace({s: sp.Float(values[s.name]) for s in e.free_symbols
                                   if isinstance(s, sp.Symbol) and s.name in values}))
              for n, e in self.args}
        if self.name == "gaussian":
            return M.Gaussian(sensitivity=ps["sensitivity"], sigma=ps["sigma"])
        if self.name == "subsampled_gaussian":
            return M.Subsampled(M.Gaussian(sensitivity=1.0, sigma=ps["sigma"]), ps["rate"])
        if self.name == "dp_sgd":
            return M.dp_sgd(noise_multiplier=ps["sigma"], sample_rate=ps["rate"], steps=round(ps["steps"]))
        raise NotImplementedError(f"mechanism {self.name!r} has no runtime description")

    def to_json(self) -> dict[str, Any]:
        return {"property": f"Mechanism:{self.name}", "subject": self.subject,
                "params": {n: sp.sstr(e) for n, e in self.args}}


@dataclass(frozen=True, repr=False)
class OtherProperty(Prop):
    """A property outside the typed vocabulary (kept so every library entry can be shown);
    it unifies only with the same ``name``."""

    name: str
    args: tuple[Any, ...] = ()
    subject: str = "A"
    kind: ClassVar[str] = "Other"

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(_expr(v) for v in self.args))

    def params(self) -> dict[str, sp.Expr]:
        return {f"p{i}": e for i, e in enumerate(self.args)}

    def xreplace(self, mapping: Mapping[sp.Basic, sp.Basic]) -> Prop:
        return replace(self, args=tuple(e.xreplace(dict(mapping)) for e in self.args))

    def __str__(self) -> str:
        if not self.args:
            return f"{self.subject} is {self.name}"
        ps = ", ".join(sp.sstr(e) for e in self.args)
        return f"{self.subject} is ({ps})-{self.name}"


PROPERTY_TYPES: dict[str, type[Prop]] = {
    c.kind: c
    for c in (PureDP, ApproxDP, PrivacyProfile, GDP, TradeOff, RDP, ZCDP, KLPrivacy, OnAverageKL, MaxInformation,
              Generalization, OnAverageGeneralization, Mechanism)
}


def adjacency_of(p: Prop) -> str | None:
    """The neighbouring relation ``p`` is stated for (``"any"``: inherited), None for a property without one
    (generalization, max-information, a mechanism, ...)."""
    return getattr(p, "adjacency", None)


def with_adjacency(p: Prop, adjacency: str) -> Prop:
    """``p`` stated for ``adjacency`` (unchanged when ``p`` carries no neighbouring relation)."""
    if adjacency_of(p) is None:
        return p
    return replace(p, adjacency=adjacency)  # type: ignore[call-arg]


def canonical(p: Prop) -> Prop:
    """The form chaining unifies on: PureDP(eps) and PrivacyProfile become ApproxDP."""
    if isinstance(p, (PureDP, PrivacyProfile)):
        return p.as_approx()
    return p


def property_type(p: Prop) -> str:
    """The unification key of ``p``: its kind, a mechanism's name, an unknown property's name."""
    c = canonical(p)
    if isinstance(c, Mechanism):
        return f"Mechanism:{c.name}"
    if isinstance(c, OtherProperty):
        return f"Other:{c.name}"
    return c.kind
