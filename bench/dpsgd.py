"""DP-SGD throughput: symdp.certify (torch.func vmap-of-grad) vs Opacus 1.6 (GradSampleModule hooks).

Same model (tanh MLP), same data (scikit-learn digits, or a larger synthetic set), same expected
batch size, same clipping norm and noise multiplier, Poisson sampling in both, plain SGD; both run
in this process on the same device (CUDA when available, else CPU).  Throughput is examples per
second over the timed steps (after warm-up steps), best of ``--repeats`` runs, interleaved.
Opacus is a benchmark-only dependency: symdp itself never imports it.

    python bench/dpsgd.py                      # the default configurations, markdown table
    python bench/dpsgd.py --json out.json      # also write the raw numbers
"""

from __future__ import annotations

import argparse
import json
import platform
import time
import warnings

import numpy as np
import torch

from symdp.certify.data import load_digits_split, mlp, synthetic_split
from symdp.certify.trainer import default_device, train_dpsgd


def _data(name: str, seed: int = 0):
    if name == "digits":
        d = load_digits_split(seed=seed)
    else:  # "synth-<n>x<d>"
        n, dim = (int(v) for v in name.split("-", 1)[1].split("x"))
        d = synthetic_split(n=n, d=dim, num_classes=10, seed=seed)
    return torch.tensor(d.x_train), torch.tensor(d.y_train), d.num_classes


def run_symdp(x, y, classes, hidden, batch, steps, warmup, sigma, clip, device) -> float:
    torch.manual_seed(0)
    model = mlp(x.shape[1], classes, hidden)
    q = batch / len(y)
    kw = dict(noise_multiplier=sigma, sample_rate=q, max_grad_norm=clip, delta=1e-5, odometer=None,
              progress=False, device=device)
    train_dpsgd(model, x, y, steps=warmup, **kw)
    res = train_dpsgd(model, x, y, steps=steps, seed=1, **kw)
    return sum(res.batch_sizes) / res.seconds


def run_opacus(x, y, classes, hidden, batch, steps, warmup, sigma, clip, device) -> float:
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    model = mlp(x.shape[1], classes, hidden).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    loader = DataLoader(TensorDataset(x, y), batch_size=batch, shuffle=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = PrivacyEngine(accountant="rdp")
        model, opt, loader = engine.make_private(module=model, optimizer=opt, data_loader=loader,
                                                 noise_multiplier=sigma, max_grad_norm=clip, poisson_sampling=True)
    lossf = torch.nn.CrossEntropyLoss()

    def go(k: int) -> tuple[int, float]:
        seen, done = 0, 0
        t0 = time.perf_counter()
        while done < k:
            for xb, yb in loader:
                if done >= k:
                    break
                xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
                opt.zero_grad(set_to_none=True)
                if len(yb):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        lossf(model(xb), yb).backward()
                opt.step()
                seen += len(yb)
                done += 1
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        return seen, time.perf_counter() - t0

    go(warmup)
    seen, secs = go(steps)
    return seen / secs


CONFIGS = [
    # (data, hidden, expected batch size)
    ("digits", (64,), 256),
    ("digits", (256, 256), 256),
    ("synth-8000x128", (256, 256), 256),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sigma", type=float, default=1.0)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads for both (0: torch default)")
    ap.add_argument("--quick", action="store_true", help="first configuration only, 1 repeat (smoke test)")
    ap.add_argument("--only", type=int, nargs="*", default=None, help="indices of CONFIGS to run (default: all)")
    ap.add_argument("--json", default=None, help="write raw numbers here")
    a = ap.parse_args()
    device = default_device()
    if a.threads and device.type == "cpu":
        torch.set_num_threads(a.threads)
    configs = CONFIGS[:1] if a.quick else [CONFIGS[i] for i in a.only] if a.only else CONFIGS
    repeats = 1 if a.quick else a.repeats
    rows = []
    print(f"device: {device}; config rows follow as they finish", flush=True)
    for data, hidden, batch in configs:
        x, y, classes = _data(data)
        ours, theirs = [], []
        for _ in range(repeats):  # interleave so drift hits both alike
            ours.append(run_symdp(x, y, classes, hidden, batch, a.steps, a.warmup, a.sigma, a.clip, device))
            theirs.append(run_opacus(x, y, classes, hidden, batch, a.steps, a.warmup, a.sigma, a.clip, device))
        row = dict(data=data, n=len(y), hidden=list(hidden), batch=batch, steps=a.steps,
                   symdp_ex_per_s=max(ours), opacus_ex_per_s=max(theirs), ratio=max(ours) / max(theirs))
        rows.append(row)
        print(row, flush=True)
    meta = dict(device=str(device), torch=torch.__version__, threads=torch.get_num_threads(),
                platform=platform.platform(), cuda=torch.cuda.get_device_name(0) if device.type == "cuda" else None)
    try:
        import opacus

        meta["opacus"] = opacus.__version__
    except ImportError:  # pragma: no cover
        pass
    print(f"device: {meta['cuda'] or 'cpu'} ({meta['threads']} threads), torch {meta['torch']}, opacus {meta.get('opacus')}")
    print("| data | n | MLP hidden | E[batch] | symdp ex/s | Opacus ex/s | symdp / Opacus |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['data']} | {r['n']} | {r['hidden']} | {r['batch']} | {r['symdp_ex_per_s']:,.0f} | "
              f"{r['opacus_ex_per_s']:,.0f} | {r['ratio']:.2f} |")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(dict(meta=meta, rows=rows), fh, indent=1)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
