"""Issue 12 item 3 at the audit level: a general entry whose special case fails is never HOLDS."""

from __future__ import annotations

from symdp.audit.engine import apply_audit_consistency, audit_theorems
from symdp.audit.report import AuditResult
from symdp.library import get


def _res(i: str, verdict: str, strength: str = "", cx: dict[str, str] | None = None) -> AuditResult:
    th = get(i)
    return AuditResult(id=i, kind="valid bound", title=th.title, source="", statement="", verdict=verdict,
                       strength=strength, counterexample=cx, claimed="1", actual="2")


def test_general_entry_fails_when_its_special_case_fails_in_the_same_run() -> None:
    g = _res("he2021.thm4_eps2_sum", "HOLDS", "supported")
    s = _res("he2021.thm4_eps2", "FAILS", cx={"T": "270", "delta": "0.0002", "deltatilde": "5e-09", "epsilon": "0.06"})
    notes = apply_audit_consistency([g, s])
    assert g.verdict == "FAILS" and g.rung == "consistency"
    assert g.counterexample is not None and g.counterexample["r_spread"] == "1" and g.counterexample["T"] == "270"
    assert any("he2021.thm4_eps2_sum" in n for n in notes)


def test_proved_general_entry_is_flagged_not_overridden() -> None:
    g = _res("he2021.thm4_eps2_sum", "HOLDS", "proved")
    s = _res("he2021.thm4_eps2", "FAILS", cx={"T": "270"})
    apply_audit_consistency([g, s])
    assert g.verdict == "HOLDS" and "consistency_flag" in g.extra


def test_holding_special_case_changes_nothing() -> None:
    g = _res("he2021.thm4_eps2_sum", "HOLDS", "supported")
    s = _res("he2021.thm4_eps2", "HOLDS", "supported")
    assert apply_audit_consistency([g, s]) == []
    assert g.verdict == "HOLDS"


def test_full_audit_of_the_general_entry_alone_uses_the_ledger_for_its_special_case() -> None:
    # thm4_eps2_sum's own search caps T at 8 and finds nothing; its equal-steps case is REFUTED at T = 270
    (r,) = audit_theorems([get("he2021.thm4_eps2_sum")], plots=False, algorithms=False)
    assert r.verdict == "FAILS", r.detail
    assert r.rung == "consistency" and r.counterexample and r.counterexample.get("r_spread") == "1"
