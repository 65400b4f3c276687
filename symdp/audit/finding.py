"""One audit finding: :class:`AuditResult` (one claim's verdict and evidence), the labels a reader needs
(:func:`value_labels`, :func:`truth_label`, :func:`source_line`, :func:`clean_text`), and ONE description
of what a report says about it (:func:`finding_fields`: severity, root cause, origin, reading, the compared
values, counterexample, region, how it was decided, the command that reproduces it), rendered to Markdown
(:func:`finding_markdown`) and to HTML (:func:`finding_html`, also the notebook view).  A field added to
the description appears in both.  Assembling findings from theorems (enrichment, JSON, grouping) is
:mod:`.result`; whole pages are :mod:`.render`.

>>> r = AuditResult(id="x.bound", kind="valid bound", title="t", source="[bu2020, Eq. 1; v]",
...                 statement="y <= 1", verdict="HOLDS", strength="proved", rung="symbolic")
>>> _how(r)
'proved by symbolic'
>>> [(f.label, f.text) for f in finding_fields(r)]
[('how', 'proved by symbolic')]
"""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..rendering import math_html
from .citations import citation

VERDICTS = ("HOLDS", "FAILS", "PARTIAL", "UNDECIDED")


#: what each verdict means (printed in every report)
VERDICT_LEGEND: dict[str, str] = {
    "HOLDS": "true on the whole stated domain: 'proved' (symbolic identity, Z3 or an interval-arithmetic "
             "certificate) or 'supported' (a numerical search against an exact oracle found no counterexample; "
             "evidence, not a proof).",
    "FAILS": "false: a counterexample, i.e. a setting of the claim's own parameters where it does not hold, "
             "re-confirmed at 60 digits with mpmath and shrunk toward round numbers.",
    "PARTIAL": "true on part of the domain only: the boundary and the failing region are given.",
    "UNDECIDED": "no verdict, with the reason: no exact oracle for the quantity (e.g. a generalization gap of an "
                 "arbitrary learner), the formula is missing from the source text, or the budget ran out.",
}

#: optional fields the audit engine may attach (attribute or ``extra`` key) and how reports name them
#: what an origin label means, said beside it (a symdp check is not a finding of the paper)
ORIGIN_MEANING = {"symdp": " (symdp's own check, not a claim of the paper: its failure is no finding of the paper)",
                  "arithmetic": " (a printed number recomputed from a printed formula; says nothing about privacy)"}
OPTIONAL_FIELDS = ("severity", "severity_why", "root_cause", "root_cause_note", "origin", "reading", "quote")

# oracle name -> how a report names the side it computes (never "true value" of the paper's own formula)
_TRUTH_LABELS = {
    "kl_eps_dp": "worst case over eps-DP pairs (randomized response)",
    "optimal_composition": "optimal composition (Kairouz, Oh, Viswanath 2017)",
    "optimal_composition_enum": "optimal composition (Kairouz, Oh, Viswanath 2017)",
    "gaussian_profile": "exact Gaussian-mechanism profile (Balle, Wang 2018)",
    "laplace_profile": "exact Laplace-mechanism profile",
    "subsampled_gaussian_profile": "subsampled-Gaussian profile (PLD bracket, upper end)",
    "tradeoff_dp_composition": "exact trade-off of the composition",
    "gaussian_tradeoff": "exact Gaussian trade-off G_mu",
    "sgm_pld": "exact subsampled-Gaussian hockey-stick divergence (quadrature)",
    "subsampled_gaussian_tradeoff": "exact subsampled-Gaussian trade-off",
    "gaussian_rdp": "exact Renyi divergence of the Gaussian mechanism",
    "gdp_tradeoff": "exact GDP parameter / trade-off (Neyman-Pearson)",
    "moments_accountant": "moments accountant (Abadi et al. 2016)",
    "clt_approximation": "exact profile (PLD bracket)",
    "wang_laplace_mean_mc": "Monte Carlo estimate",
    "wang_linreg_mc": "Monte Carlo estimate",
}


def truth_label(oracle: str | None) -> str:
    """How reports and plot legends name the oracle side of a comparison."""
    if not oracle:
        return "exact value"
    if oracle in _TRUTH_LABELS:
        return _TRUTH_LABELS[oracle]
    if oracle.startswith("composition_"):
        return "optimal composition (Kairouz, Oh, Viswanath 2017)"
    return f"oracle {oracle}"


@dataclass
class AuditResult:
    """One audited claim, as every report writer sees it.

    ``verdict`` is HOLDS / FAILS / PARTIAL (holds only on part of the domain) /
    UNDECIDED; ``strength`` says how a HOLDS was established (``proved`` with a
    certificate, or ``supported`` by a numerical search, which is not a proof).
    ``latex``, ``quantity``, ``compared``, ``reproduce`` and ``source_key`` are
    filled by :func:`enrich`.
    """

    id: str
    kind: str
    title: str
    source: str
    statement: str
    verdict: str
    strength: str = ""
    rung: str | None = None
    detail: str = ""
    certificate: str | None = None
    counterexample: dict[str, str] | None = None
    claimed: str | None = None
    actual: str | None = None
    margin: str | None = None
    region: str | None = None
    cases: int | None = None
    plot: str | None = None  # path of a PNG, relative to the report directory
    extra: dict[str, Any] = field(default_factory=dict)
    latex: str | None = None  # the statement as LaTeX (rendered to MathML in HTML)
    quantity: str | None = None  # the compared quantity in words
    compared: str | None = None  # one sentence: what was compared, where, the two values and their names
    reproduce: str | None = None  # the command that reproduces the result
    source_key: str | None = None  # key of the source (he2021-uai, bu2020, ..., user)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict={self.verdict!r} not in {VERDICTS}")

    def _repr_html_(self) -> str:
        """Notebook rendering: the report's card (statement as MathML, compared values, verdict)."""
        return finding_html(self, Path("."))

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: v for k, v in d.items() if v not in (None, "", {}) or k in ("id", "kind", "verdict")}


def optional(r: AuditResult, name: str) -> Any:
    """An optional field (``severity``, ``root_cause``, ...) from the attribute or ``extra``; None if absent."""
    v = getattr(r, name, None)
    if v in (None, "", {}, []):
        v = r.extra.get(name) if isinstance(r.extra, dict) else None
    if v in (None, "", {}, []):
        return None
    if hasattr(v, "value") and not isinstance(v, (str, int, float)):
        v = v.value  # an enum
    return v


def value_labels(r: AuditResult) -> tuple[str, str]:
    """Names of ``claimed`` / ``actual`` for a result's kind.

    For a valid bound they are the claimed bound and the value the oracle computes; for a
    comparison between two expressions (tighter-than, factor, consistency, user comparisons)
    they are the side the claim says is larger and the side it says is smaller.
    """
    if r.kind in ("valid bound", "bound"):
        return "claimed bound", "true value"
    if r.kind in ("expansion", "identity", "equivalence"):
        return "claimed", "actual"
    return "claimed larger side", "side claimed smaller"


def _short(v: Any, digits: int = 4) -> str:
    """A number string shortened for reading (the JSON keeps every digit); a value beyond the float range
    (2.14e-350, 1e+400) keeps its exponent instead of printing 0 or inf."""
    if v is None:
        return ""
    try:
        f = float(v)
    except (TypeError, ValueError, OverflowError):
        return str(v)
    if (f == 0.0 or math.isinf(f)) and isinstance(v, str):
        import mpmath

        try:
            m = mpmath.mpf(v)
        except (TypeError, ValueError):
            return str(v)
        if m != 0 and mpmath.isfinite(m):
            return str(mpmath.nstr(m, digits))
    return f"{f:.{digits}g}"


_PAIR = re.compile(r"'([^'{}]*)': '([^'{}]*)'")
_DICT = re.compile(r"\{(?:\s*'[^'{}]*': '[^'{}]*',?)*\s*\}")


def clean_text(s: str | None) -> str:
    """Verifier prose made readable: ``counterexample {'T': '100'}`` -> ``counterexample T = 100``,
    an empty dict -> ``(none)``; a SymPy ``O(order k)`` remainder -> ``O(.^k)``."""
    if not s:
        return ""

    def _d(m: re.Match[str]) -> str:
        pairs = _PAIR.findall(m.group(0))
        return ", ".join(f"{k} = {v}" for k, v in pairs) if pairs else "(none)"

    s = _DICT.sub(_d, s)
    s = re.sub(r"O\(order (\d+)\)", r"O(remainder of order \1)", s)
    return s


def _cx_text(cx: Mapping[str, Any] | None) -> str:
    return ", ".join(f"{k} = {v}" for k, v in (cx or {}).items())


_SRC = re.compile(r"^\[(?P<key>[^,\]]+),\s*(?P<loc>.*?);\s*(?P<ver>[^\]]*)\](?P<rest>.*)$")


def source_line(r: AuditResult) -> str:
    """``[he2021-uai, Theorem 4; UAI (short) version]`` -> ``He, Wang, Tao (2021), Theorem 4 (UAI (short) version)``."""
    m = _SRC.match(r.source.strip())
    if not m:
        return r.source
    cit = citation(m.group("key").strip())
    who = cit.short if cit.authors else m.group("key").strip()
    return f"{who}, {m.group('loc')} ({m.group('ver')}){m.group('rest')}"


#: a PARTIAL whose only oracle is the quantity's range: where it 'holds' it is only not refuted
_RANGE_ONLY = ("; the only check is the quantity's range, so where it 'holds' the bound is merely inside that range "
               "(not refuted by it), and the claim itself is undecided there")


def _how(r: AuditResult) -> str:
    if r.verdict == "FAILS":
        if r.compared:
            return r.compared
        cx = _cx_text(r.counterexample)
        a, b = value_labels(r)
        if r.claimed is None:
            return clean_text(cx or r.detail)
        return (f"{cx}: " if cx else "at the stated values: ") + f"{a} {_short(r.claimed)}, {b} {_short(r.actual)}"
    if r.verdict == "PARTIAL":
        return clean_text(r.region or r.detail) + (_RANGE_ONLY if r.rung == "range" else "")
    if r.verdict == "HOLDS":
        s = r.strength + (f" by {r.rung}" if r.rung else "")
        if r.certificate:
            s += f" ({r.certificate})"
        if r.cases:
            s += f", {r.cases} cases"
        if r.strength == "supported":  # supported: say over which box (or instances) the evidence was gathered
            m = _OVER.search(r.detail or "")
            fam = _ORACLE_FAMILY.get(m.group(1) if m else "")
            if m and m.group(1) == "finite_instances":  # the seed indexes instances: it is no domain of the claim
                s += f" on random finite instances ({fam})"
            elif m:
                s += f" over {m.group(2)}" + (f"; supported on {fam} only" if fam else "")
            elif "finite instances" in (r.detail or ""):
                s += " on finite instances"
        if "not evaluable" in (r.detail or ""):
            s += ("; some sampled points are not evaluable (by the claim or by its oracle) and are not covered "
                  "(see the verifier log)")
        return s
    return clean_text(r.detail)


_OVER = re.compile(r"points against (the closed form|\S+) on (.+?)(?: \(|; |$)")
#: the family of instances an oracle computes: a general theorem supported through it is supported on that family only
_ORACLE_FAMILY = {
    "finite_instances": "priors, channels and kernels with at most 6 atoms; instance_seed indexes the instances",
    "gdp_tradeoff": "Gaussian trade-off functions G_mu and their compositions",
    "rr_approx_max_information": "randomized response on i.i.d. uniform bits",
    "gaussian_witness": "the Gaussian mechanism with the premise",
}


# ---------------------------------------------------------------------------- one description, two renderings
_HTML_COLORS = {"HOLDS": "#1b7f3b", "FAILS": "#b3261e", "PARTIAL": "#a86b00", "UNDECIDED": "#666"}


@dataclass(frozen=True)
class Field:
    """One line of a finding: ``label`` and ``text``; ``style`` says how to set it: ``"text"`` (prose),
    ``"code"`` (a command), ``"pairs"`` (``name = value`` items in ``items``), ``"severity"`` (a level)."""

    label: str
    text: str
    style: str = "text"
    items: tuple[tuple[str, str], ...] = ()


def finding_fields(r: AuditResult) -> list[Field]:
    """What a report says about ``r`` beyond its heading, statement and the paper's words, in order."""
    out: list[Field] = []
    sev = optional(r, "severity")
    if sev is not None:
        why = optional(r, "severity_why")
        out.append(Field("severity", str(sev) + (f" ({why})" if why else ""), "severity", (("level", str(sev)),)))
    rc = optional(r, "root_cause_note") or optional(r, "root_cause")
    if rc is not None:
        out.append(Field("root cause", clean_text(str(rc))))
    for name in ("origin", "reading"):
        v = optional(r, name)
        if v is not None:
            out.append(Field(name, clean_text(str(v)) + (ORIGIN_MEANING.get(str(v), "") if name == "origin" else "")))
    if r.compared:
        out.append(Field("compared", r.compared))
    elif r.claimed is not None:
        a, b = value_labels(r)
        margin = f", margin {_short(r.margin)}" if r.margin is not None else ""
        out.append(Field("values", f"{a} {_short(r.claimed)}, {b} {_short(r.actual)}{margin}"))
    if r.counterexample:
        items = tuple((str(k), str(v)) for k, v in r.counterexample.items())
        out.append(Field("counterexample", _cx_text(r.counterexample), "pairs", items))
    if r.region:
        out.append(Field("region", r.region + (_RANGE_ONLY if r.verdict == "PARTIAL" and r.rung == "range" else "")))
    rmap = optional(r, "region_map")
    if rmap is not None:
        out.append(Field("region map", str(rmap)))
    if r.verdict == "HOLDS":
        out.append(Field("how", _how(r)))
    if r.reproduce:
        out.append(Field("reproduce", r.reproduce, "code"))
    return out


def _quote(r: AuditResult) -> str | None:
    """The paper's words, after the source label that says where (a leading number of an older ledger is dropped)."""
    quote = optional(r, "quote")
    return None if quote is None else re.sub(r"^[0-9]{3}[ :]+", "", str(quote))


def _images(r: AuditResult) -> list[tuple[str, str]]:
    """(path relative to the report, alt text) of the finding's plots."""
    region_plot = r.extra.get("region_plot") if isinstance(r.extra, dict) else None
    return [(p, alt) for p, alt in ((r.plot, f"plot of {r.id}"), (region_plot, f"region map of {r.id}")) if p]


def plot_note(r: AuditResult) -> str | None:
    """Why a finding has no plot where one would be (``extra["plot_skipped"]``: the audit chose not to draw it;
    ``extra["plot_error"]``: drawing it failed), without a leading "no plot:", or None."""
    extra = r.extra if isinstance(r.extra, dict) else {}
    skipped, error = extra.get("plot_skipped"), extra.get("plot_error")
    if skipped:
        s = clean_text(str(skipped))
        return s[len("no plot:"):].strip() if s.lower().startswith("no plot:") else s
    if error:
        return f"drawing it failed ({clean_text(str(error))})"
    return None


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _md_field(f: Field) -> str:
    if f.style == "code":
        value = f"`{f.text}`"
    elif f.style == "pairs":
        value = ", ".join(f"`{k} = {v}`" for k, v in f.items)
    else:
        value = _md_escape(f.text)
    return f"{f.label[0].upper()}{f.label[1:]}: {value}"


def finding_markdown(r: AuditResult) -> list[str]:
    """The finding as Markdown lines (a ``###`` section)."""
    lines = [f"### {r.verdict}: `{r.id}`", "", f"{r.title} — {source_line(r)}", ""]
    lines.append(f"Statement: $ {r.latex} $" if r.latex else f"Statement: `{r.statement}`")
    quote = _quote(r)
    if quote is not None:
        lines.append(f"\nThe paper: {_md_escape(clean_text(quote))}")
    lines += [f"\n{_md_field(f)}" for f in finding_fields(r)]
    if r.detail:
        lines.append(f"\nVerifier: {r.detail}")
    lines += [f"\n![{alt}]({p})" for p, alt in _images(r)]
    note = plot_note(r)
    if note is not None:
        lines.append(f"\nNo plot: {_md_escape(note)}")
    lines.append("")
    return lines


def _img(report_dir: Path, rel: str | None, alt: str) -> str:
    if not rel:
        return ""
    p = report_dir / rel
    if not p.exists():
        return ""
    data = base64.b64encode(p.read_bytes()).decode()
    return f'<img class="plot" alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _html_field(f: Field) -> str:
    esc = html.escape
    if f.style == "code":
        value = f"<code>{esc(f.text)}</code>"
    elif f.style == "pairs":
        value = ", ".join(f"<code>{esc(k)} = {esc(v)}</code>" for k, v in f.items)
    elif f.style == "severity":
        level = f.items[0][1]
        value = f"<span class='sev sev-{esc(level)}'>{esc(level)}</span>{esc(f.text[len(level):])}"
    else:
        value = esc(f.text)
    return f"<b>{esc(f.label)}</b> {value}"


def finding_html(r: AuditResult, report_dir: Path) -> str:
    """The finding as an HTML card (statement as MathML, plots inlined from ``report_dir``)."""
    esc = html.escape
    p = [f"<div class='card finding' id='{esc(r.id)}'><h4 style='color:{_HTML_COLORS[r.verdict]}'>{r.verdict}: <code>{esc(r.id)}</code></h4>"]
    p.append(f"<p>{esc(r.title)} &mdash; <span class='cite'>{esc(source_line(r))}</span></p>")
    if r.latex or r.kind not in ("algorithm", "experiment"):
        p.append("<div class='stmt'>" + math_html(r.latex, r.statement) + "</div>")
    else:  # a claim about a run of an algorithm, stated in words
        p.append(f"<p class='stmt-text'><b>claim</b> {esc(r.statement)}</p>")
    quote = _quote(r)
    if quote is not None:
        p.append(f"<blockquote>{esc(quote)}</blockquote>")
    p.append("<p class='kv'>" + "<br>".join(_html_field(f) for f in finding_fields(r)) + "</p>")
    p += [_img(report_dir, rel, alt) for rel, alt in _images(r)]
    note = plot_note(r)
    if note is not None:
        p.append(f"<p class='plot-skipped'><b>no plot</b> {esc(note)}</p>")
    if r.detail:
        p.append(f"<details><summary>verifier log</summary><p>{esc(r.detail)}</p></details>")
    p.append("</div>")
    return "".join(p)
