"""Issue 25: ``symdp audit --quick`` reads the ledger's verdicts and draws their plots in the workers, cached
with the verdicts; a plot's evaluation time is bounded and a plot cut short says so."""

from __future__ import annotations

import json
from dataclasses import asdict

import mpmath
import numpy as np
from PIL import Image

from symdp.audit import plots as P
from symdp.audit.engine import library_claims, quick_from_ledger
from symdp.audit.parallel import audit_parallel, current_ledger_ids
from symdp.cache import VerdictCache
from symdp.library import get
from symdp.parallel import executor
from symdp.verify import load_ledger

UNCHECKED = next(i for i, e in sorted(load_ledger().items()) if e.get("verdict") == "UNCHECKED"
                 and get(i, with_evidence=False).expr_hash() == e.get("hash") and i in {t.id for t in library_claims()})

#: two refuted entries whose ledger rows are current (plotted), one that holds (not plotted), one the ledger
#: records as UNCHECKED (UNDECIDED: cached too, it does not depend on this machine's load)
IDS = ["he2021long.thm7_eps_tilde", "he2021long.lemma4_hoeffding_step", "he2021.lemma_kl", UNCHECKED]


def _rows(results) -> list[dict]:
    return json.loads(json.dumps([asdict(r) for r in results], default=str))


def test_quick_reads_the_ledger_in_workers_plots_there_and_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMDP_CACHE_DIR", str(tmp_path / "cache"))
    current = current_ledger_ids(IDS)
    assert current == set(IDS)  # the shipped ledger is current for these entries
    ref, todo = quick_from_ledger([get(i, with_evidence=False) for i in IDS])
    assert not todo
    c1 = VerdictCache()
    with executor(1) as ex:
        stats: dict = {}
        got = audit_parallel(IDS, ex, plots=True, report_dir=tmp_path / "a", algorithms=False, cache=c1,
                             ledger_ids=current, stats=stats)
        assert stats["ledger"]["tasks"] == 4 and stats["ledger"]["cached"] == 0
        by_id = {r.id: r for r in got}
        for r in ref:  # the ledger's verdicts, as the serial --quick reads them
            g = by_id[r.id]
            assert (g.verdict, g.counterexample, g.claimed, g.actual, g.rung) == (r.verdict, r.counterexample, r.claimed,
                                                                                  r.actual, r.rung)
            assert g.extra.get("from_ledger") is True
        plotted = [r for r in got if r.verdict in ("FAILS", "PARTIAL")]
        assert len(plotted) == 2 and all(r.plot and (tmp_path / "a" / r.plot).is_file() for r in plotted)
        assert not by_id["he2021.lemma_kl"].plot and by_id[UNCHECKED].verdict == "UNDECIDED"
        # the ledger's certificate (a path under proofs/) is copied beside the report, as a full audit writes it,
        # with the reductions' files beside it, so the report's link opens in both modes
        kl = by_id["he2021.lemma_kl"]
        assert kl.certificate == "certificates/smt/he2021.lemma_kl.smt2"
        for name in ("he2021.lemma_kl.smt2", "he2021.lemma_kl.chord.smt2"):
            assert (tmp_path / "a" / "certificates" / "smt" / name).read_text().startswith(";")
        c2 = VerdictCache()
        stats2: dict = {}
        again = audit_parallel(IDS, ex, plots=True, report_dir=tmp_path / "b", algorithms=False, cache=c2,
                               ledger_ids=current, stats=stats2)
    assert c2.hits == 4 and stats2["ledger"]["cached"] == 4  # nothing recomputed: no worker pool is started
    assert _rows(again) == _rows(got)
    assert all((tmp_path / "b" / r.plot).is_file() for r in plotted)  # the plots come from the cache


def test_sweep_time_limit_keeps_coarse_points_and_the_plot_says_so(tmp_path):
    calls = []

    def slow(pt):
        calls.append(float(pt["x"]))
        return mpmath.mpf(pt["x"]) ** 2

    xs, yc, _yt = P.sweep(slow, lambda pt: mpmath.mpf(1), {}, "x", 0.0, 2.0, n=60, seconds=0.0)
    done = ~np.isnan(yc)
    assert done.sum() == P.MIN_POINTS and done[0] and done[-1] and done[len(xs) // 2]  # ends and middle first
    np.testing.assert_allclose(yc[done], xs[done] ** 2)
    full = P.sweep(slow, lambda pt: mpmath.mpf(1), {}, "x", 0.0, 2.0, n=60, seconds=None)
    assert not np.isnan(full[1]).any()
    assert sorted(P._coarse_to_fine(60)) == list(range(60))
    path = P.plot_claim(tmp_path / "p.png", title="t", f_claim=slow, f_true=lambda pt: mpmath.mpf(1), point={}, var="x",
                        lo=0.0, hi=2.0, seconds=0.0)
    meta = json.loads(Image.open(path).info["Description"])
    assert f"{P.MIN_POINTS} of 60 points: plot time limit" in meta["axes"][0]["title"]


def test_one_slow_evaluation_is_interrupted_and_an_empty_plot_still_says_why(tmp_path):
    import time

    def stuck(pt):
        time.sleep(60)
        return mpmath.mpf(1)

    t0 = time.monotonic()
    path = P.plot_claim(tmp_path / "s.png", title="t", f_claim=stuck, f_true=lambda pt: mpmath.mpf(1), point={}, var="x",
                        lo=0.0, hi=2.0, seconds=0.2)
    assert time.monotonic() - t0 < 20  # the hard limit (2 s + 3 s) interrupted the first evaluation
    meta = json.loads(Image.open(path).info["Description"])
    assert "0 of 60 points: plot time limit" in meta["axes"][0]["title"]


def test_quick_plots_a_comparison_as_the_full_audit_does(tmp_path, monkeypatch):
    """A comparison that holds is plotted by the full audit (its ratio curve); ``--quick`` reads its verdict from
    the ledger and must draw the same plot (before, it plotted only refuted or partial entries: 38 plots against
    the full audit's 56)."""
    from symdp.audit.engine import audit_theorem

    monkeypatch.setenv("SYMDP_CACHE_DIR", str(tmp_path / "cache"))
    cid = "he2021.cmp_eps_vs_dwork_roth"
    th = get(cid, with_evidence=False)
    assert th.kind.name == "COMPARISON" and load_ledger()[cid]["verdict"] == "PROVED"
    current = current_ledger_ids([cid])
    assert current == {cid}
    full = audit_theorem(th, plot_dir=tmp_path / "f" / "plots", report_dir=tmp_path / "f")
    assert full.verdict == "HOLDS" and full.plot and (tmp_path / "f" / full.plot).is_file()
    with executor(1) as ex:
        got = audit_parallel([cid], ex, plots=True, report_dir=tmp_path / "q", algorithms=False,
                             cache=VerdictCache(), ledger_ids=current)
    (q,) = got
    assert q.extra.get("from_ledger") is True and q.verdict == "HOLDS"
    assert q.plot == full.plot and (tmp_path / "q" / q.plot).is_file()
