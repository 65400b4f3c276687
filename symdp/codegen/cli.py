"""``symdp codegen [--check] [--out DIR]``."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command("codegen")
@click.option("--check", is_flag=True, help="exit non-zero, naming the stale files, if DIR differs from the library")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="output directory (default: the package's generated/)")
@click.option("--verbose", "-v", is_flag=True, help="list skipped entries with their reasons")
def codegen(check: bool, out: Path | None, verbose: bool) -> None:
    """Generate numpy/torch/mpmath kernels from the theorem library into generated/."""
    from . import generate

    out = out or generate.DEFAULT_OUT
    p = generate.plan()
    if check:
        stale = generate.check(out, planned=p)
        if stale:
            click.echo(f"generated/ is stale ({len(stale)} files); run `symdp codegen`:", err=True)
            for name in stale:
                click.echo(f"  {name}", err=True)
            sys.exit(1)
        click.echo(f"{out}: in sync ({len(p.kernels)} kernels, {len(p.skipped)} skipped)")
        return
    res = generate.write(out, planned=p)
    click.echo(f"{out}: {len(p.kernels)} kernels x 3 back-ends, {len(p.skipped)} skipped; "
               f"{len(res['written'])} files written, {len(res['removed'])} removed")
    if verbose:
        for s in p.skipped:
            click.echo(f"  skipped {s.theorem_id} ({s.side}): {s.reason}")
