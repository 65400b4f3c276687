"""Where SymPy's time goes in the claim tasks of the audit (issue 25), per claim and per call site.

    python bench/sympy_sites.py                          # every library claim, serially, in this process
    python bench/sympy_sites.py he2021.cor1_delta_first_order bu2020.subsampling_vs_li2012
    python bench/sympy_sites.py --json out.json

Runs each claim task as an audit worker does (:func:`symdp.audit.parallel._run_one`, plots off) and times, in CPU
seconds (``time.process_time``), the symbolic rung's sign proofs and identities (with their outcome), the expansion
checks, the probes, and every call of ``sp.simplify``, ``sp.limit``, ``sp.factor`` and ``sp.series`` (nested calls
are counted in their caller's line as well).  Serial and in one process: a claim's SymPy cost depends on what ran
before it (SymPy's caches), as in a worker.  Print ``uptime`` beside the numbers: the machine is shared.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time
from collections import defaultdict
from typing import Any


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ids", nargs="*", help="library claim ids (default: all)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    os.environ.setdefault("SYMDP_CACHE_DIR", os.path.join(os.environ.get("TMPDIR", "/tmp"), "symdp-sympy-sites"))
    import sympy as sp

    import symdp.asymptotics as asy
    import symdp.verify.rungs.direct as direct
    import symdp.verify.rungs.oracle as orc
    import symdp.verify.rungs.symbolic as sym
    from symdp.audit.engine import library_claims
    from symdp.audit.parallel import _run_one

    rec: list[tuple[str, str, float, str]] = []
    cur = {"id": ""}

    def wrap(mod: Any, name: str, site: str) -> Any:
        f = getattr(mod, name)

        @functools.wraps(f)
        def g(*a: Any, **k: Any) -> Any:
            c0 = time.process_time()
            out = "raised"
            try:
                r = f(*a, **k)
                out = str(r)[:60]
                return r
            finally:
                rec.append((cur["id"], site, time.process_time() - c0, out))

        setattr(mod, name, g)
        return g

    g = wrap(sym, "symbolic_sign", "sign proof")
    direct.symbolic_sign = g
    g = wrap(sym, "symbolic_identity", "identity")
    direct.symbolic_identity = g
    orc.symbolic_identity = g
    wrap(asy, "check_expansion", "expansion check")
    for nm in ("probe_signs", "probe_not_real"):
        if hasattr(sym, nm):
            wrap(sym, nm, nm)
    for nm in ("simplify", "limit", "factor", "series"):
        wrap(sp, nm, "sp." + nm)
    ids = args.ids or [t.id for t in library_claims(None)]
    per: dict[str, float] = {}
    for i in ids:
        cur["id"] = i
        c0 = time.process_time()
        _run_one(("claim", i, False, 0, False))
        per[i] = time.process_time() - c0
    sites: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for _, s, c, _o in rec:
        sites[s][0] += 1
        sites[s][1] += c
    print(f"{len(ids)} claims, {sum(per.values()):.1f} s CPU; load {os.getloadavg()[0]:.2f}")
    for s, (n, c) in sorted(sites.items(), key=lambda kv: -kv[1][1]):
        print(f"  {s:16s} {int(n):4d} calls {c:7.2f} s CPU")
    top: dict[tuple[str, str, str], float] = defaultdict(float)
    for cid, s, c, o in rec:
        if s in ("sign proof", "identity", "expansion check"):
            top[(cid, s, o)] += c
    for (cid, s, o), c in sorted(top.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {c:6.2f} s  {s:15s} {cid:45s} -> {o}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"calls": rec, "claims": per}, f, indent=1)


if __name__ == "__main__":
    main()
