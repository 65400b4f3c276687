"""Interval rung: hypothesis-aware branch-and-bound, integer cells, ceiling/floor, certificates that replay."""

from __future__ import annotations

import copy
import json

import sympy as sp
from flint import arb

from symdp.theorem import Kind, Source, Verdict, theorem
from symdp.verify import interval, verify_theorem
from symdp.verify.ledger import replay as replay_dir
from symdp.verify.ledger import write_ledger

SRC = Source("test", "", "planted", "test")
x = sp.Symbol("x", real=True)
y = sp.Symbol("y", positive=True)
n = sp.Symbol("n", integer=True, positive=True)


def _leaves(tree):
    if "split" in tree:
        for c in tree["children"]:
            yield from _leaves(c)
    else:
        yield tree


def _cert(g, res, strict=False):
    return interval.certificate("t", "h", g, res, strict=strict, claim="test")


def test_hypothesis_constrained_inequality_is_certified_and_replays():
    # 1 - x*y >= 0 is false on the box, true where the hypothesis x*y <= 1/2 holds
    g = 1 - x * y
    r = interval.certify(g, {x: ("0", "4"), y: ("1/10", "4")}, hyps=[x * y <= sp.Rational(1, 2)], time_limit=4)
    assert r.ok, r.reason
    assert r.outside > 0 and r.leaves > r.outside
    cert = _cert(g, r)
    assert cert["hypotheses"] and cert["outside_leaves"] == r.outside
    ok, msg = interval.replay(json.loads(interval.dump(cert)))
    assert ok, msg
    # without the hypothesis the same claim is not certified (a counterexample point is found)
    bad = interval.certify(g, {x: ("0", "4"), y: ("1/10", "4")}, time_limit=4)
    assert not bad.ok and bad.counterexample


def test_false_claim_is_not_certified():
    # sin-free false claim: x^2 - 2 >= 0 fails near 0, also under a hypothesis that keeps part of the box
    r = interval.certify(x**2 - 2, {x: ("-3", "3")}, hyps=[x > -1], time_limit=4)
    assert not r.ok and r.tree is None
    assert r.counterexample is not None and -1 < float(sp.Rational(r.counterexample["x"])) ** 1 < 1.5
    # a claim excluded everywhere by its hypotheses certifies nothing
    r2 = interval.certify(-x, {x: ("1", "2")}, hyps=[x < 0], time_limit=4)
    assert not r2.ok and "exclude the whole box" in r2.reason


def test_tampered_certificate_fails_replay():
    g = 1 - x * y
    r = interval.certify(g, {x: ("0", "4"), y: ("1/10", "4")}, hyps=[x * y <= sp.Rational(1, 2)], time_limit=4)
    cert = _cert(g, r)
    assert interval.replay(cert)[0]
    # a stronger goal than certified
    t1 = copy.deepcopy(cert)
    t1["g"] = sp.srepr(sp.Rational(1, 2) - x * y - sp.Rational(1, 10))
    assert not interval.replay(t1)[0]
    # a wider box than certified: the recorded leaves no longer cover it / a leaf fails
    t2 = copy.deepcopy(cert)
    t2["box"]["y"] = ["1/10", "5"]
    assert not interval.replay(t2)[0]
    # a dropped leaf
    t3 = copy.deepcopy(cert)
    t3["leaves"] -= 1
    assert not interval.replay(t3)[0]
    # a split point outside its cell
    t4 = copy.deepcopy(cert)
    t4["tree"]["split"][1] = "100"
    assert not interval.replay(t4)[0]


def test_outside_leaves_are_rechecked_on_replay():
    g = 1 - x * y
    r = interval.certify(g, {x: ("0", "4"), y: ("1/10", "4")}, hyps=[x * y <= sp.Rational(1, 2)], time_limit=4)
    cert = _cert(g, r)
    # weaken the hypothesis: the recorded outside leaves are no longer outside it
    t1 = copy.deepcopy(cert)
    t1["hypotheses"][0]["d"] = sp.srepr(sp.Integer(20) - x * y)
    ok, msg = interval.replay(t1)
    assert not ok and "not certainly false" in msg
    # turn a goal leaf into an "outside" leaf: the hypothesis is not false there
    t2 = copy.deepcopy(cert)
    for leaf in _leaves(t2["tree"]):
        if "out" not in leaf:
            leaf["out"] = 0
            break
    t2["outside_leaves"] += 1
    assert not interval.replay(t2)[0]
    # an outside leaf naming a hypothesis that does not exist
    t3 = copy.deepcopy(cert)
    for leaf in _leaves(t3["tree"]):
        if "out" in leaf:
            leaf["out"] = 7
            break
    assert not interval.replay(t3)[0]


def test_ceiling_floor_and_integer_cells():
    c = interval._round_ball(arb("1.5").union(arb("2.5")), up=True)
    assert c.contains(2) and c.contains(3) and not c.contains(1) and not c.contains(4)
    f = interval._round_ball(arb(3), up=False)
    assert f.contains(3) and f.is_exact()
    # ceiling(n/2) >= n/2 over the integers 1..200 (split on integers; replay checks the integer splits)
    g = sp.ceiling(n / 2) - n / 2
    r = interval.certify(g, {n: (1, 200)}, time_limit=4)
    assert r.ok and r.integers == ["n"], r.reason
    cert = _cert(g, r)
    assert interval.replay(cert)[0]
    # an integer split on a real symbol would leave a gap: refused
    g2 = 1 + x**2
    r2 = interval.certify(g2, {x: ("0", "3")}, time_limit=4)
    cert2 = _cert(g2, r2)
    cert2["tree"] = {"split": ["x", "1", "int"], "children": [{"enc": ["1", "2"]}, {"enc": ["4", "10"]}]}
    cert2["leaves"] = 2
    assert not interval.replay(cert2)[0]
    # n - 1/2 >= 0 over the integers but not over the reals in [0.2, 5]: integer cells certify it
    r3 = interval.certify(n - sp.Rational(1, 2), {n: ("1/5", "5")}, time_limit=4)
    assert r3.ok and r3.box["n"] == ["1", "5"]


def test_mean_value_form_is_rechecked_on_replay():
    # (1 + y)^40 exp(-40 y) - 1/10^30 > 0: dependency-heavy (the factors grow/shrink like e^{+-120})
    g = (1 + y) ** 40 * sp.exp(-40 * y) - sp.Rational(1, 10**30)
    r = interval.certify(g, {y: ("1/10", "3")}, strict=True, time_limit=4)
    assert r.ok and r.mean_value
    cert = _cert(g, r, strict=True)
    assert cert["mean_value_form"] and interval.replay(cert)[0]
    # the replay recomputes the derivatives: a certificate claiming the mean-value form for a goal with a
    # non-smooth function gets no mean-value tightening
    assert interval.derivatives(sp.ceiling(y) - y, [y]) is None


def test_engine_states_the_box_and_replays(tmp_path):
    # a comparison whose hypothesis cuts its box: proved by the interval rung, evidence names the box
    a = sp.Symbol("a", positive=True)
    b = sp.Symbol("b", positive=True)
    th = theorem("planted.ivhyp", "erfc(a) <= exp(-a^2) where a <= b", Kind.COMPARISON, SRC,
                 lhs=sp.erfc(a) * b, rhs=sp.exp(-a**2) * b, hypotheses=[a < b],
                 domain={a: (sp.Rational(1, 10), 3), b: (sp.Rational(1, 10), 2)})
    r = verify_theorem(th)
    assert r.verdict is Verdict.PROVED and r.evidence.rung == "interval", r.attempts
    assert r.evidence.detail.startswith("PROVED on box a in [1/10, 3], b in [1/10, 2]")
    write_ledger([r], full=True, root=tmp_path)
    rows = replay_dir(tmp_path)
    assert rows and all(ok for _, ok, _ in rows), rows


def test_oracle_closed_form_entry_is_proved_by_interval_and_replays(tmp_path):
    # sigma >= sqrt(2 log(1.25/delta)) Delta/eps  =>  (eps, delta)-DP, against the exact Gaussian profile
    from symdp.library import get

    th = get("classical.gaussian_mechanism_calibration", with_evidence=False)
    r = verify_theorem(th)
    assert r.verdict is Verdict.PROVED and r.evidence.rung == "interval", r.attempts
    assert r.evidence.detail.startswith("PROVED on box delta in [1/1000000000000, 1/2], epsilon in [1/100, 99/100]")
    assert "nothing is claimed outside this box" in r.evidence.detail and "gaussian_profile" in r.evidence.detail
    cert = json.loads(r.artifacts[r.evidence.certificate])
    assert "erfc" in cert["g_text"] and cert["box"] == {"delta": ["1/1000000000000", "1/2"], "epsilon": ["1/100", "99/100"]}
    assert interval.replay(cert)[0]
    write_ledger([r], full=True, root=tmp_path)
    rows = replay_dir(tmp_path)
    assert rows and all(ok for _, ok, _ in rows), rows


def test_a_wrong_closed_form_is_not_used(monkeypatch):
    # the engine re-checks an oracle's closed form against the oracle itself before proving anything with it
    import dataclasses

    from symdp.library import get
    from symdp.verify import oracles

    good = oracles.ORACLES["gaussian_profile"]
    bad = dataclasses.replace(good, exact=lambda *, at, **kw: oracles.gaussian_profile_exact(at=at, **kw) / 100)
    monkeypatch.setitem(oracles.ORACLES, "gaussian_profile", bad)
    r = verify_theorem(get("classical.gaussian_mechanism_calibration", with_evidence=False))
    assert r.verdict is Verdict.SUPPORTED, r.evidence.detail
    assert any("disagrees with the oracle" in a for a in r.attempts), r.attempts


def test_tight_oracle_bound_is_proved_by_identity_with_the_closed_form():
    from symdp.library import get

    r = verify_theorem(get("bu2020.delta_of_eps_gdp", with_evidence=False))
    assert r.verdict is Verdict.PROVED and r.evidence.rung == "symbolic", r.attempts
    assert "holds with equality" in r.evidence.detail


def test_exact_equality_refutes_a_strict_claim_only():
    # log((1+x)^2) < (n+1) log(1+x) for integers n >= 1: equality at n = 1 (the two sides are different
    # expressions, equal only in exact arithmetic, so the floating search sees no violation)
    nn = sp.Symbol("n", integer=True, positive=True)
    lhs, rhs = sp.log((1 + y) ** 2), (nn + 1) * sp.log(1 + y)
    dom = {y: (sp.Rational(1, 10), 3), nn: (1, 50)}
    strict = theorem("planted.strict_eq", "strict with equality at n = 1", Kind.COMPARISON, SRC,
                     lhs=lhs, relation="<", rhs=rhs, domain=dom)
    r = verify_theorem(strict)
    assert r.verdict is Verdict.REFUTED, (r.evidence.detail, r.attempts)
    assert r.counterexample["n"] == "1" and r.margin == "0"
    assert "equality, so the strict inequality" in r.evidence.detail
    loose = theorem("planted.loose_eq", "the same claim, non-strict", Kind.COMPARISON, SRC,
                    lhs=lhs, relation="<=", rhs=rhs, domain=dom)
    r2 = verify_theorem(loose)
    assert r2.verdict is not Verdict.REFUTED, r2.evidence.detail
    # a strict claim whose sides are merely close is not refuted by the check
    close = theorem("planted.strict_close", "strict, sides differ by 1e-40", Kind.COMPARISON, SRC,
                    lhs=lhs, relation="<", rhs=rhs + sp.Rational(1, 10**40) * y, domain=dom)
    r3 = verify_theorem(close)
    assert r3.verdict is not Verdict.REFUTED, r3.evidence.detail


def test_evaluation_budget_decides_not_the_clock():
    """The search gives up after ``max_evals`` cell evaluations (the same at every load), not on the wall clock;
    a certificate within the budget is unchanged by it."""
    hard = x**2 - 2 * x + 1  # (x - 1)^2 >= 0: true, but every cell around x = 1 encloses negative values
    r = interval.certify(hard, {x: ("0", "2")}, time_limit=1000, max_evals=50)
    assert not r.ok and r.reason.startswith("budget exhausted") and f"{r.evals} evaluations" in r.reason
    assert 50 < r.evals <= 50 + 2 and r.seconds < 60
    again = interval.certify(hard, {x: ("0", "2")}, time_limit=1000, max_evals=50)
    assert (again.leaves, again.evals) == (r.leaves, r.evals)
    assert interval.certify(hard, {x: ("0", "2")}, time_limit=1000, max_leaves=100).evals <= 100 // 2 + 2  # the default
    g = 1 - x * y
    ok = interval.certify(g, {x: ("0", "4"), y: ("1/10", "4")}, hyps=[x * y <= sp.Rational(1, 2)], time_limit=1000)
    assert ok.ok and ok.evals <= 4000 // 2
    tight = interval.certify(g, {x: ("0", "4"), y: ("1/10", "4")}, hyps=[x * y <= sp.Rational(1, 2)], time_limit=1000,
                             max_evals=ok.evals)
    assert tight.ok and tight.tree == ok.tree


def test_compiled_enclosure_is_the_node_by_node_walk():
    """enclose() compiles an expression once; the ball it returns is the one a direct walk of the tree (the same arb
    operations) gives, bit for bit, and it contains the mpmath value at a point."""
    import mpmath

    from symdp.verify.interval_arith import _ball, enclose

    def walk(e, env):
        if isinstance(e, sp.Symbol):
            return env[e]
        if e.is_Number:
            return arb(int(e.p)) / arb(int(e.q))
        if isinstance(e, sp.Add):
            acc = arb(0)
            for a in e.args:
                acc = acc + walk(a, env)
            return acc
        if isinstance(e, sp.Mul):
            acc = arb(1)
            for a in e.args:
                acc = acc * walk(a, env)
            return acc
        if isinstance(e, sp.Pow):
            b, k = walk(e.args[0], env), e.args[1]
            if k.is_Integer:
                return b ** int(k) if k >= 0 else 1 / (b ** int(-k))
            if k == sp.Rational(1, 2):
                return b.sqrt()
            return (walk(k, env) * b.log()).exp()
        return getattr(walk(e.args[0], env), type(e).__name__)()

    def bits(a):
        return (a.mid().man_exp(), a.rad().man_exp()) if a.is_finite() else repr(a)

    g = (sp.erfc(x * y / 3 - 1) * sp.exp(-y**2 / 2) + sp.log(1 + y) * sp.sqrt(y + x**2) - (y + 1) ** sp.Rational(3, 2)
         + sp.tanh(x) / (1 + x**2) - sp.erfc(x * y / 3 - 1) ** 2)
    cells = ({x: ("-1/3", "2"), y: ("1/10", "7/2")}, {x: ("5/4", "5/4"), y: ("2", "2")}, {x: ("-3", "-1"), y: ("1/2", "9")},
             {x: ("1/2", "3/4"), y: ("1", "5/4")})
    finite = 0
    for cell in cells:
        env = {s: _ball(sp.Rational(lo), sp.Rational(hi)) for s, (lo, hi) in cell.items()}
        got, ref = enclose(g, env), walk(g, env)
        assert bits(got) == bits(ref)
        finite += got.is_finite() and got.rad() > 0
        with mpmath.workdps(30):
            pt = {s: mpmath.mpf(sp.Rational(lo).p) / sp.Rational(lo).q for s, (lo, _) in cell.items()}
            val = sp.lambdify((x, y), g, "mpmath")(pt[x], pt[y])
        point = enclose(g, {s: _ball(sp.Rational(lo), sp.Rational(lo)) for s, (lo, _) in cell.items()})
        assert point.is_finite() and point.rad() < 1e-10 and point.overlaps(arb(mpmath.nstr(val, 25), 1e-20))
    assert finite >= 2  # wide cells compared bit for bit, not only points and nan
