"""The theorem contract, the library registry, the CLI basics and the README/CI command pact."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import sympy as sp
from click.testing import CliRunner

import symdp
from symdp.cli import main
from symdp.library import all_theorems, get
from symdp.theorem import Kind

ROOT = Path(__file__).resolve().parent.parent


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)\n```", readme, re.S).group(1).splitlines()
    assert len(block) == 2, "README opens with exactly two set-up commands"
    ci = (ROOT / ".ci" / "run").read_text()
    assert block[1].strip() in ci


def test_entries_are_frozen_and_hashable():
    th = get("he2021.lemma_kl")
    with pytest.raises(Exception):
        th.id = "x"  # type: ignore[misc]
    assert hash(th) == hash(get("he2021.lemma_kl"))


def test_unknown_id_suggests_and_exits_2():
    with pytest.raises(symdp.UnknownTheoremError, match="lemma_kl"):
        get("he2021.lemma_k")
    res = CliRunner().invoke(main, ["show", "he2021.lemma_k"])
    assert res.exit_code == 2
    assert "he2021.lemma_kl" in res.output


def test_list_json_contract():
    res = CliRunner().invoke(main, ["list", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert rows and all({"id", "title", "kind", "source", "status"} <= set(r) for r in rows)


@pytest.mark.parametrize("th", all_theorems(), ids=lambda t: t.id)
def test_every_entry_constructs_renders_and_evaluates(th):
    assert th.latex()
    assert th._repr_latex_().startswith("$")
    if not th.formula_available or th.rhs is None or th.kind is Kind.EQUIVALENCE:
        return
    # evaluate rhs at the domain midpoint (geometric for wide positive ranges) if every symbol has a box
    box = th.domain_dict()
    syms = th.bound_symbols
    if not syms or not all(s in box for s in syms):
        pytest.skip("no full numeric domain")
    vals = {}
    for s in syms:
        lo, hi = (float(v) for v in box[s])
        mid = math.sqrt(lo * hi) if lo > 0 and hi / lo > 100 else (lo + hi) / 2
        vals[s.name] = round(mid) if s.is_integer else mid
    v = th.evaluate(**vals)
    assert v.imag == 0 if hasattr(v, "imag") else True
    assert math.isfinite(float(sp.re(sp.sympify(str(v)))))


def test_kl_lemma_is_eps_tanh():
    th = get("he2021.lemma_kl")
    eps = symdp.symbols.eps
    assert sp.simplify((th.rhs - eps * sp.tanh(eps / 2)).rewrite(sp.exp)) == 0
