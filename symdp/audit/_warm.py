"""Imported once by the forkserver of a parallel audit (:mod:`symdp.audit.parallel`): builds the theorem
library and imports the verifier, the plots and the mechanism-level audits, so every forked worker starts
warm instead of paying SymPy's import and the library build per worker."""

from __future__ import annotations

from ..library import all_theorems
from ..verify import verify_theorem  # noqa: F401 - imported for its side effect (warm worker)
from . import algorithms, engine, experiments, plots, readings  # noqa: F401

all_theorems(with_evidence=False)
