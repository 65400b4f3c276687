"""The verdict ledger: ``proofs/ledger.json`` read back as :class:`Evidence` per entry.

Written only by ``symdp verify``; read by the library (``Theorem.status``), the
audit and the accountants (an output carries the verdict of the theorem it
rests on).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..theorem import Evidence, Theorem, Verdict


def proofs_dir() -> Path:
    """``proofs/`` of the source tree when running from a checkout, else the copy shipped in the wheel (read-only)."""
    from .._paths import shipped_proofs

    return shipped_proofs()


@lru_cache(maxsize=1)
def load_ledger() -> dict[str, dict[str, Any]]:
    path = proofs_dir() / "ledger.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    entries = data["entries"] if isinstance(data, dict) else data
    return {e["id"]: e for e in entries}


def evidence_for(th: Theorem) -> Evidence | None:
    """Evidence recorded for this entry, or None; stale entries (statement hash changed) are ignored."""
    e = load_ledger().get(th.id)
    if e is None or (e.get("hash") and e["hash"] != th.expr_hash()):
        return None
    cx = e.get("counterexample")
    return Evidence(
        verdict=Verdict(e["verdict"]),
        rung=e.get("rung"),
        detail=e.get("evidence", "") if isinstance(e.get("evidence"), str) else json.dumps(e.get("evidence")),
        certificate=e.get("certificate"),
        counterexample=tuple((str(k), str(v)) for k, v in cx.items()) if isinstance(cx, dict) else None,
        cases=e.get("cases"),
    )


# ---------------------------------------------------------------------------
# writing (only `symdp verify` calls these) and replay
# ---------------------------------------------------------------------------

LEDGER_VERSION = 1


def write_ledger(results: list, *, full: bool, root: Path | None = None) -> Path:
    """Write certificates, ``ledger.json`` and ``LEDGER.md`` for ``results`` (VerificationResult list).

    ``full`` (every entry verified): certificates not produced by this run are
    removed and the ledger is replaced; otherwise the rows of these ids are
    replaced and the rest kept.
    """
    from .._io import atomic_write_text  # each proof file is replaced whole, never left half-written
    from .._paths import default_proofs_out, refuse_inside_package

    root = refuse_inside_package("proofs directory", root or default_proofs_out())  # never into an installed package
    root.mkdir(parents=True, exist_ok=True)
    produced = set()
    ids = {r.id for r in results}
    for r in results:
        for rel, text in r.artifacts.items():
            p = root / rel
            atomic_write_text(p, text)
            produced.add(p.resolve())
    for sub in ("smt", "intervals"):
        d = root / sub
        if not d.is_dir():
            continue
        for p in d.iterdir():
            owner_touched = full or any(p.name.startswith(i.replace("/", "_") + ".") for i in ids)
            if owner_touched and p.resolve() not in produced:
                p.unlink()
    old = {} if full else dict(load_ledger_file(root))
    for r in results:
        old[r.id] = r.ledger_entry()
    order = [r.id for r in results] if full else list(old)
    entries = [old[i] for i in order]
    from .._provenance import (
        provenance,  # symdp version, generated-kernel hashes, git commit (uniform across artefacts)
    )

    payload = {"version": LEDGER_VERSION, "provenance": provenance(), "entries": entries}
    atomic_write_text(root / "ledger.json", json.dumps(payload, indent=1) + "\n")
    atomic_write_text(root / "LEDGER.md", ledger_markdown(entries))
    load_ledger.cache_clear()
    return root / "ledger.json"


def load_ledger_file(root: Path | None = None) -> dict[str, dict[str, Any]]:
    path = (root or proofs_dir()) / "ledger.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    entries = data["entries"] if isinstance(data, dict) else data
    return {e["id"]: e for e in entries}


def _md(s: Any) -> str:
    return str(s if s is not None else "").replace("|", "\\|").replace("\n", " ")


def ledger_markdown(entries: list[dict[str, Any]]) -> str:
    counts: dict[str, int] = {}
    for e in entries:
        counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
    lines = [
        "# symdp verification ledger",
        "",
        "Written by `symdp verify`; re-check every certificate with `symdp verify --replay`.",
        "",
        "Verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
        "",
        "| id | verdict | rung | certificate | evidence |",
        "|---|---|---|---|---|",
    ]
    for e in entries:
        ev = e.get("evidence") or ""
        if e.get("counterexample"):
            ev = f"counterexample {e['counterexample']}; claimed {e.get('claimed')}, actual {e.get('actual')}. " + ev
        lines.append(f"| {_md(e['id'])} | {e['verdict']} | {_md(e.get('rung'))} | {_md(e.get('certificate'))} | {_md(ev)[:600]} |")
    return "\n".join(lines) + "\n"


def replay(root: Path | None = None, timeout_s: float = 60.0) -> list[tuple[str, bool, str]]:
    """Re-check every saved certificate without re-deriving: z3 on each ``.smt2`` (must say unsat),
    :func:`symdp.verify.interval.replay` on each interval certificate; also that every certificate
    the ledger names exists."""
    from . import interval, smt

    root = root or proofs_dir()
    out: list[tuple[str, bool, str]] = []
    for p in sorted((root / "smt").glob("*.smt2")) if (root / "smt").is_dir() else []:
        status, _txt = smt.run_z3_file(p, timeout_s)
        out.append((str(p.relative_to(root)), status == "unsat", status))
    for p in sorted((root / "intervals").glob("*.json")) if (root / "intervals").is_dir() else []:
        try:
            ok, msg = interval.replay(json.loads(p.read_text()))
        except Exception as exc:  # noqa: BLE001 - a corrupt certificate fails the replay
            ok, msg = False, f"{type(exc).__name__}: {exc}"
        out.append((str(p.relative_to(root)), ok, msg))
    for e in load_ledger_file(root).values():
        c = e.get("certificate")
        if c and not (root / c).exists():
            out.append((c, False, f"named by {e['id']} but missing"))
    return out
