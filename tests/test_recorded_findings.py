"""Issue 25: ``symdp verify`` records the audit's mechanism-level results (second readings, algorithm claims,
experiments) in ``proofs/findings.json`` under the verdict cache's task key; ``symdp audit --quick`` reads a row
when its key is current, so on an empty cache it computes none of them, and recomputes exactly a task whose
fingerprint changed."""

from __future__ import annotations

import json
from dataclasses import asdict

from click.testing import CliRunner

import symdp._paths
import symdp.audit.parallel as AP
import symdp.cache
from symdp.audit.recorded import FILE, load_recorded
from symdp.parallel import executor

#: two library entries, each with a second reading (the cheapest recorded tasks: ~0.1 s each)
IDS = ["he2021long.lemma4_hoeffding_step", "he2021long.thm8_eps_tilde"]
READ = ["reading.he2021long.lemma4_hoeffding_step", "reading.he2021long.thm8_eps_tilde"]


def _rows(results) -> list[dict]:
    """The results as the JSON report sees them, less the seconds a computation took (``extra.seconds``)."""
    rows = json.loads(json.dumps([asdict(r) for r in results], default=str))
    for r in rows:
        r["extra"].pop("seconds", None)
    return rows


def _quick(ids, root, stats):
    with executor(1) as ex:
        return AP.audit_parallel(ids, ex, plots=False, algorithms=True, cache=None,
                                 ledger_ids=AP.current_ledger_ids(ids), recorded=load_recorded(root), stats=stats)


def test_quick_reads_current_rows_and_recomputes_only_the_stale_one(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMDP_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "proofs"
    tasks = AP.recorded_tasks(IDS)
    led = AP.current_ledger_ids(IDS)
    assert [t for t in tasks if t[0] == "ledger"] == [("ledger", i, False, 0, True) for i in IDS if i in led]
    assert [t[1] for t in tasks if t[0] != "ledger"] == READ
    n = len(tasks)
    got = AP.record(IDS, workers=1, use_cache=False, root=root)
    assert got["recorded"] == n and got["computed"] == n and not got["skipped"]
    doc = json.loads((root / FILE).read_text())
    assert [(r["kind"], r["ref"], r["key"]) for r in doc["rows"] if r["kind"] == "reading"] == [
        ("reading", ref, AP.task_key(("reading", ref, False, 0, False))) for ref in READ]
    assert AP.recorded_current(IDS, root) == (n, n)

    stats: dict = {}
    quick = _quick(IDS, root, stats)
    assert stats["reading"] == {"tasks": 2, "cached": 2, "recorded": 2, "seconds": 0.0, "cpu": 0.0}  # none computed
    full: dict = {}
    with executor(1) as ex:
        ref = AP.audit_parallel(IDS, ex, plots=False, algorithms=True, cache=None, stats=full)
    assert full["reading"]["cached"] == 0
    by_id = {r["id"]: r for r in _rows(ref)}
    quick_rows = [r for r in _rows(quick) if r["id"] in READ]
    assert [r["id"] for r in quick_rows] == READ
    for r in quick_rows:  # the recorded readings are the computed ones (the entries themselves come from the ledger)
        assert r == by_id[r["id"]]

    # the fingerprint of one task changes (its definition, say): that task alone is computed again
    parts = AP._cache_parts

    def perturbed(task):
        p = parts(task)
        return p | {"changed": True} if task[1] == READ[1] else p

    monkeypatch.setattr(AP, "_cache_parts", perturbed)
    assert AP.recorded_current(IDS, root) == (n - 1, n)
    stats = {}
    again = _quick(IDS, root, stats)
    assert stats["reading"]["recorded"] == 1 and stats["reading"]["cached"] == 1
    assert [p[1] for p in stats["_per_task"] if p[0] == "reading"] == [READ[1]]
    assert _rows(again) == _rows(quick)
    monkeypatch.setattr(AP, "_cache_parts", parts)

    # any change of the code (the code version in every key) makes every row stale
    monkeypatch.setattr(symdp.cache, "code_version", lambda: "another+version")
    assert AP.recorded_current(IDS, root) == (0, n)
    stats = {}
    _quick(IDS, root, stats)
    assert stats["reading"].get("recorded", 0) == 0 and stats["reading"]["cached"] == 0


def test_verify_command_records_the_rows_and_no_write_does_not(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMDP_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "proofs"
    monkeypatch.setattr(symdp._paths, "default_proofs_out", lambda: root)
    from symdp.cli import main

    res = CliRunner().invoke(main, ["verify", IDS[0], "--quiet", "--workers", "1", "--no-write"])
    assert res.exit_code == 0, res.output
    assert not (root / FILE).exists()
    res = CliRunner().invoke(main, ["verify", IDS[0], "--quiet", "--workers", "1"])
    assert res.exit_code == 0, res.output
    want = [AP.task_key(t) for t in AP.recorded_tasks(IDS[:1])]  # the reading, and the ledger row when current
    assert (root / "ledger.json").is_file() and f"audit findings: {len(want)} rows" in res.output
    rec = load_recorded(root)
    assert sorted(rec) == sorted(want) and AP.task_key(("reading", READ[0], False, 0, False)) in rec
    assert rec[AP.task_key(("reading", READ[0], False, 0, False))]["results"][0]["id"] == READ[0]


def test_quick_reads_a_ledger_row_with_its_plot(tmp_path, monkeypatch):
    """Session 34: ``--quick``'s view of a current ledger row (its result and plot) is recorded too; a quick run with
    a report reads it (no task computed) and writes the same result and the same plot bytes as computing it."""
    monkeypatch.setenv("SYMDP_CACHE_DIR", str(tmp_path / "cache"))
    ids = ["he2021.thm4_eps2"]  # a REFUTED entry of the shipped ledger: its quick view draws a plot
    assert AP.current_ledger_ids(ids) == set(ids)
    root = tmp_path / "proofs"
    got = AP.record(ids, workers=1, use_cache=False, root=root)
    assert got["recorded"] == 1 and not got["skipped"]
    row = next(r for r in json.loads((root / FILE).read_text())["rows"] if r["kind"] == "ledger")
    assert row["ref"] == ids[0] and any(k.endswith(".png") for k in row["files"])

    def quick(recorded, out):
        stats: dict = {}
        with executor(1) as ex:
            res = AP.audit_parallel(ids, ex, plots=True, report_dir=out, algorithms=False, cache=None,
                                    ledger_ids=AP.current_ledger_ids(ids), recorded=recorded, stats=stats)
        return res, stats

    read, st = quick(load_recorded(root), tmp_path / "a")
    assert st["ledger"] == {"tasks": 1, "cached": 1, "recorded": 1, "seconds": 0.0, "cpu": 0.0}
    fresh, st2 = quick({}, tmp_path / "b")
    assert st2["ledger"]["cached"] == 0 and _rows(read) == _rows(fresh)
    pa = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.png"))
    pb = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*.png"))
    assert pa and pa == pb
    assert all((tmp_path / "a" / p).read_bytes() == (tmp_path / "b" / p).read_bytes() for p in pa)


def test_code_version_is_the_same_in_a_checkout_and_an_installed_wheel(tmp_path):
    """The key of a recorded row holds the code version: a wheel (kernels in symdp/generated, the ledger and
    findings.json in symdp/_proofs) hashes the same code as the checkout (generated/ beside the package, proofs/
    outside it), so the rows the checkout's verify recorded are current once installed; a source edit is not."""
    def write(root, files):
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)

    src = {"__init__.py": "x = 1\n", "audit/parallel.py": "y = 2\n"}
    gen = {"MANIFEST.json": "{}", "mpmath_gdp.py": "z = 3\n"}
    write(tmp_path / "co" / "symdp", src)
    write(tmp_path / "co" / "generated", gen)
    write(tmp_path / "co" / "proofs", {"findings.json": "{}"})
    write(tmp_path / "whl" / "symdp", src | {f"generated/{k}": v for k, v in gen.items()}
          | {"_proofs/findings.json": '{"rows": []}', "_proofs/ledger.json": "{}"})
    co = symdp.cache.tree_hash(tmp_path / "co" / "symdp", tmp_path / "co" / "generated", "0.1.0")
    whl = symdp.cache.tree_hash(tmp_path / "whl" / "symdp", tmp_path / "whl" / "symdp" / "generated", "0.1.0")
    assert co == whl
    (tmp_path / "whl" / "symdp" / "audit" / "parallel.py").write_text("y = 3\n")
    assert symdp.cache.tree_hash(tmp_path / "whl" / "symdp", tmp_path / "whl" / "symdp" / "generated", "0.1.0") != co
    (tmp_path / "co" / "generated" / "mpmath_gdp.py").write_text("z = 4\n")
    assert symdp.cache.tree_hash(tmp_path / "co" / "symdp", tmp_path / "co" / "generated", "0.1.0") != co


def test_a_recorded_result_keeps_the_order_of_its_counterexample(tmp_path, monkeypatch):
    """A recorded row reads as the computed one, word for word: ``findings.json`` was written with ``sort_keys``, so
    a counterexample ``{N, tau, T, delta}`` came back as ``{N, T, delta, tau}`` and ``--quick``'s report printed its
    parameters in another order than the full run's (15 'compared' sentences differed)."""
    cx = {"N": 1000, "tau": 900, "T": 1, "delta": 1e-10, "D": 1.0}
    payload = {"results": [{"id": "x", "counterexample": cx, "extra": {"seconds": 0.1, "origin": "paper"}}],
               "files": {}}
    monkeypatch.setattr(AP, "recorded_tasks", lambda ids: [("algo", "algo.x", False, 0, True)])
    monkeypatch.setattr(AP, "fill", lambda tasks, ex, cache=None, progress=None: ([payload], list(tasks), None))
    monkeypatch.setattr(AP, "_cacheable", lambda pl: True)
    root = tmp_path / "proofs"
    AP.record(["algo.x"], workers=1, use_cache=False, root=root)
    (row,) = load_recorded(root).values()
    assert list(row["results"][0]["counterexample"]) == ["N", "tau", "T", "delta", "D"]
    assert list(row["results"][0]["extra"]) == ["seconds", "origin"]
