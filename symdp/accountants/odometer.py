r"""RDP accounting in torch: a device-resident odometer for training loops and a batched kernel.

:class:`RDPOdometer` keeps the composed RDP curve of a DP-SGD run as a tensor on
the training device; ``step(sigma, q)`` adds one step's RDP (library kernel
``accounting.sgm_rdp_log_term``, torch back-end) without synchronising with the
host, and ``epsilon(delta)`` returns a 0-d tensor (``accounting.rdp_to_dp_cks``,
best order).  Steps given as Python numbers add the accountant's own per-step
values (the operations of :func:`symdp.accountants.rdp.sgm_rdp`: exact integer
orders, the MTZ series at fractional ones), computed on the odometer's device in
float64 with the generated torch kernels (:meth:`_TorchRDP.per_step_exact`) and
raised by :data:`_TORCH_MARGIN`, so the numbers agree with
:func:`symdp.accountants.epsilon` with ``accountant="rdp"`` on the default grid,
from above (measured within 2e-11 relative);
steps given as device tensors are evaluated on the device at integer orders and
bounded by convexity at fractional ones (an upper bound, a few percent above).

>>> odo = RDPOdometer()
>>> odo.step(1.1, 0.01)
>>> float(odo.epsilon(1e-5)) > 0
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..validation import check_int, check_probability, check_real
from . import rdp as _rdp
from ._kernels import _kernel


def _plan(orders: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Integer orders, flat (alpha, j) pairs with segment ids, and the interpolation matrix W.

    ``(orders - 1) * eps(orders) = W @ ((int_orders - 1) * eps(int_orders))`` (upper bound by convexity).
    """
    ints = _rdp._int_orders_needed(orders)
    alphas = np.concatenate([np.full(int(a) + 1, a) for a in ints])
    js = np.concatenate([np.arange(int(a) + 1, dtype=float) for a in ints])
    seg = np.concatenate([np.full(int(a) + 1, i) for i, a in enumerate(ints)])
    pos = {float(a): i for i, a in enumerate(ints)}
    W = np.zeros((len(orders), len(ints)))
    for r, a in enumerate(orders):
        if float(a) in pos:
            W[r, pos[float(a)]] = 1.0
            continue
        lo, hi = float(np.floor(a)), float(np.ceil(a))
        th = (a - lo) / (hi - lo)
        W[r, pos[max(hi, 2.0)]] += th
        if lo >= 2:
            W[r, pos[lo]] += 1 - th
    return ints, np.stack([alphas, js]), seg, W


def _torch_device(device: Any = None) -> Any:
    import torch

    if device is not None:
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


class _TorchRDP:
    """Per-step RDP at integer orders for tensors of (sigma, q), all on one device."""

    def __init__(self, orders: np.ndarray, device: Any, dtype: Any) -> None:
        import torch

        self.orders_np = np.asarray(orders, dtype=float)
        ints, aj, seg, W = _plan(self.orders_np)
        self.ints_np = ints
        self.device, self.dtype = device, dtype
        t = lambda a: torch.as_tensor(a, device=device, dtype=dtype)  # noqa: E731
        self.alpha, self.j = t(aj[0]), t(aj[1])
        self.seg = torch.as_tensor(seg, device=device, dtype=torch.long)
        self.n_int = len(ints)
        self.ints = t(ints)
        self.W = t(W)
        self.orders = t(self.orders_np)
        self.frac_cols = torch.as_tensor(np.nonzero(self.orders_np != np.floor(self.orders_np))[0], device=device, dtype=torch.long)
        self.term = _kernel("accounting.sgm_rdp_log_term", "torch")
        self.gauss = _kernel("accounting.gaussian_rdp", "torch")
        self.conv = _kernel("accounting.rdp_to_dp_cks", "torch")
        self.conv_delta = _kernel("accounting.rdp_to_delta_cks", "torch")

    def per_step_int(self, sigma: Any, q: Any) -> Any:
        """RDP of one step at the integer orders; sigma, q tensors of shape (...); result (..., n_int)."""
        import torch

        sigma = sigma[..., None]
        qc = torch.clamp(q, max=1.0 - 2**-53)[..., None]
        t = self.term(alpha=self.alpha, j=self.j, q=qc, sigma=sigma)  # (..., P)
        shape = t.shape[:-1] + (self.n_int,)
        idx = self.seg.expand(t.shape)
        m = torch.full(shape, -math.inf, device=t.device, dtype=t.dtype).scatter_reduce(-1, idx, t, reduce="amax", include_self=True)
        e = torch.exp(t - torch.gather(m, -1, idx))
        s = torch.zeros(shape, device=t.device, dtype=t.dtype).scatter_add(-1, idx, e)
        r = (torch.log(s) + m) / (self.ints - 1)
        full = self.gauss(alpha=self.ints, sigma=sigma)
        r = torch.where(q[..., None] >= 1.0, full, r)
        r = torch.clamp(r, min=0.0)
        return r * (1 + _rdp._REL_MARGIN) + 1e-300

    def _excess_plan(self) -> tuple[Any, Any, Any]:
        """Flat (alpha, j >= 2) pairs of every integer order and their segment ids (built once, on the device)."""
        import torch

        if not hasattr(self, "_ex"):
            a = np.concatenate([np.full(max(int(k) - 1, 0), k) for k in self.ints_np])
            j = np.concatenate([np.arange(2, int(k) + 1, dtype=float) for k in self.ints_np])
            seg = np.concatenate([np.full(max(int(k) - 1, 0), i) for i, k in enumerate(self.ints_np)])
            t = lambda v, dt=self.dtype: torch.as_tensor(v, device=self.device, dtype=dt)  # noqa: E731
            self._ex = (t(a), t(j), t(seg, torch.long))
        return self._ex

    def per_step_exact(self, sigma: Any, q: Any) -> Any:
        """The accountant's per-step RDP at every order, on the device (0-d tensors sigma, q -> (n_orders,)).

        The operations of :func:`rdp.sgm_rdp` with the generated torch kernels: integer orders by the
        logsumexp of ``accounting.sgm_rdp_log_excess_term`` (j >= 2) plus the same bound on its rounding,
        fractional orders the smaller of the convexity interpolation and the MTZ series
        (``accounting.sgm_rdp_frac_term1/2``, :func:`_series_torch`), the Gaussian's own RDP kept where
        smaller; every value then raised by :data:`_TORCH_MARGIN` (torch's and numpy's special functions
        differ in the last bits).  No host synchronisation.
        """
        import torch

        u = float(np.finfo(float).eps)
        a, j, seg = self._excess_plan()
        term = _kernel("accounting.sgm_rdp_log_excess_term", "torch")
        qc = torch.clamp(q, max=1.0 - 2**-53)
        t = term(alpha=a, j=j, q=qc, sigma=sigma)
        t = torch.where(torch.isnan(t), torch.full_like(t, -math.inf), t)
        m = torch.full((self.n_int,), -math.inf, device=t.device, dtype=t.dtype).scatter_reduce(0, seg, t, reduce="amax", include_self=True)
        ms = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        la = torch.log(torch.zeros_like(m).scatter_add(0, seg, torch.exp(t - ms[seg]))) + ms
        ints = self.ints
        mag = (torch.lgamma(ints + 1) + ints * (torch.abs(torch.log(qc)) + torch.abs(torch.log1p(-qc)))
               + ints * ints / (2 * sigma**2) + 2 * torch.log(ints + 1) + 1)
        r = torch.logaddexp(torch.zeros_like(la), la + 16 * u * mag) / (ints - 1)
        full = self.gauss(alpha=ints, sigma=sigma)
        r = torch.where(torch.isnan(r), torch.full_like(r, math.inf), r)
        r = torch.where(q >= 1.0, full, torch.minimum(r, full))
        r = torch.clamp(r, min=0.0) * (1 + _rdp._REL_MARGIN) + 1e-300
        out = self.interpolate(r)
        if self.frac_cols.numel():
            fo = self.orders[self.frac_cols]
            ser = self.gauss(alpha=fo, sigma=sigma) * (1 + _rdp._REL_MARGIN) + 1e-300  # q = 1: the Gaussian's RDP
            if not (self.device.type == "cpu" and bool(q >= 1.0)):  # (a host device: reading q costs no sync)
                ser = torch.where(q >= 1.0, ser, _series_torch(sigma, qc, fo) * (1 + _rdp._REL_MARGIN) + 1e-300)
            out = out.index_put((self.frac_cols,), torch.minimum(out[self.frac_cols], ser))
        return out * (1 + _TORCH_MARGIN)

    def interpolate(self, rdp_int: Any) -> Any:
        g = (self.ints - 1) * rdp_int
        return (g @ self.W.T) / (self.orders - 1) * (1 + _rdp._REL_MARGIN)

    def epsilon(self, r: Any, delta: Any) -> Any:
        """Best epsilon from composed RDP ``r`` at every order (not only the integer ones)."""
        import torch

        e = self.conv(epsilon_alpha=r, alpha=self.orders, delta=torch.as_tensor(delta, device=r.device, dtype=r.dtype)[..., None])
        e = torch.where(torch.isnan(e), torch.full_like(e, math.inf), e)
        e = e + 4 * float(np.finfo(float).eps) * torch.abs(e)  # the conversion's rounding, the safe way (as rdp._eps_values)
        return torch.clamp(e.min(dim=-1).values, min=0.0)

    def delta(self, r: Any, epsilon: Any) -> Any:
        import torch

        d = self.conv_delta(epsilon_alpha=r, alpha=self.orders, epsilon=torch.as_tensor(epsilon, device=r.device, dtype=r.dtype)[..., None])
        d = torch.where(torch.isnan(d), torch.full_like(d, math.inf), d)
        e = torch.as_tensor(epsilon, device=r.device, dtype=r.dtype)[..., None]
        d = d * (1 + 8 * float(np.finfo(float).eps) * (self.orders - 1) * (torch.abs(r) + torch.abs(e) + 1))  # as rdp._delta_values
        return torch.clamp(d.min(dim=-1).values, max=1.0)


#: relative margin on the device's per-step values: torch's and numpy's special functions (lgamma, log_ndtr)
#: differ in the last bits; measured differences from the numpy path are below 2e-13 relative on the
#: tests' grids, so the device values lie at or above the numpy ones and within 1e-12 of them
_TORCH_MARGIN = 1e-12


def _series_torch(sigma: Any, q: Any, alphas: Any) -> Any:
    """:func:`rdp._frac_series_bounds` (upper values) in torch for one (sigma, q) at the orders ``alphas``: the
    same terms (``accounting.sgm_rdp_frac_term1/2``, torch kernels), levels (32, 64, ... terms, each computing only
    its new terms), Euler bracket of the alternating tail, rounding bounds and acceptance test
    (:func:`rdp._series_level`), each order taking the first level it passes (``inf`` if none).  Every level is
    computed for every order (no host decision: no synchronisation)."""
    import torch

    t1 = _kernel("accounting.sgm_rdp_frac_term1", "torch")
    t2 = _kernel("accounting.sgm_rdp_frac_term2", "torch")
    u = float(np.finfo(float).eps)
    out = torch.full(alphas.shape, math.inf, device=alphas.device, dtype=alphas.dtype)
    done = torch.zeros(alphas.shape, device=alphas.device, dtype=torch.bool)
    host = alphas.device.type == "cpu"  # on a host device, reading flags costs no sync: later levels only for rows left
    rows = torch.arange(len(alphas), device=alphas.device)
    lmag: Any = None
    sign: Any = None
    err: Any = None
    relu = lambda v: torch.clamp(v, min=0.0)  # noqa: E731
    n0, n = 0, _rdp._SERIES_FIRST_TERMS
    while n <= _rdp._SERIES_MAX_TERMS:
        if host and lmag is not None and sign is not None and err is not None:
            left = ~done[rows]
            rows, lmag, sign, err = rows[left], lmag[left], sign[left], err[left]
            if not len(rows):
                break
        a = alphas[rows][:, None]
        i = torch.arange(n0, n, device=alphas.device, dtype=alphas.dtype)[None, :]
        x = a - i + 1
        ga, gi = torch.lgamma(a + 1), torch.lgamma(i + 1)
        logb = ga - gi - torch.lgamma(x)
        fl = torch.floor(x)
        sg = torch.where(x > 0, torch.ones_like(x), torch.where(torch.remainder(fl, 2.0) == 1.0, -torch.ones_like(x), torch.ones_like(x)))
        l1, l2 = logb + t1(alpha=a, j=i, q=q, sigma=sigma), logb + t2(alpha=a, j=i, q=q, sigma=sigma)
        lm = torch.logaddexp(l1, l2)
        # the terms' relative error bounds of rdp._series_terms (the parts' magnitudes, rdp._kernel_log_err and
        # rdp._binom_log_err, torch's lgamma taken as accurate as symdp._special's gammaln)
        e1, e2 = _rdp._kernel_log_err(torch, relu, a, i, sigma, q)
        eb = _rdp._binom_log_err(torch, a, i, logb, torch.abs(ga), gi)
        big = l1 >= l2
        e_big, e_small = torch.where(big, e1 + eb, e2 + eb), torch.where(big, e2 + eb, e1 + eb)
        r = (e_big * (1.0 + e_big) + torch.exp(-torch.abs(l1 - l2)) * (e_small * (1.0 + e_small))) * (1 + 4 * u)
        bad = ~torch.isfinite(lm) | torch.isnan(r) | (e_big > 1.0) | ~(e_small <= 1.0)
        lm = torch.where(bad, torch.full_like(lm, -math.inf), lm)
        r = torch.where(bad, torch.full_like(r, math.inf), r)
        lmag = lm if lmag is None else torch.cat([lmag, lm], dim=1)
        sign = sg if sign is None else torch.cat([sign, sg], dim=1)
        err = r if err is None else torch.cat([err, r], dim=1)
        ok, val = _series_level_torch(lmag, sign, err, a[:, 0], 2 * n > _rdp._SERIES_MAX_TERMS)
        take = ok & ~done[rows]
        out = out.index_put((rows,), torch.where(take, val, out[rows]))
        done = done.index_put((rows,), done[rows] | ok)
        n0, n = n, 2 * n
    return out


def _series_level_torch(lmag: Any, sign: Any, err: Any, a: Any, last: bool) -> tuple[Any, Any]:
    """:func:`rdp._series_level` in torch: (controlled, upper value), the upper value raised by the float64
    resolution of ``log A`` (near ``A = 1`` one ulp of the sum is a large part of eps_alpha, and torch's and numpy's
    terms differ in their last bits): the device value stays at or above the numpy one."""
    import torch

    u = float(np.finfo(float).eps)
    J = _rdp._EULER_J
    n = lmag.shape[1] - J - 1
    c = torch.as_tensor(_rdp._EULER_C, device=lmag.device, dtype=lmag.dtype)
    d = torch.as_tensor(_rdp._EULER_D, device=lmag.device, dtype=lmag.dtype)
    m = lmag.max(dim=1).values
    ms = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    w = torch.exp(lmag - ms[:, None])
    et = u * (5.0 * torch.abs(lmag) + torch.abs(ms[:, None]) + 6.0)
    et = torch.where(torch.isfinite(et), et, torch.zeros_like(et))
    werr = torch.where(w > 0, w * (err + (1.0 + err) * torch.expm1(et)) * (1 + 4 * u),
                       torch.where(err < 1.0, torch.zeros_like(w), torch.full_like(w, math.inf)))
    sw = sign * w
    s = sw[:, :n].sum(dim=1)
    rnd = werr[:, :n].sum(dim=1) + (n + 1) * u * w[:, :n].sum(dim=1) + 1e-300
    tw, terr = sw[:, n:], werr[:, n:] + w[:, n:] * (4.0 * (J + 2) * u)
    e = (tw[:, :J] * c).sum(dim=1)
    b = (tw * d).sum(dim=1)
    terr_c = (terr[:, :J] * c).sum(dim=1) + (terr * d).sum(dim=1) + 4.0 * u * (torch.abs(s) + torch.abs(e) + torch.abs(b) + rnd)
    up = s + e + torch.clamp(b, min=0.0) + rnd + terr_c
    width = torch.abs(b) + terr_c
    loose = math.exp(_rdp._SERIES_LOG_TOL) * torch.abs(s)
    tol = loose - rnd if last else _rdp._SERIES_TIGHT * torch.abs(s)
    ok = (n > a) & (s > 0) & torch.isfinite(m) & (width <= tol) & (rnd <= loose)
    ls = torch.log(torch.clamp(up, min=0.0))
    val = (ls + ms + 8.0 * u * (1.0 + torch.abs(ls) + torch.abs(ms))) / (a - 1) * (1 + 2 * u)
    return ok, val


class RDPOdometer:
    r"""Running RDP account of a DP-SGD run, on the training device.

    ``step(noise_multiplier, sample_rate, steps=1)`` validates its arguments
    first (Python numbers and CPU tensors on the host; CUDA tensors with an
    asynchronous device assertion, and an invalid step leaves the state
    unchanged), then adds the step's RDP; it never calls ``.item()`` on device
    data.  ``epsilon(delta)`` / ``delta(epsilon)`` return 0-d tensors
    (upper bounds: CKS conversion, best order).
    """

    def __init__(self, *, orders: Any = None, device: Any = None, dtype: Any = None) -> None:
        import torch

        self.device = _torch_device(device)
        self.dtype = dtype or torch.float64
        ords = _rdp.DEFAULT_ORDERS if orders is None else np.asarray(check_real("orders", orders, 1.0, lo_open=True), dtype=float).ravel()
        self._core = _TorchRDP(ords, self.device, self.dtype)
        self._rdp = torch.zeros(len(self._core.orders_np), device=self.device, dtype=self.dtype)  # composed RDP, every order
        self.steps = 0
        self._cache: dict[tuple[float, float], Any] = {}

    @property
    def orders(self) -> np.ndarray:
        return self._core.orders_np

    def _tensor(self, name: str, v: Any, lo: float, hi: float | None) -> tuple[Any, Any]:
        """(tensor, validity tensor or None); host-side check where it costs no sync."""
        import torch

        if isinstance(v, torch.Tensor):
            if v.numel() != 1:
                raise InvalidParameterError(f"{name} must be a scalar, got a tensor of shape {tuple(v.shape)}")
            if v.device.type == "cpu":
                check_real(name, float(v), lo, hi, lo_open=True, hi_open=hi == math.inf)
                return v.to(self.device, self.dtype).reshape(()), None
            t = v.to(self.device, self.dtype).reshape(())
            ok = (t > lo) & torch.isfinite(t)
            if hi is not None:
                ok = ok & ((t < hi) if hi == math.inf else (t <= hi))
            return t, ok
        check_real(name, v, lo, hi, lo_open=True)
        return torch.tensor(float(v), device=self.device, dtype=self.dtype), None

    def step(self, noise_multiplier: Any, sample_rate: Any, steps: int = 1) -> None:
        """Account ``steps`` DP-SGD steps with this noise multiplier and Poisson rate."""
        import torch

        steps = check_int("steps", steps, 0)
        key = None
        if not isinstance(noise_multiplier, torch.Tensor) and not isinstance(sample_rate, torch.Tensor):
            check_real("noise_multiplier", noise_multiplier, 0.0, math.inf, lo_open=True, hi_open=True)
            check_real("sample_rate", sample_rate, 0.0, 1.0, lo_open=True)
            key = (float(noise_multiplier), float(sample_rate))
        if key is not None and key in self._cache:
            r = self._cache[key]
            ok = None
        else:
            s, ok_s = self._tensor("noise_multiplier", noise_multiplier, 0.0, math.inf)
            qq, ok_q = self._tensor("sample_rate", sample_rate, 0.0, 1.0)
            oks = [o for o in (ok_s, ok_q) if o is not None]
            ok = None
            if oks:
                ok = oks[0] if len(oks) == 1 else oks[0] & oks[1]
                torch._assert_async(ok, "RDPOdometer.step: noise_multiplier must be > 0 and sample_rate in (0, 1]")
                s = torch.where(ok, s, torch.ones_like(s))
                qq = torch.where(ok, qq, torch.full_like(qq, 0.5))
            if key is not None:  # host numbers: the accountant's own per-step values, computed on the device
                r = self._exact(key, s, qq)
            else:  # device tensors: integer orders on the device, fractional ones by convexity (an upper bound)
                r = self._core.interpolate(self._core.per_step_int(s, qq))
            if key is not None:
                if len(self._cache) > 64:
                    self._cache.clear()
                self._cache[key] = r
        if steps == 0:
            return
        upd = self._rdp + steps * r
        self._rdp = upd if ok is None else torch.where(ok, upd, self._rdp)
        self.steps += steps

    def _exact(self, key: tuple[float, float], s: Any, q: Any) -> Any:
        """:meth:`_TorchRDP.per_step_exact` in float64 on this odometer's device (shared by the odometers of one
        device and orders: a budget plan builds many), rounded up into a narrower dtype."""
        import torch

        ck = (tuple(self._core.orders_np.tolist()), str(self.device), key)
        r = _STEP_CACHE.get(ck)
        if r is None:
            core = self._core if self.dtype == torch.float64 else _core_for(ck[0], str(self.device))
            r = core.per_step_exact(s.to(torch.float64), q.to(torch.float64))
            if len(_STEP_CACHE) >= 64:
                _STEP_CACHE.clear()
            _STEP_CACHE[ck] = r
        if self.dtype != torch.float64:
            n = r.to(self.dtype)
            r = torch.where(n.to(torch.float64) < r, torch.nextafter(n, torch.full_like(n, math.inf)), n)
        return r

    def epsilon(self, delta: float) -> Any:
        """Upper bound on epsilon at ``delta`` after the steps so far (0-d tensor)."""
        check_probability("delta", delta)
        return self._core.epsilon(self._rdp, delta)

    def delta(self, epsilon: float) -> Any:
        check_real("epsilon", epsilon, 0.0)
        return self._core.delta(self._rdp, epsilon)

    def rdp(self) -> Any:
        """Composed RDP at :attr:`orders` (tensor)."""
        return self._rdp

    def state_dict(self) -> dict[str, Any]:
        return {"rdp": self._rdp.detach().clone(), "steps": self.steps, "orders": self.orders.tolist()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`'s output.  Everything is checked before anything changes: a mapping with
        ``orders`` equal to this odometer's, ``steps`` an integer >= 0 and ``rdp`` (or an older state's
        ``rdp_int``) of the right shape, every value finite or +inf and >= 0 (a negative RDP would lower
        every epsilon reported after it)."""
        import torch

        if not isinstance(state, Mapping):
            raise InvalidParameterError(f"state_dict must be a mapping, got {type(state).__name__}")
        missing = [k for k in ("orders", "steps") if k not in state] + ([] if ("rdp" in state or "rdp_int" in state)
                                                                          else ["rdp"])
        if missing:
            raise InvalidParameterError(f"state_dict lacks {', '.join(repr(k) for k in missing)}; allowed: the "
                                        "mapping RDPOdometer.state_dict() returns")
        try:
            orders = [float(o) for o in state["orders"]]
        except (TypeError, ValueError):
            raise InvalidParameterError(f"state_dict orders={state['orders']!r} is not a list of numbers") from None
        if orders != list(map(float, self.orders)):
            raise InvalidParameterError("state_dict orders differ from this odometer's orders")
        steps = check_int("steps", state["steps"], 0)
        key = "rdp" if "rdp" in state else "rdp_int"
        try:
            raw = torch.as_tensor(state[key], dtype=torch.float64).detach().cpu()
        except (TypeError, ValueError, RuntimeError):
            raise InvalidParameterError(f"state_dict {key} is not an array of numbers") from None
        if bool(torch.any(torch.isnan(raw))) or bool(torch.any(raw < 0)):
            raise InvalidParameterError(f"state_dict {key} has a negative or NaN value; allowed: RDP values in [0, inf]")
        if key == "rdp":
            r = raw.to(device=self.device, dtype=self.dtype)
        else:  # an older state (integer orders only): bound the fractional orders by convexity
            if raw.ndim != 1 or raw.shape[0] != len(self._core.ints_np):
                raise InvalidParameterError(f"state_dict rdp_int has shape {tuple(raw.shape)}, expected "
                                            f"({len(self._core.ints_np)},)")
            r = self._core.interpolate(raw.to(device=self.device, dtype=self.dtype))
        if r.shape != self._rdp.shape:
            raise InvalidParameterError(f"state_dict rdp has shape {tuple(r.shape)}, expected {tuple(self._rdp.shape)}")
        self._rdp = r.clone()
        self.steps = steps


def rdp_torch(*, noise_multiplier: Any, sample_rate: Any, orders: Any = None, device: Any = None) -> Any:
    """Batched per-step RDP in torch: tensors/arrays (N,) -> (N, n_orders) on ``device`` (CUDA when present)."""
    import torch

    dev = _torch_device(device)
    ords = _rdp.DEFAULT_ORDERS if orders is None else np.asarray(orders, dtype=float)
    core = _core_for(tuple(ords.tolist()), str(dev))
    s = torch.as_tensor(noise_multiplier, device=dev, dtype=torch.float64)
    qq = torch.as_tensor(sample_rate, device=dev, dtype=torch.float64)
    s, qq = torch.broadcast_tensors(s, qq)
    if dev.type == "cpu":  # torch's CPU elementwise path is slower than numpy here: same kernels, numpy back-end
        rn = _rdp.sgm_rdp(noise_multiplier=s.numpy(), sample_rate=qq.numpy(), orders=ords)
        return torch.as_tensor(rn, dtype=torch.float64)
    qc = torch.clamp(qq, max=1.0 - 2**-53)[..., None]
    cols = []
    for a in core.ints_np:
        jj = torch.arange(int(a) + 1, device=dev, dtype=torch.float64)
        t = core.term(alpha=torch.tensor(float(a), device=dev, dtype=torch.float64), j=jj, q=qc, sigma=s[..., None])
        cols.append(torch.logsumexp(t, dim=-1) / (a - 1))
    r = torch.stack(cols, dim=-1)
    r = torch.where(qq[..., None] >= 1.0, core.gauss(alpha=core.ints, sigma=s[..., None]), r)
    r = torch.clamp(r, min=0.0) * (1 + _rdp._REL_MARGIN) + 1e-300
    return core.interpolate(r)


_CORES: dict[tuple, _TorchRDP] = {}
#: per-step values of host-number steps, per (orders, device, (sigma, q)) (bounded: cleared when full)
_STEP_CACHE: dict[tuple, Any] = {}


def _core_for(orders: tuple, device: str) -> _TorchRDP:
    import torch

    key = (orders, device)
    if key not in _CORES:
        _CORES[key] = _TorchRDP(np.array(orders), torch.device(device), torch.float64)
    return _CORES[key]


__all__ = ["RDPOdometer", "rdp_torch"]
