"""Time each worked chain of the theorem calculus, its rate, and its slack against the exact accountant.

    python bench/derive.py [--rate] [--json]

Each chain is derived in a fresh process (no caches shared between chains).  Per chain it reports
the derivation time, with ``--rate`` the rate of its first conclusion parameter in its headline
variable (and whether that limit stays inside the chain's hypotheses), and at three DP-SGD-like
settings the referee (:func:`symdp.referee.referee`): the (eps, delta) the chain derives for the
mechanism it describes against the mechanism algebra's rigorous bracket [lower, upper] of the exact
epsilon at that delta ("slack": derived / upper to derived / lower; the true slack lies between), or
why the referee does not apply (an approximate CLT step, a mechanism the accountants do not model).
A bracket without a rigorous lower end (a labelled fallback) is marked as such.  A chain through a
group-privacy bridge is refereed under replace-one adjacency (upper end: the algebra's replace-one dominating
pair; rigorous lower end: the same mechanism under add/remove), and its last add/remove conclusion before the
bridge is refereed too (printed below it); a chain with the CLT step is marked an APPROXIMATION.
"""

from __future__ import annotations

import argparse
import json
import os
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
    "sgm_rdp_cks_he_thm1": ("T", "oo"),
    "laplace_mean_dp_kl_okl_generalization": ("gamma", "0"),
}

#: three settings per chain family (sigma a noise multiplier for the SGM chain, a noise scale with
#: sensitivity Delta = 1 for the Gaussian-calibration chains, gamma the inverse noise scale of Wang et al.'s
#: Laplace mean release, and for 001's SGLD the Lipschitz constant L, noise sigma, batch tau of N examples, T steps)
SETTINGS = {
    "gaussian": [dict(Delta=1, sigma=30, q=0.01, T=1000, delta=1e-6, deltatilde=1e-6),
                 dict(Delta=1, sigma=60, q=0.001, T=10**4, delta=1e-8, deltatilde=1e-6),
                 dict(Delta=1, sigma=15, q=0.05, T=100, delta=1e-6, deltatilde=1e-5)],
    "laplace": [dict(gamma=0.05), dict(gamma=0.3), dict(gamma=2.0)],
    "sgld": [dict(L=1, sigma=1, tau=64, N=10**4, T=10**4, delta=1e-6, deltatilde=1e-5),
             dict(L=1, sigma=4, tau=64, N=10**5, T=10**4, delta=1e-6, deltatilde=1e-5),
             dict(L=1, sigma=2, tau=256, N=10**5, T=1000, delta=1e-6, deltatilde=1e-5)],
    # Bu et al.'s NoisySGD (Poisson rate p, noise multiplier sigma, T steps); epsilon for the duality chains (their
    # delta is derived), delta for the eps-of-delta chain
    "clt": [dict(sigma=1.1, p=0.01, T=1000, epsilon=2.0, delta=1e-5),
            dict(sigma=2.0, p=0.004, T=10**4, epsilon=1.0, delta=1e-6),
            dict(sigma=0.8, p=0.02, T=200, epsilon=4.0, delta=1e-5)],
    "sgm": [dict(sigma=1.1, q=0.01, T=1000, delta=1e-5, alpha=9),
            dict(sigma=2.0, q=0.004, T=10**4, delta=1e-6, alpha=22),
            dict(sigma=0.8, q=0.02, T=200, delta=1e-5, alpha=3)],
}

CHILD = r"""
import json, resource, sys, time
def cpu():  # this process and its finished children (chain() derives in a child process)
    return sum(resource.getrusage(w).ru_utime + resource.getrusage(w).ru_stime
               for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
t0 = time.perf_counter()
from symdp.calculus import WORKED_CHAINS, chain
from symdp.referee import referee
t1, c1 = time.perf_counter(), cpu()
ids = WORKED_CHAINS[sys.argv[1]]
d = chain(ids)
t2, c2 = time.perf_counter(), cpu()
out = {"import_s": t1 - t0, "chain_s": t2 - t1, "chain_cpu_s": c2 - c1, "verdict": d.verdict.value,
       "hypotheses": len(d.hypotheses), "approximate": d.approximate}
settings = json.loads(sys.argv[2])
out["referee"] = []
for b in settings:
    t = time.perf_counter()
    try:
        r = referee(ids, b)
    except Exception as exc:  # a setting outside the chain's hypotheses: reported, not hidden
        r = {"applies": True, "verdict": "ERROR", "reason": str(exc)[:160]}
    r["seconds"] = time.perf_counter() - t
    out["referee"].append({k: r.get(k) for k in ("applies", "verdict", "slack", "slack_max", "epsilon", "tight_epsilon",
                                                 "tight_lower", "tight_upper", "rigorous", "delta", "reason",
                                                 "adjacency", "approximate", "before_bridge", "tight_estimate",
                                                 "seconds")})
if len(sys.argv) > 3:
    param = next(iter(d.conclusion.params()))
    t = time.perf_counter()
    r = d.rate(param, sys.argv[3], sys.argv[4], seconds=30)
    out["rate_s"] = time.perf_counter() - t
    out["rate"] = r["describe"]
    out["region"] = r["region"]
print(json.dumps(out))
"""


def family_of(name: str) -> str:
    """The settings family (:data:`SETTINGS`) of worked chain ``name``."""
    return next((f for f in ("sgm", "laplace", "sgld") if name.startswith(f)), "clt" if "_clt_" in name else "gaussian")


def _line(r: dict) -> str:
    """One referee verdict: the derived eps against the bracket, which ends are rigorous, the slack."""
    if r.get("slack") is None:
        return f"{r['verdict'] or 'not refereed'}: {r['reason']}"
    ends = "rigorous" if r.get("rigorous") else "NO rigorous lower end: a fallback, or a pair that only dominates"
    if r.get("adjacency") == "replace_one":
        ends = "replace-one; " + ends
    if not r["tight_lower"] > 0:
        ends += "; lower end 0: vacuous"
    approx = " (an APPROXIMATION)" if r.get("approximate") else ""
    est = (f"; {r['epsilon'] / r['tight_estimate']:.3g}x the realised replace-one pair's {r['tight_estimate']:.4g} "
           "(an estimate, not a bound)") if r.get("tight_estimate") else ""
    return (f"eps {r['epsilon']:.4g}{approx} vs exact in [{r['tight_lower']:.4g}, {r['tight_upper']:.4g}] ({ends}) at "
            f"delta {r['delta']:.3g}: slack {r['slack']:.3g}x to {r['slack_max']:.3g}x{est} [{r['verdict']}]")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", action="store_true", help="also time the rate of the first parameter")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    from symdp.calculus import WORKED_CHAINS

    rows = []
    for name in WORKED_CHAINS:
        family = family_of(name)
        argv = [sys.executable, "-c", CHILD, name, json.dumps(SETTINGS[family])]
        if args.rate:
            argv += list(RATE_VAR[name])
        t0 = time.perf_counter()
        res = subprocess.run(argv, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t0
        rec = json.loads(res.stdout.strip().splitlines()[-1])
        rec.update(name=name, wall_s=wall)
        rows.append(rec)
        if args.json:
            continue
        print(f"{name:40s} chain {rec['chain_s']:6.2f} s, cpu {rec['chain_cpu_s']:6.2f} s  (process {wall:6.2f} s, "
              f"import {rec['import_s']:.2f} s)  "
              f"verdict {rec['verdict']:9s} hypotheses {rec['hypotheses']:3d}", flush=True)
        for b, r in zip(SETTINGS[family], rec["referee"]):
            at = ", ".join(f"{k}={v:g}" for k, v in b.items())
            if r["applies"] and r.get("slack") is not None:
                print(f"    at {at}: {_line(r)} ({r['seconds']:.2f} s)")
                if r.get("before_bridge"):
                    print(f"        before the group-privacy bridge: {_line(r['before_bridge'])}")
            else:
                print(f"    at {at}: {r['verdict'] or 'not refereed'}: {r['reason']}")
        if "rate_s" in rec:
            print(f"    rate {rec['rate_s']:6.2f} s: {rec['rate'][:140]}")
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    worst = max(rows, key=lambda r: r["chain_s"])
    print(f"slowest chain: {worst['chain_s']:.2f} s wall, {worst['chain_cpu_s']:.2f} s cpu ({worst['name']}; target < 10 s; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})")


if __name__ == "__main__":
    main()
