r"""He, Wang, Tao: "Tighter generalization bounds for iterative differentially private
learning algorithms".  He et al. (UAI) = UAI (short) version, He et al. (long) = long (journal) version.

Ids: ``he2021.*`` for statements common to both texts, ``he2021uai.*`` /
``he2021long.*`` where the versions differ.  This module encodes the He et al. (UAI) (UAI)
text and every comparison claim it makes; the prior work it quotes lives in
:mod:`symdp.library.classical`.

Conventions used below.

* A high-probability generalization bound ``P(|Gen| > a) < b`` is stored as two
  entries: ``|Gen| <= a`` (with ``conclusion=Property("generalization", (a, b))``)
  and ``P_fail < b`` (the failure probability).  ``a`` and ``b`` are also
  exposed as module constants so other modules can build cross-version entries.
* A composition result "A is (eps', delta')-DP" is a bound on the composed
  epsilon ``epsilonprime <= rhs`` or on the composed delta
  ``deltaprime <= rhs`` (where ``rhs`` may depend on the target
  ``epsilonprime``).  Homogeneous forms (every step (eps, delta)-DP, T steps)
  are the numeric entries; heterogeneous forms use ``IndexedBase`` sequences
  ``epsilon_seq[i]``, ``delta_seq[i]``, ``alpha_seq[i]``.
* Constants printed as decimals in the text (1.7, 0.9, 1.2, ...) are exact
  rationals here (17/10, 9/10, 6/5, ...).

>>> from symdp.library import get
>>> get("he2021uai.thm1_small_eps").rhs
4*epsilon
"""

from __future__ import annotations

import sympy as sp

from ..symbols import N, T, delta, delta_p, delta_t, eps, eps_p, sigma
from ..theorem import Expansion, Kind, Property, theorem
from ._sources import HE_LONG, HE_UAI, generic_steps_note, src

# ---------------------------------------------------------------------------
# module-local symbols (quantities that appear in this source only)
# ---------------------------------------------------------------------------
D_KL = sp.Symbol("D_KL", nonnegative=True)
#: generalization error Gen_{S,A(S)} = R_D(A(S)) - R_S(A(S))
Gen = sp.Symbol("Gen", real=True)
#: P(|Gen| > a): failure probability of a high-probability bound
P_fail = sp.Symbol("P_fail", nonnegative=True)
#: P(Gen_{S_i,h} <= a) for a multi-sample-set algorithm (Thm 3, Lemma 1)
P_succ = sp.Symbol("P_succ", nonnegative=True)
#: |E[Gen]| of a multi-sample-set algorithm (Thm 2)
EGen_multi = sp.Symbol("EGen_multi", nonnegative=True)
#: number of sub-sample-sets of a multi-sample-set algorithm
k_sets = sp.Symbol("k", positive=True, integer=True)
#: the unspecified positive constants c1..c7 of Thm 1 (000)
c1, c2, c3, c4, c5, c6, c7 = sp.symbols("c1:8", positive=True)
#: mini-batch size and diameter of the update function (Algorithm 1, 000)
tau = sp.Symbol("tau", positive=True, integer=True)
D_diam = sp.Symbol("D", positive=True)
#: the per-step epsilon of IGMM (Thm 7, 000) and the slack delta-tilde'
eps_tl = sp.Symbol("epsilontilde", positive=True)
delta_tp = sp.Symbol("deltatildeprime", positive=True)
#: number of clients in agnostic federated learning (Cor 3, 000)
C_clients = sp.Symbol("C_clients", positive=True, integer=True)
a_fed = sp.Symbol("a_fed", positive=True)
b_fed = sp.Symbol("b_fed", positive=True)
#: event probabilities used by the definitions (sup over events is in the notes)
P_AS, P_ASp = sp.symbols("P_AS P_ASprime", positive=True)
P_XS, P_YS = sp.symbols("P_XS P_YS", positive=True)
L_delta = sp.Symbol("L_delta", real=True)
D_inf = sp.Symbol("D_inf", real=True)
D_inf_delta = sp.Symbol("D_inf_delta", real=True)
Delta_stat = sp.Symbol("Delta_stat", nonnegative=True)
#: exponential mechanism: utility, its sensitivity, unnormalised weight
u_util = sp.Symbol("u", real=True)
Delta_u = sp.Symbol("Delta_u", positive=True)
w_exp = sp.Symbol("w", positive=True)
#: discrete distributions for the KL definition
n_atoms = sp.Symbol("n_atoms", positive=True, integer=True)
i_ = sp.Idx("i")
P_seq = sp.IndexedBase("P_seq", positive=True)
Q_seq = sp.IndexedBase("Q_seq", positive=True)
#: heterogeneous per-step parameters
eps_seq = sp.IndexedBase("epsilon_seq", positive=True)
delta_seq = sp.IndexedBase("delta_seq", positive=True)
alpha_seq = sp.IndexedBase("alpha_seq", nonnegative=True)

_R = sp.Rational


def _pos(s: sp.Symbol) -> sp.Basic:
    """``s > 0`` kept unevaluated (the symbol's assumptions would fold it to True) so it shows in listings."""
    return sp.Gt(s, 0, evaluate=False)

_EM = sp.exp(-eps)

#: He et al. Lemma 2 (000) bound on the KL divergence of an eps-DP mechanism
KL_BOUND = eps * (sp.exp(eps) - 1) / (sp.exp(eps) + 1)

# ---------------------------------------------------------------------------
# Theorem 1 (000): high-probability generalization bound, both eps regimes
# ---------------------------------------------------------------------------
#: a and b of Thm 1 (000) for eps <= 1/5
THM1_UAI_A_SMALL = 4 * eps
THM1_UAI_B_SMALL = 2 * sp.exp(-_R(17, 10) * eps) * delta / eps * sp.log(2 / eps)
#: a and b of Thm 1 (000) for eps > 1/5
THM1_UAI_A_LARGE = _R(6, 5) * (1 - _R(9, 10) * _EM)
THM1_UAI_B_LARGE = 18 * _EM * delta / (1 - _R(9, 10) * _EM) * sp.log(220 / (1 - _R(9, 10) * _EM))
#: the sample-size condition N >= max{...} of Thm 1 (000); c1..c7 unspecified positive constants
THM1_UAI_N_CONDITION = sp.Max(
    c1 / eps**2 * sp.log(c2 / (sp.exp(-c3 * eps) * delta)),
    c4 / (c5 * (1 - c6 * _EM)) * sp.log(c7 * _EM * delta),
)
#: the same condition with the constants Lemma 1 (000) makes explicit
LEMMA1_UAI_N_CONDITION = sp.Max(
    2 / (_R(77, 1000) * eps**2) * sp.log(_R(43, 254) / (sp.exp(-_R(17, 10) * eps) * delta)),
    200 / (sp.log(_R(9, 10)) * (1 - _R(9, 10) * _EM)) * sp.log(9 * _EM * delta / 48180),
)
#: substitution {c_i: value} turning THM1_UAI_N_CONDITION into LEMMA1_UAI_N_CONDITION
LEMMA1_UAI_CONSTANTS = {
    c1: 2 / _R(77, 1000),
    c2: _R(43, 254),
    c3: _R(17, 10),
    c4: sp.Integer(200),
    c5: sp.log(_R(9, 10)),
    c6: _R(9, 10),
    c7: _R(9, 48180),
}

_C_NOTE = (
    "c1..c7 are 'some positive constants' the text leaves unspecified; they stay symbols. "
    "Lemma 1 (He et al. (UAI)) makes them explicit (LEMMA1_UAI_CONSTANTS), and there the constant in the "
    "place of c5 is ln(0.9) < 0, which contradicts 'positive'. "
)
_N_GARBLE = (
    "Our plain-text copy prints the second term as 'c4 / (c5 (1 - c6 e^-eps)) ln c7 e^-eps delta'; "
    "read as c4/(c5 (1 - c6 e^{-eps})) * ln(c7 e^{-eps} delta). "
)
_DP_HYPS = [_pos(eps), _pos(delta), delta < 1]
_BOX_C = {c: (_R(1, 10), 10) for c in (c1, c2, c3, c4, c5, c6, c7)}
_BOX_DELTA = (sp.Float("1e-12"), sp.Float("1e-2"))


def _thm1(regime: str, a, b, eps_hyps, eps_box, title: str):
    hyps = [*_DP_HYPS, *eps_hyps, N >= THM1_UAI_N_CONDITION]
    common = dict(
        hypotheses=hyps,
        premises=(Property("DP", (eps, delta), "A"),),
        conclusion=Property("generalization", (a, b), "A"),
        tags=("generalization", "high-probability", "thm1"),
    )
    dom = {eps: eps_box, delta: _BOX_DELTA, N: (1, 10**12), **_BOX_C}
    notes = _C_NOTE + _N_GARBLE + "Assumes the loss satisfies ||l||_inf <= 1; the statement is eq. (1): P(|Gen| > a) < b."
    return [
        theorem(
            f"he2021uai.thm1_{regime}",
            f"High-probability generalization bound from (eps, delta)-DP, {title}: the gap a",
            Kind.BOUND,
            src(HE_UAI, "Theorem 1"),
            lhs=sp.Abs(Gen),
            relation="<=",
            rhs=a,
            domain=dom,
            quantity="|Gen_{S,A(S)}| (holds with probability > 1 - b)",
            notes=notes,
            **common,
        ),
        theorem(
            f"he2021uai.thm1_{regime}_failure",
            f"High-probability generalization bound from (eps, delta)-DP, {title}: the failure probability b",
            Kind.BOUND,
            src(HE_UAI, "Theorem 1"),
            lhs=P_fail,
            relation="<",
            rhs=b,
            domain=dom,
            quantity="P(|Gen_{S,A(S)}| > a)",
            notes=notes,
            **common,
        ),
    ]


_THM1 = [
    *_thm1("small_eps", THM1_UAI_A_SMALL, THM1_UAI_B_SMALL, [eps <= _R(1, 5)], (_R(1, 10**4), _R(1, 5)), "eps <= 1/5"),
    *_thm1("large_eps", THM1_UAI_A_LARGE, THM1_UAI_B_LARGE, [eps > _R(1, 5)], (_R(1, 5), 20), "eps > 1/5"),
    theorem(
        "he2021uai.thm1_n_condition",
        "Sample-size condition of Theorem 1 (He et al. (UAI))",
        Kind.BOUND,
        src(HE_UAI, "Theorem 1"),
        lhs=N,
        relation=">=",
        rhs=THM1_UAI_N_CONDITION,
        hypotheses=_DP_HYPS,
        domain={eps: (_R(1, 100), 5), delta: _BOX_DELTA, **_BOX_C},
        quantity="training sample size N required by Theorem 1",
        notes=_C_NOTE + _N_GARBLE,
        tags=("generalization", "sample-size", "thm1", "assumption"),
    ),
]

# ---------------------------------------------------------------------------
# Definitions
# ---------------------------------------------------------------------------
_DEFS = [
    theorem(
        "he2021.def_dp",
        "(eps, delta)-differential privacy",
        Kind.DEFINITION,
        src(HE_UAI, "Definition 1 (eq. 2)"),
        lhs=L_delta,
        rhs=sp.log((P_AS - delta) / P_ASp),
        hypotheses=[*_DP_HYPS, P_AS > delta, P_AS <= 1, P_ASp <= 1],
        domain={P_AS: (_R(1, 2), 1), P_ASp: (_R(1, 10), 1), delta: (_R(1, 10**6), _R(1, 10))},
        quantity="delta-shifted privacy loss of an event H0: log[(P(A(S) in H0) - delta) / P(A(S') in H0)]",
        conclusion=Property("DP", (eps, delta), "A"),
        notes=(
            "A is (eps, delta)-DP iff L_delta <= eps for every hypothesis subset H0 and every adjacent pair S, S' "
            "(sets differing in one example); eps-DP means (eps, 0)-DP. P_AS = P(A(S) in H0), "
            "P_ASprime = P(A(S') in H0)."
        ),
        tags=("definition", "dp"),
    ),
    theorem(
        "he2021.def_kl",
        "KL divergence (discrete form)",
        Kind.DEFINITION,
        src(HE_UAI, "Definition 2"),
        lhs=D_KL,
        rhs=sp.Sum(Q_seq[i_] * sp.log(Q_seq[i_] / P_seq[i_]), (i_, 1, n_atoms)),
        hypotheses=[],
        quantity="D_KL(Q || P) = int log(dQ/dP) dQ",
        notes=(
            "He et al. (UAI) defines D_KL(Q||P) = int_H log(dQ(h)/dP(h)) dQ(h) on a common support; encoded for distributions "
            "on n_atoms points with probabilities Q_seq[i], P_seq[i] (sum to 1)."
        ),
        tags=("definition", "kl"),
    ),
    theorem(
        "he2021.def_max_divergence",
        "Max divergence",
        Kind.DEFINITION,
        src(HE_LONG, "Definition 3 (He et al. (UAI): Lemma 3, definitions deferred to Appendix B.1)"),
        lhs=D_inf,
        rhs=sp.log(P_XS / P_YS),
        hypotheses=[P_XS <= 1, P_YS <= 1],
        domain={P_XS: (_R(1, 100), 1), P_YS: (_R(1, 100), 1)},
        quantity="D_inf(X || Y) = max over S subset Supp(X) of log[P(X in S)/P(Y in S)]",
        notes=(
            "rhs is the objective for one event S (P_XS = P(X in S), P_YS = P(Y in S)); D_inf is its maximum over "
            "S. He et al. (UAI) uses D_inf in Lemma 3 but defers the definition to an appendix absent from our copy; "
            "the formula is He et al.'s (long) Definition 3 (cf. Dwork-Roth Def. 3.6)."
        ),
        tags=("definition", "divergence"),
    ),
    theorem(
        "he2021.def_approx_max_divergence",
        "delta-approximate max divergence",
        Kind.DEFINITION,
        src(HE_LONG, "Definition 4 (He et al. (UAI): Lemma 3, definitions deferred to Appendix B.1)"),
        lhs=D_inf_delta,
        rhs=sp.log((P_XS - delta) / P_YS),
        hypotheses=[_pos(delta), delta < 1, P_YS >= delta, P_XS > delta, P_XS <= 1, P_YS <= 1],
        domain={P_XS: (_R(1, 2), 1), P_YS: (_R(1, 10), 1), delta: (_R(1, 10**6), _R(1, 10))},
        quantity="D_inf^delta(X || Y) = max over S with P(Y in S) >= delta of log[(P(X in S) - delta)/P(Y in S)]",
        notes="rhs is the objective for one event S; the divergence is its maximum. Formula from He et al. (long) Definition 4.",
        tags=("definition", "divergence"),
    ),
    theorem(
        "he2021.def_statistical_distance",
        "Statistical distance",
        Kind.DEFINITION,
        src(HE_LONG, "Definition 5 (He et al. (UAI): Lemma 3, definitions deferred to Appendix B.1)"),
        lhs=Delta_stat,
        rhs=sp.Abs(P_XS - P_YS),
        hypotheses=[P_XS <= 1, P_YS <= 1],
        domain={P_XS: (0, 1), P_YS: (0, 1)},
        quantity="Delta(X || Y) = max over S of |P(X in S) - P(Y in S)|",
        notes="rhs is the objective for one event S; the distance is its maximum. Formula from He et al. (long) Definition 5.",
        tags=("definition", "divergence"),
    ),
    theorem(
        "he2021uai.def_exponential_mechanism",
        "Exponential mechanism (unnormalised selection weight)",
        Kind.DEFINITION,
        src(HE_UAI, "Definition 4", cites="McSherry and Talwar 2007"),
        lhs=w_exp,
        rhs=sp.exp(eps * u_util / (2 * Delta_u)),
        hypotheses=[_pos(eps)],
        domain={eps: (_R(1, 100), 10), u_util: (0, 10), Delta_u: (_R(1, 10), 10)},
        quantity="weight of index i: P(E(S,u,I,eps) = i) is proportional to exp(eps u(S,i) / (2 Delta_u))",
        notes="Delta_u = max_i max_{S,S' adjacent} |u(S,i) - u(S',i)|. He et al.'s (long) Definition 8 omits the formula.",
        tags=("definition", "mechanism"),
    ),
]

# ---------------------------------------------------------------------------
# Theorems 2, 3 and Lemma 1 (multi-sample-set algorithms)
# ---------------------------------------------------------------------------
#: Thm 2 bound on |E Gen| of an (eps, delta)-DP multi-sample-set algorithm
THM2_BOUND = sp.exp(-eps) * k_sets * delta + 1 - sp.exp(-eps)
THM3_UAI_A_SMALL = k_sets * sp.exp(-_R(17, 10) * eps) * delta + _R(17, 10) * eps
THM3_UAI_P_SMALL = 85 * eps / 127
THM3_UAI_A_LARGE = k_sets * _EM * delta + _R(11, 10) * (1 - _EM)
THM3_UAI_P_LARGE = (1 - _EM) / 219
LEMMA1_UAI_K_SMALL = eps / (sp.exp(-_R(17, 10) * eps) * delta)
LEMMA1_UAI_K_LARGE = (1 - _R(9, 10) * _EM) / (9 * _EM * delta)
LEMMA1_UAI_A_SMALL = k_sets * sp.exp(-_R(17, 10) * eps) * delta + _R(17, 10) * _R(17, 10) * eps
LEMMA1_UAI_A_LARGE = _R(9, 10) * k_sets * _EM * delta + _R(11, 10) * (1 - _R(9, 10) * _EM)

_BOX_K = (1, 10**6)
_MULTI = [
    theorem(
        "he2021.thm2",
        "On-average multi-sample-set generalization bound",
        Kind.BOUND,
        src(HE_UAI, "Theorem 2 (eq. 3)"),
        lhs=EGen_multi,
        rhs=THM2_BOUND,
        hypotheses=[*_DP_HYPS, sp.Ge(k_sets, 1, evaluate=False)],
        domain={eps: (_R(1, 100), 10), delta: _BOX_DELTA, k_sets: _BOX_K},
        quantity="|E_{S ~ D^N, B(S)}[Gen_{S_{i_B(S)}, h_B(S)}]| for (eps, delta)-DP B: Z^{k x N} -> H x {1..k}",
        premises=(Property("DP", (eps, delta), "B"),),
        notes="Loss bounded by 1. Same formula in He et al. (long) (Theorem 2).",
        tags=("generalization", "on-average", "multi-sample-set"),
    ),
    theorem(
        "he2021uai.thm3_small_eps",
        "High-probability multi-sample-set generalization bound, eps <= 17/50",
        Kind.BOUND,
        src(HE_UAI, "Theorem 3"),
        lhs=P_succ,
        relation=">=",
        rhs=THM3_UAI_P_SMALL,
        hypotheses=[*_DP_HYPS, eps <= _R(17, 50), sp.Ge(k_sets, 1, evaluate=False), k_sets <= eps / (_R(17, 10) * sp.exp(-_R(17, 10) * eps) * delta)],
        domain={eps: (_R(1, 1000), _R(17, 50)), delta: _BOX_DELTA, k_sets: _BOX_K},
        quantity="P(Gen_{S_{i_B(S)}, h_B(S)} <= k e^{-1.7 eps} delta + 1.7 eps)",
        premises=(Property("DP", (eps, delta), "B"),),
        conclusion=Property("generalization", (THM3_UAI_A_SMALL, 1 - THM3_UAI_P_SMALL), "B"),
        notes="The event's threshold is THM3_UAI_A_SMALL. He et al.'s (long) Theorem 3 differs (k e^-eps delta + 3 eps, probability >= eps).",
        tags=("generalization", "high-probability", "multi-sample-set"),
    ),
    theorem(
        "he2021uai.thm3_large_eps",
        "High-probability multi-sample-set generalization bound, eps > 17/50",
        Kind.BOUND,
        src(HE_UAI, "Theorem 3"),
        lhs=P_succ,
        relation=">=",
        rhs=THM3_UAI_P_LARGE,
        hypotheses=[*_DP_HYPS, eps > _R(17, 50), sp.Ge(k_sets, 1, evaluate=False), k_sets <= (1 - _EM) / (10 * _EM * delta)],
        domain={eps: (_R(17, 50), 20), delta: _BOX_DELTA, k_sets: _BOX_K},
        quantity="P(Gen_{S_{i_B(S)}, h_B(S)} <= k e^{-eps} delta + 1.1 (1 - e^{-eps}))",
        premises=(Property("DP", (eps, delta), "B"),),
        conclusion=Property("generalization", (THM3_UAI_A_LARGE, 1 - THM3_UAI_P_LARGE), "B"),
        notes="The event's threshold is THM3_UAI_A_LARGE.",
        tags=("generalization", "high-probability", "multi-sample-set"),
    ),
    theorem(
        "he2021uai.lemma1_n_condition",
        "Sample-size condition of Lemma 1 (He et al. (UAI))",
        Kind.BOUND,
        src(HE_UAI, "Lemma 1"),
        lhs=N,
        relation=">=",
        rhs=LEMMA1_UAI_N_CONDITION,
        hypotheses=[*_DP_HYPS, delta < _R(1, 100)],
        domain={eps: (_R(1, 100), 5), delta: _BOX_DELTA},
        quantity="training sample size N required by Lemma 1",
        notes=(
            "Plain text: 'N >= max{ 2/(0.077 eps^2) ln(43/(254 e^{-1.7 eps} delta)), "
            "200/(ln 0.9 (1 - 0.9 e^-eps)) ln 9e^-eps delta / 48180 }'. Read the second term as "
            "200/(ln(0.9)(1 - 0.9 e^{-eps})) * ln(9 e^{-eps} delta / 48180): both logs are negative for small "
            "delta, so the term is positive. It is Theorem 1's N-condition with LEMMA1_UAI_CONSTANTS."
        ),
        tags=("generalization", "sample-size", "assumption"),
    ),
    theorem(
        "he2021uai.lemma1_small_eps",
        "Reduction lemma: a violator of Thm 1 yields a (1.7 eps, delta)-DP multi-sample-set algorithm (eps < 1/5)",
        Kind.BOUND,
        src(HE_UAI, "Lemma 1 (eq. 5)"),
        lhs=P_succ,
        relation="<",
        rhs=THM3_UAI_P_SMALL,
        hypotheses=[*_DP_HYPS, eps < _R(1, 5), N >= LEMMA1_UAI_N_CONDITION, sp.Eq(k_sets, LEMMA1_UAI_K_SMALL)],
        domain={eps: (_R(1, 1000), _R(1, 5)), delta: _BOX_DELTA},
        quantity="P(Gen_{S_{i_B}, h_B} <= k e^{-1.7 eps} delta + 1.7*1.7 eps) for the constructed B",
        premises=(
            Property("DP", (eps, delta), "A"),
            Property("generalization-violated", (THM1_UAI_A_SMALL, THM1_UAI_B_SMALL / 2), "A"),
        ),
        conclusion=Property("DP", (_R(17, 10) * eps, delta), "B"),
        notes=(
            "Premise eq. (4): P(Gen_{S,A(S)} <= a) < b/2 with a, b of Theorem 1. k = eps/(e^{-1.7 eps} delta) "
            "(not an integer in general; the text does not round). The event's threshold is LEMMA1_UAI_A_SMALL. "
            "Lemma 1 says 'eps < 1/5' where Theorem 1 says 'eps <= 1/5'."
        ),
        tags=("generalization", "multi-sample-set", "reduction"),
    ),
    theorem(
        "he2021uai.lemma1_large_eps",
        "Reduction lemma: a violator of Thm 1 yields an (eps - ln 0.9, delta)-DP multi-sample-set algorithm (eps >= 1/5)",
        Kind.BOUND,
        src(HE_UAI, "Lemma 1 (eq. 6)"),
        lhs=P_succ,
        relation="<",
        rhs=(1 - _R(9, 10) * _EM) / 219,
        hypotheses=[*_DP_HYPS, eps >= _R(1, 5), N >= LEMMA1_UAI_N_CONDITION, sp.Eq(k_sets, LEMMA1_UAI_K_LARGE)],
        domain={eps: (_R(1, 5), 20), delta: _BOX_DELTA},
        quantity="P(Gen_{S_{i_B}, h_B} <= 0.9 k e^{-eps} delta + 1.1 (1 - 0.9 e^{-eps})) for the constructed B",
        premises=(
            Property("DP", (eps, delta), "A"),
            Property("generalization-violated", (THM1_UAI_A_LARGE, THM1_UAI_B_LARGE / 2), "A"),
        ),
        conclusion=Property("DP", (eps - sp.log(_R(9, 10)), delta), "B"),
        notes="k = (1 - 0.9 e^{-eps})/(9 e^{-eps} delta). The event's threshold is LEMMA1_UAI_A_LARGE.",
        tags=("generalization", "multi-sample-set", "reduction"),
    ),
]

# ---------------------------------------------------------------------------
# Composition theorems (Thm 4, Cor 1, Cor 2, Thm 5, Thm 6) and Lemmas 2-3
# ---------------------------------------------------------------------------
def kl_tanh(e: sp.Expr) -> sp.Expr:
    r"""``e (e^e - 1)/(e^e + 1)``: Lemma 2's KL bound, the drift term of the composition bounds."""
    return e * (sp.exp(e) - 1) / (sp.exp(e) + 1)


_S2 = sp.Sum(eps_seq[i_] ** 2, (i_, 1, T))
_SK = sp.Sum(kl_tanh(eps_seq[i_]), (i_, 1, T))
#: Thm 4 eps'_1..eps'_3, heterogeneous (sum) form as printed
THM4_EPS1_SUM = sp.Sum(eps_seq[i_], (i_, 1, T))
THM4_EPS2_SUM = sp.sqrt(2 * _S2 * sp.log(sp.E + sp.sqrt(_S2) / delta_t)) + _SK
THM4_EPS3_SUM = _SK + sp.sqrt(2 * sp.log(1 / delta_t) * _S2)
#: Thm 4 eps'_1..eps'_3 for T identical eps-steps (eps_i = eps)
THM4_EPS1 = T * eps
THM4_EPS2 = sp.sqrt(2 * T * eps**2 * sp.log(sp.E + sp.sqrt(T * eps**2) / delta_t)) + T * kl_tanh(eps)
THM4_EPS3 = T * kl_tanh(eps) + sp.sqrt(2 * sp.log(1 / delta_t) * T * eps**2)
THM4_EPS_PRIME = sp.Min(THM4_EPS1, THM4_EPS2, THM4_EPS3)
#: eq. (7): the objective whose maximum over alpha is Thm 4's delta' (also Thm 6's)
THM4_DELTA_OBJECTIVE = (
    2
    - sp.Product(1 - sp.exp(alpha_seq[i_]) * delta_seq[i_] / (1 + sp.exp(eps_seq[i_])), (i_, 1, T))
    - sp.Product(1 - delta_seq[i_] / (1 + sp.exp(eps_seq[i_])), (i_, 1, T))
    + delta_t
)
#: ceil(eps'/eps): the number of steps carrying alpha_i = eps at the maximiser (Cor 1)
CEIL_M = sp.ceiling(eps_p / eps)
_X = delta / (1 + sp.exp(eps))
#: Cor 1 (Composition II) delta', exact form, and its first-order form
COR1_DELTA = 1 - (1 - sp.exp(eps) * _X) ** CEIL_M * (1 - _X) ** (T - CEIL_M) + 1 - (1 - _X) ** T + delta_t
COR1_DELTA_FIRST_ORDER = (T - CEIL_M) * 2 * delta / (1 + sp.exp(eps)) + CEIL_M * delta + delta_t
#: delta'' of Cor 2 (Composition III, 000) (001 Cor 3 calls it delta'')
COR2_DELTA_PP = (
    sp.exp(-(eps_p + T * eps) / 2)
    * (1 / (1 + sp.exp(eps)) * (2 * T * eps / (T * eps - eps_p))) ** T
    * ((T * eps + eps_p) / (T * eps - eps_p)) ** (-(eps_p + T * eps) / (2 * eps))
)
#: the delta~ that fixes eps' in Cor 2 (it does not enter Cor 2's delta')
_DT_COR2 = sp.Symbol("deltatilde_cor2", positive=True)
COR2_DELTA = COR2_DELTA_PP + 2 - (1 - sp.exp(eps) * _X) ** CEIL_M * (1 - _X) ** (T - CEIL_M) - (1 - _X) ** T
#: Cor 1's delta' at Theorem 4's eps' (the instantiated claim), and Cor 2's at eps'_3
COR1_DELTA_AT_THM4_EPS = COR1_DELTA.subs(eps_p, THM4_EPS_PRIME)
COR2_DELTA_AT_EPS3 = COR2_DELTA.subs(eps_p, THM4_EPS3)
_EPS3_DOM = {eps: (_R(1, 100), _R(1, 2)), delta: _BOX_DELTA, T: (1000, 5000), delta_t: (sp.Float("1e-6"), sp.Float("1e-3"))}
#: Thm 5 (Composition IV) eps' for T identical eps-DP steps (delta' is the free target)
THM5_EPS = sp.sqrt(2 * sp.log(1 / delta_p) * T * eps**2) + T * kl_tanh(eps)
THM5_EPS_SUM = sp.sqrt(2 * sp.log(1 / delta_p) * _S2) + _SK

_COMP_HYPS = [*_DP_HYPS, _pos(delta_t), delta_t < 1]
_BOX_T = (1, 10**6)
_BOX_EPS = (_R(1, 1000), 2)
_SEQ_NOTE = "epsilon_seq[i], delta_seq[i]: the i-th step is (epsilon_seq[i], delta_seq[i])-DP."


def _thm4_eps(j: int, expr, sum_expr):
    return [
        theorem(
            f"he2021.thm4_eps{j}",
            f"Composition Theorem I: eps'_{j} (T identical (eps, delta)-DP steps)",
            Kind.BOUND,
            src(HE_UAI, "Theorem 4"),
            lhs=eps_p,
            rhs=expr,
            hypotheses=_COMP_HYPS,
            domain={eps: _BOX_EPS, T: _BOX_T, delta_t: _BOX_DELTA},
            quantity="composed epsilon of a T-step iterative algorithm whose steps are (eps, delta)-DP",
            premises=(Property("DP", (eps, delta), "M_i"),),
            conclusion=Property("DP", (THM4_EPS_PRIME, delta_p), "A"),
            oracle="composition_eq7",
            notes=(
                f"Homogeneous case eps_i = eps of eq. for eps'_{j}; eps' = min{{eps'_1, eps'_2, eps'_3}} and delta' is "
                "the maximum of eq. (7) (for identical steps: Corollary 1, he2021.cor1_delta). delta~ is an "
                "arbitrary positive constant. Same formulas in He et al. (long) (Theorem 4)."
            ),
            tags=("composition", "thm4"),
        ),
        theorem(
            f"he2021.thm4_eps{j}_sum",
            f"Composition Theorem I: eps'_{j} (heterogeneous steps)",
            Kind.BOUND,
            src(HE_UAI, "Theorem 4"),
            lhs=eps_p,
            rhs=sum_expr,
            hypotheses=[_pos(delta_t), delta_t < 1],
            quantity="composed epsilon of a T-step iterative algorithm whose i-th step is (eps_i, delta_i)-DP",
            premises=(Property("DP", (eps_seq[i_], delta_seq[i_]), "M_i"),),
            oracle="composition_eq7_hetero",
            notes=_SEQ_NOTE + " He et al.'s (UAI) premise says '(eps, delta)-DP' but the formulas use eps_i.",
            tags=("composition", "thm4", "heterogeneous"),
        ),
    ]


_COMPOSITION = [
    *_thm4_eps(1, THM4_EPS1, THM4_EPS1_SUM),
    *_thm4_eps(2, THM4_EPS2, THM4_EPS2_SUM),
    *_thm4_eps(3, THM4_EPS3, THM4_EPS3_SUM),
    theorem(
        "he2021.thm4_eps_prime",
        "Composition Theorem I: eps' = min{eps'_1, eps'_2, eps'_3} (T identical steps)",
        Kind.BOUND,
        src(HE_UAI, "Theorem 4"),
        lhs=eps_p,
        rhs=THM4_EPS_PRIME,
        hypotheses=_COMP_HYPS,
        domain={eps: _BOX_EPS, T: _BOX_T, delta_t: _BOX_DELTA},
        quantity="composed epsilon of a T-step iterative algorithm whose steps are (eps, delta)-DP",
        premises=(Property("DP", (eps, delta), "M_i"),),
        conclusion=Property("DP", (THM4_EPS_PRIME, delta_p), "A"),
        oracle="composition_eq7",
        tags=("composition", "thm4"),
    ),
    theorem(
        "he2021uai.thm4_delta",
        "Composition Theorem I: delta' as the maximum of eq. (7)",
        Kind.DEFINITION,
        src(HE_UAI, "Theorem 4 (eq. 7)"),
        lhs=delta_p,
        rhs=THM4_DELTA_OBJECTIVE,
        hypotheses=[_pos(delta_t), delta_t < 1],
        quantity="composed delta of Theorem 4 at eps'",
        premises=(Property("DP", (eps_seq[i_], delta_seq[i_]), "M_i"),),
        conclusion=Property("DP", (eps_p, delta_p), "A"),
        notes=(
            _SEQ_NOTE + " delta' is the MAXIMUM of the rhs over {alpha_i} in I = boundary of "
            "{sum_i alpha_i = eps', eps_i >= alpha_i >= 0} (He et al. (UAI)). He et al. (long) states the same objective with "
            "I = {sum alpha_i = eps', at most one alpha_i not in {0, eps_i}}. For identical steps the maximum is "
            "Corollary 1 (he2021.cor1_delta)."
        ),
        tags=("composition", "thm4", "heterogeneous", "max-over-alpha"),
    ),
    theorem(
        "he2021.cor1_delta",
        "Composition Theorem II: delta' for T identical (eps, delta)-DP steps (exact form)",
        Kind.BOUND,
        src(HE_UAI, "Corollary 1 (Composition Theorem II)"),
        lhs=delta_p,
        rhs=COR1_DELTA,
        hypotheses=[*_COMP_HYPS, _pos(eps_p), eps_p <= T * eps, sp.Eq(eps_p, THM4_EPS_PRIME)],
        domain={eps: (_R(1, 100), 2), delta: _BOX_DELTA, T: (1, 10**4), delta_t: _BOX_DELTA, eps_p: (_R(1, 10), 10)},
        quantity="composed delta at eps' of T (eps, delta)-DP steps",
        premises=(Property("DP", (eps, delta), "M_i"),),
        conclusion=Property("DP", (eps_p, COR1_DELTA), "A"),
        oracle="composition_at_eq",
        notes=(
            "He et al. (long) numbers this Corollary 2. The formula is written in eps', which is Theorem 4's "
            "eps' = min{eps'_1, eps'_2, eps'_3} (hypothesis Eq(eps', ...)); it is NOT claimed at other eps'. "
            "The instantiated, oracle-checkable claim is he2021.cor1_delta_at_thm4_eps. The side condition "
            "eps' <= T eps (so that T - ceil(eps'/eps) >= 0) follows from eps'_1 = T eps."
        ),
        tags=("composition", "cor1"),
    ),
    theorem(
        "he2021.cor1_delta_first_order",
        "Composition Theorem II: first-order form of delta' in delta",
        Kind.EXPANSION,
        src(HE_UAI, "Corollary 1 (Composition Theorem II), second line"),
        lhs=COR1_DELTA,
        rhs=COR1_DELTA_FIRST_ORDER,
        hypotheses=[*_COMP_HYPS, _pos(eps_p), eps_p <= T * eps],
        domain={eps: (_R(1, 100), 2), delta: _BOX_DELTA, T: (1, 10**4), delta_t: _BOX_DELTA, eps_p: (_R(1, 10), 10)},
        expansion=Expansion(delta, 0, 2),
        quantity="delta' of Corollary 1 as delta -> 0",
        refs=("he2021.cor1_delta",),
        notes="Stated remainder O((delta/(1+e^eps))^2), i.e. O(delta^2) at fixed eps, T, eps'.",
        tags=("composition", "cor1", "first-order"),
    ),
    theorem(
        "he2021uai.cor2_delta",
        "Composition Theorem III: delta' with the Chernoff term delta'' (T identical steps)",
        Kind.BOUND,
        src(HE_UAI, "Corollary 2 (Composition Theorem III)"),
        lhs=delta_p,
        rhs=COR2_DELTA,
        hypotheses=[*_DP_HYPS, _pos(eps_p), eps_p < T * eps, sp.Eq(eps_p, THM4_EPS_PRIME.subs(delta_t, _DT_COR2))],
        domain={eps: (_R(1, 100), _R(1, 2)), delta: _BOX_DELTA, T: (100, 5000), eps_p: (1, 5)},
        quantity="composed delta at eps' of T (eps, delta)-DP steps",
        premises=(Property("DP", (eps, delta), "M_i"),),
        conclusion=Property("DP", (eps_p, COR2_DELTA), "A"),
        oracle="composition_at_eq",
        notes=(
            "eps' is Theorem 4's min{eps'_1, eps'_2, eps'_3}, whose slack delta~ (here the symbol "
            "deltatilde_cor2, a free parameter of eps') no longer appears in delta'; the instantiated claim with "
            "eps' = eps'_3 is he2021uai.cor2_delta_at_eps3. "
            "He et al. (UAI) states the premise as '(eps, delta_i)-DP' but the formula uses a single delta (encoded: "
            "delta_i = delta) and gives no eps' of its own beyond 'eps' = min{eps'_1, eps'_2, eps'_3}'. "
            "The first term is delta'' = COR2_DELTA_PP (He et al. (long) Corollary 3 names it). He et al.'s (long) Corollary 3 assumes "
            "eps-DP steps and fixes eps' = eps'_3. Needs T eps > eps'."
        ),
        tags=("composition", "cor2"),
    ),
    theorem(
        "he2021uai.cor2_delta_pp",
        "Composition Theorem III: the Chernoff term delta''",
        Kind.DEFINITION,
        src(HE_UAI, "Corollary 2 (Composition Theorem III), first term"),
        lhs=sp.Symbol("deltaprimeprime", positive=True),
        rhs=COR2_DELTA_PP,
        hypotheses=[_pos(eps), _pos(eps_p), eps_p < T * eps],
        domain={eps: (_R(1, 100), _R(1, 2)), T: (100, 5000), eps_p: (1, 5)},
        quantity="delta'' = e^{-(eps'+T eps)/2} ((2 T eps)/((1+e^eps)(T eps - eps')))^T ((T eps + eps')/(T eps - eps'))^{-(eps'+T eps)/(2 eps)}",
        tags=("composition", "cor2"),
    ),
    theorem(
        "he2021.cor1_delta_at_thm4_eps",
        "Composition Theorems I-II: T identical (eps, delta)-DP steps give (eps', delta'(eps'))-DP, eps' = min{eps'_1..3}",
        Kind.BOUND,
        src(HE_UAI, "Theorem 4 with Corollary 1"),
        lhs=delta_p,
        rhs=COR1_DELTA_AT_THM4_EPS,
        hypotheses=_COMP_HYPS,
        domain={eps: (_R(1, 100), 2), delta: _BOX_DELTA, T: (1, 10**4), delta_t: _BOX_DELTA},
        quantity="composed delta at eps' = Theorem 4's eps', T identical (eps, delta)-DP steps",
        premises=(Property("DP", (eps, delta), "M_i"),),
        conclusion=Property("DP", (THM4_EPS_PRIME, COR1_DELTA_AT_THM4_EPS), "A"),
        oracle="optimal_composition",
        notes="The oracle compares with the optimal delta at eps' = he2021.thm4_eps_prime's rhs.",
        tags=("composition", "thm4", "cor1"),
    ),
    theorem(
        "he2021uai.cor2_delta_at_eps3",
        "Composition Theorem III at eps' = eps'_3 (T identical (eps, delta)-DP steps)",
        Kind.BOUND,
        src(HE_UAI, "Corollary 2 with Theorem 4's eps'_3"),
        lhs=delta_p,
        rhs=COR2_DELTA_AT_EPS3,
        hypotheses=[*_COMP_HYPS, THM4_EPS3 < T * eps],
        domain=_EPS3_DOM,
        quantity="composed delta at eps' = eps'_3, T identical (eps, delta)-DP steps",
        premises=(Property("DP", (eps, delta), "M_i"),),
        conclusion=Property("DP", (THM4_EPS3, COR2_DELTA_AT_EPS3), "A"),
        oracle="optimal_composition",
        notes=(
            "The case the text singles out ('for the case eps' = eps'_3, delta' is strictly tighter than that in "
            "Theorem 4'); He et al.'s (long) Corollary 3 states exactly this pairing (for eps-DP steps). The oracle compares "
            "with the optimal delta at eps' = eps'_3."
        ),
        tags=("composition", "cor2"),
    ),
    theorem(
        "he2021uai.thm5_eps",
        "Composition Theorem IV: eps' for T identical eps-DP steps",
        Kind.BOUND,
        src(HE_UAI, "Theorem 5"),
        lhs=eps_p,
        rhs=THM5_EPS,
        hypotheses=[_pos(eps), _pos(delta_p), delta_p < 1],
        domain={eps: _BOX_EPS, T: _BOX_T, delta_p: _BOX_DELTA},
        quantity="composed epsilon at delta' of T eps-DP iterators",
        premises=(Property("DP", (eps, sp.Integer(0)), "M_i"),),
        conclusion=Property("DP", (THM5_EPS, delta_p), "A"),
        oracle="optimal_composition",
        notes=(
            "Homogeneous case of sqrt(2 log(1/delta') sum eps_i^2) + sum eps_i (e^eps_i - 1)/(e^eps_i + 1). "
            "The extent of the square root is lost in our copy; read (as in Theorem 4's eps'_3) as covering "
            "the first term only. He et al.'s (long) typeset Theorem 5 puts both terms under the root."
        ),
        tags=("composition", "thm5"),
    ),
    theorem(
        "he2021uai.thm5_eps_sum",
        "Composition Theorem IV: eps' (heterogeneous eps_i-DP steps)",
        Kind.BOUND,
        src(HE_UAI, "Theorem 5"),
        lhs=eps_p,
        rhs=THM5_EPS_SUM,
        hypotheses=[_pos(delta_p), delta_p < 1],
        quantity="composed epsilon at delta' of T iterators, the i-th eps_i-DP",
        premises=(Property("DP", (eps_seq[i_], sp.Integer(0)), "M_i"),),
        oracle="composition_hetero_pure",
        notes=_SEQ_NOTE + " Square root read as covering the first term only.",
        tags=("composition", "thm5", "heterogeneous"),
    ),
    theorem(
        "he2021uai.thm6_eps",
        "Composition Theorem V: eps' for T identical (eps, delta)-DP steps",
        Kind.BOUND,
        src(HE_UAI, "Theorem 6"),
        lhs=eps_p,
        rhs=THM4_EPS3,
        hypotheses=_COMP_HYPS,
        domain={eps: _BOX_EPS, T: _BOX_T, delta_t: _BOX_DELTA},
        quantity="composed epsilon of T (eps_i, delta_i)-DP iterators",
        premises=(Property("DP", (eps, delta), "M_i"),),
        conclusion=Property("DP", (THM4_EPS3, delta_p), "A"),
        oracle="composition_eq7_simplex",
        notes="Same expression as Theorem 4's eps'_3 (he2021.thm4_eps3_sum for the sum form); delta' is he2021uai.thm6_delta.",
        tags=("composition", "thm6"),
    ),
    theorem(
        "he2021uai.thm6_delta",
        "Composition Theorem V: delta' as a maximum over alpha",
        Kind.DEFINITION,
        src(HE_UAI, "Theorem 6"),
        lhs=delta_p,
        rhs=THM4_DELTA_OBJECTIVE,
        hypotheses=[_pos(delta_t), delta_t < 1],
        quantity="composed delta of Theorem 6",
        premises=(Property("DP", (eps_seq[i_], delta_seq[i_]), "M_i"),),
        conclusion=Property("DP", (THM4_EPS3_SUM, delta_p), "A"),
        notes=_SEQ_NOTE + " delta' is the maximum of the rhs over {alpha_i} in the boundary of I = {sum alpha_i = eps', alpha_i >= 0}.",
        tags=("composition", "thm6", "heterogeneous", "max-over-alpha"),
    ),
    theorem(
        "he2021.lemma3_coupling",
        "Coupling characterisation of approximate max divergence",
        Kind.EQUIVALENCE,
        src(HE_UAI, "Lemma 3", cites="Dwork and Roth 2014, Theorem 3.17"),
        lhs=Delta_stat,
        relation="<=",
        rhs=delta / (sp.exp(eps) + 1),
        hypotheses=_DP_HYPS,
        domain={eps: (_R(1, 100), 10), delta: _BOX_DELTA},
        quantity="statistical distance Delta(Y || Y') (and Delta(Z || Z')) of the coupled variables",
        premises=(
            Property("approx-max-divergence", (eps, delta), "Y || Z"),
            Property("approx-max-divergence", (eps, delta), "Z || Y"),
        ),
        conclusion=Property("coupling", (eps, delta / (sp.exp(eps) + 1)), "Y', Z'"),
        notes=(
            "D_inf^delta(Y||Z) <= eps and D_inf^delta(Z||Y) <= eps iff there are Y', Z' with "
            "Delta(Y||Y') <= delta/(e^eps+1), Delta(Z||Z') <= delta/(e^eps+1), D_inf(Y'||Z') <= eps and "
            "D_inf(Z'||Y') <= eps. Same statement in He et al. (long) (Lemma 2)."
        ),
        tags=("coupling", "divergence"),
    ),
]

# ---------------------------------------------------------------------------
# Theorem 7 (000): iterative Gaussian mechanism with mini-batch (IGMM)
# ---------------------------------------------------------------------------
#: eps-tilde of Thm 7 (000): per-step privacy of the sub-sampled Gaussian step
THM7_UAI_EPS_TILDE = sp.log(
    (N - tau) / N
    + tau / N * sp.exp((sp.sqrt(2) * D_diam * sigma / tau * sp.sqrt(sp.log(1 / delta)) + D_diam**2 / tau**2) / (2 * sigma**2))
)
THM7_UAI_EPS = sp.sqrt(2 * T * sp.log(1 / delta_t) * eps_tl**2) + T * kl_tanh(eps_tl)
_M7 = sp.ceiling(N * eps_p / (tau * eps_tl))
_X7 = delta / (1 + sp.exp(eps_tl))
THM7_UAI_DELTA = 2 - (1 - _X7) ** T + delta_tp - (1 - delta * sp.exp(eps_tl) / (1 + sp.exp(eps_tl))) ** _M7 * (1 - _X7) ** (T - _M7)
THM7_UAI_DELTA_TILDE_P = (
    sp.exp(-(eps_p + T * eps_tl) / 2)
    * ((T * eps_tl + eps_p) / (T * eps_tl - eps_p)) ** (-(eps_p + T * eps_tl) / (2 * eps_tl))
    * (1 / (1 + sp.exp(eps_tl)) * (2 * T * eps_tl / (T * eps_tl - eps_p))) ** T
)
_IGMM_NOTE = (
    "Algorithm 1 (IGMM): T steps, mini-batch of size tau drawn without replacement from N examples, Gaussian "
    "noise sigma N(0, I) (sigma: standard deviation), update diameter D = max ||g(z,W) - g(z',W)||. "
)
_IGMM = [
    theorem(
        "he2021uai.thm7_eps_tilde",
        "IGMM: per-step epsilon-tilde",
        Kind.DEFINITION,
        src(HE_UAI, "Theorem 7"),
        lhs=eps_tl,
        rhs=THM7_UAI_EPS_TILDE,
        hypotheses=[_pos(delta), delta < 1, tau < N],
        domain={N: (1000, 10**6), tau: (8, 1024), D_diam: (_R(1, 10), 10), sigma: (_R(1, 2), 50), delta: _BOX_DELTA},
        quantity="per-iteration epsilon of one IGMM step at per-step delta",
        notes=_IGMM_NOTE + (
            "Plain text: 'log[(N - tau)/N + tau/N exp( sqrt2 D sigma (1/tau) sqrt(log 1/delta) + (1/tau^2) D^2 / "
            "(2 sigma^2) )]' with the fraction bars lost; read as the whole numerator over 2 sigma^2, which is "
            "He et al.'s (long) eps-tilde with D = 2L."
        ),
        tags=("igmm", "gaussian", "subsampling"),
    ),
    theorem(
        "he2021uai.thm7_eps",
        "IGMM: composed epsilon",
        Kind.BOUND,
        src(HE_UAI, "Theorem 7"),
        lhs=eps_p,
        rhs=THM7_UAI_EPS,
        hypotheses=[_pos(delta_t), delta_t < 1],
        domain={eps_tl: (_R(1, 1000), 2), T: _BOX_T, delta_t: _BOX_DELTA},
        quantity="composed epsilon of T IGMM steps",
        premises=(Property("DP", (eps_tl, delta), "IGMM step"),),
        conclusion=Property("DP", (THM7_UAI_EPS, delta_p), "IGMM"),
        oracle="composition_igmm",
        notes=generic_steps_note("algo.he2021uai.thm7_igmm") + _IGMM_NOTE + "epsilontilde is he2021uai.thm7_eps_tilde; the same form as Theorem 4's eps'_3 with eps = eps-tilde.",
        tags=("igmm", "composition", "generic-steps"),
    ),
    theorem(
        "he2021uai.thm7_delta",
        "IGMM: composed delta",
        Kind.BOUND,
        src(HE_UAI, "Theorem 7"),
        lhs=delta_p,
        rhs=THM7_UAI_DELTA,
        hypotheses=[*_DP_HYPS, _pos(eps_p), eps_p < T * eps_tl, tau < N],
        domain={eps_tl: (_R(1, 100), _R(1, 10)), delta: _BOX_DELTA, T: (100, 1000), eps_p: (_R(1, 2), 5),
                N: (1000, 10**5), tau: (10, 500), delta_tp: _BOX_DELTA},
        quantity="composed delta of T IGMM steps at eps' = he2021uai.thm7_eps",
        premises=(Property("DP", (eps_tl, delta), "IGMM step"),),
        conclusion=Property("DP", (eps_p, THM7_UAI_DELTA), "IGMM"),
        oracle="composition_igmm",
        notes=generic_steps_note("algo.he2021uai.thm7_igmm") + _IGMM_NOTE + (
            "deltatildeprime is he2021uai.thm7_delta_tilde_p (a function of eps'), while eps' uses a separate "
            "delta~. The count ceil(N eps'/(tau eps~)) can exceed T, making the exponent T - ceil(...) negative; "
            "He et al. (UAI) does not restrict it. He et al. (long) (SGLD Theorem 7) rescales by tau/N throughout."
        ),
        tags=("igmm", "composition", "generic-steps"),
    ),
    theorem(
        "he2021uai.thm7_delta_tilde_p",
        "IGMM: the Chernoff term delta-tilde'",
        Kind.DEFINITION,
        src(HE_UAI, "Theorem 7"),
        lhs=delta_tp,
        rhs=THM7_UAI_DELTA_TILDE_P,
        hypotheses=[_pos(eps_tl), _pos(eps_p), eps_p < T * eps_tl],
        domain={eps_tl: (_R(1, 100), _R(1, 10)), T: (100, 1000), eps_p: (_R(1, 2), 5)},
        quantity="delta-tilde' of Theorem 7 (Corollary 2's delta'' with eps = eps-tilde)",
        tags=("igmm", "composition"),
    ),
    theorem(
        "he2021uai.cor3_gap_rate",
        "Agnostic federated learning: generalization gap rate in the number of clients",
        Kind.BOUND,
        src(HE_UAI, "Corollary 3 (eq. 10)"),
        lhs=a_fed,
        rhs=1 / sp.sqrt(C_clients),
        hypotheses=[sp.Ge(C_clients, 1, evaluate=False)],
        domain={C_clients: (1, 10**9)},
        quantity="gap a in P(|Gen_{S, A_fed(S)}| > a) < b, up to polylog factors (soft-O) as C -> oo",
        notes=(
            "Asymptotic: a = O~(1/sqrt(C)) with C the number of clients; O~ hides factors growing slower than any "
            "power. Remark 3: also holds for SGLD with N the sample size. No constants are given."
        ),
        tags=("igmm", "federated", "asymptotic", "rate"),
    ),
    theorem(
        "he2021uai.cor3_failure_rate",
        "Agnostic federated learning: failure-probability rate in the number of clients",
        Kind.BOUND,
        src(HE_UAI, "Corollary 3 (eq. 10)"),
        lhs=b_fed,
        rhs=C_clients ** _R(-3, 2),
        hypotheses=[sp.Ge(C_clients, 1, evaluate=False)],
        domain={C_clients: (1, 10**9)},
        quantity="failure probability b in P(|Gen| > a) < b, up to polylog factors (soft-O) as C -> oo",
        notes="Asymptotic: b = O~(C^{-3/2}). No constants are given.",
        tags=("igmm", "federated", "asymptotic", "rate"),
    ),
]

# ---------------------------------------------------------------------------
# Comparison claims (each encoded as the text states it) and expansions
# ---------------------------------------------------------------------------
from . import classical as _cl  # noqa: E402  (prior work the comparisons refer to)

#: Lemma 2's KL bound divided into Dwork-Rothblum's: the text's factor (1 + e^eps)/2
KL_FACTOR_VS_DWORK_ROTHBLUM = _cl.DWORK_ROTHBLUM2016_KL / KL_BOUND
#: approximate amount by which Kairouz et al.'s delta' exceeds Cor 1's (000 Sec. 1 and 3.2.2)
KAIROUZ_DELTA_GAP = delta * (sp.exp(eps) - 1) / (sp.exp(eps) + 1) * (T - CEIL_M)

_COR1_DOM = {eps: (_R(1, 100), 2), delta: _BOX_DELTA, T: (1, 10**4), delta_t: _BOX_DELTA, eps_p: (_R(1, 10), 10)}
_THM4_DOM = {eps: (_R(1, 100), 2), delta: _BOX_DELTA, T: (1, 10**4), delta_t: _BOX_DELTA}

_COMPARISONS = [
    theorem(
        "he2021uai.cmp_thm1_a_vs_nissim_stemmer",
        "Theorem 1 tightens the gap a from 13 eps to 4 eps",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 1 and Sec. 3.1.2 (Comparison of Theorem 1)"),
        lhs=THM1_UAI_A_SMALL,
        relation="<=",
        rhs=_cl.NS2015_A,
        hypotheses=[_pos(eps), eps <= _R(1, 10)],
        domain={eps: (_R(1, 10**4), _R(1, 10))},
        refs=("he2021uai.thm1_small_eps", "classical.nissim_stemmer2015_high_prob"),
        quantity="gap a of the high-probability bound (smaller is tighter)",
        tags=("comparison", "generalization"),
    ),
    theorem(
        "he2021uai.cmp_thm1_b_vs_nissim_stemmer",
        "Theorem 1 tightens b from (2 delta/eps) log(2/eps) to (2 e^{-1.7 eps} delta/eps) log(2/eps)",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 1 and Sec. 3.1.2 (Comparison of Theorem 1)"),
        lhs=THM1_UAI_B_SMALL,
        relation="<=",
        rhs=_cl.NS2015_B,
        hypotheses=[_pos(eps), eps <= _R(1, 10), _pos(delta), delta < 1],
        domain={eps: (_R(1, 10**4), _R(1, 10)), delta: _BOX_DELTA},
        refs=("he2021uai.thm1_small_eps_failure", "classical.nissim_stemmer2015_high_prob_failure"),
        quantity="failure probability b of the high-probability bound (smaller is tighter)",
        notes="The text writes 'log' for Nissim-Stemmer and 'ln' in Theorem 1; both read as natural logs.",
        tags=("comparison", "generalization"),
    ),
    theorem(
        "he2021uai.cmp_thm1_b_vs_dwork2015",
        "Theorem 1's b versus Dwork et al. 2015's (the abstract's 'strictly tighter than the existing works')",
        Kind.COMPARISON,
        src(HE_UAI, "Abstract and Sec. 3.1.2"),
        lhs=THM1_UAI_B_SMALL,
        relation="<=",
        rhs=_cl.DWORK2015_B_FRACTION,
        hypotheses=[_pos(eps), eps <= _R(1, 5), _pos(delta), delta < 1],
        domain={eps: (_R(1, 10**4), _R(1, 5)), delta: _BOX_DELTA},
        refs=("he2021uai.thm1_small_eps_failure", "classical.dwork2015_high_prob_failure"),
        quantity="failure probability b at equal gap a = 4 eps (smaller is tighter)",
        notes=(
            "The text claims its results are 'strictly tighter than the existing works' and lists Dwork et al. 2015 "
            "(a = 4 eps) among them without an explicit term-by-term comparison; encoded as b_He <= b_Dwork. "
            "Dwork et al.'s b is garbled in our copies (He et al. (UAI) '8 delta eps', He et al. (long) '8 delta^eps', "
            "see classical.dwork2015_high_prob); the comparison is with Dwork et al.'s result, whose b is 8 delta/eps, "
            "so that is the rhs encoded (the garbled forms are no result anyone proved, so no claim is compared with them). "
            "b_He/b_Dwork = e^{-1.7 eps} ln(2/eps)/4: Theorem 1's b is the smaller one only for eps above 0.02976."
        ),
        tags=("comparison", "generalization", "symdp-check"),
    ),
    theorem(
        "he2021uai.cmp_thm2_vs_nissim_stemmer",
        "Theorem 2 is tighter than Nissim-Stemmer's k delta + 2 eps by a factor e^eps/2",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 3.1.2 (Comparison of Theorem 2)"),
        lhs=sp.exp(eps) / 2 * THM2_BOUND,
        relation="<=",
        rhs=_cl.NS2015_ON_AVERAGE,
        hypotheses=[*_DP_HYPS, sp.Ge(k_sets, 1, evaluate=False)],
        domain={eps: (_R(1, 100), 10), delta: _BOX_DELTA, k_sets: _BOX_K},
        refs=("he2021.thm2", "classical.nissim_stemmer2015_on_average"),
        quantity="(e^eps/2) x Theorem 2's bound versus Nissim-Stemmer's bound",
        notes=(
            "'Our bound is tighter by a factor of e^eps/2' read as: ours x e^eps/2 <= theirs. The text adds 'this "
            "factor can be as large as e^10 ~ 20,000' (e^10 = 22026; e^10/2 = 11013). He et al. (long) says 'a factor of e^eps'."
        ),
        tags=("comparison", "generalization"),
    ),
    theorem(
        "he2021.cmp_kl_vs_dwork_rothblum",
        "Dwork-Rothblum's KL bound is larger than Lemma 2's by the factor (1 + e^eps)/2",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 3.2.1 (after eq. 8)"),
        lhs=KL_FACTOR_VS_DWORK_ROTHBLUM,
        relation="==",
        rhs=(1 + sp.exp(eps)) / 2,
        hypotheses=[_pos(eps)],
        domain={eps: (sp.Rational(1, 10**8), 50)},
        refs=("classical.dwork_rothblum2016_kl", "he2021.lemma_kl"),
        quantity="ratio of Dwork-Rothblum's KL bound to Lemma 2's",
        tags=("comparison", "kl"),
    ),
    theorem(
        "he2021.cmp_kl_le_dwork_rothblum",
        "Lemma 2's KL bound is at most Dwork-Rothblum's",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 3.2.1 (after Lemma 2)"),
        lhs=KL_BOUND,
        relation="<=",
        rhs=_cl.DWORK_ROTHBLUM2016_KL,
        hypotheses=[_pos(eps)],
        domain={eps: (sp.Rational(1, 10**8), 50)},
        refs=("he2021.lemma_kl", "classical.dwork_rothblum2016_kl"),
        quantity="KL bound of an eps-DP mechanism (smaller is tighter)",
        notes="'There are two related results in the literature, which are considerably looser than ours.'",
        tags=("comparison", "kl"),
    ),
    theorem(
        "he2021.cmp_kl_le_dwork2010",
        "Lemma 2's KL bound is at most Dwork-Rothblum-Vadhan's eps (e^eps - 1)",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 3.2.1 (after Lemma 2)"),
        lhs=KL_BOUND,
        relation="<=",
        rhs=_cl.DWORK2010_KL,
        hypotheses=[_pos(eps)],
        domain={eps: (sp.Rational(1, 10**8), 50)},
        refs=("he2021.lemma_kl", "classical.dwork2010_kl"),
        quantity="KL bound of an eps-DP mechanism (smaller is tighter)",
        tags=("comparison", "kl"),
    ),
    theorem(
        "he2021.cmp_eps_same_as_kairouz",
        "Theorem 4's eps' equals Kairouz et al.'s",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 1 and Sec. 3.2.2"),
        lhs=THM4_EPS_PRIME,
        relation="==",
        rhs=_cl.KAIROUZ_EPS_PRIME,
        hypotheses=_COMP_HYPS,
        domain={eps: _BOX_EPS, T: _BOX_T, delta_t: _BOX_DELTA},
        refs=("he2021.thm4_eps_prime", "classical.kairouz2017_eps1", "classical.kairouz2017_eps2", "classical.kairouz2017_eps3"),
        quantity="composed epsilon, T identical steps",
        notes="'their estimate of the eps' is the same as ours'. Kairouz et al.'s eps'_j as printed in 001.",
        tags=("comparison", "composition"),
    ),
    theorem(
        "he2021.cmp_delta_vs_kairouz",
        "Corollary 1's delta' is smaller than Kairouz et al.'s 1 - (1 - delta)^T (1 - delta~)",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 1 and Sec. 3.2.2"),
        lhs=COR1_DELTA_AT_THM4_EPS,
        relation="<=",
        rhs=_cl.KAIROUZ_DELTA,
        hypotheses=[*_COMP_HYPS, COR1_DELTA_AT_THM4_EPS < 1, _cl.KAIROUZ_DELTA < 1],
        domain=_THM4_DOM,
        refs=("he2021.cor1_delta_at_thm4_eps", "classical.kairouz2017_delta"),
        quantity="composed delta at the same eps', T identical (eps, delta)-DP steps (smaller is tighter)",
        notes=(
            "'their delta' is also larger than ours'. Compared at the common eps' = min{eps'_1, eps'_2, eps'_3} (the "
            "texts say the eps' estimates coincide), and only where both delta' are below 1: a comparison of two "
            "bounds that are both vacuous says nothing (at T = 1e4, delta = 0.01 Cor 1 gives 2.01 and Kairouz et al. 1)."
        ),
        tags=("comparison", "composition"),
    ),
    theorem(
        "he2021.cmp_delta_vs_kairouz_gap",
        "Kairouz et al.'s delta' exceeds Corollary 1's by approximately delta (e^eps-1)/(e^eps+1) (T - ceil(eps'/eps))",
        Kind.EXPANSION,
        src(HE_UAI, "Sec. 1 and Sec. 3.2.2"),
        lhs=_cl.KAIROUZ_DELTA - COR1_DELTA,
        rhs=KAIROUZ_DELTA_GAP,
        hypotheses=[*_COMP_HYPS, _pos(eps_p), eps_p <= T * eps],
        domain=_COR1_DOM,
        expansion=Expansion(delta, 0, 2),
        refs=("classical.kairouz2017_delta", "he2021.cor1_delta"),
        quantity="difference of the two delta' at equal eps', to first order in delta",
        notes=(
            "'approximately' is read as: equal up to O(delta^2) as delta -> 0 with delta~ fixed. To that order the "
            "difference also carries -T delta delta~ (from the (1 - delta~) factor of Kairouz et al.), so the "
            "stated approximation is exact only when delta~ is itself O(delta)."
        ),
        tags=("comparison", "composition", "first-order"),
    ),
    theorem(
        "he2021.cmp_eps_vs_dwork_roth",
        "Theorem 4's eps' is strictly smaller than advanced composition's",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 3.2.2"),
        lhs=THM4_EPS_PRIME,
        relation="<",
        rhs=_cl.DR_ADV_EPS,
        hypotheses=_COMP_HYPS,
        domain={eps: _BOX_EPS, T: _BOX_T, delta_t: _BOX_DELTA},
        refs=("he2021.thm4_eps_prime", "classical.dwork_roth_advanced_composition_eps"),
        quantity="composed epsilon, T identical steps (smaller is tighter)",
        notes="'Our composition theorem is strictly tighter than the existing results'.",
        tags=("comparison", "composition"),
    ),
    theorem(
        "he2021.cmp_delta_vs_dwork_roth",
        "Corollary 1's delta' is strictly smaller than advanced composition's delta~ + T delta",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 3.2.2"),
        lhs=COR1_DELTA_AT_THM4_EPS,
        relation="<",
        rhs=_cl.DR_ADV_DELTA,
        hypotheses=_COMP_HYPS,
        domain=_THM4_DOM,
        refs=("he2021.cor1_delta_at_thm4_eps", "classical.dwork_roth_advanced_composition_delta"),
        quantity="composed delta, T identical steps (smaller is tighter)",
        notes="'Our composition theorem is strictly tighter than the existing results'.",
        tags=("comparison", "composition"),
    ),
    theorem(
        "he2021uai.cmp_cor2_vs_thm4",
        "At eps' = eps'_3, Corollary 2's delta' is strictly smaller than Theorem 4's",
        Kind.COMPARISON,
        src(HE_UAI, "Corollary 2 (last sentence)"),
        lhs=COR2_DELTA_AT_EPS3,
        relation="<",
        rhs=COR1_DELTA.subs(eps_p, THM4_EPS3),
        hypotheses=[*_COMP_HYPS, THM4_EPS3 < T * eps],
        domain=_EPS3_DOM,
        refs=("he2021uai.cor2_delta_at_eps3", "he2021.cor1_delta", "he2021.thm4_eps3"),
        quantity="composed delta at eps' = eps'_3, T identical steps (smaller is tighter)",
        notes="'for the case eps' = eps'_3, delta' is strictly tighter than that in Theorem 4'. Reduces to delta'' < delta~.",
        tags=("comparison", "composition"),
    ),
]

_EPS_B_SMALL = _R(17, 10) * eps  # privacy of Lemma 1's B, eps < 1/5
_EPS_B_LARGE = eps - sp.log(_R(9, 10))  # privacy of Lemma 1's B, eps >= 1/5
_COMPARISONS += [
    theorem(
        "he2021uai.cmp_lemma1_small_conflicts_thm3",
        "Proof of Thm 1 (eps < 1/5): Theorem 3 applied to Lemma 1's (1.7 eps, delta)-DP B has a threshold at most eq. (5)'s",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 3.1.1, Stage 3 ('eq. (5) or eq. (6) in Lemma 1 will conflict with Theorem 3')"),
        lhs=THM3_UAI_A_SMALL.subs(eps, _EPS_B_SMALL).subs(k_sets, LEMMA1_UAI_K_SMALL),
        relation="<=",
        rhs=LEMMA1_UAI_A_SMALL.subs(k_sets, LEMMA1_UAI_K_SMALL),
        hypotheses=[*_DP_HYPS, eps < _R(1, 5)],
        domain={eps: (_R(1, 1000), _R(1, 5)), delta: _BOX_DELTA},
        refs=("he2021uai.thm3_small_eps", "he2021uai.lemma1_small_eps"),
        quantity="event thresholds: Theorem 3 (small branch, at eps_B = 1.7 eps) vs Lemma 1 eq. (5)",
        notes=(
            "The conflict needs (i) this threshold inequality, (ii) Theorem 3's probability 85 eps_B/127 = "
            "85 (1.7 eps)/127 >= Lemma 1's 85 eps/127, (iii) eps_B = 1.7 eps <= 17/50 (true for eps <= 1/5) and "
            "(iv) Lemma 1's k <= eps_B/(1.7 e^{-1.7 eps_B} delta). The entry encodes (i); the test checks (ii)-(iv)."
        ),
        tags=("comparison", "generalization", "proof-step"),
    ),
    theorem(
        "he2021uai.cmp_lemma1_large_in_thm3_branch",
        "Proof of Thm 1 (eps >= 1/5): Lemma 1's (eps - ln 0.9, delta)-DP B lies in Theorem 3's eps > 17/50 branch",
        Kind.COMPARISON,
        src(HE_UAI, "Sec. 3.1.1, Stage 3 ('eq. (5) or eq. (6) in Lemma 1 will conflict with Theorem 3')"),
        lhs=_R(17, 50),
        relation="<",
        rhs=_EPS_B_LARGE,
        hypotheses=[_pos(eps), eps >= _R(1, 5)],
        domain={eps: (_R(1, 5), 20)},
        refs=("he2021uai.thm3_large_eps", "he2021uai.lemma1_large_eps"),
        quantity="privacy parameter eps_B = eps - ln 0.9 of Lemma 1's B vs Theorem 3's branch point 17/50",
        notes=(
            "With eps_B = eps + ln(10/9), Theorem 3's large branch reproduces eq. (6) exactly (same k, threshold "
            "0.9 k e^-eps delta + 1.1 (1 - 0.9 e^-eps), probability (1 - 0.9 e^-eps)/219), which gives the "
            "conflict. The branch needs eps_B > 17/50, i.e. eps > 17/50 - ln(10/9) ~ 0.2346, so for "
            "1/5 <= eps <= 0.2346 the stated argument does not apply (there Theorem 3's small branch gives a "
            "larger threshold, no conflict). Derived from the text's proof sketch, not printed."
        ),
        tags=("comparison", "generalization", "proof-step"),
    ),
]

_EXPANSIONS = [
    theorem(
        "he2021.lemma_kl_small_eps",
        "Lemma 2's KL bound is eps^2/2 to leading order",
        Kind.EXPANSION,
        src(HE_UAI, "Lemma 2 (small-eps form, derived, not printed)"),
        lhs=KL_BOUND,
        rhs=eps**2 / 2,
        hypotheses=[_pos(eps)],
        domain={eps: (sp.Rational(1, 10**8), 1)},
        expansion=Expansion(eps, 0, 4),
        refs=("he2021.lemma_kl",),
        quantity="eps tanh(eps/2) as eps -> 0",
        notes="eps (e^eps - 1)/(e^eps + 1) = eps tanh(eps/2) = eps^2/2 - eps^4/24 + O(eps^6).",
        tags=("kl", "asymptotic"),
    ),
    theorem(
        "he2021.thm4_eps3_small_eps",
        "Theorem 4's eps'_3 for small eps (the advanced-composition form)",
        Kind.EXPANSION,
        src(HE_UAI, "Theorem 4 (small-eps form, derived, not printed)"),
        lhs=THM4_EPS3,
        rhs=eps * sp.sqrt(2 * T * sp.log(1 / delta_t)) + T * eps**2 / 2,
        hypotheses=_COMP_HYPS,
        domain={eps: (_R(1, 1000), _R(1, 2)), T: _BOX_T, delta_t: _BOX_DELTA},
        expansion=Expansion(eps, 0, 4),
        refs=("he2021.thm4_eps3",),
        quantity="eps'_3 as eps -> 0 at fixed T, delta~",
        tags=("composition", "asymptotic"),
    ),
    theorem(
        "he2021.thm4_eps3_large_T",
        "Theorem 4's eps'_3 grows like T eps tanh(eps/2), with an O(sqrt(T)) correction",
        Kind.EXPANSION,
        src(HE_UAI, "Theorem 4 (large-T form, derived, not printed)"),
        lhs=THM4_EPS3,
        rhs=T * kl_tanh(eps),
        hypotheses=_COMP_HYPS,
        domain={eps: _BOX_EPS, T: _BOX_T, delta_t: _BOX_DELTA},
        expansion=Expansion(T, sp.oo, sp.Rational(-1, 2)),
        refs=("he2021.thm4_eps3",),
        quantity="eps'_3 as T -> oo at fixed eps, delta~ (remainder O(T^{1/2}): order = -1/2)",
        notes="Expansion.order is -1/2 here: the remainder O(var**-order) is O(sqrt(T)).",
        tags=("composition", "asymptotic"),
    ),
]

THEOREMS = [
    theorem(
        "he2021.lemma_kl",
        "KL divergence of an eps-DP mechanism",
        Kind.BOUND,
        src(HE_UAI, "Lemma 2"),
        lhs=D_KL,
        rhs=KL_BOUND,
        hypotheses=[eps > 0],
        domain={eps: (sp.Rational(1, 10**8), 50)},
        quantity="sup over neighbouring S, S' of D_KL(A(S) || A(S')) for eps-DP A",
        premises=(Property("DP", (eps, sp.Integer(0))),),
        oracle="kl_eps_dp",
        tags=("kl", "flagship"),
    ),
    *_THM1,
    *_DEFS,
    *_MULTI,
    *_COMPOSITION,
    *_IGMM,
    *_COMPARISONS,
    *_EXPANSIONS,
]
