"""Small numerical searches shared by the library and the verifier (float or mpmath arithmetic)."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import mpmath
from mpmath.libmp import (
    fone,
    from_int,
    fzero,
    mpf_add,
    mpf_div,
    mpf_erf,
    mpf_erfc,
    mpf_lt,
    mpf_mul_int,
    mpf_neg,
    mpf_pos,
    mpf_sqrt,
    mpf_sub,
)

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


def iterate(step: Callable[[Any], Any], state: Any, n: int, key: Callable[[Any], Any]) -> Any:
    """``state`` after ``n`` applications of ``step``, the same object the plain loop ``for _ in range(n): state =
    step(state)`` ends with, for a deterministic ``step`` (a pure function of the state at a fixed working precision).

    ``key(state)`` identifies a state exactly (e.g. the ``_mpf_`` tuples of its mpf numbers).  Once a state comes back
    (a fixed-precision iteration that has converged settles on a fixed point or a short cycle of roundings) the
    sequence is periodic from its first visit on, so the state after ``n`` steps is read off the cycle and the
    remaining steps are skipped: the result is bit for bit the loop's."""
    seen: dict[Any, int] = {}
    hist: list[Any] = []
    for i in range(n):
        k = key(state)
        j = seen.get(k)
        if j is not None:  # state_i == state_j: state_m == state_{j + (m - j) % (i - j)} for every m >= j
            return hist[j + (n - j) % (i - j)]
        seen[k] = i
        hist.append(state)
        state = step(state)
    return state


#: up to this n, :func:`log_binomial` rounds the exact integer ``math.comb(n, k)`` once
EXACT_BINOMIAL_MAX = 1024


@lru_cache(maxsize=1 << 16)
def _binomial_at(n: int, k: int, prec: int, rounding: str, log: bool) -> Any:
    with mpmath.workprec(prec):
        if log and 0 <= k <= n <= EXACT_BINOMIAL_MAX:
            # the exact integer rounded once (correctly rounded; mpmath.binomial's gamma-product route is within an
            # ulp or so, and ~70 us a call): the log of a value at least as accurate, a few times faster
            return mpmath.log(mpmath.mpf(math.comb(n, k)))
        b = mpmath.binomial(n, k)
        return mpmath.log(b) if log else b


def binomial(n: int, k: int) -> Any:
    """``mpmath.binomial(n, k)`` for Python ints, memoized per (n, k, working precision and rounding): the same bits,
    computed once.  The exact-RDP sums of the subsampled Gaussian (SGMRDP, the verifier's RDP and moments-accountant
    oracles) ask for the same binomials at every point and order; mpmath's gamma-product route was most of their time."""
    import mpmath

    prec, rnd = mpmath.mp._prec_rounding
    return _binomial_at(int(n), int(k), prec, rnd, False)


def log_binomial(n: int, k: int) -> Any:
    """``log binomial(n, k)`` for Python ints at the working precision, memoized like :func:`binomial`: for
    ``0 <= k <= n <= EXACT_BINOMIAL_MAX`` the log of the exact ``math.comb(n, k)`` rounded once to the working
    precision (correctly rounded; ``mpmath.binomial`` differs from it by an ulp in ~0.07% of the cases up to n = 300,
    tests/test_sgm_rdp_hoisted.py), else ``mpmath.log(mpmath.binomial(n, k))``."""
    import mpmath

    prec, rnd = mpmath.mp._prec_rounding
    return _binomial_at(int(n), int(k), prec, rnd, True)


_SQRT2: dict[int, tuple] = {}


def ncdf_same_bits(x: Any) -> Any:
    """``mpmath.ncdf(x)`` (mu = 0, sigma = 1) with the same bits: ncdf's own steps (10 guard bits, ``(x - 0)`` over
    ``1 * sqrt(2)``, ``erfc(-a)/2`` below 0 else ``(1 + erf(a))/2``, rounded back) on mpmath's low-level functions,
    sqrt(2) once per precision.  The wrapped ncdf spent about half of its time outside erf itself.  A non-mpf
    argument goes to ncdf.  Here (layer 1) for the library's implicit functions and the verifier's oracles alike
    (tests/test_oracle_kov_fast.py compares it with ncdf bit for bit)."""
    ctx = mpmath.mp
    if type(x) is not ctx.mpf:
        return mpmath.ncdf(x)
    prec, rnd = ctx._prec_rounding
    P = prec + 10
    den = _SQRT2.get(P)
    if den is None:
        den = _SQRT2[P] = mpf_mul_int(mpf_sqrt(from_int(2), P, rnd), 1, P, rnd)
    a = mpf_div(mpf_sub(x._mpf_, fzero, P, rnd), den, P, rnd)
    two = from_int(2)
    if mpf_lt(a, fzero):
        r = mpf_div(mpf_erfc(mpf_neg(a, P, rnd), P, rnd), two, P, rnd)
    else:
        r = mpf_div(mpf_add(mpf_erf(a, P, rnd), fone, P, rnd), two, P, rnd)
    return ctx.make_mpf(mpf_pos(r, prec, rnd))


__all__ = ["EXACT_BINOMIAL_MAX", "GOLDEN", "binomial", "golden_section_min", "iterate", "log_binomial", "ncdf_same_bits"]
