r"""Batched tight accounting of many DP-SGD configurations on a torch ``device`` (the CUDA path).

:func:`epsilon_batch` computes, for arrays of (noise multiplier, sample rate, steps, delta), the same
certified upper bound as ``symdp.accountants.epsilon(..., accountant="tight")``, in one pass and for all
configurations at once, every stage a batched tensor operation on ``device``:

1. discretisation of each configuration's two dominating pairs (remove, add) exactly as
   :func:`symdp.accountants.pld.discretize_step` does it (same ranges, grid, connect-the-dots split,
   tails, rounding estimate), with the loss and its inverse from the generated torch kernels of the
   library entries, on the grid the tight accountant starts from (``api._initial_h`` from a vectorised
   RDP guess); the inverse and the normal tails evaluated once per row for both directions
   (:func:`_discretize_pair`: the 'add' grid is the negated 'remove' lattice);
2. the Chernoff window of :func:`symdp.accountants.pld.compose` (its lambda grid and formulas), the log-MGFs in
   blocks of atoms (:func:`_block_log_mgf`: a batched matrix product, then a log-sum-exp over the blocks), raised
   by a rounding allowance;
3. composition.  The usual row (a long run: only a few dozen of the window's n/2 frequencies survive the power)
   takes the direct path: :func:`_cutoff` bounds every frequency of the window's transform past a cut ``k_c``
   rigorously (|P|^2 sampled by an FFT of length ``M ~ n / 13`` of the one-step PMF, a second-derivative bound
   between samples), so that the dropped ones add at most ``E0 <= e^-25 delta`` to the composed suffix sums, and
   :func:`_direct_chunks` sums the ``k < k_c`` frequencies directly (matrix products, rows centred on their mean
   atom; every window length in one call); no transform of the window's length.  Other rows: PMFs wrapped onto their FFT windows, stacked per FFT
   length, ``torch.fft``, raised to their step counts where the power does not underflow, conjugated and
   phase-shifted so that the inverse transform comes out reversed and rotated;
4. epsilon read off every row: where few frequencies survive, the suffix sums of the composed PMF are finite
   geometric sums over those frequencies, evaluated at the atoms a search visits (:func:`_freq_read`: no
   inverse transform, no pass over the window; all such rows of both directions at once; a bisection on the CPU,
   7 points a step on an accelerator, :func:`_launch_bound`); otherwise prefix
   sums of the reversed PMF (weights ``exp(i h)`` for windows up to 600 nats; wider ones with a log-space
   suffix sum, ``torch.logcumsumexp``: no overflow for any range).

What is added to delta, as in :mod:`.pld`: the composed mass at +inf (per-step truncation), the Chernoff
bound on the mass above the window, the discretisation rounding and an a-posteriori bound on the FFT
rounding (the direct path: the same model, plus ``E0``); mass wrapped around the cyclic window only raises
delta.  So every returned epsilon is an
upper bound.  Skipped compared with the single-configuration accountant: the grid refinement driven by
the Richardson estimate, so a value can sit a little higher (measured within 0.6% on the benchmark grid).
Where the batch's grid is too coarse for its PLD to be tight (at the floor ``h = 2e-5``, or coarser than one step's
loss scale: sigma 1e4, q 0.01, T 1e9 gave 0.456 where the RDP accountant gives 0.108), the RDP accountant's bound is
computed for those rows only (:func:`_coarse_grid`, :func:`_rdp_where_coarse`) and the smaller of the two rigorous
bounds is returned, as the single accountant does; ``details['served_by']`` names the method of every row.
A configuration the batch cannot place (q = 1, no answer inside its window) is recomputed by
``api.epsilon`` and counted in ``fallbacks``.  Rows are grouped by their number of atoms (padding at most
25% on a CPU; on an accelerator up to 2x, in groups sized by the device's free memory: few groups, so few kernel
launches, :func:`_group_limits`), and the composed window is read from a reversed inverse transform with plain prefix sums (see
:func:`_compose_read`).  On a CPU (one torch thread per process; batches of at least
:data:`_ROWS_PER_WORKER` rows a worker shared by forked workers) it runs at a few times the single-configuration
accountant's rate (``bench/accountants.py --only-throughput``); it is built for a GPU
(``bench/gpu_accountants.py``).

>>> import numpy as np
>>> r = epsilon_batch(noise_multiplier=np.array([1.1, 2.0]), sample_rate=0.01, steps=1000, delta=1e-5)
>>> bool(np.all(r.epsilon > 0)) and r.is_upper_bound
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..validation import check_probability
from . import api as _api
from . import pld as _pld
from . import tight as _tight

_U = float(np.finfo(float).eps)
_MAX_ELEMS = 1 << 24  # float64 elements per stacked FFT batch (memory cap)


@dataclass(frozen=True)
class BatchResult:
    """``epsilon`` (array, the broadcast shape of the inputs): certified upper bounds."""

    epsilon: np.ndarray
    delta: np.ndarray
    is_upper_bound: bool = True
    device: str = "cpu"
    fallbacks: int = 0
    details: dict[str, Any] = field(default_factory=dict)


def _guess_h(s: np.ndarray, q: np.ndarray, T: np.ndarray, d: np.ndarray, device: Any = None) -> np.ndarray:
    """Start grid of the tight accountant for every configuration, with no loop over configurations: the
    single accountant's RDP guess (``tight._guess_step_rdp`` / ``tight._guess_epsilon``, one vectorised call for
    the distinct (sigma, q)) and ``tight._initial_h``'s formula elementwise (:func:`_initial_h_rows`).

    On an accelerator ``device`` the per-step guess is computed there (:func:`_guess_step_rdp_device`: the same
    log terms by the generated torch kernel; the host loop over ~300 terms per pair cost 7.5 us per configuration,
    a third of a warm CUDA batch).  The grid only sizes the discretisation: any ``h`` gives a certified upper
    bound, and the two guesses agree to rounding."""
    pairs, inv = np.unique(np.stack([s, q], 1), axis=0, return_inverse=True)
    if device is not None and _device_type(device) != "cpu":
        step = _guess_step_rdp_device(pairs[:, 0], pairs[:, 1], device)
    else:
        step = _tight._guess_step_rdp(pairs[:, 0], pairs[:, 1])
    tot = T.astype(float)[:, None] * step[inv.ravel()]
    return _initial_h_rows(s, q, T.astype(float), _tight._guess_epsilon(tot, d))


def _device_type(device: Any) -> str:
    return str(device).split(":")[0]


def _guess_step_rdp_device(sigma: np.ndarray, q: np.ndarray, device: Any) -> np.ndarray:
    """``tight._guess_step_rdp`` on a torch ``device``: the odometer's integer-order kernel
    (:meth:`symdp.accountants.odometer._TorchRDP.per_step_int`, the library's ``accounting.sgm_rdp_log_term``
    summed in log space per order) at ``tight._GUESS_INT_ORDERS``, one launch sequence for every pair."""
    import torch

    from .odometer import _TorchRDP

    dev = torch.device(device)
    core = _TorchRDP(_tight._GUESS_INT_ORDERS, dev, torch.float64)
    r = core.per_step_int(torch.as_tensor(sigma, dtype=torch.float64, device=dev),
                          torch.as_tensor(q, dtype=torch.float64, device=dev))
    return np.asarray(r.cpu().numpy(), dtype=float)


#: the smallest grid step of the tight accountant (``tight._initial_h``'s floor and its refinement's)
_H_FLOOR = _tight._H_FLOOR


def _step_spread(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``q sqrt(e^{1/sigma^2} - 1)`` per row: the scale of one step's privacy loss (``tight._initial_h``'s ``s1``)."""
    with np.errstate(over="ignore"):
        return np.asarray(q * np.sqrt(np.expm1(np.minimum(1 / s**2, 700.0))), dtype=float)


def _initial_h_rows(s: np.ndarray, q: np.ndarray, T: np.ndarray, eps_guess: np.ndarray) -> np.ndarray:
    """``tight._initial_h([(s, q, T)], eps_guess)`` for arrays of single-segment configurations (the same
    operations elementwise: equal values up to an ulp of numpy's expm1, ``tests/test_batched_speed.py``)."""
    s1 = _step_spread(s, q)
    h = np.sqrt(_tight._TARGET_REL * np.maximum(eps_guess, 0.05) * np.maximum(s1, 1e-12) / (0.005 * T))
    h = h * np.where(T < 1000, 0.35, np.where(T < 8000, 0.6, 0.9))
    return np.minimum(np.maximum(h, _H_FLOOR), 2e-2)


def _coarse_grid(s: np.ndarray, q: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Rows whose PLD may be loose (the gate of :func:`_rdp_where_coarse`): the grid ``h`` sits at the floor
    :data:`_H_FLOOR` (the single accountant's error model, ``T h^2 / (eps s1)``, which sizes the grid, asked for a finer
    one: the O(h^2) error is above its target there) or is coarser than one step's loss scale ``s1``
    (:func:`_step_spread`), where the connect-the-dots split inflates the composed spread.

    Free: ``h`` and ``s1`` are known before the batch runs.  On the typical and wide benchmark grids no row is gated
    (``h / s1`` at most 0.39 and no grid at the floor); at sigma 1e4, q 0.01, T 1e9 (``h = 2e-5``, ``s1 = 1e-6``) the
    PLD says 0.456 where the RDP accountant says 0.108."""
    return np.asarray((h <= _H_FLOOR) | (h > _step_spread(s, q)), dtype=bool)


def _rdp_where_coarse(s: np.ndarray, q: np.ndarray, T: np.ndarray, d: np.ndarray, h: np.ndarray,
                      eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(eps', use)``: the batch's PLD epsilons ``eps`` replaced by the RDP accountant's bound (the single accountant's
    rule, ``tight._rdp_where_loose``: the smaller of two rigorous upper bounds) on the rows :func:`_coarse_grid` gates
    where it is smaller (``use``).  The RDP accountant runs once, vectorised, for the gated rows with a finite PLD value
    only (the others are left to the single accountant); a row it cannot bound (NaN) keeps its PLD value.  Rows not
    gated keep their values bit for bit."""
    from .rdp_curves import rdp_epsilons

    use = np.zeros(len(s), dtype=bool)
    g = np.nonzero(_coarse_grid(s, q, h) & np.isfinite(eps))[0]
    if not len(g):
        return eps, use
    r, _ = rdp_epsilons(np.stack([s[g], q[g], T[g].astype(float)], 1), d[g], "poisson", None)
    r = np.asarray(r, dtype=float).ravel()
    with np.errstate(invalid="ignore"):
        better = r < eps[g]  # NaN: no RDP bound, the PLD's stays
    use[g[better]] = True
    out = eps.copy()
    out[g[better]] = r[better]
    return out, use


def _bucket(need: Any) -> Any:
    """FFT lengths >= need (array) from {2^k, 5 * 2^(k-2), 3 * 2^(k-1)}: at most a third of padding (a fifth on
    average), few distinct lengths to stack."""
    need = np.asarray(need, dtype=np.int64)
    k = np.maximum(np.ceil(np.log2(np.maximum(need, 16))), 4).astype(np.int64)
    k = np.where((np.int64(1) << k) < need, k + 1, k)  # log2 rounding
    n = np.int64(1) << k
    five = 5 * (n >> 3)
    three = 3 * (n >> 2)
    return np.where(five >= need, five, np.where(three >= need, three, n))


def _ranges_torch(sigma: Any, q: Any, h: Any, tail: Any) -> dict[str, Any]:
    """Grid ranges of both directions (:func:`symdp.accountants.pld.discretize_step`'s): ``(j0, j1)`` of 'remove'
    and of 'add', ``l1q = log(1 - q)``, and the lattice ``m h``, ``m in [mlo, mlo + L)``, that holds both: the
    'remove' grid at ``m = j0_r + k`` and the 'add' grid (whose loss is the negated loss of the same inverse) at
    ``m = -(j0_a + k)`` (each row's ``L`` the number of lattice points)."""
    import torch

    from ._kernels import _kernel

    loss = _kernel("accounting.sgm_loss_remove", "torch")
    nd = torch.special.ndtri
    z = -nd(tail)
    l1q = torch.log1p(-q)
    z_half = -nd(tail / 2)
    z_q = -nd(torch.clamp(tail / (2 * q), max=0.5))
    x_hi = torch.maximum(z_half * sigma, 1 + z_q * sigma)
    j0r = torch.floor(l1q / h)
    j1r = torch.maximum(torch.ceil(loss(x=x_hi, q=q, sigma=sigma) / h), j0r + 1)
    j0a = torch.floor(-loss(x=z * sigma, q=q, sigma=sigma) / h)
    j1a = torch.maximum(torch.ceil(-l1q / h), j0a + 1)
    mlo = torch.minimum(j0r, -j1a)
    L = (torch.maximum(j1r, -j0a) - mlo + 1).to(torch.int64)
    return {"l1q": l1q, "j0r": j0r, "j1r": j1r, "j0a": j0a, "j1a": j1a, "mlo": mlo, "L": L}


def _discretize_torch(direction: str, sigma: Any, q: Any, h: Any, tail: Any) -> dict[str, Any]:
    """:func:`symdp.accountants.pld.discretize_step` (pessimistic) for a batch of configurations, padded (one direction
    of :func:`_discretize_pair`)."""
    return _discretize_pair(sigma, q, h, _ranges_torch(sigma, q, h, tail))[0 if direction == "remove" else 1]


def _discretize_pair(sigma: Any, q: Any, h: Any, rg: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """:func:`symdp.accountants.pld.discretize_step` (pessimistic) of both directions ('remove', 'add') for a batch of
    configurations, padded; ``rg``: their :func:`_ranges_torch`.

    The same ranges, grid, CDF differences (``pld._between``), connect-the-dots split
    (``pld._pmf_from_masses``), tail placement and rounding estimate, evaluated with torch on the device
    of the inputs; the loss inverse is the generated torch kernel of the library entry
    ``accounting.sgm_loss_remove_inverse`` (the range ends: ``accounting.sgm_loss_remove``), evaluated once on the
    lattice of :func:`_ranges_torch` for both directions (the 'add' grid point ``ell`` is the 'remove' lattice point
    ``-ell``: the same floating-point numbers as evaluating each direction on its own grid).  Returns, per direction,
    the padded PMFs ``pmf`` (B, K), the first grid index ``j0``, the number of atoms ``K``, ``inf_mass`` and
    ``roundoff``.
    """
    import torch

    from ._kernels import _kernel

    xinv = _kernel("accounting.sgm_loss_remove_inverse", "torch")
    f64 = torch.float64
    dev = sigma.device
    l1q = rg["l1q"]
    Lmax = int(rg["L"].max())
    ll = (rg["mlo"][:, None] + torch.arange(Lmax, dtype=f64, device=dev)[None, :]) * h[:, None]
    with torch.no_grad():
        xb = xinv(ell=ll, q=q[:, None], sigma=sigma[:, None])
    xb = torch.where(ll <= l1q[:, None], torch.full_like(xb, -math.inf), xb)
    xs = xb / sigma[:, None]
    x1 = (xb - 1) / sigma[:, None]
    # Phi(-|x|) as erfc(|x| / sqrt 2) / 2: torch.special.ndtr loses the lower tail (ndtr(-9.9) == 0); the signs as
    # 0 / 1 beside them, so that one gather serves each direction
    lat = torch.stack([0.5 * torch.special.erfc(xs.abs() / math.sqrt(2)), (xs > 0).to(f64),
                       0.5 * torch.special.erfc(x1.abs() / math.sqrt(2)), (x1 > 0).to(f64)], 1)  # (B, 4, Lmax)
    out = []
    for direction in ("remove", "add"):
        if direction == "remove":
            j0, j1 = rg["j0r"], rg["j1r"]
        else:
            j0, j1 = rg["j0a"], rg["j1a"]
        K = (j1 - j0 + 1).to(torch.int64)
        kk = torch.arange(int(K.max()), dtype=f64, device=dev)[None, :]
        # lattice index of grid point k: m - mlo with m = j0 + k ('remove') or -(j0 + k) ('add')
        li = (j0 - rg["mlo"])[:, None] + kk if direction == "remove" else (-j0 - rg["mlo"])[:, None] - kk
        li = li.clamp(0, Lmax - 1).to(torch.int64)  # padding (k >= K) clamped: masked below
        g = torch.gather(lat, 2, li[:, None, :].expand(-1, 4, -1))
        out.append(_assemble(direction, q, h, l1q, j0, K, kk, g[:, 0], g[:, 1] > 0.5, g[:, 2], g[:, 3] > 0.5))
    return out[0], out[1]


def _assemble(direction: str, q: Any, h: Any, l1q: Any, j0: Any, K: Any, kk: Any, t0: Any, u0: Any, t1: Any,
              u1: Any) -> dict[str, Any]:
    """One direction's padded PMFs from ``Phi(-|x|)`` and the signs of ``x`` at its grid points (see
    :func:`_discretize_pair`)."""
    import torch

    valid = kk < K[:, None]
    ell = (j0[:, None] + kk) * h[:, None]

    def between(ta: Any, ua: Any, tb: Any, ub: Any) -> Any:
        return torch.where(ua, ta - tb, torch.where(ub, 1.0 - ta - tb, tb - ta)).clamp_min(0.0)

    def cdf(t: Any, u: Any) -> Any:
        return torch.where(u, 1.0 - t, t)

    def sf(t: Any, u: Any) -> Any:
        return torch.where(u, t, 1.0 - t)

    last = (K - 1)[:, None]

    def at_last(v: Any) -> Any:
        return torch.gather(v, 1, last)[:, 0]

    qq = q[:, None]
    if direction == "remove":
        g0 = between(t0[:, :-1], u0[:, :-1], t0[:, 1:], u0[:, 1:])
        g1 = between(t1[:, :-1], u1[:, :-1], t1[:, 1:], u1[:, 1:])
        P, Q = (1 - qq) * g0 + qq * g1, g0
        P_low = (1 - q) * cdf(t0[:, 0], u0[:, 0]) + q * cdf(t1[:, 0], u1[:, 0])
        P_top = (1 - q) * at_last(sf(t0, u0)) + q * at_last(sf(t1, u1))
        Q_top = at_last(sf(t0, u0))
    else:
        g0 = between(t0[:, 1:], u0[:, 1:], t0[:, :-1], u0[:, :-1])
        g1 = between(t1[:, 1:], u1[:, 1:], t1[:, :-1], u1[:, :-1])
        P, Q = g0, (1 - qq) * g0 + qq * g1
        P_low = sf(t0[:, 0], u0[:, 0])
        P_top = at_last(cdf(t0, u0))
        Q_top = (1 - q) * at_last(cdf(t0, u0)) + q * at_last(cdf(t1, u1))
    ivalid = valid[:, 1:]  # interval i is (ell_i, ell_{i+1}] with i + 1 < K
    P = torch.where(ivalid, P, torch.zeros_like(P))
    Q = torch.where(ivalid, Q, torch.zeros_like(Q))
    roundoff = 8 * _U * (torch.where(ivalid, torch.clamp(t0[:, :-1], max=0.5), torch.zeros_like(P)).sum(1) + 1)
    hh = h[:, None]
    em1 = torch.expm1(hh)
    x_lo = torch.exp(ell[:, :-1])
    left = (torch.exp(hh) * x_lo * Q - P) / em1
    left = torch.nan_to_num(left, nan=0.0, posinf=0.0, neginf=0.0)
    left = torch.minimum(left.clamp_min(0.0), P)
    right = P - left
    pmf = torch.zeros_like(ell)
    pmf[:, :-1] += left
    pmf[:, 1:] += right
    pmf[:, 0] += P_low
    lk = at_last(ell) + torch.log(Q_top)
    keep = torch.where(lk >= torch.log(P_top), P_top, torch.exp(torch.minimum(lk, torch.log(P_top))))
    keep = torch.where(torch.isfinite(at_last(ell)) & (Q_top > 0) & (P_top > 0), keep, torch.zeros_like(keep))
    pmf.scatter_add_(1, last, keep[:, None])
    inf_mass = (P_top - keep).clamp_min(0.0)
    pmf = torch.where(valid, pmf, torch.zeros_like(pmf))
    return {"pmf": pmf, "j0": j0, "K": K, "inf_mass": inf_mass, "roundoff": roundoff}


def _windows_t(pm: Any, h: Any, j0: Any, T: Any, tail_tol: Any) -> Any:
    """``(lo, up, upper_tail, sum p, sum p (j - m)^2, m)`` rows for padded PMFs on the device: the Chernoff window of
    :func:`symdp.accountants.pld.compose` (its lambda grid, ``lam = grid / sqrt(T var)``), the last three (``m`` the
    mean atom) for :func:`_cutoff` and :func:`_direct_chunks`.

    ``log M(+-lam) = log sum_j p_j e^{+-lam ell_j}`` in blocks of ``b`` atoms (:func:`_block_log_mgf`: one batched
    matrix product and a log-sum-exp over the blocks, about ``b`` times fewer exponentials than over the atoms),
    raised by a rounding allowance, so that ``up`` and the tail bound stay upper bounds."""
    import torch

    dev = pm.device
    K = pm.shape[1]
    lam_grid = torch.as_tensor(_pld._LAM_GRID, dtype=torch.float64, device=dev)
    jj = torch.arange(K, dtype=torch.float64, device=dev)[None, :]
    tot = pm.sum(1).clamp_min(1e-300)
    m1 = (pm * jj).sum(1) / tot
    s2 = (pm * (jj - m1[:, None]).square_()).sum(1)
    var = torch.maximum(s2 / tot * h**2, h**2)
    lam = lam_grid[None, :] / torch.sqrt(T * var)[:, None]
    lm = T[:, None] * _block_log_mgf(pm, lam, h, j0)
    L = lam.shape[1]
    log_tol = torch.log(tail_tol)
    up = torch.min((lm[:, :L] - log_tol[:, None]) / lam, dim=1).values
    lo = torch.max((log_tol[:, None] - lm[:, L:]) / lam, dim=1).values
    upper_tail = torch.min(torch.exp(torch.clamp(lm[:, :L] - lam * up[:, None], max=0.0)), dim=1).values
    return torch.stack([lo, up, upper_tail, tot, s2, m1], 1)


_MGF_BLOCK_NATS = 64.0  # the largest exponent inside a block of :func:`_block_log_mgf` (no overflow, no underflow)


def _block_log_mgf(pm: Any, lam: Any, h: Any, j0: Any) -> Any:
    r"""``log sum_j p_j e^{s lam ell_j}`` (B, 2L) for padded PMFs ``pm`` (B, K) on the grids ``ell_j = (j0 + j) h``, at
    ``s lam`` for ``s = +1`` (first L columns) and ``-1`` (last L), ``lam > 0`` (B, L); raised by a rounding allowance.

    Atoms in blocks of ``b`` (a power of two, ``b max(lam h) <= 64``): for ``+lam``, block ``a`` is
    ``e^{lam h (j0 + a b)} sum_c p_{ab+c} e^{lam h c}``; for ``-lam``, ``e^{-lam h (j0 + ab + b - 1)} sum_c p_{ab+c}
    e^{lam h (b - 1 - c)}``: every exponent inside a block in ``[0, 64]`` (no overflow; the inner sums of nonnegative
    terms have relative rounding at most ``(b + 2) u``), the inner sums one batched matrix product (B, 2L, b) @ (B, b, A),
    the blocks combined by a log-sum-exp over ``A = K / b``.  Allowance: the computed value is at most
    ``(K + b + 16) u (1 + max_j |lam ell_j|)`` below the true one (the sums' and exponentials' relative rounding, the
    offsets' absolute rounding); ``1e-12 (1 + |x|) + 8 (K + b + 16) u (1 + max_j |lam ell_j|)`` is added."""
    import torch

    f64 = torch.float64
    dev = pm.device
    B, K = pm.shape
    lh = lam * h[:, None]  # (B, L)
    lhm = float(lh.max()) if B else 0.0
    b = 1
    while b < 32 and 2 * b * lhm <= _MGF_BLOCK_NATS and 4 * b * b <= K:
        b *= 2
    A = -(-K // b)
    x = torch.nn.functional.pad(pm, (0, A * b - K)) if A * b > K else pm
    cc = torch.arange(b, dtype=f64, device=dev)
    z = torch.exp(lh[:, :, None] * cc[None, None, :])  # (B, L, b): e^{lam h c}
    zz = torch.cat([z, z.flip(2)], 1)  # (B, 2L, b)
    S = torch.bmm(zz, x.view(B, A, b).transpose(1, 2))  # (B, 2L, A)
    aa = torch.arange(A, dtype=f64, device=dev) * b
    base = j0[:, None] + aa[None, :]  # (B, A): first atom of each block
    off_p = lh[:, :, None] * base[:, None, :]  # (B, L, A)
    off_n = -lh[:, :, None] * (base[:, None, :] + (b - 1))
    S.log_().add_(torch.cat([off_p, off_n], 1))
    out = torch.logsumexp(S, dim=2)
    # rounding allowance (see above): max |lam ell| over the row's grid
    big = lh * torch.maximum(j0.abs(), (j0 + (K - 1)).abs())[:, None]  # (B, L)
    allow = 1e-12 * (1 + out.abs()) + 8 * (K + b + 16) * _U * (1 + torch.cat([big, big], 1))
    return out + torch.where(torch.isfinite(out), allow, torch.zeros_like(allow))  # no mass at all: -inf stays


def _epsilon_device(s: np.ndarray, q: np.ndarray, T: np.ndarray, d: np.ndarray, h: np.ndarray, device: Any) -> np.ndarray:
    """Both directions of every configuration discretised, windowed, composed and read on ``device``."""
    import torch

    dev = torch.device(device)

    def t(a: np.ndarray) -> Any:
        return torch.as_tensor(np.ascontiguousarray(a), dtype=torch.float64, device=dev)

    budget = np.maximum(_api._TAIL_BUDGET * d, 1e-15)
    step_tail = np.maximum(budget / (4 * T), 1e-20)
    res = np.full((len(s), 2), np.inf)
    pend: list[dict[str, Any]] = []  # sparse spectra, read together at the end (:func:`_freq_read`)
    fr_rows: list[int] = []
    fr_cols: list[tuple[np.ndarray, ...]] = []
    dq: list[tuple[Any, ...]] = []  # rows of the direct path (:func:`_direct_all`), per group
    # rows sorted by their number of lattice points (both directions' grids) and cut into groups of similar size: a
    # padded batch costs the largest row's size per row, and the sizes span two orders of magnitude on a typical grid
    st_, qt_, ht_ = t(s), t(q), t(h)
    rg_all = _ranges_torch(st_, qt_, ht_, t(step_tail))
    Lrow = rg_all["L"].cpu().numpy()
    slices = _memory_slices(Lrow, _memory_budget(dev))
    if len(slices) > 1:  # bounded memory: a slice at a time (values change by rounding only: groups, FFT lengths)
        return np.concatenate([_epsilon_device(s[a:b], q[a:b], T[a:b], d[a:b], h[a:b], device) for a, b in slices])
    order = np.argsort(Lrow, kind="stable")
    pad, max_rows, max_elems = _group_limits(dev)
    groups = _groups(Lrow[order].astype(float), max_rows, pad, max_elems)  # a GPU: few, large launches
    Tt, tolt = t(T.astype(float)), t(budget / 4)
    both: list[list[tuple[np.ndarray, dict[str, Any], np.ndarray]]] = [[], []]
    launch = _launch_bound(dev)
    for a, b in groups:
        r = order[a:b]
        rt = torch.as_tensor(r, device=dev)
        discs = _discretize_pair(st_[rt], qt_[rt], ht_[rt], {k: v[rt] for k, v in rg_all.items()})
        if launch:  # both directions' windows in one call: their PMFs padded to the wider and stacked
            K = max(int(dc["pmf"].shape[1]) for dc in discs)
            pm2 = torch.cat([torch.nn.functional.pad(dc["pmf"], (0, K - dc["pmf"].shape[1])) for dc in discs])
            w2 = _windows_t(pm2, ht_[rt].repeat(2), torch.cat([dc["j0"] for dc in discs]), Tt[rt].repeat(2),
                            tolt[rt].repeat(2)).cpu().numpy()
            for di, disc in enumerate(discs):
                both[di].append((r, disc, w2[di * len(r):(di + 1) * len(r)]))
            continue
        for di, disc in enumerate(discs):
            win = _windows_t(disc["pmf"], ht_[rt], disc["j0"], Tt[rt], tolt[rt]).cpu().numpy()
            both[di].append((r, disc, win))
    for di in range(2):
        parts = both[di]
        inv = np.empty(len(s), dtype=np.int64)
        inv[order] = np.arange(len(s))
        j0n = np.concatenate([p[1]["j0"].cpu().numpy() for p in parts])[inv]
        Kn = np.concatenate([p[1]["K"].cpu().numpy() for p in parts])[inv]
        inf_n = np.concatenate([p[1]["inf_mass"].cpu().numpy() for p in parts])[inv]
        ro_n = np.concatenate([p[1]["roundoff"].cpu().numpy() for p in parts])[inv]
        win = np.concatenate([p[2] for p in parts])[inv]
        grp = np.concatenate([np.full(len(p[0]), i) for i, p in enumerate(parts)])[inv]  # group of each row
        pos = np.concatenate([np.arange(len(p[0])) for p in parts])[inv]  # its row in the group's tensors
        s_min = T * j0n
        s_max = T * (j0n + Kn - 1)
        lo, up, utail = win[:, 0], win[:, 1], win[:, 2]
        utail = np.where(up >= s_max * h, 0.0, utail)
        s0 = np.maximum(np.floor(lo / h), s_min)
        s1 = np.maximum(np.minimum(np.ceil(up / h), s_max), s0)
        n = _bucket(s1 - s0 + 1)
        with np.errstate(divide="ignore"):
            inf_tot = np.where(inf_n < 1, -np.expm1(T * np.log1p(-np.minimum(inf_n, 1.0))), 1.0)
        const = inf_tot + utail + T * ro_n
        ok = np.isfinite(utail) & (n <= (1 << 24))
        direct = np.zeros(len(s), dtype=bool)  # rows read from direct sums over their low frequencies
        if _DIRECT and np.any(ok):
            blocks = [(disc["pmf"], np.nonzero(ok[rg])[0]) for rg, disc, _w in parts]
            rr = np.concatenate([rg[b[1]] for (rg, _d, _w), b in zip(parts, blocks)])
            kc, E0 = _cutoff(blocks, win[rr, 3], win[rr, 4], n[rr], T[rr], d[rr], dev)
            sp = (kc > 0) & (kc * 8 < n[rr] // 2 + 1)  # few frequencies survive: the direct path
            at = 0
            for (rg, disc, _w), (_pm, sel) in zip(parts, blocks):
                spg = sp[at:at + len(sel)]
                kg, eg = kc[at:at + len(sel)], E0[at:at + len(sel)]
                at += len(sel)
                if np.any(spg):  # summed later with the direct rows of every group and direction of the same length n
                    rows = rg[sel[spg]]
                    dq.append((disc["pmf"], sel[spg], disc["j0"].cpu().numpy()[sel[spg]].astype(np.int64), kg[spg],
                               eg[spg], n[rows], s0[rows].astype(np.int64), T[rows], h[rows], const[rows], d[rows],
                               di * len(s) + rows, np.rint(win[rows, 5]).astype(np.int64), Kn[rows], di))  # see _direct_all
                    direct[rows] = True
        ok &= ~direct
        for nn in np.unique(n[ok]):
            rows = np.nonzero(ok & (n == nn))[0]
            chunk = max(1, _MAX_ELEMS // int(nn))
            for a in range(0, len(rows), chunk):
                r = rows[a:a + chunk]
                wrapped = torch.zeros((len(r), int(nn)), dtype=torch.float64, device=dev)
                for g in np.unique(grp[r]):  # each group's padded PMFs wrapped onto the window (one scatter per group)
                    sel = np.nonzero(grp[r] == g)[0]
                    disc = parts[int(g)][1]
                    pt = torch.as_tensor(pos[r[sel]], device=dev)
                    p_r = disc["pmf"][pt]
                    idx = ((disc["j0"][pt][:, None] + torch.arange(p_r.shape[1], dtype=torch.float64, device=dev)[None, :])
                           % int(nn)).to(torch.int64)
                    wrapped[torch.as_tensor(sel, device=dev)] = torch.zeros((len(sel), int(nn)), dtype=torch.float64,
                                                                            device=dev).scatter_add_(1, idx, p_r)
                eps_r, terms = _compose_terms(wrapped, s0[r].astype(np.int64), h[r], T[r], const[r], d[r], dev, len(fr_rows))
                if terms is None:
                    res[r, di] = eps_r
                else:  # read later with every other sparse row of both directions (one bisection for all)
                    pend.append(terms)
                    fr_rows.extend(di * len(s) + r)
                    fr_cols.append((s0[r].astype(np.int64), h[r], const[r], d[r]))
    _direct_all(dq, pend, fr_rows, fr_cols, dev)
    if pend:
        idx = np.asarray(fr_rows, dtype=np.int64)
        s0c, hc, cc, dc = (np.concatenate([f[i] for f in fr_cols]) for i in range(4))
        res[idx % len(s), idx // len(s)] = _freq_read(pend, hc, s0c, cc, dc, dev)
    return np.max(res, axis=1)


def _atoms_estimate(direction: str, s: np.ndarray, q: np.ndarray, h: np.ndarray, tail: np.ndarray) -> np.ndarray:
    """Number of grid atoms of every row (the grid range of :func:`_discretize_torch`, in numpy; only used to
    group rows of similar size, so an estimate suffices)."""
    from scipy.special import ndtri

    loss = _kernel_np("accounting.sgm_loss_remove")
    with np.errstate(all="ignore"):
        z = -ndtri(tail)
        l1q = np.log1p(-q)
        if direction == "remove":
            x_hi = np.maximum(-ndtri(tail / 2) * s, 1 - ndtri(np.minimum(tail / (2 * q), 0.5)) * s)
            lo, hi = l1q, loss(x=x_hi, q=q, sigma=s)
        else:
            lo, hi = -loss(x=z * s, q=q, sigma=s), -l1q
        K = np.ceil(hi / h) - np.floor(lo / h) + 1
    return np.where(np.isfinite(K), K, 1e18)


def _kernel_np(name: str) -> Any:
    from ._kernels import _kernel

    return _kernel(name, "numpy")


_GROUP_PAD = 1.25  # a group's widest row at most this many times its narrowest (CPU)
#: an accelerator's groups: each group costs a few hundred small kernel launches whatever its size, so few, wide
#: groups (padding <= 100%: the arithmetic of a typical batch is a small part of a GPU's time; measured on an H200,
#: a warm 10,000-configuration batch spent 47 ms in kernels and 0.4 s launching them with the CPU's groups)
_GROUP_PAD_DEVICE = 2.0
_GROUP_TEMPS = 64  # padded (rows x atoms) temporaries a group may hold at once, counted for its memory budget


def _group_limits(dev: Any) -> tuple[float, int, int]:
    """``(pad, max_rows, max padded elements)`` of one discretisation group on torch device ``dev``: on the CPU
    groups of at most 512 rows and 2^19 elements (cache-sized); on a CUDA device the element budget is a quarter of
    the device's free memory over :data:`_GROUP_TEMPS` float64 temporaries (read before anything is allocated),
    between 2^19 and 2^26 elements."""
    if dev.type == "cpu":
        return _GROUP_PAD, 512, _MAX_ELEMS // 32
    free = 0
    if dev.type == "cuda":
        import torch

        free = int(torch.cuda.mem_get_info(dev)[0])
    elems = min(max(free // (4 * 8 * _GROUP_TEMPS), _MAX_ELEMS // 32), 1 << 26)
    return _GROUP_PAD_DEVICE, 1 << 16, elems


def _groups(K_sorted: np.ndarray, max_rows: int = 512, pad: float = _GROUP_PAD,
            max_elems: int = _MAX_ELEMS // 32) -> list[tuple[int, int]]:
    """Cut rows sorted by size into groups whose largest row is at most ``pad`` times the smallest, at most
    ``max_rows`` rows and ``max_elems`` padded elements each."""
    out = []
    a = 0
    m = len(K_sorted)
    while a < m:
        lim = max(K_sorted[a] * pad, K_sorted[a] + 16)
        b = int(np.searchsorted(K_sorted, lim, side="right"))
        b = max(a + 1, min(b, a + max_rows, a + max(1, int(max_elems // max(K_sorted[max(b, a + 1) - 1], 1)))))
        out.append((a, b))
        a = b
    return out


_SCALED_MAX_NATS = 600.0  # windows up to this wide are read with exp(i h) weights (no overflow below ~709)


def _compose_read(x: Any, s0_: np.ndarray, h_: np.ndarray, T_: np.ndarray, const_: np.ndarray, dt_: np.ndarray,
                  dev: Any) -> np.ndarray:
    """Rows of wrapped PMFs (B, n) -> composed T-fold (FFT) -> epsilon at each row's delta (upper bound).

    Where few frequencies survive the power (the usual case: about 110 of n/2 ~ 8,000 on the benchmark grid) the
    composed PMF is never formed: :func:`_freq_terms` and :func:`_freq_read` read the suffix sums straight from the
    surviving frequencies.  Otherwise :func:`_compose_read_dense` (inverse transform and prefix sums).
    """
    eps, terms = _compose_terms(x, s0_, h_, T_, const_, dt_, dev)
    if terms is None:
        assert eps is not None
        return eps
    return _freq_read([terms], np.asarray(h_, dtype=float), np.asarray(s0_, dtype=np.int64),
                      np.asarray(const_, dtype=float), np.asarray(dt_, dtype=float), dev)


def _compose_terms(x: Any, s0_: np.ndarray, h_: np.ndarray, T_: np.ndarray, const_: np.ndarray, dt_: np.ndarray,
                   dev: Any, rows_at: int = 0) -> tuple[np.ndarray | None, dict[str, Any] | None]:
    """``(epsilon, None)`` through the dense readout where many frequencies survive the power, else ``(None, terms)``
    for :func:`_freq_read` (row ``i`` of ``x`` is row ``rows_at + i`` there)."""
    import torch

    n = int(x.shape[1])
    spec = torch.fft.rfft(x, n=n, dim=1)
    Tf = torch.as_tensor(np.asarray(T_, dtype=float), dtype=torch.float64, device=dev)
    sq = torch.view_as_real(spec).square()
    mag2 = sq[..., 0] + sq[..., 1]  # |f|^2 (not abs(): a hypot per entry; not a sum over the trailing 2: slow)
    keep = mag2 > torch.exp(-_KEEP_NATS * 2 / Tf)[:, None]
    if int(torch.count_nonzero(keep)) * 8 < keep.numel():
        return None, _freq_terms(spec, mag2, keep, s0_, Tf, n, rows_at, dev)
    return _compose_read_dense(x, s0_, h_, T_, const_, dt_, dev, spec=spec), None


_KEEP_NATS = 700.0  # frequencies with |f|^T <= e^-700 (up to the FFT error) are dropped; their total is bounded


def _freq_terms(spec: Any, mag2: Any, keep: Any, s0_: np.ndarray, Tf: Any, n: Any, rows_at: int, dev: Any,
                E0: Any = None) -> dict[str, Any]:
    """The surviving frequencies of rows of one FFT length ``n`` (or of a length per row: ``n`` an array), as the
    coefficients :func:`_freq_read` sums (see there).

    ``E0`` (per row): the bound on the dropped frequencies' contribution where the caller has one (the direct path,
    :func:`_cutoff`; ``spec`` then holds only the low frequencies); else from the largest dropped ``mag2``."""
    import torch

    u = _U
    f64 = torch.float64
    nn = np.broadcast_to(np.asarray(n, dtype=np.int64), (int(Tf.shape[0]),)).copy()
    un, ui = np.unique(nn, return_inverse=True)
    lg = torch.as_tensor(np.array([math.log2(max(int(v), 2)) for v in un])[ui.ravel()], dtype=f64, device=dev)
    n_t = torch.as_tensor(nn, device=dev)
    nf = n_t.to(f64)
    pn = math.pi / nf
    if E0 is None:
        drop = torch.where(keep, torch.zeros_like(mag2), mag2).max(1).values
        with torch.no_grad():  # sum x <= |f_0| (1 + 4u log2 n) <= 1.01 (a sub-probability vector)
            E0 = nf * torch.exp(Tf * torch.log(torch.sqrt(drop) + 4.04 * u * lg))
    # frequency 0 (real, F_0 = (sum x)^T): per row
    F0 = torch.where(keep[:, 0], torch.exp(Tf * (0.5 * torch.log(mag2[:, 0]))), torch.zeros_like(Tf))
    c0 = F0 / nf
    cE0 = c0 * ((4 * (Tf + lg) + 30 + torch.count_nonzero(keep, dim=1).to(f64)) * u)
    keep = keep.clone()
    keep[:, 0] = False
    rows, ks = keep.nonzero(as_tuple=True)
    cnt = torch.count_nonzero(keep, dim=1).to(f64)
    m2 = mag2[rows, ks]
    Tk = Tf[rows]
    kf = ks.to(f64)
    n_e, pn_e = n_t[rows], pn[rows]
    wk = torch.where(2 * ks == n_e, 1.0, 2.0).to(f64)
    c = wk * torch.exp(Tk * (0.5 * torch.log(m2))) / nf[rows]  # weight * |F_k| / n
    cE = c * ((4 * (Tk + lg[rows]) + 30 + cnt[rows]) * u)  # its rounding allowance
    # phase of F_k w^{s0 k}: T arg f_k + 2 pi (s0 k mod n) / n
    s0k = torch.as_tensor(np.asarray(s0_, dtype=np.int64) % nn, device=dev)[rows]
    ph = Tk * torch.angle(spec[rows, ks]) + ((s0k * ks) % n_e).to(f64) * (2 * pn_e)
    Cr, Ci = c * torch.cos(ph), c * torch.sin(ph)
    sk, ck = torch.sin(kf * pn_e), torch.cos(kf * pn_e)
    # D = C / (1 - w^k), 1 - w^k = -2i sin(pi k / n) e^{i pi k / n}
    inv2s = 0.5 / sk
    Er, Ei = Cr * ck + Ci * sk, Ci * ck - Cr * sk  # C e^{-i pi k / n}
    return {"rows": rows + rows_at, "ks": ks, "n_e": n_e, "pn_e": pn_e,
            "Cr": Cr, "Ci": Ci, "Dr": -Ei * inv2s, "Di": Er * inv2s, "sk": sk, "s2k": torch.sin(kf * (2 * pn_e)),
            "cE": cE, "n_r": nf, "c0": c0, "cE0": cE0, "E0": E0}


#: sparse rows take :func:`_cutoff` / :func:`_direct_terms` (no transform of the composed window's length); False:
#: every row through the full FFT (:func:`_compose_terms`), the reference the tests compare with
_DIRECT = True
_DROP_NATS = 25.0  # the dropped frequencies' bound E0 of the direct path is at most e^-25 delta (and e^-40)


def _cutoff(blocks: list[tuple[Any, np.ndarray]], tot_: np.ndarray, S2_: np.ndarray, n_: np.ndarray, T_: np.ndarray,
            d_: np.ndarray, dev: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""``(k_c, E0)`` per row of padded one-step PMFs (``blocks``: a group's PMFs and the rows taken from it, in
    order; ``tot`` and ``S2`` their ``sum p`` and ``sum p (j - mean)^2`` from :func:`_windows_t`) composed ``T`` times on windows of length ``n``:
    every frequency ``k >= k_c`` of the length-``n`` transform has ``|f_k|^2 <= B^2`` with ``n B^T = E0`` at most
    ``e^-25 delta`` (and ``e^-40``), so :func:`_freq_read` may drop them with ``E0`` added to its suffix sums, and only
    ``k < k_c`` are needed (:func:`_direct_terms`).  ``k_c = 0``: no such cut found cheaply (the full FFT serves).

    ``f_k = e^{-i j0 theta} P(theta)`` at ``theta = 2 pi k / n``, ``P(theta) = sum_j p_j e^{-i j theta}`` the
    transform of the PMF itself (of any length: a transform of the PMF wrapped onto a shorter cycle samples the same
    ``P``).  ``g = |P|^2 = sum_{j,l} p_j p_l cos((j - l) theta)`` has ``|g''| <= sum p_j p_l (j - l)^2 <=
    2 (sum p) sum p_j (j - c)^2 = G`` for any ``c``, so on a cell ``[a, b]`` of width ``Delta``,
    ``g <= max(g(a), g(b)) + G Delta^2 / 8`` (``g`` minus its chord minus ``G (t - a)(b - t) / 2`` is convex and
    vanishes at both ends).  ``g`` is sampled on the grid ``2 pi t / M`` by an FFT of length ``M`` (a power of two with
    ``G Delta^2 / 8`` at most a tenth of ``1 - B^2``: ``M ~ n / 13`` on the typical grid), each sample raised by the
    FFT model's rounding ``4.04 u (log2 M + wraps) sum p`` (as the full-FFT path's ``E0``); ``k_c`` is the first
    frequency of the length-``n`` grid at or above the end of the last cell whose bound exceeds ``B^2``.
    """
    import torch

    f64 = torch.float64
    u = _U
    B = len(n_)
    Tn = np.asarray(T_, dtype=float)
    Lc = np.log(n_.astype(float)) + np.maximum(40.0, _DROP_NATS - np.log(d_))  # n B^T <= n e^-Lc
    G = 2 * tot_ * S2_ * (1 + 1e-9) + 1e-300  # |g''| bound; the sums' rounding (K u relative) covered
    gap = -np.expm1(-2 * Lc / Tn)  # 1 - B^2
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        M_req = math.pi * np.sqrt(G / (0.2 * gap))  # pi^2 G / (2 M^2) <= gap / 10
        M = np.exp2(np.ceil(np.log2(np.maximum(M_req, 64.0))))
    kc = np.zeros(B, dtype=np.int64)
    E0 = np.zeros(B)
    cand = np.isfinite(M) & (M * 8 <= n_)
    # each block's candidate rows gathered once, sorted by M: the rows of one M are a slice
    by_M: dict[int, list[tuple[Any, np.ndarray]]] = {}
    at = 0
    for pm, sel in blocks:
        rows = np.nonzero(cand[at:at + len(sel)])[0]
        if len(rows):
            o = rows[np.argsort(M[at + rows], kind="stable")]
            pmd = pm.index_select(0, torch.as_tensor(sel[o], device=dev))
            um, st = np.unique(M[at + o], return_index=True)
            for MMf, a0, b0 in zip(um, st, [*st[1:], len(o)]):
                by_M.setdefault(int(MMf), []).append((pmd[a0:b0], at + o[a0:b0]))
        at += len(sel)
    # |P| sampled per M (one transform per length); the cell bounds below for every row of a band of lengths at once
    samples: list[tuple[int, Any, np.ndarray, np.ndarray]] = []  # (M, |P(2 pi t / M)|, rows, wraps)
    merge = 2.0 if _launch_bound(dev) else 1.0  # padding allowed to merge blocks (and lengths, below)
    for MM in sorted(by_M):
        blk = by_M[MM]  # blocks in increasing width (the groups' order)
        nbs = [-(-x.shape[1] // MM) for x, _rr in blk]
        xs = []
        a = 0
        while a < len(blk):  # blocks of similar width padded to the same number of cycles and wrapped together
            b, own, nrow = a + 1, len(blk[a][1]) * nbs[a], len(blk[a][1])
            # at most twice the cycles the blocks hold themselves
            while (merge > 1 and b < len(blk)
                   and (nrow + len(blk[b][1])) * nbs[b] <= merge * (own + len(blk[b][1]) * nbs[b])):
                own, nrow, b = own + len(blk[b][1]) * nbs[b], nrow + len(blk[b][1]), b + 1
            nb = nbs[b - 1]
            padded = [torch.nn.functional.pad(x, (0, nb * MM - x.shape[1])) if x.shape[1] < nb * MM else x
                      for x, _rr in blk[a:b]]
            x = padded[0] if len(padded) == 1 else torch.cat(padded)
            # wrapped onto the cycle of length M (the same samples of P)
            xs.append(x.reshape(x.shape[0], nb, MM).sum(1) if nb > 1 else x)
            a = b
        xw = xs[0] if len(xs) == 1 else torch.cat(xs)
        samples.append((MM, torch.fft.rfft(xw, n=MM, dim=1).abs(), np.concatenate([rr for _x, rr in blk]),
                        np.concatenate([np.full(len(rr), nb) for (_x, rr), nb in zip(blk, nbs)])))
    # per length: its rows and the widest frequency range a cell spans for them (n / M + 2)
    sizes = [(m, len(i), int(n_[i].max()) // m + 2) for m, _s, i, _w in samples]
    for band in (_cutoff_bands(sizes) if merge > 1 else [(i, i + 1) for i in range(len(samples))]):
        bp = samples[band[0]:band[1]]
        H = int(bp[-1][0]) // 2 + 1
        # the bands' samples side by side, each row padded with -inf past its own M/2 (never above a threshold)
        a_ = bp[0][1] if len(bp) == 1 else torch.cat(
            [torch.nn.functional.pad(sm, (0, H - sm.shape[1]), value=-math.inf) for _m, sm, _i, _n in bp])
        idx = np.concatenate([i for _m, _s, i, _n in bp])
        Mr = np.concatenate([np.full(len(i), m, dtype=np.int64) for m, _s, i, _n in bp])
        Mf = Mr.astype(float)
        eM = torch.as_tensor(4.04 * u * (np.log2(Mf) + np.concatenate([w for *_r, w in bp])) * tot_[idx], dtype=f64,
                             device=dev)
        slack = torch.as_tensor(math.pi**2 * G[idx] / (2.0 * Mf * Mf), dtype=f64, device=dev)
        thr = torch.as_tensor(np.exp(-2 * Lc[idx] / Tn[idx]), dtype=f64, device=dev)
        M_t = torch.as_tensor(Mr, device=dev)
        # a cell's bound ((max(a_t, a_t+1) + eM)^2 + slack)(1 + 8u) exceeds thr only where a sample exceeds athr (its
        # rounding taken the safe way: a cell flagged in excess only raises k_c); t1 = one past the last such cell
        athr = torch.sqrt((thr * (1 - 16 * u) - slack * (1 + 4 * u)).clamp_min(0.0)) * (1 - 4 * u) - eM * (1 + 4 * u)
        ii = torch.arange(H, dtype=torch.int64, device=dev)
        i_last = torch.where(a_ > athr[:, None], ii[None, :], torch.full_like(ii, -1)[None, :]).amax(1)
        t1 = torch.minimum(i_last + 1, M_t // 2)
        # inside the last cell over the bound, [a, b] = 2 pi [t1 - 1, t1] / M, the pointwise bound (chord plus
        # G (theta - a)(b - theta) / 2) at each frequency 2 pi k / n of the window: k_c is one past the last over thr
        nr = torch.as_tensor(n_[idx], device=dev)
        t0 = (t1 - 1).clamp_min(0)
        k_lo = (nr * t0 + M_t - 1) // M_t
        k_hi = (nr * t1) // M_t
        kk = k_lo[:, None] + torch.arange(int((k_hi - k_lo).max()) + 1, device=dev)[None, :]
        ga = (a_.gather(1, t0[:, None]) + eM[:, None]).square()
        gb = (a_.gather(1, t1[:, None]) + eM[:, None]).square()
        lam = kk.to(f64) * M_t.to(f64)[:, None] / nr.to(f64)[:, None] - t0.to(f64)[:, None]  # (theta - a) / Delta
        pt = ((1 - lam) * ga + lam * gb + 4 * slack[:, None] * lam * (1 - lam)) * (1 + 16 * u)
        bad = (pt > thr[:, None]) & (kk <= k_hi[:, None])
        last = torch.where(bad, kk + 1, k_lo[:, None]).max(1).values
        kc[idx] = np.maximum(torch.where(t1 > 0, last, torch.ones_like(last)).cpu().numpy(), 1)
        # every dropped frequency: |f_k|^2 <= thr = e^{-2 Lc / T}, so the dropped part adds at most n e^{-Lc}
        E0[idx] = n_[idx] * np.exp(-Lc[idx]) * (1 + 1e-9)
    return kc, E0


#: the cell bounds of :func:`_cutoff` run for several sampling lengths at once, their samples padded to the longest:
#: a band's padded elements at most this many times its own (and the band at most :data:`_MAX_ELEMS` elements)
_BAND_PAD = 4.0


def _cutoff_bands(sizes: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """Consecutive bands ``[a, b)`` of ``(M, rows, w)`` triples (``M`` increasing; ``w`` the widest range of frequencies a
    cell spans for those rows) whose elements (``rows x (M/2 + 1 + w)`` each), padded to the band's largest, hold at
    most :data:`_BAND_PAD` times their own (and :data:`_MAX_ELEMS`)."""
    out: list[tuple[int, int]] = []
    a = 0
    while a < len(sizes):
        b, rows, own, W = a + 1, sizes[a][1], sizes[a][1] * (sizes[a][0] // 2 + 1 + sizes[a][2]), sizes[a][2]
        while b < len(sizes):
            H2, W2, r = sizes[b][0] // 2 + 1, max(W, sizes[b][2]), rows + sizes[b][1]
            e = own + sizes[b][1] * (H2 + sizes[b][2])
            if r * (H2 + W2) > max(_BAND_PAD * e, 1 << 16) or r * (H2 + W2) > _MAX_ELEMS:
                break
            rows, own, W, b = r, e, W2, b + 1
        out.append((a, b))
        a = b
    return out


def _direct_all(dq: list[tuple[Any, ...]], pend: list[dict[str, Any]], fr_rows: list[int],
                fr_cols: list[tuple[np.ndarray, ...]], dev: Any) -> None:
    """The low frequencies of every direct row (``dq``: per discretisation group, its padded PMFs, the rows' positions
    there and their per-row values) by one :func:`_direct_chunks` call (chunks of one window length ``n`` and similar
    PMF widths: rows of both directions and of several groups share one: the twiddles depend on ``n`` only), then one
    :func:`_freq_terms` for all; appended to ``pend`` for :func:`_freq_read`."""
    import torch

    if not dq:
        return
    # each group's direct rows gathered once, sorted by window length: the rows of one length are a slice
    by_n: dict[int, list[tuple[int, Any, list[np.ndarray], int]]] = {}
    for pm, loc, *cols, di in dq:
        o = np.argsort(cols[3], kind="stable")  # cols: j0, kc, E0, n, s0, T, h, const, delta, gid, centre, K
        cols = [c[o] for c in cols]
        pmd = pm.index_select(0, torch.as_tensor(loc[o], device=dev))
        un, at = np.unique(cols[3], return_index=True)
        ends = list(at[1:]) + [len(o)]
        for nn, a0, b0 in zip(un, at, ends):
            by_n.setdefault(int(nn), []).append((pm.shape[1], pmd[a0:b0], [c[a0:b0] for c in cols], di))
    chunks: list[tuple[int, list[tuple[Any, ...]]]] = []
    cols_in: list[list[np.ndarray]] = []
    for nn in sorted(by_n):
        subs = sorted(by_n[nn], key=lambda e: e[0])
        a = 0
        # chunks whose widths are within 3x (a matrix product is cheap; splitting the directions, whose mean atoms sit
        # at opposite ends, measured no faster)
        while a < len(subs):
            b = a + 1
            rows_in = subs[a][1].shape[0]
            while (b < len(subs) and subs[b][0] <= 3 * subs[a][0]
                   and rows_in + subs[b][1].shape[0] <= 4096):
                rows_in += subs[b][1].shape[0]
                b += 1
            # per sub: its PMFs, j0, kc, s0, T, centre, atoms
            chunks.append((nn, [(e[1], e[2][0], e[2][1], e[2][4], e[2][5], e[2][10], e[2][11]) for e in subs[a:b]]))
            cols_in.append([np.concatenate([e[2][i] for e in subs[a:b]]) for i in range(12)])
            a = b
    spec, keep, s0p = _direct_chunks(chunks, dev)
    for c in cols_in:  # j0, kc, E0, n, s0, T, h, const, delta, gid, centre, K
        fr_rows.extend(c[9])
        fr_cols.append((c[4], c[6], c[7], c[8]))
    n_, T_, E0 = (np.concatenate([c[i] for c in cols_in]) for i in (3, 5, 2))
    sq = torch.view_as_real(spec).square()
    pend.append(_freq_terms(spec, sq[..., 0] + sq[..., 1], keep, s0p,
                            torch.as_tensor(np.asarray(T_, dtype=float), dtype=torch.float64, device=dev), n_,
                            len(fr_rows) - len(n_), dev, E0=torch.as_tensor(E0, dtype=torch.float64, device=dev)))


def _twiddles(n: int, dev: Any) -> tuple[Any, Any]:
    """``(2 sin^2(pi m' / n), sin(2 pi m' / n))`` for ``m = 0 .. n - 1``, ``m' = m`` up to ``n/2`` and ``m - n``
    above (the angle reduced to ``[-pi, pi]`` before the sine: small angles for ``m`` near ``n``)."""
    return _twiddles_many([n], dev)


def _twiddles_many(ns: list[int], dev: Any) -> tuple[Any, Any]:
    """:func:`_twiddles` of every length in ``ns``, one after the other (length ``n`` at offset ``sum`` of those before
    it), in one pass."""
    import torch

    nn = np.asarray(ns, dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(nn)[:-1]])
    n_of = torch.as_tensor(np.repeat(nn, nn), device=dev)
    mi = torch.arange(int(nn.sum()), dtype=torch.int64, device=dev) - torch.as_tensor(np.repeat(start, nn), device=dev)
    mm = torch.where(2 * mi > n_of, mi - n_of, mi).to(torch.float64) * (math.pi / n_of.to(torch.float64))
    return 2 * torch.sin(mm).square(), torch.sin(2 * mm)


def _direct_sums(x: Any, j0_: np.ndarray, kc_: np.ndarray, n: int, s0_: np.ndarray, T_: np.ndarray, dev: Any,
                 centre: np.ndarray | None = None) -> tuple[Any, Any, np.ndarray]:
    """:func:`_direct_chunks` of rows of one window length ``n`` (padded one-step PMFs ``x`` (B, K) at ``j0``), centred on
    their rounded mean atoms (``centre``, else computed here)."""
    xn = x.detach().cpu().numpy()
    if centre is None:
        jj = np.arange(xn.shape[1])
        centre = np.rint((xn * jj).sum(1) / np.maximum(xn.sum(1), 1e-300)).astype(np.int64)
    last = np.array([int(np.nonzero(r > 0)[0].max()) if np.any(r > 0) else 0 for r in xn], dtype=np.int64)
    return _direct_chunks([(n, [(x, j0_, kc_, s0_, T_, centre, last + 1)])], dev)


def _direct_chunks(chunks: list[tuple[int, list[tuple[Any, ...]]]], dev: Any) -> tuple[Any, Any, np.ndarray]:
    """``(spec, keep, s0')``: the frequencies ``k < k_c`` of every row of ``chunks`` (each a window length ``n`` and its
    rows: a list of ``(x, j0, kc, s0, T, centre, K)``, padded one-step PMFs ``x`` (B, K') at ``j0`` and per-row arrays,
    ``K`` the number of atoms) summed directly (matrix products; the others bounded by :func:`_cutoff`'s ``E0``), for
    :func:`_freq_terms` with ``s0'`` in place of ``s0``; rows in the order given, ``spec`` and ``keep`` padded to the
    largest ``k_c``.

    Each row is centred on its mean atom ``c`` (``centre``: the rounded mean; any integer serves, the phase below uses
    the same ``c``) (rows shifted so that the centres of a chunk share a column), and the sum is taken as
    ``P_k = sum p - sum_j p_j 2 sin^2(phi_j / 2) - i sum_j p_j sin(phi_j)``, ``phi_j = 2 pi ((j - c) k mod n) / n``
    reduced to ``[-pi, pi]`` (exactly, in integers): for the low frequencies that carry weight the two sums are small,
    so their rounding is far below that of the total, which is summed once.  The transform's phase
    ``e^{-2 pi i (j0 + c) k / n}`` is raised to ``T`` exactly, in integers (folded into ``s0``).  The rounding allowance
    is :func:`_freq_read`'s model with the FFT's ``4 log2 n`` for the forward transform (these sums are checked against
    an extended-precision reference in ``tests/test_batched_tight.py``: closer than the FFT).

    Launches: the twiddle tables of every length and the twiddle matrices of every chunk (``(K2, k_c)`` entries each,
    interleaved sine pairs) are built in one pass, each chunk is then a scatter per sub-block and one matrix product,
    and the outputs are combined once (on a GPU the per-length calls cost more to launch than to run)."""
    import torch

    f64 = torch.float64
    lens = sorted({int(n) for n, _ in chunks})
    off = dict(zip(lens, np.concatenate([[0], np.cumsum(lens)[:-1]]).tolist()))
    vt, st = _twiddles_many(lens, dev)
    # per chunk (host): the centre column C, the width K2 over the rows' atoms, the frequencies kcm
    plan = []
    at = 0
    for n, subs in chunks:
        crs = [np.clip(np.asarray(sb[5], dtype=np.int64), 0, np.asarray(sb[6], dtype=np.int64) - 1) for sb in subs]
        C = max(int(c.max()) for c in crs)
        K2 = C + max(int((np.asarray(sb[6], dtype=np.int64) - 1 - c).max()) for sb, c in zip(subs, crs)) + 1
        kcm = max(int(np.max(sb[2])) for sb in subs)
        plan.append((n, subs, crs, C, K2, kcm, at))
        at += K2
    kmax = max(p[5] for p in plan)
    tab = torch.stack([vt, st], 1)  # (sum n, 2): the pair of each angle side by side

    def twiddle_rows(sel: list[tuple[Any, ...]]) -> Any:
        """The twiddle matrices of the chunks ``sel`` stacked, (sum K2, k, 2) with k their largest kcm: row ``j`` of a
        chunk holds the pair at angle ``(j - C) k`` reduced mod ``n`` to ``[0, n)`` in integers (exact; the tables hold
        the angle reduced to ``[-pi, pi]``)."""
        km = max(p[5] for p in sel)
        if len(sel) == 1:  # one chunk (one n): its indices as the old per-length code computed them
            n1, C1, K21 = sel[0][0], sel[0][3], sel[0][4]
            kk_ = torch.arange(km, dtype=torch.int64, device=dev)
            ix = torch.remainder((torch.arange(K21, dtype=torch.int64, device=dev) - C1)[:, None] * kk_[None, :], n1)
            ix = ix + off[n1] if off[n1] else ix
            return tab.index_select(0, ix.view(-1)).view(K21, km, 2)
        jrel = np.concatenate([np.arange(p[4], dtype=np.int64) - p[3] for p in sel])
        n_r = np.concatenate([np.full(p[4], p[0], dtype=np.int64) for p in sel])
        o_r = np.concatenate([np.full(p[4], off[p[0]], dtype=np.int64) for p in sel])
        kk_ = torch.arange(km, dtype=torch.int64, device=dev)
        ix = (torch.remainder(torch.as_tensor(jrel, device=dev)[:, None] * kk_[None, :],
                              torch.as_tensor(n_r, device=dev)[:, None]) + torch.as_tensor(o_r, device=dev)[:, None])
        return tab.index_select(0, ix.view(-1)).view(len(jrel), km, 2)

    # an accelerator builds the chunks' matrices in few passes (each at most _MAX_ELEMS entries); the CPU one chunk at a
    # time (cache-sized temporaries)
    W_of: dict[int, tuple[Any, int]] = {}  # chunk -> (its pass's matrices, its first row there)
    if _launch_bound(dev) and len(plan) > 1:
        a = 0
        while a < len(plan):
            b, rows_, km = a + 1, plan[a][4], plan[a][5]
            while b < len(plan) and (rows_ + plan[b][4]) * 2 * max(km, plan[b][5]) <= _MAX_ELEMS:
                rows_, km, b = rows_ + plan[b][4], max(km, plan[b][5]), b + 1
            Wp = twiddle_rows(plan[a:b])
            r0 = 0
            for i in range(a, b):
                W_of[i] = (Wp, r0)
                r0 += plan[i][4]
            a = b
    prods, tots = [], []
    s0p_parts, kc_parts = [], []
    for ci, (n, subs, crs, C, K2, kcm, _a0) in enumerate(plan):
        R = sum(int(sb[0].shape[0]) for sb in subs)
        Kx = max(int(sb[0].shape[1]) for sb in subs)
        shift = np.concatenate([C - c for c in crs])
        xs = torch.zeros((R, max(Kx + int(shift.max()), K2)), dtype=f64, device=dev)
        # column of atom j of each row: j + C - c (its centre at column C); one index for the chunk, sliced per block
        ix = torch.as_tensor(shift, device=dev)[:, None] + torch.arange(Kx, dtype=torch.int64, device=dev)[None, :]
        r0 = 0
        for sb, c in zip(subs, crs):
            x = sb[0]
            r1 = r0 + x.shape[0]
            xs[r0:r1].scatter_(1, ix[r0:r1, :x.shape[1]], x)
            r0 = r1
            Tn = np.asarray(sb[4], dtype=np.int64)
            J = np.asarray(sb[1], dtype=np.int64) + c
            s0p_parts.append((np.asarray(sb[3], dtype=np.int64) - ((Tn % n) * (J % n)) % n) % n)  # e^{-2 pi i J k/n}^T
            kc_parts.append(np.asarray(sb[2], dtype=np.int64))
        xs = xs[:, :K2]
        tots.append(xs.sum(1))
        if ci in W_of:
            Wp, w0 = W_of[ci]
            W = Wp[w0:w0 + K2, :kcm]
        else:
            W = twiddle_rows([plan[ci]])
        prod = xs @ W.reshape(K2, 2 * kcm)  # one product for both sums (a view: the pair is contiguous)
        prods.append(torch.nn.functional.pad(prod, (0, 2 * (kmax - kcm))) if kcm < kmax else prod)
    prod = prods[0] if len(prods) == 1 else torch.cat(prods)
    tot = tots[0] if len(tots) == 1 else torch.cat(tots)
    fr = tot[:, None] - prod[:, 0::2]
    fi = -prod[:, 1::2]
    kk = torch.arange(kmax, dtype=torch.int64, device=dev)
    keep = kk[None, :] < torch.as_tensor(np.concatenate(kc_parts), device=dev)[:, None]
    return torch.complex(fr, fi), keep, np.concatenate(s0p_parts)


def _direct_terms(x: Any, j0_: np.ndarray, kc_: np.ndarray, n: int, s0_: np.ndarray, T_: np.ndarray, E0_: np.ndarray,
                  rows_at: int, dev: Any) -> dict[str, Any]:
    """:func:`_freq_terms` of rows of one window length from :func:`_direct_sums` (:func:`_direct_all` does the same for
    many lengths at once)."""
    import torch

    spec, keep, s0p = _direct_sums(x, j0_, kc_, n, s0_, T_, dev)
    return _freq_terms(spec, spec.real.square() + spec.imag.square(), keep, s0p,
                       torch.as_tensor(np.asarray(T_, dtype=float), dtype=torch.float64, device=dev), n, rows_at, dev,
                       E0=torch.as_tensor(E0_, dtype=torch.float64, device=dev))


def _freq_read(terms: list[dict[str, Any]], h_: np.ndarray, s0_: np.ndarray, const_: np.ndarray, dt_: np.ndarray,
               dev: Any) -> np.ndarray:
    r"""Epsilon of every row read from the surviving frequencies of its composed spectrum, no inverse transform
    (rows of any FFT lengths at once: ``terms`` from :func:`_freq_terms`, covering rows ``0 .. len(h_) - 1``).

    The composed (cyclic) PMF is ``p_u = (1/n) sum_k F_k w^{(s0 + u) k}`` (``w = e^{2 pi i / n}``, ``F = f^T``,
    atom ``s0 + u``, ``u < n``), so its suffix sums are finite geometric sums: with ``N = n - m``,
    ``A(m) = sum_{u >= m} p_u = (1/n) sum_k Re[F_k w^{s0 k} (w^{m k} - 1) / (1 - w^k)]`` (``N F_0 / n`` at k = 0)
    and ``S(m) = sum_{u >= m} p_u e^{-(u - m) h} = (1/n) sum_k Re[F_k w^{s0 k} (w^{m k} - r^N) / (1 - r w^k)]``
    (``r = e^{-h}``), each frequency counted twice but 0 and n/2, in cancellation-free forms
    (``w^{mk} - 1 = 2i sin(a) e^{ia}``, ``a = pi m k / n``; ``1 - r^N = -expm1(-N h)``;
    ``1 - r w^k = (-expm1(-h) + 2 r sin^2(pi k/n)) - i r sin(2 pi k/n)``).
    ``delta(ell_{m-1}) = A(m) - e^{-h} S(m) + const`` is nondecreasing as ``m`` decreases: a bisection over ``m``
    (``ceil(log2 n) + 1`` evaluations of all rows at once) finds the smallest atom with delta at most the target,
    and the readout below it is :func:`_compose_read_dense`'s.

    The rounding allowance is that of the dense readout and of :func:`symdp.accountants.pld.compose` (the
    project's FFT model: the composed spectrum's entries off by at most ``4u (T + log2 n) |F_k|`` each), weighted
    here by the geometric sums actually used, ``|G| / n <= 1``: ``E_A(m) = (1/n) sum_k c_k |dF_k| |G_A|`` (the same
    for ``S``), ``|dF_k| = (4 (T + log2 n) + 30 + K) u |F_k|`` (``c_k`` the weight 1 or 2, ``K`` the row's number
    of surviving frequencies: the evaluation and the summation).  The dropped frequencies (``|f|^2`` below
    ``e^(-1400/T)``) add at most ``E0 = n (max dropped |f| + 4u log2(n) sum x)^T`` to every suffix sum.  ``A`` is
    raised and ``S`` lowered by their allowances, both when choosing the atom and in the readout below it.
    """
    import torch

    f64 = torch.float64
    B = len(h_)

    def cat(k: str) -> Any:
        return torch.cat([tm[k] for tm in terms])

    rows, ks, n_e, pn_e = cat("rows"), cat("ks"), cat("n_e"), cat("pn_e")
    Cr, Ci, Dr, Di, sk, s2k, cE = (cat(k) for k in ("Cr", "Ci", "Dr", "Di", "sk", "s2k", "cE"))
    # per-row quantities (every row appears in exactly one record)
    n_r = torch.zeros(B, dtype=f64, device=dev)
    c0, cE0, E0 = torch.zeros_like(n_r), torch.zeros_like(n_r), torch.zeros_like(n_r)
    at = 0
    for tm in terms:
        k = len(tm["n_r"])
        n_r[at:at + k], c0[at:at + k], cE0[at:at + k], E0[at:at + k] = tm["n_r"], tm["c0"], tm["cE0"], tm["E0"]
        at += k
    hs = torch.as_tensor(h_, dtype=f64, device=dev)
    const = torch.as_tensor(const_, dtype=f64, device=dev)
    dt = torch.as_tensor(dt_, dtype=f64, device=dev)
    em_h = torch.exp(-hs)
    h_e = hs[rows]
    r_e = em_h[rows]
    den_re = -torch.expm1(-h_e) + 2 * r_e * sk.square()
    den_im = -r_e * s2k
    den2 = den_re.square() + den_im.square()
    Hr, Hi = (Cr * den_re + Ci * den_im) / den2, (Ci * den_re - Cr * den_im) / den2  # C / (1 - r w^k)
    inv_sk = 1.0 / sk
    inv_den = 1.0 / torch.sqrt(den2)
    n2_e = 2 * n_e
    g0_den = -torch.expm1(-hs)

    # the per-frequency and per-row factors as columns, once (each step evaluates P points of every row)
    ks_c, n2_c, pn_c = ks[:, None], n2_e[:, None], pn_e[:, None]
    Dr_c, Di_c, Hr_c, Hi_c = Dr[:, None], Di[:, None], Hr[:, None], Hi[:, None]
    cEs_c, cEd_c = (cE * inv_sk)[:, None], (cE * inv_den)[:, None]
    n_c, h_c, g0_c, E0_c = n_r[:, None], hs[:, None], g0_den[:, None], E0[:, None]
    cp_c, cm_c = (c0 + cE0)[:, None], (c0 - cE0)[:, None]

    def suffix(m: Any) -> tuple[Any, Any]:
        """``(A(m) + E_A(m), S(m) - E_S(m))`` for every row at each of its ``P`` points (``m``: int64 (B, P), in
        [0, n]); (B, P) each."""
        N = n_c - m.to(f64)
        one_rN = -torch.expm1(-N * h_c)  # 1 - r^N per row
        al = ((m[rows] * ks_c) % n2_c).to(f64) * pn_c
        sa, ca = torch.sin(al), torch.cos(al)
        zr, zi = -2 * sa * sa, 2 * sa * ca  # w^{mk} - 1
        tA = Dr_c * zr - Di_c * zi
        zr = zr + one_rN[rows]  # w^{mk} - r^N
        tS = Hr_c * zr - Hi_c * zi
        # |G_A| / n = |sin a| / (n sin(pi k / n)),  |G_S| / n = |w^{mk} - r^N| / (n |1 - r w^k|)  (1/n is in cE)
        tt = torch.stack([tA + cEs_c * sa.abs(), tS - cEd_c * torch.hypot(zr, zi)], 2)
        z = torch.zeros((B, m.shape[1], 2), dtype=f64, device=dev).index_add_(0, rows, tt)
        # frequency 0: G_A = N, G_S = (1 - r^N) / (1 - r); and the dropped frequencies' bound E0
        return z[:, :, 0] + cp_c * N + E0_c, z[:, :, 1] + cm_c * (one_rN / g0_c) - E0_c

    n_i = n_r.to(torch.int64)
    slack = dt - const  # atom m - 1 qualifies when A(m) - e^{-h} S(m) <= slack (allowances included)
    lo = torch.zeros(B, dtype=torch.int64, device=dev)  # invariant: lo does not qualify (or is 0), hi does
    hi = n_i.clone()
    # a search of P points a step (P = 1: bisection; an accelerator takes more, in fewer steps: fewer launches)
    P = _read_probes(dev)
    jp = torch.arange(1, P + 1, dtype=torch.int64, device=dev)[None, :]
    em_c, slack_c = em_h[:, None], slack[:, None]
    for _ in range(_search_steps(int(n_i.max()), P)):
        mid = lo[:, None] + ((hi - lo)[:, None] * jp) // (P + 1)  # (B, P), increasing, in [lo, hi)
        A_, S_ = suffix(mid)
        okm = ((A_ - em_c * S_).clamp_min(0.0) <= slack_c) & (mid >= 1)
        # hi: the smallest qualifying point; lo: the largest point below it that does not qualify
        hi = torch.where(okm, mid, hi[:, None]).amin(1)
        lo = torch.where(~okm & (mid < hi[:, None]), mid, lo[:, None]).amax(1)
    # the atom s0 + t: delta(ell_t) <= target (hi == n: the top atom, if it qualifies); mass at atoms >= t (allowances
    # included); both points in one evaluation
    t = hi - 1
    A2, S2 = suffix(torch.stack([hi, t.clamp_min(0)], 1))
    okn = (A2[:, 0] - em_h * S2[:, 0]).clamp_min(0.0) <= slack
    A_k, S_k = A2[:, 1], S2[:, 1]
    s0f = torch.as_tensor(np.asarray(s0_, dtype=float), dtype=f64, device=dev)
    ell_k = (s0f + t.to(f64)) * hs
    rr = A_k + const - dt
    with torch.no_grad():
        e = ell_k + torch.log(rr.clamp_min(1e-320) / S_k.clamp_min(1e-320))
    e = torch.where(S_k > 0, e, ell_k)
    e = torch.where(rr > 0, e, ell_k - hs)  # delta(ell_{t-1}) <= A(t) + const <= target
    e = torch.minimum(torch.maximum(e, ell_k - hs), ell_k)
    e = torch.where(t <= 0, ell_k, e)  # the lowest atom of the window: no interpolation below it
    e = e + 4 * _U * e.abs() + 1e-15
    e = torch.where(okn & (slack > 0) & torch.isfinite(E0), e.clamp_min(0.0), torch.full_like(e, math.inf))
    return np.asarray(e.cpu().numpy(), dtype=float)


#: points a step of :func:`_freq_read`'s search on an accelerator (7: three bits a step, 6 steps instead of 16 at
#: n = 20,480; each step is about 40 launches whatever P is, and P times the elementwise work)
_PROBES_DEVICE = 7


def _read_probes(dev: Any) -> int:
    """Points a step of :func:`_freq_read`'s search on torch device ``dev``: 1 (bisection) on the CPU, where the work
    counts, :data:`_PROBES_DEVICE` on an accelerator, where the launches do (:func:`_launch_bound`)."""
    return _PROBES_DEVICE if _launch_bound(dev) else 1


def _launch_bound(dev: Any) -> bool:
    """Whether a batch on torch device ``dev`` is bound by its launches (an accelerator: few, larger operations with
    padding; :func:`_cutoff`, :func:`_direct_chunks`, :func:`_read_probes`, both directions' windows in one
    :func:`_windows_t` call per group) rather than by its arithmetic and memory traffic (the CPU: cache-sized
    operations, no padding)."""
    return _device_type(dev) != "cpu"


def _search_steps(n: int, P: int) -> int:
    """Steps of a search of ``P`` points a step over ``(0, n]`` down to one atom (bisection, P = 1:
    ``ceil(log2 n) + 1``, one to spare)."""
    if P == 1:
        return math.ceil(math.log2(max(n, 2))) + 1
    k, s = 1, max(n, 2)
    while s > 1:
        s = -(-s // (P + 1))
        k += 1
    return k


def _compose_read_dense(x: Any, s0_: np.ndarray, h_: np.ndarray, T_: np.ndarray, const_: np.ndarray, dt_: np.ndarray,
                        dev: Any, spec: Any = None) -> np.ndarray:
    """Rows of wrapped PMFs (B, n) -> composed T-fold (FFT) -> epsilon at each row's delta (upper bound), through
    the composed PMF.

    The power is taken only where it does not underflow: ``|f|^T < e^-745`` is 0 in float64 whatever is done,
    and for T in the thousands only the lowest few hundred frequencies survive.  The spectrum is conjugated and
    multiplied by a phase so that the inverse transform comes out reversed and rotated: entry ``i`` is the atom
    ``s0 + n - 1 - i``, so plain prefix sums are the suffix sums of the loss (computed from the small end, no
    cancellation).  ``S`` uses weights ``exp(i h)`` (windows up to :data:`_SCALED_MAX_NATS`; wider rows go to
    :func:`_compose_read_log`).  The rounding bound and the readout are those of :func:`_compose_read_log`.
    ``spec``: ``torch.fft.rfft(x)``, where the caller has it already (:func:`_compose_terms`).
    """
    import torch

    n = int(x.shape[1])
    wide = (n - 1) * np.asarray(h_, dtype=float) > _SCALED_MAX_NATS
    if np.any(wide):
        out_ = np.empty(x.shape[0])
        w = np.nonzero(wide)[0]
        nw = np.nonzero(~wide)[0]
        out_[w] = _compose_read_log(x[torch.as_tensor(w, device=dev)], s0_[w], h_[w], T_[w], const_[w], dt_[w], dev)
        if len(nw):
            nwt = torch.as_tensor(nw, device=dev)
            out_[nw] = _compose_read_dense(x[nwt], s0_[nw], h_[nw], T_[nw], const_[nw], dt_[nw], dev,
                                           spec=None if spec is None else spec[nwt])
        return out_
    B = int(x.shape[0])
    if spec is None:
        spec = torch.fft.rfft(x, n=n, dim=1)
    Tf = torch.as_tensor(np.asarray(T_, dtype=float), dtype=torch.float64, device=dev)
    mag = spec.abs()
    keep = mag > torch.exp(-745.0 / Tf)[:, None]
    # conj(f^T) e^{-2 pi i r k / n} with r = (s0 + n - 1) mod n: the inverse transform is reversed and rotated
    r = torch.as_tensor((np.asarray(s0_, dtype=np.int64) + n - 1) % n, device=dev)
    if int(keep.sum()) * 8 < keep.numel():  # few frequencies survive the power: only those are computed
        rows, ks = keep.nonzero(as_tuple=True)
        Tk = Tf[rows]
        ph = ((r[rows] * ks) % n).to(torch.float64) * (2 * math.pi / n)
        m_ = torch.exp(Tk * torch.log(mag[rows, ks]))
        ang = -Tk * torch.angle(spec[rows, ks]) - ph
        Y = torch.zeros_like(spec)
        Y[rows, ks] = torch.polar(m_, ang)
        abs_sum = torch.zeros(B, dtype=torch.float64, device=dev).index_add_(0, rows, m_)
    else:
        kk = torch.arange(spec.shape[1], dtype=torch.int64, device=dev)
        ph = ((r[:, None] * kk[None, :]) % n).to(torch.float64) * (2 * math.pi / n)
        m_ = torch.where(keep, torch.exp(Tf[:, None] * torch.log(mag)), torch.zeros_like(mag))
        Y = torch.polar(m_, -Tf[:, None] * torch.angle(spec) - ph)
        abs_sum = m_.sum(1)
    y = torch.fft.irfft(Y, n=n, dim=1).clamp_min_(0.0)  # y[:, i] = atom s0 + n - 1 - i
    fft_err = 8 * _U * (Tf + math.log2(n)) * abs_sum  # as pld.compose: total over the window
    hs = torch.as_tensor(np.asarray(h_, dtype=float), dtype=torch.float64, device=dev)
    s0 = torch.as_tensor(np.asarray(s0_, dtype=float), dtype=torch.float64, device=dev)
    const = torch.as_tensor(np.asarray(const_, dtype=float), dtype=torch.float64, device=dev) + fft_err
    dt = torch.as_tensor(np.asarray(dt_, dtype=float), dtype=torch.float64, device=dev)
    ii = torch.arange(n, dtype=torch.float64, device=dev)
    E = torch.exp(ii[None, :] * hs[:, None])  # <= e^600
    A = torch.cumsum(y, 1)  # A[i] = mass at atoms >= s0 + n - 1 - i
    C = torch.cumsum(y.mul_(E), 1)  # S[i] = C[i] / E[i] = sum_{atoms >= s_i} p e^{-(s - s_i) h}
    # delta at eps = ell of atom i (atoms strictly above it, i.e. entries < i): A[i-1] - e^{-h} S[i-1]
    dk = torch.empty_like(A)
    dk[:, 0] = 0.0
    torch.sub(A[:, :-1], C[:, :-1] / E[:, 1:], out=dk[:, 1:])
    dk.clamp_min_(0.0).add_(const[:, None])
    ok = dk <= dt[:, None]
    # the smallest atom with delta <= target = the largest entry index (any such atom is an upper bound)
    istar = torch.where(ok, ii[None, :], torch.full_like(ii[None, :], -1.0)).max(dim=1).values
    has = istar >= 0
    ic = istar.clamp_min(0).to(torch.int64)[:, None]
    A_k = torch.gather(A, 1, ic)[:, 0]
    S_k = (torch.gather(C, 1, ic) / torch.gather(E, 1, ic))[:, 0]
    ell_k = (s0 + (n - 1) - istar.clamp_min(0)) * hs
    rr = A_k + const - dt
    with torch.no_grad():
        e = ell_k + torch.log(rr.clamp_min(1e-320) / S_k.clamp_min(1e-320))
    e = torch.where(rr > 0, e, ell_k - hs)
    e = torch.minimum(torch.maximum(e, ell_k - hs), ell_k)
    e = torch.where(istar == n - 1, ell_k, e)  # the lowest atom of the window: no interpolation below it
    e = e + 4 * _U * e.abs() + 1e-15
    e = torch.where(has & (const < dt), e.clamp_min(0.0), torch.full_like(e, math.inf))
    return np.asarray(e.cpu().numpy(), dtype=float)


def _compose_read_log(x: Any, s0_: np.ndarray, h_: np.ndarray, T_: np.ndarray, const_: np.ndarray, dt_: np.ndarray,
                      dev: Any) -> np.ndarray:
    """Rows of wrapped PMFs (B, n) -> composed T-fold (FFT) -> epsilon at each row's delta (upper bound); the
    suffix sums in log space (any window width: :func:`_compose_read` serves windows up to 600 nats)."""
    import torch

    n = int(x.shape[1])
    spec = torch.fft.rfft(x, n=n, dim=1)
    T = torch.as_tensor(T_, dtype=torch.int64, device=dev)
    # spec ** T row-wise as exp(T log spec): for an integer T this is the power exactly (any branch of the
    # log); its relative rounding grows like T u |log spec|, the same order as repeated squaring (T u),
    # which the FFT rounding bound below already carries
    out = torch.log(spec)
    out.mul_(T.to(torch.float64)[:, None])
    out = torch.exp(out)
    abs_sum = out.abs().sum(dim=1)
    c = torch.fft.irfft(out, n=n, dim=1)
    rot = torch.as_tensor(s0_ % n, device=dev)
    pmf = torch.gather(c, 1, (torch.arange(n, device=dev)[None, :] + rot[:, None]) % n)  # entry k = atom s0 + k
    pmf = pmf.clamp_min(0.0)
    Tf = T.to(torch.float64)
    fft_err = 8 * _U * (Tf + math.log2(n)) * abs_sum  # as pld.compose: total over the window
    hs = torch.as_tensor(h_, dtype=torch.float64, device=dev)
    s0 = torch.as_tensor(s0_, dtype=torch.float64, device=dev)
    const = torch.as_tensor(const_, dtype=torch.float64, device=dev) + fft_err
    dt = torch.as_tensor(dt_, dtype=torch.float64, device=dev)
    k = torch.arange(n, dtype=torch.float64, device=dev)[None, :]
    # suffix sums: A_k = sum_{j>=k} p_j, LS_k = log sum_{j>=k} p_j e^{-j h} (log space: no overflow)
    A = torch.flip(torch.cumsum(torch.flip(pmf, [1]), 1), [1])
    with torch.no_grad():
        logp = torch.log(pmf) - k * hs[:, None]
    LS = torch.flip(torch.logcumsumexp(torch.flip(logp, [1]), 1), [1])
    zero = torch.zeros((x.shape[0], 1), dtype=torch.float64, device=dev)
    ninf = torch.full((x.shape[0], 1), -math.inf, dtype=torch.float64, device=dev)
    A1 = torch.cat([A[:, 1:], zero], 1)
    LS1 = torch.cat([LS[:, 1:], ninf], 1)
    dk = (A1 - torch.exp(k * hs[:, None] + LS1)).clamp_min(0.0) + const[:, None]  # delta at eps = ell_k
    # dk is nonincreasing in k (up to rounding): first k with dk <= target, via a running minimum
    dk = torch.cummin(dk, dim=1).values
    ok = dk <= dt[:, None]
    has = ok.any(dim=1)
    kk = torch.argmax(ok.to(torch.int8), dim=1)
    ell_k = (s0 + kk.to(torch.float64)) * hs
    A_k = torch.gather(A, 1, kk[:, None])[:, 0]
    LS_k = torch.gather(LS, 1, kk[:, None])[:, 0]
    r = A_k + const - dt
    e = torch.where(r > 0, torch.log(r.clamp_min(1e-320)) - LS_k + s0 * hs, torch.full_like(r, -math.inf))
    e = torch.minimum(torch.maximum(e, ell_k - hs), ell_k)
    e = torch.where(kk == 0, ell_k, e)
    e = e + 4 * _U * e.abs() + 1e-15
    e = torch.where(has & (const < dt), e.clamp_min(0.0), torch.full_like(e, math.inf))
    return np.asarray(e.cpu().numpy(), dtype=float)


class _cpu_threads:
    """On a CPU device, torch's intra-op threads set to 1 for the call (restored after): the batch is many
    medium-sized operations, where thread start-up and spinning cost more than they give -- measured on the
    2-core machine under load: 126 configurations/s with 1 thread, 23/s with torch's default 2."""

    def __init__(self, device: Any) -> None:
        self.cpu = _device_type(device) == "cpu"
        self.prev = 0

    def __enter__(self) -> None:
        if self.cpu:
            import torch

            self.prev = torch.get_num_threads()
            torch.set_num_threads(1)

    def __exit__(self, *exc: object) -> None:
        if self.cpu and self.prev:
            import torch

            torch.set_num_threads(self.prev)


def _device_chunk(args: tuple[np.ndarray, ...], device: Any) -> np.ndarray:
    s, q, T, d, h = args
    with _cpu_threads(device):
        return _epsilon_device(s, q, T, d, h, device)


#: rows per forked worker at the least: a worker's fork and copy-on-write faults and each slice's fixed costs cost
#: more than a second core gives below this (measured with the direct path: 500 rows took 1.84x the CPU time
#: with 2 workers as with 1, 1,000 rows 1.39x, 2,000 rows 1.10x)
_ROWS_PER_WORKER = 1000


def _cpu_map(s: np.ndarray, q: np.ndarray, T: np.ndarray, d: np.ndarray, h: np.ndarray, device: Any,
             workers: int | None) -> np.ndarray:
    """:func:`_epsilon_device` of every row; on a CPU device a batch of at least :data:`_ROWS_PER_WORKER` rows per
    worker is cut into interleaved slices (each
    with rows of every size, so each slice groups as well as the whole) shared by this process and forked worker
    processes (one torch thread each), as :func:`symdp.accountants.tight._tight_map` does for the single
    accountant (same guards: Linux, one Python thread, not inside a worker).  Each row's value does not depend on
    the slice it is computed in except through the FFT length bucket, so slices may differ from a single call by
    rounding only (both are upper bounds)."""
    import sys
    import threading

    m = len(s)
    w = min(_tight._n_workers(workers), max(1, m // _ROWS_PER_WORKER))
    if (_device_type(device) != "cpu" or w < 2 or _tight._IN_WORKER or not sys.platform.startswith("linux")
            or threading.active_count() > 1):
        return _device_chunk((s, q, T, d, h), device)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    order = np.argsort(_atoms_estimate("remove", s, q, h, np.maximum(_api._TAIL_BUDGET * d, 1e-15) / (4 * T)),
                       kind="stable")
    slices = [order[i::w] for i in range(w)]
    out = np.full(m, np.inf)
    try:
        ex = ProcessPoolExecutor(max_workers=w - 1, mp_context=multiprocessing.get_context("fork"),
                                 initializer=_tight._worker_init)
        try:
            futs = [ex.submit(_device_chunk, tuple(a[r] for a in (s, q, T, d, h)), device) for r in slices[1:]]
            out[slices[0]] = _device_chunk(tuple(a[slices[0]] for a in (s, q, T, d, h)), device)
            for r, f in zip(slices[1:], futs):
                out[r] = f.result()
        finally:
            ex.shutdown(wait=True, cancel_futures=True)
    except (BrokenProcessPool, OSError):  # no processes here: this one computes what is missing
        miss = np.nonzero(~np.isfinite(out))[0]
        if len(miss):
            out[miss] = _device_chunk(tuple(a[miss] for a in (s, q, T, d, h)), device)
    return out


#: bytes a row holds at once, per atom of its grid (both directions' PMFs, CDF tables, windows and group temporaries;
#: measured on an H200: 100,000 typical rows, 2,678 atoms each on average (:func:`_atoms_estimate`, both
#: directions), peaked at 11.7 GiB: 47 bytes per atom)
_BYTES_PER_ATOM = 64
#: a batch's share of the memory it runs in: half of the CUDA device's free memory, or of the host's available memory
#: (at most 4 GiB, so that forked workers and the caller keep theirs)
_HOST_CHUNK_BYTES = 4 << 30


def _memory_budget(dev: Any) -> float:
    """Bytes one :func:`_epsilon_device` call may hold: half of a CUDA device's free memory, or of the host's
    available memory and at most :data:`_HOST_CHUNK_BYTES` (read before the batch allocates)."""
    if dev.type == "cuda":
        import torch

        return 0.5 * float(torch.cuda.mem_get_info(dev)[0])
    import os

    try:
        avail = float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        avail = float(_HOST_CHUNK_BYTES)
    return min(0.5 * avail, float(_HOST_CHUNK_BYTES))


def _memory_slices(L: np.ndarray, budget: float) -> list[tuple[int, int]]:
    """Consecutive slices ``[a, b)`` of rows whose lattices (``L`` points each, both directions' grids lie on it)
    need at most ``budget`` bytes at :data:`_BYTES_PER_ATOM` per point and direction; a row larger than the budget
    alone."""
    need = np.cumsum(np.asarray(L, dtype=float) * (2.0 * _BYTES_PER_ATOM))
    out: list[tuple[int, int]] = []
    a, base = 0, 0.0
    while a < len(need):
        b = max(int(np.searchsorted(need, base + budget, side="right")), a + 1)
        out.append((a, b))
        base = float(need[b - 1])
        a = b
    return out


@_api._quiet_fp
def epsilon_batch(*, noise_multiplier: Any, sample_rate: Any, steps: Any, delta: Any, device: Any = "cpu",
                  workers: int | None = None) -> BatchResult:
    """Tight epsilon (certified upper bound) for every configuration; arrays broadcast.

    ``device``: a torch device (``"cpu"``, ``"cuda"``, ...) for the discretisation, the Chernoff windows, the
    stacked FFT composition and the readout.  ``workers`` (CPU only): processes sharing a large batch (default:
    ``$SYMDP_WORKERS``, else the usable cores, at most 8; 1: this process only).
    """
    s = np.asarray(_api._check_sigma(noise_multiplier), dtype=float)
    q = np.asarray(_api._check_q(sample_rate), dtype=float)
    T = np.asarray(_api._check_steps(steps), dtype=np.int64)
    d = np.asarray(check_probability("delta", delta), dtype=float)
    s, q, T, d = np.broadcast_arrays(s, q, T, d)
    shape = s.shape
    s, q, T, d = (a.ravel() for a in (s, q, T, d))
    m = len(s)
    eps = np.full(m, np.nan)
    easy = (T == 0) | (q >= 1.0)
    eps[T == 0] = 0.0
    todo = np.nonzero(~easy)[0]
    res = np.full(m, np.inf)
    pld_res = res
    rdp_use = np.zeros(m, dtype=bool)
    if len(todo):
        hh = _guess_h(s[todo], q[todo], T[todo], d[todo], device)
        res[todo] = _cpu_map(s[todo], q[todo], T[todo], d[todo], hh, device, workers)
        pld_res = res.copy()
        res[todo], rdp_use[todo] = _rdp_where_coarse(s[todo], q[todo], T[todo], d[todo], hh, res[todo])
    bad = np.nonzero((~easy & ~np.isfinite(res)) | (easy & (T > 0)))[0]
    eps[todo] = res[todo]
    for b in bad:  # q = 1 (exact Gaussian path) or no answer inside the window: single accountant
        eps[b] = float(_api.epsilon(noise_multiplier=float(s[b]), sample_rate=float(q[b]), steps=int(T[b]),
                                    delta=float(d[b]), accountant="tight").epsilon)
    served = np.where(T == 0, "no steps", np.where(rdp_use, "rdp", "pld")).astype(object)
    served[bad] = "single"
    det: dict[str, Any] = {"method": "PLD, connect-the-dots (pessimistic), batched FFT composition",
                           "served_by": served.reshape(shape)}
    if rdp_use.any():
        det["pld_epsilon"] = np.where(rdp_use, pld_res, np.nan).reshape(shape)
        det["fallback"] = (f"rdp: for {int(rdp_use.sum())} of the {m} configurations the batch's PLD grid is at its "
                           f"floor h = {_H_FLOOR:g} or coarser than one step's loss scale and the RDP accountant's bound "
                           "is smaller; the smaller of two rigorous upper bounds is returned (details['served_by'], "
                           "the PLD's values in details['pld_epsilon'])")
    return BatchResult(eps.reshape(shape), d.reshape(shape), True, str(device), len(bad), det)


__all__ = ["BatchResult", "epsilon_batch"]
