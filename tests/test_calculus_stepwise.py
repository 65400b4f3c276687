"""Issue 22, item 5: a chain with every symbol bound is evaluated step by step (each step's conclusion
parameters become numbers before the next step unifies with them), so a long chain prints its numbers within
the limit.  Oracles: the symbolic path (the full closed form, then bound) at chains it can finish -- values to
1e-30 relative, refusals with the same message -- and the 17-step chain's numbers written out by hand in mpmath.
"""

from __future__ import annotations

import json
import re
import time

import mpmath
import pytest
from click.testing import CliRunner

from symdp.calculus import (
    WORKED_CHAINS,
    _bind,
    _chain_steps,
    _parse_binding,
    _StepNumbers,
    _strip_branch,
    chain,
    implication,
)
from symdp.cli import main
from symdp.errors import InvalidParameterError
from symdp.library import get

W = WORKED_CHAINS["gaussian_poisson_dwork_roth_he_thm1"]
CS = {f"c{i}": 1 for i in range(1, 8)}
BIND = {"Delta": 1, "sigma": 50, "delta": 1e-9, "q": 0.01, "T": 100, "deltatilde": 1e-8, "N": 10**9, **CS}


def _rounds(n: int) -> tuple[str, ...]:
    """Gaussian, n x (Poisson subsampling, advanced composition), group privacy, He et al. Thm 1."""
    return (W[0],) + (W[1], W[2]) * n + (W[3], W[4])


def _both(ids, bind):
    """(step-by-step, symbolic) derivations or the InvalidParameterError each raises; the step-by-step one
    without the fallback (its _Fallback propagates: the chain must be followed step by step)."""
    ids = tuple(ids)
    bare = [_strip_branch(i)[0] for i in ids]
    imps, ths = [implication(i) for i in bare], [get(i) for i in bare]
    values = _parse_binding(bind)
    out = []
    for run in ("step", "symbolic"):
        try:
            if run == "step":
                num = _StepNumbers(values)
                out.append(num.bind(_chain_steps(ids, imps, ths, num)))
            else:
                out.append(_bind(_chain_steps(ids, imps, ths, None), values))
        except InvalidParameterError as exc:
            out.append(exc)
    return out


EQUAL = [
    (W, BIND),
    (W, {**BIND, "sigma": 30, "q": 0.005, "T": 50, "N": 10**12}),
    (W, {**BIND, "delta": 1e-6, "deltatilde": 1e-5}),
    (_rounds(2), BIND),
    (WORKED_CHAINS["sgld_001"], {"L": 1, "sigma": 1, "tau": 64, "N": 10**4, "T": 10**4, "delta": 1e-6,
                                 "deltatilde": 1e-5}),
    (("bu2020.gaussian_mechanism_gdp", "+bu2020.gaussian_mechanism_gdp", "bu2020.gdp_composition"),
     {"Delta": 1, "sigma": 2, "Delta_2": 1.5, "sigma_2": 5}),
    # the subsampled Gaussian's RDP (an opaque function evaluated by its own evalf) -> CKS -> He et al.
    (WORKED_CHAINS["sgm_rdp_cks_he_thm1"], {"N": 10**12, "T": 10, "alpha": 64, "delta": 1e-6, "q": 0.001, "sigma": 10}),
]


@pytest.mark.parametrize("ids,bind", EQUAL)
def test_step_by_step_values_equal_the_symbolic_paths(ids, bind):
    step, sym = _both(ids, bind)
    assert not isinstance(sym, Exception), sym
    assert not isinstance(step, Exception), step
    a, b = step.values(), sym.values()
    assert set(a) == set(b) and a
    for k in a:
        assert abs(a[k] - b[k]) <= 1e-30 * abs(b[k]), (k, a[k], b[k])
    assert step.hypotheses == sym.hypotheses == ()


REFUSED = [
    (W, {**BIND, "sigma": 1}),                      # the Gaussian calibration's eps < 1
    (W, {**BIND, "N": 10}),                         # He et al. Thm 1's N >= Max(...)
    (W, {**BIND, "sigma": 5}),                      # He et al. Thm 1's eps <= 1/5
    (W, {**BIND, "delta": 1e-2, "deltatilde": 0.5}),  # a delta past 1 part way
    (W, {**BIND, "nope": 1}),                       # not a symbol of the chain
    (W, {**BIND, "q": 2}),                          # out of range
    (["bridge.mtz2019_sgm_rdp", "accounting.rdp_to_dp_cks", "bridge.dwork_roth_basic_composition_eps",
      "bridge.dwork_roth_basic_composition_eps", "bridge.group_privacy_dp"],
     {"sigma": 4, "q": 0.2, "T": 1000, "delta": 1e-6, "alpha": 2}),  # T^2 delta < 1: a tie decided exactly
]


@pytest.mark.parametrize("ids,bind", REFUSED)
def test_step_by_step_refuses_as_the_symbolic_path(ids, bind):
    step, sym = _both(ids, bind)
    assert isinstance(sym, InvalidParameterError), sym.values()
    assert isinstance(step, InvalidParameterError) and str(step) == str(sym)


def _oracle(n: int, Delta=1, sigma=50, delta="1e-9", q="0.01", T=100, dt="1e-8"):
    """(gap, failure) of _rounds(n) written out in mpmath: the Gaussian calibration, n x (Poisson subsampling,
    advanced composition), group privacy (2 eps, (1 + e^eps) delta), He et al. Thm 1 (small eps)."""
    with mpmath.workdps(60):
        Delta, sigma, delta, q, T, dt = (mpmath.mpf(x) for x in (Delta, sigma, delta, q, T, dt))
        eps, d = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(5) / (4 * delta))) * Delta / sigma, delta
        for _ in range(n):
            eps, d = mpmath.log(1 + q * (mpmath.exp(eps) - 1)), q * d
            eps, d = mpmath.sqrt(2 * T * mpmath.log(1 / dt)) * eps + T * eps * (mpmath.exp(eps) - 1), T * d + dt
        eps, d = 2 * eps, (1 + mpmath.exp(eps)) * d
        return 4 * eps, 2 * d * mpmath.exp(-mpmath.mpf(17) / 10 * eps) * mpmath.log(2 / eps) / eps


def _close(a, b, rel: float) -> bool:
    with mpmath.workdps(60):
        a, b = mpmath.mpf(str(a)), mpmath.mpf(str(b))
        return bool(abs(a - b) <= rel * abs(b))


def test_the_oracle_is_the_symbolic_chain_at_one_round():
    sym = _both(W, BIND)[1].values()
    gap, failure = _oracle(1)
    assert _close(sym["gap"], gap, 1e-35) and _close(sym["failure"], failure, 1e-35)


def test_17_step_chain_prints_its_numbers_within_the_limit():
    ids = _rounds(7)
    assert len(ids) == 17
    args = ["derive", "--chain", ",".join(ids), "--json"] + [f"--bind={k}={v}" for k, v in BIND.items()]
    t0 = time.monotonic()
    res = CliRunner().invoke(main, args)
    wall = time.monotonic() - t0
    assert res.exit_code == 0, res.output
    assert wall < 30, wall  # the CLI's limit itself (it ran past it before: no number printed)
    out = json.loads(res.output)
    gap, failure = _oracle(7)
    assert _close(out["values"]["gap"], gap, 1e-12) and _close(out["values"]["failure"], failure, 1e-12)
    v = chain(ids, bind=BIND).values()  # the API's 40 digits
    assert _close(v["gap"], gap, 1e-30) and _close(v["failure"], failure, 1e-30)


def test_17_step_chain_refuses_a_violated_hypothesis_within_the_limit():
    ids = _rounds(7)
    t0 = time.monotonic()
    with pytest.raises(InvalidParameterError, match=r"violates hypothesis .* of range of the conclusion .*= 1\.48"):
        chain(ids, bind={**BIND, "delta": 1e-6, "deltatilde": 1e-5})
    assert time.monotonic() - t0 < 30


def test_a_partial_bind_stays_symbolic():
    d = chain(W, bind={"Delta": 1, "sigma": 50})
    assert {"delta", "q", "T"} <= {s.name for s in d.free_symbols}
    assert re.search(r"q", str(d.closed_form("gap")))


def test_ignore_extra_drops_names_the_chain_does_not_use_on_both_paths():
    """The referee binds one dict to every prefix: with ``ignore_extra`` a name that is not a symbol of the chain
    is dropped (``bound`` lists those used) and the values are those of the filtered bind, on the step-by-step path
    and on the symbolic one (a partial bind); without it the name is refused."""
    prefix = W[:3]
    used = {k: BIND[k] for k in ("Delta", "sigma", "delta", "q", "T", "deltatilde")}
    want = chain(prefix, bind=used)
    got = chain(prefix, bind=BIND, ignore_extra=True)
    assert dict(got.bound) == dict(want.bound) and set(dict(got.bound)) == set(used)
    assert got.values() == want.values()
    with pytest.raises(InvalidParameterError, match="is not a symbol of the chain"):
        chain(prefix, bind=BIND)
    partial = {k: v for k, v in BIND.items() if k != "T"}  # T unbound: the symbolic path binds the rest
    sym = chain(prefix, bind=partial, ignore_extra=True)
    assert set(dict(sym.bound)) == {"Delta", "sigma", "delta", "q", "deltatilde"} and {s.name for s in sym.free_symbols} == {"T"}
