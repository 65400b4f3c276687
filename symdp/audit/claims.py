r"""User claim files (TOML): parsed, validated and turned into :class:`~symdp.theorem.Theorem` data.

A claim file is data from a possibly untrusted source: it is read with
``tomllib`` and every expression goes through the restricted parser in
:mod:`symdp.audit.parser`.  Nothing in it is executed.  Errors name the line
and the reason; a file with any error yields no claims at all.

Format (see ``examples/claims/*.toml``)::

    title = "Quadratic KL bounds"

    [symbols]
    epsilon = { range = [1e-3, 5.0] }          # the box the audit searches
    T = { range = [1, 1000], integer = true }

    [[claim]]
    id = "kl.quadratic"
    kind = "bound"            # bound | tighter | factor | expansion | identity
    title = "KL of eps-DP is at most eps^2/2"
    quantity = "kl_eps_dp"    # an oracle of symdp.verify.oracles ...
    # library = "bu2020.delta_of_eps_gdp"   # ... or a library entry's rhs as the exact quantity
    claimed = "epsilon**2/2"
    direction = "upper"       # upper: claimed >= quantity; lower: claimed <= quantity
    hypotheses = ["epsilon <= 5"]

A symbol declared under ``[symbols]`` that a claim does not use is left out of that claim: it does not
bind an oracle parameter of the same name unless the claim lists it under ``parameters = ["delta"]``.

Other kinds take: ``tighter``: ``a``, ``b`` (claims a <= b); ``factor``:
``numerator``, ``denominator``, ``factor``, ``mode`` (exact | at_least |
at_most | asymptotic, with ``var`` and ``at`` for asymptotic); ``expansion``:
``expr``, ``series``, ``var``, ``at``, ``order``; ``identity``: ``lhs``, ``rhs``.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sympy as sp

from .._io import read_text_limited
from ..errors import ClaimFileError
from ..symbols import range_symbol
from ..theorem import Expansion, Kind, Source, Theorem, theorem
from .parser import parse_expression
from .parser import parse_relation as _parse_relation

MAX_FILE_BYTES = 1_000_000
MAX_CLAIMS = 500
MAX_SYMBOLS = 16
_ID_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]{0,80}$")
_SYMBOL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,30}$")

KIND_FIELDS: dict[str, set[str]] = {
    "bound": {"quantity", "library", "claimed", "direction"},
    "tighter": {"a", "b"},
    "factor": {"numerator", "denominator", "factor", "mode", "var", "at"},
    "expansion": {"expr", "series", "var", "at", "order"},
    "identity": {"lhs", "rhs"},
}
COMMON_FIELDS = {"id", "kind", "title", "hypotheses", "notes", "parameters"}


@dataclass(frozen=True)
class UserClaim:
    """A claim from a file: the Theorem the verifier checks plus audit-only extras."""

    theorem: Theorem
    kind: str  # the claim-file kind (bound, tighter, factor, expansion, identity)
    line: int
    factor_mode: str | None = None  # for factor claims
    ratio: sp.Expr | None = None
    factor: sp.Expr | None = None
    var: sp.Symbol | None = None
    point: sp.Expr | None = None


@dataclass(frozen=True)
class ClaimFile:
    path: str
    title: str
    symbols: dict[str, sp.Symbol]
    claims: tuple[UserClaim, ...]


def _claim_lines(text: str) -> list[int]:
    return [i + 1 for i, line in enumerate(text.splitlines()) if line.strip().startswith("[[claim]]")]


def _key_line(text: str, start: int, key: str) -> int:
    lines = text.splitlines()
    for i in range(start - 1, len(lines)):
        if i > start - 1 and lines[i].strip().startswith("["):
            break
        if re.match(rf"\s*{re.escape(key)}\s*=", lines[i]):
            return i + 1
    return start


def parse_relation(text: str, symbols: dict[str, sp.Symbol], *, where: str) -> sp.Basic:
    """A single comparison ``lhs OP rhs`` with OP in < <= > >= ==, both sides restricted expressions
    (the one implementation: :func:`symdp.audit.parser.parse_relation`)."""
    return _parse_relation(text, symbols, where=where)


def _symbols(raw: Any, text: str) -> tuple[dict[str, sp.Symbol], tuple[tuple[sp.Symbol, sp.Expr, sp.Expr], ...]]:
    if not isinstance(raw, dict) or not raw:
        raise ClaimFileError("[symbols]: declare at least one symbol, e.g. epsilon = { range = [0.001, 5] }")
    if len(raw) > MAX_SYMBOLS:
        raise ClaimFileError(f"[symbols]: at most {MAX_SYMBOLS} symbols, got {len(raw)}")
    syms: dict[str, sp.Symbol] = {}
    box = []
    for name, spec in raw.items():
        line = _key_line(text, 1, name)
        where = f"line {line}: symbol {name!r}"
        if not _SYMBOL_RE.match(name):
            raise ClaimFileError(f"{where}: a symbol name is a letter followed by letters, digits or _")
        if not isinstance(spec, dict) or set(spec) - {"range", "integer"}:
            raise ClaimFileError(f"{where}: expected {{ range = [lo, hi], integer = false }}")
        rng = spec.get("range")
        if (
            not isinstance(rng, list)
            or len(rng) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in rng)
        ):
            raise ClaimFileError(f"{where}: range must be [lo, hi] with two numbers, got {rng!r}")
        lo, hi = float(rng[0]), float(rng[1])
        if not (lo < hi) or lo != lo or hi != hi or abs(lo) == float("inf") or abs(hi) == float("inf"):
            raise ClaimFileError(f"{where}: range must satisfy finite lo < hi, got [{lo}, {hi}]")
        integer = spec.get("integer", False)
        if not isinstance(integer, bool):
            raise ClaimFileError(f"{where}: integer must be true or false")
        s = range_symbol(name, lo, integer)
        syms[name] = s
        box.append((s, sp.nsimplify(lo, rational=True), sp.nsimplify(hi, rational=True)))
    return syms, tuple(box)


def _expr(claim: dict[str, Any], key: str, syms: dict[str, sp.Symbol], text: str, start: int) -> sp.Expr:
    if key not in claim:
        raise ClaimFileError(f"line {start}: claim is missing required field {key!r}")
    return parse_expression(claim[key], syms, where=f"line {_key_line(text, start, key)}: field {key!r}")


def _library_quantity(lib_id: str, syms: dict[str, sp.Symbol], where: str) -> sp.Expr:
    from ..errors import UnknownTheoremError
    from ..library import get

    try:
        th = get(lib_id, with_evidence=False)
    except UnknownTheoremError as exc:
        raise ClaimFileError(f"{where}: {exc}") from None
    if th.rhs is None:
        raise ClaimFileError(f"{where}: library entry {lib_id!r} has no formula")
    sub = {}
    for s in th.rhs.free_symbols:
        if s.name not in syms:
            raise ClaimFileError(f"{where}: library entry {lib_id!r} needs symbol {s.name!r}; declare it under [symbols]")
        sub[s] = syms[s.name]
    return th.rhs.xreplace(sub)


def load_claims(path: str | Path) -> ClaimFile:
    """Parse and validate a claim file; raise ClaimFileError (line and reason) on any problem."""
    text = read_text_limited(path, limit=MAX_FILE_BYTES, what="claim file", error=ClaimFileError)
    return parse_claims(text, path=str(Path(path)))


def parse_claims(text: str, *, path: str = "<claims>") -> ClaimFile:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ClaimFileError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ClaimFileError(f"{path}: invalid TOML: nested too deeply") from None
    unknown = set(data) - {"title", "symbols", "claim"}
    if unknown:
        raise ClaimFileError(f"{path}: unknown top-level keys {sorted(unknown)}; allowed: title, symbols, claim")
    title = data.get("title", Path(path).stem)
    if not isinstance(title, str):
        raise ClaimFileError(f"{path}: title must be a string")
    syms, box = _symbols(data.get("symbols"), text)
    raw_claims = data.get("claim")
    if not isinstance(raw_claims, list) or not raw_claims:
        raise ClaimFileError(f"{path}: no [[claim]] tables found")
    if len(raw_claims) > MAX_CLAIMS:
        raise ClaimFileError(f"{path}: at most {MAX_CLAIMS} claims, got {len(raw_claims)}")
    starts = _claim_lines(text)
    out: list[UserClaim] = []
    seen: set[str] = set()
    for i, c in enumerate(raw_claims):
        start = starts[i] if i < len(starts) else 1
        out.append(_one_claim(c, syms, box, text, start, path, seen))
    return ClaimFile(path=path, title=title, symbols=syms, claims=tuple(out))


def _one_claim(c: Any, syms, box, text: str, start: int, path: str, seen: set[str]) -> UserClaim:
    where = f"line {start}"
    if not isinstance(c, dict):
        raise ClaimFileError(f"{where}: a claim must be a table")
    cid = c.get("id")
    if not isinstance(cid, str) or not _ID_RE.match(cid):
        raise ClaimFileError(f"{where}: claim id must match {_ID_RE.pattern}, got {cid!r}")
    if cid in seen:
        raise ClaimFileError(f"{where}: duplicate claim id {cid!r}")
    seen.add(cid)
    kind = c.get("kind")
    if kind not in KIND_FIELDS:
        raise ClaimFileError(f"{where}: claim {cid!r} kind={kind!r}; allowed: {', '.join(KIND_FIELDS)}")
    extra = set(c) - COMMON_FIELDS - KIND_FIELDS[kind]
    if extra:
        raise ClaimFileError(f"{where}: claim {cid!r} has unknown fields {sorted(extra)} for kind {kind!r}")
    title = c.get("title", cid)
    notes = c.get("notes", "")
    if not isinstance(title, str) or not isinstance(notes, str):
        raise ClaimFileError(f"{where}: title and notes must be strings")
    hyps_raw = c.get("hypotheses", [])
    if not isinstance(hyps_raw, list):
        raise ClaimFileError(f"line {_key_line(text, start, 'hypotheses')}: hypotheses must be a list of strings")
    hyp_line = _key_line(text, start, "hypotheses")
    hyps = [parse_relation(h, syms, where=f"line {hyp_line}: hypothesis") for h in hyps_raw]
    params_raw = c.get("parameters", [])
    if not isinstance(params_raw, list) or not all(isinstance(x, str) and x in syms for x in params_raw):
        raise ClaimFileError(f"line {_key_line(text, start, 'parameters')}: parameters must be a list of declared symbol "
                             f"names (symbols that bind the oracle's parameters although the claim does not use them); "
                             f"declared: {', '.join(sorted(syms))}; got {params_raw!r}")
    source = Source(paper="user", file=path, version="claim file", locator=f"line {start}")
    common = dict(hypotheses=hyps, domain=box, notes=notes, tags=("user-claim",))
    uc = _claim_body(c, kind, cid, title, source, common, syms, text, start, where)
    return _bind_only_used(uc, tuple(hyps), box, {syms[x] for x in params_raw})


def _bind_only_used(uc: UserClaim, hyps: tuple[sp.Basic, ...], box: tuple[tuple[sp.Symbol, sp.Expr, sp.Expr], ...],
                    params: set[sp.Symbol]) -> UserClaim:
    """Keep in the claim's domain (and as box hypotheses) only the symbols the claim uses, those its hypotheses
    use, and those it names under ``parameters``: a declared symbol the claim does not use must not bind an
    oracle parameter by its name (issue 23)."""
    from dataclasses import replace

    th = uc.theorem
    used: set[sp.Symbol] = set(params)
    for e in (th.lhs, th.rhs, uc.ratio, uc.factor):
        if e is not None:
            used |= set(sp.sympify(e).free_symbols)
    for h in hyps:
        used |= set(h.free_symbols)
    dom = tuple((s, lo, hi) for s, lo, hi in box if s in used)
    bounds: list[sp.Basic] = []
    for s, lo, hi in dom:  # box bounds as hypotheses too, so every consumer sees the domain
        bounds.extend([s >= lo, s <= hi])
    return replace(uc, theorem=replace(th, domain=dom, hypotheses=(*hyps, *bounds)))


def _claim_body(c: dict[str, Any], kind: str, cid: str, title: str, source: Source, common: dict[str, Any],
                syms: dict[str, sp.Symbol], text: str, start: int, where: str) -> UserClaim:
    if kind == "bound":
        claimed = _expr(c, "claimed", syms, text, start)
        direction = c.get("direction", "upper")
        if direction not in ("upper", "lower"):
            raise ClaimFileError(f"line {_key_line(text, start, 'direction')}: direction must be 'upper' or 'lower'")
        quantity, lib = c.get("quantity"), c.get("library")
        if (quantity is None) == (lib is None):
            raise ClaimFileError(f"{where}: a bound claim names exactly one of 'quantity' (an oracle) or 'library'")
        if quantity is not None:
            from ..verify import ORACLES  # the oracle registry of the verifier (public API)

            names = sorted(ORACLES)
            if quantity not in names:
                raise ClaimFileError(
                    f"line {_key_line(text, start, 'quantity')}: unknown quantity {quantity!r}; oracles: {', '.join(names)}"
                )
            # a profile oracle's value is delta(eps) at the claim's eps: the verifier maps an entry whose lhs is a
            # delta onto it (see `symdp oracles`); a value oracle's quantity is a plain Q
            shape = getattr(ORACLES.get(quantity), "shape", "value")
            q = sp.Symbol("delta_true" if shape == "profile" else "Q")
            if q.name in syms:
                raise ClaimFileError(f"line {_key_line(text, start, 'quantity')}: symbol name {q.name!r} is reserved")
            th = theorem(cid, title, Kind.BOUND, source, lhs=q, relation="<=" if direction == "upper" else ">=",
                         rhs=claimed, oracle=quantity, quantity=quantity, **common)
        else:
            if not isinstance(lib, str):
                raise ClaimFileError(f"line {_key_line(text, start, 'library')}: library must be an entry id (a string)")
            ref = _library_quantity(lib, syms, f"line {_key_line(text, start, 'library')}")
            th = theorem(cid, title, Kind.COMPARISON, source, lhs=ref, relation="<=" if direction == "upper" else ">=",
                         rhs=claimed, refs=(lib,), quantity=f"rhs of {lib}", **common)
        return UserClaim(th, kind, start)
    if kind == "tighter":
        a, b = _expr(c, "a", syms, text, start), _expr(c, "b", syms, text, start)
        return UserClaim(theorem(cid, title, Kind.COMPARISON, source, lhs=a, relation="<=", rhs=b, **common), kind, start)
    if kind == "identity":
        lhs, rhs = _expr(c, "lhs", syms, text, start), _expr(c, "rhs", syms, text, start)
        return UserClaim(theorem(cid, title, Kind.IDENTITY, source, lhs=lhs, rhs=rhs, **common), kind, start)
    if kind == "factor":
        num, den = _expr(c, "numerator", syms, text, start), _expr(c, "denominator", syms, text, start)
        fac = _expr(c, "factor", syms, text, start)
        mode = c.get("mode", "exact")
        rel = {"exact": "==", "at_least": ">=", "at_most": "<=", "asymptotic": "~"}.get(mode)
        if rel is None:
            raise ClaimFileError(f"line {_key_line(text, start, 'mode')}: mode must be exact, at_least, at_most or asymptotic")
        ratio = num / den
        if mode == "asymptotic":
            var, point = _var_point(c, syms, text, start)
            th = theorem(cid, title, Kind.EXPANSION, source, lhs=ratio, rhs=fac, expansion=Expansion(var, point, 0),
                         **common)
            return UserClaim(th, kind, start, factor_mode=mode, ratio=ratio, factor=fac, var=var, point=point)
        th = theorem(cid, title, Kind.COMPARISON, source, lhs=ratio, relation=rel, rhs=fac, **common)
        return UserClaim(th, kind, start, factor_mode=mode, ratio=ratio, factor=fac)
    # expansion
    expr, ser = _expr(c, "expr", syms, text, start), _expr(c, "series", syms, text, start)
    var, point = _var_point(c, syms, text, start)
    order = c.get("order")
    if not isinstance(order, int) or isinstance(order, bool) or not 0 <= order <= 20:
        raise ClaimFileError(f"line {_key_line(text, start, 'order')}: order must be an integer in [0, 20], got {order!r}")
    th = theorem(cid, title, Kind.EXPANSION, source, lhs=expr, rhs=ser, expansion=Expansion(var, point, order), **common)
    return UserClaim(th, kind, start, var=var, point=point)


def _var_point(c: dict[str, Any], syms: dict[str, sp.Symbol], text: str, start: int) -> tuple[sp.Symbol, sp.Expr]:
    var = c.get("var")
    if var not in syms:
        raise ClaimFileError(f"line {_key_line(text, start, 'var')}: var must be a declared symbol, got {var!r}")
    at = c.get("at", 0)
    if isinstance(at, str):
        point = parse_expression(at, {}, where=f"line {_key_line(text, start, 'at')}: field 'at'")
    elif isinstance(at, (int, float)) and not isinstance(at, bool):
        point = sp.nsimplify(at, rational=True)
    else:
        raise ClaimFileError(f"line {_key_line(text, start, 'at')}: at must be a number or 'oo'")
    return syms[var], point


__all__ = ["UserClaim", "ClaimFile", "load_claims", "parse_claims", "parse_relation"]
