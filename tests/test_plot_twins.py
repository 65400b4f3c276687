"""Float64 twins of oracle sides (issue 25, "audit in a minute"): each twin computes the quantity its mpmath side
computes, checked here against the mpmath oracle at random points of the claim's box, at its corners and edges, and
at the corners of the oracles' own parameter ranges.  A twin may say "not known" (NaN: mpmath decides) but never a
wrong value, and it calls a side undefined (masked) only where the mpmath side is undefined too."""

from __future__ import annotations

import math
import random
import zlib

import mpmath
import numpy as np
import pytest

from symdp.library import get

#: the plotted claims whose side is an oracle, with the oracle each uses (the audit's plots of refuted entries)
ORACLE_PLOTS = (
    "he2021uai.cor2_delta_at_eps3", "he2021long.thm8_delta", "he2021uai.thm7_delta", "he2021.thm4_eps2",
    "he2021uai.thm7_eps", "he2021long.thm7_eps", "he2021long.cor3_delta_pure", "he2021uai.thm6_eps",
    "he2021long.thm7_delta", "he2021uai.cor2_delta", "he2021.cor1_delta_at_thm4_eps", "he2021long.thm7_eps_tilde",
    "he2021.thm4_eps3", "he2021.cor1_delta", "he2021.thm4_eps_prime", "he2021long.thm8_eps_tilde",
)
RTOL = 1e-9


def _points(box, rng: random.Random, n: int) -> list[dict[str, float]]:
    """Random points of the box, and points with one or two parameters at (or just inside) an edge."""
    names = box.names()
    def sample() -> dict[str, float]:
        return {k: float(v) for k, v in box.sample(rng).items()}

    pts = [sample() for _ in range(n)]
    for _ in range(n):
        p = sample()
        for nm in rng.sample(names, min(2, len(names))):
            lo, hi = box.ranges[nm]
            p[nm] = rng.choice((lo, hi, lo + (hi - lo) * 1e-6, hi - (hi - lo) * 1e-6))
        pts.append(p)
    for p in pts:
        for nm in box.integers:
            p[nm] = float(round(p[nm]))
    return pts


def _compare(f_mp, twin, pts, integers) -> tuple[int, int, list[str]]:
    """(finite twin values compared, masked ones, failures) of ``twin`` against ``f_mp`` at ``pts``."""
    grid = {k: np.array([p[k] for p in pts]) for k in pts[0]}
    with np.errstate(all="ignore"):
        got = np.ma.asarray(twin(grid))
    vals, masked = np.ma.getdata(got).astype(float), np.ma.getmaskarray(got)
    vals, masked = np.broadcast_to(vals, (len(pts),)), np.broadcast_to(masked, (len(pts),))
    n_ok = n_masked = 0
    bad = []
    with mpmath.workdps(30):
        for i, p in enumerate(pts):
            mp_pt = {k: (int(v) if k in integers else mpmath.mpf(v)) for k, v in p.items()}
            try:
                ref = f_mp(mp_pt)
                ref = math.nan if ref is None else float(mpmath.re(ref))
            except Exception:  # noqa: BLE001 - a point where the side is undefined
                ref = math.nan
            if masked[i]:
                n_masked += 1
                if not math.isnan(ref):
                    bad.append(f"masked at {p} where mpmath gives {ref}")
                continue
            v = float(vals[i])
            if math.isnan(v):
                continue  # not known in float64: mpmath decides there
            n_ok += 1
            if v == ref:
                continue
            if not math.isfinite(ref) or abs(v - ref) > RTOL * abs(ref):
                bad.append(f"at {p}: twin {v!r}, mpmath {ref!r}")
    return n_ok, n_masked, bad


@pytest.mark.parametrize("tid", ORACLE_PLOTS)
def test_oracle_twins_agree_with_the_mpmath_sides_in_the_claims_box(tid):
    from symdp.audit.engine import _float64_twins, _functions

    th = get(tid, with_evidence=False)
    f_c, f_t, _syms, _lc, _lt, box = _functions(th)
    fast = _float64_twins(th, f_t)
    assert fast is not None and fast[1] is not None, "the oracle side has a twin"
    pts = _points(box, random.Random(zlib.crc32(tid.encode())), 12)
    for j, (f_mp, twin) in enumerate(((f_c, fast[0]), (f_t, fast[1]))):
        if twin is None:
            continue
        n_ok, n_masked, bad = _compare(f_mp, twin, pts, box.integers)
        assert not bad, (tid, "claim" if j == 0 else "oracle", bad[:3])
        # a twin that is mostly "not known" is no twin (eps' = min{T eps, ...} at T eps is a tie float64 leaves to mpmath)
        assert n_ok + n_masked >= len(pts) // 4, (tid, j, n_ok, n_masked)


def test_optimal_composition_twin_at_the_corners():
    from symdp.verify.oracles_pairs import optimal_composition, optimal_composition_float64

    rng = random.Random(3)
    pts = []
    for eps in (0.0, 1e-4, 0.01, 0.5, 2.0, 8.0):
        for delta in (0.0, 1e-12, 1e-5, 0.3, 1.0):
            for T in (1, 2, 7, 100, 5000):
                for at in (-0.5, 0.0, 0.3 * eps * T, eps * math.sqrt(T), T * eps * 0.999, T * eps, T * eps + 1.0):
                    pts.append((eps, delta, T, at))
    pts += [(rng.uniform(0, 3), 10 ** rng.uniform(-12, -1), rng.randint(1, 3000), rng.uniform(0, 20)) for _ in range(60)]
    arr = np.array(pts).T
    got = optimal_composition_float64(epsilon=arr[0], delta=arr[1], T=arr[2], at=arr[3])
    known = 0
    with mpmath.workdps(30):
        for (eps, delta, T, at), v in zip(pts, got):
            ref = float(optimal_composition(epsilon=eps, delta=delta, T=T, at=at))
            if math.isnan(v):  # not known: where float64 has no digits left, or eps' is a loss (T - 2l) eps
                assert ref < 1e-280 or any(abs(at - (T - 2 * j) * eps) <= 1e-15 * max(at, 1e-300) for j in range(T + 1)), (
                    eps, delta, T, at, ref)
                continue
            known += 1
            assert abs(v - ref) <= RTOL * ref, (eps, delta, T, at, v, ref)
    assert known > 0.9 * len(pts)
    # a non-integer T, a delta above 1: not known (mpmath raises there)
    bad = optimal_composition_float64(epsilon=1.0, delta=np.array([0.1, 1.5]), T=np.array([2.5, 3.0]), at=0.5)
    assert np.isnan(bad).all()


def test_gaussian_profile_twin_in_the_tails():
    from symdp.verify.oracles_gaussian import gaussian_profile, gaussian_profile_float64

    mus = np.array([1e-3, 0.05, 0.3, 1.0, 2.0, 5.0, 20.0])
    eps = np.array([0.0, 1e-3, 0.1, 1.0, 5.0, 20.0, 60.0])
    M, E = np.meshgrid(mus, eps)
    got = gaussian_profile_float64(mu=M, at=E)
    known = 0
    with mpmath.workdps(40):
        for m, e, v in zip(M.ravel(), E.ravel(), got.ravel()):
            ref = float(gaussian_profile(mu=m, at=e))
            if math.isnan(v):
                assert ref < 1e-280, (m, e, ref)
                continue
            known += 1
            assert abs(v - ref) <= RTOL * ref, (m, e, v, ref)
    assert known > 0.7 * M.size
    # sigma and Delta instead of mu, as the oracle accepts them
    assert np.allclose(gaussian_profile_float64(sigma=2.0, Delta=0.5, at=0.3), gaussian_profile_float64(mu=0.25, at=0.3), rtol=1e-15)


def test_eq7_twins_at_the_ends_of_the_polytope():
    from symdp.verify.composition import (
        eq7_max_homogeneous,
        eq7_max_homogeneous_float64,
        eq7_max_simplex_homogeneous,
        eq7_max_simplex_homogeneous_float64,
    )

    pts = []
    for e in (1e-3, 0.1, 1.0, 2.0):
        for T in (1, 3, 100, 10**5):
            for d in (1e-12, 1e-6, 0.01):
                for ep in (-0.1, 0.0, 0.5 * e, 2 * e, e * T / 3, T * e, T * e * (1 + 1e-6), T * e + 1.0):
                    pts.append((ep, e, d, T, 1e-10))
    arr = np.array(pts).T
    got = eq7_max_homogeneous_float64(*arr)
    simplex = eq7_max_simplex_homogeneous_float64(*arr)
    n_masked = 0
    with mpmath.workdps(30):
        for i, (ep, e, d, T, dt) in enumerate(pts):
            ref = eq7_max_homogeneous(ep, e, d, int(T), dt)
            if got.mask[i]:
                n_masked += 1
                assert ref is None, (ep, e, d, T)
            elif not math.isnan(got.data[i]):
                assert ref is not None and abs(got.data[i] - float(ref)) <= RTOL * float(ref), (ep, e, d, T, got.data[i], ref)
            if ep >= 0:
                ref_s = float(eq7_max_simplex_homogeneous(ep, e, d, int(T), dt))
                assert simplex[i] == ref_s or abs(simplex[i] - ref_s) <= RTOL * abs(ref_s), (ep, e, d, T, simplex[i], ref_s)
    assert n_masked >= 4 * 4 * 3 * 2  # eps' < 0 and eps' > T eps + 1 at least
    # eps' = T eps in float64: whether it is inside the polytope is mpmath's to say (not known, not masked)
    T, e = 100.0, 0.37
    v = eq7_max_homogeneous_float64(T * e, e, 1e-6, T, 0.0)
    assert not v.mask and math.isnan(float(v.data))


def test_a_side_undefined_for_sure_is_a_gap_without_mpmath():
    from symdp.audit.plots import sweep

    calls = {"mp": 0}

    def f_c(pt):  # undefined for x > 0.5 (as a mapper returns None where its hypothesis fails)
        calls["mp"] += 1
        return None if pt["x"] > mpmath.mpf("0.5") else 2 + pt["x"]

    def f_t(pt):
        calls["mp"] += 1
        return mpmath.mpf(1)

    def g_c(pt):
        x = pt["x"]
        return np.ma.masked_array(2 + x, mask=x > 0.5)

    with mpmath.workdps(30):
        ref = sweep(f_c, f_t, {}, "x", 0.0, 1.0, n=41)
        calls["mp"] = 0
        st: dict[str, int] = {}
        new = sweep(f_c, f_t, {}, "x", 0.0, 1.0, n=41, fast=(g_c, lambda pt: np.ones_like(pt["x"])), stats=st)
    for a, b in zip(ref, new):
        assert np.array_equal(np.isnan(a), np.isnan(b)) and np.allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=1e-15)
    assert st["mpmath"] == 3 and calls["mp"] == 6 and st["float64"] == 38
    # a twin that calls a side undefined where mpmath has a value is dropped at the calibration points
    st = {}
    with mpmath.workdps(30):
        bad = sweep(f_c, f_t, {}, "x", 0.0, 1.0, n=41,
                    fast=(lambda pt: np.ma.masked_array(2 + pt["x"], mask=pt["x"] >= 0.0), lambda pt: np.ones_like(pt["x"])),
                    stats=st)
    assert st.get("float64", 0) == 0 and np.array_equal(np.isnan(bad[1]), np.isnan(ref[1]))
