r"""Canonical symbols with SymPy assumptions.

Every library module uses these so that theorems chain by substitution
(the ``eps`` of one theorem is the ``eps`` of the next).  Symbol names are Python identifiers (LaTeX via SymPy modifiers: ``deltatilde`` -> \\tilde{\\delta}, ``epsilonprime`` -> \\epsilon'),
so generated kernels take them as keyword arguments.  Module-local symbols
are fine for quantities that appear in one source only; give them assumptions.
"""

from __future__ import annotations

import sympy as sp

# privacy parameters
eps = sp.Symbol("epsilon", positive=True)  # per-mechanism epsilon
delta = sp.Symbol("delta", positive=True)  # per-mechanism delta (0 < delta < 1 in hypotheses)
eps_p = sp.Symbol("epsilonprime", positive=True)  # composed epsilon
delta_p = sp.Symbol("deltaprime", positive=True)  # composed delta
delta_t = sp.Symbol("deltatilde", positive=True)  # slack delta of advanced composition
mu = sp.Symbol("mu", positive=True)  # GDP parameter
alpha = sp.Symbol("alpha", positive=True)  # Renyi order / trade-off argument
beta = sp.Symbol("beta", positive=True)  # failure probability of approximate max-information
k = sp.Symbol("k", positive=True)  # max-information budget / group size

# mechanisms and training
sigma = sp.Symbol("sigma", positive=True)  # noise multiplier (noise std / sensitivity)
q = sp.Symbol("q", positive=True)  # sampling rate, 0 < q <= 1
p = sp.Symbol("p", positive=True)  # sampling probability in Bu et al. notation
T = sp.Symbol("T", positive=True, integer=True)  # number of steps / compositions
E = sp.Symbol("E", positive=True, integer=True)  # epochs
C = sp.Symbol("C", positive=True)  # clipping norm
Delta = sp.Symbol("Delta", positive=True)  # sensitivity
b = sp.Symbol("b", positive=True)  # Laplace scale

# data
n = sp.Symbol("n", positive=True, integer=True)  # sample size
N = sp.Symbol("N", positive=True, integer=True)  # sample size (He et al. notation)
m = sp.Symbol("m", positive=True, integer=True)  # number of clients / batch size
x = sp.Symbol("x", real=True)  # generic real argument
t = sp.Symbol("t", real=True)



def range_symbol(name: str, lo: float, integer: bool) -> sp.Symbol:
    """A real symbol for a quantity declared on ``[lo, hi]`` (claim and theorem files): positive when
    ``lo > 0``, nonnegative when ``lo >= 0``, integer when declared so.  (Not in ``__all__``, which
    lists the canonical symbols themselves.)"""
    assumptions: dict[str, bool] = {"real": True}
    if lo > 0:
        assumptions["positive"] = True
    elif lo >= 0:
        assumptions["nonnegative"] = True
    if integer:
        assumptions["integer"] = True
    return sp.Symbol(name, **assumptions)


__all__ = [
    "eps", "delta", "eps_p", "delta_p", "delta_t", "mu", "alpha", "beta", "k",
    "sigma", "q", "p", "T", "E", "C", "Delta", "b", "n", "N", "m", "x", "t",
]
