"""Rendering of formulas: LaTeX -> MathML for HTML pages and notebooks (``latex2mathml``, offline).

One home for it, low enough that :class:`~symdp.theorem.Theorem` (its notebook ``_repr_html_``),
the audit reports (:mod:`symdp.audit.render`) and the certificates (:mod:`symdp.certify.certificate`)
all use the same conversion.  No SymPy; ``latex2mathml`` is imported only when a formula is rendered.
"""

from __future__ import annotations

import html


def math_html(latex: str | None, fallback: str = "") -> str:
    """LaTeX as MathML (``latex2mathml``, offline); the escaped LaTeX in ``<code>`` if it cannot be converted."""
    if not latex:
        return f"<code>{html.escape(fallback)}</code>" if fallback else ""
    try:
        from latex2mathml.converter import convert

        return convert(latex, display="block")
    except Exception:  # noqa: BLE001 - an unconvertible formula is shown as LaTeX source, never dropped
        return f"<code class='latex'>{html.escape(latex)}</code>"


__all__ = ["math_html"]
