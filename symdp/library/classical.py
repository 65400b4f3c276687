r"""Prior work quoted by the sources, and standard results they rely on.

Each entry is encoded *as the quoting text prints it* (source key
``"classical"``, ``cites`` naming the original paper, ``file`` naming the seed
text that quotes it).  Where our plain-text copy is garbled or the quote
disagrees with the original, the entry says so in ``notes``; the verifier, not
the encoder, decides whether a quoted claim holds.

>>> from symdp.library import get
>>> get("classical.nissim_stemmer2015_high_prob").rhs
13*epsilon
"""

from __future__ import annotations

import sympy as sp

from ..symbols import Delta, N, T, delta, delta_p, delta_t, eps, eps_p, sigma
from ..theorem import Kind, Property, theorem
from ._sources import CLASSICAL, FILES, HE_LONG, HE_UAI, src

_F000 = FILES[HE_UAI][0]
_F001 = FILES[HE_LONG][0]
_R = sp.Rational


def _pos(s: sp.Symbol) -> sp.Basic:
    """``s > 0`` kept unevaluated (the symbol's assumptions would fold it to True) so it shows in listings."""
    return sp.Gt(s, 0, evaluate=False)


Gen = sp.Symbol("Gen", real=True)
P_fail = sp.Symbol("P_fail", nonnegative=True)
EGen_multi = sp.Symbol("EGen_multi", nonnegative=True)
D_KL = sp.Symbol("D_KL", nonnegative=True)
k_sets = sp.Symbol("k", positive=True, integer=True)
#: empirical risk and empirical variance of the loss of A(S) (Oneto et al.)
R_hat = sp.Symbol("Rhat", nonnegative=True)
V_hat = sp.Symbol("Vhat", nonnegative=True)
#: mini-batch size (SGLD)
tau = sp.Symbol("tau", positive=True, integer=True)
delta_opt = sp.Symbol("delta_opt", nonnegative=True)
l_ = sp.Symbol("l", nonnegative=True, integer=True)
i_ = sp.Idx("i")
eps_seq = sp.IndexedBase("epsilon_seq", positive=True)


_DP_HYPS = [_pos(eps), _pos(delta), delta < 1]
_BOX_DELTA = (sp.Float("1e-12"), sp.Float("1e-2"))

# ---- high-probability generalization bounds ---------------------------------
DWORK2015_A = 4 * eps
#: as printed in 000 ('1 - 8 delta eps'); see the entry's notes
DWORK2015_B = 8 * delta * eps
#: Dwork et al.'s own b (8 delta / eps), the reading the comparisons use: 000's '8 delta eps' and 001's
#: '8 delta^eps' are conversion damage of the fraction
DWORK2015_B_FRACTION = 8 * delta / eps
NS2015_A = 13 * eps
NS2015_B = 2 * delta / eps * sp.log(2 / eps)
NS2015_ON_AVERAGE = k_sets * delta + 2 * eps
#: eps-hat = eps + sqrt(1/N) of Oneto et al.
ONETO_EPS_HAT = eps + sp.sqrt(1 / N)
ONETO2017_A_RISK = sp.sqrt(6 * R_hat * ONETO_EPS_HAT) + 6 * eps**2 + 6 / N
ONETO2017_A_VAR = sp.sqrt(4 * V_hat * ONETO_EPS_HAT) + 5 * N / (N - 1) * (eps**2 + 1 / N)
ONETO2017_B = 3 * sp.exp(-N * eps**2)

# ---- composition ---------------------------------------------------------------
#: Dwork-Roth advanced composition (Thm 3.20 / Cor 3.21) as quoted, T identical eps-steps
DR_ADV_EPS = T * eps * (sp.exp(eps) - 1) + sp.sqrt(2 * sp.log(1 / delta_t) * T * eps**2)
DR_ADV_EPS_SUM = sp.Sum(eps_seq[i_] * (sp.exp(eps_seq[i_]) - 1), (i_, 1, T)) + sp.sqrt(
    2 * sp.log(1 / delta_t) * sp.Sum(eps_seq[i_] ** 2, (i_, 1, T))
)
DR_ADV_DELTA = delta_t + T * delta
#: Kairouz, Oh, Viswanath (2017) as printed in 001 (000 says 'the same as those in Theorem 4')
KAIROUZ_EPS1 = T * eps
KAIROUZ_EPS2 = (sp.exp(eps) - 1) * eps * T / (sp.exp(eps) + 1) + eps * sp.sqrt(
    2 * T * sp.log(sp.E + sp.sqrt(T * eps**2) / delta_t)
)
KAIROUZ_EPS3 = (sp.exp(eps) - 1) * eps * T / (sp.exp(eps) + 1) + eps * sp.sqrt(2 * T * sp.log(1 / delta_t))
KAIROUZ_EPS_PRIME = sp.Min(KAIROUZ_EPS1, KAIROUZ_EPS2, KAIROUZ_EPS3)
KAIROUZ_DELTA = 1 - (1 - delta) ** T * (1 - delta_t)
#: the exact optimal composition (Kairouz-Oh-Viswanath Thm 3.3), T identical (eps, delta) steps
_p_rr = sp.exp(eps) / (1 + sp.exp(eps))
KOV_OPTIMAL_DELTA = 1 - (1 - delta) ** T + (1 - delta) ** T * sp.Sum(
    sp.binomial(T, l_) * _p_rr ** (T - l_) * (1 - _p_rr) ** l_ * sp.Max(0, 1 - sp.exp(eps_p - (T - 2 * l_) * eps)),
    (l_, 0, T),
)

# ---- KL bounds -------------------------------------------------------------------
DWORK2010_KL = eps * (sp.exp(eps) - 1)
DWORK_ROTHBLUM2016_KL = eps * (sp.exp(eps) - 1) / 2

# ---- mechanisms --------------------------------------------------------------------
GAUSSIAN_SIGMA = Delta * sp.sqrt(2 * sp.log(_R(5, 4) / delta)) / eps
WANG2015_SGLD_T = eps**2 * N / (32 * tau * sp.log(2 / delta))


def _gen_pair(id_, title, locator, cites, a, b, hyps, dom, notes, file=_F000, subject_extra="", lhs=Gen):
    """Two entries for 'P(Gen >= a) < b': the gap and the failure probability."""
    s = src(CLASSICAL, locator, cites=cites, file=file)
    concl = Property("generalization", (a, b), "A")
    prem = (Property("DP", (eps, delta), "A"),)
    return [
        theorem(
            id_,
            f"{title}: the gap a",
            Kind.BOUND,
            s,
            lhs=lhs,
            relation="<",
            rhs=a,
            hypotheses=hyps,
            domain=dom,
            quantity=f"Gen_{{S,A(S)}}{subject_extra} (holds with probability > 1 - b)",
            premises=prem,
            conclusion=concl,
            notes=notes,
            tags=("generalization", "high-probability", "prior-work"),
        ),
        theorem(
            f"{id_}_failure",
            f"{title}: the failure probability b",
            Kind.BOUND,
            s,
            lhs=P_fail,
            relation="<",
            rhs=b,
            hypotheses=hyps,
            domain=dom,
            quantity=f"P({sp.sstr(lhs)} >= a)",
            premises=prem,
            conclusion=concl,
            notes=notes,
            tags=("generalization", "high-probability", "prior-work"),
        ),
    ]


THEOREMS = [
    *_gen_pair(
        "classical.dwork2015_high_prob",
        "Dwork et al. 2015 high-probability generalization bound (as quoted)",
        "quoted in He et al. (UAI) Sec. 3.1.2",
        "Dwork, Feldman, Hardt, Pitassi, Reingold, Roth 2015, 'Preserving statistical validity in adaptive data analysis' (STOC)",
        DWORK2015_A,
        DWORK2015_B,
        _DP_HYPS,
        {eps: (_R(1, 1000), 1), delta: _BOX_DELTA},
        (
            "He et al. (UAI) prints 'P[Gen < 4 eps] > 1 - 8 delta eps' (b = 8 delta eps, encoded); He et al. (long) prints '1 - 8 delta^eps'. "
            "Both look like conversion damage of a fraction: the original result is usually cited with "
            "b = 8 delta / eps. No sample-size condition is quoted."
        ),
    ),
    *_gen_pair(
        "classical.nissim_stemmer2015_high_prob",
        "Nissim-Stemmer 2015 high-probability generalization bound (as quoted)",
        "quoted in He et al. (UAI) Sec. 1 and Sec. 3.1.2",
        "Nissim and Stemmer 2015, 'On the generalization properties of differential privacy'",
        NS2015_A,
        NS2015_B,
        [*_DP_HYPS, eps <= _R(1, 10)],
        {eps: (_R(1, 10**4), _R(1, 10)), delta: _BOX_DELTA},
        (
            "He et al. (UAI): P[|Gen| < 13 eps] > 1 - (2 delta/eps) log(2/eps), binary classification only, eps <= 1/10. "
            "'log' is taken as the natural log (He et al.'s (UAI) own Theorem 1 writes ln for the matching term)."
        ),
        subject_extra=" (absolute value)",
        lhs=sp.Abs(Gen),
    ),
    theorem(
        "classical.nissim_stemmer2015_on_average",
        "Nissim-Stemmer 2015 on-average multi-sample-set generalization bound (as quoted)",
        Kind.BOUND,
        src(CLASSICAL, "quoted in He et al. (UAI) Sec. 3.1.2 (Comparison of Theorem 2)", cites="Nissim and Stemmer 2015", file=_F000),
        lhs=EGen_multi,
        rhs=NS2015_ON_AVERAGE,
        hypotheses=[*_DP_HYPS, sp.Ge(k_sets, 1, evaluate=False)],
        domain={eps: (_R(1, 100), 10), delta: _BOX_DELTA, k_sets: (1, 10**6)},
        quantity="|E[Gen_{S_{i_B(S)}, h_B(S)}]| for an (eps, delta)-DP multi-sample-set algorithm B",
        premises=(Property("DP", (eps, delta), "B"),),
        notes="Binary classification only (per the quoting text).",
        tags=("generalization", "on-average", "prior-work"),
    ),
    *_gen_pair(
        "classical.oneto2017_empirical_risk",
        "Oneto et al. 2017 generalization bound, empirical-risk form (as quoted)",
        "quoted in He et al. (UAI) Sec. 3.1.2",
        "Oneto, Ridella, Anguita 2017, 'Differential privacy and generalization: sharper bounds with applications'",
        ONETO2017_A_RISK,
        ONETO2017_B,
        [*_DP_HYPS, R_hat <= 1],
        {eps: (_R(1, 1000), 1), delta: _BOX_DELTA, R_hat: (0, 1), N: (10, 10**7)},
        (
            "eps_hat = eps + sqrt(1/N); Rhat = empirical risk of A(S). He et al.'s (UAI) plain text is "
            "'sqrt(6 R_S(A(S)) eps_hat + 6 eps^2 + 6/N)' with the extent of the root lost; encoded as "
            "sqrt(6 Rhat eps_hat) + 6 eps^2 + 6/N. He et al. (long) prints sqrt(6 Rhat) eps_hat + 6 (eps^2 + 1/N)."
        ),
    ),
    theorem(
        "classical.oneto2017_empirical_variance",
        "Oneto et al. 2017 generalization bound, empirical-variance form (as quoted): the gap a",
        Kind.BOUND,
        src(CLASSICAL, "quoted in He et al. (UAI) Sec. 3.1.2", cites="Oneto, Ridella, Anguita 2017", file=_F000),
        lhs=Gen,
        relation="<",
        rhs=ONETO2017_A_VAR,
        hypotheses=[*_DP_HYPS, N >= 2, V_hat <= 1],
        domain={eps: (_R(1, 1000), 1), delta: _BOX_DELTA, V_hat: (0, _R(1, 4)), N: (10, 10**7)},
        quantity="Gen_{S,A(S)} (holds with probability > 1 - 3 exp(-N eps^2))",
        premises=(Property("DP", (eps, delta), "A"),),
        conclusion=Property("generalization", (ONETO2017_A_VAR, ONETO2017_B), "A"),
        notes=(
            "Vhat = empirical variance of l(A(S), .) (He et al. (long): 1/(2N(N-1)) sum_{i != j} (l_i - l_j)^2). "
            "He et al. (UAI): sqrt(4 Vhat eps_hat) + 5N/(N-1) (eps^2 + 1/N); He et al. (long) prints sqrt(4 Vhat) eps_hat + ... "
            "The failure probability is classical.oneto2017_empirical_risk_failure's."
        ),
        tags=("generalization", "high-probability", "prior-work"),
    ),
    theorem(
        "classical.dwork_roth_advanced_composition_eps",
        "Advanced composition, epsilon (T identical eps-steps, as quoted)",
        Kind.BOUND,
        src(CLASSICAL, "quoted in He et al. (UAI) Sec. 3.2.2", cites="Dwork and Roth 2014, Theorem 3.20 and Corollary 3.21", file=_F000),
        lhs=eps_p,
        rhs=DR_ADV_EPS,
        hypotheses=[*_DP_HYPS, _pos(delta_t), delta_t < 1],
        domain={eps: (_R(1, 1000), 2), T: (1, 10**6), delta_t: _BOX_DELTA},
        quantity="composed epsilon of T adaptively composed (eps, delta)-DP steps",
        premises=(Property("DP", (eps, delta), "M_i"),),
        conclusion=Property("DP", (DR_ADV_EPS, DR_ADV_DELTA), "A"),
        oracle="optimal_composition",
        notes=(
            "The quote is sum_i eps_i (e^eps_i - 1) + sqrt(2 log(1/delta) sum_i eps_i^2) with delta' = delta~ + "
            "sum_i delta_i. The unsubscripted delta inside the log is read as the slack delta~ (deltatilde), as in "
            "Dwork-Roth Thm 3.20. Homogeneous case eps_i = eps; see "
            "classical.dwork_roth_advanced_composition_eps_sum for the quoted sum form."
        ),
        tags=("composition", "prior-work"),
    ),
    theorem(
        "classical.dwork_roth_advanced_composition_eps_sum",
        "Advanced composition, epsilon (heterogeneous steps, as quoted)",
        Kind.BOUND,
        src(CLASSICAL, "quoted in He et al. (UAI) Sec. 3.2.2", cites="Dwork and Roth 2014, Theorem 3.20 and Corollary 3.21", file=_F000),
        lhs=eps_p,
        rhs=DR_ADV_EPS_SUM,
        hypotheses=[_pos(delta_t), delta_t < 1],
        quantity="composed epsilon of T adaptively composed (eps_i, delta_i)-DP steps",
        oracle="composition_hetero_dr",
        notes="epsilon_seq[i] is the i-th step's epsilon; delta in the log read as delta~.",
        tags=("composition", "prior-work", "heterogeneous"),
    ),
    theorem(
        "classical.dwork_roth_advanced_composition_delta",
        "Advanced composition, delta (T identical steps, as quoted)",
        Kind.BOUND,
        src(CLASSICAL, "quoted in He et al. (UAI) Sec. 3.2.2", cites="Dwork and Roth 2014, Theorem 3.20 and Corollary 3.21", file=_F000),
        lhs=delta_p,
        rhs=DR_ADV_DELTA,
        hypotheses=[*_DP_HYPS, _pos(delta_t), delta_t < 1],
        domain={delta: _BOX_DELTA, T: (1, 10**6), delta_t: _BOX_DELTA},
        quantity="composed delta of T (eps, delta)-DP steps at eps' = classical.dwork_roth_advanced_composition_eps",
        premises=(Property("DP", (eps, delta), "M_i"),),
        conclusion=Property("DP", (DR_ADV_EPS, DR_ADV_DELTA), "A"),
        oracle="optimal_composition",
        notes="Quoted as delta' = delta~ + sum_i delta_i; homogeneous case delta_i = delta.",
        tags=("composition", "prior-work"),
    ),
    *[
        theorem(
            f"classical.kairouz2017_eps{j}",
            f"Kairouz-Oh-Viswanath composition, eps'_{j} (as printed in He et al. (long))",
            Kind.BOUND,
            src(CLASSICAL, "quoted in He et al. (long) Sec. 4.2.2 (He et al. (UAI) Sec. 3.2.2: 'the same as those in Theorem 4')",
                cites="Kairouz, Oh, Viswanath 2017, 'The composition theorem for differential privacy'", file=_F001),
            lhs=eps_p,
            rhs=expr,
            hypotheses=[*_DP_HYPS, _pos(delta_t), delta_t < 1],
            domain={eps: (_R(1, 1000), 2), T: (1, 10**6), delta_t: _BOX_DELTA},
            quantity="composed epsilon of T (eps, delta)-DP steps (paired with classical.kairouz2017_delta)",
            premises=(Property("DP", (eps, delta), "M_i"),),
            conclusion=Property("DP", (KAIROUZ_EPS_PRIME, KAIROUZ_DELTA), "A"),
            oracle="optimal_composition",
            notes="eps' = min{eps'_1, eps'_2, eps'_3}; delta' = 1 - (1 - delta)^T (1 - delta~).",
            tags=("composition", "prior-work"),
        )
        for j, expr in ((1, KAIROUZ_EPS1), (2, KAIROUZ_EPS2), (3, KAIROUZ_EPS3))
    ],
    theorem(
        "classical.kairouz2017_delta",
        "Kairouz-Oh-Viswanath composition, delta' (as quoted)",
        Kind.BOUND,
        src(CLASSICAL, "quoted in He et al. (UAI) Sec. 3.2.2", cites="Kairouz, Oh, Viswanath 2017", file=_F000),
        lhs=delta_p,
        rhs=KAIROUZ_DELTA,
        hypotheses=[*_DP_HYPS, _pos(delta_t), delta_t < 1],
        domain={delta: _BOX_DELTA, T: (1, 10**6), delta_t: _BOX_DELTA},
        quantity="composed delta of T (eps, delta)-DP steps at eps' = min{eps'_1, eps'_2, eps'_3}",
        premises=(Property("DP", (eps, delta), "M_i"),),
        conclusion=Property("DP", (KAIROUZ_EPS_PRIME, KAIROUZ_DELTA), "A"),
        oracle="optimal_composition",
        tags=("composition", "prior-work"),
    ),
    theorem(
        "classical.kov2017_optimal_composition",
        "Optimal composition of T identical (eps, delta)-DP steps",
        Kind.DEFINITION,
        src(CLASSICAL, "Theorem 3.3 (standard statement)", cites="Kairouz, Oh, Viswanath 2017"),
        lhs=delta_opt,
        rhs=KOV_OPTIMAL_DELTA,
        hypotheses=[*_DP_HYPS, eps_p >= 0],
        domain={eps: (_R(1, 100), 2), delta: (sp.Float("1e-9"), sp.Float("1e-3")), T: (1, 100), eps_p: (0, 5)},
        quantity="smallest delta' such that every T-fold composition of (eps, delta)-DP mechanisms is (eps', delta')-DP",
        premises=(Property("DP", (eps, delta), "M_i"),),
        oracle="optimal_composition_enum",
        notes=(
            "delta_T(eps') = 1 - (1-delta)^T + (1-delta)^T sum_l C(T,l) p^(T-l) (1-p)^l [1 - e^(eps' - (T-2l) eps)]_+, "
            "p = e^eps/(1+e^eps): the privacy profile of T copies of the worst-case (eps, delta) pair. "
            "Not quoted by the He texts; recorded as the exact reference their composition claims are checked against."
        ),
        tags=("composition", "exact", "oracle"),
    ),
    theorem(
        "classical.dwork2010_kl",
        "KL divergence of an eps-DP mechanism, Dwork-Rothblum-Vadhan 2010 (as quoted)",
        Kind.BOUND,
        src(CLASSICAL, "quoted in He et al. (UAI) Sec. 3.2.1 (after Lemma 2)", cites="Dwork, Rothblum, Vadhan 2010, 'Boosting and differential privacy'", file=_F000),
        lhs=D_KL,
        rhs=DWORK2010_KL,
        hypotheses=[_pos(eps)],
        domain={eps: (sp.Rational(1, 10**8), 50)},
        quantity="sup over neighbouring S, S' of D_KL(A(S) || A(S')) for eps-DP A",
        premises=(Property("DP", (eps, sp.Integer(0)), "A"),),
        oracle="kl_eps_dp",
        tags=("kl", "prior-work"),
    ),
    theorem(
        "classical.dwork_rothblum2016_kl",
        "KL divergence of an eps-DP mechanism, Dwork-Rothblum 2016 (as quoted, eq. 8 of He et al. (UAI))",
        Kind.BOUND,
        src(CLASSICAL, "quoted in He et al. (UAI) eq. (8)", cites="Dwork and Rothblum 2016, 'Concentrated differential privacy'", file=_F000),
        lhs=D_KL,
        rhs=DWORK_ROTHBLUM2016_KL,
        hypotheses=[_pos(eps)],
        domain={eps: (sp.Rational(1, 10**8), 50)},
        quantity="sup over neighbouring S, S' of D_KL(A(S) || A(S')) for eps-DP A",
        premises=(Property("DP", (eps, sp.Integer(0)), "A"),),
        oracle="kl_eps_dp",
        tags=("kl", "prior-work"),
    ),
    theorem(
        "classical.randomized_response_kl",
        "KL divergence of randomized response (the worst-case eps-DP pair)",
        Kind.IDENTITY,
        src(CLASSICAL, "standard computation", cites="Kairouz, Oh, Viswanath 2017 (worst-case pair); Warner 1965"),
        lhs=_p_rr * sp.log(_p_rr / (1 - _p_rr)) + (1 - _p_rr) * sp.log((1 - _p_rr) / _p_rr),
        rhs=eps * (sp.exp(eps) - 1) / (sp.exp(eps) + 1),
        hypotheses=[_pos(eps)],
        domain={eps: (sp.Rational(1, 10**8), 50)},
        quantity="D_KL(Bern(p) || Bern(1-p)) with p = e^eps/(1+e^eps)",
        oracle="kl_eps_dp",
        notes="Shows He et al. Lemma 2's bound eps (e^eps-1)/(e^eps+1) is attained, hence cannot be improved.",
        tags=("kl", "exact"),
    ),
    theorem(
        "classical.gaussian_mechanism_calibration",
        "Gaussian mechanism calibration",
        Kind.BOUND,
        src(CLASSICAL, "Theorem A.1", cites="Dwork and Roth 2014, Theorem A.1"),
        lhs=sigma,
        relation=">=",
        rhs=GAUSSIAN_SIGMA,
        hypotheses=[_pos(eps), eps < 1, _pos(delta), delta < 1],
        domain={eps: (_R(1, 100), _R(99, 100)), delta: (sp.Float("1e-12"), _R(1, 2)), Delta: (_R(1, 10), 10)},
        quantity="noise standard deviation sufficient for (eps, delta)-DP of N(0, sigma^2) added to an L2-sensitivity-Delta statistic",
        conclusion=Property("DP", (eps, delta), "Gaussian mechanism"),
        oracle="gaussian_profile",
        notes=(
            "sigma here is the noise standard deviation (not the multiplier); with Delta = 1 it is the multiplier. "
            "Exact profile (Balle-Wang 2018): delta(eps) = Phi(-eps/r + r/2) - e^eps Phi(-eps/r - r/2), r = Delta/sigma."
        ),
        tags=("mechanism", "gaussian", "calibration"),
    ),
    theorem(
        "classical.wang2015_sgld_privacy_for_free",
        "SGLD 'privacy for free' condition (as quoted)",
        Kind.BOUND,
        src(CLASSICAL, "quoted in He et al. (long) Sec. 5.1", cites="Wang, Fienberg, Smola 2015, 'Privacy for free: posterior sampling and stochastic gradient Monte Carlo'", file=_F001),
        lhs=T,
        relation=">",
        rhs=WANG2015_SGLD_T,
        hypotheses=[*_DP_HYPS],
        domain={eps: (_R(1, 100), 10), delta: _BOX_DELTA, N: (100, 10**7), tau: (1, 1024)},
        quantity="number of SGLD iterations sufficient for (eps, delta)-DP",
        conclusion=Property("DP", (eps, delta), "SGLD"),
        notes="Quoted as 'SGLD is (eps, delta)-DP if T > eps^2 N / (32 tau log(2/delta))' (tau: mini-batch size).",
        tags=("sgld", "prior-work"),
    ),
]
