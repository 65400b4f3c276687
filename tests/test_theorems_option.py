"""``--theorems FILE`` on verify, audit and account (issue 22), via click's CliRunner.

Oracles: the optimal composition of the worst (epsilon, delta)-DP mechanism (the tight accountant on
ApproxDPBlackBox) refutes a too-good composition theorem at a point where it is below it and agrees with
basic composition at T = 1 (where both are exactly epsilon); the theorem accountant's epsilon is at least
the tight accountant's; bad files and ids are one-line errors with exit status 2; proofs/ is untouched."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from symdp.cli import main
from symdp.library import unregister

FILE = """
title = "composition bounds"

[symbols]
epsilon = { range = [0.001, 1.0] }
delta = { range = [1e-12, 0.1] }
T = { range = [1, 1000], integer = true }

[[theorem]]
id = "user.t22_basic"
title = "T-fold composition, basic"
kind = "bound"
lhs = "epsilon_total"
relation = "<="
rhs = "T*epsilon"
paper = "my notes"
locator = "Thm 1"

[theorem.premise]
property = "ApproxDP"
eps = "epsilon"
delta = "delta"

[theorem.conclusion]
property = "ApproxDP"
eps = "T*epsilon"
delta = "T*delta"

[[theorem]]
id = "user.t22_too_good"
title = "T-fold composition, wrong"
kind = "bound"
lhs = "epsilon_total2"
relation = "<="
rhs = "sqrt(T)*epsilon/10"
paper = "my notes"
locator = "Thm 2"

[theorem.premise]
property = "ApproxDP"
eps = "epsilon"
delta = "delta"

[theorem.conclusion]
property = "ApproxDP"
eps = "sqrt(T)*epsilon/10"
delta = "T*delta"
"""
IDS = ("user.t22_basic", "user.t22_too_good")


@pytest.fixture()
def thfile(tmp_path):
    p = tmp_path / "th.toml"
    p.write_text(FILE)
    yield p
    for i in IDS:
        unregister(i)


def _proofs_hash() -> str:
    led = Path(__file__).resolve().parents[1] / "proofs" / "ledger.json"
    return hashlib.sha256(led.read_bytes()).hexdigest() if led.exists() else ""


def _one_line_error(res) -> None:
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.output


def test_referee_of_composition_theorems(thfile):
    from symdp.calculus import load_theorems
    from symdp.referee import referee_theorem

    load_theorems(str(thfile))
    bad = referee_theorem("user.t22_too_good")
    assert bad["verdict"] == "REFUTED" and bad["at"]["E"] < bad["at"]["optimal_epsilon"]
    ok = referee_theorem("user.t22_basic")
    assert ok["verdict"] == "CONSISTENT"
    # at T = 1 basic composition is exactly epsilon, the optimal composition's value: slack 1
    assert ok["tightest"]["slack"] == pytest.approx(1.0, rel=1e-6)
    assert ok["loosest"]["slack"] > 1.5  # T * eps is far from optimal for large T


def test_verify_theorems_writes_only_to_out(thfile, tmp_path):
    before = _proofs_hash()
    out = tmp_path / "vout"
    res = CliRunner().invoke(main, ["verify", "--theorems", str(thfile), "--out", str(out)])
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in json.loads((out / "ledger.json").read_text())["entries"]}
    assert rows["user.t22_too_good"]["verdict"] == "REFUTED"
    assert rows["user.t22_basic"]["referee"]["verdict"] == "CONSISTENT"
    assert (out / "LEDGER.md").exists()
    assert _proofs_hash() == before


def test_verify_theorems_needs_out_and_a_good_file(thfile, tmp_path):
    _one_line_error(CliRunner().invoke(main, ["verify", "--theorems", str(thfile)]))
    bad = tmp_path / "bad.toml"
    bad.write_text("x = [")
    _one_line_error(CliRunner().invoke(main, ["verify", "--theorems", str(bad), "--out", str(tmp_path / "o")]))
    _one_line_error(CliRunner().invoke(main, ["verify", "--theorems", str(tmp_path / "missing.toml"),
                                              "--out", str(tmp_path / "o")]))
    _one_line_error(CliRunner().invoke(main, ["verify", "user.nope", "--theorems", str(thfile),
                                              "--out", str(tmp_path / "o")]))


def test_audit_theorems_as_claims(thfile, tmp_path):
    out = tmp_path / "aout"
    res = CliRunner().invoke(main, ["audit", "--theorems", str(thfile), "--out", str(out), "--no-plots", "--no-cache"])
    assert res.exit_code == 0, res.output
    got = {r["id"]: r for r in json.loads((out / "audit.json").read_text())["claims"]}
    assert got["user.t22_too_good"]["verdict"] == "FAILS"
    assert got["user.t22_basic"]["verdict"] in ("UNDECIDED", "HOLDS")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[theorem]]\nid = 3\n")
    _one_line_error(CliRunner().invoke(main, ["audit", "--theorems", str(bad), "--out", str(tmp_path / "b")]))


def test_account_with_a_theorem_accountant(thfile):
    from symdp.accountants import epsilon

    args = ["account", "-s", "1.1", "-q", "0.01", "-T", "200", "-d", "1e-5", "--json"]
    res = CliRunner().invoke(main, [*args, "--theorems", str(thfile), "-a", "theorem:user.t22_basic"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    tight = epsilon(noise_multiplier=1.1, sample_rate=0.01, steps=200, delta=1e-5, accountant="tight")
    assert d["epsilon"] >= tight.epsilon  # basic composition is a valid (loose) bound
    assert d["accountant"] == "theorem:user.t22_basic"
    _one_line_error(CliRunner().invoke(main, [*args, "--theorems", str(thfile), "-a", "theorem:user.t22_nope"]))
    _one_line_error(CliRunner().invoke(main, [*args, "-a", "nonsense"]))
    _one_line_error(CliRunner().invoke(main, [*args, "--theorems", str(thfile) + ".missing"]))


def test_referee_does_not_refute_advanced_composition(tmp_path):
    """Regression: advanced composition (Dwork-Roth) is a valid composition theorem; the referee must not refute
    it where the tight accountant's lower end is wrong (10^5 steps of eps 0.001, delta 1e-9: the accountant's
    lower end is the pure-DP bound 100 while the exact optimal epsilon is 1.698)."""
    from symdp.calculus import load_theorems
    from symdp.referee import optimal_composition_epsilon, referee_theorem

    loaded = load_theorems(str(Path(__file__).resolve().parents[1] / "examples" / "derive" / "my_theorems.toml"))
    try:
        r = referee_theorem("user.advanced_composition_eps")
        assert r["verdict"] == "CONSISTENT", r
        assert optimal_composition_epsilon(0.001, 1e-9, 10**5, 1e-4 + 1e-12) == pytest.approx(1.69849, rel=1e-4)
    finally:  # the library is global: a registered example theorem would leak into later tests (codegen --check)
        for th in loaded:
            unregister(th.id)
