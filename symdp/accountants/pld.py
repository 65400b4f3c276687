r"""Tight accountant: privacy loss distributions, connect-the-dots discretisation, FFT composition.

For one DP-SGD step (Poisson rate ``q``, noise multiplier ``sigma``, add/remove
adjacency) the two dominating pairs are

* remove: ``P = (1-q) N(0, s^2) + q N(1, s^2)`` vs ``Q = N(0, s^2)``, loss
  ``L(x)`` = ``accounting.sgm_loss_remove``;
* add: ``P' = N(0, s^2)`` vs ``Q' = P``, loss ``-L(x)``.

Both losses are monotone in ``x``; the interval ``{ell_j < L <= ell_{j+1}}``
is an interval in ``x`` whose end points are ``accounting.sgm_loss_remove_inverse``
(``x_star``), so its P- and Q-masses are differences of Gaussian CDFs.

**Discretisation (pessimistic, rigorous).**  Losses live on the grid
``ell_j = j h``.  Each interval's P-mass is split between its two end points so
that both its P-mass and its Q-mass are preserved ("connect the dots",
Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022): the discrete pair's privacy
profile ``delta(e^eps)`` is the piecewise-linear interpolation (in ``e^eps``)
of the exact, convex profile at the grid points, hence >= it everywhere.  The
lower tail ``L <= ell_lo`` is rounded up to ``ell_lo``; beyond ``ell_hi`` the
pair keeps ``e^{ell_hi} Q(L > ell_hi)`` at ``ell_hi`` and puts
``H(ell_hi) = P(L > ell_hi) - e^{ell_hi} Q(L > ell_hi)`` at ``+inf``.  So the
discrete pair dominates the true one (as trade-off functions), and dominance
survives composition.

**Composition.**  All steps' discrete PMFs are transformed once (rFFT of
length ``N``), raised elementwise to their step counts (repeated squaring,
``2 log2 T`` complex products), multiplied and transformed back.  The cyclic result on the window ``[Lo, Lo + N h)`` equals
the true composed PMF there *plus* the non-negative mass that wraps around, so
it over-estimates every delta; the mass of the composed distribution above the
window is bounded by a Chernoff bound computed from the discrete PMFs' moment
generating functions and added to delta.  ``Lo``/``N`` are chosen by the same
bound so that the wrapped mass is below ``tail_tol``.

**Tail budget.**  The truncation points are parameters, not approximations:
``discretize_step(tail=...)`` cuts each step's loss range where the Gaussian
components have less than ``tail`` mass beyond it (lower cut rounded up, upper
excess to ``+inf``, whose composed mass is added to delta), and
``compose(tail_tol=...)`` sizes the window so that the Chernoff bound on the
mass above it (added to delta) is below ``tail_tol``.  The accountant spends
``1e-3 * delta`` on these (``api._TAIL_BUDGET``), which keeps the grids short
for every delta without giving up the upper bound.

**Evaluation.**  ``delta(eps) = sum_{ell > eps} p(ell) (1 - e^{eps - ell})``
is evaluated from suffix sums scaled relative to the atom at hand, so
losses beyond ``log(DBL_MAX) ~ 709`` (epsilon in the hundreds) neither
overflow nor lose the upper bound.

**What is bounded and what is estimated.**  ``delta`` returned is an upper
bound for the composed mechanism up to floating-point rounding of the Gaussian
CDF differences and of the FFT; the latter is estimated a posteriori
(``roundoff``) and added.  The accountant's ``error_bound`` is a Richardson
estimate of the discretisation error (grids ``h`` and ``2h``, the latter built
from the same CDF values by :func:`discretize_step_pair`): an estimate of how
far the upper bound is above the true value, not a proof.

The code lives in :mod:`.pld_grid` (one step on a grid), :mod:`.pld_compose` (FFT composition) and
:mod:`.pld_exact` (the GDP profile and the inclusion-count bound); this module re-exports every name.
"""

from __future__ import annotations

import math

from .pld_compose import _LAM_BOTH as _LAM_BOTH
from .pld_compose import _LAM_GRID as _LAM_GRID
from .pld_compose import _LAMS as _LAMS
from .pld_compose import ComposedPLD as ComposedPLD
from .pld_compose import _cpow as _cpow
from .pld_compose import _log_mgf as _log_mgf
from .pld_compose import _moments as _moments
from .pld_compose import _scaled_suffix as _scaled_suffix
from .pld_compose import _window as _window
from .pld_compose import _wrap as _wrap
from .pld_compose import compose as compose
from .pld_exact import MAX_COUNT_TERMS as MAX_COUNT_TERMS
from .pld_exact import _binom_log_sf as _binom_log_sf
from .pld_exact import _count_delta as _count_delta
from .pld_exact import _inclusion_counts as _inclusion_counts
from .pld_exact import composed_mu as composed_mu
from .pld_exact import gdp_delta as gdp_delta
from .pld_exact import gdp_epsilon as gdp_epsilon
from .pld_exact import gdp_log_delta as gdp_log_delta
from .pld_exact import inclusion_count_delta as inclusion_count_delta
from .pld_exact import inclusion_count_epsilon as inclusion_count_epsilon
from .pld_grid import _SMOOTH as _SMOOTH
from .pld_grid import _SMOOTH_MAX as _SMOOTH_MAX
from .pld_grid import _U as _U
from .pld_grid import MAX_POINTS as MAX_POINTS
from .pld_grid import DiscretePLD as DiscretePLD
from .pld_grid import _between as _between
from .pld_grid import _build_dir as _build_dir
from .pld_grid import _discretize as _discretize
from .pld_grid import _grid_range as _grid_range
from .pld_grid import _loss as _loss
from .pld_grid import _next_fast_len as _next_fast_len
from .pld_grid import _pmf_from_masses as _pmf_from_masses
from .pld_grid import _xstar as _xstar
from .pld_grid import discretize_step as discretize_step
from .pld_grid import discretize_step_lower as discretize_step_lower
from .pld_grid import discretize_step_pair as discretize_step_pair
from .pld_grid import discretize_step_pairs as discretize_step_pairs
from .pld_grid import step_loss_range as step_loss_range


def default_interval(total_steps: int, delta: float = 1e-5) -> float:
    """Grid spacing for a run of ``total_steps`` steps: the connect-the-dots error per step is O(h^2)."""
    return float(min(2e-2, max(2e-4, 0.05 / math.sqrt(max(total_steps, 1)))))


__all__ = ["ComposedPLD", "DiscretePLD", "MAX_POINTS", "compose", "composed_mu", "default_interval", "discretize_step", "discretize_step_pair",
           "discretize_step_pairs", "gdp_delta", "gdp_epsilon", "gdp_log_delta", "inclusion_count_delta",
           "inclusion_count_epsilon", "step_loss_range"]
