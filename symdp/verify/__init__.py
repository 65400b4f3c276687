r"""Verification: the ladder (symbolic, Z3, interval, numerical), oracles and the verdict ledger.

>>> from symdp.verify import verify_theorem
>>> from symdp.library import get
>>> verify_theorem(get("he2021.lemma_kl", with_evidence=False)).verdict.value
'PROVED'

``run`` verifies library entries and (by default) writes ``proofs/``;
``symdp verify`` is its command line.
"""

from __future__ import annotations

from typing import Iterable

from ..theorem import Verdict
from .engine import VerificationResult, verify_theorem
from .ledger import evidence_for, proofs_dir, replay, write_ledger


def run(
    ids: Iterable[str] | None = None,
    *,
    deep: bool = False,
    write: bool = True,
    progress: bool = True,
    seed: int = 0,
) -> list[VerificationResult]:
    """Verify the library entries ``ids`` (all when None); write ``proofs/`` when ``write``."""
    from ..library import all_theorems, get

    ids = list(ids) if ids else None
    ths = [get(i, with_evidence=False) for i in ids] if ids else all_theorems(with_evidence=False)
    results: list[VerificationResult] = []
    if progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("verify"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TextColumn("{task.description}"), transient=False) as bar:
            task = bar.add_task("", total=len(ths))
            for th in ths:
                bar.update(task, description=th.id)
                results.append(verify_theorem(th, deep=deep, seed=seed))
                bar.advance(task)
    else:
        results = [verify_theorem(th, deep=deep, seed=seed) for th in ths]
    if write:
        write_ledger(results, full=ids is None)
    return results


__all__ = ["VerificationResult", "verify_theorem", "run", "replay", "evidence_for", "proofs_dir", "write_ledger", "Verdict"]
