"""One theorem numbering per source (issue 20): the numbered results of He, Wang, Tao's two texts, matched.

The UAI text and the long (journal) text of He, Wang, Tao number their results differently (the UAI's
Corollary 1, Composition Theorem II, is the long text's Corollary 2; its Lemma 1 is the long text's
Lemma 4).  :data:`PAIRS` records every pair found by reading both texts side by side: the same statement,
possibly with other constants (what differs is said); :data:`ONLY` every numbered result that one text
states and the other does not number.  The table is data; :func:`counterpart` reads it to name, beside an
entry's locator, the same result in the other text (:meth:`symdp.theorem.Source.where`), so that a reader
of ``symdp show`` or of the audit report sees ``Corollary 1 (long version: Corollary 2)`` and
``Corollary 2 (UAI version: Corollary 1)``.  Locators of both texts spell the labels out in full
("Theorem", "Corollary", "Lemma", "Proposition", "Definition", "Remark", "Assumption").

Our copy of the UAI text has no appendix: a result the long text states and the UAI text's main body
does not (an Azuma lemma, the definitions it defers to its Appendix B.1) is said to be "not in the UAI
main text", not absent from the UAI paper.
"""

from __future__ import annotations

import re

#: the source keys of :mod:`._sources` (which imports this module, so they are repeated here)
HE_UAI = "he2021-uai"
HE_LONG = "he2021-long"

#: (UAI label, long label, what the result is and where it stands in each text, what differs between the
#: two statements; "" if nothing but notation).  Each pair was checked on the statements of both texts.
PAIRS: tuple[tuple[str, str, str, str], ...] = (
    ("Definition 1", "Definition 1", "differential privacy (UAI Sec. 2, long Sec. 3)", ""),
    ("Definition 2", "Definition 2", "KL divergence (UAI Sec. 2, long Sec. 3)", ""),
    ("Definition 3", "Definition 7", "multi-sample-set (long: multi-database) learning algorithms (UAI Sec. 3.1.1, "
     "long Sec. 4.1.1)", "renamed"),
    ("Definition 4", "Definition 8", "exponential mechanism (UAI Sec. 3.1.1, long Sec. 4.1.1)",
     "the long text does not print the output distribution exp(eps u / (2 Delta u))"),
    ("Theorem 1", "Theorem 1", "high-probability generalization bound (UAI Sec. 3.1, long Sec. 4.1)",
     "other constants: UAI a = 4 eps (eps <= 1/5) and a second regime; long 9 eps, one regime"),
    ("Theorem 2", "Theorem 2", "on-average multi-sample-set (multi-database) generalization bound (UAI Sec. 3.1.1, "
     "eq. (3); long Sec. 4.1.1, eq. (1))", ""),
    ("Theorem 3", "Theorem 3", "high-probability multi-sample-set (multi-database) generalization bound (UAI "
     "Sec. 3.1.1, long Sec. 4.1.1)",
     "other constants: UAI k e^{-1.7 eps} delta + 1.7 eps w.p. >= 85 eps/127 (and a second regime); "
     "long k e^{-eps} delta + 3 eps w.p. >= eps, eq. (2)"),
    ("Lemma 1", "Lemma 4", "the reduction to absurdity proving Theorem 1 (UAI Sec. 3.1.1, long Sec. 4.1.1)",
     "other constants: UAI a (1.7 eps, delta)-DP B (two regimes), long a (2 eps, delta)-DP B"),
    ("Theorem 4", "Theorem 4", "Composition Theorem I (UAI Sec. 3.2, long Sec. 4.2)",
     "the long text writes the boundary set I out; UAI eq. (7) is long eq. (8)"),
    ("Corollary 1", "Corollary 2", "Composition Theorem II (UAI Sec. 3.2, long Sec. 4.2)", ""),
    ("Corollary 2", "Corollary 3", "Composition Theorem III (UAI Sec. 3.2, long Sec. 4.2)",
     "UAI: (eps, delta_i)-DP steps, delta'' inside delta'; long: eps-DP steps, eps' printed, delta'' apart; the "
     "UAI's last sentence (strictly tighter than Theorem 4 at eps'_3) is not in the long statement"),
    ("Lemma 2", "Lemma 5", "KL divergence of an eps-DP algorithm (UAI Sec. 3.2.1, long Sec. 4.2.1)", ""),
    ("Theorem 5", "Theorem 5", "Composition Theorem IV (UAI Sec. 3.2.1, long Sec. 4.2.1)",
     "the long text typesets the second sum under the square root"),
    ("Lemma 3", "Lemma 2", "Dwork and Roth 2014, Theorem 3.17 (UAI Sec. 3.2.1, long Sec. 3)", ""),
    ("Theorem 6", "Theorem 6", "Composition Theorem V (UAI Sec. 3.2.1, long Sec. 4.2.1)",
     "the long text writes the boundary set I out"),
    ("Theorem 7", "Theorem 7", "differential privacy of the mini-batch Gaussian iteration (UAI Sec. 5, long "
     "Sec. 5.1)", "UAI: IGMM (Algorithm 1, diameter D), per-step eps~ amplified as log(1 - tau/N + (tau/N) e^x); "
     "long: SGLD (Algorithm 1, Lipschitz L, D = 2L), per-step 2 (tau/N) eps~; other constants"),
)

#: (paper, label, what it is): numbered results of one text that the other does not number
ONLY: tuple[tuple[str, str, str], ...] = (
    (HE_UAI, "Remark 1", "bounds of the same form as eq. (1) (Sec. 3.1.1)"),
    (HE_UAI, "Remark 2", "the bound of Theorem 7 does not rely on the model size (Sec. 5)"),
    (HE_UAI, "Corollary 3", "asymptotic generalization bound for agnostic federated learning, eq. (10) (Sec. 5)"),
    (HE_UAI, "Remark 3", "eq. (10) also holds for SGLD (Sec. 5)"),
    (HE_LONG, "Definition 3", "max divergence (Sec. 3; the UAI text defers it to its Appendix B.1)"),
    (HE_LONG, "Definition 4", "delta-approximate max divergence (Sec. 3; the UAI text defers it to its Appendix B.1)"),
    (HE_LONG, "Definition 5", "statistical distance (Sec. 3; the UAI text defers it to its Appendix B.1)"),
    (HE_LONG, "Definition 6", "PAC-learnability (Sec. 4.1)"),
    (HE_LONG, "Lemma 1", "Dwork and Rothblum 2016, Lemmas 3.9 and 3.10 (Sec. 3)"),
    (HE_LONG, "Lemma 3", "Azuma's lemma (Sec. 3)"),
    (HE_LONG, "Corollary 1", "one-sided on-average multi-database bound with eps for 1 - e^{-eps} (Sec. 4.1.1)"),
    (HE_LONG, "Lemma 6", "the maximum of 1 - prod(1 - alpha_i A_i) is on the boundary (Sec. 4.2.1)"),
    (HE_LONG, "Assumption 1", "training error exp(-K_1 T + K_2) (Sec. 5.1)"),
    (HE_LONG, "Remark 1", "Theorem 7 gives an O(T/sqrt(N)) bound for SGLD (Sec. 5.1)"),
    (HE_LONG, "Theorem 8", "differential privacy of differentially private federated learning (Sec. 5.2)"),
    (HE_LONG, "Remark 2", "Theorem 8 gives an O(T/sqrt(N)) bound for federated learning (Sec. 5.2)"),
)

#: (paper, locator) -> annotation, where the labels alone would mislead: the UAI's Corollary 2 ends with a
#: sentence (strictly tighter than Theorem 4 at eps'_3) that the long text's Corollary 3 drops and argues in
#: its Appendix B.5 (titled "Tightness of Theorem 3", about Composition Theorem III)
OVERRIDES: dict[tuple[str, str], str] = {
    (HE_UAI, "Corollary 2 (last sentence)"): "long version: Corollary 3 without the sentence, argued in Appendix B.5",
}

#: the label kinds, spelled out (a locator of either text writes them so, never "Thm" or "Cor")
KINDS = ("Theorem", "Corollary", "Lemma", "Proposition", "Definition", "Remark", "Assumption")

#: per text: the other text's name in an annotation, where a result absent from it is absent, and how a
#: locator of this text names the other text when it cites it itself (then no annotation is added)
OTHER: dict[str, tuple[str, str, str]] = {
    HE_UAI: ("long version", "the long version", "He et al. (long)"),
    HE_LONG: ("UAI version", "the UAI main text", "He et al. (UAI)"),
}

_LABEL = r"(?:{})\s\d+".format("|".join(KINDS))
#: the results an entry encodes: the labels the locator starts with ("Theorem 4 with Corollary 1")
_CHAIN = re.compile(rf"^{_LABEL}(?:(?: with | and |, |; ){_LABEL})*")
_ONE = re.compile(_LABEL)


def _table() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {HE_UAI: {}, HE_LONG: {}}
    for uai, long, _what, _differs in PAIRS:
        out[HE_UAI][uai] = long
        out[HE_LONG][long] = uai
    return out


_MAP = _table()
_ONLY = {(paper, label) for paper, label, _what in ONLY}


def counterpart(paper: str, locator: str) -> str | None:
    """The same result in the other text, as an annotation of ``locator`` (None where there is nothing to say).

    Only the labels the locator starts with are read (``Theorem 4 with Corollary 1``; not the
    ``Theorem 1`` of ``Sec. 3.1.2 (Comparison of Theorem 1)``, whose subject is a section's claim);
    a locator that already names the other text (``Theorem 1 vs He et al. (UAI) Theorem 1``) is left as it is.

    >>> counterpart("he2021-uai", "Corollary 1 (Composition Theorem II)")
    'long version: Corollary 2'
    >>> counterpart("he2021-long", "Theorem 8, eq. (15)")
    'not in the UAI main text'
    """
    if paper not in OTHER:
        return None
    if (paper, locator) in OVERRIDES:
        return OVERRIDES[(paper, locator)]
    name, absent_from, cited_as = OTHER[paper]
    m = _CHAIN.match(locator)
    if m is None or cited_as in locator:
        return None
    labels = _ONE.findall(m.group(0))
    if any(lab not in _MAP[paper] and (paper, lab) not in _ONLY for lab in labels):
        return None  # a label the table does not know (tests/test_numbering.py keeps the library's all known)
    mapped = [lab for lab in labels if lab in _MAP[paper]]
    missing = [lab for lab in labels if lab not in _MAP[paper]]
    if not mapped:
        return f"not in {absent_from}"
    if not missing:
        return f"{name}: " + _ONE.sub(lambda x: _MAP[paper][x.group(0)], m.group(0))
    return f"{name}: {' and '.join(_MAP[paper][lab] for lab in mapped)}, {' and '.join(missing)} not in {absent_from}"
