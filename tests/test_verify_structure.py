"""Structure of ``symdp.verify`` (issue 12 item 6): one module per rung, a registry without import cycles.

- every verify module imports on its own (fresh ``symdp`` import state, one subprocess);
- the module-level imports inside ``symdp.verify`` form a DAG; the registry imports no oracle module;
- every oracle module registers into the one registry, and ``import symdp.verify`` fills it;
- the public API in ``symdp.verify.__all__`` resolves, and the engine keeps its backward-compatible names.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

VERIFY = Path(__file__).resolve().parents[1] / "symdp" / "verify"
ORACLE_MODULES = ("oracles", "oracles_pairs", "oracles_gaussian", "oracles_tradeoff", "composition", "fdp", "montecarlo",
                  "oracles_examples", "oracles_accounting")


def _modules() -> list[str]:
    mods = []
    for p in sorted(VERIFY.rglob("*.py")):
        rel = p.relative_to(VERIFY).with_suffix("")
        parts = [x for x in rel.parts if x != "__init__"]
        mods.append(".".join(["symdp", "verify", *parts]))
    return mods


def _resolve(module: str, is_pkg: bool, node: ast.ImportFrom) -> list[str]:
    """Absolute names of the symdp.verify modules a ``from ... import ...`` statement loads."""
    if node.level == 0:
        base = node.module or ""
    else:
        pkg = module.split(".") if is_pkg else module.split(".")[:-1]
        pkg = pkg[: len(pkg) - (node.level - 1)]
        base = ".".join(pkg + ([node.module] if node.module else []))
    known = set(_modules())
    out = [base] if base in known else []
    for a in node.names:  # ``from . import oracles`` loads a submodule
        cand = f"{base}.{a.name}"
        if cand in known:
            out.append(cand)
    return [m for m in out if m.startswith("symdp.verify")]


def _module_level_graph() -> dict[str, set[str]]:
    """module -> verify modules it imports at module level (function-local imports are deferred, not cycles)."""
    graph: dict[str, set[str]] = {}
    for p in sorted(VERIFY.rglob("*.py")):
        rel = p.relative_to(VERIFY).with_suffix("")
        is_pkg = rel.name == "__init__"
        mod = ".".join(["symdp", "verify", *[x for x in rel.parts if x != "__init__"]])
        tree = ast.parse(p.read_text())
        deps: set[str] = set()
        for node in tree.body:  # module level only (including ``if`` blocks at top level)
            stack = [node]
            while stack:
                n = stack.pop()
                if isinstance(n, ast.ImportFrom):
                    deps |= set(_resolve(mod, is_pkg, n))
                elif isinstance(n, ast.Import):
                    deps |= {a.name for a in n.names if a.name.startswith("symdp.verify")}
                elif isinstance(n, (ast.If, ast.Try)):
                    stack.extend(n.body + n.orelse + getattr(n, "finalbody", []))
                    for h in getattr(n, "handlers", []):
                        stack.extend(h.body)
        deps.discard(mod)
        # importing a submodule imports its parent packages first: those edges are implicit, not listed
        graph[mod] = {d for d in deps if not mod.startswith(d + ".")}
    return graph


def test_module_level_imports_form_a_dag() -> None:
    graph = _module_level_graph()
    # the package __init__ importing its own submodules is the intended direction (package -> modules);
    # a cycle is any path that returns to its start without going through a package __init__
    pkgs = {"symdp.verify", "symdp.verify.rungs"}
    g = {m: {d for d in ds if d not in pkgs} for m, ds in graph.items() if m not in pkgs}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for d in sorted(g.get(m, ())):
            if state.get(d) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(d):] + [d]))
            if state.get(d) is None:
                visit(d)
        path.pop()
        state[m] = 2

    for m in sorted(g):
        if m not in state:
            visit(m)


def test_registry_imports_no_oracle_and_oracles_import_registry() -> None:
    graph = _module_level_graph()
    reg = graph["symdp.verify.registry"]
    assert not {d for d in reg if d.split(".")[-1] in ORACLE_MODULES}, reg
    assert reg == set(), f"the registry should import nothing from symdp.verify: {reg}"
    for name in ("oracles", "montecarlo"):
        assert "symdp.verify.registry" in graph[f"symdp.verify.{name}"], name
    # the rungs and the dispatcher never import an oracle module at module level
    for mod, deps in graph.items():
        if mod.startswith("symdp.verify.rungs") or mod in ("symdp.verify.engine", "symdp.verify.core", "symdp.verify.compile"):
            bad = {d for d in deps if d.split(".")[-1] in ORACLE_MODULES}
            assert not bad, f"{mod} imports oracle modules {bad}"


def test_every_verify_module_imports_alone() -> None:
    mods = _modules()
    code = (
        "import importlib, sys\n"
        f"mods = {mods!r}\n"
        "bad = []\n"
        "for m in mods:\n"
        "    for k in [k for k in sys.modules if k == 'symdp' or k.startswith('symdp.')]:\n"
        "        del sys.modules[k]\n"
        "    try:\n"
        "        importlib.import_module(m)\n"
        "    except Exception as exc:\n"
        "        bad.append(f'{m}: {type(exc).__name__}: {exc}')\n"
        "print('\\n'.join(bad))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stdout + r.stderr


def test_import_verify_fills_the_registry() -> None:
    import symdp.verify as v
    from symdp.verify import registry

    assert v.ORACLES is registry.ORACLES
    # one oracle of each oracle module
    for name in ("kl_eps_dp", "optimal_composition", "gaussian_tradeoff", "wang_laplace_mean_mc"):
        assert name in v.ORACLES, name
        assert v.get_oracle(name).name == name
    with pytest.raises(Exception, match="no oracle named"):
        v.get_oracle("no_such_oracle")


def test_public_api_and_backward_compatible_names() -> None:
    import symdp.verify as v
    from symdp.verify import engine

    for name in v.__all__:
        assert hasattr(v, name), name
    for name in ("verify_theorem", "VerificationResult", "compile_expr", "sampling_box", "DEFAULT_RANGES", "time_limit",
                 "_oracle_functions", "_hyp_checker", "_is_quantity"):
        assert hasattr(engine, name), name
    assert v.oracle_functions is engine._oracle_functions
    assert len((VERIFY / "engine.py").read_text().splitlines()) < 150, "the dispatcher stays thin"
