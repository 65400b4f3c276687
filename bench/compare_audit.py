"""Compare two audit JSON reports claim by claim (issue 25: "verdicts unchanged" across speed work).

    python bench/compare_audit.py before.json after.json        # exit 1 when a claim differs
    python bench/compare_audit.py before.json after.json --all  # also the fields that may move (seconds, plots)

Per claim id: the verdict, the strength (proved / supported), the severity, the rung, the witness region
(``region``) and whether a counterexample exists; a claim present in one report only is a difference.
A counterexample's coordinates and the claimed / actual values are compared too and reported as "moved"
(a search may land on another witness of the same failure) without failing the comparison unless
``--strict``.  Prints one line per difference and a summary; exit status 0 when the verdict-level
fields agree everywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

#: fields whose change is a changed result
KEY_FIELDS = ("verdict", "strength", "severity", "rung", "region")
#: fields that may legitimately move between runs (another witness of the same failure)
SOFT_FIELDS = ("counterexample", "claimed", "actual")


def _claims(path: str) -> dict[str, dict[str, Any]]:
    with open(path) as f:
        payload = json.load(f)
    rows = payload["claims"] if isinstance(payload, dict) else payload
    return {str(r["id"]): r for r in rows}


def _field(row: dict[str, Any], name: str) -> Any:
    if name in row:
        return row[name]
    return (row.get("extra") or {}).get(name)


def _sev(v: Any) -> Any:
    return v.get("level") if isinstance(v, dict) and "level" in v else v


def compare(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]], strict: bool = False) -> tuple[list[str], list[str]]:
    """(hard differences, soft differences), one line each."""
    hard: list[str] = []
    soft: list[str] = []
    for cid in sorted(set(a) | set(b)):
        if cid not in b:
            hard.append(f"{cid}: only in the first report ({a[cid].get('verdict')})")
            continue
        if cid not in a:
            hard.append(f"{cid}: only in the second report ({b[cid].get('verdict')})")
            continue
        ra, rb = a[cid], b[cid]
        for f in KEY_FIELDS:
            va, vb = _field(ra, f), _field(rb, f)
            if f == "severity":
                va, vb = _sev(va), _sev(vb)
            if va != vb:
                hard.append(f"{cid}: {f} {va!r} -> {vb!r}")
        if bool(_field(ra, "counterexample")) != bool(_field(rb, "counterexample")):
            hard.append(f"{cid}: counterexample {'present' if _field(ra, 'counterexample') else 'absent'} -> "
                        f"{'present' if _field(rb, 'counterexample') else 'absent'}")
        for f in SOFT_FIELDS:
            va, vb = _field(ra, f), _field(rb, f)
            if va != vb:
                (hard if strict else soft).append(f"{cid}: {f} moved {str(va)[:80]} -> {str(vb)[:80]}")
    return hard, soft


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--strict", action="store_true", help="a moved counterexample or value is a difference too")
    args = ap.parse_args(argv)
    a, b = _claims(args.before), _claims(args.after)
    hard, soft = compare(a, b, strict=args.strict)
    for line in hard:
        print("DIFF  " + line)
    for line in soft:
        print("moved " + line)
    print(f"{len(set(a) & set(b))} claims in both; {len(hard)} differences, {len(soft)} moved witnesses")
    return 1 if hard else 0


if __name__ == "__main__":
    sys.exit(main())
