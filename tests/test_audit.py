"""The audit: restricted parser (untrusted input), claim files, verdicts on planted claims, reports, CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import sympy as sp
from click.testing import CliRunner

from symdp.audit import audit_claim_file, parse_claims, parse_expression
from symdp.cli import main
from symdp.errors import ClaimFileError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "claims"
X = {"x": sp.Symbol("x", positive=True)}


# ---- the restricted parser ---------------------------------------------------------------

@pytest.mark.parametrize(
    "text, reason",
    [
        ("__import__('os').system('echo pwned')", "attribute access"),
        ("__import__('os')", "'__import__' is not allowed"),
        ("x.__class__.__mro__", "Attribute"),
        ("exp.__globals__", "Attribute"),
        ("(lambda: 1)()", "no attribute access|bare name"),
        ("lambda x: x", "Lambda"),
        ("[c for c in ()]", "ListComp"),
        ("x[0]", "Subscript"),
        ("'abc'", "numeric literals"),
        ("open('/etc/passwd')", "'open' is not allowed"),
        ("eval('1')", "'eval' is not allowed"),
        ("exp(x=1)", "keyword"),
        ("exp(*x)", "starred"),
        ("x if x else 1", "IfExp"),
        ("(x := 2)", "NamedExpr"),
        ("x and x", "BoolOp"),
        ("y + 1", "unknown name 'y'"),
        ("9**9**9**9", "exceeds"),
        ("((2**999)**999)**999", "too large"),
        ("1" * 100, "digits"),
        ("(" * 200 + "x" + ")" * 200, "nested deeper"),
        ("x+" * 1500 + "x", "characters long"),
        ("exp(" * 60 + "x" + ")" * 60, "nested deeper"),
        ("", "empty"),
        ("x +", "not a valid expression"),
    ],
)
def test_parser_rejects_hostile_or_malformed_input(text, reason):
    with pytest.raises(ClaimFileError, match=reason):
        parse_expression(text, X)


def test_parser_builds_the_intended_expression():
    x = X["x"]
    e = parse_expression("x*(exp(x) - 1)/(exp(x) + 1) + log1p(x) - sqrt(x)**2 + Phi(0)", X)
    assert sp.simplify(e - (x * (sp.exp(x) - 1) / (sp.exp(x) + 1) + sp.log(1 + x) - x + sp.Rational(1, 2))) == 0
    assert parse_expression("1e-5", X) == sp.Rational(1, 100000)


def test_a_malicious_claim_file_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    text = f"""
[symbols]
x = {{ range = [0.1, 1.0] }}

[[claim]]
id = "evil"
kind = "tighter"
a = "__import__('os').system('touch {marker}')"
b = "x"
"""
    with pytest.raises(ClaimFileError, match=r"line 8: field 'a'.*attribute access"):
        parse_claims(text)
    assert not marker.exists()


@pytest.mark.parametrize(
    "text, match",
    [
        ("[symbols\n", "invalid TOML"),
        ("[symbols]\nx = { range = [1, 0] }\n[[claim]]\nid='a'\nkind='identity'\nlhs='x'\nrhs='x'\n", "lo < hi"),
        ("[symbols]\nx = { range = [0, 1] }\n[[claim]]\nid='a'\nkind='magic'\n", "kind='magic'"),
        ("[symbols]\nx = { range = [0, 1] }\n[[claim]]\nid='a'\nkind='identity'\nlhs='x'\nrhs='x'\nevil='1'\n", "unknown fields"),
        ("[symbols]\nx = { range = [0, 1] }\n[[claim]]\nid='a'\nkind='bound'\nclaimed='x'\nquantity='nope'\n", "unknown quantity 'nope'"),
        ("[symbols]\nx = { range = [0, 1] }\n[[claim]]\nid='a'\nkind='bound'\nclaimed='x'\nlibrary='he2021.lemma_k'\n", "did you mean"),
        ("[symbols]\nx = { range = [0, 1] }\n", "no \\[\\[claim\\]\\]"),
        ("import = 1\n", "unknown top-level"),
    ],
)
def test_malformed_claim_files_get_a_reason(text, match):
    with pytest.raises(ClaimFileError, match=match):
        parse_claims(text)


# ---- verdicts --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def example_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    res = {}
    for f in ("kl_true", "kl_false", "kl_partial"):
        for r in audit_claim_file(EXAMPLES / f"{f}.toml", report_dir=out):
            res[r.id] = r
    return res


def test_true_claims_are_not_flagged(example_results):
    for cid in ("kl.quadratic_upper", "kl.tanh_expansion", "kl.dwork2010_factor"):
        assert example_results[cid].verdict == "HOLDS", example_results[cid]


def test_planted_false_claim_has_a_real_counterexample(example_results):
    import mpmath

    r = example_results["kl.scaled_down"]
    assert r.verdict == "FAILS"
    with mpmath.workdps(60):
        eps = mpmath.mpf(r.counterexample["epsilon"])
        truth = eps * mpmath.tanh(eps / 2)  # randomized response attains the KL supremum
        claimed = mpmath.mpf("0.9") * eps * (mpmath.e**eps - 1) / (mpmath.e**eps + 1)
        assert claimed < truth
        assert abs(mpmath.mpf(r.actual) - truth) <= mpmath.mpf("1e-25") * truth  # reported to ~30 significant digits


def test_partial_claims_report_the_region(example_results):
    r = example_results["kl.third_quadratic"]
    assert r.verdict == "PARTIAL" and "epsilon >=" in r.region
    # the true crossover of eps tanh(eps/2) = eps^2/3 lies near eps = 2.58
    lo = float(r.region.split(">=")[1].split()[0])
    assert 2.4 < lo < 3.0
    r2 = example_results["kl.linear_beats_quadratic"]
    assert r2.verdict == "PARTIAL" and "epsilon <=" in r2.region
    hi = float(r2.region.split("<=")[1].split()[0])
    assert 0.9 < hi <= 2 * float(sp.atanh(sp.Rational(1, 2))) + 1e-9


def test_asymptotic_factor_claims(tmp_path):
    text = """
[symbols]
epsilon = { range = [0.001, 1.0] }

[[claim]]
id = "good"
kind = "factor"
numerator = "epsilon*(exp(epsilon) - 1)"
denominator = "epsilon*tanh(epsilon/2)"
factor = "2"
mode = "asymptotic"
var = "epsilon"
at = 0

[[claim]]
id = "bad"
kind = "factor"
numerator = "epsilon*(exp(epsilon) - 1)"
denominator = "epsilon*tanh(epsilon/2)"
factor = "3"
mode = "asymptotic"
var = "epsilon"
at = 0
"""
    f = tmp_path / "c.toml"
    f.write_text(text)
    res = {r.id: r.verdict for r in audit_claim_file(f, plots=False)}
    assert res == {"good": "HOLDS", "bad": "FAILS"}


# ---- reports and CLI ---------------------------------------------------------------------

def test_cli_reports_json_and_fail_on(tmp_path):
    out = tmp_path / "rep"
    args = ["audit", "--claims", str(EXAMPLES / "kl_false.toml"), "--out", str(out), "--json", str(tmp_path / "a.json")]
    res = CliRunner().invoke(main, args + ["--fail-on", "refuted"])
    assert res.exit_code == 1, res.output
    data = json.loads((tmp_path / "a.json").read_text())
    (c,) = data["claims"]
    assert {"id", "kind", "verdict", "counterexample", "claimed", "actual"} <= set(c)
    assert c["verdict"] == "FAILS"
    html = (out / "audit.html").read_text()
    assert "data:image/png;base64," in html and "kl.scaled_down" in html
    assert (out / "audit.md").read_text().startswith("# symdp audit")
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0


def test_reports_put_findings_first_with_kind_aware_labels(example_results, tmp_path):
    from symdp.audit.report import counts_by_source, findings, value_labels, write_html, write_markdown

    rs = list(example_results.values())
    found = findings(rs)
    assert [r.verdict for r in found] == sorted((r.verdict for r in found), key=["FAILS", "PARTIAL"].index)
    assert {r.id for r in found} == {r.id for r in rs if r.verdict in ("FAILS", "PARTIAL")}
    assert sum(sum(n.values()) for n in counts_by_source(rs).values()) == len(rs)
    bound = example_results["kl.scaled_down"]
    assert value_labels(bound) == ("claimed bound", "true value")
    tighter = example_results["kl.linear_beats_quadratic"]
    assert value_labels(tighter)[0] == "claimed larger side"
    write_markdown(rs, tmp_path / "a.md", title="t")
    md = (tmp_path / "a.md").read_text()
    assert md.index("## Findings") < md.index("## All claims")
    assert md.index("kl.scaled_down") < md.index("## All claims")  # the failure is listed before the table
    assert "claimed bound 0.41" in md
    write_html(rs, tmp_path / "a.html", title="t")
    html = (tmp_path / "a.html").read_text()
    assert html.index("<h2>Findings</h2>") < html.index("<h2>All claims</h2>")


def test_cli_rejects_bad_claim_file_with_exit_2(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("[symbols]\nx = { range = [0, 1] }\n[[claim]]\nid='a'\nkind='tighter'\na='x.real'\nb='x'\n")
    res = CliRunner().invoke(main, ["audit", "--claims", str(f), "--out", str(tmp_path / "r")])
    assert res.exit_code == 2
    assert "line 6" in res.output and "Attribute" in res.output


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed (documented check in README)")
def test_html_report_renders_in_headless_chromium(tmp_path):
    out = tmp_path / "rep"
    CliRunner().invoke(main, ["audit", "--claims", str(EXAMPLES / "kl_partial.toml"), "--out", str(out)])
    shot = tmp_path / "shot.png"
    subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'ud'}",
         f"--screenshot={shot}", "--window-size=1200,1600", (out / "audit.html").as_uri()],
        check=True, timeout=120, capture_output=True,
    )
    assert shot.exists() and shot.stat().st_size > 10_000
