"""Packaging (issue 20): every subpackage ships, the wheel carries its data, and an installed symdp never writes
into its own package directory (verify, audit and codegen write to the working directory or --out)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _declared_packages() -> set[str]:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(cfg["tool"]["setuptools"]["packages"])


def test_every_subpackage_is_declared() -> None:
    """The package list cannot forget a subpackage: it equals every directory of symdp/ holding Python files."""
    found = {"symdp." + ".".join(p.parent.relative_to(ROOT / "symdp").parts) if p.parent != ROOT / "symdp" else "symdp"
             for p in (ROOT / "symdp").rglob("*.py") if "__pycache__" not in p.parts}
    found |= {"symdp.generated", "symdp._proofs"}
    assert _declared_packages() == found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                        str(ROOT)], capture_output=True, text=True, timeout=600, check=False)
    if r.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {r.stderr[-500:]}")
    return next(out.glob("symdp-*.whl"))


def test_wheel_carries_modules_kernels_proofs_and_schemas(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    src = {"symdp/" + str(p.relative_to(ROOT / "symdp")) for p in (ROOT / "symdp").rglob("*.py")
           if "__pycache__" not in p.parts}
    assert src <= names, sorted(src - names)[:5]
    gen = {"symdp/generated/" + p.name for p in (ROOT / "generated").iterdir() if p.is_file()}
    assert gen <= names, sorted(gen - names)[:5]
    proofs = {"symdp/_proofs/" + str(p.relative_to(ROOT / "proofs")) for p in (ROOT / "proofs").rglob("*") if p.is_file()}
    assert proofs <= names, sorted(proofs - names)[:5]
    assert "symdp/audit/report_schema.json" in names and "symdp/py.typed" in names


def _tree_hash(pkg: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(pkg.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(pkg)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def test_installed_package_is_never_written(wheel: Path, tmp_path: Path) -> None:
    """Install the wheel (dependencies from this environment), run verify, audit and codegen from an empty directory:
    the installed files are byte-identical afterwards and the outputs are in the working directory."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=True)
    py = env_dir / "bin" / "python"
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-compile", str(wheel)],
                       capture_output=True, text=True, timeout=600, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "SYMDP_CACHE_DIR": str(tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    loc = subprocess.run([str(py), "-c", "import pathlib, symdp; print(pathlib.Path(symdp.__file__).parent)"],
                         capture_output=True, text=True, cwd=work, env=env, timeout=120, check=True).stdout.strip()
    pkg = Path(loc)
    assert env_dir in pkg.parents, f"symdp imported from {pkg}, not the installed wheel"
    before = _tree_hash(pkg)
    cli = [str(py), "-c", "from symdp.cli import run; run()"]
    for args in (["verify", "he2021.lemma_kl", "--quiet", "--workers", "1"],
                 ["audit", "he2021.lemma_kl", "--no-plots", "--workers", "1"],
                 ["codegen", "--check"], ["codegen"]):
        out = subprocess.run(cli + args, capture_output=True, text=True, cwd=work, env=env, timeout=600, check=False)
        assert out.returncode == 0, (args, out.stderr[-2000:])
    assert _tree_hash(pkg) == before
    assert (work / "proofs" / "ledger.json").is_file()
    assert (work / "symdp-report" / "audit.html").is_file()
    assert (work / "generated" / "MANIFEST.json").is_file()
    # an explicit output inside the installed package is refused, with exit code 2
    out = subprocess.run(cli + ["codegen", "--out", str(pkg / "generated")], capture_output=True, text=True, cwd=work,
                         env=env, timeout=600, check=False)
    assert out.returncode == 2 and "inside the installed symdp package" in out.stderr
    assert _tree_hash(pkg) == before


def test_checkout_without_install_uses_the_generated_kernels(tmp_path: Path) -> None:
    """Run from this checkout with no install of it (``PYTHONPATH=.``; an editable install of another checkout's
    finder hidden): the accountants get the checkout's generated kernels, not SymPy's lambdify of the formulas.
    Before the fix ``symdp.generated`` was not importable there and every kernel was lambdified: the fractional-order
    RDP series saw ``log(1 - erfc(x)/2) = -inf`` terms and fell back to the integer bound (0.1405 at alpha 1.7)."""
    code = (
        "import sys\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]\n"
        "for k in [k for k in sys.modules if k == 'symdp' or k.startswith('symdp.')]: del sys.modules[k]\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "import numpy as np\n"
        "import symdp.accountants as A\n"
        "from symdp.accountants import rdp\n"
        "from symdp.accountants._kernels import KERNEL_SOURCE\n"
        "A.epsilon(noise_multiplier=1.0, sample_rate=0.01, steps=10, delta=1e-5, accountant='rdp')\n"
        "v = float(rdp.sgm_rdp(noise_multiplier=0.6, sample_rate=0.1, orders=np.array([1.7]))[0])\n"
        "print(sorted(set(KERNEL_SOURCE.values())), repr(v))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    sources, v = out.stdout.split("] ")
    assert sources == "['codegen'", out.stdout
    # the exact value (mpmath quadrature of E_Q[(P/Q)^1.7]) is 0.0887317931882...; the series bound sits just above
    assert 0.08873179318 <= float(v) <= 0.08873179320, v
