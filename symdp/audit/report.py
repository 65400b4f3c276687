"""Audit reports: terminal table (rich), JSON, Markdown and a self-contained HTML page with plots."""

from __future__ import annotations

import base64
import html
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

VERDICTS = ("HOLDS", "FAILS", "PARTIAL", "UNDECIDED")
_COLORS = {"HOLDS": "green", "FAILS": "red", "PARTIAL": "yellow", "UNDECIDED": "bright_black"}
_HTML_COLORS = {"HOLDS": "#1b7f3b", "FAILS": "#b3261e", "PARTIAL": "#a86b00", "UNDECIDED": "#666"}


@dataclass
class AuditResult:
    """One audited claim, as every report writer sees it.

    ``verdict`` is HOLDS / FAILS / PARTIAL (holds only on part of the domain) /
    UNDECIDED; ``strength`` says how a HOLDS was established (``proved`` with a
    certificate, or ``supported`` by a numerical search, which is not a proof).
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

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict={self.verdict!r} not in {VERDICTS}")

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: v for k, v in d.items() if v not in (None, "", {}) or k in ("id", "kind", "verdict")}


def value_labels(r: AuditResult) -> tuple[str, str]:
    """Names of ``claimed`` / ``actual`` for a result's kind.

    For a valid bound they are the claimed bound and the true value of the quantity; for a
    comparison between two expressions (tighter-than, factor, consistency, user comparisons)
    they are the claimed larger side and the side the claim says is smaller.
    """
    if r.kind in ("valid bound", "bound"):
        return "claimed bound", "true value"
    if r.kind in ("expansion", "identity", "equivalence"):
        return "claimed", "actual"
    return "claimed larger side", "smaller side"


def counts(results: Iterable[AuditResult]) -> dict[str, int]:
    c = {v: 0 for v in VERDICTS}
    for r in results:
        c[r.verdict] += 1
    return c


def _short(v: str | None, digits: int = 6) -> str:
    """A number string shortened for tables (the JSON keeps every digit)."""
    if v is None:
        return ""
    try:
        return f"{float(v):.{digits}g}"
    except (TypeError, ValueError):
        return str(v)


def print_table(results: list[AuditResult], *, title: str = "symdp audit", console: Any = None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    table = Table(title=title, show_lines=False)
    for col, kw in (("id", {"overflow": "fold"}), ("kind", {}), ("verdict", {}), ("how / counterexample", {"overflow": "fold"})):
        table.add_column(col, **kw)
    for r in results:
        color = _COLORS[r.verdict]
        if r.verdict == "FAILS" and r.counterexample:
            how = ", ".join(f"{k}={v}" for k, v in r.counterexample.items())
            if r.claimed is not None and r.actual is not None:
                a, b = value_labels(r)
                how += f": {a} {_short(r.claimed)} vs {b} {_short(r.actual)}"
        elif r.verdict == "PARTIAL":
            how = r.region or r.detail
        elif r.verdict == "HOLDS":
            how = f"{r.strength}" + (f" ({r.rung})" if r.rung else "") + (f" {r.certificate}" if r.certificate else "")
            if r.strength == "supported" and r.cases:
                how += f", {r.cases} cases"
        else:
            how = r.detail
        table.add_row(r.id, r.kind, f"[{color}]{r.verdict}[/{color}]", how[:300])
    console.print(table)
    c = counts(results)
    console.print("  ".join(f"[{_COLORS[k]}]{k}: {v}[/{_COLORS[k]}]" for k, v in c.items()))


def write_json(results: list[AuditResult], path: Path, *, meta: dict[str, Any] | None = None) -> None:
    payload = {"meta": meta or {}, "counts": counts(results), "claims": [r.to_json() for r in results]}
    path.write_text(json.dumps(payload, indent=1, default=str))


def _source_key(r: AuditResult) -> str:
    """The source of a result as a short key: ``[he2021-uai, Lemma 2; ...]`` -> ``he2021-uai``."""
    src = r.source.strip().lstrip("[")
    return (src.split(",")[0].split(";")[0].strip() or "user") if src else "user"


def counts_by_source(results: Iterable[AuditResult]) -> dict[str, dict[str, int]]:
    """``{source: {verdict: count}}`` in first-appearance order of the sources."""
    out: dict[str, dict[str, int]] = {}
    for r in results:
        out.setdefault(_source_key(r), {v: 0 for v in VERDICTS})[r.verdict] += 1
    return out


def findings(results: Iterable[AuditResult]) -> list[AuditResult]:
    """The results a reader must see first: FAILS, then PARTIAL."""
    rs = list(results)
    return [r for r in rs if r.verdict == "FAILS"] + [r for r in rs if r.verdict == "PARTIAL"]


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def write_markdown(results: list[AuditResult], path: Path, *, title: str, meta: dict[str, Any] | None = None) -> None:
    c = counts(results)
    lines = [f"# {title}", ""]
    if meta:
        lines += [f"- {k}: {v}" for k, v in meta.items()] + [""]
    lines += ["| verdict | count |", "|---|---|"] + [f"| {k} | {v} |" for k, v in c.items()] + [""]
    by_src = counts_by_source(results)
    if len(by_src) > 1:
        lines += ["| source | " + " | ".join(VERDICTS) + " |", "|---|" + "---:|" * len(VERDICTS)]
        lines += [f"| {src} | " + " | ".join(str(n[v]) for v in VERDICTS) + " |" for src, n in by_src.items()] + [""]
    found = findings(results)
    if found:
        lines += ["## Findings", ""]
        lines += [f"- **{r.verdict}** `{r.id}`: {_md_escape(r.title)} ({_md_escape(_how(r))})" for r in found] + [""]
    lines += ["## All claims", ""]
    lines += ["| id | kind | verdict | how / counterexample | source |", "|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| `{r.id}` | {r.kind} | **{r.verdict}** | {_md_escape(_how(r))} | {_md_escape(r.source)} |")
    lines.append("")
    for r in results:
        if r.verdict in ("FAILS", "PARTIAL"):
            lines += [f"## {r.verdict}: `{r.id}`", "", f"{r.title} — {r.source}", "", f"Statement: `{r.statement}`", ""]
            if r.counterexample:
                lines.append("Counterexample: " + ", ".join(f"`{k} = {v}`" for k, v in r.counterexample.items()))
            if r.claimed is not None:
                a, b = value_labels(r)
                lines.append(f"\n{a.capitalize()}: `{r.claimed}`; {b}: `{r.actual}`; margin: `{r.margin}`")
            if r.region:
                lines.append(f"\nRegion: {r.region}")
            if r.detail:
                lines.append(f"\n{r.detail}")
            if r.plot:
                lines.append(f"\n![{r.id}]({r.plot})")
            lines.append("")
    path.write_text("\n".join(lines))


def _how(r: AuditResult) -> str:
    if r.verdict == "FAILS":
        cx = ", ".join(f"{k}={v}" for k, v in (r.counterexample or {}).items())
        a, b = value_labels(r)
        if r.claimed is None:
            return cx or r.detail
        return (f"{cx}: " if cx else "at the stated values: ") + f"{a} {_short(r.claimed)}, {b} {_short(r.actual)}"
    if r.verdict == "PARTIAL":
        return r.region or r.detail
    if r.verdict == "HOLDS":
        s = r.strength + (f" by {r.rung}" if r.rung else "")
        if r.certificate:
            s += f" ({r.certificate})"
        if r.cases:
            s += f", {r.cases} cases"
        return s
    return r.detail


def _img(report_dir: Path, rel: str | None) -> str:
    if not rel:
        return ""
    p = report_dir / rel
    if not p.exists():
        return ""
    data = base64.b64encode(p.read_bytes()).decode()
    return f'<img alt="plot" src="data:image/png;base64,{data}">'


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;color:#222;line-height:1.45}
h1{font-size:1.6em} table{border-collapse:collapse;width:100%;font-size:.9em} td,th{border-bottom:1px solid #ddd;padding:.35em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4} code{font-size:.92em;background:#f6f6f6;padding:0 .2em}
.v{font-weight:700} .card{border:1px solid #ddd;border-radius:6px;padding:1em;margin:1em 0}
.counts span{display:inline-block;margin-right:1.2em;font-weight:600} img{max-width:100%}
table.all{table-layout:fixed} table.all col.id{width:23%} table.all col.kind{width:9%} table.all col.v{width:11%}
table.all col.how{width:37%} table.all col.src{width:20%}
td{overflow-wrap:anywhere} code{overflow-wrap:anywhere;white-space:pre-wrap}
ul.findings li{margin:.3em 0} table.src{width:auto} table.src td,table.src th{text-align:right} table.src td:first-child{text-align:left}
"""


def write_html(results: list[AuditResult], path: Path, *, title: str, meta: dict[str, Any] | None = None) -> None:
    """A self-contained page (CSS inline, plots embedded as base64 PNG)."""
    report_dir = path.parent
    c = counts(results)
    esc = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title><style>{_CSS}</style></head><body>"]
    parts.append(f"<h1>{esc(title)}</h1>")
    if meta:
        parts.append("<p>" + " &middot; ".join(f"{esc(str(k))}: {esc(str(v))}" for k, v in meta.items()) + "</p>")
    parts.append("<p class='counts'>" + "".join(
        f"<span style='color:{_HTML_COLORS[k]}'>{k}: {v}</span>" for k, v in c.items()) + "</p>")
    by_src = counts_by_source(results)
    if len(by_src) > 1:
        parts.append("<table class='src'><tr><th>source</th>" + "".join(f"<th>{v}</th>" for v in VERDICTS) + "</tr>")
        for src, n in by_src.items():
            parts.append(f"<tr><td>{esc(src)}</td>" + "".join(f"<td>{n[v]}</td>" for v in VERDICTS) + "</tr>")
        parts.append("</table>")
    found = findings(results)
    if found:
        parts.append("<h2>Findings</h2><ul class='findings'>")
        for r in found:
            parts.append(
                f"<li><span class='v' style='color:{_HTML_COLORS[r.verdict]}'>{r.verdict}</span> "
                f"<a href='#{esc(r.id)}'><code>{esc(r.id)}</code></a>: {esc(r.title)} <br><small>{esc(_how(r))}</small></li>"
            )
        parts.append("</ul>")
    parts.append("<h2>All claims</h2>")
    parts.append("<table class='all'><colgroup><col class='id'><col class='kind'><col class='v'><col class='how'><col class='src'></colgroup>"
                 "<tr><th>id</th><th>kind</th><th>verdict</th><th>how / counterexample</th><th>source</th></tr>")
    for r in results:
        parts.append(
            f"<tr><td><a href='#{esc(r.id)}'><code>{esc(r.id)}</code></a></td><td>{esc(r.kind)}</td>"
            f"<td class='v' style='color:{_HTML_COLORS[r.verdict]}'>{r.verdict}</td><td>{esc(_how(r))}</td><td>{esc(r.source)}</td></tr>"
        )
    parts.append("</table><h2>Details</h2>")
    for r in found + [r for r in results if r.verdict not in ("FAILS", "PARTIAL")]:
        if r.verdict not in ("FAILS", "PARTIAL") and not r.plot:
            continue
        parts.append(f"<div class='card' id='{esc(r.id)}'><h3 style='color:{_HTML_COLORS[r.verdict]}'>{r.verdict}: <code>{esc(r.id)}</code></h3>")
        parts.append(f"<p>{esc(r.title)} &mdash; {esc(r.source)}</p><p>Statement: <code>{esc(r.statement)}</code></p>")
        if r.counterexample:
            parts.append("<p>Counterexample: " + ", ".join(f"<code>{esc(k)} = {esc(v)}</code>" for k, v in r.counterexample.items()) + "</p>")
        if r.claimed is not None:
            a, b = value_labels(r)
            parts.append(f"<p>{esc(a.capitalize())} <code>{esc(str(r.claimed))}</code>, {esc(b)} <code>{esc(str(r.actual))}</code>, margin <code>{esc(str(r.margin))}</code></p>")
        if r.region:
            parts.append(f"<p>Region: {esc(r.region)}</p>")
        if r.detail:
            parts.append(f"<p>{esc(r.detail)}</p>")
        parts.append(_img(report_dir, r.plot))
        parts.append("</div>")
    parts.append("</body></html>")
    path.write_text("\n".join(parts))


__all__ = ["AuditResult", "VERDICTS", "counts", "counts_by_source", "findings", "value_labels", "print_table", "write_json", "write_markdown", "write_html"]
