r"""symdp: executable, checkable theory of differential privacy and generalization.

The symbolic core (theorems, library, asymptotics) imports without torch.

>>> import symdp
>>> th = symdp.get("he2021.lemma_kl")
>>> float(th.evaluate(epsilon=1.0)) < 1.0
True
"""

from __future__ import annotations

from .errors import (
    ClaimFileError,
    ConvergenceError,
    InvalidParameterError,
    InvalidTypeError,
    SymdpError,
    UnknownTheoremError,
    UnsupportedError,
)
from .library import all_theorems, get, ids
from .theorem import Evidence, Expansion, Kind, Property, Source, Theorem, Verdict, theorem

__version__ = "0.1.0"

__all__ = [
    "ClaimFileError", "ConvergenceError", "Evidence", "Expansion", "InvalidParameterError",
    "InvalidTypeError", "Kind", "Property", "Source", "SymdpError", "Theorem", "UnknownTheoremError",
    "UnsupportedError", "Verdict", "__version__", "all_theorems", "get", "ids", "theorem",
]
