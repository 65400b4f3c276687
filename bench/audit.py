"""How long users wait for ``symdp audit`` (issue 25): cold and warm, full and ``--quick``, with their stages.

    python bench/audit.py                 # full cold, full warm, quick cold, quick warm (minutes on 2 cores)
    python bench/audit.py --modes quick-cold,quick-warm
    python bench/audit.py --json out.json
    python bench/audit.py --keep DIR          # each mode's audit.json as DIR/MODE.json (bench/compare_audit.py)

Each mode runs in a fresh interpreter (so imports count, as for a user) what ``symdp audit`` runs: the
library audit on all cores with plots and the verdict cache, then the reports.  "cold" starts from an
empty cache directory, "warm" reuses the one the cold run of the same kind filled.  Stages: start-up
(imports, the library), the audit (wall; per task kind the tasks, cache hits and the seconds the computed
ones took in their workers, wall and CPU), the reports (enrich, JSON, Markdown, HTML); the worker seconds per
stage (verify, exact check, severity, plot), the oracle values reused across claims, and the slowest tasks.  The
machine is shared: the 1-minute load average is printed before and after every run, and the CPU seconds (which
the load does not inflate) beside the wall times.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

MODES = ("full-cold", "full-warm", "quick-cold", "quick-warm")


def _one(mode: str, cache: str, workers: int | None, keep: str | None = None) -> dict:
    """Run one mode in this process (called in a fresh interpreter by :func:`main`)."""
    t0, c0 = time.perf_counter(), time.process_time()
    os.environ["SYMDP_CACHE_DIR"] = cache
    from pathlib import Path

    from symdp.audit.engine import library_claims
    from symdp.audit.parallel import PRELOAD, run_library_audit
    from symdp.audit.report import enrich, write_html, write_json, write_markdown
    from symdp.parallel import prestart

    prestart(workers, None, PRELOAD)  # as `symdp audit` does: the forkserver's imports overlap the library build
    ths = library_claims(None)
    t1, c1 = time.perf_counter(), time.process_time()
    stats: dict = {}
    with tempfile.TemporaryDirectory(prefix="symdp-bench-audit-") as out:
        res = run_library_audit([t.id for t in ths], workers=workers, plots=True, report_dir=Path(out),
                                quick=mode.startswith("quick"), stats=stats)
        t2, c2 = time.perf_counter(), time.process_time()
        order = {t.id: i for i, t in enumerate(ths)}
        res.sort(key=lambda r: order.get(r.id, len(order)))
        enrich(res, {t.id: t for t in ths}, {})
        meta = {"mode": mode}
        write_json(res, Path(out) / "audit.json", meta=meta)
        write_markdown(res, Path(out) / "audit.md", title="bench", meta=meta)
        write_html(res, Path(out) / "audit.html", title="bench", meta=meta)
        n_plots = len(list(Path(out).rglob("*.png")))
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            (Path(keep) / f"{mode}.json").write_bytes((Path(out) / "audit.json").read_bytes())
    t3, c3 = time.perf_counter(), time.process_time()
    verdicts: dict[str, int] = {}
    for r in res:
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    per_task = sorted(stats.pop("_per_task", []), key=lambda r: (-r[4] if len(r) > 4 else -r[2]))  # by CPU seconds
    stages = stats.pop("_stages", {})
    memo = stats.pop("_memo", [0, 0])
    plot_points = stats.pop("_plot_points", {})
    return {"mode": mode, "total_s": t3 - t0, "startup_s": t1 - t0, "audit_s": t2 - t1, "reports_s": t3 - t2,
            "parent_cpu": {"startup": round(c1 - c0, 2), "audit": round(c2 - c1, 2), "reports": round(c3 - c2, 2)},
            "results": len(res), "plots": n_plots, "verdicts": verdicts, "tasks": stats, "slowest": per_task[:15], "per_task": per_task, "stages": stages, "memo": memo, "plot_points": plot_points,
            "task_seconds": round(sum(r[2] for r in per_task), 1),
            "task_cpu": round(sum(r[4] for r in per_task if len(r) > 4), 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--keep", default=None, help="write each mode's audit.json as KEEP/MODE.json (for compare_audit.py)")
    ap.add_argument("--top", type=int, default=15, help="print the TOP slowest computed tasks of each mode")
    ap.add_argument("--costs", default=None, help="write the full-cold run's CPU seconds per task as a task-cost file "
                    "(symdp/audit/task_seconds.json orders the parallel audit's hand-out)")
    ap.add_argument("--_run", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--_cache", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._run:
        print(json.dumps(_one(args._run, args._cache, args.workers, args.keep)))
        return
    modes = [m for m in args.modes.split(",") if m]
    bad = [m for m in modes if m not in MODES]
    if bad:
        print(f"error: --modes {bad[0]!r} not in {', '.join(MODES)}", file=sys.stderr)
        sys.exit(2)
    rows = []
    with tempfile.TemporaryDirectory(prefix="symdp-bench-cache-") as root:
        for m in modes:
            cache = os.path.join(root, m.split("-")[0])  # warm reuses the cold run's cache of the same kind
            before = os.getloadavg()[0]
            cmd = [sys.executable, os.path.abspath(__file__), "--_run", m, "--_cache", cache]
            if args.workers:
                cmd += ["--workers", str(args.workers)]
            if args.keep:
                cmd += ["--keep", os.path.abspath(args.keep)]
            t = time.perf_counter()
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
            wall = time.perf_counter() - t
            if r.returncode:
                raise RuntimeError(f"{m} failed: {r.stderr[-800:]}")
            row = json.loads(r.stdout.strip().splitlines()[-1])
            row.update({"wall_s": wall, "load_before": before, "load_after": os.getloadavg()[0]})
            rows.append(row)
            kinds = ", ".join(f"{k} {v['tasks']} ({v['cached']} cached"
                              + (f" of which {v['recorded']} from proofs/findings.json" if v.get("recorded") else "")
                              + f", {v['seconds']:.1f} s in workers, {v.get('cpu', 0):.1f} s CPU)"
                              for k, v in sorted(row["tasks"].items()))
            pc = row["parent_cpu"]
            print(f"{m:10s} {wall:7.1f} s wall (start-up {row['startup_s']:.1f}, audit {row['audit_s']:.1f}, reports "
                  f"{row['reports_s']:.1f}; parent CPU {pc['startup']:.1f} + {pc['audit']:.1f} + {pc['reports']:.1f} s, "
                  f"task CPU {row.get('task_cpu', 0):.1f} s); {row['results']} results, {row['plots']} plots; load {before:.2f} -> "
                  f"{row['load_after']:.2f}; tasks: {kinds}", flush=True)
            if row["stages"]:
                print("    worker seconds per stage: " + ", ".join(f"{k} {v:.1f}" for k, v in
                                                             sorted(row["stages"].items(), key=lambda kv: -kv[1]))
                      + f"; CPU seconds of the computed tasks {row.get('task_cpu', 0):.1f}; oracle values reused "
                      f"{row.get('memo', [0, 0])[0]}, computed {row.get('memo', [0, 0])[1]}; plot points from float64 "
                      f"{row.get('plot_points', {}).get('float64', 0)}, mpmath {row.get('plot_points', {}).get('mpmath', 0)}",
                      flush=True)
            for kind, ref, secs, st, cpu in row["per_task"][:args.top]:
                st_txt = ", ".join(f"{k} {v:.1f}" for k, v in sorted(st.items(), key=lambda kv: -kv[1]) if v >= 0.05)
                print(f"    {secs:7.1f} s ({cpu:6.1f} s CPU)  {kind:11s} {ref:45s} {st_txt}", flush=True)
    walls = {r["mode"]: r["wall_s"] for r in rows}
    if walls:
        parts = []
        if "full-cold" in walls:
            parts.append(f"full cold {walls['full-cold']:.1f} s (target <= 60 s)")
        if "full-cold" in walls and "quick-cold" in walls:
            parts.append(f"quick cold {walls['quick-cold']:.1f} s: {walls['full-cold'] / walls['quick-cold']:.1f}x faster "
                         "than full cold (target >= 5x)")
        if "full-warm" in walls:
            parts.append(f"full warm {walls['full-warm']:.1f} s (target <= 10 s)")
        loads = [r["load_before"] for r in rows] + [r["load_after"] for r in rows]
        print(f"summary ({os.cpu_count()} cores, 1-minute load {min(loads):.2f}-{max(loads):.2f}"
              f"{'; LOADED machine: wall times are not quiet-machine figures' if max(loads) > 0.5 * (os.cpu_count() or 1) else ''}): "
              + "; ".join(parts), flush=True)
    cold = next((r for r in rows if r["mode"] == "full-cold"), None)
    if args.costs and cold is not None:
        secs = {r[1]: round(float(r[4]), 2) for r in cold["per_task"] if len(r) > 4}
        doc = {"about": "CPU seconds of each task of a cold full audit (symdp.audit.parallel.TASK_SECONDS): only the "
                        "order in which the parallel audit hands tasks out depends on them (longest first)",
               "measured": f"python bench/audit.py --modes full-cold ({os.cpu_count()} cores, workers "
                           f"{args.workers or 'all'}), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
               "seconds": dict(sorted(secs.items()))}
        with open(args.costs, "w") as f:
            f.write(json.dumps(doc, indent=1) + "\n")
        print(f"task costs of {len(secs)} tasks written to {args.costs}", flush=True)
    out = {"cores": os.cpu_count(), "workers": args.workers, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "runs": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
