"""Scale-out benchmark (issue 15): the full audit's wall time on 1 and 2 local workers and on a local Dask
cluster (2 worker processes), and the sweep's throughput in configurations per second.

    python bench/scale.py                 # everything (the audit three times: ~10-20 min on 2 cores)
    python bench/scale.py --skip-audit    # sweep only
    python bench/scale.py --json out.json

Each audit run is the library audit as ``symdp audit`` runs it (plots, mechanism-level claims, readings,
experiments) with the verdict cache off, into a temporary report directory; the three runs must give
identical results (checked here, wall time excepted).  The machine's load average is printed with each
number: on a shared machine the speed-up says as much about the neighbours as about the code.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any


def _norm(results: list[Any]) -> list[dict[str, Any]]:
    rows = json.loads(json.dumps([asdict(r) for r in results], default=str))
    for r in rows:
        r["extra"].pop("seconds", None)
    return rows


def audit_once(workers: int | None, scheduler: str | None) -> tuple[float, list[dict[str, Any]]]:
    from symdp.audit.engine import library_claims
    from symdp.audit.parallel import run_library_audit

    ids = [t.id for t in library_claims()]
    with tempfile.TemporaryDirectory() as d:
        t0 = time.monotonic()
        res = run_library_audit(ids, workers=workers, scheduler=scheduler, use_cache=False, plots=True, report_dir=Path(d))
        return time.monotonic() - t0, _norm(res)


def sweep_once(workers: int, n_sigma: int, chunk: int, accountant: str) -> dict[str, Any]:
    from symdp.sweep import make_grid, run_sweep

    g = make_grid(sigma=f"lin:0.5:4:{n_sigma}", q="0.001,0.004,0.016,0.064", steps="100,1000,10000", delta="1e-5,1e-7",
                  epsilon=None, accountant=accountant)
    with tempfile.TemporaryDirectory() as d:
        rep = run_sweep(g, Path(d) / "s.parquet", chunk_size=chunk, workers=workers)
    return {"accountant": accountant, "workers": workers, "configurations": g.size, "chunk_size": chunk,
            "seconds": round(rep.seconds, 2), "configurations_per_s": round(rep.rate, 1), "load": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--skip-audit", action="store_true")
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--skip-sweep", action="store_true")
    ap.add_argument("--json", default=None, help="write the numbers here")
    a = ap.parse_args(argv)
    out: dict[str, Any] = {"cores": os.cpu_count(), "audit": [], "sweep": []}
    if not a.skip_audit:
        ref = None
        runs: list[tuple[str, int | None, str | None]] = [("1 worker", 1, None), ("2 workers", 2, None)]
        cluster = None
        if not a.skip_dask:
            from distributed import LocalCluster

            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40)
            runs.append(("Dask LocalCluster, 2 worker processes", None, cluster.scheduler_address))
        try:
            for name, w, sch in runs:
                load0 = os.getloadavg()[0]
                secs, rows = audit_once(w, sch)
                same = ref is None or rows == ref
                ref = ref or rows
                row = {"run": name, "seconds": round(secs, 1), "results": len(rows), "identical_to_1_worker": same,
                       "load_before": round(load0, 2), "load_after": round(os.getloadavg()[0], 2)}
                out["audit"].append(row)
                print(json.dumps(row), flush=True)
        finally:
            if cluster is not None:
                cluster.close()
        base = out["audit"][0]["seconds"]
        for row in out["audit"][1:]:
            row["speedup_vs_1"] = round(base / row["seconds"], 2)
            print(f"{row['run']}: {row['speedup_vs_1']}x faster than 1 worker", flush=True)
    if not a.skip_sweep:
        for acc, n_sigma, chunk in (("rdp", 50, 300), ("clt", 250, 1000), ("tight", 4, 24)):
            for w in (1, 2):
                row = sweep_once(w, n_sigma, chunk, acc)
                out["sweep"].append(row)
                print(json.dumps(row), flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
