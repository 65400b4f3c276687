"""fdp.composition2_mu is memoised on the sorted pair of shifts (session 35): the search of bu2020.gdp_composition
evaluates the corners (0.01, 10) and (10, 0.01), one computation now.  The value read for the swapped pair is, bit
for bit, the one computed for it alone (the former code: no memo), and a new precision is a new entry."""

from __future__ import annotations

import mpmath

from symdp.verify import fdp


def _alone(m1, m2):
    return max(fdp._quantile(1 - a) - fdp._quantile(b) for a, b in fdp.composition2_points(m1, m2))


def test_the_swapped_pair_reads_the_value_computed_for_it_alone() -> None:
    with mpmath.workdps(30):
        a, b = mpmath.mpf("0.18268998599127653"), mpmath.mpf("0.05980675662697353")  # a point of the audit's search
        fdp._COMPOSITION2.clear()
        first = fdp.composition2_mu(mu_1=a, mu_2=b)
        assert len(fdp._COMPOSITION2) == 1
        swapped = fdp.composition2_mu(mu_1=b, mu_2=a)
        assert len(fdp._COMPOSITION2) == 1  # read, not computed
        assert swapped._mpf_ == _alone(b, a)._mpf_ == first._mpf_ == _alone(a, b)._mpf_
    with mpmath.workdps(20):
        fdp.composition2_mu(mu_1=a, mu_2=b)
        assert len(fdp._COMPOSITION2) == 2  # another precision: another value
