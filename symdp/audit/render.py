"""Rendering of audit findings: the terminal table (rich), the Markdown file and the self-contained HTML
page (mathematics as MathML, made offline by ``latex2mathml``).  What is rendered is assembled in
:mod:`.result`; :mod:`.report` re-exports both.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import Any

from .._io import atomic_write_text
from ..rendering import clip
from ..rendering import math_html as math_html
from .citations import citation
from .finding import (
    _HTML_COLORS,
    VERDICT_LEGEND,
    VERDICTS,
    AuditResult,
    _how,
    _md_escape,
    clean_text,
    finding_html,
    finding_markdown,
    optional,
    source_line,
)
from .result import _source_key, counts, counts_by_source, findings, summary

_COLORS = {"HOLDS": "green", "FAILS": "red", "PARTIAL": "yellow", "UNDECIDED": "bright_black"}


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
        table.add_row(escape(r.id), escape(r.kind), f"[{color}]{r.verdict}[/{color}]", escape(clip(_how(r), 400)))
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
            lines += finding_markdown(r)
    atomic_write_text(path, "\n".join(lines))


# ---------------------------------------------------------------------------- HTML
def _meta_value(v: Any) -> str:
    """A metadata value for reading: dicts as ``key value`` pairs, long hex digests cut to 12 characters."""
    if isinstance(v, dict):
        return ", ".join(f"{k} {_meta_value(x)}" for k, x in v.items())
    s = str(v)
    return s[:12] if re.fullmatch(r"[0-9a-f]{32,}", s) else s


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
.plot-skipped{color:#555;background:#f6f6f6;border:1px dashed #bbb;border-radius:4px;padding:.5em .8em}
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


def _label(r: AuditResult) -> str | None:
    """The severity, with 'symdp check' beside it for symdp's own checks (not findings of the paper)."""
    sev = optional(r, "severity")
    if sev is None:
        return None
    return f"{sev}, symdp check, not a claim of the paper" if optional(r, "origin") == "symdp" else str(sev)


def _md_badge(r: AuditResult) -> str:
    lab = _label(r)
    return "" if lab is None else f"[{lab}] "


def _badge(r: AuditResult) -> str:
    sev, lab = optional(r, "severity"), _label(r)
    return "" if lab is None else f"<span class='badge sev-{html.escape(str(sev))}'>{html.escape(lab)}</span> "


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
            parts.append(finding_html(r, report_dir))
        parts.append("</section>")
    parts.append("</body></html>")
    atomic_write_text(path, "\n".join(parts))
