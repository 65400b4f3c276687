r"""Why the entries that stay UNDECIDED cannot be decided by computation (issue 23, item 4).

Not an oracle: a mapper that returns the reason, in words a reader can check, for each library claim that no
exact computation of symdp decides (the generic "needs a proof symdp cannot do" said too little).  The
verifier reports the entry UNCHECKED with this reason; the audit shows it UNDECIDED.  The claims whose
formula our copy of the source lost say so on their own (``formula_available``) and are not listed here.

>>> from symdp.library import get
>>> from symdp.verify import verify_theorem
>>> "soft-O" in verify_theorem(get("he2021uai.cor3_gap_rate", with_evidence=False)).evidence.detail
True
"""

from __future__ import annotations

from .registry import Oracle, assign, register

_QUOTE = ("undecided: a bound quoted from {who} without the sample-size condition of the original; as quoted it fails for "
          "a finite eps-DP learner with N = 1 (the exponential mechanism on two hypotheses: P(event) about 0.5 "
          "against a claimed failure probability near 0), which shows the condition is missing, not that the cited "
          "theorem is wrong; our sources do not include the original, so the condition cannot be restored and checked")
_PROOF_STEP = ("undecided: a step of a proof by contradiction: its premise is an algorithm that violates {thm} "
               "('generalization-violated'), which no finite learner symdp can build has ({thm} holds on every finite "
               "DP learner checked), so there is no instance to test; deciding it needs the proof's argument")
_SOFT_O = ("undecided: an asymptotic rate as the number of clients C -> oo up to unstated polylog factors (soft-O); a "
           "soft-O statement hides its constants, so no finite computation confirms or refutes it")

REASONS: dict[str, str] = {
    "classical.dwork2015_high_prob": _QUOTE.format(who="Dwork et al. (2015) by He et al. (UAI)"),
    "classical.dwork2015_high_prob_failure": _QUOTE.format(who="Dwork et al. (2015) by He et al. (UAI)"),
    "he2021long.quote_dwork2015_b": _QUOTE.format(who="Dwork et al. (2015) by He et al. (long)"),
    "classical.nissim_stemmer2015_high_prob": _QUOTE.format(who="Nissim and Stemmer (2015) by He et al. (UAI)"),
    "classical.nissim_stemmer2015_high_prob_failure": _QUOTE.format(who="Nissim and Stemmer (2015) by He et al. (UAI)"),
    "he2021uai.lemma1_small_eps": _PROOF_STEP.format(thm="Theorem 1 (He et al. (UAI))"),
    "he2021uai.lemma1_large_eps": _PROOF_STEP.format(thm="Theorem 1 (He et al. (UAI))"),
    "he2021long.lemma4": _PROOF_STEP.format(thm="Theorem 1 (He et al. (long))"),
    "he2021uai.cor3_gap_rate": _SOFT_O,
    "he2021uai.cor3_failure_rate": _SOFT_O,
    "classical.wang2015_sgld_privacy_for_free": (
        "undecided: the quoted condition names only T, N, tau, eps and delta, while SGLD's privacy also depends on the "
        "loss's Lipschitz constant and the step sizes that the quote leaves out, so it determines no mechanism the "
        "algebra could evaluate; He et al. (long)'s own reading of 'privacy for free' is audited separately"),
    "bu2020.composition": (
        "undecided: f-DP composition for adaptively chosen mechanisms of every trade-off function f_t; a check needs "
        "the tensor product of arbitrary trade-off functions, which symdp computes only for Gaussian and finite pairs, "
        "and the adaptive choice ranges over all mechanisms with the premise; deciding it needs the proof"),
    "bu2020.thm3_noisy_sgd": (
        "undecided: the claimed trade-off C_p(p G_{1/sigma} + (1 - p) Id)^{(x) T} has no closed form; evaluating it needs "
        "the same PLD composition as noisy SGD's own profile, so comparing the two would test the accountant against "
        "itself, not the theorem (the accountants' tests compare that composition with independent peers)"),
}


def map_reason(th) -> str:
    return REASONS.get(th.id, "no reason recorded")


register(Oracle("undecided_reason", lambda **kw: None, "profile", (),
                "not an oracle: the reason an entry stays UNDECIDED (no exact computation decides it)", mapper=map_reason))
assign("undecided_reason", *REASONS)

__all__ = ["REASONS", "map_reason"]
