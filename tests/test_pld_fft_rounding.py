"""The tight accountant's FFT rounding allowance (``pld_compose._fft_allowance``) against compositions computed
in higher precision: mpmath (50 digits) on short transforms, and a longdouble direct DFT with mpmath twiddles on
the lengths the accountant really uses.  The float64 composed PMF must be within the allowance (summed over the
entries, which bounds the error of every delta read from it) of the precise one."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from symdp.accountants import pld_compose as pc
from symdp.accountants.pld_grid import DiscretePLD, discretize_step

mpmath.mp.dps = 50


def _float64_composition(steps, n):
    """What compose() does: the rfft of each wrapped PMF to its power, multiplied, the allowance, the irfft."""
    fs, spec = [], None
    for p, T in steps:
        f = np.fft.rfft(pc._wrap(p, n))
        fs.append(f.copy())
        f = pc._cpow(f, T, overwrite=True)
        spec = f if spec is None else spec * f
    allow = pc._fft_allowance(steps, n, fs, spec)
    return np.fft.irfft(spec, n), allow


def _mp_composition(steps, n):
    """The exact cyclic composition on Z/n by a 50-digit DFT (n small)."""
    w = [mpmath.expjpi(mpmath.mpf(-2 * k) / n) for k in range(n)]
    S = [mpmath.mpc(1)] * n
    for p, T in steps:
        a = [mpmath.mpf(0)] * n
        for i, x in enumerate(p.pmf):
            a[(p.j0 + i) % n] += mpmath.mpf(float(x))
        for k in range(n):
            f = mpmath.fsum(a[j] * w[(j * k) % n] for j in range(n) if a[j])
            S[k] *= f ** T
    return np.array([float(mpmath.re(mpmath.fsum(S[k] * mpmath.conj(w[(j * k) % n]) for k in range(n))) / n)
                     for j in range(n)])


def _ld_composition(steps, n):
    """The exact cyclic composition up to ~1e-15 relative: direct DFTs in longdouble with twiddles from mpmath,
    powers in longdouble; returns the composed PMF and a generous bound on its own error (summed)."""
    tw = np.empty(n, dtype=np.clongdouble)
    tw.real = [_ld_mpf(mpmath.cos(2 * mpmath.pi * k / n)) for k in range(n)]
    tw.imag = [-_ld_mpf(mpmath.sin(2 * mpmath.pi * k / n)) for k in range(n)]
    kk = np.arange(n // 2 + 1)
    S = np.ones(len(kk), dtype=np.clongdouble)
    for p, T in steps:
        j = (p.j0 + np.arange(len(p.pmf))) % n
        f = (tw[np.outer(kk, j) % n] * p.pmf.astype(np.longdouble)[None, :]).sum(axis=1)
        S *= pc._cpow(f.astype(np.clongdouble), T)
    full = np.concatenate([S, np.conj(S[1:n - len(S) + 1][::-1])])
    c = np.array([(full * np.conj(tw[(kk_ * np.arange(n)) % n])).sum().real for kk_ in range(n)]) / n
    # its own error, generously: per spectrum entry (m + 3T + 8) u_ld |S_k| (sums, powers), then the inverse's
    # n-term sums and the 1/n: sum_j |dc_j| <= sum_k |dS_k| + (n + 2) u_ld sum_k |S_k| (full spectrum), times 4
    u_ld = float(np.finfo(np.longdouble).eps) / 2
    grow = sum(len(p.pmf) + 3 * T + 8 for p, T in steps) + n + 2
    own = 4 * grow * u_ld * 2 * float(np.abs(S).astype(float).sum())
    return c.astype(float), own


def _pld(pmf, j0=0, h=0.01):
    return DiscretePLD(h=h, j0=j0, pmf=np.asarray(pmf, dtype=float), inf_mass=0.0, roundoff=0.0)


def _ld_mpf(x):
    """An mpmath number as a longdouble (two float64 parts: numpy would convert through one float64)."""
    hi = float(x)
    return np.longdouble(hi) + np.longdouble(float(x - hi))


def _mpf_ld(x):
    """A longdouble as an mpmath number, exactly (two float64 parts)."""
    hi = float(x)
    return mpmath.mpf(hi) + mpmath.mpf(float(x - np.longdouble(hi)))


SMALL = [
    ([(_pld([0.5, 0.5]), 7)], 8),
    ([(_pld([1 - 1e-3, 1e-3], j0=-1), 1000)], 30),  # concentrated: |f_k| ~ 1 at every k, T = 1000
    ([(_pld([0.2, 0.3, 0.1, 0.4], j0=3), 3), (_pld([0.9, 0.1]), 40)], 27),  # two steps, n = 3^3
    ([(_pld([1 - 1e-9, 1e-9]), 10000)], 16),  # T = 1e4, nearly a point mass
    ([(_pld(np.full(5, 0.2)), 1)], 5),  # T = 1: the transforms only
]


@pytest.mark.parametrize("steps,n", SMALL)
def test_allowance_covers_mpmath_composition(steps, n):
    c, allow = _float64_composition(steps, n)
    exact = _mp_composition(steps, n)
    err = float(np.abs(c - exact).sum())
    assert err <= allow, (err, allow)
    assert allow < 1e-9  # and stays small (these cases have sum p = 1, T <= 1e4)


def test_allowance_covers_composition_with_powers_near_one():
    """Adversarial for the old model (T + log2 n, added): a tiny-variance step whose spectrum stays near 1 at every
    frequency, so T |f|^(T-1) amplifies the forward transform's error everywhere."""
    rng = np.random.default_rng(3)
    for _ in range(4):
        eps = 10.0 ** rng.uniform(-8, -4)
        T = int(rng.integers(200, 5000))
        n = int(rng.choice([12, 16, 20, 24]))
        steps = [(_pld([1 - eps, eps], j0=int(rng.integers(-3, 3))), T)]
        c, allow = _float64_composition(steps, n)
        err = float(np.abs(c - _mp_composition(steps, n)).sum())
        assert err <= allow, (eps, T, n, err, allow)


@pytest.mark.parametrize("sigma,q,T", [(1.0, 0.01, 1000), (1.1, 0.01, 10000), (0.8, 1.0, 4), (2.0, 0.1, 3000)])
def test_allowance_covers_accountant_composition(sigma, q, T):
    """The accountant's own steps (a discretised subsampled-Gaussian PLD) and window, checked against a longdouble
    composition."""
    p = discretize_step(sigma, q, 0.02, "remove", tail=1e-16)
    comp = pc.compose([(p, T)], tail_tol=1e-15)
    n = comp.n_fft
    if n > 3000:
        pytest.skip(f"n = {n}: the longdouble oracle is O(n^2)")
    c, allow = _float64_composition([(p, T)], n)
    assert math.isclose(comp.roundoff - T * p.roundoff, allow, rel_tol=1e-12)
    exact, own = _ld_composition([(p, T)], n)
    err = float(np.abs(c - exact).sum())
    assert err + own <= allow, (err, own, allow)


def test_longdouble_direct_dft_within_its_bound():
    """The accurate frequencies (`_dft_ld`) against mpmath: error within E_ld = 1.01 (64 + 1 + 1.42 d) u_ld P, and
    the twiddle tables within 24 u_ld."""
    rng = np.random.default_rng(7)
    for n, m in [(1280, 591), (2560, 1181), (4374, 778), (15000, 461)]:
        pmf = rng.dirichlet(np.full(m, 0.3))
        p = _pld(pmf, j0=int(rng.integers(-m, m)))
        K = np.array([0, 1, 2, 3, 7, 31, n // 2 - 1, n // 3])
        got = pc._dft_ld(p, n, K, pc._twiddles(n))
        d = pc._sum_depth(m)
        bound = 1.01 * (64 + 1 + 1.42 * d * 1.01) * pc._ULD * float(pmf.sum()) * (1 + (m + 4) * 2.0**-53)
        for k, g in zip(K, got):
            ex = mpmath.fsum(mpmath.mpf(float(x)) * mpmath.expjpi(mpmath.mpf(-2 * int(k) * ((p.j0 + i) % n)) / n)
                             for i, x in enumerate(pmf))
            e = abs(mpmath.mpc(_mpf_ld(g.real), _mpf_ld(g.imag)) - ex)
            assert e <= bound, (n, m, k, float(e), bound)
    for n in [5, 1280, 4374, 39366, 1 << 20]:
        B, Hi, Lo = pc._twiddles(n)
        for tab, step in ((Hi, B), (Lo, 1)):
            idx = np.unique(np.r_[0:min(len(tab), 40), np.linspace(0, len(tab) - 1, 40).astype(int)])
            for i in idx:
                ex = mpmath.expjpi(mpmath.mpf(-2 * ((int(i) * step) % n)) / n)
                e = abs(mpmath.mpc(_mpf_ld(tab[i].real), _mpf_ld(tab[i].imag)) - ex)
                assert e <= 24 * pc._ULD, (n, i, float(e / pc._ULD))


@pytest.mark.parametrize("steps,n", SMALL[1:4])
def test_allowance_without_longdouble(monkeypatch, steps, n):
    """Where longdouble is plain double (``_ULD = 0``) no frequency is recomputed: the float64 bound alone must
    still cover the error (it is larger: the forward transform's error amplified by T M^(T-1) everywhere)."""
    with_ld = _float64_composition(steps, n)[1]
    monkeypatch.setattr(pc, "_ULD", 0.0)
    c, allow = _float64_composition(steps, n)
    assert allow >= with_ld
    assert float(np.abs(c - _mp_composition(steps, n)).sum()) <= allow


def test_allowance_tighter_than_the_old_model_at_many_steps():
    """The old model, 8u (T + log2 n) sum|spectrum| (not a proof), against the new bound on accountant steps: the
    accurate low frequencies make the rigorous bound the smaller one by an order of magnitude at T >= 1000."""
    for sigma, q, T in [(1.0, 0.01, 1000), (0.8, 0.001, 10000), (2.0, 0.1, 3000)]:
        p = discretize_step(sigma, q, 0.01, "remove", tail=1e-16)
        comp = pc.compose([(p, T)], tail_tol=1e-15)
        n = comp.n_fft
        spec = pc._cpow(np.fft.rfft(pc._wrap(p, n)), T)
        old = 8 * 2.0**-53 * (T + math.log2(n)) * float(np.abs(spec).sum())
        assert comp.roundoff - T * p.roundoff < 0.1 * old
