r"""MkDocs hook: the site's formulas become MathML at build time, so a page renders them with no
network and no JavaScript.

``pymdownx.arithmatex`` (generic mode) leaves every formula of the pages, of the markdown-exec
outputs and of the docstrings (``$x$`` / ``$$x$$``, see ``rst_docstrings.py``) as
``<span class="arithmatex">\(x\)</span>`` or ``<div class="arithmatex">\[x\]</div>``. This hook
replaces each by the ``<math>`` element ``latex2mathml`` makes of it (display math with
``display="block"``). A formula it cannot convert (a syntax error, or a command it does not know,
which ``latex2mathml`` would otherwise pass through as text) is a warning naming the page and the
formula, so ``mkdocs build --strict`` fails instead of showing raw LaTeX.
"""

from __future__ import annotations

import html
import logging
import re
from typing import Any

from latex2mathml.converter import convert

log = logging.getLogger("mkdocs.hooks.mathml")

# arithmatex's generic-mode output; the LaTeX inside is HTML-escaped.
_SPAN = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.S)
_DIV = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.S)
# latex2mathml passes a command it does not know through as text: "\foo" inside a token element.
_LEFTOVER = re.compile(r"<(?:m[ions]|mtext)\b[^>]*>[^<]*?(\\[A-Za-z]+)")


class FormulaError(ValueError):
    """A formula latex2mathml cannot turn into MathML."""


def to_mathml(latex: str, *, block: bool = False) -> str:
    """The ``<math>`` element of ``latex`` (unescaped LaTeX); :class:`FormulaError` if it cannot be made."""
    try:
        out = convert(latex, display="block" if block else "inline")
    except Exception as exc:  # latex2mathml raises many unrelated types
        raise FormulaError(f"{type(exc).__name__} {exc}".strip()) from exc
    bad = _LEFTOVER.search(out)
    if bad:
        raise FormulaError(f"unknown command {bad.group(1)}")
    return out


def convert_html(text: str, where: str = "?") -> tuple[str, list[str]]:
    """Replace every arithmatex span/div of ``text`` by MathML; also return one message per failure."""
    problems: list[str] = []

    def sub(block: bool) -> Any:
        def repl(m: re.Match[str]) -> str:
            latex = html.unescape(m.group(1)).strip()
            try:
                math = to_mathml(latex, block=block)
            except FormulaError as exc:
                problems.append(f"{where}: formula not converted to MathML ({exc}): {latex}")
                return f'<code class="latex">{html.escape(latex)}</code>'
            tag = "div" if block else "span"
            return f'<{tag} class="arithmatex">{math}</{tag}>'

        return repl

    text = _DIV.sub(sub(True), text)
    text = _SPAN.sub(sub(False), text)
    return text, problems


def on_page_content(html_text: str, page: Any, **kwargs: Any) -> str:
    """MkDocs event: the page's HTML with its formulas as MathML (warnings for those that fail)."""
    out, problems = convert_html(html_text, where=page.file.src_uri)
    for p in problems:
        log.warning(p)
    return out
