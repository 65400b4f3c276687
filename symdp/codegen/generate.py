r"""Plan, render, write and check ``generated/``.

The generator walks the theorem library generically: every entry with
``formula_available`` and kind bound / definition / identity / comparison gets
an ``rhs`` kernel (and an ``lhs`` kernel when ``lhs`` is an expression of an
identity or a comparison) in three back-ends; anything it cannot print is
recorded in ``MANIFEST.json`` with the reason, never a crash.

Output is deterministic: library order of modules and entries, sorted keys,
a header per kernel naming the theorem id and :meth:`Theorem.expr_hash`.
"""

from __future__ import annotations

import builtins
import importlib
import json
import keyword
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from .. import _paths
from ..limits import time_limit
from ..theorem import Kind, Theorem
from .functions import to_elementary
from .printers import BACKENDS, UnsupportedExpression, print_block, print_expr
from .rewrite import rules_applied

__all__ = ["KernelSpec", "Skip", "plan", "render", "write", "check", "library_groups", "DEFAULT_OUT",
           "DEGENERATE", "kernel_expr"]

#: the repository's generated/ directory (installed as symdp.generated)
DEFAULT_OUT = _paths.shipped_generated()  # written by `symdp codegen` only from a source checkout

GENERATED_KINDS = (Kind.BOUND, Kind.DEFINITION, Kind.IDENTITY, Kind.COMPARISON)

#: degenerate parameter values handled explicitly when the domain reaches them
#: (symbol name -> value); sigma -> oo is the no-noise limit's opposite: infinite noise
DEGENERATE: dict[str, sp.Expr] = {
    "epsilon": sp.S.Zero, "epsilonprime": sp.S.Zero, "q": sp.S.Zero, "p": sp.S.Zero,
    "mu": sp.S.Zero, "delta": sp.S.One, "sigma": sp.S.Infinity,
}

MAX_SUM_TERMS = 256


@dataclass(frozen=True)
class KernelSpec:
    theorem_id: str
    side: str  # "rhs" | "lhs"
    name: str  # Python function name
    module: str  # library module name
    symbols: tuple[str, ...]
    hash: str
    expr: sp.Expr  # the expression as stated (after expanding finite sums)
    stable: sp.Expr  # after the stability pass and degenerate guards
    rules: tuple[str, ...]
    guards: tuple[str, ...] = ()  # "sym=value" degenerate points guarded explicitly


@dataclass(frozen=True)
class Skip:
    theorem_id: str
    side: str
    module: str
    hash: str
    reason: str


@dataclass
class Plan:
    kernels: list[KernelSpec] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ library walk
def library_groups() -> list[tuple[str, list[Theorem]]]:
    """(library module name, entries) in library order, from ``all_theorems(with_evidence=False)``."""
    from ..library import MODULES, all_theorems

    ths = all_theorems(with_evidence=False)
    owner: dict[str, str] = {}
    for name in MODULES:
        try:
            mod = importlib.import_module(f"symdp.library.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"symdp.library.{name}":
                continue
            raise
        for th in getattr(mod, "THEOREMS", ()):
            owner.setdefault(th.id, name)
    groups: dict[str, list[Theorem]] = {}
    for th in ths:
        groups.setdefault(owner.get(th.id, "misc"), []).append(th)
    order = [m for m in MODULES if m in groups] + sorted(m for m in groups if m not in MODULES)
    return [(m, groups[m]) for m in order]


def _expand_sums(expr: sp.Expr) -> sp.Expr:
    """Expand Sum/Product over numeric ranges; raise UnsupportedExpression otherwise."""
    def expand(e):
        for lim in e.limits:
            _, lo, hi = lim
            if not (lo.is_Integer and hi.is_Integer):
                raise UnsupportedExpression(f"{type(e).__name__} over a symbolic range ({sp.sstr(lim)})")
            if int(hi) - int(lo) + 1 > MAX_SUM_TERMS:
                raise UnsupportedExpression(f"{type(e).__name__} with more than {MAX_SUM_TERMS} terms")
        return e.doit()

    return expr.replace(lambda e: isinstance(e, (sp.Sum, sp.Product)), expand)


def _unsupported_reason(expr: sp.Expr) -> str | None:
    if expr.has(sp.Indexed, sp.IndexedBase):
        return "indexed symbols (IndexedBase) are not kernel arguments"
    if expr.has(sp.Integral):
        return "unevaluated Integral"
    if expr.has(sp.Order):
        return "contains an O() term"
    if expr.has(sp.Derivative):
        return "unevaluated Derivative"
    if any(not isinstance(s, sp.Symbol) for s in expr.free_symbols):
        return "free symbols that are not plain Symbols"
    return None


def _degenerate_guards(th: Theorem, expr: sp.Expr, stable: sp.Expr) -> tuple[sp.Expr, tuple[str, ...]]:
    """Add explicit branches at degenerate parameter values where the stable form is 0/0 or inf-inf.

    For each symbol of ``DEGENERATE`` whose value the domain box reaches (closure),
    substitute into the stable form; if that is undefined but the limit of the
    original expression is finite, return ``Piecewise((limit, sym == value), (stable, True))``.
    """
    box = th.domain_dict()
    guards = []
    for s in sorted(expr.free_symbols, key=lambda s: s.name):
        if s.name not in DEGENERATE or s not in box:
            continue
        val = DEGENERATE[s.name]
        lo, hi = box[s]
        if val is sp.S.Infinity:
            continue  # float inf inputs: handled by the printed formula (1/inf = 0), tested
        lo_f, hi_f = float(sp.N(lo)), float(sp.N(hi))
        reaches = lo_f <= float(val) <= hi_f or (val == 0 and 0.0 <= lo_f <= 1e-6)
        if not reaches:
            continue
        try:
            at = stable.subs(s, val)
        except Exception:  # noqa: BLE001 - sympy may raise on odd substitutions; then try the limit
            at = sp.nan
        if not at.has(sp.nan, sp.zoo):
            continue  # the stable form is defined there: no branch needed
        try:
            with time_limit(10):  # TimeLimitExceeded is a TimeoutError
                lim = sp.limit(expr, s, val, "+" if val == 0 else "-")
        except (TimeoutError, NotImplementedError, ValueError):
            continue
        if lim.has(sp.nan, sp.zoo, sp.oo, -sp.oo, sp.Limit):
            continue
        lim_stable, _ = rules_applied(lim)
        stable = sp.Piecewise((lim_stable, sp.Eq(s, val, evaluate=False)), (stable, True), evaluate=False)
        guards.append(f"{s.name}={val}")
    return stable, tuple(guards)


def kernel_expr(th: Theorem, side: str) -> sp.Expr | None:
    return th.rhs if side == "rhs" else th.lhs


def _sides(th: Theorem) -> list[str]:
    sides = ["rhs"]
    if th.kind in (Kind.IDENTITY, Kind.COMPARISON) and th.lhs is not None and not isinstance(th.lhs, sp.Symbol) \
            and isinstance(th.lhs, sp.Expr):
        sides.append("lhs")
    return sides


def _plan_one(th: Theorem, module: str, side: str) -> KernelSpec | Skip:
    h = th.expr_hash()

    def skip(reason: str) -> Skip:
        return Skip(th.id, side, module, h, reason)

    if not th.formula_available:
        return skip(f"formula unavailable: {th.unavailable_reason}")
    if th.kind not in GENERATED_KINDS:
        return skip(f"kind {th.kind.value} is not generated")
    expr = kernel_expr(th, side)
    if expr is None or not isinstance(expr, sp.Expr):
        return skip(f"{side} is not an expression")
    reason = _unsupported_reason(expr)
    if reason:
        return skip(reason)
    try:
        expr_x = _expand_sums(expr)
    except UnsupportedExpression as exc:
        return skip(str(exc))
    syms = sorted((s for s in expr_x.free_symbols if isinstance(s, sp.Symbol)), key=lambda s: s.name)
    names = [s.name for s in syms]
    if len(set(names)) != len(names):
        return skip("two symbols share a name")
    bad = [n for n in names if not n.isidentifier() or keyword.iskeyword(n) or n.startswith("_")]
    if bad:
        return skip(f"symbol names are not Python identifiers: {bad}")
    try:
        stable, rules = rules_applied(expr_x)
        stable, guards = _degenerate_guards(th, expr_x, stable)
        for b in BACKENDS:
            print_expr(stable, b, {s: s.name for s in syms})
    except UnsupportedExpression as exc:
        return skip(str(exc))
    except Exception as exc:  # noqa: BLE001 - the generator must not crash on one entry
        return skip(f"code generation failed: {type(exc).__name__}: {exc}")
    name = th.kernel_name + ("" if side == "rhs" else "__lhs")
    return KernelSpec(th.id, side, name, module, tuple(names), h, expr_x, stable, tuple(rules), guards)


def plan(groups: Sequence[tuple[str, Iterable[Theorem]]] | None = None) -> Plan:
    """Decide, for every entry and side, a kernel or a recorded skip."""
    if groups is None:
        groups = library_groups()
    out = Plan()
    for module, ths in groups:
        out.modules.append(module)
        for th in ths:
            for side in _sides(th):
                res = _plan_one(th, module, side)
                if isinstance(res, KernelSpec):
                    out.kernels.append(res)
                else:
                    out.skipped.append(res)
    return out


# ------------------------------------------------------------------ rendering
_PRELUDE = {
    "numpy": "import numpy as np\n\nfrom symdp import _special as sc\nfrom symdp.codegen import runtime as _rt\n",
    "torch": "import torch\n\nfrom symdp.codegen import runtime_torch as _rt\n",
    "mpmath": "import mpmath as mp\n\nfrom symdp.codegen import runtime as _rt\n",
}
_COERCE = {"numpy": "_rt.np_arg({0})", "mpmath": "_rt.mp_arg({0})"}


#: names the printed kernels use besides their arguments: a symbol of that name is renamed inside the body
_RESERVED = frozenset({"np", "sc", "torch", "mp", "math", "_rt"}) | frozenset(dir(builtins))


def _local(name: str) -> str:
    return f"_arg_{name}" if name in _RESERVED else name


def _render_kernel(k: KernelSpec, backend: str) -> str:
    # map by identity of the actual symbols (assumptions differ between Symbol('x') and Symbol('x', positive=True))
    # a symbol named like a module or helper the printed code uses (np, torch, mp, sc, math, a builtin) is renamed
    # inside the body; the signature keeps the public names, bound to the internal ones on the first line
    names = {s: _local(s.name) for s in k.stable.free_symbols if isinstance(s, sp.Symbol)}
    if k.symbols:
        temps, body = print_block(k.stable, backend, names)
    else:
        temps, body = [], print_expr(k.stable, backend, names)
    args = ", ".join(k.symbols)
    local = ", ".join(_local(a) for a in k.symbols)
    doc = f'    """{k.theorem_id} ({k.side}): {sp.sstr(k.expr)[:300].replace(chr(92), "/")}"""'
    lines = [
        f"# theorem: {k.theorem_id} | side: {k.side} | hash: {k.hash}",
        f"# rules: {', '.join(k.rules) if k.rules else 'none'}" + (f" | guards: {', '.join(k.guards)}" if k.guards else ""),
    ]
    if local != args:  # the public signature (names that shadow a module) only forwards to the body
        lines += [f"def {k.name}({args}):", doc, f"    return _{k.name}_body({args})", "", "",
                  f"def _{k.name}_body({local}):"]
    else:
        lines += [f"def {k.name}({args}):", doc]
    if k.symbols:
        if backend == "torch":
            lines.append(f"    {local}, = _rt.torch_args({local})")
        else:
            lines.append(f"    {local}, = " + "(" + ", ".join(_COERCE[backend].format(a) for a in map(_local, k.symbols)) + ",)")
    if backend == "numpy" and k.stable.has(sp.Piecewise):
        lines.append("    with np.errstate(all='ignore'):")
        lines.extend(f"        {t}" for t in temps)
        lines.append(f"        return {body}")
    elif backend == "numpy" and not k.symbols:
        lines.append(f"    return np.float64({body})")
    elif backend == "torch" and not k.symbols:
        lines.append(f"    return torch.tensor({body}, dtype=torch.float64)")
    else:
        lines.extend(f"    {t}" for t in temps)
        lines.append(f"    return {body}")
    return "\n".join(lines) + "\n"


def _render_module(module: str, backend: str, kernels: list[KernelSpec]) -> str:
    head = (f'"""Generated by `symdp codegen` from symdp.library.{module} ({backend} back-end). Do not edit."""\n\n'
            "# fmt: off\n" + _PRELUDE[backend])
    hashes = "HASHES = {\n" + "".join(f"    {k.name!r}: {k.hash!r},\n" for k in kernels) + "}\n"
    symbols = "SYMBOLS = {\n" + "".join(f"    {k.name!r}: {k.symbols!r},\n" for k in kernels) + "}\n"
    body = "\n\n".join(_render_kernel(k, backend) for k in kernels)
    return head + "\n" + hashes + symbols + "\n\n" + body


def module_file(backend: str, module: str) -> str:
    return f"{backend}_{module}.py"


def render(p: Plan) -> dict[str, str]:
    """File name -> text for the whole generated/ directory."""
    files: dict[str, str] = {
        "__init__.py": '"""Generated kernels: written only by `symdp codegen`; do not edit."""\n',
    }
    by_mod: dict[str, list[KernelSpec]] = {}
    for k in p.kernels:
        by_mod.setdefault(k.module, []).append(k)
    for module in p.modules:
        ks = by_mod.get(module, [])
        if not ks:
            continue
        for b in BACKENDS:
            files[module_file(b, module)] = _render_module(module, b, ks)
    entries: dict[str, dict] = {}
    for k in p.kernels:
        e = entries.setdefault(k.theorem_id, {"hash": k.hash, "module": k.module})
        e.setdefault("kernels", {})[k.side] = {
            "name": k.name,
            "symbols": list(k.symbols),
            "files": {b: module_file(b, k.module) for b in BACKENDS},
            "rules": list(k.rules),
            "guards": list(k.guards),
        }
    for s in p.skipped:
        e = entries.setdefault(s.theorem_id, {"hash": s.hash, "module": s.module})
        e.setdefault("skipped", {})[s.side] = s.reason
    manifest = {
        "generator": "symdp codegen",
        "backends": list(BACKENDS),
        "kernels": len(p.kernels),
        "skipped": len(p.skipped),
        "entries": {k: entries[k] for k in sorted(entries)},
    }
    files["MANIFEST.json"] = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    files[ACCOUNTING_META] = accounting_meta(p)
    return files


#: the data file the runtime accountants read instead of building the library (no SymPy at run time)
ACCOUNTING_META = "accounting_meta.json"


def accounting_meta(p: Plan) -> str:
    """What the accountants need from the library, as JSON: per entry its statement hash, the
    verdict recorded in ``proofs/ledger.json`` *for that hash* (``UNCHECKED`` when the ledger has no
    entry or a stale one) and its numpy/torch rhs kernel (module and function name, argument names).

    Written with the kernels, so ``symdp codegen --check`` fails when a kernel, a statement or a
    verdict changed without regenerating; :mod:`symdp.accountants._kernels` reads only this file.
    """
    from ..ledger_json import load_ledger

    ledger = load_ledger()
    entries: dict[str, dict] = {}

    def entry(tid: str, h: str) -> dict:
        rec = ledger.get(tid)
        ok = rec is not None and rec.get("hash") in (None, "", h)
        return entries.setdefault(tid, {"hash": h, "verdict": str(rec["verdict"]) if ok and rec else "UNCHECKED"})

    for k in p.kernels:
        e = entry(k.theorem_id, k.hash)
        if k.side == "rhs":
            e["kernel"] = {"module": k.module, "name": k.name, "symbols": list(k.symbols)}
    for s in p.skipped:
        entry(s.theorem_id, s.hash)
    meta = {"generator": "symdp codegen", "entries": {t: entries[t] for t in sorted(entries)}}
    return json.dumps(meta, indent=0, sort_keys=True) + "\n"


def _is_generated_name(name: str) -> bool:
    return name in ("MANIFEST.json", ACCOUNTING_META) or (name.endswith(".py") and name.split("_", 1)[0] in BACKENDS)


def write(out: Path | str = DEFAULT_OUT, groups=None, *, planned: Plan | None = None) -> dict[str, list[str]]:
    """Write generated/ (removing stale generated files); return {'written': [...], 'removed': [...]}."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = render(planned if planned is not None else plan(groups))
    written, removed = [], []
    from .._io import atomic_write_text  # a run killed mid-write never leaves a truncated kernel

    for name, text in files.items():
        path = out / name
        if not path.exists() or path.read_text() != text:
            atomic_write_text(path, text)
            written.append(name)
    for path in sorted(out.iterdir()):
        if path.is_file() and _is_generated_name(path.name) and path.name not in files:
            path.unlink()
            removed.append(path.name)
    return {"written": written, "removed": removed}


def check(out: Path | str = DEFAULT_OUT, groups=None, *, planned: Plan | None = None) -> list[str]:
    """Names of files in ``out`` that differ from what the library produces (missing, changed or extra)."""
    out = Path(out)
    files = render(planned if planned is not None else plan(groups))
    stale = []
    for name, text in files.items():
        path = out / name
        if not path.exists():
            stale.append(f"{name} (missing)")
        elif path.read_text() != text:
            stale.append(f"{name} (differs)")
    if out.exists():
        for path in sorted(out.iterdir()):
            if path.is_file() and _is_generated_name(path.name) and path.name not in files:
                stale.append(f"{path.name} (not produced by the library)")
    return stale


def elementary(expr: sp.Expr) -> sp.Expr:
    """``expr`` with every stability node rewritten to exp/log/erfc."""
    return to_elementary(expr)
