"""Source records shared by library modules (one per text variant)."""

from ..theorem import Source
from ._numbering import counterpart

HE_UAI = "he2021-uai"  # 000: short (UAI) version
HE_LONG = "he2021-long"  # 001: long (journal) version
LAMPERT = "lampert2026"  # 002
BU = "bu2020"  # 003
WANG = "wang2016"  # 004
CLASSICAL = "classical"  # prior work quoted by the sources, and standard references

FILES = {
    HE_UAI: ("000_73677f7a754fd778.txt", "UAI (short) version"),
    HE_LONG: ("001_e8ee374f2acb240b.txt", "journal (long) version"),
    LAMPERT: ("002_249e4cff91a654b7.txt", "2026 preprint"),
    BU: ("003_066a862b3a3a386a.txt", "2020 journal version"),
    WANG: ("004_a3b6829b52f5b5b4.txt", "2016 version"),
    CLASSICAL: ("", "as quoted / standard statement"),
}


def src(paper: str, locator: str, cites: str | None = None, *, file: str | None = None) -> Source:
    """A :class:`Source` for ``paper`` (one of the keys above) at ``locator`` (e.g. ``"Lemma 2"``); for the two
    texts of He et al. also the same result's number in the other text (:mod:`._numbering`)."""
    f, version = FILES[paper]
    return Source(paper=paper, file=file if file is not None else f, version=version, locator=locator, cites=cites,
                  counterpart=counterpart(paper, locator))


def generic_steps_note(algorithm_claim: str) -> str:
    """Note of an algorithm theorem kept in its generic reading (issue 12): steps are abstract (eps~, delta)-DP."""
    return ("Generic reading: the premise is T abstract (eps~, delta)-DP steps, so a counterexample to this entry is "
            f"a pair of abstract mechanisms, not the algorithm; {algorithm_claim} (symdp.audit.algorithms) audits the "
            "theorem on the real mechanism (Gaussian steps, tau-of-N mini-batches, T compositions). ")
