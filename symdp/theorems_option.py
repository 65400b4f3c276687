"""``--theorems FILE`` on ``verify``, ``audit`` and ``account`` (``derive`` and ``codegen`` load the same way).

One loader for all of them: :func:`symdp.calculus.load_theorems` (the theorem files' safe grammar, parsed,
never executed) registers the file's theorems beside the library's for this process only; a bad file is
a one-line error naming it, exit status 2.  Nothing here writes into the installed package: ``verify``
records a file's results only in the directory the user names (``--out``), ``proofs/`` stays the library's.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from .errors import SymdpError

if TYPE_CHECKING:
    from .theorem import Theorem

__all__ = ["THEOREMS_HELP", "apply_referee", "audit_setup", "check_theorem_accountant", "load_or_exit",
           "verify_file_cmd"]

THEOREMS_HELP = "a TOML theorem file whose theorems to register first (parsed with the safe grammar, never executed)"


def _fail(msg: str) -> None:
    click.echo(f"error: {msg}", err=True)
    sys.exit(2)


def load_or_exit(path: str) -> list[Theorem]:
    """Register the theorems of ``path``; a bad file is a one-line error and exit 2."""
    from .calculus import load_theorems

    try:
        return load_theorems(path)
    except SymdpError as exc:
        _fail(f"--theorems {path}: {exc}")
    except OSError as exc:
        _fail(f"--theorems {path}: cannot read it ({exc.strerror or type(exc).__name__}); allowed: a readable TOML "
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
            _fail(f"--accountant {accountant}: {tid!r} is no theorem of the library or of --theorems; allowed: {have}")
        return accountant
    _fail(f"--accountant {accountant!r} is not allowed; allowed: {', '.join(names)} or theorem:ID")
    raise AssertionError("unreachable")  # pragma: no cover


def verify_file_cmd(theorem_file: str | None, out_dir: str | None, ids: Sequence[str], *, seed: int, deep: bool,
                    as_json: bool) -> None:
    """``symdp verify --theorems FILE --out DIR [IDS]``."""
    if theorem_file is None or out_dir is None:
        _fail("--theorems FILE and --out DIR go together; allowed: `symdp verify --theorems FILE --out DIR` "
              "(the results of a theorem file are written only to DIR, never to proofs/)")
    assert theorem_file is not None and out_dir is not None
    load_or_exit(theorem_file)
    from .referee import verify_theorem_file

    try:
        rows = verify_theorem_file(theorem_file, out_dir, ids, seed=seed, deep=deep)
    except SymdpError as exc:
        _fail(str(exc))
        return
    if as_json:
        click.echo(json.dumps({"version": 1, "entries": rows}, indent=1, default=str))
        return
    for row in rows:
        ref: dict[str, Any] = row["referee"]
        click.echo(f"{row['id']}: {row['verdict']}; referee: {ref.get('verdict') or 'not refereed'} -- "
                   f"{str(ref.get('reason', ''))[:200]}")
    click.echo(f"results written to {out_dir}/ledger.json and {out_dir}/LEDGER.md")


def audit_setup(theorem_file: str, ids: Sequence[str], workers: int | None,
                scheduler: str | None) -> tuple[tuple[str, ...], int, None]:
    """``symdp audit --theorems FILE [IDS]``: register the file's theorems and audit them as claims (all of
    them, or the given ``IDS`` among them) in this process (one worker, no scheduler: the registration is
    this process's)."""
    have = [t.id for t in load_or_exit(theorem_file)]
    unknown = sorted(set(ids) - set(have))
    if unknown:
        _fail(f"ids {', '.join(unknown)} are not theorems of {theorem_file}; allowed: {', '.join(have)}")
    if scheduler is not None:
        _fail("--scheduler with --theorems: the file's theorems are registered in this process only; allowed: "
              "--theorems without --scheduler")
    return tuple(ids) or tuple(have), 1, None


def apply_referee(results: list[Any]) -> None:
    """The exact-mechanism referee (:func:`symdp.referee.referee_theorem`) on audited user theorems: a typed
    composition theorem below the optimal composition somewhere FAILS with that point; otherwise the
    referee's slack is recorded beside the verdict (``extra["referee"]``)."""
    from .referee import referee_theorem

    for r in results:
        ref = referee_theorem(r.id)
        r.extra["referee"] = ref
        if ref.get("verdict") == "CONSISTENT":  # grid points are no proof: the verdict stays, the slack is shown
            r.detail = (f"{r.detail}; " if r.detail else "") + f"referee: consistent, {ref['reason']}"
        if ref.get("verdict") == "REFUTED":
            at = ref["at"]
            r.verdict = "FAILS"
            r.detail = f"referee: {ref['reason']}" + (f"; verifier: {r.detail}" if r.detail else "")
            r.counterexample = {k: repr(v) for k, v in at.items() if k not in ("E", "optimal_epsilon")}
            r.claimed, r.actual = f"{at['E']:.6g}", f"{at['optimal_epsilon']:.6g}"
