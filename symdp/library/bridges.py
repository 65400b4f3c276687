r"""Bridge theorems: standard results the calculus needs to chain the sources' theorems.

None of these is printed in the five sources; each is the standard statement of
the cited paper (theorem number given), encoded once here so that chains such
as Gaussian mechanism -> Poisson subsampling -> composition -> He et al. Thm 1
can be formed (:mod:`symdp.calculus`).  Their typed premise -> conclusion form
lives in :mod:`symdp.library.implications` like every other entry's.

* (eps, delta) amplification by Poisson subsampling (remove-one adjacency) and
  by sampling without replacement (substitution adjacency): Balle, Barthe,
  Gaboardi 2018, "Privacy amplification by subsampling: tight analyses via
  couplings and divergences", Thm 8 and Thm 9 (Table 1).
* RDP of the Gaussian mechanism and RDP -> (eps, delta): Mironov 2017,
  "Renyi differential privacy", Prop. 7 and Prop. 3.
* zCDP of the Gaussian mechanism and zCDP -> (eps, delta): Bun and Steinke
  2016, "Concentrated differential privacy: simplifications, extensions, and
  lower bounds", Prop. 1.6 and Prop. 1.3.
* Basic composition: Dwork and Roth 2014, Thm 3.16 (advanced composition,
  Thm 3.20, and Kairouz-Oh-Viswanath's optimal composition are the library's
  ``classical.dwork_roth_advanced_composition_*`` and ``classical.kairouz2017_*``).
* Group privacy (groups of two: a replace-one neighbour is a remove followed by an add), the bridge
  from add/remove to replace-one adjacency with its cost: (eps, delta) -> (2 eps, (1 + e^eps) delta)
  (Dwork and Roth 2014, Thm 2.2's argument, two hops), mu-GDP -> 2 mu-GDP (Dong, Roth, Su 2022,
  Thm 2.14), rho-zCDP -> 4 rho-zCDP (Bun and Steinke 2016, Prop. 1.9).
* RDP of the Poisson-subsampled Gaussian (Mironov, Talwar, Zhang 2019, Sec. 3.3, integer orders: the
  sum the accountants evaluate; a fractional order is bounded by the next integer order, RDP being
  nondecreasing in the order), T-fold RDP composition (Mironov 2017, Prop. 1) and zCDP composition
  (Bun and Steinke 2016, Lemma 2.3).
* KL-privacy -> On-Average KL-privacy (Wang, Lei, Fienberg 2016, Sec. 3 and Table 1: the expectation over
  data sets and the replaced entry is at most the supremum), the step between He et al.'s Lemma 2 (the KL
  of an eps-DP algorithm) and Wang et al.'s Thm 4 (On-Average KL-privacy <=> on-average generalization).
* Max-information -> generalization: Dwork et al. 2015 Thm 13 with the event {|R_S(h) - R(h)| > t} and
  Hoeffding's inequality on the product distribution (the combination certify's max-information route uses).
* Dwork et al. 2015 Thm 20 in nats (max-information of pure DP on i.i.d. data).
* PAC-Bayes with a DP prior: Dziugaite and Roy 2018, "Data-dependent PAC-Bayes
  priors via differential privacy", Sec. 4 (with Dwork et al. 2015 Thm 20).

>>> from symdp.library import get
>>> get("bridge.bbg2018_poisson_eps").rhs
log(q*(exp(epsilon) - 1) + 1)
"""

from __future__ import annotations

import sympy as sp

from ..symbols import Delta, T, alpha, beta, delta, eps, mu, n, q, sigma
from ..theorem import Kind, Property, Source, Theorem, theorem

_R = sp.Rational

#: quantities bounded by the bridges (module-local symbols, like the library's)
eps_sub = sp.Symbol("epsilon_sub", positive=True)
delta_sub = sp.Symbol("delta_sub", positive=True)
eps_dp = sp.Symbol("epsilon_DP", positive=True)
eps_alpha = sp.Symbol("epsilon_alpha", positive=True)
rho = sp.Symbol("rho", positive=True)
eps_T = sp.Symbol("epsilon_T", positive=True)
delta_T = sp.Symbol("delta_T", positive=True)
k_nat = sp.Symbol("k_nat", positive=True)
eps_grp = sp.Symbol("epsilon_group", positive=True)
mu_grp = sp.Symbol("mu_group", positive=True)
rho_grp = sp.Symbol("rho_group", positive=True)
eps_alpha_T = sp.Symbol("epsilon_alpha_T", positive=True)
rho_T = sp.Symbol("rho_T", positive=True)
k_mi = sp.Symbol("k_MI", positive=True)
KL_QP = sp.Symbol("KL_QP", nonnegative=True)
c_pb = sp.Symbol("c_PB", positive=True)
eps_okl = sp.Symbol("epsilon_okl", nonnegative=True)
t_gap = sp.Symbol("t_gap", positive=True)
b_fail = sp.Symbol("b", positive=True)  # the failure probability the user chooses

BBG = "Balle, Barthe, Gaboardi 2018, 'Privacy amplification by subsampling: tight analyses via couplings and divergences'"
MIRONOV = "Mironov 2017, 'Renyi differential privacy'"
BUN_STEINKE = "Bun and Steinke 2016, 'Concentrated differential privacy: simplifications, extensions, and lower bounds'"
DWORK_ROTH = "Dwork and Roth 2014, 'The algorithmic foundations of differential privacy'"
DWORK2015 = "Dwork, Feldman, Hardt, Pitassi, Reingold, Roth 2015, 'Generalization in adaptive data analysis and holdout reuse'"
MTZ = "Mironov, Talwar, Zhang 2019, 'Renyi differential privacy of the sampled Gaussian mechanism'"
DRS = "Dong, Roth, Su 2022, 'Gaussian differential privacy' (JRSS-B)"
WANG2016 = "Wang, Lei, Fienberg 2016, 'On-average KL-privacy and its equivalence to generalization for max-entropy mechanisms'"
DZIUGAITE_ROY = "Dziugaite and Roy 2018, 'Data-dependent PAC-Bayes priors via differential privacy'"


def _src(locator: str, cites: str) -> Source:
    return Source(paper="bridge", file="", version="standard statement", locator=locator, cites=cites)


def _dp_hyps() -> list[sp.Basic]:
    return [eps > 0, delta > 0, delta < 1]


POISSON_EPS = sp.log(1 + q * (sp.exp(eps) - 1))
POISSON_DELTA = q * delta
GAUSS_RDP = alpha * Delta**2 / (2 * sigma**2)
RDP_TO_DP = eps_alpha + sp.log(1 / delta) / (alpha - 1)
GAUSS_ZCDP = Delta**2 / (2 * sigma**2)
ZCDP_TO_DP = rho + 2 * sp.sqrt(rho * sp.log(1 / delta))
#: Dwork et al. 2015 Thm 13 at O = {|R_S(h) - R(h)| > t} (loss in [0, 1], Hoeffding on the product: 2 e^{-2 n t^2}),
#: k in nats, solved for t at total failure probability b: e^k 2 e^{-2 n t^2} + beta = b
THM13_HOEFFDING_GAP = sp.sqrt((k_mi + sp.log(2 / (b_fail - beta))) / (2 * n))
#: Dwork et al. 2015 Thm 20, converted from bits to nats (log2(e) * x bits = x nats)
MI_PURE_IID_NATS = eps**2 * n / 2 + eps * sp.sqrt(n * sp.log(2 / beta) / 2)


class GDPEpsilon(sp.Function):
    r"""The implicit function :math:`\epsilon_\mu(\delta)`: the epsilon at which mu-GDP's exact
    privacy profile (Bu et al. eq. 3.2, Dong-Roth-Su 2019 Cor 2.13)
    :math:`\delta(\epsilon;\mu) = \Phi(-\epsilon/\mu + \mu/2) - e^\epsilon \Phi(-\epsilon/\mu - \mu/2)`
    equals ``delta`` (0 when ``delta(0; mu) <= delta``).  Evaluated numerically by bisection in
    mpmath at the working precision plus guard digits, returning the upper end of the final
    bracket (the safe side: ``delta(eps; mu) <= delta`` there).

    >>> float(GDPEpsilon(1, sp.Rational(1, 10**5)).evalf(20)) > 3.0
    True
    """

    nargs = 2

    @classmethod
    def eval(cls, mu: sp.Expr, delta: sp.Expr) -> sp.Expr | None:
        return None

    def _eval_is_nonnegative(self) -> bool:
        return True

    def _eval_evalf(self, prec: int) -> sp.Expr | None:
        import mpmath

        from ..numeric import ncdf_same_bits

        mu_e, d_e = (a.evalf(prec + 30) for a in self.args)
        if not (mu_e.is_Number and d_e.is_Number):
            return None
        with mpmath.workprec(prec + 40):
            m, d = mpmath.mpf(str(mu_e)), mpmath.mpf(str(d_e))
            if m <= 0 or not 0 < d < 1:
                return None

            # ncdf_same_bits: mpmath.ncdf's bits without its wrapper (the bisection's ~25 evaluations per value)
            def tail(e: mpmath.mpf) -> mpmath.mpf:  # e^e Phi(-e/m - m/2): prof's second term and -slope
                return mpmath.exp(e) * ncdf_same_bits(-e / m - m / 2)

            def prof(e: mpmath.mpf, t: mpmath.mpf | None = None) -> mpmath.mpf:
                return ncdf_same_bits(-e / m + m / 2) - (tail(e) if t is None else t)

            if prof(mpmath.mpf(0)) <= d:
                return sp.Float(0, dps=max(prec // 3, 15))
            lo, hi = mpmath.mpf(0), m * m / 2 + m * mpmath.sqrt(2 * mpmath.log(1 / d)) + 1
            while prof(hi) > d:
                lo, hi = hi, 2 * hi
            # safeguarded Newton on log prof inside the bracket [lo, hi] (prof(lo) > d >= prof(hi), kept at every
            # step; a bisection step whenever Newton leaves the bracket or fails to halve it); once a step is below the
            # target width the bracket is closed around the iterate by two checked evaluations.  About 10 evaluations
            # where plain bisection took prec + 60 (the audit's slowest oracle claims).
            tiny = mpmath.mpf(2) ** (-prec - 20)
            x, width, ld = (lo + hi) / 2, hi - lo, mpmath.log(d)
            for it in range(prec + 60):
                if hi - lo <= tiny * hi:
                    break
                tx = tail(x)  # computed once for prof(x) and slope(x) = -tail(x): the same value each computed
                px = prof(x, tx)
                if px > d:
                    lo = x
                else:
                    hi = x
                nx = None
                if px > 0:
                    step = (mpmath.log(px) - ld) * px / -tx  # Newton on log prof(e) = log d (slope(x) = -tail(x))
                    if abs(step) <= 64 * tiny * abs(x):  # converged: close the bracket around the iterate, checked
                        c = x - step
                        w = 2 * abs(step) + tiny * abs(c)
                        if lo < c - w < hi and prof(c - w) > d:
                            lo = c - w
                        if lo < c + w < hi and prof(c + w) <= d:
                            hi = c + w
                        if hi - lo <= 256 * tiny * hi:
                            break
                    if lo < x - step < hi:
                        nx = x - step
                if nx is None or (it % 4 == 3 and hi - lo > width / 2):  # bisect: Newton left the bracket or stalls
                    nx = (lo + hi) / 2
                if it % 4 == 3:
                    width = hi - lo
                x = nx
            # round up (the safe side) past the conversion to ``prec`` bits
            return sp.Float(hi * (1 + mpmath.mpf(2) ** (10 - prec)), precision=prec)


class SGMRDP(sp.Function):
    r"""RDP of order ``alpha`` of one Poisson-subsampled Gaussian step (sensitivity 1, noise multiplier
    ``sigma``, rate ``q``), add/remove adjacency: at an integer order ``a >= 2`` the exact value
    :math:`\frac{1}{a-1}\log\sum_{k=0}^{a}\binom{a}{k}(1-q)^{a-k}q^k e^{(k^2-k)/(2\sigma^2)}`
    (Mironov, Talwar, Zhang 2019, Sec. 3.3; the sum the accountants evaluate); at a fractional order
    the value at the next integer order, an upper bound because RDP is nondecreasing in the order
    (Mironov 2017, Prop. 9).  Increasing in ``q`` and ``alpha``, decreasing in ``sigma``.  Evaluated
    in mpmath at the working precision plus guard digits, rounded up.

    >>> abs(float(SGMRDP(1, 2, 3).evalf(20)) - 3 / 8) < 1e-15  # q = 1: the Gaussian's alpha / (2 sigma^2)
    True
    """

    nargs = 3
    #: the largest integer order evaluated (the sum has ``alpha + 1`` terms)
    MAX_ORDER = 100_000

    @classmethod
    def eval(cls, q: sp.Expr, sigma: sp.Expr, alpha: sp.Expr) -> sp.Expr | None:
        return None

    def _eval_is_nonnegative(self) -> bool:
        return True

    def _eval_evalf(self, prec: int) -> sp.Expr | None:
        import mpmath

        from ..numeric import log_binomial

        q_e, s_e, a_e = (a.evalf(prec + 30) for a in self.args)
        if not (q_e.is_Number and s_e.is_Number and a_e.is_Number):
            return None
        with mpmath.workprec(prec + 40):
            qq, ss, aa = mpmath.mpf(str(q_e)), mpmath.mpf(str(s_e)), mpmath.mpf(str(a_e))
            if not (0 < qq <= 1 and ss > 0 and aa > 1):
                return None
            a = max(int(mpmath.ceil(aa)), 2)
            if a > self.MAX_ORDER:
                return None
            # the point-free factors once (the same values each term computed itself: the same bits)
            l1q, lq, s2 = (mpmath.log1p(-qq) if qq < 1 else 0), mpmath.log(qq), 2 * ss * ss
            terms = [log_binomial(a, k) + (a - k) * l1q + k * lq + (k * k - k) / s2
                     for k in range(a + 1) if qq < 1 or k == a]
            top = max(terms)
            val = (top + mpmath.log(mpmath.fsum(mpmath.exp(t - top) for t in terms))) / (a - 1)
            return sp.Float(max(val, mpmath.mpf(0)) * (1 + mpmath.mpf(2) ** (10 - prec)), precision=prec)


THEOREMS: list[Theorem] = [
    theorem(
        "bridge.bbg2018_poisson_eps",
        "Amplification by Poisson subsampling: epsilon of (eps, delta)-DP run on a Poisson(q) subsample",
        Kind.BOUND,
        _src("Thm 8 (Table 1, Poisson, remove-one)", BBG),
        lhs=eps_sub,
        rhs=POISSON_EPS,
        hypotheses=[*_dp_hyps(), q > 0, q <= 1],
        domain={eps: (_R(1, 100), 10), delta: (sp.Float("1e-12"), _R(1, 2)), q: (sp.Float("1e-6"), 1)},
        quantity="epsilon of M o Poisson_q",
        premises=(Property("DP", (eps, delta), "M"), Property("Poisson-subsampling", (q,), "Sample_q")),
        conclusion=Property("DP", (POISSON_EPS, POISSON_DELTA), "M o Sample_q"),
        tags=("bridge", "subsampling"),
    ),
    theorem(
        "bridge.bbg2018_poisson_delta",
        "Amplification by Poisson subsampling: delta of (eps, delta)-DP run on a Poisson(q) subsample",
        Kind.BOUND,
        _src("Thm 8 (Table 1, Poisson, remove-one)", BBG),
        lhs=delta_sub,
        rhs=POISSON_DELTA,
        hypotheses=[*_dp_hyps(), q > 0, q <= 1],
        domain={eps: (_R(1, 100), 10), delta: (sp.Float("1e-12"), _R(1, 2)), q: (sp.Float("1e-6"), 1)},
        quantity="delta of M o Poisson_q",
        premises=(Property("DP", (eps, delta), "M"), Property("Poisson-subsampling", (q,), "Sample_q")),
        conclusion=Property("DP", (POISSON_EPS, POISSON_DELTA), "M o Sample_q"),
        tags=("bridge", "subsampling"),
    ),
    theorem(
        "bridge.bbg2018_wor_eps",
        "Amplification by sampling without replacement: epsilon (batch fraction q = m/n, substitution adjacency)",
        Kind.BOUND,
        _src("Thm 9 (Table 1, without replacement, substitution)", BBG),
        lhs=eps_sub,
        rhs=POISSON_EPS,
        hypotheses=[*_dp_hyps(), q > 0, q <= 1],
        domain={eps: (_R(1, 100), 10), delta: (sp.Float("1e-12"), _R(1, 2)), q: (sp.Float("1e-6"), 1)},
        quantity="epsilon of M o WOR_q (q = batch size / dataset size)",
        premises=(Property("DP", (eps, delta), "M"), Property("without-replacement-subsampling", (q,), "Sample_q")),
        conclusion=Property("DP", (POISSON_EPS, POISSON_DELTA), "M o Sample_q"),
        tags=("bridge", "subsampling"),
    ),
    theorem(
        "bridge.mironov2017_gaussian_rdp",
        "RDP of the Gaussian mechanism: eps(alpha) = alpha Delta^2 / (2 sigma^2)",
        Kind.BOUND,
        _src("Prop. 7", MIRONOV),
        lhs=eps_alpha,
        rhs=GAUSS_RDP,
        hypotheses=[alpha > 1, sigma > 0, Delta > 0],
        domain={alpha: (_R(11, 10), 256), sigma: (_R(1, 10), 100), Delta: (_R(1, 10), 10)},
        quantity="Renyi divergence of order alpha between the Gaussian mechanism's neighbouring outputs",
        premises=(Property("Gaussian", (Delta, sigma), "M"),),
        conclusion=Property("RDP", (alpha, GAUSS_RDP), "M"),
        tags=("bridge", "rdp", "gaussian"),
    ),
    theorem(
        "bridge.mironov2017_rdp_to_dp",
        "RDP to (eps, delta)-DP: eps = eps_alpha + log(1/delta)/(alpha - 1)",
        Kind.BOUND,
        _src("Prop. 3", MIRONOV),
        lhs=eps_dp,
        rhs=RDP_TO_DP,
        hypotheses=[alpha > 1, eps_alpha > 0, delta > 0, delta < 1],
        domain={alpha: (_R(11, 10), 256), eps_alpha: (_R(1, 1000), 100), delta: (sp.Float("1e-12"), _R(1, 2))},
        quantity="epsilon of (eps, delta)-DP implied by (alpha, eps_alpha)-RDP",
        premises=(Property("RDP", (alpha, eps_alpha), "M"),),
        conclusion=Property("DP", (RDP_TO_DP, delta), "M"),
        tags=("bridge", "rdp", "conversion"),
    ),
    theorem(
        "bridge.gdp_eps_of_delta",
        "mu-GDP implies (eps_mu(delta), delta)-DP with eps_mu the implicit solution of Bu et al.'s duality (3.2)",
        Kind.BOUND,
        _src("eq. (3.2) solved for epsilon (implicit function)", "Dong, Roth, Su 2019, Cor 2.13; Bu et al. eq. (3.2)"),
        lhs=eps_dp,
        rhs=GDPEpsilon(mu, delta),
        hypotheses=[mu > 0, delta > 0, delta < 1],
        domain={mu: (_R(1, 100), 10), delta: (sp.Float("1e-12"), _R(1, 2))},
        quantity="smallest epsilon with delta(epsilon; mu) <= delta for mu-GDP",
        premises=(Property("GDP", (mu,), "M"),),
        conclusion=Property("DP", (GDPEpsilon(mu, delta), delta), "M"),
        notes="An implicit function: numerical (mpmath bisection, safe side); no generated kernel.",
        tags=("bridge", "gdp", "conversion"),
    ),
    theorem(
        "bridge.bun_steinke2016_gaussian_zcdp",
        "zCDP of the Gaussian mechanism: rho = Delta^2 / (2 sigma^2)",
        Kind.BOUND,
        _src("Prop. 1.6", BUN_STEINKE),
        lhs=rho,
        rhs=GAUSS_ZCDP,
        hypotheses=[sigma > 0, Delta > 0],
        domain={sigma: (_R(1, 10), 100), Delta: (_R(1, 10), 10)},
        quantity="zCDP parameter rho of the Gaussian mechanism",
        premises=(Property("Gaussian", (Delta, sigma), "M"),),
        conclusion=Property("zCDP", (GAUSS_ZCDP,), "M"),
        tags=("bridge", "zcdp", "gaussian"),
    ),
    theorem(
        "bridge.bun_steinke2016_zcdp_to_dp",
        "zCDP to (eps, delta)-DP: eps = rho + 2 sqrt(rho log(1/delta))",
        Kind.BOUND,
        _src("Prop. 1.3", BUN_STEINKE),
        lhs=eps_dp,
        rhs=ZCDP_TO_DP,
        hypotheses=[rho > 0, delta > 0, delta < 1],
        domain={rho: (_R(1, 10**4), 100), delta: (sp.Float("1e-12"), _R(1, 2))},
        quantity="epsilon of (eps, delta)-DP implied by rho-zCDP",
        premises=(Property("zCDP", (rho,), "M"),),
        conclusion=Property("DP", (ZCDP_TO_DP, delta), "M"),
        tags=("bridge", "zcdp", "conversion"),
    ),
    theorem(
        "bridge.dwork_roth_basic_composition_eps",
        "Basic composition: T (eps, delta)-DP steps are (T eps, T delta)-DP",
        Kind.BOUND,
        _src("Thm 3.16", DWORK_ROTH),
        lhs=eps_T,
        rhs=T * eps,
        hypotheses=[*_dp_hyps()],
        domain={eps: (_R(1, 100), 10), delta: (sp.Float("1e-12"), _R(1, 100)), T: (1, 10**4)},
        quantity="epsilon of the T-fold adaptive composition",
        premises=(Property("DP", (eps, delta), "M_i"),),
        conclusion=Property("DP", (T * eps, T * delta), "A"),
        tags=("bridge", "composition"),
    ),
    theorem(
        "bridge.group_privacy_dp",
        "Group privacy, add/remove to replace-one: (eps, delta)-DP under add/remove is (2 eps, (1 + e^eps) delta)-DP "
        "under replace-one",
        Kind.BOUND,
        _src("Thm 2.2's argument for groups of two (a replacement is a removal then an addition)", DWORK_ROTH),
        lhs=eps_grp,
        rhs=2 * eps,
        hypotheses=[*_dp_hyps()],
        domain={eps: (_R(1, 100), 10), delta: (sp.Float("1e-12"), _R(1, 2))},
        quantity="epsilon of M under replace-one adjacency, given (eps, delta)-DP under add/remove",
        premises=(Property("DP", (eps, delta), "M"),),
        conclusion=Property("DP", (2 * eps, (1 + sp.exp(eps)) * delta), "M"),
        notes=("P[M(S) in E] <= e^eps P[M(S - x) in E] + delta <= e^eps (e^eps P[M(S - x + x') in E] + delta) + delta: "
               "two add/remove hops give (2 eps, (1 + e^eps) delta), at most Dwork-Roth's (2 eps, 2 e^eps delta)."),
        tags=("bridge", "adjacency", "group-privacy"),
    ),
    theorem(
        "bridge.group_privacy_gdp",
        "Group privacy, add/remove to replace-one: mu-GDP under add/remove is 2 mu-GDP under replace-one",
        Kind.BOUND,
        _src("Thm 2.14 (group privacy, groups of two)", DRS),
        lhs=mu_grp,
        rhs=2 * mu,
        hypotheses=[mu > 0],
        domain={mu: (_R(1, 100), 10)},
        quantity="GDP parameter of M under replace-one adjacency, given mu-GDP under add/remove",
        premises=(Property("GDP", (mu,), "M"),),
        conclusion=Property("GDP", (2 * mu,), "M"),
        tags=("bridge", "adjacency", "group-privacy"),
    ),
    theorem(
        "bridge.group_privacy_zcdp",
        "Group privacy, add/remove to replace-one: rho-zCDP under add/remove is 4 rho-zCDP under replace-one",
        Kind.BOUND,
        _src("Prop. 1.9 (group privacy, k = 2)", BUN_STEINKE),
        lhs=rho_grp,
        rhs=4 * rho,
        hypotheses=[rho > 0],
        domain={rho: (_R(1, 10**4), 100)},
        quantity="zCDP parameter of M under replace-one adjacency, given rho-zCDP under add/remove",
        premises=(Property("zCDP", (rho,), "M"),),
        conclusion=Property("zCDP", (4 * rho,), "M"),
        tags=("bridge", "adjacency", "group-privacy"),
    ),
    theorem(
        "bridge.mtz2019_sgm_rdp",
        "RDP of one Poisson-subsampled Gaussian step (noise multiplier sigma, rate q), add/remove adjacency",
        Kind.BOUND,
        _src("Sec. 3.3 (integer orders; fractional orders bounded by the next integer order)", MTZ),
        lhs=eps_alpha,
        rhs=SGMRDP(q, sigma, alpha),
        hypotheses=[alpha > 1, q > 0, q <= 1, sigma > 0],
        domain={alpha: (2, 256), q: (sp.Float("1e-6"), 1), sigma: (_R(3, 10), 100)},
        quantity="Renyi divergence of order alpha of one DP-SGD step (clipping norm 1, noise multiplier sigma)",
        premises=(Property("Poisson-subsampled-Gaussian-step", (q, sigma), "M"),),
        conclusion=Property("RDP", (alpha, SGMRDP(q, sigma, alpha)), "M"),
        notes="An opaque function evaluated numerically (mpmath, rounded up); no generated kernel.",
        tags=("bridge", "rdp", "subsampling"),
    ),
    theorem(
        "bridge.mironov2017_rdp_composition",
        "T-fold adaptive composition of (alpha, eps_alpha)-RDP steps is (alpha, T eps_alpha)-RDP",
        Kind.BOUND,
        _src("Prop. 1", MIRONOV),
        lhs=eps_alpha_T,
        rhs=T * eps_alpha,
        hypotheses=[alpha > 1, eps_alpha > 0],
        domain={alpha: (_R(11, 10), 256), eps_alpha: (_R(1, 10**4), 10), T: (1, 10**6)},
        quantity="RDP of order alpha of the T-fold adaptive composition",
        premises=(Property("RDP", (alpha, eps_alpha), "M_i"),),
        conclusion=Property("RDP", (alpha, T * eps_alpha), "A"),
        tags=("bridge", "rdp", "composition"),
    ),
    theorem(
        "bridge.bun_steinke2016_zcdp_composition",
        "T-fold adaptive composition of rho-zCDP steps is T rho-zCDP",
        Kind.BOUND,
        _src("Lemma 2.3", BUN_STEINKE),
        lhs=rho_T,
        rhs=T * rho,
        hypotheses=[rho > 0],
        domain={rho: (_R(1, 10**4), 10), T: (1, 10**6)},
        quantity="zCDP parameter of the T-fold adaptive composition",
        premises=(Property("zCDP", (rho,), "M_i"),),
        conclusion=Property("zCDP", (T * rho,), "A"),
        tags=("bridge", "zcdp", "composition"),
    ),
    theorem(
        "bridge.wang2016_kl_to_on_average_kl",
        "KL-privacy eps implies eps-On-Average KL-privacy for every data distribution",
        Kind.BOUND,
        _src("Sec. 3 (after Def. 1) and Table 1", WANG2016),
        lhs=eps_okl,
        rhs=eps,
        hypotheses=[eps > 0],
        domain={eps: (_R(1, 1000), 50)},
        quantity="E_{Z ~ D^n, z ~ D} D_KL(A(Z) || A([Z_-1, z])) for an algorithm whose KL divergence between data sets "
                 "differing in one entry is at most eps",
        premises=(Property("KL-privacy", (eps,), "A"),),
        conclusion=Property("On-Average-KL-privacy", (eps,), "A"),
        notes=("Text: KL-privacy replaces DP's supremum over outputs by an expectation; 'by replacing both supremums "
               "with expectations we get what we call On-Average KL-Privacy'. An expectation is at most the "
               "supremum, so eps-KL-privacy gives eps-On-Average KL-privacy for every D."),
        tags=("bridge", "kl"),
    ),
    theorem(
        "bridge.dwork2015_thm20_nats",
        "eps-DP on i.i.d. data: beta-approximate max-information in nats (Thm 20 times ln 2)",
        Kind.BOUND,
        _src("Thm 20 (in nats)", DWORK2015),
        lhs=k_mi,
        rhs=MI_PURE_IID_NATS,
        hypotheses=[eps > 0, beta > 0, beta < 1],
        domain={eps: (_R(1, 1000), 1), beta: (sp.Float("1e-9"), _R(1, 2)), n: (10, 10**6)},
        quantity="beta-approximate max-information of an eps-DP algorithm on n i.i.d. samples (nats)",
        premises=(Property("DP", (eps, 0), "A"),),
        conclusion=Property("max-information", (MI_PURE_IID_NATS, beta), "A"),
        notes="Dwork et al. state it in bits (log base 2); multiplying by ln 2 gives nats.",
        tags=("bridge", "max-information"),
    ),
    theorem(
        "bridge.dwork2015_thm13_hoeffding",
        "beta-approximate max-information k (nats): |R_S(A(S)) - R(A(S))| <= sqrt((k + ln(2/(b - beta)))/(2n)) with "
        "probability >= 1 - b",
        Kind.BOUND,
        _src("Thm 13 with Hoeffding's inequality (loss in [0, 1])", DWORK2015),
        lhs=t_gap,
        rhs=THM13_HOEFFDING_GAP,
        hypotheses=[k_mi >= 0, beta >= 0, b_fail > beta, b_fail < 1, n >= 1],
        domain={k_mi: (0, 100), beta: (0, _R(1, 4)), b_fail: (_R(1, 2), _R(9, 10)), n: (10, 10**6)},
        quantity="generalization gap of h = A(S) (loss in [0, 1]) that holds with probability >= 1 - b, for an "
                 "algorithm of beta-approximate max-information k nats on n samples",
        premises=(Property("max-information", (k_mi, beta), "A"),),
        conclusion=Property("generalization", (THM13_HOEFFDING_GAP, b_fail), "A"),
        notes=("Thm 13: P[(S, A(S)) in O] <= e^k P[S x A(S) in O] + beta (k in nats). For O = {(S, h): "
               "|R_S(h) - R(h)| > t} and h independent of S, Hoeffding gives P <= 2 exp(-2 n t^2); setting "
               "e^k 2 exp(-2 n t^2) + beta = b and solving for t gives the bound."),
        tags=("bridge", "max-information", "generalization"),
    ),
    theorem(
        "bridge.pac_bayes_dp_prior",
        "PAC-Bayes-kl with a prior learned by an eps-DP algorithm on the same i.i.d. sample",
        Kind.BOUND,
        _src("Sec. 4 (with Dwork et al. 2015 Thm 20)", DZIUGAITE_ROY),
        lhs=c_pb,
        rhs=(KL_QP + MI_PURE_IID_NATS + sp.log(2 * sp.sqrt(n) / delta)) / n,
        hypotheses=[eps > 0, beta > 0, beta < 1, delta > 0, delta < 1],
        domain={eps: (_R(1, 1000), 1), beta: (sp.Float("1e-9"), _R(1, 2)), delta: (sp.Float("1e-9"), _R(1, 2)),
                n: (10, 10**6), KL_QP: (0, 100)},
        quantity="right-hand side c of kl(L_S(Q) || L(Q)) <= c, holding with probability >= 1 - delta - beta",
        premises=(Property("DP", (eps, 0), "prior learner"),),
        conclusion=Property("PAC-Bayes-kl", ((KL_QP + MI_PURE_IID_NATS + sp.log(2 * sp.sqrt(n) / delta)) / n,
                                             beta + delta), "A"),
        notes=("The data-dependent prior costs its max-information k (nats) in the numerator and beta in the "
               "failure probability (Dziugaite and Roy 2018; Rivasplata et al. 2020, Lemma 7)."),
        tags=("bridge", "pac-bayes", "max-information"),
    ),
]

__all__ = ["THEOREMS", "GDPEpsilon", "SGMRDP"]
