"""Soundness sweep of the accountants: random + corner configurations, every accountant and query.

Every answer is compared with a rigorous LOWER bound (symdp.verify.oracles_accounting: the
sum-statistic threshold test, exact at T = 1 and q = 1, plus the mpmath exact profiles there);
prints, per accountant and query, the configurations tried, answers below a lower bound, answers
infinite/NaN where the truth is finite, crashes (exceptions other than symdp's documented errors),
hangs (no answer within the time limit) and documented errors.

    python bench/soundness.py                 # the default sweep (seed 0)
    python bench/soundness.py --n 40 --seed 3 --seconds 60 --json out.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter, defaultdict

import numpy as np

from symdp.verify.oracles_accounting import Case, Outcome, run_case

#: (query, accountant) pairs swept; CLT is checked for its label only; advanced/he2021 as they are
PAIRS = [
    ("epsilon", "tight"), ("epsilon", "rdp"), ("epsilon", "clt"), ("epsilon", "advanced"), ("epsilon", "he2021"),
    ("delta", "tight"), ("delta", "rdp"), ("delta", "clt"),
    ("calibrate_noise", "tight"), ("calibrate_noise", "rdp"),
    ("max_steps", "tight"), ("max_steps", "rdp"),
    ("odometer", "rdp"), ("odometer", "tight"), ("rdp_odometer", "rdp"),
    ("opacus", "tight"), ("opacus", "rdp"),
]

#: corners named in issue 11 and the extremes of every range
CORNERS = [
    (10.0, 0.99, 1000, 1e-6, 1.0), (3.0, 1.0, 22000, 1e-8, 1.0), (1.1, 1.0, 2340, 1e-5, 1000.0),
    (33.4, 4.8e-5, 6732, 1e-11, 1.0), (0.01, 0.004267, 2340, 1e-5, 1.0), (1.1, 256 / 60000, 2340, 1e-5, 1.0),
    (0.01, 1.0, 1, 1e-300, 1e4), (1e4, 1e-9, 1, 0.5, 1e-3), (1e4, 1.0, 10**9, 1e-300, 1e-3), (0.01, 1e-9, 10**9, 1e-5, 0.0),
    (1.0, 0.5, 10**9, 1e-5, 10.0), (0.5, 1.0, 10**6, 1e-10, 50.0), (100.0, 0.5, 10**6, 1e-300, 1.0), (0.3, 0.1, 1, 1e-5, 5.0),
]


def random_configs(n: int, seed: int, t_max: float = 1e9) -> list[tuple[float, float, int, float, float]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        s = float(10 ** rng.uniform(-2, 4))
        q = 1.0 if rng.random() < 0.15 else float(10 ** rng.uniform(-9, 0))
        T = 1 if rng.random() < 0.1 else round(10 ** rng.uniform(0, math.log10(t_max)))
        d = float(10 ** rng.uniform(-300, math.log10(0.5))) if rng.random() < 0.3 else float(10 ** rng.uniform(-12, -2))
        e = 0.0 if rng.random() < 0.1 else float(10 ** rng.uniform(-3, 4))
        out.append((s, q, T, d, e))
    return out


def cases_for(cfgs: list[tuple[float, float, int, float, float]], pairs: list[tuple[str, str]]) -> list[Case]:
    cases = []
    for query, acc in pairs:
        for s, q, T, d, e in cfgs:
            if query in ("calibrate_noise", "max_steps"):
                e = min(max(e, 1e-3), 1e3)  # the calibration range of the issue: targets 1e-3 .. 1e3
            if query in ("advanced", "he2021") or acc in ("advanced", "he2021"):
                T = min(T, 10**5)  # theorem accountants evaluate a per-step PLD for each split (slow)
            if query in ("odometer",) and acc == "tight":
                T = min(T, 10**6)
            cases.append(Case(query, acc, s, q, T, d, e))
    return cases


def summarise(outs: list[Outcome]) -> dict[str, dict[str, int]]:
    table: dict[str, Counter] = defaultdict(Counter)
    for o in outs:
        key = f"{o.case.query}/{o.case.accountant}"
        table[key]["tried"] += 1
        table[key][o.status] += 1
    return {k: dict(v) for k, v in table.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=24, help="random configurations (besides the corners)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=60.0, help="time limit per call (a longer call is a hang)")
    ap.add_argument("--json", default=None, help="write every outcome here")
    ap.add_argument("--pairs", default=None, help="comma-separated query/accountant pairs (default: all)")
    a = ap.parse_args(argv)
    pairs = PAIRS if not a.pairs else [tuple(p.split("/")) for p in a.pairs.split(",")]  # type: ignore[misc]
    cfgs = CORNERS + random_configs(a.n, a.seed)
    outs: list[Outcome] = []
    t0 = time.time()
    for c in cases_for(cfgs, pairs):  # type: ignore[arg-type]
        o = run_case(c, a.seconds)
        outs.append(o)
        if o.status not in ("ok", "documented_error"):
            print(f"{o.status.upper():10s} {c} value={o.value!r} lower={o.lower!r} {o.message}", flush=True)
    table = summarise(outs)
    cols = ["tried", "ok", "below", "infinite", "crash", "hang", "documented_error", "unlabelled_approximation"]
    print(f"\n{'query/accountant':28s}" + "".join(f"{c[:12]:>13s}" for c in cols))
    tot: Counter = Counter()
    for k in sorted(table):
        print(f"{k:28s}" + "".join(f"{table[k].get(c, 0):13d}" for c in cols))
        tot.update(table[k])
    print(f"{'TOTAL':28s}" + "".join(f"{tot.get(c, 0):13d}" for c in cols))
    print(f"max seconds per call: {max(o.seconds for o in outs):.1f}; wall {time.time() - t0:.0f} s")
    for o in outs:
        if o.status == "documented_error":
            print(f"documented error: {o.case} {o.message[:160]}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump([dict(case=o.case.__dict__, status=o.status, value=o.value, lower=o.lower, seconds=o.seconds,
                            message=o.message) for o in outs], f, indent=1, default=str)
    bad = sum(tot.get(c, 0) for c in ("below", "infinite", "crash", "hang", "unlabelled_approximation"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
