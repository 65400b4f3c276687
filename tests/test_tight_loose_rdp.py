"""The tight accountant is never looser than its own RDP bound where the PLD's grid cannot resolve a step (session 34).

Before: at sigma 1e4, q 0.01, T 1e9, delta 1e-5 the PLD's grid step stops at its floor h = 2e-5, about twenty
times one step's loss spread (q / sigma = 1e-6 nats); the connect-the-dots split then inflates the composed
variance and ``epsilon(..., accountant="tight")`` returned 0.719 (its own Richardson estimate: 0.076) while the RDP
accountant says 0.108.  The RDP fallback ran only where the PLD's value was inf.  Now, where the PLD's error
estimate is above twice its refinement target, the RDP bound is computed too and the smaller rigorous bound is
returned, labelled (``fallback``, ``details['served_by']``).

Oracles: dp_accounting's RDP accountant (an upper bound: ours must not exceed it) and a rigorous lower bound on the
true epsilon computed here from one test statistic of the remove direction (the sum of the T outputs):
P(sum > t) >= P(K >= k0) * Phi-bar((t - k0) / (sigma sqrt T)) with K ~ Binomial(T, q) the number of inclusions, and
Q(sum > t) = Phi-bar(t / (sigma sqrt T)) exactly; delta(eps) >= P(S) - e^eps Q(S) for every set S.
"""

from __future__ import annotations

import numpy as np
import pytest

from symdp import accountants as A


def _dpacc_rdp(s: float, q: float, T: int, d: float) -> float:
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant

    acc = rdp_privacy_accountant.RdpAccountant()
    acc.compose(dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(s)), T))
    return float(acc.get_epsilon(d))


def _sum_test_lower(s: float, q: float, T: int, d: float) -> float:
    """A rigorous lower bound on the true epsilon(d) (see the module docstring); 0 where the test shows nothing."""
    from scipy.optimize import brentq
    from scipy.stats import binom, norm

    k0 = np.floor(T * q - 8 * np.sqrt(T * q * (1 - q)))
    pk = binom.sf(k0 - 1, T, q)  # P(K >= k0)
    sc = s * np.sqrt(T)
    ts = k0 + sc * np.linspace(-2, 12, 20001)

    def lb(e: float) -> float:
        return float(np.max(pk * norm.sf((ts - k0) / sc) - np.exp(e) * norm.sf(ts / sc)))

    if lb(0.0) <= d:
        return 0.0
    hi = 1.0
    while lb(hi) > d:
        hi *= 2
    return float(brentq(lambda e: lb(e) - d, 0.0, hi, xtol=1e-12)) * (1 - 1e-9)


# (sigma, q, T): the brief's corner and three more where the PLD's grid floor is coarser than a step
CORNERS = [(1e4, 0.01, 10**9), (1e3, 0.01, 10**8), (100.0, 0.001, 10**9), (1e3, 0.1, 10**9)]


@pytest.mark.parametrize("s,q,T", CORNERS)
def test_tight_within_rdp_and_above_a_rigorous_lower_bound(s, q, T):
    d = 1e-5
    r = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant="tight")
    up = _dpacc_rdp(s, q, T, d)
    lo = _sum_test_lower(s, q, T, d)
    assert r.is_upper_bound
    assert lo <= r.epsilon <= up * (1 + 1e-6), (lo, r.epsilon, up)  # before: 0.719 against 0.1086 at the first corner
    # labelled: which method served, and the PLD's own (looser) value kept for the record
    assert r.fallback is not None and r.fallback.startswith("rdp:") and "discretisation-error estimate" in r.fallback
    assert r.details["served_by"] == ["rdp"] and r.details["pld_epsilon"][0] > r.epsilon


def test_brief_corner_numbers():
    r = A.epsilon(noise_multiplier=1e4, sample_rate=0.01, steps=10**9, delta=1e-5, accountant="tight")
    rdp = A.epsilon(noise_multiplier=1e4, sample_rate=0.01, steps=10**9, delta=1e-5, accountant="rdp")
    assert r.epsilon == rdp.epsilon  # the RDP bound served (0.1082), not the PLD's 0.719
    assert 0.0967 < r.epsilon < 0.109
    assert np.isnan(r.error_bound)  # the RDP conversion's gap is not bounded: no estimate is claimed


def test_scalar_and_array_agree_bitwise():
    s = np.array([1e4, 3.0, 1e3])
    T = np.array([10**9, 1000, 10**8])
    arr = A.epsilon(noise_multiplier=s, sample_rate=0.01, steps=T, delta=1e-5, accountant="tight")
    for i in range(3):
        one = A.epsilon(noise_multiplier=float(s[i]), sample_rate=0.01, steps=int(T[i]), delta=1e-5, accountant="tight")
        assert one.epsilon == arr.epsilon[i]
    # a delta array on one configuration: each value as asked alone (the grid follows the smallest delta, so
    # only where the RDP bound serves are they bit-equal; the PLD values agree to its refinement target)
    many = A.epsilon(noise_multiplier=1e4, sample_rate=0.01, steps=10**9, delta=[1e-5, 1e-7], accountant="tight")
    for j, d in enumerate((1e-5, 1e-7)):
        alone = A.epsilon(noise_multiplier=1e4, sample_rate=0.01, steps=10**9, delta=d, accountant="tight")
        assert many.epsilon[j] == alone.epsilon


@pytest.mark.parametrize("s,q,T", [(1.1, 256 / 60000, 2340), (30.0, 0.01, 10**7)])
def test_pld_values_unchanged_where_it_meets_its_target(s, q, T):
    r = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=1e-5, accountant="tight")
    assert r.fallback is None and "served_by" not in r.details
    assert r.error_bound <= 2 * 3e-3 * r.epsilon
    assert r.epsilon < _dpacc_rdp(s, q, T, 1e-5)


# ---------------------------------------------------------------- the batched accountant (accountants.batched)
def _grid(kind: str, n: int, seed: int) -> tuple[np.ndarray, ...]:
    """bench/gpu_accountants.py's typical and wide grids."""
    rng = np.random.default_rng(seed)
    if kind == "wide":
        return (rng.uniform(0.5, 3.0, n), rng.uniform(1e-3, 0.1, n), rng.integers(100, 50000, n),
                rng.choice([1e-5, 1e-6, 1e-8], n))
    return rng.uniform(0.8, 2.0, n), 10 ** rng.uniform(-3, -2, n), rng.integers(1000, 20000, n), np.full(n, 1e-5)


@pytest.mark.parametrize("s,q,T", CORNERS)
def test_batch_serves_the_smaller_bound_where_its_grid_is_coarse(s, q, T):
    """Where the batch's grid is at its floor (coarser than one step's loss spread), it returns the smaller of its
    PLD value and the RDP accountant's bound, as the single accountant does: before, 0.456 at the first corner
    against 0.108.  The value lies above the rigorous lower bound and at most dp_accounting's RDP bound, and equals
    the single accountant's (the RDP bound served in both, bit for bit) and min(PLD, RDP) of the batch."""
    pytest.importorskip("torch")
    from symdp.accountants.batched import epsilon_batch

    d = 1e-5
    b = epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d)
    one = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant="tight")
    rdp = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant="rdp").epsilon
    e = float(b.epsilon)
    assert b.is_upper_bound and b.fallbacks == 0
    assert _sum_test_lower(s, q, T, d) <= e <= _dpacc_rdp(s, q, T, d) * (1 + 1e-6)
    assert e == one.epsilon == rdp  # the single accountant's rule: its RDP bound served
    pld = float(b.details["pld_epsilon"])
    assert b.details["served_by"] == "rdp" and pld > e and e == min(pld, rdp)
    assert b.details["fallback"].startswith("rdp:")
    if (s, q, T) == CORNERS[0]:
        assert 0.0967 < e < 0.109  # 0.1082; the batch's PLD said 0.456


@pytest.mark.parametrize("kind,seed", [("typical", 3), ("wide", 4)])
def test_batch_gate_leaves_the_benchmark_grids_bit_for_bit(monkeypatch, kind, seed):
    """The gate (:func:`batched._coarse_grid`) fires on no row of the typical and wide grids (20,000 rows each
    checked: free, it reads the grid step and sigma, q only), so there the values are those of the batch without
    the RDP step, bit for bit, every row served by the PLD and the RDP accountant never called."""
    pytest.importorskip("torch")
    from symdp.accountants import batched as B
    from symdp.accountants import rdp_curves

    s, q, T, d = _grid(kind, 20000, seed)
    assert not B._coarse_grid(s, q, B._guess_h(s, q, T, d)).any()
    s, q, T, d = (a[:150] for a in (s, q, T, d))
    calls: list[int] = []
    real = rdp_curves.rdp_epsilons
    monkeypatch.setattr(rdp_curves, "rdp_epsilons", lambda rows, *a: (calls.append(len(rows)), real(rows, *a))[1])
    new = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1)
    assert not calls and set(new.details["served_by"].tolist()) == {"pld"} and "pld_epsilon" not in new.details
    monkeypatch.setattr(B, "_coarse_grid", lambda s_, q_, h_: np.zeros(len(s_), dtype=bool))
    old = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1)
    assert np.array_equal(new.epsilon, old.epsilon)


def test_batch_gate_keeps_the_pld_where_it_is_smaller():
    """A mixed batch: a corner row (RDP served), a gated row whose PLD is below the RDP bound (sigma 3, q 1e-3,
    T 1e7: the grid at its floor, PLD 4.82 against RDP 5.19: the PLD value kept, bit for bit), two typical rows and
    q = 1 (the single accountant): each row labelled with the method that served it, every value at most RDP."""
    pytest.importorskip("torch")
    from symdp.accountants import batched as B

    s = np.array([1e4, 3.0, 1.1, 1.5, 2.0])
    q = np.array([0.01, 1e-3, 256 / 60000, 0.01, 1.0])
    T = np.array([10**9, 10**7, 2340, 5000, 100])
    d = 1e-5
    r = B.epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=d, workers=1)
    h = B._guess_h(s[:4], q[:4], T[:4], np.full(4, d))
    assert B._coarse_grid(s[:4], q[:4], h).tolist() == [True, True, False, False]
    assert r.details["served_by"].tolist() == ["rdp", "pld", "pld", "pld", "single"] and r.fallbacks == 1
    rdp = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant="rdp").epsilon
    assert r.epsilon[0] == rdp[0] and r.epsilon[1] < rdp[1]
    assert np.all(r.epsilon <= rdp * (1 + 1e-12))
    alone = B.epsilon_batch(noise_multiplier=s[1], sample_rate=q[1], steps=T[1], delta=d)
    assert float(alone.epsilon) == r.epsilon[1] and alone.details["served_by"] == "pld"
    assert np.isnan(r.details["pld_epsilon"][1:]).all() and r.details["pld_epsilon"][0] > r.epsilon[0]
