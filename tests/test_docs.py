r"""The documentation site renders its formulas offline (issue 20, item 4).

The site's formulas become MathML at build time (docs/_ext/mathml.py, a MkDocs hook). These tests
run that hook on every formula the sources hold: the LaTeX of the Markdown pages and the math of
every docstring in symdp/ (through the same reST -> Markdown -> arithmatex path the API reference
takes), and check that the configuration loads nothing from a CDN. The full build (about a minute;
the tutorials execute) is CI's `mkdocs build --strict` step.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

markdown = pytest.importorskip("markdown")
pytest.importorskip("mkdocs")
pytest.importorskip("pymdownx.arithmatex")
pytest.importorskip("latex2mathml")


def _ext(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"docs_ext_{name}", DOCS / "_ext" / f"{name}.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def mathml() -> ModuleType:
    return _ext("mathml")


def _render(md_text: str) -> str:
    """Markdown -> HTML with the site's arithmatex setting (generic mode)."""
    return markdown.markdown(md_text, extensions=["pymdownx.arithmatex", "pymdownx.superfences", "tables"],
                             extension_configs={"pymdownx.arithmatex": {"generic": True}})


def _assert_all_converted(mathml: ModuleType, html_text: str, where: str) -> int:
    out, problems = mathml.convert_html(html_text, where=where)
    assert not problems, "\n".join(problems)
    assert 'class="arithmatex">\\' not in out, f"{where}: raw LaTeX left"
    return out.count("<math ")


def test_inline_and_display_math_become_mathml(mathml: ModuleType) -> None:
    html_text = _render(r"Gap \(a \ge 1\) for \(\varepsilon < 1\) and" "\n\n"
                        r"$$\delta(\varepsilon) = \Phi\left(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\right)"
                        r" - e^{\varepsilon}\Phi\left(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\right)$$")
    out, problems = mathml.convert_html(html_text, where="x.md")
    assert not problems
    assert out.count('<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">') == 2
    assert out.count('display="block"') == 1
    assert "\\(" not in out and "\\[" not in out and "$$" not in out
    assert "<mo>&#x0003C;</mo>" in out and "&#x003B5;" in out  # the "<" and the epsilon of the first formula


@pytest.mark.parametrize("latex, reason", [
    (r"\foo{x} + 1", r"unknown command \foo"),       # latex2mathml would pass \foo through as text
    (r"x^{", "MissingSuperScriptOrSubscript"),        # a syntax error
    (r"\left( x", "ExtraLeftOrMissingRight"),
])
def test_unconvertible_formula_is_a_problem_naming_page_and_formula(mathml: ModuleType, latex: str,
                                                                    reason: str) -> None:
    html_text = _render(f"ok \\(x\\), bad \\({latex}\\)")
    out, problems = mathml.convert_html(html_text, where="tutorials/page.md")
    assert len(problems) == 1
    assert problems[0].startswith("tutorials/page.md: ") and reason in problems[0] and latex in problems[0]
    assert out.count("<math ") == 1  # the good one is still converted


def test_hook_warns_so_the_strict_build_fails(mathml: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    class _File:
        src_uri = "api/x.md"

    class _Page:
        file = _File()

    with caplog.at_level("WARNING", logger="mkdocs"):
        out = mathml.on_page_content(_render(r"\(\notacommand\)"), page=_Page())
    assert "<math" not in out
    (rec,) = [r for r in caplog.records if r.levelname == "WARNING"]
    assert rec.name.startswith("mkdocs.") and "api/x.md" in rec.getMessage() and r"\notacommand" in rec.getMessage()


def test_every_formula_of_the_pages_converts(mathml: ModuleType) -> None:
    n = 0
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text()
        if "\\(" in text or "\\[" in text or "$" in text:
            n += _assert_all_converted(mathml, _render(text), str(page.relative_to(DOCS)))
    assert n >= 10


def _docstrings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef))]
    return [d for d in (ast.get_docstring(n, clean=True) for n in nodes) if d]


def test_every_docstring_formula_converts(mathml: ModuleType) -> None:
    """The API reference's path: reST roles -> $...$ (rst_docstrings.py) -> arithmatex -> MathML."""
    pytest.importorskip("griffe")
    rst = _ext("rst_docstrings")
    n = 0
    for path in sorted((ROOT / "symdp").rglob("*.py")):
        for doc in _docstrings(path):
            md = rst.convert(doc)
            if "$" in md or "\\(" in md:
                n += _assert_all_converted(mathml, _render(md), str(path.relative_to(ROOT)))
    assert n >= 50


def test_no_cdn_and_no_mathjax_in_the_site_config() -> None:
    yml = (DOCS / "mkdocs.yml").read_text()
    assert not re.search(r"https?://", yml), "the site loads nothing from the network"
    assert "mathjax" not in yml.lower() and "cdn" not in yml.lower()
    assert re.search(r"^hooks:\n  - _ext/mathml\.py$", yml, re.M)
    assert re.search(r"^  font: false", yml, re.M), "Material's default font comes from Google Fonts"
    assert re.search(r"markdown-exec:\n\s+languages: \[\"python\"\]", yml), "pyodide.css imports from the network"
    assert not (DOCS / "javascripts" / "mathjax.js").exists()
    for page in DOCS.rglob("*.md"):
        assert not re.search(r"<(script|link)\b[^>]*(src|href)=\"?https?://", page.read_text()), page


def test_format_and_concept_pages_are_in_nav_and_execute() -> None:
    """Issue 20 item 4: theorem files, claim files, the mechanism algebra and the oracles have pages whose
    examples run during the build (markdown-exec), and the pages cite sources by author and year."""
    yml = (DOCS / "mkdocs.yml").read_text()
    for page in ("theorem-files", "claim-files", "mechanisms", "oracles"):
        assert re.search(rf":\s*reference/{page}\.md\s*$", yml, re.M), page
        text = (DOCS / "reference" / f"{page}.md").read_text()
        assert text.count('exec="on"') >= 3, page
        assert not re.search(r"(?<![\d.])00[0-9]\b|_[0-9a-f]{16}\.txt", text), f"{page}: an internal seed file number"


def test_docstring_examples_run_in_the_build() -> None:
    """The API reference's examples execute during the build: rst_docstrings.run_examples runs a docstring's
    >>> lines in its module's namespace and reports a wrong output or an exception (a strict-build warning)."""
    pytest.importorskip("griffe")
    run = _ext("rst_docstrings").run_examples
    assert run("no example here", "x", "symdp.symbols") is None
    assert run(">>> eps\nepsilon\n", "symdp.symbols", "symdp.symbols") is None  # the module's own names
    wrong = run(">>> eps\ndelta\n", "symdp.symbols", "symdp.symbols")
    assert wrong and "Expected:\n    delta" in wrong and "Got:\n    epsilon" in wrong
    raised = run(">>> 1/0\n", "symdp.symbols", "symdp.symbols")
    assert raised and "ZeroDivisionError" in raised
    ext = (DOCS / "_ext" / "rst_docstrings.py").read_text()
    assert "run_examples(obj.docstring.value" in ext and "log.warning" in ext
