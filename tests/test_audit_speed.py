"""Issue 25 (the audit in a minute): the per-process oracle memo is keyed by everything its value depends on, the
claims that share an oracle run as one chain in one worker, and the results do not depend on the number of workers
or on how the tasks were chained.

Oracles of these tests: a counting function (the memo must call it again for any changed input: value, precision,
oracle, end), the serial engine (``audit_theorems`` in this process), and two processes."""

from __future__ import annotations

import json
from dataclasses import asdict

import mpmath
import pytest

from symdp.audit.engine import audit_theorems
from symdp.audit.parallel import PRELOAD, _share_key, audit_parallel, chains
from symdp.library import get
from symdp.parallel import executor
from symdp.verify.rungs import oracle as O


@pytest.fixture
def fresh_memo():
    saved = dict(O._MEMO)
    O._MEMO.clear()
    yield
    O._MEMO.clear()
    O._MEMO.update(saved)


def test_memo_recomputes_for_any_changed_input(fresh_memo):
    calls: list[dict] = []

    def f(**kw):
        calls.append(kw)
        return mpmath.mpf(kw["x"]) * 2 + (kw.get("T") or 0)

    x = mpmath.mpf("0.1")
    a = O.memo_call("o", "fn", f, {"x": x, "T": 3})
    assert O.memo_call("o", "fn", f, {"T": 3, "x": mpmath.mpf("0.1")}) == a and len(calls) == 1  # same input: a hit
    O.memo_call("o", "fn", f, {"x": x + mpmath.eps, "T": 3})  # the next mpf: a different key
    O.memo_call("o", "fn", f, {"x": x, "T": 4})
    O.memo_call("o", "fn", f, {"x": x, "T": 3.0 + 1e-15})  # a float that is not 3
    O.memo_call("o2", "fn", f, {"x": x, "T": 3})  # another oracle
    O.memo_call("o", "bracket", f, {"x": x, "T": 3})  # the other end of the same oracle
    assert len(calls) == 6
    with mpmath.workdps(60):  # another working precision: the value is recomputed at that precision
        b = O.memo_call("o", "fn", f, {"x": mpmath.mpf("0.1"), "T": 3})
    assert len(calls) == 7 and b != a  # 0.1 at 60 digits is another number than 0.1 at 15


def test_memo_skips_unhashable_inputs_and_does_not_store_errors(fresh_memo):
    n = {"calls": 0}

    def f(**kw):
        n["calls"] += 1
        if kw.get("boom"):
            raise ValueError("no value here")
        return 1

    for _ in range(2):
        O.memo_call("o", "fn", f, {"x": [1, 2]})  # a list is no key: computed every time
    assert n["calls"] == 2
    for _ in range(2):
        with pytest.raises(ValueError):
            O.memo_call("o", "fn", f, {"boom": True})
    assert n["calls"] == 4


SHARED = ["classical.kairouz2017_eps1", "he2021long.cor3_delta_pure", "he2021.lemma_kl", "he2021long.thm7_delta",
          "classical.dwork2010_kl"]


def test_chains_group_the_claims_of_one_oracle_under_a_cost_cap():
    tasks = [("claim", i, False, 0, False) for i in SHARED] + [("algo", "x", False, 0, False)]
    keys = [_share_key(t) for t in tasks]
    assert keys[:5] == ["optimal_composition", "optimal_composition", "kl_eps_dp", "optimal_composition", "kl_eps_dp"]
    assert keys[5] is None
    got = chains(tasks, [1.0] * 6, workers=1)  # cap 6/4 = 1.5 s: at most one task of cost 1 per chain
    assert sorted(i for c in got for i in c) == list(range(6)) and all(len(c) == 1 for c in got)
    got = chains(tasks, [1.0, 1.0, 1.0, 1.0, 1.0, 40.0], workers=1)
    assert got == [[0, 1, 3], [2, 4], [5]]  # each oracle's claims in task order, one chain each; the rest alone
    assert chains(tasks, [1.0, 1.0, 1.0, 1.0, 1.0, 40.0], workers=1) == got  # deterministic


def _norm(results) -> list[dict]:
    rows = json.loads(json.dumps([asdict(r) for r in results], default=str))
    for r in rows:
        r["extra"].pop("seconds", None)
    return rows


def test_chained_audit_equals_the_serial_engine_on_one_and_two_workers(tmp_path):
    ids = SHARED
    ref = _norm(audit_theorems([get(i, with_evidence=False) for i in ids], plots=False, algorithms=False,
                               report_dir=tmp_path / "serial"))
    for w in (1, 2):
        with executor(w, preload=PRELOAD) as ex:
            got = _norm(audit_parallel(ids, ex, plots=False, algorithms=False, report_dir=tmp_path / f"w{w}"))
        assert got == ref, f"workers={w}"
    assert [r["verdict"] for r in ref] == ["HOLDS", "FAILS", "HOLDS", "FAILS", "HOLDS"]


def test_pair_oracle_logsumexp_is_scipys_bit_for_bit():
    # the threshold search's logsumexp replays SciPy's operations without its array-API dispatch: same bits,
    # including ties at the maximum, -inf and +inf entries, all -inf, and the log-LR arrays the search builds
    import math

    import numpy as np
    from scipy import special, stats

    from symdp.audit.pair_oracle import _logsumexp

    rng = np.random.default_rng(7)
    for trial in range(3000):
        n = int(rng.integers(1, 200))
        a = rng.normal(0.0, 10 ** rng.uniform(-3, 3), n)
        kind = trial % 6
        if kind == 1:
            a[rng.integers(0, n, size=max(1, n // 3))] = -np.inf
        elif kind == 2:
            a[:] = a.max()
        elif kind == 3:
            a = np.full(n, -np.inf)
        elif kind == 4:
            a[rng.integers(0, n)] = np.inf
        elif kind == 5:
            T, q, r, c = n, min(1.0, 10 ** rng.uniform(-4, 0)), 10 ** rng.uniform(-2, 1), rng.normal(0, 50)
            k = np.arange(T + 1, dtype=float)
            a = stats.binom.logpmf(k, T, q) + k * r * c / T - (k * r) ** 2 / (2 * T)
        want, got = float(special.logsumexp(a)), _logsumexp(a)
        assert (math.isnan(want) and math.isnan(got)) or np.float64(want).tobytes() == np.float64(got).tobytes(), (kind, a)


def test_oracle_plot_uses_the_verifiers_box_and_skips_a_special_case_point_outside_it(tmp_path):
    # he2021.thm4_eps2_sum's heterogeneous oracle is searched for T <= 8 (2^(T-1) T vertices); its FAILS comes from
    # the homogeneous special case at T = 270, where no point of a plot ever finished (15 s hard stop, empty plot)
    import time

    from symdp.audit.engine import _functions, _plot
    from symdp.audit.finding import AuditResult
    from symdp.verify import ORACLES, oracle_functions, oracle_search_box

    th = get("he2021.thm4_eps2_sum", with_evidence=False)
    box = _functions(th)[5]
    assert box.ranges == oracle_search_box(th, ORACLES[th.oracle], oracle_functions(th, ORACLES[th.oracle]))[0].ranges
    assert box.ranges["T"] == (1.0, 8.0)
    cx = {"T": "270", "delta": "0.0002", "deltatilde": "5e-09", "epsilon": "0.06", "r_spread": "1"}
    res = AuditResult(id=th.id, kind="valid bound", title=th.title, source="", statement="", verdict="FAILS",
                      rung="consistency", counterexample=cx)
    t0 = time.monotonic()
    _plot(th, res, tmp_path / "plots", tmp_path)
    assert time.monotonic() - t0 < 5.0
    assert res.plot is None and "T = 270" in res.extra["plot_skipped"]
    assert not list(tmp_path.rglob("*.png"))


def test_a_skipped_plot_is_said_where_the_plot_would_be(tmp_path):
    # issue 25: a finding without a plot says why in both reports (extra["plot_skipped"], or a failed drawing)
    from symdp.audit.finding import AuditResult, finding_html, finding_markdown, plot_note

    why = "no plot: the special case's counterexample has T = 270 (searched in [1, 8]), outside the range"
    res = AuditResult(id="x.y", kind="valid bound", title="t", source="", statement="a <= b", verdict="FAILS",
                      rung="consistency", extra={"plot_skipped": why})
    assert plot_note(res) == why[len("no plot: "):]
    md = "\n".join(finding_markdown(res))
    assert "No plot: the special case's counterexample has T = 270" in md and "![" not in md
    page = finding_html(res, tmp_path)
    assert "class='plot-skipped'" in page and "T = 270 (searched in [1, 8])" in page and "<img" not in page
    failed = AuditResult(id="x.z", kind="valid bound", title="t", source="", statement="a <= b", verdict="FAILS",
                         extra={"plot_error": "ValueError: boom"})
    assert "drawing it failed (ValueError: boom)" in "\n".join(finding_markdown(failed))
    plain = AuditResult(id="x.w", kind="valid bound", title="t", source="", statement="a <= b", verdict="FAILS")
    assert plot_note(plain) is None and "plot-skipped" not in finding_html(plain, tmp_path)


def test_structural_undecided_results_are_cached_and_time_limited_ones_are_not():
    # issue 25: a warm audit recomputed 19 UNDECIDED claims whose reason is a fixed text of the code
    from symdp.audit.parallel import _cacheable, structural_undecided
    from symdp.library import get
    from symdp.verify import verify_theorem

    for tid in ("he2021uai.cor3_gap_rate", "lampert2026.prop1_gaussian_mechanism"):
        detail = verify_theorem(get(tid, with_evidence=False)).evidence.detail
        assert structural_undecided(detail), (tid, detail)
        assert _cacheable({"results": [{"verdict": "UNDECIDED", "detail": detail}]})
    for detail in ("verification exceeded the 60s budget per entry (use --deep for more)",
                   "time limit per claim (1 s) reached before a verdict",
                   "verifier error: Timeout: ", "undecided: stopped at the time limit of the oracle",
                   "Monte Carlo inconclusive at {} (3 < |z| <= 5)", "", None):
        assert not structural_undecided(detail), detail
        assert not _cacheable({"results": [{"verdict": "UNDECIDED", "detail": detail}]})
    assert _cacheable({"results": [{"verdict": "HOLDS", "detail": "anything"}]})


def test_float64_plot_twins_match_mpmath_and_leave_the_crossing_to_mpmath():
    # issue 25: plot curves in float64 where the two sides are clearly apart, mpmath where they are close
    import mpmath
    import numpy as np

    from symdp.audit.plots import sweep

    calls = {"mp": 0}

    def f_c(pt):  # crosses f_t = 1 at x = 0.5, flatly: within 2e-12 of it for |x - 0.5| <= 0.01
        calls["mp"] += 1
        d = pt["x"] - mpmath.mpf("0.5")
        return 1 + mpmath.mpf("1e-13") * d + mpmath.mpf("1e-6") * d**3

    def f_t(pt):
        return mpmath.mpf(1)

    # twins off by a relative 3e-12: well within FLOAT64_MAX_ERROR, but enough to misplace the crossing if trusted
    def g_c(pt):
        d = pt["x"] - 0.5
        return (1 + 1e-13 * d + 1e-6 * d**3) * (1 + 3e-12)

    def g_t(pt):
        return np.ones_like(pt["x"])

    with mpmath.workdps(30):
        xs, yc, yt = sweep(f_c, f_t, {}, "x", 0.0, 1.0, n=101)
        calls["mp"] = 0
        st: dict[str, int] = {}
        xs2, yc2, yt2 = sweep(f_c, f_t, {}, "x", 0.0, 1.0, n=101, fast=(g_c, g_t), stats=st)
    assert np.array_equal(xs, xs2)
    naive = np.sign(g_c({"x": xs}) - 1.0)
    assert not np.array_equal(naive, np.sign(yc - yt))  # trusted everywhere, the twin would misplace the crossing
    assert st["float64"] > 20 and st["mpmath"] == calls["mp"] >= 3  # far from the crossing float64, near it mpmath
    assert np.array_equal(np.sign(yc - yt), np.sign(yc2 - yt2))  # the crossing is where mpmath puts it
    assert float(np.max(np.abs(yc2 - yc) / np.abs(yc))) < 1e-10
    # a twin that is wrong (1e-3 off at the calibration points) is dropped: every point from mpmath
    st = {}
    with mpmath.workdps(30):
        _, yc3, _ = sweep(f_c, f_t, {}, "x", 0.0, 1.0, n=101, fast=(lambda pt: g_c(pt) * 1.001, g_t), stats=st)
    assert st.get("float64", 0) == 0 and np.array_equal(yc3, yc)


def test_float64_twins_of_a_library_plot_agree_with_mpmath():
    import mpmath
    import numpy as np

    from symdp.audit.engine import _float64_twins, _functions
    from symdp.audit.plots import sweep

    th = get("he2021long.thm7_subsampling", with_evidence=False)
    f_c, f_t, _syms, _lc, _lt, box = _functions(th)
    fast = _float64_twins(th)
    assert fast is not None
    names = box.names()
    point = {nm: (round(sum(box.ranges[nm]) / 2) if nm in box.integers else mpmath.mpf(sum(box.ranges[nm]) / 2))
             for nm in names}
    var = names[0]
    with mpmath.workdps(30):
        ref = sweep(f_c, f_t, point, var, *box.ranges[var], integer=var in box.integers)
        st: dict[str, int] = {}
        new = sweep(f_c, f_t, point, var, *box.ranges[var], integer=var in box.integers, fast=fast, stats=st)
    assert st["float64"] > 0
    for a, b in ((ref[1], new[1]), (ref[2], new[2])):
        ok = np.isfinite(a)
        assert np.array_equal(ok, np.isfinite(b)) and float(np.max(np.abs(a[ok] - b[ok]) / np.abs(a[ok]))) < 1e-7
    assert np.array_equal(np.sign(ref[1] - ref[2]), np.sign(new[1] - new[2]))
