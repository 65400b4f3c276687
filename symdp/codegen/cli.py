"""``symdp codegen [--check] [--out DIR]`` and ``symdp codegen --theorems FILE --out DIR``."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command("codegen")
@click.option("--check", is_flag=True, help="exit non-zero, naming the stale files, if DIR differs from the library")
@click.option("--out", "out_text", type=click.Path(file_okay=False), default=None,
              help="output directory (default: generated/ of the source checkout, else ./generated; the library's own "
                   "kernels for --check; required with --theorems)")
@click.option("--theorems", "theorem_file", default=None,
              help="a TOML theorem file: write a standalone numpy/torch/mpmath module of its theorems into --out")
@click.option("--module", "module", default="user", help="with --theorems: module name suffix (default: user)")
@click.option("--verbose", "-v", is_flag=True, help="list skipped entries with their reasons")
def codegen(check: bool, out_text: str | None, theorem_file: str | None, module: str, verbose: bool) -> None:
    """Generate numpy/torch/mpmath kernels from the theorem library into generated/, or from a
    user theorem file into a directory of your own (--theorems FILE --out DIR)."""
    from ..errors import SymdpError
    from . import generate

    if out_text is not None and not out_text.strip():  # Path('') would be '.', the working directory
        click.echo("error: --out='' is empty; allowed: a directory of your own", err=True)
        sys.exit(2)
    out = Path(out_text) if out_text is not None else None

    if theorem_file is not None:
        try:
            if out is None:
                raise SymdpError("--theorems needs --out DIR; allowed: a directory of your own (user plans never "
                                 "write the library's generated/)")
            if check:
                raise SymdpError("--check compares the library's generated/; allowed: --theorems FILE --out DIR "
                                 "without --check")
            from ..theorem_file import load
            from .user import write_user

            ths = [pt.theorem for pt in load(theorem_file)]
            res = write_user(ths, out, module)
        except SymdpError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        click.echo(f"{out}: {res['kernels']} kernels x 3 back-ends from {theorem_file}; "
                   f"{len(res['written'])} files written, {len(res['skipped'])} skipped")
        if verbose:
            for tid, side, reason in res["skipped"]:
                click.echo(f"  skipped {tid} ({side}): {reason}")
        return
    from .. import _paths

    if out is None:  # --check compares the library's own kernels; writing never goes into an installed package
        out = generate.DEFAULT_OUT if check else _paths.default_generated_out()
    if not check:
        try:
            _paths.refuse_inside_package("out", out)
            proofs = _paths.shipped_proofs().resolve()
            if out.resolve() == proofs or proofs in out.resolve().parents:
                raise SymdpError(f"out={str(out)!r} is inside the library's proofs/ ({proofs}), which only "
                                 "`symdp verify` writes; allowed: generated/ or a directory of your own")
        except SymdpError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
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
