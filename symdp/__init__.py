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


def _checkout_generated() -> None:
    """From a source checkout the top-level ``generated/`` is the package ``symdp.generated`` (an install maps it
    by pyproject's ``package-dir``).  Without an install of this checkout (``PYTHONPATH=.``, ``python -m symdp.cli``
    in the repository, or an editable install of another checkout) nothing maps it, and the accountants' kernel
    lookup found no data file and lambdified every formula from SymPy instead of the generated stable kernels
    (e.g. ``log(1 - erfc(x)/2)`` for ``log_ndtr``: -inf terms, the RDP series rejected, epsilon 50% looser).
    So the checkout's own ``generated/`` is registered here, before anything imports it."""
    from ._paths import source_checkout

    name = f"{__name__}.generated"
    root = source_checkout()
    if root is None or name in sys.modules:
        return
    init = root / "generated" / "__init__.py"
    if not init.is_file():
        return
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
    if spec is None or spec.loader is None:
        return
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)


_checkout_generated()


__all__ = [
    "ClaimFileError", "ConvergenceError", "Evidence", "Expansion", "InvalidParameterError",
    "InvalidTypeError", "Kind", "Property", "Source", "SymdpError", "Theorem", "UnknownTheoremError",
    "UnsupportedError", "Verdict", "__version__", "all_theorems", "chain", "get", "ids", "invert", "load_theorems",
    "provenance", "rate", "register", "theorem",
]
