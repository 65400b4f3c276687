"""linreg_dp_lower computes its gamma-free grid maximum once per process (issue 25, session 33): the same value as
the per-call loop it replaced (kept here as the reference), at every gamma."""

import mpmath
import numpy as np

from symdp.verify.oracles_examples import _linreg_dp_grid_max, linreg_dp_lower


def _per_call(gamma):
    ys, xs, hs = np.linspace(-1.0, 1.0, 5), np.linspace(-2.0, 2.0, 9), np.linspace(-2.0, 2.0, 17)
    best = 0.0
    for y in ys:
        for x in xs:
            lz = (y - x * hs) ** 2
            for y2 in ys:
                for x2 in xs:
                    d = (y2 - x2 * hs) ** 2 - lz
                    best = max(best, float(d.max() - d.min()))
    return mpmath.mpf(gamma) * mpmath.mpf(best)


def test_same_value_as_the_per_call_grid():
    assert _linreg_dp_grid_max() == 32.0
    for g in ("1", "0.001", "3.75", "1e6", "0.123456789012345678901234567"):
        with mpmath.workdps(30):
            assert linreg_dp_lower(gamma=mpmath.mpf(g))._mpf_ == _per_call(mpmath.mpf(g))._mpf_
