r"""Full citations of the sources the library encodes, for reports.

A :class:`~symdp.theorem.Source` names its paper by a short key (``he2021-uai``)
and a seed file; a reader needs the reference itself.  The entries below give
authors, title, venue, year and, where known, the arXiv identifier or DOI.  The
text variant ("UAI (short) version", "journal (long) version") stays with the
source record, so both He et al. texts keep their own section.

>>> citation("bu2020").short
'Bu, Dong, Long, Su (2020)'
>>> citation("nonexistent").title
'nonexistent'
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Citation:
    """One bibliographic reference."""

    key: str
    authors: str
    title: str
    venue: str
    year: str
    arxiv: str | None = None
    doi: str | None = None
    note: str | None = None
    variant: str | None = None  # which text, when a paper has two (UAI / long version)

    @property
    def short(self) -> str:
        """``Surname1, Surname2 (year)``: authors' surnames and the year (and the text variant, if any)."""
        names = [a.strip().split(" ")[-1] for a in self.authors.split(",") if a.strip()]
        if not names:
            return self.title
        when = ", ".join(x for x in (self.year, self.variant) if x)
        return f"{', '.join(names)} ({when})" if when else ", ".join(names)

    def text(self) -> str:
        """The reference as one line of plain text."""
        title = f"\u201c{self.title}\u201d" if self.authors else self.title
        parts = [p for p in (self.authors, title, self.venue, self.year) if p]
        s = ". ".join(parts) + "."
        if self.arxiv:
            s += f" arXiv:{self.arxiv}."
        if self.doi:
            s += f" doi:{self.doi}."
        if self.note:
            s += f" {self.note}"
        return s

    def links(self) -> list[tuple[str, str]]:
        """``(label, url)`` pairs for the identifiers that are known."""
        out = []
        if self.arxiv:
            out.append((f"arXiv:{self.arxiv}", f"https://arxiv.org/abs/{self.arxiv}"))
        if self.doi:
            out.append((f"doi:{self.doi}", f"https://doi.org/{self.doi}"))
        return out

    def to_json(self) -> dict[str, str]:
        d = {"key": self.key, "authors": self.authors, "title": self.title, "venue": self.venue, "year": self.year,
             "text": self.text()}
        if self.arxiv:
            d["arxiv"] = self.arxiv
        if self.doi:
            d["doi"] = self.doi
        return d


_HE_TITLE = "Tighter generalization bounds for iterative differentially private learning algorithms"

#: source key (``Source.paper``) -> citation.  Identifiers are given only where they are known.
CITATIONS: dict[str, Citation] = {
    "he2021-uai": Citation(
        "he2021-uai", "Fengxiang He, Bohan Wang, Dacheng Tao", _HE_TITLE,
        "Proceedings of the 37th Conference on Uncertainty in Artificial Intelligence (UAI), PMLR 161",
        "2021", arxiv="2007.09371", note="Short (conference) version.", variant="UAI"),
    "he2021-long": Citation(
        "he2021-long", "Fengxiang He, Bohan Wang, Dacheng Tao", _HE_TITLE,
        "extended (journal) version with appendix proofs", "2021", arxiv="2007.09371",
        note="Long version; its constants differ from the UAI text (e.g. Theorem 1).", variant="long version"),
    "lampert2026": Citation(
        "lampert2026", "Christoph H. Lampert, Hossein Zakerinia",
        "From privacy to generalization: linear max-information bounds for DP-SGD", "preprint", "2026",
        note="Our plain-text copy lost every formula."),
    "bu2020": Citation(
        "bu2020", "Zhiqi Bu, Jinshuo Dong, Qi Long, Weijie J. Su", "Deep learning with Gaussian differential privacy",
        "Harvard Data Science Review 2(3)", "2020", arxiv="1911.11607", doi="10.1162/99608f92.cfc5dd25"),
    "wang2016": Citation(
        "wang2016", "Yu-Xiang Wang, Jing Lei, Stephen E. Fienberg",
        "On-average KL-privacy and its equivalence to generalization for max-entropy mechanisms",
        "Privacy in Statistical Databases (PSD), LNCS 9867", "2016", arxiv="1605.02277",
        doi="10.1007/978-3-319-45381-1_10"),
    "classical": Citation(
        "classical", "", "Classical results quoted by the sources and standard references", "", "",
        note="Each entry names the original paper it quotes (Dwork-Roth 2014, Kairouz-Oh-Viswanath 2017, "
             "Balle-Wang 2018, Dwork et al. 2015, ...)."),
    "bridge": Citation(
        "bridge", "", "Bridges between the sources' properties (implications the symdp calculus chains)", "", "",
        note="Each entry cites the standard result it encodes."),
    "user": Citation("user", "", "User claim files", "", ""),
}


def citation(key: str) -> Citation:
    """The citation of a source key; an unknown key (a user's source) gets a record that repeats the key."""
    return CITATIONS.get(key) or Citation(key, "", key, "", "")


__all__ = ["CITATIONS", "Citation", "citation"]
