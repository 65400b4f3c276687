"""DP -> KL-privacy -> On-Average KL-privacy -> on-average generalization (Wang et al. Table 1, issue 22).

Oracles: the hand derivation (eps (e^eps - 1)/(e^eps + 1) at eps = 4 gamma, divided by gamma: 4 tanh(2 gamma))
in mpmath; the exact on-average generalization of the Laplace mean release (Wang et al.'s closed form, and its
Monte Carlo estimate on the paper's truncated-normal data), which the derived bound must not undercut; the KL
lemma against the exact KL of randomized response (where it is attained) and of the Laplace mechanism."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from symdp import properties as P
from symdp.calculus import WORKED_CHAINS, chain
from symdp.errors import InvalidParameterError

IDS = WORKED_CHAINS["laplace_mean_dp_kl_okl_generalization"]


def _gen_bound(gamma: float) -> mpmath.mpf:
    with mpmath.workdps(40):
        g = mpmath.mpf(str(gamma))  # bind reads 0.01 as the decimal 1/100
        e = 4 * g
        return e * (mpmath.exp(e) - 1) / (mpmath.exp(e) + 1) / g


def test_chain_is_typed_dp_kl_okl_generalization():
    d = chain(IDS)
    assert P.property_type(d.conclusion) == "OnAverageGeneralization"
    # the types the chain passes through, step by step
    kinds = [P.property_type(chain(IDS[: k + 1]).conclusion) for k in range(len(IDS))]
    assert kinds == ["ApproxDP", "KLPrivacy", "OnAverageKL", "OnAverageGeneralization"]  # pure DP: delta = 0
    assert isinstance(chain(IDS[:1]).conclusion, P.PureDP)
    # Thm 4's condition (posterior sampling) is an explicit premise of the derivation
    assert [P.property_type(p) for p in d.premises] == ["Other:posterior-sampling"]
    gamma = next(s for s in d.free_symbols if s.name == "gamma")
    assert sp.simplify(d.closed_form() - (4 * sp.tanh(2 * gamma)).rewrite(sp.exp)) == 0


@pytest.mark.parametrize("gamma", [0.01, 0.1, 0.5, 2.0, 20.0])
def test_bound_matches_the_hand_derivation_and_stays_above_the_exact_gap(gamma):
    from symdp.library import get

    d = chain(IDS, bind={"gamma": gamma})
    want = _gen_bound(gamma)
    with mpmath.workdps(40):
        got = mpmath.mpf(str(sp.N(d.closed_form(), 40)))
        assert abs(got - want) <= mpmath.mpf(10) ** -30 * want
    # the exact on-average generalization (Wang et al. Sec. 6, Gaussian data point with the paper's variance)
    var = float(get("wang2016.example_laplace_mean_data_variance").evaluate(m_avg=100))
    exact = float(get("wang2016.example_laplace_mean_gen").evaluate(gamma=gamma, s_Z=var ** 0.5))
    assert 0 < exact <= float(got)


def test_bound_is_above_the_monte_carlo_gap_on_the_papers_data():
    from symdp.library.kl_privacy import laplace_mean_mc

    for gamma in (0.5, 5.0):
        r = laplace_mean_mc(gamma=gamma, data="truncnorm_mean", m=100, n_mc=40_000, seed=3)
        est, se = r["gen"]
        assert est - 4 * se <= float(_gen_bound(gamma))


@pytest.mark.parametrize("eps", [0.01, 0.3, 1.0, 4.0])
def test_kl_lemma_implication_against_exact_kl(eps):
    d = chain(["he2021.lemma_kl"], bind={"epsilon": eps})
    with mpmath.workdps(40):
        kl_bound = mpmath.mpf(str(d.values()["eps"]))
        e = mpmath.mpf(str(eps))
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        rr = p * mpmath.log(p / (1 - p)) + (1 - p) * mpmath.log((1 - p) / p)  # randomized response: attained
        lap = e + mpmath.exp(-e) - 1  # Laplace mechanism with sensitivity / scale = eps
        assert abs(kl_bound - rr) <= mpmath.mpf(10) ** -30 * rr
        assert lap <= kl_bound


def test_kl_lemma_needs_pure_dp():
    with pytest.raises(InvalidParameterError, match="delta"):
        chain(["classical.gaussian_mechanism_calibration", "he2021.lemma_kl"])


def test_on_average_kl_needs_replace_one_neighbours():
    from symdp.library.implications import implication

    assert P.adjacency_of(implication("bridge.wang2016_kl_to_on_average_kl").premises[0]) == "replace_one"
    d = chain(IDS[:3])
    assert any("fixes the neighbouring relation to replace-one" in n for n in d.notes)
