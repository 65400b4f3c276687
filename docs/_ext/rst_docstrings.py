r"""Griffe extension for the API reference: symdp's docstrings use a few reST habits
(``:math:`x```, ``.. math::``, ``:func:`name```, doctest blocks); mkdocstrings renders
Markdown. This rewrites them, only in docstrings, into what the site's Markdown understands:

- ``:math:`x``` -> ``$x$`` and ``.. math:: x`` -> ``$$x$$`` (pymdownx.arithmatex, then MathML at build time by ``mathml.py``);
- ``:func:`~a.b``` and the other cross-reference roles -> inline code (``b`` for ``~a.b``);
- a block of ``>>>`` lines with its output -> a fenced ``pycon`` code block.

The text is otherwise unchanged (nothing is executed or evaluated here).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_MATH = re.compile(r":math:`([^`]+)`")
_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj|const|ref|doc):`(~?)([^`]+)`")
_DIRECTIVE_MATH = re.compile(r"^(\s*)\.\. math::\s*(.*)$")


def _role(m: re.Match[str]) -> str:
    tilde, target = m.group(1), m.group(2)
    if "<" in target and target.endswith(">"):  # :ref:`text <target>`
        target = target.split("<", 1)[0].strip()
    shown = target.rsplit(".", 1)[-1] if tilde else target
    return f"`{shown}`"


def convert(text: str) -> str:
    """Rewrite one docstring (see the module docstring)."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        dm = _DIRECTIVE_MATH.match(line)
        if dm:
            indent, first = dm.group(1), dm.group(2)
            body = [first] if first else []
            i += 1
            while i < len(lines) and lines[i].strip() and (len(lines[i]) - len(lines[i].lstrip())) > len(indent):
                body.append(lines[i].strip())
                i += 1
            out += ["", f"{indent}$$", *(f"{indent}{b}" for b in body), f"{indent}$$", ""]
            continue
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].strip())
                i += 1
            out += ["", f"{indent}```pycon", *(f"{indent}{b}" for b in block), f"{indent}```", ""]
            continue
        line = _MATH.sub(lambda m: f"${m.group(1)}$", line)
        out.append(_ROLE.sub(_role, line))
        i += 1
    return "\n".join(out)


class RstDocstrings(griffe.Extension):
    """Apply :func:`convert` to every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = convert(obj.docstring.value)
