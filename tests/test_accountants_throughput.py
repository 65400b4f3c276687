"""Tight accountant on batches (issue 14, item 5): the fast paths give the serial answers, and upper bounds.

* parallel (forked processes) == serial, bit for bit, and no process outlives the call;
* every value lies above dp_accounting's optimistic PLD epsilon (a lower estimate).
"""

from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest

import symdp.accountants as A
from symdp.accountants import api
from symdp.errors import InvalidParameterError


def _random(n: int, seed: int, t_max: int = 3000) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.uniform(0.5, 3.0, n), rng.uniform(1e-3, 0.1, n), rng.integers(100, t_max, n),
            rng.choice([1e-5, 1e-6, 1e-8], n))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork start method")
def test_parallel_bit_identical_to_serial(monkeypatch: pytest.MonkeyPatch) -> None:
    s, q, T, d = _random(40, 0)
    ser = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1)
    # record which process computed each configuration (forked workers inherit the patched function)
    inner = api._tight_checked
    pids: list[int] = []

    def spy(segs, deltas, epsilons, h, guess=None):  # type: ignore[no-untyped-def]
        v, e, det, fb = inner(segs, deltas, epsilons, h, guess)
        return v, e, dict(det, pid=os.getpid()), fb

    monkeypatch.setattr(api, "_tight_checked", spy)
    jobs: list[api.TightJob] = [([(float(a), float(b), int(c))], np.array([x]), None) for a, b, c, x in zip(s, q, T, d)]
    outs = api._tight_map(jobs, None, 2)
    pids = [o[2]["pid"] for o in outs]
    assert os.getpid() not in pids and len(set(pids)) == 2  # both workers answered, the parent none
    par = np.concatenate([o[0] for o in outs])
    assert np.array_equal(par, ser.epsilon)  # bit-identical
    assert np.array_equal(np.concatenate([o[1] for o in outs]), ser.error_bound, equal_nan=True)
    monkeypatch.setattr(api, "_tight_checked", inner)
    par2 = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=2)
    assert np.array_equal(par2.epsilon, ser.epsilon) and np.array_equal(par2.error_bound, ser.error_bound)
    assert multiprocessing.active_children() == []  # the pool is joined before returning
    # delta queries take the same path
    dser = A.delta(noise_multiplier=s, sample_rate=q, steps=T, epsilon=1.0, workers=1).delta
    dpar = A.delta(noise_multiplier=s, sample_rate=q, steps=T, epsilon=1.0, workers=2).delta
    assert np.array_equal(dser, dpar)


def test_workers_argument_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InvalidParameterError, match="workers"):
        A.epsilon(noise_multiplier=1.0, sample_rate=0.01, steps=100, delta=1e-5, workers=0)
    monkeypatch.setenv("SYMDP_WORKERS", "1")
    assert api._n_workers(None) == 1
    monkeypatch.setenv("SYMDP_WORKERS", "two")
    with pytest.raises(InvalidParameterError, match="SYMDP_WORKERS"):
        api._n_workers(None)
    monkeypatch.delenv("SYMDP_WORKERS")
    assert 1 <= api._n_workers(None) <= api._MAX_WORKERS
    assert api._n_workers(3) == 3


def test_small_batches_stay_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    s, q, T, d = _random(api._PARALLEL_MIN - 1, 1)

    def no_pool(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("a pool was started for a small batch")

    import concurrent.futures

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_pool)
    r = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=2)
    assert np.all(np.isfinite(r.epsilon))


def test_above_dp_accounting_optimistic() -> None:
    """Each value >= dp_accounting's optimistic (lower) PLD estimate, and within 1% of its pessimistic one."""
    from dp_accounting.pld import privacy_loss_distribution as PLD

    s, q, T, d = _random(10, 2, t_max=5000)
    ours = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d).epsilon
    for a, b, c, x, e in zip(s, q, T, d, ours):
        lo = PLD.from_gaussian_mechanism(float(a), sampling_prob=float(b), pessimistic_estimate=False, use_connect_dots=False,
                                         value_discretization_interval=2e-4).self_compose(int(c)).get_epsilon_for_delta(float(x))
        hi = PLD.from_gaussian_mechanism(float(a), sampling_prob=float(b),
                                         value_discretization_interval=1e-3).self_compose(int(c)).get_epsilon_for_delta(float(x))
        assert e >= lo, (a, b, c, x, e, lo)
        assert e <= hi * 1.01, (a, b, c, x, e, hi)
