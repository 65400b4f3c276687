r"""Theorems as data: the contract between the library and every consumer.

A :class:`Theorem` is frozen and hashable.  Its meaning never changes once
published; a corrected variant is a *new* entry with a new id.

Statement conventions (``lhs``, ``relation``, ``rhs``):

* ``Kind.BOUND``: ``lhs`` is a symbol (or expression) naming the bounded
  quantity, ``rhs`` the bound, ``relation`` is ``"<="`` (upper bound) or
  ``">="`` (lower bound).  E.g. He et al. Lemma 2:
  ``D_KL <= eps*(exp(eps)-1)/(exp(eps)+1)``.  The generated kernel of a bound
  computes ``rhs``.
* ``Kind.DEFINITION``: ``lhs`` is the defined symbol, ``rhs`` its definition,
  ``relation == "=="``.
* ``Kind.IDENTITY``: ``lhs == rhs`` for all points satisfying the hypotheses.
* ``Kind.COMPARISON``: a claim between two bounds: ``lhs <= rhs`` (tighter
  than), or ``lhs == rhs`` for an exact factor (e.g. ratio == (1+e^eps)/2);
  ``refs`` names the library entries compared.
* ``Kind.EXPANSION``: ``lhs = rhs + O((var - point)**order)`` as
  ``var -> point`` (``expansion`` holds var/point/order); ``relation == "~"``.
* ``Kind.EQUIVALENCE``: a statement between properties (e.g. Wang et al. Thm 4);
  ``lhs``/``rhs`` may be None and the content lives in premises/conclusion
  and ``notes``.

``formula_available`` is False for results whose formula is missing from our
copy of the source (e.g. Lampert and Zakerinia's own theorems); ``unavailable_reason`` says why.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import mpmath
import sympy as sp
from sympy.printing.repr import ReprPrinter


class Kind(str, enum.Enum):
    DEFINITION = "definition"
    BOUND = "bound"
    IDENTITY = "identity"
    COMPARISON = "comparison"
    EXPANSION = "expansion"
    EQUIVALENCE = "equivalence"


class Verdict(str, enum.Enum):
    PROVED = "PROVED"
    REFUTED = "REFUTED"
    PARTIAL = "PARTIAL"  # holds only on part of the domain
    SUPPORTED = "SUPPORTED"
    UNCHECKED = "UNCHECKED"


RELATIONS = ("<=", ">=", "==", "~", "<", ">")


@dataclass(frozen=True)
class Source:
    """Where an entry comes from.

    ``paper`` is a short key (``"he2021-uai"``, ``"he2021-long"``,
    ``"lampert2026"``, ``"bu2020"``, ``"wang2016"``, ``"classical"``);
    ``file`` the seed file name; ``version`` the text variant; ``locator`` the
    theorem / equation number in that text; ``cites`` the original reference
    when the source quotes prior work; ``counterpart`` the same result's number
    in another version of the paper (``"long version: Theorem 4"``), which the
    library fills from its numbering table (``symdp.library._numbering``).
    """

    paper: str
    file: str
    version: str
    locator: str
    cites: str | None = None
    counterpart: str | None = None

    def where(self) -> str:
        """The locator as a reader reads it: ``Corollary 1 (long version: Corollary 2)``."""
        return f"{self.locator} ({self.counterpart})" if self.counterpart else self.locator

    def cite(self) -> str:
        s = f"[{self.paper}, {self.where()}; {self.version}]"
        if self.cites:
            s += f" quoting {self.cites}"
        return s


@dataclass(frozen=True)
class Property:
    """A typed privacy / generalization property with parameters, for chaining.

    ``name`` is one of e.g. ``"DP"`` (params eps, delta), ``"GDP"`` (mu),
    ``"fDP"``, ``"RDP"`` (alpha, eps), ``"KL-privacy"``, ``"generalization"``
    (a, b: error <= a with probability >= 1 - b), ``"max-information"`` (k, beta).
    ``subject`` names what has the property (``"M_i"``, ``"A"``, ...).
    """

    name: str
    params: tuple[sp.Expr, ...] = ()
    subject: str = "A"

    def __str__(self) -> str:
        ps = ", ".join(sp.sstr(p) for p in self.params)
        return f"{self.subject} is ({ps})-{self.name}" if ps else f"{self.subject} is {self.name}"


@dataclass(frozen=True)
class Expansion:
    var: sp.Symbol
    point: sp.Expr
    order: int  # remainder is O((var - point)**order), or O(var**-order) at oo


@dataclass(frozen=True)
class Evidence:
    """What the verifier established about an entry."""

    verdict: Verdict
    rung: str | None = None  # "symbolic" | "z3" | "interval" | "numerical" | None
    detail: str = ""
    certificate: str | None = None  # path under proofs/
    counterexample: tuple[tuple[str, str], ...] | None = None  # (symbol name, value) pairs
    cases: int | None = None


UNCHECKED = Evidence(Verdict.UNCHECKED, detail="not yet verified")


def _canonical_symbols() -> dict[str, sp.Symbol]:
    from . import symbols as canon

    return {s.name: s for s in (getattr(canon, n) for n in canon.__all__)}


class _CanonicalRepr(ReprPrinter):
    """srepr with every symbol equal to a canonical one written as the canonical one (see ``expr_hash``)."""

    _canon: ClassVar[dict[str, sp.Symbol]] = {}

    def _print_Symbol(self, expr: sp.Symbol) -> str:
        c = self._canon.get(expr.name)
        if c is not None and c is not expr and type(expr) is sp.Symbol and c == expr:
            expr = c
        return str(super()._print_Symbol(expr))


def _srepr(expr: Any) -> str:
    if not _CanonicalRepr._canon:
        _CanonicalRepr._canon = _canonical_symbols()
    return str(_CanonicalRepr({}).doprint(expr))


def _freeze_domain(domain: Any) -> tuple[tuple[sp.Symbol, sp.Expr, sp.Expr], ...]:
    items: Iterable[tuple[Any, tuple[Any, Any]]]
    if isinstance(domain, Mapping):
        items = domain.items()
    else:
        items = ((s, (lo, hi)) for s, lo, hi in domain)
    out = []
    for s, (lo, hi) in items:
        out.append((s, sp.sympify(lo, strict=True), sp.sympify(hi, strict=True)))
    return tuple(sorted(out, key=lambda t: t[0].name))


@dataclass(frozen=True)
class Theorem:
    """One library entry. Construct with :func:`theorem` for friendlier arguments."""

    id: str
    title: str
    kind: Kind
    source: Source
    lhs: sp.Expr | None = None
    relation: str = "=="
    rhs: sp.Expr | None = None
    hypotheses: tuple[sp.Basic, ...] = ()
    domain: tuple[tuple[sp.Symbol, sp.Expr, sp.Expr], ...] = ()
    quantity: str = ""
    expansion: Expansion | None = None
    refs: tuple[str, ...] = ()
    premises: tuple[Property, ...] = ()
    conclusion: Property | None = None
    oracle: str | None = None
    formula_available: bool = True
    unavailable_reason: str | None = None
    notes: str = ""
    tags: tuple[str, ...] = ()
    #: the statement as the paper prints it (LaTeX), shown to readers in place of the computed form when the
    #: encoded statement substitutes definitions (e.g. "delta_CLT(1.34; mu) <= 1e-5" for an erfc expression)
    printed: str | None = None
    evidence: Evidence = field(default=UNCHECKED, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise ValueError(f"theorem {self.id}: relation={self.relation!r} not in {RELATIONS}")
        if self.formula_available and self.kind is not Kind.EQUIVALENCE and self.rhs is None:
            raise ValueError(f"theorem {self.id}: a {self.kind.value} with a formula needs rhs")
        if not self.formula_available and not self.unavailable_reason:
            raise ValueError(f"theorem {self.id}: formula_available=False needs unavailable_reason")
        if self.kind is Kind.EXPANSION and self.expansion is None:
            raise ValueError(f"theorem {self.id}: an expansion needs expansion=Expansion(var, point, order)")

    # ---- derived data -------------------------------------------------
    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        """Free symbols of the statement and hypotheses, sorted by name."""
        syms: set[sp.Symbol] = set()
        for e in (self.lhs, self.rhs, *self.hypotheses):
            if e is not None and hasattr(e, "free_symbols"):
                syms |= {s for s in e.free_symbols if isinstance(s, sp.Symbol)}
        return tuple(sorted(syms, key=lambda s: s.name))

    @property
    def bound_symbols(self) -> tuple[sp.Symbol, ...]:
        """Free symbols of ``rhs`` (the arguments of its generated kernel), sorted by name."""
        if self.rhs is None:
            return ()
        return tuple(sorted((s for s in self.rhs.free_symbols if isinstance(s, sp.Symbol)), key=lambda s: s.name))

    @property
    def status(self) -> str:
        return self.evidence.verdict.value

    @property
    def source_key(self) -> str:
        return self.source.paper

    @property
    def kernel_name(self) -> str:
        """Python identifier of the generated kernel for ``rhs``."""
        return self.id.replace(".", "__").replace("-", "_")

    def statement(self) -> sp.Basic | None:
        """The statement as a SymPy relational (None when unavailable)."""
        if not self.formula_available or self.rhs is None or self.lhs is None:
            return None
        if self.relation == "<=":
            return sp.Le(self.lhs, self.rhs, evaluate=False)
        if self.relation == ">=":
            return sp.Ge(self.lhs, self.rhs, evaluate=False)
        if self.relation == "<":
            return sp.Lt(self.lhs, self.rhs, evaluate=False)
        if self.relation == ">":
            return sp.Gt(self.lhs, self.rhs, evaluate=False)
        return sp.Eq(self.lhs, self.rhs, evaluate=False)

    def expr_hash(self) -> str:
        """A stable hash of the statement (srepr), used in generated headers and ledgers.

        A symbol equal to a canonical one of :mod:`symdp.symbols` is written as that one: SymPy's cache can
        hand back a subexpression built earlier in the process around an equal symbol declared with other
        keywords (a claim file's ``Symbol("epsilon", real=True, positive=True)``), whose srepr differs, and
        the hash must not depend on what was parsed before."""
        h = hashlib.sha256()
        for part in (self.lhs, self.relation, self.rhs, self.hypotheses):
            h.update(_srepr(part).encode() if not isinstance(part, str) else part.encode())
        return h.hexdigest()[:16]

    def domain_dict(self) -> dict[sp.Symbol, tuple[sp.Expr, sp.Expr]]:
        return {s: (lo, hi) for s, lo, hi in self.domain}

    # ---- evaluation ----------------------------------------------------
    def _subs(self, values: Mapping[str | sp.Symbol, Any]) -> dict[sp.Symbol, Any]:
        by_name = {s.name: s for s in self.symbols}
        out: dict[sp.Symbol, Any] = {}
        for key, val in values.items():
            sym = key if isinstance(key, sp.Symbol) else by_name.get(key)
            if sym is None:
                raise KeyError(f"theorem {self.id} has no symbol {key!r}; symbols: {sorted(by_name)}")
            out[sym] = sp.nsimplify(val) if isinstance(val, float) else sp.sympify(val, strict=True)  # never parse text
        return out

    def evaluate(self, side: str = "rhs", dps: int = 30, **values: Any) -> mpmath.mpf:
        """Evaluate ``rhs`` (or ``lhs``) at the given symbol values with mpmath at ``dps`` digits."""
        expr = self.rhs if side == "rhs" else self.lhs
        if expr is None:
            raise ValueError(f"theorem {self.id} has no {side}")
        # xreplace substitutes all symbols at once: sequential subs can stall on Max/Piecewise
        # with positive symbols (SymPy compares half-substituted symbolic arguments)
        val = expr.xreplace(self._subs(values))
        with mpmath.workdps(dps):
            return mpmath.mpmathify(sp.N(val, dps))

    def holds_hypotheses(self, **values: Any) -> bool:
        """True when every hypothesis evaluates to True at the point (unknown counts as False)."""
        subs = self._subs(values)
        for h in self.hypotheses:
            r = h.subs(subs)
            if r is sp.true or r is True:
                continue
            if isinstance(r, sp.core.relational.Relational):
                r = r.func(sp.N(r.lhs, 30), sp.N(r.rhs, 30))
                if r is sp.true:
                    continue
            return False
        return True

    # ---- rendering -------------------------------------------------------
    def latex(self, *, computed: bool = False) -> str:
        """The statement as LaTeX: as the paper prints it where recorded (``printed``), else the encoded form
        (``computed=True`` always gives the encoded form)."""
        if self.printed and not computed:
            return self.printed
        if not self.formula_available:
            return r"\text{(formula unavailable: " + (self.unavailable_reason or "") + ")}"
        if self.kind is Kind.EXPANSION and self.expansion is not None:
            ex = self.expansion
            v, p0 = ex.var, ex.point
            o = sp.O(v ** ex.order if p0 == 0 else (v - p0) ** ex.order if p0 != sp.oo else v ** (-ex.order), (v, p0))
            return f"{sp.latex(self.lhs)} = {sp.latex(self.rhs)} + {sp.latex(o)}"
        st = self.statement()
        if st is None:
            return r"\text{" + (self.notes or self.title) + "}"
        return sp.latex(st)

    def _hypotheses_latex(self) -> str:
        """The hypotheses as LaTeX, trivially true ones (``True``) left out."""
        return ",\\; ".join(sp.latex(h) for h in self.hypotheses if h is not sp.true and h is not True)

    def _repr_latex_(self) -> str:
        """Notebook rendering: one math block, ``statement \\quad \\text{for } hypotheses``."""
        hyps = self._hypotheses_latex()
        s = self.latex()
        if hyps:
            s += f" \\quad \\text{{for }} {hyps}"
        return f"$\\displaystyle {s}$"

    def _repr_html_(self) -> str:
        """Notebook rendering as HTML: id, title, source, and the statement as MathML (latex2mathml)."""
        import html as _html

        from .rendering import math_html

        hyps = self._hypotheses_latex()
        body = math_html(self.latex() + (f" \\quad \\text{{for }} {hyps}" if hyps else ""))
        return (f"<div><b><code>{_html.escape(self.id)}</code></b>: {_html.escape(self.title)}"
                f" <small>{_html.escape(self.source.cite())}</small>{body}</div>")

    def summary(self) -> dict[str, Any]:
        """JSON-ready description (used by ``symdp list --json`` / ``show --json``)."""
        return {
            "id": self.id,
            "title": self.title,
            "kind": self.kind.value,
            "source": self.source.paper,
            "file": self.source.file,
            "version": self.source.version,
            "locator": self.source.locator,
            "counterpart": self.source.counterpart,
            "cites": self.source.cites,
            "status": self.status,
            "statement": sp.sstr(self.statement()) if self.statement() is not None else None,
            "latex": self.latex(),
            "hypotheses": [sp.sstr(h) for h in self.hypotheses],
            "quantity": self.quantity,
            "formula_available": self.formula_available,
            "unavailable_reason": self.unavailable_reason,
            "refs": list(self.refs),
            "premises": [str(p) for p in self.premises],
            "conclusion": str(self.conclusion) if self.conclusion else None,
            "oracle": self.oracle,
            "notes": self.notes,
            "hash": self.expr_hash(),
        }

    def with_evidence(self, evidence: Evidence) -> Theorem:
        return replace(self, evidence=evidence)


def theorem(
    id: str,
    title: str,
    kind: Kind | str,
    source: Source,
    *,
    lhs: Any = None,
    relation: str | None = None,
    rhs: Any = None,
    hypotheses: Any = (),
    domain: Any = (),
    **kwargs: Any,
) -> Theorem:
    """Build a :class:`Theorem` with sympification and sensible defaults.

    ``relation`` defaults to ``"<="`` for bounds and comparisons, ``"~"`` for
    expansions and ``"=="`` otherwise.  ``domain`` may be a dict
    ``{symbol: (lo, hi)}``: the box the numerical checks sample from (the
    hypotheses further restrict it).
    """
    kind = Kind(kind)
    if relation is None:
        relation = {"bound": "<=", "comparison": "<=", "expansion": "~"}.get(kind.value, "==")
    return Theorem(
        id=id,
        title=title,
        kind=kind,
        source=source,
        lhs=sp.sympify(lhs, strict=True) if lhs is not None else None,  # strict: text is refused, never parsed
        relation=relation,
        rhs=sp.sympify(rhs, strict=True) if rhs is not None else None,
        hypotheses=tuple(sp.sympify(h, strict=True) for h in hypotheses),
        domain=_freeze_domain(domain),
        **kwargs,
    )
