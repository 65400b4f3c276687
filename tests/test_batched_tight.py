"""The batched tight accountant's composition and readout (issue 25, item 3), on CPU torch.

* the reversed/rotated prefix-sum readout (``batched._compose_read``, with the power taken only where it does
  not underflow) against the log-space suffix-sum readout (``batched._compose_read_log``): equal within 2e-5
  relative on random configurations, both branches (sparse and dense spectrum) exercised;
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
    new = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d).epsilon
    monkeypatch.setattr(B, "_compose_read", B._compose_read_log)
    old = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d).epsilon
    assert np.all(np.isfinite(new))
    np.testing.assert_allclose(new, old, rtol=2e-5)


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
