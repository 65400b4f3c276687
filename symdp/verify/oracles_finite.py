r"""Claims about posterior sampling and about a maximiser, decided on finite instances (issue 23, item 4).

Posterior sampling (Wang, Lei, Fienberg 2016, "Wang et al."): ``A(Z)`` draws ``h`` with probability
``p(h | Z) ∝ exp(-gamma sum_i l(z_i, h))`` over a finite hypothesis set.  On a finite data domain with a
distribution ``D`` every quantity of the paper is a finite sum, computed exactly here in mpmath at 30
digits: the On-Average KL-privacy of k replacements ``E_{Z ~ D^n, z'_{1:k} ~ D^k} KL(A(Z) || A(Z'))``, the
max-information ``I_inf(A, n) = sup_{Z, Z'} D_inf(A(Z) || A(Z'))`` and the pure-DP level
``sup_{Z ~ Z', h} |log p(h|Z) - log p(h|Z')|``.  The instances are drawn from a seeded generator (data
domain of 2-3 points, 2-4 hypotheses, n = 2-3, losses uniform in [-B, B]); a claim that fails on one of
them is refuted (a finite instance is an instance of the lemma), one that holds on all of them is
SUPPORTED over the instances, never PROVED.

He et al. (long) Lemma 6 (the maximiser of ``1 - prod(1 - A_i alpha_i)`` over ``{1 <= alpha_i <= c_i, prod alpha_i =
c}`` has at most one coordinate strictly inside its bounds) is checked the same way: on random
instances the largest value over the vertices is compared with the largest value found by a random
search plus coordinate ascent over the feasible set.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import mpmath

from ..theorem import Evidence, Verdict
from .registry import Oracle, assign, register

DPS = 30


def _posterior(Z: tuple[int, ...], L: list[list[mpmath.mpf]], gamma: mpmath.mpf) -> list[mpmath.mpf]:
    logs = [-gamma * mpmath.fsum(L[z][h] for z in Z) for h in range(len(L[0]))]
    top = max(logs)
    w = [mpmath.exp(x - top) for x in logs]
    s = mpmath.fsum(w)
    return [x / s for x in w]


def _kl(p: list[mpmath.mpf], q: list[mpmath.mpf]) -> mpmath.mpf:
    return mpmath.fsum(a * mpmath.log(a / b) for a, b in zip(p, q) if a > 0)


def okl(n: int, k: int, D: list[mpmath.mpf], L: list[list[mpmath.mpf]], gamma: mpmath.mpf) -> mpmath.mpf:
    """On-Average KL-privacy of k replacements (the first k of n examples replaced by fresh draws), exact."""
    dom = range(len(D))
    tot = mpmath.mpf(0)
    for Z in itertools.product(dom, repeat=n):
        pz = mpmath.fprod(D[z] for z in Z)
        post = _posterior(Z, L, gamma)
        for R in itertools.product(dom, repeat=k):
            pr = mpmath.fprod(D[z] for z in R)
            tot += pz * pr * _kl(post, _posterior(tuple(R) + Z[k:], L, gamma))
    return tot


def max_information(n: int, nd: int, L: list[list[mpmath.mpf]], gamma: mpmath.mpf) -> mpmath.mpf:
    """I_inf(A, n) = sup over data sets Z, Z' of size n of max_h log(p(h|Z)/p(h|Z')), exact (natural log)."""
    posts = [_posterior(Z, L, gamma) for Z in itertools.product(range(nd), repeat=n)]
    return max(max(mpmath.log(a / b) for a, b in zip(p, q)) for p in posts for q in posts)


def dp_level(n: int, nd: int, L: list[list[mpmath.mpf]], gamma: mpmath.mpf) -> mpmath.mpf:
    """Pure-DP level of posterior sampling: max over neighbouring Z ~ Z' (one replaced) and h of the log ratio."""
    out = mpmath.mpf(0)
    for Z in itertools.product(range(nd), repeat=n):
        p = _posterior(Z, L, gamma)
        for i in range(n):
            for z in range(nd):
                Z2 = Z[:i] + (z,) + Z[i + 1:]
                q = _posterior(Z2, L, gamma)
                out = max(out, max(abs(mpmath.log(a / b)) for a, b in zip(p, q)))
    return out


def instance(rng: random.Random, *, B: float = 1.0) -> tuple[int, list[mpmath.mpf], list[list[mpmath.mpf]], mpmath.mpf]:
    """(n, D, L, gamma): a random finite instance, losses in [-B, B]."""
    nd, nh, n = rng.choice((2, 3)), rng.choice((2, 3, 4)), rng.choice((2, 3))
    D = [mpmath.mpf(rng.random()) + mpmath.mpf("0.05") for _ in range(nd)]
    s = mpmath.fsum(D)
    D = [x / s for x in D]
    L = [[mpmath.mpf(B) * (2 * mpmath.mpf(rng.random()) - 1) for _ in range(nh)] for _ in range(nd)]
    gamma = mpmath.mpf(10) ** mpmath.mpf(rng.uniform(-1, 0.7))
    return n, D, L, gamma


def _decide(th, check, n_inst: int, what: str, exact: bool = True) -> Evidence:
    """Run ``check(rng) -> (ok, margin, description)`` on ``n_inst`` seeded instances."""
    rng = random.Random(20231 + sum(map(ord, th.id)))
    worst = None
    with mpmath.workdps(DPS):
        for i in range(n_inst):
            ok, margin, desc = check(rng)
            if not ok:
                return Evidence(Verdict.REFUTED, "finite-instances", f"fails on finite instance {i + 1}: {desc}", None,
                                (("instance", str(i + 1)),), i + 1)
            if worst is None or margin < worst[0]:
                worst = (margin, desc)
    assert worst is not None
    return Evidence(Verdict.SUPPORTED, "finite-instances",
                    f"holds on {n_inst} random finite instances ({what}"
                    f"{f'; exact sums at {DPS} digits' if exact else ''}); closest: {worst[1]}",
                    None, None, n_inst)


_TOL = mpmath.mpf(10) ** (8 - DPS)


def _rhs(th):
    """The entry's claimed side as a function of a dict of its symbols' values (never re-typed here)."""
    from .compile import compile_expr

    return compile_expr(th.rhs)


def map_group_privacy(th):
    """Wang et al. Lemma 6: the k-replacement On-Average KL equals k times the 1-replacement one (posterior sampling)."""
    claim = _rhs(th)

    def check(rng):
        n, D, L, g = instance(rng)
        k = rng.randint(2, n)
        e1, ek = okl(n, 1, D, L, g), okl(n, k, D, L, g)
        c = claim({"epsilon_okl": e1, "k": mpmath.mpf(k), "n": mpmath.mpf(n)})
        diff = abs(ek - c)
        return diff <= _TOL * max(ek, 1), -diff, f"n = {n}, k = {k}: eps_okl,k = {mpmath.nstr(ek, 12)}, claimed {mpmath.nstr(c, 12)}"

    return _decide(th, check, 12, "data domain of 2-3 points, 2-4 hypotheses, n = 2-3, k = 2..n")


def map_maxinfo_okl(th):
    """Wang et al. Lemma 11: On-Average KL-privacy <= I_inf(A, n)/n for posterior sampling (natural-log max-information)."""
    claim = _rhs(th)

    def check(rng):
        n, D, L, g = instance(rng)
        e1, k = okl(n, 1, D, L, g), max_information(n, len(D), L, g)
        c = claim({"k": k, "n": mpmath.mpf(n)})
        return e1 <= c * (1 + _TOL), c - e1, f"n = {n}: eps_okl = {mpmath.nstr(e1, 10)}, claimed (I_inf = {mpmath.nstr(k, 8)}) {mpmath.nstr(c, 10)}"

    return _decide(th, check, 12, "max-information by enumeration of all pairs of data sets")


def map_bounded_loss_dp(th):
    """Wang et al. Remark 3: posterior sampling with |l| <= B is 4 B gamma-DP."""
    claim = _rhs(th)

    def check(rng):
        B = mpmath.mpf(10) ** mpmath.mpf(rng.uniform(-1, 0.5))
        n, _, L, g = instance(rng, B=float(B))
        # half the instances are the near-worst family: one hypothesis gains 2B while the others lose 2B
        if rng.random() < 0.5:
            m = rng.choice((3, 8, 30))
            L = [[B] + [-B] * (m - 1), [-B] + [B] * (m - 1)]
            n = 1
        eps = dp_level(n, len(L), L, g)
        c = claim({"B": B, "gamma": g})
        return eps <= c * (1 + _TOL), c - eps, (f"B = {mpmath.nstr(B, 6)}, gamma = {mpmath.nstr(g, 6)}: "
                                                f"eps = {mpmath.nstr(eps, 10)}, claimed {mpmath.nstr(c, 10)}")

    return _decide(th, check, 24, "including the family whose DP level tends to 4 B gamma as the hypotheses grow")


def adaptive_okl(n: int, D: list[mpmath.mpf], L1: list[list[mpmath.mpf]], L2: list[list[list[mpmath.mpf]]],
                 g1: mpmath.mpf, g2: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """(eps_1, eps_2, joint): the On-Average KL-privacy of A (posterior sampling, losses L1[z][h1]), the largest over
    h1 of that of B(., h1) (posterior sampling, losses L2[z][h1][h2]) and that of the pair (A, B(., h1)), h1 ~ A(Z),
    all exact (one of n examples replaced by a fresh draw)."""
    nd, n1 = len(D), len(L1[0])
    e1 = joint = mpmath.mpf(0)
    eb = [mpmath.mpf(0)] * n1
    for Z in itertools.product(range(nd), repeat=n):
        pz = mpmath.fprod(D[z] for z in Z)
        for r in range(nd):
            Z2, w = (r,) + Z[1:], pz * D[r]
            pa, qa = _posterior(Z, L1, g1), _posterior(Z2, L1, g1)
            ka = _kl(pa, qa)
            e1 += w * ka
            joint += w * ka
            for h1 in range(n1):
                Lb = [[L2[z][h1][h2] for h2 in range(len(L2[0][0]))] for z in range(nd)]
                kb = _kl(_posterior(Z, Lb, g2), _posterior(Z2, Lb, g2))
                eb[h1] += w * kb
                joint += w * pa[h1] * kb
    return e1, max(eb), joint


def map_adaptive_composition(th):
    """Wang et al. Lemma 7: (A, B(., h)) is (eps_1 + eps_2)-On-Average KL-private when A is eps_1- and every B(., h) is
    eps_2-On-Average KL-private; checked on finite posterior-sampling instances with eps_1, eps_2 the exact levels."""
    claim = _rhs(th)

    def check(rng):
        nd, n, n1, n2 = 2, 2, 2, 2
        D = [mpmath.mpf(rng.random()) + mpmath.mpf("0.05") for _ in range(nd)]
        s = mpmath.fsum(D)
        D = [x / s for x in D]
        L1 = [[mpmath.mpf(rng.uniform(-1, 1)) for _ in range(n1)] for _ in range(nd)]
        L2 = [[[mpmath.mpf(rng.uniform(-1, 1)) for _ in range(n2)] for _ in range(n1)] for _ in range(nd)]
        g1, g2 = mpmath.mpf(10) ** mpmath.mpf(rng.uniform(-1, 1)), mpmath.mpf(10) ** mpmath.mpf(rng.uniform(-1, 1))
        e1, e2, joint = adaptive_okl(n, D, L1, L2, g1, g2)
        c = claim({"epsilon_1": e1, "epsilon_2": e2})
        def show(x: Any) -> Any:
            return [show(y) for y in x] if isinstance(x, list) else mpmath.nstr(x, 12)

        return joint <= c * (1 + _TOL), c - joint, (f"n = {n}, D = {show(D)}, A's losses L1[z][h1] = {show(L1)}, B's losses "
                                                    f"L2[z][h1][h2] = {show(L2)}, "
                                                    f"gamma_A = {mpmath.nstr(g1, 12)}, gamma_B = {mpmath.nstr(g2, 12)}: eps_1 = "
                                                    f"{mpmath.nstr(e1, 10)}, eps_2 = {mpmath.nstr(e2, 10)}, the pair's level "
                                                    f"{mpmath.nstr(joint, 10)} > claimed {mpmath.nstr(c, 10)}")

    return _decide(th, check, 400, "two-point data domain, n = 2, 2 x 2 hypotheses, losses in [-1, 1]")


def _lemma6_objective(A: list[float], alpha: list[float]) -> float:
    out = 1.0
    for a, x in zip(A, alpha):
        out *= 1 - a * x
    return 1 - out


def _vertices(c: float, cs: list[float]) -> list[list[float]]:
    """Feasible points with every coordinate at 1 or c_i except at most one (log-space vertices)."""
    import math

    T = len(cs)
    out = []
    for j in range(T):
        others = [i for i in range(T) if i != j]
        for bits in itertools.product((0, 1), repeat=len(others)):
            u = [0.0] * T
            for i, b in zip(others, bits):
                u[i] = math.log(cs[i]) if b else 0.0
            rest = math.log(c) - sum(u)
            if -1e-12 <= rest <= math.log(cs[j]) + 1e-12:
                u[j] = min(max(rest, 0.0), math.log(cs[j]))
                out.append([math.exp(x) for x in u])
    return out


def map_lemma6_maximiser(th):
    """He et al. (long) Lemma 6: the maximum over the feasible set is attained where at most one coordinate is interior."""
    import math

    def check(rng):
        T = rng.choice((2, 3, 4))
        cs = [1 + 3 * rng.random() for _ in range(T)]
        A = [rng.random() / ci for ci in cs]  # c_i A_i <= 1
        logc = rng.random() * sum(math.log(ci) for ci in cs)
        c = math.exp(logc)
        best_v = max(_lemma6_objective(A, v) for v in _vertices(c, cs))
        best_r = 0.0
        for _ in range(400):  # random feasible points: u on the polytope by random splitting, then clipping
            w = [rng.random() for _ in range(T)]
            s = sum(w)
            u = [logc * x / s for x in w]
            for _ in range(3 * T):  # push overflow onto the others
                over = sum(max(0.0, ui - math.log(ci)) for ui, ci in zip(u, cs))
                u = [min(ui, math.log(ci)) for ui, ci in zip(u, cs)]
                room = [math.log(ci) - ui for ui, ci in zip(u, cs)]
                tot = sum(room)
                if over <= 1e-15 or tot <= 0:
                    break
                u = [ui + over * r / tot for ui, r in zip(u, room)]
            best_r = max(best_r, _lemma6_objective(A, [math.exp(x) for x in u]))
        return best_r <= best_v * (1 + 1e-12), best_v - best_r, f"T = {T}: vertex max {best_v:.10g}, random feasible max {best_r:.10g}"

    return _decide(th, check, 40, "T = 2-4, random c_i, A_i, c; 400 random feasible points each, float64", exact=False)


for _name, _fn, _desc in (
    ("okl_group_finite", map_group_privacy, "k-replacement On-Average KL-privacy of posterior sampling on finite instances"),
    ("okl_maxinfo_finite", map_maxinfo_okl, "On-Average KL-privacy vs max-information of posterior sampling on finite instances"),
    ("posterior_dp_finite", map_bounded_loss_dp, "pure-DP level of posterior sampling with bounded loss on finite instances"),
    ("okl_adaptive_finite", map_adaptive_composition, "adaptive composition of On-Average KL-privacy on finite instances"),
    ("lemma6_maximiser", map_lemma6_maximiser, "vertex maximum vs random feasible points of 1 - prod(1 - A_i alpha_i)"),
):
    register(Oracle(_name, lambda **kw: None, "profile", (), _desc, mapper=_fn))

assign("okl_group_finite", "wang2016.lemma6_group_privacy")
assign("okl_maxinfo_finite", "wang2016.lemma11_max_information_to_okl")
assign("posterior_dp_finite", "wang2016.remark3_dp_of_bounded_loss")
assign("lemma6_maximiser", "he2021long.lemma6")
assign("okl_adaptive_finite", "wang2016.lemma7_adaptive_composition")


def _dinf(P: list[mpmath.mpf], Q: list[mpmath.mpf]) -> mpmath.mpf:
    return max(mpmath.log(a / b) for a, b in zip(P, Q) if a > 0)


def map_lemma1_dr(th):
    """He et al. (long) Lemma 1: for D, D' there are M, M' with the same (symmetrised) max-divergence, D_KL(M||M') =
    D_KL(M'||M) and D_KL(D||D') <= D_KL(M||M'); checked on random finite pairs with the witness the proof's
    two-point pair M = (e^eps, 1)/(1 + e^eps), M' = (1, e^eps)/(1 + e^eps) at eps = max(D_inf(D||D'), D_inf(D'||D))."""
    def check(rng):
        m = rng.choice((2, 3, 5, 8))
        P = [mpmath.mpf(rng.random()) ** rng.choice((1, 3)) + mpmath.mpf(10) ** -6 for _ in range(m)]
        Q = [mpmath.mpf(rng.random()) ** rng.choice((1, 3)) + mpmath.mpf(10) ** -6 for _ in range(m)]
        P, Q = [x / mpmath.fsum(P) for x in P], [x / mpmath.fsum(Q) for x in Q]
        e = max(_dinf(P, Q), _dinf(Q, P))
        M = [mpmath.exp(e) / (1 + mpmath.exp(e)), 1 / (1 + mpmath.exp(e))]
        Mp = M[::-1]
        em = max(_dinf(M, Mp), _dinf(Mp, M))
        k1, k2, kd = _kl(M, Mp), _kl(Mp, M), _kl(P, Q)
        ok = abs(em - e) <= _TOL * max(e, 1) and abs(k1 - k2) <= _TOL * max(k1, 1) and kd <= k1 * (1 + _TOL)
        return ok, k1 - kd, (f"{m} atoms: max-divergence {mpmath.nstr(e, 10)} (witness {mpmath.nstr(em, 10)}), "
                             f"D_KL(D||D') = {mpmath.nstr(kd, 10)} <= D_KL(M||M') = {mpmath.nstr(k1, 10)} = D_KL(M'||M) = {mpmath.nstr(k2, 10)}")

    return _decide(th, check, 40, "random pairs on 2-8 atoms; the witness is the proof's two-point pair")


def beta_max_information_bits(joint: list[list[mpmath.mpf]], beta: mpmath.mpf) -> mpmath.mpf:
    """I_inf^beta(S; A(S)) in bits for a finite joint p(s, h) (every event enumerated):
    log2 of the max over events O with P[(S, A(S)) in O] > beta of (P[O] - beta) / P[S x A(S) in O]."""
    ps = [mpmath.fsum(r) for r in joint]
    ph = [mpmath.fsum(joint[i][j] for i in range(len(joint))) for j in range(len(joint[0]))]
    atoms = [(joint[i][j], ps[i] * ph[j]) for i in range(len(joint)) for j in range(len(joint[0]))]
    best = mpmath.mpf(0)
    for mask in range(1, 1 << len(atoms)):
        a = mpmath.fsum(atoms[t][0] for t in range(len(atoms)) if mask >> t & 1)
        b = mpmath.fsum(atoms[t][1] for t in range(len(atoms)) if mask >> t & 1)
        if a > beta and b > 0:
            best = max(best, (a - beta) / b)
    return mpmath.log(best, 2) if best > 0 else mpmath.mpf(0)


def map_max_information_transfer(th):
    """Dwork et al. (2015) Thm 13: I_inf^beta(S; A(S)) <= k implies P[(S, A(S)) in O] <= 2^k P[S x A(S) in O] + beta for
    every event O; on random finite joints (2-3 data sets x 2-3 outputs) with k the exact I_inf^beta, every O enumerated."""
    claim = _rhs(th)

    def check(rng):
        ns, nh = rng.choice((2, 3)), rng.choice((2, 3))
        w = [[mpmath.mpf(rng.random()) ** 2 + mpmath.mpf(10) ** -4 for _ in range(nh)] for _ in range(ns)]
        tot = mpmath.fsum(x for r in w for x in r)
        joint = [[x / tot for x in r] for r in w]
        beta = mpmath.mpf(rng.choice((0, 0.01, 0.1, 0.3)))
        k = beta_max_information_bits(joint, beta)
        ps = [mpmath.fsum(r) for r in joint]
        ph = [mpmath.fsum(joint[i][j] for i in range(ns)) for j in range(nh)]
        atoms = [(joint[i][j], ps[i] * ph[j]) for i in range(ns) for j in range(nh)]
        worst, wdesc = None, ""
        for mask in range(1 << len(atoms)):
            a = mpmath.fsum(atoms[t][0] for t in range(len(atoms)) if mask >> t & 1)
            b = mpmath.fsum(atoms[t][1] for t in range(len(atoms)) if mask >> t & 1)
            c = claim({"k": k, "P_Oprod": b, "beta": beta})
            if worst is None or c - a < worst:
                worst, wdesc = c - a, f"P_O = {mpmath.nstr(a, 10)}, claimed {mpmath.nstr(c, 10)}"
        assert worst is not None
        return worst >= -_TOL, worst, f"{ns} x {nh} joint, beta = {mpmath.nstr(beta, 3)}, k = {mpmath.nstr(k, 8)} bits: {wdesc}"

    return _decide(th, check, 12, "random joints of 2-3 data sets x 2-3 outputs, beta in {0, 0.01, 0.1, 0.3}, k the exact "
                                  "beta-approximate max-information, all events")


register(Oracle("max_divergence_witness", lambda **kw: None, "profile", (), "He et al. (long) Lemma 1's two-point witness on finite pairs",
                mapper=map_lemma1_dr))
register(Oracle("max_information_transfer_finite", lambda **kw: None, "profile", (),
                "P[(S, A(S)) in O] vs 2^k P[S x A(S) in O] + beta on finite joints, every event", mapper=map_max_information_transfer))
assign("max_divergence_witness", "he2021long.lemma1_dr")
assign("max_information_transfer_finite", "dwork2015.thm13_max_information_transfer")

__all__ = ["okl", "max_information", "dp_level", "instance", "map_group_privacy", "map_maxinfo_okl",
           "map_bounded_loss_dp", "map_lemma6_maximiser", "map_lemma1_dr",
           "beta_max_information_bits", "map_max_information_transfer"]

