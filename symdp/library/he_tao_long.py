r"""He, Wang, Tao, *Tighter generalization bounds for iterative differentially private
learning algorithms*: the long (journal) version (its seed file is recorded in ``symdp.library._sources``).

Only what the long text states differently from the UAI text (He et al. (UAI)), or adds
to it, lives here (ids ``he2021long.*``); statements common to both texts are
``he2021.*`` and the UAI-only forms ``he2021uai.*`` (module :mod:`.he_tao`).

Every claim is encoded as printed, including the ones we believe are wrong; the
``notes`` of such entries say what we suspect and why, and the verifier decides.
Suspicions recorded here (each checked in ``tests/test_library_he_tao_long.py``):

* Cor 3 / Thm 7 / Thm 8 ``delta''``: the closed form of the Chernoff minimum in
  Appendix B.4 carries ``exp(-(eps'+T eps)/2)``; the minimum of the displayed
  moment bound (eq. 36 at the point of eq. 37) is ``exp(+(eps'+T eps)/2)`` times
  the rest, so the printed ``delta''`` is too small by ``exp(eps'+T eps)`` and
  falls below the exact optimal-composition delta.
* Thm 7 / Thm 8 per-step epsilon: the Chernoff step of Appendix C.1 gives
  ``r sqrt(2 log(1/delta)) + r^2/2`` (``r = 2L/(tau sigma)``); the printed
  ``eps~`` has ``r sqrt(log(1/delta)/2) + r^2/2`` (Thm 7) and
  ``r sqrt(log(1/delta) + 1/tau^2)`` (Thm 8, garbled), which the exact Gaussian
  profile refutes.
* Thm 1: for ``eps >= 2`` the failure probability ``b`` is <= 0, so the claimed
  probability ``> 1 - b >= 1`` is impossible.
* Remark 1/2: with ``eps' = Theta(sqrt(T)/N)`` the failure term ``b`` of Thm 1
  grows like ``N log N`` for fixed ``delta'``, and Thm 1's own sample-size
  condition fails for large ``N``.

>>> from symdp.library import get
>>> get("he2021long.thm1").rhs
9*epsilon
"""

from __future__ import annotations

import sympy as sp

from ..symbols import N, T, delta, delta_p, delta_t, eps, eps_p, m, sigma, t
from ..theorem import Expansion, Kind, Property, theorem
from ._sources import HE_LONG, generic_steps_note, src

# ---------------------------------------------------------------------------
# module-local symbols (quantities that appear in this source only)
# ---------------------------------------------------------------------------
# Same names and assumptions as in he_tao.py (SymPy symbols are equal by name and assumptions), so that
# entries of both versions chain by substitution.
GEN = sp.Symbol("Gen", real=True)  # Gen_{S,A(S)} = R(A(S)) - R_S(A(S))
GEN_ABS = sp.Abs(GEN)
P_FAIL = sp.Symbol("P_fail", nonnegative=True)  # failure probability b of a high-probability bound
P_SUCC = sp.Symbol("P_succ", nonnegative=True)  # probability of the event of a multi-database bound
k = sp.Symbol("k", positive=True, integer=True)  # number of databases of a multi-database algorithm
GEN_AVG = sp.Symbol("GenAvg", real=True)  # E[R_{S_i}(h)] - E[R(h)] (one-sided, Cor 1)
P_TAIL = sp.Symbol("P_tail", nonnegative=True)  # a tail probability
R_EMP = sp.Symbol("R_emp", nonnegative=True)  # empirical risk
EPS_STEP = sp.Symbol("epsilon_step", positive=True)  # epsilon of one iteration
EPS_TILDE = sp.Symbol("epsilontilde", positive=True)  # eps~ of Thm 7 / Thm 8
L = sp.Symbol("L", positive=True)  # Lipschitz constant (Thm 7) / clipping bound (Thm 8)
tau = sp.Symbol("tau", positive=True, integer=True)  # mini-batch size
K1 = sp.Symbol("K_1", positive=True)  # Assumption 1
K2 = sp.Symbol("K_2", real=True)  # Assumption 1
s_acc = sp.Symbol("s", positive=True)  # accuracy of Definition 6
t_conf = sp.Symbol("t_conf", positive=True)  # confidence parameter of Definition 6
c_prod = sp.Symbol("c", positive=True)  # Lemma 6: prod alpha_i = c
i_idx = sp.Symbol("i", positive=True, integer=True)
j_idx = sp.Symbol("j", positive=True, integer=True)
ell = sp.IndexedBase("ell", real=True)  # losses l(A(S), z_i)
V_HAT = sp.Symbol("Vhat", nonnegative=True)  # same symbol as classical.py
alpha_i = sp.IndexedBase("alpha")
A_i = sp.IndexedBase("A")
c_i = sp.IndexedBase("c")

_EPS_DELTA = [eps > 0, delta > 0, delta < 1]


def _tanh_form(x: sp.Expr) -> sp.Expr:
    """``(e^x - 1)/(e^x + 1)`` as the paper prints it (= tanh(x/2))."""
    return (sp.exp(x) - 1) / (sp.exp(x) + 1)


# ---------------------------------------------------------------------------
# Theorem 1 (long version): 9 eps, its failure probability and N-condition
# ---------------------------------------------------------------------------
#: 001 Thm 1: |R_S - R| < a with probability > 1 - b
THM1_LONG_A = 9 * eps
THM1_LONG_B = sp.exp(-eps) * delta / eps * sp.log(2 / eps)
#: 001 Thm 1 / Lemma 4 sample size: N >= (2/eps^2) ln(16/(e^{-eps} delta)), stored as the identical
#: (2/eps^2)(eps + ln(16/delta)) so that kernels do not overflow e^{eps} (THM1_LONG_N_MIN_PRINTED is the text's form)
THM1_LONG_N_MIN_PRINTED = 2 / eps**2 * sp.log(16 / (sp.exp(-eps) * delta))
THM1_LONG_N_MIN = 2 / eps**2 * (eps + sp.log(16 / delta))
THM1_LONG_N_CONDITION = N >= THM1_LONG_N_MIN
#: 001 introduction and Sec. 4.1.2: the b it claims ("to 2 e^{-eps} delta / eps log(2/eps)")
INTRO_LONG_B = 2 * sp.exp(-eps) * delta / eps * sp.log(2 / eps)
#: Nissim and Stemmer 2015 as quoted by 001 (Sec. 4.1.2); one copy lives in classical.py
_NS_FALLBACK = {"NS2015_A": 13 * eps, "NS2015_B": 2 * delta / eps * sp.log(2 / eps), "NS2015_ON_AVERAGE": k * delta + 2 * eps}
try:  # pragma: no cover - depends on the other module
    from . import classical as _cl

    NS_A, NS_B, NS_ONAVG = (getattr(_cl, name, default) for name, default in _NS_FALLBACK.items())
except ImportError:  # pragma: no cover
    NS_A, NS_B, NS_ONAVG = _NS_FALLBACK.values()

# ---------------------------------------------------------------------------
# 000 (UAI) constants for the consistency comparisons: taken from he_tao.py when
# its owner exposes them, else re-derived here from 000 Thm 1 / Lemma 1.
# ---------------------------------------------------------------------------
_UAI_FALLBACK = {
    "THM1_UAI_A_SMALL": 4 * eps,
    "THM1_UAI_B_SMALL": 2 * sp.exp(-sp.Rational(17, 10) * eps) * delta / eps * sp.log(2 / eps),
    "THM1_UAI_A_LARGE": sp.Rational(6, 5) * (1 - sp.Rational(9, 10) * sp.exp(-eps)),
    "THM1_UAI_B_LARGE": 18
    * sp.exp(-eps)
    * delta
    / (1 - sp.Rational(9, 10) * sp.exp(-eps))
    * sp.log(220 / (1 - sp.Rational(9, 10) * sp.exp(-eps))),
}
try:  # pragma: no cover - depends on the other module's progress
    from . import he_tao as _uai

    UAI = {name: getattr(_uai, name, default) for name, default in _UAI_FALLBACK.items()}
    _UAI_LEMMA1_N = getattr(_uai, "LEMMA1_UAI_N_CONDITION", None)
    _UAI_THM7_EPS_TILDE = getattr(_uai, "THM7_UAI_EPS_TILDE", None)
except ImportError:  # pragma: no cover
    UAI = dict(_UAI_FALLBACK)
    _UAI_LEMMA1_N = _UAI_THM7_EPS_TILDE = None
#: which 000 constants were found in he_tao.py (the others are the local re-derivations above)
UAI_FROM_HE_TAO = {name: hasattr(_uai, name) for name in _UAI_FALLBACK} if "_uai" in globals() else {}
#: 000 Lemma 1 sample size (the explicit form of 000 Thm 1's condition with constants c1..c7)
UAI_LEMMA1_N = (
    _UAI_LEMMA1_N
    if _UAI_LEMMA1_N is not None
    else sp.Max(
        2 / (sp.Rational(77, 1000) * eps**2) * sp.log(sp.Rational(43, 254) / (sp.exp(-sp.Rational(17, 10) * eps) * delta)),
        200
        / (sp.log(sp.Rational(9, 10)) * (1 - sp.Rational(9, 10) * sp.exp(-eps)))
        * sp.log(9 * sp.exp(-eps) * delta / 48180),
    )
)

# ---------------------------------------------------------------------------
# Theorem 2 / Corollary 1 / Theorem 3 (long forms)
# ---------------------------------------------------------------------------
THM2_BOUND = sp.exp(-eps) * k * delta + 1 - sp.exp(-eps)  # common to 000 and 001 (he2021.*)
COR1_LONG_BOUND = sp.exp(-eps) * k * delta + eps
#: 001 Thm 3: P[R_{S_i}(h) <= R(h) + a] >= eps with a = k e^{-eps} delta + 3 eps
THM3_LONG_A = k * sp.exp(-eps) * delta + 3 * eps
THM3_LONG_P = eps
#: Lemma 4: k = ceil(eps / (e^{-eps} delta)); the threshold of eq. (4) at that k
LEMMA4_K = sp.ceiling(eps / (sp.exp(-eps) * delta))
LEMMA4_THRESHOLD = THM3_LONG_A.subs(k, LEMMA4_K)

# ---------------------------------------------------------------------------
# Corollary 3 (Composition Theorem III, long form: eps' = eps'_3)
# ---------------------------------------------------------------------------
COR3_LONG_EPS = T * (sp.exp(eps) - 1) * eps / (sp.exp(eps) + 1) + sp.sqrt(2 * sp.log(1 / delta_t) * T * eps**2)


def _delta_pp(e_step: sp.Expr, epsp: sp.Expr) -> sp.Expr:
    r"""The printed ``delta''`` of Cor 3 (Appendix B.4 eq. 38) for per-step ``e_step`` at ``eps' = epsp``."""
    Te = T * e_step
    return (
        sp.exp(-(epsp + Te) / 2)
        * (1 / (1 + sp.exp(e_step)) * (2 * Te / (Te - epsp))) ** T
        * ((Te + epsp) / (Te - epsp)) ** (-(epsp + Te) / (2 * e_step))
    )


def _cor2_delta(e_step: sp.Expr, d_step: sp.Expr, epsp: sp.Expr, tail: sp.Expr) -> sp.Expr:
    """Composition II delta' for T identical (e_step, d_step) steps at eps', plus ``tail``."""
    j = sp.ceiling(epsp / e_step)
    x = d_step / (1 + sp.exp(e_step))
    return 1 - (1 - sp.exp(e_step) * x) ** j * (1 - x) ** (T - j) + 1 - (1 - x) ** T + tail


COR3_LONG_DELTA_PP = _delta_pp(eps, COR3_LONG_EPS)
#: the printed (eps, delta) form; equals he2021uai.cor2_delta_at_eps3 (kept for tests and chaining)
COR3_LONG_DELTA = _cor2_delta(eps, delta, COR3_LONG_EPS, COR3_LONG_DELTA_PP)
#: Appendix B.5: the Azuma delta it compares with (printed without the factor eps in the centre)
B5_AZUMA_DELTA = sp.exp(-((eps_p - T * _tanh_form(eps)) ** 2) / (2 * T * eps**2))

# ---------------------------------------------------------------------------
# Theorem 7 (SGLD) and Theorem 8 (agnostic federated learning)
# ---------------------------------------------------------------------------
#: per-step sensitivity of (1/tau) * sum of gradients: ||v|| < 2L, divided by tau
THM7_SENSITIVITY = 2 * L / tau
THM7_EPS_TILDE = (2 * sp.sqrt(2) * L * sigma / tau * sp.sqrt(sp.log(1 / delta)) + 4 / tau**2 * L**2) / (2 * sigma**2)
#: Thm 8 eps~ exactly as printed: 4 sigma (1/tau) sqrt(log(1/delta) + 1/tau^2) / (2 sigma^2)
THM8_EPS_TILDE = 4 * sigma / tau * sp.sqrt(sp.log(1 / delta) + 1 / tau**2) / (2 * sigma**2)
#: Thm 8 per step: clipped client updates (norm <= L) averaged over tau, noise N(0, L^2 sigma^2 I)
THM8_SENSITIVITY = 2 * L / tau
THM8_NOISE_STD = L * sigma

_Q = tau / N  # sampling ratio


def _sgld_eps(e: sp.Expr) -> sp.Expr:
    """eps' of Thm 7 / eq. (15) of Thm 8 in terms of the per-step base epsilon ``e``."""
    return sp.sqrt(8 * sp.log(1 / delta_t) * (tau**2 / N**2 * T * e**2)) + 2 * T * _Q * e * _tanh_form(2 * _Q * e)


def _sgld_delta(e: sp.Expr, epsp: sp.Expr) -> sp.Expr:
    """delta' of Thm 7 / Thm 8 (per-step (2 tau e/N, tau delta/N)) at ``eps' = epsp``, with delta~."""
    j = sp.ceiling(N * epsp / (2 * tau * e))
    x = _Q * delta / (1 + sp.exp(2 * _Q * e))
    return 1 - (1 - sp.exp(2 * _Q * e) * x) ** j * (1 - x) ** (T - j) + 1 - (1 - x) ** T + delta_t


def _sgld_delta_tilde(e: sp.Expr) -> sp.Expr:
    """delta~ of Thm 7 / Thm 8 as printed (per-step tau e/N, not 2 tau e/N), a function of eps'."""
    a = _Q * T * e
    return (
        sp.exp(-(eps_p + a) / 2)
        * (1 / (1 + sp.exp(_Q * e)) * (2 * a / (a - eps_p))) ** T
        * ((_Q * e * T + eps_p) / (a - eps_p)) ** (-(N * eps_p + tau * T * e) / (2 * tau * e))
    )


THM7_EPS = _sgld_eps(EPS_TILDE)
THM7_DELTA = _sgld_delta(EPS_TILDE, THM7_EPS)
THM7_DELTA_TILDE = _sgld_delta_tilde(EPS_TILDE)
THM8_EPS = _sgld_eps(eps)  # eq. (15) prints eps, not eps~
THM8_DELTA = _sgld_delta(EPS_TILDE, THM8_EPS)
THM8_DELTA_TILDE = _sgld_delta_tilde(EPS_TILDE)

#: Remarks 1-2: Thm 1 (long) applied at eps = eps'(N) with delta' held fixed
_REM_A = 9 * THM7_EPS
_REM_B = sp.exp(-THM7_EPS) * delta_p / THM7_EPS * sp.log(2 / THM7_EPS)
_REM8_A = 9 * THM8_EPS
_REM8_B = sp.exp(-THM8_EPS) * delta_p / THM8_EPS * sp.log(2 / THM8_EPS)

# domains ---------------------------------------------------------------------
_D_EPS_SMALL = {eps: (sp.Rational(1, 10**4), sp.Rational(1, 5)), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2))}
_D_SGLD = {
    EPS_TILDE: (sp.Rational(1, 100), 2),
    tau: (1, 256),
    N: (1000, 10**6),
    T: (1, 10**4),
    delta: (sp.Rational(1, 10**10), sp.Rational(1, 10)),
    delta_t: (sp.Rational(1, 10**10), sp.Rational(1, 10)),
}

# ---------------------------------------------------------------------------
# entries
# ---------------------------------------------------------------------------
THEOREMS = [
    # ---- Theorem 1 -------------------------------------------------------
    theorem(
        "he2021long.thm1",
        "High-probability generalization bound via DP (long version): a = 9 eps",
        Kind.BOUND,
        src(HE_LONG, "Theorem 1"),
        lhs=GEN_ABS,
        rhs=THM1_LONG_A,
        hypotheses=[*_EPS_DELTA, THM1_LONG_N_CONDITION],
        domain={eps: (sp.Rational(1, 10**4), 5), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)), N: (1, 10**9)},
        quantity="|R_S(A(S)) - R(A(S))|, bounded by a with probability > 1 - b (loss in [0, 1])",
        premises=(Property("DP", (eps, delta)),),
        conclusion=Property("generalization", (THM1_LONG_A, THM1_LONG_B)),
        notes=(
            "He et al. (long) Thm 1: if A is (eps, delta)-DP, N >= (2/eps^2) ln(16/(e^{-eps} delta)) and ||l||_inf <= 1, then "
            "P[|R_S - R| < 9 eps] > 1 - (e^{-eps} delta/eps) ln(2/eps). No restriction on eps is stated (He et al. (UAI) splits "
            "eps <= 1/5 and eps > 1/5 with a = 4 eps / 1.2(1 - 0.9 e^{-eps})). Suspicion: for eps >= 2, b <= 0 and the "
            "claimed probability > 1 - b >= 1 is impossible; for 1/9 < eps < 2 it holds trivially (|gen| <= 1 < 9 eps)."
        ),
        tags=("generalization", "differs-from-uai"),
    ),
    theorem(
        "he2021long.thm1_b",
        "Failure probability b of Thm 1 (long version)",
        Kind.BOUND,
        src(HE_LONG, "Theorem 1"),
        lhs=P_FAIL,
        rhs=THM1_LONG_B,
        hypotheses=[*_EPS_DELTA, THM1_LONG_N_CONDITION],
        domain={eps: (sp.Rational(1, 10**4), 5), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)), N: (1, 10**9)},
        relation="<",
        quantity="P[|R_S(A(S)) - R(A(S))| >= 9 eps] for (eps, delta)-DP A",
        premises=(Property("DP", (eps, delta)),),
        conclusion=Property("generalization", (THM1_LONG_A, THM1_LONG_B)),
        notes="b = (e^{-eps} delta / eps) ln(2/eps); negative for eps > 2 (see he2021long.thm1).",
        tags=("generalization", "differs-from-uai"),
    ),
    theorem(
        "he2021long.thm1_n_condition",
        "Sample-size condition of Thm 1 / Lemma 4 (long version)",
        Kind.BOUND,
        src(HE_LONG, "Theorem 1 and Lemma 4"),
        lhs=N,
        relation=">=",
        rhs=THM1_LONG_N_MIN,
        hypotheses=_EPS_DELTA,
        domain={eps: (sp.Rational(1, 10**4), 1), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2))},
        quantity="training sample size N required by Thm 1 (long): N >= (2/eps^2) ln(16/(e^{-eps} delta))",
        notes=(
            "Appendix A.2 uses it in the Hoeffding step (eq. 18): with k = eps e^{eps}/delta databases, "
            "k * 2 exp(-N eps^2/2) <= eps/8 exactly when N >= (2/eps^2) ln(16 e^{eps}/delta)."
        ),
        tags=("generalization", "differs-from-uai", "assumption"),
    ),
    theorem(
        "he2021long.cmp_ns_a",
        "Thm 1 (long) tightens a from 13 eps (Nissim-Stemmer) to 9 eps",
        Kind.COMPARISON,
        src(HE_LONG, "Sec. 1 and Sec. 4.1.2", cites="Nissim and Stemmer 2015"),
        lhs=THM1_LONG_A,
        rhs=NS_A,
        hypotheses=[eps > 0],
        domain={eps: (sp.Rational(1, 10**4), 5)},
        refs=("he2021long.thm1", "classical.nissim_stemmer2015_high_prob"),
        quantity="deviation a of the high-probability bound",
        tags=("comparison",),
    ),
    theorem(
        "he2021long.cmp_ns_b",
        "Thm 1 (long) tightens b from 2 delta/eps log(2/eps) to 2 e^{-eps} delta/eps log(2/eps)",
        Kind.COMPARISON,
        src(HE_LONG, "Sec. 1 and Sec. 4.1.2", cites="Nissim and Stemmer 2015"),
        lhs=INTRO_LONG_B,
        rhs=NS_B,
        hypotheses=_EPS_DELTA,
        domain={eps: (sp.Rational(1, 10**4), 4), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2))},
        refs=("he2021long.thm1_b", "classical.nissim_stemmer2015_high_prob"),
        quantity="failure probability b of the high-probability bound",
        notes=(
            "As printed in the introduction and Sec. 4.1.2, with the factor 2 that Thm 1 itself does not carry "
            "(see he2021long.consistency_thm1_b_intro). No range of eps is stated; log(2/eps) < 0 for eps > 2 "
            "reverses the inequality."
        ),
        tags=("comparison",),
    ),
    theorem(
        "he2021long.quote_dwork2015_b",
        "Dwork et al. 2015 as quoted by He et al. (long): P[R - R_S < 4 eps] > 1 - 8 delta^eps (failure probability)",
        Kind.BOUND,
        src(HE_LONG, "Sec. 4.1.2, comparison of Theorem 1", cites="Dwork, Feldman, Hardt, Pitassi, Reingold, Roth 2015"),
        lhs=P_FAIL,
        relation="<",
        rhs=8 * delta**eps,
        hypotheses=_EPS_DELTA,
        domain={eps: (sp.Rational(1, 1000), 1), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2))},
        quantity="P[R(A(S)) - R_S(A(S)) >= 4 eps] for (eps, delta)-DP A",
        premises=(Property("DP", (eps, delta)),),
        conclusion=Property("generalization", (4 * eps, 8 * delta**eps)),
        refs=("classical.dwork2015_high_prob",),
        notes=(
            "He et al. (long) prints '1 - 8 delta^eps' where He et al. (UAI) prints '1 - 8 delta eps' (classical.dwork2015_high_prob); both "
            "look like conversion damage. As printed, 8 delta^eps >= 1 for small eps (vacuous): e.g. eps = 0.01, "
            "delta = 1e-5 gives 8 * 0.891."
        ),
        tags=("quoted", "differs-from-uai"),
    ),
    theorem(
        "he2021long.def_empirical_variance",
        "Empirical variance of the loss as defined in He et al. (long) (for Oneto et al.'s bound)",
        Kind.DEFINITION,
        src(HE_LONG, "Sec. 4.1.2, comparison of Theorem 1", cites="Oneto, Ridella, Anguita 2017"),
        lhs=V_HAT,
        rhs=sp.Sum(
            (ell[i_idx] - ell[j_idx]) ** 2, (i_idx, 1, N), (j_idx, 1, N)
        ) / (2 * N * (N - 1)),
        hypotheses=[N >= 2],
        quantity="V_S(A(S)) = 1/(2N(N-1)) sum_{i != j} (l(A(S), z_i) - l(A(S), z_j))^2",
        refs=("classical.oneto2017_empirical_variance",),
        notes=(
            "He et al. (long) writes the sum over i != j; the i = j terms vanish, so the full double sum is encoded. It equals "
            "the unbiased sample variance of the losses. He et al. (UAI) writes V_S = Cov_{z ~ S}(l(A(S), z)) instead."
        ),
        tags=("definition", "differs-from-uai"),
    ),
    theorem(
        "he2021long.consistency_thm1_b_intro",
        "Internal consistency: Thm 1's b equals the b the introduction claims",
        Kind.COMPARISON,
        src(HE_LONG, "Theorem 1 vs Sec. 1 / Sec. 4.1.2"),
        lhs=THM1_LONG_B,
        relation="==",
        rhs=INTRO_LONG_B,
        hypotheses=_EPS_DELTA,
        domain={eps: (sp.Rational(1, 10**4), sp.Rational(1, 5)), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2))},
        refs=("he2021long.thm1_b", "he2021long.cmp_ns_b"),
        notes="Thm 1 prints e^{-eps} delta/eps ln(2/eps); Sec. 1 and 4.1.2 print 2 e^{-eps} delta/eps log(2/eps).",
        tags=("consistency",),
    ),
    # ---- cross-version consistency of Thm 1 ---------------------------------
    theorem(
        "he2021long.consistency_thm1_a",
        "Thm 1 deviation a: UAI 4 eps vs long 9 eps (eps <= 1/5)",
        Kind.COMPARISON,
        src(HE_LONG, "Theorem 1 vs He et al. (UAI) Theorem 1"),
        lhs=UAI["THM1_UAI_A_SMALL"],
        rhs=THM1_LONG_A,
        hypotheses=[eps > 0, eps <= sp.Rational(1, 5)],
        domain={eps: (sp.Rational(1, 10**4), sp.Rational(1, 5))},
        refs=("he2021uai.thm1_small_eps", "he2021long.thm1"),
        notes="The UAI deviation is no larger than the long version's for eps <= 1/5 (the long a is looser).",
        tags=("consistency",),
    ),
    theorem(
        "he2021long.consistency_thm1_b",
        "Thm 1 failure probability: long e^{-eps} delta/eps ln(2/eps) vs UAI 2 e^{-1.7 eps} delta/eps ln(2/eps)",
        Kind.COMPARISON,
        src(HE_LONG, "Theorem 1 vs He et al. (UAI) Theorem 1"),
        lhs=THM1_LONG_B,
        rhs=UAI["THM1_UAI_B_SMALL"],
        hypotheses=[*_EPS_DELTA, eps <= sp.Rational(1, 5)],
        domain=_D_EPS_SMALL,
        refs=("he2021long.thm1_b", "he2021uai.thm1_small_eps_failure"),
        notes="Holds iff 2 e^{-0.7 eps} >= 1, i.e. eps <= ln 2 / 0.7, which covers eps <= 1/5.",
        tags=("consistency",),
    ),
    theorem(
        "he2021long.consistency_thm1_a_large",
        "Thm 1 deviation a for eps > 1/5: UAI 1.2(1 - 0.9 e^{-eps}) vs long 9 eps",
        Kind.COMPARISON,
        src(HE_LONG, "Theorem 1 vs He et al. (UAI) Theorem 1"),
        lhs=UAI["THM1_UAI_A_LARGE"],
        rhs=THM1_LONG_A,
        hypotheses=[eps > sp.Rational(1, 5)],
        domain={eps: (sp.Rational(1, 5), 20)},
        refs=("he2021uai.thm1_large_eps", "he2021long.thm1"),
        tags=("consistency",),
    ),
    theorem(
        "he2021long.consistency_thm1_b_large",
        "Thm 1 failure probability for eps > 1/5: long vs UAI",
        Kind.COMPARISON,
        src(HE_LONG, "Theorem 1 vs He et al. (UAI) Theorem 1"),
        lhs=THM1_LONG_B,
        rhs=UAI["THM1_UAI_B_LARGE"],
        hypotheses=[*_EPS_DELTA, eps > sp.Rational(1, 5)],
        domain={eps: (sp.Rational(1, 5), 20), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2))},
        refs=("he2021long.thm1_b", "he2021uai.thm1_large_eps_failure"),
        notes="The long b turns negative for eps > 2 (see he2021long.thm1).",
        tags=("consistency",),
    ),
    theorem(
        "he2021long.consistency_thm1_n",
        "Thm 1 sample size: long (2/eps^2) ln(16 e^eps/delta) vs the explicit UAI condition of He et al. (UAI) Lemma 1",
        Kind.COMPARISON,
        src(HE_LONG, "Theorem 1 vs He et al. (UAI) Lemma 1"),
        lhs=THM1_LONG_N_MIN,
        rhs=UAI_LEMMA1_N,
        hypotheses=[*_EPS_DELTA, eps <= sp.Rational(1, 5)],
        domain=_D_EPS_SMALL,
        refs=("he2021long.thm1_n_condition", "he2021uai.lemma1_n_condition"),
        notes=(
            "He et al. (UAI) Thm 1 states its N-condition with unnamed constants c1..c7 (he2021uai.thm1_n_condition); its "
            "Lemma 1 makes them explicit, N >= max{2/(0.077 eps^2) ln(43/(254 e^{-1.7 eps} delta)), "
            "200/(ln 0.9 (1 - 0.9 e^{-eps})) ln(9 e^{-eps} delta/48180)}. Claim checked: the long version needs "
            "no more samples than the UAI one."
        ),
        tags=("consistency",),
    ),
    # ---- Theorem 2 comparison, Corollary 1, Theorem 3 ------------------------
    theorem(
        "he2021long.cmp_thm2_factor",
        "Thm 2 is tighter than Nissim-Stemmer's on-average bound by a factor e^eps",
        Kind.COMPARISON,
        src(HE_LONG, "Sec. 4.1.2, comparison of Theorem 2", cites="Nissim and Stemmer 2015"),
        lhs=sp.exp(eps) * THM2_BOUND,
        rhs=NS_ONAVG,
        hypotheses=[*_EPS_DELTA, k >= 1],
        domain={eps: (sp.Rational(1, 10**4), 5), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)), k: (1, 10**6)},
        refs=("he2021.thm2", "classical.nissim_stemmer2015_on_average", "he2021uai.cmp_thm2_vs_nissim_stemmer"),
        quantity="on-average multi-database generalization gap",
        notes=(
            "Read as: e^eps * (e^{-eps} k delta + 1 - e^{-eps}) <= k delta + 2 eps. The k delta terms differ by "
            "exactly e^eps; the whole bounds only when e^eps - 1 <= 2 eps (eps <= 1.2564...). He et al. (UAI) claims a factor "
            "e^eps / 2 instead."
        ),
        tags=("comparison", "differs-from-uai"),
    ),
    theorem(
        "he2021long.cor1",
        "Corollary 1 (long): on-average multi-database bound e^{-eps} k delta + eps",
        Kind.BOUND,
        src(HE_LONG, "Corollary 1"),
        lhs=GEN_AVG,
        rhs=COR1_LONG_BOUND,
        hypotheses=[*_EPS_DELTA, k >= 1],
        domain={eps: (sp.Rational(1, 10**4), 5), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)), k: (1, 10**6)},
        quantity="E[R_{S_i}(h)] - E[R(h)] for an (eps, delta)-DP multi-database algorithm, loss in [0, 1]",
        premises=(Property("DP", (eps, delta), "A~"),),
        notes="From Thm 2 via 1 - e^{-eps} <= eps (see he2021long.cor1_from_thm2).",
        tags=("generalization",),
    ),
    theorem(
        "he2021long.cor1_from_thm2",
        "Cor 1 follows from Thm 2: e^{-eps} k delta + 1 - e^{-eps} <= e^{-eps} k delta + eps",
        Kind.COMPARISON,
        src(HE_LONG, "Corollary 1"),
        lhs=THM2_BOUND,
        rhs=COR1_LONG_BOUND,
        hypotheses=[*_EPS_DELTA, k >= 1],
        domain={eps: (sp.Rational(1, 10**4), 5), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)), k: (1, 10**6)},
        refs=("he2021.thm2", "he2021long.cor1"),
        tags=("comparison",),
    ),
    theorem(
        "he2021long.thm3",
        "High-probability multi-database bound (long version): threshold k e^{-eps} delta + 3 eps",
        Kind.BOUND,
        src(HE_LONG, "Theorem 3, eq. (2)"),
        lhs=P_SUCC,
        relation=">=",
        rhs=THM3_LONG_P,
        hypotheses=[*_EPS_DELTA, k >= 1],
        domain={eps: (sp.Rational(1, 10**4), 1), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)), k: (1, 10**6)},
        quantity="P(R_{S_i}(h) <= R(h) + k e^{-eps} delta + 3 eps) for an (eps, delta)-DP multi-database algorithm",
        premises=(Property("DP", (eps, delta), "A~"),),
        conclusion=Property("generalization", (THM3_LONG_A, 1 - eps), "A~"),
        refs=("he2021uai.thm3_small_eps", "he2021uai.thm3_large_eps"),
        notes=(
            "The event's threshold is THM3_LONG_A. "
            "Printed: P[R_{S_i}(h) <= R(h) + k e^{-eps} delta + 3 eps] >= eps (a lower bound eps on the probability, "
            "used against Lemma 4's '< eps'). No condition on k (He et al. (UAI) Thm 3 has k <= eps/(1.7 e^{-1.7 eps} delta) and "
            "other constants). The proof's display 'P <= (alpha - (e^{-eps} k delta + eps))/(1 + alpha) <= eps' has "
            "its inequality reversed: Markov gives P >= 2 eps/(1 + alpha), which is >= eps iff alpha <= 1; for "
            "alpha > 1 the event is certain. See he2021long.thm3_markov_step."
        ),
        tags=("generalization", "differs-from-uai"),
    ),
    theorem(
        "he2021long.thm3_markov_step",
        "Proof step of Thm 3 as printed: (alpha - (e^{-eps} k delta + eps))/(1 + alpha) <= eps",
        Kind.COMPARISON,
        src(HE_LONG, "Appendix A.2, proof of Theorem 3"),
        lhs=(THM3_LONG_A - (sp.exp(-eps) * k * delta + eps)) / (1 + THM3_LONG_A),
        rhs=eps,
        hypotheses=[*_EPS_DELTA, k >= 1],
        domain={eps: (sp.Rational(1, 10**4), 1), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)), k: (1, 10**6)},
        refs=("he2021long.thm3",),
        notes="With alpha = e^{-eps} k delta + 3 eps the left side is 2 eps/(1 + alpha): <= eps iff alpha >= 1.",
        tags=("proof-step",),
    ),
    # ---- Lemma 4 (the long version's analogue of 000 Lemma 1) ---------------
    theorem(
        "he2021long.lemma4_k",
        "Lemma 4: number of databases k = ceil(eps / (e^{-eps} delta))",
        Kind.DEFINITION,
        src(HE_LONG, "Lemma 4"),
        lhs=k,
        rhs=LEMMA4_K,
        hypotheses=_EPS_DELTA,
        domain={eps: (sp.Rational(1, 10**4), sp.Rational(1, 5)), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2))},
        notes="He et al. (UAI) Lemma 1 uses k = eps/(e^{-1.7 eps} delta) (eps < 1/5) or (1 - 0.9 e^{-eps})/(9 e^{-eps} delta).",
        tags=("generalization", "differs-from-uai"),
    ),
    theorem(
        "he2021long.lemma4",
        "Lemma 4: a violation of Thm 1 yields a (2 eps, delta)-DP multi-database algorithm violating Thm 3",
        Kind.BOUND,
        src(HE_LONG, "Lemma 4, eqs. (3)-(4)"),
        lhs=P_SUCC,
        relation="<",
        rhs=eps,
        hypotheses=[*_EPS_DELTA, THM1_LONG_N_CONDITION, sp.Eq(k, LEMMA4_K)],
        domain={
            eps: (sp.Rational(1, 10**4), sp.Rational(1, 5)),
            delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)),
            N: (1, 10**9),
        },
        quantity="P(R_{S_i}(h_B) <= R(h_B) + k e^{-eps} delta + 3 eps) for the constructed B (eq. 4)",
        premises=(
            Property("DP", (eps, delta), "A"),
            Property(
                "generalization-violated",
                (sp.exp(-eps) * LEMMA4_K * delta + 8 * eps, sp.exp(-eps) * delta / eps * sp.log(2 / eps)),
                "A",
            ),
        ),
        conclusion=Property("DP", (2 * eps, delta), "B"),
        refs=("he2021long.thm3", "he2021uai.lemma1_small_eps"),
        notes=(
            "The event's threshold is LEMMA4_THRESHOLD (about 4 eps). Premise (3): P[R_S(A(S)) <= e^{-eps} k delta + 8 eps + R(A(S))] < 1 - (e^{-eps} delta/eps) ln(2/eps). "
            "Conclusion: B is (2 eps, delta)-DP and eq. (4) holds with probability < eps, contradicting eq. (2) of "
            "Thm 3. Suspicions: the premise uses 8 eps and a one-sided event while Thm 1 states |.| < 9 eps; eq. (2) "
            "applied to a (2 eps, delta)-DP B gives threshold k e^{-2 eps} delta + 6 eps with probability >= 2 eps, "
            "not the printed one; the proof ends with threshold 6 eps and probability > 1 - eps, not 3 eps."
        ),
        tags=("generalization", "differs-from-uai"),
    ),
    theorem(
        "he2021long.lemma4_union_step",
        "Proof of Lemma 4, eq. (17): 1 - (1 - ln(2/eps)/k)^k >= 1 - eps/2",
        Kind.COMPARISON,
        src(HE_LONG, "Appendix A.2, proof of Lemma 4, eq. (17)"),
        lhs=1 - eps / 2,
        rhs=1 - (1 - sp.log(2 / eps) / LEMMA4_K) ** LEMMA4_K,
        hypotheses=[*_EPS_DELTA, eps < 2],
        domain={eps: (sp.Rational(1, 10**4), sp.Rational(1, 5)), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2))},
        refs=("he2021long.lemma4", "he2021long.lemma4_k"),
        notes="True when ln(2/eps) <= k, since (1 - x/k)^k <= e^{-x}; k = ceil(eps e^eps / delta).",
        tags=("proof-step",),
    ),
    theorem(
        "he2021long.lemma4_hoeffding_step",
        "Proof of Lemma 4, eq. (18) as printed: (1 - e^{-eps^2/2N})^k >= 1 - eps/8",
        Kind.COMPARISON,
        src(HE_LONG, "Appendix A.2, proof of Lemma 4, eq. (18)"),
        lhs=1 - eps / 8,
        rhs=(1 - sp.exp(-(eps**2) / (2 * N))) ** LEMMA4_K,
        hypotheses=[*_EPS_DELTA, THM1_LONG_N_CONDITION],
        domain={
            eps: (sp.Rational(1, 10**4), sp.Rational(1, 5)),
            delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)),
            N: (1, 10**9),
        },
        refs=("he2021long.lemma4",),
        notes=(
            "Garbled: Hoeffding gives P(|l(h_i, T) - R(h_i)| > eps/2) <= 2 exp(-N eps^2/2), so the intended form is "
            "(1 - 2 e^{-N eps^2/2})^k >= 1 - eps/8, which the N-condition makes true up to the ceiling in k. As "
            "printed, e^{-eps^2/(2N)} is close to 1 and the left side is close to 0."
        ),
        tags=("proof-step",),
    ),
    # ---- Lemma 1, Azuma, Lemma 6 ---------------------------------------------
    theorem(
        "he2021long.lemma1_dr",
        "Lemma 1 (Dwork-Rothblum): symmetrisation keeps the max divergence and does not decrease KL",
        Kind.EQUIVALENCE,
        src(HE_LONG, "Lemma 1", cites="Dwork and Rothblum 2016, Lemmas 3.9 and 3.10"),
        premises=(Property("max-divergence", (eps,), "(D, D')"),),
        conclusion=Property("max-divergence", (eps,), "(M, M')"),
        notes=(
            "For any D, D' there exist M, M' with max{D_inf(M||M'), D_inf(M'||M)} = max{D_inf(D||D'), D_inf(D'||D)} "
            "and D_KL(D||D') <= D_KL(M||M') = D_KL(M'||M). The printed first equation ends with a garbled "
            "duplicate ', D_inf(D'||D)}'. Used in Appendix B.1 for the KL lemma (Lemma 5 = he2021.lemma_kl)."
        ),
        tags=("kl", "new-in-long"),
    ),
    theorem(
        "he2021long.azuma",
        "Azuma's lemma as quoted: P(sum Y_i >= sum C_i + t sqrt(sum a_i^2)) <= e^{-t^2/2}",
        Kind.BOUND,
        src(HE_LONG, "Lemma 3", cites="Mohri et al. 2018, p. 371; Boucheron et al. 2013"),
        lhs=P_TAIL,
        rhs=sp.exp(-(t**2) / 2),
        hypotheses=[t > 0],
        domain={t: (sp.Rational(1, 100), 8)},
        quantity="P(sum_i Y_i >= sum_i C_i + t sqrt(sum_i a_i^2)) for Y_i in [-a_i, a_i], E(Y_i | X_{<i}) <= C_i",
        notes=(
            "Quoted with Y_i in [-a_i, a_i] and E(Y_i | X_{i-1}, ..., X_1) <= C_i (the conditioning on X instead "
            "of Y is as printed). Sanity instance: Rademacher steps, a_i = 1, C_i = 0: "
            "P(S_T >= t sqrt(T)) <= e^{-t^2/2} (Hoeffding)."
        ),
        tags=("concentration", "new-in-long"),
    ),
    theorem(
        "he2021long.lemma6",
        "Lemma 6: max of 1 - prod(1 - alpha_i A_i) under 1 <= alpha_i <= c_i, prod alpha_i = c is at a vertex",
        Kind.EQUIVALENCE,
        src(HE_LONG, "Lemma 6, eqs. (11)-(12)"),
        lhs=1 - sp.Product(1 - alpha_i[i_idx] * A_i[i_idx], (i_idx, 1, T)),
        hypotheses=[c_prod >= 1],
        premises=(Property("constraints", (c_prod,), "alpha: 1 <= alpha_i <= c_i, c_i A_i <= 1, prod alpha_i = c"),),
        conclusion=Property("maximiser has |{i : alpha_i != c_i, alpha_i != 1}| <= 1", (), "alpha*"),
        notes=(
            "With u_i = log alpha_i the objective is 1 - exp(sum log(1 - A_i e^{u_i})), each summand concave in u_i, "
            "over the polytope {0 <= u_i <= log c_i, sum u_i = log c}: its maximum sits at a vertex, which has at "
            "most one coordinate strictly inside its bounds. Checked numerically in the tests."
        ),
        tags=("composition", "new-in-long"),
    ),
    # ---- Corollary 3 (Composition Theorem III, long form) --------------------
    theorem(
        "he2021long.cor3_delta_pure",
        "Composition Theorem III (long) for eps-DP iterators: delta' = delta'' at eps' = eps'_3",
        Kind.BOUND,
        src(HE_LONG, "Corollary 3, Appendix B.4 eq. (38)"),
        lhs=delta_p,
        rhs=COR3_LONG_DELTA_PP,
        hypotheses=[eps > 0, delta_t > 0, delta_t < 1, T * eps > COR3_LONG_EPS],
        domain={eps: (sp.Rational(1, 100), 1), T: (10, 10**4), delta_t: (sp.Rational(1, 10**10), sp.Rational(1, 100))},
        quantity="smallest delta' such that the T-fold composition of eps-DP steps is (eps'_3, delta')-DP",
        premises=(Property("DP", (eps, sp.Integer(0)), "M_i"),),
        conclusion=Property("DP", (COR3_LONG_EPS, COR3_LONG_DELTA_PP)),
        oracle="optimal_composition",
        refs=("he2021uai.cor2_delta_at_eps3", "he2021.thm4_eps3", "he2021uai.cor2_delta_pp"),
        notes=(
            "He et al. (long) Cor 3 assumes the M_i are eps-DP and fixes eps' = eps'_3 = T eps (e^eps - 1)/(e^eps + 1) + "
            "sqrt(2 log(1/delta~) T eps^2); its delta' is printed with delta (the (eps, delta) form, identical to "
            "he2021uai.cor2_delta_at_eps3 and not repeated here). Under its own premise (delta = 0) the two "
            "Composition-II terms vanish and delta' = delta''. Needs T eps > eps'. Suspicion: B.4 minimises "
            "e^{-eps' t - T t eps}((e^{2 t eps + eps} + 1)/(1 + e^eps))^T at e^{2 eps t} = e^{-eps}(T eps + eps')/"
            "(T eps - eps'); the value there carries exp(+(eps' + T eps)/2), the printed delta'' "
            "exp(-(eps' + T eps)/2), so delta'' is too small by e^{eps' + T eps} and falls below the optimal delta."
        ),
        tags=("composition", "differs-from-uai"),
    ),
    theorem(
        "he2021long.b5_tightness",
        "Appendix B.5: delta'' is at most the Azuma delta exp(-(eps' - T (e^eps-1)/(e^eps+1))^2 / (2 T eps^2))",
        Kind.COMPARISON,
        src(HE_LONG, "Appendix B.5"),
        lhs=_delta_pp(eps, eps_p),
        rhs=B5_AZUMA_DELTA,
        hypotheses=[eps > 0, eps_p < T * eps, eps_p > T * _tanh_form(eps)],
        domain={eps: (sp.Rational(1, 20), 1), T: (10, 1000), eps_p: (1, 100)},
        refs=("he2021long.cor3_delta_pure",),
        notes=(
            "As printed the Azuma centre is T (e^eps - 1)/(e^eps + 1) without the factor eps that the KL mean "
            "eps (e^eps - 1)/(e^eps + 1) carries; B.4 likewise prints 'eps' >= T (e^eps - 1)/(e^eps + 1)'."
        ),
        tags=("composition", "new-in-long"),
    ),
    # ---- Theorem 7: SGLD -------------------------------------------------------
    theorem(
        "he2021long.thm7_eps_tilde",
        "SGLD (Thm 7): per-step Gaussian epsilon eps~ = (2 sqrt2 L sigma sqrt(log 1/delta)/tau + 4 L^2/tau^2)/(2 sigma^2)",
        Kind.BOUND,
        src(HE_LONG, "Theorem 7, Appendix C.1"),
        lhs=EPS_STEP,
        rhs=THM7_EPS_TILDE,
        hypotheses=[L > 0, sigma > 0, tau >= 1, delta > 0, delta < 1],
        domain={
            L: (sp.Rational(1, 10), 10),
            sigma: (sp.Rational(1, 2), 20),
            tau: (1, 256),
            delta: (sp.Rational(1, 10**10), sp.Rational(1, 10)),
        },
        quantity=(
            "smallest eps such that the Gaussian mechanism with L2 sensitivity Delta = 2L/tau and noise std sigma "
            "is (eps, delta)-DP (one SGLD step before mini-batch sampling)"
        ),
        premises=(Property("Gaussian", (THM7_SENSITIVITY, sigma), "M_t"),),
        conclusion=Property("DP", (THM7_EPS_TILDE, delta), "M_t"),
        oracle="gaussian_profile",
        notes=(
            "Mechanism (Algorithm 1, Appendix C.1): theta_t = theta_{t-1} - eta_t [(1/tau) grad r + (1/tau) sum_B "
            "grad l + g_t], g_t ~ N(0, sigma^2 I); neighbouring S, S' change one gradient, ||v|| < 2L, so the "
            "noisy statistic has sensitivity 2L/tau, r = Delta/sigma = 2L/(tau sigma). Printed eps~ = "
            "r sqrt(log(1/delta)/2) + r^2/2; the Chernoff bound in C.1 yields r sqrt(2 log(1/delta)) + r^2/2 "
            "(the first term lost a factor 2). Test: exact profile delta(eps~; r) <= delta."
        ),
        tags=("sgld", "new-in-long"),
    ),
    theorem(
        "he2021long.thm7_subsampling",
        "SGLD (Thm 7): amplification by a tau-of-N mini-batch, log(1 + (tau/N)(e^eps~ - 1)) <= 2 (tau/N) eps~",
        Kind.COMPARISON,
        src(HE_LONG, "Appendix C.1", cites="Beimel, Kasiviswanathan, Nissim 2010, Lemma 4.4"),
        lhs=sp.log(1 + _Q * (sp.exp(EPS_TILDE) - 1)),
        rhs=2 * _Q * EPS_TILDE,
        hypotheses=[EPS_TILDE > 0, tau >= 1, N >= tau],
        domain={EPS_TILDE: (sp.Rational(1, 100), 10), tau: (1, 256), N: (256, 10**6)},
        refs=("he2021long.thm7_eps_tilde", "he2021long.thm7_eps"),
        quantity="epsilon of an eps~-DP step run on a uniformly sampled tau-subset of N examples",
        notes=(
            "C.1 states each step is (2 (tau/N) eps~, (tau/N) delta)-DP. The left side is the tight amplification "
            "for sampling without replacement under substitution (Balle, Barthe, Gaboardi 2018); the printed "
            "2 (tau/N) eps~ bounds it only while e^{eps~} - 1 <= 2 eps~ roughly (eps~ <~ 1.256 for small tau/N)."
        ),
        tags=("sgld", "new-in-long"),
    ),
    theorem(
        "he2021long.consistency_thm7_step",
        "Per-step epsilon of the sub-sampled Gaussian step: UAI eps~ (D = 2L) vs long 2 (tau/N) eps~",
        Kind.COMPARISON,
        src(HE_LONG, "Theorem 7 / Appendix C.1 vs He et al. (UAI) Theorem 7"),
        lhs=(_UAI_THM7_EPS_TILDE if _UAI_THM7_EPS_TILDE is not None else sp.log(
            (N - tau) / N + tau / N * sp.exp(THM7_EPS_TILDE))).subs(sp.Symbol("D", positive=True), 2 * L),
        rhs=2 * _Q * THM7_EPS_TILDE,
        hypotheses=[L > 0, sigma > 0, tau >= 1, N > tau, delta > 0, delta < 1],
        domain={
            L: (sp.Rational(1, 10), 10),
            sigma: (sp.Rational(1, 2), 20),
            tau: (1, 256),
            N: (1000, 10**6),
            delta: (sp.Rational(1, 10**10), sp.Rational(1, 10)),
        },
        refs=("he2021uai.thm7_eps_tilde", "he2021long.thm7_eps_tilde", "he2021long.thm7_subsampling"),
        quantity="epsilon of one mini-batch step (sensitivity 2L/tau, noise sigma, tau of N sampled)",
        notes=(
            "He et al. (UAI) prints eps~ = log((N - tau)/N + (tau/N) exp(x)) with x the He et al. (long) eps~ at D = 2L (the tight "
            "amplification of x); He et al. (long) uses 2 (tau/N) x. The long form is the larger (safe) one iff "
            "e^x - 1 <= 2x roughly, i.e. for x below about 1.256 when tau/N is small."
        ),
        tags=("consistency", "sgld"),
    ),
    theorem(
        "he2021long.thm7_eps",
        "SGLD (Thm 7): composed eps'",
        Kind.BOUND,
        src(HE_LONG, "Theorem 7"),
        lhs=eps_p,
        rhs=THM7_EPS,
        hypotheses=[EPS_TILDE > 0, tau >= 1, N >= tau, delta_t > 0, delta_t < 1],
        domain=_D_SGLD,
        quantity="epsilon' of T SGLD steps, each (2 (tau/N) eps~, (tau/N) delta)-DP",
        premises=(Property("DP", (2 * _Q * EPS_TILDE, _Q * delta), "M_t"),),
        conclusion=Property("DP", (THM7_EPS, THM7_DELTA)),
        oracle="optimal_composition",
        notes=generic_steps_note("algo.he2021long.thm7_sgld") + "= eps'_3 of Composition I at per-step eps_s = 2 (tau/N) eps~ (eps~: he2021long.thm7_eps_tilde).",
        tags=("sgld", "new-in-long", "generic-steps"),
    ),
    theorem(
        "he2021long.thm7_delta",
        "SGLD (Thm 7): composed delta' (with delta~)",
        Kind.BOUND,
        src(HE_LONG, "Theorem 7"),
        lhs=delta_p,
        rhs=THM7_DELTA,
        hypotheses=[EPS_TILDE > 0, tau >= 1, N >= tau, delta > 0, delta < 1, delta_t > 0, delta_t < 1],
        domain=_D_SGLD,
        quantity="smallest delta' with T steps of (2 (tau/N) eps~, (tau/N) delta)-DP composing to (eps', delta')-DP",
        premises=(Property("DP", (2 * _Q * EPS_TILDE, _Q * delta), "M_t"),),
        conclusion=Property("DP", (THM7_EPS, THM7_DELTA)),
        oracle="optimal_composition",
        notes=generic_steps_note("algo.he2021long.thm7_sgld") + (
            "Composition II at per-step (2 (tau/N) eps~, (tau/N) delta), eps' of he2021long.thm7_eps substituted, "
            "ceil(N eps'/(2 tau eps~)) = ceil(eps'/eps_s). delta~ is left free here; the theorem also defines it "
            "(he2021long.thm7_delta_tilde), circularly, since eps' depends on delta~."
        ),
        tags=("sgld", "new-in-long", "generic-steps"),
    ),
    theorem(
        "he2021long.thm7_delta_tilde",
        "SGLD (Thm 7): delta~ as defined in the theorem (a function of eps')",
        Kind.DEFINITION,
        src(HE_LONG, "Theorem 7"),
        lhs=delta_t,
        rhs=THM7_DELTA_TILDE,
        hypotheses=[EPS_TILDE > 0, tau >= 1, N >= tau, eps_p > 0, eps_p < _Q * T * EPS_TILDE],
        domain={EPS_TILDE: (sp.Rational(1, 10), 2), tau: (1, 100), N: (1000, 10**5), T: (100, 10**4), eps_p: (
            sp.Rational(1, 100), sp.Rational(1, 2))},
        notes=(
            "Printed with per-step tau eps~/N (Cor 3's delta'' at eps = (tau/N) eps~), although the step is "
            "(2 (tau/N) eps~)-DP; circular with eps' (which contains log(1/delta~)); inherits the sign suspicion of "
            "he2021long.cor3_delta."
        ),
        tags=("sgld", "new-in-long"),
    ),
    # ---- Theorem 8: agnostic federated learning --------------------------------
    theorem(
        "he2021long.thm8_eps_tilde",
        "Federated learning (Thm 8): per-step eps~ = 4 sigma (1/tau) sqrt(log(1/delta) + 1/tau^2) / (2 sigma^2)",
        Kind.BOUND,
        src(HE_LONG, "Theorem 8, Appendix C.2"),
        lhs=EPS_STEP,
        rhs=THM8_EPS_TILDE,
        hypotheses=[sigma > 0, tau >= 1, delta > 0, delta < 1],
        domain={sigma: (sp.Rational(1, 2), 20), tau: (1, 256), delta: (sp.Rational(1, 10**10), sp.Rational(1, 10))},
        quantity=(
            "smallest eps such that the Gaussian mechanism with L2 sensitivity 2L/tau and noise std L sigma is "
            "(eps, delta)-DP (one round of Algorithm 2 before client sampling)"
        ),
        premises=(Property("Gaussian", (THM8_SENSITIVITY, THM8_NOISE_STD), "M_t"),),
        conclusion=Property("DP", (THM8_EPS_TILDE, delta), "M_t"),
        oracle="gaussian_profile",
        notes=(
            "Mechanism (Algorithm 2, Appendix C.2): the average over tau sampled clients of updates clipped to norm "
            "L, plus b_t ~ N(0, L^2 sigma^2 I); replacing one client moves the average by <= 2L/tau, so "
            "r = 2/(tau sigma), independent of L as in the printed formula. Printed (garbled) eps~ = "
            "r sqrt(log(1/delta) + 1/tau^2); C.1's route would give r sqrt(2 log(1/delta)) + r^2/2."
        ),
        tags=("federated", "new-in-long"),
    ),
    theorem(
        "he2021long.thm8_eps",
        "Federated learning (Thm 8, eq. 15): composed eps' (printed with eps, not eps~)",
        Kind.BOUND,
        src(HE_LONG, "Theorem 8, eq. (15)"),
        lhs=eps_p,
        rhs=THM8_EPS,
        hypotheses=[eps > 0, tau >= 1, N >= tau, delta_t > 0, delta_t < 1],
        domain={**{s: r for s, r in _D_SGLD.items() if s is not EPS_TILDE}, eps: (sp.Rational(1, 100), 2)},
        quantity="epsilon' of T rounds, each (2 (tau/N) eps, (tau/N) delta)-DP",
        premises=(Property("DP", (2 * _Q * eps, _Q * delta), "M_t"),),
        conclusion=Property("DP", (THM8_EPS, THM8_DELTA)),
        oracle="composition_tied",
        notes=generic_steps_note("algo.he2021long.thm8_fl") + "Eq. (15) uses eps where delta' and delta~ use eps~; C.2 repeats it with eps (= eps~ of C.1).",
        tags=("federated", "new-in-long", "generic-steps"),
    ),
    theorem(
        "he2021long.thm8_delta",
        "Federated learning (Thm 8): composed delta' (with delta~)",
        Kind.BOUND,
        src(HE_LONG, "Theorem 8"),
        lhs=delta_p,
        rhs=THM8_DELTA,
        hypotheses=[eps > 0, EPS_TILDE > 0, tau >= 1, N >= tau, delta > 0, delta < 1, delta_t > 0, delta_t < 1],
        domain={**_D_SGLD, eps: (sp.Rational(1, 100), 2)},
        quantity="smallest delta' with T rounds of (2 (tau/N) eps~, (tau/N) delta)-DP composing to (eps', delta')-DP",
        premises=(Property("DP", (2 * _Q * EPS_TILDE, _Q * delta), "M_t"),),
        conclusion=Property("DP", (THM8_EPS, THM8_DELTA)),
        oracle="optimal_composition",
        notes=generic_steps_note("algo.he2021long.thm8_fl") + "Identical in form to Thm 7's delta'; eps' from eq. (15) (in eps) inside ceil(N eps'/(2 tau eps~)).",
        tags=("federated", "new-in-long", "generic-steps"),
    ),
    theorem(
        "he2021long.thm8_delta_tilde",
        "Federated learning (Thm 8): delta~ as defined in the theorem",
        Kind.DEFINITION,
        src(HE_LONG, "Theorem 8"),
        lhs=delta_t,
        rhs=THM8_DELTA_TILDE,
        hypotheses=[EPS_TILDE > 0, tau >= 1, N >= tau, eps_p > 0, eps_p < _Q * T * EPS_TILDE],
        domain={EPS_TILDE: (sp.Rational(1, 10), 2), tau: (1, 100), N: (1000, 10**5), T: (100, 10**4), eps_p: (
            sp.Rational(1, 100), sp.Rational(1, 2))},
        notes="Same printed form as he2021long.thm7_delta_tilde.",
        tags=("federated", "new-in-long"),
    ),
    # ---- Remarks 1-2 and Assumption 1 ----------------------------------------
    theorem(
        "he2021long.remark1_rate_a",
        "Remark 1: Thm 1's deviation 9 eps' for SGLD is O(T/sqrt(N)) as N -> oo",
        Kind.EXPANSION,
        src(HE_LONG, "Remark 1"),
        lhs=sp.sqrt(N) / T * _REM_A,
        rhs=sp.Integer(0),
        expansion=Expansion(N, sp.oo, 0),
        hypotheses=[EPS_TILDE > 0, tau >= 1, delta_t > 0, delta_t < 1],
        domain={k_: v for k_, v in _D_SGLD.items() if k_ is not delta},
        quantity="sqrt(N)/T * a(N) with a = 9 eps'_SGLD(N) (O(1) means a = O(T/sqrt(N)))",
        refs=("he2021long.thm1", "he2021long.thm7_eps"),
        notes="Encoded as 'sqrt(N)/T * a = 0 + O(1)'; eps' = Theta(sqrt(T)/N), so this holds.",
        tags=("asymptotic", "sgld", "new-in-long"),
    ),
    theorem(
        "he2021long.remark1_rate_b",
        "Remark 1: Thm 1's failure probability for SGLD is O(T/sqrt(N)) as N -> oo",
        Kind.EXPANSION,
        src(HE_LONG, "Remark 1"),
        lhs=sp.sqrt(N) / T * _REM_B,
        rhs=sp.Integer(0),
        expansion=Expansion(N, sp.oo, 0),
        hypotheses=[EPS_TILDE > 0, tau >= 1, delta_t > 0, delta_t < 1, delta_p > 0, delta_p < 1],
        domain={**{k_: v for k_, v in _D_SGLD.items() if k_ is not delta}, delta_p: (
            sp.Rational(1, 10**10), sp.Rational(1, 10))},
        quantity="sqrt(N)/T * b(N) with b = e^{-eps'} delta'/eps' ln(2/eps'), delta' held fixed",
        refs=("he2021long.thm1_b", "he2021long.thm7_eps", "he2021long.thm7_delta"),
        notes=(
            "delta' of Thm 7 tends to delta~ > 0 as N -> oo for fixed delta~, delta, T, tau; it is held fixed here. "
            "Then b ~ delta' N log N / Theta(sqrt(T)) grows and the stated rate fails unless delta' shrinks with N, "
            "which the remark does not say."
        ),
        tags=("asymptotic", "sgld", "new-in-long"),
    ),
    theorem(
        "he2021long.remark1_n_condition",
        "Remark 1 (implicit): Thm 1's sample-size condition at eps = eps'_SGLD(N)",
        Kind.COMPARISON,
        src(HE_LONG, "Remark 1 with Theorem 1"),
        lhs=THM1_LONG_N_MIN.subs({eps: THM7_EPS, delta: delta_p}, simultaneous=True),
        rhs=N,
        hypotheses=[EPS_TILDE > 0, tau >= 1, N >= tau, delta_t > 0, delta_t < 1, delta_p > 0, delta_p < 1],
        domain={**{k_: v for k_, v in _D_SGLD.items() if k_ is not delta}, delta_p: (
            sp.Rational(1, 10**10), sp.Rational(1, 10))},
        refs=("he2021long.thm1", "he2021long.thm7_eps"),
        notes=(
            "Applying Thm 1 needs N >= (2/eps'^2) ln(16 e^{eps'}/delta'); with eps' = Theta(sqrt(T)/N) the left "
            "side grows like N^2/T, so the condition fails for large N."
        ),
        tags=("asymptotic", "sgld", "new-in-long", "symdp-check"),
    ),
    theorem(
        "he2021long.remark2_rate_a",
        "Remark 2: Thm 1's deviation 9 eps' for federated learning is O(T/sqrt(N))",
        Kind.EXPANSION,
        src(HE_LONG, "Remark 2"),
        lhs=sp.sqrt(N) / T * _REM8_A,
        rhs=sp.Integer(0),
        expansion=Expansion(N, sp.oo, 0),
        hypotheses=[eps > 0, tau >= 1, delta_t > 0, delta_t < 1],
        domain={**{k_: v for k_, v in _D_SGLD.items() if k_ not in (delta, EPS_TILDE)}, eps: (sp.Rational(1, 100), 2)},
        quantity="sqrt(N)/T * 9 eps'_fed(N) (eq. 15)",
        refs=("he2021long.thm1", "he2021long.thm8_eps"),
        tags=("asymptotic", "federated", "new-in-long"),
    ),
    theorem(
        "he2021long.remark2_rate_b",
        "Remark 2: Thm 1's failure probability for federated learning is O(T/sqrt(N))",
        Kind.EXPANSION,
        src(HE_LONG, "Remark 2"),
        lhs=sp.sqrt(N) / T * _REM8_B,
        rhs=sp.Integer(0),
        expansion=Expansion(N, sp.oo, 0),
        hypotheses=[eps > 0, tau >= 1, delta_t > 0, delta_t < 1, delta_p > 0, delta_p < 1],
        domain={**{k_: v for k_, v in _D_SGLD.items() if k_ not in (delta, EPS_TILDE)}, eps: (
            sp.Rational(1, 100), 2), delta_p: (sp.Rational(1, 10**10), sp.Rational(1, 10))},
        quantity="sqrt(N)/T * b(N), delta' held fixed",
        refs=("he2021long.thm1_b", "he2021long.thm8_eps"),
        notes="As he2021long.remark1_rate_b.",
        tags=("asymptotic", "federated", "new-in-long"),
    ),
    theorem(
        "he2021long.assumption1",
        "Assumption 1: training error decays as exp(-K1 T + K2)",
        Kind.BOUND,
        src(HE_LONG, "Assumption 1"),
        lhs=R_EMP,
        rhs=sp.exp(-K1 * T + K2),
        hypotheses=[K1 > 0],
        domain={K1: (sp.Rational(1, 1000), 1), K2: (-5, 5), T: (1, 1000)},
        quantity="empirical risk R_S(A(S)) for T > T0 and N > N0",
        notes="An assumption, not a theorem: there is nothing to verify; used with Remarks 1-2 for PAC-learnability.",
        tags=("assumption", "new-in-long"),
    ),
    theorem(
        "he2021long.def_pac",
        "Definition 6: PAC-learnability",
        Kind.DEFINITION,
        src(HE_LONG, "Definition 6", cites="Mohri et al. 2018, Definition 2.4"),
        lhs=P_SUCC,
        relation=">",
        rhs=1 - t_conf,
        hypotheses=[s_acc > 0, t_conf > 0, t_conf < 1, m >= 1],
        domain={t_conf: (sp.Rational(1, 1000), sp.Rational(999, 1000))},
        quantity="P_{S ~ D^m}(R(A(S)) < s) for every s > 0, t > 0, m >= poly(1/s, 1/t, n, size(C))",
        notes=(
            "A concept class C is PAC-learnable if some algorithm A and polynomial poly satisfy, for all s, t > 0, "
            "all distributions D, all targets c in C and all m >= poly(1/s, 1/t, n, size(C)): "
            "P_{S ~ D^m}(R(A(S)) < s) > 1 - t. The polynomial is not a formula; only the confidence side is encoded."
        ),
        tags=("definition", "new-in-long"),
    ),
]

__all__ = [
    "THEOREMS",
    "THM1_LONG_A",
    "THM1_LONG_B",
    "THM1_LONG_N_MIN",
    "THM1_LONG_N_CONDITION",
    "COR3_LONG_EPS",
    "COR3_LONG_DELTA",
    "COR3_LONG_DELTA_PP",
    "THM7_EPS_TILDE",
    "THM8_EPS_TILDE",
    "THM7_EPS",
    "THM7_DELTA",
    "THM8_EPS",
    "THM8_DELTA",
]
