r"""Batched bracketed root finding and the inverses of closed-form privacy curves.

:func:`bisect` solves ``f(x) = target`` for a whole batch of configurations at
once (numpy or torch), keeping a bracket ``[lo, hi]`` on which ``f - target``
changes sign, for a fixed maximum number of iterations.  It reports a
``converged`` mask and rounds to the **safe side**: ``side="upper"`` returns
the upper end of the final bracket, ``side="lower"`` the lower end; the
function has been evaluated at the returned point, so it lies on the same side
of the target as the original bracket end (no optimistic answer on trouble:
configurations whose initial bracket has no sign change get NaN and
``converged=False``).  The torch back-end never synchronises with the host: it
runs exactly ``max_iter`` steps on device tensors.

:func:`invert` applies it to a generated kernel, and the ``gdp_*`` helpers are
the inverses accountants need for the Gaussian / mu-GDP privacy profile
:math:`\delta(\epsilon) = \Phi(-\epsilon/\mu + \mu/2) - e^{\epsilon}\Phi(-\epsilon/\mu - \mu/2)`
[Bu et al. 2020, Cor 2.13 / Dong, Roth, Su 2019; Balle and Wang 2018, Thm 8],
computed with the library's kernel (``bu2020.delta_of_eps_gdp``).

>>> import numpy as np
>>> r = bisect(lambda x: x**2, 0.0, 2.0, target=2.0, side="upper")
>>> bool(r.converged) and 2.0 <= float(r.root)**2 <= 2.0 + 1e-12
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InvalidParameterError, SymdpError
from ..validation import check_int, check_probability, check_real

__all__ = ["RootResult", "bisect", "invert", "gdp_delta", "gdp_eps_for_delta", "gdp_mu_for", "GDP_IDS"]

#: library entries for the mu-GDP profile, preferred first; (id, mu symbol name or None if sigma-parametrised)
GDP_IDS = ("bu2020.delta_of_eps_gdp", "balle2018.gaussian_profile")


@dataclass(frozen=True)
class RootResult:
    """``root`` is the safe end of the final bracket ``[lo, hi]``; ``converged`` marks configurations
    whose bracket shrank below tolerance (NaN root and False where the initial bracket held no root)."""

    root: Any
    lo: Any
    hi: Any
    converged: Any
    iterations: int


def _is_torch(*xs) -> bool:
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is an optional dependency
        return False
    return any(isinstance(x, torch.Tensor) for x in xs)


def bisect(
    f: Callable[[Any], Any],
    lo: Any,
    hi: Any,
    *,
    target: Any = 0.0,
    side: str = "upper",
    scale: str = "linear",
    xtol: float = 0.0,
    rtol: float = 4e-16,
    max_iter: int = 200,
) -> RootResult:
    r"""Solve ``f(x) = target`` elementwise by bisection on the bracket ``[lo, hi]``.

    ``f`` maps an array (numpy) or tensor (torch) of the batch shape to values of the same
    shape; ``lo``, ``hi``, ``target`` broadcast.  ``f`` may be increasing or decreasing per
    configuration (only the sign change matters).  ``scale="log"`` bisects at geometric
    means (for positive brackets spanning many decades).  Stops at ``max_iter`` or (numpy
    only) when every bracket satisfies ``hi - lo <= xtol + rtol * |hi|``.
    """
    if side not in ("upper", "lower"):
        raise InvalidParameterError(f"side={side!r} must be 'upper' or 'lower'")
    if scale not in ("linear", "log"):
        raise InvalidParameterError(f"scale={scale!r} must be 'linear' or 'log'")
    check_int("max_iter", max_iter, 1, 10_000)
    check_real("xtol", xtol, 0.0)
    check_real("rtol", rtol, 0.0)
    if _is_torch(lo, hi, target):
        return _bisect_torch(f, lo, hi, target, side, scale, xtol, rtol, max_iter)
    return _bisect_numpy(f, lo, hi, target, side, scale, xtol, rtol, max_iter)


def _bisect_numpy(f, lo, hi, target, side, scale, xtol, rtol, max_iter) -> RootResult:
    lo, hi, target = np.broadcast_arrays(np.asarray(lo, np.float64), np.asarray(hi, np.float64),
                                         np.asarray(target, np.float64))
    lo, hi, target = lo.copy(), hi.copy(), target.copy()
    if scale == "log" and np.any(lo <= 0):
        raise InvalidParameterError("lo must be > 0 with scale='log'")
    with np.errstate(all="ignore"):
        glo = np.asarray(f(lo), np.float64) - target
        ghi = np.asarray(f(hi), np.float64) - target
    slo = np.sign(glo)
    valid = (slo * np.sign(ghi) <= 0) & ~np.isnan(glo) & ~np.isnan(ghi) & (lo <= hi)
    it = 0
    for it in range(1, max_iter + 1):
        width_ok = (hi - lo) <= xtol + rtol * np.abs(hi)
        if np.all(width_ok | ~valid):
            it -= 1
            break
        mid = np.sqrt(lo) * np.sqrt(hi) if scale == "log" else lo + 0.5 * (hi - lo)
        with np.errstate(all="ignore"):
            gm = np.asarray(f(mid), np.float64) - target
        # move lo when f(mid) is on lo's side; a NaN at mid shrinks from above (keeps the found sign change)
        to_lo = (np.sign(gm) == slo) & (slo != 0) & ~np.isnan(gm)
        active = valid & ~width_ok
        lo = np.where(active & to_lo, mid, lo)
        hi = np.where(active & ~to_lo, mid, hi)
    converged = valid & ((hi - lo) <= xtol + rtol * np.abs(hi))
    root = np.where(valid, hi if side == "upper" else lo, np.nan)
    return RootResult(root[()] if root.ndim == 0 else root, lo, hi, converged[()] if converged.ndim == 0 else converged, it)


def _bisect_torch(f, lo, hi, target, side, scale, xtol, rtol, max_iter) -> RootResult:
    import torch

    from .runtime_torch import torch_args

    lo, hi, target = torch.broadcast_tensors(*torch_args(lo, hi, target))
    lo, hi = lo.detach().clone(), hi.detach().clone()
    target = target.detach()
    with torch.no_grad():
        glo = f(lo) - target
        ghi = f(hi) - target
        slo = torch.sign(glo)
        valid = (slo * torch.sign(ghi) <= 0) & ~torch.isnan(glo) & ~torch.isnan(ghi) & (lo <= hi)
        for _ in range(max_iter):
            mid = torch.sqrt(lo) * torch.sqrt(hi) if scale == "log" else lo + 0.5 * (hi - lo)
            gm = f(mid) - target
            to_lo = (torch.sign(gm) == slo) & (slo != 0) & ~torch.isnan(gm)
            active = valid & ((hi - lo) > xtol + rtol * torch.abs(hi))
            lo = torch.where(active & to_lo, mid, lo)
            hi = torch.where(active & ~to_lo, mid, hi)
        converged = valid & ((hi - lo) <= xtol + rtol * torch.abs(hi))
        end = hi if side == "upper" else lo
        root = torch.where(valid, end, torch.full_like(end, float("nan")))
    return RootResult(root, lo, hi, converged, max_iter)


# ------------------------------------------------------------------ inverses of generated kernels
def invert(
    theorem_id: str,
    solve_for: str,
    target: Any,
    lo: Any,
    hi: Any,
    *,
    side: str,
    backend: str = "numpy",
    log_target: bool = False,
    scale: str = "linear",
    max_iter: int = 200,
    **params: Any,
) -> RootResult:
    r"""Solve ``rhs(theorem_id)(solve_for=x, **params) = target`` for ``x`` in ``[lo, hi]``.

    With ``log_target=True`` the equation is solved as ``log rhs = log target`` (for targets such
    as delta down to 1e-300).  ``side`` is the safe side of the answer (see :func:`bisect`).
    """
    fn, names = _kernel_and_names(theorem_id, backend)
    if solve_for not in names:
        raise InvalidParameterError(f"solve_for={solve_for!r} is not a symbol of {theorem_id}; symbols: {names}")
    missing = sorted(set(names) - {solve_for} - set(params))
    if missing:
        raise InvalidParameterError(f"missing parameters {missing} for {theorem_id}")
    if backend == "torch":
        import torch

        log: Callable[[Any], Any] = torch.log
    else:
        log = np.log

    def g(x):
        v = fn(**{solve_for: x}, **params)
        return log(v) if log_target else v

    if backend == "torch":
        import torch

        from .runtime_torch import torch_args

        ref = next((v for v in (*params.values(), target, lo, hi) if isinstance(v, torch.Tensor)
                    and v.is_floating_point()), torch.tensor(0.0, dtype=torch.float64))
        target, lo, hi = torch_args(ref, target, lo, hi)[1:]
    tgt = log(target) if log_target else target
    return bisect(g, lo, hi, target=tgt, side=side, scale=scale, max_iter=max_iter)


def _kernel_and_names(theorem_id: str, backend: str) -> tuple[Callable[..., Any], list[str]]:
    """The generated kernel of ``theorem_id`` and its argument names.

    Entries listed in the accountants' data file (``generated/accounting_meta.json``, kept in sync by
    ``symdp codegen --check``) are served from it without building the library or importing SymPy (the
    accountants' runtime path, e.g. the exact Gaussian profile at q = 1); others through the library.
    """
    from .kernels import _entry, _kernel

    e = _entry(theorem_id)
    k = e.get("kernel") if e is not None else None
    if isinstance(k, dict) and backend in ("numpy", "torch"):
        return _kernel(theorem_id, backend), list(k.get("symbols", []))
    from ..library import get
    from . import kernel

    return kernel(theorem_id, backend), [s.name for s in get(theorem_id, with_evidence=False).bound_symbols]


def _gdp_entry() -> tuple[str, list[str]]:
    from ..errors import UnknownTheoremError
    from .kernels import _entry

    for tid in GDP_IDS:  # the data file first (no SymPy), then the library
        e = _entry(tid)
        k = e.get("kernel") if e is not None else None
        if isinstance(k, dict) and list(k.get("symbols", [])) == ["epsilon", "mu"]:
            return tid, ["epsilon", "mu"]
    from ..library import get

    for tid in GDP_IDS:
        try:
            th = get(tid, with_evidence=False)
        except UnknownTheoremError:
            continue
        names = [s.name for s in th.bound_symbols]
        if names == ["epsilon", "mu"]:
            return tid, names
    raise SymdpError(f"no mu-GDP privacy profile delta(epsilon, mu) in the library (looked for {GDP_IDS})")


def gdp_delta(epsilon: Any, mu: Any, *, backend: str = "numpy") -> Any:
    r""":math:`\delta(\epsilon)` of :math:`\mu`-GDP, from the generated library kernel (delta for a target eps)."""
    tid, _ = _gdp_entry()
    return _kernel_and_names(tid, backend)[0](epsilon=epsilon, mu=mu)


def gdp_eps_for_delta(mu: Any, delta: Any, *, backend: str = "numpy", max_iter: int = 200) -> RootResult:
    r"""Smallest safe :math:`\epsilon \ge 0` with :math:`\delta_\mu(\epsilon) \le \delta` (rounded up).

    Solved on :math:`\log\delta`.  Bracket: :math:`[0, \mu(\mu/2 + \sqrt{2\log(1/\delta)})]`
    (at the upper end :math:`\delta_\mu \le \Phi(-\sqrt{2\log(1/\delta)}) \le \delta`).
    Where :math:`\delta_\mu(0) \le \delta` the answer is exactly 0 (degenerate case, converged).
    """
    tid, _ = _gdp_entry()
    if backend == "torch":
        import torch

        from .runtime_torch import torch_args

        mu, delta = torch.broadcast_tensors(*torch_args(mu, delta))
        xp_sqrt: Callable[..., Any]
        xp_log: Callable[..., Any]
        xp_where: Callable[..., Any]
        xp_sqrt, xp_log, xp_where = torch.sqrt, torch.log, torch.where
    else:
        check_real("mu", mu, 0.0, lo_open=True)
        check_probability("delta", delta)
        mu, delta = np.broadcast_arrays(np.asarray(mu, np.float64), np.asarray(delta, np.float64))
        xp_sqrt, xp_log, xp_where = np.sqrt, np.log, np.where
    hi = mu * (mu / 2 + xp_sqrt(-2.0 * xp_log(delta))) + 1e-300
    lo = hi * 0.0
    res = invert(tid, "epsilon", delta, lo, hi, side="upper", backend=backend, log_target=True,
                 max_iter=max_iter, mu=mu)
    d0 = gdp_delta(lo, mu, backend=backend)
    zero = d0 <= delta
    root = xp_where(zero, lo, res.root)
    conv = zero | res.converged
    return RootResult(root, xp_where(zero, lo, res.lo), xp_where(zero, lo, res.hi), conv, res.iterations)


def gdp_mu_for(epsilon: Any, delta: Any, *, backend: str = "numpy", max_iter: int = 200) -> RootResult:
    r"""Largest safe :math:`\mu` with :math:`\delta_\mu(\epsilon) \le \delta` (rounded down).

    For a Gaussian mechanism of sensitivity :math:`\Delta` the noise is :math:`\sigma = \Delta/\mu`
    (round *up*).  Bracket :math:`\mu \in [10^{-12}, \mu_{hi}]` with
    :math:`\mu_{hi} = \sqrt{2\epsilon} + 2\sqrt{2\log(1/\delta)} + 1` where
    :math:`\delta_\mu(\epsilon) \ge \Phi(\mu/2 - \epsilon/\mu) - \Phi(-\epsilon/\mu - \mu/2) > \delta`.
    Solved on :math:`\log\delta` in log scale.
    """
    tid, _ = _gdp_entry()
    if backend == "torch":
        import torch

        from .runtime_torch import torch_args

        epsilon, delta = torch.broadcast_tensors(*torch_args(epsilon, delta))
        xp_sqrt: Callable[..., Any] = torch.sqrt
    else:
        check_real("epsilon", epsilon, 0.0)
        check_probability("delta", delta)
        epsilon, delta = np.broadcast_arrays(np.asarray(epsilon, np.float64), np.asarray(delta, np.float64))
        xp_sqrt = np.sqrt
    hi = 2.0 * xp_sqrt(epsilon) + 8.0 + 4.0 / (1.0 - delta)
    lo = hi * 0.0 + 1e-12
    return invert(tid, "mu", delta, lo, hi, side="lower", backend=backend, log_target=True, scale="log",
                  max_iter=max_iter, epsilon=epsilon)
