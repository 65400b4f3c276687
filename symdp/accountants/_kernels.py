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


def _probe_points(th: Any) -> list[dict[str, float]]:
    """A few points inside the entry's numeric domain (the same fraction of every box)."""
    box = th.domain_dict()
    pts = []
    for f in (0.1, 0.37, 0.5, 0.73, 0.9):
        pt = {}
        for sym in th.bound_symbols:
            if sym not in box:
                return []
            lo, hi = (float(v) for v in box[sym])
            v = lo + f * (hi - lo)
            pt[sym.name] = float(round(v)) if sym.is_integer else v
        pts.append(pt)
    return pts


def _agrees(fn: Callable[..., Any], ref: Callable[..., Any], th: Any, backend: str) -> bool:
    """The generated kernel and lambdify of the same rhs agree (rtol 1e-9) at the probe points."""
    for pt in _probe_points(th):
        try:
            if backend == "torch":
                import torch

                a = float(fn(**{k: torch.tensor(v, dtype=torch.float64) for k, v in pt.items()}))
            else:
                a = float(fn(**pt))
        except Exception:
            return False
        try:
            with np.errstate(all="ignore"):
                b = float(ref(**pt))
        except Exception:  # the reference cannot evaluate this rhs: nothing to compare against
            continue
        if math.isnan(a) != math.isnan(b) or (not math.isnan(b) and not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)):
            return False
    return True


@lru_cache(maxsize=None)
def _kernel(theorem_id: str, backend: str = "numpy") -> Callable[..., Any]:
    """Kernel of ``get(theorem_id).rhs`` for ``backend`` in {"numpy", "torch"}; keyword arguments by symbol name.

    The generated kernel is used when it exists and agrees with a direct ``lambdify`` of the same
    ``rhs`` at a few points of the entry's domain; otherwise the lambdify kernel is used and
    :data:`KERNEL_SOURCE` says why (a disagreement is a code-generation bug to report).
    """
    from ..library import get

    th = get(theorem_id, with_evidence=False)
    fn = _codegen_kernel(theorem_id, backend)
    ref = _lambdified(th, "numpy")
    if fn is not None:
        if _agrees(fn, ref, th, backend):
            KERNEL_SOURCE[(theorem_id, backend)] = "codegen"
            return fn
        KERNEL_SOURCE[(theorem_id, backend)] = "lambdify (generated kernel disagreed with its rhs)"
        return _lambdified(th, backend)
    KERNEL_SOURCE[(theorem_id, backend)] = "lambdify"
    return _lambdified(th, backend) if backend != "numpy" else ref


def _lambdified(th: Any, backend: str) -> Callable[..., Any]:
    syms = th.bound_symbols
    ns = _numpy_namespace() if backend == "numpy" else _torch_namespace()
    modules: list[Any] = [ns, "numpy"] if backend == "numpy" else [ns]
    f = sp.lambdify(syms, th.rhs, modules=modules)
    names = [s.name for s in syms]

    def call(**kw: Any) -> Any:
        return f(*(kw[n] for n in names))

    call.__name__ = th.kernel_name
    call.__doc__ = f"lambdify of {th.id}: {sp.sstr(th.rhs)}"
    return call


_VERDICTS: dict[str, tuple[Any, Any, str]] = {}


def verdict(theorem_id: str) -> str:
    """The verification status of a library entry (``UNCHECKED`` when unknown).

    Looking the status up hashes the statement (sympy ``srepr``), milliseconds per entry; the answer is
    cached per (library entry object, loaded ledger object), so a reloaded library or ledger is re-read.
    """
    from ..library import get

    try:
        key: tuple[Any, Any] | None
        try:
            from ..verify.ledger import load_ledger

            key = (get(theorem_id, with_evidence=False), load_ledger())
        except Exception:  # ledger API unavailable: no caching
            key = None
        hit = _VERDICTS.get(theorem_id)
        if key is not None and hit is not None and hit[0] is key[0] and hit[1] is key[1]:
            return hit[2]
        status = get(theorem_id).status
        if key is not None:
            _VERDICTS[theorem_id] = (key[0], key[1], status)
        return status
    except Exception:
        return "UNKNOWN"


__all__ = ["KERNEL_SOURCE", "_kernel", "verdict"]
