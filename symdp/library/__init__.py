"""The theorem library: one module per source or topic, each exporting ``THEOREMS``.

>>> from symdp.library import get
>>> get("he2021.lemma_kl").kind.value
'bound'
"""

from __future__ import annotations

import difflib
import importlib
from functools import lru_cache

from ..errors import UnknownTheoremError
from ..theorem import Theorem

#: library modules, in display order; each defines ``THEOREMS: list[Theorem]``
MODULES = (
    "he_tao",
    "he_tao_long",
    "classical",
    "gdp",
    "max_information",
    "kl_privacy",
    "accounting",
    "bridges",
)

#: theorems registered at run time (:func:`symdp.calculus.register`), beside the library's
_USER: dict[str, Theorem] = {}


@lru_cache(maxsize=1)
def _load() -> dict[str, Theorem]:
    out: dict[str, Theorem] = {}
    for name in MODULES:
        try:
            mod = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:  # a module not written yet
            if exc.name == f"{__name__}.{name}":
                continue
            raise
        for th in mod.THEOREMS:
            if th.id in out:
                raise ValueError(f"duplicate theorem id {th.id!r} (in {name})")
            out[th.id] = th
    return out


def _with_evidence(th: Theorem) -> Theorem:
    from ..ledger_json import evidence_for  # the ledger read as plain JSON (below the library)

    ev = evidence_for(th)
    return th.with_evidence(ev) if ev is not None else th


def _all() -> dict[str, Theorem]:
    lib = _load()
    if not _USER:
        return lib
    return {**lib, **_USER}


def register(th: Theorem, *, replace: bool = False) -> Theorem:
    """Register a user theorem beside the library's (``get``, ``kernel``, ``verify``, ``audit`` and
    ``derive`` then accept its id).  A library id cannot be shadowed; re-registering a user id needs
    ``replace=True``."""
    from ..errors import InvalidParameterError, InvalidTypeError

    if not isinstance(th, Theorem):
        raise InvalidTypeError(f"theorem={th!r}: expected a symdp.Theorem, got {type(th).__name__}")
    if th.id in _load():
        raise InvalidParameterError(f"theorem id={th.id!r} is a library entry; allowed: an id not in the library")
    if th.id in _USER and not replace and _USER[th.id] != th:
        raise InvalidParameterError(f"theorem id={th.id!r} is already registered; pass replace=True to replace it")
    _USER[th.id] = th
    return th


def unregister(id: str) -> None:
    """Remove a registered user theorem and its typed implication, so no chain finds it (no-op when absent)."""
    from .implications import unregister_implication

    if id in _load():  # a library entry's implication is the library's own: nothing of it is a user's
        return
    _USER.pop(id, None)
    unregister_implication(id)


def user_ids() -> list[str]:
    return list(_USER)


def all_theorems(source: str | None = None, *, with_evidence: bool = True) -> list[Theorem]:
    """Every entry (optionally of one source key such as ``"he2021-uai"``), in library order,
    then the registered user theorems."""
    ths = [t for t in _all().values() if source is None or t.source.paper == source or t.id.startswith(source)]
    return [_with_evidence(t) for t in ths] if with_evidence else ths


def ids() -> list[str]:
    return list(_all())


def get(id: str, *, with_evidence: bool = True) -> Theorem:
    """The entry with this id; unknown ids raise with the nearest suggestions."""
    lib = _all()
    if id not in lib:
        close = difflib.get_close_matches(id, list(lib), n=5, cutoff=0.4)
        hint = f"; did you mean: {', '.join(close)}" if close else ""
        raise UnknownTheoremError(f"unknown theorem id {id!r}{hint}")
    return _with_evidence(lib[id]) if with_evidence else lib[id]


__all__ = ["MODULES", "all_theorems", "get", "ids", "register", "unregister", "user_ids"]
