"""The verdict ledger read as plain JSON: ``proofs/ledger.json`` (written only by ``symdp verify``).

One home for reading it, below everything that needs a verdict: the library (``Theorem.status``
through :func:`evidence_for`), codegen (the verdict recorded beside each kernel), the runtime
accountants (:func:`verdict_rows`, no SymPy) and the audit.  Nothing here imports SymPy or
:mod:`symdp.verify` at module level; :func:`evidence_for` builds :class:`~symdp.theorem.Evidence`
(importing :mod:`symdp.theorem`, same layer) only when called.  Writing and replay stay in
:mod:`symdp.verify.ledger`, which re-exports these names.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._paths import shipped_proofs

if TYPE_CHECKING:  # pragma: no cover
    from .theorem import Evidence, Theorem


def proofs_dir() -> Path:
    """``proofs/`` of the source tree when running from a checkout, else the copy shipped in the wheel (read-only)."""
    return shipped_proofs()


def load_ledger_file(root: Path | None = None) -> dict[str, dict[str, Any]]:
    """The rows of ``root/ledger.json`` (default :func:`proofs_dir`) by id; ``{}`` when there is none."""
    path = (root or proofs_dir()) / "ledger.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    entries = data["entries"] if isinstance(data, dict) else data
    return {e["id"]: e for e in entries}


@lru_cache(maxsize=1)
def load_ledger() -> dict[str, dict[str, Any]]:
    """The rows of the shipped ledger by id (cached; ``symdp verify`` clears the cache when it writes)."""
    return load_ledger_file()


#: :func:`verdict_rows` of the ledger rows object it was built from (``load_ledger`` is cached, so the same object
#: until ``symdp verify`` clears that cache): built once, not on every accountant call (each looks up ~6 kernels)
_VERDICT_ROWS: tuple[Any, dict[str, tuple[str, str]]] | None = None


def verdict_rows() -> dict[str, tuple[str, str]]:
    """``id -> (statement hash, verdict)``; ``{}`` when the ledger is absent or unreadable (the runtime
    accountants then use the verdict recorded at codegen time).  Shared between calls: read it, never change it."""
    global _VERDICT_ROWS
    try:
        rows = load_ledger()
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    if _VERDICT_ROWS is not None and _VERDICT_ROWS[0] is rows:
        return _VERDICT_ROWS[1]
    out = {i: (str(e.get("hash") or ""), str(e.get("verdict", "UNCHECKED")))
           for i, e in rows.items() if isinstance(i, str) and isinstance(e, dict)}
    _VERDICT_ROWS = (rows, out)
    return out


def evidence_for(th: Theorem) -> Evidence | None:
    """Evidence recorded for this entry, or None; stale entries (statement hash changed) are ignored."""
    from .theorem import Evidence, Verdict

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


__all__ = ["evidence_for", "load_ledger", "load_ledger_file", "proofs_dir", "verdict_rows"]
