"""Rendering of audit findings: the terminal table (rich), the Markdown file and the self-contained HTML
page (mathematics as MathML, made offline by ``latex2mathml``).  What is rendered is assembled in
:mod:`.result`; :mod:`.report` re-exports both.
"""

from __future__ import annotations

import base64
import html
import os
import re
from pathlib import Path
from typing import Any

from .._io import atomic_write_text
from .citations import citation
from .result import (
    VERDICT_LEGEND,
    VERDICTS,
    AuditResult,
    _how,
    _short,
    _source_key,
    clean_text,
    counts,
    counts_by_source,
    findings,
    optional,
    source_line,
    summary,
    value_labels,
)

_COLORS = {"HOLDS": "green", "FAILS": "red", "PARTIAL": "yellow", "UNDECIDED": "bright_black"}
_HTML_COLORS = {"HOLDS": "#1b7f3b", "FAILS": "#b3261e", "PARTIAL": "#a86b00", "UNDECIDED": "#666"}


# ---------------------------------------------------------------------------- terminal
def terminal_width(console: Any = None) -> int:
    """The terminal's width on a TTY; 160 columns otherwise (logs, pipes) unless ``COLUMNS`` says."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) >= 40:
        return int(env)
    if console is not None and getattr(console, "is_terminal", False):
        return max(int(console.size.width), 60)
    return 160


def make_console(*, stderr: bool = False) -> Any:
    """A rich Console of :func:`terminal_width` columns (no soft wrapping of ids)."""
    from rich.console import Console

    probe = Console(stderr=stderr)
    return Console(stderr=stderr, width=terminal_width(probe))


def print_table(results: list[AuditResult], *, title: str = "symdp audit", console: Any = None) -> None:
    """The results as a table; ids are never split (no_wrap) and bracketed text is escaped, not read as markup."""
    from rich.markup import escape
    from rich.table import Table

    console = console or make_console()
    idw = max([len(r.id) for r in results] + [2])
    table = Table(title=title, show_lines=False, expand=False)
    table.add_column("id", no_wrap=True, min_width=min(idw, 60), overflow="ellipsis" if idw > 60 else "fold")
    table.add_column("kind", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("how / counterexample", overflow="fold", ratio=1)
    for r in results:
        color = _COLORS[r.verdict]
        table.add_row(escape(r.id), escape(r.kind), f"[{color}]{r.verdict}[/{color}]", escape(_how(r)[:400]))
    console.print(table)
    c = counts(results)
    console.print("  ".join(f"[{_COLORS[k]}]{k}: {v}[/{_COLORS[k]}]" for k, v in c.items()))
    console.print(summary(results), markup=False)


def _error_groups(results: list[AuditResult]) -> list[Any]:
    """Findings grouped by root cause (:func:`symdp.audit.severity.distinct_errors`); none without severities."""
    from .severity import distinct_errors

    if not any(optional(r, "severity") is not None for r in results):
        return []
    return distinct_errors(results)


# ---------------------------------------------------------------------------- Markdown
def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def write_markdown(results: list[AuditResult], path: Path, *, title: str, meta: dict[str, Any] | None = None) -> None:
    c = counts(results)
    lines = [f"# {title}", "", f"**Summary.** {summary(results)}", ""]
    if meta:
        lines += [f"- {k}: {_meta_value(v)}" for k, v in meta.items()] + [""]
    lines += ["| verdict | count | meaning |", "|---|---|---|"]
    lines += [f"| {k} | {v} | {_md_escape(VERDICT_LEGEND[k])} |" for k, v in c.items()] + [""]
    by_src = counts_by_source(results)
    lines += ["| source | " + " | ".join(VERDICTS) + " |", "|---|" + "---:|" * len(VERDICTS)]
    lines += [f"| {_md_escape(citation(src).short)} | " + " | ".join(str(n[v]) for v in VERDICTS) + " |"
              for src, n in by_src.items()] + [""]
    groups = _error_groups(results)
    if groups:
        from .severity import ERROR_RULE

        lines += ["## Errors of the papers", "", f"Rule: {ERROR_RULE}.", ""]
        for g in groups:
            head = "**Error of the paper**" if g.is_error else "Not an error of the paper"
            lines += [f"### {_md_escape(g.title)}", "", f"{head}. {_md_escape(clean_text(g.note))}", ""]
            lines += [f"- `{i}` ({role})" for i, role in g.entries] + [""]
    found = by_severity(findings(results))
    if found:
        lines += ["## Findings", "", "Most severe first.", ""]
        lines += [f"- {_md_badge(r)}**{r.verdict}** `{r.id}`: {_md_escape(r.title)} ({_md_escape(_how(r))})"
                  for r in found] + [""]
    lines += ["## All claims", ""]
    lines += ["| id | kind | verdict | how / counterexample | source |", "|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| `{r.id}` | {r.kind} | **{r.verdict}** | {_md_escape(_how(r))} | {_md_escape(source_line(r))} |")
    lines.append("")
    for src in by_src:
        rs = [r for r in found if _source_key(r) == src]
        if not rs:
            continue
        cit = citation(src)
        lines += [f"## {cit.short}", "", cit.text(), ""]
        for r in rs:
            lines += [f"### {r.verdict}: `{r.id}`", "", f"{r.title} — {source_line(r)}", ""]
            lines.append(f"Statement: $ {r.latex} $" if r.latex else f"Statement: `{r.statement}`")
            for name in ("severity", "root_cause_note", "origin", "reading", "quote"):
                v = optional(r, name) if name != "root_cause_note" else (optional(r, name) or optional(r, "root_cause"))
                if v is not None:
                    label = {"root_cause_note": "Root cause", "quote": "The paper"}.get(name, name.capitalize())
                    lines.append(f"\n{label}: {_md_escape(clean_text(str(v)))}")
            if r.compared:
                lines.append(f"\nCompared: {r.compared}")
            elif r.claimed is not None:
                a, b = value_labels(r)
                lines.append(f"\n{a.capitalize()}: `{r.claimed}`; {b}: `{r.actual}`; margin: `{r.margin}`")
            if r.counterexample:
                lines.append("\nCounterexample: " + ", ".join(f"`{k} = {v}`" for k, v in r.counterexample.items()))
            if r.region:
                lines.append(f"\nRegion: {r.region}")
            if optional(r, "region_map") is not None:
                lines.append(f"\nRegion map: {optional(r, 'region_map')}")
            if r.detail:
                lines.append(f"\nVerifier: {r.detail}")
            if r.reproduce:
                lines.append(f"\nReproduce: `{r.reproduce}`")
            if r.plot:
                lines.append(f"\n![plot of {r.id}]({r.plot})")
            if isinstance(r.extra, dict) and r.extra.get("region_plot"):
                lines.append(f"\n![region map of {r.id}]({r.extra['region_plot']})")
            lines.append("")
    atomic_write_text(path, "\n".join(lines))


# ---------------------------------------------------------------------------- HTML
def _meta_value(v: Any) -> str:
    """A metadata value for reading: dicts as ``key value`` pairs, long hex digests cut to 12 characters."""
    if isinstance(v, dict):
        return ", ".join(f"{k} {_meta_value(x)}" for k, x in v.items())
    s = str(v)
    return s[:12] if re.fullmatch(r"[0-9a-f]{32,}", s) else s


def math_html(latex: str | None, fallback: str = "") -> str:
    """LaTeX as MathML (``latex2mathml``, offline); the escaped LaTeX in ``<code>`` if it cannot be converted."""
    if not latex:
        return f"<code>{html.escape(fallback)}</code>" if fallback else ""
    try:
        from latex2mathml.converter import convert

        return convert(latex, display="block")
    except Exception:  # noqa: BLE001 - an unconvertible formula is shown as LaTeX source, never dropped
        return f"<code class='latex'>{html.escape(latex)}</code>"


def _img(report_dir: Path, rel: str | None, alt: str) -> str:
    if not rel:
        return ""
    p = report_dir / rel
    if not p.exists():
        return ""
    data = base64.b64encode(p.read_bytes()).decode()
    return f'<img class="plot" alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1180px;margin:2em auto;color:#222;line-height:1.45;padding:0 1em}
h1{font-size:1.6em} table{border-collapse:collapse;width:100%;font-size:.9em} td,th{border-bottom:1px solid #ddd;padding:.35em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4} code{font-size:.92em;background:#f6f6f6;padding:0 .2em}
.v{font-weight:700} .card{border:1px solid #ddd;border-radius:6px;padding:1em;margin:1em 0}
.counts span{display:inline-block;margin-right:1.2em;font-weight:600} img{max-width:100%}
table.all{table-layout:fixed} table.all col.id{width:24%} table.all col.kind{width:9%} table.all col.v{width:10%}
table.all col.how{width:39%} table.all col.src{width:18%}
td{overflow-wrap:anywhere} code{overflow-wrap:anywhere;white-space:pre-wrap}
ul.findings li{margin:.3em 0} table.src{width:auto} table.src td,table.src th{text-align:right} table.src td:first-child{text-align:left}
.summary{font-size:1.05em;background:#fbf7ee;border-left:4px solid #a86b00;padding:.6em 1em}
.cite{color:#444;font-size:.95em} .stmt{overflow-x:auto;overflow-y:hidden;padding:.3em 0}
math{font-size:1.15em;font-family:'STIX Two Math','Latin Modern Math','DejaVu Math TeX Gyre','Cambria Math',math}
dl.legend dt{font-weight:700;float:left;clear:left;width:7em} dl.legend dd{margin-left:7.5em;margin-bottom:.3em}
.kv b{display:inline-block;min-width:7em} details{margin-top:.5em;color:#555}
blockquote{border-left:3px solid #bbb;margin:.5em 0;padding:.2em .8em;color:#333;background:#fafafa;font-style:italic}
.sev-major{color:#b3261e;font-weight:700} .sev-minor{color:#a86b00} .sev-vacuous-only{color:#666} .sev-rounding{color:#666}
.errgroup h3{margin-bottom:.2em} .rule{color:#444}
.badge{display:inline-block;border-radius:3px;padding:0 .45em;margin-right:.4em;font-size:.8em;font-weight:700;border:1px solid currentColor}
"""


def by_severity(found: list[AuditResult]) -> list[AuditResult]:
    """Findings ordered most severe first (major, vacuous-only, minor, rounding, unlabelled), FAILS before
    PARTIAL within a severity, otherwise in their given order."""
    from .severity import SEVERITY_RANK

    def rank(r: AuditResult) -> tuple[int, int]:
        sev = optional(r, "severity")
        return SEVERITY_RANK.get(None if sev is None else str(sev), len(SEVERITY_RANK)), r.verdict != "FAILS"

    return sorted(found, key=rank)


def carded(results: list[AuditResult], found: list[AuditResult], src: str) -> list[AuditResult]:
    """The results of source ``src`` that get a card in the HTML report: its findings, then its plotted claims."""
    return [r for r in found if _source_key(r) == src] + [
        r for r in results if _source_key(r) == src and r.verdict not in ("FAILS", "PARTIAL") and r.plot]


def _md_badge(r: AuditResult) -> str:
    sev = optional(r, "severity")
    return "" if sev is None else f"[{sev}] "


def _badge(r: AuditResult) -> str:
    sev = optional(r, "severity")
    return "" if sev is None else f"<span class='badge sev-{html.escape(str(sev))}'>{html.escape(str(sev))}</span> "


def write_html(results: list[AuditResult], path: Path, *, title: str, meta: dict[str, Any] | None = None) -> None:
    """A self-contained page (CSS inline, formulas as MathML, plots embedded as base64 PNG)."""
    report_dir = path.parent
    c = counts(results)
    esc = html.escape
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title><style>{_CSS}</style></head><body>"]
    parts.append(f"<h1>{esc(title)}</h1>")
    parts.append(f"<p class='summary' id='summary'>{esc(summary(results))}</p>")
    if meta:
        parts.append("<p class='meta'>" + " &middot; ".join(f"{esc(str(k))}: {esc(_meta_value(v))}" for k, v in meta.items()) + "</p>")
    parts.append("<p class='counts'>" + "".join(
        f"<span style='color:{_HTML_COLORS[k]}'>{k}: {v}</span>" for k, v in c.items()) + "</p>")
    parts.append("<h2>Verdict legend</h2><dl class='legend' id='legend'>" + "".join(
        f"<dt style='color:{_HTML_COLORS[k]}'>{k}</dt><dd>{esc(v)}</dd>" for k, v in VERDICT_LEGEND.items()) + "</dl>")
    by_src = counts_by_source(results)
    found = by_severity(findings(results))
    cards = {src: carded(results, found, src) for src in by_src}
    with_card = {r.id for rs in cards.values() for r in rs}

    def link(rid: str) -> str:  # a link only where the page has the card it points to
        code = f"<code>{esc(rid)}</code>"
        return f"<a href='#{esc(rid)}'>{code}</a>" if rid in with_card else code

    parts.append("<h2>By source</h2><table class='src'><tr><th>source</th>" + "".join(f"<th>{v}</th>" for v in VERDICTS) + "</tr>")
    for src, n in by_src.items():
        parts.append(f"<tr><td><a href='#src-{esc(src)}'>{esc(citation(src).short)}</a></td>"
                     + "".join(f"<td>{n[v]}</td>" for v in VERDICTS) + "</tr>")
    parts.append("</table>")
    groups = _error_groups(results)
    if groups:
        from .severity import ERROR_RULE

        parts.append(f"<h2 id='errors'>Errors of the papers</h2><p class='rule'>Rule: {esc(ERROR_RULE)}.</p>")
        for g in groups:
            head = "<b>Error of the paper.</b>" if g.is_error else "Not an error of the paper."
            parts.append(f"<div class='errgroup'><h3>{esc(g.title)}</h3><p>{head} {esc(clean_text(g.note))}</p><ul>"
                         + "".join(f"<li>{link(i)} ({esc(role)})</li>" for i, role in g.entries)
                         + "</ul></div>")
    if found:
        parts.append("<h2>Findings</h2><p class='rule'>Most severe first.</p><ul class='findings'>")
        for r in found:
            parts.append(
                f"<li>{_badge(r)}<span class='v' style='color:{_HTML_COLORS[r.verdict]}'>{r.verdict}</span> "
                f"{link(r.id)}: {esc(r.title)} <br><small>{esc(_how(r))}</small></li>"
            )
        parts.append("</ul>")
    parts.append("<h2>All claims</h2>")
    parts.append("<table class='all'><colgroup><col class='id'><col class='kind'><col class='v'><col class='how'><col class='src'></colgroup>"
                 "<tr><th>id</th><th>kind</th><th>verdict</th><th>how / counterexample</th><th>source</th></tr>")
    for r in results:
        parts.append(
            f"<tr><td>{link(r.id)}</td><td>{esc(r.kind)}</td>"
            f"<td class='v' style='color:{_HTML_COLORS[r.verdict]}'>{r.verdict}</td><td>{esc(_how(r))}</td><td>{esc(source_line(r))}</td></tr>"
        )
    parts.append("</table>")
    parts.append("<h2>Details by source</h2>")
    for src in by_src:
        rs = cards[src]
        cit = citation(src)
        parts.append(f"<section class='source' id='src-{esc(src)}'><h3>{esc(cit.short)}</h3><p class='cite'>{esc(cit.text())}")
        for label, url in cit.links():
            parts.append(f" <a href='{esc(url)}'>{esc(label)}</a>")
        parts.append("</p>")
        if not rs:
            parts.append("<p>No findings and no plots for this source.</p></section>")
            continue
        for r in rs:
            parts.append(_card(r, report_dir))
        parts.append("</section>")
    parts.append("</body></html>")
    atomic_write_text(path, "\n".join(parts))


def _card(r: AuditResult, report_dir: Path) -> str:
    esc = html.escape
    p = [f"<div class='card finding' id='{esc(r.id)}'><h4 style='color:{_HTML_COLORS[r.verdict]}'>{r.verdict}: <code>{esc(r.id)}</code></h4>"]
    p.append(f"<p>{esc(r.title)} &mdash; <span class='cite'>{esc(source_line(r))}</span></p>")
    if r.latex or r.kind not in ("algorithm", "experiment"):
        p.append("<div class='stmt'>" + math_html(r.latex, r.statement) + "</div>")
    else:  # a claim about a run of an algorithm, stated in words
        p.append(f"<p class='stmt-text'><b>claim</b> {esc(r.statement)}</p>")
    quote = optional(r, "quote")
    if quote is not None:  # the paper's words; a leading seed-file number ("000 Thm 4: ...") is ours, not the paper's
        p.append(f"<blockquote>{esc(re.sub(r'^[0-9]{3}[ :]+', '', str(quote)))}</blockquote>")
    kv = []
    sev = optional(r, "severity")
    if sev is not None:
        why = optional(r, "severity_why")
        kv.append(f"<b>severity</b> <span class='sev sev-{esc(str(sev))}'>{esc(str(sev))}</span>" + (f" ({esc(str(why))})" if why else ""))
    rc = optional(r, "root_cause_note") or optional(r, "root_cause")
    if rc is not None:
        kv.append(f"<b>root cause</b> {esc(clean_text(str(rc)))}")
    for name in ("origin", "reading"):
        v = optional(r, name)
        if v is not None:
            kv.append(f"<b>{esc(name)}</b> {esc(clean_text(str(v)))}")
    if r.compared:
        kv.append(f"<b>compared</b> {esc(r.compared)}")
    elif r.claimed is not None:
        a, b = value_labels(r)
        kv.append(f"<b>values</b> {esc(a)} {esc(_short(r.claimed))}, {esc(b)} {esc(_short(r.actual))}")
    if r.counterexample:
        kv.append("<b>counterexample</b> " + ", ".join(f"<code>{esc(k)} = {esc(str(v))}</code>" for k, v in r.counterexample.items()))
    if r.region:
        kv.append(f"<b>region</b> {esc(r.region)}")
    rmap = optional(r, "region_map")
    if rmap is not None:
        kv.append(f"<b>region map</b> {esc(str(rmap))}")
    if r.verdict == "HOLDS":
        kv.append(f"<b>how</b> {esc(_how(r))}")
    if r.reproduce:
        kv.append(f"<b>reproduce</b> <code>{esc(r.reproduce)}</code>")
    p.append("<p class='kv'>" + "<br>".join(kv) + "</p>")
    p.append(_img(report_dir, r.plot, f"plot of {r.id}"))
    p.append(_img(report_dir, r.extra.get("region_plot") if isinstance(r.extra, dict) else None, f"region map of {r.id}"))
    if r.detail:
        p.append(f"<details><summary>verifier log</summary><p>{esc(r.detail)}</p></details>")
    p.append("</div>")
    return "".join(p)

