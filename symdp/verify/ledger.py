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
    """``proofs/`` of the source tree when running from a checkout, else the copy shipped in the wheel."""
    here = Path(__file__).resolve().parent.parent  # symdp/
    repo = here.parent / "proofs"
    if repo.is_dir():
        return repo
    return here / "_proofs"


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
