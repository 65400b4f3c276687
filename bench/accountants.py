"""Benchmark symdp's DP-SGD accountants against dp_accounting, Opacus and prv_accountant (one process).

    python bench/accountants.py            # subsampled grid (a few minutes), markdown to stdout
    python bench/accountants.py --quick    # a handful of configurations
    python bench/accountants.py --json out.json
    python bench/accountants.py --only-startup   # cold start and CLI wall time only (seconds)
    python bench/accountants.py --only-throughput [--quick]   # tight accountant configurations/s only

Configurations (issue 6): MNIST-like q = 256/60000, sigma in {0.5, 0.7, 1.0, 1.1, 1.3, 2.0},
1-100 epochs; CIFAR-like q in {0.02, 0.05, 0.1}, sigma in {0.6, 1.0, 3.0}, 10-200 epochs;
delta in {1e-5, 1e-6, 1e-8} (rotated over the grid to keep the run short).
Every method is timed per configuration in this process (best of REPEATS runs, the same for all),
after one warm-up call each; the machine is shared, so single timings are noisy.
"""

from __future__ import annotations

import argparse
import contextlib
import json
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


def _timed_cpu(fn, *a, repeats: int = 1, **k):
    """``(value, best wall seconds, best CPU seconds)``: CPU of this process and of its reaped child processes."""
    best, best_c = float("inf"), float("inf")
    for _ in range(repeats):
        t0, p0, c0 = time.perf_counter(), time.process_time(), os.times()
        v = fn(*a, **k)
        p1, c1 = time.process_time(), os.times()
        best = min(best, time.perf_counter() - t0)
        best_c = min(best_c, p1 - p0 + (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system))
    return v, best, best_c


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


# ------------------------------------------------------------------ start-up and CLI (subprocesses)
_COLD = {
    "symdp": "from symdp.accountants import epsilon\n"
             "epsilon(noise_multiplier=1.1, sample_rate=256 / 60000, steps=2340, delta=1e-5)",
    "dp_accounting": "from dp_accounting import dp_event as E\nfrom dp_accounting.pld import pld_privacy_accountant as P\n"
                     "a = P.PLDAccountant()\na.compose(E.SelfComposedDpEvent(E.PoissonSampledDpEvent(256 / 60000, E.GaussianDpEvent(1.1)), 2340))\n"
                     "a.get_epsilon(1e-5)",
    "prv_accountant": "from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant\n"
                      "a = PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=1.1, sampling_probability=256 / 60000)], "
                      "max_self_compositions=[2340], eps_error=0.05, delta_error=1e-7)\na.compute_epsilon(delta=1e-5, num_self_compositions=[2340])",
}


def cold_start(repeats: int = 5) -> dict:
    """Seconds for import + first epsilon, measured inside a fresh interpreter (best of ``repeats``);
    also whether sympy was imported on the way."""
    import subprocess

    out = {}
    for name, code in _COLD.items():
        prog = ("import time, sys\nt = time.perf_counter()\n" + code +
                "\nprint(time.perf_counter() - t, 'sympy' in sys.modules)")
        best, sym = float("inf"), None
        for _ in range(repeats):
            r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=600)
            if r.returncode:
                best, sym = float("nan"), r.stderr[-200:]
                break
            t, flag = r.stdout.split()[-2:]
            best, sym = min(best, float(t)), flag == "True"
        out[name] = {"seconds": best, "imports_sympy": sym}
    return out


def cli_wall(repeats: int = 5) -> dict:
    """Wall seconds of ``symdp account`` and prv_accountant's ``compute-dp-epsilon`` for the same run,
    interleaved, best of ``repeats`` (executables next to this interpreter, no shims)."""
    import shutil
    import subprocess

    bindir = os.path.dirname(sys.executable)
    sym = os.path.join(bindir, "symdp") if os.path.exists(os.path.join(bindir, "symdp")) else shutil.which("symdp")
    prv = (os.path.join(bindir, "compute-dp-epsilon") if os.path.exists(os.path.join(bindir, "compute-dp-epsilon"))
           else shutil.which("compute-dp-epsilon"))
    cmds = {
        "symdp account": [sym, "account", "--noise-multiplier", "1.1", "--sample-rate", str(256 / 60000), "--steps", "2340", "--delta", "1e-5"],
        "compute-dp-epsilon": [prv, "-p", str(256 / 60000), "-s", "1.1", "-i", "2340", "-d", "1e-5"],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    best = {k: float("inf") for k in cmds}
    for _ in range(repeats):
        for k, c in cmds.items():
            if c[0] is None:
                best[k] = float("nan")
                continue
            t = time.perf_counter()
            r = subprocess.run(c, capture_output=True, timeout=600)
            el = time.perf_counter() - t
            if r.returncode:  # a failing command is not a fast one
                raise RuntimeError(f"{k} failed (exit {r.returncode}): {r.stderr.decode(errors='replace')[-300:]}")
            best[k] = min(best[k], el)
    best["ratio_symdp_to_compute_dp_epsilon"] = best["symdp account"] / best["compute-dp-epsilon"]
    return best


# ------------------------------------------------------------------ mechanism algebra vs dp_accounting
def algebra_rows() -> list[dict]:
    """Heterogeneous compositions of Laplace, randomized response, (eps, delta) and Gaussian events:
    symdp tight (mechanism algebra) vs dp_accounting's PLD accountant (pessimistic, interval 1e-4)."""
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant as P

    from symdp.accountants.algebra import rdp as alg_rdp
    from symdp.accountants.algebra import tight
    from symdp.mechanisms import (
        ApproxDPBlackBox,
        Composed,
        Gaussian,
        Laplace,
        RandomizedResponse,
        SelfComposed,
        Subsampled,
    )

    cases = [
        ("10 Laplace(b=2) + 5 Gaussian(3)", Composed((SelfComposed(Laplace(1.0, 2.0), 10), SelfComposed(Gaussian(1.0, 3.0), 5))),
         dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(dpa.LaplaceDpEvent(2.0), 10), dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(3.0), 5)])),
        ("20 RR(p=0.3, k=4)", SelfComposed(RandomizedResponse.from_noise_parameter(0.3, 4), 20),
         dpa.SelfComposedDpEvent(dpa.RandomizedResponseDpEvent(0.3, 4), 20)),
        ("300 SGM(1, q=0.02) + 2 Laplace(b=2)", Composed((SelfComposed(Subsampled(Gaussian(1.0, 1.0), 0.02), 300), SelfComposed(Laplace(1.0, 2.0), 2))),
         dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.02, dpa.GaussianDpEvent(1.0)), 300),
                              dpa.SelfComposedDpEvent(dpa.LaplaceDpEvent(2.0), 2)])),
        ("200 Poisson(q=0.05) Laplace(b=0.5)", SelfComposed(Subsampled(Laplace(1.0, 0.5), 0.05), 200),
         dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.05, dpa.LaplaceDpEvent(0.5)), 200)),
        ("50 Gaussian(2) + 10 (0.2, 1e-7)-DP", Composed((SelfComposed(Gaussian(1.0, 2.0), 50), SelfComposed(ApproxDPBlackBox(0.2, 1e-7), 10))), None),
    ]
    rows = []
    for name, m, ev in cases:
        for d in (1e-5, 1e-8):
            tight.epsilon(m, d)
            r, t_ours = _timed(tight.epsilon, m, d, repeats=REPEATS)
            row = {"composition": name, "delta": d, "symdp_tight": r.epsilon, "symdp_lower": r.lower, "symdp_s": t_ours,
                   "symdp_rdp": (alg_rdp.epsilon(m, d).epsilon if not alg_rdp.supports(m) else None)}
            if ev is not None:
                # randomized response is a replace-one mechanism for dp_accounting (local DP); its PLDAccountant
                # (0.6.0) drops the count of a SelfComposedDpEvent(RandomizedResponseDpEvent) -- it reports one
                # response for 20 -- so the reference composes the PLD itself, and the accountant's value is kept
                rel = (dpa.NeighboringRelation.REPLACE_ONE if "RR" in name else dpa.NeighboringRelation.ADD_OR_REMOVE_ONE)

                def dpa_eps(ev=ev, d=d, rel=rel, name=name):
                    if "RR" in name:
                        from dp_accounting.pld import privacy_loss_distribution as PLD

                        return PLD.from_randomized_response(0.3, 4, value_discretization_interval=1e-4).self_compose(20).get_epsilon_for_delta(d)
                    a = P.PLDAccountant(neighboring_relation=rel, value_discretization_interval=1e-4)
                    a.compose(ev)
                    return a.get_epsilon(d)

                if "RR" in name:
                    a = P.PLDAccountant(neighboring_relation=rel, value_discretization_interval=1e-4)
                    a.compose(ev)
                    row["dpacc_accountant_as_is"] = a.get_epsilon(d)
                try:
                    v, t = _timed(dpa_eps, repeats=1)
                    row.update({"dpacc_pld": v, "dpacc_s": t, "ratio": r.epsilon / v})
                except Exception as exc:  # noqa: BLE001 - a peer failing is data
                    row["dpacc_error"] = f"{type(exc).__name__}: {exc}"[:160]
            rows.append(row)
    return rows


# ------------------------------------------------------------------ bracket (issue 25, item 4)
BRACKET_CASES = [(1.1, 256 / 60000, 2340, 1e-5), (1.0, 0.02, 5000, 1e-5), (3.0, 0.1, 2000, 1e-6), (0.8, 0.01, 10000, 1e-8)]
REF_H = 2e-5  # the high-resolution reference: the mechanism algebra's tight accountant on this grid


def bracket_rows(cases=BRACKET_CASES) -> list[dict]:
    """DP-SGD: the tight accountant's upper bound, the mechanism algebra's rigorous bracket [lower, upper]
    (optimistic / pessimistic discretisation), and a high-resolution reference bracket (h = REF_H) to measure
    the excess of each upper end: ``upper / ref_upper - 1`` (the truth lies below ref_upper, so the excess
    over the truth is at least this) and ``upper / ref_lower - 1`` (at most this)."""
    import symdp.accountants as A
    from symdp.accountants.algebra import tight
    from symdp.mechanisms import Gaussian, SelfComposed, Subsampled

    rows = []
    for s, q, T, d in cases:
        m = SelfComposed(Subsampled(Gaussian(1.0, s), q), T)
        A.epsilon(noise_multiplier=s, sample_rate=q, steps=T + 1, delta=d)  # warm-up (a different configuration: no cache hit)
        up, t_up = _timed(lambda: float(A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d).epsilon), repeats=1)
        br, t_br = _timed(tight.epsilon, m, d, repeats=1)
        ref, t_ref = _timed(tight.epsilon, m, d, discretization=REF_H, repeats=1)
        rows.append({"sigma": s, "q": q, "T": T, "delta": d, "tight_upper": up, "tight_s": t_up,
                     "bracket_lower": br.lower, "bracket_upper": br.epsilon, "bracket_s": t_br,
                     "bracket_h": br.details.get("discretization"), "ref_lower": ref.lower, "ref_upper": ref.epsilon,
                     "ref_s": t_ref, "tight_excess_min": up / ref.epsilon - 1, "tight_excess_max": up / ref.lower - 1,
                     "bracket_upper_excess_min": br.epsilon / ref.epsilon - 1, "bracket_upper_excess_max": br.epsilon / ref.lower - 1,
                     "bracket_lower_h": br.details.get("lower_discretization"),
                     "bracket_width_rel": br.epsilon / br.lower - 1, "ref_width_rel": ref.epsilon / ref.lower - 1})
    return rows


def bracket_markdown(rows: list[dict]) -> list[str]:
    L = ["", f"| sigma | q | T | delta | tight upper (ms) | algebra bracket [lower, upper] (ms) | reference h={REF_H:g} [lower, upper] | "
         "tight upper / ref upper - 1 | tight upper / ref lower - 1 | algebra upper / ref upper - 1 | algebra upper / ref lower - 1 | "
         "bracket width |", "|" + "---|" * 12]
    for r in rows:
        L.append(f"| {r['sigma']} | {r['q']:.4g} | {r['T']} | {r['delta']:g} | {r['tight_upper']:.5f} ({r['tight_s'] * 1e3:.0f}) | "
                 f"[{r['bracket_lower']:.5f}, {r['bracket_upper']:.5f}] ({r['bracket_s'] * 1e3:.0f}) | "
                 f"[{r['ref_lower']:.5f}, {r['ref_upper']:.5f}] | {r['tight_excess_min']:+.3%} | {r['tight_excess_max']:+.3%} | "
                 f"{r['bracket_upper_excess_min']:+.3%} | {r['bracket_upper_excess_max']:+.3%} | {r['bracket_width_rel']:.3%} |")
    L.append("")
    L.append("The truth lies in the reference bracket, so `upper / ref lower - 1` bounds an upper end's excess over the exact "
             "value from above and `upper / ref upper - 1` from below (the reference's own upper end carries the round-off "
             "allowance, which grows as the grid gets finer).")
    return L


def rdp_rates(n: int = 10000, repeats: int = 5) -> dict:
    """Batched RDP configurations/s: every (sigma, q) distinct, and the sweep shape (100 (sigma, q) x 100 (T, delta)),
    wall and process CPU time (medians of ``repeats`` calls), with the load average (the machine is shared)."""
    import symdp.accountants as A

    rng = np.random.default_rng(0)
    sig, qq = rng.uniform(0.5, 3.0, n), rng.uniform(1e-3, 0.1, n)
    TT, dd = rng.integers(100, 50000, n), rng.choice([1e-5, 1e-6, 1e-8], n)
    s2, q2 = np.repeat(rng.uniform(0.5, 3.0, n // 100), 100), np.repeat(rng.uniform(1e-3, 0.1, n // 100), 100)
    A.epsilon(noise_multiplier=sig[:10], sample_rate=qq[:10], steps=TT[:10], delta=dd[:10], accountant="rdp")
    out: dict = {"n": n, "load_before": os.getloadavg()[0]}
    for tag, s, q in (("distinct", sig, qq), ("sweep", s2, q2)):
        # one timed call swings by +-20% on this shared machine (17k-25k/s back to back): the median of `repeats`
        # calls is the figure, every run is printed beside it
        walls, cpus = [], []
        for _ in range(repeats):
            t, c = time.perf_counter(), time.process_time()
            A.epsilon(noise_multiplier=s, sample_rate=q, steps=TT, delta=dd, accountant="rdp")
            walls.append(n / (time.perf_counter() - t))
            cpus.append(n / (time.process_time() - c))
        out[f"{tag}_per_s"] = float(np.median(walls))
        out[f"{tag}_per_cpu_s"] = float(np.median(cpus))
        out[f"{tag}_per_s_runs"] = [round(w) for w in walls]
    # the peers in the same run: one call per configuration (they have no batch API), on the distinct shape's first
    # configurations; their own default orders (dp_accounting's grid is the base of symdp's)
    n_peer = min(n, 300)
    for tag, fn in (("dpacc_rdp", dpacc_rdp), ("opacus_rdp", lambda *a: opacus_eps("rdp", *a))):
        try:
            fn(float(sig[0]), float(qq[0]), int(TT[0]), float(dd[0]))
            t, c = time.perf_counter(), time.process_time()
            for i in range(n_peer):
                fn(float(sig[i]), float(qq[i]), int(TT[i]), float(dd[i]))
            out[f"{tag}_per_s"] = n_peer / (time.perf_counter() - t)
            out[f"{tag}_per_cpu_s"] = n_peer / (time.process_time() - c)
        except ImportError as exc:
            out[f"{tag}_per_s"] = f"not installed ({exc})"
    out["peer_configs"] = n_peer
    out["load_after"] = os.getloadavg()[0]
    # "codegen" is the shipped path; "lambdify ..." means symdp.generated did not import (e.g. PYTHONPATH on a
    # checkout whose editable install points elsewhere): other kernels, about 3x slower, not the numbers to report
    from symdp.accountants._kernels import KERNEL_SOURCE

    out["kernels"] = sorted({v.split(" ")[0] for k, v in KERNEL_SOURCE.items() if k[1] == "numpy"})
    return out


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
            out.append(("MNIST", s, q, round(e / q), deltas[k % 3], e))
            k += 1
    for qq in [0.02, 0.05, 0.1]:
        for s in [0.6, 1.0, 3.0]:
            for e in [10, 200]:
                out.append(("CIFAR", s, qq, round(e / qq), deltas[k % 3], e))
                k += 1
    if quick:
        out = out[::6]
    return out


def machine() -> str:
    cpu = platform.processor()
    with contextlib.suppress(OSError, StopIteration), open("/proc/cpuinfo") as f:
        cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    mem = ""
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/meminfo") as f:
        mem = f", {int(f.readline().split()[1]) / 1024 / 1024:.0f} GiB RAM"
    return f"{cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}, numpy {np.__version__}"


def tight_throughput(quick: bool) -> dict:
    """Tight accountant configurations/s for two batch shapes (issue 14, item 5), with the cores used.

    * distinct: every configuration its own random (sigma ~ U(0.5, 3), q ~ U(1e-3, 0.1),
      T ~ randint(100, 50000), delta in {1e-5, 1e-6, 1e-8});
    * sweep: 100 (sigma, q) pairs x 100 (T, delta) each (quick: 20 x 20) -- they share only the RDP
      grid guess; every (T, delta) still gets its own grid, window and FFTs (values identical to the
      one-configuration calls).

    Both the single-configuration accountant (``accountants.epsilon``) and the batched one
    (``accountants.batched.epsilon_batch``, torch on the CPU) are timed; dp_accounting's PLD on the first
    few distinct configurations, serially, in the same run.
    Each shape is timed with the default worker processes (``workers=None``) and with ``workers=1``
    (best of two runs for the distinct shape, one run for the sweep); the 1-minute load average is
    recorded before and after, since a busy machine lowers every rate.
    """
    import symdp.accountants as A
    from symdp.accountants import api

    rng = np.random.default_rng(0)
    n_d = 100 if quick else 500
    n_p, n_td = (20, 20) if quick else (100, 100)
    sig = rng.uniform(0.5, 3.0, n_d)
    qq = rng.uniform(1e-3, 0.1, n_d)
    TT = rng.integers(100, 50000, n_d)
    dd = rng.choice([1e-5, 1e-6, 1e-8], n_d)
    s2 = np.repeat(rng.uniform(0.5, 3.0, n_p), n_td)
    q2 = np.repeat(rng.uniform(1e-3, 0.1, n_p), n_td)
    T2 = rng.integers(100, 50000, n_p * n_td)
    d2 = rng.choice([1e-5, 1e-6, 1e-8], n_p * n_td)
    A.epsilon(noise_multiplier=sig[:3], sample_rate=qq[:3], steps=TT[:3], delta=dd[:3])  # warm-up
    from symdp.accountants.batched import epsilon_batch

    epsilon_batch(noise_multiplier=sig[:8], sample_rate=qq[:8], steps=TT[:8], delta=dd[:8])  # warm-up
    out: dict = {"cores": os.cpu_count(), "workers_default": api._n_workers(None),
                 "load_avg_before": os.getloadavg()[0]}
    for w, tag in ((None, "default"), (1, "1")):
        _, t = _timed(A.epsilon, noise_multiplier=sig, sample_rate=qq, steps=TT, delta=dd, workers=w, repeats=2)
        out[f"distinct_per_s_workers_{tag}"] = n_d / t
        _, t = _timed(A.epsilon, noise_multiplier=s2, sample_rate=q2, steps=T2, delta=d2, workers=w)
        out[f"sweep_per_s_workers_{tag}"] = n_p * n_td / t
        # the batched path (accountants.batched.epsilon_batch, torch on the CPU) on the same configurations; also per
        # CPU second (this process and its reaped workers, os.times): the wall rate falls with the machine's load
        _, t, c = _timed_cpu(epsilon_batch, noise_multiplier=sig, sample_rate=qq, steps=TT, delta=dd, workers=w, repeats=2)
        out[f"batched_distinct_per_s_workers_{tag}"] = n_d / t
        out[f"batched_distinct_per_cpu_s_workers_{tag}"] = n_d / c
        _, t = _timed(epsilon_batch, noise_multiplier=s2, sample_rate=q2, steps=T2, delta=d2, workers=w)
        out[f"batched_sweep_per_s_workers_{tag}"] = n_p * n_td / t
    # dp_accounting's PLD (its default pessimistic connect-the-dots, 1e-4 grid) on the first configurations, serially
    n_peer = 4 if quick else 10
    t0 = time.perf_counter()
    for i in range(n_peer):
        dpacc_pld(float(sig[i]), float(qq[i]), int(TT[i]), float(dd[i]))
    out["dp_accounting_pld_per_s"] = n_peer / (time.perf_counter() - t0)
    out["dp_accounting_pld_n"] = n_peer
    out["load_avg_after"] = os.getloadavg()[0]
    out["shapes"] = {"distinct": n_d, "sweep": f"{n_p} (sigma, q) x {n_td} (T, delta)"}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--skip-calibration", action="store_true")
    ap.add_argument("--only-startup", action="store_true")
    ap.add_argument("--only-algebra", action="store_true")
    ap.add_argument("--only-throughput", action="store_true")
    ap.add_argument("--only-rdp", action="store_true", help="batched RDP configurations/s only")
    ap.add_argument("--only-bracket", action="store_true", help="DP-SGD bracket and excess over the reference only")
    args = ap.parse_args()
    if args.only_rdp:
        print(json.dumps(rdp_rates(2000 if args.quick else 10000), indent=1))
        return
    if args.only_bracket:
        rows_b = bracket_rows(BRACKET_CASES[:2] if args.quick else BRACKET_CASES)
        print(json.dumps(rows_b, indent=1))
        print("\n".join(bracket_markdown(rows_b)))
        return
    if args.only_throughput:
        print(json.dumps(tight_throughput(args.quick), indent=1))
        return
    if args.only_startup:
        print(json.dumps({"cold_start": cold_start(), "cli": cli_wall()}, indent=1))
        return
    if args.only_algebra:
        rows_a = algebra_rows()
        print(json.dumps(rows_a, indent=1, default=str))
        print("\n".join(algebra_markdown(rows_a)))
        return

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
            except Exception as exc:  # noqa: BLE001 - a peer failing is data, not a crash
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
    tight_tp = tight_throughput(args.quick)
    from symdp.accountants.batched import epsilon_batch

    Nb = 1000  # the batched path (torch): on the CPU here, on CUDA when there is one
    epsilon_batch(noise_multiplier=sig[:5], sample_rate=qq[:5], steps=TT[:5], delta=dd[:5])
    _, t_batch_cpu = _timed(epsilon_batch, noise_multiplier=sig[:Nb], sample_rate=qq[:Nb], steps=TT[:Nb], delta=dd[:Nb])
    t_batch_gpu = None
    if torch.cuda.is_available():
        epsilon_batch(noise_multiplier=sig[:5], sample_rate=qq[:5], steps=TT[:5], delta=dd[:5], device="cuda")
        _, t_batch_gpu = _timed(epsilon_batch, noise_multiplier=sig[:Nb], sample_rate=qq[:Nb], steps=TT[:Nb], delta=dd[:Nb], device="cuda")
    t_gpu = None
    if torch.cuda.is_available():
        A.rdp_torch(noise_multiplier=sig[:10], sample_rate=qq[:10])
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        A.rdp_torch(noise_multiplier=sig, sample_rate=qq)
        torch.cuda.synchronize()
        t_gpu = time.perf_counter() - t0
    print("batched done", file=sys.stderr, flush=True)
    batched = {
        "rdp_configs_per_s_distinct": N / t_rdp,
        "rdp_configs_per_s_sweep": N / t_rdp_sweep,
        "tight_configs_per_s_distinct": tight_tp["distinct_per_s_workers_default"],
        "tight_throughput": tight_tp,
        "rdp_curves_per_s_gpu": (N / t_gpu) if t_gpu else None,
        "tight_batched_torch_cpu_configs_per_s": Nb / t_batch_cpu,
        "tight_batched_torch_cuda_configs_per_s": (Nb / t_batch_gpu) if t_batch_gpu else None,
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
        "cold_start": cold_start(), "cli": cli_wall(), "algebra": algebra_rows(),
        "bracket": bracket_rows(BRACKET_CASES[:2] if args.quick else BRACKET_CASES),
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, default=str)
    print(markdown(out))


def algebra_markdown(rows_a: list[dict]) -> list[str]:
    L = ["", "| composition (mechanism algebra) | delta | symdp tight | symdp lower* | symdp RDP | dp_acc PLD | tight / dp_acc - 1 | t symdp ms | t dp_acc ms |",
         "|" + "---|" * 9]
    for a in rows_a:
        dp_v = a.get("dpacc_pld")
        L.append(f"| {a['composition']} | {a['delta']:g} | {a['symdp_tight']:.5g} | {a['symdp_lower']:.5g} | "
                 f"{'-' if a['symdp_rdp'] is None else format(a['symdp_rdp'], '.5g')} | "
                 f"{'-' if dp_v is None else format(dp_v, '.5g')} | {'-' if dp_v is None else format(a['ratio'] - 1, '+.3%')} | "
                 f"{a['symdp_s'] * 1e3:.1f} | {'-' if dp_v is None else format(a['dpacc_s'] * 1e3, '.0f')} |")
    L.append("")
    L.append("\\* optimistic discretisation on the same grid: an estimate from below, not certified.")
    rr = [a for a in rows_a if "dpacc_accountant_as_is" in a]
    if rr:
        L.append(f"dp_accounting's `PLDAccountant` itself reports {rr[0]['dpacc_accountant_as_is']:.5g} for the RR row: it drops the "
                 "count of `SelfComposedDpEvent(RandomizedResponseDpEvent, 20)` (one response instead of 20, below the truth); "
                 "the reference above composes its PLD explicitly.")
    return L


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
    tp = b.get("tight_throughput")
    if tp:
        L.append(f"- tight accountant throughput ({tp['cores']} cores; by default {tp['workers_default']} processes: this one and "
                 f"{tp['workers_default'] - 1} forked; "
                 f"load average {tp['load_avg_before']:.2f} -> {tp['load_avg_after']:.2f}): "
                 f"distinct configurations ({tp['shapes']['distinct']}) {tp['distinct_per_s_workers_default']:,.0f}/s "
                 f"({tp['distinct_per_s_workers_1']:,.0f}/s with workers=1); sweep ({tp['shapes']['sweep']}) "
                 f"{tp['sweep_per_s_workers_default']:,.0f}/s ({tp['sweep_per_s_workers_1']:,.0f}/s with workers=1)"
                 + (f"; batched (`epsilon_batch`, torch CPU) distinct {tp['batched_distinct_per_s_workers_default']:,.0f}/s "
                    f"({tp['batched_distinct_per_s_workers_1']:,.0f}/s with workers=1"
                    + (f"; {tp['batched_distinct_per_cpu_s_workers_1']:,.0f} per CPU second"
                       if "batched_distinct_per_cpu_s_workers_1" in tp else "") + "), sweep "
                    f"{tp['batched_sweep_per_s_workers_default']:,.0f}/s ({tp['batched_sweep_per_s_workers_1']:,.0f}/s); "
                    f"dp_accounting PLD {tp['dp_accounting_pld_per_s']:,.1f}/s (serial, {tp['dp_accounting_pld_n']} configurations)"
                    if "batched_distinct_per_s_workers_1" in tp else "") + ".")
    if b.get("tight_batched_torch_cpu_configs_per_s"):
        L.append(f"- batched tight (`accountants.batched.epsilon_batch`, stacked torch FFTs): {b['tight_batched_torch_cpu_configs_per_s']:,.1f}/s on CPU"
                 + (f", {b['tight_batched_torch_cuda_configs_per_s']:,.1f}/s on CUDA" if b.get("tight_batched_torch_cuda_configs_per_s") else "") + ".")
    rr = [r["symdp_rdp"] / r["dpacc_rdp"] - 1 for r in rows if isinstance(r.get("symdp_rdp"), float) and isinstance(r.get("dpacc_rdp"), float)]
    if rr:
        L.append(f"- RDP vs dp_accounting RDP: max rel. diff {max(rr):+.3%}, min {min(rr):+.3%}, median {statistics.median(rr):+.3%} "
                 f"over {len(rr)} configurations.")
    if out.get("cold_start"):
        cs = out["cold_start"]
        L.append("- cold start (fresh interpreter: import + first epsilon, MNIST sigma=1.1, T=2340): "
                 + ", ".join(f"{k} {v['seconds']:.3f} s" + (" (imports sympy)" if v["imports_sympy"] else "") for k, v in cs.items()) + ".")
    if out.get("cli"):
        c = out["cli"]
        L.append(f"- CLI wall time (best of 5, interleaved): `symdp account` {c['symdp account']:.3f} s, `compute-dp-epsilon` "
                 f"{c['compute-dp-epsilon']:.3f} s (ratio {c['ratio_symdp_to_compute_dp_epsilon']:.2f}); bare `python -c pass` {c['python -c pass']:.3f} s.")
    if out.get("algebra"):
        L.extend(algebra_markdown(out["algebra"]))
    if out.get("bracket"):
        L.extend(bracket_markdown(out["bracket"]))
    for c in out["calibration"]:
        L.append(f"- calibration eps={c['target_epsilon']}, delta={c['delta']:g}, q={c['q']:.4g}, T={c['T']}: symdp tight sigma={c['symdp_sigma']:.4f} "
                 f"(eps {c['symdp_eps']:.4f}) in {c['symdp_s']:.2f} s; Opacus get_noise_multiplier(prv) sigma={c['opacus_prv_sigma']:.4f} in "
                 f"{c['opacus_prv_s']:.2f} s -> {c['speedup']:.1f}x; symdp tight eps at Opacus's sigma: {c['symdp_tight_eps_at_opacus_sigma']:.4f}.")
    return "\n".join(L)


if __name__ == "__main__":
    main()
