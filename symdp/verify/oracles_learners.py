r"""Generalization bounds for every (eps, delta)-DP learner, checked on finite DP learners (issue 23, item 3).

A theorem "every (eps, delta)-DP algorithm A satisfies P(|Gen| > a) < b" (or a bound on E Gen of a
multi-sample-set algorithm B: Z^{k x N} -> H x {1..k}) holds in particular for each concrete DP learner
on each data distribution.  Here the learners are finite and every probability is an exact finite sum:

* data domain {0, 1}, ``z ~ Bernoulli(p)``; 2-4 hypotheses with losses ``l(h, z)`` in [0, 1] (random, plus
  the extreme 0/1 losses); a data set of N examples enters only through its count ``c`` of ones, so
  ``R_S(h) = (c l(h, 1) + (N - c) l(h, 0)) / N``, ``R(h) = p l(h, 1) + (1 - p) l(h, 0)`` and
  ``c ~ Binomial(N, p)``;
* the learner is the exponential mechanism with score ``s N R_S(h)`` (s = +1 favours hypotheses whose
  empirical risk is too high, s = -1 too low; sensitivity 1 under replacing one example, run at eps/2,
  so eps-DP), mixed with probability delta with the deterministic most-overfitting choice
  (``(1 - delta) M + delta M'`` is (eps, delta)-DP for an eps-DP M and any M');
* a multi-sample-set B (k = 1-3 sets of N = 1-10 examples) is the same mechanism over the pairs
  ``(h, i)`` with score ``s N R_{S_i}(h)`` (one example changes one set's scores by at most 1).

With ``Gen = R_S(h) - R(h)`` the probability of the claim's event (or E Gen) is summed over all counts
in float64; a violation is re-computed in mpmath at 40 digits before it refutes (a finite learner that
has the premise and violates the conclusion is a counterexample).  Without one the verdict is SUPPORTED
on the stated family, never PROVED: other learners and distributions could be worse.  Points where a
theorem's hypotheses (sample-size conditions included) fail are never used; N is the smallest size the
hypotheses allow times 1, 2 or 10, capped at 200,000 (eps is drawn from the part of the entry's box where
that fits).

>>> from symdp.library import get
>>> from symdp.verify import verify_theorem
>>> verify_theorem(get("classical.oneto2017_empirical_risk_failure", with_evidence=False)).verdict.value
'SUPPORTED'
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ..theorem import Evidence, Verdict
from .registry import Oracle, assign, register

N_CAP = 200_000


def _compile(expr: sp.Basic) -> Callable:
    from .compile import compile_expr

    return compile_expr(expr)


# --- one finite instance -----------------------------------------------------------------------------------
def _instance(rng: random.Random) -> tuple[float, list[tuple[float, float]]]:
    """(p, losses [(l(h, 0), l(h, 1))]): 2-4 hypotheses, half of them 0/1-valued."""
    p = rng.choice((0.5, rng.uniform(0.05, 0.95)))
    nh = rng.choice((2, 3, 4))
    L = []
    for j in range(nh):
        if j < 2:
            L.append((float(j), 1.0 - j))  # predicts 0 / predicts 1 under the 0-1 loss
        else:
            L.append((rng.random(), rng.random()))
    return p, L


#: ``math.lgamma(x + 1)`` for x = 0, 1, ... as far as a call of :func:`_binom_pmf` has needed (extended in place; the
#: same values the per-call list computed, so the same bits)
_LGAMMA1: list[float] = []


def _lgamma1_table(N: int) -> np.ndarray:
    """``[lgamma(1), ..., lgamma(N + 1)]`` (float64), from :data:`_LGAMMA1`."""
    if len(_LGAMMA1) <= N:
        _LGAMMA1.extend(math.lgamma(x + 1) for x in range(len(_LGAMMA1), N + 1))
    return np.array(_LGAMMA1[: N + 1])


def _binom_pmf(N: int, p: float) -> np.ndarray:
    c = np.arange(N + 1, dtype=float)
    lg = _lgamma1_table(N)
    logpmf = lg[N] - lg - lg[::-1] + c * math.log(p) + (N - c) * math.log1p(-p)
    return np.exp(logpmf)


def _em(scores: np.ndarray, eps: float) -> np.ndarray:
    """Exponential mechanism at eps/2 over the last axis (scores of sensitivity 1)."""
    x = scores * (eps / 2)
    x = x - x.max(axis=-1, keepdims=True)
    w = np.exp(x)
    return w / w.sum(axis=-1, keepdims=True)


def _learner(N: int, L: list[tuple[float, float]], eps: float, delta: float, s: int) -> np.ndarray:
    """P(h | c) of the mixed learner, shape (N + 1, |H|)."""
    c = np.arange(N + 1, dtype=float)[:, None]
    l0, l1 = np.array([x[0] for x in L]), np.array([x[1] for x in L])
    emp = (c * l1 + (N - c) * l0) / N
    P = _em(s * N * emp, eps)
    if delta > 0:
        top = np.zeros_like(P)
        top[np.arange(N + 1), np.argmax(s * emp, axis=1)] = 1.0
        P = (1 - delta) * P + delta * top
    return P


def _gaps(N: int, p: float, L: list[tuple[float, float]]) -> np.ndarray:
    c = np.arange(N + 1, dtype=float)[:, None]
    l0, l1 = np.array([x[0] for x in L]), np.array([x[1] for x in L])
    return (c * l1 + (N - c) * l0) / N - (p * l1 + (1 - p) * l0)


def _event_prob_mp(N: int, p: float, L: list[tuple[float, float]], eps: float, delta: float, s: int,
                   event: Callable[[Any, Any, Any], bool]) -> mpmath.mpf:
    """The same probability in mpmath (ambient precision), summed over the counts whose float64 binomial weight is above
    1e-40 of the largest: every term is >= 0, so this is a lower bound of the probability (what a refutation needs)."""
    pp = mpmath.mpf(p)
    tot = mpmath.mpf(0)
    w64 = _binom_pmf(N, p)
    for c in np.nonzero(w64 >= 1e-40 * w64.max())[0].tolist():
        pmf = mpmath.binomial(N, c) * pp**c * (1 - pp) ** (N - c)
        emp = [(c * mpmath.mpf(a1) + (N - c) * mpmath.mpf(a0)) / N for a0, a1 in L]
        tru = [pp * mpmath.mpf(a1) + (1 - pp) * mpmath.mpf(a0) for a0, a1 in L]
        sc = [s * N * e * mpmath.mpf(eps) / 2 for e in emp]
        top = max(sc)
        w = [mpmath.exp(x - top) for x in sc]
        z = mpmath.fsum(w)
        ph = [(1 - mpmath.mpf(delta)) * x / z for x in w]
        j = max(range(len(L)), key=lambda i: s * emp[i])
        ph[j] += mpmath.mpf(delta)
        tot += pmf * mpmath.fsum(q for q, e, t in zip(ph, emp, tru) if event(e - t, e, c))
    return tot


# --- sampling points where the hypotheses hold ----------------------------------------------------------------
def _n_conditions(th) -> list[sp.Expr]:
    """Right-hand sides of hypotheses ``N >= expr`` (the sample-size conditions)."""
    out = []
    for h in th.hypotheses:
        if isinstance(h, (sp.GreaterThan, sp.StrictGreaterThan)) and isinstance(h.lhs, sp.Symbol) and h.lhs.name == "N":
            out.append(h.rhs)
    return out


def _constants(th) -> dict[sp.Symbol, sp.Expr]:
    """He et al. (UAI)'s unspecified c1..c7 replaced by the constants its Lemma 1 makes explicit."""
    from ..library.he_tao import LEMMA1_UAI_CONSTANTS

    names = {s.name for h in th.hypotheses for s in sp.sympify(h).free_symbols}
    return dict(LEMMA1_UAI_CONSTANTS) if "c1" in names else {}


def _points(th, rng: random.Random, n: int, *, need: tuple[str, ...], fixed: dict[str, float] | None = None) -> list[dict[str, float]]:
    """``n`` points of the entry's box (log-uniform) where every hypothesis holds, N chosen as described."""
    from .compile import hyp_checker

    consts = _constants(th)
    hyps = tuple(sp.sympify(h).xreplace(consts) for h in th.hypotheses)
    ok = hyp_checker(hyps)
    nconds = [_compile(sp.sympify(e).xreplace(consts)) for e in _n_conditions(th)]
    box = {s.name: (float(a), float(b)) for s, a, b in th.domain}
    out: list[dict[str, float]] = []
    for _ in range(400 * n):
        if len(out) >= n:
            break
        pt: dict[str, float] = {}
        for name in need:
            lo, hi = box.get(name, {"epsilon": (1e-3, 5.0), "delta": (1e-10, 1e-2), "k": (1, 3)}.get(name, (1e-3, 1.0)))
            if name == "k":
                pt[name] = float(rng.randint(max(1, int(lo)), min(3, int(hi))))
            else:
                lo = max(lo, 1e-300)
                pt[name] = math.exp(rng.uniform(math.log(lo), math.log(hi)))
        pt.update(fixed or {})
        if nconds:
            with mpmath.workdps(30):
                try:
                    nmin = max(float(f({k: mpmath.mpf(v) for k, v in pt.items()})) for f in nconds)
                except (TypeError, ValueError, ZeroDivisionError):
                    continue
            if not math.isfinite(nmin):
                continue
            N = max(1, math.ceil(nmin)) * rng.choice((1, 2, 10))
            if N > N_CAP:
                continue
            pt["N"] = float(N)
        elif "N" not in pt:
            pt["N"] = float(rng.choice((1, 2, 5, 20, 100, 1000)))
        if ok({k: repr(v) for k, v in pt.items()}):
            out.append(pt)
    return out


def _evidence(th, cases: list[tuple[bool, float, str]], family: str, noun: str = "finite DP learners") -> Evidence:
    for i, (good, _m, desc) in enumerate(cases):
        if not good:
            return Evidence(Verdict.REFUTED, "finite-instances", f"fails on {noun[:-1]} {i + 1}: {desc}", None,
                            (("instance", str(i + 1)),), len(cases))
    if not cases:
        return Evidence(Verdict.UNCHECKED, None, "no point of the entry's box satisfies its hypotheses with N <= 200,000")
    worst = min(cases, key=lambda t: t[1])
    return Evidence(Verdict.SUPPORTED, "finite-instances",
                    f"holds on {len(cases)} {noun} ({family}); closest: {worst[2]}", None, None, len(cases))


_SINGLE = ("Gen = R_S(h) - R(h); two-point data domain, 2-4 hypotheses with losses in [0, 1], the exponential mechanism on the empirical risk "
           "(both signs) mixed with probability delta with the most-overfitting choice; exact sums over all data sets")


# --- single-sample-set high-probability bounds -------------------------------------------------------------------
#: entry -> how its event reads with g = R_S(h) - R(h): "abs" |g| > a, "over" R - R_S >= a (overfitting side)
HIGH_PROB = {
    "he2021uai.thm1_small_eps": "abs", "he2021uai.thm1_small_eps_failure": "abs",
    "he2021uai.thm1_large_eps": "abs", "he2021uai.thm1_large_eps_failure": "abs",
    "he2021long.thm1": "abs",
    "classical.oneto2017_empirical_risk": "over", "classical.oneto2017_empirical_risk_failure": "over",
    "classical.oneto2017_empirical_variance": "over",
}


def map_high_probability(th) -> Evidence | str:
    """P(event(Gen) > a) <= b for every (eps, delta)-DP learner: a and b are the conclusion's (a, b)."""
    how = HIGH_PROB.get(th.id)
    conc = th.conclusion
    if how is None or conc is None or len(conc.params) != 2:
        return "not a high-probability generalization entry with an (a, b) conclusion"
    a_expr, b_expr = (sp.sympify(x) for x in conc.params)
    f_a, f_b = _compile(a_expr), _compile(b_expr)
    per_outcome = {s.name for s in a_expr.free_symbols} & {"Rhat", "Vhat"}
    rng = random.Random(20232 + sum(map(ord, th.id)))
    pts = _points(th, rng, 16, need=("epsilon", "delta"))
    cases = []
    skipped = 0
    with mpmath.workdps(30):
        for pt in pts:
            N, eps, dl = int(pt["N"]), pt["epsilon"], pt["delta"]
            p, L = _instance(rng)
            base = {k: mpmath.mpf(v) for k, v in pt.items()}
            b = float(f_b(base))
            if not b > 0:  # a claimed failure probability <= 0 is false for every algorithm: the entry of b says so
                skipped += 1
                continue

            gaps = _gaps(N, p, L)
            pmf = _binom_pmf(N, p)
            emp = gaps + np.array([p * x[1] + (1 - p) * x[0] for x in L])
            if per_outcome:
                pt_vals = dict(pt)
                A = np.empty_like(emp)
                for ci in range(N + 1):
                    for hj, (l0, l1) in enumerate(L):
                        m = emp[ci, hj]
                        var = (ci * (l1 - m) ** 2 + (N - ci) * (l0 - m) ** 2) / (N - 1) if N > 1 else 0.0
                        A[ci, hj] = float(f_a({**{k: mpmath.mpf(v) for k, v in pt_vals.items()},
                                               "Rhat": mpmath.mpf(m), "Vhat": mpmath.mpf(var)}))
            else:
                A = np.full_like(emp, float(f_a(base)))
            ev = (np.abs(gaps) > A) if how == "abs" else (-gaps >= A)
            worst_p, worst_s = -1.0, 1
            for s in (1, -1):
                P = _learner(N, L, eps, dl, s)
                prob = float(np.sum(pmf[:, None] * P * ev))
                if prob > worst_p:
                    worst_p, worst_s = prob, s
            desc = (f"N = {N}, eps = {eps:.4g}, delta = {dl:.3g}, p = {p:.3g}, losses {[(round(x, 3), round(y, 3)) for x, y in L]}, "
                    f"score sign {worst_s:+d}: P(event) = {worst_p:.6g}, claimed b = {b:.6g}")
            good = worst_p < b
            if not good and not per_outcome:  # re-check in mpmath before refuting
                with mpmath.workdps(40):
                    a = f_a(base)
                    ev_mp = ((lambda g, e, cc, a=a: abs(g) > a) if how == "abs" else (lambda g, e, cc, a=a: -g >= a))
                    exact = _event_prob_mp(N, p, L, eps, dl, worst_s, ev_mp)
                    good = bool(exact < f_b(base))
                    desc += f" (re-computed at 40 digits, a lower bound: {mpmath.nstr(exact, 12)})"
            cases.append((good, (b - worst_p) / max(b, 1e-300), desc))
    lemma1 = "; N from the sample-size condition with c1..c7 set to the constants of He et al. (UAI)'s Lemma 1" if _constants(th) else ""
    return _evidence(th, cases, _SINGLE + lemma1 + (f"; N up to {max(int(p['N']) for p in pts)}" if pts else "")
                     + (f"; {skipped} drawn points where the claimed b <= 0 skipped: no algorithm meets a failure "
                        "probability below 0, which is the finding of the entry of b" if skipped else ""))


# --- multi-sample-set algorithms ---------------------------------------------------------------------------
#: entry -> (what the quantity is, event side): "abs_mean" |E g|, "mean" E g, "succ" P(g <= a)
MULTI = {
    "he2021.thm2": "abs_mean", "classical.nissim_stemmer2015_on_average": "abs_mean", "he2021long.cor1": "mean",
    "he2021uai.thm3_small_eps": "succ", "he2021uai.thm3_large_eps": "succ", "he2021long.thm3": "succ",
}


def multi_stats(N: int, k: int, p: float, L: list[tuple[float, float]], eps: float, delta: float, s: int,
                a: float | None = None) -> tuple[float, float]:
    """(E g, P(g <= a)) of the multi-sample-set learner over (h, i), g = R_{S_i}(h) - R(h), exact sums (float64)."""
    pmf = _binom_pmf(N, p)
    gaps = _gaps(N, p, L)  # (N + 1, |H|)
    R = np.tile(np.array([p * x[1] + (1 - p) * x[0] for x in L]), k)
    mean = succ = 0.0
    for cs in itertools.product(range(N + 1), repeat=k):
        w = float(np.prod([pmf[c] for c in cs]))
        g = np.concatenate([gaps[c] for c in cs])  # pairs (i, h) flattened
        emp = g + R  # R_{S_i}(h)
        P = _em(s * N * emp[None, :], eps)[0]
        if delta > 0:
            P = (1 - delta) * P
            P[int(np.argmax(s * emp))] += delta
        mean += w * float(P @ g)
        if a is not None:
            succ += w * float(P @ (g <= a))
    return mean, succ


def map_multi(th) -> Evidence | str:
    how = MULTI.get(th.id)
    if how is None or th.rhs is None:
        return "not a multi-sample-set generalization entry"
    f_claim = _compile(th.rhs)
    f_a = _compile(sp.sympify(th.conclusion.params[0])) if how == "succ" and th.conclusion is not None else None
    rng = random.Random(20233 + sum(map(ord, th.id)))
    pts = _points(th, rng, 12, need=("epsilon", "delta", "k"))
    cases = []
    with mpmath.workdps(30):
        for pt in pts:
            k = int(pt["k"])
            N = rng.choice((1, 2, 3, 5, 10)) if k < 3 else rng.choice((1, 2, 4))
            p, L = _instance(rng)
            base = {kk: mpmath.mpf(v) for kk, v in pt.items()}
            claim = float(f_claim(base))
            a = float(f_a(base)) if f_a is not None else None
            worst: tuple[float, int, float] | None = None
            for s in (1, -1):
                mean, succ = multi_stats(N, k, p, L, pt["epsilon"], pt["delta"], s, a)
                val = abs(mean) if how == "abs_mean" else mean if how == "mean" else succ
                slack = (claim - val) if how != "succ" else (val - claim)
                if worst is None or slack < worst[0]:
                    worst = (slack, s, val)
            assert worst is not None
            desc = (f"k = {k}, N = {N}, eps = {pt['epsilon']:.4g}, delta = {pt['delta']:.3g}, p = {p:.3g}, "
                    f"losses {[(round(x, 3), round(y, 3)) for x, y in L]}, score sign {worst[1]:+d}: "
                    f"{'P(Gen <= a)' if how == 'succ' else 'E Gen'} = {worst[2]:.6g}, claimed {claim:.6g}")
            good = worst[0] >= -1e-12 * max(abs(claim), 1e-300)
            cases.append((good, worst[0], desc))
    return _evidence(th, cases, "Gen = R_{S_i}(h) - R(h); multi-sample-set learners: k = 1-3 sets of N = 1-10 examples on a two-point domain, the "
                                "exponential mechanism over (hypothesis, set) on the empirical risk (both signs) mixed "
                                "with probability delta with the most-overfitting pair; exact sums")


register(Oracle("dp_learner_tail", lambda **kw: None, "profile", (),
                "P(Gen beyond a) of finite (eps, delta)-DP learners (exponential mechanism on a two-point domain), exact sums",
                mapper=map_high_probability))
register(Oracle("dp_multi_learner", lambda **kw: None, "profile", (),
                "E Gen and P(Gen <= a) of finite (eps, delta)-DP multi-sample-set learners, exact sums", mapper=map_multi))
assign("dp_learner_tail", *HIGH_PROB)
assign("dp_multi_learner", *MULTI)


# --- PAC-Bayes bounds (every posterior Q simultaneously, with probability >= 1 - fail over S) -----------------
PAC_BAYES = ("pacbayes.seeger_maurer", "pacbayes.seeger_maurer_inverted", "pacbayes.data_dependent_prior",
             "pacbayes.data_dependent_prior_inverted", "bridge.pac_bayes_dp_prior")


def _bern_kl(q: float, r: float) -> float:
    out = 0.0
    if q > 0:
        out += q * math.log(q / r)
    if q < 1:
        out += (1 - q) * math.log((1 - q) / (1 - r))
    return out


def pac_bayes_violation(n: int, p: float, L: list[tuple[float, float]], priors: list[list[float]], prior_given_c: np.ndarray,
                        Qs: list[list[float]], c_of: Callable[[float, int], float], inverted: bool) -> float:
    """P over S (and the prior learner) that some Q in ``Qs`` violates kl(L_S(Q) || L(Q)) <= c_of(KL(Q || P_j), j)
    (``inverted``: L(Q) <= the kl-inverse, i.e. the same event restricted to L(Q) > L_S(Q)); exact sum over counts."""
    pmf = _binom_pmf(n, p)
    gaps = _gaps(n, p, L)
    R = np.array([p * x[1] + (1 - p) * x[0] for x in L])
    kls = [[sum(q * math.log(q / pj) for q, pj in zip(Q, P) if q > 0) for Q in Qs] for P in priors]
    cs = [[c_of(kls[j][iq], j) for iq in range(len(Qs))] for j in range(len(priors))]
    tot = 0.0
    for c in range(n + 1):
        emp = gaps[c] + R
        bad_j = []
        for j in range(len(priors)):
            bad = False
            for iq, Q in enumerate(Qs):
                ls, ld = float(np.dot(Q, emp)), float(np.dot(Q, R))
                if inverted and ld <= ls:
                    continue
                if _bern_kl(ls, ld) > cs[j][iq] * (1 + 1e-12):
                    bad = True
                    break
            bad_j.append(bad)
        tot += pmf[c] * float(np.dot(prior_given_c[c], bad_j))
    return tot


def map_pac_bayes(th) -> Evidence | str:
    """The PAC-Bayes-kl bound (or its kl-inverted form) checked on finite instances, the prior data-free or chosen by a
    DP learner among three priors (data-dependent prior: k_nat = its exact pure max-information, which bounds the
    beta-approximate one)."""
    conc = th.conclusion
    if th.id not in PAC_BAYES or conc is None or len(conc.params) != 2:
        return "not a PAC-Bayes entry"
    inverted = conc.name == "generalization"
    if inverted:
        if th.rhs is None or type(th.rhs).__name__ != "KLInverse":
            return "an inverted PAC-Bayes entry whose rhs is not kl_inverse(L_S, c)"
        c_expr = sp.sympify(th.rhs.args[1])
    else:
        c_expr = sp.sympify(conc.params[0])
    f_c, f_fail = _compile(c_expr), _compile(sp.sympify(conc.params[1]))
    names = {s.name for s in c_expr.free_symbols} | {s.name for s in sp.sympify(conc.params[1]).free_symbols}
    learned = "k_nat" in names or "epsilon" in names
    rng = random.Random(20234 + sum(map(ord, th.id)))
    box = {s.name: (float(a), float(b)) for s, a, b in th.domain}
    cases = []
    with mpmath.workdps(20):
        for _ in range(10):
            lo_n, hi_n = box.get("n", (8, 1e6))
            n = rng.choice([m for m in (8, 10, 20, 50, 200) if lo_n <= m <= hi_n])
            pt = {"n": float(n)}
            for nm in ("delta", "beta", "epsilon"):
                if nm in names:
                    lo, hi = box.get(nm, (1e-6, 0.5))
                    pt[nm] = math.exp(rng.uniform(math.log(max(lo, 1e-12)), math.log(min(hi, 0.5 if nm != "epsilon" else hi))))
            p = rng.uniform(0.05, 0.95)
            nh = rng.choice((2, 3, 4))
            L = [(rng.uniform(0.02, 0.98), rng.uniform(0.02, 0.98)) for _ in range(nh)]
            dirich = [[rng.expovariate(1.0) for _ in range(nh)] for _ in range(3 if learned else 1)]
            priors = [[x / sum(d) for x in d] for d in dirich]
            Qs = [[1.0 if i == j else 0.0 for i in range(nh)] for j in range(nh)] + [list(priors[0])]
            for _ in range(6):
                d = [rng.expovariate(0.5) ** 2 for _ in range(nh)]
                Qs.append([x / sum(d) for x in d])
            if learned:  # the prior learner: exponential mechanism over the priors on n L_S(P_j) (sensitivity 1)
                eps = pt.get("epsilon", rng.choice((0.1, 1.0, 3.0)))
                cgrid = np.arange(n + 1, dtype=float)[:, None]
                l0, l1 = np.array([x[0] for x in L]), np.array([x[1] for x in L])
                emp = (cgrid * l1 + (n - cgrid) * l0) / n
                risk = emp @ np.array(priors).T
                pj = _em(-n * risk, eps)
                marg = _binom_pmf(n, p) @ pj
                k_nat = float(np.max(np.log(pj / marg[None, :])))
                pt["k_nat"] = k_nat
            else:
                pj = np.ones((n + 1, 1))
            base = {k: mpmath.mpf(v) for k, v in pt.items()}

            def c_of(kl: float, j: int, _base=base) -> float:
                return float(f_c({**_base, "KL_QP": mpmath.mpf(kl)}))

            fail = float(f_fail(base))
            viol = pac_bayes_violation(n, p, L, priors, pj, Qs, c_of, inverted)
            desc = (f"n = {n}, {', '.join(f'{k} = {v:.4g}' for k, v in pt.items() if k != 'n')}, p = {p:.3g}, |H| = {nh}, "
                    f"{len(Qs)} posteriors: P(some posterior violates) = {viol:.6g}, claimed failure probability {fail:.6g}")
            cases.append((viol <= fail, (fail - viol) / fail, desc))
    fam = ("two-point data domain, 2-4 hypotheses with losses in [0.02, 0.98], n = 8-200; posteriors: the point masses, the "
           "prior and 6 random ones" + ("; the prior chosen among 3 random priors by the exponential mechanism on their "
                                        "empirical risk" if learned else "; a data-free random prior")
           + ("; kl-inverse read as the event L(Q) > L_S(Q) and kl(L_S(Q) || L(Q)) > c" if inverted else "")
           + "; exact sums over all data sets")
    return _evidence(th, cases, fam, "finite instances")


register(Oracle("pac_bayes_finite", lambda **kw: None, "profile", (),
                "P(some posterior violates the PAC-Bayes-kl bound) on finite instances, exact sums", mapper=map_pac_bayes))
assign("pac_bayes_finite", *PAC_BAYES)

__all__ = ["HIGH_PROB", "MULTI", "PAC_BAYES", "map_high_probability", "map_multi", "map_pac_bayes", "multi_stats",
           "pac_bayes_violation"]
