"""The audit's mechanism-level results recorded in ``proofs/findings.json`` (issue 25): written by ``symdp verify``,
read back by ``symdp audit --quick``; also ``--quick``'s view of each current ledger row with its plot (session 34:
drawing the 56 figures was all of a cold ``--quick``'s task time).

The ledger (``proofs/ledger.json``) holds the verdicts of library entries only; the audit also checks the
mechanism-level claims (``algo.*``), the second readings and Bu et al.'s experiments, which ``--quick`` would
otherwise recompute on a cold cache.  ``symdp verify`` (the command: the verifier sits below the audit, so the two
meet in :mod:`symdp.cli`) computes those tasks exactly as the audit does (:func:`symdp.audit.parallel.record` with :func:`symdp.audit.parallel.fill`, the
same workers, the same verdict cache) and records each one's results and files under its fingerprint, the verdict
cache's key of the task (:func:`symdp.audit.parallel.task_key`: the code version -- a hash of every source file
of the package and the generated kernels --, the task's kind and id, seed, ``deep`` and plots).  ``--quick`` reads
a row only when that key is the one this code computes for the task; any change of the code, or of the task,
makes the row stale and the task is computed as without ``--quick``.  A result that a time limit or the machine's
load may have decided (:func:`symdp.audit.parallel._cacheable` false) is not recorded.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> load_recorded(d)
{}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: the audit's task kinds whose results ``symdp verify`` records here and ``--quick`` reads back: the mechanism-level
#: claims, the second readings and the experiments (the ledger holds only library entries), and ``--quick``'s own
#: view of a ledger row (``ledger``: the result read from the ledger with its plot and certificate files; its key
#: holds the ledger row, so a row is current only beside the ledger it was drawn from)
RECORDED_KINDS = ("algo", "reading", "experiment", "experiments", "ledger")

#: the file under ``proofs/``
FILE = "findings.json"
#: bump when the layout of the file changes (a file of another version is read as empty)
VERSION = 1
#: the largest file read back
MAX_BYTES = 64 << 20


def _rows(root: Path) -> list[dict[str, Any]]:
    from .._io import read_text_limited

    try:
        data = json.loads(read_text_limited(root / FILE, limit=MAX_BYTES, what="findings file", error=ValueError))
    except (OSError, ValueError, RecursionError):
        return []
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("rows"), list):
        return []
    return [r for r in data["rows"] if isinstance(r, dict) and isinstance(r.get("key"), str)
            and r.get("kind") in RECORDED_KINDS and isinstance(r.get("ref"), str) and isinstance(r.get("results"), list)
            and all(isinstance(x, dict) for x in r["results"]) and isinstance(r.get("files", {}), dict)]


def load_recorded(root: Path | None = None) -> dict[str, dict[str, Any]]:
    """``{task key: {"results": [...], "files": {...}}}`` of ``root/findings.json`` (default: the shipped
    ``proofs/``); ``{}`` when it is absent, unreadable or of another version."""
    from ..ledger_json import proofs_dir

    return {r["key"]: {"results": r["results"], "files": r.get("files") or {}} for r in _rows(root or proofs_dir())}


__all__ = ["FILE", "RECORDED_KINDS", "VERSION", "load_recorded"]
