r"""Machine-checked algebra of the KL reduction [He et al. 2021 (He et al. (UAI)), Lemma 2].

Claim: for an eps-DP pair, :math:`D_{KL}(P\|Q) \le \varepsilon\tanh(\varepsilon/2)`.
Proof: with :math:`y = dP/dQ \in [e^{-\varepsilon}, e^{\varepsilon}]` and
:math:`E_Q[y] = 1`, :math:`D_{KL} = E_Q[y\log y]`.  The function
:math:`f(y) = y\log y` is convex (``f'' = 1/y > 0``), so it lies below its
chord on :math:`[1/x, x]`, :math:`x = e^\varepsilon`; the chord is affine,
so :math:`E_Q[\mathrm{chord}(y)] = \mathrm{chord}(E_Q y) = \mathrm{chord}(1)`.
The two algebraic facts are checked by z3 here:

* ``convexity``: ``y > 0`` implies ``f''(y) = 1/y > 0`` (``f''`` computed by SymPy).
* ``chord``: ``chord(1) = eps (x - 1)/(x + 1)`` for every ``x > 1`` and real eps,
  where ``f(1/x) = -eps/x`` and ``f(x) = eps x``.
"""

from __future__ import annotations

import sympy as sp


def kl_reduction_smt() -> dict[str, str]:
    """SMT-LIB2 texts (each expected ``unsat``) of the algebraic steps of the KL reduction."""
    y = sp.Symbol("y", positive=True)
    f2 = sp.diff(y * sp.log(y), y, 2)
    assert sp.simplify(f2 - 1 / y) == 0, "second derivative of y log y"
    convexity = (
        ";; KL reduction, step 1: f(y) = y log y is convex on y > 0 (SymPy: f''(y) = 1/y)\n"
        "(set-logic QF_NRA)\n(declare-fun y () Real)\n(assert (> y 0.0))\n"
        "(assert (not (> (/ 1.0 y) 0.0)))\n(check-sat)\n"
    )
    chord = (
        ";; KL reduction, step 2: the chord of y log y between a = 1/x and b = x (x = e^eps > 1)\n"
        ";; evaluated at y = 1 equals eps (x - 1)/(x + 1) = eps tanh(eps/2)\n"
        ";; f(a) = (1/x) log(1/x) = -eps/x, f(b) = x log x = eps x\n"
        "(set-logic QF_NRA)\n(declare-fun x () Real)\n(declare-fun eps () Real)\n"
        "(assert (> x 1.0))\n"
        "(define-fun a () Real (/ 1.0 x))\n(define-fun fa () Real (- (/ eps x)))\n(define-fun fb () Real (* eps x))\n"
        "(define-fun chord1 () Real (+ fa (* (- 1.0 a) (/ (- fb fa) (- x a)))))\n"
        "(assert (not (= chord1 (/ (* eps (- x 1.0)) (+ x 1.0)))))\n(check-sat)\n"
    )
    tanh = (
        ";; KL reduction, step 3: eps (x - 1)/(x + 1) = eps tanh(eps/2) with u = e^(eps/2), x = u^2\n"
        "(set-logic QF_NRA)\n(declare-fun u () Real)\n(declare-fun eps () Real)\n(assert (> u 0.0))\n"
        "(assert (not (= (/ (* eps (- (* u u) 1.0)) (+ (* u u) 1.0)) (* eps (/ (- u (/ 1.0 u)) (+ u (/ 1.0 u)))))))\n(check-sat)\n"
    )
    return {"convexity": convexity, "chord": chord, "tanh": tanh}


__all__ = ["kl_reduction_smt"]
