"""Time each worked chain of the theorem calculus (issue 10; target < 10 s each on this machine).

    python bench/derive.py [--rate]

Each chain is derived in a fresh process (no caches shared between chains); ``--rate`` also times
the rate of the chain's first conclusion parameter in its headline variable.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

RATE_VAR = {
    "gaussian_poisson_dwork_roth_he_thm1": ("T", "oo"),
    "gaussian_poisson_he_thm4_he_thm1": ("sigma", "oo"),
    "gaussian_poisson_kairouz_he_thm1": ("T", "oo"),
    "noisysgd_clt_duality_he_thm1": ("epsilon", "0"),
    "noisysgd_clt_duality_dwork2015": ("epsilon", "0"),
    "noisysgd_clt_eps_of_delta_he_thm1": ("T", "oo"),
    "sgld_001": ("N", "oo"),
}

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from symdp.calculus import WORKED_CHAINS, chain
t1 = time.perf_counter()
d = chain(WORKED_CHAINS[sys.argv[1]])
t2 = time.perf_counter()
out = {"import_s": t1 - t0, "chain_s": t2 - t1, "verdict": d.verdict.value, "hypotheses": len(d.hypotheses)}
if len(sys.argv) > 2:
    from symdp.asymptotics import rate
    param = next(iter(d.conclusion.params()))
    r = rate(d.closed_form(param), sys.argv[2], sys.argv[3], seconds=20)
    out["rate_s"] = time.perf_counter() - t2
    out["rate"] = r.describe()
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", action="store_true", help="also time the rate of the first parameter")
    args = ap.parse_args()
    from symdp.calculus import WORKED_CHAINS

    rows = []
    for name in WORKED_CHAINS:
        argv = [sys.executable, "-c", CHILD, name] + (list(RATE_VAR[name]) if args.rate else [])
        t0 = time.perf_counter()
        res = subprocess.run(argv, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t0
        rec = json.loads(res.stdout.strip().splitlines()[-1])
        rec.update(name=name, wall_s=wall)
        rows.append(rec)
        print(f"{name:40s} chain {rec['chain_s']:6.2f} s  (process {wall:6.2f} s, import {rec['import_s']:.2f} s)  "
              f"verdict {rec['verdict']:9s} hypotheses {rec['hypotheses']:3d}"
              + (f"  rate {rec['rate_s']:6.2f} s: {rec['rate'][:60]}" if "rate_s" in rec else ""), flush=True)
    worst = max(r["chain_s"] for r in rows)
    print(f"slowest chain: {worst:.2f} s (target < 10 s)")


if __name__ == "__main__":
    main()
