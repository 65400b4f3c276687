"""``symdp certify``: train with DP-SGD and certify, or certify a model trained elsewhere.

    symdp certify                                   # digits + MLP + canaries, report in symdp-certificate/
    symdp certify --target-epsilon 2 --steps 5000   # stop at the budget
    symdp certify --from-hparams --noise-multiplier 1.1 --sample-rate 0.004 --steps 10000 --n 60000
    symdp certify --ledger ledger.json              # {"n": ..., "delta": ..., "ledger": [[sigma, q, steps], ...]}
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import click

from ..cli_types import COUNT, POSITIVE, PROBABILITY_OPEN, RATE, SEED, UNIT_CLOSED, IntParam, RealParam
from ..errors import SymdpError

#: limits of a --ledger file
LEDGER_MAX_BYTES = 10_000_000
LEDGER_MAX_SEGMENTS = 100_000
LEDGER_MAX_DEPTH = 8
_LEDGER_SHAPE = '{"n": N, "delta": D (optional), "train_error": E (optional), "ledger": [[sigma, q, steps], ...]}'
_DEVICE_RE = re.compile(r"^(cpu|cuda(:[0-9]{1,2})?|mps)$")


def _hidden(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        out = tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise click.BadParameter(f"{value[:40]!r} must be comma-separated integers in [1, 100000], e.g. 64 or 128,64") from None
    if not out or len(out) > 16 or min(out) < 1 or max(out) > 100_000:
        raise click.BadParameter(f"{value[:40]!r} must list 1 to 16 layer widths in [1, 100000]")
    return out


def _device(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    if not _DEVICE_RE.match(value):
        raise click.BadParameter(f"{value[:40]!r} is not a device; allowed: cpu, cuda, cuda:N, mps")
    return value


def _depth(obj: Any, limit: int) -> int:
    """Nesting depth of parsed JSON, stopping early past ``limit``."""
    stack = [(obj, 1)]
    best = 0
    while stack:
        o, d = stack.pop()
        best = max(best, d)
        if best > limit:
            return best
        if isinstance(o, dict):
            stack.extend((v, d + 1) for v in o.values())
        elif isinstance(o, list):
            stack.extend((v, d + 1) for v in o)
    return best


def _bad_ledger(path: str, why: str) -> click.BadParameter:
    return click.BadParameter(f"{path!r}: {why}; expected {_LEDGER_SHAPE}", param_hint="'--ledger'")


def _real_field(path: str, name: str, v: Any, lo: float, hi: float, lo_open: bool, hi_open: bool) -> float:
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    if ok:
        ok = (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)
    if not ok:
        rng = f"{'(' if lo_open else '['}{lo:g}, {'inf' if math.isinf(hi) else f'{hi:g}'}{')' if hi_open else ']'}"
        raise _bad_ledger(path, f"{name}={v!r:.40} is outside the allowed range {rng}")
    return float(v)


def _int_field(path: str, name: str, v: Any, lo: int, hi: int) -> int:
    if isinstance(v, float) and math.isfinite(v) and v == math.floor(v):
        v = int(v)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise _bad_ledger(path, f"{name}={v!r:.40} must be an integer in [{lo}, {hi}]")
    return v


def load_ledger(path: str) -> dict[str, Any]:
    """Read and validate a ``--ledger`` JSON file; raise ``click.BadParameter`` (one line: file, field, value,
    allowed range) on an unreadable, non-UTF-8, empty, malformed, ``null``, too deeply nested or out-of-range
    file.  Returns ``{"n", "delta" (or None), "train_error" (or None), "ledger"}``."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > LEDGER_MAX_BYTES:
            raise _bad_ledger(path, f"file is {size} bytes; the limit is {LEDGER_MAX_BYTES}")
        raw = p.read_bytes()
    except OSError as exc:
        raise _bad_ledger(path, f"cannot read it ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _bad_ledger(path, "not UTF-8 text") from None
    if not text.strip():
        raise _bad_ledger(path, "the file is empty")

    def _no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not allowed")

    try:
        spec = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise _bad_ledger(path, f"nested deeper than {LEDGER_MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise _bad_ledger(path, f"not valid JSON ({exc})") from None
    if _depth(spec, LEDGER_MAX_DEPTH) > LEDGER_MAX_DEPTH:
        raise _bad_ledger(path, f"nested deeper than {LEDGER_MAX_DEPTH} levels")
    if not isinstance(spec, dict):
        raise _bad_ledger(path, f"the top level is {type(spec).__name__ if spec is not None else 'null'}, not an object")
    unknown = sorted(set(spec) - {"n", "delta", "train_error", "ledger"})
    if unknown:
        raise _bad_ledger(path, f"unknown keys {unknown}")
    if "n" not in spec or "ledger" not in spec:
        raise _bad_ledger(path, "'n' and 'ledger' are required")
    n = _int_field(path, "n", spec["n"], 1, 10**12)
    delta = None if spec.get("delta") is None else _real_field(path, "delta", spec["delta"], 0, 1, True, True)
    te = spec.get("train_error")
    train_error = None if te is None else _real_field(path, "train_error", te, 0, 1, False, False)
    led = spec["ledger"]
    if not isinstance(led, list) or not led:
        raise _bad_ledger(path, "'ledger' must be a non-empty list of [sigma, q, steps]")
    if len(led) > LEDGER_MAX_SEGMENTS:
        raise _bad_ledger(path, f"'ledger' has {len(led)} segments; the limit is {LEDGER_MAX_SEGMENTS}")
    segs: list[tuple[float, float, int]] = []
    for i, seg in enumerate(led):
        if not isinstance(seg, list) or len(seg) != 3:
            raise _bad_ledger(path, f"ledger[{i}]={seg!r:.40} must be [sigma, q, steps]")
        segs.append((
            _real_field(path, f"ledger[{i}].sigma", seg[0], 0, math.inf, True, True),
            _real_field(path, f"ledger[{i}].q", seg[1], 0, 1, True, False),
            _int_field(path, f"ledger[{i}].steps", seg[2], 0, 10**12),
        ))
    if not any(t > 0 for _, _, t in segs):
        raise _bad_ledger(path, "every segment has 0 steps")
    return {"n": n, "delta": delta, "train_error": train_error, "ledger": segs}


def _bound_cell(e: dict) -> str:
    """A generalization route's bound: a 0-1 error bound >= 1 is marked vacuous; a route that does not
    apply shows its number for reference only (it is no guarantee for this run)."""
    if e["bound"] is None:
        return "n/a"
    text = f"{e['bound']:.4g} ({e['bound_kind']})"
    if e["bound"] >= 1:
        text += ", VACUOUS (>= 1 for a 0-1 loss)"
    if not e["applies"]:
        text += ", reference only"
    return text


def _summary(cert: dict, paths: dict | None) -> None:
    from rich.table import Table

    from ..audit.report import make_console

    con = make_console()  # the terminal's width; 160 columns in logs
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
        g.add_row(e["name"], "yes" if e["applies"] else f"not applicable: {e.get('reason') or 'its hypotheses fail'}",
                  _bound_cell(e), ", ".join(f"{k}: {v}" for k, v in e["status"].items()) or "-")
    con.print(g)
    emp = cert.get("empirical")
    if emp:
        m = Table(title="measured vs certified")
        from .certificate import check_result

        for col in ("check", "measured", "certified", "result"):
            m.add_column(col, overflow="fold")
        m.add_row("test - train error", f"{emp['test_error'] - emp['train_error']:.4f}", "", "")
        for ch in emp["checks"]:
            m.add_row(ch["name"], f"{ch['lhs']:.4g}" if ch["lhs"] is not None else "n/a",
                      f"{ch['rhs']:.4g}" if ch["rhs"] is not None else "n/a",
                      check_result(ch).replace("**", ""))
        con.print(m)
    if paths:
        con.print(f"certificate: {paths['json']}  report: {paths['markdown']}, {paths['html']}")


@click.command("certify")
@click.option("--from-hparams", is_flag=True, help="certify a model trained elsewhere from --noise-multiplier, "
              "--sample-rate, --steps, --n (no training)")
@click.option("--ledger", "ledger_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help='certify from a JSON ledger: {"n": N, "delta": D, "ledger": [[sigma, q, steps], ...]} (no training)')
@click.option("--noise-multiplier", type=POSITIVE, default=2.0, show_default=True, help="sigma in (0, inf)")
@click.option("--sample-rate", type=RATE, default=None, help="Poisson rate q in (0, 1] (hparams mode; training uses --batch-size/n)")
@click.option("--n", "n", type=COUNT, default=None, help="training-set size (hparams mode)")
@click.option("--train-error", type=UNIT_CLOSED, default=None, help="0-1 training error of the released model (hparams mode)")
@click.option("--steps", type=IntParam(1, 10**12), default=800, show_default=True)
@click.option("--batch-size", type=IntParam(1, 10**7), default=64, show_default=True, help="expected Poisson batch size")
@click.option("--max-grad-norm", type=POSITIVE, default=1.0, show_default=True, help="clipping norm C")
@click.option("--delta", type=PROBABILITY_OPEN, default=1e-5, show_default=True)
@click.option("--lr", type=POSITIVE, default=1.0, show_default=True)
@click.option("--momentum", type=RealParam(0, 1, hi_open=True), default=0.0, show_default=True)
@click.option("--target-epsilon", type=POSITIVE, default=None, help="stop before the odometer exceeds this epsilon")
@click.option("--canaries", type=IntParam(0, 10**6), default=200, show_default=True, help="mislabeled audit canaries (each in with prob 1/2)")
@click.option("--hidden", default="64", callback=_hidden, show_default=True, help="MLP hidden widths, e.g. 128,64")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--device", default=None, callback=_device, help="torch device: cpu, cuda, cuda:N, mps (default: cuda if available, else cpu)")
@click.option("--confidence", type=PROBABILITY_OPEN, default=0.95, show_default=True, help="confidence of generalization bounds")
@click.option("--out", "outdir", type=click.Path(file_okay=False), default="symdp-certificate", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="print the certificate JSON to stdout")
@click.option("--threads", type=IntParam(0, 4096), default=1, show_default=True,
              help="torch CPU threads during training (0: leave torch's default)")
@click.option("--no-progress", is_flag=True)
def certify(from_hparams: bool, ledger_file: str | None, noise_multiplier: float, sample_rate: float | None,
            n: int | None, train_error: float | None, steps: int, batch_size: int, max_grad_norm: float,
            delta: float, lr: float, momentum: float, target_epsilon: float | None, canaries: int,
            hidden: tuple[int, ...], seed: int, device: str | None, confidence: float, outdir: str, as_json: bool,
            threads: int, no_progress: bool) -> None:
    """Train with DP-SGD and certify privacy and generalization (or certify without training)."""
    from . import certificate as C

    if ledger_file is not None and from_hparams:
        raise click.UsageError("give at most one of --ledger and --from-hparams")
    if not str(outdir).strip():  # Path('') is '.': the certificate would land in the working directory
        raise click.BadParameter(f"{outdir!r} is empty; allowed: a directory path", param_hint="'--out'")
    if Path(outdir).exists() and not Path(outdir).is_dir():
        raise click.BadParameter(f"{outdir[:60]!r} exists and is not a directory", param_hint="'--out'")
    try:
        if ledger_file is not None:
            spec = load_ledger(ledger_file)  # validated before anything is computed or written
            cert = C.certify_ledger(spec["ledger"], n=spec["n"], delta=spec["delta"] if spec["delta"] is not None else delta,
                                    confidence=confidence,
                                    train_error=spec["train_error"] if spec["train_error"] is not None else train_error)
        elif from_hparams:
            if sample_rate is None or n is None:
                missing = [o for o, v in (("--sample-rate", sample_rate), ("--n", n)) if v is None]
                raise click.UsageError(f"--from-hparams needs {', '.join(missing)}")
            cert = C.certify_hparams(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=steps, n=n,
                                     delta=delta, confidence=confidence, train_error=train_error)
        else:
            if device is not None and device.startswith("cuda"):
                import torch

                if not torch.cuda.is_available():
                    raise click.BadParameter(f"{device!r}: CUDA is not available here; allowed: cpu", param_hint="'--device'")
            cfg = C.RunConfig(noise_multiplier=noise_multiplier, batch_size=batch_size, steps=steps,
                              max_grad_norm=max_grad_norm, delta=delta, lr=lr, momentum=momentum,
                              target_epsilon=target_epsilon, num_canaries=canaries, hidden=hidden, seed=seed,
                              device=device, confidence=confidence, progress=not no_progress and not as_json,
                              threads=threads or None)
            cert = C.run(cfg)
        paths = C.write_report(cert, outdir)  # atomic: nothing at --out unless the whole report is written
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
