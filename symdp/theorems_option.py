"""``--theorems FILE`` on ``verify``, ``audit`` and ``account`` (``derive`` and ``codegen`` load the same way).

One loader for all of them: :func:`symdp.library.implications.load_theorem_file` (the theorem files' safe
grammar, parsed, never executed) registers the file's theorems beside the library's for this process only;
a bad file is a one-line error naming it, exit status 2.  Layer 5 (beside the accountants, whose ``account``
command uses it); the ``verify`` and ``audit`` drivers built on the referee are in :mod:`symdp.referee`.
Nothing writes into the installed package: ``verify`` records a file's results only in the directory the
user names (``--out``), ``proofs/`` stays the library's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from .errors import SymdpError

if TYPE_CHECKING:
    from .theorem import Theorem

__all__ = ["THEOREMS_HELP", "check_theorem_accountant", "fail", "load_or_exit"]

THEOREMS_HELP = "a TOML theorem file whose theorems to register first (parsed with the safe grammar, never executed)"


def fail(msg: str) -> None:
    click.echo(f"error: {msg}", err=True)
    sys.exit(2)


def load_or_exit(path: str) -> list[Theorem]:
    """Register the theorems of ``path``; a bad file is a one-line error and exit 2."""
    from .library.implications import load_theorem_file

    try:
        return load_theorem_file(path)
    except SymdpError as exc:
        fail(f"--theorems {path}: {exc}")
    except OSError as exc:
        fail(f"--theorems {path}: cannot read it ({exc.strerror or type(exc).__name__}); allowed: a readable TOML "
              "theorem file")
    raise AssertionError("unreachable")  # pragma: no cover


def check_theorem_accountant(accountant: str, loaded: Sequence[Theorem], *, names: Sequence[str]) -> str:
    """``accountant`` is one of ``names`` or ``theorem:ID`` with ``ID`` a theorem of the loaded file or the
    library; otherwise a one-line error and exit 2."""
    if accountant in names:
        return accountant
    if accountant.startswith("theorem:"):
        tid = accountant[len("theorem:"):]
        from .library import get

        try:
            get(tid)
        except SymdpError:
            have = ", ".join(f"theorem:{t.id}" for t in loaded) or "none loaded (give --theorems FILE)"
            fail(f"--accountant {accountant}: {tid!r} is no theorem of the library or of --theorems; allowed: {have}")
        return accountant
    fail(f"--accountant {accountant!r} is not allowed; allowed: {', '.join(names)} or theorem:ID")
    raise AssertionError("unreachable")  # pragma: no cover
