"""The ``symdp`` command.

Subcommands owned by sub-packages are loaded lazily (``symdp.<pkg>.cli``), so
``symdp list`` never imports torch or z3.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import TYPE_CHECKING

import click

from ._clierrors import OneLineErrors
from .errors import SymdpError, UnknownTheoremError

if TYPE_CHECKING:
    from .theorem import Theorem

#: subcommand name -> "module:attribute" of a click.Command
LAZY = {
    "codegen": "symdp.codegen.cli:codegen",
    "verify": "symdp.verify.cli:verify",
    "audit": "symdp.audit.cli:audit",
    "account": "symdp.accountants.cli:account",
    "calibrate": "symdp.accountants.cli:calibrate",
    "certify": "symdp.certify.cli:certify",
    "sweep": "symdp.sweep:sweep",
}


class LazyGroup(OneLineErrors):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(LAZY))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == "verify":
            return _verify_command()
        if name in LAZY:
            mod, attr = LAZY[name].split(":")
            try:
                return getattr(importlib.import_module(mod), attr)
            except (ModuleNotFoundError, AttributeError) as exc:
                raise click.ClickException(f"'symdp {name}' is not available in this build: {exc}") from exc
        return super().get_command(ctx, name)


def _verify_command() -> click.Command:
    """``symdp verify`` (:mod:`symdp.verify.cli`); when it wrote ``proofs/``, it also records the audit's
    mechanism-level results in ``proofs/findings.json`` (:func:`symdp.audit.parallel.record`, read by
    ``symdp audit --quick``).  The verifier sits below the audit, so the two meet here, in the command."""
    import copy

    try:
        from .verify.cli import verify as base
    except ModuleNotFoundError as exc:
        raise click.ClickException(f"'symdp verify' is not available in this build: {exc}") from exc
    cmd = copy.copy(base)
    inner = base.callback
    assert inner is not None

    def callback(**kw: object) -> None:
        if kw.get("do_replay") and not kw.get("as_json"):
            try:
                inner(**kw)
            finally:  # also after a failed replay's exit 1: the rows are not certificates, only reported
                _replay_findings_line()
            return
        ids = inner(**kw)
        if ids is None:  # --replay, --no-write, --theorems, or the saved ledger printed: proofs/ not written
            return
        from .audit.parallel import record

        quiet = bool(kw.get("quiet") or kw.get("as_json"))
        workers, scheduler = kw.get("workers"), kw.get("scheduler")
        got = record(list(ids) or None, workers=workers if isinstance(workers, int) else None,
                     scheduler=scheduler if isinstance(scheduler, str) else None, use_cache=not kw.get("no_cache"),
                     progress=not quiet)
        if got["path"] is not None:
            skipped = f"; not recorded (a time limit fired): {', '.join(got['skipped'])}" if got["skipped"] else ""
            click.echo(f"audit findings: {got['recorded']} rows ({got['computed']} computed) written to {got['path']}"
                       + skipped, err=bool(kw.get("as_json")))

    cmd.callback = callback
    return cmd


def _replay_findings_line() -> None:
    """``symdp verify --replay``: how many rows of ``proofs/findings.json`` are current for this code (they are
    results, not certificates: a stale one is recomputed by ``symdp audit --quick``, nothing fails)."""
    from .audit.engine import library_claims
    from .audit.parallel import recorded_current
    from .ledger_json import proofs_dir

    cur, total = recorded_current([t.id for t in library_claims()])
    click.echo(f"{proofs_dir() / 'findings.json'}: {cur}/{total} of the audit's recorded results (ledger rows with "
               "their plots, mechanism-level results) current for this code (symdp audit --quick reads these, "
               "computes the rest)")


@click.group(cls=LazyGroup)
@click.version_option(package_name="symdp")
def main() -> None:
    """symdp: executable, checkable theorems linking differential privacy and generalization."""


def _get_or_exit(id: str):
    from .library import get

    try:
        return get(id)
    except UnknownTheoremError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


@main.command("list")
@click.option("--source", default=None, help="only entries of this source key (e.g. he2021-uai, bu2020) or id prefix")
@click.option("--kind", default=None, help="only entries of this kind (bound, definition, comparison, ...)")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def list_cmd(source: str | None, kind: str | None, as_json: bool) -> None:
    """List the theorem library."""
    from .library import all_theorems
    from .theorem import Kind

    everything = all_theorems()
    kinds = [k.value for k in Kind]
    if kind is not None and kind not in kinds:
        click.echo(f"error: --kind={kind!r} is not a kind; valid kinds: {', '.join(kinds)}", err=True)
        sys.exit(2)
    ths = [t for t in all_theorems(source) if kind is None or t.kind.value == kind] if source else [
        t for t in everything if kind is None or t.kind.value == kind]
    if source is not None and not any(t.source.paper == source or t.id.startswith(source) for t in everything):
        keys = sorted({t.source.paper for t in everything})
        click.echo(f"error: --source={source!r} matches no entry; valid sources: {', '.join(keys)} "
                   "(or an id prefix such as 'he2021.')", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps([t.summary() for t in ths], indent=1))
        return
    from rich.markup import escape
    from rich.table import Table

    from .audit.report import make_console

    console = make_console()
    table = Table(title=f"symdp theorem library ({len(ths)} entries)")
    idw = max([len(t.id) for t in ths] + [2])
    table.add_column("id", no_wrap=True, min_width=min(idw, 60))
    table.add_column("kind", no_wrap=True)
    table.add_column("source", no_wrap=True)
    table.add_column("locator", overflow="fold", max_width=28)
    table.add_column("status", no_wrap=True)
    table.add_column("title", overflow="fold", ratio=1)
    for t in ths:
        table.add_row(*(escape(x) for x in (t.id, t.kind.value, t.source.paper, t.source.where(), t.status, t.title)))
    console.print(table)


@main.command("show")
@click.argument("id")
@click.option("--latex", is_flag=True, help="print the LaTeX statement only")
@click.option("--json", "as_json", is_flag=True)
def show_cmd(id: str, latex: bool, as_json: bool) -> None:
    """Show one entry: statement, hypotheses, provenance, status."""
    import sympy as sp

    th = _get_or_exit(id)
    if latex:
        click.echo(th.latex())
        return
    if as_json:
        click.echo(json.dumps(th.summary(), indent=1))
        return
    from .audit.citations import citation

    click.echo(f"{th.id}: {th.title}")
    click.echo(f"  kind:       {th.kind.value}")
    click.echo(f"  source:     {th.source.cite()}")  # the seed file name is provenance data, not for readers
    if th.source.paper in ("he2021-uai", "he2021-long", "lampert2026", "bu2020", "wang2016"):
        click.echo(f"  reference:  {citation(th.source.paper).text()}")
    if th.quantity:
        click.echo(f"  quantity:   {th.quantity}")
    if th.formula_available:
        st = th.statement()
        click.echo("  statement:")
        click.echo("    " + (sp.pretty(st, use_unicode=True).replace("\n", "\n    ") if st is not None else th.notes))
        if th.expansion is not None:
            ex = th.expansion
            click.echo(f"    + O(({ex.var} - {ex.point})^{ex.order}) as {ex.var} -> {ex.point}")
    else:
        click.echo(f"  statement:  unavailable ({th.unavailable_reason})")
    for h in th.hypotheses:
        click.echo(f"  assume:     {sp.sstr(h)}")
    for pr in th.premises:
        click.echo(f"  premise:    {pr}")
    if th.conclusion:
        click.echo(f"  conclusion: {th.conclusion}")
    if th.refs:
        click.echo(f"  refs:       {', '.join(th.refs)}")
    ev = th.evidence
    click.echo(f"  status:     {ev.verdict.value}" + (f" ({ev.rung})" if ev.rung else "") + (f": {ev.detail}" if ev.detail else ""))
    if th.notes:
        click.echo(f"  notes:      {th.notes}")


@main.command("oracles")
@click.argument("names", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def oracles_cmd(names: tuple[str, ...], as_json: bool) -> None:
    """List the verifier's oracles: name, shape, parameters and what each computes.

    A claim file names one as ``quantity = "<name>"`` (see ``examples/claims``); a
    ``profile`` oracle (e.g. ``gaussian_profile``) checks an (eps, delta) claim as
    delta(eps') <= delta'.
    """
    from .audit.catalog import oracle_catalog

    cat = oracle_catalog()
    if names:
        unknown = [n for n in names if n not in cat]
        if unknown:
            click.echo(f"error: unknown oracle {unknown[0]!r}; valid oracles: {', '.join(sorted(cat))}", err=True)
            sys.exit(2)
        cat = {n: cat[n] for n in names}
    if as_json:
        click.echo(json.dumps(list(cat.values()), indent=1))
        return
    from rich.markup import escape
    from rich.table import Table

    from .audit.report import make_console

    table = Table(title=f"symdp oracles ({len(cat)})")
    table.add_column("name", no_wrap=True)
    table.add_column("shape", no_wrap=True)
    table.add_column("parameters", overflow="fold", max_width=36)
    table.add_column("computes", overflow="fold", ratio=1)
    table.add_column("in claim files", overflow="fold", max_width=16)
    for o in cat.values():
        table.add_row(escape(o["name"]), o["shape"], escape(o["parameters_text"]), escape(o["computes"]),
                      escape(o["claim_files"]))
    console = make_console()
    console.print(table)
    console.print("In a claim file: kind = \"bound\", quantity = \"<name>\", claimed = \"<expression>\". A profile "
                  "oracle checks delta(eps) <= claimed at the claim's epsilon. `symdp oracles NAME --json` gives the usage.",
                  markup=False)


@main.command("derive")
@click.argument("id", required=False)
@click.option("--chain", "chain_ids", default=None, help="chain entries ID,ID,...: each conclusion feeds the next premise")
@click.option("--bind", "binds", multiple=True, help="NAME=NUMBER: substitute a value for a symbol of the chain")
@click.option("--series", "var", default=None, help="expand in this symbol (by name)")
@click.option("--rate", "rate_var", default=None, help="growth order (powers, logs, exponentials) in this symbol")
@click.option("--at", "point", default=None, help="point: oo, -oo, 0 or a decimal number (default 0; --rate: oo)")
@click.option("--order", "order", default="3", help="order of the remainder term (1..20)")
@click.option("--side", default="rhs", type=click.Choice(["rhs", "lhs"]))
@click.option("--param", default=None, help="with --chain: the conclusion parameter to expand (default: all)")
@click.option("--timeout", "timeout", default="20", help="seconds per SymPy computation (1..600); past it: unknown")
@click.option("--theorems", "theorem_file", default=None, help="a TOML theorem file whose theorems to register first")
@click.option("--compare", "compare_id", default=None,
              help="with ID and --rate VAR: is ID's bound O(this entry's bound) as VAR -> --at, and conversely")
@click.option("--json", "as_json", is_flag=True)
def derive_cmd(id: str | None, chain_ids: str | None, binds: tuple[str, ...], var: str | None, rate_var: str | None,
               point: str | None, order: str, side: str, param: str | None, timeout: str, theorem_file: str | None,
               compare_id: str | None, as_json: bool) -> None:
    """Simplify an entry, expand it (--series) or give its rate (--rate); or chain entries (--chain)
    into one closed form with every hypothesis, the provenance of each step and the weakest verdict."""
    try:
        res = _derive(id, chain_ids, binds, var, rate_var, point, order, side, param, timeout, theorem_file, compare_id)
    except SymdpError as exc:  # the library names its arguments (var=, at=, order=): the options are named instead
        click.echo(f"error: {_as_options(str(exc), var)}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(res, indent=1))
        return
    for k, v in res.items():
        if isinstance(v, list):
            click.echo(f"{k}:")
            for item in v:
                click.echo(f"  - {item if not isinstance(item, dict) else ', '.join(f'{a}: {b}' for a, b in item.items())}")
        elif isinstance(v, dict):
            click.echo(f"{k}:")
            for a, b in v.items():
                click.echo(f"  {a}: {b}")
        else:
            click.echo(f"{k}: {v}")


def _int_option(name: str, text: str, lo: int, hi: int) -> int:
    from .errors import InvalidParameterError

    t = text.strip()
    if not t.lstrip("-").isdigit() or len(t) > 12:
        raise InvalidParameterError(f"--{name} {text!r} is not an integer; allowed: {lo}..{hi}")
    v = int(t)
    if not lo <= v <= hi:
        raise InvalidParameterError(f"--{name} {v} is out of range; allowed: {lo}..{hi}")
    return v


def _parse_binds(binds: tuple[str, ...]) -> dict[str, float]:
    import math
    import re

    from .errors import InvalidParameterError

    out: dict[str, float] = {}
    for b in binds:
        name, sep, val = b.partition("=")
        name, val = name.strip(), val.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise InvalidParameterError(f"--bind {b!r} is not NAME=NUMBER; allowed: a symbol name, '=', a decimal number")
        if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", val) or len(val) > 40:
            raise InvalidParameterError(f"--bind {name}={val!r} is not a decimal number; allowed: a finite decimal number")
        x = float(val)
        if not math.isfinite(x):
            raise InvalidParameterError(f"--bind {name}={val!r} is not finite; allowed: a finite decimal number")
        out[name] = int(x) if re.fullmatch(r"[+-]?\d+", val) else x
    return out


def _compare(a: Theorem, b: Theorem, var: str | None, point: str, side: str, seconds: int) -> dict:
    """``symdp derive A --compare B --rate VAR --at P``: tri-state O-comparisons and both rates."""
    import sympy as sp

    from . import asymptotics
    from .errors import InvalidParameterError

    ea, eb = (t.rhs if side == "rhs" else t.lhs for t in (a, b))
    if ea is None or eb is None:
        raise InvalidParameterError(f"--compare: {a.id if ea is None else b.id} has no {side} formula")
    if var is None:
        raise InvalidParameterError("--compare needs --rate VAR; allowed: a symbol both bounds contain")
    sa = {s.name: s for s in ea.free_symbols if isinstance(s, sp.Symbol)}
    sb = {s.name: s for s in eb.free_symbols if isinstance(s, sp.Symbol)}
    if var not in sa or var not in sb:
        raise InvalidParameterError(f"--rate {var!r} is not a symbol of both bounds; allowed: {', '.join(sorted(set(sa) & set(sb)))}")
    # one symbol per name (the library's canonical symbols make this the identity)
    eb = eb.xreplace({sb[n]: sa[n] for n in sb if n in sa and sb[n] != sa[n]})
    p0 = asymptotics.parse_point(point)
    each = max(seconds / 4, 1.0)
    cmp = asymptotics.compare(ea, eb, sa[var], p0, seconds=each)
    return {"a": a.id, "b": b.id, "var": var, "at": sp.sstr(p0),
            "a_is_O_b": cmp["a_is_O_b"], "b_is_O_a": cmp["b_is_O_a"], "ratio_limit": cmp["ratio_limit"],
            "rate_a": asymptotics.rate(ea, sa[var], p0, seconds=each).describe(),
            "rate_b": asymptotics.rate(eb, sa[var], p0, seconds=each).describe()}


def _derive(id: str | None, chain_ids: str | None, binds: tuple[str, ...], var: str | None, rate_var: str | None,
            point: str | None, order_text: str, side: str, param: str | None, timeout_text: str,
            theorem_file: str | None, compare_id: str | None = None) -> dict:
    import sympy as sp

    from . import asymptotics
    from .errors import InvalidParameterError

    order = _int_option("order", order_text, 1, asymptotics.MAX_ORDER)
    seconds = _int_option("timeout", timeout_text, 1, 600)
    if theorem_file is not None:
        from .calculus import load_theorems

        load_theorems(theorem_file)
    if point is None:
        point = "oo" if rate_var is not None and var is None else "0"
    if (id is None) == (chain_ids is None):
        raise InvalidParameterError("give exactly one of ID or --chain ID,ID,...; allowed: `symdp derive ID` or "
                                    "`symdp derive --chain ID,ID`")
    if binds and chain_ids is None:
        raise InvalidParameterError("--bind needs --chain; allowed: --chain ID,ID --bind NAME=NUMBER")
    if chain_ids is None:
        from .library import get

        th = get(id)  # type: ignore[arg-type]
        asymptotics.parse_point(point)
        if compare_id is not None:
            return _compare(th, get(compare_id), rate_var, point, side, seconds)
        return asymptotics.derive(th, var=var, point=point, order=order, side=side, rate_var=rate_var,
                                  seconds=seconds)
    from .calculus import chain

    ids = [i.strip() for i in chain_ids.split(",") if i.strip()]
    if not ids or len(ids) > 20:
        raise InvalidParameterError(f"--chain {chain_ids!r} has {len(ids)} ids; allowed: 1..20 comma-separated ids")
    d = chain(ids, bind=_parse_binds(binds), seconds=max(float(seconds), 30.0))
    out = d.to_json()
    params = d.conclusion.params()
    if param is not None and param not in params:
        raise InvalidParameterError(f"--param {param!r} is not a parameter of {d.conclusion.kind}; "
                                    f"allowed: {', '.join(params)}")
    names = [param] if param else list(params)
    syms = {s.name: s for s in d.free_symbols}
    for opt, v in (("--series", var), ("--rate", rate_var)):
        if v is not None and v not in syms:
            raise InvalidParameterError(f"{opt} {v!r} is not a symbol of the chain; allowed: {', '.join(sorted(syms))}")
    p0 = asymptotics.parse_point(point)
    if var is not None:
        out["series"] = {}
        for n in names:
            try:
                out["series"][n] = sp.sstr(asymptotics.series(params[n], syms[var], p0, order, seconds=seconds))
            except (asymptotics.AsymptoticsTimeout, sp.PoleError, ValueError, NotImplementedError, TypeError):
                out["series"][n] = "unknown"
    if rate_var is not None:
        if p0 not in (sp.oo, sp.S.Zero):
            raise InvalidParameterError(f"--at {point!r} is not supported with --rate; allowed: oo, 0")
        out["rate"] = {n: d.rate(n, rate_var, sp.sstr(p0), seconds=seconds) for n in names}
    return out


def _as_options(msg: str, var: str | None) -> str:
    """A message of :func:`.asymptotics.derive` with its argument names (``var=``, ``at=``, ``order=``) replaced by
    the options of ``symdp derive`` (``var=`` is ``--series`` when it names that symbol, else ``--rate``; ``bind NAME=``
    is ``--bind NAME=``)."""
    import re

    if msg.startswith("bind "):  # calculus.chain's checks of the bound values: the --bind option
        return "--" + msg
    m = re.match(r"(var|at|order)=('[^']*'|\S+)(.*)", msg, re.S)
    if m is None:
        return msg
    name, value, rest = m.groups()
    opt = {"at": "--at", "order": "--order"}.get(name) or ("--series" if value == repr(var) else "--rate")
    return f"{opt} {value}{rest}"


def run() -> None:  # console-script entry with SymdpError -> exit 2
    try:
        main(standalone_mode=True)
    except SymdpError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    run()
