"""Plots for audit reports (matplotlib, Agg): claimed vs true around a counterexample, ratios of bounds."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Mapping

import mpmath
import numpy as np

Fn = Callable[[Mapping[str, Any]], Any]


def _grid(lo: float, hi: float, n: int, integer: bool) -> np.ndarray:
    if lo > 0 and hi / lo > 50:
        g = np.geomspace(lo, hi, n)
    else:
        g = np.linspace(lo, hi, n)
    if integer:
        g = np.unique(np.round(g))
    return g


def _to_float(v: Any) -> float:
    try:
        f = float(mpmath.re(v)) if isinstance(v, (mpmath.mpf, mpmath.mpc)) else float(v)
    except (TypeError, ValueError, OverflowError):
        return math.nan
    return f


def sweep(
    f_claim: Fn,
    f_true: Fn,
    point: Mapping[str, Any],
    var: str,
    lo: float,
    hi: float,
    *,
    integer: bool = False,
    n: int = 60,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Evaluate both functions along ``var`` in [lo, hi] with the other parameters at ``point``."""
    xs = _grid(lo, hi, n, integer)
    yc, yt = [], []
    for x in xs:
        pt = dict(point)
        pt[var] = int(x) if integer else mpmath.mpf(float(x))
        try:
            yc.append(_to_float(f_claim(pt)))
        except Exception:  # noqa: BLE001 - a point where the claim is undefined is simply not drawn
            yc.append(math.nan)
        try:
            yt.append(_to_float(f_true(pt)))
        except Exception:  # noqa: BLE001
            yt.append(math.nan)
    return xs, np.array(yc), np.array(yt)


def plot_claim(
    path: Path,
    *,
    title: str,
    f_claim: Fn,
    f_true: Fn,
    point: Mapping[str, Any],
    var: str,
    lo: float,
    hi: float,
    integer: bool = False,
    claim_label: str = "claimed bound",
    true_label: str = "true value",
    mark: float | None = None,
    ratio: bool = False,
) -> Path:
    """Draw claimed vs true (or their ratio) along one parameter and save a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs, yc, yt = sweep(f_claim, f_true, point, var, lo, hi, integer=integer)
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=110)
    if ratio:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = yc / yt
        ax.plot(xs, r, color="#1f4e9c", label=f"{claim_label} / {true_label}")
        ax.axhline(1.0, color="#888", lw=0.8, ls="--")
        ax.set_ylabel("ratio")
    else:
        ax.plot(xs, yt, color="#222", label=true_label)
        ax.plot(xs, yc, color="#b3261e", ls="--", label=claim_label)
        bad = np.isfinite(yc) & np.isfinite(yt) & (yc < yt)
        if bad.any():
            ax.fill_between(xs, yc, yt, where=bad, color="#b3261e", alpha=0.15, label="claim violated")
        pos = np.concatenate([yc[np.isfinite(yc) & (yc > 0)], yt[np.isfinite(yt) & (yt > 0)]])
        if pos.size and pos.max() / max(pos.min(), 1e-300) > 1e3:
            ax.set_yscale("log")
    if mark is not None:
        ax.axvline(float(mark), color="#a86b00", lw=1, ls=":", label=f"counterexample {var}={mark:g}")
    if lo > 0 and hi / lo > 50:
        ax.set_xscale("log")
    ax.set_xlabel(var)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


__all__ = ["plot_claim", "sweep"]
