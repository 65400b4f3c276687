r"""Verification: the ladder (symbolic, Z3, interval, numerical), oracles and the verdict ledger.

>>> from symdp.verify import verify_theorem
>>> from symdp.library import get
>>> verify_theorem(get("he2021.lemma_kl", with_evidence=False)).verdict.value
'PROVED'

``run`` verifies library entries and (by default) writes ``proofs/``;
``symdp verify`` is its command line.

Layout (no import cycles; ``tests/test_verify_structure.py`` checks it):

- :mod:`.core`: the result type, budgets, time limits;
- :mod:`.compile`: expressions -> mpmath callables, hypothesis checks, sampling boxes;
- :mod:`.rungs`: one module per rung (symbolic, smt, interval, numerical, oracle, direct);
- :mod:`.engine`: the thin dispatcher (:func:`verify_theorem`);
- :mod:`.registry`: the oracle registry (imports no oracle); the oracle modules
  (:mod:`.oracles`, :mod:`.composition`, :mod:`.fdp`, :mod:`.montecarlo`, :mod:`.oracles_examples`,
  :mod:`.oracles_accounting`)
  register into it and are imported here;
- backends: :mod:`.smt` (Z3), :mod:`.interval` (arb), :mod:`.search` (sampling), :mod:`.ledger` (``proofs/``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..theorem import Verdict

# the oracle modules register into the registry; importing them here (not from the registry) keeps the
# package free of import cycles: registry <- oracle modules <- package
from . import (  # noqa: F401
    composition,
    fdp,
    montecarlo,
    oracles,
    oracles_accounting,
    oracles_conversion,
    oracles_examples,
    oracles_finite,
    oracles_learners,
    oracles_posterior,
    oracles_proofs,
    oracles_undecided,
)
from .compile import compile_expr, hyp_checker, sampling_box
from .consistency import apply_consistency, consult_ledger, recorded_rows, special_case_rows, special_cases
from .core import Timeout, VerificationResult, time_limit
from .engine import verify_theorem
from .ledger import evidence_for, load_ledger, load_ledger_file, proofs_dir, replay, write_ledger
from .registry import ORACLES, Oracle, get_oracle, register
from .rungs.oracle import oracle_functions, oracle_search_box


def run(
    ids: Iterable[str] | None = None,
    *,
    deep: bool = False,
    write: bool = True,
    progress: bool = True,
    seed: int = 0,
    workers: int | None = 1,
    scheduler: str | None = None,
    use_cache: bool = False,
) -> list[VerificationResult]:
    """Verify the library entries ``ids`` (all when None); write ``proofs/`` when ``write``.

    ``workers`` local processes (None: all cores) or a Dask ``scheduler``, and ``use_cache`` (the verdict
    cache), run the ladders through :mod:`symdp.verify.parallel` (issue 15); the results are the same.
    """
    from ..library import all_theorems, get

    ids = list(ids) if ids else None
    ths = [get(i, with_evidence=False) for i in ids] if ids else all_theorems(with_evidence=False)
    results: list[VerificationResult] = []
    if workers != 1 or scheduler or use_cache:
        import contextlib
        from typing import Any

        from .parallel import verify_parallel

        bar_cm: Any = contextlib.nullcontext(None)
        if progress:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            bar_cm = Progress(TextColumn("verify"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.description}"))
        with bar_cm as bar:
            task = bar.add_task("", total=len(ths)) if bar is not None else None

            def tick(label: str) -> None:
                if bar is not None and task is not None:
                    bar.update(task, description=label)
                    bar.advance(task)

            results = verify_parallel([t.id for t in ths], workers=workers, scheduler=scheduler, use_cache=use_cache,
                                      deep=deep, seed=seed, progress=tick)
    elif progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("verify"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TextColumn("{task.description}"), transient=False) as bar:
            task = bar.add_task("", total=len(ths))
            for th in ths:
                bar.update(task, description=th.id)
                results.append(verify_theorem(th, deep=deep, seed=seed, ledger=False))
                bar.advance(task)
    else:
        results = [verify_theorem(th, deep=deep, seed=seed, ledger=False) for th in ths]
    # a general entry whose special case fails cannot hold (issue 12 item 3); the special case may come from
    # this run or, for a partial run, from the ledger
    every = all_theorems(with_evidence=False) if ids else ths
    apply_consistency(results, every, recorded=recorded_rows(every))  # ledger rows for current statements only
    if write:
        write_ledger(results, full=ids is None)
    return results


#: the public verify API (the audit and the library use only these names)
__all__ = [
    "VerificationResult", "Verdict", "verify_theorem", "run",
    "replay", "evidence_for", "proofs_dir", "write_ledger", "load_ledger", "load_ledger_file",
    "compile_expr", "hyp_checker", "sampling_box", "time_limit", "Timeout",
    "Oracle", "ORACLES", "register", "get_oracle", "oracle_functions", "oracle_search_box", "apply_consistency", "consult_ledger", "recorded_rows", "special_case_rows",
    "special_cases",
]
