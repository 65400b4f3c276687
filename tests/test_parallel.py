"""Scale-out (issue 15): the audit, the verifier and the sweep give the same results on 1 process, 2 local
processes and a Dask LocalCluster with two workers; an unreachable scheduler is a clean one-line error;
a sweep resumes; the verdict cache serves a rerun and ``--no-cache`` recomputes.

The oracle of every comparison is the serial computation of the owning module (``audit_theorems`` of the
audit engine, ``verify_theorem``, the sweep computed chunk by chunk in this process), so a parallel path
that loses, reorders, mixes up or re-seeds a claim fails."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from symdp.audit.engine import audit_theorems
from symdp.audit.parallel import PRELOAD, audit_parallel
from symdp.cache import VerdictCache, cache_dir, code_version, theorem_fingerprint
from symdp.cli import main
from symdp.errors import InvalidParameterError
from symdp.library import get
from symdp.parallel import check_workers, connect, default_workers, executor
from symdp.sweep import Grid, make_grid, parse_values, run_sweep, sweep_rows

#: a cheap subset: refuted entries with plots, each with a second reading (the links between an entry and its
#: reading are made after the pool); the slow tests add proofs with certificates, the mechanism-level claims
#: and the experiments (the whole library)
SUBSET = ["he2021long.thm7_eps_tilde", "he2021long.lemma4_hoeffding_step"]


def _norm(results) -> list[dict]:
    rows = json.loads(json.dumps([asdict(r) for r in results], default=str))
    for r in rows:
        r["extra"].pop("seconds", None)  # wall time, the one field allowed to differ
    return rows


def _files(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file() and p.suffix != ".png"} | {
        p.relative_to(d).as_posix(): b"png" for p in d.rglob("*.png")}  # PNG bytes embed nothing stable to compare


@pytest.fixture(scope="module")
def serial_subset(tmp_path_factory):
    d = tmp_path_factory.mktemp("serial")
    res = audit_theorems([get(i, with_evidence=False) for i in SUBSET], plots=True, report_dir=d)
    return _norm(res), _files(d)


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster:
        yield cluster.scheduler_address


# ---- the executor ---------------------------------------------------------------------------------------------------

def test_executor_keeps_task_order_whatever_the_finish_order():
    xs = [5, 1, 4, 2, 3, 0]
    seen: list[int] = []
    with executor(2) as ex:
        got = ex.map(math.factorial, xs, cost=[0, 9, 1, 8, 2, 7], progress=lambda i, r: seen.append(i))
    assert got == [math.factorial(x) for x in xs] and sorted(seen) == list(range(6))
    with executor(1) as ex:
        assert ex.kind == "serial" and ex.map(math.factorial, xs) == got


def test_next_task_is_handed_out_before_the_progress_callback(tmp_path):
    """A slow ``progress`` (the audit's cache writes fsync each entry) must not leave a worker idle: the task after
    the first four (two per worker) is submitted before ``progress`` runs for the first finished one, so it starts
    (here: makes its directory) while that callback still waits for it."""
    import os
    import time

    dirs = [str(tmp_path / f"t{i}") for i in range(8)]
    waited: list[bool] = []

    def progress(i, r):
        if not waited:
            t0 = time.monotonic()
            while not any(os.path.isdir(d) for d in dirs[4:]) and time.monotonic() - t0 < 60:
                time.sleep(0.01)
            waited.append(any(os.path.isdir(d) for d in dirs[4:]))

    with executor(2) as ex:
        ex.map(os.mkdir, dirs, progress=progress)
    assert waited == [True] and all(os.path.isdir(d) for d in dirs)


def test_workers_validated():
    assert default_workers() >= 1 and check_workers(None) == default_workers()
    for bad in (0, -1, 2000, 1.5, True, "2"):
        with pytest.raises(InvalidParameterError, match="workers"):
            check_workers(bad)


# ---- the audit: 2 processes and Dask equal the serial engine ------------------------------------------------------

def test_audit_two_processes_equal_the_serial_engine(serial_subset, tmp_path):
    ref, ref_files = serial_subset
    with executor(2, preload=PRELOAD) as ex:
        got = audit_parallel(SUBSET, ex, plots=True, report_dir=tmp_path)
    assert _norm(got) == ref
    assert _files(tmp_path) == ref_files  # the same plots and certificates, written by the parent
    assert [r["id"] for r in ref][:2] == SUBSET and [r["verdict"] for r in ref][:2] == ["FAILS", "FAILS"]
    assert len(ref) == 4 and all(r["id"].startswith("reading.") for r in ref[2:]) and ref[0]["plot"]
    assert ref[0]["extra"]["other_reading"] == "reading.he2021long.thm7_eps_tilde"


@pytest.mark.slow  # a 2-process cluster that imports SymPy and builds the library: ~45 s on the loaded 2-core box
def test_audit_and_sweep_on_a_dask_local_cluster(serial_subset, dask_cluster, tmp_path):
    ref, ref_files = serial_subset
    with executor(scheduler=dask_cluster) as ex:
        assert ex.kind == "dask"
        got = audit_parallel(SUBSET, ex, plots=True, report_dir=tmp_path / "r")
    assert _norm(got) == ref and _files(tmp_path / "r") == ref_files
    g = make_grid(sigma="0.7,1.3", q="0.01,0.2", steps="10,300", delta="1e-5,1e-8", epsilon=None, accountant="rdp,clt")
    rep = run_sweep(g, tmp_path / "s.parquet", chunk_size=5, scheduler=dask_cluster)
    assert rep.chunks == math.ceil(g.size / 5) and rep.computed == rep.chunks
    import pyarrow.parquet as pq

    assert pq.read_table(tmp_path / "s.parquet").to_pydict() == sweep_rows(g, chunk_size=16)


def test_sweep_on_a_threaded_dask_cluster_equals_serial(tmp_path):
    """The Dask path of the executor, cheaply: two in-process workers (numpy only; the audit needs processes, slow test)."""
    distributed = pytest.importorskip("distributed")
    g = make_grid(sigma="0.7,1.3", q="0.01,0.2", steps="10,300", delta="1e-5", epsilon=None, accountant="rdp")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                                  silence_logs=40) as cluster:
        rep = run_sweep(g, tmp_path / "s.csv", chunk_size=3, scheduler=cluster.scheduler_address)
    assert (rep.chunks, rep.computed) == (3, 3)
    import pyarrow.csv as pacsv

    assert pacsv.read_csv(tmp_path / "s.csv").to_pydict() == sweep_rows(g, chunk_size=8)


def test_unreachable_scheduler_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.setattr("symdp.parallel.CONNECT_TIMEOUT", 1.0)
    with pytest.raises(InvalidParameterError, match="cannot be reached"):
        connect("tcp://127.0.0.1:9")
    out = tmp_path / "report"
    r = CliRunner().invoke(main, ["audit", "he2021.lemma_kl", "--scheduler", "tcp://127.0.0.1:9", "--out", str(out)])
    assert r.exit_code == 2 and "cannot be reached" in r.output and len(r.output.strip().splitlines()) == 1
    assert "Traceback" not in r.output and not out.exists()
    r = CliRunner().invoke(main, ["sweep", "--sigma", "1", "--q", "0.01", "--steps", "10", "--delta", "1e-5",
                                  "--out", str(tmp_path / "s.csv"), "--scheduler", "tcp://127.0.0.1:9"])
    assert r.exit_code == 2 and "cannot be reached" in r.output and not (tmp_path / "s.csv").exists()


# ---- the verdict cache ----------------------------------------------------------------------------------------------

def test_cache_hit_on_rerun_and_no_cache_recomputes(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMDP_CACHE_DIR", str(tmp_path / "cache"))
    assert cache_dir() == tmp_path / "cache"
    ids = ["he2021.lemma_kl", "he2021long.thm7_eps_tilde"]
    c1 = VerdictCache()
    with executor(1) as ex:
        first = audit_parallel(ids, ex, plots=True, report_dir=tmp_path / "a", algorithms=False, cache=c1)
        assert c1.hits == 0 and c1.misses == 2
        c2 = VerdictCache()
        second = audit_parallel(ids, ex, plots=True, report_dir=tmp_path / "b", algorithms=False, cache=c2)
        assert c2.hits == 2 and c2.misses == 0
        assert [asdict(r) for r in second] == [asdict(r) for r in first]  # seconds included: served, not recomputed
        assert _files(tmp_path / "b") == _files(tmp_path / "a")  # the plots come from the cache too
        fresh = audit_parallel(ids, ex, plots=True, report_dir=tmp_path / "c", algorithms=False, cache=None)
    assert _norm(fresh) == _norm(first)
    # what changed is redone: another statement, seed or code version is another key
    th = get("he2021.lemma_kl", with_evidence=False)
    k = c1.key("audit", {"theorem": theorem_fingerprint(th), "seed": 0})
    assert k != c1.key("audit", {"theorem": theorem_fingerprint(replace(th, rhs=th.rhs * 2)), "seed": 0})
    assert k != c1.key("audit", {"theorem": theorem_fingerprint(th), "seed": 1})
    assert code_version().count("+") == 1
    # a corrupt entry is a miss, never an error
    for p in (tmp_path / "cache").rglob("*.json"):
        p.write_text("{not json")
    c3 = VerdictCache()
    with executor(1) as ex:
        audit_parallel(ids[:1], ex, plots=False, algorithms=False, cache=c3)
    assert c3.hits == 0


def test_cli_cache_and_no_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMDP_CACHE_DIR", str(tmp_path / "cache"))
    args = ["audit", "he2021.lemma_kl", "--no-plots", "--workers", "1", "--json", "-"]
    r1 = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "r1")])
    assert r1.exit_code == 0, r1.output
    entries = list((tmp_path / "cache").rglob("*.json"))
    assert entries
    mtimes = {p: p.stat().st_mtime_ns for p in entries}
    r2 = CliRunner().invoke(main, [*args, "--no-cache", "--out", str(tmp_path / "r2")])
    assert r2.exit_code == 0 and {p: p.stat().st_mtime_ns for p in entries} == mtimes  # neither read nor written
    v1 = json.loads((tmp_path / "r1" / "audit.json").read_text())["claims"]
    v2 = json.loads((tmp_path / "r2" / "audit.json").read_text())["claims"]
    assert [c["verdict"] for c in v1] == [c["verdict"] for c in v2] == ["HOLDS"]


def test_claim_file_pool_path_equals_audit_claim_file(tmp_path, monkeypatch):
    """Claim files go through the pool path (one task per claim, its text shipped): same results as the engine's
    serial loop; a second run is served from the cache, an UNDECIDED result never is."""
    from symdp.audit.engine import audit_claim_file
    from symdp.audit.parallel import run_claim_file_audit

    monkeypatch.setenv("SYMDP_CACHE_DIR", str(tmp_path / "cache"))
    f = Path(__file__).resolve().parents[1] / "examples" / "claims" / "kl_partial.toml"
    ref = _norm(audit_claim_file(f, plots=False))
    got = _norm(run_claim_file_audit(f, workers=1, plots=False))
    assert got == ref and len(ref) == 2
    n_entries = len(list((tmp_path / "cache").rglob("*.json")))
    assert n_entries == sum(r["verdict"] != "UNDECIDED" for r in ref)
    assert _norm(run_claim_file_audit(f, workers=1, plots=False)) == ref
    # a run limit already spent: every claim UNDECIDED with the reason (as the serial loop says it), nothing cached
    late = _norm(run_claim_file_audit(f, workers=1, plots=False, run_seconds=1e-9, use_cache=False))
    assert [r["verdict"] for r in late] == ["UNDECIDED"] * 2 and "run time limit" in late[0]["detail"]


# ---- the sweep ------------------------------------------------------------------------------------------------------

def test_sweep_resume_skips_finished_chunks(tmp_path):
    g = make_grid(sigma="lin:0.8:1.6:3", q="0.01", steps="100,1000", delta="1e-5", epsilon=None, accountant="rdp")
    out = tmp_path / "s.csv"
    rep = run_sweep(g, out, chunk_size=2, workers=1, max_chunks=2)  # interrupted after 2 of 3 chunks
    assert (rep.chunks, rep.computed, rep.skipped) == (3, 2, 0) and not out.exists()
    man = json.loads((tmp_path / "s.csv.parts" / "manifest.json").read_text())
    assert sorted(man["done"]) == ["0", "1"] and all(len(h) == 64 for h in man["done"].values())  # chunk -> SHA-256
    before = (tmp_path / "s.csv.parts" / "chunk-000000.csv").stat().st_mtime_ns
    rep = run_sweep(g, out, chunk_size=2, workers=1)
    assert (rep.computed, rep.skipped) == (1, 2) and out.exists()
    assert (tmp_path / "s.csv.parts" / "chunk-000000.csv").stat().st_mtime_ns == before  # not recomputed
    import pyarrow.csv as pacsv

    got = pacsv.read_csv(out).to_pydict()
    ref = sweep_rows(g)
    assert got.keys() == ref.keys() and got["epsilon"] == pytest.approx(ref["epsilon"], rel=1e-15)
    assert got["noise_multiplier"] == ref["noise_multiplier"] and len(got["epsilon"]) == g.size == 6
    # an oracle for the values themselves: the single-configuration RDP accountant
    from symdp.accountants import epsilon

    e = epsilon(noise_multiplier=1.2, sample_rate=0.01, steps=1000, delta=1e-5, accountant="rdp").epsilon
    i = next(k for k in range(6) if got["noise_multiplier"][k] == pytest.approx(1.2) and got["steps"][k] == 1000)
    assert got["epsilon"][i] == pytest.approx(e, rel=1e-12) and all(got["upper_bound"])
    # a different grid over the same parts is refused, not mixed
    g2 = make_grid(sigma="2", q="0.01", steps="100", delta="1e-5", epsilon=None, accountant="rdp")
    with pytest.raises(InvalidParameterError, match="different grid"):
        run_sweep(g2, out, chunk_size=2, workers=1)


@pytest.mark.slow
def test_sweep_two_workers_equal_one_and_delta_mode(tmp_path):
    g = make_grid(sigma="0.9,1.5", q="0.02,1", steps="0,50", delta=None, epsilon="0.5,2", accountant="rdp,clt")
    run_sweep(g, tmp_path / "one.parquet", chunk_size=3, workers=1)
    run_sweep(g, tmp_path / "two.parquet", chunk_size=3, workers=2)
    import pyarrow.parquet as pq

    one, two = (pq.read_table(tmp_path / f).to_pydict() for f in ("one.parquet", "two.parquet"))
    assert one == two and len(one["delta"]) == g.size
    d = np.array(one["delta"])
    assert np.all((d >= 0) & (d <= 1)) and np.all(d[np.array(one["steps"]) == 0] == 0)
    # the CLT rows are labelled as approximations, never as upper bounds
    assert all(not ub for a, ub in zip(one["accountant"], one["upper_bound"]) if a == "clt")
    assert all(ub for a, ub in zip(one["accountant"], one["upper_bound"]) if a == "rdp")


@pytest.mark.parametrize("opt,value,needle", [
    ("--sigma", "0,1", "--sigma='0,1': value 0 is outside the allowed range (0, inf)"),
    ("--sigma", "1;import os", "is not a grid"),
    ("--q", "1.5", "outside the allowed range (0, 1]"),
    ("--steps", "lin:1:10:3", "(integers)"),
    ("--delta", "log:0:1e-3:3", "LO > 0"),
    ("--accountant", "rdp,nope", "'nope' is not one of"),
    ("--out", "x.txt", "must end in .parquet or .csv"),
    ("--chunk-size", "0", "--chunk-size"),
    ("--workers", "0", "--workers"),
])
def test_sweep_bad_grid_is_exit_2_one_line(tmp_path, opt, value, needle):
    args = {"--sigma": "1", "--q": "0.01", "--steps": "10", "--delta": "1e-5", "--out": str(tmp_path / "s.csv")}
    args[opt] = value
    r = CliRunner().invoke(main, ["sweep", *[x for kv in args.items() for x in kv]])
    assert r.exit_code == 2 and needle in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_parse_values_forms():
    assert parse_values("sigma", "log:1:100:3").tolist() == pytest.approx([1, 10, 100])
    assert parse_values("steps", "10,1e3").tolist() == [10, 1000]
    with pytest.raises(InvalidParameterError, match="N=0"):
        parse_values("q", "lin:0.1:0.2:0")
    with pytest.raises(InvalidParameterError, match="exactly one"):
        make_grid(sigma="1", q="0.1", steps="1", delta="1e-5", epsilon="1", accountant="rdp")
    with pytest.raises(InvalidParameterError, match="not delta for an --epsilon"):
        Grid((1.0,), (0.1,), (1,), (1.0,), ("advanced",), "delta")


# ---- verify --------------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_verify_two_workers_equal_serial():
    from symdp.verify import verify_theorem
    from symdp.verify.parallel import result_to_json, verify_parallel

    ids = ["he2021.lemma_kl", "he2021long.thm7_eps_tilde"]
    ref = [result_to_json(verify_theorem(get(i, with_evidence=False))) for i in ids]
    got = [result_to_json(r) for r in verify_parallel(ids, workers=2)]
    for x in ref + got:
        x.pop("seconds")
    assert got == ref and [x["evidence"]["verdict"] for x in ref] == ["PROVED", "REFUTED"]


# ---- slow: the whole library ----------------------------------------------------------------------------------------

@pytest.mark.slow
def test_full_audit_two_workers_and_dask_equal_one(dask_cluster, tmp_path):
    from symdp.audit.engine import library_claims

    ids = [t.id for t in library_claims()]
    runs = {}
    for name, kw in (("one", {"workers": 1}), ("two", {"workers": 2}), ("dask", {"scheduler": dask_cluster})):
        with executor(kw.get("workers"), kw.get("scheduler"), preload=PRELOAD) as ex:
            runs[name] = _norm(audit_parallel(ids, ex, plots=False))
    assert runs["one"] == runs["two"] == runs["dask"]
    assert len(runs["one"]) > len(ids)  # mechanism-level results, readings, experiments appended
