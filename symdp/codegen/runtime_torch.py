r"""Run-time helpers imported by the generated torch kernels (``_rt``).

Nothing here synchronises host and device: no ``.item()``, no Python branching
on tensor values; masks are applied with ``torch.where`` on inputs made safe for
each branch, so gradients stay finite.
"""

from __future__ import annotations

import math

import torch

__all__ = ["torch_args", "torch_gauss_diff", "torch_gamma", "torch_ndtr", "torch_log1mexp", "torch_expm1",
           "torch_erfcx_rem", "torch_log1p_mix", "torch_log_ratio"]

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
#: below this ``a`` the erfcx form is used (Phi(a) < 3e-7: tails, underflow, overflow of e^c);
#: above it the direct difference is as well conditioned and 4x cheaper (erfcx is slow)
_TAIL = -5.0


def torch_args(*xs):
    """Tensors for every argument, in the floating dtype torch's type promotion gives the floating tensor
    arguments together (float32 with float64 is float64, whatever their order) and on the device of the
    first floating tensor argument.

    Python numbers and non-floating tensors are converted (as in torch, a Python float does not widen a
    float32 tensor); with no floating tensor argument, float64.
    """
    floats = [x for x in xs if isinstance(x, torch.Tensor) and x.is_floating_point()]
    if not floats:
        dev = next((x.device for x in xs if isinstance(x, torch.Tensor)), None)
        dtype = torch.float64
    else:
        dev, dtype = floats[0].device, floats[0].dtype
        for x in floats[1:]:
            dtype = torch.promote_types(dtype, x.dtype)
    return tuple(x if isinstance(x, torch.Tensor) and x.dtype == dtype and (dev is None or x.device == dev)
                 else torch.as_tensor(x, dtype=dtype, device=dev) for x in xs)


def torch_gauss_diff(a, b, d):
    r""":math:`\Phi(a) - e^{d + (b^2-a^2)/2}\Phi(b)`; same two-branch formula as the numpy kernel."""
    a, b, d = torch.broadcast_tensors(*torch_args(a, b, d))
    tail = a <= _TAIL
    zero = torch.zeros_like(a)
    one = torch.ones_like(a)
    at = torch.where(tail, a, zero)
    bt = torch.where(tail, b, zero)
    dt = torch.where(tail, d, zero)
    ea = torch.special.erfcx(-at * _INV_SQRT2)
    eb = torch.special.erfcx(-bt * _INV_SQRT2)
    t_val = 0.5 * torch.exp(-0.5 * at * at) * ((ea - eb) - torch.expm1(dt) * eb)
    ad = torch.where(tail, one, a)
    bd = torch.where(tail, one, b)
    dd = torch.where(tail, zero, d)
    d_val = torch_ndtr(ad) - torch.exp(dd + 0.5 * (bd - ad) * (bd + ad)) * torch_ndtr(bd)
    return torch.where(tail, t_val, d_val)


def torch_gamma(x):
    r"""The real Gamma function: :math:`\operatorname{sign}\Gamma(x)\,e^{\log|\Gamma(x)|}` (torch has only lgamma)."""
    x, = torch_args(x)
    neg_odd = (x < 0) & (torch.remainder(torch.ceil(-x), 2.0) == 1.0)
    sign = torch.where(neg_odd, -torch.ones_like(x), torch.ones_like(x))
    return sign * torch.exp(torch.lgamma(x))


def torch_ndtr(x):
    r""":math:`\Phi(x) = \tfrac12\operatorname{erfc}(-x/\sqrt2)` (``torch.special.ndtr`` loses the lower tail)."""
    return 0.5 * torch.special.erfc(-x * _INV_SQRT2)


_LN2 = math.log(2.0)


def torch_log1mexp(x):
    r""":math:`\log(1 - e^x)`, :math:`x \le 0` [Maechler 2012]; each branch sees only its own inputs."""
    near = x > -_LN2
    xn = torch.where(near, x, torch.full_like(x, -1.0))
    xf = torch.where(near, torch.full_like(x, -1.0), x)
    return torch.where(near, torch.log(-torch.expm1(xn)), torch.log1p(-torch.exp(xf)))


def torch_expm1(x):
    r""":math:`e^x - 1` whose gradient stays accurate for :math:`x \ll 0`.

    ``torch.expm1``'s backward is ``(expm1(x) + 1) * grad``, which is 0 once ``expm1(x)`` rounds
    to -1 (x < -37); below -1 ``exp(x) - 1`` has no cancellation and differentiates to ``exp(x)``.
    """
    low = x < -1.0
    xl = torch.where(low, x, torch.full_like(x, -2.0))
    xh = torch.where(low, torch.zeros_like(x), x)
    return torch.where(low, torch.exp(xl) - 1.0, torch.expm1(xh))


def torch_erfcx_rem(x):
    r""":math:`\operatorname{erfcx}(x) - 1 + 2x/\sqrt\pi`; same two branches as ``runtime.np_erfcx_rem``."""
    from .runtime import ERFCX_REM_COEFFS, ERFCX_REM_SERIES

    small = torch.abs(x) < ERFCX_REM_SERIES
    xs = torch.where(small, x, torch.zeros_like(x))
    xd = torch.where(small, torch.ones_like(x), x)
    acc = torch.full_like(xs, ERFCX_REM_COEFFS[-1])
    for c in ERFCX_REM_COEFFS[-2::-1]:
        acc = acc * xs + c
    direct = (torch.special.erfcx(xd) - 1.0) + (2.0 / math.sqrt(math.pi)) * xd
    return torch.where(small, xs * xs * acc, direct)


def torch_log1p_mix(q, a):
    r""":math:`\log(1 - q + q e^a)`; same two branches as ``runtime.np_log1p_mix``, each on safe inputs."""
    q, a = torch.broadcast_tensors(*torch_args(q, a))
    u = q * torch_expm1(a)
    lo = (q >= 0) & (q <= 1) & ((u < -0.5) | torch.isinf(u))
    ql = torch.where(lo, q, torch.full_like(q, 0.5))
    al = torch.where(lo, a, torch.zeros_like(a))
    uh = torch.where(lo, torch.zeros_like(u), u)
    return torch.where(lo, torch.logaddexp(torch.log1p(-ql), torch.log(ql) + al), torch.log1p(uh))


def torch_log_ratio(a, b):
    r""":math:`\log(a/b)`; same two branches as ``runtime.np_log_ratio``."""
    a, b = torch.broadcast_tensors(*torch_args(a, b))
    near = (a >= 0.5 * b) & (a <= 2.0 * b)
    return torch.where(near, torch.log1p((a - b) / b), torch.log(a / b))
