"""One direction of dependency (issue 21): the import graph of ``symdp/`` has no cycle and never goes up a layer.

The layers are read from the table "module -> what it may import" in ``docs/design.md`` (section
"Layers"), the one place they are written down.  The graph is built with :mod:`ast` from every
``import`` / ``from ... import`` statement in every module: top level, inside functions and methods,
under ``if TYPE_CHECKING:`` and in ``try`` blocks alike.  No import is exempt: a ``TYPE_CHECKING``
import is never executed, but it still says which module knows about which, and symdp needs none
that goes up or closes a circle.

Two kinds of edge are not dependencies the code chooses and are left out, as Python's own mechanics:
a module's import of its own parent packages (importing ``symdp.audit.result`` runs
``symdp/audit/__init__.py`` first) -- the package ``__init__`` importing its submodules is the
package -> module direction and stays in the graph.  Imports by computed name
(``importlib.import_module(f"...")``: the lazy facades of ``symdp``, ``symdp.accountants`` and the
library's module list, and the generated kernels) cannot be read statically; they stay inside their
own package or go down to ``symdp.generated``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "symdp"
DESIGN = ROOT / "docs" / "design.md"


def _layer_table() -> dict[str, int]:
    """``{name: layer}`` from the markdown table of docs/design.md's "Layers" section."""
    text = DESIGN.read_text(encoding="utf-8")
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    table: dict[str, int] = {}
    for line in section.splitlines():
        m = re.match(r"^\|\s*(\d+)\s*\|([^|]*)\|", line)
        if m:
            for name in re.findall(r"`([^`]+)`", m.group(2)):
                assert name not in table, f"{name} is listed twice in the layer table"
                table[name] = int(m.group(1))
    assert table, "no layer table found in docs/design.md"
    return table


LAYERS = _layer_table()


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _resolve(module: str, is_pkg: bool, node: ast.ImportFrom) -> set[str]:
    """The symdp modules a ``from ... import ...`` statement loads."""
    if node.level:
        pkg = module.split(".") if is_pkg else module.split(".")[:-1]
        pkg = pkg[: len(pkg) - (node.level - 1)]
        base = ".".join(pkg + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    if base != "symdp" and not base.startswith("symdp."):
        return set()
    subs = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES}
    names_of_base = [a for a in node.names if f"{base}.{a.name}" not in MODULES]
    # ``from pkg import submodule`` loads the submodule (and pkg); ``from pkg import name`` reads pkg's namespace
    return subs | ({_known(base)} if names_of_base or not subs else set())


def _known(name: str) -> str:
    while name not in MODULES:
        name = name.rsplit(".", 1)[0]
    return name


def import_graph() -> dict[str, set[str]]:
    """module -> the symdp modules it imports anywhere in its text (minus its own parent packages)."""
    graph: dict[str, set[str]] = {}
    for mod, path in MODULES.items():
        is_pkg = path.name == "__init__.py"
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                deps |= {_known(a.name) for a in node.names if a.name == "symdp" or a.name.startswith("symdp.")}
            elif isinstance(node, ast.ImportFrom):
                deps |= _resolve(mod, is_pkg, node)
        deps.discard(mod)
        graph[mod] = {d for d in deps if not mod.startswith(d + ".")}
    return graph


def layer(module: str) -> int | None:
    """The layer of a dotted module name: the longest table name that is the module or a package above it."""
    rel = module.split(".", 1)[1] if "." in module else "__init__"
    best: tuple[int, int] | None = None
    for name, lay in LAYERS.items():
        dotted = name.replace("/", ".")
        if (rel == dotted or rel.startswith(dotted + ".")) and (best is None or len(dotted) > best[0]):
            best = (len(dotted), lay)
    return None if best is None else best[1]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_every_module_has_a_layer() -> None:
    missing = sorted(m for m in MODULES if layer(m) is None)
    assert not missing, f"add these modules to the layer table of docs/design.md: {missing}"
    stale = sorted(n for n in LAYERS if n != "__init__" and not any(
        m == "symdp." + n.replace("/", ".") or m.startswith("symdp." + n.replace("/", ".") + ".") for m in MODULES))
    assert not stale, f"the layer table of docs/design.md names modules that do not exist: {stale}"


def test_no_import_goes_up_a_layer() -> None:
    graph = import_graph()
    up = [f"{m} (layer {layer(m)}) imports {d} (layer {layer(d)})"
          for m in sorted(graph) for d in sorted(graph[m]) if (layer(d) or 0) > (layer(m) or 0)]
    assert not up, "imports from a lower layer to a higher one:\n" + "\n".join(up)


def test_no_import_cycle() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles (strongly connected modules):\n" + "\n".join(" <-> ".join(c) for c in found)


# ---------------------------------------------------------------- the checker itself catches what it must
def test_the_graph_sees_function_level_and_type_checking_imports(tmp_path: Path) -> None:
    src = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .verify import ledger\n"
        "def f():\n    from .audit.report import AuditResult\n    import symdp.cli\n"
    )
    tree = ast.parse(src)
    deps: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            deps |= _resolve("symdp.theorem", False, node)
        elif isinstance(node, ast.Import):
            deps |= {_known(a.name) for a in node.names if a.name.startswith("symdp")}
    assert deps == {"symdp.verify.ledger", "symdp.audit.report", "symdp.cli"}
    assert all((layer(d) or 0) > (layer("symdp.theorem") or 0) for d in deps)


def test_cycle_finder_finds_a_planted_circle() -> None:
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(g) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("module, expected", [
    ("symdp.theorem", 2), ("symdp.library.gdp", 3), ("symdp.codegen.kernels", 4), ("symdp.accountants.api", 5),
    ("symdp.verify.rungs.smt", 6), ("symdp.audit.report", 7), ("symdp.cli", 8), ("symdp", 8), ("symdp.limits", 1),
])
def test_layers_follow_the_design(module: str, expected: int) -> None:
    assert layer(module) == expected
