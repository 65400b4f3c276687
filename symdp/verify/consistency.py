r"""Consistency between verdicts (issue 12 item 3): an entry whose special case fails cannot HOLD.

A *special case* of an entry G is an entry S whose every admissible point is also an admissible point of G
with the same claim there.  Three sources of the relation:

1. ``tags`` of S containing ``"special-case-of:<id of G>"`` (declared by the library encoder);
2. a heterogeneous-steps entry ``X_sum`` (tag ``"heterogeneous"``) and the equal-steps entry ``X``: every
   step ``(eps, delta)`` equal is a sequence of the general statement (``r_spread = 1`` in the verifier's
   parametrisation of :mod:`symdp.verify.composition`);
3. the same statement (lhs, relation, rhs, premises, conclusion, oracle) under G's hypotheses and possibly more,
   over a domain box that lies inside G's box (a sub-box, or a restriction by extra hypotheses).

Rule: when S is REFUTED or PARTIAL (a rigorous counterexample, re-confirmed in high precision or in exact
arithmetic), a SUPPORTED or UNCHECKED G becomes REFUTED with rung ``consistency``; the counterexample is S's
point (plus how S sits inside G).  A PROVED G is never downgraded by a numerical result: the contradiction is
recorded in ``attempts`` (and :func:`apply_consistency` returns it) so that the encoding is re-read.

One rule, one lookup: :func:`apply_consistency` is the rule; :func:`recorded_rows` reads the special cases'
verdicts from the ledger (only rows made for their current statements).  :func:`~symdp.verify.verify_theorem`
applies both to the entry it verified (:func:`consult_ledger`); :func:`symdp.verify.run` applies the rule to
its whole run, a special case verified in the run taking precedence over its ledger row; the audit applies the
rule only to special cases audited in its own run (the ledger's were consulted by ``verify_theorem``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..rendering import clip
from ..theorem import Evidence, Theorem, Verdict
from .core import VerificationResult, cx_dict

SPECIAL_TAG = "special-case-of:"
_FAILED = (Verdict.REFUTED, Verdict.PARTIAL)
_DOWNGRADABLE = (Verdict.SUPPORTED, Verdict.UNCHECKED)


@dataclass(frozen=True)
class SpecialCase:
    """``special`` is a special case of ``general``; ``how`` says which points of the general entry it is, and
    ``fixed`` the values of the general entry's extra parameters at those points."""

    general: str
    special: str
    how: str
    fixed: tuple[tuple[str, str], ...] = ()


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v


def _box(th: Theorem) -> dict[str, tuple[float | None, float | None]]:
    return {s.name: (_num(lo), _num(hi)) for s, lo, hi in th.domain}


def _inside(inner: Mapping[str, tuple[float | None, float | None]], outer: Mapping[str, tuple[float | None, float | None]]) -> bool:
    """Every range of ``outer`` contains ``inner``'s range of the same symbol (unbounded ends: None)."""
    for name, (olo, ohi) in outer.items():
        ilo, ihi = inner.get(name, (None, None))
        if olo is not None and (ilo is None or ilo < olo):
            return False
        if ohi is not None and (ihi is None or ihi > ohi):
            return False
    return True


_KEYS: dict[int, tuple[Theorem, tuple[Any, ...] | None]] = {}


def _key(th: Theorem) -> tuple[Any, ...] | None:
    """:func:`_statement_key`, computed once per theorem object (srepr of every statement is the slow part)."""
    hit = _KEYS.get(id(th))
    if hit is not None and hit[0] is th:
        return hit[1]
    if len(_KEYS) > 20000:
        _KEYS.clear()
    k = _statement_key(th)
    _KEYS[id(th)] = (th, k)
    return k


def _statement_key(th: Theorem) -> tuple[Any, ...] | None:
    """The statement without its hypotheses and box (those may only narrow in a special case)."""
    if th.lhs is None or th.rhs is None:
        return None
    return (sp.srepr(th.lhs), th.relation, sp.srepr(th.rhs), repr(th.premises), repr(th.conclusion), th.oracle, th.kind)


def _hyps(th: Theorem) -> frozenset[str]:
    return frozenset(sp.srepr(h) for h in th.hypotheses if h is not sp.true)


def special_cases(theorems: Iterable[Theorem]) -> list[SpecialCase]:
    """Every (general, special) pair among ``theorems`` by the three rules of the module docstring."""
    ths = list(theorems)
    by_id = {t.id: t for t in ths}
    out: list[SpecialCase] = []
    seen: set[tuple[str, str]] = set()

    def add(sc: SpecialCase) -> None:
        if sc.general != sc.special and (sc.general, sc.special) not in seen and sc.general in by_id:
            seen.add((sc.general, sc.special))
            out.append(sc)

    for t in ths:
        for tag in t.tags:
            if tag.startswith(SPECIAL_TAG):
                add(SpecialCase(tag[len(SPECIAL_TAG):], t.id, f"declared by {t.id} (tag {tag!r})"))
        if "heterogeneous" in t.tags and t.id.endswith("_sum") and t.id[: -len("_sum")] in by_id:
            s = by_id[t.id[: -len("_sum")]]
            if s.oracle and t.oracle and s.source.locator == t.source.locator:
                add(SpecialCase(t.id, s.id, "all steps equal (eps_i = epsilon, delta_i = delta for every i)",
                                (("r_spread", "1"),)))
    groups: dict[tuple[Any, ...], list[Theorem]] = {}
    for t in ths:
        key = _key(t)
        if key is not None and t.domain:
            groups.setdefault(key, []).append(t)
    for members in groups.values():
        for g in members:
            for s in members:
                if g is s or not (_hyps(g) <= _hyps(s)) or not _inside(_box(s), _box(g)):
                    continue
                if _box(s) == _box(g) and _hyps(s) == _hyps(g):
                    continue  # the same entry twice (e.g. two readings with one formula): not a special case
                extra = sorted(_hyps(s) - _hyps(g))
                how = "the same statement on a sub-box of the domain" if not extra else (
                    f"the same statement under {len(extra)} more hypothes{'is' if len(extra) == 1 else 'es'}"
                    + ("" if _box(s) == _box(g) else " and on a sub-box"))
                add(SpecialCase(g.id, s.id, how))
    return out


def apply_consistency(results: list[VerificationResult], theorems: Iterable[Theorem],
                      recorded: Mapping[str, Mapping[str, Any]] | None = None) -> list[str]:
    """Enforce "a general entry whose special case fails cannot hold" on ``results`` (in place).

    ``recorded``: ledger rows (id -> row) for special cases not verified in this run.  Returns one line per
    change or contradiction."""
    res_by_id = {r.id: r for r in results}
    notes: list[str] = []
    for sc in special_cases(theorems):
        g = res_by_id.get(sc.general)
        if g is None:
            continue
        s = res_by_id.get(sc.special)
        if s is not None:
            s_verdict, s_cx, s_rung = s.verdict, s.counterexample, s.evidence.rung
            s_claimed, s_actual = s.claimed, s.actual
        elif recorded and sc.special in recorded:
            row = recorded[sc.special]
            s_verdict, s_cx, s_rung = Verdict(row["verdict"]), row.get("counterexample"), row.get("rung")
            s_claimed, s_actual = row.get("claimed"), row.get("actual")
        else:
            continue
        if s_verdict not in _FAILED or not s_cx:
            continue
        if g.verdict in _DOWNGRADABLE:
            before = g.verdict
            cx = dict(s_cx)
            cx.update(dict(sc.fixed))
            g.counterexample = cx
            g.claimed, g.actual, g.margin = s_claimed, s_actual, None
            g.region = None
            g.attempts.append(f"consistency: was {before.value} ({clip(g.evidence.detail, 160)})")
            g.evidence = Evidence(
                Verdict.REFUTED, "consistency",
                f"its special case {sc.special} ({sc.how}) is {s_verdict.value} ({s_rung or 'numerical'} rung) with "
                f"counterexample {dict(s_cx)}: claimed {s_claimed}, true {s_actual}; that point is a point of this "
                f"entry" + (f" with {', '.join(f'{k} = {v}' for k, v in sc.fixed)}" if sc.fixed else "")
                + f"; before this check the entry was {before.value}",
                None, cx_dict(cx), g.evidence.cases,
            )
            notes.append(f"{sc.general}: {before.value} -> REFUTED (special case {sc.special} is {s_verdict.value})")
        elif g.verdict is Verdict.PROVED:
            msg = (f"consistency: special case {sc.special} ({sc.how}) is {s_verdict.value} at {dict(s_cx)} while this "
                   f"entry is PROVED ({clip(g.evidence.detail, 120)}): re-read both encodings and the special-case relation")
            g.attempts.append(msg)
            notes.append(f"{sc.general}: PROVED but special case {sc.special} is {s_verdict.value} (kept; flagged)")
    return notes


def recorded_rows(theorems: Iterable[Theorem], ids: Iterable[str] | None = None) -> dict[str, Mapping[str, Any]]:
    """Ledger rows (id -> row) of ``ids`` (default: every theorem) made for the theorem's current statement."""
    from ..ledger_json import load_ledger

    by_id = {t.id: t for t in theorems}
    want = set(by_id) if ids is None else set(ids) & set(by_id)
    return {k: row for k, row in load_ledger().items() if k in want and row.get("hash") == by_id[k].expr_hash()}


def _with_library(th: Theorem, theorems: Iterable[Theorem] | None) -> list[Theorem]:
    if theorems is None:
        from ..library import all_theorems

        theorems = all_theorems(with_evidence=False)
    return [t for t in theorems if t.id != th.id] + [th]


#: the special cases of the last theorem list :func:`_specials_by_general` was given (the library, as a rule): the
#: list itself (its objects, so their ids stay theirs) and ``{general id: [special ids]}``
_SPECIALS: list[Any] = [None, {}]


def _specials_by_general(ths: list[Theorem]) -> dict[str, list[str]]:
    """``{general id: [special ids]}`` of :func:`special_cases` over ``ths``, computed once for the same list of
    theorem objects (the audit keys each of its ~200 tasks on its entry's special cases: one pass over the library
    each was ~1 s of the parent's start-up)."""
    last = _SPECIALS[0]
    if last is None or len(last) != len(ths) or any(a is not b for a, b in zip(last, ths)):
        out: dict[str, list[str]] = {}
        for sc in special_cases(ths):
            out.setdefault(sc.general, []).append(sc.special)
        _SPECIALS[:] = [list(ths), out]
    return _SPECIALS[1]


def special_case_rows(th: Theorem, theorems: Iterable[Theorem] | None = None) -> dict[str, Mapping[str, Any]]:
    """The ledger rows :func:`consult_ledger` uses for ``th``: those of its special cases (``theorems``: where
    they are looked for, default the library), for their current statements.  A cache of verdicts keys on them."""
    if theorems is None:
        from ..library import all_theorems

        lib = all_theorems(with_evidence=False)
        if any(t is th for t in lib):  # the library's own entry: the library's pairs (the same set of theorems)
            specials = _specials_by_general(lib).get(th.id, [])
            return recorded_rows(lib, specials) if specials else {}
    ths = _with_library(th, theorems)
    specials = [sc.special for sc in special_cases(ths) if sc.general == th.id]
    return recorded_rows(ths, specials) if specials else {}


def consult_ledger(res: VerificationResult, th: Theorem, theorems: Iterable[Theorem] | None = None) -> list[str]:
    """The rule for one verified entry against the ledger's verdicts of its special cases.  Changes ``res``."""
    rows = special_case_rows(th, theorems)
    return apply_consistency([res], _with_library(th, theorems), recorded=rows) if rows else []


__all__ = ["SpecialCase", "SPECIAL_TAG", "special_cases", "apply_consistency", "consult_ledger", "recorded_rows",
           "special_case_rows"]
