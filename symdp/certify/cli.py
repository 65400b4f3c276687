"""``symdp certify``: train with DP-SGD and certify, or certify a model trained elsewhere.

    symdp certify                                   # digits + MLP + canaries, report in symdp-certificate/
    symdp certify --target-epsilon 2 --steps 5000   # stop at the budget
    symdp certify --from-hparams --noise-multiplier 1.1 --sample-rate 0.004 --steps 10000 --n 60000
    symdp certify --ledger ledger.json              # {"n": ..., "delta": ..., "ledger": [[sigma, q, steps], ...]}
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..errors import SymdpError


def _hidden(ctx, param, value: str) -> tuple[int, ...]:
    try:
        out = tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise click.BadParameter(f"{value!r} must be comma-separated integers, e.g. 64 or 128,64") from None
    if not out or min(out) < 1:
        raise click.BadParameter(f"{value!r} must list positive layer widths")
    return out


def _summary(cert: dict, paths: dict | None) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console(stderr=False)
    pr = cert["privacy"]
    t = Table(title=f"privacy at delta = {pr['delta']:.3g}")
    for c in ("accountant", "epsilon", "kind"):
        t.add_column(c)
    for e in pr["accountants"].values():
        kind = "upper bound" if e["is_upper_bound"] else ("approximation" if e["available"] else f"unavailable: {e['reason']}")
        t.add_row(e["label"], f"{e['epsilon']:.4g}" if e["epsilon"] is not None else "n/a", kind)
    con.print(t)
    g = Table(title="generalization (0-1 error)")
    for c in ("route", "applies", "bound", "verdicts"):
        g.add_column(c, overflow="fold")
    for e in cert["generalization"]:
        g.add_row(e["name"], "yes" if e["applies"] else "no",
                  f"{e['bound']:.4g} ({e['bound_kind']})" if e["bound"] is not None else "n/a",
                  ", ".join(f"{k}: {v}" for k, v in e["status"].items()) or "-")
    con.print(g)
    emp = cert.get("empirical")
    if emp:
        c = Table(title="measured vs certified")
        for col in ("check", "measured", "certified", "passed"):
            c.add_column(col, overflow="fold")
        c.add_row("test - train error", f"{emp['test_error'] - emp['train_error']:.4f}", "", "")
        for ch in emp["checks"]:
            c.add_row(ch["name"], f"{ch['lhs']:.4g}" if ch["lhs"] is not None else "n/a",
                      f"{ch['rhs']:.4g}" if ch["rhs"] is not None else "n/a",
                      {True: "yes", False: "NO", None: "n/a"}[ch["passed"]])
        con.print(c)
    if paths:
        con.print(f"certificate: {paths['json']}  report: {paths['markdown']}, {paths['html']}")


@click.command("certify")
@click.option("--from-hparams", is_flag=True, help="certify a model trained elsewhere from --noise-multiplier, "
              "--sample-rate, --steps, --n (no training)")
@click.option("--ledger", "ledger_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help='certify from a JSON ledger: {"n": N, "delta": D, "ledger": [[sigma, q, steps], ...]} (no training)')
@click.option("--noise-multiplier", type=float, default=2.0, show_default=True)
@click.option("--sample-rate", type=float, default=None, help="Poisson rate q (hparams mode; training uses --batch-size/n)")
@click.option("--n", "n", type=int, default=None, help="training-set size (hparams mode)")
@click.option("--train-error", type=float, default=None, help="0-1 training error of the released model (hparams mode)")
@click.option("--steps", type=int, default=800, show_default=True)
@click.option("--batch-size", type=int, default=64, show_default=True, help="expected Poisson batch size")
@click.option("--max-grad-norm", type=float, default=1.0, show_default=True, help="clipping norm C")
@click.option("--delta", type=float, default=1e-5, show_default=True)
@click.option("--lr", type=float, default=1.0, show_default=True)
@click.option("--momentum", type=float, default=0.0, show_default=True)
@click.option("--target-epsilon", type=float, default=None, help="stop before the odometer exceeds this epsilon")
@click.option("--canaries", type=int, default=200, show_default=True, help="mislabeled audit canaries (each in with prob 1/2)")
@click.option("--hidden", default="64", callback=_hidden, show_default=True, help="MLP hidden widths, e.g. 128,64")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--device", default=None, help="torch device (default: cuda if available, else cpu)")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="confidence of generalization bounds")
@click.option("--out", "outdir", type=click.Path(file_okay=False), default="symdp-certificate", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="print the certificate JSON to stdout")
@click.option("--threads", type=int, default=1, show_default=True,
              help="torch CPU threads during training (0: leave torch's default)")
@click.option("--no-progress", is_flag=True)
def certify(from_hparams, ledger_file, noise_multiplier, sample_rate, n, train_error, steps, batch_size, max_grad_norm,
            delta, lr, momentum, target_epsilon, canaries, hidden, seed, device, confidence, outdir, as_json,
            threads, no_progress) -> None:
    """Train with DP-SGD and certify privacy and generalization (or certify without training)."""
    from . import certificate as C

    try:
        if ledger_file is not None:
            spec = json.loads(Path(ledger_file).read_text())
            if not isinstance(spec, dict) or "ledger" not in spec or "n" not in spec:
                raise click.BadParameter('the ledger file must be {"n": N, "ledger": [[sigma, q, steps], ...]}',
                                         param_hint="--ledger")
            cert = C.certify_ledger(spec["ledger"], n=spec["n"], delta=spec.get("delta", delta), confidence=confidence,
                                    train_error=spec.get("train_error", train_error))
        elif from_hparams:
            missing = [o for o, v in (("--sample-rate", sample_rate), ("--n", n)) if v is None]
            if missing:
                raise click.UsageError(f"--from-hparams needs {', '.join(missing)}")
            cert = C.certify_hparams(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=steps, n=n,
                                     delta=delta, confidence=confidence, train_error=train_error)
        else:
            cfg = C.RunConfig(noise_multiplier=noise_multiplier, batch_size=batch_size, steps=steps,
                              max_grad_norm=max_grad_norm, delta=delta, lr=lr, momentum=momentum,
                              target_epsilon=target_epsilon, num_canaries=canaries, hidden=hidden, seed=seed,
                              device=device, confidence=confidence, progress=not no_progress and not as_json,
                              threads=threads or None)
            cert = C.run(cfg)
        paths = C.write_report(cert, outdir)
    except SymdpError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(cert, indent=1))
    else:
        _summary(cert, paths)
    failed = [c for c in (cert.get("empirical") or {}).get("checks", []) if c["passed"] is False
              and c["name"].startswith("empirical epsilon")]
    if failed:
        click.echo("error: the empirical lower bound on epsilon exceeds the certified upper bound", err=True)
        sys.exit(3)
