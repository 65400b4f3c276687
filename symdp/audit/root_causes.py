"""The audit's catalogue (data, no logic): the severity levels and their rules, the root causes of the papers'
errors (:class:`RootCause`, each with its headline and the prose that says why), the library entries whose
class needs reading the text (:data:`ENTRY_CLASSES`, with the reason), and the :class:`Classification`
record.  :mod:`.severity` applies them and re-exports every name.
"""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("major", "minor", "vacuous-only", "rounding")
#: order of findings in reports: most severe first
SEVERITY_RANK = {"major": 0, "vacuous-only": 1, "minor": 2, "rounding": 3, None: 4}

SEVERITY_RULES = {
    "major": "false in a non-vacuous regime (the claimed bound is informative at the counterexample and the "
             "violation is not a boundary equality or a last-digit rounding)",
    "minor": "fails only at a boundary or equality, through a typo nothing downstream uses, in a reading the text "
             "does not force (another reading the text allows holds), or as symdp's own check (a comparison or "
             "consistency symdp adds, an implicit proof step) whose failure leaves the paper's stated result standing",
    "rounding": "a printed number differs from the value its own formula gives only by rounding of the printed "
                "digits (it says nothing about the privacy or validity of the result)",
    "vacuous-only": "fails only where the bound is trivial (a probability bound >= 1, a bound beyond the "
                    "quantity's range; for a comparison of two bounds, where either is): restricted to the "
                    "non-vacuous part of the domain no counterexample is found",
}


@dataclass(frozen=True)
class RootCause:
    """One upstream error and the prose that explains how the entries under it inherit it."""

    id: str
    title: str
    note: str
    short: str = ""  # a few words for the headline (the title when empty)


ROOT_CAUSES: dict[str, RootCause] = {rc.id: rc for rc in (
    RootCause(
        "he2021.composition_delta_part",
        "Composition Theorems I-II (He et al. (UAI) Theorem 4, Corollary 1; He et al. (long) Theorem 4, Corollary 2): the delta part of eq. (7) is below what any "
        "composition of T (eps, delta)-DP steps needs",
        "With c = delta/(1 + e^eps), eq. (7)'s delta part 2 - prod(1 - e^{alpha_i} c) - (1 - c)^T is, to first order "
        "in delta, T delta - delta (e^eps - 1)/(e^eps + 1) (T - ceil(eps'/eps)). But every T-fold composition of "
        "(eps, delta)-DP steps has delta' >= 1 - (1 - delta)^T ~ T delta at any eps' < T eps (Kairouz, Oh, Viswanath "
        "2017: delta' = 1 - (1 - delta)^T (1 - delta_0(eps'))). The deficit is exactly the improvement over "
        "Kairouz et al. the papers claim (He et al. (UAI) Sec. 1), so the pair (eps', delta') is invalid wherever delta~ does not "
        "cover that deficit (small delta~ relative to T delta). Every theorem that reuses eq. (7) or Cor 1's delta' "
        "(Thm 6, the generic readings of IGMM, SGLD and federated learning) inherits it.",
        short="composition delta part below 1-(1-delta)^T by the claimed improvement over Kairouz et al. (He et al. Theorem 4 and Corollary 1 (UAI) / Corollary 2 (long))",
    ),
    RootCause(
        "he2021.composition_III_chernoff",
        "Composition Theorem III (He et al. (UAI) Cor 2; He et al. (long) Cor 3): delta'' is the Chernoff bound times e^{-(T eps + eps')}",
        "The privacy loss of T worst-case eps-DP steps is eps (2K - T), K ~ Bin(T, p), p = e^eps/(1 + e^eps); the "
        "Chernoff bound on P(loss >= eps') is exp(-T KL(a || p)) with a = (T eps + eps')/(2 T eps). Expanding it, the "
        "factor p^{aT} contributes e^{+(T eps + eps')/2}; delta'' prints e^{-(T eps + eps')/2}. So delta'' equals the "
        "Chernoff bound times e^{-(T eps + eps')} (an algebra error, verified at 40 digits at several (T, eps, eps'): at T = "
        "100, eps = 0.5, eps' = 20 the Chernoff bound is 0.267, delta'' is 1.06e-31). IGMM's delta~' (He et al. (UAI) Thm 7) is "
        "this term and He et al. (long) Thm 7-8 define delta~ by the same expression, so their delta' inherits the "
        "missing factor; this is the only cause there. That Thm 7's delta' carries delta~' while eps' spends delta~ "
        "is no defect: with the correct Chernoff tail in its place the pair would be valid (delta~' = 0.00198 >= the "
        "optimal 1.86e-4, and 0.00954 >= 4.49e-4, at the two witnesses of He et al. (UAI) Thm 7).",
        short="Chernoff term delta'' off by e^{-(T eps + eps')} (He et al. (UAI) Cor 2, He et al. (long) Cor 3; IGMM)",
    ),
    RootCause(
        "he2021long.c1_gaussian_step",
        "He et al. (UAI) Thm 7 and He et al. (long) Appendix C.1: the per-step Gaussian eps~ lost a factor 2",
        "The Chernoff bound in C.1 gives D <= (4 sqrt2 L sigma sqrt(log 1/delta)/tau + 4 L^2/tau^2)/(2 sigma^2); "
        "the theorem prints 2 sqrt2 in the first term (eps~ = r sqrt(log(1/delta)/2) + r^2/2 instead of "
        "r sqrt(2 log(1/delta)) + r^2/2), so the printed eps~ is below the Gaussian mechanism's true epsilon at the "
        "same delta. Thm 8's eps~ is a garbled variant of the same step, and He et al. (UAI) Thm 7's IGMM eps~ has the same "
        "inner term (r sqrt(log(1/delta)/2) + r^2/2 with r = D/(tau sigma)) inside the amplification: one IGMM step "
        "is not (eps~, delta)-DP in either reading of its garbled display.",
        short="per-step Gaussian eps~ lost a factor 2 (He et al. (UAI) Thm 7, He et al. (long) C.1, Thm 7-8)",
    ),
    RootCause(
        "he2021long.c1_amplification",
        "He et al. (long) Appendix C.1: amplification by a tau-of-N mini-batch read as 2 (tau/N) eps~ for every eps~",
        "Beimel, Kasiviswanathan, Nissim (2010) Lemma 4.4 gives 2 (tau/N) eps only for eps <= 1; the tight "
        "amplification log(1 + (tau/N)(e^eps~ - 1)) exceeds 2 (tau/N) eps~ once eps~ > about 1.256, i.e. for little "
        "noise per step (per-step sensitivity/noise ratio r >= 4 on the audit's grid), where SGLD and federated "
        "learning are far less private than claimed; with more noise the amplification step is valid.",
        short="amplification 2 (tau/N) eps~ used for eps~ > 1.256 (He et al. (long) C.1; SGLD, FL)",
    ),
    RootCause(
        "he2021.thm1_e_eps_factor",
        "Theorem 1's e^{-eps} factor and the comparisons built on it",
        "Theorem 2's improvement over Nissim-Stemmer's on-average bound (by e^eps/2; e^eps in He et al. (long)) fails "
        "only where a compared bound is vacuous (for He et al. (long)'s factor: eps above 1.2564); Theorem 1's b is "
        "below Dwork et al. 2015's b = 8 delta/eps only for eps above 0.02976 (symdp's term-by-term reading of "
        "'strictly tighter'); the introduction's b differs from Theorem 1's by a factor 2.",
    ),
    RootCause(
        "he2021long.thm1_eps_range",
        "He et al. (long) Theorem 1 states no range of eps",
        "b = (e^{-eps} delta/eps) ln(2/eps) is negative for eps > 2, where the deviation a = 9 eps > 18 already "
        "exceeds the largest gap |Gen| <= 2 that Theorem 1's hypothesis ||l||_inf <= 1 allows: the statement (and "
        "the comparisons of b) fail only where they say nothing.",
    ),
    RootCause(
        "he2021long.lemma4_proof",
        "He et al. (long) Appendix A.2, proof of Lemma 4: printed steps (17)-(18)",
        "Eq. (18) as printed has exp(-eps^2/(2N)) where Hoeffding gives exp(-N eps^2/2); eq. (17) needs "
        "ln(2/eps) <= k. Typos in a proof; the statement of Lemma 4 is audited separately.",
    ),
    RootCause(
        "he2021long.remark_fixed_delta",
        "He et al. (long) Remarks 1-2: the failure-probability rate O(T/sqrt(N)) needs delta' = O(N^{-3/2}/ln N), which the remarks do not state",
        "Thm 1's failure probability b = e^{-eps} (delta'/eps) ln(2/eps) at eps = eps'(N) = Theta(sqrt(T)/N) is of order "
        "delta' N ln N/sqrt(T). With delta' fixed it grows; delta' = O(1/N) does not rescue it either (b sqrt(N)/T = "
        "197, 4.1e4, 8.4e8, 1.6e16 at N = 1e4, 1e8, 1e16, 1e30, T = 1, eps~ = 1, tau = 1, delta~ = 0.1). The stated "
        "O(T/sqrt(N)) needs delta' = O(N^{-3/2}/ln N) at fixed T (then b sqrt(N)/T stays near 0.22), or Thm 1 applied "
        "at a larger eps ~ sqrt(ln N/N) than the privacy level eps'(N). The remark states neither; read with such a "
        "delta' it holds, so the finding is an unstated assumption of an asymptotic remark.",
    ),
    RootCause(
        "wang2016.okl_adaptive_composition",
        "Wang et al. Lemma 7: adaptive composition claimed for On-Average KL-privacy",
        "For the pair (A, B(., h)) the On-Average KL is eps_A + E_{Z, z'} E_{h ~ A(Z)} KL(B(Z, h) || B(Z', h)) (chain rule). "
        "The premise bounds E_{Z, z'} KL(B(Z, h) || B(Z', h)) <= eps_2 for each fixed h, but h ~ A(Z) depends on the data, "
        "so the A(Z)-weighted average can exceed every fixed-h average. The lemma holds for (worst-case) KL-privacy, where "
        "the bound is for every Z; the parenthetical '(On-Average)' extends it to a notion where it fails. A two-point "
        "data domain, n = 2 and two hypotheses per step already violate it (exact sums, the instance in the witness).",
        short="adaptive composition claimed for On-Average KL-privacy (Wang et al. Lemma 7)",
    ),
    RootCause(
        "bu2020.clt_finite_T",
        "Bu et al.: the CLT approximation (eq. 3.1) used as a privacy guarantee at finite T",
        "mu_CLT is an asymptotic approximation (T -> oo with p sqrt(T) fixed), not an upper bound; at the "
        "experiments' T the real mechanism's epsilon is above the CLT's (in [1.4076, 1.4096] against the printed 1.34 at "
        "sigma = 1.06, 20 epochs; in [9.4727, 9.4921] against 8.68 at sigma = 0.638, 70 epochs; in [5.6393, 5.6499] against "
        "Table 1's 5.07: the optimistic PLD's lower bound and the tight accountant's upper bound, as in the entries), so the recalibrated (less noisy) models "
        "do not have the certified privacy the moments-accountant models have.",
        short="the CLT approximation used as a privacy guarantee (Bu et al., Fig. 4 and Table 1)",
    ),
    RootCause(
        "he2021long.wang2015_quote",
        "He et al. (long) Sec. 5 quotes Wang et al.'s (2015) 'privacy for free' for SGLD without its step-size condition",
        "As quoted (SGLD is (eps, delta)-DP if T > eps^2 N/(32 tau log(2/delta))), the statement bounds only the number "
        "of steps; SGLD with a large step (little noise relative to the gradient drift) is not private at all: at "
        "N = 1000, tau = 900, T = 1000, eps = 0.1, delta = 1e-10, step 0.81, delta(0.1) = 1 on the real mechanism. Wang et al.'s "
        "theorem also bounds the step size; the quote drops it. A misquotation used for no result of He et al. (long).",
    ),
    RootCause(
        "he2021.cmp_kairouz_first_order",
        "He et al. (UAI) Sec. 1 and 3.2.2: the comparison with Kairouz et al. is of first-order approximations in delta",
        "The text compares 'the approximation of factor delta' of the two composed delta', i.e. their expansions to "
        "first order in delta. The exact formulas cross where T delta is not small: at T = 1000, delta = 4e-4 (T delta "
        "= 0.4), delta~ = 0.01, eps = 0.1 Corollary 1's delta' is 0.3585 and Kairouz et al.'s 0.3364 (at T = 40, delta "
        "= delta~ = 0.01, eps = 1: 0.3595 against 0.3377), both informative; elsewhere they cross only by terms the "
        "approximation drops (at T = 1: delta + delta~ against delta + delta~ - delta delta~). There Corollary 1's delta' is the *larger* "
        "one, so this is not the composition deficit (Corollary 1 below the optimum); the first-order remark itself is "
        "audited as he2021.cmp_delta_vs_kairouz_gap.",
    ),
    RootCause(
        "he2021.cmp_dwork_roth_boundary",
        "He et al. (UAI) Sec. 3.2.2: 'strictly tighter' than advanced composition fails only by equality at T = 1",
        "For one step (T = 1, eps' = eps) Corollary 1's delta' reduces to delta + delta~, which is exactly advanced "
        "composition's delta~ + T delta: the two bounds are equal there, so 'strictly' fails at that boundary and "
        "nowhere else in the search. A boundary equality, unrelated to the composition deficit.",
    ),
)}

#: earlier ids of root causes (reports and notes written before issue 23 used them)
ROOT_CAUSE_ALIASES = {"he2021.composition_I": "he2021.composition_delta_part",
                      "he2021.composition_II": "he2021.composition_delta_part"}


@dataclass(frozen=True)
class Classification:
    """The severity and provenance of one finding; ``rule`` is the rule (or the reading) applied."""

    severity: str | None = None
    rule: str | None = None
    why: str = ""
    root_cause: str | None = None
    origin: str = "paper"
    reading: str | None = None
    quote: str | None = None
    range_hi: float | None = None  # upper end of the quantity's range, for the vacuous-only re-search


#: a claimed bound within this of the range's end (a delta of 1 - 1e-26, say) counts as vacuous
VACUOUS_MARGIN = 1e-6

_GEN = "generic reading: T abstract (eps~, delta)-DP steps, not the algorithm (see the algo.* entry for the mechanism)"

#: classifications that need the text (the rest follow :func:`classify`)
ENTRY_CLASSES: dict[str, Classification] = {
    # --- composition theorems ---------------------------------------------------------
    **{i: Classification("major", "major", "below the optimal composition at informative delta",
                         "he2021.composition_delta_part")
       for i in ("he2021.thm4_eps2", "he2021.thm4_eps3", "he2021.thm4_eps_prime", "he2021uai.thm6_eps",
                 "he2021.thm4_eps2_sum", "he2021.thm4_eps3_sum", "he2021.cor1_delta", "he2021.cor1_delta_at_thm4_eps")},
    **{i: Classification("major", "major", "orders of magnitude below the optimal composition",
                         "he2021.composition_III_chernoff")
       for i in ("he2021uai.cor2_delta", "he2021uai.cor2_delta_at_eps3", "he2021long.cor3_delta_pure")},
    "he2021uai.thm7_eps": Classification(
        "major", "major", "the pair (eps', delta') fails because delta''s Chernoff term delta~' is off by the factor "
        "e^{-(T eps~ + eps')}: at the witness delta' is 5.5e-10 while the optimal composition needs 1.9e-4; with the "
        "correct Chernoff tail (delta~' = 0.00198) the pair would be valid",
        "he2021.composition_III_chernoff", reading=_GEN),
    "he2021uai.thm7_delta": Classification("major", "major", "", "he2021.composition_III_chernoff", reading=_GEN),
    "he2021long.thm7_eps": Classification("major", "major", "", "he2021.composition_delta_part", reading=_GEN),
    "he2021long.thm7_delta": Classification("major", "major", "", "he2021.composition_delta_part", reading=_GEN),
    "he2021long.thm8_eps": Classification("major", "major", "", "he2021.composition_delta_part", reading=_GEN),
    "he2021long.thm8_delta": Classification("major", "major", "", "he2021.composition_delta_part", reading=_GEN),
    "algo.he2021uai.thm7_igmm": Classification("major", "major", "", "he2021.composition_III_chernoff"),
    "algo.he2021long.thm7_sgld": Classification("major", "major", "", "he2021long.c1_amplification"),
    "algo.he2021long.thm8_fl": Classification("major", "major", "", "he2021long.c1_amplification"),
    "algo.he2021long.thm7_sgld_split_delta_tilde": Classification(
        "major", "major", "fails at ordinary noise (r = 0.05, q = 0.1) once delta' carries the defined delta~ instead "
        "of the delta~ that eps' spends, but on the grid only at one point (T = 1000, delta = 1e-10, delta~ = 0.99)",
        "he2021.composition_III_chernoff"),
    "algo.he2021long.thm8_fl_split_delta_tilde": Classification("major", "major", "", "he2021.composition_III_chernoff"),
    # --- SGLD / federated per-step -----------------------------------------------------
    "he2021long.thm7_eps_tilde": Classification("major", "major", "", "he2021long.c1_gaussian_step"),
    "he2021long.thm8_eps_tilde": Classification("major", "major", "", "he2021long.c1_gaussian_step"),
    "he2021long.thm7_subsampling": Classification("major", "major", "", "he2021long.c1_amplification"),
    "he2021long.consistency_thm7_step": Classification(
        "minor", "minor", "symdp's check that the two versions' per-step epsilons agree; their disagreement is "
        "the amplification error counted under its root cause, not a second error",
        "he2021long.c1_amplification", origin="symdp"),
    # --- e^eps factor claims ---------------------------------------------------------
    "he2021uai.cmp_thm1_b_vs_dwork2015": Classification(
        "minor", "minor", "symdp's term-by-term reading of the abstract's general 'strictly tighter': with Dwork et "
        "al.'s b = 8 delta/eps (their result; the quotes' '8 delta eps' and '8 delta^eps' are conversion damage) "
        "Theorem 1's b = 2 e^{-1.7 eps} (delta/eps) ln(2/eps) is smaller for eps above 0.02976 (where "
        "e^{-1.7 eps} ln(2/eps) = 4) and larger only below, by the factor e^{-1.7 eps} ln(2/eps)/4 (1.30 at eps = 0.01)",
        "he2021.thm1_e_eps_factor", origin="symdp",
        reading="the abstract's 'strictly tighter' read for the failure probability b at equal a = 4 eps, "
                "Dwork et al.'s b read as 8 delta/eps"),
    "he2021uai.cmp_thm2_vs_nissim_stemmer": Classification(None, None, "", "he2021.thm1_e_eps_factor", range_hi=1.0),
    "he2021long.cmp_thm2_factor": Classification(None, None, "", "he2021.thm1_e_eps_factor", range_hi=1.0),
    "he2021long.cmp_ns_b": Classification(
        "vacuous-only", "vacuous-only",
        "fails only for eps > 2, where log(2/eps) < 0 makes both failure probabilities negative (outside [0, 1]); "
        "Theorem 1 states no range of eps", "he2021long.thm1_eps_range"),
    "he2021long.thm1_b": Classification(
        "vacuous-only", "vacuous-only",
        "fails only for eps > 2 (b < 0), where the deviation 9 eps > 18 exceeds the largest possible gap (|Gen| <= 2 "
        "under Theorem 1's hypothesis ||l||_inf <= 1), so the statement is trivial there. For eps <= 2 the only check "
        "is that b lies in [0, 1]: not refuted there, but Theorem 1 is undecided there (no oracle for the "
        "generalization gap of an arbitrary learner)", "he2021long.thm1_eps_range"),
    "he2021.cmp_delta_vs_kairouz_gap": Classification(
        "minor", "minor", "an 'approximately' remark: with delta~ fixed the difference carries a first-order term "
        "-T delta delta~ the text omits; read with delta~ -> 0 together with delta (delta~ = O(delta)) that term is "
        "second order and the remark holds (library note of the entry)", "he2021.composition_delta_part",
        reading="'approximately' read as equal up to O(delta^2) as delta -> 0 with delta~ fixed"),
    "he2021long.consistency_thm1_b_intro": Classification(
        "minor", "minor", "a factor 2 between the introduction's b and Theorem 1's; nothing downstream uses the "
        "introduction's form", "he2021.thm1_e_eps_factor", origin="symdp"),
    "he2021long.consistency_thm1_n": Classification(
        "minor", "minor", "not a finding of the paper (no text compares the two conditions): symdp's consistency check "
        "between the two versions. He et al. (long) states Theorem 1 with its own "
        "constants (9 eps, N >= (2/eps^2) ln(16 e^eps/delta)) and proves it; that its sample-size condition is weaker "
        "than He et al.'s (UAI) at small eps is a difference between versions, not an error of either",
        None, origin="symdp"),
    "he2021.cmp_delta_vs_kairouz": Classification(
        "minor", "minor", "the text's comparison is of first-order approximations ('the approximation of factor "
        "delta', audited as he2021.cmp_delta_vs_kairouz_gap); the exact formulas cross only where T delta is not small "
        "(T delta = 0.4 at the counterexample, where both delta' are informative and Corollary 1's is the larger)",
        "he2021.cmp_kairouz_first_order",
        reading="the comparison read for the exact formulas, where both delta' are below 1"),
    "he2021.cmp_delta_vs_dwork_roth": Classification(
        "minor", "minor", "equality lhs = rhs at T = 1 against a strict claim; no violation elsewhere in the search",
        "he2021.cmp_dwork_roth_boundary"),
    # --- proof steps ---------------------------------------------------------------
    "he2021uai.cmp_lemma1_large_in_thm3_branch": Classification(
        "minor", "minor", "symdp's check of a proof step: for eps in [0.2, 0.2346) Lemma 1's B is not in the branch "
        "of Theorem 3 the proof sketch uses (a gap in the sketch); Theorem 1's statement is not refuted by this",
        None, origin="symdp"),
    "he2021long.thm3_markov_step": Classification(
        "minor", "minor", "the display has its inequality reversed (Markov gives P >= 2 eps/(1 + alpha)); the "
        "reading the derivation supports is recorded in he2021long.thm3 (notes); typo in a proof step",
        None, origin="symdp", reading="as printed"),
    "he2021long.lemma4_union_step": Classification(
        "vacuous-only", "vacuous-only", "fails only where k < ln(2/eps), where the printed probability "
        "1 - (1 - ln(2/eps)/k)^k leaves [0, 1] (it is negative at the counterexample); holds where ln(2/eps) <= k",
        "he2021long.lemma4_proof", origin="symdp"),
    "he2021long.lemma4_hoeffding_step": Classification(
        "minor", "minor", "typo: exp(-eps^2/(2N)) for Hoeffding's exp(-N eps^2/2); the derivation's reading "
        "(1 - 2 e^{-N eps^2/2})^k >= 1 - eps/8 under the N-condition is the one Lemma 4 uses",
        "he2021long.lemma4_proof", origin="symdp", reading="as printed"),
    # --- second readings (symdp.audit.readings) ------------------------------------------
    "reading.he2021long.lemma4_hoeffding_step": Classification(
        "minor", "minor", "fails only where eps e^eps/delta < 1, where the ceiling makes k = 1 larger than the "
        "derivation's eps e^eps/delta (supported on 451 points with eps e^eps/delta >= 1): a boundary of the ceiling",
        "he2021long.lemma4_proof"),
    "reading.he2021long.thm8_eps_tilde": Classification("major", "major", "", "he2021long.c1_gaussian_step"),
    # --- remarks -------------------------------------------------------------------
    "he2021long.remark1_rate_b": Classification(
        "minor", "minor", "fails in a reading the text does not force: with delta' fixed (or delta' = 1/N) the "
        "rate is lost; it holds only if delta' = O(N^{-3/2}/ln N) at fixed T, an assumption the remark does not "
        "state but does not exclude", "he2021long.remark_fixed_delta",
        reading="delta' held fixed while N grows (the text lets only N and T vary)"),
    "he2021long.remark2_rate_b": Classification(
        "minor", "minor", "fails in a reading the text does not force: with delta' fixed (or delta' = 1/N) the "
        "rate is lost; it holds only if delta' = O(N^{-3/2}/ln N) at fixed T, an assumption the remark does not "
        "state but does not exclude", "he2021long.remark_fixed_delta",
        reading="delta' held fixed while N grows (the text lets only N and T vary)"),
    "he2021long.remark1_n_condition": Classification(
        "minor", "minor", "symdp's implicit step: Theorem 1's sample-size condition at eps = eps'_SGLD(N) fails at "
        "the witness (T = 1, N = 1e6), so Remark 1 cannot apply Theorem 1 there; an asymptotic remark, not a "
        "stated result", "he2021long.remark_fixed_delta", origin="symdp"),
    # --- issue 23: claims audited for the first time ----------------------------------
    **{f"algo.he2021uai.thm7_igmm_step_reading_{x}": Classification(
        "major", "major", "one IGMM step (T = 1, exact delta of the pair) is far less private than eps~ at most grid points: "
        "the Gaussian step's eps inside the amplification has the lost factor 2", "he2021long.c1_gaussian_step")
       for x in ("a", "b")},
    "reading.he2021long.thm5_typeset": Classification(
        "minor", "minor", "a typesetting slip: He et al. (long) puts both terms under the square root, which is far too small for "
        "large T (eps' ~ sqrt(T) while the mean privacy loss grows like T); the reading the proof supports (root over the "
        "first term, he2021uai.thm5_eps) is audited separately", None, reading="as typeset in He et al. (long)"),
    "algo.wang2015.sgld_privacy_for_free_as_quoted": Classification(
        "minor", "minor", "a quotation of prior work, used for no result of He et al. (long): as quoted (a lower bound on T and no "
        "step-size condition) SGLD with a larger step is not private at all (delta(eps) = 1 at the witness); Wang et al.'s "
        "theorem also bounds the step size", "he2021long.wang2015_quote", reading="SGLD with any step size, as the quote allows"),
    "classical.wang2015_sgld_privacy_for_free": Classification(
        "minor", "minor", "the quoted condition, refuted on its special case algo.wang2015.sgld_privacy_for_free_as_quoted "
        "(SGLD with the step size the quote leaves free); a quotation of prior work used for no result of He et al. (long)",
        "he2021long.wang2015_quote"),
    "wang2016.lemma7_adaptive_composition": Classification(
        "major", "major", "false as stated for On-Average KL-privacy on an exact finite instance (the pair's level exceeds "
        "eps_1 + eps_2 by about 0.2%: small, but the lemma claims an upper bound); true for worst-case KL-privacy",
        "wang2016.okl_adaptive_composition", reading="the '(On-Average)' reading of the lemma"),
    "experiment.bu2020.table1_row3_clt": Classification(
        "major", "major", "the trained model's epsilon at delta = 1e-5 is about 5.6 (tight bracket), not the printed 5.07",
        "bu2020.clt_finite_T"),
    # --- 003 experiments (symdp.audit.experiments) ------------------------------------
    **{i: Classification("major", "major", "the trained model's epsilon exceeds the printed one (and the MA model's) "
                         "in the main regime (delta = 1e-5)", "bu2020.clt_finite_T")
       for i in ("experiment.bu2020.fig4_top_clt", "experiment.bu2020.fig4_bottom_clt")},
    # --- 003 arithmetic ------------------------------------------------------------
    "bu2020.mnist_fig4_top": Classification(
        "rounding", "rounding", "last-digit rounding: eps_CLT(delta = 1e-5) = 1.3413 at T = 20/p is printed 1.34, and "
        "delta_CLT(1.34) = 1.014e-5", "bu2020.clt_finite_T", origin="arithmetic"),
    "bu2020.mnist_fig4_bottom": Classification(
        "rounding", "rounding", "rounding of a printed input: eps = 8.68 needs sigma~ = 0.6384, printed 0.638 "
        "(eps_CLT = 8.697 at 0.638; 8.668 at the printed mu = 1.78)", "bu2020.clt_finite_T", origin="arithmetic"),
}

#: the source text each re-read finding rests on (quote beside encoding; seeds/ file named in the entry's source)
QUOTES: dict[str, str] = {
    "he2021.thm4_eps3": "He et al. (UAI) Thm 4: 'Suppose the i-th iterator M_i : (W_{i-1}, S) -> W_i is (eps, delta)-differentially "
                        "private. Then, the algorithm A is (eps', delta')-differentially private, where eps' = min "
                        "{eps'_1, eps'_2, eps'_3}'",
    "he2021uai.cor2_delta": "He et al. (UAI) Cor 2: 'When all the iterators M_i satisfy eps_i = eps, we can further tighten the "
                            "estimation of delta' for eps'_3 in Theorem 4. ... Furthermore, for the case eps' = eps'_3, "
                            "delta' is strictly tighter than that in Theorem 4.'",
    "he2021uai.cmp_thm2_vs_nissim_stemmer": "He et al. (UAI) Sec. 3.1: 'Nissim and Stemmer [2015] proved that |E[Gen]| <= k delta + 2 "
                                            "eps. Our bound is tighter by a factor of e^eps/2. According to the "
                                            "empirical results by [Abadi et al., 2016], this factor can be as large as "
                                            "e^10 ~ 20,000.'",
    "he2021long.cmp_thm2_factor": "He et al. (long) abstract: 'Our on-average multi-database generalization bound is tighter by a "
                                  "factor of e^eps. These improvements are significant in practice because the factor "
                                  "eps can be as large as 10 in the experiments by Adabi et al. [1].'",
    "he2021long.cmp_ns_b": "He et al. (long) abstract: '(2) our bound tightens the term b from (2 delta/eps) log(2/eps) to (2 e^{-eps} "
                           "delta/eps) log(2/eps)'",
    "he2021uai.cmp_thm1_b_vs_dwork2015": "He et al. (UAI) abstract: 'high-probability bound is strictly tighter than the current "
                                         "tightest results'",
    "he2021long.thm7_subsampling": "He et al. (long) C.1: 'Applying Lemma 4.4 in [7], we have that the iteration ... is (2 (tau/N) "
                                   "eps, (tau/N) delta)-differentially private.'",
    "he2021long.thm7_eps_tilde": "He et al. (long) C.1: 'P(theta''^T v >= 2 sqrt2 L sigma sqrt(log 1/delta)) <= P(theta''^T v >= "
                                 "sqrt2 ||v|| sigma sqrt(log 1/delta)) <= ... = delta' with ||v|| < 2L and D = (2 "
                                 "theta''^T (1/tau) v + ||v||^2/tau^2)/(2 sigma^2)",
    "he2021long.thm8_eps_tilde": "He et al. (long) Thm 8: 'eps~ = 4 sigma (1/tau) sqrt(log 1/delta + 1/tau^2) / (2 sigma^2)'",
    "he2021long.remark1_rate_b": "He et al. (long) Remark 1: 'Theorem 7 implies that P[R_S(A(S)) <= O(T/sqrt(N)) + R(A(S))] >= "
                                 "1 - O(T/sqrt(N))'",
    "he2021long.lemma4_hoeffding_step": "He et al. (long) A.2, eq. (18) as printed: (1 - e^{-eps^2/2N})^k >= 1 - eps/8",
    "he2021.cor1_delta": "He et al. (UAI) Cor 1: 'Corollary 1 (Composition Theorem II). When all the iterations are (eps, delta)-"
                         "differential private, delta' is delta' = 1 - (1 - e^eps delta/(1 + e^eps))^{ceil(eps'/eps)} "
                         "(1 - delta/(1 + e^eps))^{T - ceil(eps'/eps)} + 1 - (1 - delta/(1 + e^eps))^T + delta~'",
    "he2021uai.thm6_eps": "He et al. (UAI) Thm 6: 'Theorem 6 (Composition Theorem V). Let all the conditions and notations in "
                          "Theorem 5 hold except that the ith step is (eps_i, delta_i) differentially private. Then, "
                          "{W_i} is (eps', delta')-differentially private where eps' = ...'",
    "he2021.cmp_delta_vs_kairouz": "He et al. (UAI) Sec. 1: 'The approximation of factor delta in our composition theorems is "
                                   "tighter than that in [Kairouz et al., 2017] by delta (e^eps - 1)/(e^eps + 1) (T - "
                                   "ceil(eps'/eps))'",
    "he2021.cmp_delta_vs_dwork_roth": "He et al. (UAI) Sec. 3.2.2: 'Our composition theorem is strictly tighter than the existing "
                                      "results: a classic composition theorem is as follows (see [Dwork and Roth, "
                                      "2014], Theorem 3.20 and Corollary 3.21, pp. 49-52)'",
    "he2021uai.cmp_lemma1_large_in_thm3_branch": "He et al. (UAI), proof of Thm 1 (eps >= 1/5): Lemma 1's algorithm B is "
                                                 "(eps - ln 0.9, delta)-DP and Theorem 3's eps > 0.34 branch is applied "
                                                 "to it (symdp's check of that step)",
    "he2021long.thm1_b": "He et al. (long) Thm 1: 'Suppose algorithm A is (eps, delta)-differentially private, the training sample "
                         "size N >= (2/eps^2) ln(16/(e^{-eps} delta)), and the loss function ||l||_inf <= 1. Then ... "
                         "P[|R_S(A(S)) - R(A(S))| < 9 eps] > 1 - (e^{-eps} delta/eps) ln(2/eps)'",
    "he2021long.thm3_markov_step": "He et al. (long) A.2, proof of Thm 3, display as printed: 'P <= (alpha - (e^{-eps} k delta + "
                                   "eps))/(1 + alpha) <= eps' (Markov's inequality, modified as in He et al. (long) Sec. 3)",
    "he2021long.lemma4_union_step": "He et al. (long) A.2, eq. (17): 'P(exists i, ...) > 1 - (1 - (1/k) ln(2/eps))^k >= 1 - eps/2'",
    "he2021long.thm7_delta": "He et al. (long) Thm 7: 'delta' = 1 - (1 - e^{2 (tau/N) eps~} (tau/N) delta/(1 + e^{2 (tau/N) "
                             "eps~}))^{ceil(N eps'/(2 tau eps~))} ... + 1 - (1 - (tau/N) delta/(1 + e^{2 (tau/N) "
                             "eps~}))^T + delta~'",
    "he2021long.thm7_eps": "He et al. (long) Thm 7: 'eps' = sqrt(8 log(1/delta~) (tau^2/N^2 T eps~^2)) + 2T (tau/N) eps~ (e^{2 "
                           "(tau/N) eps~} - 1)/(e^{2 (tau/N) eps~} + 1)'",
    "he2021uai.thm7_eps": "He et al. (UAI) Thm 7: 'IGMM described as Algorithm 1 is (eps', delta')-differentially private, where "
                          "eps' = sqrt(2T log(1/delta~)) eps~ + T eps~ (e^eps~ - 1)/(e^eps~ + 1)'",
}
for _a, _b in (("he2021.thm4_eps2", "he2021.thm4_eps3"), ("he2021.thm4_eps_prime", "he2021.thm4_eps3"),
               ("he2021uai.cor2_delta_at_eps3", "he2021uai.cor2_delta"), ("he2021long.thm8_eps", "he2021long.thm8_eps_tilde"),
               ("he2021long.remark2_rate_b", "he2021long.remark1_rate_b"), ("he2021.cor1_delta_at_thm4_eps", "he2021.cor1_delta"),
               ("he2021.cmp_delta_vs_kairouz_gap", "he2021.cmp_delta_vs_kairouz"), ("he2021uai.thm7_delta", "he2021uai.thm7_eps"),
               ("he2021long.thm8_delta", "he2021long.thm7_delta"), ("he2021long.cor3_delta_pure", "he2021uai.cor2_delta"),
               ("he2021long.consistency_thm1_b_intro", "he2021long.cmp_ns_b"), ("he2021long.consistency_thm1_n", "he2021long.thm1_b"),
               ("he2021long.remark1_n_condition", "he2021long.thm1_b"), ("he2021long.consistency_thm7_step", "he2021long.thm7_subsampling")):
    QUOTES.setdefault(_a, QUOTES[_b])

#: entries that are symdp's own checks or arithmetic, whatever their verdict
