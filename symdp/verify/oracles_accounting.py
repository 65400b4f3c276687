r"""Oracles for the accountants: rigorous LOWER bounds on the privacy of DP-SGD, and exact values at corners.

An accountant's answer is an upper bound; these functions give values the truth is known to be at
least, computed independently of the accountants (no PLD, no RDP):

* :func:`sum_test_epsilon_lower` / :func:`sum_test_delta_lower` -- the hockey-stick divergence of
  the composed mechanism is at least the value of any test: ``delta(eps) >= P(E) - e^eps Q(E)``
  for every event ``E`` (Balle, Barthe, Gaboardi 2018, Thm 1 -- the hockey-stick form of
  ``(eps, delta)``-DP).  With ``E = {sum of the T outputs > t}`` (remove direction) or ``{< t}``
  (add direction) both probabilities are exact one-dimensional sums: given the number ``K ~
  Binomial(T, q)`` of steps that used the example, the sum is ``N(K, T sigma^2)``.  Maximised over
  ``t``.  For ``T = 1`` and for ``q = 1`` the threshold test is the likelihood-ratio test, so the
  bound *is* the exact profile.  Truncating the binomial sum only lowers ``P(E)`` (numerator side)
  and the mass outside the window is added to the denominator side; float error is covered by a
  relative margin.
* :func:`gdp_delta_mp` / :func:`gdp_epsilon_lower_mp` -- T Gaussian steps (``q = 1``) are exactly
  ``sqrt(T)/sigma``-GDP (Dong, Roth, Su 2022, Cor. 2.13), in mpmath.
* :func:`sgm_delta_mp` -- the exact privacy profile of ONE Poisson-subsampled Gaussian step, both
  directions, in mpmath (for ``T = 1``).

The module also registers the verifier's oracles for the accountants' own library entries (see the
end of the module).

>>> sum_test_epsilon_lower(1.0, 1.0, 1, 1e-5) > 4.0
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
import scipy.special as sps
import sympy as sp

from .core import BUDGET, REFINE
from .registry import Oracle, register

_MARGIN = 1e-9  # relative float margin moved to the safe (lower) side


def _k_window(T: int, q: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(k values, log pmf rounded down, mass outside the window rounded up, log factor that rounds the pmf up)."""
    if q >= 1.0:
        return np.array([float(T)]), np.array([0.0]), 0.0, 0.0
    m = T * q
    sd = math.sqrt(T * q * (1 - q))
    lo = max(0, math.floor(m - 12 * sd - 10))
    hi = min(T, math.ceil(m + 12 * sd + 10))
    if hi - lo > 400_000:  # keep the window bounded; the rest goes to the outside mass
        lo, hi = max(0, int(m - 200_000)), min(T, int(m + 200_000))
    k = np.arange(lo, hi + 1, dtype=float)
    # scipy's binomial log-pmf carries a relative error growing like ~2e-15 T (measured: 1.2e-6 at T = 1e9);
    # the window is scaled down by a margin 5x that, so P-side sums stay below the truth
    marg = _pmf_margin(T)
    from scipy.stats import binom  # here, not at import (~0.5 s): the audit's parent imports the verifier for its keys

    lp = binom.logpmf(k, T, q) + math.log1p(-marg)
    inside = float(np.exp(sps.logsumexp(lp))) if len(k) else 0.0
    return k, lp, max(0.0, 1.0 - inside) + 2 * marg, 2 * math.log1p(marg)


def _pmf_margin(T: int) -> float:
    return 1e-12 + 1e-14 * T


def _remove_eps(t: float, k: np.ndarray, lp: np.ndarray, s: float, ld: float) -> float:
    # P(S > t) >= sum_window pmf(k) Phi((k - t)/s);  Q(S > t) = Phi(-t/s)
    lP = float(sps.logsumexp(lp + sps.log_ndtr((k - t) / s))) + math.log1p(-_MARGIN)
    lQ = float(sps.log_ndtr(-t / s)) + math.log1p(_MARGIN)
    if lP <= ld:
        return -math.inf
    return lP + math.log1p(-math.exp(ld - lP)) - lQ


def _add_eps(t: float, k: np.ndarray, lp: np.ndarray, out_mass: float, up: float, s: float, ld: float) -> float:
    # Q'(S < t) = Phi(t/s) (Q' = N(0, T s^2)); P'(S < t) <= sum_window pmf Phi((t - k)/s) + outside mass
    lP = float(sps.log_ndtr(t / s)) + math.log1p(-_MARGIN)
    lQ = float(np.logaddexp(sps.logsumexp(lp + sps.log_ndtr((t - k) / s)) + up,
                            math.log(out_mass) if out_mass > 0 else -np.inf))
    lQ += math.log1p(_MARGIN)
    if lP <= ld:
        return -math.inf
    return lP + math.log1p(-math.exp(ld - lP)) - lQ


def _maximise(f: Any, a: float, b: float, n: int = 81) -> float:
    """max of f over a grid on [a, b] refined around the best point (any point gives a valid bound)."""
    best = -math.inf
    xs = np.linspace(a, b, n)
    vals = [f(float(x)) for x in xs]
    i = int(np.argmax(vals))
    best = max(best, vals[i])
    lo, hi = xs[max(i - 1, 0)], xs[min(i + 1, n - 1)]
    for _ in range(3):
        xs = np.linspace(lo, hi, 21)
        vals = [f(float(x)) for x in xs]
        i = int(np.argmax(vals))
        best = max(best, vals[i])
        lo, hi = xs[max(i - 1, 0)], xs[min(i + 1, 20)]
    return best


def sum_test_epsilon_lower(sigma: float, q: float, T: int, delta: float) -> float:
    """A rigorous lower bound on the epsilon of ``T`` steps of DP-SGD (Poisson rate q, noise sigma) at ``delta``.

    ``0.0`` when no threshold test shows more than ``delta`` (the truth is then >= 0 only).
    """
    if T <= 0:
        return 0.0
    s = float(sigma) * math.sqrt(T)
    k, lp, out, up = _k_window(int(T), float(q))
    ld = math.log(delta)
    mean = T * q
    a, b = min(-10 * s, mean - 10 * s), mean + 40 * s + 10 * math.sqrt(T)
    # the tail thresholds matter for tiny delta: scan in the standardised scale too
    zmax = math.sqrt(2 * max(-ld, 1.0)) + 5
    b = max(b, mean + zmax * s)
    r = _maximise(lambda t: _remove_eps(t, k, lp, s, ld), a, b)
    ad = _maximise(lambda t: _add_eps(t, k, lp, out, up, s, ld), -zmax * s - 10 * s, mean + 10 * s)
    v = max(r, ad, 0.0)
    return v * (1 - _MARGIN) if math.isfinite(v) else 0.0


def sum_test_delta_lower(sigma: float, q: float, T: int, epsilon: float) -> float:
    """A rigorous lower bound on delta(epsilon) of ``T`` steps of DP-SGD (same tests as :func:`sum_test_epsilon_lower`)."""
    if T <= 0:
        return 0.0
    s = float(sigma) * math.sqrt(T)
    k, lp, out, up = _k_window(int(T), float(q))
    mean = T * q
    e = float(epsilon)

    def diff(lP: float, lQe: float) -> float:  # P - e^eps Q from logs, rounded down
        if lQe >= lP:
            return 0.0
        return math.exp(lP) * (1 - _MARGIN) * -math.expm1(lQe - lP + 2 * _MARGIN)

    def rem(t: float) -> float:
        lP = float(sps.logsumexp(lp + sps.log_ndtr((k - t) / s)))
        return diff(lP, float(sps.log_ndtr(-t / s)) + e)

    def add(t: float) -> float:
        lQ = float(np.logaddexp(sps.logsumexp(lp + sps.log_ndtr((t - k) / s)) + up, math.log(out) if out > 0 else -np.inf))
        return diff(float(sps.log_ndtr(t / s)), lQ + e)

    a, b = -10 * s, mean + 40 * s
    v = max(_maximise(rem, a, b), _maximise(add, a, b), 0.0)
    return v


# ---------------------------------------------------------------- exact values in mpmath
def gdp_delta_mp(epsilon: Any, mu: Any, dps: int = 50) -> mpmath.mpf:
    r"""Exact :math:`\delta_\mu(\epsilon) = \Phi(-\epsilon/\mu+\mu/2) - e^\epsilon\Phi(-\epsilon/\mu-\mu/2)` (Dong, Roth, Su 2022, Cor. 2.13)."""
    with mpmath.workdps(dps):
        e, m = mpmath.mpf(epsilon), mpmath.mpf(mu)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def gdp_epsilon_lower_mp(mu: Any, delta: Any, dps: int = 50) -> float:
    """Largest float ``eps`` found with ``delta_mu(eps) > delta`` (so the exact epsilon is above it); 0 if none."""
    with mpmath.workdps(dps):
        d = mpmath.mpf(delta)
        m = mpmath.mpf(mu)
        if gdp_delta_mp(0, m, dps) <= d:
            return 0.0
        lo, hi = mpmath.mpf(0), m * (m / 2 + mpmath.sqrt(-2 * mpmath.log(d))) + 1
        for _ in range(200):
            mid = (lo + hi) / 2
            if gdp_delta_mp(mid, m, dps) > d:
                lo = mid
            else:
                hi = mid
            if hi - lo < mpmath.mpf(10) ** (-dps + 10) * hi:
                break
        return float(mpmath.nextafter(float(lo), -math.inf)) if hasattr(mpmath, "nextafter") else float(np.nextafter(float(lo), -np.inf))


def sgm_delta_mp(sigma: Any, q: Any, epsilon: Any, dps: int = 50) -> mpmath.mpf:
    """Exact delta(eps) of ONE Poisson-subsampled Gaussian step, the worse of the remove and add directions."""
    with mpmath.workdps(dps):
        s, qq, e = mpmath.mpf(sigma), mpmath.mpf(q), mpmath.mpf(epsilon)
        # remove: P = (1-q)N(0,s^2) + qN(1,s^2) vs Q = N(0,s^2); L > eps iff x > x*(eps)
        xs = s**2 * mpmath.log((mpmath.exp(e) - (1 - qq)) / qq) + mpmath.mpf(1) / 2
        rem = (1 - qq) * mpmath.ncdf(-xs / s) + qq * mpmath.ncdf((1 - xs) / s) - mpmath.exp(e) * mpmath.ncdf(-xs / s)
        add = mpmath.mpf(0)
        if qq < 1 and mpmath.exp(-e) > 1 - qq:
            xa = s**2 * mpmath.log((mpmath.exp(-e) - (1 - qq)) / qq) + mpmath.mpf(1) / 2
            add = mpmath.ncdf(xa / s) - mpmath.exp(e) * ((1 - qq) * mpmath.ncdf(xa / s) + qq * mpmath.ncdf((xa - 1) / s))
        return max(rem, add, mpmath.mpf(0))


def sgm_epsilon_lower_mp(sigma: Any, q: Any, delta: Any, dps: int = 40) -> float:
    """A lower bound (bisection's lower end) on the exact epsilon of ONE step at ``delta``."""
    with mpmath.workdps(dps):
        d = mpmath.mpf(delta)
        if sgm_delta_mp(sigma, q, 0, dps) <= d:
            return 0.0
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while sgm_delta_mp(sigma, q, hi, dps) > d:
            lo, hi = hi, hi * 2
            if hi > 1e7:
                return float(lo)
        for _ in range(120):
            mid = (lo + hi) / 2
            if sgm_delta_mp(sigma, q, mid, dps) > d:
                lo = mid
            else:
                hi = mid
        return float(np.nextafter(float(lo), -np.inf))


# ---------------------------------------------------------------- the soundness harness
QUERIES = ("epsilon", "delta", "calibrate_noise", "max_steps", "odometer", "rdp_odometer", "opacus")
ACCOUNTANTS_CHECKED = ("tight", "rdp", "clt", "advanced", "he2021")


@dataclass(frozen=True)
class Case:
    """One call of the accountants' public API."""

    query: str
    accountant: str
    sigma: float
    q: float
    T: int
    delta: float = 1e-5
    epsilon: float = 1.0  # target epsilon (delta, calibrate_noise, max_steps)


@dataclass
class Outcome:
    case: Case
    status: str  # ok | below | infinite | crash | hang | documented_error | unlabelled_approximation
    value: float = math.nan
    lower: float = math.nan
    seconds: float = 0.0
    message: str = ""


def lower_epsilon(sigma: float, q: float, T: int, delta: float) -> float:
    """Best rigorous lower bound available: the sum test, and the exact value at q = 1 / T = 1 (mpmath)."""
    lb = sum_test_epsilon_lower(sigma, q, T, delta)
    if T == 0:
        return 0.0
    if q >= 1.0:
        lb = max(lb, gdp_epsilon_lower_mp(math.sqrt(T) / sigma, delta))
    elif T == 1 and delta > 1e-200:
        lb = max(lb, sgm_epsilon_lower_mp(sigma, q, delta))
    return lb


def run_case(case: Case, seconds: float = 60.0) -> Outcome:
    """Run one case under a wall-clock limit and classify it against the lower bounds."""
    import time
    import warnings

    from .. import accountants as A
    from ..errors import SymdpError
    from .core import Timeout, time_limit

    c = case
    t0 = time.perf_counter()
    out = Outcome(c, "ok")
    try:
        with time_limit(seconds), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if c.query == "epsilon":
                r = A.epsilon(noise_multiplier=c.sigma, sample_rate=c.q, steps=c.T, delta=c.delta, accountant=c.accountant)
                out.value = float(r.epsilon)
                if c.accountant == "clt":
                    return _timed(_clt_labelled(out, r), t0)
                if not r.is_upper_bound:
                    return _timed(out, t0)  # an accountant that says it is not a guarantee is not held to one
                out.lower = lower_epsilon(c.sigma, c.q, c.T, c.delta)
            elif c.query == "delta":
                r = A.delta(noise_multiplier=c.sigma, sample_rate=c.q, steps=c.T, epsilon=c.epsilon, accountant=c.accountant)
                out.value = float(r.delta)
                if c.accountant == "clt":
                    return _timed(_clt_labelled(out, r), t0)
                lo = sum_test_delta_lower(c.sigma, c.q, c.T, c.epsilon)
                if c.q >= 1.0:
                    lo = max(lo, float(gdp_delta_mp(c.epsilon, math.sqrt(c.T) / c.sigma)) * (1 - _MARGIN))
                out.lower = lo
            elif c.query == "calibrate_noise":
                cr = A.calibrate_noise(target_epsilon=c.epsilon, delta=c.delta, sample_rate=c.q, steps=c.T, accountant=c.accountant)
                again = float(A.epsilon(noise_multiplier=cr.noise_multiplier, sample_rate=c.q, steps=c.T, delta=c.delta,
                                        accountant=c.accountant).epsilon)
                out.value = c.epsilon  # the guarantee claimed: epsilon <= target at the returned noise
                out.lower = max(lower_epsilon(cr.noise_multiplier, c.q, c.T, c.delta), again)
                out.message = f"noise_multiplier={cr.noise_multiplier!r}, epsilon there {again!r}"
            elif c.query == "max_steps":
                mr = A.max_steps(target_epsilon=c.epsilon, delta=c.delta, noise_multiplier=c.sigma, sample_rate=c.q,
                                 accountant=c.accountant)
                again = float(A.epsilon(noise_multiplier=c.sigma, sample_rate=c.q, steps=mr.steps, delta=c.delta,
                                        accountant=c.accountant).epsilon) if mr.steps else 0.0
                out.value = c.epsilon
                out.lower = max(lower_epsilon(c.sigma, c.q, mr.steps, c.delta) if mr.steps else 0.0, again)
                out.message = f"steps={mr.steps}, epsilon there {again!r}"
            elif c.query == "odometer":
                v = A.odometer(noise_multiplier=c.sigma, sample_rate=c.q, steps=c.T, delta=c.delta, accountant=c.accountant, at=[c.T])
                out.value = float(np.asarray(v).ravel()[-1])
                out.lower = lower_epsilon(c.sigma, c.q, c.T, c.delta)
            elif c.query == "rdp_odometer":
                odo = A.RDPOdometer(device="cpu")
                odo.step(c.sigma, c.q, steps=c.T)
                out.value = float(odo.epsilon(c.delta))
                out.lower = lower_epsilon(c.sigma, c.q, c.T, c.delta)
            elif c.query == "opacus":
                from ..accountants.opacus_adapter import SymdpAccountant

                acc = SymdpAccountant(accountant=c.accountant)
                acc.history = [(c.sigma, c.q, c.T)]
                out.value = float(acc.get_epsilon(c.delta))
                out.lower = lower_epsilon(c.sigma, c.q, c.T, c.delta)
            else:
                raise ValueError(f"query={c.query!r}")
    except Timeout:
        out.status, out.message = "hang", f"no answer within {seconds} s"
        return _timed(out, t0)
    except SymdpError as exc:
        out.status, out.message = "documented_error", f"{type(exc).__name__}: {exc}"
        return _timed(out, t0)
    except Exception as exc:  # noqa: BLE001 - anything else is a crash, recorded with its type
        out.status, out.message = "crash", f"{type(exc).__name__}: {exc}"
        return _timed(out, t0)
    if math.isnan(out.value) or (math.isinf(out.value) and math.isfinite(out.lower)):
        out.status = "infinite"
    elif out.value < out.lower:
        out.status = "below"
    return _timed(out, t0)


def _clt_labelled(out: Outcome, r: Any) -> Outcome:
    """The CLT accountant is held to its label, not to a bound: it must say it is no upper bound."""
    if r.is_upper_bound or not r.approximation:
        out.status, out.message = "unlabelled_approximation", "clt must say it is not an upper bound"
    return out


def _timed(out: Outcome, t0: float) -> Outcome:
    import time

    out.seconds = time.perf_counter() - t0
    return out


# ---------------------------------------------------------------- oracles of the accountants' library entries
# Each oracle evaluates the TRUE quantity from its definition (densities, expectations by quadrature,
# inverse by bisection) and carries an ``exact`` closed form DERIVED in SymPy (density ratio, Gaussian
# integrals, solving the loss equation), so the verifier proves the library's formula against it.

_zs = sp.Symbol("z", real=True)


def _phi_sym(u: sp.Expr, s: sp.Expr) -> sp.Expr:
    return sp.exp(-u**2 / (2 * s**2)) / (sp.sqrt(2 * sp.pi) * s)


def _mp(v: Any) -> mpmath.mpf:
    return mpmath.mpf(str(v)) if not isinstance(v, mpmath.mpf) else v


def sgm_privacy_loss(*, q: Any, sigma: Any, x: Any, **_: Any) -> mpmath.mpf:
    """log dP/dQ(x) of one DP-SGD step, P = (1-q)N(0,s^2) + qN(1,s^2), Q = N(0,s^2), from the densities."""
    qq, s, xx = _mp(q), _mp(sigma), _mp(x)
    return mpmath.log((1 - qq) * mpmath.npdf(xx, 0, s) + qq * mpmath.npdf(xx, 1, s)) - mpmath.log(mpmath.npdf(xx, 0, s))


def sgm_privacy_loss_exact(*, q: Any, sigma: Any, x: Any, **_: Any) -> sp.Expr:
    """The log density ratio, built from the two Gaussian densities (SymPy)."""
    qq, s, xx = (sp.sympify(v) for v in (q, sigma, x))
    return sp.log(((1 - qq) * _phi_sym(xx, s) + qq * _phi_sym(xx - 1, s)) / _phi_sym(xx, s))


register(Oracle(
    "sgm_privacy_loss", sgm_privacy_loss, "value", ("q", "sigma", "x"),
    "privacy loss log dP/dQ(x) of one Poisson-subsampled Gaussian step (remove direction), from the densities",
    rtol="1e-30", exact=sgm_privacy_loss_exact,
    exact_note="log(((1-q) phi_s(x) + q phi_s(x-1)) / phi_s(x)), the definition of the privacy loss"))


def sgm_privacy_loss_inverse(*, ell: Any, q: Any, sigma: Any, **_: Any) -> mpmath.mpf:
    """The x with L(x) = ell (L increasing), by bisection on the loss computed from the densities."""
    e = _mp(ell)
    lo, hi = mpmath.mpf(-1), mpmath.mpf(1)
    while sgm_privacy_loss(q=q, sigma=sigma, x=lo) > e:
        lo *= 2
    while sgm_privacy_loss(q=q, sigma=sigma, x=hi) < e:
        hi *= 2
    for _it in range(mpmath.mp.prec + 20):
        mid = (lo + hi) / 2
        if sgm_privacy_loss(q=q, sigma=sigma, x=mid) < e:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def sgm_privacy_loss_inverse_exact(*, ell: Any, q: Any, sigma: Any, **_: Any) -> sp.Expr | None:
    """Solve ``e^ell = 1 - q + q e^{(2x-1)/(2 s^2)}`` for x with SymPy; the solution is checked by substitution."""
    e, qq, s = (sp.sympify(v) for v in (ell, q, sigma))
    xs = sp.Symbol("x", real=True)
    sols = sp.solve(sp.Eq(sp.exp(e), 1 - qq + qq * sp.exp((2 * xs - 1) / (2 * s**2))), xs)
    for sol in sols:
        if sp.simplify(sp.log(1 - qq + qq * sp.exp((2 * sol - 1) / (2 * s**2))) - e) == 0:
            return sol
    return None


register(Oracle(
    "sgm_privacy_loss_inverse", sgm_privacy_loss_inverse, "value", ("ell", "q", "sigma"),
    "inverse of the privacy loss of one Poisson-subsampled Gaussian step (bisection on the density ratio)",
    rtol="1e-9", exact=sgm_privacy_loss_inverse_exact,
    exact_note="SymPy solves e^ell = 1 - q + q e^((2x-1)/(2 sigma^2)) for x (checked by substituting back); the loss is "
               "increasing in x, so L(x) > ell iff x > x_star(ell)"))


def _gauss_mgf_integral(k: sp.Expr, s: sp.Expr, lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
    r"""``int_lo^hi phi_s(z) e^{k(2z-1)/(2 s^2)} dz`` in closed form: the square is completed (checked by SymPy)
    and the remaining Gaussian integral is done by SymPy."""
    expo = -_zs**2 / (2 * s**2) + k * (2 * _zs - 1) / (2 * s**2)
    completed = -(_zs - k) ** 2 / (2 * s**2) + (k**2 - k) / (2 * s**2)
    if sp.simplify(sp.expand(expo - completed)) != 0:  # pragma: no cover - algebra
        raise AssertionError("completing the square failed")
    u = sp.Symbol("u", real=True)
    inner = sp.integrate(_phi_sym(u, s), (u, lo - k if lo != -sp.oo else -sp.oo, hi - k if hi != sp.oo else sp.oo))
    return sp.exp((k**2 - k) / (2 * s**2)) * inner


def _log_gauss_mgf_integral(k: sp.Expr, s: sp.Expr, lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
    """``log`` of :func:`_gauss_mgf_integral` as ``(k^2 - k)/(2 s^2) + log(Gaussian mass)`` (both factors positive)."""
    full = _gauss_mgf_integral(k, s, lo, hi)
    c = (k**2 - k) / (2 * s**2)
    mass = sp.simplify(full * sp.exp(-c))
    # the same mass written with erfc of the outer end (no cancellation in the far tails), checked equal to SymPy's
    stable = None
    if lo == -sp.oo and hi != sp.oo:
        stable = sp.erfc(-(hi - k) / (sp.sqrt(2) * s)) / 2
    elif hi == sp.oo and lo != -sp.oo:
        stable = sp.erfc((lo - k) / (sp.sqrt(2) * s)) / 2
    if stable is not None and sp.simplify((mass - stable).rewrite(sp.erf)) == 0:
        mass = stable
    return c + sp.log(mass)


# quadrature oracles are costly: fewer random cases than the default (the closed forms carry the proofs)
for _name in ("sgm_rdp_term", "sgm_rdp_excess_term", "sgm_rdp_frac_term1", "sgm_rdp_frac_term2", "sgm_privacy_loss_inverse"):
    BUDGET.setdefault(_name, (24, 200))
    REFINE.setdefault(_name, (0, 5))


def _log_binom_sym(a: sp.Expr, k: sp.Expr) -> sp.Expr:
    return sp.loggamma(a + 1) - sp.loggamma(k + 1) - sp.loggamma(a - k + 1)


def _quad_mgf(k: mpmath.mpf, s: mpmath.mpf, lo: Any, hi: Any) -> mpmath.mpf:
    """``int_lo^hi phi_s(z) e^{k(2z-1)/(2s^2)} dz`` by quadrature of the integrand as written (no completed square);
    break points at the peak ``z = k`` and, near a finite end, at a few widths from it."""
    f = lambda z: mpmath.npdf(z, 0, s) * mpmath.exp(k * (2 * z - 1) / (2 * s * s))  # noqa: E731
    cand = [k - 10 * s, k - 2 * s, k, k + 2 * s, k + 10 * s]
    for end, sgn in ((lo, 1), (hi, -1)):
        if end in (-mpmath.inf, mpmath.inf):
            continue
        w = s / max(1, abs(end - k) / s)  # decay length of the integrand at that end
        cand += [end + sgn * c * w for c in (mpmath.mpf(1) / 8, mpmath.mpf(1) / 2, 1, 2, 4, 8, 16, 32, 64)]
    inner = sorted(p for p in cand if (lo == -mpmath.inf or p > lo) and (hi == mpmath.inf or p < hi))
    return mpmath.quad(f, [lo, *inner, hi])


def sgm_rdp_term(*, alpha: Any, j: Any, q: Any, sigma: Any, _lhs: str = "", **_: Any) -> mpmath.mpf:
    """log of binom(alpha, j) (1-q)^(alpha-j) q^j E_{z~N(0,s^2)}[(mu1/mu0)^j(z)], the expectation by quadrature."""
    a, k, qq, s = _mp(alpha), _mp(j), _mp(q), _mp(sigma)
    return (mpmath.log(mpmath.binomial(a, k)) + (a - k) * mpmath.log(1 - qq) + k * mpmath.log(qq)
            + mpmath.log(_quad_mgf(k, s, -mpmath.inf, mpmath.inf)))


def sgm_rdp_term_exact(*, alpha: Any, j: Any, q: Any, sigma: Any, **_: Any) -> sp.Expr:
    a, k, qq, s = (sp.sympify(v) for v in (alpha, j, q, sigma))
    return _log_binom_sym(a, k) + (a - k) * sp.log(1 - qq) + k * sp.log(qq) + sp.log(_gauss_mgf_integral(k, s, -sp.oo, sp.oo))


register(Oracle(
    "sgm_rdp_term", sgm_rdp_term, "value", ("alpha", "j", "q", "sigma"),
    "log of the j-th binomial term of A_alpha = E_{mu0}[((1-q) + q mu1/mu0)^alpha] (integer alpha), expectation by quadrature",
    rtol="1e-9", exact=sgm_rdp_term_exact,
    exact_note="binomial expansion of ((1-q) + q mu1/mu0)^alpha; E_{mu0}[(mu1/mu0)^j] = e^((j^2-j)/(2 sigma^2)) (Gaussian "
               "integral, SymPy) [Mironov, Talwar, Zhang 2019, Sec. 3.3]"))


def sgm_rdp_excess_term(*, alpha: Any, j: Any, q: Any, sigma: Any, **_: Any) -> mpmath.mpf:
    """log of binom(alpha, j)(1-q)^(alpha-j) q^j (E_{mu0}[(mu1/mu0)^j] - 1), the expectation by quadrature."""
    a, k, qq, s = _mp(alpha), _mp(j), _mp(q), _mp(sigma)
    return (mpmath.log(mpmath.binomial(a, k)) + (a - k) * mpmath.log(1 - qq) + k * mpmath.log(qq)
            + mpmath.log(_quad_mgf(k, s, -mpmath.inf, mpmath.inf) - 1))


def sgm_rdp_excess_term_exact(*, alpha: Any, j: Any, q: Any, sigma: Any, **_: Any) -> sp.Expr:
    a, k, qq, s = (sp.sympify(v) for v in (alpha, j, q, sigma))
    return (_log_binom_sym(a, k) + (a - k) * sp.log(1 - qq) + k * sp.log(qq)
            + sp.log(_gauss_mgf_integral(k, s, -sp.oo, sp.oo) - 1))


register(Oracle(
    "sgm_rdp_excess_term", sgm_rdp_excess_term, "value", ("alpha", "j", "q", "sigma"),
    "log of the j-th term of A_alpha - 1 (integer alpha, j >= 2), expectation by quadrature",
    rtol="1e-9", exact=sgm_rdp_excess_term_exact,
    exact_note="sum_j binom(alpha, j)(1-q)^(alpha-j) q^j = 1 (binomial theorem), so A_alpha - 1 = sum_j binom(.)(1-q)^(alpha-j)"
               " q^j (E[(mu1/mu0)^j] - 1), and the j = 0, 1 terms vanish (E[(mu1/mu0)^j] = 1 there)"))


def _z0(qq: Any, s: Any) -> Any:
    return s * s * (mpmath.log(1 / qq - 1) if isinstance(qq, mpmath.mpf) else sp.log(1 / qq - 1)) + (mpmath.mpf(1) / 2 if isinstance(qq, mpmath.mpf) else sp.Rational(1, 2))


def sgm_rdp_frac_term1(*, alpha: Any, j: Any, q: Any, sigma: Any, **_: Any) -> mpmath.mpf:
    """log of (1-q)^(alpha-i) q^i int_{-inf}^{z0} mu0 (mu1/mu0)^i (i = j), by quadrature."""
    a, k, qq, s = _mp(alpha), _mp(j), _mp(q), _mp(sigma)
    return (a - k) * mpmath.log(1 - qq) + k * mpmath.log(qq) + mpmath.log(_quad_mgf(k, s, -mpmath.inf, _z0(qq, s)))


def sgm_rdp_frac_term1_exact(*, alpha: Any, j: Any, q: Any, sigma: Any, **_: Any) -> sp.Expr:
    a, k, qq, s = (sp.sympify(v) for v in (alpha, j, q, sigma))
    return (a - k) * sp.log(1 - qq) + k * sp.log(qq) + _log_gauss_mgf_integral(k, s, -sp.oo, _z0(qq, s))


def sgm_rdp_frac_term2(*, alpha: Any, j: Any, q: Any, sigma: Any, **_: Any) -> mpmath.mpf:
    """log of (1-q)^i q^(alpha-i) int_{z0}^{inf} mu0 (mu1/mu0)^(alpha-i) (i = j), by quadrature."""
    a, k, qq, s = _mp(alpha), _mp(j), _mp(q), _mp(sigma)
    return k * mpmath.log(1 - qq) + (a - k) * mpmath.log(qq) + mpmath.log(_quad_mgf(a - k, s, _z0(qq, s), mpmath.inf))


def sgm_rdp_frac_term2_exact(*, alpha: Any, j: Any, q: Any, sigma: Any, **_: Any) -> sp.Expr:
    a, k, qq, s = (sp.sympify(v) for v in (alpha, j, q, sigma))
    return k * sp.log(1 - qq) + (a - k) * sp.log(qq) + _log_gauss_mgf_integral(a - k, s, _z0(qq, s), sp.oo)


_FRAC_NOTE = ("A_alpha = int mu0 ((1-q) + q mu1/mu0)^alpha split at z0 = 1/2 + sigma^2 log(1/q - 1), where q mu1 = (1-q) mu0; "
              "below z0 the binomial series in q mu1/((1-q) mu0) < 1 converges (A_1), above z0 the series in its inverse (A_2); "
              "each term's Gaussian integral over the half-line by SymPy [Mironov, Talwar, Zhang 2019, Sec. 3.3]")
register(Oracle(
    "sgm_rdp_frac_term1", sgm_rdp_frac_term1, "value", ("alpha", "j", "q", "sigma"),
    "log of the i-th term of A_1 (fractional alpha), half-line integral by quadrature", rtol="1e-9",
    exact=sgm_rdp_frac_term1_exact, exact_note=_FRAC_NOTE))
register(Oracle(
    "sgm_rdp_frac_term2", sgm_rdp_frac_term2, "value", ("alpha", "j", "q", "sigma"),
    "log of the i-th term of A_2 (fractional alpha), half-line integral by quadrature", rtol="1e-9",
    exact=sgm_rdp_frac_term2_exact, exact_note=_FRAC_NOTE))


__all__ = [
    "ACCOUNTANTS_CHECKED", "Case", "Outcome", "QUERIES", "lower_epsilon", "run_case", "gdp_delta_mp", "gdp_epsilon_lower_mp", "sgm_delta_mp", "sgm_epsilon_lower_mp", "sum_test_delta_lower",
    "sum_test_epsilon_lower",
]
