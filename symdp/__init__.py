r"""symdp: executable, checkable theory of differential privacy and generalization.

The symbolic core (theorems, library, asymptotics) imports without torch.

>>> import symdp
>>> th = symdp.get("he2021.lemma_kl")
>>> float(th.evaluate(epsilon=1.0)) < 1.0
True
"""

from __future__ import annotations

import sys
import types
from typing import Any

from ._provenance import provenance
from ._version import __version__
from .errors import (
    ClaimFileError,
    ConvergenceError,
    InvalidParameterError,
    InvalidTypeError,
    SymdpError,
    UnknownTheoremError,
    UnsupportedError,
)

# The symbolic core (SymPy, the theorem library) loads on first use, so that the runtime accountants
# (``symdp.accountants``, ``symdp account``) and ``symdp.mechanisms`` import without SymPy.
_LAZY = {
    "all_theorems": "library", "get": "library", "ids": "library",
    "Evidence": "theorem", "Expansion": "theorem", "Kind": "theorem", "Property": "theorem",
    "Source": "theorem", "Theorem": "theorem", "Verdict": "theorem", "theorem": "theorem",
    # the theorem calculus (issue 10)
    "chain": "calculus", "register": "calculus", "load_theorems": "calculus", "invert": "inverse",
    "rate": "asymptotics",
}


def __getattr__(name: str) -> Any:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'symdp' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value
    return value


class _Symdp(types.ModuleType):
    """``symdp.theorem`` is the decorator/factory function, as it was when imported eagerly: importing
    the submodule ``symdp.theorem`` (which sets the package attribute) must not shadow it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "theorem" and isinstance(value, types.ModuleType):
            value = value.theorem
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Symdp


__all__ = [
    "ClaimFileError", "ConvergenceError", "Evidence", "Expansion", "InvalidParameterError",
    "InvalidTypeError", "Kind", "Property", "Source", "SymdpError", "Theorem", "UnknownTheoremError",
    "UnsupportedError", "Verdict", "__version__", "all_theorems", "chain", "get", "ids", "invert", "load_theorems",
    "provenance", "rate", "register", "theorem",
]
