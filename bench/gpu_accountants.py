"""Batched tight accounting on a GPU vs the CPU: configurations per second and agreement.

Run on a machine with CUDA (the coordinator runs it on a lent H100):

    python bench/gpu_accountants.py [--n 2000] [--n-warm 10000] [--json out.json]

Prints, for the same random DP-SGD configurations (the grid of ``bench/accountants.py``'s batched
row and a typical sweep region), the rate of :func:`symdp.accountants.batched.epsilon_batch` on
``cuda`` and on ``cpu``, the rate of the single-configuration accountant (``accountants.epsilon``),
and the largest relative difference between the three (all are certified upper bounds).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def _grid(kind: str, n: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    if kind == "wide":  # bench/accountants.py batched grid
        return (rng.uniform(0.5, 3.0, n), rng.uniform(1e-3, 0.1, n), rng.integers(100, 50000, n),
                rng.choice([1e-5, 1e-6, 1e-8], n))
    return (rng.uniform(0.8, 2.0, n), 10 ** rng.uniform(-3, -2, n), rng.integers(1000, 20000, n), np.full(n, 1e-5))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--n-single", type=int, default=200, help="configurations for the single-config accountant")
    ap.add_argument("--n-warm", type=int, default=10000, help="a second, larger CUDA batch timed after the first (warm)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    import torch

    from symdp.accountants import epsilon
    from symdp.accountants.batched import epsilon_batch

    cuda = torch.cuda.is_available()
    out: dict[str, object] = {"cuda": cuda, "device_name": torch.cuda.get_device_name(0) if cuda else None,
                              "torch": torch.__version__, "cpu_threads": torch.get_num_threads()}
    for kind in ("typical", "wide"):
        s, q, T, d = _grid(kind, args.n)
        row: dict[str, object] = {"n": args.n}
        epsilon_batch(noise_multiplier=s[:8], sample_rate=q[:8], steps=T[:8], delta=d[:8], device="cpu")
        res = {}
        for dev in (["cuda"] if cuda else []) + ["cpu"]:
            if dev == "cuda":
                epsilon_batch(noise_multiplier=s[:8], sample_rate=q[:8], steps=T[:8], delta=d[:8], device=dev)
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            r = epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, device=dev)
            if dev == "cuda":
                torch.cuda.synchronize()
            dt = time.perf_counter() - t0
            res[dev] = r.epsilon
            row[f"batched_{dev}_configs_per_s"] = args.n / dt
            row[f"batched_{dev}_fallbacks"] = r.fallbacks
        if cuda and args.n_warm:
            sw, qw, Tw, dw = _grid(kind, args.n_warm, seed=1)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            rw = epsilon_batch(noise_multiplier=sw, sample_rate=qw, steps=Tw, delta=dw, device="cuda")
            torch.cuda.synchronize()
            row["batched_cuda_warm_n"] = args.n_warm
            row["batched_cuda_warm_configs_per_s"] = args.n_warm / (time.perf_counter() - t0)
            row["batched_cuda_warm_fallbacks"] = rw.fallbacks
        m = min(args.n_single, args.n)
        t0 = time.perf_counter()
        single = np.asarray(epsilon(noise_multiplier=s[:m], sample_rate=q[:m], steps=T[:m], delta=d[:m]).epsilon)
        row["single_cpu_configs_per_s"] = m / (time.perf_counter() - t0)
        if cuda:
            row["max_rel_diff_cuda_vs_cpu"] = float(np.max(np.abs(res["cuda"] / res["cpu"] - 1)))
        row["max_rel_diff_batched_vs_single"] = float(np.max(np.abs(res["cpu"][:m] / single - 1)))
        out[kind] = row
        print(kind, json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
