r"""Plots for audit reports (matplotlib, Agg).

:func:`plot_claim` draws the claim's side and the other side along one parameter (top panel)
and their relative difference with its zero line (bottom panel), so a crossing stays visible
even when the two curves differ by 0.4 % on a log scale.  Axes are labelled with the
parameter's name and unit, the title names the compared quantity, a counterexample is marked,
and for a PARTIAL verdict the boundary of the region where the claim holds is drawn and the
failing side shaded.  :func:`plot_region_2d` maps where a claim holds over two free parameters.
Legends never call the paper's formula the "true value": the oracle side is named by what it
computes (:func:`symdp.audit.report.truth_label`).
"""

from __future__ import annotations

import math
import re
import textwrap
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

from ..limits import time_limit

Fn = Callable[[Mapping[str, Any]], Any]

#: parameter name (prefix) -> axis label with its unit
_UNITS: tuple[tuple[str, str], ...] = (
    ("epsilonprime", "ε′ (composed privacy loss, nats)"),
    ("epsilontilde", "ε̃ (per-step privacy loss, nats)"),
    ("epsilon", "ε (privacy loss, nats)"),
    ("deltaprime", "δ′ (composed failure probability)"),
    ("deltatilde", "δ̃ (slack probability)"),
    ("delta", "δ (failure probability)"),
    ("sigma", "σ (noise multiplier, × sensitivity)"),
    ("mu", "μ (GDP parameter)"),
    ("q", "q (sampling rate)"),
    ("p", "p (sampling rate)"),
    ("T", "T (steps / compositions)"),
    ("tau", "τ (mini-batch size, examples)"),
    ("N", "N (training examples)"),
    ("n", "n (training examples)"),
    ("k", "k (number of sample sets)"),
    ("alpha", "α (type-I error / Rényi order)"),
    ("L", "L (Lipschitz constant)"),
    ("b", "b (Laplace scale)"),
    ("Delta", "Δ (sensitivity)"),
)


def axis_label(name: str) -> str:
    """``epsilon`` -> ``ε (privacy loss, nats)``; unknown names are returned as they are."""
    for key, label in _UNITS:
        if name == key:
            return label
    for key, label in _UNITS:
        if len(key) > 2 and name.startswith(key):
            return f"{name}: " + label
    return name


def _symlog(ax: Any, values: np.ndarray) -> None:
    """A symlog y axis for values of both signs, with few ticks: -10^a, -t, 0, t, 10^b (t the linear threshold)."""
    from matplotlib.ticker import NullLocator

    v = values[np.isfinite(values)]
    nz = np.abs(v[v != 0])
    if not nz.size:
        return
    t = float(10 ** np.floor(np.log10(max(float(np.quantile(nz, 0.1)), 1e-12))))
    ax.set_yscale("symlog", linthresh=t)
    both = bool((v > 0).any() and (v < 0).any())
    ticks = {0.0} if both else {0.0, t if (v > 0).any() else -t}  # +-t next to 0 would overlap it
    if (v < 0).any():
        ticks.add(-float(10 ** np.ceil(np.log10(max(-float(v.min()), t)))))
    if (v > 0).any():
        ticks.add(float(10 ** np.ceil(np.log10(max(float(v.max()), t)))))
    ax.set_yticks(sorted(ticks))
    ax.yaxis.set_minor_locator(NullLocator())


def _log_axis(axis: Any) -> None:
    """A log axis with minor ticks at 2 and 5 of each decade (matplotlib's default 2..9 made the minor ticks, each
    an artist with its own label, more than half the drawing time of a plot)."""
    from matplotlib.ticker import LogLocator

    axis.set_minor_locator(LogLocator(base=10.0, subs=(2.0, 5.0)))


def _in_view_locator(base: Any) -> Any:
    """``base`` (a locator of a log axis) returning only the ticks inside the axis's view interval (with a margin of
    1e-6 of its width on the axis's scale, wider than the 1e-10 within which matplotlib draws a tick at the edge).
    A log locator also returns the ticks of a decade beyond each end, which matplotlib then creates (a tick is two
    lines, a grid line and two labels, each copied from the first tick), positions, labels and formats at every
    draw before it leaves them out: ~18 % of a plot's CPU time.  The ticks drawn are the same."""
    from matplotlib.ticker import Locator

    class InView(Locator):
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def set_axis(self, axis: Any) -> None:
            super().set_axis(axis)
            self.inner.set_axis(axis)

        def tick_values(self, vmin: float, vmax: float) -> Any:
            return self.inner.tick_values(vmin, vmax)

        def __call__(self) -> Any:
            locs = np.asarray(self.inner())
            axis: Any = self.axis
            if locs.size == 0 or axis is None:
                return locs
            tr = axis.get_transform()
            lo, hi = sorted(tr.transform(np.asarray(axis.get_view_interval(), dtype=float)))
            with np.errstate(all="ignore"):
                t = tr.transform(locs)
            m = 1e-6 * (hi - lo) if np.isfinite(hi - lo) else 0.0
            return locs[~((t < lo - m) | (t > hi + m))]  # NaN (a tick <= 0 on a log axis) is kept: matplotlib decides

    return InView(base)


def _ticks_in_view(fig: Any) -> None:
    """Every log axis of ``fig`` locates its major and minor ticks inside its view only (:func:`_in_view_locator`);
    called once a plot is complete (a later ``set_xscale`` would install new locators)."""
    for a in fig.get_axes():
        for axis in (a.xaxis, a.yaxis):
            if axis.get_scale() != "log":
                continue
            for get, put in ((axis.get_major_locator, axis.set_major_locator),
                             (axis.get_minor_locator, axis.set_minor_locator)):
                loc = get()
                if not getattr(loc, "inner", None):  # a shared axis: its locator is wrapped already
                    put(_in_view_locator(loc))


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


def _safe(f: Fn, pt: Mapping[str, Any]) -> float:
    try:
        return _to_float(f(pt))
    except Exception:  # noqa: BLE001 - a point where a side is undefined is simply not drawn
        return math.nan


#: seconds one sweep (or one region map) may spend evaluating points; past it the points not yet evaluated
#: are left out (at least :data:`MIN_POINTS` are always evaluated) and the plot says how many were drawn.
#: 6 s (12 s before issue 25): a cheap oracle draws all its points well within it; an oracle that costs seconds per
#: point (He et al.'s heterogeneous eq. (7) at T = 8) drew 5 points in 29 s, now a coarse curve in at most 15 s
PLOT_SECONDS = 6.0
MIN_POINTS = 5


class _PlotTimeUp(BaseException):
    """The hard time limit of one plot's evaluations (a BaseException: the per-point handlers do not catch it)."""


def _hard(seconds: float | None) -> float:
    """The hard limit of a sweep or region map: one slow evaluation is interrupted (main thread, SIGALRM)."""
    return 1e9 if seconds is None else 2.0 * seconds + 3.0


def _coarse_to_fine(n: int) -> list[int]:
    """Indices ``0..n-1`` in coarse-to-fine order (ends, middle, quarters, ...): a sweep cut short covers the range."""
    out: list[int] = []
    seen: set[int] = set()
    k = 1
    while len(out) < n:
        for j in range(k + 1):
            i = round(j * (n - 1) / k)
            if i not in seen:
                seen.add(i)
                out.append(i)
        k *= 2
    return out


#: a float64 twin of a side: float64 arrays (or floats) by parameter name in, a float64 array out
VecFn = Callable[[Mapping[str, Any]], Any]
#: a float64 value is used where it agrees with mpmath at the calibration points to this relative error; a side
#: whose twin is further off there is evaluated in mpmath everywhere
FLOAT64_MAX_ERROR = 1e-7
#: a point is re-evaluated in mpmath (both sides) where the float64 sides are closer than this many times the error
#: seen at the calibration points (at least :data:`FLOAT64_MIN_TOL`, relative): too close to the crossing to tell
FLOAT64_SAFETY = 1e4
FLOAT64_MIN_TOL = 1e-10
#: a twin's value where its side is undefined for sure (a masked entry of the twin's array): drawn as a gap, like
#: the None its mpmath side returns there
UNDEFINED = -math.inf


def _vec_values(g: VecFn | None, point: Mapping[str, Any], grid: Mapping[str, np.ndarray], shape: tuple[int, ...]) -> np.ndarray | None:
    """The float64 twin ``g`` at every grid point (None when there is none or it fails: mpmath then).  Where the
    twin's array is masked (the side is undefined there for sure, see :mod:`symdp.verify.twins`) the value is
    :data:`UNDEFINED`; NaN means "not known in float64" (mpmath decides)."""
    if g is None:
        return None
    try:
        pt: dict[str, Any] = {k: _to_float(v) for k, v in point.items() if k not in grid}
        pt.update({k: np.asarray(v, dtype=float) for k, v in grid.items()})
        with np.errstate(all="ignore"):
            got = g(pt)
            y = np.array(np.broadcast_to(np.asarray(np.ma.getdata(got), dtype=float), shape), dtype=float)
            y[np.broadcast_to(np.ma.getmaskarray(got), shape)] = UNDEFINED
    except Exception:  # noqa: BLE001 - no float64 twin here: mpmath at every point
        return None
    return y


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


class _Twins:
    """Float64 twins of the two sides on a grid, checked against mpmath at the first points evaluated (see
    :func:`sweep`)."""

    CALIBRATION = 3

    def __init__(self, fast: tuple[VecFn | None, VecFn | None] | None, point: Mapping[str, Any],
                 grid: Mapping[str, np.ndarray], shape: tuple[int, ...]) -> None:
        self.v = [_vec_values(fast[0], point, grid, shape), _vec_values(fast[1], point, grid, shape)] if fast else [None, None]
        self.err = [0.0, 0.0]
        self.checked = [0, 0]  # points where a twin's finite value was compared with a finite mpmath value
        self.float64 = 0
        self.mpmath = 0

    def clear(self, k: Any) -> tuple[float, float] | None:
        """Both float64 values at ``k`` when they are clearly on one side of the crossing, else None (mpmath).  A side
        undefined there for sure (:data:`UNDEFINED`) is NaN, the other side's float64 value is drawn alone."""
        fc, ft = self.v
        if fc is None or ft is None or min(self.checked) == 0:  # a twin not yet compared with mpmath: mpmath
            return None
        c, t = float(fc[k]), float(ft[k])
        if (c == UNDEFINED and (math.isfinite(t) or t == UNDEFINED)) or (t == UNDEFINED and math.isfinite(c)):
            self.float64 += 1
            return (math.nan if c == UNDEFINED else c), (math.nan if t == UNDEFINED else t)
        if not (math.isfinite(c) and math.isfinite(t)):
            return None
        if _rel(c, t) <= max(FLOAT64_MIN_TOL, FLOAT64_SAFETY * max(self.err)):
            return None
        self.float64 += 1
        return c, t

    def calibrate(self, k: Any, c: float, t: float) -> None:
        """Compare the twins with the mpmath values ``c``, ``t`` at ``k``; a twin off by more than
        :data:`FLOAT64_MAX_ERROR` is dropped."""
        self.mpmath += 1
        for j, exact in enumerate((c, t)):
            vec = self.v[j]
            if vec is None:
                continue
            v = float(vec[k])
            if math.isfinite(exact) and math.isfinite(v):
                self.err[j] = max(self.err[j], _rel(v, exact))
                self.checked[j] += 1
            elif math.isnan(v):
                pass  # "not known in float64" (a tie, an overflow): mpmath decides there, as it just did
            elif math.isfinite(exact) or (v == UNDEFINED and not math.isnan(exact)):
                self.err[j] = math.inf  # the twin calls undefined (or infinite) where mpmath has a value
            elif math.isfinite(v):
                self.err[j] = math.inf  # a value where mpmath has none
            if self.err[j] > FLOAT64_MAX_ERROR:
                self.v[j] = None

    def record(self, stats: dict[str, int] | None) -> None:
        if stats is not None:
            stats["float64"] = stats.get("float64", 0) + self.float64
            stats["mpmath"] = stats.get("mpmath", 0) + self.mpmath


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
    seconds: float | None = None,
    fast: tuple[VecFn | None, VecFn | None] | None = None,
    stats: dict[str, int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Evaluate both functions along ``var`` in [lo, hi] with the other parameters at ``point``.

    Points are evaluated coarse to fine; with ``seconds``, evaluation stops once that time is spent (after at
    least :data:`MIN_POINTS` points, unless the hard limit ``2 seconds + 3`` interrupts an evaluation) and the
    points left out are NaN in both returned arrays.

    ``fast``: float64 twins ``(claim side, other side)`` (either may be None), evaluated on the whole grid at once.
    The first three points (the ends and the middle) are evaluated in mpmath, and further points until each twin has
    been compared with a finite mpmath value at one point at least: a twin that differs there by more than
    :data:`FLOAT64_MAX_ERROR` (relative), or has a value (or calls its side undefined) where mpmath has none (or
    one), is dropped; where both twins are kept, their values are used at every point where they are finite and
    the two sides are apart by more than :data:`FLOAT64_SAFETY` times the error seen (at least
    :data:`FLOAT64_MIN_TOL`); elsewhere (near a crossing, an overflow, a twin's NaN: "not known in float64") both
    sides are evaluated in mpmath.  A twin's masked entry (its side undefined there for sure) is drawn as a gap.  ``stats`` receives the number of points taken from float64 and from mpmath.
    """
    xs = _grid(lo, hi, n, integer)
    yc, yt = np.full(len(xs), np.nan), np.full(len(xs), np.nan)
    tw = _Twins(fast, point, {var: xs}, xs.shape)
    t0 = time.monotonic()
    try:
        with time_limit(_hard(seconds), error=_PlotTimeUp):
            for done, k in enumerate(_coarse_to_fine(len(xs))):
                both = tw.clear(k) if done >= tw.CALIBRATION else None
                if both is not None:
                    yc[k], yt[k] = both
                    continue
                if seconds is not None and done >= MIN_POINTS and time.monotonic() - t0 > seconds:
                    break
                pt = dict(point)
                pt[var] = int(xs[k]) if integer else mpmath.mpf(float(xs[k]))
                c = _safe(f_claim, pt)
                yc[k], yt[k] = c, _safe(f_true, pt)
                tw.calibrate(k, yc[k], yt[k])
    except _PlotTimeUp:
        pass
    tw.record(stats)
    return xs, yc, yt


_REGION = re.compile(r"holds for (?P<var>[A-Za-z_][A-Za-z0-9_]*) (?P<op><=|>=|<|>) (?P<x>[-+0-9.eE]+)")


def parse_region(region: str | None) -> tuple[str, str, float] | None:
    """``"holds for epsilon <= 1.25 and fails above"`` -> ``("epsilon", "<=", 1.25)``; None if not of that form."""
    if not region:
        return None
    m = _REGION.search(region)
    if not m:
        return None
    try:
        return m.group("var"), m.group("op"), float(m.group("x"))
    except ValueError:
        return None


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
    true_label: str = "exact value",
    mark: float | None = None,
    ratio: bool = False,
    ylabel: str | None = None,
    region: str | None = None,
    fixed: Mapping[str, Any] | None = None,
    seconds: float | None = PLOT_SECONDS,
    fast: tuple[VecFn | None, VecFn | None] | None = None,
    stats: dict[str, int] | None = None,
) -> Path:
    """Draw the claim's side vs the other side along one parameter and save a PNG.

    ``f_claim`` must stay above ``f_true`` for the claim to hold (an upper bound; for a comparison
    ``a <= b`` pass ``b`` as the claim side).  ``region`` (a PARTIAL verdict's text) draws the
    boundary it names.  ``fixed`` (the other parameters) is printed under the title.  ``seconds`` bounds the
    time spent evaluating points (:func:`sweep`); a plot cut short says how many points it draws.  ``fast``:
    float64 twins of the two sides (:func:`sweep`); ``stats``: points from float64 / mpmath.
    """
    xs, yc, yt = sweep(f_claim, f_true, point, var, lo, hi, integer=integer, seconds=seconds, fast=fast, stats=stats)
    n_all = len(xs)
    drawn = ~(np.isnan(yc) & np.isnan(yt))
    xs, yc, yt = xs[drawn], yc[drawn], yt[drawn]
    cut = f"\n({len(xs)} of {n_all} points: plot time limit {seconds:g} s)" if len(xs) < n_all else ""
    fig = _figure((7.0, 5.2), 110)
    ax, ax2 = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2.2, 1.0]})
    ylab = textwrap.shorten(ylabel or "value", width=56, placeholder=" …")
    ylab = "\n".join(textwrap.wrap(ylab, 30)[:2]) or "value"
    if ratio:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = yc / yt
        ax.plot(xs, r, color="#1f4e9c", label=f"{claim_label} / {true_label}")
        ax.axhline(1.0, color="#888", lw=0.8, ls="--", label="ratio 1")
        ax.set_ylabel("ratio of the two sides")
    else:
        ax.plot(xs, yt, color="#222", label=true_label)
        ax.plot(xs, yc, color="#b3261e", ls="--", label=claim_label)
        bad = np.isfinite(yc) & np.isfinite(yt) & (yc < yt)
        if bad.any():
            ax.fill_between(xs, yc, yt, where=bad, color="#b3261e", alpha=0.18, label="claim violated")
        pos = np.concatenate([yc[np.isfinite(yc) & (yc > 0)], yt[np.isfinite(yt) & (yt > 0)]])
        allpos = bool(np.all(yc[np.isfinite(yc)] > 0) and np.all(yt[np.isfinite(yt)] > 0))
        if pos.size and pos.max() / max(pos.min(), 1e-300) > 1e3:
            if allpos:
                ax.set_yscale("log")
                _log_axis(ax.yaxis)
            else:  # a side changes sign: symlog keeps both the large values and the crossing near 0 visible
                _symlog(ax, np.concatenate([yc[np.isfinite(yc)], yt[np.isfinite(yt)]]))
        ax.set_ylabel(ylab)
    # bottom panel: relative difference, where the sign change (the crossing) is always visible
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = (yc - yt) / np.maximum(np.abs(yt), 1e-300)
    rel = np.clip(rel, -1e12, 1e12)  # the sign is what the panel shows; keeps a symlog axis finite
    ok = np.isfinite(rel)
    ax2.plot(xs[ok], rel[ok], color="#1f4e9c", lw=1.2, label="(claim side − other side) / |other side|")
    ax2.axhline(0.0, color="#b3261e", lw=0.9, ls="-", label="0: crossing")
    if ok.any():
        neg = ok & (rel < 0)
        if neg.any():
            ax2.fill_between(xs, np.where(neg, rel, 0.0), 0.0, where=neg, color="#b3261e", alpha=0.18)
        r = rel[ok]
        span = max(float(np.nanmax(np.abs(r))), 1e-12)
        if span > 10:
            _symlog(ax2, r)
        else:
            ax2.set_ylim(min(float(r.min()), -0.05 * span) * 1.15, max(float(r.max()), 0.05 * span) * 1.15)
    ax2.set_ylabel("relative margin")
    ax2.set_xlabel(axis_label(var))
    for a in (ax, ax2):
        if mark is not None:
            a.axvline(float(mark), color="#a86b00", lw=1, ls=":", label=f"counterexample {var} = {mark:g}" if a is ax else None)
    reg = parse_region(region)
    if reg is not None and reg[0] == var:
        _, op, x0 = reg
        for a in (ax, ax2):
            a.axvline(x0, color="#6a1b9a", lw=1.3, ls="-.", label=f"boundary {var} = {x0:g}" if a is ax else None)
            if op in ("<=", "<"):
                a.axvspan(x0, hi, color="#b3261e", alpha=0.06, label="region where the claim fails" if a is ax else None)
            else:
                a.axvspan(lo, x0, color="#b3261e", alpha=0.06, label="region where the claim fails" if a is ax else None)
    if lo > 0 and hi / lo > 50:
        ax.set_xscale("log")
        _log_axis(ax.xaxis)
    sub = ", ".join(f"{k} = {_fmt(v)}" for k, v in (fixed or {}).items() if k != var)
    head = _wrap_title(title + (f"\n(other parameters: {sub})" if sub else "") + cut, 78)
    ax.legend(fontsize=7, loc="upper left")
    ax2.legend(fontsize=7, loc="lower right")
    # fixed margins (room for a two-line y label and a three-line title, lower for more): tight_layout would cost a
    # second draw
    fig.subplots_adjust(left=0.16, right=0.97, top=min(0.86, 0.98 - 0.04 * head.count("\n") - 0.04), bottom=0.1,
                        hspace=0.08)
    _title(ax, head)  # after the margins: the y ticks it looks at are those drawn
    _ticks_in_view(fig)
    save_labelled(fig, path)
    _release(fig)
    return path


#: one figure per (size, dpi), reused by the plots of this process (see :func:`_figure`)
_FIGURES: dict[tuple[tuple[float, float], int], Any] = {}


def _wrap_title(text: str, width: int) -> str:
    """Each line of a plot title wrapped at ``width`` characters (a claim id of up to 81 characters without spaces is
    broken too): a centred line longer than the figure is cut at both edges of the PNG."""
    return "\n".join(part for line in text.split("\n")
                     for part in (textwrap.wrap(line, width, break_on_hyphens=False) or [""]))


def _figure(figsize: tuple[float, float], dpi: int) -> Any:
    """An empty Agg figure of this size, the same object for every plot of the process: its renderer, and with it
    matplotlib's caches of text layouts and parsed mathtext (per renderer; the tick labels of most plots are the same
    few strings), lives across plots, where a new figure per plot parsed and laid out every label again.  The same
    pixels as a new figure (no pyplot: nothing registered globally, nothing to close)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = _FIGURES.get((figsize, dpi))
    if fig is None:
        fig = Figure(figsize=figsize, dpi=dpi)
        FigureCanvasAgg(fig)
        _FIGURES[(figsize, dpi)] = fig
    fig.clf()
    return fig


def _release(fig: Any) -> None:
    """Empty a figure of :func:`_figure` after its plot is saved.  ``Figure.clf`` clears every Axes before removing it
    (new ticks, spines and texts for an Axes about to be dropped: ~10 % of a plot's CPU time); removing the Axes is
    enough, the next :func:`_figure` starts from an empty figure either way."""
    for a in tuple(fig.axes):
        fig.delaxes(a)
    fig.clf()


def _title(ax: Any, text: str) -> None:
    """The plot's title at its fixed place above the axes (9 pt).  Matplotlib's automatic placement measures every
    tick label of both axes before each draw (~5 % of a plot's CPU time) to lift the title over x tick labels at the
    top (never here) or the y axis's offset text ("1e-5" above a linear y axis); only an axes with such an offset
    text keeps the automatic placement, so the title never overlaps it."""
    fmt = ax.yaxis.get_major_formatter()
    auto = False
    if hasattr(fmt, "get_offset") and ax.get_yscale() == "linear":
        fmt.set_locs(ax.yaxis.get_majorticklocs())
        auto = bool(fmt.get_offset())
    ax.set_title(text, fontsize=9, **({} if auto else {"y": 1.0}))


def save_labelled(fig: Any, path: Path, **kw: Any) -> None:
    """Save a figure as PNG with its axes' labels and titles recorded in the PNG's ``Description`` text
    chunk (JSON), so tests and tools can check that every plot is labelled without OCR."""
    import json

    axes = [dict(title=a.get_title(), xlabel=a.get_xlabel(), ylabel=a.get_ylabel(),
                 legend=[t.get_text() for t in a.get_legend().get_texts()] if a.get_legend() is not None else [])
            for a in fig.get_axes() if a.get_label() != "<colorbar>"]
    path.parent.mkdir(parents=True, exist_ok=True)
    # zlib level 3 (PIL's default 6): the same pixels, 40 % less encoding time for 2-3 % more bytes
    if path.suffix.lower() == ".png":
        kw.setdefault("pil_kwargs", {"compress_level": 3})
    fig.savefig(path, metadata={"Description": json.dumps({"axes": axes})}, **kw)


def _fmt(v: Any) -> str:
    try:
        return f"{float(v):.4g}"
    except (TypeError, ValueError):
        return str(v)


def plot_region_2d(
    path: Path,
    *,
    title: str,
    f_claim: Fn,
    f_true: Fn,
    point: Mapping[str, Any],
    xvar: str,
    xrange: tuple[float, float],
    yvar: str,
    yrange: tuple[float, float],
    xinteger: bool = False,
    yinteger: bool = False,
    mark: tuple[float, float] | None = None,
    n: int = 24,
    seconds: float | None = PLOT_SECONDS,
    fast: tuple[VecFn | None, VecFn | None] | None = None,
    stats: dict[str, int] | None = None,
) -> tuple[Path, float, int]:
    """Where the claim holds (``f_claim >= f_true``) over two free parameters: a labelled region map.

    Returns the path, the fraction of evaluated grid points where the claim holds, and their number.  Points are
    evaluated coarse to fine in both parameters; past ``seconds`` the rest are left out (white).  ``fast``: float64
    twins of the two sides, used where they clearly tell which side is larger (as in :func:`sweep`)."""
    from matplotlib.colors import ListedColormap

    xs = _grid(*xrange, n, xinteger)
    ys = _grid(*yrange, n, yinteger)
    z = np.full((len(ys), len(xs)), np.nan)
    rx = {i: r for r, i in enumerate(_coarse_to_fine(len(xs)))}
    ry = {j: r for r, j in enumerate(_coarse_to_fine(len(ys)))}
    cells = sorted(((j, i) for j in range(len(ys)) for i in range(len(xs))), key=lambda c: (max(ry[c[0]], rx[c[1]]), c))
    gx, gy = np.meshgrid(xs, ys)
    tw = _Twins(fast, point, {xvar: gx, yvar: gy}, z.shape)
    t0 = time.monotonic()
    try:
        with time_limit(_hard(seconds), error=_PlotTimeUp):
            for done, (j, i) in enumerate(cells):
                both = tw.clear((j, i)) if done >= tw.CALIBRATION else None
                if both is not None:
                    if math.isfinite(both[0]) and math.isfinite(both[1]):
                        z[j, i] = 1.0 if both[0] >= both[1] else 0.0
                    continue
                if seconds is not None and done >= MIN_POINTS and time.monotonic() - t0 > seconds:
                    break
                x, y = xs[i], ys[j]
                pt = dict(point)
                pt[xvar] = int(x) if xinteger else mpmath.mpf(float(x))
                pt[yvar] = int(y) if yinteger else mpmath.mpf(float(y))
                c, t = _safe(f_claim, pt), _safe(f_true, pt)
                tw.calibrate((j, i), c, t)
                if math.isfinite(c) and math.isfinite(t):
                    z[j, i] = 1.0 if c >= t else 0.0
    except _PlotTimeUp:
        pass
    tw.record(stats)
    fig = _figure((6.4, 4.6), 110)
    ax = fig.subplots()
    cmap = ListedColormap(["#f2b8b5", "#b9dfc4"])
    ax.pcolormesh(xs, ys, np.ma.masked_invalid(z), cmap=cmap, vmin=0, vmax=1, shading="nearest")
    if np.isfinite(z).any() and 0 < np.nanmean(z) < 1:
        ax.contour(xs, ys, np.nan_to_num(z, nan=0.5), levels=[0.5], colors="#6a1b9a", linewidths=1.3)
    from matplotlib.patches import Patch

    handles: list[Any] = [Patch(color="#b9dfc4", label="claim holds"), Patch(color="#f2b8b5", label="claim fails")]
    if mark is not None:
        ax.plot([mark[0]], [mark[1]], "x", color="k", label="counterexample")
        handles.append(ax.lines[-1])
    if xrange[0] > 0 and xrange[1] / xrange[0] > 50:
        ax.set_xscale("log")
        _log_axis(ax.xaxis)
    if yrange[0] > 0 and yrange[1] / yrange[0] > 50:
        ax.set_yscale("log")
        _log_axis(ax.yaxis)
    ax.set_xlabel(axis_label(xvar))
    ax.set_ylabel(axis_label(yvar))
    head = _wrap_title(title + "\n(boundary: purple line)", 70)
    ax.legend(handles=handles, fontsize=7, loc="lower left")
    fig.subplots_adjust(left=0.13, right=0.97, top=min(0.88, 0.96 - 0.04 * head.count("\n")), bottom=0.12)
    _title(ax, head)  # after the margins: the y ticks it looks at are those drawn
    _ticks_in_view(fig)
    save_labelled(fig, path)
    _release(fig)
    valid = int(np.isfinite(z).sum())
    return path, (float(np.nanmean(z)) if valid else math.nan), valid


__all__ = ["axis_label", "parse_region", "plot_claim", "plot_region_2d", "save_labelled", "sweep"]
