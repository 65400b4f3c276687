"""Benchmark symdp's DP-SGD accountants against dp_accounting, Opacus and prv_accountant (one process).

    python bench/accountants.py            # subsampled grid (a few minutes), markdown to stdout
    python bench/accountants.py --quick    # a handful of configurations
    python bench/accountants.py --json out.json

Configurations (issue 6): MNIST-like q = 256/60000, sigma in {0.5, 0.7, 1.0, 1.1, 1.3, 2.0},
1-100 epochs; CIFAR-like q in {0.02, 0.05, 0.1}, sigma in {0.6, 1.0, 3.0}, 10-200 epochs;
delta in {1e-5, 1e-6, 1e-8} (rotated over the grid to keep the run short).
Every method is timed per configuration in this process (best of REPEATS runs, the same for all),
after one warm-up call each; the machine is shared, so single timings are noisy.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
import warnings

import numpy as np

warnings.simplefilter("ignore")


REPEATS = 3  # every method, peers included, is timed REPEATS times per configuration; the minimum is reported


def _timed(fn, *a, repeats: int = 1, **k):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        v = fn(*a, **k)
        best = min(best, time.perf_counter() - t)
    return v, best


# ------------------------------------------------------------------ peers
def dpacc_pld(s, q, T, d):
    from dp_accounting import dp_event as E
    from dp_accounting.pld import pld_privacy_accountant as PLD

    acc = PLD.PLDAccountant()
    acc.compose(E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(s)), T))
    return acc.get_epsilon(d)


def dpacc_rdp(s, q, T, d):
    from dp_accounting import dp_event as E
    from dp_accounting.rdp import rdp_privacy_accountant as RA

    acc = RA.RdpAccountant()
    acc.compose(E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(s)), T))
    return acc.get_epsilon(d)


def opacus_eps(kind, s, q, T, d):
    from opacus.accountants import GaussianAccountant, PRVAccountant, RDPAccountant

    acc = {"prv": PRVAccountant, "rdp": RDPAccountant, "gdp": GaussianAccountant}[kind]()
    acc.history = [(s, q, T)]
    if kind == "gdp":
        return acc.get_epsilon(d, poisson=True)
    return acc.get_epsilon(d)


def prv_acc(s, q, T, d):
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

    acc = PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=q)],
                        max_self_compositions=[T], eps_error=0.05, delta_error=d / 100)
    return acc.compute_epsilon(delta=d, num_self_compositions=[T])


# ------------------------------------------------------------------ grid
def grid(quick: bool):
    deltas = [1e-5, 1e-6, 1e-8]
    out = []
    q = 256 / 60000
    k = 0
    sig_m = [0.5, 0.7, 1.0, 1.1, 1.3, 2.0]
    ep_m = [1, 10, 100]
    for s in sig_m:
        for e in ep_m:
            out.append(("MNIST", s, q, int(round(e / q)), deltas[k % 3], e))
            k += 1
    for qq in [0.02, 0.05, 0.1]:
        for s in [0.6, 1.0, 3.0]:
            for e in [10, 200]:
                out.append(("CIFAR", s, qq, int(round(e / qq)), deltas[k % 3], e))
                k += 1
    if quick:
        out = out[::6]
    return out


def machine() -> str:
    try:
        cpu = [line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")][0]
    except Exception:  # pragma: no cover
        cpu = platform.processor()
    mem = ""
    try:
        mem = f", {int(open('/proc/meminfo').readline().split()[1]) / 1024 / 1024:.0f} GiB RAM"
    except Exception:  # pragma: no cover
        pass
    return f"{cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}, numpy {np.__version__}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--skip-calibration", action="store_true")
    args = ap.parse_args()

    import dp_accounting
    import opacus
    import prv_accountant
    import torch

    import symdp.accountants as A

    def ours(acc, s, q, T, d):
        return A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant=acc).epsilon

    # warm-up: imports, generated kernels, FFT plans
    for f in (lambda: ours("tight", 1.0, 0.01, 100, 1e-5), lambda: ours("rdp", 1.0, 0.01, 100, 1e-5),
              lambda: ours("clt", 1.0, 0.01, 100, 1e-5), lambda: dpacc_pld(1.0, 0.01, 100, 1e-5),
              lambda: dpacc_rdp(1.0, 0.01, 100, 1e-5), lambda: opacus_eps("prv", 1.0, 0.01, 100, 1e-5),
              lambda: opacus_eps("rdp", 1.0, 0.01, 100, 1e-5), lambda: opacus_eps("gdp", 1.0, 0.01, 100, 1e-5),
              lambda: prv_acc(1.0, 0.01, 100, 1e-5)):
        f()

    rows = []
    for name, s, q, T, d, ep in grid(args.quick):
        r = {"set": name, "sigma": s, "q": q, "T": T, "epochs": ep, "delta": d}
        for key, fn in [
            ("symdp_tight", lambda: ours("tight", s, q, T, d)),
            ("symdp_rdp", lambda: ours("rdp", s, q, T, d)),
            ("symdp_clt", lambda: ours("clt", s, q, T, d)),
            ("dpacc_pld", lambda: dpacc_pld(s, q, T, d)),
            ("dpacc_rdp", lambda: dpacc_rdp(s, q, T, d)),
            ("opacus_prv", lambda: opacus_eps("prv", s, q, T, d)),
            ("opacus_rdp", lambda: opacus_eps("rdp", s, q, T, d)),
            ("opacus_gdp", lambda: opacus_eps("gdp", s, q, T, d)),
            ("prv", lambda: prv_acc(s, q, T, d)),
        ]:
            try:
                v, t = _timed(fn, repeats=REPEATS)
            except Exception as exc:  # a peer failing is data, not a crash
                v, t = f"error: {type(exc).__name__}: {exc}"[:120], float("nan")
            r[key] = v if not isinstance(v, tuple) else list(v)
            r[key + "_s"] = t
        rows.append(r)
        print(f"{name} s={s} q={q:.4g} T={T} d={d:g}: tight={r['symdp_tight']:.4f} ({r['symdp_tight_s']*1e3:.0f} ms) "
              f"dpacc_pld={r['dpacc_pld']} ({r['dpacc_pld_s']*1e3:.0f} ms) opacus_prv={r['opacus_prv']} "
              f"({r['opacus_prv_s']*1e3:.0f} ms) prv={r['prv']}", file=sys.stderr, flush=True)

    # ------------------------------------------------ batched throughput
    rng = np.random.default_rng(0)
    N = 10000
    sig = rng.uniform(0.5, 3.0, N)
    qq = rng.uniform(1e-3, 0.1, N)
    TT = rng.integers(100, 50000, N)
    dd = rng.choice([1e-5, 1e-6, 1e-8], N)
    A.epsilon(noise_multiplier=sig[:10], sample_rate=qq[:10], steps=TT[:10], delta=dd[:10], accountant="rdp")
    _, t_rdp = _timed(A.epsilon, noise_multiplier=sig, sample_rate=qq, steps=TT, delta=dd, accountant="rdp")
    # sweep: 100 (sigma, q) pairs x 100 (T, delta) each -- the shape of a hyper-parameter sweep
    s2 = np.repeat(rng.uniform(0.5, 3.0, 100), 100)
    q2 = np.repeat(rng.uniform(1e-3, 0.1, 100), 100)
    _, t_rdp_sweep = _timed(A.epsilon, noise_multiplier=s2, sample_rate=q2, steps=TT, delta=dd, accountant="rdp")
    Nt = 100
    _, t_tight = _timed(A.epsilon, noise_multiplier=sig[:Nt], sample_rate=qq[:Nt], steps=TT[:Nt], delta=dd[:Nt], accountant="tight")
    t_gpu = None
    if torch.cuda.is_available():
        A.rdp_torch(noise_multiplier=sig[:10], sample_rate=qq[:10])
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        A.rdp_torch(noise_multiplier=sig, sample_rate=qq)
        torch.cuda.synchronize()
        t_gpu = time.perf_counter() - t0
    batched = {
        "rdp_configs_per_s_distinct": N / t_rdp,
        "rdp_configs_per_s_sweep": N / t_rdp_sweep,
        "tight_configs_per_s_distinct": Nt / t_tight,
        "rdp_curves_per_s_gpu": (N / t_gpu) if t_gpu else None,
    }

    # ------------------------------------------------ calibration
    calib = []
    if not args.skip_calibration:
        from opacus.accountants.utils import get_noise_multiplier

        for (e, d, q, T) in ([(3.0, 1e-5, 256 / 60000, 11719), (8.0, 1e-5, 0.05, 2000)] if not args.quick else [(3.0, 1e-5, 0.02, 1000)]):
            r_ours, t_ours = _timed(A.calibrate_noise, target_epsilon=e, delta=d, sample_rate=q, steps=T)
            s_op, t_op = _timed(get_noise_multiplier, target_epsilon=e, target_delta=d, sample_rate=q, steps=T, accountant="prv")
            e_op = A.epsilon(noise_multiplier=s_op, sample_rate=q, steps=T, delta=d).epsilon
            calib.append({"target_epsilon": e, "delta": d, "q": q, "T": T, "symdp_sigma": r_ours.noise_multiplier,
                          "symdp_eps": r_ours.epsilon, "symdp_s": t_ours, "opacus_prv_sigma": s_op, "opacus_prv_s": t_op,
                          "symdp_tight_eps_at_opacus_sigma": e_op, "speedup": t_op / t_ours})

    out = {
        "machine": machine(),
        "versions": {"dp_accounting": getattr(dp_accounting, "__version__", "?"), "opacus": opacus.__version__,
                     "prv_accountant": getattr(prv_accountant, "__version__", "?"), "torch": torch.__version__},
        "rows": rows, "batched": batched, "calibration": calib,
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, default=str)
    print(markdown(out))


def markdown(out: dict) -> str:
    rows = out["rows"]
    L = []
    L.append(f"Machine: {out['machine']}; peers: " + ", ".join(f"{k} {v}" for k, v in out["versions"].items()) + ".")
    L.append("")
    L.append("| set | sigma | q | epochs | T | delta | symdp tight | symdp RDP | symdp CLT* | dp_acc PLD | dp_acc RDP | Opacus PRV | Opacus RDP | Opacus GDP* | prv_acc [lo, est, hi] | tight/dp_acc PLD - 1 | t tight ms | t dp_acc PLD ms | t Opacus PRV ms |")
    L.append("|" + "---|" * 19)
    ratios, sp_pld, sp_prv, below_lo = [], [], [], 0
    for r in rows:
        def f(k):
            v = r[k]
            return f"{v:.4g}" if isinstance(v, float) else str(v)
        pv = r["prv"]
        prv_s = f"[{pv[0]:.4g}, {pv[1]:.4g}, {pv[2]:.4g}]" if isinstance(pv, list) else str(pv)
        rel = r["symdp_tight"] / r["dpacc_pld"] - 1 if isinstance(r["dpacc_pld"], float) else float("nan")
        ratios.append(rel)
        if isinstance(pv, list) and r["symdp_tight"] < pv[0]:
            below_lo += 1
        sp_pld.append(r["dpacc_pld_s"] / r["symdp_tight_s"])
        sp_prv.append(r["opacus_prv_s"] / r["symdp_tight_s"])
        L.append(f"| {r['set']} | {r['sigma']} | {r['q']:.4g} | {r['epochs']} | {r['T']} | {r['delta']:g} | {f('symdp_tight')} | {f('symdp_rdp')} | "
                 f"{f('symdp_clt')} | {f('dpacc_pld')} | {f('dpacc_rdp')} | {f('opacus_prv')} | {f('opacus_rdp')} | {f('opacus_gdp')} | {prv_s} | "
                 f"{rel:+.3%} | {r['symdp_tight_s']*1e3:.1f} | {r['dpacc_pld_s']*1e3:.0f} | {r['opacus_prv_s']*1e3:.0f} |")
    L.append("")
    L.append("\\* approximations, not upper bounds.")
    L.append("")
    fin = [x for x in ratios if x == x]
    L.append(f"- tight vs dp_accounting PLD: max |rel. diff| {max(abs(x) for x in fin):.3%}, median {statistics.median(fin):+.3%}; "
             f"below prv_accountant's lower bound: {below_lo} of {len(rows)} configurations.")
    L.append(f"- per-configuration speed-up of symdp tight: vs dp_accounting PLD median {statistics.median(sp_pld):.1f}x (min {min(sp_pld):.1f}x); "
             f"vs Opacus PRV median {statistics.median(sp_prv):.1f}x (min {min(sp_prv):.1f}x).")
    b = out["batched"]
    L.append(f"- batched RDP: {b['rdp_configs_per_s_distinct']:,.0f} configurations/s (all (sigma, q) distinct), "
             f"{b['rdp_configs_per_s_sweep']:,.0f}/s (sweep: 100 (sigma, q) x 100 (T, delta)); tight: {b['tight_configs_per_s_distinct']:,.1f}/s"
             + (f"; RDP curves on GPU: {b['rdp_curves_per_s_gpu']:,.0f}/s" if b.get("rdp_curves_per_s_gpu") else "; no GPU in this run") + ".")
    for c in out["calibration"]:
        L.append(f"- calibration eps={c['target_epsilon']}, delta={c['delta']:g}, q={c['q']:.4g}, T={c['T']}: symdp tight sigma={c['symdp_sigma']:.4f} "
                 f"(eps {c['symdp_eps']:.4f}) in {c['symdp_s']:.2f} s; Opacus get_noise_multiplier(prv) sigma={c['opacus_prv_sigma']:.4f} in "
                 f"{c['opacus_prv_s']:.2f} s -> {c['speedup']:.1f}x; symdp tight eps at Opacus's sigma: {c['symdp_tight_eps_at_opacus_sigma']:.4f}.")
    return "\n".join(L)


if __name__ == "__main__":
    main()
