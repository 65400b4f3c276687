"""One theorem numbering per source (issue 20): He et al.'s UAI and long texts number their results
differently; a citation of either names, in full words, the same result in the other text.

The pairs asserted here were checked by reading both texts (the statements, not the titles): e.g.
Composition Theorem I is Theorem 4 in both texts, Composition Theorems II and III are the UAI's
Corollaries 1 and 2 and the long text's Corollaries 2 and 3.
"""

from __future__ import annotations

import doctest
import re

import pytest
from click.testing import CliRunner

from symdp.library import _numbering, _sources, all_theorems

HE = (_sources.HE_UAI, _sources.HE_LONG)
OTHER_NAME = {_sources.HE_UAI: "long version", _sources.HE_LONG: "UAI version"}
CITED_AS_OTHER = {_sources.HE_UAI: "He et al. (long)", _sources.HE_LONG: "He et al. (UAI)"}
LABEL = re.compile(r"(?:Theorem|Corollary|Lemma|Proposition|Definition|Remark|Assumption) \d+")
LEADING = re.compile(rf"^{LABEL.pattern}(?:(?: with | and |, |; ){LABEL.pattern})*")
ABBREV = re.compile(r"\b(?:Thm|Thms|Cor|Corr|Lem|Prop|Def|Defn|Rem|Ass|App)\b\.?")


def _he_entries():
    return [t for t in all_theorems(with_evidence=False)
            if t.source.paper in HE or t.id.startswith(("he2021.", "he2021uai.", "he2021long."))]


def _audit_sources():
    """The He sources the audit builds itself (algorithm claims, readings): they go through the same ``src``."""
    from symdp.audit.algorithms import _src
    from symdp.audit.readings import readings_for

    out = [_src("he2021-uai", "Theorem 7, Algorithm 1"), _src("he2021-long", "Theorem 8, eq. (15), Algorithm 2")]
    rs = readings_for([t.id for t in _he_entries()])
    assert any(r.theorem.source.paper == _sources.HE_LONG for r in rs)
    return out + [r.theorem.source for r in rs]


def _pairs() -> dict[str, str]:
    return {uai: long for uai, long, _what, _differs in _numbering.PAIRS}


def test_table_keys_match_the_sources() -> None:
    assert (_numbering.HE_UAI, _numbering.HE_LONG) == HE


def test_verified_pairs_are_in_the_table() -> None:
    pairs = _pairs()
    # Composition Theorem I: Theorem 4 in both texts (the long text's Theorem 3 is the high-probability
    # multi-database bound, the UAI's Theorem 3), not UAI Theorem 4 <-> long Theorem 3
    assert pairs["Theorem 4"] == "Theorem 4" and pairs["Theorem 3"] == "Theorem 3"
    assert pairs["Corollary 1"] == "Corollary 2"  # Composition Theorem II
    assert pairs["Corollary 2"] == "Corollary 3"  # Composition Theorem III
    assert pairs["Lemma 1"] == "Lemma 4"  # the reduction to absurdity
    assert pairs["Lemma 2"] == "Lemma 5"  # KL divergence of an eps-DP algorithm
    assert pairs["Lemma 3"] == "Lemma 2"  # Dwork and Roth 2014, Theorem 3.17
    assert pairs["Definition 4"] == "Definition 8"  # exponential mechanism
    for n in (1, 2, 5, 6, 7):
        assert pairs[f"Theorem {n}"] == f"Theorem {n}"
    only = {(p, lab) for p, lab, _what in _numbering.ONLY}
    assert (_sources.HE_UAI, "Corollary 3") in only and (_sources.HE_LONG, "Theorem 8") in only


def test_table_is_one_to_one_and_spelled_out() -> None:
    uai = [p[0] for p in _numbering.PAIRS] + [lab for p, lab, _ in _numbering.ONLY if p == _sources.HE_UAI]
    long = [p[1] for p in _numbering.PAIRS] + [lab for p, lab, _ in _numbering.ONLY if p == _sources.HE_LONG]
    assert len(uai) == len(set(uai)) and len(long) == len(set(long))
    for lab in uai + long:
        assert LABEL.fullmatch(lab), lab
    for row in _numbering.PAIRS:
        assert row[2], row  # what the result is


@pytest.mark.parametrize("th", _he_entries(), ids=lambda t: t.id)
def test_every_entry_with_a_counterpart_names_it(th) -> None:
    paper, loc, cite = th.source.paper, th.source.locator, th.source.cite()
    if paper not in HE:
        return
    m = LEADING.match(loc)
    if m is None or CITED_AS_OTHER[paper] in loc:  # a section's claim, or the locator names the other text itself
        assert th.source.counterpart is None, th.id
        return
    labels = LABEL.findall(m.group(0))
    pairs = _pairs() if paper == _sources.HE_UAI else {v: k for k, v in _pairs().items()}
    only = {lab for p, lab, _ in _numbering.ONLY if p == paper}
    assert all(lab in pairs or lab in only for lab in labels), (th.id, labels, "add the label to library._numbering")
    if (paper, loc) in _numbering.OVERRIDES:
        assert _numbering.OVERRIDES[(paper, loc)] in cite
        return
    mapped = [pairs[lab] for lab in labels if lab in pairs]
    if mapped:
        assert f"({OTHER_NAME[paper]}: " in cite, (th.id, cite)
        tail = cite.split(f"({OTHER_NAME[paper]}: ", 1)[1]
        for lab in mapped:
            assert re.search(rf"\b{lab}\b", tail), (th.id, lab, cite)
    else:
        assert "(not in the " in cite, (th.id, cite)


def test_both_directions_of_a_pair_render() -> None:
    from symdp.library import get

    assert "Corollary 2 (Composition Theorem III) (long version: Corollary 3)" in get("he2021uai.cor2_delta").source.cite()
    assert "Corollary 3, Appendix B.4 eq. (38) (UAI version: Corollary 2)" in get("he2021long.cor3_delta_pure").source.cite()
    assert "Theorem 3, eq. (2) (UAI version: Theorem 3)" in get("he2021long.thm3").source.cite()
    assert "Theorem 4 (long version: Theorem 4)" in get("he2021.thm4_eps1").source.cite()
    assert "Lemma 4 (UAI version: Lemma 1)" in get("he2021long.lemma4_k").source.cite()
    assert "Theorem 8 (not in the UAI main text)" in get("he2021long.thm8_delta").source.cite()


def test_abbreviations_are_uniform_in_rendered_citations() -> None:
    for src in [t.source for t in _he_entries() if t.source.paper in HE] + _audit_sources():
        cite = src.cite()
        assert not ABBREV.search(cite.split("]")[0]), cite
        for lab in LABEL.findall(cite):
            assert lab.split()[0] in _numbering.KINDS


def test_rendered_citations_parse_as_one_locator_and_one_version() -> None:
    """The audit report splits ``[key, locator; version]`` at the first ``;``: a He locator holds none."""
    from symdp.audit.finding import _SRC

    for th in _he_entries():
        if th.source.paper not in HE:
            continue
        m = _SRC.match(th.source.cite())
        assert m and m.group("ver") == _sources.FILES[th.source.paper][1], th.source.cite()


def test_show_and_list_name_the_counterpart() -> None:
    from symdp.cli import main

    runner = CliRunner()
    out = runner.invoke(main, ["show", "he2021.cor1_delta"])
    assert out.exit_code == 0 and "(long version: Corollary 2)" in out.output
    out = runner.invoke(main, ["list", "--source", "he2021-long", "--json"])
    assert out.exit_code == 0 and '"counterpart": "UAI version: Corollary 2"' in out.output


def test_counterpart_doctests() -> None:
    assert doctest.testmod(_numbering).failed == 0
