"""library.unregister removes a user theorem's typed implication too (issue 22): register, chain, unregister,
and the chain no longer finds it; re-registering without a conclusion leaves no stale implication."""

from __future__ import annotations

import pytest
import sympy as sp

from symdp import properties as P
from symdp.calculus import chain, register
from symdp.errors import InvalidParameterError, UnknownTheoremError
from symdp.library import get, ids, unregister
from symdp.library.implications import implication, implications
from symdp.symbols import T, delta, eps
from symdp.theorem import Kind, Source, Theorem

GAUSS = "classical.gaussian_mechanism_calibration"


def _basic(tid: str) -> Theorem:
    return Theorem(tid, "user: basic composition T eps, T delta", Kind.BOUND, Source("user", "", "t", "1"),
                   lhs=sp.Symbol("e_T", real=True), relation="<=", rhs=T * eps,
                   hypotheses=(eps > 0, delta > 0, delta < 1), tags=("user",))


def test_unregistered_theorem_no_longer_chains():
    th = _basic("user.unreg_basic")
    register(th, premises=(P.ApproxDP(eps, delta),), conclusion=P.ApproxDP(T * eps, T * delta), replace=True)
    try:
        d = chain([GAUSS, th.id], bind={"Delta": 1, "sigma": 10, "delta": 1e-6, "T": 4})
        v = d.values()
        eps1 = float(sp.sqrt(2 * sp.log(sp.Rational(5, 4) / sp.Float("1e-6", 30))) / 10)
        assert float(v["eps"]) == pytest.approx(4 * eps1, rel=1e-12)  # the user step was applied
        assert th.id in implications()
    finally:
        unregister(th.id)
    with pytest.raises(UnknownTheoremError):
        get(th.id)
    with pytest.raises(UnknownTheoremError):
        implication(th.id)
    with pytest.raises(UnknownTheoremError):
        chain([GAUSS, th.id])
    assert th.id not in ids() and th.id not in implications()


def test_reregistering_without_a_conclusion_drops_the_old_implication():
    th = _basic("user.unreg_replaced")
    register(th, premises=(P.ApproxDP(eps, delta),), conclusion=P.ApproxDP(T * eps, T * delta), replace=True)
    try:
        assert implication(th.id).conclusion == P.ApproxDP(T * eps, T * delta)
        register(th, replace=True)  # the same id, now without premises/conclusion
        with pytest.raises(InvalidParameterError, match="registered without premises/conclusion"):
            implication(th.id)
        with pytest.raises(InvalidParameterError):
            chain([GAUSS, th.id])
    finally:
        unregister(th.id)


def test_unregister_leaves_library_entries_alone():
    unregister(GAUSS)
    assert implication(GAUSS).id == GAUSS and get(GAUSS).id == GAUSS
