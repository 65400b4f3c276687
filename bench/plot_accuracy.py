"""How far the audit's plotted curves are from their all-mpmath versions (issue 25, float64 plot twins).

    python bench/plot_accuracy.py            # every plot --quick draws (the ledger's verdicts; about a minute)

For every plot of a claim whose ledger row is current (the plots ``symdp audit --quick`` and the full audit draw),
each curve is computed twice, without a time limit: with the float64 twins (as the audit draws it) and in mpmath at
every point.  Printed per curve: the largest relative difference between the two (both sides), the points where one
is drawn and the other not, the points where the sign of (claim side - other side) differs (a misplaced crossing),
and the float64 / mpmath point counts; for a region map, the difference of the fraction where the claim holds.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np


def main() -> None:
    from symdp.audit import engine, plots
    from symdp.audit.engine import ledger_result, library_claims, plot_if_wanted
    from symdp.verify import load_ledger

    led = load_ledger()
    rows: list[tuple[str, str, float, int, int, int, int]] = []
    cur: dict[str, str] = {}
    sweep, region = plots.sweep, plots.plot_region_2d

    def twice(f_c: Any, f_t: Any, point: Any, var: str, lo: float, hi: float, **kw: Any) -> Any:
        kw["seconds"] = None
        ref = sweep(f_c, f_t, point, var, lo, hi, **{**kw, "fast": None, "stats": None})
        st: dict[str, int] = {}
        new = sweep(f_c, f_t, point, var, lo, hi, **{**kw, "stats": st})
        worst, drawn = 0.0, 0
        for a, b in ((ref[1], new[1]), (ref[2], new[2])):
            fa, fb = np.isfinite(a), np.isfinite(b)
            drawn += int((fa != fb).sum())
            ok = fa & fb
            if ok.any():
                worst = max(worst, float(np.max(np.abs(a[ok] - b[ok]) / np.maximum(np.abs(a[ok]), 1e-300))))
        ok = np.isfinite(ref[1]) & np.isfinite(ref[2]) & np.isfinite(new[1]) & np.isfinite(new[2])
        sign = int((np.sign(ref[1][ok] - ref[2][ok]) != np.sign(new[1][ok] - new[2][ok])).sum())
        rows.append((cur["id"], var, worst, drawn, sign, st.get("float64", 0), st.get("mpmath", 0)))
        return new

    def twice_2d(path: Path, **kw: Any) -> Any:
        kw["seconds"] = None
        _, f1, n1 = region(path, **{**kw, "fast": None, "stats": None})
        st: dict[str, int] = {}
        p2, f2, n2 = region(path, **{**kw, "stats": st})
        rows.append((cur["id"] + " [region map]", f"{kw['xvar']}, {kw['yvar']}", abs(f1 - f2), abs(n1 - n2), 0,
                     st.get("float64", 0), st.get("mpmath", 0)))
        return p2, f2, n2

    plots.sweep, plots.plot_region_2d = twice, twice_2d  # type: ignore[assignment]
    with tempfile.TemporaryDirectory(prefix="symdp-plot-accuracy-") as d:
        for th in library_claims(None):
            e = led.get(th.id)
            if e is None or e.get("hash") != th.expr_hash():
                continue
            res = ledger_result(th, e)
            cur["id"] = th.id
            plot_if_wanted(th, res, Path(d) / "plots", Path(d))
            if res.extra.get("plot_error"):
                print("plot error:", th.id, res.extra["plot_error"])
    curves = [r for r in rows if "[region map]" not in r[0]]
    print(f"{len(rows)} plots ({len(curves)} curves, {len(rows) - len(curves)} region maps): largest relative difference "
          f"{max(r[2] for r in curves):.3g}; points drawn by one and not the other {sum(r[3] for r in rows)}; crossing "
          f"sign differences {sum(r[4] for r in rows)}; points from float64 {sum(r[5] for r in rows)}, mpmath "
          f"{sum(r[6] for r in rows)} (engine.PLOT_POINTS counts {dict(engine.PLOT_POINTS)})")
    for r in sorted(rows, key=lambda r: -r[2]):
        print(f"  {r[2]:9.2e}  drawn-diff {r[3]:2d}  sign-diff {r[4]:2d}  float64 {r[5]:3d}  mpmath {r[6]:3d}  {r[0]} ({r[1]})")


if __name__ == "__main__":
    main()
