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


def test_prefix_readout_equals_log_readout(monkeypatch):
    s, q, T, d = _grid(24, 5)
    T[:4] = [20, 30, 50, 80]  # short runs: most frequencies survive the power (the dense branch)
    with_allow = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d).epsilon
    monkeypatch.setattr(B, "_U", 0.0)  # no rounding allowances: the readouts must agree to rounding
    new = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d).epsilon
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


def test_worker_processes_give_the_single_process_values():
    s, q, T, d = _grid(140, 7)
    one = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1).epsilon
    two = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=2).epsilon
    np.testing.assert_allclose(two, one, rtol=1e-6)  # the FFT length bucket of a slice may differ: rounding only
