r"""Code generation: theorem expressions -> numpy, torch and mpmath kernels in ``generated/``.

>>> from symdp.codegen import kernel
>>> f = kernel("he2021.lemma_kl")               # numpy, rhs
>>> print(f"{float(f(epsilon=1.0)):.10f}")      # eps * tanh(eps / 2)
0.4621171573

Kernels are written by ``symdp codegen`` (see :mod:`.generate`) after the
stability pass (:mod:`.rewrite`); :mod:`.roots` holds the batched root
finders and the generated inverses of closed-form privacy curves.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache, lru_cache
from importlib import resources

from ..errors import InvalidParameterError, SymdpError
from .kernels import load_generated

__all__ = ["kernel", "manifest", "BACKENDS", "SIDES"]

BACKENDS = ("numpy", "torch", "mpmath")
SIDES = ("rhs", "lhs")

_RERUN = "run `symdp codegen` to regenerate generated/"


def manifest() -> dict:
    """The parsed ``symdp.generated/MANIFEST.json`` (raises SymdpError when absent)."""
    return _manifest()


@lru_cache(maxsize=1)
def _manifest() -> dict:
    try:
        text = resources.files("symdp.generated").joinpath("MANIFEST.json").read_text()
    except (FileNotFoundError, ModuleNotFoundError) as exc:
        raise SymdpError(f"generated kernels are missing (no MANIFEST.json); {_RERUN}") from exc
    return json.loads(text)


def kernel(theorem_id: str, backend: str = "numpy", side: str = "rhs") -> Callable:
    r"""The generated kernel computing ``side`` of library entry ``theorem_id`` in ``backend``.

    Arguments are the entry's symbol names (``Theorem.bound_symbols`` for the rhs), sorted by
    name, by keyword or position.  numpy kernels broadcast float64 arrays; torch kernels keep
    device and dtype and are differentiable; mpmath kernels take and return mpf.

    Raises :class:`~symdp.errors.SymdpError` when the kernel is missing or stale (its stored
    hash differs from ``Theorem.expr_hash()``), telling the user to run ``symdp codegen``.
    """
    if backend not in BACKENDS:
        raise InvalidParameterError(f"backend={backend!r} is not one of {BACKENDS}")
    if side not in SIDES:
        raise InvalidParameterError(f"side={side!r} is not one of {SIDES}")
    from ..library import get, user_ids

    if theorem_id in user_ids():  # a registered user theorem: compiled on demand, never into generated/
        from .user import kernel_for

        return kernel_for(get(theorem_id, with_evidence=False), backend, side)
    return _kernel(theorem_id, backend, side)


@cache
def _kernel(theorem_id: str, backend: str, side: str) -> Callable:
    from ..library import get

    th = get(theorem_id, with_evidence=False)
    entry = _manifest().get("entries", {}).get(theorem_id)
    if entry is None:
        raise SymdpError(f"no generated kernel for {theorem_id!r} (not in MANIFEST.json); {_RERUN}")
    info = entry.get("kernels", {}).get(side)
    if info is None:
        reason = entry.get("skipped", {}).get(side, f"no {side} kernel")
        raise SymdpError(f"no generated {side} kernel for {theorem_id!r}: {reason}")
    return load_generated("symdp.generated." + info["files"][backend][:-3], info["name"], th.expr_hash(),
                          f"for {theorem_id!r}")
