"""symdp.certify.bounds / privacy: generalization routes and the trade-off curve, against independent math."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symdp.certify import bounds, privacy
from symdp.certify.certificate import certify_hparams, to_markdown


def _route(entries, prefix):
    return next(e for e in entries if e["name"].startswith(prefix))


def test_tradeoff_matches_the_closed_form():
    f = np.linspace(0, 1, 57)
    for eps, d in ((0.3, 1e-6), (2.0, 1e-3), (5.0, 0.0)):
        ref = np.minimum(1, np.minimum(np.exp(eps) * f + d, 1 - np.exp(-eps) * (1 - d - f)))
        np.testing.assert_allclose(privacy.tradeoff_tpr(f, eps, d), ref, rtol=1e-12, atol=1e-15)


def test_tradeoff_for_huge_epsilon_is_finite():
    t = privacy.tradeoff_tpr(np.array([0.0, 1e-6, 0.5]), 1e4, 1e-5)
    np.testing.assert_array_equal(t, [1e-5, 1.0, 1.0])
    assert privacy.tradeoff_tpr(0.3, math.inf, 0.0) == 1.0


def test_he_long_applies_for_small_eps_and_large_n():
    out = bounds.generalization_bounds(0.1, 1e-6, 200_000, adjacency="replace_one")
    he = _route(out, "He, Wang, Tao 2021 Thm 1 (long")
    assert he["applies"] and he["bound"] == pytest.approx(0.9)  # a = 9 eps
    b = 1e-6 * math.exp(-0.1) * math.log(2 / 0.1) / 0.1
    assert he["confidence"] == pytest.approx(1 - b)
    assert {"he2021long.thm1", "he2021long.thm1_b"} <= set(he["status"])
    assert all(v in ("PROVED", "REFUTED", "PARTIAL", "SUPPORTED", "UNCHECKED") for v in he["status"].values())


def test_he_long_sample_size_condition_is_reported_when_it_fails():
    he = _route(bounds.generalization_bounds(0.05, 1e-6, 100), "He, Wang, Tao 2021 Thm 1 (long")
    assert not he["applies"] and he["bound"] is None and "N >=" in he["reason"]


def test_he_uai_says_why_it_cannot_be_checked():
    uai = _route(bounds.generalization_bounds(0.1, 1e-6, 200_000), "He, Wang, Tao 2021 Thm 1 (UAI")
    assert not uai["applies"] and "c1..c7" in uai["reason"]


def test_max_information_route_inverts_thm13_with_hoeffding():
    conf = 0.9
    e = bounds.dwork_max_information(0.01, 1e-6, 100_000, confidence=conf)
    assert not e["applies"] and "pure eps-DP" in e["reason"]  # delta > 0: reference only
    assert bounds.APPROX_DP_MAX_INFORMATION in e["reason"]  # and why no approximate-DP route replaces it
    pb = bounds.pac_bayes_dp_prior(0.01, 1e-6, 100_000, 0.1)
    assert not pb["applies"] and bounds.APPROX_DP_MAX_INFORMATION in pb["reason"]
    k, t, beta = e["k_bits"], e["bound"], e["beta"]
    # at the returned t, the failure probability 2^k * 2 exp(-2 n t^2) + beta is exactly 1 - confidence
    assert 2 ** k * 2 * math.exp(-2 * 100_000 * t * t) + beta == pytest.approx(1 - conf, rel=1e-9)
    k_ref = math.log2(math.e) * (0.01 ** 2 * 100_000 / 2 + 0.01 * math.sqrt(100_000 * math.log(2 / beta) / 2))
    assert k == pytest.approx(k_ref, rel=1e-12)
    assert bounds.dwork_max_information(0.01, 0.0, 100_000)["applies"]  # pure DP: the theorem applies


def test_pac_bayes_route_is_a_kl_inversion():
    e = bounds.pac_bayes_dp_prior(0.01, 1e-6, 100_000, 0.1, confidence=0.95)
    r = e["bound"]
    c = (e["k_bits"] * math.log(2) + math.log(2 * math.sqrt(100_000) / 0.025)) / 100_000
    kl = 0.1 * math.log(0.1 / r) + 0.9 * math.log(0.9 / (1 - r))
    assert r > 0.1 and kl == pytest.approx(c, rel=1e-6)
    assert bounds.pac_bayes_dp_prior(0.01, 1e-6, 100_000, None)["bound"] is None


def test_no_epsilon_no_bounds():
    out = bounds.generalization_bounds(None, 1e-5, 1000)
    assert len(out) == 1 and not out[0]["applies"]


def test_markdown_tables_are_well_formed():
    cert = certify_hparams(noise_multiplier=1.0, sample_rate=0.01, steps=200, n=10_000, delta=1e-5, train_error=0.05)
    md = to_markdown(cert)
    for block in md.split("\n\n"):
        rows = [ln for ln in block.splitlines() if ln.startswith("|")]
        if rows:
            assert len({ln.count("|") for ln in rows}) == 1, block


def test_max_information_route_is_derived_by_the_calculus_and_equals_the_hand_typed_one():
    """The route now comes from the calculus (Thm 20 in nats -> Thm 13 with Hoeffding); where both apply it
    equals the formula this module used to type by hand, and the 2^k 2 e^{-2 n t^2} + beta = b inversion."""
    for eps, n, conf in ((0.01, 100_000, 0.9), (0.1, 5_000, 0.95), (1.0, 10**6, 0.99), (3.0, 50, 0.8)):
        e = bounds.dwork_max_information(eps, 0.0, n, confidence=conf)
        b = 1 - conf
        beta = b / 2
        k_bits, _ = bounds.max_information_k_bits(eps, n, beta)  # the library entry in bits (the old path)
        old = math.sqrt((k_bits * math.log(2) + math.log(2 / (b - beta))) / (2 * n))
        assert e["applies"] and e["bound"] == pytest.approx(old, rel=1e-12)
        assert e["k_bits"] == pytest.approx(k_bits, rel=1e-12)
        log_p = e["k_bits"] * math.log(2) + math.log(2) - 2 * n * e["bound"] ** 2  # log of 2^k 2 e^{-2 n t^2}
        assert log_p == pytest.approx(math.log(b - beta), rel=1e-9, abs=1e-9)
        assert "derived by the calculus" in e["reason"]
        assert set(bounds.MAX_INFORMATION_CHAIN) <= set(e["status"])


# ------------------------------------------------------------------ He et al. Thm 1 routes derived by the calculus
_OLD_CASES = [(0.1, 1e-6, 200_000), (0.04, 1e-8, 10**6), (0.15, 1e-5, 50_000), (0.01, 1e-9, 10**8), (0.05, 1e-6, 100)]


def _old_gap_route(pairs, vals):
    """The value the routes used to compute: the library entries evaluated directly (generated kernels)."""
    for a_id, b_id in pairs:
        th_a, th_b = bounds._get(a_id), bounds._get(b_id)
        try:
            bounds._values_for(th_a, vals)
        except Exception:  # noqa: BLE001 - a symbol the run does not determine: the old route did not apply
            continue
        if bounds.failing_hypotheses(th_a, vals):
            continue
        return bounds.evaluate_bound(th_a, vals)[0], bounds.evaluate_bound(th_b, vals)[0]
    return None


@pytest.mark.parametrize("eps, delta, n", _OLD_CASES)
def test_he_routes_derived_by_the_calculus_equal_the_direct_evaluation(eps, delta, n):
    """Replace-one runs: the derived closed form equals the old direct evaluation of the entries to 1e-12, and
    both apply at the same points (the UAI version at neither: its sample-size condition has unspecified
    constants)."""
    vals = dict(epsilon=eps, delta=delta, N=n, n=n)
    uai, long_ = bounds.he_thm1(eps, delta, n)
    stoc = bounds.dwork_stoc(eps, delta, n)
    for e, pairs in ((uai, bounds.HE_UAI), (long_, bounds.HE_LONG), (stoc, bounds.DWORK_STOC)):
        old = _old_gap_route(pairs, vals)
        assert e["applies"] == (old is not None), (e, old)
        if old is not None:
            assert e["bound"] == pytest.approx(old[0], rel=1e-12)
            assert e["failure_probability"] == pytest.approx(old[1], rel=1e-12)
            assert "derived by the calculus" in e["reason"] and e["derivation"][-1] == pairs[0][0]
    assert not uai["applies"] and "c1..c7" in uai["reason"]


@pytest.mark.parametrize("eps, delta, n", _OLD_CASES)
def test_add_remove_runs_go_through_group_privacy(eps, delta, n):
    """DP-SGD (Poisson, add/remove) into He et al. Thm 1 (replace-one): the route's derivation starts with group
    privacy and equals the theorem at (2 eps, (1 + e^eps) delta), recomputed by hand in mpmath; this is the
    difference from the old route, which fed the add/remove epsilon to the replace-one theorem (below the
    truth)."""
    import mpmath

    out = bounds.generalization_bounds(eps, delta, n)  # certify's default: add/remove
    he = _route(out, "He, Wang, Tao 2021 Thm 1 (long")
    with mpmath.workdps(40):
        e, d = 2 * mpmath.mpf(eps), (1 + mpmath.exp(mpmath.mpf(eps))) * mpmath.mpf(delta)
        a_ref, b_ref = 9 * e, d * mpmath.exp(-e) * mpmath.log(2 / e) / e
        n_min = 2 / e**2 * mpmath.log(16 / (mpmath.exp(-e) * d))
    assert he["applies"] == (n >= n_min), (he, float(n_min))
    if he["applies"]:
        assert he["derivation"] == [bounds.GROUP_PRIVACY, "he2021long.thm1"]
        assert he["bound"] == pytest.approx(float(a_ref), rel=1e-12)
        assert he["failure_probability"] == pytest.approx(float(b_ref), rel=1e-12)
        assert "group privacy" in he["reason"] and he["adjacency"] == "add_remove"
        old = _old_gap_route(bounds.HE_LONG, dict(epsilon=float(e), delta=float(d), N=n))
        assert old is not None and he["bound"] == pytest.approx(old[0], rel=1e-12)
        assert he["failure_probability"] == pytest.approx(old[1], rel=1e-12)


def test_adjacency_is_validated():
    with pytest.raises(Exception, match="adjacency='swap' is not allowed; allowed: add_remove, replace_one"):
        bounds.generalization_bounds(0.1, 1e-6, 1000, adjacency="swap")


def test_max_information_route_for_add_remove_doubles_epsilon():
    """Pure eps-DP under add/remove is 2 eps-DP under replace-one (group privacy with delta = 0)."""
    a = bounds.dwork_max_information(0.01, 0.0, 100_000, adjacency="add_remove")
    b = bounds.dwork_max_information(0.02, 0.0, 100_000)
    assert a["bound"] == pytest.approx(b["bound"], rel=1e-12) and "group privacy" in a["reason"]
