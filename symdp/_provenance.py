r"""What produced a result: the symdp version, the generated kernels it ran, the git commit.

Every artefact symdp writes (audit reports, DP-SGD certificates, the verification ledger)
records :func:`provenance` so that a number can be traced to the code that computed it.
The kernels are identified by hash, not by version string: ``generated/`` is written by
``symdp codegen`` and a rerun after a library change yields a different hash even when the
version stays the same.

>>> from symdp import provenance
>>> p = provenance()
>>> sorted(k for k in p if not k.startswith("git"))
['generated_manifest_sha256', 'generated_sha256', 'symdp_version']
>>> len(p["generated_sha256"])
64

This module imports neither SymPy nor torch: the runtime accountants may call it.
"""

from __future__ import annotations

import hashlib
import subprocess
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ._version import __version__

__all__ = ["kernel_hashes", "provenance"]

_GIT_TIMEOUT_S = 5.0


def provenance() -> dict[str, str | bool]:
    r"""Provenance of the running symdp, as a JSON-ready dict (a fresh copy on every call).

    Keys:

    - ``symdp_version``: ``symdp.__version__`` (stated once, in ``symdp/_version.py``);
    - ``generated_manifest_sha256``: SHA-256 of ``generated/MANIFEST.json`` (which maps every
      library entry to its kernels and the hash of the source expression they compile);
    - ``generated_sha256``: the ``combined`` hash of :func:`kernel_hashes` (every generated
      file: ``MANIFEST.json``, the accountants' data file, the numpy/torch/mpmath kernel
      modules), so a kernel edited by hand after ``symdp codegen`` changes it too;
    - ``git_commit`` and ``git_dirty`` (tracked files modified): only when symdp runs from
      a git checkout and ``git`` answers within a few seconds; absent otherwise (an
      installed wheel has no commit to report).

    A missing ``MANIFEST.json`` is reported as the string ``"missing"`` rather than raising:
    provenance must never stop a report from being written.
    """
    return dict(_provenance())


@lru_cache(maxsize=1)
def _provenance() -> tuple[tuple[str, str | bool], ...]:
    out: dict[str, str | bool] = {"symdp_version": __version__}
    out.update(_generated_hashes())
    out.update(_git())
    return tuple(out.items())


def kernel_hashes() -> dict[str, Any]:
    r"""SHA-256 of every generated file and a combined hash of them all.

    Returns ``{"files": {name: sha256}, "combined": sha256 | None}`` over the files of
    ``symdp.generated`` that ``symdp codegen`` writes (``MANIFEST.json``, the accountants' data
    file and the kernel modules: every ``*.py`` and ``*.json`` except ``__init__.py``), in name
    order; ``combined`` is the SHA-256 of the lines ``"<name>:<sha256>\n"``.  Empty files and
    ``None`` when the generated package is absent.  (The DP-SGD certificate records exactly this.)
    """
    try:
        root = resources.files("symdp.generated")
        files = sorted(
            (f for f in root.iterdir() if f.is_file() and _is_generated(f.name)), key=lambda f: f.name
        )
        out = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        return {"files": {}, "combined": None}
    combined = hashlib.sha256("".join(f"{k}:{v}\n" for k, v in out.items()).encode()).hexdigest() if out else None
    return {"files": out, "combined": combined}


def _generated_hashes() -> dict[str, str]:
    h = kernel_hashes()
    files: dict[str, str] = h["files"]
    return {
        "generated_manifest_sha256": files.get("MANIFEST.json", "missing"),
        "generated_sha256": h["combined"] or "missing",
    }


def _is_generated(name: str) -> bool:
    return name.endswith((".py", ".json")) and name != "__init__.py"


def _git() -> dict[str, str | bool]:
    top = Path(__file__).resolve().parent.parent
    if not (top / ".git").exists():
        return {}
    try:
        commit = subprocess.run(
            ["git", "-C", str(top), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=_GIT_TIMEOUT_S, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(top), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=_GIT_TIMEOUT_S, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {}
    if len(commit) != 40:
        return {}
    return {"git_commit": commit, "git_dirty": bool(dirty)}
