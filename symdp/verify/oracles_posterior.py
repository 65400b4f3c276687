r"""Wang, Lei, Fienberg (2016)'s information-theoretic statements about posterior sampling, on finite instances.

Same instances as :mod:`symdp.verify.oracles_finite` (data domain of 2-3 points with a distribution D, 2-4
hypotheses, n = 2-3 examples, losses ``l(z, h)`` uniform in [-B, B], ``A(Z)`` drawing h with probability
``∝ exp(-gamma sum_i l(z_i, h))``); every quantity is an exact finite sum at 30 digits:

* the mutual information ``I(A(Z); Z)``, ``KL_ind = E_{Z, Z'} D_KL(A(Z) || A(Z'))`` (independent Z, Z') and
  ``J_gap = E_Z E_{h ~ A(Z)}[E_{Z'} log p(h|Z') - log E_{Z'} p(h|Z')]`` (Lemma 14);
* ``G = E_Z E_{h ~ A(Z)}[L(h, Z) - R(h)]`` with ``L(h, Z) = sum_i l(z_i, h)`` and ``R(h) = E_Z L(h, Z)``;
  ``L(h, Z) - R(h)`` is sigma^2-subgaussian for every h with ``sigma^2 = n max_h (max_z l - min_z l)^2 / 4``
  (Hoeffding's lemma), hence also sub-exponential with parameters (sigma, b) for every b > 0 (Cor 15);
* the on-average generalization error of the loss the sampler uses (``gamma l``):
  ``eps_gen = gamma E_Z E_{z'} E_{h ~ A(Z)}[l(z', h) - (1/n) sum_i l(z_i, h)]``, the On-Average KL-privacy
  (:func:`symdp.verify.oracles_finite.okl`) and the max-information (:func:`~symdp.verify.oracles_finite.max_information`);
* Thm 9: the minimiser of ``-(1/gamma) H(q) + E_{h ~ q} L(h, Z)`` over the simplex, found by exponentiated-gradient
  descent (which never evaluates the claimed form) and compared with random points of the simplex.

A claim that fails on an instance is refuted; one that holds on all is SUPPORTED over the instances.
"""

from __future__ import annotations

import itertools

import mpmath

from ..numeric import iterate
from .oracles_finite import _TOL, _decide, _kl, _posterior, _rhs, instance, max_information, okl
from .registry import Oracle, assign, register


def _datasets(n: int, D: list) -> list[tuple[tuple[int, ...], mpmath.mpf]]:
    return [(Z, mpmath.fprod(D[z] for z in Z)) for Z in itertools.product(range(len(D)), repeat=n)]


def info_terms(n: int, D: list, L: list, gamma: mpmath.mpf) -> dict[str, mpmath.mpf]:
    """Exact I(A(Z); Z), KL_ind, J_gap, G (sum loss), eps_gen (loss gamma l, per example) and sigma^2."""
    sets = _datasets(n, D)
    nh = len(L[0])
    posts = {Z: _posterior(Z, L, gamma) for Z, _ in sets}
    mix = [mpmath.fsum(w * posts[Z][h] for Z, w in sets) for h in range(nh)]
    I = mpmath.fsum(w * _kl(posts[Z], mix) for Z, w in sets)
    kl_ind = mpmath.fsum(w * w2 * _kl(posts[Z], posts[Z2]) for Z, w in sets for Z2, w2 in sets)
    j_gap = mpmath.fsum(w * posts[Z][h] * (mpmath.fsum(w2 * mpmath.log(posts[Z2][h]) for Z2, w2 in sets) - mpmath.log(mix[h]))
                        for Z, w in sets for h in range(nh))
    r1 = [mpmath.fsum(D[z] * L[z][h] for z in range(len(D))) for h in range(nh)]  # E_z l(z, h)
    G = mpmath.fsum(w * posts[Z][h] * (mpmath.fsum(L[z][h] for z in Z) - n * r1[h]) for Z, w in sets for h in range(nh))
    eps_gen = -gamma * G / n
    sigma2 = n * max((max(L[z][h] for z in range(len(D))) - min(L[z][h] for z in range(len(D)))) ** 2 for h in range(nh)) / 4
    return dict(I=I, KL_ind=kl_ind, J_gap=j_gap, G=G, eps_gen=eps_gen, sigma2=sigma2)


def _fmt(x) -> str:
    return mpmath.nstr(x, 10)


def map_lemma14(th):
    """I(A(Z); Z) = KL_ind + J_gap for a randomised A (posterior sampling instances)."""
    claim = _rhs(th)

    def check(rng):
        n, D, L, g = instance(rng)
        t = info_terms(n, D, L, g)
        c = claim({"J_gap": t["J_gap"], "KL_ind": t["KL_ind"]})
        diff = abs(t["I"] - c)
        return diff <= _TOL * max(abs(t["I"]), 1), -diff, f"n = {n}: I = {_fmt(t['I'])}, KL_ind + J_gap = {_fmt(c)}"

    return _decide(th, check, 10, "data domain of 2-3 points, 2-4 hypotheses, n = 2-3")


def _cor15(kind: str):
    def mapper(th):
        claim = _rhs(th)

        def check(rng):
            n, D, L, g = instance(rng, B=rng.choice((0.3, 1.0, 3.0)))
            t = info_terms(n, D, L, g)
            sig = mpmath.sqrt(t["sigma2"])
            b = mpmath.mpf(10) ** mpmath.mpf(rng.uniform(-1, 1)) * sig
            pt = {"I_mi": t["I"], "gamma": g, "sigma_sg": sig, "b_se": b}
            c = claim(pt)
            val = t["I"] if kind == "cap" else abs(t["G"])
            ok = val >= c * (1 - _TOL) if kind == "lower" else val <= c * (1 + _TOL)
            margin = (val - c) if kind == "lower" else (c - val)
            return ok, margin / max(abs(c), mpmath.mpf(10) ** -20), (f"n = {n}, gamma = {_fmt(g)}, sigma^2 = {_fmt(t['sigma2'])}: "
                                                                     f"{'I' if kind == 'cap' else '|G|'} = {_fmt(val)}, claimed {_fmt(c)}")

        return _decide(th, check, 12, "data domain of 2-3 points, 2-4 hypotheses, n = 2-3, losses in [-B, B] with B in "
                                      "{0.3, 1, 3}; sigma^2 from Hoeffding's lemma")

    return mapper


def map_gen_equals_okl(th):
    """Thm 4 / Remark 1: eps-On-Average KL-privacy equals the on-average generalization error of the sampler's loss."""
    n_fixed = 1 if "remark1" in th.id else None

    def check(rng):
        n, D, L, g = instance(rng)
        n = n_fixed or n
        e_okl, t = okl(n, 1, D, L, g), info_terms(n, D, L, g)
        diff = abs(e_okl - t["eps_gen"])
        return diff <= _TOL * max(e_okl, 1), -diff, f"n = {n}: eps_okl = {_fmt(e_okl)}, eps_gen = {_fmt(t['eps_gen'])}"

    return _decide(th, check, 10, "data domain of 2-3 points, 2-4 hypotheses, n = " + ("1" if n_fixed else "2-3"))


def map_remark2(th):
    """Remark 2: eps-OKL w.r.t. gamma L implies eps/gamma generalization w.r.t. L."""
    claim = _rhs(th)

    def check(rng):
        n, D, L, g = instance(rng)
        e_okl, t = okl(n, 1, D, L, g), info_terms(n, D, L, g)
        gen_unscaled = t["eps_gen"] / g
        c = claim({"epsilon": e_okl, "gamma": g})
        return gen_unscaled <= c * (1 + _TOL), c - gen_unscaled, (f"n = {n}, gamma = {_fmt(g)}: generalization error of L "
                                                                 f"{_fmt(gen_unscaled)}, claimed eps/gamma = {_fmt(c)}")

    return _decide(th, check, 10, "data domain of 2-3 points, 2-4 hypotheses, n = 2-3")


def map_cor12(th):
    """Cor 12: I_inf(A, n) <= k implies generalization error (of the sampler's loss) <= k/n."""
    claim = _rhs(th)

    def check(rng):
        n, D, L, g = instance(rng)
        t, k = info_terms(n, D, L, g), max_information(n, len(D), L, g)
        c = claim({"k": k, "n": mpmath.mpf(n)})
        return t["eps_gen"] <= c * (1 + _TOL), c - t["eps_gen"], (f"n = {n}: eps_gen = {_fmt(t['eps_gen'])}, I_inf = {_fmt(k)}, "
                                                                 f"claimed k/n = {_fmt(c)}")

    return _decide(th, check, 10, "data domain of 2-3 points, 2-4 hypotheses, n = 2-3, k = I_inf(A, n) by enumeration")


def _objective(q: list, Lsum: list, gamma: mpmath.mpf) -> mpmath.mpf:
    return mpmath.fsum(x * mpmath.log(x) for x in q if x > 0) / gamma + mpmath.fsum(x * y for x, y in zip(q, Lsum))


#: exponentiated-gradient steps of :func:`map_thm9`
EG_STEPS = 4000


def _eg_step(q: list, Lsum: list, g: mpmath.mpf) -> list:
    """One exponentiated-gradient step (step size gamma/2) on -(1/gamma) H(q) + E_q L_sum."""
    eta = g / 2
    grad = [(mpmath.log(x) + 1) / g + y for x, y in zip(q, Lsum)]
    w = [x * mpmath.exp(-eta * d) for x, d in zip(q, grad)]
    s = mpmath.fsum(w)
    return [x / s for x in w]


def _mpf_key(q: list) -> tuple:
    return tuple(x._mpf_ for x in q)


def map_thm9(th):
    """Thm 9: the minimiser over the simplex of -(1/gamma) H(q) + E_q L_sum is exp(-gamma L_sum)/K."""
    claim = _rhs(th)

    def check(rng):
        nh = rng.choice((2, 3, 4, 6))
        Lsum = [mpmath.mpf(rng.uniform(0, 10)) for _ in range(nh)]
        g = mpmath.mpf(10) ** mpmath.mpf(rng.uniform(-1, 0.5))
        K = mpmath.fsum(mpmath.exp(-g * x) for x in Lsum)
        q = [mpmath.mpf(1) / nh] * nh  # exponentiated-gradient descent from the uniform point
        q = iterate(lambda q: _eg_step(q, Lsum, g), q, EG_STEPS, _mpf_key)  # 4000 steps (a cycle ends them early)
        got = [claim({"L_sum": y, "gamma": g, "K_part": K}) for y in Lsum]
        diff = max(abs(a - b) for a, b in zip(q, got))
        f_star = _objective(got, Lsum, g)
        better = min(_objective([x / s for x in r], Lsum, g) for r in
                     ([mpmath.mpf(rng.random()) for _ in range(nh)] for _ in range(50)) for s in [mpmath.fsum(r)])
        ok = diff <= mpmath.mpf(10) ** -12 and f_star <= better
        return ok, -diff, f"|H| = {nh}, gamma = {_fmt(g)}: max |minimiser - claimed| = {mpmath.nstr(diff, 3)}"

    return _decide(th, check, 8, "2-6 hypotheses, L_sum in [0, 10], gamma in [0.1, 3.2]; the minimiser by exponentiated "
                                  "gradient (4000 steps), the claimed density also below 50 random points of the simplex")


for _name, _fn, _desc, _ids in (
    ("mi_identity_finite", map_lemma14, "I(A(Z); Z) = KL_ind + J_gap on finite posterior-sampling instances",
     ("wang2016.lemma14_mi_identity",)),
    ("mi_gen_lower_finite", _cor15("lower"), "generalization gap vs I(A(Z); Z)/gamma on finite instances", ("wang2016.cor15_lower",)),
    ("mi_gen_upper_finite", _cor15("upper"), "generalization gap vs the subgaussian / sub-exponential MI bounds on finite instances",
     ("wang2016.cor15_upper_subgaussian", "wang2016.cor15_upper_subexponential")),
    ("mi_cap_finite", _cor15("cap"), "I(A(Z); Z) vs 2 gamma^2 sigma^2 on finite instances", ("wang2016.cor15_mi_cap",)),
    ("okl_gen_equal_finite", map_gen_equals_okl, "On-Average KL-privacy vs on-average generalization error on finite instances",
     ("wang2016.thm4_equivalence", "wang2016.remark1_structural_loss")),
    ("okl_gen_scaled_finite", map_remark2, "generalization of the unscaled loss vs eps/gamma on finite instances",
     ("wang2016.remark2_dispersion",)),
    ("maxinfo_gen_finite", map_cor12, "generalization error vs I_inf(A, n)/n on finite instances",
     ("wang2016.cor12_max_information_generalization",)),
    ("gibbs_minimiser", map_thm9, "minimiser of the entropy-regularised risk vs exp(-gamma L)/K", ("wang2016.thm9_max_entropy",)),
):
    register(Oracle(_name, lambda **kw: None, "profile", (), _desc, mapper=_fn))
    assign(_name, *_ids)

__all__ = ["info_terms", "map_lemma14", "map_gen_equals_okl", "map_remark2", "map_cor12", "map_thm9"]
