"""``symdp account`` and ``symdp calibrate``."""

from __future__ import annotations

import json
import sys
import warnings

import click

from ..cli_types import NONNEGATIVE, POSITIVE, PROBABILITY_OPEN, RATE, IntParam
from ..errors import SymdpError

#: the accountants ``account`` names (besides theorem:ID)
ACCOUNTANTS = ("tight", "pld", "rdp", "clt", "advanced", "he2021")


def _fail(exc: Exception) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(2)


@click.command("account")
@click.option("--noise-multiplier", "-s", type=POSITIVE, required=True, help="sigma: noise std / clipping norm")
@click.option("--sample-rate", "-q", type=RATE, required=True, help="Poisson sampling rate q in (0, 1]")
@click.option("--steps", "-T", type=IntParam(0, 10**12), required=True, help="number of steps T (integer >= 0)")
@click.option("--delta", "-d", type=PROBABILITY_OPEN, default=None, help="target delta in (0, 1): report epsilon")
@click.option("--epsilon", "-e", "eps", type=NONNEGATIVE, default=None, help="target epsilon >= 0: report delta instead")
@click.option("--accountant", "-a", default="tight", show_default=True,
              help=f"{', '.join(ACCOUNTANTS)}, or theorem:ID (a composition theorem of --theorems or the library)")
@click.option("--sampling", default="poisson", show_default=True, type=click.Choice(["poisson", "without_replacement", "shuffle"]))
@click.option("--theorems", "theorem_file", default=None, help="a TOML theorem file whose theorems to register first")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def account(noise_multiplier: float, sample_rate: float, steps: str, delta: float | None, eps: float | None,
            accountant: str, sampling: str, theorem_file: str | None, as_json: bool) -> None:
    """Privacy of a DP-SGD run: epsilon at --delta (or delta at --epsilon)."""
    from ..theorems_option import check_theorem_accountant, load_or_exit
    from . import api

    loaded = load_or_exit(theorem_file) if theorem_file is not None else []
    accountant = check_theorem_accountant(accountant, loaded, names=ACCOUNTANTS)

    try:
        try:
            T = int(steps)
        except ValueError:
            try:
                T = float(steps)  # type: ignore[assignment]
            except ValueError:
                T = steps  # type: ignore[assignment]
        if (delta is None) == (eps is None):
            raise click.UsageError("give exactly one of --delta or --epsilon")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if delta is not None:
                r = api.epsilon(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=T, delta=delta,
                                accountant=accountant, sampling=sampling)
            else:
                r = api.delta(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=T, epsilon=eps,
                              accountant=accountant, sampling=sampling)
    except SymdpError as exc:
        _fail(exc)
        return
    for w in caught:
        click.echo(f"warning: {w.message}", err=True)
    d = r.to_dict()
    if as_json:
        click.echo(json.dumps(d, indent=1, default=str))
        return
    click.echo(f"epsilon:        {r.epsilon:.6g}")
    click.echo(f"delta:          {r.delta:.6g}")
    click.echo(f"accountant:     {r.accountant}")
    click.echo(f"is_upper_bound: {r.is_upper_bound}")
    if r.error_bound is not None and r.error_bound == r.error_bound:
        click.echo(f"error_bound:    {r.error_bound:.3g} ({r.error_bound_kind})")
    if r.approximation:
        click.echo(f"note:           {r.approximation}")
    if getattr(r, "fallback", None):
        click.echo(f"fallback:       {r.fallback}")
    if r.details.get("note"):
        click.echo(f"note:           {r.details['note']}")
    for k, v in r.verdicts.items():
        click.echo(f"rests on:       {k} [{v}]")


@click.command("calibrate")
@click.option("--target-epsilon", "-e", type=POSITIVE, required=True, help="target epsilon in (0, inf)")
@click.option("--delta", "-d", type=PROBABILITY_OPEN, required=True, help="delta in (0, 1)")
@click.option("--sample-rate", "-q", type=RATE, required=True, help="Poisson sampling rate q in (0, 1]")
@click.option("--steps", "-T", type=IntParam(1, 10**12), default=None, help="number of steps: report the noise multiplier")
@click.option("--noise-multiplier", "-s", type=POSITIVE, default=None, help="give this instead of --steps: report the largest T")
@click.option("--accountant", "-a", default="tight", show_default=True, type=click.Choice(["tight", "pld", "rdp"]))
@click.option("--json", "as_json", is_flag=True)
def calibrate(target_epsilon: float, delta: float, sample_rate: float, steps: str | None, noise_multiplier: float | None,
              accountant: str, as_json: bool) -> None:
    """Noise multiplier for a budget (or, with --noise-multiplier, the largest number of steps)."""
    from . import calibrate as cal

    try:
        if (steps is None) == (noise_multiplier is None):
            raise click.UsageError("give exactly one of --steps or --noise-multiplier")
        if steps is not None:
            try:
                T = int(steps)
            except ValueError:
                T = float(steps)  # type: ignore[assignment]
            r = cal.calibrate_noise(target_epsilon=target_epsilon, delta=delta, sample_rate=sample_rate, steps=T,
                                    accountant=accountant)
            d = r.to_dict()
        elif noise_multiplier is not None:  # exactly one of the two was given (checked above)
            r2 = cal.max_steps(target_epsilon=target_epsilon, delta=delta, noise_multiplier=noise_multiplier,
                               sample_rate=sample_rate, accountant=accountant)
            d = r2.to_dict()
    except SymdpError as exc:
        _fail(exc)
        return
    except ValueError as exc:
        _fail(exc)
        return
    if as_json:
        click.echo(json.dumps(d, indent=1))
        return
    for k, v in d.items():
        click.echo(f"{k + ':':17s} {v}")


__all__ = ["account", "calibrate"]
