r"""Griffe extension for the API reference: symdp's docstrings use a few reST habits
(``:math:`x```, ``.. math::``, ``:func:`name```, doctest blocks); mkdocstrings renders
Markdown. This rewrites them, only in docstrings, into what the site's Markdown understands:

- ``:math:`x``` -> ``$x$`` and ``.. math:: x`` -> ``$$x$$`` (pymdownx.arithmatex, then MathML at build time by ``mathml.py``);
- ``:func:`~a.b``` and the other cross-reference roles -> inline code (``b`` for ``~a.b``);
- a block of ``>>>`` lines with its output -> a fenced ``pycon`` code block.

The text is otherwise unchanged. The docstring's ``>>>`` examples are then *run* (``doctest``, in the
namespace of the object's module, with ``ELLIPSIS`` as under pytest) before the page shows them: a
failing or raising example is a warning naming the object, so ``mkdocs build --strict`` fails and
every example of the API reference has executed in the build.
"""

from __future__ import annotations

import doctest
import importlib
import logging
import re
from typing import Any

import griffe

log = logging.getLogger("mkdocs.ext.docstring_examples")

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


def run_examples(text: str, name: str, module: str, filename: str | None = None,
                 lineno: int | None = None) -> str | None:
    """Run the ``>>>`` examples of one docstring in ``module``'s namespace; the failure report, or None."""
    if ">>>" not in text:
        return None
    globs = dict(vars(importlib.import_module(module)))
    test = doctest.DocTestParser().get_doctest(text, globs, name, filename or module, lineno)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out: list[str] = []
    runner.run(test, out=out.append, clear_globs=True)
    return "".join(out) if runner.failures else None


class RstDocstrings(griffe.Extension):
    """Run the examples of every docstring griffe loads, then apply :func:`convert` to it."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[str] = set()

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        if obj.path not in self._seen:
            self._seen.add(obj.path)
            try:
                failure = run_examples(obj.docstring.value, obj.path, obj.module.path, str(obj.filepath),
                                       obj.docstring.lineno)
            except Exception as exc:  # noqa: BLE001 - the module does not import: a warning, not a crash
                failure = f"{type(exc).__name__}: {exc}"
            if failure:
                log.warning(f"docstring example of {obj.path} failed:\n{failure}")
        obj.docstring.value = convert(obj.docstring.value)
