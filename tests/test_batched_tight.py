"""The batched tight accountant's composition and readout (issue 25, item 3), on CPU torch.

* the readouts against the log-space suffix-sum readout (``batched._compose_read_log``) without rounding
  allowances: equal within 2e-5 relative on random configurations, both branches (sparse spectrum: suffix sums
  from the surviving frequencies, ``batched._freq_read``; dense: reversed/rotated prefix sums) exercised; the
  frequency readout against the dense one on the same PMFs, its allowance on the safe side;
* every batched value at or above the rigorous lower end of the mechanism algebra's bracket (never below the
  truth) and at or above dp_accounting's optimistic PLD, and within 1% of dp_accounting's pessimistic PLD.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from symdp.accountants import batched as B  # noqa: E402
from symdp.accountants.algebra import tight  # noqa: E402
from symdp.mechanisms import Gaussian, SelfComposed, Subsampled  # noqa: E402


def _grid(n, seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(0.5, 3.0, n), rng.uniform(1e-3, 0.1, n), rng.integers(20, 30000, n),
            rng.choice([1e-5, 1e-6, 1e-8], n))


@pytest.mark.parametrize("direct", [True, False])
def test_prefix_readout_equals_log_readout(monkeypatch, direct):
    """The readouts (``direct``: sparse rows through :func:`batched._direct_chunks` and the frequency readout, else every
    row through the full FFT) against the log-space readout of the full FFT, without rounding allowances."""
    monkeypatch.setattr(B, "_DIRECT", direct)
    s, q, T, d = _grid(24, 5)
    T[:4] = [20, 30, 50, 80]  # short runs: most frequencies survive the power (the dense branch)
    with_allow = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d).epsilon
    monkeypatch.setattr(B, "_U", 0.0)  # no rounding allowances: the readouts must agree to rounding
    new = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d).epsilon
    monkeypatch.setattr(B, "_DIRECT", False)
    monkeypatch.setattr(B, "_compose_read", B._compose_read_log)
    monkeypatch.setattr(B, "_compose_terms", lambda x, s0, h, T, c, d, dev, at=0: (B._compose_read_log(x, s0, h, T, c, d, dev), None))
    old = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d).epsilon
    assert np.all(np.isfinite(new))
    np.testing.assert_allclose(new, old, rtol=2e-5)
    assert np.all(with_allow >= new * (1 - 1e-9))  # the allowances only raise epsilon


def _sparse_rows(seed, rows=12):
    """Wrapped one-step PMFs of random configurations with long runs (few frequencies survive the power)."""
    s, q, T, d = _grid(rows, seed)
    T = np.maximum(T, 2000)
    h = B._guess_h(s, q, T, d)
    out = []
    for i in range(rows):
        disc = B._discretize_torch("remove", *(torch.tensor([v], dtype=torch.float64) for v in (s[i], q[i], h[i], 1e-14)))
        pmf = disc["pmf"][0].numpy()
        j0 = int(disc["j0"][0])
        n = 4096
        x = np.bincount((j0 + np.arange(len(pmf))) % n, weights=pmf, minlength=n)
        out.append((x, j0 * int(T[i]) + int(T[i]) * len(pmf) // 3, h[i], int(T[i]), float(d[i])))
    return out


@pytest.mark.parametrize("seed", [3, 4])
def test_frequency_readout_equals_the_dense_readout_and_its_allowance_is_safe(monkeypatch, seed):
    """:func:`batched._freq_read` (suffix sums from the surviving frequencies, no inverse transform) against
    :func:`batched._compose_read_dense` (inverse transform and prefix sums) on the same wrapped PMFs: without
    rounding allowances the two agree to 1e-6 relative; with them the frequency readout is at or above its own
    allowance-free value (the allowances only raise epsilon, safe side) and at most the dense readout's (its
    allowance is the same model weighted by the geometric sums actually used, |G| / n <= 1)."""
    rows = _sparse_rows(seed)
    x = torch.tensor(np.stack([r[0] for r in rows]))
    s0, h, T, d = (np.array([r[i] for r in rows]) for i in (1, 2, 3, 4))
    s0 = s0.astype(np.int64)
    const = np.full(len(rows), 1e-12)
    eps_f, terms = B._compose_terms(x, s0, h, T, const, d, "cpu")
    assert eps_f is None and terms is not None  # the sparse branch
    freq = B._freq_read([terms], h, s0, const, d, "cpu")
    dense = B._compose_read_dense(x, s0, h, T, const, d, "cpu")
    monkeypatch.setattr(B, "_U", 0.0)
    _, terms0 = B._compose_terms(x, s0, h, T, const, d, "cpu")
    freq0 = B._freq_read([terms0], h, s0, const, d, "cpu")
    dense0 = B._compose_read_dense(x, s0, h, T, const, d, "cpu")
    assert np.all(np.isfinite(freq)) and np.all(freq > 0)
    np.testing.assert_allclose(freq0, dense0, rtol=1e-6)
    assert np.all(freq >= freq0)
    assert np.all(freq <= dense * (1 + 1e-9))


@pytest.mark.parametrize("probes", [3, 7])
def test_frequency_readout_search_of_several_points_a_step_equals_the_bisection(monkeypatch, probes):
    """:func:`batched._freq_read`'s search with ``P`` points a step (an accelerator's setting, fewer launches) finds the
    bisection's atom: the same values, bit for bit, in fewer steps (6 instead of 16 at n = 20,480 with P = 7)."""
    rows = _sparse_rows(6)
    x = torch.tensor(np.stack([r[0] for r in rows]))
    s0, h, T, d = (np.array([r[i] for r in rows]) for i in (1, 2, 3, 4))
    s0 = s0.astype(np.int64)
    const = np.full(len(rows), 1e-12)
    _, terms = B._compose_terms(x, s0, h, T, const, d, "cpu")
    assert terms is not None and B._read_probes("cpu") == 1
    one = B._freq_read([terms], h, s0, const, d, "cpu")
    monkeypatch.setattr(B, "_read_probes", lambda dev: probes)
    many = B._freq_read([terms], h, s0, const, d, "cpu")
    assert np.all(np.isfinite(one)) and np.array_equal(many, one)
    assert B._search_steps(20480, 1) == 16 and B._search_steps(20480, 7) == 6 and B._search_steps(20480, 3) == 9


def test_wide_window_rows_take_the_log_path():
    x = torch.zeros((2, 64), dtype=torch.float64)
    x[:, 0] = 0.5
    x[:, 1] = 0.5
    args = (np.array([0, 0]), np.array([20.0, 1e-3]), np.array([3, 3]), np.array([0.0, 0.0]), np.array([0.1, 0.1]), "cpu")
    got = B._compose_read(x, *args)  # row 0: 63 * 20 nats > 600 -> log path; row 1: prefix path
    want = B._compose_read_log(x, *args)
    np.testing.assert_allclose(got, want, rtol=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_batched_above_rigorous_lower_end_and_near_dp_accounting(seed):
    from dp_accounting.pld import privacy_loss_distribution as PLD

    s, q, T, d = _grid(6, seed)
    T = np.minimum(T, 5000)
    r = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d)
    assert r.is_upper_bound and r.fallbacks == 0
    for i in range(len(s)):
        lo = tight.epsilon(SelfComposed(Subsampled(Gaussian(1.0, float(s[i])), float(q[i])), int(T[i])), float(d[i])).lower
        assert r.epsilon[i] >= lo, (i, r.epsilon[i], lo)
        pess = PLD.from_gaussian_mechanism(float(s[i]), sampling_prob=float(q[i]),
                                           value_discretization_interval=1e-4).self_compose(int(T[i]))
        assert r.epsilon[i] <= pess.get_epsilon_for_delta(float(d[i])) * 1.01
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt = PLD.from_gaussian_mechanism(float(s[i]), sampling_prob=float(q[i]), pessimistic_estimate=False,
                                              value_discretization_interval=1e-3).self_compose(int(T[i]))
        assert r.epsilon[i] >= opt.get_epsilon_for_delta(float(d[i]))


def test_worker_processes_give_the_single_process_values(monkeypatch):
    import concurrent.futures

    s, q, T, d = _grid(140, 7)
    one = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1).epsilon
    started = []
    real = concurrent.futures.ProcessPoolExecutor

    def pool(*a, **k):
        started.append(1)
        return real(*a, **k)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", pool)
    same = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=2).epsilon
    assert not started and np.array_equal(same, one)  # fewer than _ROWS_PER_WORKER rows a worker: this process only
    monkeypatch.setattr(B, "_ROWS_PER_WORKER", 64)
    # an earlier test's broken pool (test_accountants_throughput's dead worker) leaves an idle daemon
    # QueueFeederThread in this process, and the one-thread guard would keep the batch here; this test is about
    # the values of forked workers, so it lets the batch fork as it does in a fresh process
    import threading

    monkeypatch.setattr(threading, "active_count", lambda: 1)
    two = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=2).epsilon
    assert started
    np.testing.assert_allclose(two, one, rtol=1e-6)  # the FFT length bucket of a slice may differ: rounding only


def _spy_direct(monkeypatch):
    """Count the rows that take the direct path (low frequencies summed directly, :func:`batched._direct_chunks`)."""
    seen = []
    orig = B._direct_chunks

    def spy(chunks, *a, **k):
        seen.extend(int(sb[0].shape[0]) for _n, subs in chunks for sb in subs)
        return orig(chunks, *a, **k)

    monkeypatch.setattr(B, "_direct_chunks", spy)
    return seen


@pytest.mark.parametrize("seed", [11, 12])
def test_direct_path_gives_the_full_fft_values(monkeypatch, seed):
    """Sparse rows read from direct sums over their low frequencies (the rest bounded by :func:`batched._cutoff`)
    against the full-length FFT of every row (``_DIRECT = False``): without rounding allowances equal within the FFT
    path's own rounding noise (5e-5 relative: a row's value moves by up to 4e-5 between a single call and a batch
    there); with them never more than that above; most rows take the direct path."""
    s, q, T, d = _grid(40, seed)
    T[:3] = [30, 60, 200]  # short runs: the dense readout
    d[:4] = 1e-10
    seen = _spy_direct(monkeypatch)
    new = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1)
    assert sum(seen) >= 2 * len(s) * 0.6
    monkeypatch.setattr(B, "_DIRECT", False)
    old = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1)
    assert new.fallbacks == old.fallbacks  # (a row at eps ~ 540 is beyond both windows: the single accountant answers)
    monkeypatch.setattr(B, "_U", 0.0)
    old0 = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1).epsilon
    monkeypatch.setattr(B, "_DIRECT", True)
    new0 = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1).epsilon
    # the same composed distribution: at delta = 1e-10 and eps ~ 200 both readouts' rounding (A ~ 1e-10 read to a few
    # 1e-13, what the allowances cover) moves epsilon by up to 3e-4 along the flat tail, so those rows are left out
    big = d >= 1e-8
    np.testing.assert_allclose(new0[big], old0[big], rtol=1e-4)
    assert np.all(new.epsilon >= new0 * (1 - 1e-9))  # the allowances only raise epsilon
    # fewer frequencies carry allowances (a few dozen, the rest bounded by E0 <= e^-25 delta): never much above the
    # full FFT's value; below it by up to 9e-4 at delta = 1e-10 and T = 200 (where the allowances weigh most), and
    # there still at or above the rigorous lower end of the mechanism algebra's bracket
    assert np.all(new.epsilon <= old.epsilon * (1 + 5e-5))
    low = np.nonzero(new.epsilon < old.epsilon * (1 - 5e-5))[0]
    assert len(low) <= 4
    for i in low:
        lo = tight.epsilon(SelfComposed(Subsampled(Gaussian(1.0, float(s[i])), float(q[i])), int(T[i])), float(d[i])).lower
        assert new.epsilon[i] >= lo, (i, new.epsilon[i], lo)


def _lattice_pmf():
    """A one-step PMF with mass on every 40th atom only: |P| has peaks of height 1 at multiples of 2 pi / 40."""
    p = np.zeros(400)
    p[::40] = 1.0 / 10
    return p


def _cutoff_one(p, n, T, d):
    j = np.arange(len(p))
    m = (p * j).sum() / p.sum()
    return B._cutoff([(torch.tensor(p[None, :]), np.array([0]))], np.array([p.sum()]), np.array([(p * (j - m) ** 2).sum()]),
                     np.array([n]), np.array([T]), np.array([d]), "cpu")


@pytest.mark.parametrize("which", ["sgm", "lattice", "two_atoms"])
def test_cutoff_bounds_every_dropped_frequency(which):
    """:func:`batched._cutoff`: for every frequency ``k >= k_c`` of the length-``n`` transform (the full FFT computed
    here), ``n |f_k|^T <= E0``, and ``E0 <= e^-25 delta``; PMFs whose transform has secondary peaks (a lattice, two
    atoms far apart) keep their peaks or are left to the full FFT (``k_c = 0``)."""
    n, T, d = 16384, 20000, 1e-8
    if which == "sgm":
        s, q, h = 1.1, 0.01, 2e-3
        disc = B._discretize_torch("remove", *(torch.tensor([v], dtype=torch.float64) for v in (s, q, h, 1e-14)))
        p = disc["pmf"][0].numpy()
    elif which == "lattice":
        p = _lattice_pmf()
    else:
        p = np.zeros(300)
        p[0], p[299] = 0.5, 0.5
    kc, E0 = _cutoff_one(p, n, T, d)
    f = np.abs(np.fft.rfft(p, n))
    if which == "sgm":
        assert 0 < kc[0] < 100  # the typical case: a few dozen frequencies survive
    if kc[0] > 0:
        assert kc[0] <= n // 2 + 1
        with np.errstate(under="ignore"):
            worst = n * np.exp(T * np.log(f[kc[0]:].max())) if kc[0] <= n // 2 else 0.0
        assert worst <= E0[0] <= np.exp(-25) * d * (1 + 1e-6)
        assert f[kc[0]:].max() < 1 - 1e-6  # no secondary peak dropped


def test_direct_sums_within_their_rounding_allowance():
    """The direct path's composed-spectrum coefficients ``C_k`` (what :func:`batched._freq_read` sums) against the same
    coefficients computed in extended precision (numpy longdouble) from the same one-step PMF: every error within the
    per-frequency rounding allowance ``cE_k`` it carries, and below the full FFT's error in total."""
    L = np.longdouble
    pi = np.arccos(L(-1))
    s, q, T, d, n = 1.3, 0.02, 30000, 1e-8, 16384
    h = float(B._guess_h(np.array([s]), np.array([q]), np.array([T]), np.array([d]))[0])
    disc = B._discretize_torch("remove", *(torch.tensor([v], dtype=torch.float64) for v in (s, q, h, 1e-14)))
    p = disc["pmf"][0].numpy()
    j0, K = int(disc["j0"][0]), len(p)
    s0 = T * j0 + T * K // 3
    kc, E0 = _cutoff_one(p, n, T, d)
    assert kc[0] > 0
    tm = B._direct_terms(disc["pmf"], np.array([j0]), kc, n, np.array([s0]), np.array([T]), E0, 0, "cpu")
    ks = tm["ks"].numpy()
    ang = (np.outer(np.arange(K), ks) % n).astype(L) * 2 * pi / L(n)
    pl = p.astype(L)
    Pr, Pi = (pl[:, None] * np.cos(ang)).sum(0), -(pl[:, None] * np.sin(ang)).sum(0)
    arg = L(T) * (np.arctan2(Pi, Pr) - 2 * pi * ((j0 * ks) % n).astype(L) / L(n)) + 2 * pi * ((s0 * ks) % n).astype(L) / L(n)
    c = 2 * np.exp(L(T) * np.log(np.sqrt(Pr * Pr + Pi * Pi))) / L(n)
    err_new = np.abs((tm["Cr"].numpy() - c * np.cos(arg)).astype(float) + 1j * (tm["Ci"].numpy() - c * np.sin(arg)).astype(float))
    assert np.all(err_new <= tm["cE"].numpy())
    x = torch.tensor(np.bincount((j0 + np.arange(K)) % n, weights=p, minlength=n)[None, :])
    spec = torch.fft.rfft(x, dim=1)
    mag2 = spec.abs().square()
    keep = torch.zeros_like(mag2, dtype=torch.bool)
    keep[0, :kc[0]] = True
    full = B._freq_terms(spec, mag2, keep, np.array([s0]), torch.tensor([float(T)], dtype=torch.float64), n, 0, "cpu")
    err_fft = np.abs((full["Cr"].numpy() - c * np.cos(arg)).astype(float) + 1j * (full["Ci"].numpy() - c * np.sin(arg)).astype(float))
    assert err_new.sum() <= err_fft.sum()  # measured 3.9e-16 against 1.05e-15


@pytest.mark.parametrize("seed", [0, 1])
def test_block_log_mgf_is_an_upper_bound_close_to_the_exact_sum(seed):
    """The Chernoff windows' log-MGFs in blocks (:func:`batched._block_log_mgf`) against the exact
    ``log sum_j p_j e^{+-lam ell_j}`` of the same float64 PMF (mpmath, 50 digits): never below it (so the window's
    upper end and the tail bound stay upper bounds), and within 1e-9 (1 + |x|) of it; large ``lam h`` (blocks of
    one atom) included (there the offsets' own rounding, ``u |lam ell|``, allowed for)."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    s, q, T, d = _grid(6, seed)
    h = B._guess_h(s, q, T, d)
    h[0] = 0.02  # coarse grid
    tail = torch.full((6,), 1e-14, dtype=torch.float64)
    rem, add = B._discretize_pair(*(torch.as_tensor(a, dtype=torch.float64) for a in (s, q, h)),
                                  B._ranges_torch(*(torch.as_tensor(a, dtype=torch.float64) for a in (s, q, h)), tail))
    for disc in (rem, add):
        pm = disc["pmf"]
        ht = torch.as_tensor(h, dtype=torch.float64)
        lam = torch.as_tensor(np.geomspace(1e-3, 80.0, 5), dtype=torch.float64)[None, :] / ht[:, None] ** 0.5
        lam[0, -1] = 2000.0  # lam h = 40: one-atom blocks
        got = B._block_log_mgf(pm, lam, ht, disc["j0"]).numpy()
        for r in range(pm.shape[0]):
            p = [mpmath.mpf(float(v)) for v in pm[r].numpy()]
            ell = [(float(disc["j0"][r]) + j) * h[r] for j in range(len(p))]
            for c in range(2 * lam.shape[1]):
                lm = float(lam[r, c % lam.shape[1]]) * (1 if c < lam.shape[1] else -1)
                ex = float(mpmath.log(mpmath.fsum(pj * mpmath.exp(mpmath.mpf(lm) * mpmath.mpf(e)) for pj, e in zip(p, ell) if pj > 0)))
                assert got[r, c] >= ex, (r, c, got[r, c], ex)
                big = abs(lm) * max(abs(ell[0]), abs(ell[-1]))  # the offsets' rounding: u |lam ell| at the most
                assert got[r, c] - ex <= 1e-9 * (1 + abs(ex)) + 1e-11 * big, (r, c, got[r, c], ex)


def test_pair_discretisation_equals_each_direction_on_its_own_grid():
    """:func:`batched._discretize_pair` evaluates the loss inverse once on a lattice shared by both directions; the
    'add' grid evaluated on its own (the pre-lattice formula: ``x = inverse(-ell)`` on ``ell = (j0 + k) h``) gives the
    same PMF."""
    s, q, T, d = _grid(8, 3)
    h = B._guess_h(s, q, T, d)
    cols = [torch.as_tensor(a, dtype=torch.float64) for a in (s, q, h)]
    tail = torch.full((8,), 1e-13, dtype=torch.float64)
    rg = B._ranges_torch(*cols, tail)
    _, add = B._discretize_pair(*cols, rg)
    from symdp.accountants._kernels import _kernel

    xinv = _kernel("accounting.sgm_loss_remove_inverse", "torch")
    sg, qq, hh = cols
    K = add["K"]
    kk = torch.arange(int(K.max()), dtype=torch.float64)[None, :]
    ell = (rg["j0a"][:, None] + kk) * hh[:, None]
    xb = xinv(ell=-ell, q=qq[:, None], sigma=sg[:, None])
    xb = torch.where(-ell <= rg["l1q"][:, None], torch.full_like(xb, -np.inf), xb)
    xs, x1 = xb / sg[:, None], (xb - 1) / sg[:, None]
    t0 = 0.5 * torch.special.erfc(xs.abs() / np.sqrt(2))
    t1 = 0.5 * torch.special.erfc(x1.abs() / np.sqrt(2))
    ref = B._assemble("add", qq, hh, rg["l1q"], rg["j0a"], K, kk, t0, xs > 0, t1, x1 > 0)
    np.testing.assert_array_equal(ref["pmf"].numpy(), add["pmf"].numpy())
    np.testing.assert_array_equal(ref["inf_mass"].numpy(), add["inf_mass"].numpy())
