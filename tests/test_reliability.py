"""Reliability at the edges (issue 24): bounded reads, writes only in their place, resumable sweeps that never
lose a result, text never evaluated, state and options validated before anything changes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from symdp._io import read_text_limited
from symdp.cli import main
from symdp.errors import ClaimFileError, InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]


# ---- bounded reads: regular files only, at most limit + 1 bytes ------------------------------------------------------

def test_read_refuses_dev_zero_and_fifo_quickly(tmp_path):
    with pytest.raises(ClaimFileError, match="not a regular file"):
        read_text_limited("/dev/zero", limit=1000, what="claim file", error=ClaimFileError)
    fifo = tmp_path / "f.toml"
    os.mkfifo(fifo)
    done: list[BaseException] = []

    def read() -> None:
        try:
            read_text_limited(fifo, limit=1000, what="claim file", error=ClaimFileError)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion below
            done.append(exc)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "reading a FIFO blocked"
    assert isinstance(done[0], ClaimFileError) and "not a regular file" in str(done[0])


def test_read_limit_and_bom(tmp_path):
    p = tmp_path / "a.toml"
    p.write_bytes(b"x" * 1001)
    with pytest.raises(ClaimFileError, match="limit is 1000"):
        read_text_limited(p, limit=1000, what="claim file", error=ClaimFileError)
    p.write_bytes(b"x" * 1000)
    assert len(read_text_limited(p, limit=1000, what="claim file", error=ClaimFileError)) == 1000
    p.write_bytes("\ufefftitle = 'x'\n".encode())
    assert read_text_limited(p, limit=1000, what="claim file", error=ClaimFileError) == "title = 'x'\n"


def test_theorem_file_with_bom_is_accepted(tmp_path):
    from symdp.theorem_file import load

    text = (ROOT / "examples" / "derive" / "my_theorems.toml").read_text(encoding="utf-8")
    p = tmp_path / "t.toml"
    p.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert [t.theorem.id for t in load(p)] == [t.theorem.id for t in load(ROOT / "examples" / "derive" / "my_theorems.toml")]


def test_cli_claim_file_dev_zero_is_one_line():
    r = CliRunner().invoke(main, ["audit", "--claims", "/dev/zero"])
    assert r.exit_code == 2 and "not a regular file" in r.output and "Traceback" not in r.output


# ---- text is never evaluated --------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", ["series", "rate", "leading_term"])
def test_asymptotics_refuse_text(call, tmp_path, monkeypatch):
    import symdp
    from symdp import asymptotics

    monkeypatch.chdir(tmp_path)
    payload = "__import__('pathlib').Path('pwned').touch() or x"
    fn = getattr(asymptotics, call)
    with pytest.raises(InvalidParameterError, match="not a SymPy expression"):
        fn(payload, "x")
    with pytest.raises(InvalidParameterError, match="not a SymPy expression"):
        symdp.rate(payload, "x")
    assert not (tmp_path / "pwned").exists()


def test_fullwidth_homoglyphs_are_refused_not_folded():
    import sympy as sp

    from symdp.audit.parser import parse_expression

    x = sp.Symbol("eps")
    assert parse_expression("2*eps", {"eps": x}) == 2 * x
    with pytest.raises(ClaimFileError, match="compatibility variant"):
        parse_expression("2*\uff45\uff50\uff53", {"eps": x})  # fullwidth 'eps'


def test_at_beyond_the_float_range_is_refused():
    from symdp.asymptotics import parse_point

    for bad in ("1e400", "-1e400", "1e-400"):
        with pytest.raises(InvalidParameterError, match="float range"):
            parse_point(bad)
    assert parse_point("2.5e3") == 2500


def test_symbols_named_like_modules_do_not_break_kernels(tmp_path):
    src = tmp_path / "np.toml"
    src.write_text('[symbols]\nnp = { range = [0.001, 1.0] }\ntorch = { range = [1, 100] }\nmp = { range = [1, 100] }\n'
                   'max = { range = [1, 100] }\n\n[[theorem]]\nid = "user.np"\ntitle = "x"\nkind = "bound"\nlhs = "y"\n'
                   'relation = "<="\nrhs = "exp(np)*torch + log(mp) + max"\n')
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["codegen", "--theorems", str(src), "--out", str(out)])
    assert r.exit_code == 0, r.output
    code = ("import sys, math; sys.path.insert(0, sys.argv[1]); import numpy_user, torch_user, mpmath_user\n"
            "ref = math.exp(0.5) * 2 + math.log(3) + 4\n"
            "for m in (numpy_user, torch_user, mpmath_user):\n"
            "    v = float(m.user__np(np=0.5, torch=2.0, mp=3.0, max=4.0)); assert abs(v - ref) < 1e-12 * ref, (m, v)\n")
    subprocess.run([sys.executable, "-c", code, str(out)], check=True, timeout=120)


# ---- writes: exclusive temporaries, never inside the package / proofs/, nothing left on failure -------------------

def _user_theorems(tmp_path: Path) -> Path:
    return ROOT / "examples" / "derive" / "my_theorems.toml"


def test_codegen_planted_symlink_is_replaced_not_followed(tmp_path):
    victim = tmp_path / "victim.py"
    victim.write_text("KEEP")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("numpy_user.py", ".numpy_user.py.tmp", "MANIFEST.json", ".MANIFEST.json.tmp"):
        (out / name).symlink_to(victim)
    r = CliRunner().invoke(main, ["codegen", "--theorems", str(_user_theorems(tmp_path)), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert victim.read_text() == "KEEP"
    assert not (out / "numpy_user.py").is_symlink() and "def " in (out / "numpy_user.py").read_text()


@pytest.mark.parametrize("where", ["", "proofs", "package", "generated"])
def test_codegen_out_refused_in_library_places(where, tmp_path):
    target = {"": "", "proofs": str(ROOT / "proofs" / "x"), "package": str(ROOT / "symdp" / "x"),
              "generated": str(ROOT / "generated")}[where]
    before = sorted(os.listdir(ROOT / "proofs")), sorted(os.listdir(ROOT / "symdp"))
    r = CliRunner().invoke(main, ["codegen", "--theorems", str(_user_theorems(tmp_path)), "--out", target])
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "Traceback" not in r.output, r.output
    assert (sorted(os.listdir(ROOT / "proofs")), sorted(os.listdir(ROOT / "symdp"))) == before
    if where == "proofs":  # the library codegen too (only `symdp verify` writes proofs/)
        r = CliRunner().invoke(main, ["codegen", "--out", target])
        assert r.exit_code == 2 and "proofs/" in r.output and not (ROOT / "proofs" / "x").exists()


def test_failed_codegen_leaves_nothing(tmp_path, monkeypatch):
    from symdp.codegen import user

    out = tmp_path / "deep" / "out"
    calls = {"n": 0}
    real = Path.write_text

    def flaky(self: Path, *a, **k):  # the second file fails (disk full)
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "write_text", flaky)
    from symdp.theorem_file import load

    with pytest.raises(OSError):
        user.write_user([t.theorem for t in load(_user_theorems(tmp_path))], out)
    assert not out.exists() and os.listdir(tmp_path) == []


def test_cache_dir_inside_the_package_is_refused(monkeypatch):
    from symdp import cache

    monkeypatch.setenv("SYMDP_CACHE_DIR", str(ROOT / "symdp" / "cachehere"))
    with pytest.raises(InvalidParameterError, match="inside the installed symdp package"):
        cache.cache_dir()


# ---- sweeps ---------------------------------------------------------------------------------------------------------

def _grid():
    from symdp.sweep import make_grid

    # q = 1 and steps 0: epsilon 0 and integer-looking sigma, q: CSV would read these back as int64 without a schema
    return make_grid(sigma="1,2", q="1", steps="0,10", delta="1e-5", epsilon=None, accountant="rdp")


def test_sweep_csv_integer_chunk_is_read_back_typed(tmp_path):
    from symdp.sweep import run_sweep, sweep_rows

    out = tmp_path / "s.csv"
    run_sweep(_grid(), out, chunk_size=1, workers=1, max_chunks=2)
    rep = run_sweep(_grid(), out, chunk_size=1, workers=1)
    assert (rep.computed, rep.skipped) == (2, 2) and out.exists()
    import pyarrow.csv as pacsv

    from symdp.sweep import _schema

    got = pacsv.read_csv(out, convert_options=pacsv.ConvertOptions(column_types=_schema("epsilon"))).to_pydict()
    assert got == sweep_rows(_grid())


@pytest.mark.parametrize("damage", ["empty", "edit", "rename"])
def test_sweep_bad_chunk_is_recomputed(tmp_path, damage):
    from symdp.sweep import run_sweep, sweep_rows

    out = tmp_path / "s.parquet"
    run_sweep(_grid(), out, chunk_size=2, workers=1, max_chunks=2)
    parts = tmp_path / "s.parquet.parts"
    c0, c1 = parts / "chunk-000000.parquet", parts / "chunk-000001.parquet"
    if damage == "empty":
        c0.write_bytes(b"")
    elif damage == "edit":
        import pyarrow as pa
        import pyarrow.parquet as pq

        t = pq.read_table(c0)
        pq.write_table(t.set_column(5, "epsilon", pa.array([0.0] * t.num_rows)), c0)
    else:
        c1.unlink()
        c0.rename(c1)
    rep = run_sweep(_grid(), out, chunk_size=2, workers=1)
    assert rep.computed >= 1
    import pyarrow.parquet as pq

    assert pq.read_table(out).to_pydict() == sweep_rows(_grid())


def test_sweep_directory_lock_refuses_a_second_sweep(tmp_path):
    import fcntl

    from symdp.sweep import run_sweep

    out = tmp_path / "s.csv"
    parts = tmp_path / "s.csv.parts"
    parts.mkdir()
    fd = os.open(parts / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another sweep holds it
        with pytest.raises(InvalidParameterError, match="another sweep is writing"):
            run_sweep(_grid(), out, chunk_size=2, workers=1)
    finally:
        os.close(fd)
    assert not out.exists()
    run_sweep(_grid(), out, chunk_size=2, workers=1)  # released: goes on
    assert out.exists()


def test_sweep_failure_before_any_chunk_leaves_nothing(tmp_path, monkeypatch):
    from symdp import sweep

    def boom(task):
        raise RuntimeError("worker died")

    monkeypatch.setattr(sweep, "compute_chunk", boom)
    with pytest.raises(RuntimeError):
        sweep.run_sweep(_grid(), tmp_path / "s.csv", chunk_size=2, workers=1)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("args,needle", [
    (["--device", "cuda:7", "--accountant", "tight-batched"], "CUDA device"),
    (["--scheduler", "foo://bar"], "not a scheduler address"),
])
def test_sweep_bad_device_or_scheduler_is_one_line(tmp_path, args, needle):
    r = subprocess.run([sys.executable, "-m", "symdp.cli", "sweep", "--sigma", "1", "--q", "0.01", "--steps", "10",
                        "--delta", "1e-5", "--out", str(tmp_path / "s.csv"), "--workers", "1", *args],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and needle in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert os.listdir(tmp_path) == []


# ---- state and calibration ------------------------------------------------------------------------------------------

def test_odometer_load_state_dict_validates_before_changing():
    pytest.importorskip("torch")
    from symdp.accountants.odometer import RDPOdometer

    o = RDPOdometer()
    o.step(1.0, 0.01, 10)
    st = o.state_dict()
    e0 = float(o.epsilon(1e-5))
    bad = [{}, 5, {**st, "rdp": -st["rdp"]}, {**st, "steps": -1}, {**st, "orders": "abc"}, {**st, "rdp": "x"},
           {"orders": st["orders"], "steps": 1}]
    for b in bad:
        with pytest.raises(InvalidParameterError):
            o.load_state_dict(b)  # type: ignore[arg-type]
        assert float(o.epsilon(1e-5)) == e0 and o.steps == 10
    o2 = RDPOdometer()
    o2.load_state_dict(st)
    assert float(o2.epsilon(1e-5)) == e0


def test_opacus_epochs_to_steps_never_undercounts():
    pytest.importorskip("opacus")
    from symdp.accountants.opacus_adapter import _steps_for_epochs

    for n in range(1, 400):
        for epochs in (1, 2, 3, 6, 12, 13, 24, 25, 90):
            assert _steps_for_epochs(epochs, 1 / n) == n * epochs  # int(3 / (1/75)) == 224
    assert _steps_for_epochs(1.5, 0.3) == 5


def test_opacus_make_private_with_epsilon_ends_at_or_below_target():
    pytest.importorskip("opacus")
    import torch
    from opacus import PrivacyEngine

    import symdp.accountants.opacus_adapter  # noqa: F401 - registers "symdp"

    torch.manual_seed(0)
    n, bs = 75 * 4, 4  # len(loader) = 75, epochs = 3: int(3 / (1/75)) = 224 < 225 steps
    x, y = torch.randn(n, 3), torch.randint(0, 2, (n,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=bs)
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    eng = PrivacyEngine(accountant="symdp-rdp")
    model, opt, loader = eng.make_private_with_epsilon(module=model, optimizer=opt, data_loader=loader, epochs=3,
                                                      target_epsilon=1.0, target_delta=1e-5, max_grad_norm=1.0)
    # training runs epochs * len(loader) = 225 steps at q = 1/75: the calibrated noise must cover all of them
    from symdp.accountants import epsilon

    sigma = float(opt.noise_multiplier)
    assert epsilon(noise_multiplier=sigma, sample_rate=1 / 75, steps=225, delta=1e-5, accountant="rdp").epsilon <= 1.0
    eng.accountant.history = [(sigma, 1 / 75, 225)]
    assert eng.get_epsilon(1e-5) <= 1.0


# ---- the RDP accountant's inf is explained, never silent (session 34) -----------------------------------------------

def test_rdp_inf_at_a_tiny_sigma_is_explained():
    """sigma 1e-300: the RDP curve overflows at every order, so RDP certifies nothing (dp_accounting's RDP
    accountant raises ZeroDivisionError there).
    The RDP method's answer stays inf (a finite value from another method would be mislabelled); the result says
    why and names the tight accountant, which answers (0 at delta 0.5 >= q: the record is sampled with probability q)."""
    import numpy as np

    from symdp import accountants as A

    r = A.epsilon(noise_multiplier=1e-300, sample_rate=0.01, steps=1, delta=0.5, accountant="rdp")
    assert r.epsilon == np.inf and r.is_upper_bound
    assert "no Renyi order gives a finite bound" in r.details["note"] and "accountant='tight'" in r.details["note"]
    assert r.to_dict()["details"]["note"] == r.details["note"]
    t = A.epsilon(noise_multiplier=1e-300, sample_rate=0.01, steps=1, delta=0.5, accountant="tight")
    assert t.epsilon == 0.0  # delta 0.5 >= q = 0.01: one step's total variation
    fin = A.epsilon(noise_multiplier=1.0, sample_rate=0.01, steps=100, delta=1e-5, accountant="rdp")
    assert "note" not in fin.details
    out = CliRunner().invoke(main, ["account", "--noise-multiplier", "1e-300", "--sample-rate", "0.01", "--steps", "1",
                                    "--delta", "0.5", "--accountant", "rdp"])
    assert out.exit_code == 0 and "no Renyi order gives a finite bound" in out.output, out.output


# ---- one-line errors name the CLI option, not the library's argument (session 34) -----------------------------------

@pytest.mark.parametrize("args,start", [
    (["derive", "bu2020.gaussian_mechanism_gdp", "--series", "zz"], "error: --series 'zz' is not a symbol"),
    (["derive", "bu2020.gaussian_mechanism_gdp", "--rate", "zz"], "error: --rate 'zz' is not a symbol"),
    (["derive", "bu2020.gaussian_mechanism_gdp", "--at", "foo"], "error: --at 'foo' is not a point; allowed:"),
    (["derive", "bu2020.gaussian_mechanism_gdp", "--order", "99"], "error: --order 99 is out of range; allowed: 1..20"),
    (["derive", "bu2020.gaussian_mechanism_gdp", "--compare", "bu2020.gaussian_mechanism_gdp", "--rate", "zz"],
     "error: --rate 'zz' is not a symbol of both bounds; allowed:"),
    (["derive", "--chain", "bu2020.gaussian_mechanism_gdp", "--bind", "x=abc"], "error: --bind x='abc' is not a decimal"),
    (["audit", "--quick", "--deep", "bu2020.gaussian_mechanism_gdp"], "error: --quick --deep: --quick reuses"),
])
def test_cli_errors_name_the_option(args, start, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = subprocess.run([sys.executable, "-m", "symdp.cli", *args], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2 and r.stderr.startswith(start) and r.stderr.count("\n") == 1, r.stderr
    assert "allowed" in r.stderr
    assert os.listdir(tmp_path) == []  # refused before anything is written (audit: no report directory)


def test_sweep_scheduler_error_names_the_option(tmp_path):
    r = subprocess.run([sys.executable, "-m", "symdp.cli", "sweep", "--sigma", "1", "--q", "0.01", "--steps", "10",
                        "--delta", "1e-5", "--out", str(tmp_path / "s.csv"), "--workers", "1", "--scheduler", "foo://bar"],
                       capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2 and r.stderr.startswith("error: --scheduler 'foo://bar' is not a scheduler address"), r.stderr


def test_audit_reproduce_line_repeats_the_run_options():
    from symdp.audit.cli import _reproduce_options
    from symdp.audit.finding import AuditResult
    from symdp.audit.result import reproduce_command

    opts = _reproduce_options(Path("/tmp/my rep"), True, deep=True, quick=False, seed=3, claim_seconds=120.0,
                              run_seconds=1800.0, theorem_file=None, claims=False)
    assert opts == "--out '/tmp/my rep' --deep --seed 3"
    r = AuditResult.__new__(AuditResult)
    r.id = "bu2020.gaussian_mechanism_gdp"
    assert reproduce_command(r, None, opts) == "symdp audit bu2020.gaussian_mechanism_gdp --out '/tmp/my rep' --deep --seed 3"
    assert reproduce_command(r, "c.toml", _reproduce_options(Path("symdp-report-c"), False, deep=False, quick=False,
                                                             seed=0, claim_seconds=30.0, run_seconds=1800.0,
                                                             theorem_file=None, claims=True)) == \
        "symdp audit --claims c.toml --claim-seconds 30"
    assert reproduce_command(r) == "symdp audit bu2020.gaussian_mechanism_gdp --out symdp-report"  # the API default
