r"""He, Wang, Tao: "Tighter generalization bounds for iterative differentially private
learning algorithms".  000 = UAI (short) version, 001 = long (journal) version.

Ids: ``he2021.*`` for statements common to both texts, ``he2021uai.*`` /
``he2021long.*`` where the versions differ.
"""

from __future__ import annotations

import sympy as sp

from ..symbols import eps
from ..theorem import Kind, Property, theorem
from ._sources import HE_UAI, src

D_KL = sp.Symbol("D_KL", nonnegative=True)

#: He et al. Lemma 2 (000) bound on the KL divergence of an eps-DP mechanism
KL_BOUND = eps * (sp.exp(eps) - 1) / (sp.exp(eps) + 1)

THEOREMS = [
    theorem(
        "he2021.lemma_kl",
        "KL divergence of an eps-DP mechanism",
        Kind.BOUND,
        src(HE_UAI, "Lemma 2"),
        lhs=D_KL,
        rhs=KL_BOUND,
        hypotheses=[eps > 0],
        domain={eps: (sp.Rational(1, 10**8), 50)},
        quantity="sup over neighbouring S, S' of D_KL(A(S) || A(S')) for eps-DP A",
        premises=(Property("DP", (eps, sp.Integer(0))),),
        oracle="kl_eps_dp",
        tags=("kl", "flagship"),
    ),
]
