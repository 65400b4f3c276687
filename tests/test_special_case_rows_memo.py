"""Issue 25: :func:`symdp.verify.consistency.special_case_rows` of a library entry reads the library's special-case
pairs computed once (the audit's cache keys ask for every entry's rows); the rows are those of a fresh pass."""

from __future__ import annotations

from symdp.library import all_theorems
from symdp.verify import consistency as C


def test_memoised_rows_equal_a_fresh_pass_for_every_entry():
    lib = all_theorems(with_evidence=False)
    nonempty = 0
    for th in lib:
        got = C.special_case_rows(th)  # the memoised pairs of the library
        ref = C.special_case_rows(th, list(lib))  # a fresh special_cases pass over the library
        assert got == ref, th.id
        nonempty += bool(got)
    assert nonempty >= 5  # the library has entries whose special cases have ledger rows


def test_a_theorem_not_in_the_library_is_not_answered_from_the_memo():
    from dataclasses import replace

    lib = all_theorems(with_evidence=False)
    C.special_case_rows(lib[0])  # fills the memo
    general = next(g for g, specials in C._specials_by_general(lib).items() if specials)
    th = next(t for t in lib if t.id == general)
    twin = replace(th)  # the same id, another object (e.g. a user theorem shadowing it): a fresh pass
    assert twin is not th
    assert C.special_case_rows(twin) == C.special_case_rows(twin, [t for t in lib if t.id != th.id] + [twin])
