"""Where symdp reads its shipped data and where it may write (layer 1: no SymPy, no numpy).

Two ways to run symdp:

* from a **source checkout** (``pip install -e .`` or ``python -m`` in the repository): the
  repository's top-level ``generated/`` and ``proofs/`` are the library's own, and ``symdp codegen``
  / ``symdp verify`` update them in place (that is how they are maintained);
* from an **installed package** (a wheel): ``symdp/generated`` and ``symdp/_proofs`` ship inside the
  package and are read-only.  Nothing writes into the installed package at run time: the default
  output of ``symdp verify`` is ``./proofs`` and of ``symdp codegen`` ``./generated`` in the working
  directory, and :func:`refuse_inside_package` turns away any output path inside the package.

>>> shipped_generated().name in ("generated",)
True
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from .errors import InvalidParameterError

#: the installed package (``.../symdp``)
PACKAGE_DIR = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def source_checkout() -> Path | None:
    """The repository root when symdp runs from a source checkout, else ``None``."""
    root = PACKAGE_DIR.parent
    if (root / "pyproject.toml").is_file() and (root / "generated").is_dir() and (root / "proofs").is_dir():
        return root
    return None


def shipped_generated() -> Path:
    """The library's generated kernels: the checkout's ``generated/``, else the package's ``symdp/generated``."""
    root = source_checkout()
    return root / "generated" if root is not None else PACKAGE_DIR / "generated"


def shipped_proofs() -> Path:
    """The library's verdict ledger and certificates: the checkout's ``proofs/``, else ``symdp/_proofs``."""
    root = source_checkout()
    return root / "proofs" if root is not None else PACKAGE_DIR / "_proofs"


def default_generated_out() -> Path:
    """Where ``symdp codegen`` writes by default: the checkout's ``generated/``, else ``./generated``."""
    root = source_checkout()
    return root / "generated" if root is not None else Path.cwd() / "generated"


def default_proofs_out() -> Path:
    """Where ``symdp verify`` writes by default: the checkout's ``proofs/``, else ``./proofs``."""
    root = source_checkout()
    return root / "proofs" if root is not None else Path.cwd() / "proofs"


def inside_package(path: str | Path) -> bool:
    """True when ``path`` is the installed package directory or lies below it (symlinks resolved)."""
    p = Path(path).resolve()
    return p == PACKAGE_DIR or PACKAGE_DIR in p.parents


def refuse_inside_package(name: str, path: str | Path) -> Path:
    """``path`` as a Path; raises :class:`InvalidParameterError` when it lies inside the installed package."""
    if str(path).strip() == "":
        raise InvalidParameterError(f"{name}='' is empty; allowed: a directory of your own")
    if inside_package(path):
        raise InvalidParameterError(f"{name}={str(path)!r} is inside the installed symdp package "
                                    f"({PACKAGE_DIR}); allowed: a directory of your own")
    return Path(path)


__all__ = ["PACKAGE_DIR", "default_generated_out", "default_proofs_out", "inside_package", "refuse_inside_package",
           "shipped_generated", "shipped_proofs", "source_checkout"]
