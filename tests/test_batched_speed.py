"""Issue 25: the fast batched paths give the values of the single calls, and never go below the truth."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symdp.accountants as A
from symdp.accountants import rdp as R


def _mp_rdp(s: float, q: float, a: float) -> float:
    """Exact RDP of the sampled Gaussian (remove direction) by mpmath quadrature, 30 digits."""
    with mpmath.workdps(30):
        s_, q_, a_ = mpmath.mpf(s), mpmath.mpf(q), mpmath.mpf(a)
        f = lambda x: mpmath.npdf(x, 0, s_) * (1 - q_ + q_ * mpmath.exp((2 * x - 1) / (2 * s_ * s_))) ** a_  # noqa: E731
        v = mpmath.quad(f, [-mpmath.inf, -10 * s_, 0, mpmath.mpf(1) / 2, 1, 10 * s_ + 1, mpmath.inf])
        return float(mpmath.log(v) / (a_ - 1))


def test_batched_rdp_epsilon_equals_single_calls_bit_for_bit():
    """Every (sigma, q) distinct: the batch (order ladder, series vectorised over configurations) returns each
    configuration's own single-call value, to the bit, for epsilon and for delta."""
    rng = np.random.default_rng(25)
    n = 40
    s, q = rng.uniform(0.4, 4.0, n), 10 ** rng.uniform(-3.5, -0.3, n)
    T, d, e = rng.integers(1, 60000, n), rng.choice([1e-5, 1e-6, 1e-8, 1e-12], n), rng.uniform(0.05, 40, n)
    kw = dict(noise_multiplier=s, sample_rate=q, steps=T, accountant="rdp")
    be, bd = A.epsilon(delta=d, **kw).epsilon, A.delta(epsilon=e, **kw).delta
    for i in range(n):
        one = dict(noise_multiplier=float(s[i]), sample_rate=float(q[i]), steps=int(T[i]), accountant="rdp")
        assert float(A.epsilon(delta=float(d[i]), **one).epsilon) == be[i]
        assert float(A.delta(epsilon=float(e[i]), **one).delta) == bd[i]


@pytest.mark.parametrize("sampling", ["poisson", "without_replacement"])
def test_rdp_array_rows_equal_the_per_configuration_segment_lists(sampling):
    """The API hands the RDP accountant its configurations as one (n, 3) array (no Python list per configuration);
    broadcast against the targets (C order, T = 0 included, a pair shared by a sweep) it gives the segment
    lists' values to the bit, epsilon and delta, and the optimal orders."""
    from symdp.accountants.rdp_curves import rdp_deltas, rdp_epsilons

    rng = np.random.default_rng(30)
    s, q = rng.uniform(0.4, 4.0, (3, 1, 4)), 10 ** rng.uniform(-3.5, 0, (1, 4))
    s[0, 0, 1] = s[0, 0, 0]  # a (sigma, q) pair met twice
    T = rng.integers(0, 60000, (2, 1, 1, 4))
    T[1, 0, 0, 2] = 0
    d, e = rng.choice([1e-5, 1e-8, 1e-12], (3, 1, 1)), rng.uniform(0.05, 40, (3, 1, 1))
    kw = dict(noise_multiplier=s, sample_rate=q, steps=T, accountant="rdp", sampling=sampling)
    re_, rd_ = A.epsilon(delta=d, **kw), A.delta(epsilon=e, **kw)
    bs, bq, bT, bd, be = np.broadcast_arrays(s, q, T, d, e)
    segs = [[(float(a), float(b), int(c))] for a, b, c in zip(bs.ravel(), bq.ravel(), bT.ravel())]
    le, lo = rdp_epsilons(segs, bd.ravel(), sampling, None)
    ld, lod = rdp_deltas(segs, be.ravel(), sampling, None)
    assert re_.epsilon.shape == rd_.delta.shape == bs.shape
    # the API reports a delta that underflowed to 0.0 as the smallest positive double where T > 0 (the true delta
    # is positive there); everything else is the segment lists' value to the bit
    ld_api = np.where((ld == 0.0) & (bT.ravel() > 0), np.nextafter(0.0, 1.0), ld)
    assert np.any(ld_api != ld) and np.any((ld == 0.0) & (bT.ravel() == 0))  # both cases occur in this grid
    assert np.array_equal(re_.epsilon.ravel(), le) and np.array_equal(rd_.delta.ravel(), ld_api)
    assert np.array_equal(re_.details["optimal_order"], lo) and np.array_equal(rd_.details["optimal_order"], lod)
    assert np.all(le[bT.ravel() == 0] == 0) and np.all(le[bT.ravel() > 0] > 0)


def test_vectorised_fractional_series_rows_equal_per_configuration_calls_and_stay_above_quadrature():
    rng = np.random.default_rng(3)
    pairs = [(float(a), float(b)) for a, b in zip(rng.uniform(0.6, 3.0, 6), rng.uniform(1e-3, 0.2, 6))]
    orders = np.array([1.1, 1.5, 2.5, 4.3, 7.9])
    s = np.array([p[0] for p in pairs])
    q = np.array([p[1] for p in pairs])
    batch = R.sgm_rdp(noise_multiplier=s, sample_rate=q, orders=orders)
    for k, (sk, qk) in enumerate(pairs):
        one = R.sgm_rdp(noise_multiplier=sk, sample_rate=qk, orders=orders)
        assert np.array_equal(batch[k], one)
    for k in (0, 3):
        for j, a in enumerate(orders):
            ex = _mp_rdp(s[k], q[k], a)
            assert ex * (1 - 1e-12) <= batch[k, j] <= ex * (1 + 1e-6)


@pytest.mark.parametrize("kind", ["epsilon", "delta"])
def test_order_ladder_equals_the_full_grid_on_a_sweep(kind):
    """A sweep (few (sigma, q), many (T, target)): the convexity ladder skips high integer orders only where
    they cannot win; the answer is the full grid's minimum to the bit."""
    rng = np.random.default_rng(7)
    s = np.repeat(rng.uniform(0.5, 6.0, 5), 12)
    q = np.repeat(10 ** rng.uniform(-4, -0.5, 5), 12)
    T = rng.integers(1, 10 ** 6, 60)
    tgt = rng.choice([1e-4, 1e-6, 1e-9, 1e-14], 60) if kind == "epsilon" else rng.uniform(0.01, 20, 60)
    kw = dict(noise_multiplier=s, sample_rate=q, steps=T, accountant="rdp")
    call = (lambda: A.epsilon(delta=tgt, **kw).epsilon) if kind == "epsilon" else (lambda: A.delta(epsilon=tgt, **kw).delta)
    new = call()

    def full(kind_, curve, target, n):
        conv = R.rdp_to_epsilon if kind_ == "epsilon" else R.rdp_to_delta
        key = "delta" if kind_ == "epsilon" else "epsilon"
        v, o = conv(rdp=curve(R.DEFAULT_ORDERS, np.arange(n)), orders=R.DEFAULT_ORDERS, **{key: target})
        return np.array(v, dtype=float), np.array(o, dtype=float)

    orig = R._default_grid_pruned
    R._default_grid_pruned = full
    try:
        old = call()
    finally:
        R._default_grid_pruned = orig
    assert np.array_equal(new, old)


def test_batched_tight_start_grid_is_the_single_accountants_and_has_no_host_loop():
    """``batched._guess_h`` (vectorised) gives every configuration the grid ``api._initial_h`` starts from (to the last
    bits: numpy's and libm's expm1 may differ by an ulp; any grid gives an upper bound, this one only sizes it);
    ``_bucket`` (vectorised) gives the smallest allowed FFT length >= need."""
    from symdp.accountants import api
    from symdp.accountants import batched as B

    rng = np.random.default_rng(5)
    n = 200
    s, q = rng.uniform(0.3, 8.0, n), 10 ** rng.uniform(-5, -0.01, n)
    T, d = rng.integers(1, 10 ** 6, n), rng.choice([1e-5, 1e-8, 1e-12], n)
    h = B._guess_h(s, q, T, d)
    for i in range(n):
        segs = [(float(s[i]), float(q[i]), int(T[i]))]
        assert h[i] == pytest.approx(api._initial_h(segs, api._rdp_guess(segs, float(d[i]))), rel=1e-14)
    need = np.concatenate([np.arange(1, 5000), rng.integers(1, 1 << 24, 2000)])
    got = B._bucket(need)
    allowed = np.array(sorted({1 << k for k in range(4, 27)} | {3 << (k - 2) for k in range(4, 27)}
                             | {5 << (k - 3) for k in range(4, 27)}))
    want = allowed[np.searchsorted(allowed, need)]  # the smallest allowed length >= need
    assert np.array_equal(got, want)


def test_batched_tight_on_cpu_torch_is_an_upper_bound_near_the_single_accountant():
    """The device path (run on CPU torch here): every value at or above the single accountant's lower end and within
    1% above its value (the batch skips the grid refinement: a little higher, never lower than the truth)."""
    pytest.importorskip("torch")
    from symdp.accountants.batched import epsilon_batch

    s = np.array([0.8, 1.1, 2.0, 1.5])
    q = np.array([0.01, 256 / 60000, 0.05, 0.002])
    T = np.array([1000, 2340, 500, 20000])
    r = epsilon_batch(noise_multiplier=s, sample_rate=q, steps=T, delta=1e-5, device="cpu")
    one = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=1e-5).epsilon
    assert r.is_upper_bound and r.fallbacks == 0
    assert np.all(r.epsilon >= one * (1 - 3e-3)) and np.all(r.epsilon <= one * 1.01)


def test_rows_at_their_own_fractional_orders_equal_sgm_rdp_and_bracket_the_truth():
    """``sgm_rdp_rows`` (one vectorised pass, each row at its own order) gives each row the value of
    ``sgm_rdp(orders=[alpha])`` to the bit; its lower bound lies below mpmath quadrature and the upper above."""
    rng = np.random.default_rng(11)
    n = 30
    s, q = rng.uniform(0.4, 4.0, n), 10 ** rng.uniform(-3.5, 0.0, n)
    q[:3] = 1.0  # no subsampling: the Gaussian's own RDP
    a = rng.choice(R.FRAC_ORDERS, n)
    up, low = R.sgm_rdp_rows(s, q, a)
    for i in range(n):
        assert up[i] == R.sgm_rdp(noise_multiplier=s[i], sample_rate=q[i], orders=[a[i]])[0]
    assert np.all(low <= up)
    for i in (0, 4, 9, 17):
        ex = _mp_rdp(s[i], q[i], a[i])
        assert low[i] <= ex * (1 + 1e-14) and ex * (1 - 1e-12) <= up[i]
        assert low[i] >= ex * (1 - 1e-6)  # the lower bound is tight where the series is controlled
    with pytest.raises(Exception, match="fractional"):
        R.sgm_rdp_rows(s[:1], q[:1], np.array([3.0]))


@pytest.mark.parametrize("kind", ["epsilon", "delta"])
def test_best_first_orders_equal_every_candidate_order(kind):
    """The best-first search (rdp._refine_bnb) returns the value and the optimal order of the loop over every
    candidate fractional order (rdp._refine_fractional), to the bit, with fewer series evaluations."""
    rng = np.random.default_rng(19)
    n = 120
    s, q = rng.uniform(0.4, 5.0, n), 10 ** rng.uniform(-4, -0.2, n)
    T = rng.integers(1, 10 ** 6, n)
    tgt = rng.choice([1e-5, 1e-8, 1e-12], n) if kind == "epsilon" else rng.uniform(0.05, 30, n)
    kw = dict(noise_multiplier=s, sample_rate=q, steps=T, accountant="rdp")

    def call():
        r = A.epsilon(delta=tgt, **kw) if kind == "epsilon" else A.delta(epsilon=tgt, **kw)
        return np.asarray(getattr(r, kind)), np.asarray(r.details["optimal_order"])

    rows = []
    orig_rows = R.sgm_rdp_rows
    R.sgm_rdp_rows = lambda *a: (rows.append(len(a[2])), orig_rows(*a))[1]
    try:
        new_v, new_o = call()
    finally:
        R.sgm_rdp_rows = orig_rows
    orig = R._refine_bnb
    calls = []
    orig_loop = R._refine_fractional
    R._refine_bnb = lambda values, curve, target, cand, v, o, r_int, *rest: (calls.append(int(cand.sum())),
                                                                              orig_loop(values, curve, target, cand, v, o))
    try:
        old_v, old_o = call()
    finally:
        R._refine_bnb = orig
    assert np.array_equal(new_v, old_v) and np.array_equal(new_o, old_o)
    assert sum(rows) < sum(calls)
    chunk = R._BNB_CHUNK
    R._BNB_CHUNK = 17  # the search in chunks of configurations (bounded memory): the same answers
    try:
        ch_v, ch_o = call()
    finally:
        R._BNB_CHUNK = chunk
    assert np.array_equal(ch_v, old_v) and np.array_equal(ch_o, old_o)


def test_odometer_per_step_rdp_on_the_torch_device_matches_numpy_from_above():
    """Issue 25: the odometer computes a host-number step's RDP on its torch device (generated torch kernels,
    float64; CPU torch here, the same code runs on CUDA).  Every order at or above the numpy accountant's value;
    integer orders within 1.5e-12 relative; fractional orders within 1e-12 relative plus the float64 resolution
    of log A (8u (1 + |log S| + |m|) / (alpha - 1), the pad that keeps them above); epsilon and delta at or
    above the numpy conversion, epsilon within 2e-11 relative."""
    torch = pytest.importorskip("torch")
    from symdp.accountants.odometer import RDPOdometer, _TorchRDP

    core = _TorchRDP(R.DEFAULT_ORDERS, torch.device("cpu"), torch.float64)
    ints = R.DEFAULT_ORDERS == np.floor(R.DEFAULT_ORDERS)
    rng = np.random.default_rng(2025)
    cases = [(1.1, 0.01), (0.5, 0.1), (0.8, 1.0), (10.0, 1e-4), (0.3, 0.5), (50.0, 0.2)]
    cases += [(float(a), float(b)) for a, b in zip(rng.uniform(0.3, 10, 14), 10 ** rng.uniform(-6, 0, 14))]
    u = np.finfo(float).eps
    for s, q in cases:
        rt = core.per_step_exact(torch.tensor(s, dtype=torch.float64), torch.tensor(q, dtype=torch.float64)).numpy()
        rn = R.sgm_rdp(noise_multiplier=s, sample_rate=q)
        assert np.all(rt >= rn), (s, q)
        assert np.all(rt[ints] <= rn[ints] * (1 + 1.5e-12)), (s, q)
        pad = 8 * u * (2 + np.abs(np.log(rn * (R.DEFAULT_ORDERS - 1) + 1)) + 60) / (R.DEFAULT_ORDERS - 1)
        fr = ~ints & (rn * (R.DEFAULT_ORDERS - 1) < 1)  # log A < 1: |log S| + |m| small
        assert np.all(rt[fr] <= rn[fr] * (1 + 1e-12) + pad[fr]), (s, q)
        for T, d, e in ((1000, 1e-5, 1.0), (100000, 1e-8, 8.0)):
            en, _ = R.rdp_to_epsilon(rdp=T * rn, orders=R.DEFAULT_ORDERS, delta=d)
            et = float(core.epsilon(torch.tensor(T * rt), d))
            assert en <= et <= en * (1 + 2e-11)
            dn, _ = R.rdp_to_delta(rdp=T * rn, orders=R.DEFAULT_ORDERS, epsilon=e)
            assert float(core.delta(torch.tensor(T * rt), e)) >= dn
    # the odometer steps with host numbers through the device path; a float32 odometer's per-step values round up
    odo = RDPOdometer(device="cpu")
    for _ in range(3):
        odo.step(1.1, 0.01)
    ref = A.epsilon(noise_multiplier=1.1, sample_rate=0.01, steps=3, delta=1e-5, accountant="rdp").epsilon
    assert ref <= float(odo.epsilon(1e-5)) <= ref * (1 + 2e-11)
    odo32 = RDPOdometer(device="cpu", dtype=torch.float32)
    t = lambda v: torch.tensor(v, dtype=torch.float64)  # noqa: E731
    r32, r64 = odo32._exact((1.1, 0.01), t(1.1), t(0.01)), odo._exact((1.1, 0.01), t(1.1), t(0.01))
    assert r32.dtype == torch.float32 and np.all(r32.double().numpy() >= r64.numpy())


def _mp_rdp_excess(s: float, q: float, a: float) -> float:
    """Exact fractional-order RDP of the sampled Gaussian by mpmath quadrature of ``A_alpha - 1`` (20 digits; the
    integrand minus 1, so tiny ``eps_alpha`` keep their digits), breakpoints around the mass at ``x ~ alpha``."""
    with mpmath.workdps(20):
        s_, q_, a_ = mpmath.mpf(s), mpmath.mpf(q), mpmath.mpf(a)
        f = lambda x: mpmath.npdf(x, 0, s_) * ((1 - q_ + q_ * mpmath.exp((2 * x - 1) / (2 * s_ * s_))) ** a_ - 1)  # noqa: E731
        pts = sorted({-mpmath.inf, -12 * s_, mpmath.mpf(0), mpmath.mpf(1) / 2, mpmath.mpf(1), a_ - 12 * s_, a_, a_ + 12 * s_,
                      12 * s_ + 1, mpmath.inf})
        return float(mpmath.log1p(mpmath.quad(f, pts)) / (a_ - 1))


#: (sigma, q, alpha): tiny and huge sigma, q from 1e-5 to 0.999, orders near 1; the first two have a slowly
#: (polynomially) decaying tail whose first omitted term at the first level is positive, so dropping it goes below
_SERIES_CORNERS = [(0.5, 0.1, 2.5), (0.6, 0.9, 2.1), (0.3, 0.999, 1.02), (100.0, 1e-5, 1.1), (0.5, 0.1, 1.001),
                   (0.8, 0.2, 6.3)]
_SERIES_EXACT: list[float] = []


def _series_exact() -> np.ndarray:
    if not _SERIES_EXACT:
        _SERIES_EXACT.extend(_mp_rdp_excess(*c) for c in _SERIES_CORNERS)
    return np.array(_SERIES_EXACT)


def test_fractional_series_brackets_quadrature_at_the_corners():
    """The MTZ series with its Euler-bracketed tail (rdp._frac_series_bounds): lower <= exact <= upper at every
    corner, and the upper end within the float64 resolution of log A of the exact value: 512u (1 + log A), the
    rounding allowances scaling with the magnitudes the terms are computed from (at q = 0.999 the argument of
    log Phi carries sigma u / (1 - q) from 1/q - 1: ~300u of log A at the (0.3, 0.999, 1.02) corner)."""
    s, q, a = (np.array(v, dtype=float) for v in zip(*_SERIES_CORNERS))
    up, low = R._frac_series_bounds(s, q, a)
    ex = _series_exact()
    u = np.finfo(float).eps
    assert np.all(np.isfinite(up))
    assert np.all(low <= ex) and np.all(ex <= up), (low - ex, up - ex)
    assert np.all((up - ex) * (a - 1) <= 512 * u * (1 + ex * (a - 1))), (up - ex) * (a - 1)


def test_fractional_series_oracle_catches_a_dropped_tail(monkeypatch):
    """The corner test above can fail: with the tail's Euler bracket removed (weights 0) the series stops at its
    first level and the upper end falls below the exact value where the first omitted term is positive."""
    s, q, a = (np.array(v, dtype=float) for v in zip(*_SERIES_CORNERS))
    monkeypatch.setattr(R, "_EULER_C", np.zeros_like(R._EULER_C))
    monkeypatch.setattr(R, "_EULER_D", np.zeros_like(R._EULER_D))
    up, _ = R._frac_series_bounds(s, q, a)
    assert np.any(up < _series_exact())


def test_fractional_series_levels_are_row_wise(monkeypatch):
    """Rows stopping at different levels (32 terms for a fast tail, more for slow tails and for orders above the
    first level's head) get in one batch the values of their own calls, to the bit, and so when the terms are not
    kept between levels (every level computed afresh, in slices of rows)."""
    rng = np.random.default_rng(29)
    n = 60
    s, q = 10 ** rng.uniform(np.log10(0.3), 2, n), 10 ** rng.uniform(-5, -0.001, n)
    a = rng.choice(np.concatenate([R.FRAC_ORDERS, R.SMALL_ORDERS, [40.5, 100.5, 700.25]]), n)
    up, low = R._frac_series_bounds(s, q, a)
    for i in range(0, n, 7):
        u1, l1 = R._frac_series_bounds(s[i:i + 1], q[i:i + 1], a[i:i + 1])
        assert u1[0] == up[i] and l1[0] == low[i]
    monkeypatch.setattr(R, "_SERIES_KEEP", 100)
    up2, low2 = R._frac_series_bounds(s, q, a)
    assert np.array_equal(up, up2) and np.array_equal(low, low2)
    assert np.all(low <= up) and np.isfinite(up[a < 700]).all()


def test_rdp_epsilon_at_a_fractional_optimum_is_the_exact_value_from_above():
    """Where the optimal order is fractional and the series' tail decays slowly (sigma ~0.5, q ~0.02, T ~4.5e4), the
    batch's epsilon lies above the CKS conversion of the exact (quadrature) RDP at the chosen order, and within 1e-9
    relative of it (the previous truncation allowance 2n|t_n| left it 1.7e-6 above)."""
    s, q, T, d = np.array([0.5177, 0.7186]), np.array([0.01709, 0.03731]), np.array([45358, 38144]), 1e-5
    r = A.epsilon(noise_multiplier=s, sample_rate=q, steps=T, delta=d, accountant="rdp")
    for i in range(2):
        o = float(np.ravel(r.details["optimal_order"])[i])
        assert o != np.floor(o)
        ex = T[i] * _mp_rdp_excess(float(s[i]), float(q[i]), o) + np.log1p(-1 / o) - (np.log(d) + np.log(o)) / (o - 1)
        assert ex <= r.epsilon[i] <= ex * (1 + 1e-9), (r.epsilon[i], ex)


def test_unique_rows_is_numpys_unique_along_rows():
    """rdp._unique_rows (the (sigma, q[, alpha]) dedup of the batched RDP) returns np.unique(axis=0)'s arrays."""
    rng = np.random.default_rng(31)
    for t in range(60):
        n, k = int(rng.integers(1, 500)), int(rng.integers(1, 4))
        pool = np.r_[rng.uniform(0, 3, 4), np.inf, 5e-324, 1.0]
        x = rng.choice(pool, (n, k)) if t % 2 else np.repeat(rng.uniform(0, 3, (n, k)), 3, axis=0)[rng.permutation(3 * n)]
        u, inv = np.unique(x, axis=0, return_inverse=True)
        u2, inv2 = R._unique_rows(x)
        assert np.array_equal(u, u2) and np.array_equal(inv.ravel(), inv2)
    x = np.array([[1.0, np.nan], [1.0, np.nan], [0.5, 2.0]])  # NaN: numpy's own (NaN rows stay distinct)
    u, inv = np.unique(x, axis=0, return_inverse=True)
    u2, inv2 = R._unique_rows(x)
    assert np.array_equal(u, u2, equal_nan=True) and np.array_equal(inv.ravel(), inv2)
