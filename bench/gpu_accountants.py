"""Batched tight accounting on a GPU vs the CPU: configurations per second and agreement.

Run on a machine with CUDA (the coordinator runs it on a lent H100):

    python bench/gpu_accountants.py [--n 2000] [--n-warm 10000 50000] [--json out.json] [--profile DIR]

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
    ap.add_argument("--n-warm", type=int, nargs="*", default=[10000],
                    help="larger CUDA batches timed after the first (warm), one rate per size")
    ap.add_argument("--json", default=None)
    ap.add_argument("--profile", default=None, metavar="DIR",
                    help="profile one warm typical CUDA batch (the first --n-warm size): torch.profiler's kernel table "
                         "and cProfile's host table written to DIR")
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
        for i, nw in enumerate(args.n_warm if cuda else []):
            sw, qw, Tw, dw = _grid(kind, nw, seed=1 + i)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            rw = epsilon_batch(noise_multiplier=sw, sample_rate=qw, steps=Tw, delta=dw, device="cuda")
            torch.cuda.synchronize()
            row[f"batched_cuda_warm_{nw}_configs_per_s"] = nw / (time.perf_counter() - t0)
            row[f"batched_cuda_warm_{nw}_fallbacks"] = rw.fallbacks
            row[f"batched_cuda_warm_{nw}_peak_gib"] = torch.cuda.max_memory_allocated() / 2**30
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
    if args.profile and args.n_warm:
        _profile(args.profile, args.n_warm[0], "cuda" if cuda else "cpu")


def _profile(outdir: str, n: int, dev: str) -> None:
    """Where one warm typical batch's time goes: GPU kernel time (torch.profiler, by self CUDA time) against the
    wall clock, and the host's Python time (cProfile: time spent waiting on the device shows up at the call that
    synchronises)."""
    import cProfile
    import io
    import pstats

    import torch
    from torch.profiler import ProfilerActivity, profile

    from symdp.accountants.batched import epsilon_batch

    os.makedirs(outdir, exist_ok=True)
    s, q, T, d = _grid("typical", n, seed=7)
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, device=dev)  # warm-up, same shapes
    sync()
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev == "cuda" else [])
    with profile(activities=acts) as prof:
        t0 = time.perf_counter()
        epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, device=dev)
        sync()
        wall = time.perf_counter() - t0
    ka = prof.key_averages()
    gpu_us = sum(e.self_device_time_total for e in ka)
    with open(os.path.join(outdir, "torch_profile.txt"), "w") as f:
        f.write(f"n={n} wall={wall:.4f}s (under the profiler) gpu_kernel_time={gpu_us / 1e6:.4f}s "
                f"launches={sum(e.count for e in ka if e.self_device_time_total > 0)}\n")
        f.write(ka.table(sort_by="self_device_time_total" if dev == "cuda" else "self_cpu_time_total", row_limit=40))
        f.write("\n\n")
        f.write(ka.table(sort_by="cpu_time_total", row_limit=40))
    pr = cProfile.Profile()
    sync()
    t0 = time.perf_counter()
    pr.enable()
    epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, device=dev)
    sync()
    pr.disable()
    wall_cp = time.perf_counter() - t0
    buf = io.StringIO()
    st = pstats.Stats(pr, stream=buf)
    st.sort_stats("cumulative").print_stats(45)
    st.sort_stats("tottime").print_stats(30)
    with open(os.path.join(outdir, "cprofile.txt"), "w") as f:
        f.write(f"n={n} wall={wall_cp:.4f}s (under cProfile)\n" + buf.getvalue())
    print(f"profile ({dev}): n={n} wall {wall:.3f}s, GPU kernels {gpu_us / 1e6:.3f}s; tables in {outdir}", flush=True)


if __name__ == "__main__":
    main()
