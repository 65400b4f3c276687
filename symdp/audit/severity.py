r"""Severity classes, root causes and provenance labels of audit findings (issue 12, items 2 and 4).

Every FAILS (and PARTIAL, which fails on part of the domain) gets one class, and the rule that
assigned it is stated in the result (``extra["severity_rule"]``):

* **major** -- false in a non-vacuous regime: a counterexample where the claimed bound is
  informative (inside the quantity's range) and the violation is neither an equality at a boundary
  nor a last-digit rounding of a printed number;
* **minor** -- fails only at a boundary or an equality (``lhs = rhs`` against a strict claim), through
  a typo (in a proof step) that nothing downstream uses, in a reading the text does not force, or as
  symdp's own check whose failure leaves the paper's stated result standing;
* **rounding** -- a printed number differs from what its own formula gives only by the rounding of
  the printed digits (its own label: it is not an error of the result);
* **vacuous-only** -- fails only where the bound is trivial (a probability bound at or above 1, a
  bound at or beyond the quantity's range): a search restricted to the non-vacuous part of the
  domain finds no counterexample.

Entries broken by one upstream error carry its ``root_cause`` id (see :data:`ROOT_CAUSES`) and a
sentence of prose that says *why*; the report groups them under it.  :func:`distinct_errors` counts
**errors of the papers**: a root cause (or a finding without one) is an error of a paper when at least
one finding under it is ``major`` and of origin ``paper``; its other entries (duplicates such as
``*_sum`` / ``*_at_*`` forms, the generic and ``algo.`` readings of one theorem, second readings,
symdp's own checks, printed-value arithmetic) are listed under it, never counted beside it.  ``origin`` says whose claim an entry is:
``"paper"`` (the source states it), ``"symdp"`` (a check symdp adds: consistency between versions
or sections, an implicit step of a proof), ``"arithmetic"`` (a printed number recomputed from a
printed formula; it says nothing about the privacy of a trained model).

Library entries whose class needs reading the text are listed in :data:`ENTRY_CLASSES` with the
reason; everything else (user claims, new entries) is classified by :func:`classify` from the
verifier's evidence by the rules above.

The catalogue (severity rules, root causes, entry classes) is data in :mod:`.root_causes`; this module
applies it and re-exports its names.

>>> from symdp.audit.report import AuditResult
>>> r = AuditResult(id="x", kind="tighter-than", title="t", source="s", statement="a < b", verdict="FAILS",
...                 claimed="1.0", actual="1.0", detail="lhs = rhs = 1 exactly ... equality, so the strict inequality < fails")
>>> classify_result(None, r).severity
'minor'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import sympy as sp

from ..rendering import clip
from ..theorem import Theorem
from .finding import AuditResult, _short
from .root_causes import _GEN as _GEN
from .root_causes import ENTRY_CLASSES as ENTRY_CLASSES
from .root_causes import QUOTES as QUOTES
from .root_causes import ROOT_CAUSE_ALIASES as ROOT_CAUSE_ALIASES
from .root_causes import ROOT_CAUSES as ROOT_CAUSES
from .root_causes import SEVERITIES as SEVERITIES
from .root_causes import SEVERITY_RANK as SEVERITY_RANK
from .root_causes import SEVERITY_RULES as SEVERITY_RULES
from .root_causes import VACUOUS_MARGIN as VACUOUS_MARGIN
from .root_causes import Classification as Classification
from .root_causes import RootCause as RootCause

_ORIGIN_TAGS = {"consistency": "symdp", "proof-step": "symdp", "symdp-check": "symdp", "printed-value": "arithmetic"}

_QUOTE_RE = re.compile(r"(?:Text|Plain text|Printed|printed)\s*:?\s*('[^']{8,600}')")


def _quote(th: Theorem | None) -> str | None:
    if th is None or not th.notes:
        return None
    m = _QUOTE_RE.search(th.notes)
    return m.group(1) if m else None


def _origin(th: Theorem | None, rid: str) -> str:
    if rid.startswith(("algo.", "experiment.", "reading.")):
        return "paper"
    if th is None:
        return "paper"
    if "user-claim" in th.tags:
        return "user"
    for tag, origin in _ORIGIN_TAGS.items():
        if tag in th.tags:
            return origin
    if th.id.startswith("he2021long.consistency"):
        return "symdp"
    return "paper"


def _decimal_digits(value: sp.Expr) -> int | None:
    """Significant digits of a printed decimal constant (a Rational p/10^k), else None."""
    if not isinstance(value, sp.Rational) or value == 0:
        return None
    den = int(value.q)
    k = 0
    while den % 10 == 0:
        den //= 10
        k += 1
    if den not in (1, 2, 4, 5, 8, 16, 20, 25, 40, 50):  # a terminating decimal with few digits
        return None
    try:
        d = Decimal(int(value.p)) / (Decimal(int(value.q)))
    except InvalidOperation:
        return None
    digits = len(d.normalize().as_tuple().digits)
    return digits if digits <= 6 else None


def _rounds_to(actual: str | None, printed: sp.Expr, digits: int) -> bool:
    if actual is None:
        return False
    try:
        a = Decimal(str(actual))
    except InvalidOperation:
        return False
    if a == 0:
        return False
    exp = a.adjusted() - digits + 1
    q = Decimal(1).scaleb(exp)
    return a.quantize(q) == Decimal(int(printed.p)) / Decimal(int(printed.q))


def _is_rounding(th: Theorem | None, res: AuditResult) -> bool:
    """A constant claim 'value <= printed' (or >=) that fails only because the printed number is rounded."""
    if th is None or th.lhs is None or th.rhs is None:
        return False
    if th.lhs.free_symbols or th.rhs.free_symbols:
        return False
    digits = _decimal_digits(th.rhs)
    return digits is not None and _rounds_to(res.actual, th.rhs, digits)


def _is_equality(res: AuditResult) -> bool:
    return "equality, so the strict inequality" in (res.detail or "") or (
        res.claimed is not None and res.actual is not None and res.claimed == res.actual)


def _vacuous_at_counterexample(res: AuditResult, range_hi: float | None) -> bool:
    if range_hi is None or res.claimed is None:
        return False
    try:
        return float(res.claimed) >= range_hi
    except ValueError:
        return False


def _restricted(th: Theorem, range_hi: float) -> Theorem:
    """The same claim restricted to where its claimed side is informative (claimed side < range_hi)."""
    from dataclasses import replace

    from ..theorem import Kind

    assert th.lhs is not None and th.rhs is not None
    if th.kind is Kind.COMPARISON:  # two bounds compared: both must be informative
        sides = [th.lhs, th.rhs]
    else:  # a bound on a quantity: the claimed side
        sides = [th.rhs if th.relation in ("<=", "<") else th.lhs]
    extra = tuple(sp.Lt(side, range_hi - VACUOUS_MARGIN) for side in sides)
    return replace(th, id=th.id + "#nonvacuous", hypotheses=(*th.hypotheses, *extra))


def vacuous_recheck(th: Theorem, range_hi: float, *, seed: int = 0) -> tuple[bool, str]:
    """Re-verify ``th`` on the part of its domain where the claimed bound is below ``range_hi``.

    Returns (no counterexample there, what the verifier said).  Uses the public verify API only.
    """
    from ..theorem import Verdict
    from ..verify import verify_theorem

    vr = verify_theorem(_restricted(th, range_hi), seed=seed)
    ok = vr.evidence.verdict not in (Verdict.REFUTED, Verdict.PARTIAL)
    return ok, f"restricted to informative bounds (< {range_hi:g} - {VACUOUS_MARGIN:g}): {vr.evidence.verdict.value} ({clip(vr.evidence.detail, 160)})"


def classify(th: Theorem | None, res: AuditResult, *, recheck: bool = True, seed: int = 0) -> Classification:
    """The class of a finding: the table for library entries that need the text, else the rules."""
    base = ENTRY_CLASSES.get(res.id)
    origin = base.origin if base is not None and base.origin != "paper" else _origin(th, res.id)
    quote = (base.quote if base is not None else None) or QUOTES.get(res.id) or _quote(th)
    reading = base.reading if base is not None else None
    rc = base.root_cause if base is not None else None
    if res.verdict not in ("FAILS", "PARTIAL"):
        return Classification(None, None, "", rc, origin, reading, quote)
    if base is not None and base.severity is not None:
        return Classification(base.severity, SEVERITY_RULES[base.severity], base.why, rc, origin, reading, quote)
    range_hi = base.range_hi if base is not None else _default_range(th)
    if _is_equality(res):
        return Classification("minor", SEVERITY_RULES["minor"], "equality at a boundary against a strict claim",
                              rc, origin, reading, quote)
    if _is_rounding(th, res):
        return Classification("rounding", SEVERITY_RULES["rounding"], f"last-digit rounding: the true value {res.actual} "
                              f"rounds to the printed {sp.sstr(th.rhs) if th is not None else ''}", rc, origin, reading, quote)
    if (range_hi is not None and th is not None and recheck and th.rhs is not None and th.lhs is not None
            and (_vacuous_at_counterexample(res, range_hi) or (base is not None and base.range_hi is not None))):
        ok, said = vacuous_recheck(th, range_hi, seed=seed)
        if ok:
            return Classification("vacuous-only", SEVERITY_RULES["vacuous-only"], said, rc, origin, reading, quote)
        return Classification("major", SEVERITY_RULES["major"], said, rc, origin, reading, quote)
    return Classification("major", SEVERITY_RULES["major"], "counterexample in the informative range", rc, origin,
                          reading, quote)


_PROB_NAMES = re.compile(r"^(delta|deltaprime|deltatilde|P_|b_|beta|Pfail|P$|prob)", re.IGNORECASE)


def _default_range(th: Theorem | None) -> float | None:
    """1 for quantities that are probabilities (a delta, a failure probability), else unknown."""
    if th is None or th.lhs is None:
        return None
    if isinstance(th.lhs, sp.Symbol) and _PROB_NAMES.match(th.lhs.name):
        return 1.0
    if "probability" in th.tags:
        return 1.0
    return None


def annotate(th: Theorem | None, res: AuditResult, *, recheck: bool = True, seed: int = 0) -> AuditResult:
    """Attach severity, rule, root cause, origin, reading and quote to ``res.extra`` (the report reads them there)."""
    c = classify(th, res, recheck=recheck, seed=seed)
    ex = res.extra
    ex["origin"] = c.origin
    if c.severity is not None:
        ex["severity"] = c.severity
        ex["severity_rule"] = c.rule
        if c.why:
            ex["severity_why"] = c.why
    if c.root_cause is not None:
        ex["root_cause"] = c.root_cause
        ex["root_cause_note"] = ROOT_CAUSES[c.root_cause].title + ": " + ROOT_CAUSES[c.root_cause].note
    if c.reading is not None:
        ex.setdefault("reading", c.reading)
    if c.quote is not None:
        ex.setdefault("quote", c.quote)
    return res


def order_findings(results: Iterable[AuditResult]) -> list[AuditResult]:
    """Findings first (FAILS, PARTIAL) by severity (major, vacuous-only, minor), then the rest, stable."""
    vrank = {"FAILS": 0, "PARTIAL": 1, "UNDECIDED": 2, "HOLDS": 3}
    return sorted(results, key=lambda r: (vrank.get(r.verdict, 9), SEVERITY_RANK.get(r.extra.get("severity"), 3)))


def severity_counts(results: Iterable[AuditResult]) -> dict[str, int]:
    out = dict.fromkeys(SEVERITIES, 0)
    for r in results:
        s = r.extra.get("severity")
        if s in out:
            out[s] += 1
    return out


def root_cause_groups(results: Iterable[AuditResult]) -> dict[str, list[str]]:
    """root cause id -> ids of the findings grouped under it."""
    out: dict[str, list[str]] = {}
    for r in results:
        rc = r.extra.get("root_cause")
        if rc and r.verdict in ("FAILS", "PARTIAL"):
            out.setdefault(rc, []).append(r.id)
    return out


# ---------------------------------------------------------------------------- distinct errors
@dataclass
class ErrorGroup:
    """Findings that share one cause: an error of a paper (``is_error``) or a group of minor / symdp findings.

    ``entries`` are (id, role) pairs: role ``statement`` (the paper states it and it fails), ``duplicate`` (another
    form of a statement of the group: ``*_sum``, ``*_at_*``, ``eps_prime``), ``generic reading`` / ``mechanism``
    (the two readings of an algorithm theorem), ``second reading``, ``symdp check``, ``arithmetic``, or the
    finding's severity when it is not major."""

    id: str
    title: str
    note: str
    is_error: bool
    sources: list[str]
    entries: list[tuple[str, str]]


#: the rule the headline states
ERROR_RULE = ("an error of a paper is a root cause (or a finding without one) with at least one major finding "
              "the paper itself states; duplicates, readings, symdp's own checks and printed-value arithmetic are "
              "listed under it, not counted beside it")


def _role(r: AuditResult, primary: set[str]) -> str:
    ex = r.extra if isinstance(r.extra, dict) else {}
    origin = ex.get("origin", "paper")
    if origin == "symdp":
        return "symdp check"
    if origin == "arithmetic":
        return "arithmetic"
    if r.id.startswith("reading."):
        return "second reading"
    if r.id.startswith("algo."):
        return "mechanism"
    sev = ex.get("severity")
    if sev not in (None, "major"):
        return str(sev)
    if str(ex.get("reading", "")).startswith("generic"):
        return "generic reading"
    return "duplicate" if r.id not in primary else "statement"


def _family(rid: str) -> str:
    """The statement an entry is a form of: ``he2021.thm4_eps3_sum`` and ``he2021.thm4_eps3`` are one family."""
    base = rid.split("#")[0]
    for suf in ("_sum", "_at_thm4_eps", "_at_eps3", "_pure"):
        if base.endswith(suf):
            base = base[: -len(suf)]
    return base


def distinct_errors(results: Iterable[AuditResult]) -> list[ErrorGroup]:
    """Findings (FAILS, PARTIAL) grouped by root cause: errors of the papers first, then the other groups.

    The first major paper-stated finding of each statement family is the group's ``statement``; later forms of
    the same family are ``duplicate``.  A finding without a root cause is its own group."""
    found = [r for r in results if r.verdict in ("FAILS", "PARTIAL")]
    groups: dict[str, list[AuditResult]] = {}
    for r in found:
        ex = r.extra if isinstance(r.extra, dict) else {}
        rc = ex.get("root_cause")
        rc = ROOT_CAUSE_ALIASES.get(rc, rc) if rc else None
        groups.setdefault(rc or f"finding:{r.id}", []).append(r)
    out: list[ErrorGroup] = []
    for gid, rs in groups.items():
        def stated(r: AuditResult) -> bool:
            ex = r.extra if isinstance(r.extra, dict) else {}
            return ex.get("severity") == "major" and ex.get("origin", "paper") in ("paper", "user")
        primary: set[str] = set()
        seen_family: set[str] = set()
        for r in rs:
            if stated(r) and not r.id.startswith(("algo.", "reading.")):
                fam = _family(r.id)
                if fam not in seen_family:
                    seen_family.add(fam)
                    primary.add(r.id)
        is_error = any(stated(r) for r in rs)
        if gid.startswith("finding:"):  # no root cause: the finding's own classification says why
            r0 = rs[0]
            ex0 = r0.extra if isinstance(r0.extra, dict) else {}
            note = str(ex0.get("severity_why") or ex0.get("severity_rule") or "").strip()
            title, note = r0.title, (note[:1].upper() + note[1:] + ("" if note.endswith(".") else ".")) if note else ""
        else:
            rc = ROOT_CAUSES[gid]
            title, note = rc.title, rc.note
        srcs: list[str] = []
        for r in rs:
            k = r.source_key or (r.source.strip().lstrip("[").split(",")[0].split(";")[0].strip() or "user")
            if k not in srcs:
                srcs.append(k)
        order = {"statement": 0, "mechanism": 1, "generic reading": 2, "duplicate": 3, "second reading": 4}
        entries = sorted(((r.id, _role(r, primary)) for r in rs), key=lambda t: order.get(t[1], 5))
        out.append(ErrorGroup(gid, title, note, is_error, srcs, entries))
    out.sort(key=lambda g: (not g.is_error, -len(g.entries)))
    return out


def inherit_refutation(general: AuditResult, special: AuditResult) -> bool:
    """A general entry cannot stay UNDECIDED, or HOLD on sampled evidence, while its special case ``algo.*`` (the
    same statement on the real mechanism) FAILS: ``general`` becomes FAILS (rung ``consistency``) with the special
    case's witness, as ``*_sum`` entries inherit from their homogeneous forms.  A proved HOLDS is kept and flagged
    (a proof is never overridden by a numerical result).  Changes ``general`` in place; True when it changed."""
    if special.verdict != "FAILS" or not special.id.startswith("algo.") or general.verdict in ("FAILS", "PARTIAL"):
        return False
    if general.verdict == "HOLDS" and general.strength == "proved":
        general.extra["consistency_flag"] = (f"special case {special.id} FAILS while this entry is proved: re-read "
                                             "both encodings")
        return False
    before = f"{general.verdict} ({clip(general.detail, 160)})"
    cx = dict(special.counterexample or {})
    general.verdict, general.strength, general.rung = "FAILS", "", "consistency"
    general.counterexample = cx
    general.claimed, general.actual, general.margin, general.region = (special.claimed, special.actual, special.margin,
                                                                       special.region)
    general.compared = (f"its special case {special.id} (the statement on the real mechanism) at "
                        f"{', '.join(f'{k} = {v}' for k, v in cx.items())}: claimed {_short(special.claimed)}, the real "
                        f"mechanism's value is at least {_short(special.actual)}")
    general.detail = (f"its special case {special.id} (the statement on the real mechanism) FAILS: "
                      f"{clip(special.detail, 600)} That point is a point of this entry; its own audit had given {before}")
    general.extra.pop("severity", None)
    if special.extra.get("reading"):  # the general entry now fails in its special case's reading
        general.extra["reading"] = f"as {special.id}: {special.extra['reading']}"
    return True


def errors_summary(results: Iterable[AuditResult]) -> str | None:
    """One sentence: how many distinct errors of the papers, each named with its number of entries; None when the
    results carry no severities (a report without the audit's classification)."""
    rs = list(results)
    if not any(isinstance(r.extra, dict) and r.extra.get("severity") for r in rs):
        return None
    gs = distinct_errors(rs)
    errs = [g for g in gs if g.is_error]
    rest = sum(len(g.entries) for g in gs if not g.is_error)
    if not errs:
        s = "No errors of the papers"
    else:
        s = f"{len(errs)} distinct error{'s' if len(errs) != 1 else ''} of the papers: " + "; ".join(
            f"{g.title.split(':')[0] if g.id.startswith('finding:') else (ROOT_CAUSES[g.id].short or g.title)} ({len(g.entries)} "
            f"entr{'ies' if len(g.entries) != 1 else 'y'})" for g in errs)
    if rest:
        s += f"; {rest} further finding{'s' if rest != 1 else ''} are minor, vacuous-only, rounding or symdp's own checks"
    return s + "."


__all__ = ["SEVERITIES", "SEVERITY_RULES", "ROOT_CAUSES", "ENTRY_CLASSES", "RootCause", "Classification",
           "classify", "annotate", "order_findings", "severity_counts", "root_cause_groups", "vacuous_recheck",
           "classify_result", "ErrorGroup", "ERROR_RULE", "ROOT_CAUSE_ALIASES", "distinct_errors", "errors_summary",
           "inherit_refutation"]


def classify_result(th: Theorem | None, res: AuditResult) -> Classification:
    """:func:`classify` without the re-search (for results whose theorem is unavailable)."""
    return classify(th, res, recheck=False)
