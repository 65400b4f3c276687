"""The torch device paths (issue 25) on every device present: ``cpu`` always (CI), ``cuda`` where a GPU is
(the lent device machine runs this file: ``python -m pytest tests/test_device_paths.py``).

Oracles: the single-configuration tight accountant's rigorous [lower, upper] bracket for the batched path, the
numpy RDP accountant (itself tested against mpmath and dp_accounting) for the odometer; every device value must
lie at or above the truth's lower end (never below the truth) and close to the host value."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import symdp.accountants as A  # noqa: E402
from symdp.accountants import rdp as R  # noqa: E402

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
_LOWER: dict[tuple[float, float, int, float], float] = {}


def _lower(s, q, T, d) -> np.ndarray:
    """The mechanism algebra's rigorous lower end of epsilon (optimistic discretisation) of each DP-SGD run."""
    from symdp.accountants.algebra import tight
    from symdp.mechanisms import Gaussian, SelfComposed, Subsampled

    out = []
    for k in zip(s.tolist(), q.tolist(), T.tolist(), d.tolist()):
        if k not in _LOWER:
            _LOWER[k] = tight.epsilon(SelfComposed(Subsampled(Gaussian(1.0, k[0]), k[1]), int(k[2])), k[3]).lower
        out.append(_LOWER[k])
    return np.array(out)


@pytest.mark.parametrize("device", DEVICES)
def test_batched_tight_is_bracketed_by_the_single_accountant(device):
    """Random typical and wide configurations plus corners (q = 1: a fallback; T = 1; T = 1e6; tiny delta):
    every batched value at or above the single accountant's rigorous lower end, at most 1% above its upper end
    (the batch skips the Richardson refinement), and a CUDA value equal to the CPU torch value to 1e-6."""
    from symdp.accountants.batched import epsilon_batch

    rng = np.random.default_rng(34)
    n = 24
    s = np.concatenate([rng.uniform(0.6, 3.0, n), [1.0, 0.9, 4.0, 1.2, 0.7]])
    q = np.concatenate([10 ** rng.uniform(-3, -1, n), [1.0, 0.01, 0.001, 0.02, 0.05]])
    T = np.concatenate([rng.integers(100, 30000, n), [50, 1, 10 ** 6, 3000, 200]])
    d = np.concatenate([rng.choice([1e-5, 1e-6, 1e-8], n), [1e-5, 1e-5, 1e-5, 1e-12, 1e-5]])
    r = epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, device=device)
    assert r.is_upper_bound and r.epsilon.shape == s.shape and np.all(np.isfinite(r.epsilon))
    assert r.fallbacks >= 1  # q = 1 is recomputed by the single accountant
    one = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d)
    lo = _lower(s, q, T, d)
    assert np.all(lo <= np.asarray(one.epsilon))
    assert np.all(r.epsilon >= lo), np.nonzero(r.epsilon < lo)
    assert np.all(r.epsilon <= np.asarray(one.epsilon) * 1.01)
    if device != "cpu":
        c = epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, device="cpu")
        assert np.allclose(r.epsilon, c.epsilon, rtol=1e-6, atol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_odometer_on_the_device_is_at_or_above_the_numpy_accountant(device):
    """The odometer's per-step RDP on ``device`` (generated torch kernels): at or above numpy's at every order,
    within 1e-11 relative at the integer orders; epsilon after mixed steps (host numbers and device tensors) at or
    above the numpy accountant's and within 2e-11 of it where every step is a host number."""
    from symdp.accountants.odometer import RDPOdometer

    ints = R.DEFAULT_ORDERS == np.floor(R.DEFAULT_ORDERS)
    for s, q in ((1.1, 0.01), (0.6, 0.2), (4.0, 1e-4), (0.8, 1.0)):
        odo = RDPOdometer(device=device)
        odo.step(s, q)
        got = odo.rdp().detach().cpu().numpy()
        want = R.sgm_rdp(noise_multiplier=s, sample_rate=q)
        assert odo.rdp().device.type == torch.device(device).type
        assert np.all(got >= want) and np.all(got[ints] <= want[ints] * (1 + 1e-11)), (s, q)
    odo = RDPOdometer(device=device)
    for _ in range(40):
        odo.step(1.1, 0.01)
    ref = A.epsilon(noise_multiplier=1.1, sample_rate=0.01, steps=40, delta=1e-5, accountant="rdp").epsilon
    assert ref <= float(odo.epsilon(1e-5)) <= ref * (1 + 2e-11)
    # a step given as device tensors is evaluated on the device (integer orders exact, fractional ones by
    # convexity): at or above, within a few percent
    odo.step(torch.tensor(1.1, dtype=torch.float64, device=device), torch.tensor(0.01, dtype=torch.float64, device=device))
    ref41 = A.epsilon(noise_multiplier=1.1, sample_rate=0.01, steps=41, delta=1e-5, accountant="rdp").epsilon
    assert ref41 <= float(odo.epsilon(1e-5)) <= ref41 * 1.05


@pytest.mark.parametrize("device", DEVICES)
def test_dpsgd_training_on_the_device_reports_the_accountants_epsilon(device):
    """A short DP-SGD run on ``device`` with the default odometer: its final epsilon is the numpy RDP accountant's
    for the run's (sigma, q, steps), from above, within 2e-11; the model's parameters stay on the device."""
    from symdp.certify.data import mlp
    from symdp.certify.trainer import train_dpsgd

    torch.manual_seed(0)
    model = mlp(5, 3, (7,)).double()
    x = torch.randn(64, 5, dtype=torch.float64)
    y = torch.randint(0, 3, (64,))
    r = train_dpsgd(model, x, y, noise_multiplier=1.3, sample_rate=0.1, steps=30, max_grad_norm=1.0, delta=1e-5,
                    progress=False, seed=3, device=device)
    ref = A.epsilon(noise_multiplier=1.3, sample_rate=0.1, steps=30, delta=1e-5, accountant="rdp").epsilon
    assert r.final_epsilon is not None and ref <= r.final_epsilon <= ref * (1 + 2e-11)
    assert next(model.parameters()).device.type == torch.device(device).type


def test_accelerator_grouping_and_guess_change_values_by_rounding_only(monkeypatch):
    """An accelerator cuts the batch into few wide groups (``_group_limits``: padding up to 2x, an element budget
    from the device's free memory) and computes the grid-sizing RDP guess there (``_guess_step_rdp_device``).  Run
    here on CPU torch with those settings: the guess equals the host's to 1e-9 relative, the values equal the CPU
    grouping's to 1e-9 relative (both certified upper bounds) and the batch costs at most 2/3 of the torch
    operations (each one a kernel launch on a GPU; at 600 rows: 4,096 against 11,308).  With those settings the
    direct low-frequency sums of every window length are one call (``_direct_chunks``), the spectral cut-off's cell
    bounds run for bands of sampling lengths, both directions' Chernoff windows are one call per group and the read-out
    searches 7 points a step (``_launch_bound``): at most 4,600 operations (6,368 before session 35, when each of those
    ran per length or direction and the search bisected)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    import symdp.accountants.batched as B
    from symdp.accountants import tight as TT

    rng = np.random.default_rng(5)
    n = 600
    s, q = rng.uniform(0.8, 2.0, n), 10 ** rng.uniform(-3, -2, n)
    T, d = rng.integers(1000, 20000, n), np.full(n, 1e-5)
    pairs = np.unique(np.stack([s, q], 1), axis=0)
    g_host = TT._guess_step_rdp(pairs[:, 0], pairs[:, 1])
    g_dev = B._guess_step_rdp_device(pairs[:, 0], pairs[:, 1], "cpu")
    assert np.allclose(g_dev, g_host, rtol=1e-9, atol=0)
    pad, rows, elems = B._group_limits(torch.device("meta"))  # not the CPU: the accelerator's settings
    assert (pad, rows) == (B._GROUP_PAD_DEVICE, 1 << 16) and elems >= B._MAX_ELEMS // 32

    class Count(TorchDispatchMode):
        n = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            Count.n += 1
            return func(*args, **(kwargs or {}))

    h = B._guess_h(s, q, T, d)
    with Count():
        cpu = B._epsilon_device(s, q, T, d, h, "cpu")
    ops_cpu, Count.n = Count.n, 0
    monkeypatch.setattr(B, "_group_limits", lambda dev: (B._GROUP_PAD_DEVICE, 1 << 16, 1 << 22))
    monkeypatch.setattr(B, "_launch_bound", lambda dev: True)  # the accelerator's merging and 7-point search
    calls: list[int] = []
    real = B._direct_chunks
    monkeypatch.setattr(B, "_direct_chunks", lambda chunks, dev: (calls.append(len(chunks)), real(chunks, dev))[1])
    with Count():
        wide = B._epsilon_device(s, q, T, d, h, "cpu")
    assert np.all(np.isfinite(wide)) and np.allclose(wide, cpu, rtol=1e-9, atol=0)
    assert Count.n * 3 <= ops_cpu * 2, (Count.n, ops_cpu)
    assert len(calls) == 1 and calls[0] > 1  # every window length's chunk in one call
    assert Count.n <= 4600, Count.n


def test_a_batch_larger_than_its_memory_budget_runs_a_slice_at_a_time(monkeypatch):
    """``_epsilon_device`` reads its budget (half the free device memory, or of the host's, at most
    ``_HOST_CHUNK_BYTES``) before allocating and, when the rows' lattices need more, runs consecutive slices that
    fit: here a 64 MiB budget cuts 800 typical rows into several slices, each within it, with the values of one pass
    to rounding (1e-9 relative)."""
    import symdp.accountants.batched as B

    rng = np.random.default_rng(8)
    n = 800
    s, q = rng.uniform(0.8, 2.0, n), 10 ** rng.uniform(-3, -2, n)
    T, d = rng.integers(1000, 20000, n), np.full(n, 1e-5)
    one = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1).epsilon
    monkeypatch.setattr(B, "_HOST_CHUNK_BYTES", 1 << 26)
    sizes: list[int] = []
    orig = B._epsilon_device

    def spy(s_, q_, T_, d_, h_, dev):
        sizes.append(len(s_))
        return orig(s_, q_, T_, d_, h_, dev)

    monkeypatch.setattr(B, "_epsilon_device", spy)
    sliced = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1).epsilon
    assert sizes[0] == n and len(sizes) > 2 and sum(sizes[1:]) == n
    assert np.allclose(sliced, one, rtol=1e-9, atol=0)
    L = rng.integers(200, 8000, 300).astype(float)  # lattice sizes: each slice within its budget, every row once
    budget = 2 * B._BYTES_PER_ATOM * 20000.0
    cuts = B._memory_slices(L, budget)
    assert [a for a, _ in cuts] == [0] + [b for _, b in cuts[:-1]] and cuts[-1][1] == len(L)
    assert all(2 * B._BYTES_PER_ATOM * L[a:b].sum() <= budget for a, b in cuts)
    assert B._memory_slices(np.array([1e9, 5.0]), budget) == [(0, 1), (1, 2)]  # a row over the budget runs alone
