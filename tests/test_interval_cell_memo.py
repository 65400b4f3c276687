"""The interval rung's branch-and-bound decides each cell once and shares a cell's enclosures between the goal, its
mean-value form and the hypotheses (issue 25, session 35): the same balls, the same search.

* ``certify`` on the real input of the audit's dearest interval search (reading.he2021long.thm7_eps_tilde: 2,005
  evaluations, 1,516 distinct cells) gives the fingerprint the code before the change gave: the reason, the
  counts, and a hash of every distinct cell's goal enclosure (midpoint and radius, exact);
* ``goal_enclosure`` with one memo for the cell equals, bit for bit, the former one (fresh memos for the natural
  extension, the smoothness checks and each derivative), transcribed here, on cells of that search;
* a hypothesis enclosed through the shared memo equals the one enclosed alone.
"""

from __future__ import annotations

import hashlib
import json

import sympy as sp
from flint import arb, ctx

from symdp.verify import interval as iv
from symdp.verify import interval_arith as ia


def _bits(a: arb | None) -> str | None:
    if a is None:
        return None
    return repr((a.mid().man_exp(), a.rad().man_exp())) if a.is_finite() else repr(a)


def _old_goal_enclosure(g, dg, cell, good):
    """goal_enclosure as it was before session 35 (no memo shared between the natural extension and the rest)."""
    env = {s: ia._ball(*cell[s]) for s in cell}
    try:
        v = ia.enclose(g, env)
    except (ValueError, ZeroDivisionError):
        v = None
    if v is not None and v.is_finite() and good(v):
        return v
    if not dg:
        return v
    try:
        mid = {s: (lo + hi) / 2 for s, (lo, hi) in cell.items()}
        acc = ia.enclose(g, {s: ia._parse_num(m) for s, m in mid.items()})
        memo: dict = {}
        if not ia.smooth_on(g, env, memo):
            return v
        for s, (lo, hi) in cell.items():
            if lo == hi or s not in dg:
                continue
            d = ia.enclose(dg[s], env, memo)
            if not d.is_finite():
                return v
            acc = acc + d * ia._ball(lo - mid[s], hi - mid[s])
    except (ValueError, ZeroDivisionError, ia.NotEnclosable):
        return v
    if not acc.is_finite():
        return v
    if v is None or not v.is_finite():
        return acc
    w = v.intersection(acc)
    return w if w.is_finite() else acc


def _capture(monkeypatch):
    """Run the reading's audit with certify and goal_enclosure recorded: the certify arguments and results, and
    each distinct cell's goal enclosure."""
    calls: list = []
    cells: dict[str, str | None] = {}
    orig_certify, orig_goal = iv.certify, iv.goal_enclosure

    def goal(g, dg, cell, good, *a, **k):
        v = orig_goal(g, dg, cell, good, *a, **k)
        key = repr(sorted((s.name, str(lo), str(hi)) for s, (lo, hi) in cell.items()))
        assert cells.setdefault(key, _bits(v)) == _bits(v)  # a cell decided twice gets the same ball
        return v

    def cap(g, box, **kw):
        cells.clear()
        r = orig_certify(g, box, **kw)
        calls.append((g, box, kw, r, dict(cells)))
        return r

    monkeypatch.setattr(iv, "goal_enclosure", goal)
    monkeypatch.setattr(iv, "certify", cap)
    from symdp.audit.parallel import _run_one

    out = _run_one(("reading", "reading.he2021long.thm7_eps_tilde", False, 0, False))
    assert [r["verdict"] for r in out["results"]] == ["HOLDS"]
    return calls


def test_certify_on_the_audits_input_is_the_former_search(monkeypatch) -> None:
    calls = _capture(monkeypatch)
    assert len(calls) == 1
    g, box, kw, r, cells = calls[0]
    fp = hashlib.sha256(json.dumps(sorted(cells.items())).encode()).hexdigest()[:16]
    # measured with the code before the change (main at 30996d6)
    assert (r.ok, r.reason, r.leaves, r.evals, r.outside, len(cells)) == (
        False, "budget exhausted after 234 leaves, 2005 evaluations", 234, 2005, 0, 1516)
    assert fp == "e74b44121e02e6d0"

    # the shared memo against the former goal enclosure, and the hypotheses through it, on cells of this search
    syms = sorted(box, key=lambda s: s.name)
    hs, _ = iv.normalize_hyps(kw.get("hyps", ()))
    dg = ia.derivatives(g, syms)
    strict = kw.get("strict", False)

    def good(v):
        return v is not None and v.is_finite() and bool((v > 0) if strict else (v >= 0))

    rbox = {s: (ia.rat(box[s][0]), ia.rat(box[s][1])) for s in syms}
    old = ctx.prec
    ctx.prec = ia.PREC
    try:
        todo, checked, mean_value = [rbox], 0, 0
        while todo and checked < 60:
            cell = todo.pop(0)
            memo: dict = {}
            new = ia.goal_enclosure(g, dg, cell, good, memo)
            assert _bits(new) == _bits(_old_goal_enclosure(g, dg, cell, good))
            mean_value += len(memo) > 0 and not good(ia.enclose(g, {s: ia._ball(*cell[s]) for s in syms}))
            env = {s: ia._ball(*cell[s]) for s in syms}
            for h in hs:
                a, b = h.status(env, memo), h.status(env)
                assert (a[0], _bits(a[1])) == (b[0], _bits(b[1]))
            checked += 1
            s = syms[checked % len(syms)]
            m = iv._split(cell[s][0], cell[s][1])
            todo += list(iv._children(cell, s, m, False))
        assert checked == 60 and mean_value > 0  # the mean-value path (the shared memo's reuse) was taken
    finally:
        ctx.prec = old


def test_a_memo_is_keyed_by_expression_not_object() -> None:
    """Equal subexpressions that are distinct objects share one memo entry (as the SymPy keys did), and an enclosure
    through a memo filled by another expression is the one computed alone."""
    x, y = sp.symbols("x y", positive=True)
    a = sp.log(1 + x * y) + sp.exp(-x)
    b = sp.Add(sp.log(sp.Add(1, sp.Mul(x, y))), sp.exp(-x), evaluate=False) * (1 + y)
    env = {x: ia._ball(sp.Rational(1, 3), sp.Rational(2)), y: ia._ball(sp.Rational(1, 10), sp.Rational(5))}
    memo: dict = {}
    va = ia.enclose(a, env, memo)
    n = len(memo)
    vb = ia.enclose(b, env, memo)
    assert len(memo) < 2 * n  # b's copy of a was found in the memo
    assert _bits(vb) == _bits(ia.enclose(b, env)) and _bits(va) == _bits(ia.enclose(a, env))
