"""The habits of issue 16 stay wired: CI runs lint, types and the docs build and fails on any failure;
the docs' pages exist and their tutorials execute; the docstring converter renders what it claims."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _converter():
    spec = importlib.util.spec_from_file_location("rst_docstrings", DOCS / "_ext" / "rst_docstrings.py")
    assert spec and spec.loader
    pytest.importorskip("griffe")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.convert


def test_ci_runs_every_check_and_fails_on_any():
    ci = (ROOT / ".ci" / "run").read_text()
    for check in ("step ruff check symdp", "step mypy", "step mkdocs build --strict -f docs/mkdocs.yml",
                  "step symdp codegen --check", 'pip install -q -e ".[dev,docs]"'):
        assert check in ci, check
    assert "exit 1" in ci and "set -euo pipefail" in ci


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_ci_step_function_reports_every_failure(tmp_path):
    ci = (ROOT / ".ci" / "run").read_text()
    step = re.search(r"^failed=\(\)\nstep\(\) \{.*?^\}\n", ci, re.S | re.M)
    assert step, "the step() helper of .ci/run"
    tail = re.search(r"^if \(\(\$\{#failed\[@\]\}\)\); then.*?^fi\n", ci, re.S | re.M)
    assert tail
    script = "set -euo pipefail\n" + step.group(0) + "step true\nstep false\nstep bash -c 'exit 3'\n" + tail.group(0)
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stdout.count("== CI FAILED") == 2 and "== ok" in out.stdout


def test_tool_config_is_in_pyproject():
    tomllib = pytest.importorskip("tomllib")
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    ruff, mypy = cfg["tool"]["ruff"], cfg["tool"]["mypy"]
    assert {"E", "F", "W", "I", "UP", "B", "SIM"} <= set(ruff["lint"]["select"])
    assert mypy["check_untyped_defs"] and mypy["warn_unused_ignores"] and mypy["no_implicit_optional"]
    assert "ignore_missing_imports" not in mypy, "only per module, for untyped third-party libraries"
    for override in cfg["tool"]["mypy"]["overrides"]:
        assert not any(m.split(".")[0] == "symdp" for m in override["module"])
    assert {"mkdocs", "mkdocstrings[python]", "markdown-exec"} <= {
        re.split(r"[<>=]", d)[0] for d in cfg["project"]["optional-dependencies"]["docs"]}


def test_docs_nav_pages_exist_and_tutorials_execute():
    yml = (DOCS / "mkdocs.yml").read_text()
    pages = re.findall(r":\s*([\w/.-]+\.md)\s*$", yml, re.M)
    assert len(pages) >= 15
    for page in pages:
        assert (DOCS / page).is_file(), page
    tutorials = [p for p in pages if p.startswith("tutorials/")]
    assert {Path(t).stem for t in tutorials} == {"audit", "derive", "accounting", "certify"}
    for t in tutorials:
        assert 'exec="on"' in (DOCS / t).read_text(), f"{t} has no executed block"
    assert "strict: true" in yml and "pymdownx.arithmatex" in yml


def test_docstring_converter():
    convert = _converter()
    text = (r"Bound :math:`\delta(\epsilon)` via :func:`~symdp.numeric.golden` and :class:`Theorem`."
            "\n\n.. math:: e^{\\epsilon}\n\n>>> 1 + 1\n2\n\nafter")
    out = convert(text)
    assert r"$\delta(\epsilon)$" in out and "`golden`" in out and "`Theorem`" in out
    assert "$$\ne^{\\epsilon}\n$$" in out
    assert "```pycon\n>>> 1 + 1\n2\n```" in out
    assert out.rstrip().endswith("after") and ":math:" not in out and ":func:" not in out
    # code blocks are left alone
    assert convert(">>> x = ':math:`a`'").count(":math:") == 1


def test_changelog_format():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog") and "Keep a Changelog" in text
    assert "## [Unreleased]" in text
    assert re.search(r"^## \[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}$", text, re.M)
