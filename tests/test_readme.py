"""Every code block of README.md runs (issue 13).

Python blocks run in a fresh interpreter (a subprocess: nothing from the README is exec'd in the
test process); the values the README shows in comments are checked where it shows one.  Bash
blocks are classified: cheap commands run here, the audit of the example claim files runs in the
slow tier, and the install / full-suite commands are listed explicitly as not run by the tests,
so a new README block cannot be skipped silently.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()

#: bash lines the tests do not run, with the reason (they install packages or run the whole suite / full audit)
NOT_RUN = {
    "pip install -e . && symdp audit": "installs the package and runs the full audit (the main job; ~3 min)",
    'python -m pip install -q torch==2.13.0 && python -m pip install -q -e ".[dev]" && python -m pytest -x':
        "installs dependencies and runs the whole test suite",
}
CHEAP = ("symdp show", "symdp list", "symdp oracles", "symdp derive", "symdp --version")
SLOW = ("symdp audit --claims",)


def _blocks(lang: str) -> list[str]:
    return [m.group(1) for m in re.finditer(rf"```{lang}\n(.*?)```", README, re.S)]


def _bash_lines() -> list[str]:
    return [ln.strip() for b in _blocks("bash") for ln in b.splitlines() if ln.strip() and not ln.strip().startswith("#")]


def test_readme_has_code_blocks_and_every_bash_line_is_classified():
    assert _blocks("python"), "README lost its Python example"
    lines = _bash_lines()
    assert lines
    for ln in lines:
        assert ln in NOT_RUN or ln.startswith(CHEAP + SLOW), f"README bash line not covered by a test: {ln!r}"


def test_readme_python_blocks_run(tmp_path):
    for i, block in enumerate(_blocks("python")):
        script = tmp_path / f"block{i}.py"
        # print the value of every line the README annotates with a number, to check it below
        checks = []
        out_lines = []
        for ln in block.splitlines():
            m = re.match(r"^(?P<code>[^#]+?)\s+#\s*(?P<val>-?\d+\.\d+)\.\.\.", ln)
            if m and not m.group("code").lstrip().startswith(("import", "from")) and "=" not in m.group("code").split("(")[0]:
                checks.append(m.group("val"))
                out_lines.append(f"print('README-VALUE', {m.group('code').strip()})")
            else:
                out_lines.append(ln)
        script.write_text("\n".join(out_lines) + "\n")
        res = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, f"README python block {i} failed:\n{res.stderr[-3000:]}"
        got = [ln.split(" ", 1)[1] for ln in res.stdout.splitlines() if ln.startswith("README-VALUE ")]
        assert len(got) == len(checks)
        for want, have in zip(checks, got):
            assert have.startswith(want), f"README says {want}..., the code gives {have}"


def test_readme_cheap_bash_commands_run():
    ran = 0
    for ln in _bash_lines():
        if ln.startswith(CHEAP):
            res = subprocess.run(shlex.split(ln), cwd=ROOT, capture_output=True, text=True, timeout=120)
            assert res.returncode == 0, f"{ln!r} failed: {res.stderr[-2000:]}"
            ran += 1
    # the README's command table names these; they must work as shown (with a real id / source)
    from click.testing import CliRunner

    from symdp.cli import main

    for cmd in (["show", "he2021.lemma_kl"], ["list", "--source", "bu2020"], ["oracles"]):
        res = CliRunner().invoke(main, cmd)
        assert res.exit_code == 0, f"symdp {' '.join(cmd)} failed: {res.output[-2000:]}"
        ran += 1
    assert ran >= 3


def _readme_rows() -> list[tuple[str, str, str]]:
    """(id, kind, verdict) of every row of the README's excerpt of the claim-file audit table."""
    rows = re.findall(r"^│ (\S+) +│ (\S+) +│ (\S+) +│", README, re.M)
    return [r for r in rows if r[0].startswith("kl.")]


def test_readme_audit_of_the_example_claims_prints_what_the_readme_shows(tmp_path):
    shutil.copytree(ROOT / "examples" / "claims", tmp_path / "examples" / "claims")
    lines = [ln for ln in _bash_lines() if ln.startswith(SLOW)]
    assert lines
    expected = _readme_rows()
    assert len(expected) == 3
    for ln in lines:
        env = {**__import__("os").environ, "COLUMNS": "200"}
        argv = shlex.split(ln)
        assert argv[0] == "symdp"  # run with this interpreter's symdp, whether or not its script is on PATH
        argv = [sys.executable, "-c", "from symdp.cli import run; run()", *argv[1:]]
        res = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
        assert res.returncode == 0, res.stderr[-2000:]
        # its own default report directory (never the library audit's symdp-report/)
        assert (tmp_path / "symdp-report-claims" / "audit.html").exists()
        assert not (tmp_path / "symdp-report").exists()
        got = {m[0]: m for m in re.findall(r"^│ (\S+) +│ (\S+) +│ (\S+) +│", res.stdout, re.M)}
        for row in expected:  # the README's excerpt: same ids, kinds and verdicts
            assert got.get(row[0]) == row, (row, got.get(row[0]))
