"""Issue 25 (``symdp audit --quick`` at least 5x faster than the full audit): the plots' cheaper drawing gives the
same pixels as matplotlib's own way.  The reused figure is emptied by removing its Axes (not ``Figure.clf``, which
first clears every Axes), the title sits at its fixed place unless the y axis shows an offset text, where
matplotlib's automatic placement lifts it over that text, and a log axis locates only the ticks inside its view."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from symdp.audit import plots as P


def _stock_title(ax, text):
    ax.set_title(text, fontsize=9)  # matplotlib's automatic placement


def _stock_release(fig):
    fig.clf()


def _draw(tmp_path, name, f_c, f_t, lo, hi, monkeypatch=None, stock=False, region=False):
    if stock:
        monkeypatch.setattr(P, "_title", _stock_title)
        monkeypatch.setattr(P, "_release", _stock_release)
        monkeypatch.setattr(P, "_ticks_in_view", lambda fig: None)  # the log locators' own ticks, outside the view too
    path = tmp_path / name
    P.plot_claim(path, title="FAILS: a.claim\nthe claim's title", f_claim=f_c, f_true=f_t, point={"x": 1.0}, var="x",
                 lo=lo, hi=hi, claim_label="claimed", true_label="exact", mark=(lo + hi) / 2,
                 region=f"holds for x <= {(lo + hi) / 2}" if region else None, seconds=None)
    if stock:
        monkeypatch.undo()
    return np.asarray(Image.open(io.BytesIO(path.read_bytes())))


CASES = [
    # log-log curves (log x, log y axes), a crossing with a PARTIAL region
    ("loglog", lambda p: 2 * p["x"] ** 2, lambda p: p["x"] ** 2.1, 0.01, 100.0, True),
    # linear values near 1e-6 that differ by 1e-9: the y axis has an offset text ("1e-6" / "+1e-6")
    ("offset", lambda p: 1e-6 + 1e-9 * p["x"], lambda p: 1e-6 + 1.1e-9 * p["x"], 0.0, 2.0, False),
    # a ratio near 1 on linear axes
    ("linear", lambda p: p["x"] + 1.0, lambda p: p["x"] + 0.5, 0.0, 3.0, False),
]


def test_cheaper_drawing_gives_matplotlibs_own_pixels(tmp_path, monkeypatch):
    for name, f_c, f_t, lo, hi, region in CASES:
        ref = _draw(tmp_path, f"{name}-stock.png", f_c, f_t, lo, hi, monkeypatch, stock=True, region=region)
        got = _draw(tmp_path, f"{name}.png", f_c, f_t, lo, hi, region=region)
        assert ref.shape == got.shape and (ref == got).all(), name
        again = _draw(tmp_path, f"{name}-again.png", f_c, f_t, lo, hi, region=region)  # the reused figure, emptied
        assert (again == got).all(), name


def test_the_title_keeps_automatic_placement_over_an_offset_text(tmp_path, monkeypatch):
    """With an offset text above the y axis the title is placed by matplotlib (lifted over it); without one it is at
    its fixed place, where matplotlib would put it too (the pixels are compared above)."""
    seen = []
    orig = P.save_labelled

    def keep(fig, path, **kw):
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        ax = fig.get_axes()[0]
        off = ax.yaxis.offsetText
        seen.append((ax._autotitlepos, off.get_text(), ax.title.get_window_extent(r), off.get_window_extent(r)))
        orig(fig, path, **kw)

    monkeypatch.setattr(P, "save_labelled", keep)
    for name, f_c, f_t, lo, hi, region in CASES:
        _draw(tmp_path, f"{name}.png", f_c, f_t, lo, hi, region=region)
    (auto_log, off_log, _, _), (auto_off, off_off, title, offset), (auto_lin, off_lin, _, _) = seen
    assert off_off and auto_off is not False  # an offset text: automatic placement
    assert not title.overlaps(offset)
    assert not off_log and auto_log is False and not off_lin and auto_lin is False


def test_release_empties_the_reused_figure(tmp_path):
    P.plot_claim(tmp_path / "a.png", title="t", f_claim=lambda p: p["x"] + 1, f_true=lambda p: p["x"], point={"x": 1.0},
                 var="x", lo=0.0, hi=1.0, seconds=None)
    fig = P._figure((7.0, 5.2), 110)
    assert fig.get_axes() == [] and not fig.legends and not fig.texts
    P._release(fig)


def test_log_axes_locate_only_the_ticks_in_view(tmp_path, monkeypatch):
    """The log locators' ticks a decade beyond each end (created, labelled and left out by matplotlib at each draw) are
    not located; every tick inside the view still is."""
    seen = []
    orig = P.save_labelled

    def keep(fig, path, **kw):
        for a in fig.get_axes():
            for axis in (a.xaxis, a.yaxis):
                if axis.get_scale() == "log":
                    lo, hi = sorted(axis.get_view_interval())
                    for loc in (axis.get_major_locator(), axis.get_minor_locator()):
                        every = np.asarray(loc.inner())
                        got = np.asarray(loc())
                        inside = every[(every >= lo * (1 - 1e-9)) & (every <= hi * (1 + 1e-9))]
                        seen.append((len(every), len(got)))
                        assert np.array_equal(got, inside)
        orig(fig, path, **kw)

    monkeypatch.setattr(P, "save_labelled", keep)
    _name, f_c, f_t, lo, hi, region = CASES[0]
    _draw(tmp_path, "loglog.png", f_c, f_t, lo, hi, region=region)
    assert seen and sum(a for a, _ in seen) > sum(b for _, b in seen) > 0
