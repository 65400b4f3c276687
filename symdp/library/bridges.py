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
k_mi = sp.Symbol("k_MI", positive=True)
KL_QP = sp.Symbol("KL_QP", nonnegative=True)
c_pb = sp.Symbol("c_PB", positive=True)

BBG = "Balle, Barthe, Gaboardi 2018, 'Privacy amplification by subsampling: tight analyses via couplings and divergences'"
MIRONOV = "Mironov 2017, 'Renyi differential privacy'"
BUN_STEINKE = "Bun and Steinke 2016, 'Concentrated differential privacy: simplifications, extensions, and lower bounds'"
DWORK_ROTH = "Dwork and Roth 2014, 'The algorithmic foundations of differential privacy'"
DWORK2015 = "Dwork, Feldman, Hardt, Pitassi, Reingold, Roth 2015, 'Generalization in adaptive data analysis and holdout reuse'"
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
#: Dwork et al. 2015 Thm 20, converted from bits to nats (log2(e) * x bits = x nats)
MI_PURE_IID_NATS = eps**2 * n / 2 + eps * sp.sqrt(n * sp.log(2 / beta) / 2)


class GDPEpsilon(sp.Function):
    r"""The implicit function :math:`\epsilon_\mu(\delta)`: the epsilon at which mu-GDP's exact
    privacy profile (003 eq. 3.2, Dong-Roth-Su 2019 Cor 2.13)
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

        mu_e, d_e = (a.evalf(prec + 30) for a in self.args)
        if not (mu_e.is_Number and d_e.is_Number):
            return None
        with mpmath.workprec(prec + 40):
            m, d = mpmath.mpf(str(mu_e)), mpmath.mpf(str(d_e))
            if m <= 0 or not 0 < d < 1:
                return None

            def prof(e: mpmath.mpf) -> mpmath.mpf:
                return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)

            if prof(mpmath.mpf(0)) <= d:
                return sp.Float(0, dps=max(prec // 3, 15))
            lo, hi = mpmath.mpf(0), m * m / 2 + m * mpmath.sqrt(2 * mpmath.log(1 / d)) + 1
            while prof(hi) > d:
                lo, hi = hi, 2 * hi
            for _ in range(prec + 60):
                mid = (lo + hi) / 2
                if prof(mid) > d:
                    lo = mid
                else:
                    hi = mid
            # round up (the safe side) past the conversion to ``prec`` bits
            return sp.Float(hi * (1 + mpmath.mpf(2) ** (10 - prec)), precision=prec)


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
        "mu-GDP implies (eps_mu(delta), delta)-DP with eps_mu the implicit solution of 003's duality (3.2)",
        Kind.BOUND,
        _src("eq. (3.2) solved for epsilon (implicit function)", "Dong, Roth, Su 2019, Cor 2.13; 003 eq. (3.2)"),
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

__all__ = ["THEOREMS"]
