r"""Oracles: the TRUE value of a bounded quantity at concrete parameters (mpmath).

An entry names its oracle in ``Theorem.oracle``; the verifier compares the
entry's claimed value with the oracle's.  Every oracle is a function of
keyword arguments named like the canonical symbols (``epsilon``, ``delta``,
``T``, ``mu``, ``sigma``, ``q``, ``Delta``, ``b``, ``epsilonprime``, ...);
extra arguments are ignored.

Two shapes:

* ``"value"`` oracles return the true value of the bounded quantity (e.g. the
  supremum of the KL divergence over eps-DP pairs).
* ``"profile"`` oracles return the (optimal) privacy profile
  :math:`\delta(\varepsilon')` of a mechanism, evaluated at ``at``; an entry
  whose conclusion is ``(eps', delta')``-DP is checked as
  ``profile(at=eps') <= delta'``.

Oracles whose value has a closed form carry it as ``Oracle.exact`` (a SymPy
expression in the same keyword arguments): the engine proves claims against
it (SymPy identity for a claim that equals it, z3 or an interval certificate
for a strict or loose bound), after re-checking it against the numeric oracle
at sample points; the tests compare each with its oracle at random points.

References (checked here by independent computations, see the tests):

* randomized response KL :math:`\varepsilon\tanh(\varepsilon/2)`; it is the
  supremum over eps-DP pairs (chord bound on :math:`y\log y`, see
  :func:`kl_reduction_smt`).
* [Kairouz, Oh, Viswanath 2017, Thm 3.3] optimal composition.
* [Balle and Wang 2018, Thm 8] Gaussian privacy profile.
* Laplace profile :math:`1 - e^{(\varepsilon - \Delta/b)/2}`.

>>> from symdp.verify.oracles import get_oracle
>>> float(get_oracle("kl_eps_dp")(epsilon=1))  # doctest: +ELLIPSIS
0.46211715726...
"""

from __future__ import annotations

from .oracles_gaussian import _compose_pmf as _compose_pmf
from .oracles_gaussian import _gauss_mu as _gauss_mu
from .oracles_gaussian import _gauss_mu_sym as _gauss_mu_sym
from .oracles_gaussian import _hs_from_pmf as _hs_from_pmf
from .oracles_gaussian import _pmf_losses as _pmf_losses
from .oracles_gaussian import _subsampled_pld as _subsampled_pld
from .oracles_gaussian import gaussian_profile as gaussian_profile
from .oracles_gaussian import gaussian_profile_exact as gaussian_profile_exact
from .oracles_gaussian import laplace_profile as laplace_profile
from .oracles_gaussian import laplace_profile_exact as laplace_profile_exact
from .oracles_gaussian import subsampled_gaussian_bracket as subsampled_gaussian_bracket
from .oracles_gaussian import subsampled_gaussian_profile as subsampled_gaussian_profile
from .oracles_pairs import KL_REDUCTION as KL_REDUCTION
from .oracles_pairs import Phi as Phi
from .oracles_pairs import Phi_inv as Phi_inv
from .oracles_pairs import _mpf as _mpf
from .oracles_pairs import _pick as _pick
from .oracles_pairs import _sym_pick as _sym_pick
from .oracles_pairs import hockey_stick as hockey_stick
from .oracles_pairs import is_dp_pair as is_dp_pair
from .oracles_pairs import kl as kl
from .oracles_pairs import kl_eps_dp as kl_eps_dp
from .oracles_pairs import kov_pair as kov_pair
from .oracles_pairs import mp as mp
from .oracles_pairs import optimal_composition as optimal_composition
from .oracles_pairs import optimal_composition_enum as optimal_composition_enum
from .oracles_pairs import optimal_composition_hetero as optimal_composition_hetero
from .oracles_pairs import random_dp_pair as random_dp_pair
from .oracles_tradeoff import compose_pairs as compose_pairs
from .oracles_tradeoff import gaussian_rdp as gaussian_rdp
from .oracles_tradeoff import gaussian_tradeoff as gaussian_tradeoff
from .oracles_tradeoff import gaussian_tradeoff_exact as gaussian_tradeoff_exact
from .oracles_tradeoff import sgm_hockey_stick as sgm_hockey_stick
from .oracles_tradeoff import sgm_hockey_stick_exact as sgm_hockey_stick_exact
from .oracles_tradeoff import sgm_pld as sgm_pld
from .oracles_tradeoff import sgm_pld_exact as sgm_pld_exact
from .oracles_tradeoff import subsampled_gaussian_tradeoff as subsampled_gaussian_tradeoff
from .oracles_tradeoff import subsampled_gaussian_tradeoff_exact as subsampled_gaussian_tradeoff_exact
from .oracles_tradeoff import tradeoff_dp_composition as tradeoff_dp_composition
from .oracles_tradeoff import tradeoff_of_pair as tradeoff_of_pair
from .registry import ORACLES as ORACLES
from .registry import TRADEOFF_COMPANION as TRADEOFF_COMPANION
from .registry import Oracle as Oracle
from .registry import get_oracle as get_oracle
from .registry import register as register

__all__ = [
    "Oracle", "ORACLES", "register", "get_oracle", "kl_eps_dp", "kl", "hockey_stick", "is_dp_pair", "kov_pair",
    "random_dp_pair", "optimal_composition", "optimal_composition_hetero", "gaussian_profile", "laplace_profile",
    "subsampled_gaussian_bracket", "subsampled_gaussian_profile", "tradeoff_of_pair", "compose_pairs",
    "tradeoff_dp_composition", "gaussian_tradeoff", "sgm_hockey_stick", "sgm_pld",
    "subsampled_gaussian_tradeoff", "TRADEOFF_COMPANION", "gaussian_rdp", "Phi", "Phi_inv", "gaussian_profile_exact",
    "laplace_profile_exact", "gaussian_tradeoff_exact", "subsampled_gaussian_tradeoff_exact", "sgm_hockey_stick_exact",
]
