"""Trade-off (f-DP) oracles and one subsampled-Gaussian step: trade-off functions of finite pairs and
their composition, the Gaussian and subsampled-Gaussian trade-offs, the hockey-stick divergence of one
subsampled-Gaussian step by quadrature, and the Renyi divergence of the Gaussian mechanism.  Registered in
:mod:`.registry`; :mod:`.oracles` re-exports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mpmath
import sympy as sp

from ..errors import InvalidParameterError, UnsupportedError
from ..numeric import ncdf_same_bits
from .oracles_pairs import Phi, Phi_inv, _mpf, _npdf_same_bits, kov_pair
from .registry import Oracle, register

# ---------------------------------------------------------------------------
# f-DP trade-off functions
# ---------------------------------------------------------------------------


def tradeoff_of_pair(P: Sequence[Any], Q: Sequence[Any], alpha: Any) -> mpmath.mpf:
    r"""Trade-off function :math:`T(P, Q)(\alpha)`: the smallest type-II error of a (randomised)
    test of P vs Q with type-I error at most alpha (Neyman-Pearson: reject where Q/P is largest)."""
    a = _mpf(alpha)
    atoms = sorted(zip(P, Q), key=lambda pq: -(mpmath.inf if pq[0] == 0 else pq[1] / pq[0]))
    budget = a
    power = mpmath.mpf(0)
    for p, qq in atoms:
        if p <= budget:
            budget -= p
            power += qq
        else:
            power += qq * budget / p
            budget = mpmath.mpf(0)
            break
    return max(mpmath.mpf(0), 1 - power)


def compose_pairs(pairs: Sequence[tuple[Sequence[Any], Sequence[Any]]]):
    """Product distributions of independent discrete pairs (support sizes multiply)."""
    P, Q = [mpmath.mpf(1)], [mpmath.mpf(1)]
    for p2, q2 in pairs:
        P = [a * b for a in P for b in p2]
        Q = [a * b for a in Q for b in q2]
    return P, Q


def tradeoff_dp_composition(*, epsilon: Any, delta: Any = 0, T: Any = 1, alpha: Any, **_: Any) -> mpmath.mpf:
    r"""Trade-off function of the T-fold composition of :math:`f_{\varepsilon,\delta}` at alpha,
    computed from the product of KOV pairs (exact, small T)."""
    Ti = int(T)
    if Ti > 12:
        raise UnsupportedError(f"T={T!r}: tradeoff_dp_composition enumerates 4^T atoms; T <= 12")
    P, Q = compose_pairs([kov_pair(epsilon, delta)] * Ti)
    return tradeoff_of_pair(P, Q, alpha)


def gaussian_tradeoff(*, mu: Any, alpha: Any, **_: Any) -> mpmath.mpf:
    r""":math:`G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)`."""
    a = _mpf(alpha)
    if a <= 0:
        return mpmath.mpf(1)
    if a >= 1:
        return mpmath.mpf(0)
    z = -mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)  # Phi^{-1}(1 - a)
    return ncdf_same_bits(z - _mpf(mu))  # mpmath.ncdf's bits without its wrapper (symdp.numeric)


register(
    Oracle(
        "tradeoff_dp_composition",
        tradeoff_dp_composition,
        "value",
        ("epsilon", "alpha"),
        "trade-off function of T composed f_{eps,delta} (exact, product of KOV pairs, T <= 12)",
    )
)
def gaussian_tradeoff_exact(*, mu: Any, alpha: Any, **_: Any) -> sp.Expr:
    """:func:`gaussian_tradeoff` in closed form (SymPy), for 0 < alpha < 1."""
    return Phi(Phi_inv(1 - sp.sympify(alpha)) - sp.sympify(mu))


register(Oracle("gaussian_tradeoff", gaussian_tradeoff, "value", ("mu", "alpha"), "G_mu(alpha) = Phi(Phi^-1(1-alpha) - mu)",
                exact=gaussian_tradeoff_exact,
                exact_note="G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu) (0 < alpha < 1), Phi^-1(u) = sqrt(2) erfinv(2u - 1)"))




# ---------------------------------------------------------------------------
# one subsampled-Gaussian step: hockey-stick by quadrature; subsampled trade-off
# ---------------------------------------------------------------------------


def _first_sign_change(g: Any, lo: int, hi: int) -> tuple[Any, Any]:
    """``(k, k + 1)``: the first grid cell of ``lo..hi`` where the sign of ``g(k) > 0`` changes, found by bisection, or
    ``(sign, None)`` where the two ends agree.  The same cell as the left-to-right scan this replaced wherever the
    computed signs are monotone in ``k``: :func:`sgm_hockey_stick`'s ``g = P - e^eps Q`` has the sign of the
    likelihood ratio ``P/Q`` (monotone in x) minus ``e^eps``, which rounding can flip only within rounding distance of
    the root, i.e. at one grid point at most (tests/test_sgm_hockey_scan.py compares with the full scan)."""
    s_lo, s_hi = g(lo) > 0, g(hi) > 0
    if s_lo == s_hi:
        return s_lo, None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if (g(mid) > 0) == s_lo:
            lo = mid
        else:
            hi = mid
    return lo, hi


def sgm_hockey_stick(*, q: Any, sigma: Any, epsilon: Any, direction: str = "remove", **_: Any) -> mpmath.mpf:
    r"""Hockey-stick divergence :math:`\int (p - e^\varepsilon q)_+` of one Poisson-subsampled Gaussian
    step (sensitivity 1) by adaptive quadrature, split at the root of the privacy loss (found numerically).

    ``direction="remove"``: P = (1-q)N(0,s^2) + qN(1,s^2), Q = N(0,s^2); ``"add"``: the reverse.
    """
    qq, s, e = _mpf(q), _mpf(sigma), _mpf(epsilon)
    ee = mpmath.exp(e)

    pdf0, pdf1 = _npdf_same_bits(0, s), _npdf_same_bits(1, s)  # mpmath.npdf(x, m, s): same bits
    if direction not in ("remove", "add"):
        raise InvalidParameterError(f"direction={direction!r} must be 'add' or 'remove'")
    remove = direction == "remove"

    def g(x):
        # P(x) - e^eps Q(x) with the mixture (1 - q) N(0, s^2) + q N(1, s^2) as P (remove) or Q (add); N(0, s^2)'s
        # density, a factor of both sides, is computed once (the same value each side computed)
        p0 = pdf0(x)
        mix = (1 - qq) * p0 + qq * pdf1(x)
        return mix - ee * p0 if remove else p0 - ee * mix

    # g changes sign once (the loss is monotone in x): bracket the root on a wide grid, x_k = k s/4 + 1/2 for
    # |k| <= 400, by bisection over k (~10 evaluations of g, not 801)
    a, b = _first_sign_change(lambda k: g(mpmath.mpf(k) / 4 * s + mpmath.mpf(1) / 2), -400, 400)
    if b is None:
        if a:  # g > 0 on the whole grid
            return mpmath.quad(g, [-mpmath.inf, mpmath.inf])
        return mpmath.mpf(0)
    root = mpmath.findroot(g, (mpmath.mpf(a) / 4 * s + mpmath.mpf(1) / 2, mpmath.mpf(b) / 4 * s + mpmath.mpf(1) / 2),
                           solver="anderson")
    if direction == "remove":
        return mpmath.quad(g, [root, root + 20 * s, mpmath.inf])
    return mpmath.quad(g, [-mpmath.inf, root - 20 * s, root])


def sgm_hockey_stick_exact(*, q: Any, sigma: Any, epsilon: Any, direction: str = "remove", **_: Any) -> sp.Expr | None:
    r"""Closed form of :func:`sgm_hockey_stick` for ``direction="remove"`` (SymPy): the loss exceeds eps exactly
    for :math:`x > x_0 = \sigma^2\log((e^arepsilon - 1 + q)/q) + 1/2`, so the hockey-stick is
    :math:`(1-q)\Phi(-x_0/\sigma) + q\Phi((1 - x_0)/\sigma) - e^arepsilon\Phi(-x_0/\sigma)`.  None for "add"."""
    if direction != "remove":
        return None
    qq, s, e = (sp.sympify(v) for v in (q, sigma, epsilon))
    x0 = s**2 * sp.log((sp.exp(e) - 1 + qq) / qq) + sp.Rational(1, 2)
    return (1 - qq) * Phi(-x0 / s) + qq * Phi((1 - x0) / s) - sp.exp(e) * Phi(-x0 / s)


def sgm_pld_exact(*, _lhs: str = "", **kw: Any) -> sp.Expr | None:
    direction = "add" if "add" in _lhs.lower() else "remove"
    return sgm_hockey_stick_exact(direction=direction, **kw)


def sgm_pld(*, _lhs: str = "", **kw: Any) -> mpmath.mpf:
    """Value oracle of one subsampled-Gaussian step's hockey-stick; the direction comes from the
    quantity's name (``..._add`` / ``..._remove``)."""
    direction = "add" if "add" in _lhs.lower() else "remove"
    return sgm_hockey_stick(direction=direction, **kw)


register(
    Oracle(
        "sgm_pld",
        sgm_pld,
        "value",
        ("q", "sigma", "epsilon"),
        "hockey-stick divergence of one Poisson-subsampled Gaussian step (quadrature), add or remove",
        rtol="1e-12",
        exact=sgm_pld_exact,
        exact_note="remove direction: the privacy loss is increasing in x and exceeds eps for x > x0 = "
        "sigma^2 log((e^eps - 1 + q)/q) + 1/2, so H = (1-q) Phi(-x0/sigma) + q Phi((1-x0)/sigma) - e^eps Phi(-x0/sigma)",
    )
)


def subsampled_gaussian_tradeoff(*, p: Any, mu: Any, alpha: Any, **_: Any) -> mpmath.mpf:
    r"""Trade-off :math:`T(N(0,1), (1-p)N(0,1) + pN(\mu,1))(\alpha)`: the Neyman-Pearson test rejects for
    :math:`x > t`, :math:`t = \Phi^{-1}(1 - \alpha)`; type-II error is the mixture's mass below t,
    ``(1 - p) ncdf(t) + p ncdf(t - mu)`` (mpmath's ncdf: erfc with guard bits, within an ulp or so, so at least as
    accurate as the quadrature of the mixture's density this oracle computed until session 33,
    :func:`subsampled_gaussian_tradeoff_quadrature`, the tests' reference for it)."""
    a, pp, m = _mpf(alpha), _mpf(p), _mpf(mu)
    t = -mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)
    return (1 - pp) * mpmath.ncdf(t) + pp * mpmath.ncdf(t - m)


def subsampled_gaussian_tradeoff_quadrature(*, p: Any, mu: Any, alpha: Any, **_: Any) -> mpmath.mpf:
    """:func:`subsampled_gaussian_tradeoff` with the mixture's mass below t integrated numerically."""
    a, pp, m = _mpf(alpha), _mpf(p), _mpf(mu)
    t = -mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)
    f = lambda x: (1 - pp) * mpmath.npdf(x) + pp * mpmath.npdf(x, m)  # noqa: E731
    return mpmath.quad(f, [-mpmath.inf, min(t, m) - 1, t])


def subsampled_gaussian_tradeoff_exact(*, p: Any, mu: Any, alpha: Any, **_: Any) -> sp.Expr:
    """:func:`subsampled_gaussian_tradeoff` in closed form (SymPy): the mixture's mass below the
    Neyman-Pearson threshold ``t = Phi^-1(1 - alpha)``, ``(1 - p) Phi(t) + p Phi(t - mu)``."""
    t = Phi_inv(1 - sp.sympify(alpha))
    pp = sp.sympify(p)
    return (1 - pp) * Phi(t) + pp * Phi(t - sp.sympify(mu))


register(
    Oracle(
        "subsampled_gaussian_tradeoff",
        subsampled_gaussian_tradeoff,
        "value",
        ("p", "mu", "alpha"),
        "trade-off function of one Poisson-subsampled Gaussian (mu) step (normal CDFs; tests check it against quadrature)",
        rtol="1e-12",
        exact=subsampled_gaussian_tradeoff_exact,
        exact_note="the likelihood ratio of (1-p)N(0,1) + pN(mu,1) to N(0,1) increases in x, so the Neyman-Pearson test "
        "at level alpha rejects for x > t = Phi^-1(1 - alpha); its type-II error is the mixture's mass below t, "
        "(1 - p) Phi(t) + p Phi(t - mu)",
    )
)

# ---------------------------------------------------------------------------
# Renyi divergence of the Gaussian mechanism (quadrature)
# ---------------------------------------------------------------------------


def gaussian_rdp(*, alpha: Any, sigma: Any, Delta: Any = 1, **_: Any) -> mpmath.mpf:
    r""":math:`D_\alpha(N(\Delta, \sigma^2) \| N(0, \sigma^2)) = \alpha\Delta^2/(2\sigma^2)` at the working precision.

    The closed form is exact: in :math:`\alpha \log p + (1 - \alpha)\log q` the square completes to
    :math:`-(x - \alpha\Delta)^2/(2\sigma^2) + \alpha(\alpha - 1)\Delta^2/(2\sigma^2)` (a polynomial identity,
    checked by SymPy in tests/test_oracle_gaussian_rdp_closed.py), so :math:`\int p^\alpha q^{1-\alpha} =
    e^{\alpha(\alpha-1)\Delta^2/(2\sigma^2)}` exactly.  Four correctly rounded operations: within a few ulps of the
    truth, at least as accurate as the adaptive quadrature of the definition this oracle computed until session 33
    (:func:`gaussian_rdp_quadrature`, ~1300 integrand evaluations a value, 0.04-0.3 s; the tests compare the two at
    random and extreme points)."""
    a, s, m = _mpf(alpha), _mpf(sigma), _mpf(Delta)
    if a <= 1:
        raise InvalidParameterError(f"alpha={alpha!r} must be > 1")
    if s <= 0:
        raise InvalidParameterError(f"sigma={sigma!r} must be > 0")
    return a * m * m / (2 * s * s)


def gaussian_rdp_quadrature(*, alpha: Any, sigma: Any, Delta: Any = 1, **_: Any) -> mpmath.mpf:
    r""":math:`D_\alpha(N(\Delta, \sigma^2) \| N(0, \sigma^2)) = \frac{1}{\alpha - 1}\log\int p^\alpha q^{1-\alpha}`
    by adaptive quadrature of the integrand itself (no completed square), split around its peak
    :math:`x = \alpha\Delta`: the definition, computed independently of :func:`gaussian_rdp`'s closed form (the
    tests' reference for it)."""
    a, s, m = _mpf(alpha), _mpf(sigma), _mpf(Delta)
    if a <= 1:
        raise InvalidParameterError(f"alpha={alpha!r} must be > 1")
    if s <= 0:
        raise InvalidParameterError(f"sigma={sigma!r} must be > 0")
    lp = lambda x: -((x - m) ** 2) / (2 * s * s)  # noqa: E731  (log densities up to the common constant)
    lq = lambda x: -(x * x) / (2 * s * s)  # noqa: E731
    c = a * m  # the integrand's peak
    shift = a * lp(c) + (1 - a) * lq(c)  # factor out the peak value (exp of a large number)
    f = lambda x: mpmath.exp(a * lp(x) + (1 - a) * lq(x) - shift) / (mpmath.sqrt(2 * mpmath.pi) * s)  # noqa: E731
    pts = [c + k * s for k in (-40, -8, -2, 0, 2, 8, 40)]
    integral = mpmath.quad(_same_bits_integrand(f, a, s, m, shift), [-mpmath.inf, *pts, mpmath.inf])
    return (mpmath.log(integral) + shift) / (a - 1)


def _same_bits_integrand(f: Any, a: mpmath.mpf, s: mpmath.mpf, m: mpmath.mpf, shift: mpmath.mpf) -> Any:
    """:func:`gaussian_rdp_quadrature`'s integrand ``f`` with the same operations in the same order at the same precision and
    rounding (so the same bits), on mpmath's low-level mpf functions with the point-free factors (``2 s^2``,
    ``1 - alpha``, ``sqrt(2 pi) s``) computed once per working precision: ``f`` itself spent most of the oracle's
    time in mpf object overhead (about 1300 calls per quadrature).  A non-mpf node goes to ``f``."""
    from mpmath.libmp import mpf_add, mpf_div, mpf_exp, mpf_mul, mpf_neg, mpf_pow_int, mpf_sub

    ctx = mpmath.mp
    av, mv, shv = a._mpf_, m._mpf_, shift._mpf_
    consts: dict[int, tuple[Any, Any, Any]] = {}

    def g(x: Any) -> Any:
        if type(x) is not ctx.mpf:
            return f(x)
        prec, rnd = ctx._prec_rounding
        k = consts.get(prec)
        if k is None:  # exactly f's subexpressions, at this precision
            k = consts[prec] = ((2 * s * s)._mpf_, (1 - a)._mpf_, (mpmath.sqrt(2 * mpmath.pi) * s)._mpf_)
        ss2, oma, den = k
        xv = x._mpf_
        lpx = mpf_div(mpf_neg(mpf_pow_int(mpf_sub(xv, mv, prec, rnd), 2, prec, rnd), prec, rnd), ss2, prec, rnd)
        lqx = mpf_div(mpf_neg(mpf_mul(xv, xv, prec, rnd), prec, rnd), ss2, prec, rnd)
        e = mpf_sub(mpf_add(mpf_mul(av, lpx, prec, rnd), mpf_mul(oma, lqx, prec, rnd), prec, rnd), shv, prec, rnd)
        return ctx.make_mpf(mpf_div(mpf_exp(e, prec, rnd), den, prec, rnd))

    return g


register(
    Oracle(
        "gaussian_rdp",
        gaussian_rdp,
        "value",
        ("alpha", "sigma"),
        "Renyi divergence D_alpha(N(Delta, s^2) || N(0, s^2)), closed form alpha Delta^2/(2 s^2) (tests check it against "
        "quadrature of the definition)",
        rtol="1e-15",
        exact=lambda *, alpha, sigma, Delta=1, **_: sp.sympify(alpha) * sp.sympify(Delta) ** 2 / (2 * sp.sympify(sigma) ** 2),
        exact_note="D_alpha(N(Delta, s^2) || N(0, s^2)) = alpha Delta^2/(2 s^2) (complete the square in the integrand)",
    )
)
