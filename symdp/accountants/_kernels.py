"""The one place the accountants obtain numerical kernels of library formulas.

Every formula an accountant evaluates is the ``rhs`` of a theorem-library entry
(``symdp.library.accounting`` and the GDP entries of ``symdp.library.gdp``).
:func:`_kernel` returns a callable taking the entry's symbols as keyword
arguments, from :func:`symdp.codegen.kernel` (the generated, committed code).
If the generated kernel is unavailable (no ``generated/`` module yet), it falls
back to ``sympy.lambdify`` of the *same* ``rhs``; :data:`KERNEL_SOURCE` records
which path served each id so tests can assert the generated path is used.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Callable

import numpy as np
import scipy.special as sps
import sympy as sp

#: id -> "codegen" | "lambdify" for each kernel handed out
KERNEL_SOURCE: dict[tuple[str, str], str] = {}


def _numpy_namespace() -> dict[str, Any]:
    return {
        "loggamma": sps.gammaln,
        "erfc": sps.erfc,
        "erf": sps.erf,
        "log1p": np.log1p,
        "expm1": np.expm1,
        "ndtr": sps.ndtr,
        "log_ndtr": sps.log_ndtr,
        "Min": np.minimum,
        "Max": np.maximum,
    }


def _torch_namespace() -> dict[str, Any]:
    import torch

    def _tmin(*a: Any) -> Any:
        out = a[0]
        for b in a[1:]:
            out = torch.minimum(torch.as_tensor(out), torch.as_tensor(b))
        return out

    def _tmax(*a: Any) -> Any:
        out = a[0]
        for b in a[1:]:
            out = torch.maximum(torch.as_tensor(out), torch.as_tensor(b))
        return out

    def _f(name: str) -> Callable[[Any], Any]:
        tf = getattr(torch, name)
        mf = getattr(math, name)
        return lambda v: tf(v) if isinstance(v, torch.Tensor) else mf(v)

    return {
        "log": _f("log"),
        "exp": _f("exp"),
        "sqrt": _f("sqrt"),
        "log1p": _f("log1p"),
        "expm1": _f("expm1"),
        "loggamma": lambda v: torch.lgamma(v) if isinstance(v, torch.Tensor) else math.lgamma(v),
        "erfc": lambda v: torch.special.erfc(v) if isinstance(v, torch.Tensor) else math.erfc(v),
        "erf": lambda v: torch.special.erf(v) if isinstance(v, torch.Tensor) else math.erf(v),
        "ndtr": torch.special.ndtr,
        "log_ndtr": torch.special.log_ndtr,
        "Min": _tmin,
        "Max": _tmax,
        "pi": math.pi,
        "E": math.e,
    }


def _codegen_kernel(theorem_id: str, backend: str) -> Callable[..., Any] | None:
    try:
        from ..codegen import kernel as cg_kernel  # type: ignore[attr-defined]
    except ImportError:
        return None
    try:
        return cg_kernel(theorem_id, backend=backend)
    except Exception:  # not generated yet / stale: fall back, recorded in KERNEL_SOURCE
        return None


@lru_cache(maxsize=None)
def _kernel(theorem_id: str, backend: str = "numpy") -> Callable[..., Any]:
    """Kernel of ``get(theorem_id).rhs`` for ``backend`` in {"numpy", "torch"}; keyword arguments by symbol name."""
    fn = _codegen_kernel(theorem_id, backend)
    if fn is not None:
        KERNEL_SOURCE[(theorem_id, backend)] = "codegen"
        return fn
    from ..library import get

    th = get(theorem_id, with_evidence=False)
    syms = th.bound_symbols
    ns = _numpy_namespace() if backend == "numpy" else _torch_namespace()
    modules: list[Any] = [ns, "numpy"] if backend == "numpy" else [ns]
    f = sp.lambdify(syms, th.rhs, modules=modules)
    names = [s.name for s in syms]

    def call(**kw: Any) -> Any:
        return f(*(kw[n] for n in names))

    call.__name__ = th.kernel_name
    call.__doc__ = f"lambdify of {theorem_id}: {sp.sstr(th.rhs)}"
    KERNEL_SOURCE[(theorem_id, backend)] = "lambdify"
    return call


def verdict(theorem_id: str) -> str:
    """The verification status of a library entry (``UNCHECKED`` when unknown)."""
    from ..library import get

    try:
        return get(theorem_id).status
    except Exception:
        return "UNKNOWN"


__all__ = ["KERNEL_SOURCE", "_kernel", "verdict"]
