"""Imported once by the forkserver of a parallel audit (:mod:`symdp.audit.parallel`): builds the theorem
library (and the special-case relation's statement keys) and imports the verifier, the plots and the
mechanism-level audits, so every forked worker starts warm instead of paying SymPy's import and the library build
per worker.  Matplotlib (Agg) is imported and one
small log-scale figure with mathtext is drawn, so a worker's first plot does not pay the font and mathtext set-up
(about 2 s per worker on the 2-core machine)."""

from __future__ import annotations

import contextlib
import io

import scipy.optimize  # what the pair oracle imports where it is used (not at import: the parent)
import scipy.stats  # noqa: F401 - as scipy.optimize

from ..library import all_theorems
from ..verify import (
    special_cases,
    verify_theorem,  # noqa: F401 - imported for its side effect (warm worker)
)
from . import algorithms, engine, experiments, plots, readings  # noqa: F401

# the special-case relation's statement keys (srepr of every entry, ~0.5 s) are kept per theorem object: computed
# here once, every forked worker inherits them instead of paying for them at its first claim
special_cases(all_theorems(with_evidence=False))


def _warm_matplotlib() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 2), dpi=40)
    ax.plot([0.1, 10.0], [1e-3, 1.0], label="ε δ μ σ")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.legend()
    ax.set_title("warm")
    fig.savefig(io.BytesIO(), format="png")
    plt.close(fig)


with contextlib.suppress(Exception):  # warming is an optimisation only
    _warm_matplotlib()
