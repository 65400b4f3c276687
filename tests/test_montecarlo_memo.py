"""The Monte Carlo oracles are memoised on their arguments (session 35): wang2016.example_linreg_gen and _okl, chained
in one audit worker, estimate the two quantities of one simulation at the same five points and seeds.  A memoised
value is, bit for bit, the simulation run afresh, and a caller gets its own copy."""

from __future__ import annotations

from symdp.library.kl_privacy import laplace_mean_mc, linreg_mc
from symdp.verify import montecarlo as mc


def test_a_memoised_simulation_is_the_fresh_one() -> None:
    mc._linreg_at.cache_clear()
    mc._laplace_at.cache_clear()
    kw = {"gamma": 1.1094273944918023, "n": 84.0, "k": 1, "n_mc": 20_000, "seed": 2}  # a point of the audit's sample
    first = mc._linreg(**kw)
    first["gen"] = (0.0, 0.0)  # the caller's copy: the memo keeps the simulation's values
    again = mc._linreg(**kw)
    assert mc._linreg_at.cache_info().hits == 1
    assert again == linreg_mc(gamma=kw["gamma"], n=84, k=1, n_mc=20_000, seed=2) != first
    lp = {"gamma": 0.5, "s_Z": 0.7, "n_mc": 20_000, "seed": 3}
    assert mc._laplace(**lp) == mc._laplace(**lp) == laplace_mean_mc(gamma=0.5, s_Z=0.7, n_mc=20_000, seed=3)
    assert mc._laplace_at.cache_info().hits == 1
    assert mc._linreg(**(kw | {"seed": 3})) != again  # another seed, another simulation
