r"""Verdict cache (issue 15): a rerun of the audit or the verifier redoes only what changed.

An entry is keyed by a SHA-256 over

* what the claim states: its id, the statement hash (:meth:`symdp.theorem.Theorem.expr_hash`: lhs, relation,
  rhs, hypotheses) and the rest of what the verifier reads (domain, kind, oracle, quantity, expansion,
  tags, the label the audit gives it);
* the verifier version: :data:`symdp.__version__` plus a hash of every source file of the installed
  ``symdp`` package and of the generated kernels (``generated/``), so *any* change of the code (a
  rung, an oracle, a library module) invalidates every entry: conservative, a stale verdict is never
  served, at the price of a full rerun after an upgrade or a library edit;
* the run's settings: seed, ``deep``, plots.

The cache lives in the user's cache directory, ``$SYMDP_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/symdp``, else ``~/.cache/symdp``; never inside the installed package.  Entries are
JSON files (``<dir>/<namespace>/<kk>/<key>.json``) written atomically (:mod:`symdp._io`); a corrupt or
unreadable entry is a miss, never an error.  Nothing in the cache is ever executed or unpickled.

>>> import tempfile
>>> c = VerdictCache(tempfile.mkdtemp())
>>> k = c.key("audit", {"id": "x", "hash": "abc"})
>>> c.get("audit", k) is None
True
>>> _ = c.put("audit", k, {"verdict": "HOLDS"})
>>> c.get("audit", k)
{'verdict': 'HOLDS'}
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import sympy as sp

from ._io import atomic_write_text, read_text_limited
from .errors import InvalidParameterError

#: bump when the layout of a cache entry changes
CACHE_FORMAT = 1
#: the largest cache entry read back (bigger ones are misses)
MAX_ENTRY_BYTES = 64 << 20


def cache_dir() -> Path:
    """``$SYMDP_CACHE_DIR``, else ``$XDG_CACHE_HOME/symdp``, else ``~/.cache/symdp``."""
    env = os.environ.get("SYMDP_CACHE_DIR")
    if env:
        from ._paths import PACKAGE_DIR, inside_package

        if inside_package(env):
            raise InvalidParameterError(f"SYMDP_CACHE_DIR={env!r} is inside the installed symdp package "
                                        f"({PACKAGE_DIR}); allowed: a directory of your own")
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "symdp"


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """symdp's version and a hash of its source files and generated kernels (the "verifier version")."""
    from . import __version__
    from ._paths import shipped_generated

    return f"{__version__}+{tree_hash(Path(__file__).resolve().parent, shipped_generated(), __version__)}"


#: the package's subdirectories that are not its source: the generated kernels (hashed as such, wherever they lie)
#: and the shipped ``proofs/`` (written by ``symdp verify``, not code)
_NOT_SOURCE = ("generated", "_proofs")


def tree_hash(pkg: Path, generated: Path, version: str) -> str:
    """The hash in :func:`code_version`: the source files under ``pkg`` and the files of ``generated``, each by its
    path relative to its own root.  A checkout (``generated/`` beside the package, ``proofs/`` outside it) and an
    installed wheel (``symdp/generated``, ``symdp/_proofs``) of the same code give the same hash, so the rows that
    ``symdp verify`` records under these keys are current in both."""
    h = hashlib.sha256(f"{version}|{CACHE_FORMAT}".encode())
    for root, skip in ((pkg, _NOT_SOURCE), (generated, ())):
        if not root.is_dir():
            continue
        for f in sorted(root.rglob("*")):
            rel = f.relative_to(root)
            if rel.parts[0] in skip:
                continue
            if f.is_file() and f.suffix in (".py", ".json", ".toml", ".txt", ".smt2") and "__pycache__" not in f.parts:
                h.update(str(rel).encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


def theorem_fingerprint(th: Any, expr_hash: str | None = None) -> dict[str, Any]:
    """What the verifier reads from a :class:`~symdp.theorem.Theorem`, as JSON-able text (srepr); ``expr_hash``:
    ``th.expr_hash()`` when the caller has it already."""
    def sr(x: Any) -> str:
        return x if isinstance(x, str) else sp.srepr(x)

    exp = getattr(th, "expansion", None)
    return {
        "id": th.id,
        "hash": th.expr_hash() if expr_hash is None else expr_hash,
        "kind": getattr(th.kind, "value", str(th.kind)),
        "domain": [[sr(s), sr(lo), sr(hi)] for s, lo, hi in th.domain],
        "oracle": th.oracle,
        "quantity": getattr(th, "quantity", None),
        "expansion": None if exp is None else repr(exp),
        "tags": sorted(map(str, th.tags)),
        "formula_available": bool(getattr(th, "formula_available", True)),
    }


def cache_key(namespace: str, parts: dict[str, Any]) -> str:
    """The SHA-256 key of an entry: ``namespace``, :func:`code_version` and ``parts`` (what the result depends on).
    :meth:`VerdictCache.key`; ``symdp verify`` records the audit's mechanism-level results under the same key."""
    blob = json.dumps({"ns": namespace, "code": code_version(), **parts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class VerdictCache:
    """JSON entries under ``root`` (default :func:`cache_dir`); see the module docstring."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else cache_dir()
        self.hits = 0
        self.misses = 0

    def key(self, namespace: str, parts: dict[str, Any]) -> str:
        return cache_key(namespace, parts)

    def _path(self, namespace: str, key: str) -> Path:
        return self.root / namespace / key[:2] / f"{key}.json"

    def get(self, namespace: str, key: str) -> Any:
        p = self._path(namespace, key)
        try:  # bounded, regular files only: a planted FIFO or /dev/zero link is a miss, not a hang
            doc = json.loads(read_text_limited(p, limit=MAX_ENTRY_BYTES, what="cache entry", error=ValueError))
        except (OSError, ValueError, RecursionError):
            self.misses += 1
            return None
        if not isinstance(doc, dict) or doc.get("key") != key or doc.get("format") != CACHE_FORMAT:
            self.misses += 1
            return None
        self.hits += 1
        return doc.get("value")

    def put(self, namespace: str, key: str, value: Any) -> Path | None:
        """Store ``value`` (JSON-able); a cache that cannot be written is skipped silently (it is only a cache)."""
        try:
            return atomic_write_text(self._path(namespace, key), json.dumps({"format": CACHE_FORMAT, "key": key, "value": value}))
        except OSError:
            return None


def encode_files(files: dict[str, bytes]) -> dict[str, str]:
    return {k: base64.b64encode(v).decode("ascii") for k, v in files.items()}


def decode_files(files: dict[str, str]) -> dict[str, bytes]:
    return {k: base64.b64decode(v.encode("ascii")) for k, v in files.items()}


__all__ = ["CACHE_FORMAT", "VerdictCache", "cache_dir", "cache_key", "code_version", "decode_files", "encode_files", "theorem_fingerprint",
           "tree_hash"]
