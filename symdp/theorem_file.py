r"""User theorem files (TOML): parsed with the claim files' safe grammar, never executed.

A theorem file declares its symbols and one or more theorems::

    title = "My composition bound"

    [symbols]
    epsilon = { range = [0.001, 1.0] }
    delta = { range = [1e-12, 0.1] }
    T = { range = [1, 100000], integer = true }

    [[theorem]]
    id = "user.naive_composition"
    title = "T-fold composition, basic"
    kind = "bound"                  # bound | definition | identity | comparison
    lhs = "epsilon_total"           # a new quantity name, or an expression
    relation = "<="
    rhs = "T*epsilon"
    hypotheses = ["epsilon <= 1"]
    paper = "my notes"
    locator = "Thm 1"

    [theorem.premise]               # optional: typed premise / conclusion, so the theorem chains
    property = "ApproxDP"
    eps = "epsilon"
    delta = "delta"

    [theorem.conclusion]
    property = "ApproxDP"
    eps = "T*epsilon"
    delta = "T*delta"

Every expression goes through :func:`symdp.parsing.parse_expression` (a
whitelist over :mod:`ast`; no ``eval``, ``exec`` or ``sympify``).  A symbol
whose name and range match one of :mod:`symdp.symbols` (``epsilon``,
``delta``, ``T``, ``sigma``, ``q``, ...) *is* that canonical symbol, so user
theorems chain with the library's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import sympy as sp

from . import properties as P
from . import symbols as canon
from ._io import read_text_limited
from .errors import ClaimFileError
from .theorem import Kind, Source, Theorem

__all__ = ["load", "loads", "ParsedTheorem", "MAX_THEOREMS", "MAX_BYTES"]

MAX_THEOREMS = 200
MAX_SYMBOLS = 40
MAX_BYTES = 1_000_000
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_KINDS = ("bound", "definition", "identity", "comparison")
_RELS = ("<=", ">=", "==", "<", ">")
_THEOREM_KEYS = {"id", "title", "kind", "lhs", "relation", "rhs", "hypotheses", "paper", "locator", "version",
                 "notes", "premise", "conclusion"}
_CANON: dict[str, sp.Symbol] = {s.name: s for s in (getattr(canon, n) for n in canon.__all__)}


class ParsedTheorem:
    """A theorem read from a file with its optional typed premise and conclusion."""

    def __init__(self, theorem: Theorem, premises: tuple[P.Prop, ...], conclusion: P.Prop | None) -> None:
        self.theorem = theorem
        self.premises = premises
        self.conclusion = conclusion


def _symbols(raw: Any) -> tuple[dict[str, sp.Symbol], dict[sp.Symbol, tuple[sp.Expr, sp.Expr]]]:
    if not isinstance(raw, dict) or not raw:
        raise ClaimFileError("[symbols]: declare at least one symbol, e.g. epsilon = { range = [0.001, 5] }")
    if len(raw) > MAX_SYMBOLS:
        raise ClaimFileError(f"[symbols]: {len(raw)} symbols; allowed: at most {MAX_SYMBOLS}")
    syms: dict[str, sp.Symbol] = {}
    box: dict[sp.Symbol, tuple[sp.Expr, sp.Expr]] = {}
    for name, spec in raw.items():
        where = f"[symbols] {name!r}"
        if not _NAME.match(name) or len(name) > 40:
            raise ClaimFileError(f"{where}: a symbol name is a letter followed by letters, digits or _")
        if not isinstance(spec, dict) or set(spec) - {"range", "integer"}:
            raise ClaimFileError(f"{where}: expected {{ range = [lo, hi], integer = false }}")
        rng = spec.get("range")
        if not isinstance(rng, list) or len(rng) != 2 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in rng):
            raise ClaimFileError(f"{where}: range={rng!r}; allowed: [lo, hi] with two finite numbers, lo < hi")
        lo, hi = float(rng[0]), float(rng[1])
        if not (lo < hi) or abs(lo) == float("inf") or abs(hi) == float("inf"):
            raise ClaimFileError(f"{where}: range=[{lo}, {hi}]; allowed: finite lo < hi")
        integer = spec.get("integer", False)
        if not isinstance(integer, bool):
            raise ClaimFileError(f"{where}: integer={integer!r}; allowed: true or false")
        c = _CANON.get(name)
        if c is not None and lo > 0 and bool(c.is_integer) == integer:
            s = c
        else:
            s = canon.range_symbol(name, lo, integer)
        syms[name] = s
        box[s] = (sp.nsimplify(lo, rational=True), sp.nsimplify(hi, rational=True))
    return syms, box


def _text(th: dict[str, Any], key: str, where: str, *, required: bool = True, default: str = "") -> str:
    v = th.get(key)
    if v is None:
        if required:
            raise ClaimFileError(f"{where}: missing required field {key!r}")
        return default
    if not isinstance(v, str) or len(v) > 2000:
        raise ClaimFileError(f"{where}: field {key!r} must be a string of at most 2000 characters")
    return v


def _prop(raw: Any, syms: dict[str, sp.Symbol], where: str) -> P.Prop:
    from .parsing import parse_expression

    if not isinstance(raw, dict):
        raise ClaimFileError(f"{where}: expected a table with property = \"ApproxDP\" and its parameters")
    kind = raw.get("property")
    allowed = sorted(k for k in P.PROPERTY_TYPES if k != "Mechanism")
    if kind not in allowed:
        raise ClaimFileError(f"{where}: property={kind!r}; allowed: {', '.join(allowed)}")
    cls = P.PROPERTY_TYPES[kind]
    names = set(cls.param_names)
    extra = set(raw) - names - {"property", "subject"}
    if extra:
        raise ClaimFileError(f"{where}: unknown field(s) {sorted(extra)}; allowed: {sorted(names | {'subject'})}")
    args: dict[str, Any] = {}
    for n in cls.param_names:
        if n not in raw:
            raise ClaimFileError(f"{where}: {kind} needs parameter {n!r}")
        args[n] = parse_expression(raw[n], syms, where=f"{where}: {n}")
    subject = raw.get("subject", "A")
    if not isinstance(subject, str) or len(subject) > 80:
        raise ClaimFileError(f"{where}: subject must be a short string")
    return cls(**args, subject=subject)  # type: ignore[call-arg]


def loads(text: str, *, where: str = "theorem file") -> list[ParsedTheorem]:
    """Parse theorem-file text (see the module docstring)."""
    import tomllib

    from .parsing import parse_expression, parse_relation

    if len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise ClaimFileError(f"{where}: larger than {MAX_BYTES} bytes")
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ClaimFileError(f"{where}: not valid TOML ({exc})") from None
    unknown = set(data) - {"title", "symbols", "theorem"}
    if unknown:
        raise ClaimFileError(f"{where}: unknown top-level keys {sorted(unknown)}; allowed: title, symbols, theorem")
    syms, box = _symbols(data.get("symbols"))
    raw = data.get("theorem")
    if not isinstance(raw, list) or not raw:
        raise ClaimFileError(f"{where}: no [[theorem]] tables; allowed: 1..{MAX_THEOREMS}")
    if len(raw) > MAX_THEOREMS:
        raise ClaimFileError(f"{where}: {len(raw)} theorems; allowed: at most {MAX_THEOREMS}")
    out: list[ParsedTheorem] = []
    seen: set[str] = set()
    for i, th in enumerate(raw, 1):
        w = f"{where}: theorem #{i}"
        if not isinstance(th, dict):
            raise ClaimFileError(f"{w}: expected a table")
        extra = set(th) - _THEOREM_KEYS
        if extra:
            raise ClaimFileError(f"{w}: unknown field(s) {sorted(extra)}; allowed: {sorted(_THEOREM_KEYS)}")
        tid = _text(th, "id", w)
        if not _ID.match(tid) or len(tid) > 120:
            raise ClaimFileError(f"{w}: id={tid!r}; allowed: dotted identifier such as 'user.my_bound'")
        if tid in seen:
            raise ClaimFileError(f"{w}: duplicate id {tid!r}")
        seen.add(tid)
        w = f"{where}: theorem {tid!r}"
        kind = _text(th, "kind", w, required=False, default="bound")
        if kind not in _KINDS:
            raise ClaimFileError(f"{w}: kind={kind!r}; allowed: {', '.join(_KINDS)}")
        relation = _text(th, "relation", w, required=False, default="==" if kind in ("definition", "identity") else "<=")
        if relation not in _RELS:
            raise ClaimFileError(f"{w}: relation={relation!r}; allowed: {', '.join(_RELS)}")
        lhs_text = _text(th, "lhs", w)
        if _NAME.match(lhs_text.strip()) and lhs_text.strip() not in syms:
            lhs: sp.Expr = sp.Symbol(lhs_text.strip(), real=True)
        else:
            lhs = parse_expression(lhs_text, syms, where=f"{w}: lhs")
        rhs = parse_expression(_text(th, "rhs", w), syms, where=f"{w}: rhs")
        hyps_raw = th.get("hypotheses", [])
        if not isinstance(hyps_raw, list) or len(hyps_raw) > 40:
            raise ClaimFileError(f"{w}: hypotheses must be a list of at most 40 comparisons")
        hyps = tuple(parse_relation(h, syms, where=f"{w}: hypothesis {j}") for j, h in enumerate(hyps_raw, 1))
        used = set(rhs.free_symbols) | (set(lhs.free_symbols) if not isinstance(lhs, sp.Symbol) or lhs in box else set())
        domain = tuple(sorted(((s, *box[s]) for s in used if s in box), key=lambda t: t[0].name))
        premise = (_prop(th["premise"], syms, f"{w}: premise"),) if "premise" in th else ()
        conclusion = _prop(th["conclusion"], syms, f"{w}: conclusion") if "conclusion" in th else None
        src = Source(paper=_text(th, "paper", w, required=False, default="user"), file="",
                     version=_text(th, "version", w, required=False, default="user theorem"),
                     locator=_text(th, "locator", w, required=False, default=tid))
        theorem = Theorem(id=tid, title=_text(th, "title", w, required=False, default=tid), kind=Kind(kind),
                          source=src, lhs=lhs, relation=relation, rhs=rhs, hypotheses=hyps, domain=domain,
                          notes=_text(th, "notes", w, required=False), tags=("user",))
        out.append(ParsedTheorem(theorem, premise, conclusion))
    return out


def load(path: str | Path) -> list[ParsedTheorem]:
    """Read and parse a theorem file."""
    text = read_text_limited(path, limit=MAX_BYTES, what="theorem file", error=ClaimFileError)
    return loads(text, where=f"theorem file {Path(path).name!r}")
