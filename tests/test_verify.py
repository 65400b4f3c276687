"""The verification ladder: planted wrong bounds are REFUTED, true ones are not; certificates replay."""

from __future__ import annotations

import json

import mpmath
import pytest
import sympy as sp
from click.testing import CliRunner

from symdp.symbols import Delta, T, delta, delta_p, delta_t, eps, eps_p, sigma
from symdp.theorem import Evidence, Kind, Property, Source, Verdict, theorem
from symdp.verify import interval, smt, verify_theorem
from symdp.verify.ledger import load_ledger_file, replay, write_ledger
from symdp.verify.search import Box, find_counterexample

SRC = Source("test", "", "planted", "test")
D_KL = sp.Symbol("D_KL", nonnegative=True)
KL = eps * (sp.exp(eps) - 1) / (sp.exp(eps) + 1)


def _kl_bound(factor, id="planted.kl"):
    return theorem(id, "planted KL bound", Kind.BOUND, SRC, lhs=D_KL, rhs=factor * KL, hypotheses=[eps > 0],
                   domain={eps: (sp.Rational(1, 10**6), 20)}, premises=(Property("DP", (eps, sp.Integer(0))),),
                   oracle="kl_eps_dp")


def _basic_composition(halve: bool):
    d = T * delta / 2 if halve else T * delta
    return theorem("planted.basic_comp" + ("_half" if halve else ""), "basic composition", Kind.BOUND, SRC,
                   lhs=delta_p, rhs=d, hypotheses=[delta < 1],
                   domain={eps: (sp.Rational(1, 100), 2), delta: (sp.Rational(1, 10**8), sp.Rational(1, 100)), T: (1, 50)},
                   premises=(Property("DP", (eps, delta), "M_i"),), conclusion=Property("DP", (T * eps, d)),
                   oracle="optimal_composition")


def test_kl_lemma_proved_by_z3_and_replays(tmp_path):
    r = verify_theorem(_kl_bound(1))
    assert r.verdict is Verdict.PROVED and r.evidence.rung == "z3"
    assert r.evidence.certificate == "smt/planted.kl.smt2"
    write_ledger([r], full=True, root=tmp_path)
    rows = replay(tmp_path)
    assert rows and all(ok for _, ok, _ in rows), rows
    assert {p for p, _, _ in rows} >= {"smt/planted.kl.smt2", "smt/planted.kl.chord.smt2"}
    # tamper: make the certified claim false -> z3 finds a model, replay fails
    p = tmp_path / "smt" / "planted.kl.smt2"
    p.write_text(p.read_text().replace("(assert (not ", "(assert (not (not ", 1).replace("(check-sat)", ")\n(check-sat)"))
    assert not all(ok for _, ok, _ in replay(tmp_path))


def test_planted_kl_bound_times_09_is_refuted():
    r = verify_theorem(_kl_bound(sp.Rational(9, 10)))
    assert r.verdict in (Verdict.REFUTED, Verdict.PARTIAL)
    assert r.counterexample and mpmath.mpf(r.margin) < 0
    e = mpmath.mpf(r.counterexample["epsilon"])
    with mpmath.workdps(60):
        assert mpmath.mpf("0.9") * e * mpmath.tanh(e / 2) < e * mpmath.tanh(e / 2)
    # shrunk toward a round number
    assert len(f"{float(r.counterexample['epsilon']):.15g}".replace(".", "").split("e")[0].strip("0")) <= 2


def test_basic_composition_true_and_halved():
    good = verify_theorem(_basic_composition(False))
    assert good.verdict is Verdict.SUPPORTED, good.evidence
    bad = verify_theorem(_basic_composition(True))
    assert bad.verdict in (Verdict.REFUTED, Verdict.PARTIAL), bad.evidence
    assert mpmath.mpf(bad.actual) > mpmath.mpf(bad.claimed)


def test_advanced_composition_delta_halved_is_refuted():
    # Dwork-Roth-style: (eps', T delta + delta_t) with the tanh form of Kairouz et al.; halving delta' breaks it
    e_adv = sp.sqrt(2 * T * sp.log(1 / delta_t)) * eps + T * eps * sp.tanh(eps / 2)
    kw = dict(hypotheses=[delta < 1, delta_t < 1],
              domain={eps: (sp.Rational(1, 10), 1), delta: (sp.Rational(1, 10**3), sp.Rational(1, 100)),
                      delta_t: (sp.Rational(1, 10**6), sp.Rational(1, 100)), T: (1, 30)},
              premises=(Property("DP", (eps, delta), "M_i"),), oracle="optimal_composition")
    ok = theorem("planted.adv", "adv", Kind.BOUND, SRC, lhs=eps_p, rhs=e_adv, conclusion=Property("DP", (e_adv, 1 - (1 - delta) ** T * (1 - delta_t))), **kw)
    half = theorem("planted.adv_half", "adv/2", Kind.BOUND, SRC, lhs=eps_p, rhs=e_adv, conclusion=Property("DP", (e_adv, (1 - (1 - delta) ** T * (1 - delta_t)) / 2)), **kw)
    assert verify_theorem(ok).verdict is Verdict.SUPPORTED
    assert verify_theorem(half).verdict in (Verdict.REFUTED, Verdict.PARTIAL)


def test_gaussian_calibration_and_a_planted_half():
    rhs = sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta)) * Delta / eps
    kw = dict(hypotheses=[eps < 1, delta < 1], domain={eps: (sp.Rational(1, 100), sp.Rational(99, 100)), delta: (sp.Rational(1, 10**10), sp.Rational(1, 2)), Delta: (sp.Rational(1, 10), 10)},
              conclusion=Property("DP", (eps, delta)), oracle="gaussian_profile", relation=">=")
    good = theorem("planted.gauss", "Gaussian calibration", Kind.BOUND, SRC, lhs=sigma, rhs=rhs, **kw)
    bad = theorem("planted.gauss_half", "Gaussian calibration / 2", Kind.BOUND, SRC, lhs=sigma, rhs=rhs / 2, **kw)
    r = verify_theorem(good)  # proved against the oracle's exact closed form
    assert r.verdict is Verdict.PROVED and r.evidence.rung == "interval", r.attempts
    assert verify_theorem(bad).verdict in (Verdict.REFUTED, Verdict.PARTIAL)


def test_comparisons_direct():
    tight = eps * sp.tanh(eps / 2)
    kw = dict(hypotheses=[eps > 0], domain={eps: (sp.Rational(1, 100), 20)})
    true = theorem("planted.cmp", "tanh <= e-1", Kind.COMPARISON, SRC, lhs=tight, rhs=eps * (sp.exp(eps) - 1), **kw)
    false = theorem("planted.cmp_false", "e-1 <= tanh", Kind.COMPARISON, SRC, lhs=eps * (sp.exp(eps) - 1), rhs=tight, **kw)
    r = verify_theorem(true)
    assert r.verdict is Verdict.PROVED and r.evidence.rung in ("symbolic", "z3", "interval")
    f = verify_theorem(false)
    assert f.verdict is Verdict.REFUTED and f.counterexample


def test_interval_rung_certificate_and_tamper(tmp_path):
    x = sp.Symbol("x", positive=True)
    th = theorem("planted.erfc", "erfc(x) <= exp(-x^2)", Kind.COMPARISON, SRC, lhs=sp.erfc(x), rhs=sp.exp(-x**2),
                 hypotheses=[x > 0], domain={x: (sp.Rational(1, 10), 3)})
    r = verify_theorem(th)
    assert r.verdict is Verdict.PROVED and r.evidence.rung == "interval", r.attempts
    write_ledger([r], full=True, root=tmp_path)
    assert all(ok for _, ok, _ in replay(tmp_path))
    cert_path = tmp_path / r.evidence.certificate
    cert = json.loads(cert_path.read_text())
    ok, msg = interval.replay(cert)
    assert ok, msg
    # widen the box beyond what was certified: the recorded leaves no longer add up / a leaf fails
    cert["g"] = sp.srepr(sp.exp(-x**2) - sp.erfc(x) - sp.Rational(1, 1000))
    assert not interval.replay(cert)[0]


def test_identity_and_expansion_rungs():
    ident = theorem("planted.id", "tanh identity", Kind.IDENTITY, SRC, lhs=KL, rhs=eps * sp.tanh(eps / 2), domain={eps: (sp.Rational(1, 100), 5)})
    assert verify_theorem(ident).verdict is Verdict.PROVED
    wrong = theorem("planted.id_wrong", "wrong identity", Kind.IDENTITY, SRC, lhs=KL, rhs=eps * sp.tanh(eps / 3), domain={eps: (sp.Rational(1, 100), 5)})
    assert verify_theorem(wrong).verdict is Verdict.REFUTED
    from symdp.theorem import Expansion

    ex = theorem("planted.ex", "KL ~ eps^2/2", Kind.EXPANSION, SRC, lhs=KL, rhs=eps**2 / 2, expansion=Expansion(eps, 0, 4))
    assert verify_theorem(ex).verdict is Verdict.PROVED
    ex_bad = theorem("planted.ex_bad", "KL ~ eps^2/3", Kind.EXPANSION, SRC, lhs=KL, rhs=eps**2 / 3, expansion=Expansion(eps, 0, 3))
    assert verify_theorem(ex_bad).verdict is Verdict.REFUTED


def test_unhandled_entries_are_unchecked_not_crashes():
    eq = theorem("planted.eq", "a statement", Kind.EQUIVALENCE, SRC, notes="x")
    assert verify_theorem(eq).verdict is Verdict.UNCHECKED
    na = theorem("planted.na", "lost", Kind.BOUND, SRC, formula_available=False, unavailable_reason="formula lost")
    r = verify_theorem(na)
    assert r.verdict is Verdict.UNCHECKED and "formula lost" in r.evidence.detail
    bogus = theorem("planted.bogus", "bogus oracle", Kind.BOUND, SRC, lhs=D_KL, rhs=KL, oracle="no_such_oracle")
    assert verify_theorem(bogus).verdict is Verdict.UNCHECKED
    weird = theorem("planted.weird", "unknown function", Kind.COMPARISON, SRC, lhs=sp.Function("mystery")(eps), rhs=eps, domain={eps: (1, 2)})
    assert verify_theorem(weird).verdict is Verdict.UNCHECKED


def test_find_counterexample_generic_and_shrink():
    box = Box({"x": (0.0, 10.0)})
    r = find_counterexample(lambda p: p["x"] ** 2, lambda p: 3 * p["x"], box, relation="<=", n=60, seed=1)  # 3x <= x^2 fails on (0, 3)
    assert r.counterexample is not None and r.confirmed and r.confirm_dps >= 50
    xv = float(r.counterexample["x"])
    assert 0 < xv < 3 and r.counterexample["x"] in ("1", "2", "0.5")
    ok = find_counterexample(lambda p: p["x"] ** 2 + 1, lambda p: 2 * p["x"], box, relation="<=", n=60)
    assert ok.counterexample is None and ok.cases > 60


def test_smt_is_sound_on_a_false_claim():
    e = sp.Symbol("epsilon", positive=True)
    assert smt.prove(e * (sp.exp(e) - 1), "<=", e * sp.tanh(e / 2), []).status == "sat"
    assert smt.prove(e * sp.tanh(e / 2), "<=", e * (sp.exp(e) - 1), []).status == "unsat"



def test_z3_resource_limit_decides_not_the_clock():
    """z3 gives up on the deterministic resource limit (the same at every load), long before the wall-clock backstop;
    the largest proof of the library stays well inside it (calibration of Z3_RLIMIT)."""
    import time

    from symdp.library import get

    th = get("he2021long.b5_tightness", with_evidence=False)  # z3 never decides this one (10 s wall-clock before)
    t0 = time.monotonic()
    r = smt.prove(th.lhs, th.relation, th.rhs, th.hypotheses, timeout_s=120)
    assert r.status == "unknown" and time.monotonic() - t0 < 60
    used = smt.rlimit_count(r.output)
    assert used is not None and smt.Z3_RLIMIT <= used < 1.1 * smt.Z3_RLIMIT
    # the most expensive certificate of proofs/ needs 32,380: a 6x margin
    from pathlib import Path

    cert = Path(__file__).resolve().parents[1] / "proofs" / "smt" / "he2021uai.cmp_lemma1_small_conflicts_thm3.smt2"
    status, out = smt.run_z3_file(cert, 60)
    assert status == "unsat" and (smt.rlimit_count(out) or 0) * 5 < smt.Z3_RLIMIT

def test_ledger_roundtrip_and_evidence_for(tmp_path, monkeypatch):
    r = verify_theorem(_kl_bound(sp.Rational(9, 10), id="planted.kl09"))
    write_ledger([r], full=True, root=tmp_path)
    led = load_ledger_file(tmp_path)
    e = led["planted.kl09"]
    assert {"id", "verdict", "rung", "evidence", "hash", "certificate", "counterexample", "claimed", "actual", "margin", "cases", "box", "region"} <= set(e)
    assert (tmp_path / "LEDGER.md").read_text().count("planted.kl09") == 1
    from symdp import ledger_json as ledger  # the ledger's reading lives below verify

    monkeypatch.setattr(ledger, "proofs_dir", lambda: tmp_path)
    ledger.load_ledger.cache_clear()
    try:
        ev = ledger.evidence_for(_kl_bound(sp.Rational(9, 10), id="planted.kl09"))
        assert isinstance(ev, Evidence) and ev.verdict.value == e["verdict"]
        assert ledger.evidence_for(_kl_bound(sp.Rational(8, 10), id="planted.kl09")) is None  # stale hash
    finally:
        ledger.load_ledger.cache_clear()


def test_cli_verify_json_no_write():
    from symdp.cli import main

    res = CliRunner().invoke(main, ["verify", "he2021.lemma_kl", "--no-write", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["entries"][0]["id"] == "he2021.lemma_kl" and data["entries"][0]["verdict"] == "PROVED"
    bad = CliRunner().invoke(main, ["verify", "he2021.lemma_k", "--no-write"])
    assert bad.exit_code == 2


def test_partial_region_is_located():
    # KL <= eps/2 holds exactly when tanh(eps/2) <= 1/2, i.e. eps <= 2 atanh(1/2) = log 3
    th = theorem("planted.kl_half", "KL <= eps/2", Kind.BOUND, SRC, lhs=D_KL, rhs=eps / 2, hypotheses=[eps > 0],
                 domain={eps: (sp.Rational(1, 100), 10)}, oracle="kl_eps_dp")
    r = verify_theorem(th)
    assert r.verdict is Verdict.PARTIAL, r.evidence
    thr = float(r.region.split("epsilon <= ")[1].split()[0])
    assert abs(thr - float(mpmath.log(3))) < 1e-4


# ---------------------------------------------------------------- the real library (fast subset)

FAST_SUBSET = {
    "he2021.lemma_kl": {Verdict.PROVED},
    "classical.dwork2010_kl": {Verdict.PROVED},
    "bu2020.delta_of_eps_gdp": {Verdict.PROVED},  # equals the oracle's exact closed form (SymPy identity)
    "classical.gaussian_mechanism_calibration": {Verdict.PROVED},  # interval certificate against the closed form
    "classical.dwork_roth_advanced_composition_delta": {Verdict.SUPPORTED},
}


@pytest.mark.parametrize("id", sorted(FAST_SUBSET))
def test_library_fast_subset(id):
    from symdp.library import get

    try:
        th = get(id, with_evidence=False)
    except KeyError:
        pytest.skip(f"{id} not in the library")
    r = verify_theorem(th)
    assert r.verdict in FAST_SUBSET[id], (r.evidence, r.attempts)
    if r.verdict is Verdict.PROVED and r.evidence.rung != "symbolic":
        assert r.evidence.certificate and r.artifacts


def test_saved_certificates_replay():
    from symdp.verify.ledger import proofs_dir

    if not (proofs_dir() / "ledger.json").exists():
        pytest.skip("proofs/ not populated (run `symdp verify`)")
    rows = replay()
    bad = [r for r in rows if not r[1]]
    assert rows and not bad, bad


@pytest.mark.slow
def test_every_library_entry_gets_a_verdict():
    from symdp.library import all_theorems

    for th in all_theorems(with_evidence=False):
        r = verify_theorem(th)
        assert r.verdict in set(Verdict), th.id
        assert r.hash == th.expr_hash()
