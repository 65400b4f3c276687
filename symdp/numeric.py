"""Small numerical searches shared by the library and the verifier (float or mpmath arithmetic)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

GOLDEN = (math.sqrt(5) - 1) / 2


def golden_section_min(f: Callable[[Any], Any], lo: Any, hi: Any, iters: int) -> tuple[Any, Any]:
    """Golden-section search for a minimum of a unimodal ``f`` on ``[lo, hi]``.

    Runs exactly ``iters`` shrink steps and returns the values of ``f`` at the two final probes
    (the caller takes their min, or their max when it searched ``-f``).  Works with floats and with
    mpmath numbers alike: the arithmetic follows the type of ``lo`` and ``hi``.
    """
    x1, x2 = hi - GOLDEN * (hi - lo), lo + GOLDEN * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(iters):
        if f1 < f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - GOLDEN * (hi - lo)
            f1 = f(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + GOLDEN * (hi - lo)
            f2 = f(x2)
    return f1, f2


__all__ = ["GOLDEN", "golden_section_min"]
