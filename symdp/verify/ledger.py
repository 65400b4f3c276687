"""The verdict ledger: writing ``proofs/ledger.json``, ``LEDGER.md`` and the certificates (only ``symdp
verify`` calls these), and replaying the certificates.

Reading the ledger (as plain JSON, and as :class:`~symdp.theorem.Evidence` per entry) lives below, in
:mod:`symdp.ledger_json`, so the library, codegen and the accountants read verdicts without importing
the verifier; its names are re-exported here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..ledger_json import evidence_for as evidence_for
from ..ledger_json import load_ledger as load_ledger
from ..ledger_json import load_ledger_file as load_ledger_file
from ..ledger_json import proofs_dir as proofs_dir

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
