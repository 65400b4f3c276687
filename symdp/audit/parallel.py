r"""The audit on every core or a Dask cluster, with the verdict cache (issue 15).

The unit of work is one *task*, named by ids only (a library entry, a mechanism-level claim, a second
reading, the Figure 4 experiments), so a worker rebuilds exactly what the serial audit audits and
nothing is shipped but text.  A worker audits into a private temporary report directory and returns
the :class:`~symdp.audit.report.AuditResult` fields (as JSON-able dicts) and the files it wrote
(plots, certificates), which the parent writes into the report; so the report is the same whether a
worker shares the file system or runs on another machine.

Every task gets the same ``seed`` (never a running random state), so its result does not depend on
which worker runs it or when; results are put back in the serial audit's order, and the links
between library entries and their mechanism-level claims / readings are made in the parent after all
tasks are back, exactly as :func:`symdp.audit.engine.audit_algorithms_for` makes them.

>>> from symdp.parallel import executor
>>> with executor(1) as ex:
...     [r.verdict for r in audit_parallel(["he2021.lemma_kl"], ex, plots=False, algorithms=False)]
['HOLDS']
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path, PurePosixPath
from typing import Any

from ..cache import VerdictCache, cache_key, decode_files, encode_files, theorem_fingerprint
from ..parallel import TaskMap
from .recorded import RECORDED_KINDS
from .report import AuditResult

#: modules a forkserver worker imports once (SymPy, the library, the verifier)
PRELOAD = ("symdp.audit._warm",)

Task = tuple[str, str, bool, int, bool]  # (kind, ref, deep, seed, plots)
Payload = dict[str, Any]  # {"results": [AuditResult as dict, ...], "files": {relpath: base64}}


def _collect(d: Path) -> dict[str, bytes]:
    return {f.relative_to(d).as_posix(): f.read_bytes() for f in sorted(d.rglob("*")) if f.is_file()}


def _as_payload(results: list[AuditResult], d: Path) -> Payload:
    rows = json.loads(json.dumps([asdict(r) for r in results], default=str))  # what the JSON report sees
    return {"results": rows, "files": encode_files(_collect(d))}


def run_task(task: Task) -> Payload:
    """Audit one task in this process (module-level, so a process pool or Dask can call it)."""
    return _run_one(task)


def run_chain(tasks: Sequence[Task]) -> list[Payload]:
    """Audit several tasks one after the other in this process: the claims of one oracle, so the values they share
    (same oracle, same points) are computed once (:func:`symdp.verify.rungs.oracle.memo_call` and the oracles' own
    caches).  Each task's payload is what :func:`run_task` returns for it alone."""
    return [_run_one(t) for t in tasks]


def _run_one(task: Task) -> Payload:
    import time

    kind, ref, deep, seed, plots = task
    from ..limits import FIRED
    from ..verify.rungs.oracle import MEMO_STATS
    from .engine import PLOT_POINTS, STAGE_SECONDS, _kind_label, audit_theorem, stage
    from .severity import annotate

    STAGE_SECONDS.clear()
    PLOT_POINTS.clear()
    m0 = dict(MEMO_STATS)
    f0 = FIRED["time"]
    t0, c0 = time.monotonic(), _cpu()
    with tempfile.TemporaryDirectory(prefix="symdp-task-") as tmp:
        d = Path(tmp)
        plot_dir = d / "plots" if plots else None
        if kind == "claim":
            from ..library import get

            out = [audit_theorem(get(ref, with_evidence=False), deep=deep, seed=seed, plot_dir=plot_dir, report_dir=d)]
        elif kind == "ledger":  # --quick: the verdict recorded in the ledger, plotted here beside it
            from ..library import get
            from ..verify import load_ledger
            from .engine import ledger_result, plot_if_wanted

            th = get(ref, with_evidence=False)
            res = ledger_result(th, load_ledger()[ref], d)
            plot_if_wanted(th, res, plot_dir, d)
            out = [res]
        elif kind == "algo":
            from .algorithms import ALGORITHM_CLAIMS, audit_algorithm

            with stage("verify"):
                res = audit_algorithm(ALGORITHM_CLAIMS[ref])
            annotate(None, res)
            out = [res]
        elif kind == "reading":
            from .readings import READINGS

            rd = next(r for r in READINGS if r.theorem.id == ref)
            res = audit_theorem(rd.theorem, kind_label=_kind_label(rd.theorem))
            res.extra.update({"reading": rd.reading, "quote": rd.quote, "refines": [rd.refines]})
            out = [res]
        elif kind == "experiment":  # one model of Bu et al.'s experiments (a task each: they share no values)
            from .experiments import audit_experiment, experiment

            with stage("verify"):
                out = [audit_experiment(experiment(ref))]
            for res in out:
                annotate(None, res)
        elif kind == "experiments":  # all of them in one task (the serial order; kept for callers that name it)
            from .experiments import audit_experiments

            with stage("verify"):
                out = audit_experiments()
            for res in out:
                annotate(None, res)
        else:
            raise ValueError(f"task kind={kind!r} not in ('claim', 'ledger', 'algo', 'reading', 'experiment', "
                             "'experiments')")
        payload = _as_payload(out, d)
    stages = {k: round(v, 3) for k, v in STAGE_SECONDS.items()}
    memo = [MEMO_STATS["hits"] - m0["hits"], MEMO_STATS["misses"] - m0["misses"]]  # oracle values reused, computed
    return payload | {"seconds": round(time.monotonic() - t0, 3), "cpu": round(_cpu() - c0, 3), "stages": stages,
                      "memo": memo, "plot_points": dict(PLOT_POINTS), "limits_fired": FIRED["time"] - f0}


def _cpu() -> float:
    """CPU seconds of this process and of the children it waited for (z3 runs in a subprocess): what a task cost,
    whatever the machine's load."""
    import os

    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _safe_rel(rel: str) -> PurePosixPath:
    p = PurePosixPath(rel)
    if p.is_absolute() or ".." in p.parts or not p.parts:
        raise ValueError(f"task file path {rel!r} leaves the report directory")
    return p


def _tasks(ids: Sequence[str], deep: bool, seed: int, plots: bool, algorithms: bool,
           ledger_ids: Collection[str] = ()) -> list[Task]:
    tasks: list[Task] = [("ledger" if i in ledger_ids else "claim", i, deep, seed, plots) for i in ids]
    if algorithms:
        from .algorithms import algorithm_claims_for
        from .experiments import experiments_for
        from .readings import readings_for

        tasks += [("algo", ac.id, False, 0, False) for ac in algorithm_claims_for(ids)]
        tasks += [("reading", rd.theorem.id, False, 0, False) for rd in readings_for(ids)]
        if experiments_for(ids):
            from .experiments import all_experiments

            tasks += [("experiment", e.id, False, 0, False) for e in all_experiments()]
    return tasks


#: the file of :data:`TASK_SECONDS` (beside this module; ``python bench/audit.py --modes full-cold --costs FILE``
#: writes it from a cold full audit)
TASK_SECONDS_FILE = Path(__file__).with_name("task_seconds.json")


def _task_seconds() -> dict[str, float]:
    """:data:`TASK_SECONDS` read from :data:`TASK_SECONDS_FILE` (empty when it is missing or unreadable: the costs
    then come from the ledger and :data:`_KIND_SECONDS`)."""
    try:
        got = json.loads(TASK_SECONDS_FILE.read_text(encoding="utf-8"))["seconds"]
        return {str(k): float(v) for k, v in got.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


#: CPU seconds of every task of a cold full audit (library claims, mechanism-level claims, readings, experiments),
#: each measured in its worker by ``bench/audit.py`` (issue 25, session 35): only the order of the hand-out depends
#: on them, so that the longest start first.  A claim's ledger row (its ``symdp verify`` seconds) is a poor guide:
#: bu2020.clt_convergence takes 0.007 s there (verify computes its PLD brackets for an earlier entry) and 4.4 s of
#: CPU in the audit, where, handed out last, it ran alone for the final 4 s of a cold audit on 2 workers
TASK_SECONDS: dict[str, float] = _task_seconds()
#: a task of these kinds not in :data:`TASK_SECONDS`
_KIND_SECONDS = {"algo": 1.0, "reading": 1.0, "experiment": 1.0, "experiments": 7.0}
#: a ``--quick`` ledger task: reading the row (~0.01 s CPU), or reading it and drawing its plot (0.2-2.2 s, ~0.7 s
#: on average over the 59 plotted entries)
LEDGER_SECONDS, LEDGER_PLOT_SECONDS = 0.02, 0.7


def _cost(task: Task, ledger: dict[str, Any]) -> float:
    """Expected seconds (only orders the hand-out: longest first, so the workers finish together)."""
    kind, ref = task[0], task[1]
    if kind in _KIND_SECONDS:
        return TASK_SECONDS.get(ref, _KIND_SECONDS[kind])
    if kind == "claim" and ref in TASK_SECONDS:  # measured in the audit (plots included), not the ledger's verify time
        return TASK_SECONDS[ref]
    row = ledger.get(ref) or {}
    if kind == "ledger":  # the result is read; a refuted or partial one, and every comparison, is plotted
        return LEDGER_PLOT_SECONDS if task[4] and _plotted(ref, row) else LEDGER_SECONDS
    try:
        c = float(row.get("seconds", 1.0)) + 0.5
    except (TypeError, ValueError):
        c = 1.0
    if task[4] and kind == "claim" and row.get("verdict") in ("REFUTED", "PARTIAL"):
        from .plots import PLOT_SECONDS

        c += PLOT_SECONDS  # a refuted or partial claim is plotted after its verdict (up to the plot's time limit)
    return c


def _plotted(ref: str, row: dict[str, Any]) -> bool:
    """Whether :func:`symdp.audit.engine.plot_if_wanted` draws the ledger entry ``ref``: refuted or partial in its
    ledger ``row``, or a comparison."""
    if row.get("verdict") in ("REFUTED", "PARTIAL"):
        return True
    try:
        from ..library import get
        from ..theorem import Kind

        return get(ref, with_evidence=False).kind is Kind.COMPARISON
    except Exception:  # noqa: BLE001 - the cost only orders the work
        return False


def _share_key(task: Task) -> str | None:
    """The oracle a claim (or reading) is checked against, or the entries a mechanism-level claim refines (its
    reading beside it screens the same points: :func:`symdp.audit.pair_oracle._pair_delta_float` is memoised), or
    None: tasks with the same key share values when one worker runs them in a chain."""
    kind, ref = task[0], task[1]
    if kind == "algo":  # the claims that refine the same entries screen the same grid with the same eps' (memoised)
        from .algorithms import ALGORITHM_CLAIMS

        ac = ALGORITHM_CLAIMS.get(ref)
        return None if ac is None else "algo:" + ",".join(ac.refines)
    try:
        if kind in ("claim", "reading"):
            from ..verify.registry import oracle_for

            if kind == "claim":
                from ..library import get

                th = get(ref, with_evidence=False)
            else:
                from .readings import READINGS

                th = next(r for r in READINGS if r.theorem.id == ref).theorem
            return oracle_for(th.id, th.oracle)
    except Exception:  # noqa: BLE001 - grouping only orders the work
        return None
    return None


def chains(tasks: Sequence[Task], cost: Sequence[float], workers: int) -> list[list[int]]:
    """Indices of ``tasks`` grouped into chains run in one worker each: the tasks that share an oracle
    (:func:`_share_key`), cut so that no chain costs more than the larger of its dearest task and a quarter of one
    worker's share (so the longest-first hand-out can still even out the workers); every other task alone.
    Deterministic (task order within a chain, chains by first task); only where the work runs depends on it."""
    total = float(sum(cost))
    cap = total / (4 * max(1, workers))
    groups: dict[str, list[int]] = {}
    out: list[list[int]] = []
    for i, t in enumerate(tasks):
        k = _share_key(t)
        if k is None:
            out.append([i])
        else:
            if k not in groups:
                groups[k] = []
                out.append(groups[k])
            groups[k].append(i)
    cut: list[list[int]] = []
    for g in out:
        cur: list[int] = []
        c = 0.0
        for i in g:
            if cur and c + cost[i] > cap:
                cut.append(cur)
                cur, c = [], 0.0
            cur.append(i)
            c += cost[i]
        cut.append(cur)
    return cut


#: statement hashes of this process's theorem objects, by id (the object is kept: a hash is reused only for it)
_HASHES: dict[str, tuple[Any, str]] = {}


def _expr_hash(th: Any) -> str:
    """``th.expr_hash()`` (an srepr of the statement) computed once per theorem object: the ledger check of
    ``--quick`` and the cache key both need it."""
    got = _HASHES.get(th.id)
    if got is None or got[0] is not th:
        got = _HASHES[th.id] = (th, th.expr_hash())
    return got[1]


def _cache_parts(task: Task) -> dict[str, Any]:
    kind, ref, deep, seed, plots = task
    parts: dict[str, Any] = {"kind": kind, "ref": ref, "deep": deep, "seed": seed, "plots": plots}
    if kind in ("claim", "ledger"):
        from ..library import get
        from ..verify.consistency import special_case_rows

        th = get(ref, with_evidence=False)
        parts["theorem"] = theorem_fingerprint(th, _expr_hash(th))
        parts["special_cases"] = special_case_rows(th)  # the ledger rows verify_theorem's consistency rule read
    if kind == "ledger":
        from ..verify import load_ledger

        parts["ledger_row"] = json.dumps(load_ledger().get(ref), sort_keys=True, default=str)
    return parts  # algorithm claims, readings, experiments: fixed by the code version in the key


def task_key(task: Task) -> str:
    """The verdict cache's key of ``task`` (namespace ``audit``: the code version and :func:`_cache_parts`); also
    the fingerprint of its row in ``proofs/findings.json``, so a recorded row is current exactly when a cache entry
    written by this code for this task would be."""
    return cache_key("audit", _cache_parts(task))


def fill(tasks: Sequence[Task], ex: TaskMap, *, cache: VerdictCache | None = None,
         progress: Callable[[str], None] | None = None, recorded: Mapping[str, Payload] | None = None
         ) -> tuple[list[Payload], list[int], set[int]]:
    """The payload of each task: read from ``recorded`` (tasks of :data:`RECORDED_KINDS` whose :func:`task_key` is
    there), else from ``cache``, else computed on ``ex`` (and cached when :func:`_cacheable`).  Returns the payloads
    in task order, the indices of the computed tasks and those of the recorded ones."""
    payloads: list[Payload | None] = [None] * len(tasks)
    keys: list[str | None] = [None] * len(tasks)
    from_proofs: set[int] = set()
    if cache is not None or recorded:
        for i, t in enumerate(tasks):
            if cache is None and t[0] not in RECORDED_KINDS:
                continue
            keys[i] = task_key(t)
            if recorded and t[0] in RECORDED_KINDS and keys[i] in recorded:
                payloads[i] = recorded[keys[i] or ""]
                from_proofs.add(i)
            elif cache is not None:
                hit = cache.get("audit", keys[i] or "")
                if isinstance(hit, dict) and isinstance(hit.get("results"), list):
                    payloads[i] = hit
            if payloads[i] is not None and progress:
                progress(t[1] or t[0])
    todo = [i for i, p in enumerate(payloads) if p is None]
    try:
        from ..verify import load_ledger

        ledger = load_ledger()
    except Exception:  # noqa: BLE001 - the ledger only orders the work
        ledger = {}

    costs = [_cost(tasks[i], ledger) for i in todo]
    units = chains([tasks[i] for i in todo], costs, ex.workers)

    def done(u: int, got: list[Payload]) -> None:
        for j, payload in zip(units[u], got):
            i = todo[j]
            # a ledger row's UNDECIDED (UNCHECKED) is the ledger's, not this machine's load: cached like the rest
            if cache is not None and keys[i] and (tasks[i][0] == "ledger" or _cacheable(payload)):
                cache.put("audit", keys[i] or "", payload)
            if progress:
                progress(tasks[i][1] or tasks[i][0])

    if units:
        computed = ex.map(run_chain, [tuple(tasks[todo[j]] for j in u) for u in units],
                          cost=[sum(costs[j] for j in u) for u in units], progress=done)
        for u, got in zip(units, computed):
            for j, payload in zip(u, got):
                payloads[todo[j]] = payload
    out: list[Payload] = []
    for pl in payloads:
        assert pl is not None
        out.append(pl)
    return out, todo, from_proofs


def audit_parallel(ids: Sequence[str], ex: TaskMap, *, deep: bool = False, seed: int = 0, plots: bool = True,
                   report_dir: Path | None = None, algorithms: bool = True, cache: VerdictCache | None = None,
                   progress: Callable[[str], None] | None = None, ledger_ids: Collection[str] = (),
                   stats: dict[str, Any] | None = None, recorded: Mapping[str, Payload] | None = None
                   ) -> list[AuditResult]:
    """The audit of the library entries ``ids`` (and their mechanism-level claims, readings and experiments
    when ``algorithms``), mapped over ``ex``; the same results, in the same order, as
    :func:`symdp.audit.engine.audit_theorems` (library entries first, then the mechanism-level results).

    ``cache``: reuse and store verdicts (:class:`symdp.cache.VerdictCache`); ``progress(label)`` after each task.
    ``ledger_ids`` (``--quick``): entries whose current ledger verdict is reused instead of verified (their
    plots drawn in the workers, cached with the results).  ``recorded`` (``--quick``): the payloads ``symdp verify``
    recorded in ``proofs/findings.json`` by task key (:func:`symdp.audit.recorded.load_recorded`); a task of
    :data:`RECORDED_KINDS` whose key is there is read, not computed.  ``stats`` (a dict) receives, per task kind,
    the number of tasks, of cache hits (``cached``, recorded rows included, also counted in ``recorded``) and the
    seconds the computed ones took in their workers.
    """
    ids = list(ids)
    plots = plots and report_dir is not None
    tasks = _tasks(ids, deep, seed, plots, algorithms, ledger_ids)
    payloads, todo, from_proofs = fill(tasks, ex, cache=cache, progress=progress, recorded=recorded)
    if stats is not None:
        fresh = set(todo)
        for i, t in enumerate(tasks):
            row = stats.setdefault(t[0], {"tasks": 0, "cached": 0, "seconds": 0.0, "cpu": 0.0})
            row["tasks"] += 1
            if i in fresh:
                secs = float((payloads[i] or {}).get("seconds", 0.0))
                row["seconds"] += secs
                row["cpu"] += float((payloads[i] or {}).get("cpu", 0.0))
                stages = (payloads[i] or {}).get("stages") or {}
                stats.setdefault("_per_task", []).append([t[0], t[1] or t[0], round(secs, 3), stages,
                                                          float((payloads[i] or {}).get("cpu", 0.0))])
                hm = (payloads[i] or {}).get("memo") or [0, 0]
                tot_m = stats.setdefault("_memo", [0, 0])
                tot_m[0] += int(hm[0])
                tot_m[1] += int(hm[1])
                pts = stats.setdefault("_plot_points", {})
                for k, v in ((payloads[i] or {}).get("plot_points") or {}).items():
                    pts[k] = pts.get(k, 0) + int(v)
                tot = stats.setdefault("_stages", {})
                for k, v in stages.items():
                    tot[k] = round(tot.get(k, 0.0) + float(v), 3)
            else:
                row["cached"] += 1
                if i in from_proofs:
                    row["recorded"] = row.get("recorded", 0) + 1
    results_per_task: list[list[AuditResult]] = []
    for pl in payloads:
        results_per_task.append([AuditResult(**row) for row in pl["results"]])
        if report_dir is not None:
            _write_files(report_dir, pl)
    main = [rs[0] for t, rs in zip(tasks, results_per_task) if t[0] in ("claim", "ledger")]
    extra: list[AuditResult] = []
    by_id = {r.id: r for r in main}
    for t, rs in zip(tasks, results_per_task):
        kind, ref = t[0], t[1]
        if kind == "algo":
            from .algorithms import ALGORITHM_CLAIMS

            ac = ALGORITHM_CLAIMS[ref]
            extra += rs
            for r in main:
                if r.id in ac.refines:
                    r.extra["reading"] = (f"generic: T abstract (eps~, delta)-DP steps, not the algorithm; {ac.id} audits "
                                          "the theorem on the real mechanism")
                    r.extra["mechanism_claim"] = ac.id
                    from .severity import annotate, inherit_refutation

                    if any(inherit_refutation(r, a) for a in rs):  # as engine.audit_algorithms_for
                        annotate(None, r)
        elif kind == "reading":
            from .readings import READINGS

            rd = next(x for x in READINGS if x.theorem.id == ref)
            extra += rs
            r0 = by_id.get(rd.refines)
            if r0 is not None:
                r0.extra.setdefault("reading", "as printed")
                r0.extra["other_reading"] = rd.theorem.id
        elif kind in ("experiment", "experiments"):
            extra += rs
    from .engine import apply_audit_consistency

    apply_audit_consistency(main, seed=seed)  # as audit_theorems: a general entry whose special case fails is not HOLDS
    return main + extra




def current_ledger_ids(ids: Sequence[str]) -> set[str]:
    """The entries among ``ids`` whose ledger row is current (recorded for the same statement hash)."""
    from ..ledger_json import load_ledger
    from ..library import get

    led = load_ledger()
    return {i for i in ids if (e := led.get(i)) is not None and e.get("hash") == _expr_hash(get(i, with_evidence=False))}


def run_library_audit(ids: Sequence[str], *, workers: int | None = None, scheduler: str | None = None,
                      use_cache: bool = True, deep: bool = False, seed: int = 0, plots: bool = True,
                      report_dir: Path | None = None, progress: bool = False, algorithms: bool = True,
                      quick: bool = False, stats: dict[str, Any] | None = None) -> list[AuditResult]:
    """:func:`audit_parallel` on ``workers`` local processes (None: all cores) or a Dask ``scheduler``, with the
    verdict cache in the user cache directory unless ``use_cache`` is False, and a progress bar when ``progress``.
    ``quick``: entries whose ledger verdict is current (same statement hash) are read from it, not verified, and
    the mechanism-level results whose row in ``proofs/findings.json`` is current (same task key) are read from it."""
    from ..parallel import executor

    cache = VerdictCache() if use_cache else None
    ledger_ids = current_ledger_ids(ids) if quick else set()
    recorded: dict[str, Payload] = {}
    if quick and algorithms:
        from .recorded import load_recorded

        recorded = load_recorded()
    with executor(workers, scheduler, preload=PRELOAD) as ex:
        if not progress:
            return audit_parallel(ids, ex, deep=deep, seed=seed, plots=plots, report_dir=report_dir,
                                  algorithms=algorithms, cache=cache, ledger_ids=ledger_ids, stats=stats,
                                  recorded=recorded)
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        ntasks = len(_tasks(list(ids), deep, seed, plots, algorithms))
        with Progress(TextColumn(f"audit ({ex.describe()})"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TextColumn("{task.description}")) as bar:
            task = bar.add_task("", total=ntasks)

            def tick(label: str) -> None:
                bar.update(task, description=label)
                bar.advance(task)

            return audit_parallel(ids, ex, deep=deep, seed=seed, plots=plots, report_dir=report_dir,
                                  algorithms=algorithms, cache=cache, progress=tick, ledger_ids=ledger_ids,
                                  stats=stats, recorded=recorded)


def recorded_tasks(ids: Sequence[str]) -> list[Task]:
    """The tasks of :data:`~symdp.audit.parallel.RECORDED_KINDS` that ``symdp audit`` runs for the library entries
    ``ids`` (the same tuples, so the same keys): the mechanism-level ones, and the ``ledger`` task with plots of each
    entry whose ledger row is current (what ``symdp audit --quick`` runs for it with a report, the default)."""
    ids = list(ids)
    led = current_ledger_ids(ids)
    return ([("ledger", i, False, 0, True) for i in ids if i in led]
            + [t for t in _tasks(ids, False, 0, False, True) if t[0] in RECORDED_KINDS])


def recorded_current(ids: Sequence[str], root: Path | None = None) -> tuple[int, int]:
    """``(current, total)``: how many of the recorded tasks for ``ids`` have a current row in ``root/findings.json``."""
    from .recorded import load_recorded

    tasks = recorded_tasks(ids)
    rec = load_recorded(root)
    return sum(task_key(t) in rec for t in tasks), len(tasks)


def record(ids: Sequence[str] | None = None, *, workers: int | None = None, scheduler: str | None = None,
           use_cache: bool = True, root: Path | None = None, progress: bool = False) -> dict[str, Any]:
    """Compute (or read from the verdict cache) the audit's mechanism-level results for the library entries ``ids``
    (all the audit's claims when None) and write them to ``root/findings.json`` (default: where ``symdp verify``
    writes ``proofs/``).  With ``ids`` None the file is replaced; otherwise the rows of these tasks are replaced and
    the others kept.  Only ``symdp verify`` calls this.  Returns ``{"path", "recorded", "computed", "skipped"}``
    (``skipped``: the tasks whose result a time limit may have decided, not recorded).  See
    :mod:`symdp.audit.recorded`."""
    from .._io import atomic_write_text
    from .._paths import default_proofs_out, refuse_inside_package
    from .._provenance import provenance
    from ..cache import VerdictCache
    from ..parallel import executor
    from .engine import library_claims
    from .recorded import FILE, VERSION, _rows

    full = ids is None
    tasks = recorded_tasks([t.id for t in library_claims()] if ids is None else list(ids))
    root = refuse_inside_package("proofs directory", root or default_proofs_out())
    if not tasks and not full:
        return {"path": None, "recorded": 0, "computed": 0, "skipped": []}
    cache = VerdictCache() if use_cache else None
    with executor(workers, scheduler, preload=PRELOAD) as ex:
        if progress:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            with Progress(TextColumn("audit findings"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                          TextColumn("{task.description}")) as bar:
                bt = bar.add_task("", total=len(tasks))

                def tick(label: str) -> None:
                    bar.update(bt, description=label)
                    bar.advance(bt)

                payloads, todo, _ = fill(tasks, ex, cache=cache, progress=tick)
        else:
            payloads, todo, _ = fill(tasks, ex, cache=cache)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    if not full:
        rows = {(r["kind"], r["ref"]): r for r in _rows(root)}
    skipped = []
    for t, pl in zip(tasks, payloads):
        if t[0] == "ledger" or _cacheable(pl):  # a ledger row's UNDECIDED is the ledger's (as the cache rule in fill)
            rows[(t[0], t[1])] = {"kind": t[0], "ref": t[1], "key": task_key(t), "results": pl["results"],
                                  "files": pl.get("files") or {}}
        else:
            rows.pop((t[0], t[1]), None)
            skipped.append(t[1])
    root.mkdir(parents=True, exist_ok=True)
    doc = {"version": VERSION, "provenance": provenance(),
           "about": "the audit's mechanism-level results, written by `symdp verify`; `symdp audit --quick` reads a "
                    "row when its key is the task's verdict-cache key for the running code",
           "rows": [rows[k] for k in sorted(rows)]}
    # not sort_keys: a result's dicts keep their order (a counterexample's parameters read 'N = .., tau = ..' in
    # the report as when computed); the rows are sorted by (kind, ref), so the file is deterministic all the same
    atomic_write_text(root / FILE, json.dumps(doc, indent=1) + "\n")
    return {"path": root / FILE, "recorded": len(rows), "computed": len(todo), "skipped": skipped}



#: a claim-file task: (file text, path as given, claim index, deep, seed, plots, claim seconds, run seconds,
#: deadline of the run as a Unix time)
UserTask = tuple[str, str, int, bool, int, bool, float, float, float]


def run_user_task(task: UserTask) -> Payload:
    """Audit claim ``index`` of a claim file (its text travels with the task, so any worker can run it), with
    the per-claim limit and what is left of the run's limit, as :func:`symdp.audit.engine.audit_claim_file` does."""
    import time

    from ..limits import FIRED
    from .claims import parse_claims
    from .engine import _undecided, audit_user_claim

    text, path, index, deep, seed, plots, claim_seconds, run_seconds, deadline = task
    f0 = FIRED["time"]
    uc = parse_claims(text, path=path).claims[index]
    with tempfile.TemporaryDirectory(prefix="symdp-task-") as tmp:
        d = Path(tmp)
        left = deadline - time.time()
        if left <= 0:
            res = _undecided(uc, f"not checked: the run time limit of {run_seconds:g} s was reached")
        else:
            limit = min(claim_seconds, left)
            res = audit_user_claim(uc, limit=limit, which="per claim" if limit == claim_seconds else "of the run",
                                   deep=deep, seed=seed, plot_dir=d / "plots" if plots else None, report_dir=d)
        return _as_payload([res], d) | {"limits_fired": FIRED["time"] - f0}


def _user_parts(uc: Any, task: UserTask) -> dict[str, Any]:
    import sympy as sp

    def sr(x: Any) -> str | None:
        return None if x is None else sp.srepr(x)

    return {"theorem": theorem_fingerprint(uc.theorem), "kind": uc.kind, "factor_mode": uc.factor_mode,
            "ratio": sr(uc.ratio), "factor": sr(uc.factor), "var": sr(uc.var), "point": sr(uc.point),
            "deep": task[3], "seed": task[4], "plots": task[5], "claim_seconds": task[6]}


#: how the verifier begins the reason of an UNDECIDED result that no time limit or load can have decided: fixed
#: texts of the code (a lost formula, a reason written in :mod:`symdp.verify.oracles_undecided`, a statement with
#: nothing numeric to check), so the result is a function of the code and the claim, like a verdict
STRUCTURAL_UNDECIDED = ("formula unavailable:", "undecided:", "a statement between properties with no oracle",
                        "a definition with no oracle", "no lhs/rhs formula")
#: words of a reason that a time limit, a budget or an error may have given (never cached, even after a prefix above)
_TRANSIENT_WORDS = ("budget", "time limit", "timeout", "timed out", "exceeded", "verifier error", "interrupted")


def structural_undecided(detail: str | None) -> bool:
    """True when an UNDECIDED result's reason is a fixed one (:data:`STRUCTURAL_UNDECIDED`) and names no time limit."""
    d = (detail or "").strip()
    low = d.lower()
    return d.startswith(STRUCTURAL_UNDECIDED) and not any(w in low for w in _TRANSIENT_WORDS)


def _cacheable(payload: Payload) -> bool:
    """UNDECIDED results are not cached (a time limit or the machine's load may have decided them), except those
    whose reason is structural (:func:`structural_undecided`): the same code gives them again, whatever the load.
    Nor is any result computed while a wall-clock limit fired (``limits_fired``): a proof attempt cut short by the
    load (a symbolic rung's 8 s) leaves a weaker verdict, e.g. SUPPORTED where a quiet machine proves, and a cached
    copy would keep it on every later run."""
    if payload.get("limits_fired"):
        return False
    return all(r.get("verdict") != "UNDECIDED" or structural_undecided(r.get("detail"))
               for r in payload.get("results", []))


def run_claim_file_audit(path: str | Path, *, workers: int | None = None, scheduler: str | None = None,
                         use_cache: bool = True, deep: bool = False, seed: int = 0, plots: bool = True,
                         report_dir: Path | None = None, claim_seconds: float = 120.0, run_seconds: float = 1800.0,
                         progress: bool = False) -> list[AuditResult]:
    """:func:`symdp.audit.engine.audit_claim_file` with the claims spread over ``workers`` processes (None: all
    cores) or a Dask ``scheduler``, and the verdict cache: the same results in the same order (a claim is
    UNDECIDED when its limit, or the run's, is reached; with Dask the limits cannot interrupt a claim)."""
    import time

    from ..parallel import executor
    from .claims import load_claims

    cf = load_claims(path)  # raises ClaimFileError before anything runs
    text = Path(path).read_bytes().decode("utf-8")
    plots = plots and report_dir is not None
    cache = VerdictCache() if use_cache else None
    tasks: list[UserTask] = [(text, str(Path(path)), i, deep, seed, plots, claim_seconds, run_seconds, 0.0)
                             for i in range(len(cf.claims))]
    payloads: list[Payload | None] = [None] * len(tasks)
    keys = [""] * len(tasks)
    if cache is not None:
        for i, (uc, t) in enumerate(zip(cf.claims, tasks)):
            keys[i] = cache.key("audit-claim", _user_parts(uc, t))
            hit = cache.get("audit-claim", keys[i])
            if isinstance(hit, dict) and isinstance(hit.get("results"), list):
                payloads[i] = hit
    todo = [i for i, pl in enumerate(payloads) if pl is None]
    with executor(workers, scheduler, preload=PRELOAD) as ex:
        deadline = time.time() + run_seconds
        run = [(*tasks[i][:8], deadline) for i in todo]

        def done(j: int, payload: Payload) -> None:
            if cache is not None and _cacheable(payload):
                cache.put("audit-claim", keys[todo[j]], payload)

        for i, got in zip(todo, ex.map(run_user_task, run, progress=done)):
            payloads[i] = got
    out: list[AuditResult] = []
    for pl in payloads:
        assert pl is not None
        out += [AuditResult(**row) for row in pl["results"]]
        if report_dir is not None:
            _write_files(report_dir, pl)
    return out


def _write_files(report_dir: Path, pl: Payload) -> None:
    for rel, data in decode_files(pl.get("files") or {}).items():
        dest = report_dir / Path(*_safe_rel(rel).parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)


__all__ = ["PRELOAD", "RECORDED_KINDS", "audit_parallel", "chains", "fill", "run_chain", "current_ledger_ids", "run_claim_file_audit", "run_library_audit", "record", "recorded_current", "recorded_tasks", "run_task", "run_user_task", "task_key"]
