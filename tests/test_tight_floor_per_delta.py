"""A delta below the tight PLD's round-off floor falls back on its own (session 32).

Before: ``tight._tight_one`` compared its round-off floor with the smallest asked delta, so one tiny delta in a
call (1e-30 beside 1e-5) sent every delta of the call to the RDP fallback (1.83 -> 2.10 at sigma 1, q 0.01,
T 1000, delta 1e-5).  Now the floor is compared with the largest delta; a delta below it reads eps = inf from the
composed PLD and only that one falls back.  Oracles: dp_accounting's pessimistic PLD (an upper bound close to the
truth) and optimistic PLD (a lower bound), and the value the same delta gets when asked alone.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from symdp import accountants as A


def _dp_acc(sigma: float, q: float, T: int, delta: float) -> tuple[float, float]:
    from dp_accounting.pld import privacy_loss_distribution as PLD

    pess = PLD.from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=1e-4).self_compose(T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt = PLD.from_gaussian_mechanism(sigma, sampling_prob=q, pessimistic_estimate=False,
                                          value_discretization_interval=1e-4).self_compose(T)
    return opt.get_epsilon_for_delta(delta), pess.get_epsilon_for_delta(delta)


@pytest.mark.parametrize("sigma,q,T", [(1.0, 0.01, 1000), (0.8, 0.05, 200), (2.0, 0.001, 5000)])
def test_tiny_delta_does_not_drag_the_others_to_the_fallback(sigma, q, T):
    alone = A.epsilon(noise_multiplier=sigma, sample_rate=q, steps=T, delta=1e-5, accountant="tight")
    assert alone.fallback is None
    mixed = A.epsilon(noise_multiplier=sigma, sample_rate=q, steps=T, delta=[1e-5, 1e-6, 1e-30], accountant="tight")
    lo, hi = _dp_acc(sigma, q, T, 1e-5)
    e = float(mixed.epsilon[0])
    assert lo <= e <= hi * 1.01, (lo, e, hi)  # the PLD's answer (its usual excess over dp_accounting: <= 0.35%)
    assert abs(e / float(np.atleast_1d(alone.epsilon)[0]) - 1) < 3e-3  # another grid (the tail budget follows the smallest delta)
    lo6, hi6 = _dp_acc(sigma, q, T, 1e-6)
    assert lo6 <= float(mixed.epsilon[1]) <= hi6 * 1.01
    # the tiny delta: a rigorous fallback, finite, and no smaller than the PLD's answer at a larger delta
    assert np.isfinite(mixed.epsilon[2]) and mixed.epsilon[2] > mixed.epsilon[1]
    assert mixed.fallback is not None and "1 of the 3 asked deltas" in mixed.fallback


def test_rdp_fallback_value_is_what_the_rdp_accountant_says_for_the_tiny_delta():
    mixed = A.epsilon(noise_multiplier=1.0, sample_rate=0.01, steps=1000, delta=[1e-5, 1e-30], accountant="tight")
    rdp = A.epsilon(noise_multiplier=1.0, sample_rate=0.01, steps=1000, delta=1e-30, accountant="rdp")
    assert float(mixed.epsilon[1]) <= float(np.atleast_1d(rdp.epsilon)[0]) * (1 + 1e-12)  # the smaller of two upper bounds
    assert float(mixed.epsilon[0]) < float(np.atleast_1d(rdp.epsilon)[0])


def test_every_delta_below_the_floor_still_falls_back_whole():
    r = A.epsilon(noise_multiplier=1.0, sample_rate=0.01, steps=1000, delta=[1e-30, 1e-40], accountant="tight")
    assert r.fallback is not None and np.all(np.isfinite(r.epsilon)) and r.epsilon[1] >= r.epsilon[0]
