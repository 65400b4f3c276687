"""``symdp audit``: the main job. Audits every claim of the built-in library (or user claim files)."""

from __future__ import annotations

import datetime as _dt
import sys
import time
from pathlib import Path

import click

from ..cli_types import SEED, IntParam, RealParam
from ..errors import ClaimFileError, InvalidParameterError, SymdpError


@click.command("audit")
@click.argument("ids", nargs=-1)
@click.option("--claims", "claim_files", multiple=True, type=click.Path(dir_okay=False),
              help="audit the claims of this TOML file instead of the library (repeatable); `symdp oracles` lists the quantities a claim can name")
@click.option("--source", default=None, help="only library entries of this source key or id prefix")
@click.option("--out", "out_dir", default=None, type=click.Path(file_okay=False),
              help="directory for audit.md, audit.html, audit.json and plots/ (default: symdp-report for the library, "
                   "symdp-report-<claim file name> with --claims); an earlier run's report files there are replaced")
@click.option("--json", "json_path", default=None, type=click.Path(dir_okay=False), help="also write the JSON report here ('-' for stdout)")
@click.option("--quick", is_flag=True, help="reuse current verdicts from proofs/ledger.json, and the ledger rows' plots and the "
              "mechanism-level results in proofs/findings.json (both written by symdp verify); verify only stale or "
              "missing ones")
@click.option("--deep", is_flag=True, help="search longer for counterexamples")
@click.option("--no-plots", is_flag=True, help="skip matplotlib plots")
@click.option("--seed", default=0, show_default=True, type=SEED)
@click.option("--claim-seconds", type=RealParam(0, 86400, lo_open=True), default=120.0, show_default=True,
              help="claim files: time limit per claim; a claim past it is UNDECIDED (the audit goes on)")
@click.option("--run-seconds", type=RealParam(0, 7 * 86400, lo_open=True), default=1800.0, show_default=True,
              help="claim files: time limit per file; claims not started within it are UNDECIDED")
@click.option("--fail-on", type=click.Choice(["never", "refuted", "partial"]), default="never", show_default=True,
              help="exit 1 when a claim FAILS (refuted) or FAILS / holds only partly (partial)")
@click.option("--workers", type=IntParam(1, 1024), default=None,
              help="local worker processes (default: all cores); results identical for any N")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="run the audit on this Dask scheduler (e.g. tcp://HOST:8786) instead of local processes")
@click.option("--no-cache", is_flag=True, help="ignore the verdict cache (user cache dir, $SYMDP_CACHE_DIR) and recompute")
@click.option("--theorems", "theorem_file", default=None, type=click.Path(dir_okay=False),
              help="audit the theorems of this TOML theorem file as claims (verifier and exact-mechanism referee)")
def audit(ids, claim_files, source, out_dir, json_path, quick, deep, no_plots, seed, claim_seconds, run_seconds,
          fail_on, workers, scheduler, no_cache, theorem_file=None) -> None:
    """Audit bound claims: HOLDS (proved or supported), FAILS (counterexample), PARTIAL (where), UNDECIDED (why)."""
    from .engine import library_claims
    from .report import enrich, make_console, print_table, write_html, write_json, write_markdown

    if quick and deep:  # --quick's reused verdicts were not searched with --deep: the combination would mislead
        raise InvalidParameterError("--quick --deep: --quick reuses the verdicts recorded by `symdp verify` (searched "
                                    "without --deep) and --deep would reach only the stale ones; allowed: one of "
                                    "--quick or --deep")
    if theorem_file is not None:  # issue 22: a theorem file's theorems, audited like library entries
        from ..referee import apply_referee, audit_setup

        ids, workers, scheduler = audit_setup(theorem_file, ids, workers, scheduler)
        out_dir = out_dir if out_dir is not None else default_out_dir((theorem_file,))

    console = make_console(stderr=json_path == "-")
    if source is not None and not claim_files:
        _check_source(source)
    from .._io import atomic_dir, atomic_write_text

    if out_dir is not None and not str(out_dir).strip():  # Path('') is '.': the reports would land in the working dir
        raise click.BadParameter(f"{out_dir!r} is empty; allowed: a directory path", param_hint="'--out'")
    final = Path(out_dir if out_dir is not None else default_out_dir(claim_files))
    if final.exists() and not final.is_dir():
        raise click.BadParameter(f"{out_dir!r} exists and is not a directory", param_hint="'--out'")
    # built in a hidden staging directory; it appears at --out only when every report file is written,
    # so a refused input or a failed run leaves no (empty or partial) report directory
    with atomic_dir(final, owned=REPORT_FILES) as out:
        plots = not no_plots
        t0 = time.monotonic()
        try:
            theorems: dict = {}
            claim_of: dict[str, str] = {}
            if claim_files:
                from .claims import load_claims
                from .parallel import run_claim_file_audit  # --workers / --scheduler / cache (issue 15)

                results = []
                for f in claim_files:
                    for uc in load_claims(f).claims:  # parsed only (raises ClaimFileError before anything runs)
                        theorems[uc.theorem.id] = uc.theorem
                        claim_of[uc.theorem.id] = str(f)
                    results += run_claim_file_audit(f, workers=workers, scheduler=scheduler, use_cache=not no_cache,
                                                    deep=deep, seed=seed, plots=plots, report_dir=out,
                                                    claim_seconds=claim_seconds, run_seconds=run_seconds)
                title = "symdp audit of " + ", ".join(Path(f).name for f in claim_files)
            else:
                from ..library import get
                from ..parallel import prestart
                from .parallel import PRELOAD, run_library_audit  # --workers / --scheduler / cache (issue 15)

                prestart(workers, scheduler, PRELOAD)  # the workers' imports overlap the library build below
                ths = [get(i, with_evidence=False) for i in ids] if ids else library_claims(source)

                # --quick: current ledger verdicts are read (and plotted) in the workers, the rest verified there
                results = run_library_audit([t.id for t in ths], workers=workers, scheduler=scheduler,
                                            use_cache=not no_cache, deep=deep, seed=seed, plots=plots, report_dir=out,
                                            progress=sys.stderr.isatty(), quick=quick)
                order = {t.id: i for i, t in enumerate(ths)}
                results.sort(key=lambda r: order.get(r.id, len(order)))  # mechanism-level (algo.*) results last
                theorems = {t.id: t for t in ths}
                title = "symdp audit of the built-in theorem library"
                if theorem_file is not None:
                    apply_referee(results)
                    title = f"symdp audit of the theorems of {Path(theorem_file).name}"
            enrich(results, theorems, claim_of, options=_reproduce_options(
                final, out_dir is not None, deep=deep, quick=quick, seed=seed, claim_seconds=claim_seconds,
                run_seconds=run_seconds, theorem_file=theorem_file, claims=bool(claim_files)))
        except ClaimFileError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except SymdpError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        from .. import __version__, provenance

        meta = {
            "symdp": __version__,
            "provenance": provenance(),  # symdp version, generated-kernel hashes, git commit (uniform across artefacts)
            "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "claims": len(results),
            "mode": "quick (ledger reuse)" if quick else ("deep" if deep else "default"),
            "seconds": round(time.monotonic() - t0, 1),
        }
        write_json(results, out / "audit.json", meta=meta)
        write_markdown(results, out / "audit.md", title=title, meta=meta)
        write_html(results, out / "audit.html", title=title, meta=meta)
        if json_path == "-":
            click.echo((out / "audit.json").read_text())
        elif json_path:
            atomic_write_text(json_path, (out / "audit.json").read_text())
    print_table(results, title=title, console=console)
    console.print(f"reports: {final / 'audit.md'}, {final / 'audit.html'}, {final / 'audit.json'}")
    bad = {"never": (), "refuted": ("FAILS",), "partial": ("FAILS", "PARTIAL")}[fail_on]
    if any(r.verdict in bad for r in results):
        sys.exit(1)


def _reproduce_options(final: Path, out_given: bool, *, deep: bool, quick: bool, seed: int, claim_seconds: float,
                       run_seconds: float, theorem_file: str | None, claims: bool) -> str:
    """The options of this run that a finding's "reproduce" command must repeat (the report directory as given,
    the search depth, the seed, the time limits of claim files, the theorem file), shell-quoted."""
    import shlex

    opts: list[str] = []
    if theorem_file is not None:
        opts += ["--theorems", str(theorem_file)]
    if out_given:
        opts += ["--out", str(final)]
    opts += ["--deep"] if deep else (["--quick"] if quick else [])
    if seed != 0:
        opts += ["--seed", str(seed)]
    if claims and claim_seconds != 120.0:
        opts += ["--claim-seconds", f"{claim_seconds:g}"]
    if claims and run_seconds != 1800.0:
        opts += ["--run-seconds", f"{run_seconds:g}"]
    return " ".join(shlex.quote(o) for o in opts)


#: what an audit writes into its directory (an earlier run's copies are removed first)
REPORT_FILES = ("audit.md", "audit.html", "audit.json", "plots", "certificates")


def default_out_dir(claim_files: tuple[str, ...]) -> str:
    """``symdp-report`` for the library; ``symdp-report-<stem>`` for one claim file, ``-claims`` for several."""
    if not claim_files:
        return "symdp-report"
    if len(claim_files) == 1:
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in Path(claim_files[0]).stem)[:60]
        return f"symdp-report-{stem or 'claims'}"
    return "symdp-report-claims"


def _check_source(source: str) -> None:
    """``--source`` must name a source key or an id prefix of at least one claim: exit 2 with the choices."""
    from ..library import all_theorems

    ths = all_theorems(with_evidence=False)
    if any(t.source.paper == source or t.id.startswith(source) for t in ths):
        return
    keys = sorted({t.source.paper for t in ths})
    click.echo(f"error: --source={source!r} matches no library entry; valid sources: {', '.join(keys)} "
               "(or an id prefix such as 'he2021.')", err=True)
    sys.exit(2)
