"""Audit fidelity (issue 12): counterexamples on the real mechanism, severity classes, root causes, experiments.

Oracles: the exact Gaussian profile (Balle and Wang 2018) in mpmath, dp_accounting's PLD for the same pair
(independent library, pessimistic and optimistic), brackets lower <= exact <= upper, and planted claims whose
truth is known by construction.
"""

from __future__ import annotations

import math
import subprocess
import sys

import mpmath
import pytest
import sympy as sp

from symdp.audit.algorithms import ALGORITHM_CLAIMS, AlgorithmClaim, audit_algorithm, pair_delta_lower, pair_delta_upper
from symdp.audit.report import AuditResult
from symdp.audit.severity import (
    ENTRY_CLASSES,
    ROOT_CAUSES,
    SEVERITY_RULES,
    annotate,
    classify,
    order_findings,
    root_cause_groups,
    severity_counts,
)
from symdp.theorem import Kind, Source, theorem


def _gauss_profile(mu: object, eps: float) -> mpmath.mpf:
    """Exact delta(eps) of mu-GDP (Balle and Wang 2018, Thm 8), written independently of symdp."""
    with mpmath.workdps(40):
        mu_, e = mpmath.mpf(mu), mpmath.mpf(eps)
        return mpmath.ncdf(-e / mu_ + mu_ / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu_ - mu_ / 2)


# ---------------------------------------------------------------------------
# the oracle: lower bound of the real mechanism's delta
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("r,T,eps", [(1.0, 1, 0.5), (0.3, 10, 1.0), (0.05, 400, 0.2), (2.0, 3, 4.0)])
def test_pair_lower_is_exact_gaussian_profile_at_q1(r: float, T: int, eps: float) -> None:
    v = pair_delta_lower(1.0, r, T, eps)
    with mpmath.workdps(40):
        exact = _gauss_profile(mpmath.mpf(r) * mpmath.sqrt(T), eps)  # the binary value of r, as the oracle sees it
    assert v.exact
    assert float(v.lower) <= float(exact) <= float(v.lower) + 1e-20 + 1e-12 * float(exact)


@pytest.mark.parametrize("q,r,T,eps", [(0.5, 1.0, 1, 0.3), (0.9, 0.05, 100, 0.757), (0.1, 0.5, 20, 0.5)])
def test_pair_lower_bracketed_by_independent_pld(q: float, r: float, T: int, eps: float) -> None:
    from dp_accounting.pld import privacy_loss_distribution as pld

    pess = pld.from_gaussian_mechanism(standard_deviation=1 / r, sensitivity=1, pessimistic_estimate=True,
                                       value_discretization_interval=1e-3, sampling_prob=q).self_compose(T)
    lo = float(pair_delta_lower(q, r, T, eps).lower)
    assert lo <= pess.get_delta_for_epsilon(eps) + 1e-12
    up = pair_delta_upper(q, r, T, eps)
    assert up is not None and lo <= up + 1e-12
    if T == 1:  # exact for one step: the dp_accounting upper end is within its discretisation
        assert pess.get_delta_for_epsilon(eps) - lo < 5e-3


# ---------------------------------------------------------------------------
# planted algorithm claims
# ---------------------------------------------------------------------------
_PLANTED_SRC = Source(paper="planted", file="-", version="test", locator="-")


def _planted(claim, grid) -> AlgorithmClaim:
    return AlgorithmClaim(
        id="algo.planted", title="planted: DP-SGD is (eps', delta')-DP", source=_PLANTED_SRC, quote="(planted)",
        refines=(), reading="planted", pair="0 vs Delta e_1", sensitivity=lambda h: 1.0 / h["tau"],
        noise_std=lambda h: h["sigma"], claim=claim, grid=lambda: grid)


_GRID = [{"N": 1000.0, "tau": float(tau), "T": float(T), "sigma": 1.0 / (tau * r)}
         for tau in (100, 900) for r in (0.2, 1.0) for T in (1, 10)]


def test_planted_false_algorithm_claim_is_refuted_on_the_real_mechanism() -> None:
    # false: the CLT's mu used as epsilon, delta' = 1e-5
    def claim(h, backend):
        q, r = h["tau"] / h["N"], 1.0 / (h["tau"] * h["sigma"])
        return q * math.sqrt(h["T"]) * r, 1e-5

    res = audit_algorithm(_planted(claim, _GRID), grid=_GRID)
    assert res.verdict == "FAILS"
    cx = res.counterexample
    assert cx is not None and {"N", "tau", "T", "sigma"} <= set(cx)
    # the reported value is a lower bound of the real mechanism's delta at the claimed eps', above the claim
    h = {k: float(v) for k, v in cx.items()}
    q, r = h["tau"] / h["N"], 1.0 / (h["tau"] * h["sigma"])
    eps_p = q * math.sqrt(h["T"]) * r
    assert float(res.actual) > 1e-5
    assert abs(float(res.actual) - float(pair_delta_lower(q, r, int(h["T"]), eps_p).lower)) < 1e-12
    up = res.extra["delta_upper_tight_pld"]
    assert up is not None and float(up) >= float(res.actual) - 1e-12
    assert res.extra["mechanism"]["mechanism"]["scheme"] == "without_replacement"


def test_planted_true_algorithm_claim_is_not_refuted() -> None:
    # true: the pair's tight-PLD upper bound, doubled (the pair is the whole run for this mechanism at the grid)
    def claim(h, backend):
        q, r = h["tau"] / h["N"], 1.0 / (h["tau"] * h["sigma"])
        up = pair_delta_upper(q, r, int(h["T"]), 1.0)
        return 1.0, min(2 * up, 0.999)

    res = audit_algorithm(_planted(claim, _GRID[:4]), grid=_GRID[:4])
    assert res.verdict == "UNDECIDED"  # never HOLDS: one pair is not all replace-one pairs
    assert "no hyperparameters" in res.detail


@pytest.mark.slow
@pytest.mark.parametrize("cid", sorted(ALGORITHM_CLAIMS))
def test_library_algorithm_theorems_fail_on_their_mechanism(cid: str) -> None:
    res = audit_algorithm(ALGORITHM_CLAIMS[cid])
    assert res.verdict == "FAILS"
    lo, claimed = float(res.extra["delta_lower"]), float(res.extra["delta_claimed"])
    assert lo > claimed and claimed < 1
    up = res.extra["delta_upper_tight_pld"]
    assert up is None or float(up) >= lo - 1e-12


# ---------------------------------------------------------------------------
# severity classes on planted claims
# ---------------------------------------------------------------------------
x = sp.Symbol("x", positive=True)


def _cmp(cid: str, lhs: sp.Expr, rhs: sp.Expr, lo: float = 0.01, hi: float = 0.99, tags=("probability",)):
    return theorem(cid, cid, Kind.COMPARISON, _PLANTED_SRC, lhs=lhs, relation="<=", rhs=rhs,
                   hypotheses=[x >= sp.nsimplify(lo), x <= sp.nsimplify(hi)],
                   domain={x: (sp.nsimplify(lo), sp.nsimplify(hi))}, tags=tags)


def _audit(th):
    from symdp.audit.engine import audit_theorem

    return audit_theorem(th)


def test_severity_vacuous_only_planted() -> None:
    # 4x^2 <= 2x fails only for x > 1/2, where the claimed-larger probability bound 2x exceeds 1
    res = _audit(_cmp("planted.vacuous", 4 * x**2, 2 * x))
    assert res.verdict in ("FAILS", "PARTIAL")
    assert res.extra["severity"] == "vacuous-only"
    assert res.extra["severity_rule"] == SEVERITY_RULES["vacuous-only"]


def test_severity_major_planted() -> None:
    # 4x^2 <= 1.2x fails for x > 0.3, also where 1.2x < 1: major
    res = _audit(_cmp("planted.major", 4 * x**2, sp.Rational(6, 5) * x))
    assert res.verdict in ("FAILS", "PARTIAL")
    assert res.extra["severity"] == "major"


def test_severity_minor_rounding_planted() -> None:
    # a printed 1.414 for sqrt(2) = 1.41421...: last-digit rounding
    th = theorem("planted.rounding", "sqrt2 <= 1.414", Kind.COMPARISON, _PLANTED_SRC, lhs=sp.sqrt(2), relation="<=",
                 rhs=sp.Rational(1414, 1000))
    res = _audit(th)
    assert res.verdict == "FAILS"
    assert res.extra["severity"] == "rounding" and "rounding" in res.extra["severity_why"]
    # and a real error in the same shape is not minor
    th2 = theorem("planted.wrong", "sqrt2 <= 1.404", Kind.COMPARISON, _PLANTED_SRC, lhs=sp.sqrt(2), relation="<=",
                  rhs=sp.Rational(1404, 1000))
    assert _audit(th2).extra["severity"] == "major"


def test_severity_minor_equality() -> None:
    r = AuditResult(id="planted.eq", kind="tighter-than", title="t", source="s", statement="a < b", verdict="FAILS",
                    detail="lhs = rhs = 2 exactly (...): equality, so the strict inequality < fails (margin 0)")
    assert classify(None, r).severity == "minor"


def test_holds_gets_no_severity_and_findings_ordered() -> None:
    rs = [AuditResult(id=f"r{i}", kind="k", title="t", source="s", statement="", verdict=v, extra={"severity": s})
          for i, (v, s) in enumerate([("HOLDS", None), ("FAILS", "minor"), ("FAILS", "major"), ("PARTIAL", "vacuous-only")])]
    assert [r.id for r in order_findings(rs)] == ["r2", "r1", "r3", "r0"]
    assert severity_counts(rs) == {"major": 1, "minor": 1, "vacuous-only": 1, "rounding": 0}
    ok = AuditResult(id="he2021.thm4_eps3", kind="valid bound", title="t", source="s", statement="", verdict="HOLDS")
    annotate(None, ok)
    assert "severity" not in ok.extra and ok.extra["root_cause"] == "he2021.composition_delta_part"


def test_table_is_consistent() -> None:
    for cid, c in ENTRY_CLASSES.items():
        assert c.severity in (None, *SEVERITY_RULES), cid
        assert c.root_cause is None or c.root_cause in ROOT_CAUSES, cid
        assert c.origin in ("paper", "symdp", "arithmetic"), cid
        assert c.severity is not None or c.range_hi is not None, cid  # undecided classes are decided by the re-search


def test_root_cause_grouping() -> None:
    rs = []
    for cid in ("he2021.thm4_eps3", "he2021uai.thm6_eps", "he2021uai.cor2_delta", "he2021long.thm7_eps_tilde"):
        r = AuditResult(id=cid, kind="valid bound", title="t", source="s", statement="", verdict="FAILS")
        rs.append(annotate(None, r, recheck=False))
    g = root_cause_groups(rs)
    assert g["he2021.composition_delta_part"] == ["he2021.thm4_eps3", "he2021uai.thm6_eps"]
    assert g["he2021.composition_III_chernoff"] == ["he2021uai.cor2_delta"]
    assert all(r.extra["severity"] == "major" for r in rs)


def test_origin_labels_of_library_entries() -> None:
    from symdp.library import get

    for cid, origin in (("he2021long.consistency_thm1_n", "symdp"), ("bu2020.mnist_fig4_top", "arithmetic"),
                        ("he2021long.thm7_eps_tilde", "paper")):
        th = get(cid, with_evidence=False)
        r = AuditResult(id=cid, kind="k", title="t", source="s", statement="", verdict="HOLDS")
        assert classify(th, r).origin == origin, cid


# ---------------------------------------------------------------------------
# 003's experiments
# ---------------------------------------------------------------------------
@pytest.mark.slow
def test_bu2020_experiments_against_tight_accountant() -> None:
    from symdp.audit.experiments import audit_experiments

    rs = {r.id: r for r in audit_experiments()}
    # the moments-accountant models have the printed privacy (tight upper bound below the printed eps)
    for k in ("experiment.bu2020.fig4_top_ma", "experiment.bu2020.fig4_bottom_ma"):
        assert rs[k].verdict == "HOLDS" and rs[k].extra["eps_tight_upper"] <= rs[k].extra["eps_rdp_upper"]
    # the CLT-recalibrated models do not: lower bound above the printed eps, bracketed by the tight upper bound
    for k, printed in (("experiment.bu2020.fig4_top_clt", 1.34), ("experiment.bu2020.fig4_bottom_clt", 8.68)):
        ex = rs[k].extra
        assert rs[k].verdict == "FAILS"
        assert printed < ex["eps_lower"] <= ex["eps_tight_upper"] + 1e-9
    # Section 5's 'same privacy with less noise' is the CLT models' claim, not a comparison of true epsilons
    assert not any(k.endswith("_same_privacy") for k in rs)
    assert "same privacy guarantees" in rs["experiment.bu2020.fig4_top_clt"].extra["quote"]
    assert "moments-accountant model's certified value" in rs["experiment.bu2020.fig4_top_clt"].detail


def test_experiment_brackets_agree_with_prv_accountant() -> None:
    """symdp's own lower/upper ends against prv_accountant's (lower, estimate, upper) (an independent method)."""
    pytest.importorskip("prv_accountant")
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    from symdp.audit.experiments import EXPERIMENTS, P_MNIST, lower_bounds

    e = EXPERIMENTS[0][1]  # sigma~ = 1.06, 20 epochs
    T = e.steps(up=False)
    (lo, up), (d_lo, d_up) = lower_bounds(e.sigma, T, e.eps_printed)
    acc = PRVAccountant(prvs=PoissonSubsampledGaussianMechanism(noise_multiplier=e.sigma, sampling_probability=P_MNIST),
                        max_self_compositions=T, eps_error=0.01, delta_error=1e-10)
    p_lo, p_est, p_up = acc.compute_epsilon(delta=1e-5, num_self_compositions=T)
    q_lo, _, q_up = acc.compute_delta(epsilon=e.eps_printed, num_self_compositions=T)
    assert lo <= p_up and p_lo <= up  # the two brackets overlap
    assert lo <= p_est <= up
    assert d_lo <= q_up and q_lo <= d_up
    assert up - lo < 0.06  # the lower end is informative: within 0.06 of the upper (T h = 0.09)


def test_experiment_audit_runs_without_the_peers() -> None:
    """The audit of 003's experiments needs no peer library (they are test-only dependencies)."""
    code = (
        "import sys\n"
        "for m in ('prv_accountant', 'dp_accounting', 'opacus'): sys.modules[m] = None  # unimportable\n"
        "from symdp.audit.experiments import audit_experiments\n"
        "print(' '.join(r.verdict for r in audit_experiments()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["HOLDS", "FAILS", "HOLDS", "FAILS", "FAILS", "HOLDS"]  # MA, CLT (x2); Table 1 row 3


# ---------------------------------------------------------------------------
# second readings and the engine's wiring
# ---------------------------------------------------------------------------
@pytest.mark.slow
def test_second_reading_audited_beside_the_printed_entry() -> None:
    from symdp.audit.engine import audit_algorithms_for

    printed = AuditResult(id="he2021long.thm7_eps_tilde", kind="valid bound", title="t", source="s", statement="",
                          verdict="FAILS")
    out = {r.id: r for r in audit_algorithms_for(["he2021long.thm7_eps_tilde"], [printed])}
    rd = out["reading.he2021long.thm7_eps_tilde"]
    # the derivation's constant gives a valid per-step epsilon (exact Gaussian profile as the oracle)
    assert rd.verdict == "HOLDS" and rd.extra["quote"] and rd.extra["reading"]
    assert printed.extra["other_reading"] == rd.id and printed.extra["reading"] == "as printed"


def test_readings_refine_library_entries() -> None:
    from symdp.audit.readings import READINGS
    from symdp.library import get

    for r in READINGS:
        base = get(r.refines, with_evidence=False)
        assert r.theorem.id.startswith("reading.") and r.theorem.id != base.id
        assert r.theorem.rhs != base.rhs  # a different reading, not a copy
        assert r.quote and r.reading


@pytest.mark.slow
def test_quick_mode_adds_the_mechanism_level_result(monkeypatch: pytest.MonkeyPatch) -> None:
    import symdp.verify as verify
    from symdp.audit.engine import quick_from_ledger
    from symdp.library import get

    ths = [get(i, with_evidence=False) for i in ("he2021uai.thm7_eps", "he2021uai.thm7_delta")]
    fake = {th.id: {"hash": th.expr_hash(), "verdict": "REFUTED", "evidence": "ledger"} for th in ths}
    monkeypatch.setattr(verify, "load_ledger", lambda: fake)
    done, todo = quick_from_ledger(ths)
    assert not todo
    ids = [r.id for r in done]
    assert ids.count("algo.he2021uai.thm7_igmm") == 1
    generic = next(r for r in done if r.id == "he2021uai.thm7_delta")
    assert generic.extra["mechanism_claim"] == "algo.he2021uai.thm7_igmm" and generic.extra["severity"] == "major"
