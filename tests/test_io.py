"""Atomic output (symdp._io) and 'no output directory before the input is valid' (issue 11, item 4)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from symdp._io import atomic_dir, atomic_write_text
from symdp.cli import main
from symdp.errors import InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]


def test_atomic_write_replaces_whole_file_and_cleans_up(tmp_path):
    p = tmp_path / "a" / "f.txt"
    atomic_write_text(p, "old")
    mode = p.stat().st_mode & 0o777
    atomic_write_text(p, "new" * 1000)
    assert p.read_text() == "new" * 1000
    assert p.stat().st_mode & 0o777 == mode  # not mkstemp's 0600
    assert sorted(os.listdir(p.parent)) == ["f.txt"]  # no temp file left


def test_atomic_write_failure_keeps_the_old_file(tmp_path, monkeypatch):
    p = tmp_path / "f.txt"
    atomic_write_text(p, "old")

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        atomic_write_text(p, "new")
    assert p.read_text() == "old" and os.listdir(tmp_path) == ["f.txt"]


def test_atomic_dir_appears_only_on_success(tmp_path):
    dest = tmp_path / "deep" / "report"
    with pytest.raises(RuntimeError), atomic_dir(dest) as stage:
        (stage / "half.md").write_text("half")
        raise RuntimeError("killed")
    assert not dest.exists() and not (tmp_path / "deep").exists()
    assert os.listdir(tmp_path) == []  # no staging directory left either
    with atomic_dir(dest) as stage:
        (stage / "plots").mkdir()
        (stage / "plots" / "a.png").write_bytes(b"png")
        (stage / "a.md").write_text("full")
        assert not dest.exists()  # nothing visible while the report is being built
    assert (dest / "a.md").read_text() == "full" and (dest / "plots" / "a.png").read_bytes() == b"png"
    assert sorted(os.listdir(tmp_path / "deep")) == ["report"]


def test_atomic_dir_into_an_existing_directory_keeps_foreign_files(tmp_path):
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "users_notes.txt").write_text("mine")
    (dest / "a.md").write_text("old")
    with atomic_dir(dest) as stage:
        (stage / "a.md").write_text("new")
    assert (dest / "a.md").read_text() == "new" and (dest / "users_notes.txt").read_text() == "mine"
    assert sorted(os.listdir(tmp_path)) == ["out"]
    with pytest.raises(InvalidParameterError, match="not a directory"), atomic_dir(dest / "a.md"):
        pass


def _invoke(tmp: Path, args: list[str]):
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        return CliRunner().invoke(main, args)
    finally:
        os.chdir(cwd)


def test_failed_runs_leave_no_output_directory(tmp_path, monkeypatch):
    claims = tmp_path / "in.toml"
    claims.write_text('[symbols]\nx = { range = [0.1, 1.0] }\n[[claim]]\nid = "c"\nkind = "tighter"\na = "gamma(10**9)"\nb = "x"\n')
    work = tmp_path / "w"
    work.mkdir()
    r = _invoke(work, ["audit", "--claims", str(claims)])
    assert r.exit_code == 2 and os.listdir(work) == []
    r = _invoke(work, ["audit", "no.such.entry"])
    assert r.exit_code == 2 and os.listdir(work) == []
    r = _invoke(work, ["certify", "--from-hparams", "--noise-multiplier", "inf", "--sample-rate", "0.01", "--n", "100"])
    assert r.exit_code == 2 and os.listdir(work) == []


@pytest.mark.slow
def test_interrupted_certificate_write_leaves_nothing(tmp_path, monkeypatch):
    """A failure while the certificate is being written: no symdp-certificate/, no staging directory."""
    work = tmp_path / "w"
    work.mkdir()
    from symdp.certify import certificate

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(certificate, "to_html", boom)
    led = tmp_path / "l.json"
    led.write_text(json.dumps({"n": 1000, "ledger": [[1.0, 0.01, 10]]}))
    r = _invoke(work, ["certify", "--ledger", str(led)])
    assert r.exit_code == 130 and os.listdir(work) == [], (r.output, os.listdir(work))


@pytest.mark.slow
def test_audit_killed_while_running_leaves_no_partial_report(tmp_path):
    """SIGKILL during an audit: --out never holds a partial report (at most a hidden staging directory)."""
    claims = ROOT / "examples" / "claims" / "kl_partial.toml"
    out = tmp_path / "rep"
    proc = subprocess.Popen([sys.executable, "-m", "symdp.cli", "audit", "--claims", str(claims), "--out", str(out)],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(6)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists() or sorted(os.listdir(out)) >= ["audit.html", "audit.json", "audit.md"]
    assert all(p.name.startswith(".rep.tmp-") for p in tmp_path.iterdir() if p.name != "rep")
