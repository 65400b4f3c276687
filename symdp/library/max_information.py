r"""Max-information, PAC-Bayes-kl and the Gaussian mechanism: Lampert and Zakerinia,
"From privacy to generalization: linear max-information bounds for DP-SGD" (Lampert and Zakerinia, 2026)
and the cited results it builds on.

Every formula of Lampert and Zakerinia's own results was lost in our copy: its Thm 1, Prop 1, Lemma 6, Thm 2 and
Cor 3 are recorded with ``formula_available=False`` and what the text still states (hypotheses,
"at most linear in n", fixed-size disjoint batches, clipping C, noise sigma, E epochs).  The cited
results come from ``seeds/NOTES.md``:

* ``dwork2015.*``: Dwork, Feldman, Hardt, Pitassi, Reingold, Roth (2015), "Generalization in
  adaptive data analysis and holdout reuse" (Lampert and Zakerinia's "Dwork et al. 2015b"); there ``log`` is base 2,
  so max-information is in **bits**;
* ``pacbayes.*``: the PAC-Bayes-kl bound (Seeger 2002; Maurer 2004), the binary kl, its inversion
  (:class:`KLInverse`, numerically :func:`kl_inverse`), Pinsker's relaxation, and the
  data-dependent-prior penalty (Dziugaite and Roy 2018; Rivasplata et al. 2020, Lemma 7), in **nats**;
* ``balle2018.gaussian_profile``: the exact privacy profile of the Gaussian mechanism
  (Balle and Wang 2018, Thm 8).

>>> round(kl_inverse(0.1, 0.05), 6)
0.220079
>>> from symdp.library import get
>>> float(get("pacbayes.kl_inverse").evaluate(L_S=0.1, c_kl=0.05)) >= 0.2063
True
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ..errors import ConvergenceError
from ..symbols import C, Delta, E, beta, delta, eps, k, n, sigma
from ..theorem import Kind, Property, theorem
from ..validation import check_real
from ._sources import CLASSICAL, LAMPERT, src

# --------------------------------------------------------------------------------------------
# symbols
# --------------------------------------------------------------------------------------------
#: pure / beta-approximate max-information in bits (Dwork et al.'s base-2 log)
I_inf_bits = sp.Symbol("I_inf_bits", nonnegative=True)
I_inf_beta_bits = sp.Symbol("I_inf_beta_bits", real=True)
#: event probabilities of Dwork et al. Thm 13 / Def: P[(S, A(S)) in O] and P[S x A(S) in O]
P_O = sp.Symbol("P_O", nonnegative=True)
P_O_prod = sp.Symbol("P_Oprod", nonnegative=True)
#: empirical and true risk of a posterior Q (losses in [0, 1])
L_S = sp.Symbol("L_S", nonnegative=True)
L_D = sp.Symbol("L_D", nonnegative=True)
#: KL(Q || P) between PAC-Bayes posterior and prior (nats)
KL_QP = sp.Symbol("KL_QP", nonnegative=True)
#: the budget c in kl(q || p) <= c
c_kl = sp.Symbol("c_kl", nonnegative=True)
#: name of kl^{-1}(q, c) and of the binary kl
kl_inv = sp.Symbol("kl_inv", nonnegative=True)
kl_sym = sp.Symbol("kl", nonnegative=True)
#: beta-approximate max-information of a prior-learning algorithm in nats (k_nat = k_bits * ln 2)
k_nat = sp.Symbol("k_nat", nonnegative=True)


def _Phi(x: sp.Expr) -> sp.Expr:
    """Standard normal CDF as ``erfc(-x/sqrt(2))/2``."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


def kl_expr(q: sp.Expr, p: sp.Expr) -> sp.Expr:
    r"""The binary kl, ``q ln(q/p) + (1-q) ln((1-q)/(1-p))``, as a SymPy expression."""
    return q * sp.log(q / p) + (1 - q) * sp.log((1 - q) / (1 - p))


# --------------------------------------------------------------------------------------------
# numerics: binary kl and its (upper) inverse
# --------------------------------------------------------------------------------------------
_ULP = np.finfo(float).eps
#: relative error budget of the float kl (several roundings); decisions use it pessimistically
_KL_REL_ERR = 64 * _ULP
#: c below this is raised to it (a larger c only enlarges kl^{-1}: the safe side)
_C_FLOOR = 1e-250


def _u_minus_log1p(u: np.ndarray) -> np.ndarray:
    """phi(u) = u - log1p(u) >= 0 without cancellation (atanh series for |u| <= 1/2)."""
    u = np.asarray(u, dtype=float)
    out = np.empty_like(u)
    small = np.abs(u) <= 0.5
    us = u[small]
    w = us / (2.0 + us)  # log1p(u) = 2 atanh(w), u - 2 w = u w
    w2 = w * w
    acc = np.zeros_like(w)
    for j in range(24, -1, -1):  # sum_j w^{2j} / (2j + 3), |w| <= 1/3
        acc = acc * w2 + 1.0 / (2 * j + 3)
    out[small] = us * w - 2.0 * w * w2 * acc
    ub = u[~small]
    with np.errstate(divide="ignore"):
        out[~small] = ub - np.log1p(ub)
    return out


def kl_bernoulli(q: Any, p: Any) -> Any:
    r"""Binary KL divergence ``kl(q || p) = q ln(q/p) + (1-q) ln((1-q)/(1-p))`` (nats), vectorised.

    Written as ``q phi((p-q)/q) + (1-q) phi((q-p)/(1-q))`` with ``phi(u) = u - log1p(u)``: both terms
    are nonnegative, so there is no cancellation when ``p`` is close to ``q`` (``phi`` by a series for
    ``|u| <= 1/2``, directly as ``u - log(1 + u)`` in log form otherwise, which also covers subnormal
    ``q``).  ``0 ln 0 = 0``;
    ``kl(q || 0)`` and ``kl(q || 1)`` are ``+inf`` unless ``q`` equals that endpoint.

    >>> float(kl_bernoulli(0.5, 0.5))
    0.0
    """
    q = np.asarray(check_real("q", q, 0.0, 1.0), dtype=float)
    p = np.asarray(check_real("p", p, 0.0, 1.0), dtype=float)
    q, p = np.broadcast_arrays(q, p)
    out = np.empty(q.shape, dtype=float)
    inner = (q > 0) & (q < 1)
    qi, pi = q[inner], p[inner]
    d = pi - qi
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        u1 = d / qi  # may overflow for subnormal q: then the direct branch is used
        u2 = -d / (1 - qi)
        # |u| <= 1/2: cancellation-free series; otherwise the direct forms (no cancellation there)
        t1 = np.where(np.abs(u1) <= 0.5, qi * _u_minus_log1p(np.where(np.abs(u1) <= 0.5, u1, 0.0)),
                      d + qi * (np.log(qi) - np.log(pi)))
        t2 = np.where(np.abs(u2) <= 0.5, (1 - qi) * _u_minus_log1p(np.where(np.abs(u2) <= 0.5, u2, 0.0)),
                      -d + (1 - qi) * (np.log1p(-qi) - np.log1p(-pi)))
        out[inner] = t1 + t2
        q0 = q == 0
        out[q0] = -np.log1p(-p[q0])
        q1 = q == 1
        out[q1] = -np.log(p[q1])
    return float(out) if out.ndim == 0 else out


def kl_inverse(q: Any, c: Any, *, max_iter: int = 2200) -> Any:
    r"""Upper kl inversion ``kl^{-1}(q, c) = sup{p in [0, 1] : kl(q || p) <= c}``, vectorised.

    Bisection on ``[q, min(1, q + sqrt(c/2))]`` (Pinsker brackets the root).  The result is on the
    SAFE side: it is never below the exact value.  A midpoint replaces the upper end only when its
    float kl exceeds ``c`` by more than the float error budget; so the returned upper end satisfies
    ``kl(q || p) >= c`` in exact arithmetic up to that budget, and ``kl(q || p) <= c (1 + tiny)``.
    Degenerate cases: ``c = 0`` gives ``q``; ``q = 1`` or ``c = inf`` gives ``1``; ``q = 0`` gives
    ``1 - exp(-c)`` rounded up.  ``c`` below 1e-250 is raised to 1e-250 (safe side).

    Raises :class:`~symdp.errors.ConvergenceError` if the iteration cap is hit (it should not be).

    >>> kl_inverse(0.0, 0.0)
    0.0
    >>> kl_inverse(1.0, 0.3)
    1.0
    """
    q = np.asarray(check_real("q", q, 0.0, 1.0), dtype=float)
    c = np.asarray(check_real("c", c, 0.0, None), dtype=float)
    q, c = np.broadcast_arrays(q, c)
    q = q.astype(float).copy()
    c = c.astype(float).copy()
    out = np.empty(q.shape, dtype=float)
    zero_c = c == 0
    full = (~zero_c) & ((q == 1) | np.isinf(c))
    q0 = (~zero_c) & (~full) & (q == 0)
    work = ~(zero_c | full | q0)
    out[zero_c] = q[zero_c]
    out[full] = 1.0
    out[q0] = np.minimum(1.0, np.nextafter(-np.expm1(-c[q0]), np.inf))
    if np.any(work):
        qw = q[work]
        cw = np.maximum(c[work], _C_FLOOR)
        lo = qw.copy()
        hi = np.minimum(1.0, np.nextafter(qw + np.sqrt(cw / 2.0), np.inf) * (1 + 4 * _ULP))
        thresh = cw * (1 + _KL_REL_ERR)
        active = np.ones(qw.shape, dtype=bool)
        for _ in range(max_iter):
            active &= (hi - lo) > 2 * np.spacing(hi)
            if not active.any():
                break
            idx = np.nonzero(active)[0]
            mid = lo[idx] + (hi[idx] - lo[idx]) / 2
            above = kl_bernoulli(qw[idx], mid) > thresh[idx]  # certainly past the root
            hi[idx[above]] = mid[above]
            lo[idx[~above]] = mid[~above]
        else:
            raise ConvergenceError(f"kl_inverse: bisection did not converge in max_iter={max_iter} steps")
        out[work] = hi
    return float(out) if out.ndim == 0 else out


def kl_inverse_mp(q: Any, c: Any, *, dps: int = 30) -> mpmath.mpf:
    r"""kl^{-1}(q, c) in mpmath at ``dps`` digits (upper end of a bisection bracket: the safe side)."""
    prec = int(dps * 3.33) + 8
    with mpmath.workprec(2 * prec + 64):
        q = mpmath.mpf(q)
        c = mpmath.mpf(c)
        if q < 0 or q > 1 or c < 0 or mpmath.isnan(c):
            raise ValueError(f"kl_inverse_mp: need 0 <= q <= 1 and c >= 0, got q={q}, c={c}")
        if c == 0:
            return +q
        if q == 1 or mpmath.isinf(c):
            return mpmath.mpf(1)

        def kl(pp: mpmath.mpf) -> mpmath.mpf:
            if pp >= 1:
                return mpmath.inf
            t1 = q * mpmath.log(q / pp) if q > 0 else mpmath.mpf(0)
            return t1 + (1 - q) * (mpmath.log1p(-q) - mpmath.log1p(-pp))

        lo, hi = q, mpmath.mpf(1)
        for _ in range(20 * prec + 4000):
            if hi - lo <= hi * mpmath.ldexp(1, -prec - 4):
                break
            mid = (lo + hi) / 2
            if kl(mid) > c:
                hi = mid
            else:
                lo = mid
        else:
            raise ConvergenceError("kl_inverse_mp: bisection did not converge")
        return +hi


class KLInverse(sp.Function):
    r"""``kl^{-1}(q, c) = sup{p in [0, 1] : kl(q || p) <= c}`` as a SymPy function.

    Exact values where closed forms exist (``c = 0``: ``q``; ``q = 0``: ``1 - e^{-c}``; ``q = 1``:
    ``1``), arbitrary-precision ``evalf`` (bisection, upper side), implicit derivatives
    ``d/dc = p(1-p)/(p-q)`` and ``d/dq = -p(1-p)/(p-q) (ln(q/p) - ln((1-q)/(1-p)))``.
    Numerical kernels map it to :func:`kl_inverse` (float64) or :func:`kl_inverse_mp`.
    """

    nargs = 2

    @classmethod
    def eval(cls, q: sp.Expr, c: sp.Expr) -> sp.Expr | None:
        if c.is_zero:
            return q
        if q.is_zero:
            return 1 - sp.exp(-c)
        if q == 1 or c is sp.oo:
            return sp.Integer(1)
        return None

    def _eval_evalf(self, prec: int) -> sp.Float | None:
        q, c = (a.evalf(prec + 20) for a in self.args)
        if not (q.is_Number and c.is_Number):
            return None
        dps = mpmath.libmp.prec_to_dps(prec) + 5
        val = kl_inverse_mp(mpmath.mpf(str(q)), mpmath.mpf(str(c)), dps=dps)
        return sp.Float(val, precision=prec)

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        q = self.args[0]
        p = self
        dc = p * (1 - p) / (p - q)
        if argindex == 2:
            return dc
        if argindex == 1:
            return -dc * (sp.log(q / p) - sp.log((1 - q) / (1 - p)))
        raise sp.ArgumentIndexError(self, argindex)

    def _latex(self, printer: Any) -> str:
        q, c = self.args
        return rf"\operatorname{{kl}}^{{-1}}\left({printer._print(q)}, {printer._print(c)}\right)"

    def _pretty(self, printer: Any) -> Any:
        return printer._print_Function(self, func_name="kl_inv")

    def _sympystr(self, printer: Any) -> str:
        q, c = self.args
        return f"kl_inverse({printer._print(q)}, {printer._print(c)})"


# --------------------------------------------------------------------------------------------
# entries
# --------------------------------------------------------------------------------------------
_PAC_RHS = (KL_QP + sp.log(2 * sp.sqrt(n) / delta)) / n
_PAC_RHS_DDP = (KL_QP + sp.log(2 * sp.sqrt(n) / delta) + k_nat) / n
_PAC_DOMAIN = {KL_QP: (0, 10**4), n: (8, 10**6), delta: (sp.Rational(1, 10**6), sp.Rational(1, 2))}

#: [Balle and Wang 2018, Thm 8] delta(eps) of the Gaussian mechanism, r = Delta/sigma
GAUSSIAN_PROFILE = (_Phi(-eps / (Delta / sigma) + (Delta / sigma) / 2)
                    - sp.exp(eps) * _Phi(-eps / (Delta / sigma) - (Delta / sigma) / 2))

_NO_FORMULA = "every formula of Lampert and Zakerinia (2026) was lost in our copy (plain-text conversion); see notes for what the text states"

_DPSGD = Property("DP-SGD (fixed-size disjoint batches)", (C, sigma, E), "A")


def _lz(locator: str, cites: str | None = None) -> Any:
    return src(LAMPERT, locator, cites=cites)


def _entry(*args: Any, hypotheses: Any = (), **kwargs: Any) -> Any:
    """:func:`theorem` minus hypotheses SymPy already decides True from the symbols' assumptions."""
    hs = [h for h in (sp.sympify(x) for x in hypotheses) if h is not sp.true]
    return theorem(*args, hypotheses=hs, **kwargs)


THEOREMS = [
    # ---------------------------------------------------------------- Dwork et al. 2015
    _entry(
        "dwork2015.def_max_information",
        "beta-approximate max-information (bits)",
        Kind.DEFINITION,
        _lz("eq. (3) (formula lost; from seeds/NOTES.md)", cites="Dwork et al. 2015b, Def 11"),
        lhs=I_inf_beta_bits,
        rhs=sp.log((P_O - beta) / P_O_prod, 2),
        hypotheses=[P_O > beta, beta >= 0],
        domain={P_O: (sp.Rational(1, 2), 1), beta: (0, sp.Rational(1, 4)), P_O_prod: (sp.Rational(1, 10), 1)},
        quantity="I^beta_inf(X; Y) = D^beta_inf((X, Y) || X x Y) is the max of rhs over events O with "
        "P[(X, Y) in O] > beta; P_O = P[(X, Y) in O], P_Oprod = P[X x Y in O] (independent copies); base-2 log",
        conclusion=Property("max-information", (sp.Symbol("k", positive=True), beta)),
        notes="NOTES: I_inf(X;Y) = D_inf((X,Y) || X x Y), I_inf^beta(X;Y) = D_inf^beta((X,Y) || X x Y); "
        "'In that paper log is base 2 and ln natural.' I_inf^beta(A, n) is the sup over distributions of "
        "I_inf^beta(S; A(S)) for |S| = n.",
        tags=("definition", "max-information"),
    ),
    _entry(
        "dwork2015.thm13_max_information_transfer",
        "Max-information transfers events from the product to the joint distribution",
        Kind.BOUND,
        src(CLASSICAL, "Thm 13", cites="Dwork et al. 2015b"),
        lhs=P_O,
        rhs=2**k * P_O_prod + beta,
        hypotheses=[k >= 0, beta >= 0, P_O_prod >= 0, P_O_prod <= 1],
        domain={k: (0, 20), P_O_prod: (0, 1), beta: (0, sp.Rational(1, 2))},
        quantity="P[(S, A(S)) in O] for any event O, when I_inf^beta(S; A(S)) <= k (bits)",
        premises=(Property("max-information", (k, beta)),),
        notes="NOTES: 'Thm 13: if I_inf^beta(S; A(S)) <= k then for any event O, "
        "P[(S, A(S)) in O] <= 2^k P[S x A(S) in O] + beta.' k in bits.",
        tags=("max-information", "generalization"),
    ),
    _entry(
        "dwork2015.thm19_pure_dp",
        "eps-DP implies max-information at most log2(e) eps n",
        Kind.BOUND,
        src(CLASSICAL, "Thm 19", cites="Dwork et al. 2015b"),
        lhs=I_inf_bits,
        rhs=eps * n / sp.log(2),
        hypotheses=[eps > 0, n >= 1],
        domain={eps: (sp.Rational(1, 1000), 10), n: (1, 10**6)},
        quantity="I_inf(A, n), pure max-information in bits of an eps-DP algorithm on n samples",
        premises=(Property("DP", (eps, sp.Integer(0))),),
        conclusion=Property("max-information", (eps * n / sp.log(2), sp.Integer(0))),
        notes="NOTES: 'Thm 19: eps-DP implies I_inf(A, n) <= log2(e) * eps * n.' log2(e) = 1/ln 2.",
        tags=("max-information", "dp"),
    ),
    _entry(
        "dwork2015.thm20_pure_dp_iid",
        "eps-DP on i.i.d. data: beta-approximate max-information at most log2(e)(eps^2 n/2 + eps sqrt(n ln(2/beta)/2))",
        Kind.BOUND,
        _lz("eq. (4) (formula lost; from seeds/NOTES.md)", cites="Dwork et al. 2015b, Thm 20"),
        lhs=I_inf_beta_bits,
        rhs=(eps**2 * n / 2 + eps * sp.sqrt(n * sp.log(2 / beta) / 2)) / sp.log(2),
        hypotheses=[eps > 0, n >= 1, beta > 0, beta < 1],
        domain={eps: (sp.Rational(1, 1000), 10), n: (1, 10**6), beta: (sp.Rational(1, 10**9), sp.Rational(1, 2))},
        quantity="I_inf^beta(S; A(S)) in bits, S ~ D^n i.i.d., A eps-DP",
        premises=(Property("DP", (eps, sp.Integer(0))),),
        conclusion=Property("max-information",
                            ((eps**2 * n / 2 + eps * sp.sqrt(n * sp.log(2 / beta) / 2)) / sp.log(2), beta)),
        notes="NOTES: 'Thm 20: eps-DP and i.i.d. data imply I_inf^beta(S; A(S)) <= log2(e) * (eps^2 n / 2 + "
        "eps * sqrt(n ln(2/beta) / 2))'. Lampert and Zakerinia quote it as its eq. (4) ('for any eps-differentially private "
        "algorithm ... it holds that (4)') and compares its Prop 1 with it in Sec. 3.2: 'at most linear in "
        "the dataset size'.",
        tags=("max-information", "dp", "flagship"),
    ),
    # ---------------------------------------------------------------- PAC-Bayes-kl
    _entry(
        "pacbayes.kl_bernoulli",
        "Binary KL divergence kl(q || p)",
        Kind.DEFINITION,
        _lz("eq. (5) (formula lost; from seeds/NOTES.md)", cites="Seeger 2002; Maurer 2004"),
        lhs=kl_sym,
        rhs=kl_expr(L_S, L_D),
        hypotheses=[L_S >= 0, L_S <= 1, L_D > 0, L_D < 1],
        domain={L_S: (sp.Rational(1, 100), sp.Rational(1, 2)), L_D: (sp.Rational(1, 20), sp.Rational(9, 10))},
        quantity="kl(q || p) of Bernoulli(q) from Bernoulli(p), nats (q = L_S, p = L_D)",
        notes="kl(q||p) = q ln(q/p) + (1-q) ln((1-q)/(1-p)); float evaluator kl_bernoulli in this module.",
        tags=("definition", "pac-bayes"),
    ),
    _entry(
        "pacbayes.kl_inverse",
        "Upper kl inversion kl^-1(q, c)",
        Kind.DEFINITION,
        _lz("App. A.3, eq. (35) (formula lost; from seeds/NOTES.md)"),
        lhs=kl_inv,
        rhs=KLInverse(L_S, c_kl),
        hypotheses=[L_S >= 0, L_S <= 1, c_kl >= 0],
        domain={L_S: (sp.Rational(1, 100), sp.Rational(1, 2)), c_kl: (sp.Rational(1, 1000), 2)},
        quantity="kl^{-1}(q, c) = sup{p in [0, 1] : kl(q || p) <= c}",
        notes="Lampert and Zakerinia, App. A.3: 'kl is strictly monotonically increasing in p [for p >= q], so it is invertible in "
        "that range ... we can compute it efficiently with numeric techniques, e.g., using a binary search or "
        "Newton's method.' Evaluators: kl_inverse (float64, vectorised, safe upper side), kl_inverse_mp.",
        tags=("definition", "pac-bayes"),
    ),
    _entry(
        "pacbayes.seeger_maurer",
        "PAC-Bayes-kl bound (Seeger 2002, Maurer 2004)",
        Kind.BOUND,
        _lz("eq. (5) (formula lost; from seeds/NOTES.md)", cites="Seeger 2002; Maurer 2004"),
        lhs=kl_expr(L_S, L_D),
        rhs=_PAC_RHS,
        hypotheses=[n >= 8, delta > 0, delta < 1, KL_QP >= 0],
        domain=_PAC_DOMAIN,
        quantity="kl(L_S(Q) || L(Q)) for every posterior Q simultaneously, with probability >= 1 - delta over "
        "S ~ D^n, data-free prior P, loss in [0, 1]",
        conclusion=Property("PAC-Bayes-kl", (_PAC_RHS, delta)),
        notes="NOTES: 'with probability >= 1 - delta, for all posteriors Q, kl(L_S(Q) || L(Q)) <= (KL(Q||P) + "
        "ln(2 sqrt(n)/delta)) / n'. Hypothesis n >= 8 is Maurer's (2004, Thm 5) condition for the "
        "2 sqrt(n) constant. Lampert and Zakerinia: 'we assume the loss function to only take values in [0, 1]'.",
        tags=("pac-bayes", "generalization"),
    ),
    _entry(
        "pacbayes.seeger_maurer_inverted",
        "PAC-Bayes-kl bound, inverted: L(Q) <= kl^-1(L_S(Q), (KL + ln(2 sqrt(n)/delta))/n)",
        Kind.BOUND,
        _lz("App. A.3, eq. (35) applied to eq. (5) (formulas lost)", cites="Seeger 2002; Maurer 2004"),
        lhs=L_D,
        rhs=KLInverse(L_S, _PAC_RHS),
        hypotheses=[n >= 8, delta > 0, delta < 1, L_S >= 0, L_S <= 1],
        domain={**_PAC_DOMAIN, L_S: (0, sp.Rational(1, 2))},
        quantity="true risk L(Q) of every posterior Q, with probability >= 1 - delta",
        refs=("pacbayes.seeger_maurer", "pacbayes.kl_inverse"),
        conclusion=Property("generalization", (KLInverse(L_S, _PAC_RHS) - L_S, delta)),
        notes="Equivalent to pacbayes.seeger_maurer by the definition of kl^{-1} (Lampert and Zakerinia, App. A.3: 'we can compute "
        "an upper-bound on L as kl^{-1}(...)').",
        tags=("pac-bayes", "generalization"),
    ),
    _entry(
        "pacbayes.pinsker",
        "Pinsker's inequality for the binary kl",
        Kind.BOUND,
        _lz("App. A.3 (formula lost)", cites="Pinsker"),
        lhs=kl_expr(L_S, L_D),
        relation=">=",
        rhs=2 * (L_S - L_D) ** 2,
        hypotheses=[L_S >= 0, L_S <= 1, L_D > 0, L_D < 1],
        domain={L_S: (0, 1), L_D: (sp.Rational(1, 100), sp.Rational(99, 100))},
        quantity="kl(q || p) for q, p in [0, 1]",
        notes="Lampert and Zakerinia, App. A.3: 'one can use Pinsker's inequality, kl(q||p) >= 2 (q - p)^2 [formula lost; "
        "standard form], to derive bounds in the classic generalization-gap form', i.e. "
        "L(Q) <= L_S(Q) + sqrt(c/2).",
        tags=("pac-bayes",),
    ),
    _entry(
        "pacbayes.data_dependent_prior",
        "PAC-Bayes-kl with a data-dependent prior of bounded max-information",
        Kind.BOUND,
        _lz("Sec. 2 and proof of Thm 2 (formulas lost; from seeds/NOTES.md)",
            cites="Dziugaite and Roy 2018; Rivasplata et al. 2020, Lemma 7"),
        lhs=kl_expr(L_S, L_D),
        rhs=_PAC_RHS_DDP,
        hypotheses=[n >= 8, delta > 0, beta > 0, delta + beta < 1, k_nat >= 0],
        domain={**_PAC_DOMAIN, k_nat: (0, 10**4), beta: (sp.Rational(1, 10**6), sp.Rational(1, 2))},
        quantity="kl(L_S(Q) || L(Q)) for every posterior Q, with probability >= 1 - delta - beta, when the prior "
        "P = P(S) is produced by an algorithm with beta-approximate max-information k_nat (nats)",
        premises=(Property("max-information", (k_nat, beta), "prior learner"),),
        conclusion=Property("PAC-Bayes-kl", (_PAC_RHS_DDP, delta + beta)),
        refs=("pacbayes.seeger_maurer",),
        notes="NOTES: 'A data-dependent prior P learned by an algorithm with beta-approximate max-information k "
        "(natural-log units) may replace a data-free prior at the cost of adding k to the numerator and beta "
        "to the failure probability.' A Dwork et al. bound in bits converts as k_nat = k_bits ln 2.",
        tags=("pac-bayes", "max-information"),
    ),
    _entry(
        "pacbayes.data_dependent_prior_inverted",
        "PAC-Bayes-kl with a data-dependent prior, inverted to a bound on the true risk",
        Kind.BOUND,
        _lz("Thm 2 structure (formulas lost; from seeds/NOTES.md)",
            cites="Dziugaite and Roy 2018; Rivasplata et al. 2020, Lemma 7"),
        lhs=L_D,
        rhs=KLInverse(L_S, _PAC_RHS_DDP),
        hypotheses=[n >= 8, delta > 0, beta > 0, delta + beta < 1, k_nat >= 0, L_S >= 0, L_S <= 1],
        domain={**_PAC_DOMAIN, k_nat: (0, 10**4), beta: (sp.Rational(1, 10**6), sp.Rational(1, 2)),
                L_S: (0, sp.Rational(1, 2))},
        quantity="true risk L(Q) of every posterior Q, with probability >= 1 - delta - beta",
        premises=(Property("max-information", (k_nat, beta), "prior learner"),),
        conclusion=Property("generalization", (KLInverse(L_S, _PAC_RHS_DDP) - L_S, delta + beta)),
        refs=("pacbayes.data_dependent_prior", "pacbayes.kl_inverse"),
        tags=("pac-bayes", "max-information"),
    ),
    # ---------------------------------------------------------------- Gaussian mechanism
    _entry(
        "balle2018.gaussian_profile",
        "Exact privacy profile of the Gaussian mechanism",
        Kind.IDENTITY,
        src(CLASSICAL, "Thm 8", cites="Balle and Wang 2018, 'Improving the Gaussian mechanism'"),
        lhs=delta,
        rhs=GAUSSIAN_PROFILE,
        hypotheses=[eps >= 0, Delta > 0, sigma > 0],
        domain={eps: (sp.Rational(1, 100), 10), Delta: (sp.Rational(1, 10), 10), sigma: (sp.Rational(1, 10), 10)},
        quantity="smallest delta such that x -> f(x) + N(0, sigma^2 I), f of L2 sensitivity Delta, is "
        "(eps, delta)-DP: sup_S P(S) - e^eps Q(S) for P = N(Delta, sigma^2), Q = N(0, sigma^2)",
        conclusion=Property("DP", (eps, GAUSSIAN_PROFILE), "Gaussian mechanism"),
        oracle="gaussian_profile",
        notes="NOTES: 'the exact privacy profile is delta(eps) = Phi(-eps/r + r/2) - e^eps Phi(-eps/r - r/2), "
        "r = Delta/sigma (Balle and Wang 2018)'; Phi(x) = erfc(-x/sqrt(2))/2. It is mu-GDP with mu = r. "
        "The classical calibration sigma >= Delta sqrt(2 ln(1.25/delta))/eps is "
        "classical.gaussian_mechanism_calibration.",
        tags=("gaussian", "dp", "profile"),
    ),
    # ---------------------------------------------------------------- 002's own results (formulas lost)
    _entry(
        "lampert2026.thm1_max_information_dpsgd",
        "Approximate max-information of DP-SGD is at most linear in n",
        Kind.BOUND,
        _lz("Thm 1, eqs. (6)-(7)"),
        hypotheses=[n >= 1, C > 0, sigma > 0, E >= 1, beta > 0, beta < 1],
        quantity="I_inf^beta(S; A(S)) of streaming or batch DP-SGD on S with n independent samples",
        premises=(_DPSGD,),
        conclusion=Property("max-information", (sp.Symbol("k_DPSGD", nonnegative=True), beta)),
        formula_available=False,
        unavailable_reason=_NO_FORMULA,
        notes="Text: 'Let A be either the streaming DP-SGD Algorithm 1 or the batch DP-SGD Algorithm 2 with "
        "hyperparameters [C] (clipping threshold), [sigma] (noise scale), [b] (batch size), [m] (number of "
        "steps per epoch), and [E] (number of epochs), that is run on a dataset ... that consists of "
        "independent data samples with [n = b m, lost]. Then, for any [beta] the approximate max-information "
        "of [A] fulfills (6) ... In less tight, but more explicit, form: (7).' Abstract/intro: 'at most "
        "linear in the dataset size'; eq. (1) states the scaling in E, C and sigma (lost). Batches: "
        "'CreateBatches outputs the index sets of fixed-size disjoint batches' chosen independently of the "
        "data values; GradientUpdate may be SGD, momentum, weight decay or Adam. Proof: E-fold adaptive "
        "composition of single-epoch DP-SGD (Dwork et al. 2015a, Thm 15), eq. (84).",
        tags=("max-information", "dp-sgd", "flagship"),
    ),
    _entry(
        "lampert2026.prop1_gaussian_mechanism",
        "Approximate max-information of the Gaussian mechanism",
        Kind.BOUND,
        _lz("Prop 1, eq. (8)"),
        hypotheses=[n >= 1, Delta > 0, sigma > 0, beta > 0, beta < 1],
        quantity="I_inf^beta(S; A(S)) of A(S) = f(S) + sigma * N(0, I), f of sensitivity Delta, S with n "
        "independent entries",
        premises=(Property("Gaussian mechanism", (Delta, sigma), "A"),),
        conclusion=Property("max-information", (sp.Symbol("k_GM", nonnegative=True), beta)),
        formula_available=False,
        unavailable_reason=_NO_FORMULA,
        notes="Text: 'Let [A] be the Gaussian mechanism of noise strength [sigma] applied to [f]. Then, for any "
        "[beta], the approximate max-information of [A] fulfills, for [a condition, lost]: (8)'. Sec. 3.2: "
        "its bound 'has exactly the same functional form' as Dwork et al.'s eps-DP bound (30) 'only with "
        "other constants (which depend logarithmically on [1/beta] ...)'. Proof via Lemmas 2-5 "
        "(Jensen, Efron-Stein variance bound, Gaussian tail bounds).",
        tags=("max-information", "gaussian"),
    ),
    _entry(
        "lampert2026.lemma6_coefficient_comparison",
        "Linear coefficients of Prop 1 and of Dwork et al.'s bound are of comparable size",
        Kind.COMPARISON,
        _lz("Lemma 6, eqs. (85)-(93)"),
        quantity="ratio of the dominant linear-in-n coefficient of Prop 1 to that of (30), Dwork et al. "
        "Thm 20 with the Gaussian mechanism's eps",
        refs=("lampert2026.prop1_gaussian_mechanism", "dwork2015.thm20_pure_dp_iid"),
        formula_available=False,
        unavailable_reason=_NO_FORMULA,
        notes="Text: the ratio is 'strictly monotonically increasing' in both parameters over the stated "
        "ranges (lost), with upper and lower bounds (92)-(93) from boundary values; 'they are of comparable "
        "size across the full range of parameter choices'.",
        tags=("comparison", "max-information"),
    ),
    _entry(
        "lampert2026.thm2_pac_bayes_dpsgd_prior",
        "PAC-Bayes-kl bound with a prior learned by DP-SGD",
        Kind.BOUND,
        _lz("Thm 2, eqs. (31)-(33)", cites="Rivasplata et al. 2020, Lemma 7"),
        hypotheses=[n >= 1, C > 0, sigma > 0, E >= 1],
        quantity="kl(L_S(Q) || L(Q)) uniformly over posteriors Q, with probability at least 1 - [lost] over S, "
        "prior P = DP-SGD output (post-processed), loss in [0, 1]",
        premises=(_DPSGD, Property("max-information", (sp.Symbol("k_DPSGD", nonnegative=True), beta), "A")),
        conclusion=Property("PAC-Bayes-kl", ()),
        refs=("pacbayes.data_dependent_prior", "lampert2026.thm1_max_information_dpsgd"),
        formula_available=False,
        unavailable_reason=_NO_FORMULA,
        notes="Text: 'For a dataset of [n] i.i.d. data points, let [P] be a prior distribution obtained from "
        "running DP-SGD for [E] epochs on [S], with batches of size [b] per epoch, with clipping threshold "
        "[C] and noise strength [sigma]. Assume that the loss function is bounded ... Then, for any [delta], "
        "it holds with probability at least [lost] ... that uniformly for all posterior distributions [Q]: "
        "(31) for (32) with ... defined as in Theorem 1, as well as (33)'. Proof: Rivasplata et al. 2020, "
        "Lemma 7 with Theorem 1's max-information; constructing a distribution from DP-SGD output is "
        "post-processing.",
        tags=("pac-bayes", "dp-sgd"),
    ),
    _entry(
        "lampert2026.cor3_dpsgd_generalization",
        "Generalization bound for DP-SGD-trained models in terms of hyperparameters only",
        Kind.BOUND,
        _lz("Cor 3, eq. (34)"),
        hypotheses=[n >= 1, C > 0, sigma > 0, E >= 1],
        quantity="kl(L_S(Q) || L(Q)) for Q = P the DP-SGD-derived distribution itself",
        premises=(_DPSGD,),
        conclusion=Property("PAC-Bayes-kl", ()),
        refs=("lampert2026.thm2_pac_bayes_dpsgd_prior",),
        formula_available=False,
        unavailable_reason=_NO_FORMULA,
        notes="Text: 'From Theorem 2 we immediately obtain a generalization bound for DP-SGD-trained models that "
        "depends only on the training hyper-parameters, simply by evaluating the bound with [Q = P]' (KL "
        "term vanishes). Sec. 4.1: 'With fixed hyperparameters, the complexity terms scale approximately "
        "like [lost]'; Table 1 (numbers lost) reports non-vacuous MNIST / CIFAR-10 bounds.",
        tags=("pac-bayes", "dp-sgd", "generalization"),
    ),
]


__all__ = ["KLInverse", "THEOREMS", "kl_bernoulli", "kl_expr", "kl_inverse", "kl_inverse_mp"]
