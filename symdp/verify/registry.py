r"""The oracle registry: the :class:`Oracle` type, :func:`register` and lookup.

It imports none of the oracles.  Oracle modules (:mod:`~symdp.verify.oracles`,
:mod:`~symdp.verify.composition`, :mod:`~symdp.verify.fdp`, :mod:`~symdp.verify.montecarlo`,
:mod:`~symdp.verify.oracles_accounting`, ...) import this module and register into it; the package
(:mod:`symdp.verify`) imports the oracle modules, so the registry is full once ``symdp.verify`` is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import UnsupportedError


@dataclass(frozen=True)
class Oracle:
    """A named exact (or rigorously bracketed) evaluator of a true quantity."""

    name: str
    fn: Callable[..., Any]
    shape: str  # "value" | "profile" | "mc"
    params: tuple[str, ...]  # required keyword arguments
    description: str
    closed_form: str | None = None  # sympy text of the worst case in canonical symbols (value oracles)
    reduction: str | None = None  # why the closed form is the worst case (human proof sketch)
    bracket: Callable[..., tuple[Any, Any]] | None = None  # (lower, upper) rigorous-ish bracket
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    rtol: str | None = None  # relative tolerance of equality checks (quadrature oracles); None: exact
    #: maps an entry onto (f_claim, f_true, relation, symbols[, default ranges]) or a reason string; used
    #: instead of the generic value/profile mapping (see symdp.verify.composition)
    mapper: Callable[..., Any] | None = None
    #: the oracle's value in closed form: called with the same keyword arguments as ``fn``, given as SymPy
    #: expressions, returns a SymPy expression (or None where no closed form applies).  It must be the
    #: exact value (tests compare it with ``fn`` at random points; the engine re-checks it at sample points
    #: before it uses it); the interval rung then certifies claims against it.
    exact: Callable[..., Any] | None = None
    exact_note: str | None = None  # why ``exact`` is the oracle's value (printed with proofs that use it)
    #: a float64 (numpy) twin of ``fn``: the same keyword arguments as arrays (broadcast), a float64 array out, NaN
    #: where float64 cannot give the value; only the audit's plots use it (:mod:`symdp.verify.twins`)
    float64: Callable[..., Any] | None = None
    #: the mapper decides every entry itself (returns its own Evidence, e.g. a limit claim checked along a sequence)
    #: and never returns the two sides: the audit has no curve to plot and does not call it for one
    mapper_decides: bool = False

    def __call__(self, **kw: Any) -> Any:
        return self.fn(**kw)

    def accepts(self, names: set[str]) -> bool:
        """True when every required parameter (or an alias of it) is among ``names``."""
        for p in self.params:
            if p in names:
                continue
            if any(a in names for a in self.aliases.get(p, ())):
                continue
            return False
        return True


ORACLES: dict[str, Oracle] = {}


def register(oracle: Oracle) -> Oracle:
    ORACLES[oracle.name] = oracle
    return oracle


#: library entry id -> oracle name, for entries that name no oracle themselves (the library records claims as
#: stated; the verifier decides which exact computation checks them).  Filled by oracle modules via :func:`assign`.
ENTRY_ORACLES: dict[str, str] = {}


def assign(oracle: str, *entry_ids: str) -> None:
    """Check the library entries ``entry_ids`` (which name no oracle) against the registered oracle ``oracle``."""
    for i in entry_ids:
        ENTRY_ORACLES[i] = oracle


def oracle_for(entry_id: str, named: str | None) -> str | None:
    """The oracle that checks an entry: the one it names, else the one assigned to it, else None."""
    return named or ENTRY_ORACLES.get(entry_id)


def get_oracle(name: str) -> Oracle:
    if name not in ORACLES:
        raise UnsupportedError(f"no oracle named {name!r}; known: {sorted(ORACLES)}")
    return ORACLES[name]


#: profile oracle -> trade-off oracle of the same mechanism (used for entries about alpha -> beta)
TRADEOFF_COMPANION = {"gaussian_profile": "gaussian_tradeoff", "subsampled_gaussian_profile": "subsampled_gaussian_tradeoff"}


__all__ = ["Oracle", "ORACLES", "ENTRY_ORACLES", "register", "assign", "oracle_for", "get_oracle", "TRADEOFF_COMPANION"]
