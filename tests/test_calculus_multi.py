"""Multi-premise unification (issue 22): a step with several premises unifies each with an earlier conclusion
of the chain (same property type, adjacency and mechanism); premises no conclusion feeds are the derivation's.

Oracles: the composed GDP parameter against mpmath and against the tight accountant of the composed
Gaussians (an independent numerical computation of the same mechanism); errors by their one-line text."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from symdp import properties as P
from symdp.calculus import chain
from symdp.errors import InvalidParameterError

TWO_GAUSSIANS = ("bu2020.gaussian_mechanism_gdp", "+bu2020.gaussian_mechanism_gdp", "bu2020.gdp_composition")


def _gdp_delta(mu: float, eps: float) -> float:
    """delta(eps) of mu-GDP [Dong, Roth, Su 2019, Cor. 2.13], in mpmath."""
    mu_, e = mpmath.mpf(mu), mpmath.mpf(eps)
    return float(mpmath.ncdf(-e / mu_ + mu_ / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu_ - mu_ / 2))


def test_two_premise_theorem_fed_by_two_earlier_steps():
    d = chain(TWO_GAUSSIANS)
    # both premises of the composition are unified (with the branch's own, renamed, Gaussian); the
    # derivation's premises are the two mechanisms, explicitly
    assert [P.property_type(p) for p in d.premises] == ["Mechanism:gaussian", "Mechanism:gaussian"]
    assert {s.name for p in d.premises for s in p.free_symbols} == {"Delta", "sigma", "Delta_2", "sigma_2"}
    syms = {s.name: s for s in d.free_symbols}
    want = sp.sqrt(syms["Delta"] ** 2 / syms["sigma"] ** 2 + syms["Delta_2"] ** 2 / syms["sigma_2"] ** 2)
    assert sp.simplify(d.closed_form("mu") - want) == 0
    assert any("premise 1 (GDP)" in n and "premise 2 (GDP)" in n for n in d.notes)
    step = d.steps[-1]
    # earliest branch -> first premise: mu_1 <- Delta/sigma, mu_2 <- Delta_2/sigma_2
    assert dict(step.binding) == {"mu_1": "Delta/sigma", "mu_2": "Delta_2/sigma_2"}


def test_two_premise_value_against_mpmath_and_the_tight_accountant():
    from symdp import mechanisms as M
    from symdp.accountants.algebra import tight

    d = chain(TWO_GAUSSIANS, bind={"Delta": 1, "sigma": 2, "Delta_2": 1.5, "sigma_2": 5})
    mu = float(d.values()["mu"])
    assert mu == pytest.approx(float(mpmath.sqrt(mpmath.mpf(1) / 4 + mpmath.mpf("2.25") / 25)), rel=1e-15)
    # composing the two Gaussians is exactly sqrt(sum mu_i^2)-GDP: the tight accountant agrees at eps = 1
    mech = M.Composed((M.Gaussian(sensitivity=1.0, sigma=2.0), M.Gaussian(sensitivity=1.5, sigma=5.0)))
    r = tight.delta(mech, 1.0)
    assert r.lower <= _gdp_delta(mu, 1.0) * (1 + 1e-9)
    assert _gdp_delta(mu, 1.0) == pytest.approx(float(r.delta), rel=1e-3)
    # a wrong unification (e.g. both premises fed by the same branch: sqrt(2) mu_1) would be far off
    assert abs(_gdp_delta(2 ** 0.5 * 0.5, 1.0) - float(r.delta)) > 1e-3


def test_unmatched_premise_is_listed_and_matched_one_is_not():
    # the composition after one step: premise 1 is fed, premise 2 (mu_2) is an explicit premise
    d = chain(["bu2020.gaussian_mechanism_gdp", "bu2020.gdp_composition"])
    kinds = [(P.property_type(p), sorted(s.name for s in p.free_symbols)) for p in d.premises]
    assert kinds == [("Mechanism:gaussian", ["Delta", "sigma"]), ("GDP", ["mu_2"])]


def test_previous_step_feeds_a_later_premise_not_only_the_first():
    # Wang et al. Thm 4: premises (loss bounded ..., OnAverageKL(eps)); the OKL conclusion feeds the second
    d = chain(["wang2016.lemma7_adaptive_composition", "wang2016.thm4_equivalence"])
    assert d.conclusion.kind == "OnAverageGeneralization"
    assert any("premise 2 (OnAverageKL)" in n for n in d.notes)
    assert any(P.property_type(p).startswith("Other:") for p in d.premises)


def test_branch_not_used_is_an_error():
    with pytest.raises(InvalidParameterError, match="used by no later step"):
        chain(["bu2020.gaussian_mechanism_gdp", "+bu2020.gaussian_mechanism_gdp"])


def test_linear_chain_still_needs_the_previous_conclusion():
    with pytest.raises(InvalidParameterError, match=r"needs a premise Mechanism:gaussian.*'\+bu2020"):
        chain(["bu2020.gaussian_mechanism_gdp", "bu2020.gaussian_mechanism_gdp"])


def test_branches_under_different_adjacency_name_the_bridge():
    ids = ["bu2020.clt_mu", "+bu2020.clt_mu", "bridge.group_privacy_gdp", "bu2020.gdp_composition"]
    with pytest.raises(InvalidParameterError, match="add/remove.*replace-one|replace-one.*add/remove") as e:
        chain(ids)
    assert "bridge.group_privacy_gdp" in str(e.value)
    # with both branches crossed to replace-one it chains, and the result is replace-one
    ok = chain(["bu2020.clt_mu", "bridge.group_privacy_gdp", "+bu2020.clt_mu", "bridge.group_privacy_gdp",
                "bu2020.gdp_composition"])
    assert P.adjacency_of(ok.conclusion) == "replace_one"
    assert ok.approximate
