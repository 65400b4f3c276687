r"""``symdp verify`` on every core or a Dask cluster, with the verdict cache (issue 15).

:func:`verify_theorem` is pure, so the ladder of each library entry is one task, named by the entry's id
(a worker rebuilds the theorem from the library, nothing but text is shipped); a result comes back as a
JSON-able dict (:func:`result_to_json`), which is also what the verdict cache stores, so a result is the
same whether it was computed here, on a worker, or read from the cache.  Each entry gets the run's
seed (never a running random state) and results come back in library order: identical for any number
of workers.  The consistency pass between special cases and general entries and the ledger writing
stay in :func:`symdp.verify.run`, after all results are back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from ..cache import VerdictCache, theorem_fingerprint
from ..parallel import executor
from ..theorem import Evidence, Verdict
from .core import VerificationResult

#: modules the forkserver imports once (the library is built there, so workers start warm)
PRELOAD = ("symdp.audit._warm",)


def result_to_json(res: VerificationResult) -> dict[str, Any]:
    d = asdict(res)
    ev = res.evidence
    d["evidence"] = {"verdict": ev.verdict.value, "rung": ev.rung, "detail": ev.detail, "certificate": ev.certificate,
                     "counterexample": [list(p) for p in ev.counterexample] if ev.counterexample else None,
                     "cases": ev.cases}
    return d


def result_from_json(d: dict[str, Any]) -> VerificationResult:
    e = dict(d["evidence"])
    cx = e.get("counterexample")
    ev = Evidence(Verdict(e["verdict"]), e.get("rung"), e.get("detail", ""), e.get("certificate"),
                  tuple((str(a), str(b)) for a, b in cx) if cx else None, e.get("cases"))
    rest = {k: v for k, v in d.items() if k not in ("evidence", "limits_fired")}
    return VerificationResult(evidence=ev, **rest)


def verify_task(task: tuple[str, bool, int]) -> dict[str, Any]:
    """The ladder on one library entry in this process (module-level: a process pool or Dask can call it)."""
    from ..library import get
    from ..limits import FIRED
    from .engine import verify_theorem

    ident, deep, seed = task
    f0 = FIRED["time"]
    # the ledger's special cases are consulted by run() for the whole batch (not cached with the entry)
    row = result_to_json(verify_theorem(get(ident, with_evidence=False), deep=deep, seed=seed, ledger=False))
    return row | {"limits_fired": FIRED["time"] - f0}  # a wall-clock limit fired: the result may depend on the load


def verify_parallel(ids: Sequence[str], *, workers: int | None = None, scheduler: str | None = None,
                    use_cache: bool = False, deep: bool = False, seed: int = 0,
                    progress: Callable[[str], None] | None = None) -> list[VerificationResult]:
    """:func:`verify_theorem` for each library entry of ``ids`` on ``workers`` processes (None: all cores) or a
    Dask ``scheduler``; in the order of ``ids``.  ``use_cache``: reuse verdicts of unchanged entries."""
    from ..library import get

    ids = list(ids)
    tasks = [(i, deep, seed) for i in ids]
    cache = VerdictCache() if use_cache else None
    got: list[dict[str, Any] | None] = [None] * len(ids)
    keys: list[str] = [""] * len(ids)
    if cache is not None:
        for j, i in enumerate(ids):
            keys[j] = cache.key("verify", {"theorem": theorem_fingerprint(get(i, with_evidence=False)), "deep": deep, "seed": seed})
            hit = cache.get("verify", keys[j])
            if isinstance(hit, dict) and "evidence" in hit:
                got[j] = hit
                if progress:
                    progress(i)
    todo = [j for j, g in enumerate(got) if g is None]
    try:
        from . import load_ledger

        led = load_ledger()
    except Exception:  # noqa: BLE001 - the ledger only orders the work
        led = {}

    def cost(i: str) -> float:
        try:
            return float((led.get(i) or {}).get("seconds", 1.0))
        except (TypeError, ValueError):
            return 1.0

    def done(k: int, row: dict[str, Any]) -> None:
        j = todo[k]
        # UNCHECKED, or any result computed while a wall-clock limit fired (a proof attempt cut short by the load
        # leaves a weaker verdict): not cached
        if cache is not None and row["evidence"]["verdict"] != Verdict.UNCHECKED.value and not row.get("limits_fired"):
            cache.put("verify", keys[j], row)
        if progress:
            progress(ids[j])

    with executor(workers, scheduler, preload=PRELOAD) as ex:
        rows = ex.map(verify_task, [tasks[j] for j in todo], cost=[cost(ids[j]) for j in todo], progress=done)
    for j, row in zip(todo, rows):
        got[j] = row
    return [result_from_json(g) for g in got if g is not None]


__all__ = ["result_from_json", "result_to_json", "verify_parallel", "verify_task"]
