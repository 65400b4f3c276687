"""symdp.provenance(): the version, the generated kernels' hashes and the git commit, checked independently."""

from __future__ import annotations

import hashlib
import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import symdp
from symdp import _provenance as prov_mod

ROOT = Path(__file__).resolve().parent.parent


def test_version_in_one_place():
    tomllib = pytest.importorskip("tomllib")
    text = (ROOT / "symdp" / "_version.py").read_text()
    assert f'__version__ = "{symdp.__version__}"' in text
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in meta["project"] and "version" in meta["project"]["dynamic"]
    assert meta["tool"]["setuptools"]["dynamic"]["version"]["attr"] == "symdp._version.__version__"
    assert importlib.metadata.version("symdp") == symdp.__version__
    assert f"## [{symdp.__version__}]" in (ROOT / "CHANGELOG.md").read_text()


def test_manifest_hash_is_the_file_hash():
    p = symdp.provenance()
    assert p["symdp_version"] == symdp.__version__
    want = hashlib.sha256((ROOT / "generated" / "MANIFEST.json").read_bytes()).hexdigest()
    assert p["generated_manifest_sha256"] == want
    assert p["generated_sha256"] != want and len(str(p["generated_sha256"])) == 64
    p["symdp_version"] = "mutated"
    assert symdp.provenance()["symdp_version"] == symdp.__version__, "callers get a fresh copy"


def test_tree_hash_sees_a_hand_edited_kernel(tmp_path, monkeypatch):
    src = ROOT / "generated"
    for f in src.iterdir():
        if f.is_file():
            shutil.copy(f, tmp_path / f.name)
    monkeypatch.setattr(prov_mod.resources, "files", lambda _pkg: tmp_path)
    before = prov_mod._generated_hashes()
    assert before == {k: symdp.provenance()[k] for k in before}
    kern = next(f for f in tmp_path.iterdir() if f.name.startswith("numpy_"))
    kern.write_text(kern.read_text() + "\n# edited\n")
    after = prov_mod._generated_hashes()
    assert after["generated_manifest_sha256"] == before["generated_manifest_sha256"]
    assert after["generated_sha256"] != before["generated_sha256"]
    (tmp_path / "notes.txt").write_text("not a generated file")
    assert prov_mod._generated_hashes() == after
    files = prov_mod.kernel_hashes()["files"]
    assert set(files) == {f.name for f in tmp_path.iterdir() if f.suffix in (".py", ".json")} - {"__init__.py"}
    assert files[kern.name] == hashlib.sha256(kern.read_bytes()).hexdigest()
    (tmp_path / "MANIFEST.json").unlink()
    assert prov_mod._generated_hashes()["generated_manifest_sha256"] == "missing"


@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None, reason="not a git checkout")
def test_git_commit_matches_git():
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    got = prov_mod._git()
    assert got["git_commit"] == head and isinstance(got["git_dirty"], bool)


def test_provenance_imports_without_sympy():
    code = "import sys, symdp._provenance as p; p.provenance(); print('sympy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def _expected() -> dict:
    p = symdp.provenance()
    assert p["generated_sha256"] == prov_mod.kernel_hashes()["combined"]
    return p


def test_ledger_records_provenance(tmp_path):
    import json

    from symdp.verify.ledger import load_ledger_file, write_ledger

    write_ledger([], full=True, root=tmp_path)
    data = json.loads((tmp_path / "ledger.json").read_text())
    assert data["provenance"] == _expected()
    assert load_ledger_file(tmp_path) == {}


def test_audit_report_records_provenance(tmp_path):
    import json

    from click.testing import CliRunner

    from symdp.cli import main

    res = CliRunner().invoke(main, ["audit", "bu2020.mnist_fig4_top", "--no-plots", "--quick", "--out", str(tmp_path)])
    assert res.exit_code in (0, 1), res.output
    meta = json.loads((tmp_path / "audit.json").read_text())["meta"]
    assert meta["provenance"] == _expected() and meta["symdp"] == symdp.__version__


def test_certificate_records_provenance():
    from symdp.certify.certificate import versions
    from symdp.certify.schema import SCHEMA

    v = versions()
    assert v["provenance"] == _expected()
    assert v["kernels"]["combined"] == v["provenance"]["generated_sha256"]
    assert SCHEMA["properties"]["versions"].get("additionalProperties", True) is True
