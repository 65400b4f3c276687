"""The kernel lookup: the one place the accountants obtain numerical kernels of library formulas and
their verdicts, and the one loader of a generated module with its hash check (:func:`load_generated`,
also used by :func:`symdp.codegen.kernel`).  It lives in codegen, which writes what it reads; the
accountants import it (``symdp.accountants._kernels`` re-exports it for their existing imports).

Every formula an accountant evaluates is the ``rhs`` of a theorem-library entry
(``symdp.library.accounting`` and the GDP entries of ``symdp.library.gdp``).  At run time the
accountants do **not** import SymPy, build the library or hash statements: ``symdp codegen`` writes
``generated/accounting_meta.json`` (per entry: statement hash, the ledger verdict for that hash,
the rhs kernel's module, function and argument names) beside the kernels, and
``symdp codegen --check`` fails when it is out of date.  :func:`_kernel` imports the generated
function named there and checks that the module's stored hash is the one in the data file (both
written by the same codegen run); :func:`verdict` reads the recorded verdict.  Importing this module
imports no SymPy (nor does :mod:`symdp.codegen`'s package ``__init__``).

Only an entry absent from the data file (a user theorem that was never generated) falls back to
``sympy.lambdify`` of its ``rhs``, importing SymPy then; :data:`KERNEL_SOURCE` records which path
served each id so tests can assert the generated path is used.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from ..errors import SymdpError
from ..ledger_json import verdict_rows

#: (id, backend) -> "codegen" | "lambdify ..." for each kernel handed out
KERNEL_SOURCE: dict[tuple[str, str], str] = {}

META_FILE = "accounting_meta.json"
_RERUN = "run `symdp codegen` to regenerate generated/"


@lru_cache(maxsize=1)
def meta() -> dict[str, Any]:
    """The parsed ``symdp.generated/accounting_meta.json`` (``{"entries": {id: {...}}}``)."""
    try:
        text = resources.files("symdp.generated").joinpath(META_FILE).read_text()
    except (FileNotFoundError, ModuleNotFoundError) as exc:
        raise SymdpError(f"generated/{META_FILE} is missing; {_RERUN}") from exc
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("entries"), dict):
        raise SymdpError(f"generated/{META_FILE} is malformed; {_RERUN}")
    return data


def _entry(theorem_id: str) -> dict[str, Any] | None:
    try:
        e = meta()["entries"].get(theorem_id)
    except SymdpError:
        return None
    return e if isinstance(e, dict) else None


@cache
def _kernel(theorem_id: str, backend: str = "numpy") -> Callable[..., Any]:
    """Kernel of ``get(theorem_id).rhs`` for ``backend`` in {"numpy", "torch"}; keyword arguments by symbol name.

    Served from ``generated/`` through the data file (no SymPy); raises :class:`SymdpError` when the
    generated module disagrees with the data file (regenerate).  An entry the data file does not list
    is lambdified from the library (SymPy imported then, recorded in :data:`KERNEL_SOURCE`).
    """
    e = _entry(theorem_id)
    k = e.get("kernel") if e is not None else None
    if isinstance(k, dict):
        fn = load_generated(f"symdp.generated.{backend}_{k['module']}", k["name"], e["hash"],  # type: ignore[index]
                            f"{k['name']} (checked against {META_FILE})")
        KERNEL_SOURCE[(theorem_id, backend)] = "codegen"
        return fn
    KERNEL_SOURCE[(theorem_id, backend)] = f"lambdify (not in generated/{META_FILE})"
    return _lambdified(theorem_id, backend)


def load_generated(modname: str, name: str, expected_hash: str, what: str) -> Callable[..., Any]:
    """Function ``name`` of the generated module ``modname``, after checking that the hash the module
    stores for it (``HASHES[name]``) is ``expected_hash``; :class:`SymdpError` telling the user to run
    ``symdp codegen`` when the module or function is missing or the kernel ``what`` is stale."""
    try:
        mod = importlib.import_module(modname)
        fn = getattr(mod, name)
        stored = mod.HASHES[name]
    except (ImportError, AttributeError, KeyError) as exc:
        raise SymdpError(f"generated kernel {name} missing from {modname}; {_RERUN}") from exc
    if stored != expected_hash:
        raise SymdpError(f"generated kernel {what} is stale (hash {stored} != {expected_hash}); {_RERUN}")
    return fn  # type: ignore[no-any-return,unused-ignore]


def verdict(theorem_id: str) -> str:
    """The verification status of a library entry, keyed by its statement hash (``UNKNOWN`` if unlisted).

    The statement hash is the one recorded at codegen time in ``accounting_meta.json`` (no statement is
    hashed at run time).  The ledger's current verdict is used when its entry was made for that hash (so
    a later ``symdp verify`` is seen without regenerating); an entry for another statement is stale and
    gives ``UNCHECKED``, as the library does; with no ledger shipped, the verdict recorded at codegen time.
    """
    e = _entry(theorem_id)
    if e is None:
        return "UNKNOWN"
    led = verdict_rows()
    if not led:
        return str(e.get("verdict", "UNKNOWN"))
    rec = led.get(theorem_id)
    if rec is None:
        return "UNCHECKED"
    h, v = rec
    return v if h in ("", e.get("hash")) else "UNCHECKED"


# ------------------------------------------------------------------ fallback (imports SymPy)
def _numpy_namespace() -> dict[str, Any]:
    import numpy as np

    from .. import _special as sps

    return {
        "loggamma": sps.gammaln, "erfc": sps.erfc, "erf": sps.erf, "log1p": np.log1p, "expm1": np.expm1,
        "ndtr": sps.ndtr, "log_ndtr": sps.log_ndtr, "Min": np.minimum, "Max": np.maximum,
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
        "log": _f("log"), "exp": _f("exp"), "sqrt": _f("sqrt"), "log1p": _f("log1p"), "expm1": _f("expm1"),
        "loggamma": lambda v: torch.lgamma(v) if isinstance(v, torch.Tensor) else math.lgamma(v),
        "erfc": lambda v: torch.special.erfc(v) if isinstance(v, torch.Tensor) else math.erfc(v),
        "erf": lambda v: torch.special.erf(v) if isinstance(v, torch.Tensor) else math.erf(v),
        "ndtr": torch.special.ndtr, "log_ndtr": torch.special.log_ndtr, "Min": _tmin, "Max": _tmax,
        "pi": math.pi, "E": math.e,
    }


def _lambdified(theorem_id: str, backend: str) -> Callable[..., Any]:
    import sympy as sp

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
    call.__doc__ = f"lambdify of {th.id}: {sp.sstr(th.rhs)}"
    return call


__all__ = ["KERNEL_SOURCE", "META_FILE", "_kernel", "load_generated", "meta", "verdict"]
