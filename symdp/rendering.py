"""Rendering for readers: LaTeX -> MathML for HTML pages and notebooks (``latex2mathml``, offline), and
:func:`clip`, the one way a reader's text is shortened (at a word boundary, never mid-word).

One home for both, low enough that :class:`~symdp.theorem.Theorem` (its notebook ``_repr_html_``),
the audit reports (:mod:`symdp.audit.render`), the calculus, the verifier and the certificates
(:mod:`symdp.certify.certificate`) all use them.  No SymPy; ``latex2mathml`` is imported only when a
formula is rendered.
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


def clip(text: str, limit: int) -> str:
    """``text`` of at most ``limit`` characters, cut at a word boundary with " ..." (never mid-word); unchanged
    when it fits.  A single word longer than ``limit`` is cut with "..." (nothing else can be done)."""
    if len(text) <= limit:
        return text
    head = text[: max(limit - 4, 1)]
    cut = head.rfind(" ")
    if cut > 0:
        return head[:cut].rstrip(" ,;:") + " ..."
    return head.rstrip() + "..."


__all__ = ["clip", "math_html"]
