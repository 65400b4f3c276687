r"""Assembly of audit findings (each an :class:`~.finding.AuditResult`, see :mod:`.finding`): what a
reader needs from the theorem behind it (:func:`enrich`: the statement's LaTeX, the compared quantity in
words, the command that reproduces it), the JSON payload and its schema check, and the grouping and
one-line summary every report shares.  Rendering (terminal, Markdown, HTML) is :mod:`.render`;
:mod:`.report` re-exports both.

>>> r = AuditResult(id="x.bound", kind="valid bound", title="t", source="[bu2020, Eq. 1; v]",
...                 statement="y <= 1", verdict="HOLDS", strength="proved", rung="symbolic")
>>> _how(r)
'proved by symbolic'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._io import atomic_write_text
from .citations import citation
from .finding import OPTIONAL_FIELDS as OPTIONAL_FIELDS
from .finding import VERDICT_LEGEND as VERDICT_LEGEND
from .finding import VERDICTS as VERDICTS
from .finding import AuditResult as AuditResult
from .finding import _cx_text, _short
from .finding import _how as _how
from .finding import clean_text as clean_text
from .finding import optional as optional
from .finding import source_line as source_line
from .finding import truth_label as truth_label
from .finding import value_labels as value_labels

if TYPE_CHECKING:  # pragma: no cover
    from ..theorem import Theorem


#: the JSON report's schema (``symdp/audit/report_schema.json``); bump on any incompatible change
SCHEMA_ID = "symdp.audit-report/2"
SCHEMA_FILE = Path(__file__).with_name("report_schema.json")

def counts(results: Iterable[AuditResult]) -> dict[str, int]:
    c = dict.fromkeys(VERDICTS, 0)
    for r in results:
        c[r.verdict] += 1
    return c


# ---------------------------------------------------------------------------- enrichment
def _eval_at(expr: Any, cx: Mapping[str, Any]) -> float | None:
    """A SymPy expression at the counterexample (names as in ``cx``); None where it cannot be evaluated."""
    try:
        import sympy as sp

        subs = {s: sp.Rational(str(cx[s.name])) if re.fullmatch(r"-?[0-9.eE+-]+", str(cx[s.name])) else None
                for s in expr.free_symbols if s.name in cx}
        if any(v is None for v in subs.values()) or len(subs) != len(expr.free_symbols):
            return None
        v = float(sp.N(expr.xreplace(subs), 20))  # xreplace: the same value as subs, without its rewriting (~3x faster)
    except Exception:  # noqa: BLE001 - a value for the prose only
        return None
    return v


def _eps_prime_at(th: Theorem, cx: Mapping[str, Any]) -> float | None:
    for k in ("epsilonprime", "at"):
        if k in cx:
            try:
                return float(cx[k])
            except (TypeError, ValueError):
                return None
    if th.lhs is not None and getattr(th.lhs, "name", "") == "epsilonprime" and th.rhs is not None:
        return _eval_at(th.rhs, cx)
    if th.conclusion is not None and th.conclusion.params:
        v = _eval_at(th.conclusion.params[0], cx)
        if v is not None:
            return v
    for h in th.hypotheses:  # eps' fixed by an Eq hypothesis (Cor 1, Cor 2: eps' = Theorem 4's eps'), not in cx
        lhs, rhs = getattr(h, "lhs", None), getattr(h, "rhs", None)
        if getattr(h, "rel_op", None) == "==" and getattr(lhs, "name", "") == "epsilonprime" and rhs is not None:
            # a slack symbol deltatilde_* is sampled as delta~ (as the oracle composition_at_eq does)
            ren = {s: s.func("deltatilde", **s.assumptions0) for s in rhs.free_symbols
                   if s.name.startswith("deltatilde_")}
            return _eval_at(rhs.xreplace(ren), cx)
    return None


def _oracle(name: str | None) -> Any:
    """The registered oracle of this name (public registry of :mod:`symdp.verify`), or None."""
    if not name:
        return None
    try:
        from .. import verify as _v  # noqa: F401 - importing the package registers every oracle

        try:
            from ..verify.registry import ORACLES
        except ImportError:  # before the registry split
            from ..verify.oracles import ORACLES
        return ORACLES.get(name)
    except Exception:  # noqa: BLE001 - prose only
        return None


def _oracle_shape(name: str | None) -> str | None:
    o = _oracle(name)
    return o.shape if o is not None else None


#: the first rigorous bracket a mechanism-level detail states ('delta(eps') in [lo, hi]', 'lies in [lo, hi]')
_BRACKET = re.compile(r"in \[([-+0-9.eE]+), ([-+0-9.eE]+)\]")


def describe(r: AuditResult, th: Theorem | None) -> tuple[str | None, str | None]:
    """(quantity, compared sentence) for a result, e.g.
    ``("delta' of the composition", "delta' at eps' = 2.03: claimed 9.958e-4, optimal composition 9.995e-4")``."""
    cx = r.counterexample or {}
    where = f" at {_cx_text(cx)}" if cx else " at the stated values"
    quantity = (th.quantity if th is not None and th.quantity else None)
    if th is not None and th.oracle and quantity in (None, th.oracle):
        o = _oracle(th.oracle)  # a user claim names its oracle as the quantity: say what it computes
        quantity = o.description.split(";")[0] if o is not None else quantity
    if r.claimed is None or r.actual is None:
        return quantity, None
    c, a = _short(r.claimed), _short(r.actual)
    oracle = th.oracle if th is not None else None
    if th is not None and oracle and _oracle_shape(oracle) == "profile":
        o = _oracle(oracle)
        at_names = [n for n in (o.aliases.get("at", ()) if o is not None else ()) if n in cx]
        if "user-claim" in th.tags and at_names:  # the profile is read at the claim's own eps
            q = "delta(eps)" + (f" ({quantity})" if quantity else "")
            return q, f"delta({at_names[0]}){where}: claimed {c}, {truth_label(oracle)} {a}"
        ep = _eps_prime_at(th, cx)
        at = f" at eps' = {ep:.4g}" if ep is not None else ""
        q = "delta'" + (f" ({quantity})" if quantity else "")
        return q, f"delta'{at}{where}: claimed {c}, {truth_label(oracle)} {a}"
    if r.kind in ("valid bound", "bound"):
        q = quantity or (str(th.lhs) if th is not None and th.lhs is not None else "the bounded quantity")
        return q, f"{q}{where}: claimed bound {c}, {truth_label(oracle)} {a}"
    if r.kind in ("expansion", "identity", "equivalence"):
        return quantity, f"{quantity or 'value'}{where}: claimed {c}, actual {a}"
    if r.kind in ("algorithm", "experiment"):  # a run of an algorithm: the claim's number vs the mechanism's own
        # FAILS: ``actual`` is the real mechanism's rigorous lower bound (above the claim); otherwise its upper bound
        side = "at least" if r.verdict == "FAILS" else "at most"
        m = _BRACKET.search(r.detail or "")
        br = (f" (rigorous bracket [{_short(m.group(1))}, {_short(m.group(2))}]; method in the finding's detail)" if m
              else " (bracket and method in the finding's detail)")
        return quantity, (f"{quantity or 'the claimed guarantee'}{where}: claimed {c}, the real mechanism's value is "
                          f"{side} {a}{br}")
    # comparisons: the claim says 'actual' side <= 'claimed' side
    try:
        fc, fa = float(r.claimed), float(r.actual)
        rel = "equal to" if fa == fc else ("larger than" if fa > fc else "smaller than")
    except (TypeError, ValueError):
        rel = "compared with"
    q = quantity or "the two sides"
    symdp_check = th is not None and (th.id.startswith("he2021long.consistency")
                                      or any(t in th.tags for t in ("symdp-check", "consistency")))
    who = ("the claim says" if th is None or "user-claim" in th.tags
           else "symdp's check says" if symdp_check else "the paper claims")
    return q, (f"{q}{where}: the side {who} is smaller is {a}, {rel} the side {who} is larger, {c}")


def plot_labels(th: Theorem) -> tuple[str, str, str]:
    """(y-axis label, claim-side legend, other-side legend) of a claim's plot.

    A profile oracle compares deltas (the claim's delta' against the mechanism's delta at the claimed
    eps'), whatever quantity the entry bounds, so the axis says delta'."""
    shape = _oracle_shape(th.oracle)
    if th.oracle and shape == "profile":
        if "user-claim" in th.tags:  # the profile read at the claim's own epsilon
            return "δ(ε) (probability)", "claimed bound on δ(ε)", truth_label(th.oracle)
        return "δ′ at the claimed ε′ (probability)", "claimed δ′ (paper's formula)", truth_label(th.oracle)
    if th.oracle:
        q = th.quantity if th.quantity and th.quantity != th.oracle else (
            (_oracle(th.oracle).description.split(";")[0]) if _oracle(th.oracle) is not None else "value")
        return q, "claimed bound (paper's formula)" if "user-claim" not in th.tags else "claimed bound", truth_label(th.oracle)
    q = th.quantity or "value of each side"
    return q, "side claimed larger (rhs)", "side claimed smaller (lhs)"


def reproduce_command(r: AuditResult, claim_file: str | None = None, options: str | None = None) -> str:
    """The shell command that re-runs this one audit: ``options`` are the run's own (``symdp audit`` passes them:
    ``--out``, ``--deep``/``--quick``, ``--seed``, ...); without them, the default report directory is named."""
    import shlex

    opts = "--out symdp-report" if options is None else options
    head = f"symdp audit --claims {shlex.quote(claim_file)}" if claim_file else f"symdp audit {shlex.quote(r.id)}"
    return f"{head} {opts}".rstrip()


def _lookup_theorem(rid: str) -> Theorem | None:
    """The theorem behind a result that was not passed in: a library entry, or a second reading of one."""
    try:
        if rid.startswith("reading."):
            from .readings import READINGS

            return next((rd.theorem for rd in READINGS if rd.theorem.id == rid), None)
        if rid.startswith(("algo.", "experiment.", "user.")):
            return None  # mechanism-level results and experiments state prose, not a formula
        from ..library import get

        return get(rid, with_evidence=False)
    except Exception:  # noqa: BLE001 - enrichment is best effort: the plain statement stays
        return None


def statement_latex(th: Theorem) -> str | None:
    """``th.latex()``, or None where it cannot be printed (the plain statement stays).  The audit's workers fill a
    library entry's result with it (:func:`symdp.audit.engine.audit_theorem`, ``ledger_result``): it depends on the
    statement only, and printing ~200 statements was ~1 s of the parent's work after the workers were done."""
    try:
        return th.latex()
    except Exception:  # noqa: BLE001 - the plain statement stays
        return None


def enrich(results: Iterable[AuditResult], theorems: Mapping[str, Theorem] | None = None,
           claim_files: Mapping[str, str] | None = None, options: str | None = None) -> None:
    """Fill ``latex``, ``quantity``, ``compared``, ``reproduce`` and ``source_key`` (in place) from the
    theorems behind the results (``{id: Theorem}``); ``claim_files`` maps user-claim ids to their file."""
    theorems = theorems or {}
    claim_files = claim_files or {}
    for r in results:
        th = theorems.get(r.id) or _lookup_theorem(r.id)
        if r.source_key is None:
            r.source_key = th.source.paper if th is not None else _source_key(r)
        if r.latex is None and th is not None:
            r.latex = statement_latex(th)
        q, comp = describe(r, th)
        if r.quantity is None:
            r.quantity = q
        if r.compared is None:
            r.compared = comp
        if r.reproduce is None:
            r.reproduce = reproduce_command(r, claim_files.get(r.id), options)
        r.detail = clean_text(r.detail)
        if r.region:
            r.region = clean_text(r.region)


# ---------------------------------------------------------------------------- JSON
def report_payload(results: list[AuditResult], *, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON report (validated against ``report_schema.json``)."""
    keys = list(counts_by_source(results))
    return {
        "schema": SCHEMA_ID,
        "meta": meta or {},
        "counts": counts(results),
        "summary": summary(results),
        "verdict_legend": VERDICT_LEGEND,
        "sources": {k: {"citation": citation(k).to_json(), "counts": counts_by_source(results)[k]} for k in keys},
        "claims": [r.to_json() for r in results],
        "errors": _errors_json(results),
    }


def _errors_json(results: list[AuditResult]) -> list[dict[str, Any]]:
    """The findings grouped by root cause (errors of the papers first), for machines."""
    from .severity import distinct_errors

    if not any(optional(r, "severity") is not None for r in results):
        return []
    return [{"id": g.id, "title": g.title, "note": g.note, "error_of_paper": g.is_error, "sources": g.sources,
             "entries": [{"id": i, "role": role} for i, role in g.entries]} for g in distinct_errors(results)]


def write_json(results: list[AuditResult], path: Path, *, meta: dict[str, Any] | None = None) -> None:
    atomic_write_text(path, json.dumps(report_payload(results, meta=meta), indent=1, default=str))


def validate_report(payload: Mapping[str, Any]) -> None:
    """Validate a JSON report against ``report_schema.json`` (jsonschema when installed, else the
    required keys and verdict values by hand); raises ValueError naming the offending path."""
    schema = json.loads(SCHEMA_FILE.read_text())
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - jsonschema ships with the dev extras
        jsonschema = None
    if jsonschema is not None:
        try:
            jsonschema.validate(payload, schema)
        except jsonschema.ValidationError as exc:
            raise ValueError(f"audit report invalid at {'/'.join(map(str, exc.absolute_path))}: {exc.message}") from None
        return
    for k in schema["required"]:
        if k not in payload:
            raise ValueError(f"audit report invalid: missing key {k!r}")
    for c in payload["claims"]:
        if c.get("verdict") not in VERDICTS:
            raise ValueError(f"audit report invalid: claims/{c.get('id')}/verdict={c.get('verdict')!r} not in {VERDICTS}")


# ---------------------------------------------------------------------------- grouping
def _source_key(r: AuditResult) -> str:
    """The source of a result as a short key: ``[he2021-uai, Lemma 2; ...]`` -> ``he2021-uai``."""
    if r.source_key:
        return r.source_key
    src = r.source.strip().lstrip("[")
    return (src.split(",")[0].split(";")[0].strip() or "user") if src else "user"


def counts_by_source(results: Iterable[AuditResult]) -> dict[str, dict[str, int]]:
    """``{source: {verdict: count}}`` in first-appearance order of the sources."""
    out: dict[str, dict[str, int]] = {}
    for r in results:
        out.setdefault(_source_key(r), dict.fromkeys(VERDICTS, 0))[r.verdict] += 1
    return out


def findings(results: Iterable[AuditResult]) -> list[AuditResult]:
    """The results a reader must see first: FAILS, then PARTIAL."""
    rs = list(results)
    return [r for r in rs if r.verdict == "FAILS"] + [r for r in rs if r.verdict == "PARTIAL"]


def _is_major(r: AuditResult) -> bool:
    sev = optional(r, "severity")
    if sev is not None:
        return str(sev).lower() in ("major", "critical", "high", "error")
    return r.verdict == "FAILS" and r.kind in ("valid bound", "bound")


def summary(results: Iterable[AuditResult]) -> str:
    """The opening sentence: the verdict counts, then the distinct errors of the papers (each with the number of
    entries grouped under it, :func:`symdp.audit.severity.errors_summary`); without severities, the refuted
    bounds by source."""
    rs = list(results)
    c = counts(rs)
    majors: dict[str, int] = {}
    for r in rs:
        if r.verdict in ("FAILS", "PARTIAL") and _is_major(r):
            majors[_source_key(r)] = majors.get(_source_key(r), 0) + 1
    has_sev = any(optional(r, "severity") is not None for r in rs)
    what = "major errors" if has_sev else "refuted bounds"
    s = (f"{len(rs)} claims audited: {c['HOLDS']} hold, {c['FAILS']} fail, {c['PARTIAL']} hold only in part, "
         f"{c['UNDECIDED']} undecided.")
    if has_sev:  # the audit's classification is there: count distinct errors of the papers, not entries
        from .severity import errors_summary

        es = errors_summary(rs)
        if es is not None:
            return s + " " + es
    if majors:
        s += f" {sum(majors.values())} {what}: " + "; ".join(
            f"{n} in {citation(k).short}" + (f" [{k}]" if citation(k).short != k else "") for k, n in majors.items()) + "."
    else:
        s += f" No {what}."
    return s
