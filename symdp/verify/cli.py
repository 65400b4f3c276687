"""``symdp verify``: run the ladder, write ``proofs/``, replay certificates, print the ledger."""

from __future__ import annotations

import json
import sys
import time

import click

from ..cli_types import SEED, IntParam
from ..rendering import clip


@click.command("verify")
@click.argument("ids", nargs=-1)
@click.option("--deep", is_flag=True, help="search longer (more random cases, larger interval budgets)")
@click.option("--replay", "do_replay", is_flag=True, help="re-check every saved certificate without re-deriving; exit 1 if any fails")
@click.option("--json", "as_json", is_flag=True, help="print the ledger as JSON (after verifying IDS, or as saved when none given with --json alone)")
@click.option("--no-write", is_flag=True, help="do not write proofs/ (the checkout's; installed: ./proofs)")
@click.option("--seed", default=0, type=SEED, help="seed of the random search")
@click.option("--quiet", is_flag=True, help="no progress bar")
@click.option("--workers", type=IntParam(1, 1024), default=None, help="local worker processes (default: all cores); results identical for any N")
@click.option("--scheduler", default=None, metavar="ADDRESS", help="run on this Dask scheduler (e.g. tcp://HOST:8786)")
@click.option("--no-cache", is_flag=True, help="ignore the verdict cache (user cache dir, $SYMDP_CACHE_DIR) and recompute")
@click.option("--theorems", "theorem_file", default=None, help="verify the theorems of this TOML theorem file (with "
              "--out DIR): the verifier and the exact-mechanism referee; results only in DIR")
@click.option("--out", "out_dir", default=None, help="with --theorems: the directory for ledger.json and LEDGER.md")
def verify(ids: tuple[str, ...], deep: bool, do_replay: bool, as_json: bool, no_write: bool, seed: int, quiet: bool,
           workers: int | None, scheduler: str | None, no_cache: bool, theorem_file: str | None,
           out_dir: str | None) -> list[str] | None:
    """Decide for each library entry how far it is established (PROVED / REFUTED / PARTIAL / SUPPORTED /
    UNCHECKED) and leave replayable evidence under proofs/; the command also records the audit's mechanism-level
    results in proofs/findings.json (read by `symdp audit --quick`)."""
    from .._paths import default_proofs_out

    if theorem_file is not None or out_dir is not None:  # a user's theorem file: never proofs/
        from ..referee import verify_file_cmd

        verify_file_cmd(theorem_file, out_dir, ids, seed=seed, deep=deep, as_json=as_json)
        return None
    from .ledger import load_ledger_file, proofs_dir, replay

    if do_replay:
        t0 = time.monotonic()
        rows = replay()
        bad = [r for r in rows if not r[1]]
        if as_json:
            click.echo(json.dumps([{"certificate": p, "ok": ok, "detail": m} for p, ok, m in rows], indent=1))
        else:
            for p, ok, m in rows:
                click.echo(f"{'ok  ' if ok else 'FAIL'} {p}: {m}")
            click.echo(f"{len(rows) - len(bad)}/{len(rows)} certificates hold ({time.monotonic() - t0:.1f}s)")
        if bad or not rows:
            if not rows:
                click.echo("no certificates found under " + str(proofs_dir()), err=True)
            sys.exit(1)
        return None
    if as_json and not ids and not deep:
        led = load_ledger_file()
        if led:
            click.echo(json.dumps({"version": 1, "entries": list(led.values())}, indent=1))
            return None
    from ..errors import InvalidParameterError, UnknownTheoremError
    from . import run

    t0 = time.monotonic()
    try:
        if scheduler:  # refuse an unreachable scheduler before any progress bar or work
            from ..parallel import connect

            connect(scheduler).close()
        results = run(list(ids) or None, deep=deep, write=not no_write, progress=not (quiet or as_json), seed=seed,
                      workers=workers, scheduler=scheduler, use_cache=not no_cache)
    except (UnknownTheoremError, InvalidParameterError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    elapsed = time.monotonic() - t0
    wrote = None if no_write else list(ids)  # returned to the command (symdp.cli), which records the audit's rows
    if as_json:
        click.echo(json.dumps({"version": 1, "entries": [r.ledger_entry() for r in results]}, indent=1))
        return wrote
    from rich.console import Console
    from rich.table import Table

    colour = {"PROVED": "green", "REFUTED": "red", "PARTIAL": "yellow", "SUPPORTED": "cyan", "UNCHECKED": "dim"}
    table = Table(title=f"symdp verify: {len(results)} entries in {elapsed:.1f}s")
    for col in ("id", "verdict", "rung", "certificate", "evidence"):
        table.add_column(col, overflow="fold")
    counts: dict[str, int] = {}
    for r in results:
        v = r.verdict.value
        counts[v] = counts.get(v, 0) + 1
        table.add_row(r.id, f"[{colour[v]}]{v}[/]", r.evidence.rung or "", r.evidence.certificate or "", clip(r.evidence.detail, 300))
    con = Console()
    con.print(table)
    con.print(", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + (f"; ledger written to {default_proofs_out()}" if not no_write else ""))
    return wrote
