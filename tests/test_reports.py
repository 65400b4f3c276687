"""Reports a researcher can read (issue 13): audit HTML / Markdown / JSON, plots, terminal tables,
``symdp oracles``, certificate report, notebook reprs, and their rendering in headless Chromium.

Oracles used here: the JSON schema file (and a corrupted payload it must reject); an independent
scipy evaluation of the Gaussian privacy profile (Balle and Wang 2018, Thm 8) for the values a
finding names; the axis labels and legends matplotlib recorded in each embedded PNG; the pixels
and the DOM Chromium produces at 1400 px.
"""

from __future__ import annotations

import base64
import io
import json
import math
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from symdp.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "claims"

GAUSS = """title = "Gaussian mechanism (eps, delta) claims"

[symbols]
mu = { range = [0.1, 3.0] }
epsilon = { range = [0.01, 5.0] }

[[claim]]
id = "gauss.subgaussian_tail"
kind = "bound"
title = "delta(eps) of mu-GDP is at most exp(-eps^2/(2 mu^2))"
quantity = "gaussian_profile"
claimed = "exp(-epsilon**2/(2*mu**2))"
"""

TWO = """title = "Two free parameters"

[symbols]
epsilon = { range = [0.1, 2.0] }
delta = { range = [0.01, 1.0] }

[[claim]]
id = "two.product_small"
kind = "tighter"
title = "eps * delta <= 1/2 (true only where the product is small)"
a = "epsilon*delta"
b = "1/2"
"""

#: raw SymPy / Python reprs that must never reach a reader
RAW = ("O(order", "counterexample {", "{}", "Abs(", "**", "Piecewise(", "Symbol(")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reports")
    (tmp / "gauss.toml").write_text(GAUSS)
    (tmp / "two.toml").write_text(TWO)
    out = tmp / "rep"
    args = ["audit", "--out", str(out)]
    for f in (EXAMPLES / "kl_false.toml", EXAMPLES / "kl_partial.toml", tmp / "gauss.toml", tmp / "two.toml"):
        args += ["--claims", str(f)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    data = json.loads((out / "audit.json").read_text())
    return out, {c["id"]: c for c in data["claims"]}, data


# ---- JSON ------------------------------------------------------------------------------------

def test_json_report_validates_against_its_versioned_schema(report):
    from symdp.audit.report import SCHEMA_FILE, SCHEMA_ID, validate_report

    _, _, data = report
    assert data["schema"] == SCHEMA_ID == json.loads(SCHEMA_FILE.read_text())["properties"]["schema"]["const"]
    validate_report(data)
    bad = json.loads(json.dumps(data))
    bad["claims"][0]["verdict"] = "MAYBE"
    with pytest.raises(ValueError, match="verdict"):
        validate_report(bad)
    bad = json.loads(json.dumps(data))
    del bad["verdict_legend"]
    with pytest.raises(ValueError, match="verdict_legend"):
        validate_report(bad)


def test_findings_name_the_compared_quantity_and_its_two_values(report):
    from scipy.stats import norm

    _, claims, data = report
    kl = claims["kl.scaled_down"]
    assert "claimed bound 0.4159" in kl["compared"] and "worst case over eps-DP pairs" in kl["compared"]
    assert "true value" not in kl["compared"]
    g = claims["gauss.subgaussian_tail"]
    assert g["verdict"] == "FAILS" and "exact Gaussian-mechanism profile" in g["compared"]
    eps, mu = float(g["counterexample"]["epsilon"]), float(g["counterexample"]["mu"])
    exact = norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)  # Balle-Wang 2018, Thm 8
    claimed = math.exp(-eps**2 / (2 * mu**2))
    assert float(g["actual"]) == pytest.approx(exact, rel=1e-9)
    assert float(g["claimed"]) == pytest.approx(claimed, rel=1e-9)
    assert claimed < exact  # the refutation is real
    assert f"{exact:.4g}" in g["compared"] and f"{claimed:.4g}" in g["compared"]
    assert data["summary"].startswith(f"{len(claims)} claims audited")
    assert data["sources"]["user"]["citation"]["title"] == "User claim files"


def test_two_free_parameters_get_a_region_map(report):
    out, claims, _ = report
    t = claims["two.product_small"]
    assert t["verdict"] in ("FAILS", "PARTIAL")
    assert (out / t["extra"]["region_plot"]).exists()
    m = re.search(r"holds at (\d+)% and fails at (\d+)%", t["extra"]["region_map"])
    assert m, t["extra"]["region_map"]
    # eps * delta <= 1/2 over [0.1, 2] x [0.01, 1] (log grid in delta): fails only in the upper-right corner
    assert 60 <= int(m.group(1)) <= 95 and int(m.group(1)) + int(m.group(2)) == 100


# ---- HTML structure ----------------------------------------------------------------------------

class _Cards(HTMLParser):
    """Collects each finding card's text (outside <details>), its <math> count and its images."""

    def __init__(self) -> None:
        super().__init__()
        self.cards: list[dict] = []
        self._depth = 0
        self._in_details = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and "finding" in (a.get("class") or ""):
            self.cards.append(dict(id=a.get("id"), text=[], math=0, imgs=[]))
            self._depth = 1
            return
        if not self._depth:
            return
        if tag == "div":
            self._depth += 1
        if tag == "details":
            self._in_details += 1
        if tag == "math":
            self.cards[-1]["math"] += 1
        if tag == "img":
            self.cards[-1]["imgs"].append(a.get("src", ""))

    def handle_endtag(self, tag):
        if not self._depth:
            return
        if tag == "details":
            self._in_details -= 1
        if tag == "div":
            self._depth -= 1

    def handle_data(self, data):
        if self._depth and not self._in_details:
            self.cards[-1]["text"].append(data)


def _png_meta(src: str) -> dict:
    from PIL import Image

    assert src.startswith("data:image/png;base64,")
    im = Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))
    return json.loads(im.text["Description"])


def _assert_labelled(meta: dict, what: str) -> None:
    axes = meta["axes"]
    assert axes, what
    assert all(a["ylabel"].strip() for a in axes), f"{what}: an axis without a y label: {axes}"
    assert any(a["xlabel"].strip() for a in axes), f"{what}: no x label: {axes}"
    assert any(a["title"].strip() for a in axes), f"{what}: no title"
    for a in axes:
        assert not any("true value" in t for t in a["legend"]), f"{what}: legend calls a side the true value"


def test_audit_html_findings_have_mathml_plots_with_labels_and_no_raw_sympy(report):
    out, claims, _ = report
    html = (out / "audit.html").read_text()
    assert "id='legend'" in html and "Verdict legend" in html and "class='summary'" in html
    p = _Cards()
    p.feed(html)
    findings = {c["id"]: c for c in p.cards}
    assert set(findings) >= {cid for cid, c in claims.items() if c["verdict"] in ("FAILS", "PARTIAL")}
    for cid, card in findings.items():
        text = " ".join(card["text"])
        assert card["math"] >= 1, f"{cid}: statement not rendered as MathML"
        for raw in RAW:
            assert raw not in text, f"{cid}: raw {raw!r} in the finding: {text[:400]}"
        assert "reproduce" in text and "symdp audit" in text
        assert card["imgs"], f"{cid}: no plot"
        for src in card["imgs"]:
            _assert_labelled(_png_meta(src), cid)
    # a PARTIAL plot marks its boundary; the region map has both axes labelled
    metas = [_png_meta(s) for s in findings["kl.third_quadratic"]["imgs"]]
    assert any(t.startswith("boundary epsilon = 2.57") for m in metas for a in m["axes"] for t in a["legend"])
    two = [_png_meta(s) for s in findings["two.product_small"]["imgs"]]
    assert any(a["xlabel"].startswith("ε") and a["ylabel"].startswith("δ") for m in two for a in m["axes"])


def test_markdown_report_has_summary_legend_citations_and_latex(report):
    out, _, _ = report
    md = (out / "audit.md").read_text()
    assert md.startswith("# symdp audit") and "**Summary.**" in md
    assert "| FAILS |" in md and "counterexample, i.e." in md  # the verdict legend
    assert "Statement: $" in md and "Compared:" in md and "Reproduce: `symdp audit --claims" in md
    for raw in ("O(order", "counterexample {"):
        assert raw not in md


def test_citations_for_every_library_source():
    from symdp.audit.citations import citation
    from symdp.library import all_theorems

    keys = {t.source.paper for t in all_theorems(with_evidence=False)}
    for k in keys:
        c = citation(k)
        assert c.title and c.title != k, k
        if k in ("he2021-uai", "he2021-long", "bu2020", "wang2016", "lampert2026"):
            assert c.authors and c.year and c.venue, k
    assert citation("he2021-uai").arxiv == "2007.09371"
    assert citation("bu2020").doi == "10.1162/99608f92.cfc5dd25"


def test_clean_text_removes_python_reprs():
    from symdp.audit.report import clean_text

    assert clean_text("counterexample {'T': '100', 'epsilon': '0.5'}: claimed") == "counterexample T = 100, epsilon = 0.5: claimed"
    assert clean_text("counterexample {}") == "counterexample (none)"


# ---- terminal ------------------------------------------------------------------------------------

def test_terminal_table_keeps_ids_whole_and_brackets_literal(monkeypatch):
    from rich.console import Console

    from symdp.audit.report import AuditResult, print_table, terminal_width

    monkeypatch.delenv("COLUMNS", raising=False)
    assert terminal_width(Console(file=io.StringIO())) == 160  # not a TTY: a log-friendly width
    monkeypatch.setenv("COLUMNS", "100")
    assert terminal_width() == 100
    rs = [AuditResult(id="he2021uai.cmp_lemma1_large_in_thm3_branch", kind="tighter-than", title="t",
                      source="[he2021-uai, Sec. 3.1.1]", statement="x", verdict="UNDECIDED",
                      detail="[he2021-uai, Lemma 2]; [bold]x[/bold]")]
    buf = io.StringIO()
    print_table(rs, console=Console(file=buf, width=160))
    text = buf.getvalue()
    assert "he2021uai.cmp_lemma1_large_in_thm3_branch" in text  # on one line, not folded
    assert "[he2021-uai, Lemma 2]" in text and "[bold]x[/bold]" in text  # escaped, not eaten as markup


def test_unknown_filters_exit_2_with_the_valid_choices(tmp_path):
    r = CliRunner().invoke(main, ["list", "--source", "nonexist"])
    assert r.exit_code == 2 and "bu2020" in r.output and "nonexist" in r.output
    assert len(r.output.strip().splitlines()) == 1
    r = CliRunner().invoke(main, ["list", "--kind", "nope"])
    assert r.exit_code == 2 and "comparison" in r.output
    r = CliRunner().invoke(main, ["audit", "--source", "nonexist", "--out", str(tmp_path / "r")])
    assert r.exit_code == 2 and "he2021-uai" in r.output and not (tmp_path / "r").exists()
    r = CliRunner().invoke(main, ["list", "--source", "bu2020", "--json"])
    assert r.exit_code == 0 and json.loads(r.output) and all(e["source"] == "bu2020" for e in json.loads(r.output))


def test_oracles_command_lists_the_registry():
    import symdp.verify  # noqa: F401 - registers the oracles

    try:
        from symdp.verify.registry import ORACLES
    except ImportError:  # before the registry split
        from symdp.verify.oracles import ORACLES
    r = CliRunner().invoke(main, ["oracles", "--json"])
    assert r.exit_code == 0
    listed = {o["name"]: o for o in json.loads(r.output)}
    assert set(listed) == set(ORACLES)
    for name, o in listed.items():
        assert o["computes"] and o["usage"] and o["shape"] == ORACLES[name].shape
    assert listed["gaussian_profile"]["claim_files"] == "yes"
    r = CliRunner().invoke(main, ["oracles", "nope"])
    assert r.exit_code == 2 and "gaussian_profile" in r.output


# ---- certificate ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    from symdp.certify.certificate import certify_hparams, empirical_checks, write_report

    cert = certify_hparams(noise_multiplier=1.1, sample_rate=0.004, steps=500, n=60000, delta=1e-5, train_error=0.1)
    audit = dict(epsilon_lower=0.0, evaluation_canaries=100, alpha=0.05, method="loss threshold", num_canaries=200,
                 members=100, tpr=0.5, tpr_lower=0.4, fpr=0.5, fpr_upper=0.6, threshold=1.0)
    emp = dict(train_loss=0.3, test_loss=0.35, loss_gap=0.05, train_error=0.1, test_error=0.12, error_gap=0.02,
               audit=audit, canary_losses=dict(member=[0.5, 1.0, 2.0], nonmember=[0.7, 1.5, 3.0]))
    emp["checks"] = empirical_checks(cert, emp)
    cert["empirical"] = emp
    out = tmp_path_factory.mktemp("cert")
    paths = write_report(cert, out)
    return cert, paths


def test_certificate_inapplicable_routes_are_not_passed(certificate):
    from symdp.certify.certificate import check_result

    cert, paths = certificate
    inapplicable = {g["name"] for g in cert["generalization"] if not g["applies"] and g["bound"] is not None}
    assert inapplicable, "expected a reference-only route (pure-DP theorem under delta > 0)"
    for c in cert["empirical"]["checks"]:
        if any(c["name"].endswith(n) for n in inapplicable):
            assert c["passed"] is None and check_result(c) == "not applicable", c
    md = paths["markdown"].read_text()
    assert "**not applicable**" in md and "reference only" in md
    assert "**uninformative**" in md  # the 0.000 empirical lower bound is flagged
    assert "passed (uninformative)" in md


def test_certificate_html_has_mathml_and_labelled_plots(certificate):
    _, paths = certificate
    html = paths["html"].read_text()
    assert "<math" in html
    srcs = re.findall(r'<img class="plot" alt="([^"]+)" src="([^"]+)"', html)
    assert {a for a, _ in srcs} >= {"tradeoff.png", "canaries.png"}
    for alt, src in srcs:
        _assert_labelled(_png_meta(src), alt)


def test_certificate_report_repr_html():
    from symdp.certify.certificate import CertificateReport, certify_hparams

    cert = certify_hparams(noise_multiplier=1.0, sample_rate=0.01, steps=100, n=10_000, delta=1e-5)
    h = CertificateReport(cert)._repr_html_()
    assert h.startswith("<h1>") and "<math" in h and "</body>" not in h


# ---- notebook --------------------------------------------------------------------------------------

def test_theorem_reprs_render_in_one_block_without_true():
    from symdp.library import all_theorems, get

    for th in all_theorems(with_evidence=False):
        s = th._repr_latex_()
        assert s.startswith("$\\displaystyle ") and s.endswith("$") and s.count("$") == 2, th.id
        assert "\\text{True}" not in s and " for $" not in s, th.id
    th = get("he2021long.thm7_eps_tilde", with_evidence=False)
    assert "\\text{for }" in th._repr_latex_()
    assert "<math" in th._repr_html_() and th.id in th._repr_html_()


def test_audit_result_repr_html(report):
    from symdp.audit.report import AuditResult

    _, claims, _ = report
    c = dict(claims["kl.scaled_down"])
    r = AuditResult(**{k: v for k, v in c.items() if k in AuditResult.__dataclass_fields__})
    h = r._repr_html_()
    assert "FAILS" in h and "<math" in h and "claimed bound 0.4159" in h


# ---- headless Chromium at 1400 px ---------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _chromium(tmp: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp / 'ud'}",
         *args, url],
        check=True, timeout=180, capture_output=True, text=True,
    )


def _shot(tmp: Path, page: Path, name: str, height: int):
    from PIL import Image

    shot = tmp / f"{name}.png"
    _chromium(tmp, page.as_uri(), f"--screenshot={shot}", f"--window-size=1400,{height}", "--hide-scrollbars")
    return Image.open(shot).convert("RGB")


def _structure(im) -> dict:
    import numpy as np

    a = np.asarray(im).astype(int)
    nonwhite = (a.sum(axis=2) < 740)
    rows = nonwhite.any(axis=1)
    red = (abs(a[..., 0] - 0xB3) < 25) & (abs(a[..., 1] - 0x26) < 25) & (abs(a[..., 2] - 0x1E) < 25)
    cols = nonwhite.any(axis=0)
    return dict(width=a.shape[1], ink=float(nonwhite.mean()), rows=float(rows.mean()), red=int(red.sum()),
                colors=len(np.unique(a.reshape(-1, 3)[::7], axis=0)), right_margin_empty=not cols[-40:].any())


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install -y chromium)")
def test_audit_html_in_headless_chromium_at_1400px(report, tmp_path):
    out, _, _ = report
    s = _structure(_shot(tmp_path, out / "audit.html", "audit", 6000))
    assert s["width"] == 1400
    assert s["right_margin_empty"], "content overflows the 1400 px page horizontally"
    assert s["ink"] > 0.02 and s["rows"] > 0.3, s  # text and plots fill the page
    assert s["red"] > 200, s  # FAILS verdicts and violated regions are drawn in the report's red
    assert s["colors"] > 200, s  # embedded plots rendered (antialiased curves), not broken images


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install -y chromium)")
def test_certificate_report_in_headless_chromium_at_1400px(certificate, tmp_path):
    _, paths = certificate
    s = _structure(_shot(tmp_path, paths["html"], "cert", 4000))
    assert s["width"] == 1400 and s["right_margin_empty"] and s["ink"] > 0.02 and s["colors"] > 100, s


def test_every_internal_link_of_the_html_report_resolves(report):
    """Every ``href='#x'`` of audit.html points at an element with ``id='x'`` (rows without a card have no link)."""
    from html.parser import HTMLParser

    class Links(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.ids: set[str] = set()
            self.hrefs: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            a = dict(attrs)
            if a.get("id"):
                self.ids.add(str(a["id"]))
            if tag == "a" and str(a.get("href") or "").startswith("#"):
                self.hrefs.append(str(a["href"])[1:])

    out, claims, _ = report
    p = Links()
    p.feed((out / "audit.html").read_text())
    assert p.hrefs, "the report has internal links"
    assert sorted(set(p.hrefs) - p.ids) == []
    # a claim without a card (a HOLDS without a plot) is listed unlinked
    plain = [i for i, c in claims.items() if c["verdict"] == "HOLDS" and not c.get("plot")]
    assert all(i not in p.hrefs for i in plain)


def test_findings_are_listed_most_severe_first() -> None:
    from symdp.audit.render import by_severity
    from symdp.audit.report import AuditResult

    def res(i: str, verdict: str, sev: str | None) -> AuditResult:
        extra = {} if sev is None else {"severity": sev}
        return AuditResult(id=i, kind="bound", title="t", source="s", statement="", verdict=verdict, extra=extra)

    found = [res("a", "PARTIAL", "minor"), res("b", "FAILS", None), res("c", "FAILS", "rounding"),
             res("d", "PARTIAL", "major"), res("e", "FAILS", "major"), res("f", "FAILS", "vacuous-only")]
    assert [r.id for r in by_severity(found)] == ["e", "d", "f", "a", "c", "b"]


def test_printed_statements_are_shown_as_the_paper_states_them() -> None:
    """Fig. 4's claim reads delta_CLT(1.34; mu) <= 1e-5 as in the paper; the computed (erfc) form stays available."""
    from symdp.library import get

    th = get("bu2020.mnist_fig4_top", with_evidence=False)
    assert th.latex().startswith(r"\delta_{\mathrm{CLT}}(1.34;")
    assert "erfc" in th.latex(computed=True) and "erfc" not in th.latex()


def test_reader_text_is_never_cut_mid_word():
    from symdp.rendering import clip

    text = "the claimed guarantee at sigma = 1.06, sample_rate = 256/60000: claimed 1.34, at least 1.361"
    for n in range(20, len(text)):
        out = clip(text, n)
        assert len(out) <= n and out.endswith(" ...")
        kept = out[:-4]
        assert text.startswith(kept) and text[len(kept)] in " ,;:"  # the cut falls between words
    assert clip(text, len(text)) == text
    assert clip("x" * 50, 10) == "xxxxxx..."  # one word longer than the limit: nothing else can be done


def test_long_claim_ids_do_not_overflow_plot_titles(tmp_path):
    """A claim id may be 81 characters without a space; the region map's title line '<verdict>: <id>: where the claim
    holds' (110 characters) was centred over the axes and cut at both edges of the PNG (seen in headless Chromium).
    Both plot kinds now wrap every title line, and the title's drawn box lies inside the figure."""
    from symdp.audit import plots

    cid = "c2_a_long_claim_identifier_to_test_table_wrapping_in_the_html_report_" + "x" * 12
    f_c = lambda p: p["x"] + p["y"] + 1  # noqa: E731
    f_t = lambda p: p["x"] * p["y"]  # noqa: E731
    figs = []
    orig = plots.save_labelled

    def keep(fig, path, **kw):
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        figs.append([a.title.get_window_extent(r) for a in fig.get_axes()] + [fig.bbox])
        orig(fig, path, **kw)

    plots.save_labelled = keep
    try:
        plots.plot_region_2d(tmp_path / "r.png", title=f"FAILS: {cid}\nwhere the claim holds", f_claim=f_c, f_true=f_t,
                             point={"x": 0.5, "y": 0.5}, xvar="x", xrange=(0.1, 1.0), yvar="y", yrange=(0.1, 1.0), n=4)
        plots.plot_claim(tmp_path / "c.png", title=f"FAILS: {cid}\n{cid}", f_claim=f_c, f_true=f_t,
                         point={"x": 0.5, "y": 0.5}, var="x", lo=0.1, hi=1.0, fixed={"y": 0.5})
    finally:
        plots.save_labelled = orig
    assert len(figs) == 2
    for *titles, fb in figs:
        for t in titles:
            if t.width > 0:
                assert fb.x0 <= t.x0 and t.x1 <= fb.x1 and t.y1 <= fb.y1, (t, fb)
