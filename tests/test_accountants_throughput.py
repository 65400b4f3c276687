"""Tight accountant on batches (issue 14, item 5): the fast paths give the serial answers, and upper bounds.

* parallel (this process and forked workers) == serial, bit for bit, and no process outlives the call;
* the batch path (RDP grid guesses for all configurations at once, shared per (sigma, q) in a sweep)
  == one call per configuration, bit for bit;
* every value lies above dp_accounting's optimistic PLD epsilon (a lower estimate).
"""

from __future__ import annotations

import multiprocessing
import os
import sys

import numpy as np
import pytest

import symdp.accountants as A
from symdp.accountants import api, tight
from symdp.errors import InvalidParameterError


def _random(n: int, seed: int, t_max: int = 3000) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.uniform(0.5, 3.0, n), rng.uniform(1e-3, 0.1, n), rng.integers(100, t_max, n),
            rng.choice([1e-5, 1e-6, 1e-8], n))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="worker processes are forked on Linux only")
def test_parallel_bit_identical_to_serial(monkeypatch: pytest.MonkeyPatch) -> None:
    s, q, T, d = _random(40, 0)
    ser = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1)
    # record which process computed each configuration (forked workers inherit the patched function)
    inner = api._tight_checked

    def spy(segs, deltas, epsilons, h, guess=None):  # type: ignore[no-untyped-def]
        v, e, det, fb = inner(segs, deltas, epsilons, h, guess)
        return v, e, dict(det, pid=os.getpid()), fb

    monkeypatch.setattr(tight, "_tight_checked", spy)
    jobs: list[api.TightJob] = [([(float(a), float(b), int(c))], np.array([x]), None) for a, b, c, x in zip(s, q, T, d)]
    outs = api._tight_map(jobs, None, 2)
    pids = [o[2]["pid"] for o in outs]
    assert set(pids) - {os.getpid()}  # a forked worker answered some (this process may answer others)
    par = np.concatenate([o[0] for o in outs])
    assert np.array_equal(par, ser.epsilon)  # bit-identical
    assert np.array_equal(np.concatenate([o[1] for o in outs]), ser.error_bound, equal_nan=True)
    monkeypatch.setattr(tight, "_tight_checked", inner)
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


def test_sweep_batch_equals_single_configurations() -> None:
    """A sweep (a few (sigma, q) pairs x several (T, delta)) batched == one call per configuration, bit for bit."""
    rng = np.random.default_rng(3)
    pairs = [(0.7, 0.05), (1.3, 0.01), (2.5, 0.08)]
    s = np.repeat([a for a, _ in pairs], 6)
    q = np.repeat([b for _, b in pairs], 6)
    T = rng.integers(100, 4000, len(s))
    T[1] = T[0]  # the same configuration at two deltas
    d = rng.choice([1e-5, 1e-6, 1e-8], len(s))
    d[0], d[1] = 1e-5, 1e-8
    single = np.array([A.epsilon(noise_multiplier=a, sample_rate=b, steps=int(c), delta=x).epsilon
                       for a, b, c, x in zip(s, q, T, d)])
    # a configuration asked at several deltas is one query (its tail budget from the smallest delta)
    single[:2] = A.epsilon(noise_multiplier=s[0], sample_rate=q[0], steps=int(T[0]), delta=d[:2]).epsilon
    for w in (1, 2):
        batch = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=w)
        assert np.array_equal(batch.epsilon, single), w
    # and each value is an upper bound: above dp_accounting's optimistic estimate
    from dp_accounting.pld import privacy_loss_distribution as PLD

    for i in (0, 1, 8, 15):
        lo = PLD.from_gaussian_mechanism(float(s[i]), sampling_prob=float(q[i]), pessimistic_estimate=False, use_connect_dots=False,
                                         value_discretization_interval=2e-4).self_compose(int(T[i])).get_epsilon_for_delta(float(d[i]))
        assert single[i] >= lo, (i, single[i], lo)


def test_batch_guesses_bit_identical() -> None:
    """The batched RDP grid guesses equal the one-configuration ones (extreme sigma and q included)."""
    rng = np.random.default_rng(4)
    n = 200
    s = np.r_[rng.uniform(0.3, 5.0, n), 0.05, 50.0, 1.0]
    q = np.r_[rng.uniform(1e-5, 0.7, n), 0.5, 1e-6, 0.999999999999]
    T = np.r_[rng.integers(1, 100000, n), 10, 10**7, 100]
    d = rng.choice([1e-5, 1e-8, 1e-12, 1e-3], len(s))
    jobs: list[api.TightJob] = [([(float(a), float(b), int(c))], np.array([x]), None) for a, b, c, x in zip(s, q, T, d)]
    jobs.append(([(1.0, 0.1, 100), (2.0, 0.2, 50)], np.array([1e-5]), None))  # schedules keep their own guess
    jobs.append(([(1.0, 0.1, 100)], None, np.array([1.0, 2.0])))  # delta queries size for 1e-5
    for (segs, ds, _e), g in zip(jobs, api._rdp_guesses(jobs)):
        if len(segs) > 1:
            assert g is None
        else:
            assert g == api._rdp_guess(segs, float(np.min(ds)) if ds is not None else 1e-5)


def test_epsilon_readout_scans_the_tail_only() -> None:
    """``ComposedPLD.epsilon`` (atoms that can hold the answer) == the full scan up to float noise, and safe."""
    from symdp.accountants import pld

    ds = np.array([1e-3, 1e-5, 1e-6, 1e-8, 1e-10, 3e-7])
    for sigma, q, T in [(1.2, 0.03, 5000), (0.6, 0.08, 2000), (3.0, 0.001, 20000), (0.8, 0.5, 10)]:
        h = api._initial_h([(sigma, q, T)], 3.0)
        fine, _ = api._discretize_dirs([(sigma, q, T)], h, 1e-16)
        for parts in fine:
            c = pld.compose(parts, tail_tol=1e-13)
            part = c.epsilon(ds)  # scans from the first atom that can hold an answer (for the largest delta)
            one = np.concatenate([pld.ComposedPLD(h=c.h, s0=c.s0, pmf=c.pmf, inf_mass=c.inf_mass, upper_tail=c.upper_tail,
                                                  alias=c.alias, roundoff=c.roundoff).epsilon(x) for x in ds])
            assert np.array_equal(one, part, equal_nan=True) or np.allclose(one, part, rtol=1e-14, atol=1e-14)
            c._suffix_sums()  # cached full suffix sums: the readout then scans every atom
            full = c.epsilon(ds)
            fin = np.isfinite(full)
            assert np.array_equal(np.isfinite(part), fin)
            assert np.all(np.abs(part[fin] - full[fin]) <= 1e-14 * np.maximum(1.0, full[fin]))
            # the returned epsilon meets its delta (delta() uses the full suffix sums)
            assert np.all(c.delta(part[fin]) <= ds[fin] * (1 + 1e-9))


_PARENT = os.getpid()
_CHUNK = api._tight_chunk


def _dying_chunk(jobs, h):  # type: ignore[no-untyped-def]
    if os.getpid() != _PARENT:  # a forked worker: dies as if killed
        os._exit(1)
    return _CHUNK(jobs, h)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="worker processes are forked on Linux only")
def test_dead_worker_falls_back_to_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that dies (killed, out of memory) breaks the pool: its chunks are computed here instead."""
    s, q, T, d = _random(40, 5)
    ser = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1).epsilon
    assert os.getpid() == _PARENT
    monkeypatch.setattr(tight, "_tight_chunk", _dying_chunk)
    par = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=2).epsilon
    assert np.array_equal(par, ser)
    assert multiprocessing.active_children() == []


def _in_daemon(args):  # type: ignore[no-untyped-def]
    s, q, T, d = args
    return A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=2).epsilon


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="worker processes are forked on Linux only")
def test_inside_a_daemon_process_runs_serially() -> None:
    """A daemonic process (a multiprocessing.Pool worker) cannot have children: the batch runs in it, same values."""
    s, q, T, d = _random(40, 6)
    ser = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1).epsilon
    with multiprocessing.get_context("fork").Pool(1) as pool:
        got = pool.map(_in_daemon, [(s, q, T, d)])[0]
    assert np.array_equal(got, ser)
